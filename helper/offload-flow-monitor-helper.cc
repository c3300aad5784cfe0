/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-flow-monitor-helper.h"

#include "ns3/fabric-link-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/flow-monitor.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/offload-net-device.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/tag.h"
#include "ns3/traffic-control-layer.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadFlowProbe");
NS_OBJECT_ENSURE_REGISTERED(OffloadFlowProbe);

namespace
{

/**
 * The byte tag of a monitored frame: flow id, packet id, size, source, destination, in the
 * layout of ns-3's Ipv4FlowProbeTag (flow-monitor/model/ipv4-flow-probe.cc, the same since
 * ns-3.27). Ours, as a packet tag, for the frames an offload NIC sends; ns-3's byte tag (its
 * TypeId, once ns-3 has registered it by tagging a frame) to read what ns-3's hosts send.
 * ns-3's class is not in a public header, so it is read through this twin of its layout.
 */
class FlowTag : public Tag
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::OffloadFlowProbeTag")
                                .SetParent<Tag>()
                                .SetGroupName("Presto")
                                .AddConstructor<FlowTag>();
        return tid;
    }

    FlowTag()
        : m_tid(GetTypeId())
    {
    }

    /** \param tid the tag type to stand for (ours or ns-3's) */
    explicit FlowTag(TypeId tid)
        : m_tid(tid)
    {
    }

    TypeId GetInstanceTypeId() const override
    {
        return m_tid;
    }

    uint32_t GetSerializedSize() const override
    {
        return 4 + 4 + 4 + 8;
    }

    void Serialize(TagBuffer buf) const override
    {
        buf.WriteU32(flow);
        buf.WriteU32(packet);
        buf.WriteU32(size);
        uint8_t a[4];
        src.Serialize(a);
        buf.Write(a, 4);
        dst.Serialize(a);
        buf.Write(a, 4);
    }

    void Deserialize(TagBuffer buf) override
    {
        flow = buf.ReadU32();
        packet = buf.ReadU32();
        size = buf.ReadU32();
        uint8_t a[4];
        buf.Read(a, 4);
        src = Ipv4Address::Deserialize(a);
        buf.Read(a, 4);
        dst = Ipv4Address::Deserialize(a);
    }

    void Print(std::ostream& os) const override
    {
        os << "FlowId=" << flow << " PacketId=" << packet << " PacketSize=" << size;
    }

    uint32_t flow{0};   //!< FlowId
    uint32_t packet{0}; //!< FlowPacketId
    uint32_t size{0};   //!< the datagram's bytes
    Ipv4Address src;    //!< its source
    Ipv4Address dst;    //!< its destination

  private:
    TypeId m_tid; //!< which tag this stands for
};

NS_OBJECT_ENSURE_REGISTERED(FlowTag);

/**
 * ns-3's Ipv4FlowProbeTag's TypeId, once registered (ns-3 registers it the first time its
 * probe tags a frame; before that no frame can carry it).
 * \param[out] tid the TypeId
 * \return whether it is registered
 */
bool
Ns3TagType(TypeId& tid)
{
    static bool found = false;
    static TypeId known;
    if (!found)
    {
        found = TypeId::LookupByNameFailSafe("ns3::Ipv4FlowProbeTag", &known);
    }
    tid = known;
    return found;
}

} // namespace

TypeId
OffloadFlowProbe::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OffloadFlowProbe").SetParent<FlowProbe>().SetGroupName("Presto");
    return tid;
}

