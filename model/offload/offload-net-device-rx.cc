/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNetDevice's receive side: frames from the wire parsed and dispatched (to a
// connection, TIME-WAIT, a listener or the host stack), a connection's segment through the
// execution model and the data path, and the data path's decision applied (payload into
// host memory, the ACK, the application's notification).

#include "offload-net-device.h"
#include "offload-socket.h"

#include "ns3/fast-simulator.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadNetDeviceRx");

namespace
{
constexpr uint16_t IPV4 = 0x0800; //!< EtherType
/// Bytes of a received frame the parser needs without checksums: the longest IPv4 header
/// (60) and the longest TCP header (60).
constexpr uint32_t HEADER_BYTES = 120;
} // namespace

bool
OffloadNetDevice::FromWire(Ptr<NetDevice> device,
                           Ptr<const Packet> packet,
                           uint16_t protocol,
                           const Address& from)
{
    if (protocol == IPV4)
    {
        // The NIC parses the wire itself, bounds-checked: a malformed frame is dropped and
        // counted here, never handed to a parser that could throw, assert or allocate.
        const bool checksums = m_checksums;
        const uint32_t size = packet->GetSize();
        const uint32_t want = checksums ? size : std::min<uint32_t>(size, HEADER_BYTES);
        if (m_rxScratch.size() < want)
        {
            m_rxScratch.resize(want);
        }
        const uint32_t got = packet->CopyData(m_rxScratch.data(), want);
        WireSegment w;
        const WireError e = ParseWire(m_rxScratch.data(), got, size, checksums, w);
        if (e == WireError::NONE && TakeSegment(w, packet))
        {
            TraceWire(m_wireRxTrace, packet, w.src, w.dst, w.srcPort, w.dstPort);
            return true;
        }
        if (e != WireError::NONE && e != WireError::NOT_TCP && e != WireError::FRAGMENT)
        {
            // not a well-formed segment: a real NIC drops it and counts why
            ++m_counters.malformed[static_cast<size_t>(e)];
            m_dropTrace(NO_CONNECTION, w.seq, w.payloadLen, OffloadDropReason::MALFORMED);
            return true;
        }
    }
    return ToHostStack(packet, protocol);
}

bool
OffloadNetDevice::ToHostStack(Ptr<const Packet> packet, uint16_t protocol)
{
    if (m_hostIp < 0)
    {
        // looked up once, at the first such frame: stacks are installed before the run
        m_hostIp = GetNode() && GetNode()->GetObject<Ipv4>() ? 1 : 0;
    }
    if (m_hostRx.IsNull() || m_hostIp == 0)
    {
        // a NIC whose host has no IP stack (a script may install only the NIC): ns-3's Node
        // would discard the frame without a trace
        ++m_counters.noHostStackDrops;
        m_dropTrace(NO_CONNECTION, 0, packet->GetSize(), OffloadDropReason::NO_HOST_STACK);
        return false;
    }
    return m_hostRx(this, packet, protocol, GetPeerAddress());
}

void
OffloadNetDevice::ReceiveFromLink(uint32_t,
                                  const Ptr<Packet>& packet,
                                  uint16_t protocol,
                                  const Time&,
                                  FabricFrameFields& fields)
{
    if (fields.lazy && protocol == IPV4)
    {
        // headers as fields: what ParseWire would read from the bytes, without them (only
        // offload NICs make lazy headers, all of this type)
        const auto* h = static_cast<const OffloadLazyWireHeader*>(fields.lazy.Get());
        WireSegment w;
        WireFieldsAsParsed(h->GetFields(), fields.tos, w);
        if (TakeSegment(w, packet))
        {
            TraceWire(m_wireRxTrace, packet, w.src, w.dst, w.srcPort, w.dstPort);
        }
        else
        {
            ToHostStack(fields.Bytes(packet), protocol); // the host stack reads the bytes
        }
        return;
    }
    FromWire(this, packet, protocol, GetPeerAddress());
}

bool
OffloadNetDevice::TakeSegment(const WireSegment& w, Ptr<const Packet> packet)
{
    if (w.dst == LocalAddressBits())
    {
        // addresses as bits: Ipv4Address's constructor and Get are not inline
        const uint64_t key = OffloadControlPlane::Key(w.src, w.srcPort, w.dstPort);
        const uint32_t id = m_connections.Find(key);
        if (id != NO_CONNECTION)
        {
            HandleSegment(id, w, packet);
            return true;
        }
        auto l = m_listeners.find(w.dstPort);
        if (!(w.flags & TcpHeader::SYN))
        {
            OffloadControlSegment reAck;
            const OffloadTimeWaitVerdict tw =
                ControlPlane().OnTimeWaitSegment(key, w.flags, FastSimulator::NowNs(), reAck);
            if (tw == OffloadTimeWaitVerdict::RE_ACK)
            {
                SendControl(NO_CONNECTION, Ipv4Address(w.src), reAck);
            }
            if (tw != OffloadTimeWaitVerdict::NONE)
            {
                return true; // a late segment of a connection the NIC tore down
            }
        }
        if (l != m_listeners.end() && (w.flags & TcpHeader::SYN) && !(w.flags & TcpHeader::ACK))
        {
            PassiveOpen(Ipv4Address(w.src), w, l->second);
            return true;
        }
    }
    return false;
}

