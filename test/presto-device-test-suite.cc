/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Simulation tests of the offload NIC (OffloadNetDevice) with Presto's execution model
// (PrestoNetDevice): real fabrics, real TCP on the wire, assertions on delivered bytes, NIC
// counters, switch queues, packets seen on the wire and pcap files decoded by tshark.

#include "ns3/boolean.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/config.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-switch.h"
#include "ns3/fabric-topology.h"
#include "ns3/flextoe-net-device.h"
#include "ns3/flow-file.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/object-vector.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-socket.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/ppp-header.h"
#include "ns3/presto-net-device.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/spray-experiment.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-option-winscale.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-endpoint.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>

using namespace ns3;

namespace
{

/// Wire bytes per offloaded segment besides the payload: PPP 2 + IPv4 20 + TCP 20 (the NIC
/// sends no TCP options on data segments).
constexpr uint32_t WIRE_OVERHEAD = 42;
/// The endpoint's MSS (TcpSocketEndpoint::SegmentSize default).
constexpr uint32_t MSS = 1448;

std::string
TempDir(const std::string& name)
{
    auto dir = std::filesystem::temp_directory_path() /
               ("presto-device-test-" + std::to_string(getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

/// The experiment's default small leaf-spine (2 leaves x 2 spines x 4 hosts, 10G/40G) with
/// Presto NICs of fidelity K on every host, quiet, no plot.
SprayExperimentConfig
PrestoConfig(const std::string& out, const std::string& fidelity)
{
    SprayExperimentConfig c;
    c.verifyPayload = true; // transport tests compare every byte
    c.device = "presto";
    c.fidelity = fidelity;
    c.out = out;
    c.quiet = true;
    c.plot = false;
    return c;
}

/// \return j[key] as an integer, 0 when absent (a NIC counter nobody incremented)
uint64_t
Get(const nlohmann::json& j, const char* key)
{
    return j.contains(key) ? j[key].get<uint64_t>() : 0;
}

/// \return a factory of Presto NICs with fidelity K
ObjectFactory
PrestoFactory(const std::string& fidelity = "1")
{
    ObjectFactory f;
    f.SetTypeId(PrestoNetDevice::GetTypeId());
    f.Set("ReassemblyFidelity", StringValue(fidelity));
    return f;
}

/// \return the node id of the switch a host hangs off
uint32_t
EdgeOf(const FabricTopology& t, uint32_t host)
{
    const auto& l = t.GetLinks()[t.GetPorts(t.HostNode(host))[0]];
    return l.a == t.HostNode(host) ? l.b : l.a;
}

/// \return the device of link l at node n
Ptr<PointToPointNetDevice>
DeviceAt(const FabricHelper& f, uint32_t l, uint32_t n)
{
    auto d = f.GetLinkDevices(l);
    return DynamicCast<PointToPointNetDevice>(f.GetTopology().GetLinks()[l].a == n ? d.first
                                                                                   : d.second);
}

/// \return the addresses of every host of a fabric, by host index
std::vector<Ipv4Address>
Addresses(const FabricHelper& f)
{
    std::vector<Ipv4Address> a;
    for (uint32_t h = 0; h < f.GetTopology().GetNHosts(); ++h)
    {
        a.push_back(f.GetHostAddress(h));
    }
    return a;
}

/// A TcpSocketEndpoint whose flows use the offload NIC where a host has one, ns-3's TCP
/// (DCTCP, ECN on) elsewhere.
Ptr<TcpSocketEndpoint>
OffloadEndpoint(const FabricHelper& f)
{
    Ptr<TcpSocketEndpoint> e = CreateObject<TcpSocketEndpoint>();
    e->SetAttribute("SocketFactory", TypeIdValue(OffloadSocketFactory::GetTypeId()));
    e->SetAttribute("Name", StringValue("presto"));
    e->Install(f.GetHosts(), Addresses(f));
    return e;
}

FlowSpec
Flow(uint32_t id, uint32_t src, uint32_t dst, uint64_t size, uint16_t dport = 100)
{
    FlowSpec s;
    s.id = id;
    s.src = src;
    s.dst = dst;
    s.sizeBytes = size;
    s.dport = dport;
    return s;
}

/**
 * TCP segments a host device sends (MacTx) and receives (MacRx), parsed from the IPv4 and
 * TCP headers: what a packet capture on the host's link would show.
 */
struct TcpTap
{
    struct Side
    {
        uint64_t segments{0};     //!< TCP segments
        uint64_t data{0};         //!< with payload
        uint64_t dataEct{0};      //!< with payload and ECT(0) or ECT(1)
        uint64_t dataCe{0};       //!< with payload and CE
        uint64_t dataCwr{0};      //!< with payload and CWR
        uint64_t ackEce{0};       //!< without payload, with ECE (not SYN)
        uint64_t fin{0};          //!< with FIN
        uint64_t rst{0};          //!< with RST
        int synFlags{-1};         //!< flags of the first SYN (-1: none)
        int synAckFlags{-1};      //!< flags of the first SYN-ACK (-1: none)
        int synWscale{-1};        //!< window scale in the first SYN or SYN-ACK (-1: none)
        uint32_t maxWindow{0};    //!< largest window field of a non-SYN segment
        uint64_t payloadBytes{0}; //!< payload bytes, retransmissions included
    };

    Side tx; //!< sent by the host
    Side rx; //!< received by the host

    void Attach(Ptr<NetDevice> d)
    {
        d->TraceConnectWithoutContext("MacTx", MakeCallback(&TcpTap::Tx, this));
        d->TraceConnectWithoutContext("MacRx", MakeCallback(&TcpTap::Rx, this));
    }

    void Tx(Ptr<const Packet> p)
    {
        Count(tx, p);
    }

    void Rx(Ptr<const Packet> p)
    {
        Count(rx, p);
    }

    static void Count(Side& s, Ptr<const Packet> packet)
    {
        // ns-3.37's point-to-point device traces MacTx and MacRx with the PPP header on
        Ptr<Packet> p = packet->Copy();
        PppHeader ppp;
        Ipv4Header ih;
        if (p->GetSize() < 42 || p->RemoveHeader(ppp) == 0 || ppp.GetProtocol() != 0x0021 ||
            p->RemoveHeader(ih) == 0 || ih.GetProtocol() != 6)
        {
            return;
        }
        TcpHeader th;
        p->RemoveHeader(th);
        const uint8_t f = th.GetFlags();
        const uint32_t len = p->GetSize();
        const auto ecn = ih.GetEcn();
        ++s.segments;
        if (len > 0)
        {
            ++s.data;
            s.payloadBytes += len;
            s.dataEct += (ecn == Ipv4Header::ECN_ECT0 || ecn == Ipv4Header::ECN_ECT1) ? 1 : 0;
            s.dataCe += ecn == Ipv4Header::ECN_CE ? 1 : 0;
            s.dataCwr += (f & TcpHeader::CWR) ? 1 : 0;
        }
        else if ((f & TcpHeader::ECE) && !(f & TcpHeader::SYN))
        {
            ++s.ackEce;
        }
        s.fin += (f & TcpHeader::FIN) ? 1 : 0;
        s.rst += (f & TcpHeader::RST) ? 1 : 0;
        if (f & TcpHeader::SYN)
        {
            int& first = (f & TcpHeader::ACK) ? s.synAckFlags : s.synFlags;
            if (first < 0)
            {
                first = f;
                if (th.HasOption(TcpOption::WINSCALE))
                {
                    s.synWscale =
                        DynamicCast<const TcpOptionWinScale>(th.GetOption(TcpOption::WINSCALE))
                            ->GetScale();
                }
            }
        }
        else
        {
            s.maxWindow = std::max<uint32_t>(s.maxWindow, th.GetWindowSize());
        }
    }
};

/// Connection events of one offload NIC (its Established / Closed / Refused trace sources).
struct ConnectionLog
{
    uint32_t established{0};
    uint32_t closed{0};
    uint32_t refused{0};
    int32_t open{0};
    int32_t maxOpen{0};
    std::set<uint32_t> slots; //!< slots seen established

    void Attach(Ptr<NetDevice> d)
    {
        d->TraceConnectWithoutContext("Established",
                                      MakeCallback(&ConnectionLog::Established, this));
        d->TraceConnectWithoutContext("Closed", MakeCallback(&ConnectionLog::Closed, this));
        d->TraceConnectWithoutContext("Refused", MakeCallback(&ConnectionLog::Refused, this));
    }

    void Established(uint32_t slot)
    {
        ++established;
        slots.insert(slot);
        maxOpen = std::max(maxOpen, ++open);
    }

    void Closed(uint32_t slot)
    {
        ++closed;
        --open;
    }

    void Refused(uint32_t)
    {
        ++refused;
    }
};

/// Flows an endpoint finished, with their sizes (FlowEndpoint's FlowFinish trace).
struct FinishLog
{
    std::map<uint32_t, uint64_t> sizes;
    std::vector<Time> times;

    void Attach(Ptr<FlowEndpoint> e)
    {
        e->TraceConnectWithoutContext("FlowFinish", MakeCallback(&FinishLog::Finish, this));
    }

    void Finish(uint32_t id, uint64_t size)
    {
        sizes[id] = size;
        times.push_back(Simulator::Now());
    }

    uint64_t Bytes() const
    {
        uint64_t b = 0;
        for (const auto& [id, s] : sizes)
        {
            b += s;
        }
        return b;
    }
};

} // namespace

// ------------------------------------------------------------------------------------------

/**
 * 1. Exactly-once, in-order delivery for every fidelity K under (a) spraying over asymmetric
 * paths (one leaf-spine link degraded from 40 to 10 Gbps, so sprayed packets overtake each
 * other) and (b) 1% random loss on every switch-to-switch link. The payload pattern is checked
 * byte by byte by the FlowEndpoint base class; the NIC counters must show the mechanism the
 * scenario exercises.
 */
class PrestoDeliveryTestCase : public TestCase
{
  public:
    PrestoDeliveryTestCase(const std::string& fidelity, bool loss)
        : TestCase("fidelity " + fidelity + ": every byte exactly once and in order under " +
                   (loss ? "1% random loss" : "spraying over degraded, asymmetric paths")),
          m_fidelity(fidelity),
          m_loss(loss)
    {
    }

  private:
    void DoRun() override
    {
        std::string dir = TempDir("deliver-" + m_fidelity + (m_loss ? "-loss" : "-reorder"));
        SprayExperimentConfig c = PrestoConfig(dir, m_fidelity);
        c.lb = "spray";
        c.load = 0.6;
        c.simTime = 0.005;
        if (m_loss)
        {
            c.lossRate = 0.01;
        }
        else
        {
            c.degradeLinks = "leaf0-spine0:10Gbps";
        }
        SprayExperiment e(c);
        e.Run();
        const auto& rep = e.GetReport();
        uint64_t bytes = 0;
        for (const auto& f : e.GetFlows())
        {
            bytes += f.sizeBytes;
        }
        const auto& d = rep["delivery"];
        const auto& nic = rep["nic"];
        const uint64_t flows = e.GetFlows().size();
        NS_TEST_ASSERT_MSG_GT(flows, 5, "the workload has flows");
        NS_TEST_EXPECT_MSG_EQ(Get(d, "corrupt_bytes"), 0, "no byte differs from the pattern");
        NS_TEST_EXPECT_MSG_EQ(Get(d, "excess_bytes"), 0, "no byte delivered twice");
        NS_TEST_EXPECT_MSG_EQ(Get(d, "bytes_delivered"), bytes, "every byte delivered");
        NS_TEST_EXPECT_MSG_EQ(Get(d, "flows_finished"), flows, "every flow finished");
        NS_TEST_EXPECT_MSG_EQ(rep["unfinished"].get<uint64_t>(), 0, "no unfinished flow");
        // one connection at each end per flow, nothing refused or given up
        NS_TEST_EXPECT_MSG_EQ(Get(nic, "connections_established"), 2 * flows, "both ends");
        NS_TEST_EXPECT_MSG_EQ(Get(nic, "connections_refused"), 0, "no refusal");
        NS_TEST_EXPECT_MSG_EQ(Get(nic, "handshake_failures"), 0, "no failed handshake");
        NS_TEST_EXPECT_MSG_EQ(Get(nic, "window_drops"), 0, "the sender respects the window");
        const bool k0 = m_fidelity == "0";
        if (k0)
        {
            // no interval to place out-of-order data: it is dropped (and ACKed)
            NS_TEST_EXPECT_MSG_EQ(Get(nic, "out_of_order_placed"), 0, "K=0 places nothing");
            NS_TEST_EXPECT_MSG_GT(Get(nic, "fidelity_drops"), 0, "K=0 drops reordered data");
        }
        else
        {
            NS_TEST_EXPECT_MSG_GT(Get(nic, "out_of_order_placed"), 0, "reordered data placed");
        }
        if (m_fidelity == "full")
        {
            NS_TEST_EXPECT_MSG_EQ(Get(nic, "fidelity_drops"), 0, "unbounded reassembly");
        }
        if (m_loss)
        {
            NS_TEST_EXPECT_MSG_GT(Get(rep["fabric"], "switch_forwarded"), 0, "traffic");
            NS_TEST_EXPECT_MSG_GT(Get(nic, "retx_segments"), 0, "losses were repaired");
        }
        std::filesystem::remove_all(dir);
    }

    std::string m_fidelity;
    bool m_loss;
};

/**
 * 2. One long flow alone between hosts under different leaves reaches at least 95% of the
 * bottleneck (the 10 Gbps host link): wire bytes (payload + 42 header bytes per segment) over
 * the FCT, and FCT within 5% of the ideal FCT of the record.
 */
class LongFlowRateTestCase : public TestCase
{
  public:
    explicit LongFlowRateTestCase(const std::string& fidelity)
        : TestCase("fidelity " + fidelity +
                   ": a lone 20 MB flow reaches >= 95% of the 10 Gbps bottleneck"),
          m_fidelity(fidelity)
    {
    }

  private:
    void DoRun() override
    {
        std::string dir = TempDir("long-" + m_fidelity);
        const uint64_t size = 20000000;
        FlowSpec f = Flow(0, 0, 7, size);
        f.startNs = 1000;
        WriteFlowFile(dir + "/in.txt", {f});
        SprayExperimentConfig c = PrestoConfig(dir + "/out", m_fidelity);
        c.flowFile = dir + "/in.txt";
        c.lb = "spray";
        SprayExperiment e(c);
        e.Run();
        const FctRecord& r = e.GetRecords().at(0);
        NS_TEST_ASSERT_MSG_EQ(r.Finished(), true, "the flow finishes");
        const auto& d = e.GetReport()["delivery"];
        NS_TEST_EXPECT_MSG_EQ(Get(d, "corrupt_bytes") + Get(d, "excess_bytes"), 0, "exact");
        NS_TEST_EXPECT_MSG_EQ(Get(d, "bytes_delivered"), size, "every byte");
        const uint64_t segments = (size + MSS - 1) / MSS;
        const double wireBits = 8.0 * (size + segments * WIRE_OVERHEAD);
        const double rate = wireBits / (r.FctNs() * 1e-9);
        const double utilisation = rate / 10e9;
        std::cout << "    long flow K=" << m_fidelity << ": FCT " << r.FctNs() << " ns, ideal "
                  << r.idealNs << " ns, slowdown " << r.Slowdown() << ", wire rate " << rate / 1e9
                  << " Gbps (" << 100 * utilisation << "% of 10 Gbps)" << std::endl;
        NS_TEST_EXPECT_MSG_GT_OR_EQ(utilisation, 0.95, "wire rate of the lone flow");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(r.Slowdown(), 1.05, "FCT vs ideal FCT");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(r.Slowdown(), 0.999, "never faster than the ideal");
        std::filesystem::remove_all(dir);
    }

    std::string m_fidelity;
};

/**
 * 3. DCTCP on the NIC: two long flows from two hosts into one receiver keep the bottleneck
 * port's queue (the receiver's leaf -> host port) around the ECN threshold at full rate.
 * Over the steady part [1 ms, first flow finished) we measure the average queue two ways:
 * per enqueue (the FabricSwitch QueueLength trace, bytes after each enqueue on that port),
 * and time-weighted (the port queue's BytesInQueue, integrated over time); both must stay
 * within 2x the switch's EcnThreshold, and the port must be busy >= 95% of the time (wire
 * bytes started on the port, PPP header included, over the link rate).
 */
class DctcpQueueTestCase : public TestCase
{
  public:
    DctcpQueueTestCase()
        : TestCase("DCTCP on the NIC: 2-to-1 keeps the bottleneck queue within 2x the ECN "
                   "threshold at >= 95% utilisation")
    {
    }

  private:
    bool InWindow() const
    {
        return Simulator::Now() >= m_start && !m_ended;
    }

    void QueueLength(uint32_t port, uint32_t bytes)
    {
        if (port == m_port && InWindow())
        {
            m_enqSum += bytes;
            ++m_enqCount;
        }
    }

    void BytesInQueue(uint32_t oldValue, uint32_t newValue)
    {
        Accumulate();
        m_bytes = newValue;
    }

    /// Integrate the queue length up to now (time-weighted average).
    void Accumulate()
    {
        Time now = Simulator::Now();
        if (InWindow())
        {
            Time from = std::max(m_last, m_start);
            m_area += double(m_bytes) * (now - from).GetSeconds();
        }
        m_last = now;
    }

    void TxBegin(Ptr<const Packet> p)
    {
        if (InWindow())
        {
            m_txBytes += p->GetSize();
        }
    }

    void FlowFinished(uint32_t id, uint64_t size)
    {
        if (!m_ended)
        {
            Accumulate();
            m_end = Simulator::Now();
            m_ended = true;
        }
    }

    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(2, 2, 2, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue("Spray"));
        f.SetHostDeviceFactory(PrestoFactory("1"));
        f.Install(topo);
        // receiver host 0 on leaf 0; senders 2 and 3 on leaf 1
        const uint32_t leaf = EdgeOf(topo, 0);
        Ptr<FabricSwitch> sw = f.GetNode(leaf)->GetObject<FabricSwitch>();
        Ptr<PointToPointNetDevice> port = DeviceAt(f, topo.GetPorts(topo.HostNode(0))[0], leaf);
        m_port = port->GetIfIndex();
        UintegerValue threshold;
        sw->GetAttribute("EcnThreshold", threshold);
        const double k = threshold.Get();
        NS_TEST_ASSERT_MSG_GT(k, 0, "ECN marking is on");
        sw->TraceConnectWithoutContext("QueueLength",
                                       MakeCallback(&DctcpQueueTestCase::QueueLength, this));
        port->GetQueue()->TraceConnectWithoutContext(
            "BytesInQueue",
            MakeCallback(&DctcpQueueTestCase::BytesInQueue, this));
        port->TraceConnectWithoutContext("PhyTxBegin",
                                         MakeCallback(&DctcpQueueTestCase::TxBegin, this));

        Ptr<TcpSocketEndpoint> ep = OffloadEndpoint(f);
        ep->TraceConnectWithoutContext("FlowFinish",
                                       MakeCallback(&DctcpQueueTestCase::FlowFinished, this));
        FinishLog done;
        done.Attach(ep);
        const uint64_t size = 8000000;
        Simulator::Schedule(Seconds(0), &FlowEndpoint::StartFlow, ep, Flow(0, 2, 0, size));
        Simulator::Schedule(NanoSeconds(100), &FlowEndpoint::StartFlow, ep, Flow(1, 3, 0, size));
        Simulator::Stop(MilliSeconds(100));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(done.sizes.size(), 2, "both flows finish");
        NS_TEST_EXPECT_MSG_EQ(ep->GetCorruptBytes() + ep->GetExcessBytes(), 0, "exact");
        NS_TEST_EXPECT_MSG_EQ(ep->GetDeliveredBytes(), 2 * size, "every byte");
        const double duration = (m_end - m_start).GetSeconds();
        NS_TEST_ASSERT_MSG_GT(duration, 0.005, "a steady part of several ms");
        const double perEnqueue = m_enqCount ? m_enqSum / m_enqCount : 0;
        const double timeWeighted = m_area / duration;
        const double utilisation = 8.0 * m_txBytes / (10e9 * duration);
        OffloadTcpCounters senders;
        for (uint32_t h : {2, 3})
        {
            senders += DynamicCast<OffloadNetDevice>(f.GetHostDevices().Get(h))->GetTotals();
        }
        std::cout << "    DCTCP 2-to-1 over " << duration * 1e3 << " ms: average queue "
                  << perEnqueue << " B per enqueue, " << timeWeighted
                  << " B time-weighted (ECN threshold " << k << " B, ratio " << perEnqueue / k
                  << " / " << timeWeighted / k << "), utilisation " << 100 * utilisation
                  << "%, marks " << sw->GetMarked() << ", ECE at senders " << senders.eceReceived
                  << ", drops " << sw->GetDropped() << std::endl;
        NS_TEST_EXPECT_MSG_GT(sw->GetMarked(), 0, "the queue reached the threshold");
        NS_TEST_EXPECT_MSG_GT(senders.eceReceived, 0, "the NIC's senders saw the echo");
        NS_TEST_EXPECT_MSG_GT(m_enqCount, 1000, "queue samples");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(perEnqueue, 2 * k, "per-enqueue average queue");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(timeWeighted, 2 * k, "time-weighted average queue");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(utilisation, 0.95, "bottleneck utilisation");
        ep->Dispose();
        Simulator::Destroy();
    }

    uint32_t m_port{0};
    Time m_start{MilliSeconds(1)};
    Time m_end;
    bool m_ended{false};
    double m_enqSum{0};
    uint64_t m_enqCount{0};
    uint32_t m_bytes{0};
    Time m_last;
    double m_area{0};
    uint64_t m_txBytes{0};
};

/**
 * 4a. Interoperability with ns-3's own TCP (DCTCP, ECN on, plain PointToPointNetDevice):
 * a Presto host and an ns-3 host transfer byte-exact payload in one direction (Presto client
 * -> ns-3 server or the reverse), through the handshake (ECN negotiated: SYN with ECE+CWR,
 * SYN-ACK with ECE), data (ECT on the wire, CE marks at a 4 Gbps core bottleneck, echoed as
 * ECE and answered with CWR) and teardown (the NIC's slot is freed, the ns-3 socket ends in
 * CLOSED or TIME_WAIT).
 */
class InteropTestCase : public TestCase
{
  public:
    /**
     * \param prestoClient the offload NIC's host is the client
     * \param nic the offload NIC (Presto by default; FlexTOE shares the device and data path)
     * \param name the NIC's name in the case name
     */
    explicit InteropTestCase(bool prestoClient,
                             ObjectFactory nic = PrestoFactory("1"),
                             const std::string& name = "Presto")
        : TestCase(
              prestoClient
                  ? "interop: " + name + " client -> ns-3 TCP server, byte-exact, ECN, teardown"
                  : "interop: ns-3 TCP client -> " + name + " server, byte-exact, ECN, teardown"),
          m_prestoClient(prestoClient),
          m_nic(nic)
    {
    }

  private:
    static void StateChanged(TcpSocket::TcpStates_t* slot,
                             TcpSocket::TcpStates_t oldState,
                             TcpSocket::TcpStates_t newState)
    {
        *slot = newState;
    }

    /// Follow the state of every connected ns-3 socket on a node (not listeners).
    void HookNs3Sockets(Ptr<Node> node)
    {
        ObjectVectorValue sockets;
        node->GetObject<TcpL4Protocol>()->GetAttribute("SocketList", sockets);
        for (auto it = sockets.Begin(); it != sockets.End(); ++it)
        {
            Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(it->second);
            Address peer;
            if (!s || s->GetPeerName(peer) != 0 ||
                InetSocketAddress::ConvertFrom(peer).GetIpv4() == Ipv4Address::GetAny())
            {
                continue; // a listener
            }
            m_states.push_back(TcpSocket::ESTABLISHED);
            s->TraceConnectWithoutContext(
                "State",
                MakeBoundCallback(&InteropTestCase::StateChanged, &m_states.back()));
        }
    }

    void DoRun() override
    {
        // host 0 (Presto) under leaf 0, host 1 (ns-3 TCP) under leaf 1, one 4 Gbps spine: the
        // sender's leaf uplink is the bottleneck, so data gets CE marks in either direction
        auto topo = FabricTopology::LeafSpine(2, 1, 1, 10e9, 4e9, 1000);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue("Spray"));
        f.SetHostDeviceFactory(0, m_nic);
        f.Install(topo);
        Ptr<NetDevice> prestoDev = f.GetHostDevices().Get(0);
        Ptr<NetDevice> ns3Dev = f.GetHostDevices().Get(1);
        Ptr<OffloadNetDevice> nic = DynamicCast<OffloadNetDevice>(prestoDev);
        NS_TEST_ASSERT_MSG_NE(nic, nullptr, "host 0 has the Presto NIC");
        NS_TEST_ASSERT_MSG_EQ(DynamicCast<OffloadNetDevice>(ns3Dev), nullptr, "host 1: plain");
        NS_TEST_ASSERT_MSG_EQ(f.GetHosts().Get(1)->GetObject<OffloadSocketFactory>(),
                              nullptr,
                              "host 1 falls back to ns-3's TCP");
        ConnectionLog conns;
        conns.Attach(nic);
        TcpTap presto;
        TcpTap ns3;
        presto.Attach(prestoDev);
        ns3.Attach(ns3Dev);

        Ptr<TcpSocketEndpoint> ep = OffloadEndpoint(f);
        const uint64_t size = 3000000;
        const uint32_t src = m_prestoClient ? 0 : 1;
        Simulator::Schedule(MicroSeconds(1),
                            &FlowEndpoint::StartFlow,
                            ep,
                            Flow(0, src, 1 - src, size));
        Simulator::Schedule(MicroSeconds(300),
                            &InteropTestCase::HookNs3Sockets,
                            this,
                            f.GetHosts().Get(1));
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();

        // payload
        NS_TEST_EXPECT_MSG_EQ(ep->GetFlowsFinished(), 1, "the flow finished");
        NS_TEST_EXPECT_MSG_EQ(ep->GetCorruptBytes(), 0, "no corrupt byte");
        NS_TEST_EXPECT_MSG_EQ(ep->GetExcessBytes(), 0, "no byte twice");
        NS_TEST_EXPECT_MSG_EQ(ep->GetDeliveredBytes(), size, "every byte");
        nlohmann::json doc;
        ep->AddReport(doc);
        NS_TEST_EXPECT_MSG_EQ(doc["tcp"]["connect_failures"].get<uint64_t>(), 0, "connected");

        // handshake with ECN negotiation, seen on the wire at both hosts
        TcpTap::Side& client = m_prestoClient ? presto.tx : ns3.tx;
        TcpTap::Side& server = m_prestoClient ? ns3.tx : presto.tx;
        const int eceCwr = TcpHeader::ECE | TcpHeader::CWR;
        NS_TEST_ASSERT_MSG_NE(client.synFlags, -1, "the client sent a SYN");
        NS_TEST_ASSERT_MSG_NE(server.synAckFlags, -1, "the server answered with SYN-ACK");
        NS_TEST_EXPECT_MSG_EQ((client.synFlags & eceCwr), eceCwr, "ECN-setup SYN");
        NS_TEST_EXPECT_MSG_EQ((server.synAckFlags & eceCwr),
                              int(TcpHeader::ECE),
                              "ECN-setup SYN-ACK");
        NS_TEST_EXPECT_MSG_EQ(client.rst + server.rst, 0, "no reset");

        // data: ECT on the wire, CE at the bottleneck, ECE echoed, CWR in answer
        TcpTap::Side& sender = client;
        TcpTap::Side& receiverRx = m_prestoClient ? ns3.rx : presto.rx;
        TcpTap::Side& receiverTx = server;
        const OffloadTcpCounters t = nic->GetTotals();
        uint64_t marks = 0;
        for (auto& s : f.GetSwitchObjects())
        {
            marks += s->GetMarked();
        }
        std::cout << "    interop " << (m_prestoClient ? "Presto->ns-3" : "ns-3->Presto")
                  << ": data segments " << sender.data << " (ECT " << sender.dataEct << ", CWR "
                  << sender.dataCwr << "), CE at receiver " << receiverRx.dataCe << ", ECE ACKs "
                  << receiverTx.ackEce << ", switch marks " << marks << ", NIC ce_received "
                  << t.ceReceived << ", ece_received " << t.eceReceived << std::endl;
        NS_TEST_EXPECT_MSG_GT(sender.data, 0, "data sent");
        NS_TEST_EXPECT_MSG_GT(sender.dataEct, sender.data * 9 / 10, "data carries ECT");
        NS_TEST_EXPECT_MSG_GT(marks, 0, "the bottleneck marked");
        NS_TEST_EXPECT_MSG_GT(receiverRx.dataCe, 0, "CE reached the receiver");
        NS_TEST_EXPECT_MSG_GT(receiverTx.ackEce, 0, "the receiver echoed ECE");
        NS_TEST_EXPECT_MSG_GT(sender.dataCwr, 0, "the sender answered with CWR");
        if (m_prestoClient)
        {
            NS_TEST_EXPECT_MSG_GT(t.eceReceived, 0, "the NIC counted ns-3's echoes");
        }
        else
        {
            NS_TEST_EXPECT_MSG_GT(t.ceReceived, 0, "the NIC counted CE on ns-3's data");
            NS_TEST_EXPECT_MSG_EQ(t.ceReceived, receiverTx.ackEce, "exact echo: 1 ECE per CE");
        }
        NS_TEST_EXPECT_MSG_EQ(t.windowDrops, 0, "no data outside the NIC's window");

        // teardown: FIN both ways, slot freed, ns-3 socket closed
        NS_TEST_EXPECT_MSG_GT_OR_EQ(presto.tx.fin, 1, "the NIC sent FIN");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(ns3.tx.fin, 1, "ns-3 sent FIN");
        NS_TEST_EXPECT_MSG_EQ(conns.established, 1, "one connection on the NIC");
        NS_TEST_EXPECT_MSG_EQ(conns.closed, 1, "its slot was freed (Closed trace)");
        NS_TEST_ASSERT_MSG_EQ(m_states.size(), 1, "one connected ns-3 socket");
        NS_TEST_EXPECT_MSG_EQ(
            (m_states[0] == TcpSocket::CLOSED || m_states[0] == TcpSocket::TIME_WAIT),
            true,
            "the ns-3 socket closed, state " << TcpSocket::TcpStateName[m_states[0]]);
        ep->Dispose();
        Simulator::Destroy();
    }

    bool m_prestoClient;
    ObjectFactory m_nic;                         //!< the offload NIC of host 0
    std::deque<TcpSocket::TcpStates_t> m_states; //!< stable addresses for the callbacks
};

/**
 * 4b. Window scaling against ns-3's TCP when the peer announces shift 0 (a receive buffer of
 * at most 64 KB): the NIC announced its own shift in the SYN-ACK, so every later window field
 * it sends must be scaled by it (field << shift never above its receive buffer), and the
 * ns-3 sender never overruns the NIC's buffer.
 */
class WindowScaleInteropTestCase : public TestCase
{
  public:
    WindowScaleInteropTestCase()
        : TestCase("interop: the NIC scales its window as announced when the peer's shift is 0")
    {
    }

