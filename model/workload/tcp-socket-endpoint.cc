/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tcp-socket-endpoint.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-socket.h"
#include "ns3/presto-input-error.h"
#include "ns3/simulator.h"
#include "ns3/socket-factory.h"
#include "ns3/string.h"
#include "ns3/tcp-dctcp.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpSocketEndpoint");
NS_OBJECT_ENSURE_REGISTERED(TcpSocketEndpoint);

namespace
{
/// Largest chunk written to the socket at once, bytes: bounds the copy buffer.
constexpr uint32_t WRITE_CHUNK = 65536;
} // namespace

TypeId
TcpSocketEndpoint::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpSocketEndpoint")
            .SetParent<FlowEndpoint>()
            .SetGroupName("Presto")
            .AddConstructor<TcpSocketEndpoint>()
            .AddAttribute("SocketFactory",
                          "Socket factory the flows use: ns3::TcpSocketFactory (ns-3's TCP on "
                          "the host) or ns3::OffloadSocketFactory (the host's offload NIC)",
                          TypeIdValue(TcpSocketFactory::GetTypeId()),
                          MakeTypeIdAccessor(&TcpSocketEndpoint::m_socketFactory),
                          MakeTypeIdChecker())
            .AddAttribute("Name",
                          "Endpoint name in reports (the --device name)",
                          StringValue("host-tcp"),
                          MakeStringAccessor(&TcpSocketEndpoint::m_name),
                          MakeStringChecker())
            .AddAttribute("CongestionControl",
                          "TcpCongestionOps subclass used by every host (ns3::TcpDctcp, "
                          "ns3::TcpNewReno, ...). ECN is negotiated on every connection.",
                          TypeIdValue(TcpDctcp::GetTypeId()),
                          MakeTypeIdAccessor(&TcpSocketEndpoint::m_congestionControl),
                          MakeTypeIdChecker())
            .AddAttribute("Sack",
                          "Negotiate selective acknowledgements",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpSocketEndpoint::m_sack),
                          MakeBooleanChecker())
            .AddAttribute("SegmentSize",
                          "TCP maximum segment size, bytes (1448 + 52 bytes of IPv4/TCP headers "
                          "with timestamps = 1500-byte IP packets)",
                          UintegerValue(1448),
                          MakeUintegerAccessor(&TcpSocketEndpoint::m_segmentSize),
                          MakeUintegerChecker<uint32_t>(64, 65000))
            .AddAttribute("InitialCwnd",
                          "Initial congestion window, segments",
                          UintegerValue(10),
                          MakeUintegerAccessor(&TcpSocketEndpoint::m_initialCwnd),
                          MakeUintegerChecker<uint32_t>(1, 100000))
            .AddAttribute("BufferSize",
                          "Send and receive socket buffer, bytes",
                          UintegerValue(262144),
                          MakeUintegerAccessor(&TcpSocketEndpoint::m_bufferBytes),
                          MakeUintegerChecker<uint32_t>(4096, 1u << 30))
            .AddAttribute("MinRto",
                          "Minimum retransmission timeout (data-center value; Linux uses 200 ms)",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&TcpSocketEndpoint::m_minRto),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("ClockGranularity",
                          "RTO clock granularity (the G of RFC 6298)",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&TcpSocketEndpoint::m_clockGranularity),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ConnTimeout",
                          "SYN retransmission timeout of ns-3's TCP (ns-3's default of 3 s would "
                          "dominate every FCT after a lost SYN); an offload NIC's is "
                          "OffloadNetDevice::SynTimeout",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&TcpSocketEndpoint::m_connTimeout),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute(
                "DelAckTimeout",
                "Delayed-ACK timeout of ns-3's TCP (a few fabric RTTs, not Linux's 40 ms); "
                "an offload NIC ACKs every segment",
                TimeValue(MicroSeconds(50)),
                MakeTimeAccessor(&TcpSocketEndpoint::m_delAckTimeout),
                MakeTimeChecker(Time(0)))
            .AddAttribute("DelAckCount",
                          "Segments ns-3's TCP receives before it sends an ACK, segments (an "
                          "offload NIC ACKs every segment)",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TcpSocketEndpoint::m_delAckCount),
                          MakeUintegerChecker<uint32_t>(1, 64));
    return tid;
}

