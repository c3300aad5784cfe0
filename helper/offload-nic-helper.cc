/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-nic-helper.h"

#include "nic-design.h"

#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-socket.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-net-device.h"
#include "ns3/presto-ns3-compat.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadNicHelper");

namespace
{

/**
 * \param tid a TypeId
 * \param name an attribute name
 * \param value a value
 * \return "" if tid has the attribute and the value fits it, else why not
 */
std::string
AttributeProblem(TypeId tid, const std::string& name, const AttributeValue& value)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        return tid.GetName() + " has no attribute '" + name + "'";
    }
    if (!compat::CreateValidValue(info.checker, value))
    {
        return "invalid value for " + tid.GetName() + "::" + name;
    }
    return "";
}

/**
 * \param tid a TypeId
 * \param base another
 * \return true if tid is base or a subclass of it
 */
bool
IsA(TypeId tid, TypeId base)
{
    return tid == base || tid.IsChildOf(base);
}

} // namespace

OffloadNicHelper::OffloadNicHelper()
    : m_deviceType(PrestoNetDevice::GetTypeId())
{
    m_queueFactory.SetTypeId("ns3::DropTailQueue<Packet>");
    m_channelFactory.SetTypeId("ns3::PointToPointChannel");
}

void
OffloadNicHelper::SetDeviceType(const std::string& type)
{
    NS_LOG_FUNCTION(this << type);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(type, &tid))
    {
        // a design's name as the experiments take it: presto, flextoe, cora, or a registered
        // design's TypeId name without "ns3::"
        try
        {
            tid = NicDesign::GetTypeId(type);
        }
        catch (const PrestoInputError& e)
        {
            throw PrestoInputError("OffloadNicHelper::SetDeviceType: no TypeId '" + type +
                                   "' and " + e.what());
        }
    }
    if (!tid.IsChildOf(OffloadNetDevice::GetTypeId()))
    {
        throw PrestoInputError("OffloadNicHelper::SetDeviceType: " + type +
                               " is not an offload NIC (a subclass of ns3::OffloadNetDevice)");
    }
    if (!tid.HasConstructor())
    {
        throw PrestoInputError("OffloadNicHelper::SetDeviceType: " + type +
                               " cannot be created (no constructor)");
    }
    const TypeId previous = m_deviceType;
    m_deviceType = tid;
    try
    {
        CheckAttributes();
    }
    catch (const PrestoInputError&)
    {
        m_deviceType = previous;
        throw;
    }
}

TypeId
OffloadNicHelper::GetDeviceType() const
{
    return m_deviceType;
}

void
OffloadNicHelper::SetDeviceAttribute(const std::string& name, const AttributeValue& value)
{
    NS_LOG_FUNCTION(this << name);
    const std::string problem = AttributeProblem(m_deviceType, name, value);
    if (!problem.empty())
    {
        throw PrestoInputError("OffloadNicHelper::SetDeviceAttribute: " + problem);
    }
    m_deviceAttributes.emplace_back(name, value.Copy());
}

void
OffloadNicHelper::CheckAttributes() const
{
    for (const auto& [name, value] : m_deviceAttributes)
    {
        const std::string problem = AttributeProblem(m_deviceType, name, *value);
        if (!problem.empty())
        {
            throw PrestoInputError("OffloadNicHelper: attribute set before the design " +
                                   m_deviceType.GetName() + ": " + problem);
        }
    }
}

void
OffloadNicHelper::SetChannelAttribute(const std::string& name, const AttributeValue& value)
{
    NS_LOG_FUNCTION(this << name);
    const std::string problem = AttributeProblem(m_channelFactory.GetTypeId(), name, value);
    if (!problem.empty())
    {
        throw PrestoInputError("OffloadNicHelper::SetChannelAttribute: " + problem);
    }
    m_channelFactory.Set(name, value);
}

void
OffloadNicHelper::DisableFlowControl()
{
    m_flowControl = false;
}

NetDeviceContainer
OffloadNicHelper::Install(NodeContainer c)
{
    if (c.GetN() != 2)
    {
        throw PrestoInputError("OffloadNicHelper::Install: need two nodes (host, peer), got " +
                               std::to_string(c.GetN()));
    }
    return Install(c.Get(0), c.Get(1));
}

NetDeviceContainer
OffloadNicHelper::Install(Ptr<Node> host, Ptr<Node> peer)
{
    NS_LOG_FUNCTION(this << host << peer);
    if (!host || !peer || host == peer)
    {
        throw PrestoInputError("OffloadNicHelper::Install: need two distinct nodes");
    }
    ObjectFactory nic;
    nic.SetTypeId(m_deviceType);
    ObjectFactory port;
    port.SetTypeId(PointToPointNetDevice::GetTypeId());
    const TypeId p2p = PointToPointNetDevice::GetTypeId();
    for (const auto& [name, value] : m_deviceAttributes)
    {
        nic.Set(name, *value);
        if (AttributeProblem(p2p, name, *value).empty())
        {
            port.Set(name, *value); // a link property: both ends
        }
    }
    Ptr<PointToPointChannel> channel = m_channelFactory.Create<PointToPointChannel>();
    NetDeviceContainer devices;
    devices.Add(InstallLinkEnd(host, nic, m_queueFactory, m_flowControl, channel));
    devices.Add(InstallLinkEnd(peer, port, m_queueFactory, m_flowControl, channel));
    if (!host->GetObject<OffloadSocketFactory>())
    {
        throw PrestoInputError("OffloadNicHelper::Install: " + m_deviceType.GetName() +
                               " did not install ns3::OffloadSocketFactory on node " +
                               std::to_string(host->GetId()));
    }
    return devices;
}

Ptr<PointToPointNetDevice>
OffloadNicHelper::InstallLinkEnd(Ptr<Node> node,
                                 const ObjectFactory& device,
                                 const ObjectFactory& queue,
                                 bool flowControl,
                                 Ptr<PointToPointChannel> channel)
{
    NS_LOG_FUNCTION(node << device.GetTypeId().GetName() << flowControl);
    // checked before anything is created, so that a refused call leaves the node as it was
    if (!IsA(device.GetTypeId(), PointToPointNetDevice::GetTypeId()))
    {
        throw PrestoInputError("device type " + device.GetTypeId().GetName() +
                               " is not a PointToPointNetDevice");
    }
    if (!IsA(queue.GetTypeId(), Queue<Packet>::GetTypeId()))
    {
        throw PrestoInputError("queue type " + queue.GetTypeId().GetName() +
                               " is not a Queue<Packet>");
    }
    Ptr<PointToPointNetDevice> dev = device.Create<PointToPointNetDevice>();
    dev->SetAddress(Mac48Address::Allocate());
    node->AddDevice(dev);
    Ptr<Queue<Packet>> q = queue.Create<Queue<Packet>>();
    dev->SetQueue(q);
    if (flowControl)
    {
        Ptr<NetDeviceQueueInterface> ndqi = CreateObject<NetDeviceQueueInterface>();
        ndqi->GetTxQueue(0)->ConnectQueueTraces(q);
        dev->AggregateObject(ndqi);
    }
    dev->Attach(channel);
    return dev;
}

void
OffloadNicHelper::EnablePcapInternal(std::string prefix,
                                     Ptr<NetDevice> nd,
                                     bool promiscuous,
                                     bool explicitFilename)
{
    // the NIC is a PointToPointNetDevice on the wire: PointToPointHelper writes its frames
    m_pcap.EnablePcap(prefix, nd, promiscuous, explicitFilename);
}

} // namespace ns3
