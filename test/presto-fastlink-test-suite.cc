/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The fast fabric link (FabricLinkNetDevice on a FabricLinkChannel) against ns-3's
// point-to-point link: the same frame timings and queue occupancy on one link, the same FCTs
// within sampling noise on a leaf-spine, every byte delivered once and in order, drops and
// ECN marks counted.

#include "experiment-checks.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/error-model.h"
#include "ns3/fabric-link-net-device.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/node.h"
#include "ns3/offload-wire-header.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/spray-experiment.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>
#include <tuple>

using namespace ns3;

namespace
{

/// The default small leaf-spine, payload verified, quiet, no plot.
SprayExperimentConfig
BaseConfig(const std::string& out, const std::string& links)
{
    SprayExperimentConfig c;
    c.verifyPayload = true;
    c.out = out;
    c.quiet = true;
    c.plot = false;
    c.links = links;
    return c;
}

/// FCT distribution of a run, ns.
struct FctStats
{
    size_t n{0};
    double mean{0};
    double p50{0};
    double p99{0};
};

FctStats
Stats(const std::vector<FctRecord>& records)
{
    std::vector<double> fct;
    for (const auto& r : records)
    {
        if (r.Finished())
        {
            fct.push_back(static_cast<double>(r.FctNs()));
        }
    }
    FctStats s;
    s.n = fct.size();
    if (fct.empty())
    {
        return s;
    }
    std::sort(fct.begin(), fct.end());
    s.mean = std::accumulate(fct.begin(), fct.end(), 0.0) / fct.size();
    s.p50 = fct[fct.size() / 2];
    s.p99 = fct[std::min(fct.size() - 1, size_t(std::ceil(0.99 * fct.size())) - 1)];
    return s;
}

/// One link's observations: arrival times and sizes, queue samples, refused sends.
struct LinkLog
{
    std::vector<std::pair<int64_t, uint32_t>> arrivals; //!< (ns, bytes)
    std::vector<std::pair<uint32_t, uint32_t>> samples; //!< (bytes, packets) waiting
    uint32_t refused{0};                                //!< Send returned false

    bool Receive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
    {
        arrivals.emplace_back(Simulator::Now().GetNanoSeconds(), p->GetSize());
        return true;
    }
};

/**
 * One fast link between two new nodes: 10 Gbps, 1 us, default (unlimited enough) queues.
 * \return its two ends
 */
std::array<Ptr<FabricLinkNetDevice>, 2>
MakeFastLink()
{
    Ptr<FabricLinkChannel> channel = CreateObject<FabricLinkChannel>();
    channel->SetAttribute("Delay", TimeValue(NanoSeconds(1000)));
    std::array<Ptr<FabricLinkNetDevice>, 2> ends;
    for (auto& end : ends)
    {
        end = CreateObject<FabricLinkNetDevice>();
        end->SetAttribute("DataRate", DataRateValue(DataRate("10Gbps")));
        end->SetAddress(Mac48Address::Allocate());
        end->SetQueue(CreateObject<DropTailQueue<Packet>>());
        CreateObject<Node>()->AddDevice(end);
        end->Attach(channel);
    }
    return ends;
}

} // namespace

/// A test case that runs experiments and checks their delivery.
class FastLinkTestCase : public TestCase
{
  protected:
    /// \param name the test's name
    explicit FastLinkTestCase(const std::string& name)
        : TestCase(name)
    {
    }

    /**
     * Every byte of every flow reached its application once, in order, unaltered.
     * \param e the experiment, after Run
     * \param what names the run in messages
     */
    void CheckDelivery(SprayExperiment& e, const std::string& what)
    {
        const auto& rep = e.GetReport();
        uint64_t bytes = 0;
        for (const auto& f : e.GetFlows())
        {
            bytes += f.sizeBytes;
        }
        NS_TEST_EXPECT_MSG_EQ(rep["unfinished"].get<uint64_t>(), 0, what << ": all flows finish");
        NS_TEST_EXPECT_MSG_EQ(rep["delivery"]["bytes_delivered"].get<uint64_t>(),
                              bytes,
                              what << ": every byte delivered");
        NS_TEST_EXPECT_MSG_EQ(rep["delivery"]["corrupt_bytes"].get<uint64_t>(),
                              0,
                              what << ": no byte out of order or altered");
        NS_TEST_EXPECT_MSG_EQ(rep["delivery"]["excess_bytes"].get<uint64_t>(),
                              0,
                              what << ": no byte delivered twice");
    }
};

/**
 * One link, the same sends on a point-to-point link and on a fast link: every frame arrives
 * at the same nanosecond, the queue holds the same bytes and frames (the frame on the wire
 * excluded) at every sample, and the same sends are refused when the queue is full.
 */
class FastLinkTimingTestCase : public TestCase
{
  public:
    FastLinkTimingTestCase()
        : TestCase("one link: fast and point-to-point give the same arrivals, queue, drops")
    {
    }

  private:
    static void Send(Ptr<NetDevice> dev, uint32_t size, LinkLog* log)
    {
        if (!dev->Send(Create<Packet>(size), dev->GetBroadcast(), 0x0800))
        {
            ++log->refused;
        }
    }

    static void Sample(FabricPortQueue* queue, LinkLog* log)
    {
        log->samples.emplace_back(queue->GetBytes(), queue->GetPackets());
    }

