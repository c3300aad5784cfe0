/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// CoraNetDevice on real simulations: the FCT experiment with the TCP connection-table
// program delivers every byte exactly once and in order for every strategy; migrations under
// traffic lose nothing and reorder nothing; under NIC overload, state partition drops and
// Cora's controller moves connections to host cores instead.

#include "experiment-checks.h"

#include "ns3/config.h"
#include "ns3/cora-net-device.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/spray-experiment.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ns3;

namespace
{

SprayExperimentConfig
CoraConfig(const std::string& out, const std::string& strategy)
{
    SprayExperimentConfig c;
    c.hostCores = 0;        // the network and the NICs against their own limits: host work is free
    c.verifyPayload = true; // transport tests compare every byte
    c.device = "cora";
    c.coraStrategy = strategy;
    c.out = out;
    c.quiet = true;
    c.plot = false;
    c.simTime = 0.005;
    c.load = 0.6;
    return c;
}

uint64_t
Nic(const SprayExperiment& e, const char* key)
{
    return e.GetReport()["nic"].value(key, uint64_t(0));
}

/// Migration trace sink: counts. \param n counter \param e the migration
void
CountMigration(uint64_t* n, const CoraMigrationEvent& e)
{
    ++*n;
}

/**
 * Make one host's NIC too slow for its traffic: the connection-table program gets a small
 * share of the modelled Netronome rate (other tenants use the rest).
 */
void
SlowNic(double scale, uint32_t queue)
{
    Config::SetDefault("ns3::CoraNetDevice::NicRateScale", DoubleValue(scale));
    Config::SetDefault("ns3::CoraNetDevice::NicQueue", UintegerValue(queue));
}

} // namespace

/** Every strategy, sprayed and loaded, and with 1% loss: every byte once and in order. */
class CoraDeliveryTestCase : public TestCase
{
  public:
    CoraDeliveryTestCase()
        : TestCase("cora: the FCT experiment delivers every byte once and in order")
    {
    }

  private:
    void DoRun() override
    {
        std::string dir = presto_test::FreshTempDir("cora-test", "delivery");
        for (std::string strategy : {"cora", "state", "flow"})
        {
            SprayExperimentConfig c = CoraConfig(dir + "/" + strategy, strategy);
            SprayExperiment e(c);
            e.Run();
            PRESTO_EXPECT_EXACT_DELIVERY(e);
            NS_TEST_EXPECT_MSG_GT(Nic(e, "cora_packets"), 0, "segments ran the program");
            NS_TEST_EXPECT_MSG_EQ(Nic(e, "nic_drops"), 0, "an unloaded NIC drops nothing");
            // the default NIC holds every connection: nothing runs on host cores
            NS_TEST_EXPECT_MSG_EQ(Nic(e, "cora_host_packets"), 0, "all on the NIC");
        }
        {
            SprayExperimentConfig c = CoraConfig(dir + "/loss", "cora");
            c.lossRate = 0.01;
            SprayExperiment e(c);
            e.Run();
            PRESTO_EXPECT_EXACT_DELIVERY(e);
            NS_TEST_EXPECT_MSG_GT(Nic(e, "retx_segments"), 0, "losses repaired");
        }
        std::filesystem::remove_all(dir);
    }
};

/**
 * A NIC table that holds four connections and a NIC too slow for its load (with a queue that
 * never overflows): the controller evicts and offloads connections while they carry data.
 * With ECMP and no loss nothing else reorders, so the receivers must see every segment in
 * order and every byte exactly once.
 */
class CoraMigrationTestCase : public TestCase
{
  public:
    CoraMigrationTestCase()
        : TestCase("cora: migrations under traffic lose no packet and keep per-flow order")
    {
    }

