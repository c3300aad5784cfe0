/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Simulation tests of the fabric: FabricHelper + FabricSwitch on real point-to-point links,
// driven by raw IPv4/UDP packets handed to host devices (exact control of timing and ports)
// or by UDP sockets through the hosts' Internet stacks (end-to-end delivery).

#include "ns3/fabric-helper.h"
#include "ns3/fabric-link-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/fabric-topology.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>

using namespace ns3;

namespace
{

/** What the tests read back from a packet. */
struct Parsed
{
    bool ok{false};
    uint32_t src{0};
    uint32_t dst{0};
    uint16_t sport{0};
    uint16_t dport{0};
    uint8_t ecn{0};
    uint32_t seq{0};
};

/**
 * \param p a packet starting with an IPv4 header at offset
 * \param offset 2 when the PPP header is still on (device traces), else 0
 * \return its addresses, ports, ECN bits and the sequence number in the first payload bytes
 */
Parsed
Parse(Ptr<const Packet> p, uint32_t offset)
{
    uint8_t b[64];
    Parsed r;
    uint32_t len = p->CopyData(b, sizeof b);
    if (len < offset + 20 + 8 + 4)
    {
        return r;
    }
    const uint8_t* ip = b + offset;
    auto rd32 = [](const uint8_t* x) {
        return (uint32_t(x[0]) << 24) | (uint32_t(x[1]) << 16) | (uint32_t(x[2]) << 8) | x[3];
    };
    r.ecn = ip[1] & 3;
    r.src = rd32(ip + 12);
    r.dst = rd32(ip + 16);
    const uint32_t ihl = (ip[0] & 0x0f) * 4;
    r.sport = uint16_t((ip[ihl] << 8) | ip[ihl + 1]);
    r.dport = uint16_t((ip[ihl + 2] << 8) | ip[ihl + 3]);
    std::memcpy(&r.seq, ip + ihl + 8, 4);
    r.ok = true;
    return r;
}

/**
 * Build an IPv4/UDP packet (checksum on) carrying seq, and hand it to a host device: through
 * NetDevice::Send, or with withFields through FabricLinkNetDevice::SendAt with its header's
 * fields beside it (as the offload NIC sends).
 */
void
SendRaw(Ptr<NetDevice> dev,
        Ipv4Address src,
        Ipv4Address dst,
        uint16_t sport,
        uint16_t dport,
        uint32_t payload,
        uint8_t ecn,
        uint32_t seq,
        bool withFields = false)
{
    std::vector<uint8_t> data(payload, 0);
    std::memcpy(data.data(), &seq, 4);
    Ptr<Packet> p = Create<Packet>(data.data(), payload);
    UdpHeader udp;
    udp.SetSourcePort(sport);
    udp.SetDestinationPort(dport);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.EnableChecksum();
    ip.SetSource(src);
    ip.SetDestination(dst);
    ip.SetProtocol(17);
    ip.SetTtl(64);
    ip.SetEcn(Ipv4Header::EcnType(ecn));
    ip.SetPayloadSize(p->GetSize());
    p->AddHeader(ip);
    if (withFields)
    {
        const FabricFrameFields fields{dst.Get(), ip.GetTos(), true};
        DynamicCast<FabricLinkNetDevice>(dev)->SendAt(p,
                                                      dev->GetBroadcast(),
                                                      0x0800,
                                                      Simulator::Now(),
                                                      fields);
        return;
    }
    dev->Send(p, dev->GetBroadcast(), 0x0800);
}

/** A raw flow: count packets, each sent at start + i * interval. */
void
ScheduleFlow(FabricHelper& f,
             uint32_t srcHost,
             uint32_t dstHost,
             uint16_t sport,
             uint32_t count,
             Time start,
             Time interval,
             uint32_t payload = 1000,
             uint8_t ecn = Ipv4Header::ECN_NotECT,
             uint32_t firstSeq = 0,
             bool withFields = false)
{
    Ptr<NetDevice> dev = f.GetHostDevices().Get(srcHost);
    const Ipv4Address src = f.GetHostAddress(srcHost);
    const Ipv4Address dst = f.GetHostAddress(dstHost);
    for (uint32_t i = 0; i < count; ++i)
    {
        const uint32_t seq = firstSeq + i;
        compat::Schedule(start + interval * i, [=]() {
            SendRaw(dev, src, dst, sport, 9, payload, ecn, seq, withFields);
        });
    }
}

/** Receives at a host device instead of its IP stack (no ICMP replies to raw UDP). */
struct Sink
{
    std::vector<Parsed> packets; //!< in arrival order
    std::vector<Time> times;     //!< arrival times
    uint32_t badChecksum{0};     //!< IPv4 header checksum failures

    bool Receive(Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
    {
        packets.push_back(Parse(p, 0));
        times.push_back(Simulator::Now());
        Ipv4Header ip;
        ip.EnableChecksum();
        p->PeekHeader(ip);
        badChecksum += ip.IsChecksumOk() ? 0 : 1;
        return true;
    }

    void Attach(FabricHelper& f, uint32_t host)
    {
        f.GetHostDevices().Get(host)->SetReceiveCallback(MakeCallback(&Sink::Receive, this));
    }
};

/** Records the source ports of the packets starting transmission on a device. */
struct LinkTap
{
    std::vector<Parsed> packets;
    std::vector<Time> times;

    void Tx(Ptr<const Packet> p)
    {
        packets.push_back(Parse(p, 2));
        times.push_back(Simulator::Now());
    }

    void Attach(Ptr<NetDevice> dev)
    {
        dev->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&LinkTap::Tx, this));
    }
};

/** \return the node id of the switch a host hangs off */
uint32_t
EdgeOf(const FabricTopology& t, uint32_t host)
{
    const auto& l = t.GetLinks()[t.GetPorts(t.HostNode(host))[0]];
    return l.a == t.HostNode(host) ? l.b : l.a;
}

/** \return the links from a switch to switches of a given tier, in port order */
std::vector<uint32_t>
LinksUp(const FabricTopology& t, uint32_t sw, uint32_t tier)
{
    std::vector<uint32_t> v;
    for (uint32_t l : t.GetPorts(sw))
    {
        const auto& link = t.GetLinks()[l];
        uint32_t m = link.a == sw ? link.b : link.a;
        if (!t.IsHost(m) && t.GetTier(m) == tier)
        {
            v.push_back(l);
        }
    }
    return v;
}