    /// \param stopNs when the run stops (0: when every event ran)
    void RunLink(bool fast, LinkLog& log, int64_t stopNs = 0)
    {
        Ptr<Node> a = CreateObject<Node>();
        Ptr<Node> b = CreateObject<Node>();
        Ptr<PointToPointChannel> channel =
            fast ? Ptr<PointToPointChannel>(CreateObject<FabricLinkChannel>())
                 : CreateObject<PointToPointChannel>();
        channel->SetAttribute("Delay", TimeValue(NanoSeconds(1000)));
        Ptr<PointToPointNetDevice> ends[2];
        for (int i = 0; i < 2; ++i)
        {
            ends[i] = fast ? Ptr<PointToPointNetDevice>(CreateObject<FabricLinkNetDevice>())
                           : CreateObject<PointToPointNetDevice>();
            ends[i]->SetAttribute("DataRate", DataRateValue(DataRate("10Gbps")));
            ends[i]->SetAddress(Mac48Address::Allocate());
            Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
            q->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, 6000));
            ends[i]->SetQueue(q);
            (i == 0 ? a : b)->AddDevice(ends[i]);
            ends[i]->Attach(channel);
        }
        ends[1]->SetReceiveCallback(MakeCallback(&LinkLog::Receive, &log));
        FabricPortQueue queue(ends[0]);
        // two bursts of mixed sizes (the first overflows 6000 bytes), then sparse frames
        const uint32_t sizes[] = {1500, 64, 1000, 1500, 1500, 700, 1500, 1500, 40, 1200};
        for (uint32_t burst = 0; burst < 2; ++burst)
        {
            for (uint32_t i = 0; i < 10; ++i)
            {
                Simulator::Schedule(NanoSeconds(burst * 9000 + i * 10),
                                    &FastLinkTimingTestCase::Send,
                                    Ptr<NetDevice>(ends[0]),
                                    sizes[i],
                                    &log);
            }
        }
        for (uint32_t i = 0; i < 5; ++i)
        {
            Simulator::Schedule(NanoSeconds(30000 + i * 5000),
                                &FastLinkTimingTestCase::Send,
                                Ptr<NetDevice>(ends[0]),
                                100 + i,
                                &log);
        }
        for (uint32_t t = 3; t < 40000; t += 397)
        {
            Simulator::Schedule(NanoSeconds(t), &FastLinkTimingTestCase::Sample, &queue, &log);
        }
        if (stopNs > 0)
        {
            Simulator::Stop(NanoSeconds(stopNs));
        }
        Simulator::Run();
        if (fast && stopNs > 0)
        {
            // frames still in flight: their events are dropped by Simulator::Destroy (the
            // sanitizer build checks that nothing leaks or is freed twice)
            NS_TEST_EXPECT_MSG_GT(DynamicCast<FabricLinkNetDevice>(ends[0])->GetTxPackets(),
                                  log.arrivals.size(),
                                  "stopped with frames in flight");
        }
        if (fast && stopNs == 0)
        {
            auto dev = DynamicCast<FabricLinkNetDevice>(ends[0]);
            // the arrival events are reused: as many as frames in flight at once (at most
            // 6000 queued bytes, one on the wire, one propagating), not one per frame
            NS_TEST_EXPECT_MSG_GT(dev->GetMostArrivalsPending(), 0, "frames in flight");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(dev->GetMostArrivalsPending(),
                                        10,
                                        "frames in flight at once");
            // one free list for every link: the events this run left are the most in flight
            // at once, not one per frame (earlier cases of this process may have left more)
            NS_TEST_EXPECT_MSG_GT(FabricLinkNetDevice::GetArrivalEventsMade(), 0, "events made");
            NS_TEST_EXPECT_MSG_LT(FabricLinkNetDevice::GetArrivalEventsMade(),
                                  log.arrivals.size(),
                                  "events reused (" << log.arrivals.size() << " frames)");
            NS_TEST_EXPECT_MSG_EQ(dev->IsFast(), true, "both ends fast: the fast path");
            NS_TEST_EXPECT_MSG_EQ(dev->GetTxDrops(), log.refused, "refusals counted");
            NS_TEST_EXPECT_MSG_EQ(dev->GetTxPackets(),
                                  log.arrivals.size(),
                                  "transmissions counted");
            NS_TEST_EXPECT_MSG_EQ(DynamicCast<FabricLinkNetDevice>(ends[1])->GetRxPackets(),
                                  log.arrivals.size(),
                                  "arrivals counted");
        }
        Simulator::Destroy();
    }

    void DoRun() override
    {
        LinkLog p2p;
        LinkLog fast;
        RunLink(false, p2p);
        RunLink(true, fast);
        LinkLog cut;
        RunLink(true, cut, 9005); // stopped with the second burst in flight
        NS_TEST_ASSERT_MSG_LT(cut.arrivals.size(), fast.arrivals.size(), "cut short");
        for (size_t i = 0; i < cut.arrivals.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(cut.arrivals[i].first,
                                  fast.arrivals[i].first,
                                  "stopped run: arrival " << i);
        }
        NS_TEST_ASSERT_MSG_GT(p2p.refused, 0, "the first burst overflows the queue");
        NS_TEST_EXPECT_MSG_EQ(fast.refused, p2p.refused, "the same sends refused");
        NS_TEST_ASSERT_MSG_EQ(fast.arrivals.size(), p2p.arrivals.size(), "the same frames");
        for (size_t i = 0; i < p2p.arrivals.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(fast.arrivals[i].first,
                                  p2p.arrivals[i].first,
                                  "arrival time of frame " << i);
            // the p2p receiver sees the packet without its PPP header, as the fast one
            NS_TEST_EXPECT_MSG_EQ(fast.arrivals[i].second,
                                  p2p.arrivals[i].second,
                                  "size of frame " << i);
        }
        NS_TEST_ASSERT_MSG_EQ(fast.samples.size(), p2p.samples.size(), "samples");
        bool busy = false;
        for (size_t i = 0; i < p2p.samples.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(fast.samples[i].first,
                                  p2p.samples[i].first,
                                  "queued bytes at sample " << i);
            NS_TEST_EXPECT_MSG_EQ(fast.samples[i].second,
                                  p2p.samples[i].second,
                                  "queued frames at sample " << i);
            busy = busy || p2p.samples[i].second > 1;
        }
        NS_TEST_EXPECT_MSG_EQ(busy, true, "the samples see a queue");
    }
};

/**
 * Flow control on a host's device (a NetDeviceQueueInterface aggregated; a queue of 3
 * packets, and a queue of 3,300 bytes with the Mtu attribute set to 400, which the decision
 * to stop depends on): the fast link stops and wakes the transmit queue at the same times as
 * a point-to-point device whose queue drives it, and the fast one schedules no event unless
 * it is stopped.
 */
class FastLinkFlowControlTestCase : public TestCase
{
  public:
    FastLinkFlowControlTestCase()
        : TestCase("flow control: the transmit queue stops and wakes as with point-to-point")
    {
    }

  private:
    static void Send(Ptr<NetDevice> dev)
    {
        dev->Send(Create<Packet>(1000), dev->GetBroadcast(), 0x0800);
    }

    static void Sample(Ptr<NetDeviceQueue> txq, std::vector<bool>* stopped)
    {
        stopped->push_back(txq->IsStopped());
    }

    std::vector<bool> RunLink(bool fast, QueueSize limit, uint16_t mtu)
    {
        Ptr<Node> a = CreateObject<Node>();
        Ptr<Node> b = CreateObject<Node>();
        Ptr<PointToPointChannel> channel =
            fast ? Ptr<PointToPointChannel>(CreateObject<FabricLinkChannel>())
                 : CreateObject<PointToPointChannel>();
        Ptr<PointToPointNetDevice> ends[2];
        Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
        for (int i = 0; i < 2; ++i)
        {
            ends[i] = fast ? Ptr<PointToPointNetDevice>(CreateObject<FabricLinkNetDevice>())
                           : CreateObject<PointToPointNetDevice>();
            ends[i]->SetAttribute("DataRate", DataRateValue(DataRate("10Gbps")));
            ends[i]->SetAttribute("Mtu", UintegerValue(mtu));
            ends[i]->SetAddress(Mac48Address::Allocate());
            Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
            q->SetMaxSize(limit);
            ends[i]->SetQueue(q);
            (i == 0 ? a : b)->AddDevice(ends[i]);
            if (i == 0)
            {
                ndqi->GetTxQueue(0)->ConnectQueueTraces(q);
                ends[i]->AggregateObject(ndqi);
            }
            ends[i]->Attach(channel);
        }
        for (uint32_t i = 0; i < 6; ++i)
        {
            Simulator::Schedule(NanoSeconds(i * 100),
                                &FastLinkFlowControlTestCase::Send,
                                Ptr<NetDevice>(ends[0]));
        }
        std::vector<bool> stopped;
        for (uint32_t t = 1; t < 6000; t += 50)
        {
            Simulator::Schedule(NanoSeconds(t),
                                &FastLinkFlowControlTestCase::Sample,
                                ndqi->GetTxQueue(0),
                                &stopped);
        }
        Simulator::Run();
        Simulator::Destroy();
        return stopped;
    }

    void DoRun() override
    {
        Compare(QueueSize(QueueSizeUnit::PACKETS, 3), 1500, "3 packets");
        // 1,002-byte frames: two waiting leave room for a 400-byte MTU but not for 1,500
        Compare(QueueSize(QueueSizeUnit::BYTES, 3300), 400, "3,300 bytes, MTU 400");
        // the sender ignores the stop: frames 5 and 6 are refused, and a refusal stops the
        // queue as on a point-to-point device (NetDeviceQueue::PacketDiscarded)
        Compare(QueueSize(QueueSizeUnit::BYTES, 3500), 400, "3,500 bytes, MTU 400, refusals");
    }

    /// Run both links with \p limit and \p mtu and compare. \param what the case's name
    void Compare(QueueSize limit, uint16_t mtu, const std::string& what)
    {
        const std::vector<bool> p2p = RunLink(false, limit, mtu);
        const std::vector<bool> fast = RunLink(true, limit, mtu);
        NS_TEST_ASSERT_MSG_EQ(fast.size(), p2p.size(), what << ": samples");
        bool sawStop = false;
        for (size_t i = 0; i < p2p.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(fast[i], p2p[i], what << ": stopped at sample " << i);
            sawStop = sawStop || p2p[i];
        }
        NS_TEST_EXPECT_MSG_EQ(sawStop, true, what << ": the queue fills and stops");
        NS_TEST_EXPECT_MSG_EQ(fast.back(), false, what << ": and wakes again");
    }
};

/**
 * Links of different rates side by side in one simulation (the fast links share one
 * transmission-time table per rate): each delivers its frames at the nanosecond a
 * point-to-point link of its rate does.
 */
