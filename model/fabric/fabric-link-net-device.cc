/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-link-net-device.h"

#include "ns3/abort.h"
#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet-buffer-primer.h"
#include "ns3/ppp-header.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

#include <map>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricLinkNetDevice");

NS_OBJECT_ENSURE_REGISTERED(FabricLinkChannel);
NS_OBJECT_ENSURE_REGISTERED(FabricLinkNetDevice);

namespace
{
/// The transmission-time table of \p rate at the current time resolution, shared by every
/// device of that rate while one of them holds it.
std::shared_ptr<std::vector<int64_t>>
SharedTxTable(const DataRate& rate)
{
    static std::map<std::pair<uint64_t, int>, std::weak_ptr<std::vector<int64_t>>> tables;
    const auto key = std::make_pair(rate.GetBitRate(), static_cast<int>(Time::GetResolution()));
    std::shared_ptr<std::vector<int64_t>> table = tables[key].lock();
    if (!table)
    {
        table = std::make_shared<std::vector<int64_t>>();
        tables[key] = table;
    }
    return table;
}
} // namespace

TypeId
FabricLinkChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FabricLinkChannel")
                            .SetParent<PointToPointChannel>()
                            .SetGroupName("Presto")
                            .AddConstructor<FabricLinkChannel>();
    return tid;
}

Time
FabricLinkChannel::GetLinkDelay() const
{
    return GetDelay();
}

