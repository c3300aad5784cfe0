/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The closed-loop RPC workload on every design: exact delivery of every message, the
// measurements it reports, where each NIC saturates and why, and Cora's strategies when the
// NIC's memory cannot hold every connection.

#include "experiment-checks.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/nstime.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/rpc-server-cores.h"
#include "ns3/spray-experiment.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

/// The experiment's default leaf-spine (8 hosts) with the RPC workload, quiet.
SprayExperimentConfig
Rpc(const std::string& out, const std::string& device, uint32_t connections, double simTime = 0.003)
{
    SprayExperimentConfig c;
    c.hostCores = 0;        // the network and the NICs against their own limits: host work is free
    c.verifyPayload = true; // transport tests compare every byte
    c.device = device;
    c.workload = "rpc";
    c.rpcConnections = connections;
    c.simTime = simTime;
    c.out = out;
    c.quiet = true;
    c.plot = false;
    return c;
}

double
Num(const nlohmann::json& j, const char* section, const char* key)
{
    return j.at(section).value(key, 0.0);
}

std::string
Line(const std::string& label, const nlohmann::json& rep)
{
    std::ostringstream os;
    const auto& r = rep["rpc"];
    os << label << ": " << r["requests_per_s"].get<double>() << " requests/s, p50 "
       << r["latency_p50_us"].get<double>() << " us, p99 " << r["latency_p99_us"].get<double>()
       << " us, p99.99 " << r["latency_p9999_us"].get<double>() << " us, host cores "
       << rep["host_cpu"]["cores_used"].get<double>() << ", cycles/request "
       << rep["host_cpu"]["cycles_per_request"].get<double>();
    return os.str();
}

} // namespace

/**
 * Every design, requests from Google's RPC size distribution (several segments each) and
 * 64-byte responses, 2 outstanding per connection, also with 1% loss in the fabric: every
 * connection is established, every byte read matches the stream (exactly once, in order),
 * requests are answered and the latency percentiles are in order.
 */
class RpcDeliveryTestCase : public TestCase
{
  public:
    /** \param lossRate random loss on the switch links */
    explicit RpcDeliveryTestCase(double lossRate)
        : TestCase(std::string("rpc: every design answers every request exactly") +
                   (lossRate > 0 ? ", with 1% loss" : "")),
          m_loss(lossRate)
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-rpc", "delivery");
        for (const char* device : {"host-tcp", "presto", "flextoe", "cora"})
        {
            // with loss, long enough for a lost SYN's retransmission (SynTimeout 2 ms, doubling)
            SprayExperimentConfig c =
                Rpc(dir + "/" + device, device, 10, m_loss > 0 ? 0.012 : 0.003);
            c.rpcOutstanding = 2;
            c.rpcRequest = "googlerpc";
            c.lossRate = m_loss;
            SprayExperiment e(c);
            e.Run();
            const auto& rep = e.GetReport();
            const auto& r = rep["rpc"];
            std::cout << "    " << Line(device, rep) << std::endl;
            NS_TEST_EXPECT_MSG_EQ(r["connections_established"].get<uint64_t>(),
                                  r["connections"].get<uint64_t>(),
                                  device << ": every connection established");
            NS_TEST_EXPECT_MSG_EQ(r["connections_failed"].get<uint64_t>(), 0, device);
            NS_TEST_EXPECT_MSG_EQ(r["corrupt_bytes"].get<uint64_t>(),
                                  0,
                                  device << ": every byte once and in order");
            NS_TEST_EXPECT_MSG_GT(r["requests_measured"].get<uint64_t>(), 100, device);
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r["responses_read"].get<uint64_t>(),
                                        r["requests_written"].get<uint64_t>(),
                                        device);
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r["requests_written"].get<uint64_t>(),
                                        r["responses_read"].get<uint64_t>() +
                                            2 * r["connections"].get<uint64_t>(),
                                        device << ": at most 2 outstanding per connection");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(Num(rep, "rpc", "latency_p50_us"),
                                        Num(rep, "rpc", "latency_p99_us"),
                                        device);
            NS_TEST_EXPECT_MSG_LT_OR_EQ(Num(rep, "rpc", "latency_p99_us"),
                                        Num(rep, "rpc", "latency_p9999_us"),
                                        device);
            NS_TEST_EXPECT_MSG_GT(Num(rep, "host_cpu", "cycles_per_request"), 0, device);
            // the host model charges every byte the applications read once (the copy to
            // the application and the delivery), as the workload counts them
            NS_TEST_EXPECT_MSG_EQ(rep["host_cpu"]["counts"]["bytes_delivered"].get<uint64_t>(),
                                  r["bytes_read"].get<uint64_t>(),
                                  device << ": bytes delivered counted once");
        }
        std::filesystem::remove_all(dir);
    }

    double m_loss;
};

