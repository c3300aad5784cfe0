/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNetDevice's transmit side: which connection sends next and whether the NIC may
// commit another segment towards the wire (backpressure), a segment's way through the
// execution model in its connection's order, its frame built (headers, path label) and
// handed to the device queue or the backlog in front of it.

#include "offload-net-device.h"
#include "offload-socket.h"

#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadNetDeviceTx");

namespace
{
constexpr uint16_t IPV4 = 0x0800; //!< EtherType
} // namespace

void
OffloadNetDevice::QueueForTransmit(uint32_t id)
{
    OffloadConnectionState& c = m_connections[id];
    if (c.tcp && c.tcp->NeedsTimers())
    {
        AddTimed(id); // something to send or in flight: the timer scan watches it
    }
    if (c.tcp)
    {
        m_txScheduler.MarkReady(id);
    }
    PumpTx();
}

void
OffloadNetDevice::PumpTx()
{
    if (!m_txScheduler.HasReady())
    {
        // nothing to send (most calls: every ACK and event that may have made a connection
        // ready ends here): the loop below would stop at its first test
        ArmRefill();
        return;
    }
    const Time clock = FastSimulator::Now(); // read once: the loop runs per segment
    const uint64_t now = FastSimulator::NowNs();
    // Segments still inside the NIC (fetching payload, crossing the execution model's
    // pipeline) are bounded separately from those queued at the wire, so that a pipeline
    // with latency can be kept full without letting the wire queue grow.
    // What the NIC has committed towards the wire (in flight inside it, or in the device
    // queue) is bounded in wire time, so that it covers the NIC's latency at line rate
    // without queueing more than that in front of the wire, and in packets, so that small
    // segments never overflow the device queue.
    size_t passedOver = 0; // ready connections in a row whose DMA channel is full
    for (;;)
    {
        const auto [queuedPackets, queuedBytes] = GetQueued(clock);
        if (!m_txScheduler.MayCommit(queuedPackets, queuedBytes))
        {
            break;
        }
        uint32_t id = m_txScheduler.Current();
        OffloadConnectionState& c = m_connections[id];
        if (m_dma[DMA_TX] && DmaChannelFull(c.dmaChannel))
        {
            // its application's channel holds its share of the NIC: the other applications
            // go on (the channel's next segment leaving the NIC calls PumpTx again)
            if (++passedOver >= m_txScheduler.GetReadyCount())
            {
                break;
            }
            m_txScheduler.Advance();
            continue;
        }
        passedOver = 0;
        std::optional<OffloadTxSegment> tx;
        if (c.tcp)
        {
            tx = c.tcp->NextSegment(now);
        }
        if (!tx && c.tcp && c.tcp->GetNextSendTimeNs() > now && !compat::IsPending(c.paceWake))
        {
            // paced: nothing may leave before the next send time; come back then
            c.paceWake = Simulator::Schedule(NanoSeconds(c.tcp->GetNextSendTimeNs() - now),
                                             &OffloadNetDevice::QueueForTransmit,
                                             this,
                                             id);
        }
        if (!tx)
        {
            m_txScheduler.DropCurrent();
            continue;
        }
        if (c.socket && c.socket->IsTraced())
        {
            // the socket's trace sources, only once one has a sink (OffloadSocket::IsTraced)
            if (tx->retransmission)
            {
                c.socket->TraceRetransmission(tx->seg);
            }
            c.socket->SyncTraces(*c.tcp);
        }
        Ptr<Packet> payload;
        const OffloadSegment& seg = tx->seg;
        int64_t wire = now;
        if (seg.payloadLen > 0)
        {
            if (c.txRing)
            {
                std::vector<uint8_t> buf(seg.payloadLen);
                bool ok = c.txRing->Read(seg.seq, buf.data(), seg.payloadLen);
                NS_ASSERT_MSG(ok, "data path asked for bytes outside the send buffer");
                payload = Create<Packet>(buf.data(), seg.payloadLen);
            }
            // else a virtual payload: no packet until the segment is sent (SendIpv4 makes it
            // with its headers, from seg.payloadLen)
            if (!m_dma[DMA_TX])
            {
                wire = c.dma.Transfer(now, seg.payloadLen); // payload fetched from host memory
            }
            ++m_counters.dmaTransfers;
        }
        bool nicDrop = false;
        Time delay = FastSimulator::FromNs(wire - int64_t(now)) + ProcessTransmit(id, seg, nicDrop);
        if (nicDrop)
        {
            ++m_counters.nicTxDrops; // lost inside the NIC: the data path's recovery resends it
            NS_LOG_LOGIC(this << " connection " << id << ": NIC dropped segment " << seg.seq);
            m_dropTrace(id, seg.seq, seg.payloadLen, OffloadDropReason::NIC_TX);
            m_txScheduler.Advance();
            continue;
        }
        if (m_dma[DMA_TX] && (seg.payloadLen > 0 || c.dmaPending[DMA_TX] > 0))
        {
            SendThroughDmaChannel(id, seg, payload, delay);
        }
        else
        {
            SendInOrder(id, seg, payload, clock, delay);
        }
        m_txScheduler.Advance(); // round robin among connections
    }
    ArmRefill();
}