TypeId
FabricLinkNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricLinkNetDevice")
            .SetParent<PointToPointNetDevice>()
            .SetGroupName("Presto")
            .AddConstructor<FabricLinkNetDevice>()
            .AddAttribute("FramingBytes",
                          "Link-layer bytes counted per frame on the fast path (bytes), in the "
                          "transmission time and the queue occupancy; 2 = the PPP header that "
                          "PointToPointNetDevice adds.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&FabricLinkNetDevice::m_framing),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddTraceSource("FastTxDrop",
                            "A packet refused by Send on the fast path (queue full).",
                            MakeTraceSourceAccessor(&FabricLinkNetDevice::m_txDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("FastRxDrop",
                            "A frame dropped by the receive error model on the fast path.",
                            MakeTraceSourceAccessor(&FabricLinkNetDevice::m_rxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("FastSniffer",
                            "A frame of the fast path with a PPP header, as PromiscSniffer "
                            "shows PointToPointNetDevice's: sent at its transmission start, "
                            "received at its arrival (for pcap; see EnablePcap).",
                            MakeTraceSourceAccessor(&FabricLinkNetDevice::m_sniffer),
                            "ns3::Packet::TracedCallback");
    return tid;
}

FabricLinkNetDevice::FabricLinkNetDevice()
    : m_framing(2),
      m_txSteps(std::make_shared<std::vector<int64_t>>()), // until SetLinkRate
      m_mtu(PointToPointNetDevice::GetMtu())
{
    NS_LOG_FUNCTION(this);
}

FabricLinkNetDevice::~FabricLinkNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
FabricLinkNetDevice::Resolve()
{
    if (m_resolved)
    {
        return;
    }
    // the first time any fabric link resolves (at initialisation or first send), once per
    // process: see PrimePacketBufferFreeList
    PrimePacketBufferFreeList();
    Ptr<FabricLinkChannel> channel = DynamicCast<FabricLinkChannel>(GetChannel());
    if (!channel || channel->GetNDevices() < 2)
    {
        // not attached yet, or to a plain channel: decide again later (cheap)
        m_queue = GetQueue();
        if (GetChannel() && !channel)
        {
            m_resolved = true;
        }
        return;
    }
    m_resolved = true;
    m_queue = GetQueue();
    m_peer = FarEnd();
    m_fast = m_peer && m_queue && m_peer->GetQueue();
    if (!m_fast)
    {
        m_peer = nullptr;
        return;
    }
    RefreshQueueLimit();
    m_peerContext = m_peer->GetNode()->GetId();
    m_peerAddress = m_peer->GetAddress();
    m_delaySteps = channel->GetLinkDelay().GetTimeStep();
    DataRateValue rate;
    GetAttribute("DataRate", rate);
    SetLinkRate(rate.Get());
    TimeValue gap;
    GetAttribute("InterframeGap", gap);
    m_gapSteps = gap.Get().GetTimeStep();
    if (Ptr<NetDeviceQueueInterface> ndqi = GetObject<NetDeviceQueueInterface>())
    {
        m_txQueue = PeekPointer(ndqi->GetTxQueue(0));
    }
    NS_LOG_LOGIC(this << " fast path to node " << m_peerContext << " delay " << m_delaySteps);
    m_peer->PushReceiveState();
    m_peer->Resolve();
}

bool
FabricLinkNetDevice::SetMtu(const uint16_t mtu)
{
    if (!PointToPointNetDevice::SetMtu(mtu))
    {
        return false;
    }
    m_mtu = mtu;
    return true;
}

bool
FabricLinkNetDevice::IsFast()
{
    Resolve();
    return m_fast;
}

void
FabricLinkNetDevice::RefreshQueueLimit()
{
    NS_LOG_FUNCTION(this);
    if (!m_queue)
    {
        return;
    }
    const QueueSize max = m_queue->GetMaxSize();
    const bool inBytes = max.GetUnit() == QueueSizeUnit::BYTES;
    m_maxBytes = inBytes ? max.GetValue() : 0;
    m_maxPackets = inBytes ? 0 : max.GetValue();
}

void
FabricLinkNetDevice::SetLinkRate(DataRate rate)
{
    NS_LOG_FUNCTION(this << rate);
    SetDataRate(rate);
    m_rate = rate;
    m_txSteps = SharedTxTable(rate);
}

int64_t
FabricLinkNetDevice::TxStepsSlow(uint32_t bytes)
{
    std::vector<int64_t>& table = *m_txSteps;
    if (bytes >= table.size())
    {
        table.resize(bytes + 1, 0);
    }
    int64_t& steps = table[bytes];
    if (steps == 0)
    {
        // the same rounding as PointToPointNetDevice's per-frame division, done once per size
        steps = m_rate.CalculateBytesTxTime(bytes).GetTimeStep();
        if (steps == 0)
        {
            steps = -1; // a zero-time frame: remembered as -1
        }
    }
    return steps < 0 ? 0 : steps;
}

bool
FabricLinkNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    return SendAt(packet, dest, protocolNumber, FastSimulator::Now());
}

bool
FabricLinkNetDevice::SendAt(const Ptr<Packet>& packet,
                            const Address& dest,
                            uint16_t protocolNumber,
                            const Time& clock,
                            FabricFrameFields fields)
{
    if (!m_fast)
    {
        Resolve();
        if (!m_fast)
        {
            // a point-to-point link carries bytes
            return PointToPointNetDevice::Send(fields.Bytes(packet), dest, protocolNumber);
        }
    }
    // hot path: no NS_LOG (a log-enabled ns-3 build pays a call per macro even when off)
    const int64_t now = clock.GetTimeStep();
    m_fifo.Expire(now);
    const uint32_t bytes = PeekPointer(packet)->GetSize() + m_framing; // no asserting Ptr call
    if (!m_fifo.Admits(bytes, m_maxBytes, m_maxPackets))
    {
        ++m_txDrops;
        // written whether or not FastTxDrop has a sink: the caller (a switch) traces the
        // refused frame too, after the fields moved here
        fields.EnsureBytes(*PeekPointer(packet));
        m_txDropTrace(fields, packet);
        if (m_txQueue)
        {
            // as NetDeviceQueue::PacketDiscarded does for a point-to-point device: a sender
            // that ignored the stopped queue finds it stopped until there is room again
            StopUntilRoom();
        }
        return false;
    }
    const int64_t tx = TxSteps(bytes);
    const int64_t start = m_fifo.Enqueue(now, bytes, tx + m_gapSteps);
    ++m_txPackets;
    if (m_sniffing)
    {
        fields.EnsureBytes(*PeekPointer(packet));
        // the sniffer sees the frame when its transmission starts, as on a point-to-point link
        // (at once on an idle link: an event at the same time could come after a Stop)
        if (start == now)
        {
            Sniff(packet, protocolNumber);
        }
        else
        {
            Simulator::Schedule(TimeStep(start - now),
                                &FabricLinkNetDevice::SniffStart,
                                this,
                                packet->Copy(),
                                protocolNumber,
                                m_flushes);
        }
    }
    const int64_t at = start + tx + m_delaySteps;
    m_arrivals.ScheduleWith(m_peerContext,
                            TimeStep(at - now),
                            [&packet, protocolNumber, &fields](Arrival& a) {
                                a.packet = packet;
                                a.lazy = std::move(fields.lazy);
                                a.destination = fields.destination;
                                a.protocol = protocolNumber;
                                a.tos = fields.tos;
                                a.known = fields.known;
                            });
    if (m_txQueue)
    {
        MaybeStop();
    }
    return true;
}

void
FabricLinkNetDevice::Sniff(Ptr<const Packet> packet, uint16_t protocol)
{
    // PointToPointNetDevice::EtherToPpp, which is private
    uint16_t ppp = 0;
    switch (protocol)
    {
    case 0x0800:
        ppp = 0x0021; // IPv4
        break;
    case 0x86DD:
        ppp = 0x0057; // IPv6
        break;
    default:
        NS_LOG_WARN("no PPP number for protocol " << protocol << "; the frame shows 0");
    }
    Ptr<Packet> framed = packet->Copy();
    PppHeader header;
    header.SetProtocol(ppp);
    framed->AddHeader(header);
    m_sniffer(framed);
}

void
FabricLinkNetDevice::SniffStart(Ptr<const Packet> packet, uint16_t protocol, uint32_t flushes)
{
    if (flushes == m_flushes)
    {
        Sniff(packet, protocol); // else flushed before it started: never on the wire
    }
}

void
FabricLinkNetDevice::EnablePcap(const std::string& prefix, Ptr<PointToPointNetDevice> device)
{
    NS_ABORT_MSG_IF(!device, "FabricLinkNetDevice::EnablePcap: no device");
    PcapHelper pcapHelper;
    Ptr<PcapFileWrapper> file =
        pcapHelper.CreateFile(pcapHelper.GetFilenameFromDevice(prefix, device),
                              std::ios::out,
                              PcapHelper::DLT_PPP);
    pcapHelper.HookDefaultSink<PointToPointNetDevice>(device, "PromiscSniffer", file);
    if (Ptr<FabricLinkNetDevice> fast = DynamicCast<FabricLinkNetDevice>(device))
    {
        pcapHelper.HookDefaultSink<FabricLinkNetDevice>(fast, "FastSniffer", file);
    }
}

void
FabricLinkNetDevice::MaybeStop()
{
    // as NetDeviceQueue does for a real queue: stop when one more MTU-sized packet would
    // overflow it
    if (!m_fifo.Admits(m_mtu, m_maxBytes, m_maxPackets))
    {
        StopUntilRoom();
    }
}

void
FabricLinkNetDevice::StopUntilRoom()
{
    if (m_txQueue->IsStopped())
    {
        return;
    }
    m_txQueue->Stop();
    if (!m_wake.IsExpired())
    {
        return;
    }
    const int64_t next = m_fifo.GetNextStart();
    const int64_t now = FastSimulator::Now().GetTimeStep();
    m_wake = Simulator::Schedule(TimeStep(next < now ? 0 : next - now),
                                 &FabricLinkNetDevice::WakeCheck,
                                 this);
}

void
FabricLinkNetDevice::WakeCheck()
{
    NS_LOG_FUNCTION(this);
    const int64_t now = FastSimulator::Now().GetTimeStep();
    m_fifo.Expire(now);
    const int64_t next = m_fifo.GetNextStart();
    if (!m_fifo.Admits(m_mtu, m_maxBytes, m_maxPackets) && next >= 0)
    {
        m_wake = Simulator::Schedule(TimeStep(next - now), &FabricLinkNetDevice::WakeCheck, this);
        return;
    }
    if (m_txQueue->IsStopped())
    {
        m_txQueue->Wake();
    }
}

void
FabricLinkNetDevice::DeliverToPeer(Arrival& arrival)
{
    // the pool releases the packet after; the lazy header moves on with the fields (a move
    // does not touch it: in a large fabric its line has usually left the cache by now)
    FabricFrameFields fields{arrival.destination,
                             arrival.tos,
                             arrival.known,
                             std::move(arrival.lazy)};
    // the event's time: the lean simulator's clock, two loads of lines every event reads
    // (the event no longer carries it, 8 bytes of every arrival event)
    const Time now = FastSimulator::Now();
    if (m_peerSink)
    {
        // what FastReceive does when there is nothing else to do, without reading the far
        // end's members: in a large fabric its lines are rarely still in the cache
        ++m_deliveredDirect;
        m_peerSink->ReceiveFromLink(m_peerSinkPort, arrival.packet, arrival.protocol, now, fields);
        return;
    }
    m_peer->FastReceive(arrival.packet, arrival.protocol, now, fields);
}

void
FabricLinkNetDevice::FastReceive(const Ptr<Packet>& packet,
                                 uint16_t protocol,
                                 const Time& now,
                                 FabricFrameFields& fields)
{
    if (m_errorModel || m_sniffing || !m_promiscCb.IsNull() || !m_sink)
    {
        // anything here but a sink may read the bytes
        fields.EnsureBytes(*PeekPointer(packet));
    }
    if (m_errorModel && m_errorModel->IsCorrupt(packet))
    {
        ++m_rxDrops;
        m_rxDropTrace(fields, packet);
        return;
    }
    ++m_rxPackets;
    if (m_sniffing)
    {
        Sniff(packet, protocol);
    }
    if (!m_promiscCb.IsNull())
    {
        m_promiscCb(this, packet, protocol, m_peerAddress, GetAddress(), NetDevice::PACKET_HOST);
    }
    if (m_sink)
    {
        m_sink->ReceiveFromLink(m_sinkPort, packet, protocol, now, fields);
    }
    else if (!m_rxCb.IsNull())
    {
        m_rxCb(this, packet, protocol, m_peerAddress);
    }
}

void
FabricLinkNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCb = cb;
    PointToPointNetDevice::SetReceiveCallback(cb);
}

void
FabricLinkNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscCb = cb;
    PointToPointNetDevice::SetPromiscReceiveCallback(cb);
    PushReceiveState();
}

