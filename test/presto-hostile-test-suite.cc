/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Hostile segments against a live transfer: blind injection (RFC 5961) and malformed frames
// sent by a third host on the fabric, for every NIC design.

#include "ns3/boolean.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-switch.h"
#include "ns3/fabric-topology.h"
#include "ns3/global-value.h"
#include "ns3/ipv4-header.h"
#include "ns3/node.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-nic-helper.h"
#include "ns3/offload-socket.h"
#include "ns3/offload-tcp-connection.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/spray-experiment.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-endpoint.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

/// One victim connection as the attacker would have to guess it: seen from one NIC.
struct Victim
{
    Ptr<OffloadNetDevice> nic;                //!< the NIC that receives the injected segments
    Ipv4Address local;                        //!< its address (the injected segments' destination)
    Ipv4Address peer;                         //!< the address the injections pretend to come from
    uint16_t localPort{0};                    //!< destination port
    uint16_t peerPort{0};                     //!< source port
    const OffloadTcpConnection* tcp{nullptr}; //!< its data path, read for rcv_next, snd_una
};

/// The victim connection of nic towards peer, or tcp == nullptr when there is none (yet).
Victim
FindVictim(Ptr<OffloadNetDevice> nic, Ipv4Address local, Ipv4Address peer)
{
    Victim v;
    v.nic = nic;
    v.local = local;
    v.peer = peer;
    for (uint32_t slot = 0; slot < 256; ++slot)
    {
        const OffloadTcpConnection* tcp = nic->FindConnection(slot);
        if (!tcp)
        {
            continue;
        }
        Ipv4Address a;
        nic->GetEndpoints(slot, a, v.localPort, v.peerPort);
        if (a == peer)
        {
            v.tcp = tcp;
            return v;
        }
    }
    return v;
}

/// The plain point-to-point device of a host on ns-3's TCP: the attacker's wire.
Ptr<PointToPointNetDevice>
PlainDevice(Ptr<Node> node)
{
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        Ptr<PointToPointNetDevice> d = DynamicCast<PointToPointNetDevice>(node->GetDevice(i));
        if (d && !DynamicCast<OffloadNetDevice>(d))
        {
            return d;
        }
    }
    return nullptr;
}

/**
 * A well-formed IPv4/TCP segment from peer to local (checksums filled in when ns-3's
 * ChecksumEnabled is on, as a real attacker would).
 */
Ptr<Packet>
MakeSegment(const Victim& v, uint32_t seq, uint32_t ack, uint8_t flags, uint32_t payload)
{
    std::vector<uint8_t> bytes(payload, 0xa5); // never the endpoints' payload pattern
    Ptr<Packet> p = Create<Packet>(bytes.data(), payload);
    TcpHeader tcp;
    tcp.SetSourcePort(v.peerPort);
    tcp.SetDestinationPort(v.localPort);
    tcp.SetSequenceNumber(SequenceNumber32(seq));
    tcp.SetAckNumber(SequenceNumber32(ack));
    tcp.SetFlags(flags);
    tcp.SetWindowSize(65535);
    if (Node::ChecksumEnabled())
    {
        tcp.EnableChecksums();
        tcp.InitializeChecksum(v.peer, v.local, 6);
    }
    p->AddHeader(tcp);
    Ipv4Header ip;
    ip.SetSource(v.peer);
    ip.SetDestination(v.local);
    ip.SetProtocol(6);
    ip.SetTtl(64);
    ip.SetPayloadSize(p->GetSize());
    if (Node::ChecksumEnabled())
    {
        ip.EnableChecksum();
    }
    p->AddHeader(ip);
    return p;
}

/// The kinds of blind injection, each refused by one rule.
enum Kind : uint8_t
{
    RST_IN_WINDOW,   //!< RST inside the window, not at rcv_next: challenge ACK
    RST_OUT_WINDOW,  //!< RST outside the window: ignored
    SYN,             //!< SYN on the established connection: challenge ACK
    ACK_AHEAD,       //!< data in the window acknowledging data never sent
    ACK_TOO_OLD,     //!< data in the window with an ack 2^30 and more behind
    NO_ACK,          //!< data in the window without the ACK flag
    DATA_OUT_WINDOW, //!< data with a plausible ack, 2^20 and more beyond the window
    KINDS
};

const char* const KIND_NAMES[KINDS] = {"rst in window",
                                       "rst out of window",
                                       "syn",
                                       "ack ahead",
                                       "ack too old",
                                       "no ack",
                                       "data out of window"};

/// Data-path counters of a NIC, summed over its connections.
OffloadTcpCounters
Totals(Ptr<OffloadNetDevice> nic)
{
    return nic->GetTotals();
}

/// A live transfer between two NICs of one design, across the spines.
struct Transfer
{
    FabricHelper fabric;
    Ptr<TcpSocketEndpoint> endpoint;
    Ptr<OffloadNetDevice> sender;        //!< host 0's NIC
    Ptr<OffloadNetDevice> receiver;      //!< host 2's NIC
    Ptr<PointToPointNetDevice> attacker; //!< host 1's plain device (ns-3's TCP host)
    bool finished{false};

