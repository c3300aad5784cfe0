/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-allocator.h"

#include "cora-allocator-workspace.h"

#include "ns3/presto-input-error.h"
#include "ns3/splitmix.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <unordered_map>

namespace ns3
{

namespace
{

using cora_alloc::Aggregate;
using cora_alloc::EPS;
using cora_alloc::NO_SLOT;
using cora_alloc::PlanOf;
using cora_alloc::PlanState;
using cora_alloc::Workspace;

/// \param x value \return a well-mixed 64-bit hash (one SplitMix64 step)
uint64_t
Mix64(uint64_t x)
{
    return SplitMix64(x);
}

/// Exhaustive search over block subsets up to this many candidate blocks.
constexpr std::size_t MAX_EXHAUSTIVE_BLOCKS = 6;

/**
 * \brief Per-lock rule: the aggregate alone must not push one lock above its rate.
 * \param ws workspace \param a aggregate
 * \param slotVol scratch per lock slot, all 0 (left so) \param slotUsed scratch, all false
 * \return true if every lock the aggregate's flows take can carry their volume
 */
bool
LocksCarry(const Workspace& ws,
           uint32_t a,
           std::vector<double>& slotVol,
           std::vector<bool>& slotUsed)
{
    const Aggregate& agg = ws.aggs[a];
    bool lockOk = true;
    std::vector<uint32_t> used;
    for (uint32_t f : ws.FlowsOf(a))
    {
        const int p = ws.pos[ws.flows[f].branch][agg.block];
        const uint32_t slot = ws.flowSlot[ws.flowOffset[f] + p];
        if (slot != NO_SLOT)
        {
            if (!slotUsed[slot])
            {
                slotUsed[slot] = true;
                used.push_back(slot);
            }
            slotVol[slot] += ws.flows[f].pps;
        }
    }
    for (uint32_t s : used)
    {
        lockOk = lockOk && slotVol[s] <= ws.slotRate[s];
        slotVol[s] = 0;
        slotUsed[s] = false;
    }
    return lockOk;
}

/**
 * \param ws workspace
 * \return the pairs worth offloading that the NIC can sustain at all, in the global order:
 *         volume x instructions, descending; deterministic ties
 */
std::vector<uint32_t>
CoraCandidates(const Workspace& ws)
{
    const auto& blocks = ws.prog.GetBlocks();
    std::vector<uint32_t> cand;
    std::vector<double> slotVol(ws.slotRate.size(), 0);
    std::vector<bool> slotUsed(ws.slotRate.size(), false);
    for (uint32_t a = 0; a < ws.aggs.size(); ++a)
    {
        const Aggregate& agg = ws.aggs[a];
        const double score = agg.volume * blocks[agg.block].instructions;
        if (!ws.supported[agg.block] || score <= 0 || agg.volume > ws.attainable[agg.block])
        {
            continue;
        }
        if (LocksCarry(ws, a, slotVol, slotUsed))
        {
            cand.push_back(a);
        }
    }
    std::sort(cand.begin(), cand.end(), [&](uint32_t x, uint32_t y) {
        const Aggregate& ax = ws.aggs[x];
        const Aggregate& ay = ws.aggs[y];
        const double sx = ax.volume * blocks[ax.block].instructions;
        const double sy = ay.volume * blocks[ay.block].instructions;
        if (sx != sy)
        {
            return sx > sy;
        }
        if (ax.block != ay.block)
        {
            return ax.block < ay.block;
        }
        return ax.key < ay.key;
    });
    return cand;
}

/**
 * \param ws workspace \param cand candidate aggregates
 * \return block subsets, each as the set of candidate blocks allowed on the NIC: all subsets
 *         of few blocks, else the full set and the full set minus each block; the full set
 *         first so that it wins ties
 */
std::vector<std::vector<bool>>
CandidateBlockSubsets(const Workspace& ws, const std::vector<uint32_t>& cand)
{
    std::vector<uint32_t> candBlocks;
    for (uint32_t a : cand)
    {
        if (std::find(candBlocks.begin(), candBlocks.end(), ws.aggs[a].block) == candBlocks.end())
        {
            candBlocks.push_back(ws.aggs[a].block);
        }
    }
    std::sort(candBlocks.begin(), candBlocks.end());
    const std::size_t k = candBlocks.size();
    std::vector<std::vector<bool>> subsets;
    if (k <= MAX_EXHAUSTIVE_BLOCKS)
    {
        for (uint64_t m = (uint64_t{1} << k); m-- > 0;)
        {
            std::vector<bool> allowed(ws.nBlocks, false);
            for (std::size_t i = 0; i < k; ++i)
            {
                allowed[candBlocks[i]] = ((m >> i) & 1) != 0;
            }
            subsets.push_back(allowed);
        }
    }
    else
    {
        std::vector<bool> allowed(ws.nBlocks, false);
        for (uint32_t b : candBlocks)
        {
            allowed[b] = true;
        }
        subsets.push_back(allowed);
        for (uint32_t b : candBlocks)
        {
            subsets.push_back(allowed);
            subsets.back()[b] = false;
        }
    }
    return subsets;
}

/// Cora's algorithm (see the class documentation). \param ws workspace \return the plan
CoraPlan
AllocateCora(Workspace& ws)
{
    const std::vector<uint32_t> cand = CoraCandidates(ws);
    const std::vector<std::vector<bool>> subsets = CandidateBlockSubsets(ws, cand);
    // Per subset: add the allowed candidates greedily in order; fewest host instructions wins.
    CoraPlan best;
    double bestInstr = std::numeric_limits<double>::infinity();
    std::vector<uint32_t> one(1);
    const PlanState allHost(ws); // copied per subset: cheaper than rebuilding
    for (const auto& allowed : subsets)
    {
        PlanState state = allHost;
        for (uint32_t a : cand)
        {
            if (!allowed[ws.aggs[a].block])
            {
                continue;
            }
            one[0] = a;
            state.TryAdd(one);
        }
        if (std::isinf(bestInstr) ||
            state.hostInstructions < bestInstr - EPS * std::max(1.0, bestInstr))
        {
            bestInstr = state.hostInstructions;
            best = PlanOf(ws, state, CoraStrategy::CORA);
        }
    }
    return best;
}

/// Gallium-like state partition. \param ws workspace \return the plan
CoraPlan
AllocateState(const Workspace& ws)
{
    const auto& blocks = ws.prog.GetBlocks();
    std::vector<uint32_t> order(ws.nBlocks);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
        return blocks[x].memoryBytes < blocks[y].memoryBytes;
    });
    CoraPlan plan;
    plan.strategy = CoraStrategy::STATE_PARTITION;
    plan.wholeBlockOnNic.assign(ws.nBlocks, false);
    uint64_t used = 0;
    const uint64_t cap = ws.alloc.GetLimits().memoryBytes;
    for (uint32_t b : order)
    {
        // Smallest first maximises the number of blocks that fit.
        if (ws.supported[b] && blocks[b].memoryBytes <= cap - used)
        {
            used += blocks[b].memoryBytes;
            plan.wholeBlockOnNic[b] = true;
        }
    }
    return plan;
}

