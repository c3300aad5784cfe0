/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FABRIC_HELPER_H
#define PRESTO_FABRIC_HELPER_H

#include "ns3/fabric-switch.h"
#include "ns3/fabric-topology.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/queue-size.h"
#include "ns3/traffic-control-helper.h"

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Turns a FabricTopology into ns-3 nodes: hosts with the Internet stack and one
 * point-to-point device each, switches with a FabricSwitch and no IP stack, links as
 * PointToPointChannels, and the switches' forwarding tables computed from the graph.
 *
 * Host addresses: 10.0.0.0/8, host i gets 10.0.0.1 + i (all hosts on one subnet, so a host
 * sends every packet out of its single device; no ARP on point-to-point). Hosts get a FIFO
 * queue disc (no FqCoDel, so nothing but the switches marks or drops); switch ports get a
 * drop-tail device queue of BufferBytes. Counts packet transmissions on every device.
 *
 * Usage: set switch attributes (SetSwitchAttribute), Install(topology), then FailLink /
 * SetLinkRate at any time before or during the run. The helper counts packet-hops through
 * trace sinks bound to itself and schedules link events on itself: keep it alive (and do not
 * copy it) until the simulation is destroyed. One fabric per helper and per simulation (the
 * host addresses come from ns-3's global address generator, reset by Simulator::Destroy).
 */
class FabricHelper
{
  public:
    FabricHelper();

    /**
     * \param name a FabricSwitch attribute ("LoadBalancing", "EcnThreshold", ...)
     * \param value its value
     */
    void SetSwitchAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \brief Host device queue size (the NIC's own transmit queue, below the queue disc).
     * \param packets the size, in packets
     */
    void SetHostDeviceQueuePackets(uint32_t packets);

    /**
     * \brief Egress of the hosts that run ns-3's TCP/IP (a plain PointToPointNetDevice, not an
     * offload NIC): the root queue disc and the device queue below it. The default is
     * ns3::FifoQueueDisc (ns-3's 1000 packets) over SetHostDeviceQueuePackets' queue; an
     * offload NIC schedules its own egress and keeps the FIFO. Call before Install.
     * \param queueDiscs installs each such host's queue discs (TrafficControlHelper::Install)
     * \param deviceQueue the device queue's size (packets or bytes) for the host's link rate
     * (bit/s)
     * \throws PrestoInputError after Install; at Install, for an empty device queue
     */
    void SetStackHostEgress(const TrafficControlHelper& queueDiscs,
                            std::function<QueueSize(double)> deviceQueue);

    /**
     * \brief Reference mode for comparisons: switches become ordinary ns-3 IP routers
     * (InternetStack, Ipv4GlobalRouting with RandomEcmpRouting = true, i.e. per-packet random
     * ECMP, routes from Ipv4GlobalRoutingHelper::PopulateRoutingTables), every link gets its
     * own /30 subnet from 10.0.0.0/8 (hosts included), router ports have no queue disc and a
     * drop-tail device queue of the switch attribute BufferBytes. FabricSwitch attributes
     * other than BufferBytes do not apply. Call before Install.
     * \param use true for ns-3 routers, false (default) for FabricSwitch
     */
    void SetUseNs3Routers(bool use);
    /** \return true in the ns-3 router reference mode */
    bool GetUseNs3Routers() const;

    /**
     * \brief Fast links: FabricLinkChannel and FabricLinkNetDevice (one event per frame, no
     * packet copy) on every link: switch ports, hosts with a plain PointToPointNetDevice
     * (ns-3's TCP, which becomes a FabricLinkNetDevice) and offload NICs (FabricLinkNetDevices
     * themselves). Not with SetUseNs3Routers(true). Call before Install.
     * \param fast true for fast links, false (default) for point-to-point links
     */
    void SetFastLinks(bool fast);
    /** \return true with fast links */
    bool GetFastLinks() const;

    /**
     * \brief Device type of every host's NIC (default ns3::PointToPointNetDevice). It must be
     * a PointToPointNetDevice subclass, e.g. an offload NIC such as ns3::PrestoNetDevice.
     * Links are made as OffloadNicHelper makes them (OffloadNicHelper::InstallLinkEnd).
     * \param factory creates the device (type and attributes)
     * \throws PrestoInputError if it does not make a PointToPointNetDevice
     */
    void SetHostDeviceFactory(const ObjectFactory& factory);

    /**
     * \brief Device type of one host's NIC, overriding SetHostDeviceFactory(factory) for it
     * (mixed fabrics: offload NICs talking to hosts with ns-3's TCP).
     * \param host host index
     * \param factory creates the device
     * \throws PrestoInputError if it does not make a PointToPointNetDevice
     */
    void SetHostDeviceFactory(uint32_t host, const ObjectFactory& factory);

    /**
     * \brief Build the fabric.
     * \param topology the graph (copied; later changes go through FailLink/SetLinkRate)
     */
    void Install(const FabricTopology& topology);

    /**
     * \brief Fail a link at time at: both devices drop everything from then on, and every
     * switch's forwarding table is recomputed without it.
     * \param link link id in the topology
     * \param at when (Seconds(0) = before the first packet)
     */
    void FailLink(uint32_t link, Time at);

    /**
     * \brief Change a link's rate in both directions at time at (degraded, asymmetric paths).
     * \param link link id
     * \param rateBps the new rate, bit/s
     * \param at when
     */
    void SetLinkRate(uint32_t link, double rateBps, Time at);

    /** \brief Write pcap traces of every host's link, files prefix-<node>-<dev>.pcap, with
     * either link model (FabricLinkNetDevice::EnablePcap).
     * \param prefix file name prefix (may contain a directory) */
    void EnablePcapHosts(const std::string& prefix);

    /**
     * \brief Assign fixed random streams to the switches.
     * \param stream first stream index
     * \return streams used
     */
    int64_t AssignStreams(int64_t stream);

    const FabricTopology& GetTopology() const;               //!< \return the topology as it is now
    NodeContainer GetHosts() const;                          //!< \return host nodes by host index
    NodeContainer GetSwitches() const;                       //!< \return switch nodes
    NetDeviceContainer GetHostDevices() const;               //!< \return each host's device
    Ipv4Address GetHostAddress(uint32_t host) const;         //!< \param host index \return address
    std::vector<Ptr<FabricSwitch>> GetSwitchObjects() const; //!< \return the switches
    /** \param node a topology node id \return the ns-3 node */
    Ptr<Node> GetNode(uint32_t node) const;
    /** \return packet transmissions started on all links so far */
    uint64_t GetPacketHops() const;
    /**
     * \param link link id in the topology
     * \return the devices at the link's ends a and b (in that order)
     */
    std::pair<Ptr<NetDevice>, Ptr<NetDevice>> GetLinkDevices(uint32_t link) const;

    /** Frames lost on the links themselves (not in a switch or a NIC), by cause. */
    struct LinkDrops
    {
        /// dropped by a link's receive error model while the link was up (--lossRate, a
        /// topology file's error rate)
        uint64_t randomLoss{0};
        /// lost to a failed link: sent onto it or on their way when it failed, and those
        /// waiting in its device queues, flushed when it failed
        uint64_t linkDown{0};
    };

    /** \return the frames lost on links so far, summed over every link (both directions) */
    LinkDrops GetLinkDrops() const;
    /**
     * \return frames sent onto a fast link that have not arrived yet (on the wire or waiting
     * in the sender's FIFO), summed over every fast link's two directions: what a run that
     * stops when its last flow finishes leaves in flight
     */
    uint64_t GetFramesInFlight() const;

  private:
    /** One link's loss counters (PhyRxDrop/FastRxDrop sinks write into it). */
    struct LinkDropCounter
    {
        bool down{false}; //!< the link failed: its drops are linkDown from then on
        LinkDrops drops;  //!< counters
    };

    /**
     * \brief Count one frame a link's receive error model dropped.
     * \param counter the link's counters \param packet the frame
     */
    static void CountLinkDrop(LinkDropCounter* counter, Ptr<const Packet> packet);
    /** Recompute and install every switch's forwarding table from m_topology. */
    void InstallRoutes();
    /** Count one transmission (PhyTxBegin sink). */
    void CountHop(Ptr<const Packet>);
    /** Build links, stacks and addresses with FabricSwitches. */
    void InstallFabricSwitches();
    /** Build links, stacks and addresses with ns-3 routers. */
    void InstallNs3Routers();
    /** Create the point-to-point devices and channels of every link. */
    void InstallLinks();
    /** \param node topology node id \return makes the device of its ends of links */
    ObjectFactory LinkDeviceFactory(uint32_t node) const;
    /** \param host host index \return true if it runs ns-3's TCP/IP (no offload NIC) */
    bool RunsStack(uint32_t host) const;
    /** Root queue discs on every host device (before addresses are assigned).
     * \param hostDevices by host index */
    void InstallHostQueueDiscs(const NetDeviceContainer& hostDevices);
    /** Throw PrestoInputError unless factory makes a PointToPointNetDevice.
     * \param factory a host device factory */
    static void CheckHostDeviceFactory(const ObjectFactory& factory);
    /** Fail a link now (FailLink's scheduled part). \param link link id */
    void DoFailLink(uint32_t link);
    /** Make a link's devices drop everything (and, for routers, its interfaces down).
     * \param link link id */
    void ApplyLinkDown(uint32_t link);
    /** ApplyLinkDown for every link already down in the installed topology. */
    void ApplyDownLinks();
    /** Change a link's rate now. \param link link id \param rateBps bit/s */
    void DoSetLinkRate(uint32_t link, double rateBps);
    /** Throw PrestoInputError unless Install has run. \param what the caller's name */
    void CheckInstalled(const char* what) const;
    /** Throw PrestoInputError for a bad link id. \param link id \param what caller */
    void CheckLink(uint32_t link, const char* what) const;

    ObjectFactory m_switchFactory;                           //!< FabricSwitch attributes
    uint32_t m_hostQueuePackets;                             //!< host device queue size
    TrafficControlHelper m_stackHostQueueDiscs;              //!< ns-3-stack hosts' queue discs
    std::function<QueueSize(double)> m_stackHostDeviceQueue; //!< their device queue, by rate
    ObjectFactory m_hostDeviceFactory;                       //!< every host's NIC
    std::map<uint32_t, ObjectFactory> m_hostDeviceByHost;    //!< per-host overrides
    FabricTopology m_topology;                               //!< current graph
    std::vector<Ptr<Node>> m_nodes;                          //!< by topology node id
    std::vector<Ptr<FabricSwitch>> m_switchByNode;           //!< by node id (null for hosts)
    std::vector<std::pair<Ptr<NetDevice>, Ptr<NetDevice>>> m_linkDevices; //!< by link id
    std::deque<LinkDropCounter> m_linkDrops; //!< by link id (a deque: the sinks hold pointers)
    std::vector<uint32_t> m_hostAddresses;   //!< host order
    uint64_t m_packetHops;                   //!< counter
    bool m_useNs3Routers{false};             //!< reference mode
    bool m_fastLinks{false};                 //!< FabricLink links
    bool m_seedSet{false};                   //!< HashSeed set by the user
    bool m_installed{false};                 //!< Install has run
    uint32_t m_bufferBytes{0};               //!< switch port buffer, bytes
};

} // namespace ns3

#endif // PRESTO_FABRIC_HELPER_H