class FastLinkRatesTestCase : public TestCase
{
  public:
    FastLinkRatesTestCase()
        : TestCase("links of several rates at once: each at its own rate, as point-to-point")
    {
    }

  private:
    static void Send(Ptr<NetDevice> dev, uint32_t size)
    {
        dev->Send(Create<Packet>(size), dev->GetBroadcast(), 0x0800);
    }

    /// Three links (1, 10 and 1 Gbps again), the same frames on each. \return their logs
    std::vector<LinkLog> Run(bool fast)
    {
        const char* rates[] = {"1Gbps", "10Gbps", "1Gbps"};
        std::vector<LinkLog> logs(3);
        std::vector<Ptr<PointToPointNetDevice>> senders;
        for (uint32_t l = 0; l < 3; ++l)
        {
            Ptr<PointToPointChannel> channel =
                fast ? Ptr<PointToPointChannel>(CreateObject<FabricLinkChannel>())
                     : CreateObject<PointToPointChannel>();
            Ptr<PointToPointNetDevice> ends[2];
            for (int i = 0; i < 2; ++i)
            {
                ends[i] = fast ? Ptr<PointToPointNetDevice>(CreateObject<FabricLinkNetDevice>())
                               : CreateObject<PointToPointNetDevice>();
                ends[i]->SetAttribute("DataRate", DataRateValue(DataRate(rates[l])));
                ends[i]->SetAddress(Mac48Address::Allocate());
                ends[i]->SetQueue(CreateObject<DropTailQueue<Packet>>());
                CreateObject<Node>()->AddDevice(ends[i]);
                ends[i]->Attach(channel);
            }
            ends[1]->SetReceiveCallback(MakeCallback(&LinkLog::Receive, &logs[l]));
            senders.push_back(ends[0]);
        }
        const uint32_t sizes[] = {1500, 64, 1500, 700, 1500};
        for (uint32_t i = 0; i < 5; ++i)
        {
            for (uint32_t l = 0; l < 3; ++l)
            {
                Simulator::Schedule(NanoSeconds(i * 10),
                                    &FastLinkRatesTestCase::Send,
                                    Ptr<NetDevice>(senders[l]),
                                    sizes[i]);
            }
        }
        Simulator::Run();
        Simulator::Destroy();
        return logs;
    }

    void DoRun() override
    {
        const std::vector<LinkLog> p2p = Run(false);
        const std::vector<LinkLog> fast = Run(true);
        for (uint32_t l = 0; l < 3; ++l)
        {
            NS_TEST_ASSERT_MSG_EQ(p2p[l].arrivals.size(), 5, "every frame arrives, link " << l);
            NS_TEST_ASSERT_MSG_EQ(fast[l].arrivals.size(), 5, "every frame arrives, link " << l);
            for (uint32_t i = 0; i < 5; ++i)
            {
                NS_TEST_EXPECT_MSG_EQ(fast[l].arrivals[i].first,
                                      p2p[l].arrivals[i].first,
                                      "link " << l << " frame " << i);
            }
        }
        // the two rates differ: a 1 Gbps link delivers its last frame later than 10 Gbps
        NS_TEST_EXPECT_MSG_GT(fast[0].arrivals.back().first,
                              fast[1].arrivals.back().first,
                              "the rates apply");
    }
};

/**
 * HasRoomFor answers as Send decides, at every step of a queue filling up to its limit, in
 * packets and in bytes (the framing counted as Send counts it), on the fast path and on the
 * point-to-point path of a FabricLinkNetDevice (a plain PointToPointChannel).
 */
class FastLinkHasRoomTestCase : public TestCase
{
  public:
    FastLinkHasRoomTestCase()
        : TestCase("HasRoomFor agrees with Send at the queue limit, on both paths")
    {
    }

  private:
    struct Tally
    {
        uint32_t agreed{0};   //!< steps where both answered alike
        uint32_t refused{0};  //!< sends refused
        uint32_t accepted{0}; //!< sends accepted
    };

    /// Ask, then send, a packet of each size in turn, all at one instant.
    static void Burst(Ptr<FabricLinkNetDevice> dev, std::vector<uint32_t> sizes, Tally* t)
    {
        for (uint32_t size : sizes)
        {
            const bool room = dev->HasRoomFor(size, Simulator::Now());
            const bool sent = dev->Send(Create<Packet>(size), dev->GetBroadcast(), 0x0800);
            t->agreed += room == sent ? 1 : 0;
            (sent ? t->accepted : t->refused) += 1;
        }
    }

    Tally Run(bool fast, QueueSize max, const std::vector<uint32_t>& sizes)
    {
        Ptr<PointToPointChannel> channel =
            fast ? Ptr<PointToPointChannel>(CreateObject<FabricLinkChannel>())
                 : CreateObject<PointToPointChannel>();
        Ptr<FabricLinkNetDevice> ends[2];
        for (int i = 0; i < 2; ++i)
        {
            Ptr<Node> n = CreateObject<Node>();
            ends[i] = CreateObject<FabricLinkNetDevice>();
            ends[i]->SetAttribute("DataRate", DataRateValue(DataRate("10Gbps")));
            ends[i]->SetAddress(Mac48Address::Allocate());
            Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
            q->SetMaxSize(max);
            ends[i]->SetQueue(q);
            n->AddDevice(ends[i]);
            ends[i]->Attach(channel);
        }
        Tally t;
        Simulator::Schedule(NanoSeconds(10), &FastLinkHasRoomTestCase::Burst, ends[0], sizes, &t);
        Simulator::Run();
        Simulator::Destroy();
        NS_TEST_EXPECT_MSG_EQ(ends[0]->IsFast(), fast, "the path under test");
        return t;
    }

    void DoRun() override
    {
        // With 2 bytes of framing per frame (FramingBytes' default, the PPP header) and the
        // first frame on the wire, 2,004 bytes wait after the third send: a 595-byte frame
        // would make 2,601 of 2,600 and is refused, a 594-byte one fills the queue exactly.
        const std::vector<uint32_t> sizes{1000, 1000, 1000, 595, 594, 1, 0, 60, 1000};
        for (bool fast : {true, false})
        {
            for (const QueueSize& max :
                 {QueueSize(QueueSizeUnit::PACKETS, 3), QueueSize(QueueSizeUnit::BYTES, 2600)})
            {
                const Tally t = Run(fast, max, sizes);
                const std::string what =
                    std::string(fast ? "fast" : "p2p") +
                    (max.GetUnit() == QueueSizeUnit::PACKETS ? ", 3 packets: " : ", 2600 bytes: ");
                NS_TEST_EXPECT_MSG_EQ(t.agreed, sizes.size(), what << "HasRoomFor answers as Send");
                NS_TEST_EXPECT_MSG_GT(t.refused, 0u, what << "the queue fills");
                NS_TEST_EXPECT_MSG_GT(t.accepted, 1u, what << "and takes frames before");
            }
        }
    }
};

/**
 * The default leaf-spine under load with spraying and DCTCP: --links=fast and --links=p2p
 * run the same flows, deliver every byte once and in order, and give the same FCT
 * distribution within sampling noise (the event order of simultaneous events differs, so the
 * runs are not identical). With an offload NIC design the NICs' own links are fast too: the
 * events per packet-hop fall by more than a quarter (with only the switch links fast they
 * fell by about 15%).
 */
