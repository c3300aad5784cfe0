/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_TEST_INPUT_ERROR_MATCHERS_H
#define PRESTO_TEST_INPUT_ERROR_MATCHERS_H

// Helpers for unit tests that check PrestoInputError messages.

#include "ns3/presto-input-error.h"

#include <initializer_list>
#include <string>

namespace ns3
{
namespace test
{

/// Run f, expect PrestoInputError, and return its message ("" if nothing was thrown).
template <typename F>
std::string
ErrorOf(F&& f)
{
    try
    {
        f();
    }
    catch (const PrestoInputError& e)
    {
        return e.what();
    }
    return "";
}

/// \return true if s contains every part
inline bool
Contains(const std::string& s, std::initializer_list<const char*> parts)
{
    for (const char* p : parts)
    {
        if (s.find(p) == std::string::npos)
        {
            return false;
        }
    }
    return true;
}

} // namespace test
} // namespace ns3

#endif // PRESTO_TEST_INPUT_ERROR_MATCHERS_H
