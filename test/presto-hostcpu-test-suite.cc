/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// End-to-end tests of the host CPU accounting (summary.json "host_cpu"): real runs of the
// FCT experiment with ns-3's TCP on the hosts and with the presto offload NIC, on the same
// workload.

#include "ns3/presto-ns3-compat.h"
#include "ns3/spray-experiment.h"
#include "ns3/test.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace ns3;

namespace
{

/// Runs the default small leaf-spine with this device and returns summary.json's content.
nlohmann::json
RunDevice(const std::string& device, const std::string& links = "auto")
{
    auto dir = std::filesystem::temp_directory_path() /
               ("presto-test-" + std::to_string(getpid()) + "-hostcpu-" + device + "-" + links);
    std::filesystem::remove_all(dir);
    SprayExperimentConfig c;
    c.verifyPayload = true; // transport tests compare every byte
    c.out = dir.string();
    c.quiet = true;
    c.plot = false;
    c.device = device;
    c.links = links;
    c.simTime = 0.005; // ~20 WebSearch flows: enough packets, well under a second
    SprayExperiment e(c);
    e.Run();
    nlohmann::json r = e.GetReport();
    std::filesystem::remove_all(dir);
    return r;
}

uint64_t
Count(const nlohmann::json& h, const char* key)
{
    return h.at("counts").at(key).get<uint64_t>();
}

} // namespace

/**
 * ns-3's TCP on every host: "host_cpu" is there, labelled host-tcp, counts at least every
 * data segment the sockets sent, and its derived figures follow from its own fields.
 */
class HostTcpAccountingTestCase : public TestCase
{
  public:
    HostTcpAccountingTestCase()
        : TestCase("host-tcp run reports consistent host_cpu counts")
    {
    }

  private:
    void DoRun() override
    {
        nlohmann::json r = RunDevice("host-tcp");
        NS_TEST_ASSERT_MSG_EQ(r.contains("host_cpu"), true, "no host_cpu section");
        const auto& h = r["host_cpu"];
        NS_TEST_ASSERT_MSG_EQ(h.at("model").get<std::string>(), "host-tcp", "model label");
        uint64_t segs = r.at("tcp").at("data_segments_sent").get<uint64_t>();
        NS_TEST_ASSERT_MSG_GT(segs, 0, "the workload sent nothing");
        // Every data segment the sockets send passes the sender's IPv4 stack once.
        NS_TEST_ASSERT_MSG_GT_OR_EQ(Count(h, "packets_sent"), segs, "IPv4 Tx undercounts");
        // Every data packet sent is received at most once (switch drops lose some).
        NS_TEST_ASSERT_MSG_LT_OR_EQ(Count(h, "packets_received"),
                                    Count(h, "packets_sent"),
                                    "more data received than sent");
        NS_TEST_ASSERT_MSG_GT(Count(h, "packets_received"), 0, "no data received");
        NS_TEST_ASSERT_MSG_GT(Count(h, "acks"), 0, "no ACKs counted");
        uint64_t delivered = r.at("delivery").at("bytes_delivered").get<uint64_t>();
        uint64_t started = r.at("delivery").at("flows_started").get<uint64_t>();
        uint64_t finished = r.at("delivery").at("flows_finished").get<uint64_t>();
        NS_TEST_ASSERT_MSG_EQ(h.at("bytes_delivered").get<uint64_t>(),
                              delivered,
                              "delivered bytes differ from the delivery section");
        NS_TEST_ASSERT_MSG_GT_OR_EQ(Count(h, "bytes_copied"),
                                    2 * delivered,
                                    "send and receive copies of the delivered bytes");
        // one setup at each end per flow, one teardown at each end per finished flow
        NS_TEST_ASSERT_MSG_EQ(Count(h, "connections_opened"), 2 * started, "setups");
        NS_TEST_ASSERT_MSG_EQ(Count(h, "connections_closed"), 2 * finished, "teardowns");
        NS_TEST_ASSERT_MSG_EQ(Count(h, "control_plane_events"), 0, "no offload NIC here");
        NS_TEST_ASSERT_MSG_EQ(Count(h, "dma_descriptors"), 0, "no offload NIC here");
        // wire packets: every IPv4 TCP packet sent or received crossed a host link
        NS_TEST_ASSERT_MSG_GT_OR_EQ(Count(h, "wire_packets"),
                                    Count(h, "packets_sent") + Count(h, "packets_received"),
                                    "wire packets");
        double cycles = h.at("cycles").get<double>();
        NS_TEST_ASSERT_MSG_GT(cycles, 0, "no cycles");
        NS_TEST_ASSERT_MSG_EQ_TOL(h.at("cycles_per_byte").get<double>(),
                                  cycles / delivered,
                                  1e-9 * cycles / delivered,
                                  "cycles_per_byte");
        NS_TEST_ASSERT_MSG_GT(h.at("cycles_per_packet").get<double>(), 0, "cycles_per_packet");
        NS_TEST_ASSERT_MSG_GT(h.at("cores_used").get<double>(), 0, "cores_used");
        NS_TEST_ASSERT_MSG_EQ(h.at("hosts").at("host-tcp").get<uint32_t>(), 8, "host count");
    }
};

/**
 * presto on every host: the offload counts are the NIC counters' sums, the host stack is
 * (almost) idle, and the host spends far fewer cycles per delivered byte than with ns-3's
 * TCP on the same workload.
 */
class PrestoAccountingTestCase : public TestCase
{
  public:
    PrestoAccountingTestCase()
        : TestCase("presto host_cpu matches the NIC counters and is far below host-tcp")
    {
    }