    /// Build hosts 0 and 2 with design, hosts 1 and 3 on ns-3's TCP; start flow 0 -> 2.
    void Build(const std::string& design, uint64_t bytes)
    {
        auto topo = FabricTopology::LeafSpine(2, 2, 2, 10e9, 40e9, 1000);
        fabric.SetSwitchAttribute("LoadBalancing", StringValue("Spray"));
        for (uint32_t h : {0u, 2u})
        {
            fabric.SetHostDeviceFactory(
                h,
                SprayExperiment::DeviceFactory(design,
                                               SprayExperiment::CongestionTypeId(design, "dctcp")));
        }
        fabric.Install(topo);
        std::vector<Ipv4Address> addresses;
        for (uint32_t h = 0; h < fabric.GetHosts().GetN(); ++h)
        {
            addresses.push_back(fabric.GetHostAddress(h));
        }
        endpoint = CreateObject<TcpSocketEndpoint>();
        endpoint->SetAttribute("SocketFactory", TypeIdValue(OffloadSocketFactory::GetTypeId()));
        endpoint->SetAttribute("Name", StringValue("hostile"));
        endpoint->Install(fabric.GetHosts(), addresses);
        endpoint->SetFlowFinishedCallback(
            MakeCallback(+[](bool* done, uint32_t) { *done = true; }).Bind(&finished));
        sender = DynamicCast<OffloadNetDevice>(fabric.GetHostDevices().Get(0));
        receiver = DynamicCast<OffloadNetDevice>(fabric.GetHostDevices().Get(2));
        attacker = PlainDevice(fabric.GetHosts().Get(1));
        FlowSpec spec;
        spec.id = 0;
        spec.src = 0;
        spec.dst = 2;
        spec.sizeBytes = bytes;
        spec.dport = 100;
        Simulator::Schedule(MicroSeconds(1), &FlowEndpoint::StartFlow, endpoint, spec);
    }
};

} // namespace

/**
 * What both hostile cases share: the delivery check of the victim transfer.
 */
class HostileTestCase : public TestCase
{
  public:
    using TestCase::TestCase;

  protected:
    /**
     * Check that the victim flow arrived whole, once, unaltered.
     * \param t the transfer \param bytes its size \param where the design, for messages
     */
    void CheckDelivery(const Transfer& t, uint64_t bytes, const std::string& where)
    {
        NS_TEST_EXPECT_MSG_EQ(t.finished, true, where << ": the flow finishes");
        NS_TEST_EXPECT_MSG_EQ(t.endpoint->GetDeliveredBytes(), bytes, where << ": every byte");
        NS_TEST_EXPECT_MSG_EQ(t.endpoint->GetCorruptBytes(), 0, where << ": no corrupt byte");
        NS_TEST_EXPECT_MSG_EQ(t.endpoint->GetExcessBytes(), 0, where << ": no byte twice");
    }

    /**
     * Check that the fabric dropped nothing (the accounting of the injected segments assumes
     * every one reached its NIC).
     * \param t the transfer
     */
    void CheckNoFabricDrop(const Transfer& t)
    {
        uint64_t drops = 0;
        for (const Ptr<FabricSwitch>& sw : t.fabric.GetSwitchObjects())
        {
            drops += sw->GetDroppedBufferFull();
        }
        NS_TEST_EXPECT_MSG_EQ(drops, 0, "no switch buffer drop");
    }
};

/**
 * Blind injection (RFC 5961): a third host on the fabric spoofs the sender's and the
 * receiver's addresses and ports and sends RSTs, SYNs and data with wrong acks into both ends
 * of a live 16 MB transfer. It knows the ports (they are visible on the wire) but guesses the
 * sequence numbers, as an off-path attacker does. The transfer must arrive byte-exact, no
 * connection may be reset, and every injected segment must be accounted for by exactly the
 * counter of the rule that refused it and by a Drop trace.
 */
class BlindInjectionTestCase : public HostileTestCase
{
  public:
    /** \param design "presto", "flextoe" or "cora" */
    explicit BlindInjectionTestCase(const std::string& design)
        : HostileTestCase(design + ": blind RST, SYN and data injection into a live transfer"),
          m_design(design)
    {
    }

  private:
    static constexpr uint64_t BYTES = 16000000;   //!< the victim transfer
    static constexpr uint32_t INJECTIONS = 10000; //!< segments sent by the attacker