Ptr<Packet>
OffloadNetDevice::MovePacket(Ptr<Packet>& holder)
{
    Ptr<Packet> p = holder;
    holder = nullptr;
    return p;
}

void
OffloadNetDevice::SendInOrder(uint32_t id,
                              const OffloadSegment& seg,
                              Ptr<Packet>& payload,
                              Time clock,
                              Time delay)
{
    // A segment without payload (a lone FIN, a window probe) needs no DMA and would
    // otherwise overtake the connection's data segments still waiting for theirs: the
    // peer would see the FIN before the last data, ignore it and wait for our RTO.
    // Segments of one connection reach the wire in the order the data path produced them.
    OffloadConnectionState& c = m_connections[id];
    const Time at = std::max(clock + delay, c.txLast);
    c.txLast = at;
    delay = at - clock;
    if (delay.IsZero())
    {
        SendSegment(id, seg, MovePacket(payload));
        return;
    }
    const uint32_t wireBytes = seg.payloadLen + WIRE_HEADER_BYTES;
    m_txScheduler.EnterNic(wireBytes);
    OffloadDeviceEvent e;
    e.kind = OffloadDeviceEventKind::LEAVE_NIC;
    e.id = id;
    e.generation = m_connections.Generation(id);
    e.bytes = wireBytes;
    e.seg = seg;
    e.payload = MovePacket(payload);
    ScheduleDeviceEvent(delay, std::move(e));
}

void
OffloadNetDevice::RunDeviceEvent(OffloadDeviceEvent& e)
{
    switch (e.kind)
    {
    case OffloadDeviceEventKind::SEND_SEGMENT:
        if (m_connections.Generation(e.id) == e.generation)
        {
            // an ACK of a connection torn down during the NIC's latency is not sent: its slot
            // no longer holds its ports and peer (TIME-WAIT answers a re-sent FIN)
            SendSegment(e.id, e.seg, MovePacket(e.payload));
        }
        return;
    case OffloadDeviceEventKind::LEAVE_NIC:
        m_txScheduler.LeaveNic(e.bytes);
        if (m_connections.Generation(e.id) == e.generation)
        {
            SendSegment(e.id, e.seg, MovePacket(e.payload));
        }
        PumpTx();
        return;
    case OffloadDeviceEventKind::MAKE_READABLE:
        MakeReadable(e.id, e.bytes, e.flag, e.generation);
        return;
    case OffloadDeviceEventKind::REFILL:
        RefillWireQueue();
        return;
    case OffloadDeviceEventKind::HOST_READABLE:
        DeliverReadable(e.id, e.bytes, e.flag, e.generation);
        return;
    case OffloadDeviceEventKind::HOST_POSTED:
        if (m_connections.Generation(e.id) == e.generation)
        {
            PostWrite(e.id, e.bytes);
        }
        return;
    case OffloadDeviceEventKind::HOST_CLOSE:
        if (m_connections.Generation(e.id) == e.generation)
        {
            PostClose(e.id);
        }
        return;
    }
}

