/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_CONTROLLER_H
#define PRESTO_CORA_CONTROLLER_H

#include "cora-count-min.h"
#include "cora-executor.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Which NIC pairs the controller evicts first when the NIC is overloaded.
 */
enum class CoraEvictionPolicy
{
    HEAVIEST, //!< Cora's rule: heavy states first, the fewest migrations that shed the excess
    LIGHTEST, //!< the lightest first (heavy pairs stay on the NIC; many migrations)
    RANDOM    //!< the paper's baseline (Fig. 18(b)): pairs in a seeded random order
};

/// \param p policy \return "heaviest", "lightest" or "random"
std::string ToString(CoraEvictionPolicy p);
/**
 * \param name "heaviest", "lightest" or "random"
 * \param where what is being parsed (an attribute or option), for the message
 * \return the policy
 * \throws PrestoInputError naming `where` and the valid values otherwise
 */
CoraEvictionPolicy CoraEvictionPolicyFromString(const std::string& name, const std::string& where);

/**
 * \ingroup presto
 * \brief What the controller takes as NIC overload (with utilisation above `overload`).
 */
enum class CoraOverloadSignal
{
    /// busy beyond `overload` alone (little idle time between packets), even when the
    /// packets queue no deeper than a busy server's: a closed loop that runs the NIC at 95%
    /// without a drop is "overloaded"
    IDLE,
    /// (default) busy beyond `overload` and the packets pile up: a NIC drop in the interval,
    /// or arrivals found on average more than `queueOverload` of the NIC queue's capacity in
    /// it; the paper's overload, offered work beyond what the NIC can serve
    QUEUE
};

/// \param s signal \return "idle" or "queue"
std::string ToString(CoraOverloadSignal s);
/**
 * \param name "idle" or "queue"
 * \param where what is being parsed, for the message
 * \return the signal
 * \throws PrestoInputError naming `where` and the valid values otherwise
 */
CoraOverloadSignal CoraOverloadSignalFromString(const std::string& name, const std::string& where);

/**
 * \ingroup presto
 * \brief What the controller saw and did in one interval.
 */
struct CoraControllerTick
{
    int64_t nowNs{0};           //!< end of the interval, ns
    double utilisation{0};      //!< NIC busy fraction over the interval
    double offeredLoad{0};      //!< NIC work offered / interval (may exceed 1)
    double meanQueue{0};        //!< packets an arrival found in the NIC, on average
    uint64_t nicDrops{0};       //!< NIC queue drops in the interval
    bool overloaded{false};     //!< the interval counted as overload (OverloadSignal)
    uint32_t evicted{0};        //!< pair migrations to the host started
    uint32_t memoryEvicted{0};  //!< of evicted: for NIC memory (the table shrank or overflowed)
    uint32_t offloaded{0};      //!< pair migrations to the NIC started
    bool memoryEviction{false}; //!< evictions were for NIC memory, not load
};

/**
 * \ingroup presto
 * \brief Cora's runtime controller (and the iPipe-like flow-group runtime for
 * FLOW_PARTITION; STATE_PARTITION is static: the controller does nothing). Pure logic.
 *
 * OnPacket feeds a count-min sketch with the packets of every (block, aggregate) pair of
 * the packet's branch, so the sketch estimates each pair's volume in the current interval
 * (heavy hitters: the candidates are the executor's known pairs, ranked by estimate). Every
 * Tick (each intervalNs):
 * - util = the executor's NIC utilisation since the last Tick; load = the NIC work offered
 *   in that time (including dropped packets, so it shows how far above capacity it is).
 *   Moving a pair changes the load by estimate x GetPairNicCostNs / interval.
 * - overload (Config::signal): QUEUE (default), util > overload and the packets pile up: the
 *   NIC dropped a packet in the interval, or its arrivals found on average more than
 *   queueOverload x its queue capacity waiting (a NIC 100% busy whose queue stays short,
 *   because its senders are self-clocked, is not overloaded); IDLE, util > overload alone.
 * - overload: evict NIC pairs (non-zero estimate) to the host until the estimated load
 *   falls to target = (overload + underload) / 2, in the order of the eviction policy:
 *   HEAVIEST (default, the paper's "heavy states first"): the fewest migrations that shed the
 *   excess (load - target). While the heaviest remaining pair cannot shed the rest of the
 *   excess alone it is evicted (the biggest bite); once one can, the LIGHTEST pair that still
 *   sheds the whole rest is evicted instead of the heaviest (best fit: the same count, the
 *   least overshoot below the target). The count is the minimum: no k pairs shed more than
 *   the k heaviest. LIGHTEST: lightest first (ties: the pair's life-time state counter).
 *   RANDOM: a seeded SplitMix64 shuffle (the same seed, the same order on any platform).
 * - util < underload: offload the HEAVIEST host pairs to the NIC while their entries fit in
 *   the free NIC memory and the estimated load stays below overload.
 * - NIC memory in use (without entries already leaving) above the capacity
 *   (CoraExecutor::SetNicMemoryBytes shrank it): evict the smallest pairs first until it fits
 *   (whatever the eviction policy: the paper's T3 rule, small flows are the easiest to find).
 * At most maxMigrationsPerInterval migrations start per Tick, so a large change takes
 * several intervals (as in the paper, where the NIC evicts flows one after another).
 * FLOW_PARTITION makes the same decisions on flow hash groups (CoraFlowGroup): a group moves
 * with all the pairs its flows touch, and with every group whose flows share one of them
 * (flows sharing an aggregate move together), ranked by the group's packet count; such a
 * unit moves whole, even beyond the per-Tick budget when it is the first to move in a Tick.
 */