TcpSocketEndpoint::TcpSocketEndpoint()
{
    NS_LOG_FUNCTION(this);
}

TcpSocketEndpoint::~TcpSocketEndpoint()
{
    NS_LOG_FUNCTION(this);
}

void
TcpSocketEndpoint::DoDispose()
{
    for (auto& [id, s] : m_senders)
    {
        s->owner = nullptr;
        s->socket = nullptr;
    }
    m_senders.clear();
    m_receivers.clear();
    m_listeners.clear();
    FlowEndpoint::DoDispose();
}

std::string
TcpSocketEndpoint::GetName() const
{
    return m_name;
}

WireModel
TcpSocketEndpoint::GetWireModel() const
{
    WireModel w;
    w.mssBytes = m_segmentSize;
    if (m_socketFactory == TcpSocketFactory::GetTypeId())
    {
        // ns-3's TCP: PPP 2 + IPv4 20 + TCP 20 + timestamp option 10 padded to 12. The SYN
        // and SYN-ACK carry timestamps, window scale and (with SACK) SACK-permitted: 15
        // option bytes padded to 16.
        w.dataOverhead = 2 + 20 + 20 + 12;
        w.synBytes = 2 + 20 + 20 + 16;
    }
    else
    {
        // offload NICs: no options on data; the SYN carries window scale and SACK-permitted
        // (3 + 2, padded to 8)
        w.dataOverhead = 2 + 20 + 20;
        w.synBytes = 2 + 20 + 20 + 8;
    }
    w.synAckBytes = w.synBytes;
    return w;
}

void
TcpSocketEndpoint::Install(const NodeContainer& hosts, const std::vector<Ipv4Address>& addresses)
{
    NS_LOG_FUNCTION(this << hosts.GetN());
    m_hosts = hosts;
    m_addresses = addresses;
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        Ptr<TcpL4Protocol> tcp = hosts.Get(i)->GetObject<TcpL4Protocol>();
        if (tcp)
        {
            tcp->SetAttribute("SocketType", TypeIdValue(m_congestionControl));
        }
    }
}

void
TcpSocketEndpoint::ConfigureSocket(Ptr<Socket> socket) const
{
    // TcpSocket attributes: every TCP socket, ns-3's or an offload NIC's
    socket->SetAttribute("SegmentSize", UintegerValue(m_segmentSize));
    socket->SetAttribute("InitialCwnd", UintegerValue(m_initialCwnd));
    socket->SetAttribute("SndBufSize", UintegerValue(m_bufferBytes));
    socket->SetAttribute("RcvBufSize", UintegerValue(m_bufferBytes));
    if (DynamicCast<TcpSocketBase>(socket))
    {
        // ns-3's own TCP: its timers and extra knobs (an offload NIC has its own, on the
        // device, and refuses these TcpSocket attributes: OffloadSocket::CheckAttributes)
        socket->SetAttribute("ConnTimeout", TimeValue(m_connTimeout));
        socket->SetAttribute("DelAckTimeout", TimeValue(m_delAckTimeout));
        socket->SetAttribute("DelAckCount", UintegerValue(m_delAckCount));
        socket->SetAttribute("Sack", BooleanValue(m_sack));
        socket->SetAttribute("MinRto", TimeValue(m_minRto));
        socket->SetAttribute("ClockGranularity", TimeValue(m_clockGranularity));
        socket->SetAttribute("UseEcn", EnumValue(TcpSocketState::On));
    }
}

