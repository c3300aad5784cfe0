/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_DUMBBELL_SCENARIO_H
#define PRESTO_DUMBBELL_SCENARIO_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief A congestion-control check on a dumbbell: `flows` long flows, sender i to receiver i,
 * through one bottleneck link between two FabricSwitches (DCTCP-style marking at the switch's
 * EcnThreshold, 65 packets by default), every host on one device with one congestion control.
 */
struct DumbbellConfig
{
    std::string device{"host-tcp"};  //!< a SprayExperiment device name
    std::string cc{"dctcp"};         //!< a SprayExperiment --cc name
    uint32_t flows{2};               //!< sender/receiver pairs, one flow each
    double accessRateBps{40e9};      //!< host links, bit/s
    double bottleneckRateBps{10e9};  //!< the switch-switch link, bit/s
    int64_t linkDelayNs{1000};       //!< every link's propagation delay, ns
    Time warmup{MilliSeconds(10)};   //!< measurements start here
    Time duration{MilliSeconds(60)}; //!< the run ends here
    uint64_t flowBytes{0};           //!< bytes per flow (0: more than the run can carry)
    uint32_t seed{1};                //!< ns-3 run number
    double lossRate{0};              //!< random loss of every packet on the bottleneck, [0, 1)
};

/**
 * \ingroup presto
 * \brief What the bottleneck saw over [warmup, end), end = the run's end or the moment the first
 * flow finished, whichever is first.
 */
struct DumbbellResult
{
    double windowS{0};              //!< length of the measurement window, s
    double utilisation{0};          //!< bottleneck busy fraction (wire bytes / capacity)
    double meanQueuePackets{0};     //!< time-weighted bottleneck queue, packets
    uint32_t maxQueuePackets{0};    //!< largest bottleneck queue, packets
    double goodputBps{0};           //!< payload delivered per second, all flows
    double payloadRateBps{0};       //!< the bottleneck's payload rate with this device's headers
    uint64_t switchDrops{0};        //!< packets the switches dropped (whole run)
    uint64_t switchMarks{0};        //!< packets marked CE (whole run)
    uint64_t retxSegments{0};       //!< segments retransmitted by the senders (whole run)
    uint64_t timeouts{0};           //!< retransmission timeouts (offload NICs; whole run)
    uint64_t nicTxDrops{0};         //!< segments the NICs could not place on the wire
    uint64_t deliveredBytes{0};     //!< payload delivered, whole run
    uint64_t badBytes{0};           //!< corrupt + excess bytes (must be 0)
    uint64_t ccProgramPackets{0};   //!< ACKs, losses, timeouts run by Presto's DCTCP program
    uint64_t ccRecirculations{0};   //!< its passes beyond the first (one per ECE cut)
    std::vector<uint64_t> finishNs; //!< FCT of each finished flow, ns
};

/**
 * \param config the scenario
 * \return the measurements (runs the simulator, then Simulator::Destroy)
 */
DumbbellResult RunDumbbell(const DumbbellConfig& config);

} // namespace ns3

#endif // PRESTO_DUMBBELL_SCENARIO_H