/** \return the device of link l on node n's side */
Ptr<NetDevice>
DeviceAt(FabricHelper& f, uint32_t l, uint32_t n)
{
    auto d = f.GetLinkDevices(l);
    return f.GetTopology().GetLinks()[l].a == n ? d.first : d.second;
}

/** \return the FabricSwitch on topology node n */
Ptr<FabricSwitch>
SwitchAt(FabricHelper& f, uint32_t n)
{
    return f.GetNode(n)->GetObject<FabricSwitch>();
}

// ------------------------------------------------------------------------------------------

/** ECMP: one path per flow, many flows over all spines; per-switch seeds avoid polarisation. */
class EcmpTest : public TestCase
{
  public:
    EcmpTest()
        : TestCase("ECMP keeps each flow on one uplink and spreads flows over all of them")
    {
    }

  private:
    void DoRun() override
    {
        RunLeafSpine();
        RunFatTree(false);
        RunFatTree(true);
    }

    void RunLeafSpine()
    {
        auto topo = FabricTopology::LeafSpine(2, 4, 2, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue("Ecmp"));
        f.SetHostDeviceQueuePackets(100000);
        f.Install(topo);
        const uint32_t leaf0 = EdgeOf(topo, 0);
        auto uplinks = LinksUp(topo, leaf0, 1);
        NS_TEST_ASSERT_MSG_EQ(uplinks.size(), 4, "4 uplinks");
        std::vector<LinkTap> taps(uplinks.size());
        for (uint32_t i = 0; i < uplinks.size(); ++i)
        {
            taps[i].Attach(DeviceAt(f, uplinks[i], leaf0));
        }
        Sink sink;
        sink.Attach(f, 2);
        const uint32_t flows = 64;
        const uint32_t perFlow = 20;
        for (uint32_t i = 0; i < flows; ++i)
        {
            // flows interleaved in time, one packet every 2 us per flow
            ScheduleFlow(f,
                         0,
                         2,
                         uint16_t(1000 + i),
                         perFlow,
                         NanoSeconds(30 * i),
                         MicroSeconds(2));
        }
        Simulator::Run();
        std::map<uint16_t, std::set<uint32_t>> linksOfFlow;
        std::vector<uint32_t> flowsOnLink(uplinks.size(), 0);
        uint32_t seen = 0;
        for (uint32_t i = 0; i < taps.size(); ++i)
        {
            std::set<uint16_t> flowsHere;
            for (const auto& p : taps[i].packets)
            {
                linksOfFlow[p.sport].insert(i);
                flowsHere.insert(p.sport);
                ++seen;
            }
            flowsOnLink[i] = flowsHere.size();
        }
        NS_TEST_ASSERT_MSG_EQ(seen, flows * perFlow, "every packet crossed one uplink");
        NS_TEST_ASSERT_MSG_EQ(linksOfFlow.size(), flows, "every flow seen");
        for (const auto& [port, links] : linksOfFlow)
        {
            NS_TEST_ASSERT_MSG_EQ(links.size(), 1, "flow " << port << " used one uplink only");
        }
        for (uint32_t i = 0; i < flowsOnLink.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_GT(flowsOnLink[i], 0, "uplink " << i << " carries flows");
        }
        NS_TEST_ASSERT_MSG_EQ(sink.packets.size(), flows * perFlow, "all delivered");
        Simulator::Destroy();
    }

    /**
     * Fat-tree k=4, many flows pod 0 -> pod 2. With per-switch seeds, every aggregation
     * switch that receives flows spreads them over both core uplinks. With one seed
     * everywhere (the polarisation trap), the edge choice determines the aggregation choice
     * and each aggregation switch uses one core uplink only.
     */
    void RunFatTree(bool sameSeed)
    {
        auto topo = FabricTopology::FatTree(4, 10e9, 10e9, 500);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue("Ecmp"));
        if (sameSeed)
        {
            f.SetSwitchAttribute("HashSeed", UintegerValue(7));
        }
        f.SetHostDeviceQueuePackets(100000);
        f.Install(topo);
        if (!sameSeed)
        {
            std::set<uint32_t> seeds;
            for (auto& sw : f.GetSwitchObjects())
            {
                seeds.insert(sw->GetHashSeed());
            }
            NS_TEST_ASSERT_MSG_EQ(seeds.size(),
                                  f.GetSwitchObjects().size(),
                                  "every switch has its own seed");
        }
        const uint32_t edge0 = EdgeOf(topo, 0);
        auto aggLinks = LinksUp(topo, edge0, 1);
        std::vector<uint32_t> aggs;
        std::vector<std::vector<LinkTap>> taps(aggLinks.size(), std::vector<LinkTap>(2));
        for (uint32_t a = 0; a < aggLinks.size(); ++a)
        {
            const auto& l = topo.GetLinks()[aggLinks[a]];
            uint32_t agg = l.a == edge0 ? l.b : l.a;
            auto cores = LinksUp(topo, agg, 2);
            NS_TEST_ASSERT_MSG_EQ(cores.size(), 2, "k/2 core uplinks");
            for (uint32_t c = 0; c < 2; ++c)
            {
                taps[a][c].Attach(DeviceAt(f, cores[c], agg));
            }
        }
        Sink sink;
        sink.Attach(f, 8);
        const uint32_t flows = 200;
        for (uint32_t i = 0; i < flows; ++i)
        {
            ScheduleFlow(f, 0, 8, uint16_t(2000 + i), 3, NanoSeconds(100 * i), MicroSeconds(25));
        }
        Simulator::Run();
        uint32_t aggsUsingBoth = 0;
        uint32_t aggsUsed = 0;
        for (uint32_t a = 0; a < taps.size(); ++a)
        {
            uint32_t used = 0;
            for (uint32_t c = 0; c < 2; ++c)
            {
                used += taps[a][c].packets.empty() ? 0 : 1;
            }
            aggsUsed += used > 0 ? 1 : 0;
            aggsUsingBoth += used == 2 ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_EQ(sink.packets.size(), flows * 3, "all delivered");
        NS_TEST_ASSERT_MSG_EQ(aggsUsed, 2, "the edge spreads flows over both aggregations");
        if (sameSeed)
        {
            NS_TEST_ASSERT_MSG_EQ(aggsUsingBoth, 0, "one seed everywhere polarises the core");
        }
        else
        {
            NS_TEST_ASSERT_MSG_EQ(aggsUsingBoth, 2, "per-switch seeds use every core uplink");
        }
        Simulator::Destroy();
    }
};