TypeId
TcpSocketEndpoint::FactoryFor(uint32_t host) const
{
    // In a mixed fabric, hosts without the chosen factory (no offload NIC) keep ns-3's TCP.
    // Such hosts may carry a device-less OffloadSocketFactory (its guard against a bare
    // segfault in Socket::CreateSocket), which does not count.
    Ptr<SocketFactory> f = m_hosts.Get(host)->GetObject<SocketFactory>(m_socketFactory);
    Ptr<OffloadSocketFactory> offload = DynamicCast<OffloadSocketFactory>(f);
    return f && (!offload || offload->HasDevice()) ? m_socketFactory
                                                   : TcpSocketFactory::GetTypeId();
}

void
TcpSocketEndpoint::EnsureListener(uint32_t host, uint16_t port)
{
    auto key = std::make_pair(host, port);
    if (m_listeners.count(key))
    {
        return;
    }
    Ptr<Socket> listener = Socket::CreateSocket(m_hosts.Get(host), FactoryFor(host));
    ConfigureSocket(listener); // accepted sockets are forks of the listener and inherit this
    NS_ABORT_MSG_IF(listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) != 0,
                    "cannot listen on host " << host << " port " << port);
    listener->Listen();
    listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                MakeCallback(&TcpSocketEndpoint::Accept, this));
    m_listeners[key] = listener;
}

void
TcpSocketEndpoint::DoStartFlow(const FlowSpec& flow)
{
    NS_LOG_FUNCTION(this << flow.id);
    EnsureListener(flow.dst, flow.dport);
    const TypeId factory = FactoryFor(flow.src);
    Ptr<Socket> socket = Socket::CreateSocket(m_hosts.Get(flow.src), factory);
    ConfigureSocket(socket);
    if (factory != TcpSocketFactory::GetTypeId())
    {
        ++m_offloadedFlows;
    }
    if (flow.app != 0)
    {
        // the application's own DMA channel to its NIC
        Ptr<OffloadSocket> offload = DynamicCast<OffloadSocket>(socket);
        if (!offload)
        {
            throw PrestoInputError("flow " + std::to_string(flow.id) + " belongs to application " +
                                   std::to_string(flow.app) + " of host " +
                                   std::to_string(flow.src) +
                                   ", but that host's TCP is ns-3's, which has no DMA channels "
                                   "per application");
        }
        offload->SetAttribute("DmaChannel", UintegerValue(flow.app));
    }
    NS_ABORT_MSG_IF(socket->Bind() != 0,
                    "host " << flow.src << ": no free port for flow " << flow.id);
    Address local;
    socket->GetSockName(local);
    uint16_t srcPort = InetSocketAddress::ConvertFrom(local).GetPort();
    m_pending[std::make_tuple(m_addresses[flow.src].Get(),
                              srcPort,
                              m_addresses[flow.dst].Get(),
                              flow.dport)] = flow.id;

    Ptr<Sender> s = Create<Sender>();
    s->owner = this;
    s->flowId = flow.id;
    s->size = flow.sizeBytes;
    s->socket = socket;
    s->port = srcPort;
    if (!IsVerifyingPayload())
    {
        s->bytesOnly = PeekPointer(DynamicCast<OffloadSocket>(socket));
    }
    m_senders[flow.id] = s;
    m_retx[flow.id] = 0;
    socket->SetConnectCallback(MakeCallback(&Sender::Connected, PeekPointer(s)),
                               MakeCallback(&Sender::Failed, PeekPointer(s)));
    socket->SetSendCallback(MakeCallback(&Sender::Space, PeekPointer(s)));
    // ns-3's TCP exposes its segments; an offload NIC counts its re-sent bytes itself (and
    // its socket's Tx, of another signature, would cost tracing on every segment)
    if (!DynamicCast<TcpSocketBase>(socket) ||
        !socket->TraceConnectWithoutContext("Tx", MakeCallback(&Sender::Tx, PeekPointer(s))))
    {
        m_retx.erase(flow.id); // this socket does not expose its segments: unknown
    }
    if (socket->TraceConnectWithoutContext("CongState",
                                           MakeCallback(&Sender::CongState, PeekPointer(s))))
    {
        s->timeouts = 0;
    }
    if (socket->Connect(InetSocketAddress(m_addresses[flow.dst], flow.dport)) != 0)
    {
        // refused at once (e.g. the offload NIC's connection table is full): no callback
        // will come, so count the failure here instead of leaving the flow silently hung
        s->Failed(socket);
    }
}