void
OffloadNetDevice::HandleSegment(uint32_t id, const WireSegment& th, Ptr<const Packet> frame)
{
    NS_LOG_FUNCTION(this << id << th.seq << th.ack << th.payloadLen << unsigned(th.flags));
    OffloadConnectionState& c = m_connections[id];
    // an established connection's segments need no configuration: skip rebuilding it (three
    // Time conversions) on the per-segment path
    const OffloadHandshakeRx rx = c.hs.state == OffloadCpState::ESTABLISHED
                                      ? m_cp.OnSegment(c.hs, th)
                                      : ControlPlane().OnSegment(c.hs, th);
    switch (rx.verdict)
    {
    case OffloadHandshakeVerdict::DATA_PATH:
        break;
    case OffloadHandshakeVerdict::DROP:
        HandshakeDrop(id, th);
        return;
    case OffloadHandshakeVerdict::RST_IGNORED:
        ++m_counters.handshakeRstIgnored;
        m_dropTrace(id, th.seq, 0, OffloadDropReason::UNACCEPTABLE);
        return;
    case OffloadHandshakeVerdict::RESET:
        HandshakeReset(id);
        return;
    case OffloadHandshakeVerdict::SEND_SYN_ACK:
        // simultaneous open: the SYN-ACK leaves after the control plane's work on the host,
        // as for a passive open, and then runs its own retransmission timer. If our SYN has
        // not left yet (no timer armed), its pending first transmission sends the SYN-ACK.
        if (compat::IsPending(c.synTimer))
        {
            Simulator::Cancel(c.synTimer);
            m_counters.cpCycles += m_controlCycles;
            ++m_counters.cpEvents;
            c.synTimer = Simulator::Schedule(ControlPlaneDelay(id),
                                             &OffloadNetDevice::SendHandshake,
                                             this,
                                             id,
                                             m_connections.Generation(id));
        }
        return;
    case OffloadHandshakeVerdict::ESTABLISHED:
        if (!CompleteHandshake(id, rx))
        {
            return;
        }
        break; // data on the handshake's last segment: on to the data path
    }
    const uint8_t flags = th.flags;
    const bool ce = th.ecn == Ipv4Header::ECN_CE;
    OffloadSegment seg;
    seg.seq = th.seq;
    seg.ack = th.ack;
    seg.window = uint32_t(th.window) << c.hs.peerShift;
    seg.payloadLen = th.payloadLen;
    seg.flags = flags;
    seg.ce = ce;
    // sender-side spraying: the path label the sender wrote into the identification
    seg.pathLabel = m_pathLabels > 0 ? static_cast<uint16_t>(th.ipId % m_pathLabels) : 0;
    Time admitted(0);
    if (!AdmitReceived(id, seg, admitted))
    {
        ++m_counters.nicRxDrops; // e.g. a full NIC queue: the peer's retransmission repairs it
        NS_LOG_LOGIC(this << " connection " << id << ": NIC refused segment " << seg.seq);
        m_dropTrace(id, seg.seq, seg.payloadLen, OffloadDropReason::NIC_RX);
        return;
    }
    OffloadRxDecision d = c.tcp->OnSegment(seg, FastSimulator::NowNs());
    if (c.socket && c.socket->IsTraced())
    {
        // the socket's trace sources, only once one has a sink (OffloadSocket::IsTraced)
        c.socket->TraceRx(seg, th.window);
        c.socket->SyncTraces(*c.tcp);
    }
    if (d.unacceptable)
    {
        // counted by the data path under its rule (rst_ignored, invalid_acks, ...)
        m_dropTrace(id, seg.seq, seg.payloadLen, OffloadDropReason::UNACCEPTABLE);
    }
    else if (seg.payloadLen > 0)
    {
        m_segmentTrace(id, d.verdict, seg.seq, seg.payloadLen);
    }
    Time latency = admitted + ProcessReceived(id, seg, d);
    ApplyDecision(id, d, frame, th.payloadOffset, seg, latency);
}

