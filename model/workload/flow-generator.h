/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FLOW_GENERATOR_H
#define PRESTO_FLOW_GENERATOR_H

#include "flow-size-cdf.h"
#include "flow-spec.h"

#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"

#include <string>
#include <vector>

namespace ns3
{

/** \ingroup presto Who talks to whom. */
enum class TrafficPattern
{
    ALL_TO_ALL,  //!< every flow: uniformly random source, random destination != source
    PERMUTATION, //!< a random derangement fixed for the run: host i only sends to perm[i]
    INCAST       //!< each arrival is an incast event: N random senders to one receiver
};

/**
 * \param name "all-to-all", "permutation" or "incast"
 * \return the pattern; throws PrestoInputError listing the valid names otherwise
 */
TrafficPattern TrafficPatternFromString(const std::string& name);

/** \return the name of a pattern, as accepted by TrafficPatternFromString */
std::string ToString(TrafficPattern pattern);

/** \ingroup presto Parameters of the Poisson flow generator. */
struct FlowGeneratorConfig
{
    uint32_t nHosts{0};       //!< number of hosts
    double load{0.5};         //!< offered load as a fraction of host NIC bandwidth (0,1]
    double hostRateBps{10e9}; //!< host NIC bandwidth, bit/s
    int64_t startNs{0};       //!< first possible arrival, ns
    int64_t durationNs{0};    //!< arrivals are generated in [start, start + duration)
    TrafficPattern pattern{TrafficPattern::ALL_TO_ALL}; //!< who talks to whom
    uint32_t incastSenders{8};                          //!< senders per incast event
    uint16_t dport{100};  //!< destination port written into each FlowSpec
    uint32_t maxFlows{0}; //!< stop after this many flows (0: no limit)
    /// most flows a run may ask for: a configuration expecting more (with maxFlows, more
    /// than min(expected, maxFlows)) is refused before any flow is made
    uint32_t flowLimit{10000000};
};

/**
 * \ingroup presto
 * \brief Poisson flow arrivals at a target load.
 *
 * Load definition: the offered payload rate of all flows, divided by the summed host NIC
 * bandwidth: load = lambda * E[size] * 8 / (nHosts * hostRateBps), with lambda the
 * aggregate arrival rate in flows per second. For incast, lambda counts flows (N per event).
 * Inter-arrival times are exponential (inverse transform of the uniform stream) with mean
 * 1/lambda, or N/lambda between incast events of N flows, which all start at the same
 * time and draw their sizes independently. Times are accumulated in double precision and
 * floored to whole ns. The permutation is a uniformly random derangement drawn once per
 * call. With maxFlows set, generation stops at exactly that many flows (possibly in the
 * middle of an incast event); the result is a prefix of the unlimited run.
 * Deterministic for a given random stream. Throws PrestoInputError naming the field for an
 * impossible configuration: nHosts < 2, load outside (0,1], hostRateBps <= 0,
 * durationNs <= 0, startNs < 0, incastSenders outside [1, nHosts-1] (incast only); and
 * naming the distribution when its mean is below 1 byte (the gap between arrivals would be
 * 0 ns) or when the configuration would need more than flowLimit flows (10^7 by default;
 * the message gives the expected count), before making any flow.
 *
 * \param config the parameters
 * \param sizes the flow-size distribution
 * \param uniform a U(0,1) stream (its stream number fixes the sample path)
 * \return flows sorted by start time, ids 0..n-1 in that order
 */
std::vector<FlowSpec> GenerateFlows(const FlowGeneratorConfig& config,
                                    const FlowSizeCdf& sizes,
                                    Ptr<UniformRandomVariable> uniform);

} // namespace ns3

#endif // PRESTO_FLOW_GENERATOR_H
