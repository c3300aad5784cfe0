/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FABRIC_TOPOLOGY_H
#define PRESTO_FABRIC_TOPOLOGY_H

#include "ns3/fabric-path-hop.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief A data-center fabric as a graph: hosts, switches and full-duplex links.
 *
 * Pure logic (no ns-3 objects): the FabricHelper turns it into nodes and devices, and the
 * switches' forwarding tables are computed from it. Node ids are dense, 0..GetNNodes()-1;
 * hosts are numbered separately 0..GetNHosts()-1 in creation order (the host index used in
 * FlowSpec). A node's ports are its links in the order they were added; port p of a switch is
 * the ns-3 device with interface index p on that switch node.
 */
class FabricTopology
{
  public:
    /** A full-duplex link. */
    struct Link
    {
        uint32_t a{0};      //!< node id of one end
        uint32_t b{0};      //!< node id of the other end
        double rateBps{0};  //!< rate in each direction, bit/s
        int64_t delayNs{0}; //!< propagation delay, ns
        bool up{true};      //!< false once failed
        double lossRate{0}; //!< random loss probability per packet, each direction, [0, 1)
    };

    /**
     * \brief Leaf-spine (two-tier Clos): every leaf connects to every spine.
     * Oversubscription at a leaf = hostsPerLeaf * hostRate / (spines * coreRate).
     * \param leaves number of leaf (ToR) switches (>= 1)
     * \param spines number of spine switches (>= 1)
     * \param hostsPerLeaf hosts under each leaf (>= 1)
     * \param hostRateBps host-leaf link rate, bit/s
     * \param coreRateBps leaf-spine link rate, bit/s
     * \param linkDelayNs propagation delay of every link, ns
     * \return the topology; throws PrestoInputError on a zero count or rate
     */
    static FabricTopology LeafSpine(uint32_t leaves,
                                    uint32_t spines,
                                    uint32_t hostsPerLeaf,
                                    double hostRateBps,
                                    double coreRateBps,
                                    int64_t linkDelayNs);

    /**
     * \brief k-ary fat-tree (Al-Fares et al.): k pods of k/2 edge and k/2 aggregation
     * switches, (k/2)^2 core switches, k^3/4 hosts, k/2 hosts per edge switch.
     * \param k even, >= 2
     * \param hostRateBps host-edge link rate, bit/s
     * \param coreRateBps edge-aggregation and aggregation-core link rate, bit/s
     * \param linkDelayNs propagation delay of every link, ns
     * \return the topology; throws PrestoInputError for an odd or too small k
     */
    static FabricTopology FatTree(uint32_t k,
                                  double hostRateBps,
                                  double coreRateBps,
                                  int64_t linkDelayNs);

    /**
     * \brief Dumbbell: `pairs` senders on a left switch, `pairs` receivers on a right switch,
     * and one bottleneck link between the switches. Sender i is host i, its receiver host
     * pairs + i.
     * \param pairs sender/receiver pairs (>= 1)
     * \param accessRateBps host link rate, bit/s
     * \param bottleneckRateBps switch-switch link rate, bit/s
     * \param linkDelayNs propagation delay of every link, ns
     * \return the topology; throws PrestoInputError on a zero count or rate
     */
    static FabricTopology Dumbbell(uint32_t pairs,
                                   double accessRateBps,
                                   double bottleneckRateBps,
                                   int64_t linkDelayNs);

    /** \return new host's node id */
    uint32_t AddHost();
    /**
     * \param tier 0 for switches next to hosts (leaf/edge), 1 aggregation or spine, 2 core
     * \return new switch's node id
     */
    uint32_t AddSwitch(uint32_t tier);
    /**
     * \param a node id
     * \param b node id (!= a)
     * \param rateBps bit/s
     * \param delayNs ns
     * \return the link id
     */
    uint32_t AddLink(uint32_t a, uint32_t b, double rateBps, int64_t delayNs);

