/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNetDevice's connection life cycle: an entry in the connection table, the
// handshake through the host control plane (OffloadControlPlane decides, this file keeps
// the timers and the wire around it), the data path once established, and the teardown.

#include "offload-net-device.h"
#include "offload-socket.h"

#include "ns3/fast-simulator.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadNetDeviceConnections");

uint32_t
OffloadNetDevice::AllocateConnection()
{
    if (m_connections.IsFull(m_maxConnections) || !ReserveConnectionSlot())
    {
        ++m_counters.refused;
        m_refusedTrace(NO_CONNECTION);
        return NO_CONNECTION;
    }
    // The table models fixed NIC state arrays of MaxConnections entries; memory is only
    // taken for connections in use.
    return m_connections.Allocate(m_maxConnections);
}

void
OffloadNetDevice::FreeConnection(uint32_t id)
{
    OffloadConnectionState& c = m_connections[id];
    NS_LOG_FUNCTION(this << id);
    if (c.tcp)
    {
        m_counters.finished += c.tcp->GetCounters(); // fold into the device totals
        OnConnectionClosed(id);
    }
    const uint64_t key = ConnectionKey(c.peer, c.peerPort, c.localPort);
    m_connections.Unbind(key);
    Simulator::Cancel(c.synTimer);
    if (c.tcp)
    {
        // only a connection that was established has a last ACK the peer may be missing
        ControlPlane().EnterTimeWait(key,
                                     FastSimulator::NowNs(),
                                     c.tcp->GetSndMax(),
                                     c.tcp->GetRcvNext(),
                                     c.localPort,
                                     c.peerPort);
    }
    if (c.ownsPort)
    {
        // the client's (ephemeral) port returns to the pool: without this a host runs out of
        // ports after 16384 connections it opened
        m_cp.ReleasePort(c.localPort);
    }
    if (c.socket)
    {
        c.socket->Finished();
    }
    m_connections.Release(id); // off the lists, its state reset, its generation bumped
    ReleaseConnectionSlot();
    m_counters.cpCycles += m_controlCycles; // teardown on the host control plane
    ++m_counters.cpEvents;
    ControlPlaneDelay(id); // nothing waits for it, but it occupies a host core
    m_closedTrace(id);
}

void
OffloadNetDevice::SendHandshake(uint32_t id, uint32_t generation)
{
    if (m_connections.Generation(id) != generation)
    {
        // the first transmission's event of a connection that is gone (reset or refused
        // within the control plane's delay): the slot may hold a new connection by now,
        // whose own handshake runs its own timer
        return;
    }
    OffloadConnectionState& c = m_connections[id];
    const OffloadHandshakeTx tx = ControlPlane().NextHandshake(c.hs);
    if (tx.giveUp)
    {
        ++m_counters.handshakeFailures;
        Ptr<OffloadSocket> s = c.socket;
        c.socket = nullptr;
        FreeConnection(id);
        if (s)
        {
            s->Failed();
        }
        return;
    }
    if (!tx.send)
    {
        return;
    }
    SendControl(id, c.peer, tx.segment);
    c.synTimer = Simulator::Schedule(NanoSeconds(tx.timerNs),
                                     &OffloadNetDevice::SendHandshake,
                                     this,
                                     id,
                                     generation);
}

void
OffloadNetDevice::PassiveOpen(Ipv4Address peer, const WireSegment& th, Ptr<OffloadSocket> listener)
{
    CheckDmaChannel(listener->GetDmaChannel(), "accepting a connection");
    uint32_t id = AllocateConnection();
    if (id == NO_CONNECTION)
    {
        return; // refused and counted; the peer's SYN times out
    }
    OffloadConnectionState& c = m_connections[id];
    c.peer = peer;
    c.peerBits = peer.Get();
    c.localPort = th.dstPort;
    c.peerPort = th.srcPort;
    c.listener = listener;
    c.dmaChannel = listener->GetDmaChannel(); // the listening application's channel
    c.mss = listener->GetMss();
    c.sndBuf = listener->GetSndBufSize();
    c.rcvBuf = listener->GetRcvBufSize();
    c.initialCwnd = listener->GetInitialCwndSegments();
    c.dma = OffloadDmaChannel(m_dmaLatency.GetNanoSeconds(), m_dmaBandwidthBps);
    ControlPlane().PassiveOpen(c.hs,
                               th,
                               OffloadControlPlane::InitialSequence(GetLocalAddress().Get(),
                                                                    peer.Get(),
                                                                    c.localPort,
                                                                    c.peerPort),
                               c.rcvBuf);
    m_connections.Bind(ConnectionKey(peer, c.peerPort, c.localPort), id);
    m_counters.cpCycles += m_controlCycles;
    ++m_counters.cpEvents;
    Simulator::Schedule(ControlPlaneDelay(id),
                        &OffloadNetDevice::SendHandshake,
                        this,
                        id,
                        m_connections.Generation(id));
}

