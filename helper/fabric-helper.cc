/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-helper.h"

#include "offload-nic-helper.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/fabric-link-net-device.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/ipv4-list-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricHelper");

FabricHelper::FabricHelper()
    : m_hostQueuePackets(100),
      m_packetHops(0)
{
    m_switchFactory.SetTypeId(FabricSwitch::GetTypeId());
    m_hostDeviceFactory.SetTypeId(PointToPointNetDevice::GetTypeId());
    m_stackHostQueueDiscs.SetRootQueueDisc("ns3::FifoQueueDisc");
}

void
FabricHelper::SetSwitchAttribute(const std::string& name, const AttributeValue& value)
{
    NS_LOG_FUNCTION(this << name);
    // ObjectFactory::Set aborts on a bad name or value: check first and throw instead
    TypeId::AttributeInformation info;
    if (!FabricSwitch::GetTypeId().LookupAttributeByName(name, &info))
    {
        throw PrestoInputError("FabricHelper::SetSwitchAttribute: FabricSwitch has no attribute '" +
                               name + "'");
    }
    if (!compat::CreateValidValue(info.checker, value))
    {
        throw PrestoInputError("FabricHelper::SetSwitchAttribute: invalid value for '" + name +
                               "'");
    }
    if (m_installed)
    {
        throw PrestoInputError("FabricHelper::SetSwitchAttribute('" + name +
                               "'): call before Install");
    }
    m_switchFactory.Set(name, value);
    if (name == "HashSeed")
    {
        m_seedSet = true;
    }
}

void
FabricHelper::SetHostDeviceQueuePackets(uint32_t packets)
{
    if (packets == 0)
    {
        throw PrestoInputError("FabricHelper::SetHostDeviceQueuePackets: need >= 1 packet");
    }
    m_hostQueuePackets = packets;
}

void
FabricHelper::SetStackHostEgress(const TrafficControlHelper& queueDiscs,
                                 std::function<QueueSize(double)> deviceQueue)
{
    if (m_installed)
    {
        throw PrestoInputError("FabricHelper::SetStackHostEgress: call before Install");
    }
    m_stackHostQueueDiscs = queueDiscs;
    m_stackHostDeviceQueue = deviceQueue;
}

bool
FabricHelper::RunsStack(uint32_t host) const
{
    auto it = m_hostDeviceByHost.find(host);
    const ObjectFactory& f = it != m_hostDeviceByHost.end() ? it->second : m_hostDeviceFactory;
    return f.GetTypeId() == PointToPointNetDevice::GetTypeId();
}

void
FabricHelper::InstallHostQueueDiscs(const NetDeviceContainer& hostDevices)
{
    // The queue disc must be in place before Assign, which otherwise installs FqCoDel.
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc");
    for (uint32_t h = 0; h < hostDevices.GetN(); ++h)
    {
        (RunsStack(h) ? m_stackHostQueueDiscs : fifo).Install(hostDevices.Get(h));
    }
}

void
FabricHelper::SetUseNs3Routers(bool use)
{
    if (m_installed)
    {
        throw PrestoInputError("FabricHelper::SetUseNs3Routers: call before Install");
    }
    m_useNs3Routers = use;
}

bool
FabricHelper::GetUseNs3Routers() const
{
    return m_useNs3Routers;
}

void
FabricHelper::SetFastLinks(bool fast)
{
    if (m_installed)
    {
        throw PrestoInputError("FabricHelper::SetFastLinks: call before Install");
    }
    m_fastLinks = fast;
}

bool
FabricHelper::GetFastLinks() const
{
    return m_fastLinks;
}

void
FabricHelper::CheckInstalled(const char* what) const
{
    if (!m_installed)
    {
        throw PrestoInputError(std::string("FabricHelper::") + what + ": call Install first");
    }
}

void
FabricHelper::CheckLink(uint32_t link, const char* what) const
{
    CheckInstalled(what);
    if (link >= m_linkDevices.size())
    {
        throw PrestoInputError(std::string("FabricHelper::") + what + ": no link " +
                               std::to_string(link) + " (" + std::to_string(m_linkDevices.size()) +
                               " links)");
    }
}

