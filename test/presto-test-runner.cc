/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The packaged ns-3 ships no test-runner: this main() runs the TestSuites linked into it,
// with test.py's options (--suite=NAME, --list, --verbose).
#include "ns3/test.h"

int
main(int argc, char** argv)
{
    return ns3::TestRunner::Run(argc, argv);
}