  private:
    /// Write the payload as the ns-3 socket's send buffer allows, then close.
    void Fill(Ptr<Socket> s, uint32_t)
    {
        while (m_sent < m_size && s->GetTxAvailable() > 0)
        {
            uint32_t n = std::min<uint64_t>({s->GetTxAvailable(), m_size - m_sent, 65536});
            if (s->Send(Create<Packet>(n)) < 0)
            {
                return;
            }
            m_sent += n;
        }
        if (m_sent == m_size && !m_closed)
        {
            m_closed = true;
            s->Close();
        }
    }

    void Connected(Ptr<Socket> s)
    {
        Fill(s, 0);
    }

    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(1, 1, 2, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetHostDeviceFactory(0, PrestoFactory("1"));
        f.Install(topo);
        Ptr<OffloadNetDevice> nic = DynamicCast<OffloadNetDevice>(f.GetHostDevices().Get(0));
        TcpTap presto;
        presto.Attach(nic);
        // PacketSink over the NIC (OffloadSocket's default 128 KB receive buffer: shift 2)
        const uint32_t rcvBuf = 131072;
        PacketSinkHelper sinkHelper("ns3::OffloadSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), 9));
        ApplicationContainer sink = sinkHelper.Install(f.GetHosts().Get(0));
        // ns-3 client with a 32 KB receive buffer: window-scale option with shift 0
        Ptr<Socket> s = Socket::CreateSocket(f.GetHosts().Get(1), TcpSocketFactory::GetTypeId());
        s->SetAttribute("RcvBufSize", UintegerValue(32768));
        s->SetAttribute("SndBufSize", UintegerValue(1 << 20));
        s->Bind();
        s->SetConnectCallback(MakeCallback(&WindowScaleInteropTestCase::Connected, this),
                              MakeNullCallback<void, Ptr<Socket>>());
        s->SetSendCallback(MakeCallback(&WindowScaleInteropTestCase::Fill, this));
        compat::Schedule(MicroSeconds(1),
                         [s, &f]() { s->Connect(InetSocketAddress(f.GetHostAddress(0), 9)); });
        Simulator::Stop(MilliSeconds(30));
        Simulator::Run();

        const uint64_t rx = DynamicCast<PacketSink>(sink.Get(0))->GetTotalRx();
        NS_TEST_EXPECT_MSG_EQ(rx, m_size, "PacketSink over the NIC received every byte");
        NS_TEST_ASSERT_MSG_EQ(presto.rx.synWscale, 0, "the ns-3 peer announced shift 0");
        NS_TEST_ASSERT_MSG_GT(presto.tx.synWscale, 0, "the NIC announced a shift");
        const uint64_t scaled = uint64_t(presto.tx.maxWindow)
                                << std::clamp(presto.tx.synWscale, 0, 14);
        std::cout << "    window scale: NIC shift " << presto.tx.synWscale << ", max window field "
                  << presto.tx.maxWindow << " -> " << scaled << " B (buffer " << rcvBuf << ")"
                  << std::endl;
        NS_TEST_EXPECT_MSG_LT_OR_EQ(scaled, rcvBuf, "window field scaled by the announced shift");
        NS_TEST_EXPECT_MSG_EQ(nic->GetTotals().windowDrops, 0, "the peer never overran");
        Simulator::Destroy();
    }

    uint64_t m_size{2000000};
    uint64_t m_sent{0};
    bool m_closed{false};
};

/**
 * 4c. An unmodified ns-3 application pair over the NIC: BulkSendApplication -> PacketSink,
 * both with ns3::OffloadSocketFactory on Presto hosts; the sink receives exactly MaxBytes.
 */
class BulkSendOverOffloadTestCase : public TestCase
{
  public:
    BulkSendOverOffloadTestCase()
        : TestCase("BulkSendApplication -> PacketSink over ns3::OffloadSocketFactory")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(2, 2, 1, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue("Spray"));
        f.SetHostDeviceFactory(PrestoFactory("2"));
        f.Install(topo);
        ConnectionLog server;
        ConnectionLog client;
        server.Attach(f.GetHostDevices().Get(1));
        client.Attach(f.GetHostDevices().Get(0));
        const uint64_t maxBytes = 5000000;
        PacketSinkHelper sinkHelper("ns3::OffloadSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), 5000));
        ApplicationContainer sink = sinkHelper.Install(f.GetHosts().Get(1));
        BulkSendHelper send("ns3::OffloadSocketFactory",
                            InetSocketAddress(f.GetHostAddress(1), 5000));
        send.SetAttribute("MaxBytes", UintegerValue(maxBytes));
        ApplicationContainer app = send.Install(f.GetHosts().Get(0));
        app.Start(MicroSeconds(10));
        Simulator::Stop(MilliSeconds(30));
        Simulator::Run();
        const uint64_t rx = DynamicCast<PacketSink>(sink.Get(0))->GetTotalRx();
        NS_TEST_EXPECT_MSG_EQ(client.established, 1, "the client's NIC connected");
        NS_TEST_EXPECT_MSG_EQ(server.established, 1, "the server's NIC accepted");
        NS_TEST_EXPECT_MSG_EQ(rx, maxBytes, "PacketSink received exactly MaxBytes");
        Simulator::Destroy();
    }
};

/**
 * 4d. Close before the handshake completes (an application that connects and closes at
 * once): the connection still ends cleanly, FIN on the wire and both NIC slots freed.
 */
class CloseBeforeEstablishedTestCase : public TestCase
{
  public:
    CloseBeforeEstablishedTestCase()
        : TestCase("Close() during the handshake: FIN follows, both slots are freed")
    {
    }