/** SPRAY and SPRAY_RR on one flow of many packets. */
class SprayTest : public TestCase
{
  public:
    SprayTest(bool roundRobin)
        : TestCase(roundRobin ? "SPRAY_RR splits one flow exactly evenly over the uplinks"
                              : "SPRAY puts each uplink within 10% of its fair share"),
          m_rr(roundRobin)
    {
    }

  private:
    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(2, 4, 1, 10e9, 10e9, 1000);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue(m_rr ? "SprayRr" : "Spray"));
        f.SetHostDeviceQueuePackets(100000);
        f.Install(topo);
        f.AssignStreams(11);
        const uint32_t leaf0 = EdgeOf(topo, 0);
        auto uplinks = LinksUp(topo, leaf0, 1);
        std::vector<LinkTap> taps(uplinks.size());
        for (uint32_t i = 0; i < uplinks.size(); ++i)
        {
            taps[i].Attach(DeviceAt(f, uplinks[i], leaf0));
        }
        Sink sink;
        sink.Attach(f, 1);
        const uint32_t n = 12000;
        ScheduleFlow(f, 0, 1, 5000, n, Seconds(0), NanoSeconds(900));
        Simulator::Run();
        const double fair = double(n) / uplinks.size();
        uint32_t total = 0;
        for (uint32_t i = 0; i < taps.size(); ++i)
        {
            const uint32_t c = taps[i].packets.size();
            total += c;
            if (m_rr)
            {
                NS_TEST_ASSERT_MSG_EQ(c, n / uplinks.size(), "uplink " << i << " exact share");
            }
            else
            {
                NS_TEST_ASSERT_MSG_EQ_TOL(double(c),
                                          fair,
                                          0.1 * fair,
                                          "uplink " << i << " within 10% of fair share");
            }
        }
        NS_TEST_ASSERT_MSG_EQ(total, n, "each packet on one uplink");
        NS_TEST_ASSERT_MSG_EQ(sink.packets.size(), n, "all delivered");
        // nothing duplicated or lost
        std::set<uint32_t> seqs;
        for (const auto& p : sink.packets)
        {
            seqs.insert(p.seq);
        }
        NS_TEST_ASSERT_MSG_EQ(seqs.size(), n, "no duplicates");
        Simulator::Destroy();
    }

    bool m_rr;
};

/** FLOWLET: a flow changes port only after an idle gap longer than FlowletGap. */
class FlowletTest : public TestCase
{
  public:
    FlowletTest()
        : TestCase("FLOWLET changes path only after gaps longer than FlowletGap, and does")
    {
    }

  private:
    struct Choice
    {
        Time when;
        uint32_t port;
        uint32_t seq;
    };

    std::vector<Choice> m_choices;

    void Enqueue(Ptr<const Packet> p, uint32_t port)
    {
        m_choices.push_back({Simulator::Now(), port, Parse(p, 0).seq});
    }

    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(2, 4, 1, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue("Flowlet"));
        f.SetHostDeviceQueuePackets(100000);
        f.Install(topo);
        f.AssignStreams(3);
        Ptr<FabricSwitch> leaf0 = SwitchAt(f, EdgeOf(topo, 0));
        leaf0->TraceConnectWithoutContext("Enqueue", MakeCallback(&FlowletTest::Enqueue, this));
        TimeValue gap;
        leaf0->GetAttribute("FlowletGap", gap);
        NS_TEST_ASSERT_MSG_EQ(gap.Get(), MicroSeconds(100), "default FlowletGap");
        Sink sink;
        sink.Attach(f, 1);
        // bursts of 8 packets 1 us apart; gaps alternate 20 us (short) and 300 us (long)
        const uint32_t bursts = 60;
        const uint32_t perBurst = 8;
        std::set<uint32_t> afterLongGap; // first seq of bursts that follow a long gap
        Time t = MicroSeconds(1);
        for (uint32_t b = 0; b < bursts; ++b)
        {
            ScheduleFlow(f, 0, 1, 7000, perBurst, t, MicroSeconds(1), 1000, 0, b * perBurst);
            t += MicroSeconds(perBurst - 1);
            const bool longGap = b % 2 == 1;
            t += longGap ? MicroSeconds(300) : MicroSeconds(20);
            if (longGap)
            {
                afterLongGap.insert((b + 1) * perBurst);
            }
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_choices.size(), bursts * perBurst, "leaf saw every packet");
        uint32_t changes = 0;
        for (uint32_t i = 1; i < m_choices.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(m_choices[i].seq, m_choices[i - 1].seq + 1, "in order");
            if (m_choices[i].port != m_choices[i - 1].port)
            {
                ++changes;
                NS_TEST_ASSERT_MSG_EQ(afterLongGap.count(m_choices[i].seq),
                                      1,
                                      "path changed at seq " << m_choices[i].seq
                                                             << " without a long gap");
                NS_TEST_ASSERT_MSG_GT(m_choices[i].when - m_choices[i - 1].when,
                                      gap.Get(),
                                      "change after a gap > FlowletGap");
            }
        }
        // 30 long gaps, each re-picks among 4 ports: P(fewer than 5 changes) < 1e-10
        NS_TEST_ASSERT_MSG_GT_OR_EQ(changes, 5, "paths do change at long gaps");
        NS_TEST_ASSERT_MSG_EQ(sink.packets.size(), bursts * perBurst, "all delivered");
        Simulator::Destroy();
    }
};

/** Two senders overload one 10G port: ECN marking, then the buffer limit. */
class CongestionTest : public TestCase
{
  public:
    CongestionTest(bool drops, bool fast = false)
        : TestCase(std::string(drops ? "a full port buffer drops, counted as buffer drops"
                                     : "ECN marks exactly the ECT packets that find the queue "
                                       ">= threshold") +
                   (fast ? " (fast links)" : "")),
          m_drops(drops),
          m_fast(fast)
    {
    }

  private:
    bool m_drops;
    bool m_fast;                              //!< FabricHelper::SetFastLinks
    std::unique_ptr<FabricPortQueue> m_queue; //!< the congested port's queue occupancy
    uint32_t m_port{0};                       //!< the congested port
    uint32_t m_threshold{0};
    uint32_t m_buffer{0};
    uint16_t m_ectPort{100};
    bool m_lastMarked{false};
    uint32_t m_lastQueueSample{0};
    uint32_t m_maxQueueSample{0};
    uint32_t m_violations{0};
    uint32_t m_marks{0};
    uint32_t m_ectUnmarked{0};
    uint32_t m_dropViolations{0};

