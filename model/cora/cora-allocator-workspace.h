/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_ALLOCATOR_WORKSPACE_H
#define PRESTO_CORA_ALLOCATOR_WORKSPACE_H

// Internal to the Cora allocator (cora-allocator*.cc); not part of the module's public API.

#include "cora-allocator.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

namespace ns3
{

/// Internals of CoraAllocator: the prepared traffic and the incremental plan state.
namespace cora_alloc
{

/// Relative slack for comparing sums built incrementally with sums built from scratch.
constexpr double EPS = 1e-9;

constexpr uint32_t NO_SLOT = std::numeric_limits<uint32_t>::max(); //!< flow takes no lock

/// One (block, aggregate) pair of a traffic.
struct Aggregate
{
    uint32_t block{0}; //!< block index
    uint64_t key{0};   //!< aggregate key
    double volume{0};  //!< V, pps
    uint32_t begin{0}; //!< first of its flows in Workspace::aggFlows
    uint32_t end{0};   //!< one past its last flow in Workspace::aggFlows
};

/// A range of flow indices (the flows of one aggregate).
struct FlowRange
{
    const uint32_t* first; //!< first flow
    const uint32_t* last;  //!< one past the last flow

    /// \return first flow
    const uint32_t* begin() const
    {
        return first;
    }

    /// \return one past the last flow
    const uint32_t* end() const
    {
        return last;
    }
};

/**
 * Traffic prepared for one allocator: validated flows, aggregates, per-flow aggregates and
 * locks, and per-block NIC facts (supported, attainable rate, per-lock rate). Rates per
 * (branch, NIC-block mask) are cached.
 */
class Workspace
{
  public:
    /// \param a allocator \param traffic flows \throws PrestoInputError on a bad flow
    Workspace(const CoraAllocator& a, const std::vector<CoraFlow>& traffic);

    const CoraAllocator& alloc;                   //!< allocator
    const CoraProgram& prog;                      //!< program
    const std::vector<CoraFlow>& flows;           //!< traffic
    std::size_t nBlocks{0};                       //!< blocks of the program
    std::vector<std::vector<int>> pos;            //!< [branch][block] -> bit position or -1
    std::vector<uint64_t> fullMask;               //!< [branch] all of its blocks
    std::vector<bool> supported;                  //!< [block] the NIC profile has its accesses
    std::vector<double> attainable;               //!< [block] NIC rate with only it offloaded
    std::vector<Aggregate> aggs;                  //!< all aggregates
    std::vector<uint32_t> flowOffset;             //!< flow -> first entry in flowAgg/flowSlot
    std::vector<uint32_t> flowAgg;                //!< per flow and position: aggregate index
    std::vector<uint32_t> flowSlot;               //!< per flow and position: lock slot or NO_SLOT
    std::vector<double> slotRate;                 //!< per lock slot: one lock's rate, pps
    std::vector<std::vector<uint32_t>> blockAggs; //!< [block] its aggregates
    std::vector<std::unordered_map<uint64_t, uint32_t>> index; //!< [block] key -> aggregate
    std::vector<uint32_t> aggFlows; //!< flows grouped by aggregate (Aggregate::begin/end)

    /// \param a aggregate \return its flows
    FlowRange FlowsOf(uint32_t a) const
    {
        return {aggFlows.data() + aggs[a].begin, aggFlows.data() + aggs[a].end};
    }

    double offered{0}; //!< total pps

    /// \param br branch \param mask NIC blocks (bits) \return lock-free NIC rate, pps
    double Rate(uint32_t br, uint64_t mask);

  private:
    /// Where each flow's locks live: the per-block facts the aggregates step needs.
    struct LockLayout
    {
        std::vector<uint32_t> blockLocks;         //!< [block] locks of its elements
        std::vector<std::vector<bool>> takesLock; //!< [branch][block] a packet takes a lock
        std::vector<uint32_t> slotBase;           //!< [block] its first lock slot
    };

    /// Fill pos and fullMask. \throws PrestoInputError if a branch visits too many blocks
    void IndexBranchBlocks();
    /// Fill supported and the locks of each block. \param locks layout to fill
    void MarkSupportedBlocks(LockLayout& locks);
    /// Fill attainable and slotRate, and which branches lock where. \param locks layout
    void ComputeBlockRates(LockLayout& locks);
    /// \param i entry of the flow \throws PrestoInputError on a bad branch or rate
    void ValidateFlow(uint32_t i) const;
    /// Build the aggregates and each flow's aggregates and slots. \param locks layout
    void BuildAggregates(const LockLayout& locks);
    /// Fill aggFlows and the aggregates' ranges (flows keep their traffic order).
    void GroupFlowsByAggregate();
    /// Size the per-branch rate caches.
    void InitRateCache();

    /// \param br branch \param b block \return NicLoad with only block b on the NIC
    CoraProgramLoad LoadOnly(uint32_t br, uint32_t b) const;

    std::vector<std::vector<double>> m_dense;                  //!< [branch][mask] pps or -1
    std::vector<std::unordered_map<uint64_t, double>> m_rates; //!< [branch] mask -> pps
};

/**
 * Resource use of a plan, kept incrementally: per flow its NIC blocks and busy share, the
 * sums over flows, per-lock volumes, memory and the objective.
 */
class PlanState
{
  public:
    /// \param ws workspace; the state starts with every pair on the host
    explicit PlanState(Workspace& ws);

    /**
     * \brief Move aggregates to the NIC if the plan stays within the limits.
     * \param add aggregate indices (those already on the NIC are ignored)
     * \return true if they were moved
     */
    bool TryAdd(const std::vector<uint32_t>& add);
    /**
     * \brief Move flows to new NIC masks without checking limits (for Evaluate).
     * \param masks new mask per flow
     */
    void SetMasks(const std::vector<uint64_t>& masks);
    /// \param memory NIC memory \param pairs NIC pairs \return the cost
    CoraPlanCost Cost(uint64_t memory, uint64_t pairs) const;

    double hostInstructions{0}; //!< objective, instructions/s
    uint64_t memory{0};         //!< NIC memory of the pairs added, bytes
    uint64_t pairs{0};          //!< pairs added
    std::vector<bool> aggOnNic; //!< per aggregate

  private:
    /// \param f flow \param mask its new mask \return its busy share pps / rate
    double Term(uint32_t f, uint64_t mask);

    Workspace& m_ws;               //!< workspace
    std::vector<uint64_t> m_mask;  //!< per flow: NIC blocks
    std::vector<double> m_term;    //!< per flow: pps / rate
    std::vector<double> m_lockVol; //!< per lock slot: NIC pps
    double m_util{0};              //!< sum of m_term
    double m_toHost{0};            //!< bytes/s NIC -> host
    double m_toNic{0};             //!< bytes/s host -> NIC
    // Scratch for TryAdd, kept to avoid allocating per call.
    std::vector<uint64_t> m_newMask; //!< per flow, valid for touched flows
    std::vector<uint32_t> m_touched; //!< flows touched
    std::vector<bool> m_isTouched;   //!< per flow
    std::vector<double> m_slotDelta; //!< per slot
    std::vector<bool> m_slotTouched; //!< per slot
    std::vector<uint32_t> m_slots;   //!< slots touched
};

/**
 * \param ws workspace \param state state \param s strategy
 * \return the plan of the state's NIC pairs
 */
CoraPlan PlanOf(const Workspace& ws, const PlanState& state, CoraStrategy s);

} // namespace cora_alloc

} // namespace ns3

#endif /* PRESTO_CORA_ALLOCATOR_WORKSPACE_H */