void
TcpSocketEndpoint::Accept(Ptr<Socket> socket, const Address& from)
{
    InetSocketAddress remote = InetSocketAddress::ConvertFrom(from);
    Address localAddr;
    socket->GetSockName(localAddr);
    InetSocketAddress local = InetSocketAddress::ConvertFrom(localAddr);
    auto key = std::make_tuple(remote.GetIpv4().Get(),
                               remote.GetPort(),
                               local.GetIpv4().Get(),
                               local.GetPort());
    auto it = m_pending.find(key);
    NS_ABORT_MSG_IF(it == m_pending.end(),
                    "accepted a connection from " << remote.GetIpv4() << ":" << remote.GetPort()
                                                  << " that no flow opened");
    Ptr<Receiver> r = Create<Receiver>();
    r->owner = this;
    r->flowId = it->second;
    if (!IsVerifyingPayload())
    {
        r->bytesOnly = PeekPointer(DynamicCast<OffloadSocket>(socket));
    }
    m_pending.erase(it);
    m_receivers[r->flowId] = r;
    socket->SetRecvCallback(MakeCallback(&Receiver::Read, PeekPointer(r)));
    socket->SetCloseCallbacks(MakeCallback(&Receiver::Closed, PeekPointer(r)),
                              MakeCallback(&Receiver::Closed, PeekPointer(r)));
    r->Read(socket); // data may have arrived with the handshake's last ACK
}

void
TcpSocketEndpoint::Sender::Connected(Ptr<Socket> s)
{
    Fill();
}

void
TcpSocketEndpoint::Sender::Failed(Ptr<Socket> s)
{
    if (owner)
    {
        ++owner->m_connectFailures;
        NS_LOG_WARN("flow " << flowId << ": connection failed");
    }
}

void
TcpSocketEndpoint::Sender::Space(Ptr<Socket> s, uint32_t available)
{
    Fill();
}

void
TcpSocketEndpoint::Sender::Fill()
{
    if (!owner || !socket || queued >= size)
    {
        return;
    }
    static std::vector<uint8_t> buf(WRITE_CHUNK);
    while (queued < size)
    {
        uint32_t avail = socket->GetTxAvailable();
        if (avail == 0)
        {
            return;
        }
        uint32_t chunk =
            static_cast<uint32_t>(std::min<uint64_t>({avail, size - queued, WRITE_CHUNK}));
        if (bytesOnly)
        {
            if (bytesOnly->SendBytes(chunk) < 0)
            {
                return;
            }
            queued += chunk;
            continue;
        }
        Ptr<Packet> data;
        if (owner->IsVerifyingPayload())
        {
            FillPayload(flowId, queued, buf.data(), chunk);
            data = Create<Packet>(buf.data(), chunk);
        }
        else
        {
            data = Create<Packet>(chunk); // virtual: zero-filled, no bytes stored
        }
        if (socket->Send(data) < 0)
        {
            return;
        }
        queued += chunk;
    }
    socket->Close(); // FIN after the last byte
}

void
TcpSocketEndpoint::Sender::Tx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s)
{
    uint32_t len = p->GetSize();
    if (len == 0 || !owner)
    {
        return;
    }
    SequenceNumber32 begin = h.GetSequenceNumber();
    SequenceNumber32 end = begin + len;
    ++owner->m_segmentsSent;
    if (sentAny && begin < highest)
    {
        SequenceNumber32 overlapEnd = std::min(end, highest);
        owner->m_retx[flowId] += overlapEnd - begin;
        ++owner->m_retxSegments;
    }
    if (!sentAny || end > highest)
    {
        highest = end;
        sentAny = true;
    }
}