    void Mark(Ptr<const Packet> p, uint32_t port)
    {
        if (port != m_port)
        {
            return;
        }
        ++m_marks;
        m_lastMarked = true;
        // the queue length trace must have shown the queue at or above the threshold
        if (m_lastQueueSample < m_threshold || Parse(p, 0).sport != m_ectPort)
        {
            ++m_violations;
        }
    }

    void Enqueue(Ptr<const Packet> p, uint32_t port)
    {
        if (port != m_port)
        {
            return;
        }
        // fired before the device queues it: the queue as the packet found it
        const uint32_t before = m_queue->GetBytes();
        const Parsed h = Parse(p, 0);
        const bool ect = h.sport == m_ectPort;
        const bool shouldMark = m_threshold > 0 && ect && before >= m_threshold;
        if (shouldMark != m_lastMarked || (m_lastMarked != (h.ecn == Ipv4Header::ECN_CE)))
        {
            ++m_violations;
        }
        if (ect && !m_lastMarked)
        {
            ++m_ectUnmarked;
        }
        m_lastMarked = false;
    }

    void QueueLength(uint32_t port, uint32_t bytes)
    {
        if (port == m_port)
        {
            m_lastQueueSample = bytes;
            m_maxQueueSample = std::max(m_maxQueueSample, bytes);
        }
    }

    void Drop(Ptr<const Packet> p, uint32_t port)
    {
        // a buffer drop happens only when the frame does not fit
        if (port != m_port || m_queue->GetBytes() + p->GetSize() + 2 <= m_buffer)
        {
            ++m_dropViolations;
        }
    }

    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(2, 2, 2, 10e9, 40e9, 1000);
        m_threshold = m_drops ? 0 : 60 * 1000;
        m_buffer = m_drops ? 40 * 1032 : 5000000;
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue("Spray"));
        f.SetSwitchAttribute("EcnThreshold", UintegerValue(m_threshold));
        f.SetSwitchAttribute("BufferBytes", UintegerValue(m_buffer));
        f.SetHostDeviceQueuePackets(100000);
        f.SetFastLinks(m_fast);
        f.Install(topo);
        const uint32_t leaf1 = EdgeOf(topo, 2);
        Ptr<FabricSwitch> sw = SwitchAt(f, leaf1);
        const uint32_t hostLink = topo.GetPorts(topo.HostNode(2))[0];
        auto dev = DynamicCast<PointToPointNetDevice>(DeviceAt(f, hostLink, leaf1));
        m_port = dev->GetIfIndex();
        m_queue = std::make_unique<FabricPortQueue>(dev);
        NS_TEST_ASSERT_MSG_EQ(bool(DynamicCast<FabricLinkNetDevice>(dev)), m_fast, "link type");
        sw->TraceConnectWithoutContext("Mark", MakeCallback(&CongestionTest::Mark, this));
        sw->TraceConnectWithoutContext("Enqueue", MakeCallback(&CongestionTest::Enqueue, this));
        sw->TraceConnectWithoutContext("QueueLength",
                                       MakeCallback(&CongestionTest::QueueLength, this));
        sw->TraceConnectWithoutContext("Drop", MakeCallback(&CongestionTest::Drop, this));
        Sink sink;
        sink.Attach(f, 2);
        // two line-rate senders (1028-byte frames at 10G = 822.4 ns) into one 10G port
        const uint32_t n = 3000;
        ScheduleFlow(f,
                     0,
                     2,
                     m_ectPort,
                     n,
                     Seconds(0),
                     NanoSeconds(823),
                     1000,
                     Ipv4Header::ECN_ECT0);
        ScheduleFlow(f,
                     1,
                     2,
                     200,
                     n,
                     NanoSeconds(400),
                     NanoSeconds(823),
                     1000,
                     Ipv4Header::ECN_NotECT);
        Simulator::Run();

        uint32_t ce = 0;
        uint32_t ceOnNotEct = 0;
        for (const auto& p : sink.packets)
        {
            ce += p.ecn == Ipv4Header::ECN_CE ? 1 : 0;
            ceOnNotEct += (p.ecn == Ipv4Header::ECN_CE && p.sport != m_ectPort) ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_EQ(sink.badChecksum, 0, "IPv4 checksums stay valid after marking");
        NS_TEST_ASSERT_MSG_EQ(m_violations, 0, "marks exactly when ECT and queue >= threshold");
        NS_TEST_ASSERT_MSG_EQ(ceOnNotEct, 0, "Not-ECT packets are never marked");
        NS_TEST_ASSERT_MSG_EQ(sw->GetDroppedNoRoute(), 0, "no route drops");
        uint64_t dropped = 0;
        for (auto& s : f.GetSwitchObjects())
        {
            dropped += s->GetDropped();
        }
        if (m_drops)
        {
            NS_TEST_ASSERT_MSG_EQ(m_marks, 0, "EcnThreshold 0 disables marking");
            NS_TEST_ASSERT_MSG_GT(sw->GetDroppedBufferFull(), 100, "the buffer overflowed");
            NS_TEST_ASSERT_MSG_EQ(m_dropViolations, 0, "drops only when the frame does not fit");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(m_maxQueueSample, m_buffer, "queue within the buffer");
            NS_TEST_ASSERT_MSG_GT(m_maxQueueSample + 1032, m_buffer, "the buffer was used up");
            NS_TEST_ASSERT_MSG_EQ(sw->GetDropped(), dropped, "only the congested leaf drops");
            NS_TEST_ASSERT_MSG_EQ(sink.packets.size() + dropped, 2 * n, "delivered + dropped");
        }
        else
        {
            NS_TEST_ASSERT_MSG_EQ(dropped, 0, "large buffer: no drops");
            NS_TEST_ASSERT_MSG_EQ(sink.packets.size(), 2 * n, "all delivered");
            NS_TEST_ASSERT_MSG_GT(m_marks, 100, "a persistent queue gets marks");
            NS_TEST_ASSERT_MSG_GT(m_ectUnmarked, 10, "before the queue builds, no marks");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(m_maxQueueSample, m_threshold, "queue passed threshold");
            NS_TEST_ASSERT_MSG_EQ(ce, m_marks, "receiver sees every mark");
            NS_TEST_ASSERT_MSG_EQ(sw->GetMarked(), m_marks, "counter matches the trace");
        }
        m_queue = nullptr;
        Simulator::Destroy();
    }
};

