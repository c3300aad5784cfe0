/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-switch.h"

#include "ns3/enum.h"
#include "ns3/fast-simulator.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/splitmix.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricSwitch");
NS_OBJECT_ENSURE_REGISTERED(FabricSwitch);

namespace
{

constexpr uint16_t IPV4_ETHERTYPE = 0x0800; //!< protocol number handed up by the device
constexpr uint32_t PPP_HEADER_BYTES = 2;    //!< what the device adds before queueing
constexpr uint32_t PARSE_BYTES = 40;        //!< IPv4 header without options + TCP/UDP ports

/** \param x value \return SplitMix64's finaliser of it (a full-avalanche mix) */
inline uint64_t
Mix64(uint64_t x)
{
    return SplitMix64Finalize(x);
}

inline uint32_t
Read32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

/// Set CE in the IPv4 header in \p p's bytes (a header round trip: only marked packets pay
/// for it, out of line so that the forwarding path does not carry its Ipv4Header). A nonzero
/// checksum field means the sender computed it: it is recomputed for the new TOS byte.
/// \return the new TOS byte
[[gnu::noinline]] uint8_t
MarkCeInBytes(const Ptr<Packet>& p)
{
    uint8_t head[12];
    p->CopyData(head, sizeof(head));
    Ipv4Header ip;
    if (head[10] != 0 || head[11] != 0)
    {
        ip.EnableChecksum();
    }
    p->RemoveHeader(ip);
    ip.SetEcn(Ipv4Header::ECN_CE);
    p->AddHeader(ip);
    return ip.GetTos();
}

} // namespace

TypeId
FabricSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FabricSwitch")
            .SetParent<Object>()
            .SetGroupName("Presto")
            .AddConstructor<FabricSwitch>()
            .AddAttribute("LoadBalancing",
                          "Policy among equal-cost ports: Ecmp (per-flow 5-tuple hash with "
                          "HashSeed), Spray (per-packet uniform random), SprayRr (per-packet "
                          "round robin per destination host), Flowlet (per-flow, re-chosen at "
                          "random after an idle gap longer than FlowletGap), Label (the path "
                          "the sender chose: the IPv4 identification modulo the equal-cost "
                          "ports; see OffloadNetDevice::PathLabels).",
                          EnumValue(FabricSwitch::ECMP),
                          compat::MakeEnumAccessor<LoadBalancing>(&FabricSwitch::m_lb),
                          MakeEnumChecker(FabricSwitch::ECMP,
                                          "Ecmp",
                                          FabricSwitch::SPRAY,
                                          "Spray",
                                          FabricSwitch::SPRAY_RR,
                                          "SprayRr",
                                          FabricSwitch::FLOWLET,
                                          "Flowlet",
                                          FabricSwitch::LABEL,
                                          "Label"))
            .AddAttribute("HashSeed",
                          "Seed of the ECMP and flowlet 5-tuple hash (dimensionless). 0 lets "
                          "FabricHelper give every switch a different seed, which avoids hash "
                          "polarisation between tiers.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FabricSwitch::m_seed),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("FlowletGap",
                          "Idle time after which the next packet of a flow starts a new flowlet "
                          "and may take another port (time).",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&FabricSwitch::m_flowletGap),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("EcnThreshold",
                          "DCTCP-style instantaneous marking threshold, bytes: an ECN-capable "
                          "packet is marked CE if its output queue holds at least this many "
                          "bytes when it arrives. 0 disables marking. Default 65 packets of "
                          "1500 bytes.",
                          UintegerValue(65 * 1500),
                          MakeUintegerAccessor(&FabricSwitch::m_ecnThreshold),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "BufferBytes",
                "Per-port buffer, bytes: the drop-tail limit of each port's device "
                "queue (frames counted with their 2-byte PPP header). Default 200 "
                "packets of 1500 bytes.",
                UintegerValue(200 * 1500),
                MakeUintegerAccessor(&FabricSwitch::SetBufferBytes, &FabricSwitch::GetBufferBytes),
                MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource("Enqueue",
                            "A packet accepted on an output port (before the device queues it)",
                            MakeTraceSourceAccessor(&FabricSwitch::m_enqueueTrace),
                            "ns3::FabricSwitch::PortPacketTracedCallback")
            .AddTraceSource("Drop",
                            "A packet dropped: buffer full (port = the output port) or no route "
                            "(port = FabricSwitch::NO_PORT)",
                            MakeTraceSourceAccessor(&FabricSwitch::m_dropTrace),
                            "ns3::FabricSwitch::PortPacketTracedCallback")
            .AddTraceSource("Mark",
                            "A packet marked CE, before it is queued",
                            MakeTraceSourceAccessor(&FabricSwitch::m_markTrace),
                            "ns3::FabricSwitch::PortPacketTracedCallback")
            .AddTraceSource("QueueLength",
                            "Output queue occupancy in bytes right after each enqueue",
                            MakeTraceSourceAccessor(&FabricSwitch::m_queueLengthTrace),
                            "ns3::FabricSwitch::QueueLengthTracedCallback");
    return tid;
}