void
FabricLinkNetDevice::SetLinkSink(FabricLinkSink* sink, uint32_t port)
{
    NS_LOG_FUNCTION(this << sink << port);
    m_sink = sink;
    m_sinkPort = port;
    PushReceiveState();
}

void
FabricLinkNetDevice::SetLinkReceiveErrorModel(Ptr<ErrorModel> em)
{
    NS_LOG_FUNCTION(this << em);
    m_errorModel = em;
    SetReceiveErrorModel(em);
    PushReceiveState();
}

void
FabricLinkNetDevice::ReceiveStateChanged()
{
    m_sniffing = !m_sniffer.IsEmpty();
    PushReceiveState();
}

void
FabricLinkNetDevice::PushReceiveState()
{
    FabricLinkNetDevice* sender = FarEnd();
    if (!sender)
    {
        return; // not attached yet: the far end asks when it resolves
    }
    const bool plain = m_sink && !m_errorModel && !m_sniffing && m_promiscCb.IsNull();
    sender->m_peerSink = plain ? m_sink : nullptr;
    sender->m_peerSinkPort = m_sinkPort;
}

FabricLinkNetDevice*
FabricLinkNetDevice::FarEnd() const
{
    Ptr<Channel> channel = GetChannel();
    if (!channel)
    {
        return nullptr;
    }
    for (std::size_t i = 0; i < channel->GetNDevices(); ++i)
    {
        Ptr<NetDevice> device = channel->GetDevice(i);
        if (PeekPointer(device) != this)
        {
            return PeekPointer(DynamicCast<FabricLinkNetDevice>(device));
        }
    }
    return nullptr;
}