/**
 * Header fields beside the frame (FabricFrameFields): senders that hand the switches the
 * destination and TOS with the frame get exactly what senders of bare bytes get. Four ECT
 * line-rate senders on three leaves and `spines` spines into one host, so that queues build
 * at the first leaves' uplinks and at the spine: a packet marked at a leaf must not be marked
 * again at the spine (the switch that marks updates the fields it passes on), and a policy
 * that hashes the ports (ECMP) reads them from the bytes although the fields came along.
 */
class FrameFieldsTest : public TestCase
{
  public:
    /**
     * \param lb the switches' LoadBalancing
     * \param spines spines of the leaf-spine (one: every packet crosses the spine's queue)
     */
    FrameFieldsTest(const std::string& lb, uint32_t spines)
        : TestCase("header fields beside the frame route, mark and hash as the bytes do (" + lb +
                   ", " + std::to_string(spines) + " spines)"),
          m_lb(lb),
          m_spines(spines)
    {
    }

  private:
    /** One run's observations. */
    struct Run
    {
        std::vector<Parsed> packets;           //!< at the receiver, in order
        std::vector<Time> times;               //!< their arrival times
        uint32_t badChecksum{0};               //!< at the receiver
        std::map<uint64_t, uint32_t> markedAt; //!< marks per packet (source port, seq)
        uint64_t leafMarks{0};                 //!< switch counters, leaves
        uint64_t spineMarks{0};                //!< switch counters, spines
    };

    /** A switch's mark trace. */
    struct MarkLog
    {
        Run* run; //!< where to count

        void Mark(Ptr<const Packet> p, uint32_t)
        {
            const Parsed h = Parse(p, 0);
            ++run->markedAt[(uint64_t(h.sport) << 32) | h.seq];
        }
    };

    Run Simulate(bool withFields)
    {
        Run r;
        auto topo = FabricTopology::LeafSpine(3, m_spines, 2, 10e9, 10e9, 1000);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue(m_lb));
        f.SetSwitchAttribute("EcnThreshold", UintegerValue(10000));
        f.SetSwitchAttribute("BufferBytes", UintegerValue(5000000));
        f.SetHostDeviceQueuePackets(100000);
        f.SetFastLinks(true);
        f.Install(topo);
        std::vector<MarkLog> logs(topo.GetNNodes(), MarkLog{&r});
        for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
        {
            if (!topo.IsHost(n))
            {
                SwitchAt(f, n)->TraceConnectWithoutContext("Mark",
                                                           MakeCallback(&MarkLog::Mark, &logs[n]));
            }
        }
        Sink sink;
        sink.Attach(f, 4);
        const uint32_t n = 1000;
        for (uint32_t h = 0; h < 4; ++h)
        {
            ScheduleFlow(f,
                         h,
                         4,
                         uint16_t(100 + h),
                         n,
                         NanoSeconds(100 * h),
                         NanoSeconds(823),
                         1000,
                         Ipv4Header::ECN_ECT0,
                         0,
                         withFields);
        }
        Simulator::Run();
        for (uint32_t node = 0; node < topo.GetNNodes(); ++node)
        {
            if (!topo.IsHost(node))
            {
                (topo.GetTier(node) == 0 ? r.leafMarks : r.spineMarks) +=
                    SwitchAt(f, node)->GetMarked();
            }
        }
        r.packets = sink.packets;
        r.times = sink.times;
        r.badChecksum = sink.badChecksum;
        Simulator::Destroy();
        return r;
    }

    void DoRun() override
    {
        const Run bytes = Simulate(false);
        const Run fields = Simulate(true);
        for (const Run* r : {&bytes, &fields})
        {
            const bool f = r == &fields;
            NS_TEST_ASSERT_MSG_EQ(r->packets.size(),
                                  4000,
                                  (f ? "fields" : "bytes") << ": all arrive");
            NS_TEST_EXPECT_MSG_EQ(r->badChecksum, 0, "IPv4 checksums stay valid after marking");
            uint32_t ce = 0;
            for (const auto& p : r->packets)
            {
                ce += p.ecn == Ipv4Header::ECN_CE ? 1 : 0;
            }
            uint32_t twice = 0;
            for (const auto& [key, marks] : r->markedAt)
            {
                twice += marks > 1 ? 1 : 0;
            }
            NS_TEST_EXPECT_MSG_EQ(twice, 0, (f ? "fields" : "bytes") << ": no packet marked twice");
            NS_TEST_EXPECT_MSG_EQ(r->leafMarks + r->spineMarks,
                                  ce,
                                  (f ? "fields" : "bytes") << ": every mark reaches the receiver");
        }
        if (m_spines == 1)
        {
            // the case that tells: queues, and marks, at both tiers
            NS_TEST_EXPECT_MSG_GT(bytes.leafMarks, 100, "marks at the leaves");
            NS_TEST_EXPECT_MSG_GT(bytes.spineMarks, 10, "marks at the spine");
        }
        NS_TEST_EXPECT_MSG_EQ(fields.leafMarks, bytes.leafMarks, "the same marks at the leaves");
        NS_TEST_EXPECT_MSG_EQ(fields.spineMarks, bytes.spineMarks, "the same marks at the spines");
        bool same = fields.packets.size() == bytes.packets.size();
        for (size_t i = 0; same && i < bytes.packets.size(); ++i)
        {
            const Parsed& a = bytes.packets[i];
            const Parsed& b = fields.packets[i];
            same = a.sport == b.sport && a.seq == b.seq && a.ecn == b.ecn &&
                   bytes.times[i] == fields.times[i];
        }
        NS_TEST_EXPECT_MSG_EQ(same, true, "the same packets, marks and times at the receiver");
    }

    std::string m_lb;  //!< load balancing
    uint32_t m_spines; //!< spines
};

/** FailLink: the failed link carries nothing afterwards and traffic still flows. */
class FailLinkTest : public TestCase
{
  public:
    FailLinkTest(bool ns3Routers, bool fast = false)
        : TestCase(ns3Routers ? "FailLink reroutes ns-3 routers (reference mode)"
                   : fast ? "after FailLink no packet uses the failed fast link, traffic arrives"
                          : "after FailLink no packet uses the failed link, traffic arrives"),
          m_ns3(ns3Routers),
          m_fast(fast)
    {
    }