  private:
    void DoRun() override
    {
        std::string dir = presto_test::FreshTempDir("cora-test", "migration");
        SlowNic(0.04, 1000000);
        Config::SetDefault("ns3::CoraNetDevice::NicMemory", UintegerValue(4 * 128));
        // a queue that never overflows never piles up to a share of it: load evictions here
        // come from the busy NIC alone (the idle-time signal), which is what makes them happen
        Config::SetDefault("ns3::CoraNetDevice::OverloadSignal", StringValue("idle"));
        SprayExperimentConfig c = CoraConfig(dir, "cora");
        c.lb = "ecmp";
        c.load = 0.8;
        SprayExperiment e(c);
        uint64_t traced = 0;
        // the devices exist once Run() has built the fabric: connect at time zero
        compat::Schedule(Seconds(0), [&traced]() {
            Config::ConnectWithoutContextFailSafe(
                "/NodeList/*/DeviceList/*/$ns3::CoraNetDevice/Migration",
                MakeBoundCallback(&CountMigration, &traced));
        });
        e.Run();
        Config::Reset();
        PRESTO_EXPECT_EXACT_DELIVERY(e);
        uint64_t migrations = Nic(e, "migrations");
        std::cout << "cora migration: migrations " << migrations << " (to host "
                  << Nic(e, "migrations_to_host") << ", to nic " << Nic(e, "migrations_to_nic")
                  << "), held packets " << Nic(e, "held_packets") << ", host packets "
                  << Nic(e, "cora_host_packets") << "\n";
        NS_TEST_EXPECT_MSG_GT(Nic(e, "migrations_to_host"), 0, "connections evicted");
        NS_TEST_EXPECT_MSG_GT(Nic(e, "migrations_to_nic"), 0, "connections offloaded back");
        NS_TEST_EXPECT_MSG_EQ(traced, migrations, "every migration traced");
        NS_TEST_EXPECT_MSG_EQ(Nic(e, "nic_drops"), 0, "no packet lost inside the NIC");
        NS_TEST_EXPECT_MSG_EQ(Nic(e, "out_of_order_placed"), 0, "no segment reordered");
        NS_TEST_EXPECT_MSG_EQ(Nic(e, "retx_segments"), 0, "nothing had to be resent");
        std::filesystem::remove_all(dir);
    }
};

/**
 * An overloaded NIC (the program gets 6% of the modelled Netronome rate: below what a 10G
 * host's segments need with the connection table on the NIC, above what they need with it on
 * the host): the static state partition keeps every connection there, runs the NIC at its
 * limit and drops; Cora's controller evicts connections to host cores, whose cycles then
 * show up in host_cpu, and the NIC's utilisation falls. TCP's congestion control throttles
 * the senders in both cases, so the drops do not vanish at the TCP level: the program-level
 * tests (CoraController.*) show Cora's drops stopping under a non-reactive load. The NIC
 * queue is 16 packets: the NIC no longer overflows it with its own transmit bursts (it keeps
 * at most TxQueuePackets segments in flight), so the overload shows at the receive side.
 */
class CoraOverloadTestCase : public TestCase
{
  public:
    CoraOverloadTestCase()
        : TestCase("cora: under NIC overload state partition drops, Cora moves work to the host")
    {
    }

  private:
    void DoRun() override
    {
        std::string dir = presto_test::FreshTempDir("cora-test", "overload");
        uint64_t drops[2];
        uint64_t evictions[2];
        double programCycles[2];
        double util[2];
        const char* strategies[2] = {"state", "cora"};
        for (int s = 0; s < 2; ++s)
        {
            SlowNic(0.06, 16);
            SprayExperimentConfig c = CoraConfig(dir + "/" + strategies[s], strategies[s]);
            c.load = 0.8;
            SprayExperiment e(c);
            e.Run();
            Config::Reset();
            PRESTO_EXPECT_EXACT_DELIVERY(e);
            drops[s] = Nic(e, "nic_drops");
            evictions[s] = Nic(e, "evictions");
            util[s] = e.GetReport()["nic"].value("nic_utilisation", 0.0);
            programCycles[s] = e.GetReport()["host_cpu"]["counts"].value("program_cycles", 0.0);
            std::cout << "cora overload: " << strategies[s] << " nic_drops " << drops[s]
                      << ", nic utilisation " << util[s] << ", host program cycles "
                      << programCycles[s] << ", evictions " << evictions[s] << ", host cores "
                      << e.GetReport()["host_cpu"].value("cores_used", 0.0) << "\n";
        }
        NS_TEST_EXPECT_MSG_GT(drops[0], 0, "state partition drops under overload");
        NS_TEST_EXPECT_MSG_EQ(programCycles[0], 0, "state partition uses no host cores");
        NS_TEST_EXPECT_MSG_GT(evictions[1], 0, "Cora evicts connections");
        NS_TEST_EXPECT_MSG_GT(programCycles[1], 0, "Cora's evicted connections cost host cycles");
        // (the NIC's utilisation is no measure here: with fewer drops TCP pushes more through)
        NS_TEST_EXPECT_MSG_LT(drops[1], drops[0], "Cora drops fewer segments at the NIC");
        std::filesystem::remove_all(dir);
    }
};