  private:
    void Accept(Ptr<Socket> s, const Address& from)
    {
        m_accepted = s;
        s->SetCloseCallbacks(MakeCallback(&CloseBeforeEstablishedTestCase::PeerClosed, this),
                             MakeCallback(&CloseBeforeEstablishedTestCase::PeerClosed, this));
    }

    void PeerClosed(Ptr<Socket> s)
    {
        ++m_peerClosed;
        s->Close();
    }

    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(1, 1, 2, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetHostDeviceFactory(PrestoFactory("1"));
        f.Install(topo);
        ConnectionLog client;
        ConnectionLog server;
        client.Attach(f.GetHostDevices().Get(0));
        server.Attach(f.GetHostDevices().Get(1));
        TcpTap tap;
        tap.Attach(f.GetHostDevices().Get(0));
        Ptr<Socket> listener =
            Socket::CreateSocket(f.GetHosts().Get(1), OffloadSocketFactory::GetTypeId());
        listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), 80));
        listener->Listen();
        listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&CloseBeforeEstablishedTestCase::Accept, this));
        Ptr<Socket> s =
            Socket::CreateSocket(f.GetHosts().Get(0), OffloadSocketFactory::GetTypeId());
        NS_TEST_ASSERT_MSG_EQ(s->Connect(InetSocketAddress(f.GetHostAddress(1), 80)), 0, "ok");
        s->Close(); // before the SYN even left the host
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_GT_OR_EQ(tap.tx.fin, 1, "the client sent its FIN");
        NS_TEST_EXPECT_MSG_EQ(m_peerClosed, 1, "the server saw the close");
        NS_TEST_EXPECT_MSG_EQ(client.closed, client.established, "client slot freed");
        NS_TEST_EXPECT_MSG_EQ(server.closed, server.established, "server slot freed");
        NS_TEST_EXPECT_MSG_EQ(client.established, 1, "client connection was established");
        m_accepted = nullptr;
        Simulator::Destroy();
    }

    Ptr<Socket> m_accepted;
    uint32_t m_peerClosed{0};
};