    void DoRun() override
    {
        Transfer t;
        t.Build(m_design, BYTES);
        m_rng = CreateObject<UniformRandomVariable>();
        m_rng->SetStream(42);
        m_t = &t;
        uint64_t unacceptableTraced = 0;
        uint64_t handshakeTraced = 0;
        uint64_t nicRxDrops = 0;
        auto count = +[](uint64_t* u,
                         uint64_t* h,
                         uint64_t* x,
                         uint32_t,
                         uint32_t,
                         uint32_t,
                         OffloadDropReason r) {
            *u += r == OffloadDropReason::UNACCEPTABLE;
            *h += r == OffloadDropReason::HANDSHAKE;
            *x += r == OffloadDropReason::NIC_RX;
        };
        for (Ptr<OffloadNetDevice> nic : {t.sender, t.receiver})
        {
            // one argument per Bind: ns-3.35's Callback::Bind takes one
            nic->TraceConnectWithoutContext("Drop",
                                            MakeCallback(count)
                                                .Bind(&unacceptableTraced)
                                                .Bind(&handshakeTraced)
                                                .Bind(&nicRxDrops));
        }
        // one injection every microsecond once the transfer is under way (10 ms of attack,
        // the transfer takes about 13 ms): a fraction of a gigabit, no switch queue overflows
        Simulator::Schedule(MicroSeconds(300), &BlindInjectionTestCase::Inject, this);
        Simulator::Stop(Seconds(0.5));
        Simulator::Run();

        std::cout << "    " << m_design << ": sent " << m_sent << " injections;";
        for (int k = 0; k < KINDS; ++k)
        {
            std::cout << " " << KIND_NAMES[k] << " " << m_count[0][k] + m_count[1][k];
        }
        std::cout << std::endl;
        CheckDelivery(t, BYTES, m_design);
        NS_TEST_EXPECT_MSG_EQ(m_sent, INJECTIONS, "the attack ran before the transfer ended");
        CheckNoFabricDrop(t);
        NS_TEST_EXPECT_MSG_EQ(nicRxDrops, 0, "no injected segment refused for NIC capacity");

        uint64_t unacceptable = 0;
        const Ptr<OffloadNetDevice> nics[2] = {t.sender, t.receiver};
        for (int side = 0; side < 2; ++side)
        {
            const OffloadTcpCounters c = Totals(nics[side]);
            const auto& n = m_count[side];
            const std::string who = side == 0 ? "sender" : "receiver";
            std::cout << "    " << who << ": rst_challenged " << c.rstChallenged << " rst_ignored "
                      << c.rstIgnored << " syn_challenged " << c.synChallenged << " invalid_acks "
                      << c.invalidAcks << " ack_too_old " << c.ackTooOld << " no_ack_drops "
                      << c.noAckDrops << " window_drops " << c.windowDrops << " challenge_acks "
                      << c.challengeAcks << " suppressed " << c.challengeAcksSuppressed
                      << std::endl;
            NS_TEST_EXPECT_MSG_EQ(c.resets, 0, who << ": no reset accepted");
            NS_TEST_EXPECT_MSG_EQ(c.rstChallenged, n[RST_IN_WINDOW], who);
            NS_TEST_EXPECT_MSG_EQ(c.rstIgnored, n[RST_OUT_WINDOW], who);
            NS_TEST_EXPECT_MSG_EQ(c.synChallenged, n[SYN], who);
            NS_TEST_EXPECT_MSG_EQ(c.invalidAcks, n[ACK_AHEAD], who);
            NS_TEST_EXPECT_MSG_EQ(c.ackTooOld, n[ACK_TOO_OLD], who);
            NS_TEST_EXPECT_MSG_EQ(c.noAckDrops, n[NO_ACK], who);
            // fabric reordering gives the receiver no window drops of its own: all are ours
            NS_TEST_EXPECT_MSG_EQ(c.windowDrops, n[DATA_OUT_WINDOW], who);
            NS_TEST_EXPECT_MSG_EQ(c.challengeAcks + c.challengeAcksSuppressed,
                                  n[RST_IN_WINDOW] + n[SYN] + n[ACK_AHEAD] + n[ACK_TOO_OLD],
                                  who << ": every challenge sent or rate-limited");
            NS_TEST_EXPECT_MSG_GT(c.challengeAcksSuppressed, 0, who << ": the rate limit acted");
            for (int k = 0; k < KINDS; ++k)
            {
                NS_TEST_EXPECT_MSG_GT(n[k], 0, who << " got some " << KIND_NAMES[k]);
                unacceptable += k == DATA_OUT_WINDOW ? 0 : n[k];
            }
        }
        NS_TEST_EXPECT_MSG_EQ(unacceptableTraced, unacceptable, "each refusal traced as a drop");
        NS_TEST_EXPECT_MSG_EQ(handshakeTraced, 0, "no handshake drop");
        Simulator::Destroy();
    }

