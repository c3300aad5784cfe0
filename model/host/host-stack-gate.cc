/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "host-stack-gate.h"

#include "ns3/arp-l3-protocol.h"
#include "ns3/ipv4-interface.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/ipv6-l3-protocol.h"
#include "ns3/log.h"
#include "ns3/loopback-net-device.h"
#include "ns3/splitmix.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostStackGate");
NS_OBJECT_ENSURE_REGISTERED(HostStackGate);

namespace
{
constexpr uint8_t IP_PROTO_TCP = 6;
constexpr uint8_t TCP_FIN = 0x01;
constexpr uint8_t TCP_SYN = 0x02;

/// The same key for both directions of a connection: a core serves the flow's sends and
/// receives, as RSS with a symmetric hash and an application thread on that core.
uint64_t
FlowKey(uint32_t a, uint16_t pa, uint32_t b, uint16_t pb)
{
    const uint64_t x = (uint64_t(a) << 16) | pa;
    const uint64_t y = (uint64_t(b) << 16) | pb;
    return SplitMix64Finalize(std::min(x, y)) ^ std::max(x, y);
}

/// What a TCP segment costs its host, from its header's fields.
double
SegmentCycles(const HostCpuCosts& c, uint32_t payload, uint8_t flags, bool sending)
{
    double cycles =
        payload > 0 ? (sending ? c.packetSent : c.packetReceived) + payload * c.byteCopied : c.ack;
    if (sending && (flags & TCP_SYN))
    {
        cycles += c.connectionSetup; // each end sends one SYN or SYN-ACK per connection
    }
    if (sending && (flags & TCP_FIN))
    {
        cycles += c.connectionTeardown; // and one FIN
    }
    return cycles;
}
} // namespace

TypeId
HostStackGate::GetTypeId()
{
    static TypeId tid = TypeId("ns3::HostStackGate")
                            .SetParent<TrafficControlLayer>()
                            .SetGroupName("Presto")
                            .AddConstructor<HostStackGate>();
    return tid;
}

HostStackGate::HostStackGate() = default;

HostStackGate::~HostStackGate() = default;

void
HostStackGate::DoDispose()
{
    m_tc = nullptr;
    m_cpu = nullptr;
    TrafficControlLayer::DoDispose();
}

Ptr<HostStackGate>
HostStackGate::Install(Ptr<Node> node)
{
    Ptr<HostCpu> cpu = node->GetObject<HostCpu>();
    Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();
    Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
    if (!cpu || !cpu->IsTimed() || !ip || !tc)
    {
        return nullptr;
    }
    Ptr<HostStackGate> gate = CreateObject<HostStackGate>();
    gate->m_tc = tc;
    gate->m_cpu = cpu;
    gate->m_costs = cpu->GetCosts();
    // The node hands every IPv4, ARP and IPv6 frame of a device to its traffic-control
    // layer (Ipv4L3Protocol::AddInterface registered it). Node::UnregisterProtocolHandler
    // removes one registration per call: remove every one, then register again, with the
    // gate for IPv4 on each device that is not a loopback.
    const Node::ProtocolHandler toTc = MakeCallback(&TrafficControlLayer::Receive, tc);
    for (uint32_t i = 0; i < 3 * node->GetNDevices() + 3; ++i)
    {
        node->UnregisterProtocolHandler(toTc);
    }
    Ptr<Ipv6L3Protocol> ip6 = node->GetObject<Ipv6L3Protocol>();
    for (uint32_t d = 0; d < node->GetNDevices(); ++d)
    {
        Ptr<NetDevice> dev = node->GetDevice(d);
        const bool v4 = ip->GetInterfaceForDevice(dev) >= 0;
        if (v4)
        {
            const bool gated = !DynamicCast<LoopbackNetDevice>(dev);
            node->RegisterProtocolHandler(
                gated ? Node::ProtocolHandler(MakeCallback(&HostStackGate::FromDevice, gate))
                      : toTc,
                Ipv4L3Protocol::PROT_NUMBER,
                dev);
            node->RegisterProtocolHandler(toTc, ArpL3Protocol::PROT_NUMBER, dev);
            if (gated)
            {
                ip->GetInterface(ip->GetInterfaceForDevice(dev))->SetTrafficControl(gate);
            }
        }
        if (ip6 && ip6->GetInterfaceForDevice(dev) >= 0)
        {
            node->RegisterProtocolHandler(toTc, Ipv6L3Protocol::PROT_NUMBER, dev);
        }
    }
    return gate;
}