/**
 * 1,000 persistent connections per host of 64-byte requests and responses: FlexTOE saturates
 * at its protocol cores (one per flow group: the busiest stage, >= 90% busy) and answers
 * fewer requests than Presto, whose pipeline processes a packet per clock; Presto's register
 * arrays hold every connection (none refused).
 */
class RpcSaturationTestCase : public TestCase
{
  public:
    RpcSaturationTestCase()
        : TestCase("rpc: with 1000 connections per host FlexTOE saturates at its protocol cores")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-rpc", "saturation");
        nlohmann::json rep[2];
        const char* devices[2] = {"presto", "flextoe"};
        for (int i = 0; i < 2; ++i)
        {
            SprayExperiment e(Rpc(dir + "/" + devices[i], devices[i], 1000, 0.004));
            e.Run();
            rep[i] = e.GetReport();
            std::cout << "    " << Line(devices[i], rep[i]) << std::endl;
            NS_TEST_EXPECT_MSG_EQ(rep[i]["rpc"]["corrupt_bytes"].get<uint64_t>(), 0, "exact");
            NS_TEST_EXPECT_MSG_EQ(rep[i]["nic"].value("connections_refused", uint64_t(0)),
                                  0,
                                  devices[i] << ": every connection has a slot");
        }
        const auto& stages = rep[1]["nic"]["flextoe_stages"];
        double busiest = 0;
        std::string which;
        for (const auto& [name, st] : stages.items())
        {
            if (st["max_utilisation"].get<double>() > busiest)
            {
                busiest = st["max_utilisation"].get<double>();
                which = name;
            }
        }
        std::cout << "    flextoe busiest stage " << which << " at " << busiest << std::endl;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(stages["protocol"]["max_utilisation"].get<double>(),
                                    0.9,
                                    "FlexTOE's protocol cores are saturated");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(stages["protocol"]["max_utilisation"].get<double>(),
                                    busiest - 1e-9,
                                    "the protocol stage is the busiest");
        NS_TEST_EXPECT_MSG_LT(Num(rep[1], "rpc", "requests_per_s"),
                              Num(rep[0], "rpc", "requests_per_s"),
                              "FlexTOE answers fewer requests than Presto");
        std::filesystem::remove_all(dir);
    }
};

/**
 * Presto's timers are found by scan packets walking the connection slots at TimerScanRate
 * (125 Mpps): one connection per host with 1% loss, the scan walking 1 slot (a round of
 * 8 ns, below the shared 10 us scan period) against 131,072 slots (a round of 1.05 ms): the
 * same losses are repaired later, so requests take longer on average and fewer are answered;
 * every byte still arrives exactly once. TimerScanRate = 0 leaves the timers to the shared
 * scan.
 */