    /// Send one injected segment and schedule the next.
    void Inject()
    {
        if (m_sent == INJECTIONS || m_t->finished)
        {
            return;
        }
        const int side = m_sent % 2; // alternately into the sender's and the receiver's NIC
        Transfer& t = *m_t;
        const Victim v =
            side == 0
                ? FindVictim(t.sender, t.fabric.GetHostAddress(0), t.fabric.GetHostAddress(2))
                : FindVictim(t.receiver, t.fabric.GetHostAddress(2), t.fabric.GetHostAddress(0));
        if (!v.tcp)
        {
            Simulator::Schedule(MicroSeconds(1), &BlindInjectionTestCase::Inject, this);
            return;
        }
        auto kind = static_cast<Kind>(m_rng->GetInteger(0, KINDS - 1));
        const uint32_t rcvNext = v.tcp->GetRcvNext();
        const uint32_t window = v.tcp->GetAdvertisedWindow();
        // The right edge of the window only moves forward; rcv_next moves on by at most what
        // waits ahead of the injected segment in the switch queue (DCTCP keeps that near the
        // marking threshold, tens of KB). So a sequence number in the upper half of today's
        // window is inside the window and not rcv_next on arrival. A window too small for
        // that (the application is behind) gets an out-of-window RST instead.
        const uint32_t margin = window / 2;
        if (kind == RST_IN_WINDOW && window < 256 * 1024)
        {
            kind = RST_OUT_WINDOW;
        }
        const uint32_t inWindow = rcvNext + margin + m_rng->GetInteger(0, window - margin - 1);
        const uint32_t far = m_rng->GetInteger(1u << 20, 1u << 29);
        const uint32_t ack = v.tcp->GetSndUna();
        Ptr<Packet> p;
        switch (kind)
        {
        case RST_IN_WINDOW:
            p = MakeSegment(v, inWindow, 0, TcpHeader::RST, 0);
            break;
        case RST_OUT_WINDOW:
            p = MakeSegment(v,
                            m_rng->GetInteger(0, 1) ? rcvNext + window + far : rcvNext - far,
                            0,
                            TcpHeader::RST,
                            0);
            break;
        case SYN:
            p = MakeSegment(v, m_rng->GetInteger(0, 0xfffffffe), 0, TcpHeader::SYN, 0);
            break;
        case ACK_AHEAD:
            p = MakeSegment(v,
                            inWindow,
                            v.tcp->GetSndMax() + (1u << 30) + far,
                            TcpHeader::ACK,
                            100);
            break;
        case ACK_TOO_OLD:
            p = MakeSegment(v, inWindow, ack - (1u << 30) - far, TcpHeader::ACK, 100);
            break;
        case NO_ACK:
            p = MakeSegment(v, inWindow, 0, TcpHeader::PSH, 100);
            break;
        case DATA_OUT_WINDOW:
            p = MakeSegment(v, rcvNext + window + far, ack, TcpHeader::ACK, 100);
            break;
        default:
            break;
        }
        t.attacker->Send(p, t.attacker->GetBroadcast(), 0x0800);
        ++m_count[side][kind];
        ++m_sent;
        Simulator::Schedule(MicroSeconds(1), &BlindInjectionTestCase::Inject, this);
    }

    std::string m_design;
    Transfer* m_t{nullptr};
    Ptr<UniformRandomVariable> m_rng;
    uint32_t m_sent{0};
    std::array<std::array<uint64_t, KINDS>, 2> m_count{}; //!< [side][kind] injected
};

/**
 * Malformed frames into the NIC's receive path during a live transfer: segments addressed to
 * the victim connection (so they reach the NIC's parser, not the switch's no-route drop) with
 * random bytes of the IPv4 and TCP headers overwritten, random lengths, truncated, or with
 * options garbled, or every header byte random. Checksums are on, as for a real NIC. The transfer
 * must arrive byte-exact, no connection may be reset, and the NIC's drop counters must account for
 * the frames.
 */
class MalformedSegmentTestCase : public HostileTestCase
{
  public:
    /** \param design "presto", "flextoe" or "cora" \param frames frames to send */
    MalformedSegmentTestCase(const std::string& design, uint32_t frames)
        : HostileTestCase(design + ": " + std::to_string(frames) +
                          " malformed frames into the receive path of a live transfer"),
          m_design(design),
          m_frames(frames)
    {
    }

  private:
    /// The victim transfer: long enough to outlast the frames, sent 2 us apart
    uint64_t Bytes() const
    {
        return std::max<uint64_t>(16000000, uint64_t(m_frames) * 3000);
    }

    void DoSetup() override
    {
        BooleanValue was;
        GlobalValue::GetValueByName("ChecksumEnabled", was);
        m_checksumsWere = was.Get();
        GlobalValue::Bind("ChecksumEnabled", BooleanValue(true));
    }

    void DoTeardown() override
    {
        GlobalValue::Bind("ChecksumEnabled", BooleanValue(m_checksumsWere));
    }

