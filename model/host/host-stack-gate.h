/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_HOST_STACK_GATE_H
#define PRESTO_HOST_STACK_GATE_H

#include "ns3/host-cpu.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/traffic-control-layer.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Puts a host's ns-3 TCP/IP processing on its HostCpu: every TCP packet the host's
 * IPv4 stack sends reaches the traffic-control layer (queue disc, device), and every TCP
 * packet the host receives reaches IPv4 and the socket, only after a host core has served
 * it for its cycles (HostCpuCosts: per data packet sent or received plus the payload's copy,
 * per segment without payload, a connection's set-up with the SYN or SYN-ACK it sends and its
 * teardown with its FIN). The core is the flow's (a hash of addresses and ports, the same for
 * both directions), as receive-side scaling steers a flow and its application thread.
 *
 * It stands between each IPv4 interface and the node's TrafficControlLayer in both
 * directions (Ipv4Interface::SetTrafficControl on the send side, the node's protocol handler
 * for IPv4 on the receive side), so ns-3's own TCP, queue discs and devices are unchanged.
 * Other protocols (ARP, IPv6, UDP) pass at once, uncosted. A received packet whose core
 * already holds HostCpu::MaxBacklog packets is dropped, counted and traced (HostCpu "Drop").
 *
 * Assumed: no interrupt coalescing, GRO or TSO (costs are per wire packet); the sending
 * side's work runs on the flow's core before the queue disc, as tcp_sendmsg does in the
 * sending thread.
 */
class HostStackGate : public TrafficControlLayer
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    HostStackGate();
    ~HostStackGate() override;

    /**
     * \brief Put `node`'s IPv4 TCP processing (every interface but loopback) on its HostCpu.
     * Call after the node's IPv4 interfaces exist. Does nothing when the node has no IPv4 or
     * its HostCpu is not timed (work would take no time: the node is left as it is).
     * \param node the host
     * \return the gate installed, or null
     */
    static Ptr<HostStackGate> Install(Ptr<Node> node);

    /**
     * \brief The send side: an IPv4 packet from an interface, served on the flow's core,
     * then handed to the node's traffic-control layer.
     * \param device the interface's device
     * \param item the packet with its IPv4 header
     */
    void Send(Ptr<NetDevice> device, Ptr<QueueDiscItem> item) override;

    /// \return TCP packets the gate has served on the send side
    uint64_t GetSent() const;
    /// \return TCP packets the gate has served on the receive side
    uint64_t GetReceived() const;
    /// \return received TCP packets refused by a full core backlog
    uint64_t GetDropped() const;

  protected:
    void DoDispose() override;

  private:
    /// The receive side (the node's IPv4 protocol handler on a gated device).
    void FromDevice(Ptr<NetDevice> device,
                    Ptr<const Packet> p,
                    uint16_t protocol,
                    const Address& from,
                    const Address& to,
                    NetDevice::PacketType type);

    Ptr<TrafficControlLayer> m_tc; //!< the node's own traffic-control layer
    Ptr<HostCpu> m_cpu;            //!< the node's cores
    HostCpuCosts m_costs;          //!< the cost table, read at installation
    uint64_t m_sent{0};            //!< served on send
    uint64_t m_received{0};        //!< served on receive
    uint64_t m_dropped{0};         //!< refused on receive
};

} // namespace ns3

#endif // PRESTO_HOST_STACK_GATE_H