class RpcTimerScanTestCase : public TestCase
{
  public:
    RpcTimerScanTestCase()
        : TestCase("rpc: Presto's timeout granularity grows with the slots its timer scan walks")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-rpc", "timer-scan");
        const uint32_t slots[2] = {1, 131072};
        nlohmann::json rep[2];
        for (int i = 0; i < 2; ++i)
        {
            Config::SetDefault("ns3::PrestoNetDevice::TimerScanSlots", UintegerValue(slots[i]));
            SprayExperimentConfig c = Rpc(dir + "/" + std::to_string(slots[i]), "presto", 1, 0.03);
            c.lossRate = 0.01;
            SprayExperiment e(c);
            e.Run();
            Config::Reset();
            rep[i] = e.GetReport();
            std::cout << "    " << Line(std::to_string(slots[i]) + " slots", rep[i]) << ", mean "
                      << Num(rep[i], "rpc", "latency_mean_us") << " us, timeouts "
                      << Num(rep[i], "nic", "timeouts") << ", scan round "
                      << Num(rep[i], "nic", "timer_scan_round_ns_max") << " ns" << std::endl;
            NS_TEST_EXPECT_MSG_EQ(rep[i]["rpc"]["corrupt_bytes"].get<uint64_t>(), 0, "exact");
            NS_TEST_EXPECT_MSG_GT(Num(rep[i], "nic", "timeouts"), 0, "losses end in timeouts");
        }
        NS_TEST_EXPECT_MSG_EQ(Num(rep[0], "nic", "timer_scan_round_ns_max"),
                              8,
                              "1 slot at 125 Mpps: 8 ns");
        NS_TEST_EXPECT_MSG_EQ(Num(rep[1], "nic", "timer_scan_round_ns_max"),
                              1048576,
                              "131,072 slots at 125 Mpps: 1.05 ms");
        NS_TEST_EXPECT_MSG_GT(Num(rep[1], "rpc", "latency_mean_us"),
                              Num(rep[0], "rpc", "latency_mean_us"),
                              "coarser timeouts: longer requests on average");
        NS_TEST_EXPECT_MSG_LT(Num(rep[1], "rpc", "requests_per_s"),
                              Num(rep[0], "rpc", "requests_per_s"),
                              "and fewer answered");

        Config::SetDefault("ns3::PrestoNetDevice::TimerScanRate", DoubleValue(0));
        SprayExperimentConfig c = Rpc(dir + "/off", "presto", 1, 0.01);
        SprayExperiment off(c);
        off.Run();
        Config::Reset();
        const nlohmann::json r = off.GetReport();
        NS_TEST_EXPECT_MSG_EQ(Num(r, "nic", "timer_scan_visits"), 0, "not modelled: no scan");
        NS_TEST_EXPECT_MSG_EQ(r["rpc"]["corrupt_bytes"].get<uint64_t>(), 0, "exact");
        std::filesystem::remove_all(dir);
    }
};

/**
 * Cora's strategies when the NIC's memory holds about a sixth of the connection table (16 KiB
 * per NIC, 1600 connection ends per host): state partition, static, finds the table does not
 * fit and runs all of it on host cores; Cora keeps the connections the NIC can hold there and
 * moves them at run time, answers more than twice the requests, and spends no more host cores
 * than flow partition.
 */
class RpcCoraMemoryTestCase : public TestCase
{
  public:
    RpcCoraMemoryTestCase()
        : TestCase("rpc: with too little NIC memory Cora beats state partition and uses no "
                   "more host cores than flow partition")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-rpc", "cora-memory");
        Config::SetDefault("ns3::CoraNetDevice::NicMemory", UintegerValue(16384));
        nlohmann::json rep[3];
        const char* strategies[3] = {"cora", "state", "flow"};
        for (int i = 0; i < 3; ++i)
        {
            SprayExperimentConfig c = Rpc(dir + "/" + strategies[i], "cora", 100);
            c.coraStrategy = strategies[i];
            SprayExperiment e(c);
            e.Run();
            rep[i] = e.GetReport();
            std::cout << "    " << Line(strategies[i], rep[i]) << ", nic pairs "
                      << rep[i]["nic"].value("nic_pairs", uint64_t(0)) << ", host pairs "
                      << rep[i]["nic"].value("host_pairs", uint64_t(0)) << ", migrations "
                      << rep[i]["nic"].value("migrations", uint64_t(0)) << std::endl;
            NS_TEST_EXPECT_MSG_EQ(rep[i]["rpc"]["corrupt_bytes"].get<uint64_t>(), 0, "exact");
        }
        Config::Reset();
        NS_TEST_EXPECT_MSG_EQ(rep[1]["nic"].value("nic_pairs", uint64_t(1)),
                              0,
                              "state partition: the table does not fit, nothing on the NIC");
        NS_TEST_EXPECT_MSG_GT(Num(rep[0], "rpc", "requests_per_s"),
                              2 * Num(rep[1], "rpc", "requests_per_s"),
                              "Cora answers more than twice what state partition does");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(Num(rep[0], "host_cpu", "cores_used"),
                                    Num(rep[2], "host_cpu", "cores_used"),
                                    "Cora uses no more host cores than flow partition");
        std::filesystem::remove_all(dir);
    }
};