void
FabricHelper::Install(const FabricTopology& topology)
{
    NS_LOG_FUNCTION(this);
    if (m_installed)
    {
        throw PrestoInputError("FabricHelper::Install: already installed (one fabric per helper)");
    }
    if (m_fastLinks && m_useNs3Routers)
    {
        throw PrestoInputError(
            "FabricHelper::Install: fast links need FabricSwitches, not the ns-3 router mode");
    }
    for (uint32_t h = 0; h < topology.GetNHosts(); ++h)
    {
        if (topology.GetPorts(topology.HostNode(h)).size() != 1)
        {
            throw PrestoInputError("FabricHelper::Install: host " + std::to_string(h) + " has " +
                                   std::to_string(topology.GetPorts(topology.HostNode(h)).size()) +
                                   " links; every host needs exactly one");
        }
    }
    if (topology.GetNHosts() == 0 || topology.GetNHosts() >= (1u << 22))
    {
        throw PrestoInputError("FabricHelper::Install: need 1 to 4194303 hosts (got " +
                               std::to_string(topology.GetNHosts()) + ")");
    }
    m_topology = topology;
    // read BufferBytes as the user set it, for router ports in the reference mode
    UintegerValue buffer;
    m_switchFactory.Create<FabricSwitch>()->GetAttribute("BufferBytes", buffer);
    m_bufferBytes = static_cast<uint32_t>(buffer.Get());

    m_nodes.clear();
    for (uint32_t n = 0; n < m_topology.GetNNodes(); ++n)
    {
        m_nodes.push_back(CreateObject<Node>());
    }
    InstallLinks();
    if (m_useNs3Routers)
    {
        InstallNs3Routers();
    }
    else
    {
        InstallFabricSwitches();
    }
    m_installed = true;
}

void
FabricHelper::CheckHostDeviceFactory(const ObjectFactory& factory)
{
    const TypeId p2p = PointToPointNetDevice::GetTypeId();
    if (factory.GetTypeId() != p2p && !factory.GetTypeId().IsChildOf(p2p))
    {
        throw PrestoInputError("FabricHelper::SetHostDeviceFactory: host device type " +
                               factory.GetTypeId().GetName() + " is not a PointToPointNetDevice");
    }
}

void
FabricHelper::SetHostDeviceFactory(const ObjectFactory& factory)
{
    CheckHostDeviceFactory(factory);
    m_hostDeviceFactory = factory;
}

void
FabricHelper::SetHostDeviceFactory(uint32_t host, const ObjectFactory& factory)
{
    CheckHostDeviceFactory(factory);
    m_hostDeviceByHost[host] = factory;
}

ObjectFactory
FabricHelper::LinkDeviceFactory(uint32_t node) const
{
    if (!m_topology.IsHost(node))
    {
        return ObjectFactory(m_fastLinks ? "ns3::FabricLinkNetDevice"
                                         : "ns3::PointToPointNetDevice");
    }
    auto it = m_hostDeviceByHost.find(m_topology.HostIndex(node));
    ObjectFactory factory = it != m_hostDeviceByHost.end() ? it->second : m_hostDeviceFactory;
    if (m_fastLinks && factory.GetTypeId() == PointToPointNetDevice::GetTypeId())
    {
        // a host with ns-3's stack: the same device model on the fast path (its attributes
        // are PointToPointNetDevice's); offload NICs keep their type, a FabricLinkNetDevice
        // too, so their links are fast as well
        factory.SetTypeId(FabricLinkNetDevice::GetTypeId());
    }
    return factory;
}