void
OffloadNetDevice::ArmRefill()
{
    Time delay;
    if ((!m_txBacklog.empty() || m_txScheduler.HasReady()) && !m_refillPending &&
        GetNextDeparture(delay))
    {
        ScheduleDeviceEvent(delay, OffloadDeviceEvent{});
        m_refillPending = true;
    }
}

void
OffloadNetDevice::TxDone(Ptr<const Packet>)
{
    // PhyTxEnd fires inside PointToPointNetDevice::TransmitComplete, which then starts the
    // next queued frame itself: a frame sent from here would start a second transmission on
    // the busy wire (ns-3 with asserts stops: "Must be READY to transmit"). Refill after it
    // returned, at the same time, as ns-3's NetDeviceQueue defers its wake-up.
    if ((!m_txBacklog.empty() || m_txScheduler.HasReady()) && !m_refillPending)
    {
        ScheduleDeviceEvent(Time(0), OffloadDeviceEvent{}); // a refill, as ScheduleNow
        m_refillPending = true;
    }
}

void
OffloadNetDevice::RefillWireQueue()
{
    m_refillPending = false;
    DrainBacklog();
    if (m_txScheduler.HasReady())
    {
        PumpTx();
    }
    ArmRefill();
}

void
OffloadNetDevice::SendSegment(uint32_t id, const OffloadSegment& seg, Ptr<Packet> payload)
{
    NS_LOG_FUNCTION(this << id << seg.seq << seg.ack << seg.payloadLen << unsigned(seg.flags));
    const OffloadConnectionState& c = m_connections[id];
    // A payload nobody else holds gets the headers in place; a shared one (an event or
    // closure still holding it) is copied, so that no holder sees the headers appear.
    Ptr<Packet> p = !payload                            ? nullptr // headers only
                    : payload->GetReferenceCount() == 1 ? payload
                                                        : payload->Copy();
    WireSegmentOut w;
    w.srcPort = c.localPort;
    w.dstPort = c.peerPort;
    w.seq = seg.seq;
    w.ack = seg.ack;
    w.flags = seg.flags;
    w.window = static_cast<uint16_t>(std::min<uint32_t>(seg.window >> c.hs.ourShift, 65535));
    w.sackBlocks = seg.sackBlocks;
    for (uint32_t i = 0; i < seg.sackBlocks && i < OffloadSegment::MAX_SACK_BLOCKS; ++i)
    {
        w.sack[i][0] = seg.sack[i].first;
        w.sack[i][1] = seg.sack[i].second;
    }
    // ECT(0) on data only (RFC 3168 6.1.4: not on pure ACKs or retransmitted SYNs)
    w.ect = c.hs.ecn && seg.payloadLen > 0;
    w.payloadLen = seg.payloadLen; // the payload's bytes when p is null: virtual
    if (c.socket && c.socket->IsTraced())
    {
        // the socket's Tx trace, only once it has a sink; a copy: the headers go into p
        c.socket->TraceTx(seg, w.window, p ? p->Copy() : nullptr);
    }
    SendIpv4(p, w, c.peerBits, id);
}

void
OffloadNetDevice::SendControl(uint32_t id, Ipv4Address peer, const OffloadControlSegment& seg)
{
    WireSegmentOut w;
    w.srcPort = id != NO_CONNECTION ? m_connections[id].localPort : seg.localPort;
    w.dstPort = id != NO_CONNECTION ? m_connections[id].peerPort : seg.peerPort;
    w.seq = seg.seq;
    w.ack = seg.ack;
    w.flags = seg.flags;
    w.window = seg.window;
    w.windowScale = seg.windowScale;
    w.shift = seg.shift;
    w.sackPermitted = seg.sackPermitted;
    SendIpv4(nullptr, w, peer.Get(), id);
}