class CoraController
{
  public:
    /// Controller parameters.
    struct Config
    {
        int64_t intervalNs{1000000};           //!< Tick period, ns
        double overload{0.9};                  //!< NIC utilisation that triggers eviction
        double underload{0.6};                 //!< NIC utilisation that triggers offloading
        uint32_t maxMigrationsPerInterval{64}; //!< migrations started per Tick at most
        uint32_t sketchWidth{16384};           //!< count-min counters per row
        uint32_t sketchDepth{4};               //!< count-min rows
        /// order of evictions under overload (not for a table shrink: always smallest first)
        CoraEvictionPolicy eviction{CoraEvictionPolicy::HEAVIEST};
        uint64_t seed{1}; //!< seed of the RANDOM policy's shuffle (SplitMix64)
        /// what counts as overload beside util > overload
        CoraOverloadSignal signal{CoraOverloadSignal::QUEUE};
        /// QUEUE: mean NIC queue found by arrivals, share of its capacity, that is a pile-up
        double queueOverload{0.25};
        /// \throws PrestoInputError naming the field (e.g. underload >= overload)
        void Validate() const;
    };

    /**
     * \param exec the executor it steers (outlives the controller)
     * \param cfg parameters
     * \throws PrestoInputError if cfg is invalid
     */
    CoraController(CoraExecutor& exec, Config cfg);

    /// \param p a packet offered to the executor (counted in the sketch)
    void OnPacket(const CoraPacket& p);
    /**
     * \brief Monitor, decide and start migrations; call every intervalNs.
     * \param nowNs time, ns (non-decreasing)
     * \throws PrestoInputError if nowNs is before a time the executor already saw
     */
    void Tick(int64_t nowNs);
    /// \return the configuration
    const Config& GetConfig() const;
    /// \return pair migrations to the host started by the controller
    uint64_t GetEvictions() const;
    /// \return pair migrations to the NIC started by the controller
    uint64_t GetOffloads() const;
    /// \return one record per Tick
    const std::vector<CoraControllerTick>& GetHistory() const;
    /// \param block block \param key aggregate key \return the sketch's estimate this interval
    uint64_t Estimate(uint32_t block, uint64_t key) const;

  private:
    using PairKey = std::pair<uint32_t, uint64_t>; //!< (block, aggregate key)

    /// \param now time \param rec record \param load estimated load (updated)
    void Overload(int64_t now, CoraControllerTick& rec, double& load);
    /// \param now time \param rec tick record: evict NIC pairs whose lock dropped packets
    void EvictLockBound(int64_t now, CoraControllerTick& rec);
    /// \param cand (estimate, pair) candidates: sorted lightest first
    void LightestFirst(std::vector<std::pair<uint64_t, PairKey>>& cand) const;
    /// \param cand candidates: put in a random order (SplitMix64 stream, platform-independent)
    void Shuffle(std::vector<std::pair<uint64_t, PairKey>>& cand);
    /**
     * \brief HEAVIEST policy: the fewest evictions that bring load to target.
     * \param now time \param rec record \param load estimated load (updated)
     * \param target load to reach \param cand (estimate, pair) candidates
     */
    void ShedHeaviest(int64_t now,
                      CoraControllerTick& rec,
                      double& load,
                      double target,
                      const std::vector<std::pair<uint64_t, PairKey>>& cand);
    /// \param now time \param rec record \param load estimated load (updated)
    void Underload(int64_t now, CoraControllerTick& rec, double& load);
    /// \param now time \param rec record
    void FitMemory(int64_t now, CoraControllerTick& rec);
    /// \param k pair \return load change if it moves, fraction of the interval
    double LoadOf(const PairKey& k) const;
    /// \return NIC memory that stays in use (NIC-owned pairs not leaving + reservations)
    uint64_t MemoryStaying() const;
    /// \param group a group \return it and every group sharing a pair with it, transitively
    std::vector<uint32_t> Closure(uint32_t group) const;
    /// \param groups groups \return the pairs their flows touch, sorted, once each
    std::vector<PairKey> PairsOf(const std::vector<uint32_t>& groups) const;
    /// \param now time \param k pair \param to side \param rec record \return started
    bool Move(int64_t now, const PairKey& k, CoraSide to, CoraControllerTick& rec);
    /// \param now time \param k pair \param to side \param rec record: Move, budget or not
    void MoveUnbudgeted(int64_t now, const PairKey& k, CoraSide to, CoraControllerTick& rec);
    /// \param now time \param rec record \param load load (updated) \param mode 0 overload,
    ///        1 underload, 2 memory
    void MoveGroups(int64_t now, CoraControllerTick& rec, double& load, int mode);

    CoraExecutor& m_exec;                 //!< executor steered
    Config m_cfg;                         //!< parameters
    std::set<PairKey> m_lockBound;        //!< pairs evicted for lock contention: stay on the host
    CoraCountMin m_sketch;                //!< per-pair volume this interval
    std::vector<uint64_t> m_groupPackets; //!< per flow group: packets this interval
    int64_t m_lastNs{0};                  //!< previous Tick
    uint64_t m_dropsSeen{0};              //!< NIC queue drops counted at the previous Tick
    double m_intervalNs{1};               //!< length of the interval being decided on, ns
    uint32_t m_budget{0};                 //!< migrations left in this Tick
    uint64_t m_evictions{0};              //!< total evictions
    uint64_t m_offloads{0};               //!< total offloads
    uint64_t m_rng{0};                    //!< SplitMix64 state of the RANDOM policy
    std::vector<CoraControllerTick> m_history; //!< per-Tick records
};

} // namespace ns3

#endif // PRESTO_CORA_CONTROLLER_H
