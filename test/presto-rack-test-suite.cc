/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Presto on the rack switch (--prestoPlacement=tor, PrestoRackPipeline): the rack's hosts
// share one pipeline's packet rate and connection slots, against a NIC per host.

#include "experiment-checks.h"

#include "ns3/config.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/spray-experiment.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

/// 64-byte RPC on 2 racks of 8 hosts at 100 Gbit/s, Presto K=1 placed as given
nlohmann::json
RunRack(const std::string& name, const std::string& placement, uint32_t connections)
{
    SprayExperimentConfig c;
    c.out = presto_test::FreshTempDir("presto-test-rack", name);
    c.quiet = true;
    c.plot = false;
    c.device = "presto";
    c.fidelity = "1";
    c.workload = "rpc";
    c.rpcConnections = connections;
    c.hostsPerLeaf = 8;
    c.hostRate = "100Gbps";
    c.coreRate = "400Gbps";
    c.simTime = 0.0015;
    c.prestoPlacement = placement;
    SprayExperiment e(c);
    e.Run();
    return e.GetReport();
}

/**
 * The rack's pipeline binds where a NIC per host does not: the same offered work on one
 * pipeline per rack waits for slots and overflows its input buffer, and answers fewer
 * requests; summed counters count the shared pipeline once.
 */
class RackPipelineBindsTestCase : public TestCase
{
  public:
    RackPipelineBindsTestCase()
        : TestCase("tor: one pipeline per rack binds where a NIC per host does not")
    {
    }

  private:
    void DoRun() override
    {
        const auto host = RunRack("host", "host", 300);
        const auto tor = RunRack("tor", "tor", 300);
        const auto& h = host["nic"];
        const auto& t = tor["nic"];
        std::cout << "requests/s host " << host["rpc"]["requests_per_s"] << " tor "
                  << tor["rpc"]["requests_per_s"] << "; utilisation "
                  << h["pipeline_utilisation_max"] << " / " << t["pipeline_utilisation_max"]
                  << " (busiest 100 us: " << h["pipeline_utilisation_peak"] << " / "
                  << t["pipeline_utilisation_peak"] << ")"
                  << "; buffer drops " << t["pipeline_buffer_drops"] << std::endl;
        NS_TEST_EXPECT_MSG_EQ(t["placement"].get<std::string>(), "tor", "placed on the rack");
        NS_TEST_EXPECT_MSG_EQ(t["hosts_per_pipeline"].get<uint32_t>(), 8, "8 hosts per pipeline");
        NS_TEST_EXPECT_MSG_GT(t["pipeline_utilisation_max"].get<double>(),
                              2 * h["pipeline_utilisation_max"].get<double>(),
                              "the rack's pipeline is busier");
        // bound: some 100 us window of the rack's pipeline has every slot busy
        NS_TEST_EXPECT_MSG_EQ_TOL(t["pipeline_utilisation_peak"].get<double>(),
                                  1.0,
                                  0.01,
                                  "the rack's pipeline is saturated in its busiest window");
        NS_TEST_EXPECT_MSG_LT(h["pipeline_utilisation_peak"].get<double>(),
                              0.5,
                              "a NIC per host is not");
        NS_TEST_EXPECT_MSG_GT(t["pipeline_slot_waits"].get<uint64_t>(),
                              h["pipeline_slot_waits"].get<uint64_t>(),
                              "passes wait for the shared slots");
        NS_TEST_EXPECT_MSG_GT(t["pipeline_buffer_drops"].get<uint64_t>(),
                              0,
                              "its input buffer overflows");
        NS_TEST_EXPECT_MSG_LT(tor["rpc"]["requests_per_s"].get<double>(),
                              host["rpc"]["requests_per_s"].get<double>(),
                              "fewer requests answered");
        // the shared slots are reported once per rack: the passes of 2 pipelines cannot
        // exceed what 2 pipelines execute in the run
        const double capacity = 2 * t["pipeline_pass_rate_per_s"].get<double>() * 0.0015 * 1.5;
        NS_TEST_EXPECT_MSG_LT(t["pipeline_slot_passes"].get<double>(),
                              capacity,
                              "each rack's passes counted once");
        NS_TEST_EXPECT_MSG_EQ(tor["rpc"]["corrupt_bytes"].get<uint64_t>(), 0, "bytes intact");
    }
};

/** The connection arrays are the rack's: MaxConnections per rack, not per host. */
class RackConnectionSlotsTestCase : public TestCase
{
  public:
    RackConnectionSlotsTestCase()
        : TestCase("tor: MaxConnections connection slots per rack, not per host")
    {
    }

  private:
    void DoRun() override
    {
        // 150 connections per host: 300 ends per host, 2,400 per rack of 8, over 2,048 slots
        Config::SetDefault("ns3::OffloadNetDevice::MaxConnections", UintegerValue(2048));
        const auto host = RunRack("slots-host", "host", 150);
        const auto tor = RunRack("slots-tor", "tor", 150);
        Config::SetDefault("ns3::OffloadNetDevice::MaxConnections", UintegerValue(32768));
        NS_TEST_EXPECT_MSG_EQ(host["nic"]["connections_refused"].get<uint64_t>(),
                              0,
                              "a host's 300 ends fit its own 2,048 slots");
        NS_TEST_EXPECT_MSG_GT(tor["nic"]["connections_refused"].get<uint64_t>(),
                              0,
                              "a rack's 2,400 ends do not fit its 2,048");
        NS_TEST_EXPECT_MSG_EQ(tor["nic"]["rack_connections_max"].get<uint64_t>(),
                              2048,
                              "the rack's slots fill up");
    }
};

/** Placement=tor without a rack, or on a design that has no such attribute, is refused. */
class RackRefusalsTestCase : public TestCase
{
  public:
    RackRefusalsTestCase()
        : TestCase("tor: refused for other designs; a bad placement named")
    {
    }

  private:
    void DoRun() override
    {
        auto refused = [](const std::string& device, const std::string& placement) {
            SprayExperimentConfig c;
            c.out = presto_test::FreshTempDir("presto-test-rack", "bad");
            c.device = device;
            c.prestoPlacement = placement;
            try
            {
                SprayExperiment e(c);
            }
            catch (const PrestoInputError& e)
            {
                return std::string(e.what()).find("prestoPlacement") != std::string::npos;
            }
            return false;
        };
        NS_TEST_EXPECT_MSG_EQ(refused("flextoe", "tor"), true, "FlexTOE has no rack pipeline");
        NS_TEST_EXPECT_MSG_EQ(refused("presto", "spine"), true, "host or tor");
        NS_TEST_EXPECT_MSG_EQ(refused("presto", "tor"), false, "Presto takes it");
    }
};

/** The suite. */
class PrestoRackTestSuite : public TestSuite
{
  public:
    PrestoRackTestSuite()
        : TestSuite("presto-rack", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new RackRefusalsTestCase, compat::TestDuration::QUICK);
        AddTestCase(new RackConnectionSlotsTestCase, compat::TestDuration::QUICK);
        AddTestCase(new RackPipelineBindsTestCase, compat::TestDuration::QUICK);
    }
};

static PrestoRackTestSuite g_prestoRackTestSuite; //!< registers the suite

} // namespace
