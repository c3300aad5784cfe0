/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNetDevice, the glue: what an ns-3 reader looks for in a NetDevice (construction,
// set-up and validation, the node and receive callback, clean-up) and the execution model's
// default hooks. The device's parts are each in a file of their own, all implementing this
// class so that the per-segment path costs no extra indirection:
//   offload-net-device-attributes.cc   attributes and trace sources (GetTypeId)
//   offload-net-device-sockets.cc      the host interface OffloadSocket uses
//   offload-net-device-connections.cc  a connection's life: table entry, handshake, teardown
//   offload-net-device-rx.cc           frames from the wire, a segment's data-path decision
//   offload-net-device-tx.cc           transmit scheduling, backpressure, frames to the wire
//   offload-net-device-timers.cc       the timer scan
//   offload-net-device-dma.cc          the shared host interface (DmaChannels > 0)
//   offload-net-device-counters.cc     counters and the report's JSON
//   offload-host-cpu.cc                the host side on the host's cores (timed HostCpu)
#include "offload-net-device.h"

#include "offload-socket.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/presto-input-error.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadNetDevice");
NS_OBJECT_ENSURE_REGISTERED(OffloadNetDevice);

OffloadNetDevice::OffloadNetDevice()
    : m_checksums(Node::ChecksumEnabled())
{
    NS_LOG_FUNCTION(this);
    // PointToPointNetDevice::DoDispose is private, so this device cannot extend it: release
    // the connection table (it holds sockets, which hold this device) when the simulator ends
    // (the event holds a reference: nodes and their devices are disposed by an earlier
    // destroy event, and this one must still find the object)
    Simulator::ScheduleDestroy(&OffloadNetDevice::Cleanup, Ptr<OffloadNetDevice>(this));
}

OffloadNetDevice::~OffloadNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
OffloadNetDevice::DoInitialize()
{
    Setup();
    FabricLinkNetDevice::DoInitialize();
}

void
OffloadNetDevice::Setup()
{
    if (m_congestion)
    {
        return;
    }
    m_checksums = Node::ChecksumEnabled();
    const std::string where = GetInstanceTypeId().GetName() + "::CongestionControl";
    if (!m_congestionType.IsChildOf(OffloadCongestionControl::GetTypeId()))
    {
        throw PrestoInputError(where + "=" + m_congestionType.GetName() +
                               " is not a subclass of ns3::OffloadCongestionControl; valid: "
                               "ns3::OffloadDctcpCongestion, ns3::OffloadNewRenoCongestion, "
                               "ns3::OffloadDctcpRateCongestion, "
                               "ns3::OffloadTasDctcpRateCongestion");
    }
    // the TcpSocket attributes the NIC does not honour, as Config::SetDefault left them
    CreateObject<OffloadSocket>()->CheckAttributes("ns3::OffloadSocket");
    ObjectFactory factory(m_congestionType.GetName());
    Ptr<OffloadCongestionControl> cc = factory.Create<OffloadCongestionControl>();
    cc->Validate(where);
    // The NIC must be able to keep TxQueuePackets segments in its device queue.
    Ptr<Queue<Packet>> queue = GetQueue();
    if (queue && queue->GetMaxSize().GetUnit() == QueueSizeUnit::PACKETS &&
        queue->GetMaxSize().GetValue() < m_txQueuePackets)
    {
        throw PrestoInputError(
            GetInstanceTypeId().GetName() + "::TxQueuePackets=" + std::to_string(m_txQueuePackets) +
            " exceeds the device queue of " + std::to_string(queue->GetMaxSize().GetValue()) +
            " packets: the NIC would overflow its own queue; lower "
            "TxQueuePackets or enlarge the queue");
    }
    // A byte limit below one full frame would keep every full-sized segment waiting behind
    // the queue for ever (the backlog never drains): refuse it before the run.
    if (queue && queue->GetMaxSize().GetUnit() == QueueSizeUnit::BYTES &&
        queue->GetMaxSize().GetValue() < GetMtu() + GetFramingOverhead())
    {
        throw PrestoInputError(
            GetInstanceTypeId().GetName() + ": the device queue of " +
            std::to_string(queue->GetMaxSize().GetValue()) + " bytes cannot hold one frame of " +
            std::to_string(GetMtu() + GetFramingOverhead()) + " bytes (Mtu " +
            std::to_string(GetMtu()) + " + " + std::to_string(GetFramingOverhead()) +
            " framing): full-sized segments would never leave; enlarge the queue or lower the Mtu");
    }
    DataRateValue rate;
    GetAttribute("DataRate", rate);
    m_lineRateBytesPerS = rate.Get().GetBitRate() / 8;
    // at least one full segment, so that a slow link still sends
    m_txQueueBytes =
        std::max<uint64_t>(static_cast<uint64_t>(m_lineRateBytesPerS * m_txQueueTime.GetSeconds()),
                           1500);
    OffloadTxScheduler::Limits limits;
    limits.pipelineDepth = m_txPipelineDepth;
    limits.queuePackets = m_txQueuePackets;
    limits.queueBytes = m_txQueueBytes;
    m_txScheduler.SetLimits(limits);
    SetupDma();
    m_congestion = cc; // the model may bind the congestion control to its hardware
    try
    {
        SetupModel();
    }
    catch (...)
    {
        m_congestion = nullptr; // not set up
        throw;
    }
}

void
OffloadNetDevice::SetupModel()
{
}

Ptr<const OffloadCongestionControl>
OffloadNetDevice::GetCongestionControl() const
{
    return m_congestion;
}

void
OffloadNetDevice::Cleanup()
{
    m_txBacklog.clear();
    m_connections.Clear();
    m_listeners.clear();
    m_hostRx =
        MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>();
    Simulator::Cancel(m_scanEvent);
    for (auto& dma : m_dma)
    {
        if (dma)
        {
            dma->Cancel(); // its continuations hold packets and this device
        }
    }
    m_scanPending = false;
    m_refillPending = false;
}

void
OffloadNetDevice::SetNode(Ptr<Node> node)
{
    FabricLinkNetDevice::SetNode(node);
    // the node's applications find the NIC through the socket factory
    Ptr<OffloadSocketFactory> f = node->GetObject<OffloadSocketFactory>();
    if (!f)
    {
        f = CreateObject<OffloadSocketFactory>();
        node->AggregateObject(f);
    }
    if (!f->HasDevice())
    {
        f->SetDevice(this);
    }
    OffloadSocketFactory::GuardNodesWithoutNic();
    TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OffloadNetDevice::TxDone, this));
}