/**
 * 4e. The byte-count socket calls (OffloadSocket::SendBytes and RecvBytes, which the
 * experiment uses with virtual payload): the errors Send gives, and every byte written by
 * count read by count exactly once.
 */
class SocketByteCountTestCase : public TestCase
{
  public:
    /// \param carryPayload whether the NICs keep host rings (CarryPayload)
    explicit SocketByteCountTestCase(bool carryPayload)
        : TestCase(std::string("SendBytes and RecvBytes") +
                   (carryPayload ? ", with rings" : ", no rings") +
                   ": Send's errors, every byte read exactly once"),
          m_carryPayload(carryPayload)
    {
    }

  private:
    void Accept(Ptr<Socket> s, const Address& from)
    {
        m_accepted = DynamicCast<OffloadSocket>(s);
        s->SetRecvCallback(MakeCallback(&SocketByteCountTestCase::Readable, this));
        s->SetCloseCallbacks(MakeCallback(&SocketByteCountTestCase::PeerClosed, this),
                             MakeCallback(&SocketByteCountTestCase::PeerClosed, this));
    }

    void Readable(Ptr<Socket> s)
    {
        const uint32_t available = s->GetRxAvailable();
        const uint32_t n = m_accepted->RecvBytes(available + 1000);
        m_read += n;
        m_readsMatched += n == available ? 1 : 0;
        ++m_reads;
    }

