/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_ALLOCATOR_H
#define PRESTO_CORA_ALLOCATOR_H

#include "cora-perf-model.h"
#include "cora-program.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief One flow of a traffic description: its branch, addresses and volume.
 */
struct CoraFlow
{
    uint64_t id{0};     //!< flow identifier (unique within the traffic)
    uint32_t branch{0}; //!< branch index of the program
    uint32_t srcIp{0};  //!< source address (selects SRC_IP elements)
    uint32_t dstIp{0};  //!< destination address (selects DST_IP elements)
    double pps{0};      //!< volume, packets per second (>= 0)
};

/**
 * \param key a block's key \param f a flow
 * \return the value selecting the element of a state with this key that the flow touches
 *         (the flow id, an address, or 0 for GLOBAL)
 */
uint64_t CoraAggregateKey(CoraFlowKey key, const CoraFlow& f);

/// Number of hash groups the flow partition strategy (iPipe-like) places as units.
constexpr uint32_t CORA_FLOW_GROUPS = 64;

/**
 * \brief Hash group of a flow for flow partitioning (deterministic: a 64-bit mix of the id).
 *
 * The allocator's FLOW_PARTITION strategy and any runtime that moves flow groups must use this
 * one function so that plans and runtime agree.
 * \param flowId flow id
 * \param groups number of groups (0 is treated as 1)
 * \return group index in [0, groups)
 */
uint32_t CoraFlowGroup(uint64_t flowId, uint32_t groups = CORA_FLOW_GROUPS);

/**
 * \brief The lock a packet of a flow takes in a locked state block.
 *
 * A keyed block (FLOW, SRC_IP, DST_IP) locks the element of the flow's aggregate, so all flows
 * of one aggregate share a lock: hash(aggregate key) mod locks. A GLOBAL block is a random
 * mapping (a count-min sketch): each flow's packets hash, by flow id, to one lock.
 * \param key the block's key
 * \param f the flow
 * \param locks number of locks of the block (0 is treated as 1)
 * \return lock index in [0, locks)
 */
uint32_t CoraLockIndex(CoraFlowKey key, const CoraFlow& f, uint32_t locks);

/**
 * \ingroup presto
 * \brief Resources of the NIC a plan must respect.
 */
struct CoraNicLimits
{
    uint64_t memoryBytes{8ULL << 30};  //!< NIC memory for program state, bytes
    double pcieBytesPerSecond{12.5e9}; //!< PCIe bandwidth per direction, bytes/s
    uint32_t packetBytes{1024};        //!< packet size crossing PCIe, bytes
    /**
     * Fraction of the modelled NIC packet rate a plan may use (< 1 keeps headroom for bursts;
     * the runtime controller's overload threshold plays the same role at run time).
     */
    double rateHeadroom{0.9};
    /// \throws PrestoInputError if a limit is zero, negative or not finite
    void Validate() const;
};

/**
 * \ingroup presto
 * \brief Partitioning strategy: Cora's, or one of the two strawmen of the paper.
 */
enum class CoraStrategy
{
    CORA,            //!< (block, aggregate) pairs, ordered by volume x instructions
    STATE_PARTITION, //!< Gallium-like: whole states, as many as fit, traffic-agnostic
    FLOW_PARTITION   //!< iPipe-like: whole flows in hash groups, coupled by shared state
};

/// \param s strategy \return "cora", "state" or "flow"
std::string ToString(CoraStrategy s);
/**
 * \param name "cora", "state" or "flow"
 * \param where what is being parsed, for the message
 * \return the strategy
 * \throws PrestoInputError naming `where` and the valid values otherwise
 */
CoraStrategy CoraStrategyFromString(const std::string& name, const std::string& where);

/**
 * \ingroup presto
 * \brief A partition plan: which (block, aggregate key) pairs run on the NIC.
 *
 * A pair absent from the set runs on the host. For a block, `wholeBlockOnNic` puts every
 * aggregate of it on the NIC (state partition's unit, also used for new, unseen aggregates).
 */
struct CoraPlan
{
    CoraStrategy strategy{CoraStrategy::CORA};        //!< who made it
    std::set<std::pair<uint32_t, uint64_t>> nicPairs; //!< (block, aggregate key) on the NIC
    std::vector<bool> wholeBlockOnNic;                //!< per block: all aggregates on NIC
    /**
     * The plan was computed from a traffic (Allocate with flows): a pair it does not put on
     * the NIC runs on the host. Otherwise (no traffic known) new pairs follow the
     * executor's placement policy.
     */
    bool fromTraffic{false};
    /// \param block block index \param key aggregate key \return true if it runs on the NIC
    bool OnNic(uint32_t block, uint64_t key) const;
};

/**
 * \ingroup presto
 * \brief What a plan costs and uses under a traffic (CoraAllocator::Evaluate).
 */