FabricSwitch::FabricSwitch()
    : m_lb(ECMP),
      m_ecnThreshold(0),
      m_bufferBytes(0),
      m_seed(0)
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<IndexRandomVariable>();
}

FabricSwitch::~FabricSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
FabricSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (auto& dev : m_ports)
    {
        // the device may outlive us during teardown: do not leave it calling into freed memory
        dev->SetReceiveCallback(
            MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>());
        if (auto link = DynamicCast<FabricLinkNetDevice>(dev))
        {
            link->SetLinkSink(nullptr, 0);
        }
    }
    m_ports.clear();
    m_queues.clear();
    m_rng = nullptr;
    m_flowlets.clear();
    Object::DoDispose();
}

void
FabricSwitch::SetBufferBytes(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    for (uint32_t p = 0; p < m_ports.size(); ++p)
    {
        if (bytes < m_ports[p]->GetMtu() + PPP_HEADER_BYTES)
        {
            std::ostringstream os;
            os << "FabricSwitch attribute BufferBytes: " << bytes
               << " bytes cannot hold one frame of port " << p << " (MTU " << m_ports[p]->GetMtu()
               << " + " << PPP_HEADER_BYTES << " bytes)";
            throw PrestoInputError(os.str());
        }
    }
    m_bufferBytes = bytes;
    for (auto& dev : m_ports)
    {
        // a FabricLinkNetDevice takes its limit from its queue's MaxSize too
        dev->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, bytes));
        if (auto link = DynamicCast<FabricLinkNetDevice>(dev))
        {
            link->RefreshQueueLimit();
        }
    }
}

uint32_t
FabricSwitch::GetBufferBytes() const
{
    return m_bufferBytes;
}

uint32_t
FabricSwitch::AddPort(Ptr<PointToPointNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    const uint32_t port = static_cast<uint32_t>(m_ports.size());
    if (!device || !device->GetQueue() || device->GetIfIndex() != port)
    {
        std::ostringstream os;
        os << "FabricSwitch::AddPort: port " << port
           << " needs a point-to-point device with a queue and interface index " << port
           << (device ? " (got index " + std::to_string(device->GetIfIndex()) + ")" : "");
        throw PrestoInputError(os.str());
    }
    if (m_bufferBytes < device->GetMtu() + PPP_HEADER_BYTES)
    {
        throw PrestoInputError(
            "FabricSwitch attribute BufferBytes: " + std::to_string(m_bufferBytes) +
            " bytes cannot hold one MTU-sized frame");
    }
    m_ports.push_back(device);
    m_queues.emplace_back(device);
    device->GetQueue()->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, m_bufferBytes));
    device->SetReceiveCallback(MakeCallback(&FabricSwitch::Receive, this));
    if (auto link = DynamicCast<FabricLinkNetDevice>(device))
    {
        link->SetLinkSink(this, port); // the fast path skips the callback's dispatch
    }
    return port;
}