    void DoRun() override
    {
        Transfer t;
        t.Build(m_design, Bytes());
        m_t = &t;
        m_rng = CreateObject<UniformRandomVariable>();
        m_rng->SetStream(43);
        uint64_t traced = 0;
        t.receiver->TraceConnectWithoutContext(
            "Drop",
            MakeCallback(+[](uint64_t* n, uint32_t, uint32_t, uint32_t, OffloadDropReason) {
                ++*n;
            }).Bind(&traced));
        Simulator::Schedule(MicroSeconds(300), &MalformedSegmentTestCase::Send, this);
        Simulator::Stop(Seconds(1) + MicroSeconds(2) * m_frames);
        Simulator::Run();

        nlohmann::json nic = nlohmann::json::object();
        t.receiver->AddCounters(nic);
        const OffloadTcpCounters c = Totals(t.receiver);
        std::cout << "    " << m_design << ": " << m_sent << " frames; malformed "
                  << nic.value("malformed", nlohmann::json::object()).dump() << "; refused "
                  << c.rstChallenged + c.rstIgnored + c.synChallenged + c.invalidAcks +
                         c.ackTooOld + c.noAckDrops
                  << "; window drops " << c.windowDrops << "; traced drops " << traced << std::endl;
        CheckDelivery(t, Bytes(), m_design);
        NS_TEST_EXPECT_MSG_EQ(m_sent, m_frames, "the frames went out before the transfer ended");
        NS_TEST_EXPECT_MSG_EQ(c.resets, 0, "no reset accepted");
        const uint64_t malformed = nic.value("malformed_drops", uint64_t(0));
        NS_TEST_EXPECT_MSG_GT(malformed, m_frames / 2, "most frames are malformed drops");
        NS_TEST_EXPECT_MSG_GT(nic.value("malformed", nlohmann::json::object()).size(),
                              4,
                              "several reasons seen");
        Simulator::Destroy();
    }

    /// Send one mutated frame and schedule the next.
    void Send()
    {
        if (m_sent == m_frames || m_t->finished)
        {
            return;
        }
        Transfer& t = *m_t;
        const Victim v =
            FindVictim(t.receiver, t.fabric.GetHostAddress(2), t.fabric.GetHostAddress(0));
        if (!v.tcp)
        {
            Simulator::Schedule(MicroSeconds(2), &MalformedSegmentTestCase::Send, this);
            return;
        }
        // a segment far outside the window with an impossible ack: if a mutation happens to
        // leave it well-formed, the acceptability rules still refuse it
        const uint32_t rcvNext = v.tcp->GetRcvNext();
        Ptr<Packet> p = MakeSegment(v,
                                    rcvNext + (1u << 31),
                                    v.tcp->GetSndMax() + (1u << 31),
                                    TcpHeader::ACK,
                                    m_rng->GetInteger(0, 64));
        std::vector<uint8_t> bytes(p->GetSize());
        p->CopyData(bytes.data(), bytes.size());
        switch (m_rng->GetInteger(0, 4))
        {
        case 0: // overwrite 1-4 header bytes (IPv4 at 0..19, TCP at 20..39)
            for (uint32_t i = m_rng->GetInteger(1, 4); i > 0; --i)
            {
                bytes[m_rng->GetInteger(0, 39)] = m_rng->GetInteger(0, 255);
            }
            break;
        case 1: // truncate anywhere
            bytes.resize(m_rng->GetInteger(20, bytes.size() - 1));
            break;
        case 2: // a wrong IPv4 total length or TCP data offset
            if (m_rng->GetInteger(0, 1))
            {
                const uint16_t len = m_rng->GetInteger(0, 65535);
                bytes[2] = len >> 8;
                bytes[3] = len & 0xff;
            }
            else
            {
                bytes[32] = (m_rng->GetInteger(0, 15) << 4) | (bytes[32] & 0x0f);
            }
            break;
        case 3: // random: every header byte drawn (routing fields are set again below)
            for (uint32_t i = 0; i < 40; ++i)
            {
                bytes[i] = m_rng->GetInteger(0, 255);
            }
            break;
        default: // garbled options: a longer header whose option bytes are random
            bytes.insert(bytes.begin() + 40, 20, 0);
            for (uint32_t i = 40; i < 60; ++i)
            {
                bytes[i] = m_rng->GetInteger(0, 255);
            }
            bytes[32] = (10 << 4) | (bytes[32] & 0x0f);
            bytes[2] = (bytes.size() >> 8) & 0xff;
            bytes[3] = bytes.size() & 0xff;
            break;
        }
        // keep it routable to the victim (version, header length >= 5, destination)
        bytes[0] = 0x40 | std::max<uint8_t>(bytes[0] & 0x0f, 5);
        uint32_t dst = t.fabric.GetHostAddress(2).Get();
        for (int i = 0; i < 4; ++i)
        {
            bytes[16 + i] = (dst >> (24 - 8 * i)) & 0xff;
        }
        bytes[9] = 6; // TCP: other protocols go to the host's IP stack, not this parser
        t.attacker->Send(Create<Packet>(bytes.data(), bytes.size()),
                         t.attacker->GetBroadcast(),
                         0x0800);
        ++m_sent;
        Simulator::Schedule(MicroSeconds(2), &MalformedSegmentTestCase::Send, this);
    }