/// \param parent union-find forest \param x element \return its root
uint32_t
Find(std::vector<uint32_t>& parent, uint32_t x)
{
    while (parent[x] != x)
    {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/// iPipe-like flow partition. \param ws workspace \return the plan
CoraPlan
AllocateFlow(Workspace& ws)
{
    const uint32_t g = CORA_FLOW_GROUPS;
    std::vector<uint32_t> group(ws.flows.size());
    for (uint32_t f = 0; f < ws.flows.size(); ++f)
    {
        group[f] = CoraFlowGroup(ws.flows[f].id, g);
    }
    // Groups sharing an aggregate must stay on one side: merge them.
    std::vector<uint32_t> parent(g);
    std::iota(parent.begin(), parent.end(), 0);
    for (uint32_t a = 0; a < ws.aggs.size(); ++a)
    {
        const uint32_t r0 = Find(parent, group[ws.aggFlows[ws.aggs[a].begin]]);
        for (uint32_t f : ws.FlowsOf(a))
        {
            const uint32_t r = Find(parent, group[f]);
            if (r != r0)
            {
                parent[std::max(r, r0)] = std::min(r, r0);
            }
        }
    }
    // Units: volume, aggregates, and whether every flow can run wholly on the NIC.
    std::vector<double> volume(g, 0);
    std::vector<bool> eligible(g, true);
    std::vector<bool> present(g, false);
    for (uint32_t f = 0; f < ws.flows.size(); ++f)
    {
        const uint32_t r = Find(parent, group[f]);
        present[r] = true;
        volume[r] += ws.flows[f].pps;
        for (uint32_t b : ws.prog.GetBranchBlocks(ws.flows[f].branch))
        {
            if (!ws.supported[b])
            {
                eligible[r] = false;
            }
        }
    }
    std::vector<std::vector<uint32_t>> unitAggs(g);
    for (uint32_t a = 0; a < ws.aggs.size(); ++a)
    {
        unitAggs[Find(parent, group[ws.aggFlows[ws.aggs[a].begin]])].push_back(a);
    }
    std::vector<uint32_t> units;
    for (uint32_t r = 0; r < g; ++r)
    {
        if (present[r] && eligible[r] && Find(parent, r) == r)
        {
            units.push_back(r);
        }
    }
    std::stable_sort(units.begin(), units.end(), [&](uint32_t x, uint32_t y) {
        return volume[x] > volume[y];
    });
    PlanState state(ws);
    for (uint32_t u : units)
    {
        state.TryAdd(unitAggs[u]);
    }
    return PlanOf(ws, state, CoraStrategy::FLOW_PARTITION);
}

} // namespace

uint64_t
CoraAggregateKey(CoraFlowKey key, const CoraFlow& f)
{
    switch (key)
    {
    case CoraFlowKey::FLOW:
        return f.id;
    case CoraFlowKey::SRC_IP:
        return f.srcIp;
    case CoraFlowKey::DST_IP:
        return f.dstIp;
    case CoraFlowKey::GLOBAL:
        return 0;
    }
    return 0;
}

uint32_t
CoraFlowGroup(uint64_t flowId, uint32_t groups)
{
    return static_cast<uint32_t>(Mix64(flowId) % std::max<uint32_t>(groups, 1));
}

uint32_t
CoraLockIndex(CoraFlowKey key, const CoraFlow& f, uint32_t locks)
{
    const uint64_t k = key == CoraFlowKey::GLOBAL ? f.id : CoraAggregateKey(key, f);
    // A different mix than CoraFlowGroup, so that lock and flow group are independent.
    return static_cast<uint32_t>(Mix64(k ^ 0x5bd1e9955bd1e995ULL) % std::max<uint32_t>(locks, 1));
}

void
CoraNicLimits::Validate() const
{
    std::ostringstream os;
    if (memoryBytes == 0)
    {
        os << "Cora NIC limits: memoryBytes must be > 0";
    }
    else if (!std::isfinite(pcieBytesPerSecond) || pcieBytesPerSecond <= 0)
    {
        os << "Cora NIC limits: pcieBytesPerSecond " << pcieBytesPerSecond
           << " must be finite and > 0";
    }
    else if (packetBytes == 0)
    {
        os << "Cora NIC limits: packetBytes must be > 0";
    }
    else if (!std::isfinite(rateHeadroom) || rateHeadroom <= 0)
    {
        os << "Cora NIC limits: rateHeadroom " << rateHeadroom << " must be finite and > 0";
    }
    if (!os.str().empty())
    {
        throw PrestoInputError(os.str());
    }
}

std::string
ToString(CoraStrategy s)
{
    switch (s)
    {
    case CoraStrategy::CORA:
        return "cora";
    case CoraStrategy::STATE_PARTITION:
        return "state";
    case CoraStrategy::FLOW_PARTITION:
        return "flow";
    }
    return "?";
}

CoraStrategy
CoraStrategyFromString(const std::string& name, const std::string& where)
{
    for (auto s : {CoraStrategy::CORA, CoraStrategy::STATE_PARTITION, CoraStrategy::FLOW_PARTITION})
    {
        if (name == ToString(s))
        {
            return s;
        }
    }
    throw PrestoInputError(where + ": unknown Cora strategy '" + name +
                           "' (valid: cora, state, flow)");
}

bool
CoraPlan::OnNic(uint32_t block, uint64_t key) const
{
    if (block < wholeBlockOnNic.size() && wholeBlockOnNic[block])
    {
        return true;
    }
    return nicPairs.count({block, key}) != 0;
}

CoraAllocator::CoraAllocator(const CoraProgram& program,
                             const CoraPerfModel& model,
                             CoraNicLimits limits)
    : m_program(program),
      m_model(model),
      m_limits(limits)
{
    if (!program.IsFinalized())
    {
        throw PrestoInputError("Cora allocator: program '" + program.GetName() +
                               "' is not finalized (call Finalize() first)");
    }
    m_limits.Validate();
}

CoraPlan
CoraAllocator::Allocate(CoraStrategy strategy, const std::vector<CoraFlow>& traffic) const
{
    Workspace ws(*this, traffic);
    CoraPlan plan;
    switch (strategy)
    {
    case CoraStrategy::STATE_PARTITION:
        plan = AllocateState(ws);
        break;
    case CoraStrategy::FLOW_PARTITION:
        plan = AllocateFlow(ws);
        break;
    case CoraStrategy::CORA:
    default:
        plan = AllocateCora(ws);
        break;
    }
    plan.fromTraffic = !traffic.empty();
    return plan;
}

CoraPlanCost
CoraAllocator::Evaluate(const CoraPlan& plan, const std::vector<CoraFlow>& traffic) const
{
    Workspace ws(*this, traffic);
    const auto& blocks = m_program.GetBlocks();
    if (!plan.wholeBlockOnNic.empty() && plan.wholeBlockOnNic.size() != ws.nBlocks)
    {
        std::ostringstream os;
        os << "Cora plan: wholeBlockOnNic has " << plan.wholeBlockOnNic.size()
           << " entries; program '" << m_program.GetName() << "' has " << ws.nBlocks << " blocks";
        throw PrestoInputError(os.str());
    }
    auto whole = [&plan](uint32_t b) {
        return b < plan.wholeBlockOnNic.size() && plan.wholeBlockOnNic[b];
    };
    uint64_t memory = 0;
    uint64_t pairs = 0;
    for (const auto& p : plan.nicPairs)
    {
        if (p.first >= ws.nBlocks)
        {
            std::ostringstream os;
            os << "Cora plan: NIC pair (block " << p.first << ", key " << p.second
               << ") names a block the program '" << m_program.GetName() << "' lacks ("
               << ws.nBlocks << " blocks)";
            throw PrestoInputError(os.str());
        }
        if (!whole(p.first))
        {
            memory += blocks[p.first].bytesPerAggregate;
            ++pairs;
        }
    }
    for (uint32_t b = 0; b < ws.nBlocks; ++b)
    {
        if (whole(b))
        {
            memory += blocks[b].memoryBytes;
            pairs += ws.blockAggs[b].size();
        }
    }

    // Mark the traffic's aggregates the plan puts on the NIC (pairs of aggregates absent
    // from the traffic only take memory).
    std::vector<bool> nic(ws.aggs.size(), false);
    for (uint32_t b = 0; b < ws.nBlocks; ++b)
    {
        if (whole(b))
        {
            for (uint32_t a : ws.blockAggs[b])
            {
                nic[a] = true;
            }
        }
    }
    for (const auto& p : plan.nicPairs)
    {
        auto it = ws.index[p.first].find(p.second);
        if (it != ws.index[p.first].end())
        {
            nic[it->second] = true;
        }
    }
    PlanState state(ws);
    std::vector<uint64_t> masks(ws.flows.size(), 0);
    for (uint32_t f = 0; f < ws.flows.size(); ++f)
    {
        for (uint32_t i = ws.flowOffset[f]; i < ws.flowOffset[f + 1]; ++i)
        {
            if (nic[ws.flowAgg[i]])
            {
                masks[f] |= uint64_t{1} << (i - ws.flowOffset[f]);
            }
        }
    }
    state.SetMasks(masks);
    double hostInstr = 0;
    for (uint32_t a = 0; a < ws.aggs.size(); ++a)
    {
        if (!nic[a])
        {
            hostInstr += ws.aggs[a].volume * blocks[ws.aggs[a].block].instructions;
        }
    }
    state.hostInstructions = hostInstr;
    return state.Cost(memory, pairs);
}

const CoraProgram&
CoraAllocator::GetProgram() const
{
    return m_program;
}

const CoraPerfModel&
CoraAllocator::GetModel() const
{
    return m_model;
}

const CoraNicLimits&
CoraAllocator::GetLimits() const
{
    return m_limits;
}

} // namespace ns3