void
OffloadNetDevice::Establish(uint32_t id, uint32_t peerWindowBytes)
{
    OffloadConnectionState& c = m_connections[id];
    Simulator::Cancel(c.synTimer);
    OffloadTcpConfig cfg;
    cfg.mss = c.mss;
    // Host memory for RxBufferMultiple x RcvBufSize, at most RcvBufSize announced: data not
    // yet read by the application does not shrink the window below what the peer's
    // (equal-sized) send buffer can fill, as Linux doubles SO_RCVBUF.
    cfg.rxWindowLimit = c.rcvBuf;
    cfg.rxBufferSize = static_cast<uint32_t>(
        std::min<uint64_t>(uint64_t(c.rcvBuf) * m_rxBufferMultiple, ReassemblyTracker::MAX_WINDOW));
    cfg.txBufferSize = c.sndBuf;
    cfg.initialCwndSegments = c.initialCwnd;
    cfg.minRtoNs = m_minRto.GetNanoSeconds();
    cfg.initialRtoNs = std::max<uint64_t>(cfg.minRtoNs, cfg.initialRtoNs);
    cfg.challengeAckIntervalNs = m_challengeAckInterval.GetNanoSeconds();
    cfg.windowShift = c.hs.ourShift;
    cfg.sack = c.hs.sack;
    ConfigureConnection(cfg, c.peer, c.localPort, c.peerPort, c.hs.activeOpen);
    Setup();
    OffloadCongestionContext ctx;
    ctx.mss = cfg.mss;
    ctx.initialCwndSegments = cfg.initialCwndSegments;
    ctx.rttInitNs = cfg.controlRttInitNs;
    ctx.lineRateBytesPerS = m_lineRateBytesPerS;
    ctx.connId = id;
    ctx.maxConnections = m_maxConnections;
    c.tcp = std::make_unique<OffloadTcpConnection>(cfg,
                                                   c.hs.iss,
                                                   c.hs.irs,
                                                   peerWindowBytes,
                                                   m_congestion->Fork(ctx));
    if (m_carryPayload)
    {
        c.txRing = std::make_unique<OffloadByteRing>(c.sndBuf, c.hs.iss + 1);
        c.rxRing = std::make_unique<OffloadByteRing>(cfg.rxBufferSize, c.hs.irs + 1);
    }
    c.txTail = c.hs.iss + 1;
    ++m_counters.established;
    OnEstablished(id, *c.tcp);
    m_establishedTrace(id);
}

bool
OffloadNetDevice::CompleteHandshake(uint32_t id, const OffloadHandshakeRx& rx)
{
    OffloadConnectionState& c = m_connections[id];
    Establish(id, rx.peerWindowBytes);
    if (rx.sendAck)
    {
        SendSegment(id, c.tcp->MakeAck(false), nullptr); // the handshake's third segment
    }
    if (!c.listener)
    {
        // an active open (the SYN-ACK of our SYN, or a simultaneous open)
        if (c.appClosed)
        {
            // the application closed during the handshake: Close() found no data path
            // yet, so the FIN is queued now (else the slot would never be freed)
            c.tcp->AppClose();
            OnApplicationPosted(id);
            QueueForTransmit(id);
        }
        m_counters.cpCycles += m_controlCycles;
        ++m_counters.cpEvents;
        Ptr<OffloadSocket> s = c.socket;
        Simulator::Schedule(ControlPlaneDelay(id), &OffloadSocket::Established, s);
        return rx.dataFollows;
    }
    // a passive open: the listener accepts a new socket
    Ptr<OffloadSocket> s = CreateObject<OffloadSocket>();
    s->SetDevice(GetNode(), this);
    s->SetAttribute("SndBufSize", UintegerValue(c.sndBuf));
    s->SetAttribute("RcvBufSize", UintegerValue(c.rcvBuf));
    s->SetAttribute("SegmentSize", UintegerValue(c.mss));
    s->SetAttribute("DmaChannel", UintegerValue(c.dmaChannel));
    s->Attach(id, c.localPort, c.peer, c.peerPort);
    c.socket = s;
    c.listener->Accepted(s, InetSocketAddress(c.peer, c.peerPort));
    c.listener = nullptr;
    return rx.dataFollows;
}

void
OffloadNetDevice::HandshakeDrop(uint32_t id, const WireSegment& th)
{
    ++m_counters.handshakeDrops;
    m_dropTrace(id, th.seq, th.payloadLen, OffloadDropReason::HANDSHAKE);
}

void
OffloadNetDevice::HandshakeReset(uint32_t id)
{
    OffloadConnectionState& c = m_connections[id];
    ++m_counters.resets;
    ++m_counters.handshakeFailures;
    // an active open (SYN-SENT, or SYN-RECEIVED after a simultaneous open) was refused; a
    // passive one has no socket yet
    Ptr<OffloadSocket> s = c.socket;
    FreeConnection(id);
    if (s)
    {
        s->Failed(); // connection refused
    }
}

} // namespace ns3