void
OffloadNetDevice::SendIpv4(Ptr<Packet> p, WireSegmentOut& w, uint32_t peer, uint32_t id)
{
    w.src = LocalAddressBits();
    w.dst = peer;
    if (m_pathLabels > 0 && id != NO_CONNECTION)
    {
        // sender-side spraying: the path of the stream's cell this segment belongs to (the
        // handshake, before the stream, is cell 0)
        const uint32_t offset = w.seq - (m_connections[id].hs.iss + 1);
        const uint32_t cell = offset < (1u << 31) ? offset / m_pathCellBytes : 0;
        w.ipId = static_cast<uint16_t>((id + cell) % m_pathLabels);
    }
    else
    {
        w.ipId = m_ipId++;
    }
    if (p)
    {
        w.payloadLen = p->GetSize();
    }
    if (!m_metadataKnown)
    {
        m_metadata = PacketMetadataEnabled();
        m_metadataKnown = true;
    }
    if (!p && !m_metadata && !m_checksums && m_lazyHeaders && IsFast())
    {
        // headers as fields: the frame is a zero placeholder of the right size, its header
        // written only if someone reads the bytes (a trace, a switch policy, a host stack).
        // Not on a point-to-point link, which would write every one at once.
        p = Create<Packet>(WireHeaderLength(w) + w.payloadLen);
        FabricFrameFields fields{w.dst, WireTos(w), true};
        fields.lazy = FabricLazyHeaderRef(new OffloadLazyWireHeader(w));
        ToWire(p, id, w, std::move(fields));
        return;
    }
    if (!p && w.payloadLen == 0 && !m_metadata && !m_checksums)
    {
        // a segment without payload is its headers: the packet is made from their bytes at
        // once (the bytes AddHeader would write, without an empty packet and a header object
        // first)
        uint8_t bytes[WIRE_MAX_HEADER_BYTES];
        p = Create<Packet>(bytes, BuildWire(w, bytes));
    }
    else
    {
        if (!p)
        {
            p = Create<Packet>(w.payloadLen); // a virtual payload: zero-filled, nothing stored
        }
        if (m_metadata)
        {
            AddNs3WireHeaders(p, w, m_checksums);
        }
        else
        {
            p->AddHeader(OffloadWireHeader(w, m_checksums));
        }
    }
    ToWire(p, id, w, FabricFrameFields{w.dst, WireTos(w), true});
}

void
OffloadNetDevice::ToWire(Ptr<Packet> p,
                         uint32_t id,
                         const WireSegmentOut& w,
                         FabricFrameFields fields)
{
    TraceWire(m_wireTxTrace, p, w.src, w.dst, w.srcPort, w.dstPort);
    // A segment waits behind those already waiting (the NIC never reorders its output), and
    // waits when the device queue is full: ACKs and handshake segments are sent beside the
    // data the transmit admission bounds, and a burst of handshakes (thousands of
    // connections opening) would otherwise be lost to the host's own queue.
    if (m_txBacklog.empty() && QueueHasRoom(p))
    {
        FabricLinkNetDevice::SendAt(p, m_wireDest, IPV4, FastSimulator::Now(), std::move(fields));
        return;
    }
    if (!IsLinkUp() || m_txBacklog.size() >= m_txBacklogPackets)
    {
        ++m_counters.wireDrops;
        m_dropTrace(id, w.seq, w.payloadLen, OffloadDropReason::WIRE_QUEUE);
        TraceWire(m_wireTxDropTrace, p, w.src, w.dst, w.srcPort, w.dstPort);
        return;
    }
    m_txBacklog.emplace_back(p, std::move(fields));
    m_counters.txBacklogMax = std::max<uint64_t>(m_counters.txBacklogMax, m_txBacklog.size());
    ArmRefill();
}

bool
OffloadNetDevice::QueueHasRoom(Ptr<const Packet> p)
{
    return HasRoomFor(p->GetSize(), FastSimulator::Now());
}

void
OffloadNetDevice::DrainBacklog()
{
    while (!m_txBacklog.empty() && QueueHasRoom(m_txBacklog.front().first))
    {
        auto& [p, fields] = m_txBacklog.front();
        FabricLinkNetDevice::SendAt(p, m_wireDest, IPV4, FastSimulator::Now(), std::move(fields));
        m_txBacklog.pop_front();
    }
}

} // namespace ns3