class FastLinkFctTestCase : public FastLinkTestCase
{
  public:
    /**
     * \param lb load balancing
     * \param load offered load
     * \param device the hosts' NIC design (--device)
     */
    FastLinkFctTestCase(const std::string& lb, double load, const std::string& device)
        : FastLinkTestCase("leaf-spine, " + device + ", " + lb + ", load " + std::to_string(load) +
                           ": fast and p2p links give the same FCTs within noise"),
          m_lb(lb),
          m_load(load),
          m_device(device)
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir =
            presto_test::FreshTempDir("presto-fastlink", "fct-" + m_device + "-" + m_lb);
        FctStats stats[2];
        uint64_t hops[2];
        uint64_t events[2];
        uint64_t marks[2];
        const char* links[2] = {"p2p", "fast"};
        size_t flows = 0;
        for (int i = 0; i < 2; ++i)
        {
            SprayExperimentConfig c = BaseConfig(dir + "/" + links[i], links[i]);
            c.lb = m_lb;
            c.load = m_load;
            c.device = m_device;
            c.simTime = 0.01;
            SprayExperiment e(c);
            e.Run();
            CheckDelivery(e, links[i]);
            NS_TEST_EXPECT_MSG_EQ(e.GetReport()["config"]["links"].get<std::string>(),
                                  links[i],
                                  "summary.json records the link model");
            stats[i] = Stats(e.GetRecords());
            hops[i] = e.GetSpeed().packetHops;
            events[i] = e.GetSpeed().events;
            marks[i] = e.GetReport()["fabric"]["switch_ecn_marks"].get<uint64_t>();
            flows = e.GetFlows().size();
        }
        std::cout << std::fixed << std::setprecision(1) << "fastlink " << m_device << " " << m_lb
                  << " load " << m_load << " flows " << flows << "\n";
        for (int i = 0; i < 2; ++i)
        {
            std::cout << "  links=" << links[i] << " n=" << stats[i].n
                      << " mean_us=" << stats[i].mean / 1e3 << " p50_us=" << stats[i].p50 / 1e3
                      << " p99_us=" << stats[i].p99 / 1e3 << " packet_hops=" << hops[i]
                      << " events=" << events[i] << " ecn_marks=" << marks[i] << "\n";
        }
        NS_TEST_ASSERT_MSG_GT(flows, 20, "enough flows to mean something");
        NS_TEST_EXPECT_MSG_EQ(stats[1].n, stats[0].n, "the same flows finish");
        auto rel = [](double a, double b) { return std::abs(a - b) / b; };
        NS_TEST_EXPECT_MSG_LT(rel(stats[1].mean, stats[0].mean), 0.05, "mean FCT within 5%");
        NS_TEST_EXPECT_MSG_LT(rel(stats[1].p50, stats[0].p50), 0.05, "median FCT within 5%");
        NS_TEST_EXPECT_MSG_LT(rel(stats[1].p99, stats[0].p99), 0.25, "p99 FCT within 25%");
        NS_TEST_EXPECT_MSG_LT(rel(double(hops[1]), double(hops[0])), 0.02, "packet-hops within 2%");
        if (m_device != "host-tcp")
        {
            const double perHop[2] = {double(events[0]) / double(hops[0]),
                                      double(events[1]) / double(hops[1])};
            NS_TEST_EXPECT_MSG_LT(perHop[1],
                                  0.75 * perHop[0],
                                  "the NICs' links are fast too: events per hop "
                                      << perHop[1] << " vs " << perHop[0] << " on p2p");
        }
        std::filesystem::remove_all(dir);
    }

    std::string m_lb;     //!< load balancing
    double m_load;        //!< offered load
    std::string m_device; //!< NIC design
};

/**
 * Small switch buffers and a low ECN threshold under incast with --links=fast: the switches
 * drop and mark, the queue tracer records every drop and mark the switches count, no sample
 * exceeds the buffer, and TCP still delivers every byte once and in order.
 */
class FastLinkDropsMarksTestCase : public FastLinkTestCase
{
  public:
    FastLinkDropsMarksTestCase()
        : FastLinkTestCase(
              "fast links: drops and ECN marks counted and traced, every byte delivered")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-fastlink", "drops");
        Config::SetDefault("ns3::FabricSwitch::BufferBytes", UintegerValue(20000));
        Config::SetDefault("ns3::FabricSwitch::EcnThreshold", UintegerValue(6000));
        uint64_t drops[2];
        uint64_t marks[2];
        const char* links[2] = {"p2p", "fast"};
        for (int i = 0; i < 2; ++i)
        {
            SprayExperimentConfig c = BaseConfig(dir + "/" + links[i], links[i]);
            c.pattern = "incast";
            c.incastSenders = 6;
            c.load = 0.8;
            c.simTime = 0.005;
            c.queueTrace = 10e-6;
            SprayExperiment e(c);
            e.Run();
            CheckDelivery(e, links[i]);
            const auto& rep = e.GetReport();
            drops[i] = rep["fabric"]["switch_drops"].get<uint64_t>();
            marks[i] = rep["fabric"]["switch_ecn_marks"].get<uint64_t>();
            NS_TEST_EXPECT_MSG_EQ(rep["queue_trace"]["drops"].get<uint64_t>(),
                                  drops[i],
                                  links[i] << ": every drop traced");
            NS_TEST_EXPECT_MSG_EQ(rep["queue_trace"]["marks"].get<uint64_t>(),
                                  marks[i],
                                  links[i] << ": every mark traced");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(rep["queue_trace"]["peak_queue_bytes"].get<uint64_t>(),
                                        20000,
                                        links[i] << ": the buffer holds");
            NS_TEST_EXPECT_MSG_GT(rep["queue_trace"]["peak_queue_bytes"].get<uint64_t>(),
                                  6000,
                                  links[i] << ": the tracer sees the queues");
        }
        Config::Reset();
        std::cout << "fastlink incast: drops p2p=" << drops[0] << " fast=" << drops[1]
                  << ", ecn marks p2p=" << marks[0] << " fast=" << marks[1] << "\n";
        NS_TEST_EXPECT_MSG_GT(drops[1], 0, "the fast run drops");
        NS_TEST_EXPECT_MSG_GT(marks[1], 0, "the fast run marks");
        std::filesystem::remove_all(dir);
    }
};

/**
 * --links=fast with random loss on the switch links and a link failed during the run: the
 * losses are repaired (retransmissions), and every byte is delivered once and in order.
 */
class FastLinkLossFailureTestCase : public FastLinkTestCase
{
  public:
    FastLinkLossFailureTestCase()
        : FastLinkTestCase("fast links: loss rate and a failed link, every byte delivered")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-fastlink", "loss");
        SprayExperimentConfig c = BaseConfig(dir, "fast");
        c.lossRate = 0.01;
        c.failLinks = "leaf0-spine1@2ms";
        c.load = 0.5;
        c.simTime = 0.006;
        SprayExperiment e(c);
        e.Run();
        CheckDelivery(e, "fast");
        int64_t retx = 0;
        for (const auto& r : e.GetRecords())
        {
            retx += r.retxBytes;
        }
        NS_TEST_EXPECT_MSG_GT(retx, 0, "losses were repaired by retransmissions");
        std::filesystem::remove_all(dir);
    }
};

/**
 * Offload NICs and ns-3 hosts side by side on a fast fabric (every link fast, the NICs'
 * included): every byte arrives.
 */
class FastLinkOffloadTestCase : public FastLinkTestCase
{
  public:
    FastLinkOffloadTestCase()
        : FastLinkTestCase("fast links with offload NICs and ns-3 hosts mixed: every byte arrives")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-fastlink", "offload");
        SprayExperimentConfig c = BaseConfig(dir, "fast");
        c.mix = "presto:0.5,host-tcp:0.5";
        c.load = 0.5;
        c.simTime = 0.004;
        SprayExperiment e(c);
        e.Run();
        CheckDelivery(e, "mix");
        std::filesystem::remove_all(dir);
    }
};

/// One pcap record: timestamp (us) and the captured bytes.
using PcapRecord = std::pair<uint64_t, std::vector<uint8_t>>;

/**
 * Read a pcap file (little-endian, microsecond timestamps, as ns-3 writes them).
 * \param path the file
 * \param[out] linkType the link type from its header
 * \return its records, in file order
 */
std::vector<PcapRecord>
ReadPcap(const std::filesystem::path& path, uint32_t& linkType)
{
    std::ifstream in(path, std::ios::binary);
    auto u32 = [&in]() {
        uint8_t b[4] = {0, 0, 0, 0};
        in.read(reinterpret_cast<char*>(b), 4);
        return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
    };
    std::vector<PcapRecord> records;
    if (u32() != 0xa1b2c3d4)
    {
        linkType = 0;
        return records;
    }
    in.ignore(16);
    linkType = u32();
    while (in.peek() != EOF)
    {
        const uint64_t sec = u32();
        const uint64_t usec = u32();
        const uint32_t incl = u32();
        u32(); // original length
        std::vector<uint8_t> data(incl);
        in.read(reinterpret_cast<char*>(data.data()), incl);
        if (!in)
        {
            break;
        }
        records.emplace_back(sec * 1000000 + usec, std::move(data));
    }
    return records;
}

