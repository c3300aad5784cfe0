/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-allocator-workspace.h"

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

namespace cora_alloc
{

namespace
{

/// Blocks of a branch are tracked as bits of a 64-bit mask.
constexpr std::size_t MAX_BRANCH_BLOCKS = 64;

/// Branches visiting up to this many blocks cache their rates in a dense table.
constexpr std::size_t DENSE_RATE_BLOCKS = 12;

} // namespace

CoraProgramLoad
Workspace::LoadOnly(uint32_t br, uint32_t b) const
{
    std::vector<bool> nic(nBlocks, false);
    nic[b] = true;
    return prog.NicLoad(br, nic);
}

Workspace::Workspace(const CoraAllocator& a, const std::vector<CoraFlow>& traffic)
    : alloc(a),
      prog(a.GetProgram()),
      flows(traffic)
{
    nBlocks = prog.GetBlocks().size();
    IndexBranchBlocks();
    LockLayout locks;
    MarkSupportedBlocks(locks);
    ComputeBlockRates(locks);
    BuildAggregates(locks);
    GroupFlowsByAggregate();
    InitRateCache();
}

void
Workspace::IndexBranchBlocks()
{
    const auto& branches = prog.GetBranches();
    pos.assign(branches.size(), std::vector<int>(nBlocks, -1));
    fullMask.assign(branches.size(), 0);
    for (uint32_t br = 0; br < branches.size(); ++br)
    {
        const auto& bb = prog.GetBranchBlocks(br);
        if (bb.size() > MAX_BRANCH_BLOCKS)
        {
            std::ostringstream os;
            os << "Cora allocator: branch '" << branches[br].name << "' of program '"
               << prog.GetName() << "' visits " << bb.size() << " state blocks; at most "
               << MAX_BRANCH_BLOCKS << " are supported";
            throw PrestoInputError(os.str());
        }
        for (std::size_t p = 0; p < bb.size(); ++p)
        {
            pos[br][bb[p]] = static_cast<int>(p);
            fullMask[br] |= uint64_t{1} << p;
        }
    }
}

void
Workspace::MarkSupportedBlocks(LockLayout& locks)
{
    // A block can run on the NIC only if the profile models every access it makes (as
    // Gallium and Cora check that the NIC supports a state's operations).
    const auto& blocks = prog.GetBlocks();
    const auto& profile = alloc.GetModel().GetProfile();
    const CoraAccessKind lockWord{CoraMemoryType::IMEM,
                                  CoraMemoryOp::WRITE,
                                  CoraAccessMode::ATOMIC,
                                  4};
    supported.assign(nBlocks, true);
    locks.blockLocks.assign(nBlocks, 0);
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        for (uint32_t e : blocks[b].elements)
        {
            const auto& el = prog.GetElements()[e];
            locks.blockLocks[b] += el.locks;
            for (const auto& acc : el.accesses)
            {
                if (acc.perPacket > 0 && !profile.HasCurve(acc.kind))
                {
                    supported[b] = false;
                }
            }
            if (el.lockAccessesPerPacket > 0 && !profile.HasCurve(lockWord))
            {
                supported[b] = false;
            }
        }
    }
}

void
Workspace::ComputeBlockRates(LockLayout& locks)
{
    // Per block: attainable NIC rate and one lock's rate, the smallest over the branches.
    const auto& model = alloc.GetModel();
    const std::size_t nBranches = prog.GetBranches().size();
    const double inf = std::numeric_limits<double>::infinity();
    attainable.assign(nBlocks, inf);
    std::vector<double> perLock(nBlocks, inf);
    locks.takesLock.assign(nBranches, std::vector<bool>(nBlocks, false));
    for (uint32_t br = 0; br < nBranches; ++br)
    {
        for (uint32_t b : prog.GetBranchBlocks(br))
        {
            if (!supported[b])
            {
                continue;
            }
            const CoraProgramLoad load = LoadOnly(br, b);
            attainable[b] = std::min(attainable[b], model.PredictLockFreePps(load));
            if (load.distinctLocks > 0)
            {
                locks.takesLock[br][b] = true;
                perLock[b] = std::min(perLock[b], model.PredictPerLockPps(load));
            }
        }
    }
    locks.slotBase.assign(nBlocks, 0);
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        locks.slotBase[b] = slotRate.size();
        if (supported[b] && perLock[b] < inf)
        {
            slotRate.insert(slotRate.end(), locks.blockLocks[b], perLock[b]);
        }
    }
}

