/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_INCAST_BURSTS_H
#define PRESTO_INCAST_BURSTS_H

#include "flow-spec.h"

#include "ns3/experiment-random.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** \ingroup presto When incast bursts arrive. */
enum class BurstArrivals
{
    OFF,      //!< no bursts
    PERIODIC, //!< one every interval: at start + k * interval, k = 1, 2, ...
    POISSON   //!< exponential gaps with mean interval, from start
};

/**
 * \param name "off", "periodic" or "poisson"
 * \param option the option's name for the message
 * \return the arrivals; throws PrestoInputError naming the option and the valid names
 */
BurstArrivals BurstArrivalsFromString(const std::string& name, const std::string& option);

/** \param arrivals a value \return its name */
std::string ToString(BurstArrivals arrivals);

/**
 * \ingroup presto
 * \brief Incast bursts on top of a background workload: in each burst N senders each send
 * the same number of bytes to one receiver, all starting at the same instant.
 */
struct IncastBurstConfig
{
    BurstArrivals arrivals{BurstArrivals::OFF}; //!< when bursts arrive
    uint32_t nHosts{0};                         //!< hosts of the fabric
    uint32_t senders{8};                        //!< senders per burst, 1..nHosts-1
    uint64_t bytesPerSender{64000};             //!< bytes each sender sends, 1..MAX_FLOW_BYTES
    int64_t intervalNs{1000000};                //!< periodic: the gap; poisson: its mean (> 0)
    int64_t startNs{0};                         //!< bursts start in [start, start + duration)
    int64_t durationNs{0};                      //!< the window (> 0)
    int64_t receiver{-1};                       //!< the receiver's host index; -1: random
    uint16_t dport{100};                        //!< destination port of every flow
    uint32_t flowLimit{10000000};               //!< most flows (bursts x senders)
};

/**
 * \ingroup presto
 * \brief Make the bursts' flows.
 *
 * Per burst, in this order of draws from \p random: the gap (poisson: -interval * log(u)),
 * the receiver (random: Index(nHosts)), then the senders by a partial Fisher-Yates shuffle of
 * the other hosts in increasing order (Index(n - k) for the k-th sender). Flows are in burst
 * order, senders in draw order, ids 0..n-1.
 *
 * Throws PrestoInputError naming the field for senders outside [1, nHosts-1], a receiver
 * that is not a host, bytes outside [1, 2^53], a non-positive interval or duration, a
 * periodic interval not below the duration (no burst would arrive), or more flows than
 * flowLimit (expected count for poisson).
 * \param config the bursts
 * \param random the draws
 * \param burstOfFlow if not null, set to each flow's burst index (0, 1, ...)
 * \return the flows
 */
std::vector<FlowSpec> GenerateIncastBursts(const IncastBurstConfig& config,
                                           ExperimentRandom& random,
                                           std::vector<uint32_t>* burstOfFlow);

} // namespace ns3

#endif // PRESTO_INCAST_BURSTS_H
