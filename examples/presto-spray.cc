/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The main experiment: flows from a data-center workload cross a multipath fabric with
// packet spraying; every host runs the chosen endpoint; flow completion times are recorded.
//
//   presto-spray --device=host-tcp --lb=spray --workload=websearch --load=0.5 --out=results/x
//
// Writes fct.csv, summary.json, flows.txt and fct.png into --out and prints a table.
// Any ns-3 attribute can be set too, e.g. --ns3::FabricSwitch::EcnThreshold=30000.
// A configuration error prints one line naming the option, attribute or file and line, and
// exits with status 1 before anything is written.

#include "ns3/presto-command-line.h"
#include "ns3/presto-main.h"
#include "ns3/spray-experiment.h"

#include <iostream>

using namespace ns3;

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    SprayExperimentConfig config;
    PrestoCommandLine cmd(__FILE__);
    config.AddToCommandLine(cmd);
    ParseCommandLine(cmd, argc, argv);
    SprayExperiment experiment(config);
    experiment.Run();
    return 0;
}

int
main(int argc, char* argv[])
{
    return RunPrestoMain("presto-spray", [argc, argv] { return Main(argc, argv); });
}
