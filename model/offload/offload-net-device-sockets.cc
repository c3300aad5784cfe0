/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNetDevice's host interface as OffloadSocket uses it: ports and listeners, the
// active open, the application's writes into the send buffer and reads from the receive
// buffer, and its close.

#include "offload-net-device.h"
#include "offload-socket.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadNetDeviceSockets");

uint16_t
OffloadNetDevice::AllocatePort()
{
    return m_cp.AllocatePort();
}

bool
OffloadNetDevice::ReservePort(uint16_t port)
{
    return m_cp.ReservePort(port);
}

void
OffloadNetDevice::Listen(uint16_t port, Ptr<OffloadSocket> listener)
{
    CheckDmaChannel(listener->GetDmaChannel(), "Listen");
    m_listeners[port] = listener;
}

void
OffloadNetDevice::Unlisten(uint16_t port)
{
    m_listeners.erase(port);
    m_cp.ReleasePort(port);
}

bool
OffloadNetDevice::Connect(Ptr<OffloadSocket> socket,
                          uint16_t localPort,
                          Ipv4Address peer,
                          uint16_t peerPort)
{
    NS_LOG_FUNCTION(this << localPort << peer << peerPort);
    CheckDmaChannel(socket->GetDmaChannel(), "Connect");
    uint32_t id = AllocateConnection();
    if (id == NO_CONNECTION)
    {
        m_cp.ReleasePort(localPort); // refused: the socket's port is free again
        return false;
    }
    OffloadConnectionState& c = m_connections[id];
    c.ownsPort = true;
    c.peer = peer;
    c.peerBits = peer.Get();
    c.localPort = localPort;
    c.peerPort = peerPort;
    c.socket = socket;
    c.dmaChannel = socket->GetDmaChannel();
    c.mss = socket->GetMss();
    c.sndBuf = socket->GetSndBufSize();
    c.rcvBuf = socket->GetRcvBufSize();
    c.initialCwnd = socket->GetInitialCwndSegments();
    ControlPlane().ActiveOpen(c.hs,
                              OffloadControlPlane::InitialSequence(GetLocalAddress().Get(),
                                                                   peer.Get(),
                                                                   localPort,
                                                                   peerPort),
                              c.rcvBuf);
    c.dma = OffloadDmaChannel(m_dmaLatency.GetNanoSeconds(), m_dmaBandwidthBps);
    m_connections.Bind(ConnectionKey(peer, peerPort, localPort), id);
    socket->Attach(id, localPort, peer, peerPort);
    // the SYN leaves after the control plane's work on the host
    m_counters.cpCycles += m_controlCycles;
    ++m_counters.cpEvents;
    Simulator::Schedule(ControlPlaneDelay(id),
                        &OffloadNetDevice::SendHandshake,
                        this,
                        id,
                        m_connections.Generation(id));
    return true;
}

uint32_t
OffloadNetDevice::Write(uint32_t id, Ptr<Packet> p)
{
    return WriteFrom(id, p->GetSize(), PeekPointer(p));
}

uint32_t
OffloadNetDevice::WriteBytes(uint32_t id, uint32_t bytes)
{
    return WriteFrom(id, bytes, nullptr);
}

uint32_t
OffloadNetDevice::WriteFrom(uint32_t id, uint32_t bytes, const Packet* p)
{
    OffloadConnectionState& c = m_connections[id];
    if (c.hs.state != OffloadCpState::ESTABLISHED || !c.tcp)
    {
        return 0;
    }
    HostCpu* cpu = TimedHostCpu();
    // with a timed HostCpu the bytes reach the data path once a host core has posted them
    uint32_t n = cpu ? std::min(bytes, c.tcp->GetTxFree() - c.txPosting) : c.tcp->AppSend(bytes);
    if (n == 0)
    {
        return 0;
    }
    if (c.txRing)
    {
        std::vector<uint8_t> buf(n); // zeros without a packet, as a zero-filled packet's
        if (p)
        {
            p->CopyData(buf.data(), n);
        }
        bool ok = c.txRing->Write(c.txTail, buf.data(), n);
        NS_ASSERT_MSG(ok, "send ring overflow");
    }
    c.txTail += n;
    if (cpu)
    {
        QueueHostWrite(id, n);
        return n;
    }
    OnApplicationPosted(id);
    QueueForTransmit(id);
    return n;
}

Ptr<Packet>
OffloadNetDevice::Read(uint32_t id, uint32_t maxBytes)
{
    OffloadConnectionState& c = m_connections[id];
    uint32_t n = std::min(maxBytes, c.rxReadable);
    if (n == 0 || !c.tcp)
    {
        return nullptr;
    }
    Ptr<Packet> data;
    if (c.rxRing)
    {
        std::vector<uint8_t> buf(n);
        c.rxRing->Read(c.rxRing->GetHead(), buf.data(), n);
        data = Create<Packet>(buf.data(), n);
    }
    else
    {
        data = Create<Packet>(n); // virtual payload: zero-filled, nothing stored
    }
    Consume(id, n);
    return data;
}

uint32_t
OffloadNetDevice::ReadBytes(uint32_t id, uint32_t maxBytes)
{
    OffloadConnectionState& c = m_connections[id];
    const uint32_t n = std::min(maxBytes, c.rxReadable);
    if (n == 0 || !c.tcp)
    {
        return 0;
    }
    Consume(id, n);
    return n;
}

void
OffloadNetDevice::Consume(uint32_t id, uint32_t n)
{
    OffloadConnectionState& c = m_connections[id];
    if (c.rxRing)
    {
        c.rxRing->Advance(n);
    }
    c.rxReadable -= n;
    OnApplicationRead(id, n);
    if (auto update = c.tcp->AppRead(n))
    {
        SendSegment(id, *update, nullptr);
    }
}

uint32_t
OffloadNetDevice::GetTxAvailable(uint32_t id) const
{
    const OffloadConnectionState& c = m_connections[id];
    return c.tcp ? c.tcp->GetTxFree() - c.txPosting : 0;
}

uint32_t
OffloadNetDevice::GetRxAvailable(uint32_t id) const
{
    return m_connections[id].rxReadable;
}

void
OffloadNetDevice::Close(uint32_t id)
{
    OffloadConnectionState& c = m_connections[id];
    if (c.appClosed)
    {
        return;
    }
    c.appClosed = true;
    if (c.tcp)
    {
        if (HostCpu* cpu = TimedHostCpu())
        {
            // behind the application's writes on its core
            OffloadDeviceEvent e;
            e.kind = OffloadDeviceEventKind::HOST_CLOSE;
            e.id = id;
            e.generation = m_connections.Generation(id);
            ScheduleDeviceEvent(
                cpu->Reserve(HostCpu::WORK_NIC_HOST, id, m_hostCosts.dmaDescriptor) -
                    FastSimulator::Now(),
                std::move(e));
            return;
        }
        c.tcp->AppClose();
        OnApplicationPosted(id);
        QueueForTransmit(id);
    }
}

} // namespace ns3
