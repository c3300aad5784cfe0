/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_TRAFFIC_H
#define PRESTO_CORA_TRAFFIC_H

#include "cora-allocator.h"
#include "cora-program.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/// \ingroup presto Default ns-3 stream number of CoraMakeTraffic's address assignment.
constexpr int64_t kCoraTrafficStream = 300000;

/**
 * \ingroup presto
 * \brief A synthetic traffic for a Cora program: how many flows, how much, how skewed.
 *
 * Flow volumes follow a Zipf law (the k-th heaviest flow of a branch gets a share
 * proportional to 1 / k^zipf), the usual long-tailed per-flow volume of data-center and
 * Internet traffic that Cora's runtime exploits (keep the heavy flows on the NIC).
 */
struct CoraTrafficSpec
{
    std::map<std::string, double> branchShare; //!< branch name -> share of the packets (sum 1)
    uint32_t flows{10000};                     //!< flows over all branches (>= 1)
    /**
     * Flows per branch; when set (for every branch with a share) it replaces the split of
     * `flows` in proportion to the shares: the same flows, different volumes per mix.
     */
    std::map<std::string, uint32_t> branchFlows;
    double totalPps{10e6};     //!< total packet rate, packets/s (> 0)
    double zipf{1.0};          //!< Zipf exponent of flow volumes (>= 0)
    uint32_t sources{1000};    //!< distinct source addresses (>= 1)
    uint32_t destinations{16}; //!< distinct destination addresses (>= 1)
    /// ns-3 stream number of the address assignment, drawn under RngSeedManager's seed and
    /// run (ExperimentRandom)
    int64_t stream{kCoraTrafficStream};
};

/**
 * \param program a finalized program
 * \param spec the traffic
 * \return flows with ids 1..flows; each branch gets flows in proportion to its share (at
 *         least one per branch with a positive share); each flow's source and destination
 *         address index is ExperimentRandom::Index of the stream spec.stream under ns-3's
 *         seed and run: same spec, seed and run, same flows on any platform
 * \throws PrestoInputError on an unknown branch, shares that do not sum to 1, or a bad value
 */
std::vector<CoraFlow> CoraMakeTraffic(const CoraProgram& program, const CoraTrafficSpec& spec);

/**
 * \param flows flows \param factor multiply every flow's volume by this (> 0)
 * \return the flows scaled (a load change that keeps the mix)
 */
std::vector<CoraFlow> CoraScaleTraffic(std::vector<CoraFlow> flows, double factor);

/// \param flows flows \return their total packet rate, packets/s
double CoraTotalPps(const std::vector<CoraFlow>& flows);

} // namespace ns3

#endif // PRESTO_CORA_TRAFFIC_H