void
FabricLinkNetDevice::SnifferTrace::ConnectWithoutContext(const CallbackBase& cb)
{
    TracedCallback::ConnectWithoutContext(cb);
    m_device->ReceiveStateChanged();
}

void
FabricLinkNetDevice::SnifferTrace::Connect(const CallbackBase& cb, std::string path)
{
    TracedCallback::Connect(cb, path);
    m_device->ReceiveStateChanged();
}

void
FabricLinkNetDevice::SnifferTrace::DisconnectWithoutContext(const CallbackBase& cb)
{
    TracedCallback::DisconnectWithoutContext(cb);
    m_device->ReceiveStateChanged();
}

void
FabricLinkNetDevice::SnifferTrace::Disconnect(const CallbackBase& cb, std::string path)
{
    TracedCallback::Disconnect(cb, path);
    m_device->ReceiveStateChanged();
}

uint32_t
FabricLinkNetDevice::FlushQueue()
{
    NS_LOG_FUNCTION(this);
    if (GetQueue())
    {
        GetQueue()->Flush();
    }
    ++m_flushes;
    return m_fifo.Flush(FastSimulator::Now().GetTimeStep());
}

std::size_t
FabricLinkNetDevice::GetArrivalEventsMade()
{
    return ArrivalPool::GetEventsMade();
}

