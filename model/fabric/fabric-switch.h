/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FABRIC_SWITCH_H
#define PRESTO_FABRIC_SWITCH_H

#include "ns3/fabric-link-net-device.h"
#include "ns3/index-random-variable.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief A lean L3 data-center switch: forwards IPv4 packets on the destination address over
 * equal-cost ports, by a load-balancing policy, with DCTCP-style ECN marking and a per-port
 * buffer limit.
 *
 * Aggregated to a Node that has no IP stack; its ports are the node's point-to-point devices
 * (port p = interface index p). Receive is hooked directly on each device, so a packet costs
 * one header copy of 40 bytes, a table lookup and a device Send. TTL is not decremented
 * (forwarding tables come from the topology graph, loops cannot form).
 */
class FabricSwitch : public Object, public FabricLinkSink
{
  public:
    /** Load-balancing policy among equal-cost ports. */
    enum LoadBalancing
    {
        ECMP,     //!< per-flow: hash of the 5-tuple with the per-switch seed
        SPRAY,    //!< per-packet uniformly random port
        SPRAY_RR, //!< per-packet round robin, one counter per destination host
        FLOWLET,  //!< per-flow, re-chosen at random after an idle gap > FlowletGap
        LABEL     //!< the sender's path label (IPv4 identification) modulo the ports
    };

    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    FabricSwitch();
    ~FabricSwitch() override;
    FabricSwitch(const FabricSwitch&) = delete;
    FabricSwitch& operator=(const FabricSwitch&) = delete;

    /**
     * \brief Take over a device of this switch's node as the next port.
     * \param device the device; its interface index must equal the returned port number
     * \return the port number
     */
    uint32_t AddPort(Ptr<PointToPointNetDevice> device);

    /**
     * \brief Install the forwarding state.
     * \param hostAddresses IPv4 address (host order) of each host, by host index
     * \param portsPerHost equal-cost ports towards each host, by host index
     */
    void SetRoutes(const std::vector<uint32_t>& hostAddresses,
                   const std::vector<std::vector<uint32_t>>& portsPerHost);

    /**
     * \brief Assign a fixed random stream to this switch's random choices.
     * \param stream first stream index
     * \return number of streams used
     */
    int64_t AssignStreams(int64_t stream);

    uint64_t GetForwarded() const;         //!< \return packets sent on a port
    uint64_t GetDropped() const;           //!< \return packets dropped (buffer full, no route)
    uint64_t GetDroppedBufferFull() const; //!< \return drops because the port buffer was full
    uint64_t GetDroppedNoRoute() const;    //!< \return drops: unknown or unreachable destination,
                                           //!< not IPv4, or shorter than an IPv4 header
    uint64_t GetMarked() const;            //!< \return packets marked CE
    uint32_t GetNPorts() const;            //!< \return number of ports
    /** \param port a port number \return its device */
    Ptr<PointToPointNetDevice> GetPortDevice(uint32_t port) const;
    /** \return the policy in use */
    LoadBalancing GetLoadBalancing() const;
    /** \return the ECMP / flowlet hash seed in use */
    uint32_t GetHashSeed() const;

    /**
     * \brief Per-port buffer: the drop-tail limit of every port's device queue.
     * \param bytes the limit, bytes (at least one MTU-sized frame)
     */
    void SetBufferBytes(uint32_t bytes);
    /** \return the per-port buffer, bytes */
    uint32_t GetBufferBytes() const;

    /** Port argument of the Drop trace when the packet had no output port (no route). */
    static constexpr uint32_t NO_PORT = 0xffffffff;

    /**
     * TracedCallback signature for per-port packet events.
     * \param packet the packet
     * \param port the output port
     */
    typedef void (*PortPacketTracedCallback)(Ptr<const Packet> packet, uint32_t port);
    /**
     * TracedCallback signature for queue length samples.
     * \param port the output port
     * \param bytes queue occupancy after the enqueue, bytes
     */
    typedef void (*QueueLengthTracedCallback)(uint32_t port, uint32_t bytes);

  protected:
    void DoDispose() override;

    /**
     * A frame from a fast link port (FabricLinkSink): forwarded as from Receive.
     * \param port the port it arrived on
     * \param packet the packet
     * \param protocol its protocol number
     * \param now the current time
     * \param fields its IPv4 header fields, if the sender or the previous switch knew them
     */
    void ReceiveFromLink(uint32_t port,
                         const Ptr<Packet>& packet,
                         uint16_t protocol,
                         const Time& now,
                         FabricFrameFields& fields) override;

  private:
    /**
     * Forward a received packet (the hot path of Receive and ReceiveFromLink).
     * \param packet the packet, which this switch may forward as is
     * \param protocol its protocol number
     * \param now the current time, Simulator::Now()
     * \param fields its IPv4 header fields, if known (then the bytes are read only by a policy
     * that hashes the TCP ports or reads the path label); filled in here if not, and passed on
     * with the frame (a lazy header moves on)
     */
    void Forward(const Ptr<Packet>& packet,
                 uint16_t protocol,
                 const Time& now,
                 FabricFrameFields& fields);