void
FabricSwitch::SetRoutes(const std::vector<uint32_t>& hostAddresses,
                        const std::vector<std::vector<uint32_t>>& portsPerHost)
{
    NS_LOG_FUNCTION(this);
    if (hostAddresses.size() != portsPerHost.size())
    {
        throw PrestoInputError("FabricSwitch::SetRoutes: " + std::to_string(hostAddresses.size()) +
                               " addresses but " + std::to_string(portsPerHost.size()) +
                               " route entries");
    }
    for (uint32_t h = 0; h < portsPerHost.size(); ++h)
    {
        for (uint32_t p : portsPerHost[h])
        {
            if (p >= m_ports.size())
            {
                throw PrestoInputError("FabricSwitch::SetRoutes: host " + std::to_string(h) +
                                       " routed to port " + std::to_string(p) + " of " +
                                       std::to_string(m_ports.size()));
            }
        }
    }
    // each distinct port list once, as its length and then its ports
    std::map<std::vector<uint32_t>, uint32_t> setOf;
    std::vector<uint32_t> hostSet(portsPerHost.size(), NO_SET);
    m_portLists.clear();
    for (uint32_t h = 0; h < portsPerHost.size(); ++h)
    {
        const std::vector<uint32_t>& ports = portsPerHost[h];
        if (ports.empty())
        {
            continue;
        }
        const auto [it, fresh] =
            setOf.try_emplace(ports, static_cast<uint32_t>(m_portLists.size()));
        if (fresh)
        {
            m_portLists.push_back(static_cast<uint32_t>(ports.size()));
            m_portLists.insert(m_portLists.end(), ports.begin(), ports.end());
        }
        hostSet[h] = it->second;
    }
    m_rrNext.assign(portsPerHost.size(), 0);
    m_routeByAddr.clear();
    m_setByOffset.clear();
    m_hostByOffset.clear();
    if (hostAddresses.empty())
    {
        return;
    }
    const auto [lo, hi] = std::minmax_element(hostAddresses.begin(), hostAddresses.end());
    const uint64_t span = uint64_t(*hi) - *lo + 1;
    // A vector indexed by address offset is one bounds check and one load per packet; use it
    // whenever the addresses are nearly contiguous (always, with FabricHelper's plan) and the
    // lists' offsets fit its 16-bit entries.
    const bool dense =
        span <= 4 * uint64_t(hostAddresses.size()) + 64 && m_portLists.size() < NO_SET16;
    m_addrBase = *lo;
    if (dense)
    {
        m_setByOffset.assign(span, NO_SET16);
        m_hostByOffset.assign(span, NO_HOST);
    }
    for (uint32_t h = 0; h < hostAddresses.size(); ++h)
    {
        if (dense)
        {
            const uint32_t off = hostAddresses[h] - m_addrBase;
            m_setByOffset[off] = hostSet[h] == NO_SET ? NO_SET16 : uint16_t(hostSet[h]);
            m_hostByOffset[off] = h;
        }
        else
        {
            m_routeByAddr[hostAddresses[h]] = Route{h, hostSet[h]};
        }
    }
}

int64_t
FabricSwitch::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_rng->SetStream(stream);
    return 1;
}

uint64_t
FabricSwitch::GetForwarded() const
{
    return m_forwarded;
}

uint64_t
FabricSwitch::GetDropped() const
{
    return m_droppedBuffer + m_droppedNoRoute;
}

uint64_t
FabricSwitch::GetDroppedBufferFull() const
{
    return m_droppedBuffer;
}

uint64_t
FabricSwitch::GetDroppedNoRoute() const
{
    return m_droppedNoRoute;
}

uint64_t
FabricSwitch::GetMarked() const
{
    return m_marked;
}

uint32_t
FabricSwitch::GetNPorts() const
{
    return static_cast<uint32_t>(m_ports.size());
}

Ptr<PointToPointNetDevice>
FabricSwitch::GetPortDevice(uint32_t port) const
{
    if (port >= m_ports.size())
    {
        throw PrestoInputError("FabricSwitch::GetPortDevice: no port " + std::to_string(port));
    }
    return m_ports[port];
}