OffloadFlowProbe::OffloadFlowProbe(Ptr<FlowMonitor> monitor,
                                   Ptr<Ipv4FlowClassifier> classifier,
                                   Ptr<Node> node)
    : FlowProbe(monitor),
      m_classifier(classifier)
{
    NS_LOG_FUNCTION(this << node->GetId());
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        Ptr<NetDevice> dev = node->GetDevice(i);
        if (Ptr<OffloadNetDevice> nic = DynamicCast<OffloadNetDevice>(dev))
        {
            nic->TraceConnectWithoutContext("WireTx", MakeCallback(&OffloadFlowProbe::NicTx, this));
            nic->TraceConnectWithoutContext("WireRx", MakeCallback(&OffloadFlowProbe::NicRx, this));
            nic->TraceConnectWithoutContext("WireTxDrop",
                                            MakeCallback(&OffloadFlowProbe::NicTxDrop, this));
            ++m_sources;
        }
        if (Ptr<FabricLinkNetDevice> link = DynamicCast<FabricLinkNetDevice>(dev))
        {
            // an offload NIC is a fabric link too: its queue and error model drop here
            link->TraceConnectWithoutContext("FastTxDrop",
                                             MakeCallback(&OffloadFlowProbe::LinkTxDrop, this));
            link->TraceConnectWithoutContext("FastRxDrop",
                                             MakeCallback(&OffloadFlowProbe::LinkRxDrop, this));
            ++m_sources;
        }
    }
    Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();
    if (ip)
    {
        // what ns-3's probe listens to, for the frames it does not know
        ip->TraceConnectWithoutContext("LocalDeliver",
                                       MakeCallback(&OffloadFlowProbe::IpDeliver, this));
        ip->TraceConnectWithoutContext("UnicastForward",
                                       MakeCallback(&OffloadFlowProbe::IpForward, this));
        ip->TraceConnectWithoutContext("Drop", MakeCallback(&OffloadFlowProbe::IpDrop, this));
        ++m_sources;
    }
    Ptr<TrafficControlLayer> tc = node->GetObject<TrafficControlLayer>();
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        Ptr<NetDevice> dev = node->GetDevice(i);
        Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
        if (p2p)
        {
            // the receive error model of a point-to-point link (--links=p2p; a fast link's
            // slow path), and of a failed link: ns-3's probe does not listen to it
            p2p->TraceConnectWithoutContext("PhyRxDrop",
                                            MakeCallback(&OffloadFlowProbe::LinkRxDrop, this));
            ++m_sources;
        }
        if (p2p && p2p->GetQueue())
        {
            // ns-3's probe listens to the device queues of nodes with an IP stack only
            p2p->GetQueue()->TraceConnectWithoutContext(
                "Drop",
                MakeCallback(ip ? &OffloadFlowProbe::QueueDropOwn : &OffloadFlowProbe::QueueDropAny,
                             this));
        }
        if (Ptr<QueueDisc> root = tc ? tc->GetRootQueueDiscOnDevice(dev) : nullptr)
        {
            root->TraceConnectWithoutContext("Drop",
                                             MakeCallback(&OffloadFlowProbe::QueueDiscDrop, this));
        }
    }
    if (Ptr<FabricSwitch> sw = node->GetObject<FabricSwitch>())
    {
        sw->TraceConnectWithoutContext("Drop", MakeCallback(&OffloadFlowProbe::SwitchDrop, this));
        ++m_sources;
    }
}

uint32_t
OffloadFlowProbe::GetSourceCount() const
{
    return m_sources;
}

void
OffloadFlowProbe::DoDispose()
{
    m_classifier = nullptr;
    FlowProbe::DoDispose();
}

void
OffloadFlowProbe::NicTx(Ptr<const Packet> frame,
                        Ipv4Address src,
                        Ipv4Address dst,
                        uint16_t srcPort,
                        uint16_t dstPort)
{
    uint32_t flow;
    uint32_t packet;
    uint32_t size;
    if (FindTag(frame, true, nullptr, nullptr, flow, packet, size))
    {
        return; // already seen (as ns-3's probe does not count a frame twice)
    }
    // the classifier reads the ports from the first 4 bytes of the IP payload: a frame with
    // headers as fields has none yet, so it gets them on their own
    Ipv4Header ip;
    ip.SetSource(src);
    ip.SetDestination(dst);
    ip.SetProtocol(6);
    ip.SetPayloadSize(frame->GetSize() - 20);
    const uint8_t ports[4] = {static_cast<uint8_t>(srcPort >> 8),
                              static_cast<uint8_t>(srcPort),
                              static_cast<uint8_t>(dstPort >> 8),
                              static_cast<uint8_t>(dstPort)};
    if (!m_classifier->Classify(ip, Create<Packet>(ports, 4), &flow, &packet))
    {
        return;
    }
    FlowTag tag;
    tag.flow = flow;
    tag.packet = packet;
    tag.size = frame->GetSize(); // the datagram, as ns-3 counts it: headers included
    tag.src = src;
    tag.dst = dst;
    NS_LOG_DEBUG("ReportFirstTx " << flow << " " << packet << " " << tag.size);
    m_flowMonitor->ReportFirstTx(this, flow, packet, tag.size);
    // a packet tag where ns-3's probe has a byte tag: a frame with headers as fields gets its
    // header bytes written on the way (FabricFrameFields::EnsureBytes replaces the
    // placeholder), which leaves a byte tag on a frame without payload covering no byte (a
    // const frame: the tag is metadata, not bytes)
    ConstCast<Packet>(frame)->AddPacketTag(tag);
}

void
OffloadFlowProbe::NicRx(Ptr<const Packet> frame,
                        Ipv4Address src,
                        Ipv4Address dst,
                        uint16_t,
                        uint16_t)
{
    uint32_t flow;
    uint32_t packet;
    uint32_t size;
    if (FindTag(frame, true, &src, &dst, flow, packet, size))
    {
        NS_LOG_DEBUG("ReportLastRx " << flow << " " << packet << " " << frame->GetSize());
        m_flowMonitor->ReportLastRx(this, flow, packet, frame->GetSize());
    }
}

void
OffloadFlowProbe::NicTxDrop(Ptr<const Packet> frame, Ipv4Address, Ipv4Address, uint16_t, uint16_t)
{
    ReportTaggedDrop(frame, DROP_QUEUE);
}

void
OffloadFlowProbe::IpDeliver(const Ipv4Header& header, Ptr<const Packet> payload, uint32_t)
{
    // ns-3's own probe reports the frames with its tag; this one those with ours
    uint32_t flow;
    uint32_t packet;
    uint32_t size;
    const Ipv4Address src = header.GetSource();
    const Ipv4Address dst = header.GetDestination();
    if (FindTag(payload, false, &src, &dst, flow, packet, size))
    {
        m_flowMonitor->ReportLastRx(this,
                                    flow,
                                    packet,
                                    payload->GetSize() + header.GetSerializedSize());
    }
}