    uint32_t GetNNodes() const;                //!< \return nodes (hosts and switches)
    uint32_t GetNHosts() const;                //!< \return hosts
    bool IsHost(uint32_t node) const;          //!< \param node node id \return true for a host
    uint32_t GetTier(uint32_t node) const;     //!< \param node a switch \return its tier
    uint32_t HostNode(uint32_t host) const;    //!< \param host index \return its node id
    uint32_t HostIndex(uint32_t node) const;   //!< \param node a host's node id \return index
    const std::vector<Link>& GetLinks() const; //!< \return all links
    const std::vector<uint32_t>& GetPorts(uint32_t node) const; //!< \return link ids by port
    /**
     * \param a node id \param b node id
     * \return id of the first link between a and b; throws PrestoInputError if none
     */
    uint32_t FindLink(uint32_t a, uint32_t b) const;
    /** \param link link id \param up false to fail the link */
    void SetLinkUp(uint32_t link, bool up);
    /** \param link link id \param rateBps new rate, bit/s (> 0) */
    void SetLinkRate(uint32_t link, double rateBps);
    /**
     * \brief Random loss on a link (a topology file's error rate): every packet arriving at
     * either end is lost with this probability.
     * \param link link id \param rate probability in [0, 1)
     */
    void SetLinkLossRate(uint32_t link, double rate);

    /**
     * \brief Name a node (for --failLinks, queue traces and messages). Names are unique.
     * \param node node id \param name non-empty, no blanks, not used by another node
     */
    void SetNodeName(uint32_t node, const std::string& name);
    /**
     * \param node node id
     * \return its name: the one set, else "host<index>" for a host, "switch<id>" for a switch
     */
    std::string GetNodeName(uint32_t node) const;
    /**
     * \param name a name given with SetNodeName
     * \param node set to its node id when found
     * \return true if a node has that name
     */
    bool FindNode(const std::string& name, uint32_t& node) const;
    /** \param text the description Describe() starts with (a file name, a shape) */
    void SetDescription(const std::string& text);

    /**
     * \brief Equal-cost next hops of every switch towards every host over the links that are
     * up: port p of switch s is a next hop to host h if the neighbour on p is h itself or a
     * switch one hop closer to h. Paths never cross another host.
     * \return routes[node][host] = ports, increasing (empty for hosts and unreachable)
     */
    std::vector<std::vector<std::vector<uint32_t>>> ComputeRoutes() const;

    /**
     * \brief The best shortest path from one host to another, for the ideal FCT: among the
     * paths with the fewest hops, the one with the highest bottleneck rate, then the lowest
     * total delay. Throws PrestoInputError if dst is unreachable.
     * \param srcHost host index
     * \param dstHost host index
     * \return the hops in data direction
     */
    std::vector<PathHop> BestPath(uint32_t srcHost, uint32_t dstHost) const;

    /** \return a one-line description ("leaf-spine 4x4, 32 hosts, ...") */
    std::string Describe() const;

  private:
    /**
     * \brief Hop distances to a node over the links that are up and at least minRateBps
     * fast, never expanding through a host other than dstNode.
     * \param dstNode the destination node id
     * \param minRateBps slowest usable link, bit/s (0: all)
     * \return distance per node id, UINT32_MAX when unreachable
     */
    std::vector<uint32_t> HopsTo(uint32_t dstNode, double minRateBps) const;

    std::vector<bool> m_isHost;                 //!< per node
    std::vector<uint32_t> m_tier;               //!< per node (0 for hosts)
    std::vector<uint32_t> m_hostNode;           //!< host index -> node id
    std::vector<uint32_t> m_hostIndex;          //!< node id -> host index (hosts only)
    std::vector<Link> m_links;                  //!< by link id
    std::vector<std::vector<uint32_t>> m_ports; //!< node -> link ids by port
    std::vector<std::string> m_names;           //!< node -> name ("" = default)
    std::map<std::string, uint32_t> m_byName;   //!< name -> node id
    std::string m_description;                  //!< set by the named constructors
};

} // namespace ns3

#endif // PRESTO_FABRIC_TOPOLOGY_H
