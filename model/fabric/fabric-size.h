/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FABRIC_SIZE_H
#define PRESTO_FABRIC_SIZE_H

#include <cstdint>
#include <string>

namespace ns3
{

class FabricTopology;

/**
 * \ingroup presto
 * \brief How big a fabric is, counted from its shape before anything is built. Pure logic.
 *
 * Counts are 64-bit and computed without overflow from 32-bit shape parameters, so that a
 * shape which would not fit (`--hostsPerLeaf=4294967295`, a fat-tree with k=200) is refused
 * with its size instead of ending in std::bad_alloc or a build that never finishes.
 */
struct FabricSize
{
    uint64_t hosts{0};        //!< host nodes
    uint64_t switches{0};     //!< switch nodes
    uint64_t links{0};        //!< links (each two devices)
    uint64_t routeEntries{0}; //!< sum over switches and destination hosts of the ECMP ports

    /** \param leaves leaves \param spines spines \param hostsPerLeaf hosts per leaf
     *  \return the leaf-spine's size */
    static FabricSize LeafSpine(uint64_t leaves, uint64_t spines, uint64_t hostsPerLeaf);
    /** \param k the fat-tree's arity (even) \return its size */
    static FabricSize FatTree(uint64_t k);
    /**
     * A topology read from a file: the route entries are estimated as the hosts times every
     * switch's ports to higher tiers (at least one), exact for leaf-spines and fat-trees.
     * \param t the topology \return its size
     */
    static FabricSize Of(const FabricTopology& t);
};

/// Most hosts a run may have (2^20; addresses are taken from 10.0.0.0/8).
constexpr uint64_t FABRIC_MAX_HOSTS = uint64_t{1} << 20;
/// Most switches a run may have (2^20).
constexpr uint64_t FABRIC_MAX_SWITCHES = uint64_t{1} << 20;
/// Most links (2^22: the router fabric gives every link a /30 of 10.0.0.0/8).
constexpr uint64_t FABRIC_MAX_LINKS = uint64_t{1} << 22;

/**
 * \param size the fabric
 * \return "" if every count is within its limit, else which count, its value and the limit
 */
std::string FabricLimitProblem(const FabricSize& size);

/**
 * \ingroup presto
 * \brief A run's memory, estimated from its size before it is built. Pure logic.
 *
 * The per-item bytes are measured peak resident sizes of presto-spray (see doc/presto.rst,
 * *Sizes and memory*), rounded up; they are estimates, not bounds.
 */
struct RunMemoryEstimate
{
    double baseBytes{BASE_BYTES}; //!< the program itself
    double hostBytes{0};          //!< hosts x bytes per host of the design
    double fabricBytes{0};        //!< switches, links and route entries
    double connectionBytes{0};    //!< long-lived connections (RPC)
    double flowBytes{0};          //!< generated or read flows

    /// \return the sum, bytes
    double Total() const;
    /// \return "N GB (program ..., hosts ..., fabric ..., connections ..., flows ...)"
    std::string Describe() const;

    /**
     * \param size the fabric
     * \param bytesPerHost a host with its NIC and stack (RunMemoryEstimate::BytesPerHost)
     * \param connections long-lived connections, both ends counted as one
     * \param bytesPerConnection one such connection, both ends
     * \param flows flows of the workload
     * \return the estimate
     */
    static RunMemoryEstimate Of(const FabricSize& size,
                                double bytesPerHost,
                                uint64_t connections,
                                double bytesPerConnection,
                                uint64_t flows);

    /// Bytes of the program with ns-3 before any node (measured: 25-65 MB at 8 hosts).
    static constexpr double BASE_BYTES = 64e6;
    /// Bytes per switch-link beyond its two devices' share in a host (measured, fat-tree).
    static constexpr double BYTES_PER_LINK = 4096;
    /// Bytes per switch (measured, fat-tree).
    static constexpr double BYTES_PER_SWITCH = 4096;
    /// Bytes per route entry while routes are computed and installed (measured, fat-tree).
    static constexpr double BYTES_PER_ROUTE_ENTRY = 12;
    /// Bytes per (switch, destination host) route (measured, fat-tree).
    static constexpr double BYTES_PER_ROUTE = 16;
    /// Bytes per flow: its spec, its record, its row (estimate).
    static constexpr double BYTES_PER_FLOW = 512;
};

} // namespace ns3

#endif // PRESTO_FABRIC_SIZE_H