/**
 * Migrations and the controller keep the run deterministic: the same seed gives
 * byte-identical fct.csv and summary.json (without its wall-clock "speed"), with the default
 * eviction policy and with the random one (seeded from the run number and the node id).
 */
class CoraDeterminismTestCase : public TestCase
{
  public:
    CoraDeterminismTestCase()
        : TestCase("cora: same seed, byte-identical outputs with migrations")
    {
    }

  private:
    static std::string Read(const std::string& path)
    {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream os;
        os << in.rdbuf();
        return os.str();
    }

    void DoRun() override
    {
        std::string dir = presto_test::FreshTempDir("cora-test", "determinism");
        for (std::string policy : {"heaviest", "random"})
        {
            std::string csv[2];
            nlohmann::json summary[2];
            for (int run = 0; run < 2; ++run)
            {
                SlowNic(0.04, 1000000);
                Config::SetDefault("ns3::CoraNetDevice::NicMemory", UintegerValue(4 * 128));
                Config::SetDefault("ns3::CoraNetDevice::EvictionPolicy", StringValue(policy));
                // a queue that never fills: load moves connections by the idle signal only
                Config::SetDefault("ns3::CoraNetDevice::OverloadSignal", StringValue("idle"));
                std::string out = dir + "/" + policy + std::to_string(run);
                SprayExperimentConfig c = CoraConfig(out, "cora");
                SprayExperiment e(c);
                e.Run();
                Config::Reset();
                NS_TEST_EXPECT_MSG_GT(Nic(e, "migrations"), 0, "the run migrates");
                NS_TEST_EXPECT_MSG_EQ(e.GetReport()["nic"].value("cora_eviction_policy", ""),
                                      policy,
                                      "the policy is reported");
                csv[run] = Read(out + "/fct.csv");
                summary[run] = nlohmann::json::parse(Read(out + "/summary.json"));
                summary[run].erase("speed");
            }
            NS_TEST_EXPECT_MSG_EQ((csv[0] == csv[1]), true, policy + ": fct.csv identical");
            NS_TEST_EXPECT_MSG_EQ((summary[0] == summary[1]),
                                  true,
                                  policy + ": summary.json identical");
        }
        std::filesystem::remove_all(dir);
    }
};

/** A bad Cora attribute stops the experiment before it runs, naming the attribute. */
class CoraBadInputTestCase : public TestCase
{
  public:
    CoraBadInputTestCase()
        : TestCase("cora: bad strategy, profile, thresholds or eviction policy are refused with "
                   "a message")
    {
    }

  private:
    void Expect(const SprayExperimentConfig& c, const std::string& needle)
    {
        std::string what;
        try
        {
            SprayExperiment e(c);
        }
        catch (const PrestoInputError& err)
        {
            what = err.what();
        }
        NS_TEST_EXPECT_MSG_NE(what.find(needle), std::string::npos, "message names: " + needle);
    }

    void DoRun() override
    {
        SprayExperimentConfig c = CoraConfig("unused", "greedy");
        Expect(c, "--coraStrategy");
        c.coraStrategy = "cora";
        Config::SetDefault("ns3::CoraNetDevice::Profile", StringValue("pensando"));
        Expect(c, "Profile");
        Config::Reset();
        Config::SetDefault("ns3::CoraNetDevice::UnderloadThreshold", DoubleValue(0.95));
        Expect(c, "UnderloadThreshold");
        Config::Reset();
        Config::SetDefault("ns3::CoraNetDevice::Program", StringValue("l4lb"));
        Expect(c, "branch named tcp");
        Config::Reset();
        Config::SetDefault("ns3::CoraNetDevice::EvictionPolicy", StringValue("smallest"));
        Expect(c,
               "EvictionPolicy: unknown eviction policy 'smallest' (valid: heaviest, lightest, "
               "random)");
        Config::Reset();
    }
};

/** The cora-device suite. */
class CoraDeviceTestSuite : public TestSuite
{
  public:
    CoraDeviceTestSuite()
        : TestSuite("presto-cora-device", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new CoraDeliveryTestCase, compat::TestDuration::QUICK);
        AddTestCase(new CoraMigrationTestCase, compat::TestDuration::QUICK);
        AddTestCase(new CoraOverloadTestCase, compat::TestDuration::QUICK);
        AddTestCase(new CoraDeterminismTestCase, compat::TestDuration::QUICK);
        AddTestCase(new CoraBadInputTestCase, compat::TestDuration::QUICK);
    }
};

/// Registers the suite.
static CoraDeviceTestSuite g_coraDeviceTestSuite;