/**
 * --pcap on fast links: the same files as on point-to-point links, PPP frames (DLT_PPP, 2-byte
 * header 0x0021 before each IPv4 packet whose total length fills the frame). With ns-3's TCP on
 * the hosts both runs are the same simulation, so every file holds the same frames at the same
 * times; with Presto NICs the runs differ slightly (events at equal times in another order),
 * so the frame counts agree within 2%.
 */
class FastLinkPcapTestCase : public FastLinkTestCase
{
  public:
    /// \param device the hosts' NIC design
    explicit FastLinkPcapTestCase(const std::string& device)
        : FastLinkTestCase("--pcap on fast links, " + device + ": the frames of point-to-point"),
          m_device(device)
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-fastlink", "pcap-" + m_device);
        const char* links[2] = {"p2p", "fast"};
        std::map<std::string, std::vector<PcapRecord>> files[2];
        for (int i = 0; i < 2; ++i)
        {
            SprayExperimentConfig c = BaseConfig(dir + "/" + links[i], links[i]);
            c.device = m_device;
            c.load = 0.3;
            c.simTime = 0.002;
            c.pcap = true;
            SprayExperiment e(c);
            e.Run();
            CheckDelivery(e, links[i]);
            for (const auto& entry : std::filesystem::directory_iterator(c.out))
            {
                if (entry.path().extension() != ".pcap")
                {
                    continue;
                }
                uint32_t linkType = 0;
                auto records = ReadPcap(entry.path(), linkType);
                NS_TEST_EXPECT_MSG_EQ(linkType, 9, entry.path() << ": DLT_PPP");
                for (const auto& [t, bytes] : records)
                {
                    NS_TEST_ASSERT_MSG_GT(bytes.size(), 22, "a PPP frame with an IPv4 header");
                    NS_TEST_EXPECT_MSG_EQ((bytes[0] << 8 | bytes[1]), 0x0021, "PPP: IPv4");
                    NS_TEST_EXPECT_MSG_EQ((bytes[2] >> 4), 4, "IPv4 version");
                    NS_TEST_EXPECT_MSG_EQ(size_t(bytes[4] << 8 | bytes[5]),
                                          bytes.size() - 2,
                                          "the IPv4 total length fills the frame");
                }
                files[i][entry.path().filename().string()] = std::move(records);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(files[1].size(), files[0].size(), "the same pcap files");
        NS_TEST_ASSERT_MSG_GT(files[0].size(), 0, "pcap files written");
        size_t frames[2] = {0, 0};
        for (auto& [name, records] : files[0])
        {
            NS_TEST_ASSERT_MSG_EQ(files[1].count(name), 1, name << " written on fast links too");
            auto& other = files[1][name];
            frames[0] += records.size();
            frames[1] += other.size();
            if (m_device == "host-tcp")
            {
                // records at the same microsecond may be written in another order
                std::sort(records.begin(), records.end());
                std::sort(other.begin(), other.end());
                NS_TEST_EXPECT_MSG_EQ((records == other), true, name << ": the same frames");
            }
        }
        std::cout << "pcap " << m_device << ": " << files[0].size() << " files, frames p2p "
                  << frames[0] << " fast " << frames[1] << "\n";
        NS_TEST_EXPECT_MSG_GT(frames[0], 1000, "enough frames to compare");
        NS_TEST_EXPECT_MSG_LT(std::abs(double(frames[1]) - double(frames[0])) / double(frames[0]),
                              0.02,
                              "frame counts within 2%");
        std::filesystem::remove_all(dir);
    }

    std::string m_device; //!< NIC design
};

/**
 * FastSniffer shows a sent frame when its transmission starts: four back-to-back frames are
 * sniffed four times, and after FlushQueue only the frame that was on the wire (the flushed
 * ones never start; a point-to-point device's sniffer never sees a flushed frame either).
 */
class FastLinkSnifferFlushTestCase : public TestCase
{
  public:
    FastLinkSnifferFlushTestCase()
        : TestCase("FastSniffer: frames at their start, flushed frames never")
    {
    }

  private:
    /// \param count incremented \param p the frame
    static void Count(uint32_t* count, Ptr<const Packet> p)
    {
        ++*count;
    }

    /// \param flush call FlushQueue 1 ns after the sends \return frames sniffed at the sender
    uint32_t Sniffed(bool flush)
    {
        const std::array<Ptr<FabricLinkNetDevice>, 2> ends = MakeFastLink();
        uint32_t sniffed = 0;
        ends[0]->TraceConnectWithoutContext("FastSniffer", MakeBoundCallback(&Count, &sniffed));
        for (int i = 0; i < 4; ++i)
        {
            ends[0]->Send(Create<Packet>(1000), ends[1]->GetAddress(), 0x0800);
        }
        if (flush)
        {
            Simulator::Schedule(NanoSeconds(1), &FabricLinkNetDevice::FlushQueue, ends[0]);
        }
        Simulator::Run();
        Simulator::Destroy();
        return sniffed;
    }

    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(Sniffed(false), 4, "every frame sent");
        NS_TEST_EXPECT_MSG_EQ(Sniffed(true), 1, "only the frame on the wire when flushed");
    }
};

/**
 * A far end hands frames straight to the receiver's sink only while the receiver would do
 * nothing else with them (FabricLinkNetDevice::PushReceiveState). Frames every 2 us, one run
 * left alone and one in which the receiver's state changes between frames, one thing at a
 * time: an error model that corrupts every frame set and removed, a sniffer connected and
 * disconnected, a promiscuous callback set and cleared; then an error model set and removed
 * while a sniffer is connected (the sniffer alone must still keep the far end from delivering
 * directly). The changed run must drop exactly the
 * frames that arrive under the error model, sniff exactly those that arrive (uncorrupted)
 * while the sniffer is connected, show the promiscuous callback exactly those of its window,
 * deliver every other frame at the same time as the run left alone, and count them all.
 */
class FastLinkReceiveStateTestCase : public TestCase
{
  public:
    FastLinkReceiveStateTestCase()
        : TestCase("receiver changes mid-run: the far end stops and resumes delivering directly")
    {
    }

  private:
    static constexpr uint32_t FRAMES = 50;
    static constexpr uint32_t SIZE = 1000; //!< frame i has SIZE + i bytes

    /// A sink that logs (arrival ns, frame index).
    struct Sink : public FabricLinkSink
    {
        std::vector<std::pair<int64_t, uint32_t>> got;
        uint32_t port{0};

        void ReceiveFromLink(uint32_t p,
                             const Ptr<Packet>& packet,
                             uint16_t,
                             const Time& now,
                             FabricFrameFields&) override
        {
            port = p;
            got.emplace_back(now.GetNanoSeconds(), packet->GetSize() - SIZE);
        }
    };

    /// \param log frame indices seen \param p the frame (with its PPP header: 2 bytes)
    static void Sniffed(std::vector<uint32_t>* log, Ptr<const Packet> p)
    {
        log->push_back(p->GetSize() - 2 - SIZE);
    }

    /// \param log frame indices seen \return true
    static bool Promisc(std::vector<uint32_t>* log,
                        Ptr<NetDevice>,
                        Ptr<const Packet> p,
                        uint16_t,
                        const Address&,
                        const Address&,
                        NetDevice::PacketType)
    {
        log->push_back(p->GetSize() - SIZE);
        return true;
    }

    static void SetErrorModel(Ptr<FabricLinkNetDevice> dev, Ptr<ErrorModel> em)
    {
        dev->SetLinkReceiveErrorModel(em);
    }

    static void SetPromisc(Ptr<FabricLinkNetDevice> dev, std::vector<uint32_t>* log)
    {
        dev->SetPromiscReceiveCallback(log ? MakeBoundCallback(&Promisc, log)
                                           : NetDevice::PromiscReceiveCallback());
    }