  private:
    bool m_ns3;
    bool m_fast; //!< FabricHelper::SetFastLinks (transmissions counted, not traced)

    /** \return frames the fast link's two devices accepted so far */
    static uint64_t FastTx(FabricHelper* f, uint32_t link)
    {
        auto d = f->GetLinkDevices(link);
        return DynamicCast<FabricLinkNetDevice>(d.first)->GetTxPackets() +
               DynamicCast<FabricLinkNetDevice>(d.second)->GetTxPackets();
    }

    /** Record FastTx at the failure. */
    static void SampleFastTx(FabricHelper* f, uint32_t link, uint64_t* out)
    {
        *out = FastTx(f, link);
    }

    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(2, 4, 2, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue("Spray"));
        f.SetHostDeviceQueuePackets(100000);
        f.SetUseNs3Routers(m_ns3);
        f.SetFastLinks(m_fast);
        f.Install(topo);
        const uint32_t leaf0 = EdgeOf(topo, 0);
        const uint32_t failed = LinksUp(topo, leaf0, 1)[1];
        LinkTap tapA;
        LinkTap tapB;
        tapA.Attach(f.GetLinkDevices(failed).first);
        tapB.Attach(f.GetLinkDevices(failed).second);
        Sink sink2;
        Sink sink1;
        sink2.Attach(f, 2);
        sink1.Attach(f, 1);
        const Time failAt = MilliSeconds(1);
        uint64_t fastAtFailure = 0;
        if (m_fast)
        {
            // scheduled before FailLink's event at the same time, so it runs just before it;
            // the switches' events at that time are scheduled later, so they run after it
            Simulator::Schedule(failAt, &FailLinkTest::SampleFastTx, &f, failed, &fastAtFailure);
        }
        f.FailLink(failed, failAt);
        const uint32_t n = 2000;
        ScheduleFlow(f, 0, 2, 1234, n, Seconds(0), MicroSeconds(2));
        ScheduleFlow(f, 3, 1, 4321, n, Seconds(0), MicroSeconds(2));
        Simulator::Run();
        uint32_t before = 0;
        uint32_t after = 0;
        for (auto* tap : {&tapA, &tapB})
        {
            for (const auto& t : tap->times)
            {
                (t < failAt ? before : after) += 1;
            }
        }
        if (m_fast)
        {
            before = static_cast<uint32_t>(fastAtFailure);
            after = static_cast<uint32_t>(FastTx(&f, failed) - fastAtFailure);
        }
        NS_TEST_ASSERT_MSG_GT(before, 100, "the link carried traffic before failing");
        NS_TEST_ASSERT_MSG_EQ(after, 0, "nothing is sent on the failed link afterwards");
        NS_TEST_ASSERT_MSG_EQ(f.GetTopology().GetLinks()[failed].up, false, "marked down");
        for (auto* sink : {&sink1, &sink2})
        {
            // every packet sent after the failure (plus the worst-case time in flight) arrives
            std::set<uint32_t> seqs;
            for (const auto& p : sink->packets)
            {
                seqs.insert(p.seq);
            }
            const uint32_t firstAfter = 510; // sent at 1.02 ms
            uint32_t missing = 0;
            for (uint32_t s = firstAfter; s < n; ++s)
            {
                missing += seqs.count(s) ? 0 : 1;
            }
            NS_TEST_ASSERT_MSG_EQ(missing, 0, "traffic after the failure arrives");
            NS_TEST_ASSERT_MSG_GT(sink->packets.size(), n - 10, "at most a few lost in flight");
        }
        for (auto& sw : f.GetSwitchObjects())
        {
            NS_TEST_ASSERT_MSG_EQ(sw->GetDroppedNoRoute(), 0, "routes recomputed");
        }
        Simulator::Destroy();
    }
};

/** Fat-tree (and the reference ns-3 router mode) end to end through the hosts' IP stacks. */
class DeliveryTest : public TestCase
{
  public:
    DeliveryTest(bool ns3Routers, bool fast = false)
        : TestCase(ns3Routers ? "ns-3 router mode delivers UDP end to end on a leaf-spine"
                   : fast     ? "fat-tree k=4 on fast links delivers UDP end to end, counters match"
                              : "fat-tree k=4 delivers UDP end to end, counters match the paths"),
          m_ns3(ns3Routers),
          m_fast(fast)
    {
    }

  private:
    bool m_ns3;
    bool m_fast;                                                 //!< FabricHelper::SetFastLinks
    std::map<uint32_t, std::map<uint32_t, uint32_t>> m_received; //!< dst host -> src addr -> n

    void Receive(uint32_t host, Ptr<Socket> socket)
    {
        Address from;
        while (Ptr<Packet> p = socket->RecvFrom(from))
        {
            m_received[host][InetSocketAddress::ConvertFrom(from).GetIpv4().Get()] += 1;
        }
    }

    void Send(Ptr<Socket> socket, Ipv4Address dst, uint32_t left)
    {
        socket->SendTo(Create<Packet>(800), 0, InetSocketAddress(dst, 9));
        if (left > 1)
        {
            Simulator::Schedule(MicroSeconds(5), &DeliveryTest::Send, this, socket, dst, left - 1);
        }
    }

