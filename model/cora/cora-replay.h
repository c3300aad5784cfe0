/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_REPLAY_H
#define PRESTO_CORA_REPLAY_H

#include "cora-allocator.h"
#include "cora-controller.h"
#include "cora-executor.h"
#include "cora-traffic.h"

#include "ns3/experiment-random.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace ns3
{

/// \ingroup presto Default ns-3 stream number of CoraReplay's arrivals.
constexpr int64_t kCoraReplayStream = 300001;

/**
 * \ingroup presto
 * \brief What one replay phase did.
 */
struct CoraReplayPhase
{
    uint64_t packets{0};      //!< packets offered
    uint64_t drops{0};        //!< packets dropped (NIC overload, hot lock, host queue)
    uint64_t hostPackets{0};  //!< packets that ran a block on the host
    uint64_t migrations{0};   //!< migrations committed during the phase
    double hostCores{0};      //!< host cores busy on average during the phase
    double nicUtilisation{0}; //!< NIC busy fraction during the phase
    double offeredPps{0};     //!< offered rate, packets/s
};

/**
 * \ingroup presto
 * \brief Drives a CoraExecutor (and its controller) with a packet-level traffic: every flow
 * a Poisson process at its volume, all merged in time order. Pure logic with its own clock
 * (no Simulator): it lets the examples and tests play traffic phases (load rises, falls, the
 * NIC table shrinks) through the same executor the CoraNetDevice uses.
 */
class CoraReplay
{
  public:
    /**
     * \param exec the executor \param controller its controller, or null (static plan)
     * \param stream ns-3 stream number of the arrivals, drawn under RngSeedManager's seed
     * and run (ExperimentRandom): exponential gaps -mean * log(u), each arrival's flow by
     * ExperimentRandom::Pick over the cumulative volumes
     */
    CoraReplay(CoraExecutor& exec, CoraController* controller, int64_t stream = kCoraReplayStream);

    /**
     * \brief Replay a traffic for a duration from the current clock.
     * \param flows the flows and their volumes
     * \param durationNs how long, ns (> 0)
     * \param packetBytes size of every packet, bytes
     * \param onInterval called after every controller interval with the clock (may be empty)
     * \return what the phase did
     * \throws PrestoInputError on an empty traffic or non-positive duration
     */
    CoraReplayPhase Run(const std::vector<CoraFlow>& flows,
                        int64_t durationNs,
                        uint32_t packetBytes = 1024,
                        const std::function<void(int64_t)>& onInterval = {});

    /// \return the replay clock, ns
    int64_t Now() const;

  private:
    CoraExecutor& m_exec;          //!< executor
    CoraController* m_controller;  //!< controller or null
    ExperimentRandom m_random;     //!< arrivals
    int64_t m_now{0};              //!< clock, ns
    int64_t m_intervalNs{1000000}; //!< controller / report interval, ns
};

} // namespace ns3

#endif // PRESTO_CORA_REPLAY_H
