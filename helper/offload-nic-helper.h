/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_NIC_HELPER_H
#define PRESTO_OFFLOAD_NIC_HELPER_H

#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue.h"
#include "ns3/trace-helper.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class PointToPointChannel;
class PointToPointNetDevice;

/**
 * \ingroup presto
 * \brief Puts an offload NIC on a host, as PointToPointHelper puts a point-to-point device:
 * each Install makes one link, the host's end an offload NIC of the chosen design, the
 * peer's end an ordinary PointToPointNetDevice (the peer is a router, a switch or a host
 * running ns-3's own TCP).
 *
 * \code
 *   OffloadNicHelper nic;
 *   nic.SetDeviceType("ns3::FlexToeNetDevice");           // default ns3::PrestoNetDevice
 *   nic.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
 *   nic.SetChannelAttribute("Delay", StringValue("2us"));
 *   NetDeviceContainer d = nic.Install(host, router);     // d.Get(0): the NIC
 *   // then as with any device: InternetStackHelper, Ipv4AddressHelper, global routing;
 *   // applications on the host use TypeId "ns3::OffloadSocketFactory"
 * \endcode
 *
 * - Design: any subclass of ns3::OffloadNetDevice (ns3::PrestoNetDevice,
 *   ns3::FlexToeNetDevice, ns3::CoraNetDevice, later ones).
 * - Device attributes: those of PointToPointNetDevice (DataRate, Mtu, InterframeGap, ...)
 *   apply to both ends of the link, the design's own (CongestionControl, ReassemblyFidelity,
 *   ...) to the NIC. Each is checked against the design when set, and again when the design
 *   changes; a bad name or value throws PrestoInputError.
 * - Queue: the transmit queue of both ends (default ns3::DropTailQueue<Packet>, 100 packets),
 *   with flow control towards a queue disc above it unless DisableFlowControl() is called.
 * - Channel: a PointToPointChannel with the channel attributes (Delay).
 * - The host: adding the NIC to the node aggregates the node's ns3::OffloadSocketFactory,
 *   through which unmodified ns-3 applications (BulkSend, OnOff, PacketSink) open offloaded
 *   connections; ns3::TcpSocketFactory keeps ns-3's own TCP on the same host.
 * - Pcap: EnablePcap / EnablePcapAll as for PointToPointHelper (the frames on the wire, real
 *   IPv4 + TCP, readable by Wireshark).
 *
 * The NIC intercepts only its own offloaded connections; everything else goes up the host's
 * ns-3 stack, so routing, ARP-free point-to-point addressing and queue discs work as usual.
 */
class OffloadNicHelper : public PcapHelperForDevice
{
  public:
    /** \brief A helper for ns3::PrestoNetDevice NICs on DropTailQueue links. */
    OffloadNicHelper();

    /**
     * \brief Choose the NIC design.
     * \param type the TypeId name of an ns3::OffloadNetDevice subclass, or a design's name as
     * the experiments take it (presto, flextoe, cora; see NicDesign)
     * \throws PrestoInputError for an unknown type, one that is not an offload NIC, or one
     *         that lacks an attribute set before
     */
    void SetDeviceType(const std::string& type);

    /** \return the NIC design */
    TypeId GetDeviceType() const;

    /**
     * \brief Set a device attribute (PointToPointNetDevice's on both ends, the design's on
     * the NIC).
     * \param name the attribute, e.g. "DataRate" or "CongestionControl"
     * \param value its value
     * \throws PrestoInputError if the design has no such attribute or the value is invalid
     */
    void SetDeviceAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Set a PointToPointChannel attribute.
     * \param name the attribute, e.g. "Delay"
     * \param value its value
     * \throws PrestoInputError if the channel has no such attribute or the value is invalid
     */
    void SetChannelAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief The transmit queue of both ends, as PointToPointHelper::SetQueue.
     * \tparam Ts \deduced attribute name and value pairs
     * \param type the queue's TypeId name ("ns3::DropTailQueue" means
     *        "ns3::DropTailQueue<Packet>")
     * \param args name, value, name, value, ... of the queue's attributes
     */
    template <typename... Ts>
    void SetQueue(std::string type, Ts&&... args);

    /** \brief No NetDeviceQueueInterface: a queue disc above the device is never stopped. */
    void DisableFlowControl();

    /**
     * \brief Link host and peer: an offload NIC on the host, a PointToPointNetDevice on the
     * peer.
     * \param host the node that gets the NIC
     * \param peer the other end (router, switch, ns-3 TCP host)
     * \return the two devices, the NIC first
     */
    NetDeviceContainer Install(Ptr<Node> host, Ptr<Node> peer);

    /**
     * \brief Install(c.Get(0), c.Get(1)), as PointToPointHelper::Install(NodeContainer).
     * \param c exactly two nodes: the host, then its peer
     * \return the two devices, the NIC first
     * \throws PrestoInputError unless c holds two nodes
     */
    NetDeviceContainer Install(NodeContainer c);

    /**
     * \brief One end of a point-to-point link, the way every link of the module is made (this
     * helper's and FabricHelper's): the device from its factory, a fresh MAC address, the
     * node (an offload NIC aggregates the node's OffloadSocketFactory here), a transmit queue
     * from its factory and, with flow control, a NetDeviceQueueInterface so that a queue disc
     * above is stopped and woken; then the channel.
     * \param node the node
     * \param device makes a PointToPointNetDevice or a subclass
     * \param queue makes the transmit queue (a Queue<Packet>)
     * \param flowControl aggregate a NetDeviceQueueInterface connected to the queue
     * \param channel the link
     * \return the device
     * \throws PrestoInputError if the factory does not make a PointToPointNetDevice
     */
    static Ptr<PointToPointNetDevice> InstallLinkEnd(Ptr<Node> node,
                                                     const ObjectFactory& device,
                                                     const ObjectFactory& queue,
                                                     bool flowControl,
                                                     Ptr<PointToPointChannel> channel);

  private:
    void EnablePcapInternal(std::string prefix,
                            Ptr<NetDevice> nd,
                            bool promiscuous,
                            bool explicitFilename) override;

    /** Throw unless the design has every attribute set so far (valid values). */
    void CheckAttributes() const;

    /// device attributes in the order set: (name, value)
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> m_deviceAttributes;
    TypeId m_deviceType;            //!< the NIC design
    ObjectFactory m_queueFactory;   //!< both ends' transmit queue
    ObjectFactory m_channelFactory; //!< the link
    bool m_flowControl{true};       //!< NetDeviceQueueInterface on both ends
    PointToPointHelper m_pcap;      //!< writes the pcap files
};

template <typename... Ts>
void
OffloadNicHelper::SetQueue(std::string type, Ts&&... args)
{
    QueueBase::AppendItemTypeIfNotPresent(type, "Packet");
    m_queueFactory.SetTypeId(type);
    m_queueFactory.Set(std::forward<Ts>(args)...);
}

} // namespace ns3

#endif // PRESTO_OFFLOAD_NIC_HELPER_H