void
OffloadNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_hostRx = cb;
    FabricLinkNetDevice::SetReceiveCallback(MakeCallback(&OffloadNetDevice::FromWire, this));
    // the fast path's frames come with their fields (ReceiveFromLink)
    SetLinkSink(this, 0);
}

Ipv4Address
OffloadNetDevice::GetLocalAddress() const
{
    if (m_local == Ipv4Address())
    {
        Ptr<Ipv4> ipv4 = GetNode()->GetObject<Ipv4>();
        NS_ABORT_MSG_IF(!ipv4, "offload NIC on a node without IPv4");
        int32_t i = ipv4->GetInterfaceForDevice(this);
        NS_ABORT_MSG_IF(i < 0, "offload NIC has no IPv4 address");
        m_local = ipv4->GetAddress(i, 0).GetLocal();
        m_localBits = m_local.Get();
    }
    return m_local;
}

uint32_t
OffloadNetDevice::LocalAddressBits() const
{
    if (m_localBits == 0)
    {
        GetLocalAddress(); // known from then on (a host is never 0.0.0.0)
    }
    return m_localBits;
}

uint64_t
OffloadNetDevice::ConnectionKey(Ipv4Address peer, uint16_t peerPort, uint16_t localPort)
{
    return OffloadControlPlane::Key(peer.Get(), peerPort, localPort);
}

OffloadControlPlane&
OffloadNetDevice::ControlPlane()
{
    // from the attributes at every use: they may be set after the device was created
    OffloadControlPlane::Config cfg;
    cfg.synTimeoutNs = m_synTimeout.GetNanoSeconds();
    cfg.synRetries = m_synRetries;
    cfg.sack = m_sack;
    cfg.timeWaitNs = m_timeWait.IsStrictlyPositive() ? m_timeWait.GetNanoSeconds() : 0;
    m_cp.SetConfig(cfg);
    return m_cp;
}

// ------------------------------------------------------------------ execution model defaults

void
OffloadNetDevice::OnTimersExamined(uint32_t conn,
                                   const OffloadTcpConnection& tcp,
                                   const OffloadTimerDecision& decision,
                                   uint64_t nowNs)
{
}

Time
OffloadNetDevice::ProcessReceived(uint32_t conn,
                                  const OffloadSegment& seg,
                                  const OffloadRxDecision& decision)
{
    return Time(0);
}

bool
OffloadNetDevice::AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency)
{
    return true;
}

bool
OffloadNetDevice::TimersDue(uint64_t nowNs)
{
    return true;
}

bool
OffloadNetDevice::ReserveConnectionSlot()
{
    return true;
}

void
OffloadNetDevice::ReleaseConnectionSlot()
{
}

void
OffloadNetDevice::OnConnectionClosed(uint32_t conn)
{
}

void
OffloadNetDevice::GetEndpoints(uint32_t conn,
                               Ipv4Address& peer,
                               uint16_t& localPort,
                               uint16_t& peerPort) const
{
    const OffloadConnectionState& c = m_connections[conn];
    peer = c.peer;
    localPort = c.localPort;
    peerPort = c.peerPort;
}

void
OffloadNetDevice::OnEstablished(uint32_t conn, const OffloadTcpConnection& tcp)
{
}

void
OffloadNetDevice::OnApplicationRead(uint32_t conn, uint32_t bytes)
{
}

void
OffloadNetDevice::OnApplicationPosted(uint32_t conn)
{
}

const OffloadTcpConnection&
OffloadNetDevice::GetConnection(uint32_t conn) const
{
    NS_ABORT_MSG_IF(!m_connections[conn].tcp, "connection " << conn << " is not established");
    return *m_connections[conn].tcp;
}

const OffloadTcpConnection*
OffloadNetDevice::FindConnection(uint32_t conn) const
{
    return conn < m_connections.Size() ? m_connections[conn].tcp.get() : nullptr;
}

std::string
OffloadNetDevice::GetNativeCongestion() const
{
    return "dctcp";
}

} // namespace ns3
