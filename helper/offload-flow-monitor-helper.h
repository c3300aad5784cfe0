/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_FLOW_MONITOR_HELPER_H
#define PRESTO_OFFLOAD_FLOW_MONITOR_HELPER_H

#include "ns3/flow-monitor-helper.h"
#include "ns3/flow-probe.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-flow-classifier.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/queue-item.h"

/**
 * \file
 * \ingroup presto
 * FlowMonitor for the frames ns-3's Ipv4FlowProbe cannot see: those of offloaded connections
 * (the NIC sends and receives them without Ipv4L3Protocol) and those the fabric drops
 * (its switches and fast links have no IP stack).
 */

namespace ns3
{

/**
 * \ingroup presto
 * \brief A FlowMonitor probe on one node: its offload NICs' frames (OffloadNetDevice's
 * WireTx, WireRx, WireTxDrop), the frames of offload NICs that its ns-3 IP stack delivers or
 * drops, and the drops of its fabric switch and fast links.
 *
 * It classifies with the FlowMonitorHelper's Ipv4FlowClassifier, so a flow has one FlowId
 * whichever probe saw it, and reports to the same FlowMonitor: packets and bytes as ns-3
 * counts them (the IPv4 datagram: headers included), delay from the first transmission to
 * the last reception, jitter, drops with a reason. Frames the offload NICs send carry a
 * packet tag laid out as ns-3's Ipv4FlowProbeTag (flow id, packet id, size, source,
 * destination); frames ns-3's hosts send carry ns-3's byte tag, which this probe reads where
 * ns-3's probe does not look (an offload NIC's receive side, the fabric's drops).
 */
class OffloadFlowProbe : public FlowProbe
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /** The drop reasons this probe reports (FlowMonitor keeps a count per code). */
    enum DropReason
    {
        /// ns-3's Ipv4FlowProbe::DROP_NO_ROUTE: a switch without a route to the destination
        DROP_NO_ROUTE = 0,
        /// ns-3's Ipv4FlowProbe::DROP_QUEUE: a full switch buffer, device queue or NIC
        /// transmit backlog
        DROP_QUEUE = 3,
        /// the receive error model of a fabric link (ns-3's probe has no code for it)
        DROP_LINK_LOSS = 9,
        /// a frame the receiving host's IP stack dropped (Ipv4L3Protocol's Drop)
        DROP_IP_STACK = 10,
        /// ns-3's Ipv4FlowProbe::DROP_QUEUE_DISC: a router's or host's root queue disc
        DROP_QUEUE_DISC = 4,
    };

    /**
     * Attach to everything of `node` that can send, receive or drop a frame the IP probe
     * does not see.
     * \param monitor the FlowMonitor (FlowMonitorHelper::GetMonitor)
     * \param classifier the IPv4 classifier (FlowMonitorHelper::GetClassifier)
     * \param node the node
     */
    OffloadFlowProbe(Ptr<FlowMonitor> monitor, Ptr<Ipv4FlowClassifier> classifier, Ptr<Node> node);

    /** \return the offload NICs, IP stacks, switches and links this probe listens to */
    uint32_t GetSourceCount() const;

  protected:
    void DoDispose() override;

  private:
    /// WireTx: classify, report the first transmission, tag
    void NicTx(Ptr<const Packet> frame,
               Ipv4Address src,
               Ipv4Address dst,
               uint16_t srcPort,
               uint16_t dstPort);
    /// WireRx: the last reception of a tagged frame
    void NicRx(Ptr<const Packet> frame,
               Ipv4Address src,
               Ipv4Address dst,
               uint16_t srcPort,
               uint16_t dstPort);
    /// WireTxDrop: refused by the NIC's device queue
    void NicTxDrop(Ptr<const Packet> frame,
                   Ipv4Address src,
                   Ipv4Address dst,
                   uint16_t srcPort,
                   uint16_t dstPort);
    /// Ipv4L3Protocol LocalDeliver: an offload NIC's frame at an ns-3 host
    void IpDeliver(const Ipv4Header& header, Ptr<const Packet> payload, uint32_t interface);
    /// Ipv4L3Protocol Drop: an offload NIC's frame dropped by an ns-3 host
    void IpDrop(const Ipv4Header& header,
                Ptr<const Packet> payload,
                Ipv4L3Protocol::DropReason reason,
                Ptr<Ipv4> ipv4,
                uint32_t interface);
    /// Ipv4L3Protocol UnicastForward: an offload NIC's frame through an ns-3 router
    void IpForward(const Ipv4Header& header, Ptr<const Packet> payload, uint32_t interface);
    /// a device queue's Drop on a node with an IP stack: ns-3's probe reports its own frames
    void QueueDropOwn(Ptr<const Packet> frame);
    /// a device queue's Drop on a node without one (a switch port): both tags
    void QueueDropAny(Ptr<const Packet> frame);
    /// a root queue disc's Drop: ns-3's probe reports its own frames
    void QueueDiscDrop(Ptr<const QueueDiscItem> item);
    /// FabricSwitch Drop
    void SwitchDrop(Ptr<const Packet> frame, uint32_t port);
    /// FabricLinkNetDevice FastTxDrop
    void LinkTxDrop(Ptr<const Packet> frame);
    /// FabricLinkNetDevice FastRxDrop
    void LinkRxDrop(Ptr<const Packet> frame);
    /**
     * Report a drop of a tagged frame.
     * \param frame the frame \param reason the code \param ns3Tags also ns-3's tag
     */
    void ReportTaggedDrop(Ptr<const Packet> frame, uint32_t reason, bool ns3Tags = true);

    /**
     * The flow and packet of a tagged frame: ours, or (where `ns3Tags`) ns-3's.
     * \param frame the frame
     * \param ns3Tags also look for ns-3's tag
     * \param src if not null, the source the tag must name (as ns-3's IsSrcDstValid)
     * \param dst if not null, the destination the tag must name
     * \param[out] flow its flow
     * \param[out] packet its packet
     * \param[out] size its size
     * \return whether it is tagged
     */
    bool FindTag(Ptr<const Packet> frame,
                 bool ns3Tags,
                 const Ipv4Address* src,
                 const Ipv4Address* dst,
                 uint32_t& flow,
                 uint32_t& packet,
                 uint32_t& size);

    Ptr<Ipv4FlowClassifier> m_classifier; //!< the helper's classifier
    uint32_t m_sources{0};                //!< what this probe listens to
};

/**
 * \ingroup presto
 * \brief FlowMonitor for fabrics with offload NICs: after (or before)
 * `FlowMonitorHelper::InstallAll`, one call
 *
 *     FlowMonitorHelper flowmon;
 *     Ptr<FlowMonitor> monitor = flowmon.InstallAll();
 *     OffloadFlowMonitorHelper::Install(flowmon);
 *
 * puts an OffloadFlowProbe on every node, so that offloaded flows, flows between an offload
 * NIC and ns-3's TCP, and the fabric's drops appear in the same FlowMonitor as ns-3's own
 * flows, under the same classifier.
 */
class OffloadFlowMonitorHelper
{
  public:
    /**
     * Probe every node of the simulation.
     * \param flowmon the FlowMonitorHelper whose monitor and classifier to use
     * \return the number of probes installed (nodes with something to listen to)
     */
    static uint32_t Install(FlowMonitorHelper& flowmon);
    /**
     * Probe the given nodes.
     * \param flowmon the FlowMonitorHelper whose monitor and classifier to use
     * \param nodes the nodes
     * \return the number of probes installed
     */
    static uint32_t Install(FlowMonitorHelper& flowmon, NodeContainer nodes);
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_FLOW_MONITOR_HELPER_H