void
FabricHelper::InstallLinks()
{
    m_linkDevices.clear();
    m_linkDrops.clear();
    // hosts: m_hostQueuePackets; switch ports: the default (FabricSwitch keeps its own buffer)
    ObjectFactory portQueue("ns3::DropTailQueue<Packet>");
    ObjectFactory hostQueue("ns3::DropTailQueue<Packet>");
    hostQueue.Set("MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, m_hostQueuePackets)));
    const auto& links = m_topology.GetLinks();
    for (uint32_t l = 0; l < links.size(); ++l)
    {
        const auto& link = links[l];
        Ptr<PointToPointChannel> channel =
            m_fastLinks ? Ptr<PointToPointChannel>(CreateObject<FabricLinkChannel>())
                        : CreateObject<PointToPointChannel>();
        channel->SetAttribute("Delay", TimeValue(NanoSeconds(link.delayNs)));
        NetDeviceContainer d;
        for (uint32_t end : {link.a, link.b})
        {
            ObjectFactory device = LinkDeviceFactory(end);
            device.Set("DataRate", DataRateValue(DataRate(uint64_t(link.rateBps))));
            const bool host = m_topology.IsHost(end);
            const bool stackHost = host && RunsStack(m_topology.HostIndex(end));
            ObjectFactory queue = !host ? portQueue : hostQueue;
            if (stackHost && m_stackHostDeviceQueue)
            {
                const QueueSize size = m_stackHostDeviceQueue(link.rateBps);
                if (size.GetValue() == 0)
                {
                    throw PrestoInputError("FabricHelper::SetStackHostEgress: the device queue "
                                           "must hold at least one packet");
                }
                queue.Set("MaxSize", QueueSizeValue(size));
            }
            // Flow control (device queue -> queue disc back-pressure) matters only where a
            // queue disc sits above the device: on hosts, and on routers in the reference
            // mode. On FabricSwitch ports it would only add trace calls to every packet.
            d.Add(OffloadNicHelper::InstallLinkEnd(m_nodes[end],
                                                   device,
                                                   queue,
                                                   host || m_useNs3Routers,
                                                   channel));
        }
        m_linkDevices.emplace_back(d.Get(0), d.Get(1));
        LinkDropCounter* counter = &m_linkDrops.emplace_back();
        for (uint32_t i = 0; i < 2; ++i)
        {
            d.Get(i)->TraceConnectWithoutContext("PhyTxBegin",
                                                 MakeCallback(&FabricHelper::CountHop, this));
            // the receive error model's drops: ns-3's path fires PhyRxDrop, the fast path
            // FastRxDrop (one or the other per frame)
            d.Get(i)->TraceConnectWithoutContext(
                "PhyRxDrop",
                MakeBoundCallback(&FabricHelper::CountLinkDrop, counter));
            if (DynamicCast<FabricLinkNetDevice>(d.Get(i)))
            {
                d.Get(i)->TraceConnectWithoutContext(
                    "FastRxDrop",
                    MakeBoundCallback(&FabricHelper::CountLinkDrop, counter));
            }
        }
    }
}

void
FabricHelper::InstallFabricSwitches()
{
    NodeContainer hosts = GetHosts();
    NetDeviceContainer hostDevices = GetHostDevices();
    InternetStackHelper stack;
    stack.Install(hosts);
    InstallHostQueueDiscs(hostDevices);
    Ipv4AddressHelper addresses("10.0.0.0", "255.0.0.0", "0.0.0.1");
    Ipv4InterfaceContainer ifs = addresses.Assign(hostDevices);
    m_hostAddresses.clear();
    for (uint32_t h = 0; h < hosts.GetN(); ++h)
    {
        m_hostAddresses.push_back(ifs.GetAddress(h).Get());
    }

    m_switchByNode.assign(m_topology.GetNNodes(), nullptr);
    for (uint32_t n = 0; n < m_topology.GetNNodes(); ++n)
    {
        if (m_topology.IsHost(n))
        {
            continue;
        }
        Ptr<FabricSwitch> sw = m_switchFactory.Create<FabricSwitch>();
        if (!m_seedSet)
        {
            // distinct per switch (odd multiplier: a bijection on 32 bits), never 0
            sw->SetAttribute("HashSeed", UintegerValue(0x9e3779b1u * (n + 1)));
        }
        m_nodes[n]->AggregateObject(sw);
        for (uint32_t p = 0; p < m_nodes[n]->GetNDevices(); ++p)
        {
            sw->AddPort(DynamicCast<PointToPointNetDevice>(m_nodes[n]->GetDevice(p)));
        }
        m_switchByNode[n] = sw;
    }
    ApplyDownLinks();
    InstallRoutes();
}

void
FabricHelper::InstallNs3Routers()
{
    NodeContainer all;
    for (auto& n : m_nodes)
    {
        all.Add(n);
    }
    InternetStackHelper stack;
    stack.Install(all);
    for (uint32_t n = 0; n < m_nodes.size(); ++n)
    {
        // per-packet random ECMP, set on each node's instance (no global Config default)
        Ptr<Ipv4ListRouting> list =
            DynamicCast<Ipv4ListRouting>(m_nodes[n]->GetObject<Ipv4>()->GetRoutingProtocol());
        for (uint32_t i = 0; list && i < list->GetNRoutingProtocols(); ++i)
        {
            int16_t priority;
            Ptr<Ipv4GlobalRouting> global =
                DynamicCast<Ipv4GlobalRouting>(list->GetRoutingProtocol(i, priority));
            if (global)
            {
                global->SetAttribute("RandomEcmpRouting", BooleanValue(true));
            }
        }
    }
    InstallHostQueueDiscs(GetHostDevices());
    TrafficControlHelper tch; // removes what Assign gives router ports

    NetDeviceContainer switchDevices;
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    std::vector<Ipv4Address> hostAddress(m_topology.GetNHosts());
    const auto& links = m_topology.GetLinks();
    for (uint32_t l = 0; l < links.size(); ++l)
    {
        NetDeviceContainer pair(m_linkDevices[l].first, m_linkDevices[l].second);
        Ipv4InterfaceContainer ifs = addresses.Assign(pair);
        addresses.NewNetwork();
        const uint32_t ends[2] = {links[l].a, links[l].b};
        for (uint32_t i = 0; i < 2; ++i)
        {
            if (m_topology.IsHost(ends[i]))
            {
                hostAddress[m_topology.HostIndex(ends[i])] = ifs.GetAddress(i);
            }
            else
            {
                switchDevices.Add(pair.Get(i));
            }
        }
    }
    // Assign gave router ports FqCoDel; remove it so that, as with FabricSwitch, the device
    // queue of BufferBytes is the port buffer.
    tch.Uninstall(switchDevices);
    for (uint32_t i = 0; i < switchDevices.GetN(); ++i)
    {
        DynamicCast<PointToPointNetDevice>(switchDevices.Get(i))
            ->GetQueue()
            ->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, m_bufferBytes));
    }
    m_hostAddresses.clear();
    for (const auto& a : hostAddress)
    {
        m_hostAddresses.push_back(a.Get());
    }
    m_switchByNode.assign(m_topology.GetNNodes(), nullptr);
    ApplyDownLinks();
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