    static void Connect(Ptr<FabricLinkNetDevice> dev, std::vector<uint32_t>* log, bool on)
    {
        if (on)
        {
            dev->TraceConnectWithoutContext("FastSniffer", MakeBoundCallback(&Sniffed, log));
        }
        else
        {
            dev->TraceDisconnectWithoutContext("FastSniffer", MakeBoundCallback(&Sniffed, log));
        }
    }

    struct Run
    {
        Sink sink;
        std::vector<uint32_t> sniffed;
        std::vector<uint32_t> promisc;
        uint64_t rxPackets{0};
        uint64_t rxDrops{0};
    };

    /// \param change change the receiver's state during the run
    void RunLink(bool change, Run& run)
    {
        const std::array<Ptr<FabricLinkNetDevice>, 2> ends = MakeFastLink();
        ends[1]->SetLinkSink(&run.sink, 7);
        for (uint32_t i = 0; i < FRAMES; ++i)
        {
            Simulator::Schedule(MicroSeconds(2 * i), [ends, i]() {
                ends[0]->Send(Create<Packet>(SIZE + i), ends[1]->GetAddress(), 0x0800);
            });
        }
        if (change)
        {
            Ptr<RateErrorModel> all = CreateObject<RateErrorModel>();
            all->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            all->SetRate(1.0);
            // each change alone, then an error model set and removed under a sniffer
            Simulator::Schedule(NanoSeconds(10500), &SetErrorModel, ends[1], all);
            Simulator::Schedule(NanoSeconds(20500), &SetErrorModel, ends[1], nullptr);
            Simulator::Schedule(NanoSeconds(30500), &Connect, ends[1], &run.sniffed, true);
            Simulator::Schedule(NanoSeconds(40500), &Connect, ends[1], &run.sniffed, false);
            Simulator::Schedule(NanoSeconds(50500), &SetPromisc, ends[1], &run.promisc);
            Simulator::Schedule(NanoSeconds(60500), &SetPromisc, ends[1], nullptr);
            Simulator::Schedule(NanoSeconds(70500), &Connect, ends[1], &run.sniffed, true);
            Simulator::Schedule(NanoSeconds(75500), &SetErrorModel, ends[1], all);
            Simulator::Schedule(NanoSeconds(80500), &SetErrorModel, ends[1], nullptr);
            Simulator::Schedule(NanoSeconds(90500), &Connect, ends[1], &run.sniffed, false);
        }
        Simulator::Run();
        run.rxPackets = ends[1]->GetRxPackets();
        run.rxDrops = ends[1]->GetRxDrops();
        Simulator::Destroy();
    }

    void DoRun() override
    {
        Run plain;
        Run changed;
        RunLink(false, plain);
        RunLink(true, changed);
        NS_TEST_ASSERT_MSG_EQ(plain.sink.got.size(), FRAMES, "left alone: every frame");
        NS_TEST_EXPECT_MSG_EQ(plain.sink.port, 7, "the sink's port number");
        NS_TEST_EXPECT_MSG_EQ(plain.rxPackets, FRAMES, "left alone: every frame counted");
        // what the changed run must show, by each frame's arrival time in the run left alone
        std::vector<std::pair<int64_t, uint32_t>> delivered;
        std::vector<uint32_t> sniffed;
        std::vector<uint32_t> promisc;
        uint32_t dropped = 0;
        for (const auto& [at, i] : plain.sink.got)
        {
            const bool corrupt = (at >= 10500 && at < 20500) || (at >= 75500 && at < 80500);
            dropped += corrupt;
            if (!corrupt)
            {
                delivered.emplace_back(at, i);
            }
            if (!corrupt && ((at >= 30500 && at < 40500) || (at >= 70500 && at < 90500)))
            {
                sniffed.push_back(i);
            }
            if (at >= 50500 && at < 60500)
            {
                promisc.push_back(i);
            }
        }
        NS_TEST_ASSERT_MSG_GT(dropped, 0, "frames arrive under the error model");
        NS_TEST_ASSERT_MSG_GT(sniffed.size(), 0, "frames arrive while sniffed");
        NS_TEST_ASSERT_MSG_GT(promisc.size(), 0, "frames arrive under the callback");
        NS_TEST_EXPECT_MSG_EQ(changed.rxDrops, dropped, "drops counted");
        NS_TEST_EXPECT_MSG_EQ(changed.rxPackets, delivered.size(), "arrivals counted");
        NS_TEST_EXPECT_MSG_EQ((changed.sink.got == delivered), true, "the same frames and times");
        NS_TEST_EXPECT_MSG_EQ((changed.sniffed == sniffed), true, "sniffed: those in its window");
        NS_TEST_EXPECT_MSG_EQ((changed.promisc == promisc), true, "promiscuous: its window");
    }
};

/**
 * A header carried beside its frame as fields (FabricFrameFields::lazy) is written into the
 * frame's bytes the moment anything on the link can read them, and never otherwise. One frame
 * of a 40-byte zero placeholder and 1,000 bytes of payload crosses a fast link, once per
 * reader: a sink alone (the header stays unwritten, the sink gets the fields and the zero
 * placeholder); the receiver's sniffer, the sender's sniffer, the receiver's error model (its
 * drop trace), its promiscuous callback, its receive callback without a sink, and the sender's
 * queue refusing a third frame (its drop trace; the two sent stay unwritten). Each reader sees
 * exactly the bytes BuildWire
 * writes for the fields, with the TOS byte of the fields (here a CE mark, not the ECT(0) the
 * fields were made with), and the header is not written twice.
 */
class FastLinkLazyHeaderTestCase : public TestCase
{
  public:
    FastLinkLazyHeaderTestCase()
        : TestCase("headers as fields: written when something reads the bytes, never otherwise")
    {
    }

  private:
    static constexpr uint32_t PAYLOAD = 1000;
    static constexpr uint8_t TOS = 0x03; //!< CE, as a switch marks it

    /// Where the frame's bytes were seen.
    struct Seen
    {
        std::vector<std::vector<uint8_t>> frames; //!< each reader's copy of the frame's bytes
        uint32_t sinkFrames{0};                   //!< frames the sink got
        bool sinkSawLazy{false};                  //!< the sink got the fields' header
        bool sinkSawWritten{false};               //!< ... already written
        std::vector<uint8_t> sinkBytes;           //!< the frame's bytes at the sink
    };

    struct Sink : public FabricLinkSink
    {
        Seen* seen{nullptr};

        void ReceiveFromLink(uint32_t,
                             const Ptr<Packet>& packet,
                             uint16_t,
                             const Time&,
                             FabricFrameFields& fields) override
        {
            ++seen->sinkFrames;
            seen->sinkSawLazy = static_cast<bool>(fields.lazy);
            seen->sinkSawWritten = fields.lazy && fields.lazy.Get()->IsWritten();
            seen->sinkBytes = Bytes(packet, 0);
        }
    };

    static std::vector<uint8_t> Bytes(Ptr<const Packet> p, uint32_t skip)
    {
        std::vector<uint8_t> b(p->GetSize());
        p->CopyData(b.data(), b.size());
        return std::vector<uint8_t>(b.begin() + skip, b.end());
    }

    static void Framed(Seen* seen, Ptr<const Packet> p)
    {
        seen->frames.push_back(Bytes(p, 2)); // past the PPP header
    }

    static void Plain(Seen* seen, Ptr<const Packet> p)
    {
        seen->frames.push_back(Bytes(p, 0));
    }