    void PeerClosed(Ptr<Socket> s)
    {
        ++m_peerClosed;
        m_read += m_accepted->RecvBytes(1u << 30);
        s->Close();
    }

    void Connected(Ptr<Socket> s)
    {
        NS_TEST_EXPECT_MSG_EQ(m_client->SendBytes(m_client->GetTxAvailable() + 1),
                              -1,
                              "more than the send buffer is refused");
        NS_TEST_EXPECT_MSG_EQ(m_client->GetErrno(), Socket::ERROR_MSGSIZE, "as Send's");
        Fill(s, 0);
    }

    void Fill(Ptr<Socket> s, uint32_t)
    {
        while (m_written < TOTAL && m_client->GetTxAvailable() > 0)
        {
            const uint32_t chunk =
                std::min<uint64_t>(m_client->GetTxAvailable(), TOTAL - m_written);
            const int n = m_client->SendBytes(chunk);
            NS_TEST_ASSERT_MSG_EQ(n, static_cast<int>(chunk), "accepted in full");
            m_written += n;
        }
        if (m_written == TOTAL && !m_closed)
        {
            m_closed = true;
            m_client->Close();
            NS_TEST_EXPECT_MSG_EQ(m_client->SendBytes(1), -1, "closed: refused");
            NS_TEST_EXPECT_MSG_EQ(m_client->GetErrno(), Socket::ERROR_NOTCONN, "as Send's");
        }
    }

    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(1, 1, 2, 10e9, 40e9, 1000);
        FabricHelper f;
        ObjectFactory nic = PrestoFactory("1");
        nic.Set("CarryPayload", BooleanValue(m_carryPayload));
        f.SetHostDeviceFactory(nic);
        f.Install(topo);
        Ptr<Socket> listener =
            Socket::CreateSocket(f.GetHosts().Get(1), OffloadSocketFactory::GetTypeId());
        listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), 80));
        listener->Listen();
        listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&SocketByteCountTestCase::Accept, this));
        m_client = DynamicCast<OffloadSocket>(
            Socket::CreateSocket(f.GetHosts().Get(0), OffloadSocketFactory::GetTypeId()));
        NS_TEST_ASSERT_MSG_NE(m_client, nullptr, "an offload socket");
        NS_TEST_EXPECT_MSG_EQ(m_client->SendBytes(100), -1, "not connected: refused");
        NS_TEST_EXPECT_MSG_EQ(m_client->GetErrno(), Socket::ERROR_NOTCONN, "as Send's");
        NS_TEST_EXPECT_MSG_EQ(m_client->RecvBytes(100), 0, "nothing to read before a connection");
        m_client->SetConnectCallback(MakeCallback(&SocketByteCountTestCase::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_client->SetSendCallback(MakeCallback(&SocketByteCountTestCase::Fill, this));
        NS_TEST_ASSERT_MSG_EQ(m_client->Connect(InetSocketAddress(f.GetHostAddress(1), 80)),
                              0,
                              "connect");
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(m_written, TOTAL, "the client wrote every byte");
        NS_TEST_EXPECT_MSG_EQ(m_read, TOTAL, "the server read every byte exactly once");
        NS_TEST_EXPECT_MSG_GT(m_reads, 10, "in many reads");
        NS_TEST_EXPECT_MSG_EQ(m_readsMatched, m_reads, "each read took what was readable");
        NS_TEST_EXPECT_MSG_EQ(m_peerClosed, 1, "the FIN came after the data");
        m_accepted = nullptr;
        m_client = nullptr;
        Simulator::Destroy();
    }

    static constexpr uint64_t TOTAL = 3000000; //!< bytes the client writes
    bool m_carryPayload;                       //!< CarryPayload of the NICs
    Ptr<OffloadSocket> m_client;
    Ptr<OffloadSocket> m_accepted;
    uint64_t m_written{0};
    uint64_t m_read{0};
    uint32_t m_reads{0};
    uint32_t m_readsMatched{0};
    uint32_t m_peerClosed{0};
    bool m_closed{false};
};