void
Workspace::ValidateFlow(uint32_t i) const
{
    const CoraFlow& f = flows[i];
    const auto& branches = prog.GetBranches();
    if (f.branch >= branches.size())
    {
        std::ostringstream os;
        os << "Cora traffic: flow " << f.id << " (entry " << i << ") has branch " << f.branch
           << "; program '" << prog.GetName() << "' has " << branches.size() << " branches (";
        for (std::size_t br = 0; br < branches.size(); ++br)
        {
            os << (br ? ", " : "") << br << " = " << branches[br].name;
        }
        os << ")";
        throw PrestoInputError(os.str());
    }
    if (!std::isfinite(f.pps) || f.pps < 0)
    {
        std::ostringstream os;
        os << "Cora traffic: flow " << f.id << " (entry " << i << ") has pps " << f.pps
           << "; need a finite value >= 0";
        throw PrestoInputError(os.str());
    }
}

void
Workspace::BuildAggregates(const LockLayout& locks)
{
    // Validate the flows and build the aggregates (insight 1).
    const auto& blocks = prog.GetBlocks();
    index.assign(nBlocks, {});
    for (auto& m : index)
    {
        m.reserve(flows.size());
    }
    blockAggs.assign(nBlocks, {});
    flowOffset.reserve(flows.size() + 1);
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        ValidateFlow(i);
        const CoraFlow& f = flows[i];
        offered += f.pps;
        flowOffset.push_back(flowAgg.size());
        for (uint32_t b : prog.GetBranchBlocks(f.branch))
        {
            const CoraFlowKey key = blocks[b].key;
            const uint64_t k = CoraAggregateKey(key, f);
            auto it = index[b].find(k);
            if (it == index[b].end())
            {
                it = index[b].emplace(k, static_cast<uint32_t>(aggs.size())).first;
                aggs.push_back(Aggregate{b, k, 0, 0, 0});
                blockAggs[b].push_back(it->second);
            }
            Aggregate& agg = aggs[it->second];
            agg.volume += f.pps;
            ++agg.end; // a count for now, turned into a range by GroupFlowsByAggregate
            flowAgg.push_back(it->second);
            flowSlot.push_back(locks.takesLock[f.branch][b]
                                   ? locks.slotBase[b] + CoraLockIndex(key, f, locks.blockLocks[b])
                                   : NO_SLOT);
        }
    }
    flowOffset.push_back(flowAgg.size());
}

void
Workspace::GroupFlowsByAggregate()
{
    // Counting sort: flows keep their traffic order.
    uint32_t next = 0;
    for (auto& agg : aggs)
    {
        agg.begin = next;
        next += agg.end;
        agg.end = agg.begin;
    }
    aggFlows.resize(next);
    for (uint32_t i = 0; i < flows.size(); ++i)
    {
        for (uint32_t j = flowOffset[i]; j < flowOffset[i + 1]; ++j)
        {
            aggFlows[aggs[flowAgg[j]].end++] = i;
        }
    }
}

void
Workspace::InitRateCache()
{
    const std::size_t nBranches = prog.GetBranches().size();
    m_rates.resize(nBranches);
    // Branches visit few blocks: a dense table per branch avoids hashing on the hot path.
    m_dense.resize(nBranches);
    for (uint32_t br = 0; br < nBranches; ++br)
    {
        const std::size_t nb = prog.GetBranchBlocks(br).size();
        if (nb <= DENSE_RATE_BLOCKS)
        {
            m_dense[br].assign(std::size_t{1} << nb, -1.0);
        }
    }
}

double
Workspace::Rate(uint32_t br, uint64_t mask)
{
    const bool dense = !m_dense[br].empty();
    if (dense && m_dense[br][mask] >= 0)
    {
        return m_dense[br][mask];
    }
    auto it = m_rates[br].find(mask);
    if (!dense && it != m_rates[br].end())
    {
        return it->second;
    }
    std::vector<bool> nic(nBlocks, false);
    const auto& bb = prog.GetBranchBlocks(br);
    for (std::size_t p = 0; p < bb.size(); ++p)
    {
        nic[bb[p]] = ((mask >> p) & 1) != 0;
    }
    const double r = alloc.GetModel().PredictLockFreePps(prog.NicLoad(br, nic));
    if (dense)
    {
        m_dense[br][mask] = r;
    }
    else
    {
        m_rates[br].emplace(mask, r);
    }
    return r;
}

} // namespace cora_alloc

} // namespace ns3