    static bool Received(Seen* seen, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
    {
        seen->frames.push_back(Bytes(p, 0));
        return true;
    }

    static bool Promisc(Seen* seen,
                        Ptr<NetDevice>,
                        Ptr<const Packet> p,
                        uint16_t,
                        const Address&,
                        const Address&,
                        NetDevice::PacketType)
    {
        seen->frames.push_back(Bytes(p, 0));
        return true;
    }

    static WireSegmentOut Fields()
    {
        WireSegmentOut w;
        w.src = 0x0a000001;
        w.dst = 0x0a000102;
        w.ipId = 77;
        w.ect = true;
        w.srcPort = 49153;
        w.dstPort = 5001;
        w.seq = 123456789;
        w.ack = 987654321;
        w.flags = 0x10;
        w.window = 4096;
        w.sackBlocks = 1;
        w.sack[0][0] = 5;
        w.sack[0][1] = 9;
        w.payloadLen = PAYLOAD;
        return w;
    }

    /// \return the frame with its header written, as every reader must see it
    static std::vector<uint8_t> Expected()
    {
        uint8_t header[WIRE_MAX_HEADER_BYTES];
        const uint32_t len = BuildWire(Fields(), header);
        header[1] = TOS;
        std::vector<uint8_t> frame(header, header + len);
        frame.resize(len + PAYLOAD, 0);
        return frame;
    }

    enum Reader
    {
        SINK_ONLY,
        RX_SNIFFER,
        TX_SNIFFER,
        RX_ERROR_MODEL,
        PROMISC,
        RECEIVE_CALLBACK,
        TX_QUEUE_FULL,
    };

    /// \param reader who reads the bytes \param seen what was seen
    void RunLink(Reader reader, Seen& seen)
    {
        const std::array<Ptr<FabricLinkNetDevice>, 2> ends = MakeFastLink();
        Sink sink;
        sink.seen = &seen;
        if (reader != RECEIVE_CALLBACK)
        {
            ends[1]->SetLinkSink(&sink, 0);
        }
        switch (reader)
        {
        case SINK_ONLY:
            break;
        case RX_SNIFFER:
            ends[1]->TraceConnectWithoutContext("FastSniffer", MakeBoundCallback(&Framed, &seen));
            break;
        case TX_SNIFFER:
            ends[0]->TraceConnectWithoutContext("FastSniffer", MakeBoundCallback(&Framed, &seen));
            break;
        case RX_ERROR_MODEL: {
            Ptr<RateErrorModel> all = CreateObject<RateErrorModel>();
            all->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            all->SetRate(1.0);
            ends[1]->SetLinkReceiveErrorModel(all);
            ends[1]->TraceConnectWithoutContext("FastRxDrop", MakeBoundCallback(&Plain, &seen));
            break;
        }
        case PROMISC:
            ends[1]->SetPromiscReceiveCallback(MakeBoundCallback(&Promisc, &seen));
            break;
        case RECEIVE_CALLBACK:
            ends[1]->SetReceiveCallback(MakeBoundCallback(&Received, &seen));
            break;
        case TX_QUEUE_FULL:
            ends[0]->GetQueue()->SetMaxSize(QueueSize("1p"));
            ends[0]->TraceConnectWithoutContext("FastTxDrop", MakeBoundCallback(&Plain, &seen));
            break;
        }
        const WireSegmentOut w = Fields();
        const uint32_t frames = reader == TX_QUEUE_FULL ? 3 : 1; // 1 on the wire, 1 waiting
        Simulator::Schedule(NanoSeconds(100), [&]() {
            for (uint32_t i = 0; i < frames; ++i)
            {
                Ptr<Packet> p = Create<Packet>(WireHeaderLength(w) + PAYLOAD);
                FabricFrameFields fields(w.dst,
                                         TOS,
                                         true,
                                         FabricLazyHeaderRef(new OffloadLazyWireHeader(w)));
                ends[0]->SendAt(p, ends[1]->GetAddress(), 0x0800, Simulator::Now(), fields);
            }
        });
        Simulator::Run();
        Simulator::Destroy();
    }

    void DoRun() override
    {
        const std::vector<uint8_t> expected = Expected();
        Seen alone;
        RunLink(SINK_ONLY, alone);
        NS_TEST_ASSERT_MSG_EQ(alone.sinkFrames, 1, "the sink gets the frame");
        NS_TEST_EXPECT_MSG_EQ(alone.sinkSawLazy, true, "with its header as fields");
        NS_TEST_EXPECT_MSG_EQ(alone.sinkSawWritten, false, "nothing read the bytes: not written");
        NS_TEST_EXPECT_MSG_EQ((alone.sinkBytes == std::vector<uint8_t>(expected.size(), 0)),
                              true,
                              "a zero placeholder of the frame's size");
        const std::map<Reader, std::string> readers{{RX_SNIFFER, "receiver's sniffer"},
                                                    {TX_SNIFFER, "sender's sniffer"},
                                                    {RX_ERROR_MODEL, "error model's drop"},
                                                    {PROMISC, "promiscuous callback"},
                                                    {RECEIVE_CALLBACK, "receive callback"},
                                                    {TX_QUEUE_FULL, "sender's queue drop"}};
        for (const auto& [reader, name] : readers)
        {
            Seen seen;
            RunLink(reader, seen);
            NS_TEST_ASSERT_MSG_EQ(seen.frames.size(), 1, name << ": one frame read");
            NS_TEST_EXPECT_MSG_EQ((seen.frames[0] == expected),
                                  true,
                                  name << ": BuildWire's bytes");
            if (reader == TX_QUEUE_FULL)
            {
                // the two frames sent are not the one dropped: nothing read their bytes
                NS_TEST_EXPECT_MSG_EQ(seen.sinkFrames, 2, name << ": the others arrive");
                NS_TEST_EXPECT_MSG_EQ(seen.sinkSawWritten, false, name << ": the others not");
            }
            else if (seen.sinkFrames > 0)
            {
                NS_TEST_EXPECT_MSG_EQ(seen.sinkSawWritten, true, name << ": written before");
                NS_TEST_EXPECT_MSG_EQ((seen.sinkBytes == expected),
                                      true,
                                      name << ": the sink sees the bytes, written once");
            }
        }
    }
};

/**
 * Headers as fields change nothing a researcher can see: the same seed with
 * ns3::OffloadNetDevice::HeadersAsFields true and false gives byte-identical output files
 * (fct.csv, flows.txt, the queue traces, the pcap files) and summary.json (but its timing).
 * Run where each way of reading the bytes is on the path: spraying alone and an incast whose
 * switches ECN-mark frames (nothing reads them; the mark goes into the fields), the same
 * incast with the switches' mark and drop traces connected (--queueTrace), ECMP and
 * flowlets (switches hash the header), random loss (error models on the core links), pcap
 * (sniffers on the host links), and a fabric of Presto NICs and ns-3 TCP hosts (whose IPv4
 * stack parses the header). Every flow completes with every byte once; headers were sent as
 * fields, and written only where something read them (never with spraying alone).
 */
class FastLinkHeadersAsFieldsTestCase : public FastLinkTestCase
{
  public:
    /**
     * \param name what reads the bytes \param device the NIC design \param apply the setup
     * \param written whether headers must be written somewhere (false: never)
     * \param marks whether switches must mark frames with ECN
     */
    FastLinkHeadersAsFieldsTestCase(const std::string& name,
                                    const std::string& device,
                                    std::function<void(SprayExperimentConfig&)> apply,
                                    bool written,
                                    bool marks)
        : FastLinkTestCase("headers as fields, " + device + ", " + name +
                           ": outputs identical to headers as bytes"),
          m_name(name),
          m_device(device),
          m_apply(std::move(apply)),
          m_written(written),
          m_marks(marks)
    {
    }