/**
 * The open loop (--rpcRate): Poisson arrivals whatever is answered. Below capacity every
 * arrival of the window is answered (but those still in flight at the end) and the rate
 * answered is the rate offered; every byte is exact. Above it the backlog grows to its bound
 * and arrivals beyond are refused and counted, never silently lost:
 * arrived = written + refused. And Cora's controller, with the paper's overload (packets
 * pile up at the NIC), does not evict connections from a NIC that is busy but keeps up
 * (a TCP NIC whose segments coalesce the backlogged requests: ~95% busy, no drop, a short
 * queue), while the idle-time signal evicts there.
 */
class RpcOpenLoopTestCase : public TestCase
{
  public:
    RpcOpenLoopTestCase()
        : TestCase("rpc: open-loop arrivals are answered at the offered rate, refusals counted")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-rpc", "open-loop");
        auto run =
            [&](const std::string& name, const std::string& device, double rate, uint32_t backlog) {
                SprayExperimentConfig c = Rpc(dir + "/" + name, device, 20);
                c.rpcRate = rate;
                c.rpcBacklog = backlog;
                SprayExperiment e(c);
                e.Run();
                const nlohmann::json rep = e.GetReport();
                const auto& r = rep["rpc"];
                std::cout << "    " << Line(name, rep) << ", offered " << r["offered_per_s"]
                          << ", answered fraction " << r["answered_fraction"] << ", refused "
                          << r["requests_refused"] << ", backlog max " << r["backlog_max"]
                          << std::endl;
                NS_TEST_EXPECT_MSG_EQ(r["arrival"].get<std::string>(), "poisson", name);
                NS_TEST_EXPECT_MSG_EQ(r["corrupt_bytes"].get<uint64_t>(), 0, name << ": exact");
                return rep;
            };
        for (const char* device : {"host-tcp", "presto", "cora"})
        {
            // 2 M requests/s per host: far below what any design answers
            const nlohmann::json rep = run(std::string(device) + "-light", device, 2e6, 4096);
            const auto& r = rep["rpc"];
            NS_TEST_EXPECT_MSG_EQ_TOL(Num(rep, "rpc", "requests_per_s") /
                                          Num(rep, "rpc", "offered_per_s"),
                                      1.0,
                                      0.05,
                                      device << ": answered at the rate offered");
            NS_TEST_EXPECT_MSG_GT(Num(rep, "rpc", "answered_fraction"), 0.97, device);
            NS_TEST_EXPECT_MSG_EQ(r["requests_refused"].get<uint64_t>(), 0, device);
            // the offered count itself: 8 hosts x 2 M/s over the window, Poisson
            const double expected = 16e6 * Num(rep, "rpc", "measure_window_s");
            NS_TEST_EXPECT_MSG_EQ_TOL(Num(rep, "rpc", "requests_arrived_measured") / expected,
                                      1.0,
                                      0.05,
                                      device << ": Poisson arrivals at the rate");
        }
        // 60 M/s per host is beyond every link: a backlog of 8 fills and the rest is refused
        const nlohmann::json over = run("presto-over", "presto", 60e6, 8);
        const auto& o = over["rpc"];
        NS_TEST_EXPECT_MSG_GT(o["requests_refused"].get<uint64_t>(), 0, "refused beyond");
        NS_TEST_EXPECT_MSG_EQ(o["backlog_max"].get<uint64_t>(), 8, "the backlog is a bound");
        NS_TEST_EXPECT_MSG_LT(Num(over, "rpc", "answered_fraction"), 0.5, "overloaded");
        // Cora at a busy NIC that keeps up: the queue signal leaves it, idle time evicts
        nlohmann::json cora[2];
        const char* signals[2] = {"queue", "idle"};
        for (int i = 0; i < 2; ++i)
        {
            Config::SetDefault("ns3::CoraNetDevice::OverloadSignal", StringValue(signals[i]));
            SprayExperimentConfig c = Rpc(dir + "/cora-" + signals[i], "cora", 100);
            c.rpcRate = 5e6;
            // the hosts' own cores (the default budget): the NIC is ~95% busy, never idle-free
            // for a whole interval (with free host work it reaches 100% in some intervals,
            // the paper's overload, and Cora evicts there)
            c.hostCores = SprayExperimentConfig{}.hostCores;
            SprayExperiment e(c);
            e.Run();
            cora[i] = e.GetReport();
            std::cout << "    cora, overload signal " << signals[i] << ": "
                      << Line(signals[i], cora[i]) << ", nic " << cora[i]["nic"].dump()
                      << std::endl;
        }
        Config::Reset();
        NS_TEST_EXPECT_MSG_EQ(cora[0]["nic"]["nic_overload_drops"].get<uint64_t>(),
                              0,
                              "the NIC keeps up: nothing dropped");
        NS_TEST_EXPECT_MSG_GT(Num(cora[0], "nic", "nic_utilisation"), 0.9, "busy NIC");
        NS_TEST_EXPECT_MSG_EQ(cora[0]["nic"]["migrations_to_host"].get<uint64_t>(),
                              0,
                              "queue signal: no overload, no eviction");
        NS_TEST_EXPECT_MSG_GT(cora[1]["nic"]["migrations_to_host"].get<uint64_t>(),
                              0,
                              "idle signal: busy is overload, connections evicted");
        std::filesystem::remove_all(dir);
    }
};