    std::string m_design;
    uint32_t m_frames;
    bool m_checksumsWere{false};
    Transfer* m_t{nullptr};
    Ptr<UniformRandomVariable> m_rng;
    uint32_t m_sent{0};
};

/**
 * A connection slot freed and reused within the control plane's delay: a SYN opens a
 * half-open connection, an acceptable RST frees its slot before the SYN-ACK has left, and a
 * second SYN (another source port) takes the same slot. The first SYN's pending handshake
 * event must not act on the new connection: the new one's SYN-ACKs follow the normal backoff
 * (initial timeout, doubling) and it gives up after the normal number of tries. The attacker's
 * device keeps the SYN-ACKs from its own stack, which would answer them with RSTs.
 */
class SlotReuseHandshakeTestCase : public HostileTestCase
{
  public:
    /** \param design "presto", "flextoe" or "cora" */
    explicit SlotReuseHandshakeTestCase(const std::string& design)
        : HostileTestCase(design + ": a slot reused within the control-plane delay"),
          m_design(design)
    {
    }

  private:
    static constexpr uint16_t FIRST_PORT = 5000;  //!< the SYN that is reset
    static constexpr uint16_t SECOND_PORT = 5001; //!< the SYN on the reused slot

    void DoRun() override
    {
        Transfer t;
        t.Build(m_design, 1000); // opens the listener on host 2, port 100, and finishes
        Victim v;
        v.nic = t.receiver;
        v.local = t.fabric.GetHostAddress(2);
        v.peer = t.fabric.GetHostAddress(1); // the attacker's own address: replies come back
        v.localPort = 100;
        v.peerPort = FIRST_PORT;
        t.attacker->SetReceiveCallback(MakeCallback(&SlotReuseHandshakeTestCase::Receive, this));
        const uint32_t isn = 1000000;
        const Time start = MilliSeconds(5); // the 1,000-byte flow is over: its slot is free
        m_attacker = t.attacker;
        Simulator::Schedule(start,
                            &SlotReuseHandshakeTestCase::Send,
                            this,
                            MakeSegment(v, isn, 0, TcpHeader::SYN, 0));
        // acceptable in SYN-RECEIVED: exactly at the peer's next sequence number
        Simulator::Schedule(start + NanoSeconds(500),
                            &SlotReuseHandshakeTestCase::Send,
                            this,
                            MakeSegment(v, isn + 1, 0, TcpHeader::RST, 0));
        v.peerPort = SECOND_PORT;
        Simulator::Schedule(start + NanoSeconds(1000),
                            &SlotReuseHandshakeTestCase::Send,
                            this,
                            MakeSegment(v, isn + 7, 0, TcpHeader::SYN, 0));
        Simulator::Stop(Seconds(0.5));
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(t.finished, true, m_design << ": the listener's flow finished");
        NS_TEST_EXPECT_MSG_EQ(m_synAcks[0].size(), 0, "the reset connection sent no SYN-ACK");
        const std::vector<Time>& got = m_synAcks[1];
        std::cout << "    " << m_design << ": SYN-ACKs at";
        for (const Time& at : got)
        {
            std::cout << " " << (at - start).GetMicroSeconds() << " us";
        }
        std::cout << std::endl;
        // the first transmission and five retransmissions, 2 ms doubling (ns-3's and the
        // control plane's defaults), then the connection gives up
        NS_TEST_ASSERT_MSG_EQ(got.size(), 6, "one SYN-ACK and five retransmissions");
        Time gap = MilliSeconds(2);
        for (size_t i = 1; i < got.size(); ++i)
        {
            const Time d = got[i] - got[i - 1];
            NS_TEST_EXPECT_MSG_EQ_TOL(d.GetMicroSeconds(),
                                      gap.GetMicroSeconds(),
                                      5,
                                      "retransmission " << i << " after the backoff");
            gap = gap * 2;
        }
        NS_TEST_EXPECT_MSG_LT(got[0] - start, MilliSeconds(1), "the first SYN-ACK is prompt");
        nlohmann::json nic = nlohmann::json::object();
        t.receiver->AddCounters(nic);
        // the reset connection and the one that gave up, each once
        NS_TEST_EXPECT_MSG_EQ(nic.value("handshake_failures", 0), 2, "two failed handshakes");
        Simulator::Destroy();
    }

    /// \param p a segment the attacker sends
    void Send(Ptr<Packet> p)
    {
        m_attacker->Send(p, m_attacker->GetBroadcast(), 0x0800);
    }