std::pair<uint32_t, uint32_t>
FabricLinkNetDevice::GetQueued()
{
    return GetQueued(FastSimulator::Now());
}

std::pair<uint32_t, uint32_t>
FabricLinkNetDevice::GetQueued(const Time& now)
{
    if (!m_fast)
    {
        Resolve();
        if (!m_fast)
        {
            return m_queue ? std::make_pair(m_queue->GetNPackets(), m_queue->GetNBytes())
                           : std::make_pair(0u, 0u);
        }
    }
    m_fifo.Expire(now.GetTimeStep());
    return {m_fifo.GetPackets(), static_cast<uint32_t>(m_fifo.GetBytes())};
}

uint32_t
FabricLinkNetDevice::GetQueuedBytes()
{
    return GetQueued().second;
}

uint32_t
FabricLinkNetDevice::GetQueuedPackets()
{
    return GetQueued().first;
}

bool
FabricLinkNetDevice::HasRoomFor(uint32_t size, const Time& now)
{
    if (!m_fast)
    {
        Resolve();
    }
    if (m_fast)
    {
        m_fifo.Expire(now.GetTimeStep());
        return m_fifo.Admits(size + m_framing, m_maxBytes, m_maxPackets);
    }
    // PointToPointNetDevice's queue holds frames with their PPP header
    const Ptr<Queue<Packet>> queue = GetQueue();
    const QueueSize max = queue->GetMaxSize();
    if (max.GetUnit() == QueueSizeUnit::PACKETS)
    {
        return queue->GetNPackets() < max.GetValue();
    }
    return queue->GetNBytes() + size + GetFramingOverhead() <= max.GetValue();
}

bool
FabricLinkNetDevice::GetNextDeparture(Time& delay)
{
    if (!IsFast())
    {
        return false;
    }
    const int64_t now = FastSimulator::Now().GetTimeStep();
    m_fifo.Expire(now);
    const int64_t next = m_fifo.GetNextStart();
    if (next < 0)
    {
        return false;
    }
    delay = TimeStep(next - now);
    return true;
}

uint32_t
FabricLinkNetDevice::GetFramingOverhead()
{
    return IsFast() ? m_framing : 2;
}

uint64_t
FabricLinkNetDevice::GetTxPackets() const
{
    return m_txPackets;
}

uint64_t
FabricLinkNetDevice::GetRxPackets() const
{
    // those the far end handed to the sink directly are counted there (DeliverToPeer)
    const FabricLinkNetDevice* sender = FarEnd();
    return m_rxPackets + (sender ? sender->m_deliveredDirect : 0);
}

uint64_t
FabricLinkNetDevice::GetTxDrops() const
{
    return m_txDrops;
}

uint64_t
FabricLinkNetDevice::GetRxDrops() const
{
    return m_rxDrops;
}

FabricPortQueue::FabricPortQueue(Ptr<PointToPointNetDevice> device)
    : m_link(DynamicCast<FabricLinkNetDevice>(device)),
      m_queue(device->GetQueue())
{
}

} // namespace ns3