/**
 * The co-design's RPC stage (PrestoHybridNetDevice::RpcSteering) against the host's own
 * choices of core: 8 hosts, 16 connections each, servers with 4 worker cores and 2 us per
 * request. A connection's core (Affinity) lets requests queue behind each other on one core;
 * a host dispatcher (HostDispatch) balances at a dispatch cost per request on the host; the
 * NIC's stage (Nic) balances with no host work. Every byte is checked; configurations that
 * pair the stage with no server using it, or the reverse, are refused before the run.
 */
class RpcSteeringTestCase : public TestCase
{
  public:
    RpcSteeringTestCase()
        : TestCase("rpc: the hybrid NIC's RPC stage balances requests over the server's "
                   "cores without host dispatch work")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-rpc", "steering");
        Config::SetDefault("ns3::RpcEndpoint::ServerCores", UintegerValue(4));
        Config::SetDefault("ns3::RpcEndpoint::ServiceTime", TimeValue(MicroSeconds(2)));
        const char* names[3] = {"affinity", "host-dispatch", "nic"};
        const RpcSteering policies[3] = {RPC_AFFINITY, RPC_HOST_DISPATCH, RPC_NIC};
        nlohmann::json rep[3];
        for (int i = 0; i < 3; ++i)
        {
            Config::SetDefault("ns3::RpcEndpoint::Steering", EnumValue(policies[i]));
            Config::SetDefault("ns3::PrestoHybridNetDevice::RpcSteering", BooleanValue(i == 2));
            SprayExperimentConfig c = Rpc(dir + "/" + names[i], "presto-hybrid", 16, 0.004);
            SprayExperiment e(c);
            e.Run();
            rep[i] = e.GetReport();
            std::cout << "    " << Line(names[i], rep[i]) << ", dispatched by the host "
                      << rep[i]["rpc"]["requests_dispatched_by_host"].get<uint64_t>()
                      << ", longest wait for a core "
                      << rep[i]["rpc"]["core_wait_max_us"].get<double>() << " us, host cycles/byte "
                      << Num(rep[i], "host_cpu", "cycles_per_byte") << ", NIC-steered segments "
                      << rep[i]["nic"].value("rpc_steered_segments", uint64_t(0)) << std::endl;
            NS_TEST_EXPECT_MSG_EQ(rep[i]["rpc"]["corrupt_bytes"].get<uint64_t>(), 0, "exact");
            NS_TEST_EXPECT_MSG_GT(rep[i]["rpc"]["requests_measured"].get<uint64_t>(),
                                  5000,
                                  "requests answered");
        }
        NS_TEST_EXPECT_MSG_LT(Num(rep[2], "rpc", "latency_p99_us"),
                              Num(rep[0], "rpc", "latency_p99_us"),
                              "the NIC's balance beats a connection's core at the tail");
        NS_TEST_EXPECT_MSG_LT(Num(rep[1], "rpc", "latency_p99_us"),
                              Num(rep[0], "rpc", "latency_p99_us"),
                              "and so does the host dispatcher's");
        NS_TEST_EXPECT_MSG_LT(Num(rep[2], "rpc", "core_wait_max_us"),
                              Num(rep[0], "rpc", "core_wait_max_us"),
                              "no request waits as long for a core");
        NS_TEST_EXPECT_MSG_EQ(rep[2]["rpc"]["requests_dispatched_by_host"].get<uint64_t>(),
                              0,
                              "the NIC steers: the host dispatches nothing");
        NS_TEST_EXPECT_MSG_GT(rep[1]["rpc"]["requests_dispatched_by_host"].get<uint64_t>(),
                              5000,
                              "the host dispatcher hands over every request");
        NS_TEST_EXPECT_MSG_LT(Num(rep[2], "host_cpu", "cycles_per_byte"),
                              0.9 * Num(rep[1], "host_cpu", "cycles_per_byte"),
                              "the NIC saves the host's dispatch cycles");
        NS_TEST_EXPECT_MSG_GT(rep[2]["nic"].value("rpc_steered_segments", uint64_t(0)),
                              5000,
                              "the stage ran on the SmartNIC cores");
        // refused before the run
        auto refused = [&dir](const std::string& device, RpcSteering s, bool stage, int cores) {
            Config::SetDefault("ns3::RpcEndpoint::Steering", EnumValue(s));
            Config::SetDefault("ns3::RpcEndpoint::ServerCores", UintegerValue(cores));
            Config::SetDefault("ns3::PrestoHybridNetDevice::RpcSteering", BooleanValue(stage));
            try
            {
                SprayExperiment e(Rpc(dir + "/refused", device, 2));
                e.Run();
            }
            catch (const PrestoInputError& err)
            {
                return std::string(err.what());
            }
            return std::string();
        };
        const std::string noStage = refused("presto", RPC_NIC, false, 4);
        NS_TEST_EXPECT_MSG_NE(noStage.find("needs an RPC stage on every host's NIC"),
                              std::string::npos,
                              noStage);
        const std::string unused = refused("presto-hybrid", RPC_AFFINITY, true, 4);
        NS_TEST_EXPECT_MSG_NE(unused.find("only the RPC workload's servers use"),
                              std::string::npos,
                              unused);
        const std::string noCores = refused("presto-hybrid", RPC_HOST_DISPATCH, false, 0);
        NS_TEST_EXPECT_MSG_NE(noCores.find("ServerCores > 0"), std::string::npos, noCores);
        Config::Reset();
        std::filesystem::remove_all(dir);
    }
};