  private:
    /// \param dir a run's output directory \return its files that must not differ, by name
    static std::map<std::string, std::string> Outputs(const std::string& dir)
    {
        std::map<std::string, std::string> files;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
        {
            const std::string name = entry.path().filename().string();
            // all but the plots (PNG, SVG) and the summary (compared without its timing)
            if (entry.path().extension() != ".png" && entry.path().extension() != ".svg" &&
                name != "summary.json")
            {
                std::ifstream in(entry.path(), std::ios::binary);
                std::ostringstream ss;
                ss << in.rdbuf();
                files[name] = ss.str();
            }
        }
        return files;
    }

    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-fastlink", "fields-" + m_name);
        std::map<std::string, std::string> outputs[2];
        nlohmann::json summary[2];
        uint64_t made[2] = {0, 0};
        uint64_t written[2] = {0, 0};
        for (int lazy = 0; lazy < 2; ++lazy)
        {
            Config::SetDefault("ns3::OffloadNetDevice::HeadersAsFields", BooleanValue(lazy == 1));
            SprayExperimentConfig c = BaseConfig(dir + (lazy ? "/fields" : "/bytes"), "fast");
            c.verifyPayload = false; // headers as fields need virtual payload
            c.device = m_device;
            c.simTime = 0.003;
            c.seed = 9;
            m_apply(c);
            uint64_t made0 = 0;
            uint64_t written0 = 0;
            OffloadLazyWireHeader::GetCounts(made0, written0);
            SprayExperiment e(c);
            e.Run();
            OffloadLazyWireHeader::GetCounts(made[lazy], written[lazy]);
            made[lazy] -= made0;
            written[lazy] -= written0;
            CheckDelivery(e, m_name);
            outputs[lazy] = Outputs(c.out);
            summary[lazy] = e.GetReport();
            summary[lazy].erase("speed");
        }
        Config::SetDefault("ns3::OffloadNetDevice::HeadersAsFields", BooleanValue(true));
        std::cout << "headers as fields, " << m_device << ", " << m_name << ": " << made[1]
                  << " sent as fields, " << written[1] << " written" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(made[0], 0, "HeadersAsFields=false: none sent as fields");
        NS_TEST_EXPECT_MSG_GT(made[1], 1000, "HeadersAsFields=true: segments sent as fields");
        if (m_written)
        {
            NS_TEST_EXPECT_MSG_GT(written[1], 0, "something read the bytes: written");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ(written[1], 0, "nothing read the bytes: never written");
        }
        NS_TEST_ASSERT_MSG_GT(outputs[0].size(), 1, "outputs written");
        NS_TEST_EXPECT_MSG_EQ(outputs[1].size(), outputs[0].size(), "the same files");
        for (const auto& [name, bytes] : outputs[0])
        {
            const auto other = outputs[1].find(name);
            NS_TEST_ASSERT_MSG_EQ((other != outputs[1].end()), true, name << " written");
            NS_TEST_EXPECT_MSG_EQ((other->second == bytes), true, name << ": byte-identical");
        }
        NS_TEST_EXPECT_MSG_EQ((summary[0] == summary[1]), true, "summary.json identical");
        if (m_marks)
        {
            NS_TEST_EXPECT_MSG_GT(summary[1]["fabric"]["switch_ecn_marks"].get<uint64_t>(),
                                  100,
                                  "switches marked frames whose header was not written");
        }
        std::filesystem::remove_all(dir);
    }

    std::string m_name;                                  //!< what reads the bytes
    std::string m_device;                                //!< NIC design
    std::function<void(SprayExperimentConfig&)> m_apply; //!< the setup
    bool m_written;                                      //!< headers must be written
    bool m_marks;                                        //!< switches must mark
};

/**
 * --links=auto, the default: fast links on the module's switches, point-to-point links with
 * ns-3's routers (which need ns-3's devices); summary.json records which.
 */
class FastLinkAutoTestCase : public FastLinkTestCase
{
  public:
    FastLinkAutoTestCase()
        : FastLinkTestCase("--links=auto: fast on the module's switches, p2p on ns-3 routers")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-fastlink", "auto");
        for (const char* fabric : {"presto", "ns3-routers"})
        {
            NS_TEST_ASSERT_MSG_EQ(SprayExperimentConfig().links, "auto", "the default");
            SprayExperimentConfig c = BaseConfig(dir + "/" + fabric, "auto");
            c.fabric = fabric;
            c.simTime = 0.002;
            SprayExperiment e(c);
            e.Run();
            CheckDelivery(e, fabric);
            const std::string expected = std::string(fabric) == "presto" ? "fast" : "p2p";
            NS_TEST_EXPECT_MSG_EQ(e.GetReport()["config"]["links"].get<std::string>(),
                                  expected,
                                  fabric << ": what auto became");
        }
        std::filesystem::remove_all(dir);
    }
};

/** --links: bad values and combinations it does not support are refused with a message. */
class FastLinkBadConfigTestCase : public TestCase
{
  public:
    FastLinkBadConfigTestCase()
        : TestCase("--links: bad value and ns3-routers refused")
    {
    }

  private:
    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-fastlink", "bad");

        struct Bad
        {
            std::function<void(SprayExperimentConfig&)> set;
            std::string needle;
        };

        const std::vector<Bad> bad = {
            {[](SprayExperimentConfig& c) { c.links = "wormhole"; }, "links"},
            {[](SprayExperimentConfig& c) { c.fabric = "ns3-routers"; }, "--links=p2p"},
        };
        for (const auto& b : bad)
        {
            SprayExperimentConfig c = BaseConfig(dir + "/out", "fast");
            b.set(c);
            std::string message;
            try
            {
                SprayExperiment e(c);
                e.Run();
            }
            catch (const PrestoInputError& err)
            {
                message = err.what();
            }
            NS_TEST_EXPECT_MSG_NE(message.find(b.needle),
                                  std::string::npos,
                                  "refused naming " << b.needle << ": '" << message << "'");
        }
        std::filesystem::remove_all(dir);
    }
};

/// The fast fabric link against ns-3's point-to-point link.
class PrestoFastLinkTestSuite : public TestSuite
{
  public:
    PrestoFastLinkTestSuite()
        : TestSuite("presto-fastlink", TestSuite::Type::UNIT)
    {
        AddTestCase(new FastLinkTimingTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastLinkFlowControlTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastLinkHasRoomTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastLinkRatesTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastLinkFctTestCase("spray", 0.6, "host-tcp"), compat::TestDuration::QUICK);
        AddTestCase(new FastLinkFctTestCase("ecmp", 0.5, "host-tcp"), compat::TestDuration::QUICK);
        for (const char* design : {"presto", "flextoe", "cora"})
        {
            AddTestCase(new FastLinkFctTestCase("spray", 0.6, design), compat::TestDuration::QUICK);
        }
        AddTestCase(new FastLinkDropsMarksTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastLinkLossFailureTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastLinkOffloadTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastLinkPcapTestCase("host-tcp"), compat::TestDuration::QUICK);
        AddTestCase(new FastLinkPcapTestCase("presto"), compat::TestDuration::QUICK);
        AddTestCase(new FastLinkSnifferFlushTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastLinkReceiveStateTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastLinkLazyHeaderTestCase, compat::TestDuration::QUICK);
        using Cfg = SprayExperimentConfig;
        const auto incast = [](Cfg& c) {
            c.pattern = "incast";
            c.incastSenders = 6;
        };
        const std::vector<
            std::tuple<std::string, std::string, std::function<void(Cfg&)>, bool, bool>>
            readers{
                {"spray", "presto", [](Cfg&) {}, false, false},
                {"incast, ECN marks", "presto", incast, false, true},
                {"incast, switch traces",
                 "presto",
                 [incast](Cfg& c) {
                     incast(c);
                     c.queueTrace = 0.0001;
                 },
                 true,
                 true},
                {"ecmp", "flextoe", [](Cfg& c) { c.lb = "ecmp"; }, true, false},
                {"flowlet", "cora", [](Cfg& c) { c.lb = "flowlet"; }, true, false},
                {"loss", "presto", [](Cfg& c) { c.lossRate = 0.01; }, true, false},
                {"pcap", "presto", [](Cfg& c) { c.pcap = true; }, true, false},
                {"mixed with ns-3 TCP",
                 "presto",
                 [](Cfg& c) {
                     c.mix = "presto:0.5,host-tcp:0.5";
                     c.device = Cfg().device; // the mix names the devices
                 },
                 true,
                 false},
            };
        for (const auto& [name, device, apply, written, marks] : readers)
        {
            AddTestCase(new FastLinkHeadersAsFieldsTestCase(name, device, apply, written, marks),
                        compat::TestDuration::QUICK);
        }
        AddTestCase(new FastLinkAutoTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastLinkBadConfigTestCase, compat::TestDuration::QUICK);
    }
};

/// Registers the suite.
static PrestoFastLinkTestSuite g_prestoFastLinkTestSuite;
