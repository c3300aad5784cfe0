/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Rows held equal (RowParity, --hostParity): ns-3's TCP hosts get the offload NICs' egress
// (per-flow round robin over a short device queue) and ACK policy (every segment), and the
// offload rows do not change.

#include "experiment-checks.h"

#include "ns3/config.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/queue-size.h"
#include "ns3/row-parity.h"
#include "ns3/spray-experiment.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

SprayExperimentConfig
Base(const std::string& name, const std::string& device, bool parity)
{
    SprayExperimentConfig c;
    c.out = presto_test::FreshTempDir("presto-test-parity", name);
    c.quiet = true;
    c.plot = false;
    c.device = device;
    c.cc = "dctcp";
    c.simTime = 0.02;
    c.verifyPayload = true;
    c.hostParity = parity;
    return c;
}

/// small flows (<= 100 KB) slowed down more than 5x without a retransmitted byte: queued
/// behind other packets at a host or a switch
uint64_t
SlowWithoutRetransmission(const SprayExperiment& e)
{
    uint64_t n = 0;
    for (const auto& r : e.GetRecords())
    {
        if (r.flow.sizeBytes <= 100000 && r.Finished() && r.retxBytes == 0 && r.Slowdown() > 5)
        {
            ++n;
        }
    }
    return n;
}

/**
 * host-tcp with and without parity on the same websearch flows: with it, fewer small flows
 * wait behind other flows' packets (head-of-line blocking in the host's FIFO), an ACK goes
 * back per segment (more packet-hops), the hosts' own queues drop nothing, every byte
 * arrives once and in order, and summary.json says which egress and ACK policy ran.
 */
class HostParityTestCase : public TestCase
{
  public:
    HostParityTestCase()
        : TestCase("host-tcp parity: fair egress, ACK per segment, fewer blocked small flows")
    {
    }

  private:
    void DoRun() override
    {
        SprayExperiment stock(Base("stock", "host-tcp", false));
        stock.Run();
        PRESTO_EXPECT_EXACT_DELIVERY(stock);
        SprayExperiment parity(Base("parity", "host-tcp", true));
        parity.Run();
        PRESTO_EXPECT_EXACT_DELIVERY(parity);
        const auto& s = stock.GetReport();
        const auto& p = parity.GetReport();
        NS_TEST_EXPECT_MSG_EQ(s["policy"]["ack"].get<std::string>().rfind("delayed", 0),
                              0,
                              "stock: delayed ACKs");
        NS_TEST_EXPECT_MSG_EQ(p["policy"]["ack"].get<std::string>(),
                              "every segment",
                              "parity: an ACK per segment");
        NS_TEST_EXPECT_MSG_NE(p["policy"]["egress"].get<std::string>().find("FqCoDel"),
                              std::string::npos,
                              "parity: per-flow fair queueing");
        const uint64_t blockedStock = SlowWithoutRetransmission(stock);
        const uint64_t blockedParity = SlowWithoutRetransmission(parity);
        std::cout << "small flows slowed > 5x with 0 retransmitted bytes: stock " << blockedStock
                  << ", parity " << blockedParity << std::endl;
        NS_TEST_EXPECT_MSG_LT(blockedParity, blockedStock, "less head-of-line blocking");
        const double hops =
            p["speed"]["packet_hops"].get<double>() / s["speed"]["packet_hops"].get<double>();
        NS_TEST_EXPECT_MSG_GT(hops, 1.2, "about twice the ACKs: one per segment, not per two");
        NS_TEST_EXPECT_MSG_EQ(p["fabric"]["host_qdisc_drops"].get<uint64_t>(),
                              0,
                              "the fair queue disc drops nothing");
        NS_TEST_EXPECT_MSG_EQ(p["fabric"]["host_device_queue_drops"].get<uint64_t>(),
                              0,
                              "flow control keeps the short device queue from overflowing");
    }
};

/** Parity changes only hosts that run ns-3's TCP: an offload row is byte-identical. */
class OffloadUnchangedTestCase : public TestCase
{
  public:
    OffloadUnchangedTestCase()
        : TestCase("parity leaves the offload rows as they are")
    {
    }

  private:
    void DoRun() override
    {
        SprayExperiment a(Base("presto-stock", "presto", false));
        a.Run();
        SprayExperiment b(Base("presto-parity", "presto", true));
        b.Run();
        NS_TEST_ASSERT_MSG_EQ(a.GetRecords().size(), b.GetRecords().size(), "same flows");
        for (std::size_t i = 0; i < a.GetRecords().size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(a.GetRecords()[i].finishNs,
                                  b.GetRecords()[i].finishNs,
                                  "flow " << i << " finishes at the same time");
        }
        NS_TEST_EXPECT_MSG_EQ(a.GetReport()["policy"].dump(),
                              b.GetReport()["policy"].dump(),
                              "the same policy");
    }
};