void
OffloadFlowProbe::IpDrop(const Ipv4Header& header,
                         Ptr<const Packet> payload,
                         Ipv4L3Protocol::DropReason,
                         Ptr<Ipv4>,
                         uint32_t)
{
    uint32_t flow;
    uint32_t packet;
    uint32_t size;
    if (FindTag(payload, false, nullptr, nullptr, flow, packet, size))
    {
        m_flowMonitor->ReportDrop(this, flow, packet, size, DROP_IP_STACK);
    }
}

void
OffloadFlowProbe::IpForward(const Ipv4Header& header, Ptr<const Packet> payload, uint32_t)
{
    uint32_t flow;
    uint32_t packet;
    uint32_t size;
    const Ipv4Address src = header.GetSource();
    const Ipv4Address dst = header.GetDestination();
    if (FindTag(payload, false, &src, &dst, flow, packet, size))
    {
        m_flowMonitor->ReportForwarding(this,
                                        flow,
                                        packet,
                                        payload->GetSize() + header.GetSerializedSize());
    }
}

void
OffloadFlowProbe::QueueDropOwn(Ptr<const Packet> frame)
{
    ReportTaggedDrop(frame, DROP_QUEUE, false);
}

void
OffloadFlowProbe::QueueDropAny(Ptr<const Packet> frame)
{
    ReportTaggedDrop(frame, DROP_QUEUE, true);
}

void
OffloadFlowProbe::QueueDiscDrop(Ptr<const QueueDiscItem> item)
{
    ReportTaggedDrop(item->GetPacket(), DROP_QUEUE_DISC, false);
}

void
OffloadFlowProbe::SwitchDrop(Ptr<const Packet> frame, uint32_t port)
{
    ReportTaggedDrop(frame, port == FabricSwitch::NO_PORT ? DROP_NO_ROUTE : DROP_QUEUE);
}

void
OffloadFlowProbe::LinkTxDrop(Ptr<const Packet> frame)
{
    ReportTaggedDrop(frame, DROP_QUEUE);
}

void
OffloadFlowProbe::LinkRxDrop(Ptr<const Packet> frame)
{
    ReportTaggedDrop(frame, DROP_LINK_LOSS);
}

void
OffloadFlowProbe::ReportTaggedDrop(Ptr<const Packet> frame, uint32_t reason, bool ns3Tags)
{
    // ns3Tags where ns-3's probe does not listen (the fabric has no IP stack), so that no
    // drop is reported twice
    uint32_t flow;
    uint32_t packet;
    uint32_t size;
    if (FindTag(frame, ns3Tags, nullptr, nullptr, flow, packet, size))
    {
        NS_LOG_DEBUG("ReportDrop " << flow << " " << packet << " " << size << " " << reason);
        m_flowMonitor->ReportDrop(this, flow, packet, size, reason);
    }
}

bool
OffloadFlowProbe::FindTag(Ptr<const Packet> frame,
                          bool ns3Tags,
                          const Ipv4Address* src,
                          const Ipv4Address* dst,
                          uint32_t& flow,
                          uint32_t& packet,
                          uint32_t& size)
{
    FlowTag tag;
    bool found = frame->PeekPacketTag(tag);
    TypeId ns3;
    if (!found && ns3Tags && Ns3TagType(ns3))
    {
        tag = FlowTag(ns3);
        found = frame->FindFirstMatchingByteTag(tag);
    }
    if (!found || (src && tag.src != *src) || (dst && tag.dst != *dst))
    {
        return false;
    }
    flow = tag.flow;
    packet = tag.packet;
    size = tag.size;
    return true;
}

uint32_t
OffloadFlowMonitorHelper::Install(FlowMonitorHelper& flowmon)
{
    NodeContainer all;
    for (auto i = NodeList::Begin(); i != NodeList::End(); ++i)
    {
        all.Add(*i);
    }
    return Install(flowmon, all);
}

uint32_t
OffloadFlowMonitorHelper::Install(FlowMonitorHelper& flowmon, NodeContainer nodes)
{
    Ptr<FlowMonitor> monitor = flowmon.GetMonitor();
    Ptr<Ipv4FlowClassifier> classifier = DynamicCast<Ipv4FlowClassifier>(flowmon.GetClassifier());
    uint32_t probes = 0;
    for (auto i = nodes.Begin(); i != nodes.End(); ++i)
    {
        bool any = (*i)->GetObject<Ipv4L3Protocol>() || (*i)->GetObject<FabricSwitch>();
        for (uint32_t d = 0; d < (*i)->GetNDevices() && !any; ++d)
        {
            any = DynamicCast<FabricLinkNetDevice>((*i)->GetDevice(d)) != nullptr;
        }
        if (any)
        {
            // the monitor holds it: FlowProbe's constructor adds it
            Create<OffloadFlowProbe>(monitor, classifier, *i);
            ++probes;
        }
    }
    return probes;
}

} // namespace ns3