void
FabricHelper::ApplyDownLinks()
{
    // links already failed in the topology given to Install
    for (uint32_t l = 0; l < m_topology.GetLinks().size(); ++l)
    {
        if (!m_topology.GetLinks()[l].up)
        {
            ApplyLinkDown(l);
        }
    }
}

void
FabricHelper::InstallRoutes()
{
    NS_LOG_FUNCTION(this);
    auto routes = m_topology.ComputeRoutes();
    for (uint32_t n = 0; n < m_switchByNode.size(); ++n)
    {
        if (m_switchByNode[n])
        {
            m_switchByNode[n]->SetRoutes(m_hostAddresses, routes[n]);
        }
    }
}

void
FabricHelper::FailLink(uint32_t link, Time at)
{
    NS_LOG_FUNCTION(this << link << at);
    CheckLink(link, "FailLink");
    if (at <= Simulator::Now())
    {
        DoFailLink(link);
    }
    else
    {
        Simulator::Schedule(at - Simulator::Now(), &FabricHelper::DoFailLink, this, link);
    }
}

void
FabricHelper::DoFailLink(uint32_t link)
{
    NS_LOG_FUNCTION(this << link);
    m_topology.SetLinkUp(link, false);
    ApplyLinkDown(link);
    if (m_useNs3Routers)
    {
        Ipv4GlobalRoutingHelper::RecomputeRoutingTables();
    }
    else
    {
        InstallRoutes();
    }
}