/**
 * 5. Pcap traces of the NIC's traffic decode cleanly in tshark: no malformed packet, no
 * expert error, and TCP segments with payload decoded (skipped when tshark is absent).
 */
class PcapTsharkTestCase : public TestCase
{
  public:
    PcapTsharkTestCase()
        : TestCase("pcap of offloaded TCP decodes in tshark: nothing malformed, payload seen")
    {
    }

  private:
    /// \return the command's standard output, or "" on failure
    static std::string Run(const std::string& cmd, int& status)
    {
        std::string out;
        FILE* p = popen(cmd.c_str(), "r");
        if (!p)
        {
            status = -1;
            return out;
        }
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        {
            out.append(buf, n);
        }
        status = pclose(p);
        return out;
    }

    void DoRun() override
    {
        int status = 0;
        Run("command -v tshark >/dev/null 2>&1", status);
        if (status != 0)
        {
            std::cout << "    SKIPPED: tshark not installed (Debian package tshark)" << std::endl;
            return;
        }
        std::string dir = TempDir("pcap");
        // two flows in opposite directions across the fabric, with reordering from spraying
        std::vector<FlowSpec> flows = {Flow(0, 0, 7, 300000), Flow(1, 7, 0, 200000)};
        flows[1].startNs = 5000;
        WriteFlowFile(dir + "/in.txt", flows);
        SprayExperimentConfig c = PrestoConfig(dir, "1");
        c.flowFile = dir + "/in.txt";
        c.pcap = true;
        c.degradeLinks = "leaf0-spine0:10Gbps";
        SprayExperiment e(c);
        e.Run();
        NS_TEST_ASSERT_MSG_EQ(e.GetReport()["delivery"]["flows_finished"].get<uint64_t>(),
                              2,
                              "both flows finished");
        uint32_t files = 0;
        uint64_t frames = 0;
        uint64_t withPayload = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
        {
            const auto path = entry.path();
            if (path.extension() != ".pcap" || std::filesystem::file_size(path) <= 24)
            {
                continue; // only the pcap file header: this host sent nothing
            }
            ++files;
            // one line per frame, tab-separated: malformed flag, expert severities (comma-
            // separated), TCP payload length, TCP analysis flags
            std::string out = Run("tshark -r '" + path.string() +
                                      "' -T fields -e _ws.malformed "
                                      "-e _ws.expert.severity -e tcp.len -e tcp.analysis.flags "
                                      "2>/dev/null",
                                  status);
            NS_TEST_ASSERT_MSG_EQ(status, 0, "tshark reads " << path);
            std::istringstream lines(out);
            std::string line;
            while (std::getline(lines, line))
            {
                ++frames;
                std::istringstream fields(line);
                std::string malformed;
                std::string severity;
                std::string tcpLen;
                std::getline(fields, malformed, '\t');
                std::getline(fields, severity, '\t');
                std::getline(fields, tcpLen, '\t');
                NS_TEST_EXPECT_MSG_EQ(malformed.empty(), true, "malformed frame in " << path);
                // PI_ERROR = 0x00800000: any severity at or above it is an error
                std::istringstream sev(severity);
                std::string one;
                while (std::getline(sev, one, ','))
                {
                    NS_TEST_EXPECT_MSG_LT(std::stoul(one),
                                          0x00800000UL,
                                          "expert error in " << path << ": " << line);
                }
                if (!tcpLen.empty() && std::stoul(tcpLen) > 0)
                {
                    ++withPayload;
                }
            }
            // the filter form, as a user would type it
            std::string bad = Run("tshark -r '" + path.string() +
                                      "' -Y '_ws.malformed || _ws.expert.severity >= error' "
                                      "2>/dev/null",
                                  status);
            NS_TEST_EXPECT_MSG_EQ(bad, "", "tshark finds malformed or erroneous frames");
        }
        std::cout << "    tshark: " << files << " pcap files, " << frames << " frames, "
                  << withPayload << " TCP segments with payload" << std::endl;
        NS_TEST_EXPECT_MSG_EQ(files, 2, "the two hosts with traffic");
        NS_TEST_EXPECT_MSG_GT(withPayload, 2 * 500000 / MSS - 1, "payload decoded as TCP");
        std::filesystem::remove_all(dir);
    }
};

/**
 * 6. A receiver whose NIC has MaxConnections=2 and six concurrent incoming flows: the extra
 * SYNs are refused and counted, never more than 2 connections are open on it, and every flow
 * that got a slot delivers exactly. With the default SYN retries the refused flows get a slot
 * later and all finish; with one SYN only, the refused flows fail cleanly.
 */
class MaxConnectionsTestCase : public TestCase
{
  public:
    explicit MaxConnectionsTestCase(uint32_t synRetries)
        : TestCase("MaxConnections=2 at the receiver, 6 incoming flows, SynRetries " +
                   std::to_string(synRetries) + ": extras refused cleanly"),
          m_synRetries(synRetries)
    {
    }