FabricSwitch::LoadBalancing
FabricSwitch::GetLoadBalancing() const
{
    return m_lb;
}

uint32_t
FabricSwitch::GetHashSeed() const
{
    return m_seed;
}

uint32_t
FabricSwitch::LookupHost(uint32_t addr) const
{
    if (!m_hostByOffset.empty())
    {
        return m_hostByOffset[addr - m_addrBase];
    }
    return m_routeByAddr.at(addr).host;
}

uint64_t
FabricSwitch::FlowHash(const uint8_t* hdr, uint32_t len) const
{
    const uint32_t ihl = (hdr[0] & 0x0f) * 4u;
    const uint8_t proto = hdr[9];
    uint32_t ports = 0;
    if ((proto == 6 || proto == 17) && ihl + 4 <= len)
    {
        ports = Read32(hdr + ihl);
    }
    const uint64_t addrs = (uint64_t(Read32(hdr + 12)) << 32) | Read32(hdr + 16);
    const uint64_t rest = (uint64_t(ports) << 8) | proto;
    // the seed enters before both mixing rounds, so two seeds give unrelated port choices
    return Mix64(addrs ^ Mix64(rest ^ Mix64(m_seed + 0x9e3779b97f4a7c15ULL)));
}

uint32_t
FabricSwitch::ChoosePort(uint32_t dest,
                         const uint32_t* ports,
                         uint32_t n,
                         Packet* packet,
                         const FabricFrameFields& fields,
                         uint8_t* hdr,
                         uint32_t len)
{
    if (len == 0 && (m_lb == ECMP || m_lb == LABEL || m_lb == FLOWLET))
    {
        // the header's fields came with the frame, but this policy reads more of it
        fields.EnsureBytes(*packet);
        len = packet->CopyData(hdr, PARSE_BYTES);
    }
    switch (m_lb)
    {
    case ECMP:
        return ports[FlowHash(hdr, len) % n];
    case SPRAY:
        return ports[PeekPointer(m_rng)->GetIndex(n)];
    case SPRAY_RR:
        return ports[m_rrNext[LookupHost(dest)]++ % n];
    case LABEL:
        // the same label takes the same port at every switch: label p goes up through the
        // p mod n-th equal-cost port of each tier
        return ports[((uint32_t(hdr[4]) << 8) | hdr[5]) % n];
    case FLOWLET: {
        const int64_t now = FastSimulator::Now().GetTimeStep();
        auto [it, fresh] = m_flowlets.try_emplace(FlowHash(hdr, len), Flowlet{now, 0});
        Flowlet& f = it->second;
        const bool stale = std::find(ports, ports + n, f.port) == ports + n;
        if (fresh || stale || now - f.lastNs > m_flowletGap.GetTimeStep())
        {
            f.port = ports[PeekPointer(m_rng)->GetIndex(n)];
        }
        f.lastNs = now;
        return f.port;
    }
    }
    return ports[0];
}

void
FabricSwitch::Drop(const Ptr<Packet>& packet,
                   uint32_t port,
                   bool bufferFull,
                   const FabricFrameFields& fields)
{
    NS_LOG_LOGIC("drop " << packet->GetUid() << " port " << port
                         << (bufferFull ? " buffer full" : " no route"));
    if (bufferFull)
    {
        ++m_droppedBuffer;
    }
    else
    {
        ++m_droppedNoRoute;
    }
    m_dropTrace(fields, packet, port); // writes a lazy header for the sinks
}

bool
FabricSwitch::Receive(Ptr<NetDevice> device,
                      Ptr<const Packet> packet,
                      uint16_t protocol,
                      const Address& from)
{
    FabricFrameFields none;
    Forward(ConstCast<Packet>(packet), protocol, FastSimulator::Now(), none);
    return true;
}

void
FabricSwitch::ReceiveFromLink(uint32_t port,
                              const Ptr<Packet>& packet,
                              uint16_t protocol,
                              const Time& now,
                              FabricFrameFields& fields)
{
    Forward(packet, protocol, now, fields);
}