/** The same seed gives byte-identical summary.json (its wall-clock "speed" aside). */
class RpcDeterminismTestCase : public TestCase
{
  public:
    RpcDeterminismTestCase()
        : TestCase("rpc: same seed, identical results")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-rpc", "determinism");
        nlohmann::json rep[2];
        for (int i = 0; i < 2; ++i)
        {
            SprayExperimentConfig c = Rpc(dir + "/run" + std::to_string(i), "flextoe", 20, 0.002);
            c.rpcRequest = "googlerpc";
            c.lossRate = 0.01;
            SprayExperiment e(c);
            e.Run();
            rep[i] = e.GetReport();
            rep[i].erase("speed");
            rep[i]["config"].erase("out");
        }
        NS_TEST_EXPECT_MSG_EQ(rep[0].dump(), rep[1].dump(), "identical reports");
        std::filesystem::remove_all(dir);
    }
};

/** The presto-rpc suite. */
class PrestoRpcTestSuite : public TestSuite
{
  public:
    PrestoRpcTestSuite()
        : TestSuite("presto-rpc", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new RpcDeliveryTestCase(0), compat::TestDuration::QUICK);
        AddTestCase(new RpcDeliveryTestCase(0.01), compat::TestDuration::QUICK);
        AddTestCase(new RpcSaturationTestCase, compat::TestDuration::QUICK);
        AddTestCase(new RpcTimerScanTestCase, compat::TestDuration::QUICK);
        AddTestCase(new RpcCoraMemoryTestCase, compat::TestDuration::QUICK);
        AddTestCase(new RpcDeterminismTestCase, compat::TestDuration::QUICK);
        AddTestCase(new RpcSteeringTestCase, compat::TestDuration::QUICK);
        AddTestCase(new RpcOpenLoopTestCase, compat::TestDuration::QUICK);
    }
};

/// Registers the suite.
static PrestoRpcTestSuite g_prestoRpcTestSuite;