  private:
    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(2, 2, 4, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue("Spray"));
        ObjectFactory nic = PrestoFactory("1");
        nic.Set("SynRetries", UintegerValue(m_synRetries));
        f.SetHostDeviceFactory(nic);
        ObjectFactory small = nic;
        small.Set("MaxConnections", UintegerValue(2));
        f.SetHostDeviceFactory(0, small);
        f.Install(topo);
        Ptr<OffloadNetDevice> receiver = DynamicCast<OffloadNetDevice>(f.GetHostDevices().Get(0));
        ConnectionLog log;
        log.Attach(receiver);
        Ptr<TcpSocketEndpoint> ep = OffloadEndpoint(f);
        FinishLog done;
        done.Attach(ep);
        const uint64_t size = 300000;
        for (uint32_t i = 0; i < 6; ++i)
        {
            Simulator::Schedule(NanoSeconds(100 * i),
                                &FlowEndpoint::StartFlow,
                                ep,
                                Flow(i, i + 1, 0, size));
        }
        Simulator::Stop(MilliSeconds(200));
        Simulator::Run();

        nlohmann::json doc;
        ep->AddReport(doc);
        const uint64_t failures = doc["tcp"]["connect_failures"].get<uint64_t>();
        std::cout << "    MaxConnections=2, SynRetries " << m_synRetries << ": refused "
                  << receiver->GetRefusedConnections() << " SYNs, max open " << log.maxOpen
                  << ", finished " << done.sizes.size() << ", connect failures " << failures
                  << std::endl;
        NS_TEST_EXPECT_MSG_GT(receiver->GetRefusedConnections(), 0, "extras refused");
        NS_TEST_EXPECT_MSG_EQ(log.refused, receiver->GetRefusedConnections(), "traced");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(log.maxOpen, 2, "never more than the table");
        NS_TEST_EXPECT_MSG_EQ(log.closed, log.established, "every slot freed at the end");
        NS_TEST_EXPECT_MSG_EQ(ep->GetCorruptBytes() + ep->GetExcessBytes(), 0, "exact bytes");
        NS_TEST_EXPECT_MSG_EQ(ep->GetDeliveredBytes(), done.Bytes(), "finished flows complete");
        NS_TEST_EXPECT_MSG_EQ(done.sizes.size() + failures, 6, "finished or failed, not hung");
        if (m_synRetries > 1)
        {
            NS_TEST_EXPECT_MSG_EQ(done.sizes.size(), 6, "retried SYNs got a slot later");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ(done.sizes.size(), 2, "only the first two got a slot");
            NS_TEST_EXPECT_MSG_EQ(failures, 4, "the others failed cleanly");
        }
        ep->Dispose();
        Simulator::Destroy();
    }

    uint32_t m_synRetries;
};

/**
 * 6b. The client's own table full: a host with MaxConnections=1 opening two flows at once;
 * the second connect is refused at once and reported as a failed connection, the first
 * delivers exactly.
 */
class ClientTableFullTestCase : public TestCase
{
  public:
    ClientTableFullTestCase()
        : TestCase("MaxConnections=1 at the client: the second connect fails cleanly")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(1, 1, 2, 10e9, 40e9, 1000);
        FabricHelper f;
        ObjectFactory nic = PrestoFactory("1");
        f.SetHostDeviceFactory(nic);
        nic.Set("MaxConnections", UintegerValue(1));
        f.SetHostDeviceFactory(0, nic);
        f.Install(topo);
        Ptr<OffloadNetDevice> client = DynamicCast<OffloadNetDevice>(f.GetHostDevices().Get(0));
        Ptr<TcpSocketEndpoint> ep = OffloadEndpoint(f);
        FinishLog done;
        done.Attach(ep);
        Simulator::Schedule(Seconds(0), &FlowEndpoint::StartFlow, ep, Flow(0, 0, 1, 100000));
        Simulator::Schedule(Seconds(0), &FlowEndpoint::StartFlow, ep, Flow(1, 0, 1, 100000));
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();
        nlohmann::json doc;
        ep->AddReport(doc);
        NS_TEST_EXPECT_MSG_EQ(client->GetRefusedConnections(), 1, "second connect refused");
        NS_TEST_EXPECT_MSG_EQ(done.sizes.size(), 1, "the first flow finished");
        NS_TEST_EXPECT_MSG_EQ(doc["tcp"]["connect_failures"].get<uint64_t>(),
                              1,
                              "the refused connect is reported as a failure");
        NS_TEST_EXPECT_MSG_EQ(ep->GetCorruptBytes() + ep->GetExcessBytes(), 0, "exact bytes");
        NS_TEST_EXPECT_MSG_EQ(ep->GetDeliveredBytes(), 100000, "first flow complete");
        ep->Dispose();
        Simulator::Destroy();
    }
};

/**
 * 6c. Ports and slots are recycled: one host opens 16500 short connections one after the
 * other, more than the 16384 ephemeral ports; every one delivers, and the slot table never
 * holds more than a handful.
 */
class PortReuseTestCase : public TestCase
{
  public:
    PortReuseTestCase()
        : TestCase("16500 sequential connections from one host: ephemeral ports are reused")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(1, 1, 2, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetHostDeviceFactory(PrestoFactory("1"));
        f.Install(topo);
        ConnectionLog client;
        client.Attach(f.GetHostDevices().Get(0));
        Ptr<TcpSocketEndpoint> ep = OffloadEndpoint(f);
        const uint32_t n = 16500;
        for (uint32_t i = 0; i < n; ++i)
        {
            Simulator::Schedule(MicroSeconds(10 * i),
                                &FlowEndpoint::StartFlow,
                                ep,
                                Flow(i, 0, 1, 100));
        }
        Simulator::Stop(MicroSeconds(10 * n) + MilliSeconds(5));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(ep->GetFlowsFinished(), n, "every connection delivered");
        NS_TEST_EXPECT_MSG_EQ(ep->GetDeliveredBytes(), 100ULL * n, "every byte");
        NS_TEST_EXPECT_MSG_EQ(ep->GetCorruptBytes() + ep->GetExcessBytes(), 0, "exact");
        NS_TEST_EXPECT_MSG_EQ(client.closed, n, "every client slot freed");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(client.maxOpen, 4, "slots recycled");
        ep->Dispose();
        Simulator::Destroy();
    }
};

/**
 * 7. Simultaneous open (RFC 9293 3.5): two hosts connect to each other's bound port at the
 * same time. The SYNs cross, each NIC goes from SYN-SENT to SYN-RECEIVED and answers with a
 * SYN-ACK, and both connections establish (no handshake drop) and carry data.
 */
class SimultaneousOpenTestCase : public TestCase
{
  public:
    SimultaneousOpenTestCase()
        : TestCase("simultaneous open: crossing SYNs establish both ends, data flows")
    {
    }

  private:
    static constexpr uint32_t BYTES = 20000; //!< sent by host 0 once connected

    void Connected(Ptr<Socket> s)
    {
        ++m_connected;
        if (s == m_a)
        {
            m_sent = s->Send(Create<Packet>(BYTES));
        }
    }

    void Failed(Ptr<Socket>)
    {
        ++m_failed;
    }