void
TcpSocketEndpoint::Receiver::Read(Ptr<Socket> s)
{
    if (!owner)
    {
        return;
    }
    if (bytesOnly)
    {
        while (uint32_t n = bytesOnly->RecvBytes(std::numeric_limits<uint32_t>::max()))
        {
            owner->DeliverBytes(flowId, n);
        }
        return;
    }
    while (Ptr<Packet> p = s->Recv())
    {
        if (p->GetSize() == 0)
        {
            break;
        }
        owner->Deliver(flowId, p);
    }
}

void
TcpSocketEndpoint::Receiver::Closed(Ptr<Socket> s)
{
    Read(s);
    s->Close();
}

void
TcpSocketEndpoint::Sender::CongState(TcpSocketState::TcpCongState_t from,
                                     TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_LOSS && from != TcpSocketState::CA_LOSS)
    {
        ++timeouts;
    }
}

int64_t
TcpSocketEndpoint::GetRetxBytes(uint32_t flowId) const
{
    auto it = m_retx.find(flowId);
    if (it != m_retx.end())
    {
        return it->second;
    }
    const auto s = m_senders.find(flowId);
    if (s != m_senders.end())
    {
        if (const auto* offload =
                dynamic_cast<const OffloadSocket*>(PeekPointer(s->second->socket)))
        {
            return static_cast<int64_t>(offload->GetConnectionCounters().retransmittedBytes);
        }
    }
    return -1;
}

int64_t
TcpSocketEndpoint::GetTimeouts(uint32_t flowId) const
{
    const auto s = m_senders.find(flowId);
    if (s == m_senders.end())
    {
        return -1;
    }
    if (const auto* offload = dynamic_cast<const OffloadSocket*>(PeekPointer(s->second->socket)))
    {
        return static_cast<int64_t>(offload->GetConnectionCounters().timeouts);
    }
    return s->second->timeouts;
}

int32_t
TcpSocketEndpoint::GetSourcePort(uint32_t flowId) const
{
    const auto s = m_senders.find(flowId);
    return s == m_senders.end() ? -1 : s->second->port;
}

void
TcpSocketEndpoint::AddReport(nlohmann::json& doc) const
{
    FlowEndpoint::AddReport(doc);
    uint64_t timeouts = 0; // of ns-3's TCP senders (the offload NICs count their own)
    for (const auto& [id, s] : m_senders)
    {
        timeouts += s->timeouts > 0 ? static_cast<uint64_t>(s->timeouts) : 0;
    }
    doc["tcp"] = {{"congestion_control", m_congestionControl.GetName()},
                  {"sack", m_sack},
                  {"data_segments_sent", m_segmentsSent},
                  {"retx_segments", m_retxSegments},
                  {"connect_failures", m_connectFailures},
                  {"timeouts", timeouts}};
    // the offloaded flows' transport is on the NICs: their counters (summed over the hosts
    // whose connections the offload NIC runs), as the "tcp" counters are for ns-3's TCP
    nlohmann::json nic = nlohmann::json::object();
    uint32_t offloadedHosts = 0;
    for (uint32_t h = 0; h < m_hosts.GetN(); ++h)
    {
        if (FactoryFor(h) == TcpSocketFactory::GetTypeId())
        {
            continue;
        }
        ++offloadedHosts;
        Ptr<Node> node = m_hosts.Get(h);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (Ptr<OffloadNetDevice> nicDevice = DynamicCast<OffloadNetDevice>(node->GetDevice(d)))
            {
                nicDevice->AddCounters(nic);
            }
        }
    }
    if (offloadedHosts > 0)
    {
        nic["offloaded_hosts"] = offloadedHosts;
        nic["offloaded_flows"] = m_offloadedFlows;
        doc["nic"] = nic;
    }
}

} // namespace ns3