    void DoRun() override
    {
        auto topo = m_ns3 ? FabricTopology::LeafSpine(2, 2, 2, 10e9, 40e9, 1000)
                          : FabricTopology::FatTree(4, 10e9, 10e9, 500);
        FabricHelper f;
        f.SetUseNs3Routers(m_ns3);
        f.SetFastLinks(m_fast);
        f.Install(topo);
        const uint32_t n = topo.GetNHosts();
        std::set<uint32_t> addrs;
        for (uint32_t h = 0; h < n; ++h)
        {
            addrs.insert(f.GetHostAddress(h).Get());
            Ptr<Ipv4> ipv4 = f.GetHosts().Get(h)->GetObject<Ipv4>();
            NS_TEST_ASSERT_MSG_EQ(ipv4->GetAddress(1, 0).GetLocal(),
                                  f.GetHostAddress(h),
                                  "GetHostAddress is the host's interface address");
            if (!m_ns3)
            {
                NS_TEST_ASSERT_MSG_EQ(f.GetHostAddress(h),
                                      Ipv4Address(Ipv4Address("10.0.0.1").Get() + h),
                                      "10.0.0.1 + host index");
            }
        }
        NS_TEST_ASSERT_MSG_EQ(addrs.size(), n, "distinct host addresses");
        NS_TEST_ASSERT_MSG_EQ(f.GetSwitchObjects().size(),
                              m_ns3 ? 0 : topo.GetNNodes() - n,
                              "FabricSwitch only in presto mode");
        for (uint32_t s = 0; s < f.GetSwitches().GetN(); ++s)
        {
            const bool hasIp = f.GetSwitches().Get(s)->GetObject<Ipv4>() != nullptr;
            NS_TEST_ASSERT_MSG_EQ(hasIp, m_ns3, "switches have an IP stack only as routers");
        }
        const uint32_t perPair = 50;
        uint64_t expectedHops = 0;
        for (uint32_t h = 0; h < n; ++h)
        {
            Ptr<Socket> rx =
                Socket::CreateSocket(f.GetHosts().Get(h), UdpSocketFactory::GetTypeId());
            rx->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
            rx->SetRecvCallback(MakeCallback(&DeliveryTest::Receive, this).Bind(h));
            const uint32_t dst = (h + 5) % n;
            Ptr<Socket> tx =
                Socket::CreateSocket(f.GetHosts().Get(h), UdpSocketFactory::GetTypeId());
            tx->Bind();
            Simulator::Schedule(NanoSeconds(100 * h),
                                &DeliveryTest::Send,
                                this,
                                tx,
                                f.GetHostAddress(dst),
                                perPair);
            expectedHops += perPair * topo.BestPath(h, dst).size();
        }
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        for (uint32_t h = 0; h < n; ++h)
        {
            const uint32_t src = (h + n - 5) % n;
            NS_TEST_ASSERT_MSG_EQ(m_received[h].size(), 1, "host " << h << " hears one sender");
            NS_TEST_ASSERT_MSG_EQ(m_received[h][f.GetHostAddress(src).Get()],
                                  perPair,
                                  "host " << h << " got every packet from host " << src);
        }
        NS_TEST_ASSERT_MSG_EQ(f.GetPacketHops(), expectedHops, "one hop per link on the path");
        if (!m_ns3)
        {
            uint64_t forwarded = 0;
            for (auto& sw : f.GetSwitchObjects())
            {
                forwarded += sw->GetForwarded();
                NS_TEST_ASSERT_MSG_EQ(sw->GetDropped(), 0, "no drops");
            }
            NS_TEST_ASSERT_MSG_EQ(forwarded, expectedHops - n * perPair, "switch forwards");
        }
        Simulator::Destroy();
    }
};

/** Misuse is reported, not crashed on. */
class BadInputTest : public TestCase
{
  public:
    BadInputTest()
        : TestCase("bad helper and switch input throws PrestoInputError")
    {
    }

  private:
    void DoRun() override
    {
        FabricHelper f;
        bool threw = false;
        try
        {
            f.SetSwitchAttribute("NoSuchAttribute", UintegerValue(1));
        }
        catch (const PrestoInputError&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "unknown attribute");
        threw = false;
        try
        {
            f.SetSwitchAttribute("LoadBalancing", StringValue("Bogus"));
        }
        catch (const PrestoInputError&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "bad enum value");
        threw = false;
        try
        {
            f.GetHostAddress(0);
        }
        catch (const PrestoInputError&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "GetHostAddress before Install");
        threw = false;
        try
        {
            FabricHelper tiny;
            tiny.SetSwitchAttribute("BufferBytes", UintegerValue(1000));
            tiny.Install(FabricTopology::LeafSpine(1, 1, 2, 1e9, 1e9, 0));
        }
        catch (const PrestoInputError& e)
        {
            threw = std::string(e.what()).find("BufferBytes") != std::string::npos;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "a buffer smaller than one frame");
        Simulator::Destroy();
        threw = false;
        try
        {
            FabricHelper g;
            g.Install(FabricTopology::LeafSpine(1, 1, 2, 1e9, 1e9, 0));
            g.FailLink(99, Seconds(0));
        }
        catch (const PrestoInputError&)
        {
            threw = true;
        }
        NS_TEST_ASSERT_MSG_EQ(threw, true, "FailLink of an unknown link");
        Simulator::Destroy();
    }
};

/** A packet to an unknown address is dropped and counted as no-route. */
class NoRouteTest : public TestCase
{
  public:
    NoRouteTest()
        : TestCase("a packet to an unknown host is a no-route drop")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(1, 1, 2, 1e9, 1e9, 0);
        FabricHelper f;
        f.Install(topo);
        Ptr<NetDevice> dev = f.GetHostDevices().Get(0);
        const Ipv4Address src = f.GetHostAddress(0);
        compat::Schedule(MicroSeconds(1),
                         [=]() { SendRaw(dev, src, Ipv4Address("192.168.1.1"), 1, 2, 100, 0, 0); });
        Simulator::Run();
        auto sw = f.GetSwitchObjects()[0];
        NS_TEST_ASSERT_MSG_EQ(sw->GetDroppedNoRoute(), 1, "no-route drop");
        NS_TEST_ASSERT_MSG_EQ(sw->GetDroppedBufferFull(), 0, "not a buffer drop");
        NS_TEST_ASSERT_MSG_EQ(sw->GetForwarded(), 0, "nothing forwarded");
        Simulator::Destroy();
    }
};

/**
 * SetRoutes with port lists shared between hosts, a host no port leads to, and addresses far
 * apart (the sparse look-up), then close (the dense one), then close with more distinct lists
 * than the dense table can number: every packet leaves on its host's own list, and the
 * unreachable and unknown ones are no-route drops.
 */
class RouteTableTest : public TestCase
{
  public:
    RouteTableTest()
        : TestCase("routes: shared port lists, an unreachable host, sparse and dense addresses")
    {
    }