    /// The attacker's device receive callback: record SYN-ACKs by destination port.
    bool Receive(Ptr<NetDevice>, Ptr<const Packet> packet, uint16_t, const Address&)
    {
        Ptr<Packet> p = packet->Copy();
        Ipv4Header ip;
        p->RemoveHeader(ip);
        TcpHeader tcp;
        p->RemoveHeader(tcp);
        const uint8_t synAck = TcpHeader::SYN | TcpHeader::ACK;
        if ((tcp.GetFlags() & synAck) == synAck)
        {
            const uint16_t port = tcp.GetDestinationPort();
            if (port == FIRST_PORT || port == SECOND_PORT)
            {
                m_synAcks[port - FIRST_PORT].push_back(Simulator::Now());
            }
        }
        return true;
    }

    std::string m_design;
    Ptr<PointToPointNetDevice> m_attacker;      //!< host 1's plain device
    std::array<std::vector<Time>, 2> m_synAcks; //!< SYN-ACK arrival times by source port
};

/**
 * Frames for the host on an offload NIC whose node has no IP stack (a script that installs
 * only the NIC, through OffloadNicHelper): UDP datagrams no connection takes are dropped,
 * counted in nic.no_host_stack_drops and traced as Drop (NO_HOST_STACK), one for one. Before,
 * ns-3's Node discarded them without a trace.
 */
class NoHostStackTestCase : public HostileTestCase
{
  public:
    /** \param design "presto", "flextoe" or "cora" */
    explicit NoHostStackTestCase(const std::string& design)
        : HostileTestCase(design + ": frames for a host without a stack are counted drops"),
          m_design(design)
    {
    }

  private:
    static constexpr uint32_t DATAGRAMS = 25; //!< UDP datagrams sent to the NIC

    void DoRun() override
    {
        NodeContainer nodes;
        nodes.Create(2);
        OffloadNicHelper helper;
        helper.SetDeviceType(
            SprayExperiment::DeviceFactory(m_design,
                                           SprayExperiment::CongestionTypeId(m_design, "dctcp"))
                .GetTypeId()
                .GetName());
        helper.SetDeviceAttribute("DataRate", DataRateValue(DataRate("10Gbps"))); // both ends
        NetDeviceContainer d = helper.Install(nodes.Get(0), nodes.Get(1));
        Ptr<OffloadNetDevice> nic = DynamicCast<OffloadNetDevice>(d.Get(0));
        m_peer = DynamicCast<PointToPointNetDevice>(d.Get(1));
        uint64_t traced = 0;
        nic->TraceConnectWithoutContext(
            "Drop",
            MakeCallback(+[](uint64_t* n, uint32_t, uint32_t, uint32_t, OffloadDropReason r) {
                *n += r == OffloadDropReason::NO_HOST_STACK;
            }).Bind(&traced));
        for (uint32_t i = 0; i < DATAGRAMS; ++i)
        {
            Simulator::Schedule(MicroSeconds(10 + i), &NoHostStackTestCase::SendDatagram, this);
        }
        Simulator::Stop(MilliSeconds(1));
        Simulator::Run();
        nlohmann::json counters = nlohmann::json::object();
        nic->AddCounters(counters);
        NS_TEST_EXPECT_MSG_EQ(counters.value("no_host_stack_drops", uint64_t{0}),
                              DATAGRAMS,
                              m_design << ": every datagram counted");
        NS_TEST_EXPECT_MSG_EQ(traced, DATAGRAMS, m_design << ": every datagram traced");
        Simulator::Destroy();
    }

    /// Send one 100-byte UDP datagram from the peer to the NIC's host.
    void SendDatagram()
    {
        Ptr<Packet> p = Create<Packet>(100);
        Ipv4Header ip;
        ip.SetSource(Ipv4Address("10.0.0.2"));
        ip.SetDestination(Ipv4Address("10.0.0.1"));
        ip.SetProtocol(17);
        ip.SetTtl(64);
        ip.SetPayloadSize(p->GetSize());
        ip.EnableChecksum();
        p->AddHeader(ip);
        m_peer->Send(p, m_peer->GetBroadcast(), 0x0800);
    }

    std::string m_design;
    Ptr<PointToPointNetDevice> m_peer; //!< the plain device at the link's other end
};

/**
 * One forged data segment at exactly the receive point, with the acknowledgment the real
 * sender would carry: by TCP's rules (RFC 793, 5961; Linux does the same) it is acceptable,
 * so the receiver takes its bytes in place of the sender's, and the real bytes of that range
 * arrive as duplicates: the stream is shifted and the transfer never completes. With
 * checksums off (ns-3's default, ChecksumEnabled) a forgery whose checksum is wrong is taken
 * as well; with checksums on it is dropped as malformed and the transfer survives. Either way
 * nothing passes silently: the forged bytes are corrupt bytes of the delivery check, and a run
 * with the unfinished flow ends "incomplete" (exit 3).
 */
class ForgedAtReceivePointTestCase : public HostileTestCase
{
  public:
    /**
     * \param design "presto", "flextoe" or "cora"
     * \param checksums ChecksumEnabled for the run (the forgery's checksum is wrong)
     */
    ForgedAtReceivePointTestCase(const std::string& design, bool checksums)
        : HostileTestCase(design + ": a forged segment at rcv_next, checksums " +
                          (checksums ? "on" : "off")),
          m_design(design),
          m_checksums(checksums)
    {
    }

