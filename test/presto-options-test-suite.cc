/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// End-to-end tests of the experiment options users of data-center simulators ask for:
// topologies from a file, incast bursts over background load, queue and drop/mark traces,
// mixed fabrics. Real simulations, assertions on their records and output files.

#include "experiment-checks.h"

#include "ns3/input-file.h"
#include "ns3/spray-experiment.h"
#include "ns3/test.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ns3;

namespace
{

std::string
ReadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// quiet, no plot, into out
SprayExperimentConfig
BaseConfig(const std::string& out)
{
    SprayExperimentConfig c;
    c.out = out;
    c.quiet = true;
    c.plot = false;
    return c;
}

} // namespace

/**
 * The shipped HPCC topology.txt of the built-in 4x4x8 leaf-spine gives, for the same seed,
 * the same fct.csv byte for byte as --topology=leaf-spine 4x4x8: same flows, same paths,
 * same FCTs.
 */
class TopologyFileEquivalenceTestCase : public TestCase
{
  public:
    /// \param device the endpoint
    explicit TopologyFileEquivalenceTestCase(const std::string& device)
        : TestCase("topology file = built-in 4x4x8 leaf-spine, same fct.csv (" + device + ")"),
          m_device(device)
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-options", "topo-" + m_device);
        SprayExperimentConfig builtIn = BaseConfig(dir + "/built-in");
        builtIn.device = m_device;
        builtIn.leaves = 4;
        builtIn.spines = 4;
        builtIn.hostsPerLeaf = 8;
        builtIn.simTime = 0.005;
        builtIn.seed = 5;
        SprayExperimentConfig file = builtIn;
        file.out = dir + "/file";
        file.leaves = SprayExperimentConfig().leaves; // the file gives the shape
        file.spines = SprayExperimentConfig().spines;
        file.hostsPerLeaf = SprayExperimentConfig().hostsPerLeaf;
        file.topology = PrestoDataPath("topology/leaf-spine-4x4x8.txt");
        SprayExperiment a(builtIn);
        a.Run();
        SprayExperiment b(file);
        b.Run();
        NS_TEST_ASSERT_MSG_GT(a.GetRecords().size(), 20, "a workload worth comparing");
        NS_TEST_EXPECT_MSG_EQ(a.GetSummary().unfinished, 0, "built-in: every flow finishes");
        const std::string csvA = ReadFile(dir + "/built-in/fct.csv");
        const std::string csvB = ReadFile(dir + "/file/fct.csv");
        NS_TEST_EXPECT_MSG_EQ((csvA == csvB), true, "fct.csv byte-identical");
        NS_TEST_EXPECT_MSG_EQ(
            (ReadFile(dir + "/built-in/flows.txt") == ReadFile(dir + "/file/flows.txt")),
            true,
            "flows.txt byte-identical");
        NS_TEST_EXPECT_MSG_EQ(a.GetReport()["fabric"], b.GetReport()["fabric"], "same switches");
        std::filesystem::remove_all(dir);
    }

    std::string m_device; //!< endpoint
};

/** The experiment options' suite. */
class PrestoOptionsTestSuite : public TestSuite
{
  public:
    PrestoOptionsTestSuite()
        : TestSuite("presto-experiment-options", SYSTEM)
    {
        AddTestCase(new TopologyFileEquivalenceTestCase("host-tcp"), TestCase::QUICK);
        AddTestCase(new TopologyFileEquivalenceTestCase("presto"), TestCase::QUICK);
    }
};

static PrestoOptionsTestSuite g_prestoOptionsTestSuite; //!< the suite