void
FabricHelper::ApplyLinkDown(uint32_t link)
{
    Ptr<NetDevice> ends[2] = {m_linkDevices[link].first, m_linkDevices[link].second};
    LinkDropCounter& counter = m_linkDrops[link];
    counter.down = true;
    for (auto& dev : ends)
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(1.0);
        auto p2p = DynamicCast<PointToPointNetDevice>(dev);
        // frames waiting in ns-3's device queue for a dead link are lost with it (the queue
        // counts them as dropped after dequeue; the hosts' device queue drops in summary.json
        // are those before enqueue)
        counter.drops.linkDown += p2p->GetQueue() ? p2p->GetQueue()->GetNPackets() : 0;
        if (auto link = DynamicCast<FabricLinkNetDevice>(dev))
        {
            // the fast path's own hook (PointToPointNetDevice's is not virtual); frames
            // already on their way, and those its FIFO flushes (their arrival events are
            // scheduled), are dropped by it at the far end and counted there
            link->SetLinkReceiveErrorModel(em);
            link->FlushQueue();
        }
        else
        {
            p2p->SetReceiveErrorModel(em);
            p2p->GetQueue()->Flush();
        }
        if (m_useNs3Routers)
        {
            // global routing skips interfaces that are down
            Ptr<Ipv4> ipv4 = dev->GetNode()->GetObject<Ipv4>();
            int32_t iface = ipv4->GetInterfaceForDevice(dev);
            if (iface >= 0)
            {
                ipv4->SetDown(iface);
            }
        }
    }
}

void
FabricHelper::CountLinkDrop(LinkDropCounter* counter, Ptr<const Packet>)
{
    ++(counter->down ? counter->drops.linkDown : counter->drops.randomLoss);
}

FabricHelper::LinkDrops
FabricHelper::GetLinkDrops() const
{
    LinkDrops sum;
    for (const LinkDropCounter& c : m_linkDrops)
    {
        sum.randomLoss += c.drops.randomLoss;
        sum.linkDown += c.drops.linkDown;
    }
    return sum;
}

uint64_t
FabricHelper::GetFramesInFlight() const
{
    uint64_t inFlight = 0;
    for (const auto& [a, b] : m_linkDevices)
    {
        auto fa = DynamicCast<FabricLinkNetDevice>(a);
        auto fb = DynamicCast<FabricLinkNetDevice>(b);
        if (!fa || !fb)
        {
            continue;
        }
        // a frame counted as sent by one end has arrived at the other (received or dropped
        // by its error model) or is still on its way
        const std::pair<Ptr<FabricLinkNetDevice>, Ptr<FabricLinkNetDevice>> dirs[] = {{fa, fb},
                                                                                      {fb, fa}};
        for (const auto& [from, to] : dirs)
        {
            inFlight += from->GetTxPackets() - to->GetRxPackets() - to->GetRxDrops();
        }
    }
    return inFlight;
}

void
FabricHelper::SetLinkRate(uint32_t link, double rateBps, Time at)
{
    NS_LOG_FUNCTION(this << link << rateBps << at);
    CheckLink(link, "SetLinkRate");
    if (!(rateBps >= 1))
    {
        std::ostringstream os;
        os << "FabricHelper::SetLinkRate: link " << link << " rate must be >= 1 bit/s (got "
           << rateBps << ")";
        throw PrestoInputError(os.str());
    }
    if (at <= Simulator::Now())
    {
        DoSetLinkRate(link, rateBps);
    }
    else
    {
        Simulator::Schedule(at - Simulator::Now(),
                            &FabricHelper::DoSetLinkRate,
                            this,
                            link,
                            rateBps);
    }
}

void
FabricHelper::DoSetLinkRate(uint32_t link, double rateBps)
{
    NS_LOG_FUNCTION(this << link << rateBps);
    DataRateValue rate{DataRate(uint64_t(rateBps))};
    for (const auto& dev : {m_linkDevices[link].first, m_linkDevices[link].second})
    {
        if (auto fast = DynamicCast<FabricLinkNetDevice>(dev))
        {
            fast->SetLinkRate(rate.Get()); // also its cached transmission times
        }
        else
        {
            dev->SetAttribute("DataRate", rate);
        }
    }
    m_topology.SetLinkRate(link, rateBps);
}