void
HostStackGate::Send(Ptr<NetDevice> device, Ptr<QueueDiscItem> item)
{
    Ptr<Ipv4QueueDiscItem> ipItem = DynamicCast<Ipv4QueueDiscItem>(item);
    const Ipv4Header* h = ipItem ? &ipItem->GetHeader() : nullptr;
    uint8_t b[14];
    if (!h || h->GetProtocol() != IP_PROTO_TCP || item->GetPacket()->CopyData(b, 14) < 14)
    {
        m_tc->Send(device, item); // not TCP: not costed
        return;
    }
    const uint32_t doff = (b[12] >> 4) * 4u;
    const uint32_t size = item->GetPacket()->GetSize();
    const uint32_t payload = size > doff ? size - doff : 0;
    const uint64_t key = FlowKey(h->GetSource().Get(),
                                 uint16_t((b[0] << 8) | b[1]),
                                 h->GetDestination().Get(),
                                 uint16_t((b[2] << 8) | b[3]));
    ++m_sent;
    m_cpu->Submit(HostCpu::WORK_STACK,
                  key,
                  SegmentCycles(m_costs, payload, b[13], true),
                  [tc = m_tc, device, item]() { tc->Send(device, item); });
}

void
HostStackGate::FromDevice(Ptr<NetDevice> device,
                          Ptr<const Packet> p,
                          uint16_t protocol,
                          const Address& from,
                          const Address& to,
                          NetDevice::PacketType type)
{
    uint8_t b[80];
    const uint32_t n = p->CopyData(b, sizeof(b));
    const uint32_t ihl = n > 0 ? (b[0] & 0x0f) * 4u : 0;
    if (n < 20 || (b[0] >> 4) != 4 || b[9] != IP_PROTO_TCP || ihl < 20 || n < ihl + 14)
    {
        m_tc->Receive(device, p, protocol, from, to, type); // not TCP (or cut): not costed
        return;
    }
    const uint32_t total = (uint32_t(b[2]) << 8) | b[3];
    const uint8_t* t = b + ihl;
    const uint32_t doff = (t[12] >> 4) * 4u;
    const uint32_t payload = total > ihl + doff ? total - ihl - doff : 0;
    const uint32_t src =
        (uint32_t(b[12]) << 24) | (uint32_t(b[13]) << 16) | (uint32_t(b[14]) << 8) | b[15];
    const uint32_t dst =
        (uint32_t(b[16]) << 24) | (uint32_t(b[17]) << 16) | (uint32_t(b[18]) << 8) | b[19];
    const uint64_t key =
        FlowKey(src, uint16_t((t[0] << 8) | t[1]), dst, uint16_t((t[2] << 8) | t[3]));
    const bool ok = m_cpu->SubmitBounded(HostCpu::WORK_STACK,
                                         key,
                                         SegmentCycles(m_costs, payload, t[13], false),
                                         [tc = m_tc, device, p, protocol, from, to, type]() {
                                             tc->Receive(device, p, protocol, from, to, type);
                                         });
    ++(ok ? m_received : m_dropped);
}

uint64_t
HostStackGate::GetSent() const
{
    return m_sent;
}

uint64_t
HostStackGate::GetReceived() const
{
    return m_received;
}

uint64_t
HostStackGate::GetDropped() const
{
    return m_dropped;
}

} // namespace ns3