void
FabricSwitch::Forward(const Ptr<Packet>& packet,
                      uint16_t protocol,
                      const Time& now,
                      FabricFrameFields& out)
{
    // Hot path: an array lookup, the policy, and the device Send; the packet's bytes are read
    // (a 40-byte copy) only when the sender did not give the header's fields or the policy
    // hashes more than the destination.
    // the raw pointer: Ptr's operator-> asserts and is a call in an assert-enabled build
    Packet* const pkt = PeekPointer(packet);
    uint8_t hdr[PARSE_BYTES];
    uint32_t len = 0;
    if (!out.known)
    {
        len = pkt->CopyData(hdr, PARSE_BYTES);
        // Not an IPv4 packet with a complete header (a hostile or corrupted frame): nothing to
        // route it by, and the ECN mark below would parse past its end. Counted as no route.
        const uint32_t ihl = (hdr[0] & 0x0f) * 4u;
        if (protocol != IPV4_ETHERTYPE || len < 20 || (hdr[0] >> 4) != 4 || ihl < 20 ||
            pkt->GetSize() < ihl)
        {
            Drop(packet, NO_PORT, false, out);
            return;
        }
        out.destination = Read32(hdr + 16);
        out.tos = hdr[1];
        out.known = true;
    }
    const uint32_t dest = out.destination;
    const uint32_t set = LookupPortSet(dest);
    if (set == NO_SET) // not a host's address, or no port leads there
    {
        Drop(packet, NO_PORT, false, out);
        return;
    }
    const uint32_t* const list = m_portLists.data() + set;
    const uint32_t n = list[0];
    const uint32_t* const ports = list + 1;
    const uint32_t port = n == 1 ? ports[0] : ChoosePort(dest, ports, n, pkt, out, hdr, len);
    const FabricPortQueue& queue = m_queues[port];
    FabricLinkNetDevice* link = queue.GetLink();
    if (link)
    {
        link->PrefetchSend();
    }
    const uint32_t queued = queue.GetBytes(now);
    // the device queue applies the same test after adding the PPP header; doing it here keeps
    // the drop counted with its reason and traced without that header
    if (queued + pkt->GetSize() + PPP_HEADER_BYTES > m_bufferBytes)
    {
        Drop(packet, port, true, out);
        return;
    }
    // The device is done with the packet (it only traced it before this callback), so it is
    // forwarded as is instead of being copied.
    const Ptr<Packet>& p = packet;
    const uint8_t ecn = out.tos & 0x03;
    if (m_ecnThreshold > 0 && queued >= m_ecnThreshold &&
        (ecn == Ipv4Header::ECN_ECT0 || ecn == Ipv4Header::ECN_ECT1) && out.lazy &&
        !out.lazy.Get()->IsWritten())
    {
        // the header is not in the bytes yet: it will be written with the mark
        out.tos |= Ipv4Header::ECN_CE;
        ++m_marked;
        m_markTrace(out, p, port);
    }
    else if (m_ecnThreshold > 0 && queued >= m_ecnThreshold &&
             (ecn == Ipv4Header::ECN_ECT0 || ecn == Ipv4Header::ECN_ECT1))
    {
        out.tos = MarkCeInBytes(p);
        ++m_marked;
        m_markTrace(out, p, port);
    }
    m_enqueueTrace(out, p, port); // a packet reference and a call only if connected
    // the fields move on with the frame (the lazy header is not touched)
    if (!(link ? link->SendAt(p, m_dest, IPV4_ETHERTYPE, now, std::move(out))
               : m_ports[port]->Send(out.Bytes(p), m_dest, IPV4_ETHERTYPE)))
    {
        // a refused frame's header is in its bytes: SendAt writes it before its drop trace
        Drop(p, port, true, out);
        return;
    }
    ++m_forwarded;
    if (!m_queueLengthTrace.IsEmpty())
    {
        m_queueLengthTrace(port, queue.GetBytesAfterSend()); // no second clock read
    }
}

} // namespace ns3