void
FabricHelper::EnablePcapHosts(const std::string& prefix)
{
    CheckInstalled("EnablePcapHosts");
    NetDeviceContainer devices = GetHostDevices();
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        // either link model: the fast path's frames reach the same file
        FabricLinkNetDevice::EnablePcap(prefix, DynamicCast<PointToPointNetDevice>(devices.Get(i)));
    }
}

int64_t
FabricHelper::AssignStreams(int64_t stream)
{
    CheckInstalled("AssignStreams");
    int64_t current = stream;
    if (m_useNs3Routers)
    {
        NodeContainer all;
        for (auto& n : m_nodes)
        {
            all.Add(n);
        }
        InternetStackHelper stack;
        current += stack.AssignStreams(all, current);
    }
    for (auto& sw : m_switchByNode)
    {
        if (sw)
        {
            current += sw->AssignStreams(current);
        }
    }
    return current - stream;
}

const FabricTopology&
FabricHelper::GetTopology() const
{
    return m_topology;
}

NodeContainer
FabricHelper::GetHosts() const
{
    NodeContainer c;
    for (uint32_t h = 0; h < m_topology.GetNHosts() && !m_nodes.empty(); ++h)
    {
        c.Add(m_nodes[m_topology.HostNode(h)]);
    }
    return c;
}

NodeContainer
FabricHelper::GetSwitches() const
{
    NodeContainer c;
    for (uint32_t n = 0; n < m_nodes.size(); ++n)
    {
        if (!m_topology.IsHost(n))
        {
            c.Add(m_nodes[n]);
        }
    }
    return c;
}

NetDeviceContainer
FabricHelper::GetHostDevices() const
{
    NetDeviceContainer c;
    if (m_linkDevices.empty())
    {
        return c;
    }
    for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
    {
        const uint32_t node = m_topology.HostNode(h);
        const uint32_t link = m_topology.GetPorts(node)[0];
        c.Add(m_topology.GetLinks()[link].a == node ? m_linkDevices[link].first
                                                    : m_linkDevices[link].second);
    }
    return c;
}

Ipv4Address
FabricHelper::GetHostAddress(uint32_t host) const
{
    CheckInstalled("GetHostAddress");
    if (host >= m_hostAddresses.size())
    {
        throw PrestoInputError("FabricHelper::GetHostAddress: no host " + std::to_string(host));
    }
    return Ipv4Address(m_hostAddresses[host]);
}

std::vector<Ptr<FabricSwitch>>
FabricHelper::GetSwitchObjects() const
{
    std::vector<Ptr<FabricSwitch>> v;
    for (const auto& sw : m_switchByNode)
    {
        if (sw)
        {
            v.push_back(sw);
        }
    }
    return v;
}

Ptr<Node>
FabricHelper::GetNode(uint32_t node) const
{
    CheckInstalled("GetNode");
    if (node >= m_nodes.size())
    {
        throw PrestoInputError("FabricHelper::GetNode: no node " + std::to_string(node));
    }
    return m_nodes[node];
}

uint64_t
FabricHelper::GetPacketHops() const
{
    uint64_t hops = m_packetHops; // PhyTxBegin of the point-to-point paths
    for (const auto& [a, b] : m_linkDevices)
    {
        for (const auto& dev : {a, b})
        {
            if (auto fast = DynamicCast<FabricLinkNetDevice>(dev))
            {
                hops += fast->GetTxPackets(); // the fast path fires no PhyTxBegin
            }
        }
    }
    return hops;
}

std::pair<Ptr<NetDevice>, Ptr<NetDevice>>
FabricHelper::GetLinkDevices(uint32_t link) const
{
    CheckLink(link, "GetLinkDevices");
    return m_linkDevices[link];
}

void
FabricHelper::CountHop(Ptr<const Packet>)
{
    ++m_packetHops;
}

} // namespace ns3