    /** Device receive callback: forward one packet. */
    bool Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from);
    /**
     * \param dest destination IPv4 address (host order), a host's
     * \param ports its equal-cost ports
     * \param n how many (at least 1)
     * \param packet the packet
     * \param fields its fields (a lazy header is written before the bytes are read)
     * \param[in,out] hdr the packet's first bytes (IPv4 header, then transport ports), 40 bytes
     * of room; read here when len is 0 and the policy needs them
     * \param len valid bytes in hdr (>= 20), or 0 when they have not been read
     * \return the output port chosen among ports for this packet
     */
    uint32_t ChoosePort(uint32_t dest,
                        const uint32_t* ports,
                        uint32_t n,
                        Packet* packet,
                        const FabricFrameFields& fields,
                        uint8_t* hdr,
                        uint32_t len);

    /// A destination host and its equal-cost ports.
    struct Route
    {
        uint32_t host; //!< host index
        uint32_t set;  //!< offset of its list in m_portLists, or NO_SET (no port leads there)
    };

    /**
     * \param addr an IPv4 address (host order)
     * \return its port list (offset in m_portLists), NO_SET if not a host's or no port leads
     * there
     */
    uint32_t LookupPortSet(uint32_t addr) const
    {
        if (!m_setByOffset.empty())
        {
            const uint32_t off = addr - m_addrBase; // wraps to a huge value below the base
            if (off >= m_setByOffset.size())
            {
                return NO_SET;
            }
            const uint16_t set = m_setByOffset[off];
            return set == NO_SET16 ? NO_SET : set;
        }
        auto it = m_routeByAddr.find(addr);
        return it == m_routeByAddr.end() ? NO_SET : it->second.set;
    }

    /**
     * \param addr a host's IPv4 address (host order; LookupPortSet found it)
     * \return the host's index
     */
    uint32_t LookupHost(uint32_t addr) const;
    /** \return the seeded 64-bit hash of the packet's 5-tuple */
    uint64_t FlowHash(const uint8_t* hdr, uint32_t len) const;
    /** Count and trace a dropped packet. */
    void Drop(const Ptr<Packet>& packet,
              uint32_t port,
              bool bufferFull,
              const FabricFrameFields& fields);

    static constexpr uint32_t NO_HOST = 0xffffffff; //!< no host at that address offset
    static constexpr uint32_t NO_SET = 0xffffffff;  //!< a host no port leads to
    static constexpr uint16_t NO_SET16 = 0xffff;    //!< NO_SET in m_setByOffset

    // What Forward reads per packet comes first, together (four cache lines after the base
    // classes instead of six spread over the object): in a large fabric a switch's lines
    // are often no longer cached when its next packet comes.
    LoadBalancing m_lb;      //!< attribute: policy
    uint32_t m_ecnThreshold; //!< attribute: mark CE when the queue holds at least this, bytes
                             //!< (0: off)
    uint32_t m_bufferBytes;  //!< attribute: per-port buffer, bytes
    uint32_t m_addrBase{0};  //!< lowest host address
    // The routes, compact: the few distinct port lists a switch has (its down ports and its
    // up-port set) and, per host address, which one leads there: 2 bytes per host. A
    // 1,024-host fat-tree's 320 switches held 327,680 heap vectors (about 20 MB, two cache
    // misses per look-up), then 8-byte entries (2.6 MB, more than a core's second-level
    // cache); now 2 KB per switch. The host index is read only by round-robin spraying.
    std::vector<uint16_t> m_setByOffset; //!< dense table: address - m_addrBase -> port list
                                         //!< (used instead of m_routeByAddr when addresses
                                         //!< are nearly contiguous, as the helper makes
                                         //!< them, and m_portLists is shorter than NO_SET16)
    /// The distinct equal-cost port lists, one after another, each its length and then its
    /// ports: a list's length and ports share a cache line, and no vector header lies between
    /// the route and the ports (with a vector per list a 1,024-host fat-tree had 8.1 cache
    /// misses per packet-hop, callgrind with a 2 MB last level; with this 7.3).
    std::vector<uint32_t> m_portLists;
    std::vector<FabricPortQueue> m_queues;                 //!< each port's queue occupancy
    Ptr<IndexRandomVariable> m_rng;                        //!< spraying and flowlet choices
    uint64_t m_forwarded{0};                               //!< counter
    FabricFrameTrace<uint32_t> m_enqueueTrace;             //!< packet queued on a port
    TracedCallback<uint32_t, uint32_t> m_queueLengthTrace; //!< queue bytes after enqueue

    // the rest
    uint32_t m_seed;                                   //!< attribute: ECMP hash seed
    Time m_flowletGap;                                 //!< attribute: idle gap ending a flowlet
    std::vector<Ptr<PointToPointNetDevice>> m_ports;   //!< by port number
    Address m_dest;                                    //!< Send destination (ignored by p2p)
    std::unordered_map<uint32_t, Route> m_routeByAddr; //!< IPv4 address -> route
    std::vector<uint32_t> m_hostByOffset; //!< beside m_setByOffset: host index by offset
    std::vector<uint32_t> m_rrNext;       //!< round-robin counter per host

    struct Flowlet
    {
        int64_t lastNs; //!< last packet seen
        uint32_t port;  //!< current port
    };

    std::unordered_map<uint64_t, Flowlet> m_flowlets; //!< flow hash -> flowlet

    uint64_t m_droppedBuffer{0};  //!< counter: buffer full
    uint64_t m_droppedNoRoute{0}; //!< counter: no route, or no IPv4 header to route by
    uint64_t m_marked{0};         //!< counter

    FabricFrameTrace<uint32_t> m_dropTrace; //!< packet dropped
    FabricFrameTrace<uint32_t> m_markTrace; //!< packet marked CE
};

} // namespace ns3

#endif // PRESTO_FABRIC_SWITCH_H