  private:
    /// \return the leaf's port whose link ends at host \p h's device
    static uint32_t PortOfHost(FabricHelper& f, Ptr<FabricSwitch> sw, uint32_t h)
    {
        Ptr<NetDevice> host = f.GetHostDevices().Get(h);
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            Ptr<Channel> ch = sw->GetPortDevice(p)->GetChannel();
            for (std::size_t i = 0; i < ch->GetNDevices(); ++i)
            {
                if (ch->GetDevice(i) == host)
                {
                    return p;
                }
            }
        }
        return FabricSwitch::NO_PORT;
    }

    void DoRun() override
    {
        FabricHelper f;
        f.Install(FabricTopology::LeafSpine(1, 1, 3, 1e9, 1e9, 0));
        Ptr<FabricSwitch> sw = f.GetSwitchObjects()[0];
        const uint32_t p0 = PortOfHost(f, sw, 0);
        const uint32_t p1 = PortOfHost(f, sw, 1);
        const uint32_t p2 = PortOfHost(f, sw, 2);
        NS_TEST_ASSERT_MSG_NE(p1, FabricSwitch::NO_PORT, "host 1's port");
        NS_TEST_ASSERT_MSG_NE(p2, FabricSwitch::NO_PORT, "host 2's port");
        const uint32_t a[3] = {f.GetHostAddress(0).Get(),
                               f.GetHostAddress(1).Get(),
                               f.GetHostAddress(2).Get()};
        const Ipv4Address far("172.16.0.5");
        Sink sink1;
        Sink sink2;
        sink1.Attach(f, 1);
        sink2.Attach(f, 2);
        Ptr<NetDevice> dev = f.GetHostDevices().Get(0);
        const Ipv4Address src = f.GetHostAddress(0);
        auto send = [&](Time at, Ipv4Address dst, uint32_t seq) {
            compat::Schedule(at, [=]() { SendRaw(dev, src, dst, 1, 2, 100, 0, seq); });
        };
        // sparse: host 2 unreachable, the far address on host 1's list (the same list)
        sw->SetRoutes({a[0], a[1], a[2], far.Get()}, {{p0}, {p1}, {}, {p1}});
        send(MicroSeconds(1), f.GetHostAddress(1), 1);
        send(MicroSeconds(2), f.GetHostAddress(2), 2);
        send(MicroSeconds(3), far, 3);
        send(MicroSeconds(4), Ipv4Address("192.168.1.1"), 4);
        // dense, hosts 1 and 2 swapped: each takes the other's port
        compat::Schedule(MicroSeconds(10), [=]() {
            sw->SetRoutes({a[0], a[1], a[2]}, {{p0}, {p2}, {p1}});
        });
        send(MicroSeconds(11), f.GetHostAddress(1), 5);
        send(MicroSeconds(12), f.GetHostAddress(2), 6);
        send(MicroSeconds(13), far, 7);
        // More distinct lists than the dense table's 16-bit entries can number: the look-up
        // falls back to the map. 65,536 addresses right after the hosts' (dense by span), each
        // with its own list over host 0's port and the spine port, come first, so the real
        // hosts' list numbers are 65,536 and above (16 bits would make them 0 to 2: lists
        // that never lead to host 1 or 2). Hosts 1 and 2 back on their own ports.
        uint32_t spine = 0;
        while (spine == p0 || spine == p1 || spine == p2)
        {
            ++spine;
        }
        std::vector<uint32_t> many;
        std::vector<std::vector<uint32_t>> manyLists;
        const uint32_t top = *std::max_element(a, a + 3);
        for (uint32_t i = 0; i < 65536; ++i)
        {
            many.push_back(top + 1 + i);
            std::vector<uint32_t> list;
            for (uint32_t bit = 0; bit < 16; ++bit)
            {
                list.push_back((i >> bit) & 1 ? spine : p0);
            }
            manyLists.push_back(std::move(list));
        }
        many.insert(many.end(), {a[0], a[1], a[2]});
        manyLists.insert(manyLists.end(), {{p0}, {p1}, {p2}});
        compat::Schedule(MicroSeconds(20), [=]() { sw->SetRoutes(many, manyLists); });
        send(MicroSeconds(21), f.GetHostAddress(1), 8);
        send(MicroSeconds(22), f.GetHostAddress(2), 9);
        Simulator::Run();
        auto seqs = [](const Sink& k) {
            std::vector<uint32_t> v;
            for (const auto& p : k.packets)
            {
                v.push_back(p.seq);
            }
            return v;
        };
        NS_TEST_EXPECT_MSG_EQ((seqs(sink1) == std::vector<uint32_t>{1, 3, 6, 8}),
                              true,
                              "host 1's port carries 1, 3 (far), 6 (swapped) and 8 (many lists)");
        NS_TEST_EXPECT_MSG_EQ((seqs(sink2) == std::vector<uint32_t>{5, 9}),
                              true,
                              "host 2's port carries 5 (swapped) and 9 (many lists)");
        NS_TEST_EXPECT_MSG_EQ(sw->GetDroppedNoRoute(), 3, "unreachable, unknown, far after");
        NS_TEST_EXPECT_MSG_EQ(sw->GetForwarded(), 6, "the others forwarded");
        Simulator::Destroy();
    }
};

} // namespace

/** The fabric's simulation tests. */
class PrestoFabricTestSuite : public TestSuite
{
  public:
    PrestoFabricTestSuite()
        : TestSuite("presto-fabric", TestSuite::Type::UNIT)
    {
        AddTestCase(new EcmpTest, compat::TestDuration::QUICK);
        AddTestCase(new SprayTest(false), compat::TestDuration::QUICK);
        AddTestCase(new SprayTest(true), compat::TestDuration::QUICK);
        AddTestCase(new FlowletTest, compat::TestDuration::QUICK);
        AddTestCase(new CongestionTest(false), compat::TestDuration::QUICK);
        AddTestCase(new CongestionTest(true), compat::TestDuration::QUICK);
        AddTestCase(new CongestionTest(false, true), compat::TestDuration::QUICK);
        AddTestCase(new CongestionTest(true, true), compat::TestDuration::QUICK);
        AddTestCase(new FrameFieldsTest("Spray", 1), compat::TestDuration::QUICK);
        AddTestCase(new FrameFieldsTest("Ecmp", 2), compat::TestDuration::QUICK);
        AddTestCase(new FailLinkTest(false), compat::TestDuration::QUICK);
        AddTestCase(new FailLinkTest(true), compat::TestDuration::QUICK);
        AddTestCase(new FailLinkTest(false, true), compat::TestDuration::QUICK);
        AddTestCase(new DeliveryTest(false), compat::TestDuration::QUICK);
        AddTestCase(new DeliveryTest(true), compat::TestDuration::QUICK);
        AddTestCase(new DeliveryTest(false, true), compat::TestDuration::QUICK);
        AddTestCase(new BadInputTest, compat::TestDuration::QUICK);
        AddTestCase(new NoRouteTest, compat::TestDuration::QUICK);
        AddTestCase(new RouteTableTest, compat::TestDuration::QUICK);
    }
};

static PrestoFabricTestSuite g_prestoFabricTestSuite; //!< registers the suite