    void Received(Ptr<Socket> s)
    {
        while (Ptr<Packet> p = s->Recv())
        {
            m_received += p->GetSize();
        }
    }

    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(1, 1, 2, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetHostDeviceFactory(PrestoFactory("1"));
        f.Install(topo);
        ConnectionLog logA;
        ConnectionLog logB;
        logA.Attach(f.GetHostDevices().Get(0));
        logB.Attach(f.GetHostDevices().Get(1));
        m_a = Socket::CreateSocket(f.GetHosts().Get(0), OffloadSocketFactory::GetTypeId());
        m_b = Socket::CreateSocket(f.GetHosts().Get(1), OffloadSocketFactory::GetTypeId());
        NS_TEST_ASSERT_MSG_EQ(m_a->Bind(InetSocketAddress(Ipv4Address::GetAny(), 7000)), 0, "ok");
        NS_TEST_ASSERT_MSG_EQ(m_b->Bind(InetSocketAddress(Ipv4Address::GetAny(), 7001)), 0, "ok");
        for (Ptr<Socket> s : {m_a, m_b})
        {
            s->SetConnectCallback(MakeCallback(&SimultaneousOpenTestCase::Connected, this),
                                  MakeCallback(&SimultaneousOpenTestCase::Failed, this));
        }
        m_b->SetRecvCallback(MakeCallback(&SimultaneousOpenTestCase::Received, this));
        // both connect at the same time: each SYN reaches a NIC in SYN-SENT
        NS_TEST_ASSERT_MSG_EQ(m_a->Connect(InetSocketAddress(f.GetHostAddress(1), 7001)), 0, "ok");
        NS_TEST_ASSERT_MSG_EQ(m_b->Connect(InetSocketAddress(f.GetHostAddress(0), 7000)), 0, "ok");
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(m_connected, 2, "both ends connected");
        NS_TEST_EXPECT_MSG_EQ(m_failed, 0, "no end failed");
        NS_TEST_EXPECT_MSG_EQ(logA.established, 1, "host 0 established one connection");
        NS_TEST_EXPECT_MSG_EQ(logB.established, 1, "host 1 established one connection");
        NS_TEST_EXPECT_MSG_EQ(m_sent, BYTES, "host 0 could send");
        NS_TEST_EXPECT_MSG_EQ(m_received, BYTES, "host 1 received every byte");
        nlohmann::json nic = nlohmann::json::object();
        for (uint32_t h = 0; h < 2; ++h)
        {
            DynamicCast<OffloadNetDevice>(f.GetHostDevices().Get(h))->AddCounters(nic);
        }
        NS_TEST_EXPECT_MSG_EQ(nic.value("handshake_drops", uint64_t(1)), 0, "no handshake drop");
        NS_TEST_EXPECT_MSG_EQ(nic.value("handshake_failures", uint64_t(1)), 0, "no failure");
        m_a = nullptr;
        m_b = nullptr;
        Simulator::Destroy();
    }

    Ptr<Socket> m_a;         //!< host 0's socket
    Ptr<Socket> m_b;         //!< host 1's socket
    uint32_t m_connected{0}; //!< connect callbacks that succeeded
    uint32_t m_failed{0};    //!< connect callbacks that failed
    int m_sent{0};           //!< bytes host 0's Send accepted
    uint32_t m_received{0};  //!< bytes host 1 read
};

/**
 * Sender-side spraying (issue 12 item 4, the sender's half): the NIC labels each 64 KB cell of
 * a connection's stream with a path (PathLabels), the switches route by the label
 * (LoadBalancing=Label). A 1 MB flow over four spines with four labels uses every spine, each
 * for a quarter of its data (the receiver's ACKs keep one label); with one label it uses one
 * spine; every byte arrives once and in order.
 */
class SenderPathLabelsTestCase : public TestCase
{
  public:
    SenderPathLabelsTestCase()
        : TestCase("sender-side spraying: path labels per cell, switches route by them")
    {
    }

  private:
    void DoRun() override
    {
        for (uint32_t labels : {4u, 1u})
        {
            auto topo = FabricTopology::LeafSpine(2, 4, 2, 10e9, 40e9, 1000);
            FabricHelper f;
            f.SetSwitchAttribute("LoadBalancing", StringValue("Label"));
            ObjectFactory nic = PrestoFactory("1");
            nic.Set("PathLabels", UintegerValue(labels));
            f.SetHostDeviceFactory(nic);
            f.Install(topo);
            Ptr<TcpSocketEndpoint> ep = OffloadEndpoint(f);
            FinishLog done;
            done.Attach(ep);
            const uint64_t size = 1000000;
            Simulator::Schedule(Seconds(0), &FlowEndpoint::StartFlow, ep, Flow(0, 2, 0, size));
            Simulator::Stop(MilliSeconds(50));
            Simulator::Run();
            NS_TEST_ASSERT_MSG_EQ(done.sizes.size(), 1, "the flow finishes");
            NS_TEST_EXPECT_MSG_EQ(ep->GetCorruptBytes() + ep->GetExcessBytes(), 0, "exact");
            NS_TEST_EXPECT_MSG_EQ(ep->GetDeliveredBytes(), size, "every byte");
            // the spines: every switch that is not a host's edge
            const uint32_t leaf0 = EdgeOf(topo, 0);
            const uint32_t leaf1 = EdgeOf(topo, 2);
            std::vector<uint64_t> spines;
            uint64_t total = 0;
            for (uint32_t n = 0; n < topo.GetNNodes(); ++n)
            {
                Ptr<FabricSwitch> sw = f.GetNode(n)->GetObject<FabricSwitch>();
                if (sw && n != leaf0 && n != leaf1)
                {
                    spines.push_back(sw->GetForwarded());
                    total += sw->GetForwarded();
                }
            }
            NS_TEST_ASSERT_MSG_EQ(spines.size(), 4, "four spines");
            std::ostringstream os;
            uint32_t used = 0;
            for (uint64_t fw : spines)
            {
                os << fw << " ";
                used += fw > 0;
            }
            std::cout << "    " << labels << " label(s): packets per spine " << os.str()
                      << std::endl;
            if (labels == 1)
            {
                NS_TEST_EXPECT_MSG_EQ(used, 1, "one label, one path");
            }
            else
            {
                // 16 cells of data, 4 per spine; the receiver's ACKs stay in its stream's cell
                // 0, on one spine: the three others carry data only, a quarter each
                std::sort(spines.begin(), spines.end());
                const double data = (spines[0] + spines[1] + spines[2]) / 3.0;
                for (int i = 0; i < 3; ++i)
                {
                    NS_TEST_EXPECT_MSG_GT(spines[i], 0.8 * data, "a quarter of the cells");
                    NS_TEST_EXPECT_MSG_LT(spines[i], 1.2 * data, "a quarter of the cells");
                }
                NS_TEST_EXPECT_MSG_GT(spines[3], spines[2], "and the ACKs");
                NS_TEST_EXPECT_MSG_GT(3 * data, size / 1448 * 0.7, "most data packets there");
            }
            ep->Dispose();
            Simulator::Destroy();
        }
    }
};

/** The offload NIC (Presto execution model) on real simulations. */
class PrestoDeviceTestSuite : public TestSuite
{
  public:
    PrestoDeviceTestSuite()
        : TestSuite("presto-device", TestSuite::Type::SYSTEM)
    {
        for (const char* k : {"0", "1", "2", "4", "full"})
        {
            AddTestCase(new PrestoDeliveryTestCase(k, false), compat::TestDuration::QUICK);
            AddTestCase(new PrestoDeliveryTestCase(k, true), compat::TestDuration::QUICK);
        }
        AddTestCase(new LongFlowRateTestCase("1"), compat::TestDuration::QUICK);
        AddTestCase(new LongFlowRateTestCase("full"), compat::TestDuration::QUICK);
        AddTestCase(new DctcpQueueTestCase, compat::TestDuration::QUICK);
        AddTestCase(new InteropTestCase(true), compat::TestDuration::QUICK);
        AddTestCase(new InteropTestCase(false), compat::TestDuration::QUICK);
        ObjectFactory flextoe;
        flextoe.SetTypeId(FlexToeNetDevice::GetTypeId());
        AddTestCase(new InteropTestCase(true, flextoe, "FlexTOE"), compat::TestDuration::QUICK);
        AddTestCase(new InteropTestCase(false, flextoe, "FlexTOE"), compat::TestDuration::QUICK);
        AddTestCase(new WindowScaleInteropTestCase, compat::TestDuration::QUICK);
        AddTestCase(new BulkSendOverOffloadTestCase, compat::TestDuration::QUICK);
        AddTestCase(new CloseBeforeEstablishedTestCase, compat::TestDuration::QUICK);
        AddTestCase(new SocketByteCountTestCase(true), compat::TestDuration::QUICK);
        AddTestCase(new SocketByteCountTestCase(false), compat::TestDuration::QUICK);
        AddTestCase(new PcapTsharkTestCase, compat::TestDuration::QUICK);
        AddTestCase(new MaxConnectionsTestCase(6), compat::TestDuration::QUICK);
        AddTestCase(new MaxConnectionsTestCase(1), compat::TestDuration::QUICK);
        AddTestCase(new ClientTableFullTestCase, compat::TestDuration::QUICK);
        AddTestCase(new PortReuseTestCase, compat::TestDuration::QUICK);
        AddTestCase(new SimultaneousOpenTestCase, compat::TestDuration::QUICK);
        AddTestCase(new SenderPathLabelsTestCase, compat::TestDuration::QUICK);
    }
};

static PrestoDeviceTestSuite g_prestoDeviceTestSuite; //!< registers the suite
