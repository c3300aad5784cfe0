/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Read-only views of the Cora executor: the NIC utilisation windows the controller and the
// device read, and the per-pair and per-group queries. Kept apart from cora-executor.cc, which
// holds the per-packet model and the migrations that change this state.
#include "cora-executor.h"

#include <algorithm>

namespace ns3
{

double
CoraExecutor::WindowSum(const std::map<int64_t, double>& rec, int64_t from, int64_t to) const
{
    const int64_t b = m_cfg.utilBucketNs;
    double sum = 0;
    for (auto it = rec.lower_bound(from / b); it != rec.end() && it->first * b < to; ++it)
    {
        // Work within a bucket is taken as spread evenly over it.
        const int64_t lo = std::max(from, it->first * b);
        const int64_t hi = std::min(to, (it->first + 1) * b);
        if (hi > lo)
        {
            sum += it->second * static_cast<double>(hi - lo) / static_cast<double>(b);
        }
    }
    return sum;
}

double
CoraExecutor::BusyRunSum(int64_t from, int64_t to) const
{
    // A whole bucket holds b ns of work spread over it: its share of the window is the
    // overlap, so a run contributes the overlap of its span with the window.
    const int64_t b = m_cfg.utilBucketNs;
    auto it = m_busyRuns.upper_bound(from / b);
    if (it != m_busyRuns.begin())
    {
        --it;
    }
    double sum = 0;
    for (; it != m_busyRuns.end() && it->first * b < to; ++it)
    {
        const int64_t lo = std::max(from, it->first * b);
        const int64_t hi = std::min(to, it->second * b);
        if (hi > lo)
        {
            sum += static_cast<double>(hi - lo);
        }
    }
    return sum;
}

std::size_t
CoraExecutor::GetBusyRecordEntries() const
{
    return m_busy.size() + m_busyRuns.size();
}

double
CoraExecutor::GetNicUtilisation(int64_t fromNs, int64_t toNs) const
{
    if (toNs <= fromNs)
    {
        return 0;
    }
    const double u = (WindowSum(m_busy, fromNs, toNs) + BusyRunSum(fromNs, toNs)) /
                     static_cast<double>(toNs - fromNs);
    return std::clamp(u, 0.0, 1.0);
}

double
CoraExecutor::GetNicOfferedLoad(int64_t fromNs, int64_t toNs) const
{
    if (toNs <= fromNs)
    {
        return 0;
    }
    return WindowSum(m_offered, fromNs, toNs) / static_cast<double>(toNs - fromNs);
}

double
CoraExecutor::GetNicMeanQueue(int64_t fromNs, int64_t toNs) const
{
    const double n = toNs > fromNs ? WindowSum(m_arrived, fromNs, toNs) : 0.0;
    return n > 0 ? WindowSum(m_queued, fromNs, toNs) / n : 0.0;
}

uint64_t
CoraExecutor::GetPairLockDrops(uint32_t block, uint64_t key) const
{
    auto it = m_pairs.find({block, key});
    return it == m_pairs.end() ? 0 : it->second.lockDrops;
}

uint64_t
CoraExecutor::GetNicMemoryCapacity() const
{
    return m_cfg.limits.memoryBytes;
}

const CoraExecutorStats&
CoraExecutor::GetStats() const
{
    return m_stats;
}

CoraSide
CoraExecutor::GetSide(uint32_t block, uint64_t key) const
{
    auto it = m_pairs.find({block, key});
    return it == m_pairs.end() ? CoraSide::HOST : it->second.side;
}

bool
CoraExecutor::HasPair(uint32_t block, uint64_t key) const
{
    return m_pairs.count({block, key}) > 0;
}

bool
CoraExecutor::IsMigrating(uint32_t block, uint64_t key) const
{
    auto it = m_pairs.find({block, key});
    return it != m_pairs.end() && it->second.migrating;
}

uint64_t
CoraExecutor::GetStateCount(uint32_t block, uint64_t key) const
{
    auto it = m_pairs.find({block, key});
    return it == m_pairs.end() ? 0 : it->second.count;
}

double
CoraExecutor::GetPairNicCostNs(uint32_t block, uint64_t key) const
{
    auto it = m_pairs.find({block, key});
    if (it == m_pairs.end())
    {
        return 0;
    }
    std::vector<bool> none(m_program.GetBlocks().size(), false);
    std::vector<bool> only = none;
    only[block] = true;
    const uint32_t branch = it->second.lastBranch;
    return GetRates(branch, only).nicServiceNs - GetRates(branch, none).nicServiceNs;
}

std::vector<std::pair<uint32_t, uint64_t>>
CoraExecutor::GetPairs(CoraSide side) const
{
    std::vector<std::pair<uint32_t, uint64_t>> out;
    for (const auto& [k, p] : m_pairs)
    {
        if (p.side == side)
        {
            out.push_back(k);
        }
    }
    return out;
}

CoraSide
CoraExecutor::GetGroupSide(uint32_t group) const
{
    return m_groupSide.at(group) == 0 ? CoraSide::NIC : CoraSide::HOST;
}

std::vector<std::pair<uint32_t, uint64_t>>
CoraExecutor::GetGroupPairs(uint32_t group) const
{
    auto out = m_groupPairs.at(group);
    std::sort(out.begin(), out.end());
    return out;
}

uint64_t
CoraExecutor::GetPairGroups(uint32_t block, uint64_t key) const
{
    auto it = m_pairs.find({block, key});
    return it == m_pairs.end() ? 0 : it->second.groups;
}

const CoraExecutorConfig&
CoraExecutor::GetConfig() const
{
    return m_cfg;
}

const CoraProgram&
CoraExecutor::GetProgram() const
{
    return m_program;
}

} // namespace ns3