/** A mixed fabric with parity: the ns-3 hosts get the fair egress, every byte arrives. */
class MixedParityTestCase : public TestCase
{
  public:
    MixedParityTestCase()
        : TestCase("parity in a half-offloaded fabric: every byte once and in order")
    {
    }

  private:
    void DoRun() override
    {
        SprayExperimentConfig c = Base("mixed", "host-tcp", true);
        c.mix = "presto:0.5,host-tcp:0.5";
        SprayExperiment e(c);
        e.Run();
        PRESTO_EXPECT_EXACT_DELIVERY(e);
        NS_TEST_EXPECT_MSG_EQ(e.GetReport()["fabric"]["host_qdisc_drops"].get<uint64_t>(),
                              0,
                              "no host queue drops");
    }
};

/**
 * Parity never silently overrides the user: a DelAckCount other than 1 or a FifoQueueDisc
 * attribute with --hostParity is refused before the run, naming both; the device queue
 * follows the NICs' wire commitment.
 */
class ParityRefusalsTestCase : public TestCase
{
  public:
    ParityRefusalsTestCase()
        : TestCase("parity refuses what it would override; device queue = NIC commitment")
    {
    }

  private:
    void DoRun() override
    {
        auto refused = [](const SprayExperimentConfig& c, const std::string& needle) {
            try
            {
                SprayExperiment e(c);
            }
            catch (const PrestoInputError& err)
            {
                return std::string(err.what()).find(needle) != std::string::npos &&
                       std::string(err.what()).find("--hostParity") != std::string::npos;
            }
            return false;
        };
        Config::SetDefault("ns3::TcpSocketEndpoint::DelAckCount", UintegerValue(3));
        NS_TEST_EXPECT_MSG_EQ(refused(Base("r1", "host-tcp", true), "DelAckCount=3"),
                              true,
                              "delayed ACKs and parity disagree");
        NS_TEST_EXPECT_MSG_EQ(refused(Base("r2", "host-tcp", false), "DelAckCount"),
                              false,
                              "without parity the user's ACK policy runs");
        Config::SetDefault("ns3::TcpSocketEndpoint::DelAckCount", UintegerValue(1));
        NS_TEST_EXPECT_MSG_EQ(refused(Base("r3", "host-tcp", true), "DelAckCount"),
                              false,
                              "DelAckCount=1 is what parity does");
        Config::SetDefault("ns3::TcpSocketEndpoint::DelAckCount", UintegerValue(2)); // default
        Config::SetDefault("ns3::FifoQueueDisc::MaxSize", QueueSizeValue(QueueSize("32p")));
        NS_TEST_EXPECT_MSG_EQ(refused(Base("r4", "host-tcp", true), "FifoQueueDisc::MaxSize"),
                              true,
                              "the FIFO is not there with parity");
        Config::SetDefault("ns3::FifoQueueDisc::MaxSize", QueueSizeValue(QueueSize("1000p")));

        // 10 us of wire time: 8 full frames at 10 Gbit/s, the NICs' 64 at 100 Gbit/s and
        // above, never fewer than two
        NS_TEST_EXPECT_MSG_EQ(RowParity::DeviceQueue(10e9).GetValue(), 8, "10G");
        NS_TEST_EXPECT_MSG_EQ(RowParity::DeviceQueue(100e9).GetValue(), 64, "100G");
        NS_TEST_EXPECT_MSG_EQ(RowParity::DeviceQueue(1e9).GetValue(), 2, "1G");
        NS_TEST_EXPECT_MSG_EQ(RowParity::DeviceQueue(1e9).GetUnit(),
                              QueueSizeUnit::PACKETS,
                              "in packets");
    }
};

/** The suite. */
class PrestoParityTestSuite : public TestSuite
{
  public:
    PrestoParityTestSuite()
        : TestSuite("presto-parity", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new ParityRefusalsTestCase, compat::TestDuration::QUICK);
        AddTestCase(new HostParityTestCase, compat::TestDuration::QUICK);
        AddTestCase(new OffloadUnchangedTestCase, compat::TestDuration::QUICK);
        AddTestCase(new MixedParityTestCase, compat::TestDuration::QUICK);
    }
};

static PrestoParityTestSuite g_prestoParityTestSuite; //!< registers the suite

} // namespace
