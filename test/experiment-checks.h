/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_TEST_EXPERIMENT_CHECKS_H
#define PRESTO_TEST_EXPERIMENT_CHECKS_H

// Checks shared by the ns-3 test suites that run whole experiments.

#include "ns3/spray-experiment.h"
#include "ns3/test.h"

#include <filesystem>
#include <string>
#include <unistd.h>

namespace ns3
{
namespace presto_test
{

/**
 * \param prefix suite prefix \param name case name
 * \return a fresh, empty temporary directory unique to this process
 */
inline std::string
FreshTempDir(const std::string& prefix, const std::string& name)
{
    auto dir = std::filesystem::temp_directory_path() /
               (prefix + "-" + std::to_string(getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

} // namespace presto_test
} // namespace ns3

/**
 * Every flow of a finished SprayExperiment `e` delivered every byte exactly once and in order
 * (payload verified by the endpoint). Use inside a TestCase's DoRun.
 */
#define PRESTO_EXPECT_EXACT_DELIVERY(e)                                                            \
    do                                                                                             \
    {                                                                                              \
        const auto& rep_ = (e).GetReport();                                                        \
        uint64_t bytes_ = 0;                                                                       \
        for (const auto& f_ : (e).GetFlows())                                                      \
        {                                                                                          \
            bytes_ += f_.sizeBytes;                                                                \
        }                                                                                          \
        NS_TEST_EXPECT_MSG_EQ(rep_["unfinished"].get<uint64_t>(), 0, "all flows finish");          \
        NS_TEST_EXPECT_MSG_EQ(rep_["delivery"]["bytes_delivered"].get<uint64_t>(),                 \
                              bytes_,                                                              \
                              "every byte arrives");                                               \
        NS_TEST_EXPECT_MSG_EQ(rep_["delivery"]["corrupt_bytes"].get<uint64_t>(), 0, "in order");   \
        NS_TEST_EXPECT_MSG_EQ(rep_["delivery"]["excess_bytes"].get<uint64_t>(), 0, "once");        \
    } while (false)

#endif // PRESTO_TEST_EXPERIMENT_CHECKS_H