  private:
    void DoRun() override
    {
        nlohmann::json tcp = RunDevice("host-tcp");
        nlohmann::json r = RunDevice("presto");
        NS_TEST_ASSERT_MSG_EQ(r.contains("host_cpu"), true, "no host_cpu section");
        NS_TEST_ASSERT_MSG_EQ(r.contains("nic"), true, "no nic section");
        const auto& h = r["host_cpu"];
        const auto& nic = r["nic"];
        NS_TEST_ASSERT_MSG_EQ(h.at("model").get<std::string>(), "offload", "model label");
        NS_TEST_ASSERT_MSG_EQ(Count(h, "dma_descriptors"),
                              nic.at("dma_transfers").get<uint64_t>(),
                              "DMA descriptors");
        NS_TEST_ASSERT_MSG_EQ(Count(h, "app_notifications"),
                              nic.at("app_notifications").get<uint64_t>(),
                              "notifications");
        NS_TEST_ASSERT_MSG_EQ(Count(h, "control_intervals"),
                              nic.at("control_loop_runs").get<uint64_t>(),
                              "control loop runs");
        uint64_t cp = nic.at("control_plane_cycles").get<uint64_t>();
        NS_TEST_ASSERT_MSG_GT(cp, 0, "no control-plane work");
        // the control plane handles at least the handshakes of the established connections
        NS_TEST_ASSERT_MSG_GT_OR_EQ(Count(h, "control_plane_events"),
                                    nic.at("connections_established").get<uint64_t>(),
                                    "control-plane events");
        NS_TEST_ASSERT_MSG_GT(Count(h, "dma_descriptors"), 0, "no DMA");
        // offloaded connections bypass the host stack
        NS_TEST_ASSERT_MSG_EQ(Count(h, "packets_sent") + Count(h, "packets_received"),
                              0,
                              "presto data went through the host's IPv4 stack");
        NS_TEST_ASSERT_MSG_EQ(Count(h, "connections_opened"), 0, "setups are control plane");
        NS_TEST_ASSERT_MSG_GT(Count(h, "wire_packets"), 0, "no wire packets counted");
        NS_TEST_ASSERT_MSG_EQ(h.at("bytes_delivered").get<uint64_t>(),
                              r.at("delivery").at("bytes_delivered").get<uint64_t>(),
                              "delivered bytes");
        NS_TEST_ASSERT_MSG_GT(h.at("cores_used").get<double>(), 0, "cores_used");

        // same workload (same seed and config): compare per delivered byte
        NS_TEST_ASSERT_MSG_EQ(r.at("delivery").at("flows_started").get<uint64_t>(),
                              tcp.at("delivery").at("flows_started").get<uint64_t>(),
                              "not the same workload");
        double offloadCpb = h.at("cycles_per_byte").get<double>();
        double tcpCpb = tcp.at("host_cpu").at("cycles_per_byte").get<double>();
        NS_TEST_ASSERT_MSG_GT(tcpCpb, 0, "host-tcp cycles_per_byte");
        double ratio = offloadCpb / tcpCpb;
        std::cout << "host cpu: presto " << offloadCpb << " vs host-tcp " << tcpCpb
                  << " cycles/byte, ratio " << ratio << std::endl;
        NS_TEST_ASSERT_MSG_LT(ratio, 0.5, "offload should cost far fewer host cycles per byte");
        NS_TEST_ASSERT_MSG_GT(ratio, 0, "offload host cost cannot be zero");
    }
};

/**
 * The link model does not change the accounting: the same host-tcp run on point-to-point and
 * on fast links counts the same wire packets within 1% (the fast path counts a frame when the
 * link accepts it, the point-to-point trace when it has been sent or received) and the same
 * IPv4 packets and bytes within 1% (the runs differ only in the order of simultaneous events).
 */
class LinkModelAccountingTestCase : public TestCase
{
  public:
    LinkModelAccountingTestCase()
        : TestCase("host-tcp host_cpu counts agree on p2p and fast links")
    {
    }

  private:
    void DoRun() override
    {
        const nlohmann::json p2p = RunDevice("host-tcp", "p2p").at("host_cpu");
        const nlohmann::json fast = RunDevice("host-tcp", "fast").at("host_cpu");
        for (const char* key : {"wire_packets", "packets_sent", "packets_received", "acks"})
        {
            const double a = double(Count(p2p, key));
            const double b = double(Count(fast, key));
            std::cout << "    " << key << ": p2p " << a << ", fast " << b << std::endl;
            NS_TEST_ASSERT_MSG_GT(a, 0, key << " counted on p2p links");
            NS_TEST_EXPECT_MSG_LT(std::abs(b - a) / a, 0.01, key << " within 1%");
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(fast.at("cycles_per_packet").get<double>(),
                                  p2p.at("cycles_per_packet").get<double>(),
                                  0.01 * p2p.at("cycles_per_packet").get<double>(),
                                  "cycles_per_packet within 1%");
    }
};

/** The host CPU accounting suite. */
class PrestoHostCpuTestSuite : public TestSuite
{
  public:
    PrestoHostCpuTestSuite()
        : TestSuite("presto-hostcpu", TestSuite::Type::UNIT)
    {
        AddTestCase(new HostTcpAccountingTestCase, compat::TestDuration::QUICK);
        AddTestCase(new PrestoAccountingTestCase, compat::TestDuration::QUICK);
        AddTestCase(new LinkModelAccountingTestCase, compat::TestDuration::QUICK);
    }
};

static PrestoHostCpuTestSuite g_prestoHostCpuTestSuite; //!< registers the suite