struct CoraPlanCost
{
    double hostInstructionsPerSecond{0}; //!< sum over host pairs of V x I_s (the objective)
    double offeredPps{0};                //!< total packet rate of the traffic
    double nicCapacityPps{0};            //!< modelled NIC rate for this plan's packet mix
    double nicUtilisation{0};            //!< offeredPps / nicCapacityPps
    double nicDropPps{0};                //!< packets/s the NIC cannot process (overload, hot locks)
    uint64_t nicMemoryBytes{0};          //!< NIC memory the plan's state takes
    double pcieBytesPerSecond{0};        //!< busier PCIe direction, bytes/s
    uint64_t nicPairs{0};                //!< (block, aggregate) pairs on the NIC
    bool feasible{true};                 //!< memory, PCIe and rate limits respected
};

/**
 * \ingroup presto
 * \brief Computes partition plans (Cora's algorithm and the two strawmen) and their costs.
 * Pure logic.
 *
 * Model (Evaluate), for any plan:
 * - Aggregation (Cora's insight 1): for block s with key k, the flows with the same
 *   CoraAggregateKey(k, f) form the aggregate (s, key); its volume V is the sum of the pps of
 *   the flows whose branch visits s.
 * - Objective: host instructions/s = sum over host (s, aggregate) of V x I_s. Stateless
 *   instructions always run on the NIC and are not counted.
 * - NIC rate: every packet is handled by the NIC first (stateless part plus the NIC blocks
 *   its flow visits). A flow runs at rate_f = PredictLockFreePps(program.NicLoad(branch, its
 *   NIC blocks)); utilisation U = sum_f pps_f / rate_f (the busy fraction), capacity =
 *   offered / U (the harmonic combination over the mix; 0 without traffic). U above 1 drops
 *   offered - capacity.
 * - Locks: a block's locks are the sum of its elements' locks; a packet takes the lock
 *   CoraLockIndex(). One lock sustains PredictPerLockPps of the branch's load with only that
 *   block on the NIC (the smallest over the branches that take it); traffic on the NIC above
 *   that rate on one lock is dropped. nicDropPps = lock drops + overload drops (<= offered).
 * - PCIe: a packet whose path has a host block crosses NIC->host once and, when a NIC block
 *   follows a host block in topological order, host->NIC again (packetBytes per crossing).
 *   pcieBytesPerSecond is the busier direction.
 * - Memory: bytesPerAggregate per NIC pair; memoryBytes for a wholeBlockOnNic block.
 * - feasible: memory and PCIe within the limits, U <= rateHeadroom, no drops.
 *
 * Strategies (Allocate):
 * - CORA: candidates are all (block, aggregate) pairs with V x I_s > 0 whose block the NIC
 *   profile supports, minus those above the NIC's attainable rate for the block or above the
 *   per-lock rate (never offloaded, as in the paper). Global order: V x I_s descending (ties:
 *   block index, key). Within a set of blocks, pairs are added greedily when memory, PCIe and
 *   rate (U <= rateHeadroom, no lock over its rate) still hold, skipped otherwise. The sets of
 *   blocks taking part are searched (every subset for up to 6 candidate blocks, else the full
 *   set and each set minus one block), and the plan with the fewest host instructions wins:
 *   a whole GLOBAL aggregate can take memory that many lighter pairs of another block would
 *   use better (the seed's Figure 2: L4LB-heavy traffic sends the count-min sketch to the
 *   host). Each addition is evaluated incrementally (cost ~ flows of the aggregate).
 * - STATE_PARTITION (Gallium-like): traffic-agnostic; whole supported blocks with their full
 *   declared memory, smallest first, as many as fit in NIC memory. Ignores throughput, so the
 *   plan may overload the NIC (Evaluate then reports drops).
 * - FLOW_PARTITION (iPipe-like): flows hash into CORA_FLOW_GROUPS groups (CoraFlowGroup); a
 *   group runs all its blocks on one side. An aggregate may not be split between NIC and host,
 *   so groups sharing an aggregate are merged (union-find) into units; units go to the NIC by
 *   volume, descending, under the same limits. A GLOBAL block's single aggregate couples
 *   every group whose flows visit it, so the placement is coarse (the paper's point). The
 *   plan lists every (block, aggregate) of the NIC units in nicPairs.
 */
class CoraAllocator
{
  public:
    /**
     * \param program a finalized program
     * \param model NIC performance model
     * \param limits NIC limits
     * \throws PrestoInputError if the program is not finalized or the limits are invalid
     */
    CoraAllocator(const CoraProgram& program, const CoraPerfModel& model, CoraNicLimits limits);

    /**
     * \param strategy which algorithm
     * \param traffic flows with their branch and volume
     * \return the plan
     * \throws PrestoInputError on a flow with an unknown branch or an invalid volume
     */
    CoraPlan Allocate(CoraStrategy strategy, const std::vector<CoraFlow>& traffic) const;
    /**
     * \param plan a plan \param traffic a traffic
     * \return its cost and resource use
     */
    CoraPlanCost Evaluate(const CoraPlan& plan, const std::vector<CoraFlow>& traffic) const;

    /// \return the program
    const CoraProgram& GetProgram() const;
    /// \return the performance model
    const CoraPerfModel& GetModel() const;
    /// \return the limits
    const CoraNicLimits& GetLimits() const;

  private:
    const CoraProgram& m_program; //!< program (outlives the allocator)
    CoraPerfModel m_model;        //!< performance model
    CoraNicLimits m_limits;       //!< NIC limits
};

} // namespace ns3

#endif // PRESTO_CORA_ALLOCATOR_H