void
OffloadNetDevice::ApplyDecision(uint32_t id,
                                const OffloadRxDecision& d,
                                Ptr<const Packet> frame,
                                uint32_t payloadOffset,
                                const OffloadSegment& seg,
                                Time latency)
{
    OffloadConnectionState& c = m_connections[id];
    const Time clock = FastSimulator::Now();
    int64_t now = FastSimulator::ToNs(clock + latency);
    int64_t inPlace = now;
    if (d.writeLen > 0)
    {
        // payload straight to its place in the host receive buffer (also out of order)
        if (c.rxRing)
        {
            std::vector<uint8_t> buf(d.writeLen);
            Ptr<Packet> part =
                frame->CreateFragment(payloadOffset + (d.writeSeq - seg.seq), d.writeLen);
            part->CopyData(buf.data(), d.writeLen);
            bool ok = c.rxRing->Write(d.writeSeq, buf.data(), d.writeLen);
            NS_ASSERT_MSG(ok, "receive ring overflow: the data path accepted beyond the window");
        }
        if (!m_dma[DMA_RX])
        {
            inPlace = c.dma.Transfer(now, d.writeLen);
        }
        ++m_counters.dmaTransfers;
    }
    // the host hears of bytes (or the FIN) only once everything before is in place: a
    // segment without payload needs no DMA, but must not overtake the data before it
    inPlace = std::max(inPlace, c.rxInPlaceNs);
    c.rxInPlaceNs = inPlace;
    const bool notify = d.delivered > 0 || d.peerClosed;
    const bool viaChannel =
        m_dma[DMA_RX] && (d.writeLen > 0 || (notify && c.dmaPending[DMA_RX] > 0));
    if (viaChannel)
    {
        // the payload crosses the shared interface in its application's channel; the host
        // hears of in-order bytes (or the FIN) when they are in place, behind earlier ones
        const uint32_t delivered = d.delivered;
        const bool peerClosed = d.peerClosed;
        c.notifying += notify ? 1 : 0;
        SubmitDma(id,
                  DMA_RX,
                  d.writeLen,
                  latency,
                  [this, id, notify, delivered, peerClosed](bool alive) {
                      if (alive && notify)
                      {
                          MakeReadable(id, delivered, peerClosed, m_connections.Generation(id));
                      }
                  });
    }
    if (d.sendAck)
    {
        if (latency.IsZero())
        {
            SendSegment(id, d.ackSegment, nullptr);
        }
        else
        {
            OffloadDeviceEvent e;
            e.kind = OffloadDeviceEventKind::SEND_SEGMENT;
            e.id = id;
            e.generation = m_connections.Generation(id);
            e.seg = d.ackSegment;
            ScheduleDeviceEvent(latency, std::move(e));
        }
    }
    if (d.ackedBytes > 0)
    {
        if (c.txRing)
        {
            c.txRing->Advance(d.ackedBytes);
        }
        if (c.socket)
        {
            c.socket->SpaceFreed(c.tcp->GetTxFree() - c.txPosting);
        }
    }
    if (notify && !viaChannel)
    {
        ++c.notifying;
        OffloadDeviceEvent e;
        e.kind = OffloadDeviceEventKind::MAKE_READABLE;
        e.id = id;
        e.generation = m_connections.Generation(id);
        e.bytes = d.delivered;
        e.flag = d.peerClosed;
        ScheduleDeviceEvent(FastSimulator::FromNs(inPlace) - clock, std::move(e));
    }
    if (d.reset)
    {
        ++m_counters.resets;
        Ptr<OffloadSocket> s = c.socket;
        FreeConnection(id);
        if (s)
        {
            s->Reset();
        }
        return;
    }
    QueueForTransmit(id); // ACKs may have opened the window, go-back-N may have rewound
    if (d.finAcked)
    {
        MaybeFinish(id);
    }
}

void
OffloadNetDevice::DeliverReadable(uint32_t id, uint32_t bytes, bool peerClosed, uint32_t generation)
{
    if (m_connections.Generation(id) != generation)
    {
        return; // the connection is gone
    }
    OffloadConnectionState& c = m_connections[id];
    --c.notifying;
    if (peerClosed && c.notifying > 0)
    {
        ++m_counters.finBeforeData; // the host hears of the FIN before bytes ahead of it (a bug)
    }
    c.rxReadable += bytes;
    if (c.socket && bytes > 0)
    {
        c.socket->DataArrived();
        ++m_counters.notifications;
    }
    if (peerClosed && m_connections.Generation(id) == generation && !c.peerClosedSeen)
    {
        c.peerClosedSeen = true;
        if (c.socket)
        {
            c.socket->PeerClosed();
        }
        MaybeFinish(id);
    }
}

void
OffloadNetDevice::MaybeFinish(uint32_t id)
{
    OffloadConnectionState& c = m_connections[id];
    if (c.tcp && OffloadControlPlane::ShouldTearDown(c.hs, c.tcp->IsFinAcked(), c.peerClosedSeen))
    {
        FreeConnection(id);
    }
}

} // namespace ns3