  private:
    static constexpr uint64_t BYTES = 4000000; //!< the victim transfer
    static constexpr uint32_t FORGED = 1000;   //!< payload bytes of the forged segment

    void DoSetup() override
    {
        BooleanValue was;
        GlobalValue::GetValueByName("ChecksumEnabled", was);
        m_checksumsWere = was.Get();
        GlobalValue::Bind("ChecksumEnabled", BooleanValue(m_checksums));
    }

    void DoTeardown() override
    {
        GlobalValue::Bind("ChecksumEnabled", BooleanValue(m_checksumsWere));
    }

    void DoRun() override
    {
        Transfer t;
        t.Build(m_design, BYTES);
        m_t = &t;
        Simulator::Schedule(MicroSeconds(300), &ForgedAtReceivePointTestCase::Inject, this);
        Simulator::Stop(Seconds(0.3));
        Simulator::Run();
        nlohmann::json rx = nlohmann::json::object();
        t.receiver->AddCounters(rx);
        const OffloadTcpCounters tx = Totals(t.sender);
        std::cout << "    " << m_design << " checksums " << m_checksums << ": injected "
                  << m_injected << ", finished " << t.finished << ", delivered "
                  << t.endpoint->GetDeliveredBytes() << ", corrupt "
                  << t.endpoint->GetCorruptBytes() << ", sender invalid_acks " << tx.invalidAcks
                  << ", receiver malformed_drops " << rx.value("malformed_drops", uint64_t{0})
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ(m_injected, true, "the forgery was sent during the transfer");
        if (m_checksums)
        {
            CheckDelivery(t, BYTES, m_design);
            NS_TEST_EXPECT_MSG_EQ(rx.value("malformed_drops", uint64_t{0}),
                                  1,
                                  "the forgery dropped for its checksum");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ(t.finished, false, "the transfer stalls");
            NS_TEST_EXPECT_MSG_GT(t.endpoint->GetCorruptBytes(),
                                  FORGED / 2,
                                  "the forged bytes are seen as corrupt");
        }
        Simulator::Destroy();
    }

    /// Send the forgery: from the sender's address at the sender's next sequence number (the
    /// receive point once the data in flight has arrived), its checksum made wrong.
    void Inject()
    {
        Transfer& t = *m_t;
        const Victim rx =
            FindVictim(t.receiver, t.fabric.GetHostAddress(2), t.fabric.GetHostAddress(0));
        const Victim tx =
            FindVictim(t.sender, t.fabric.GetHostAddress(0), t.fabric.GetHostAddress(2));
        if (!rx.tcp || !tx.tcp)
        {
            Simulator::Schedule(MicroSeconds(1), &ForgedAtReceivePointTestCase::Inject, this);
            return;
        }
        Ptr<Packet> p =
            MakeSegment(rx, tx.tcp->GetSndMax(), rx.tcp->GetSndUna(), TcpHeader::ACK, FORGED);
        std::vector<uint8_t> bytes(p->GetSize());
        p->CopyData(bytes.data(), bytes.size());
        bytes.back() ^= 0xff; // a payload byte changed after the checksum
        t.attacker->Send(Create<Packet>(bytes.data(), bytes.size()),
                         t.attacker->GetBroadcast(),
                         0x0800);
        m_injected = true;
    }

    std::string m_design;
    bool m_checksums;
    bool m_checksumsWere{false};
    bool m_injected{false};
    Transfer* m_t{nullptr};
};

/**
 * \ingroup presto
 * \brief Hostile segments: blind injection and malformed frames against live transfers.
 */
class PrestoHostileTestSuite : public TestSuite
{
  public:
    PrestoHostileTestSuite()
        : TestSuite("presto-hostile", TestSuite::Type::SYSTEM)
    {
        // test/fuzz-segments-long.sh sets PRESTO_HOSTILE_FRAMES for its long run
        const char* env = std::getenv("PRESTO_HOSTILE_FRAMES");
        const uint32_t frames = env ? std::strtoul(env, nullptr, 10) : 4000;
        for (const char* design : {"presto", "flextoe", "cora"})
        {
            AddTestCase(new BlindInjectionTestCase(design), compat::TestDuration::QUICK);
            AddTestCase(new MalformedSegmentTestCase(design, frames), compat::TestDuration::QUICK);
            AddTestCase(new SlotReuseHandshakeTestCase(design), compat::TestDuration::QUICK);
            AddTestCase(new NoHostStackTestCase(design), compat::TestDuration::QUICK);
            for (bool checksums : {false, true})
            {
                AddTestCase(new ForgedAtReceivePointTestCase(design, checksums),
                            compat::TestDuration::QUICK);
            }
        }
    }
};

/// The suite's instance.
static PrestoHostileTestSuite g_prestoHostileTestSuite;
