/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-schedule.h"

#include "ns3/percentile.h"
#include "ns3/presto-input-error.h"
#include "ns3/splitmix.h"

#include <algorithm>
#include <map>

namespace ns3
{

CollectiveSchedule::CollectiveSchedule(CollectiveKind kind, uint32_t ranks, uint64_t bytes)
    : m_kind(kind),
      m_ranks(ranks),
      m_bytes(bytes)
{
    if (ranks < 2)
    {
        throw PrestoInputError("--ranks=" + std::to_string(ranks) +
                               ": a collective needs at least 2 ranks");
    }
    if (bytes < ranks)
    {
        throw PrestoInputError("--collectiveBytes=" + std::to_string(bytes) +
                               " must be at least --ranks=" + std::to_string(ranks) +
                               " (every rank's chunk needs a byte)");
    }
}

CollectiveKind
CollectiveSchedule::GetKind() const
{
    return m_kind;
}

uint32_t
CollectiveSchedule::GetRanks() const
{
    return m_ranks;
}

uint64_t
CollectiveSchedule::GetBytes() const
{
    return m_bytes;
}

uint32_t
CollectiveSchedule::GetSteps() const
{
    return m_kind == CollectiveKind::ALL_REDUCE ? 2 * (m_ranks - 1) : 1;
}

uint64_t
CollectiveSchedule::ChunkBytes(uint32_t c) const
{
    const uint64_t base = m_bytes / m_ranks;
    return c + 1 == m_ranks ? base + m_bytes % m_ranks : base;
}

uint32_t
CollectiveSchedule::RingChunk(uint32_t step, uint32_t rank) const
{
    const uint32_t n = m_ranks;
    if (step < n - 1)
    {
        return (rank + n - step) % n; // reduce-scatter: chunk (r - k) mod N
    }
    const uint32_t j = step - (n - 1); // all-gather: chunk (r + 1 - j) mod N, j < N - 1
    return (rank + 1 + n - j) % n;
}

std::vector<CollectiveSchedule::Transfer>
CollectiveSchedule::Sends(uint32_t step, uint32_t rank) const
{
    std::vector<Transfer> out;
    if (m_kind == CollectiveKind::ALL_REDUCE)
    {
        out.push_back({rank, (rank + 1) % m_ranks, ChunkBytes(RingChunk(step, rank))});
        return out;
    }
    // all-to-all: to the ranks after this one first, so that not every rank starts on rank 0
    for (uint32_t i = 1; i < m_ranks; ++i)
    {
        const uint32_t d = (rank + i) % m_ranks;
        out.push_back({rank, d, ChunkBytes(d)});
    }
    return out;
}

std::vector<CollectiveSchedule::Transfer>
CollectiveSchedule::Receives(uint32_t step, uint32_t rank) const
{
    std::vector<Transfer> in;
    if (m_kind == CollectiveKind::ALL_REDUCE)
    {
        const uint32_t pred = (rank + m_ranks - 1) % m_ranks;
        in.push_back({pred, rank, ChunkBytes(RingChunk(step, pred))});
        return in;
    }
    for (uint32_t i = 1; i < m_ranks; ++i)
    {
        in.push_back({(rank + m_ranks - i) % m_ranks, rank, ChunkBytes(rank)});
    }
    return in;
}

std::vector<std::pair<uint32_t, uint32_t>>
CollectiveSchedule::Pairs() const
{
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t r = 0; r < m_ranks; ++r)
    {
        for (const Transfer& t : Sends(0, r))
        {
            pairs.emplace_back(t.src, t.dst);
        }
    }
    return pairs;
}

uint64_t
CollectiveSchedule::BytesSentPerRank(uint32_t rank) const
{
    uint64_t sum = 0;
    for (uint32_t k = 0; k < GetSteps(); ++k)
    {
        for (const Transfer& t : Sends(k, rank))
        {
            sum += t.bytes;
        }
    }
    return sum;
}

CollectiveKind
CollectiveKindFromString(const std::string& name)
{
    if (name == "allreduce")
    {
        return CollectiveKind::ALL_REDUCE;
    }
    if (name == "alltoall")
    {
        return CollectiveKind::ALL_TO_ALL;
    }
    throw PrestoInputError("--workload=" + name + " is not a collective (allreduce, alltoall)");
}

CollectivePlacement
CollectivePlacementFromString(const std::string& name)
{
    if (name == "linear")
    {
        return CollectivePlacement::LINEAR;
    }
    if (name == "spread")
    {
        return CollectivePlacement::SPREAD;
    }
    if (name == "random")
    {
        return CollectivePlacement::RANDOM;
    }
    throw PrestoInputError("--placement=" + name + " is not one of linear, spread, random");
}

std::vector<uint32_t>
PlaceRanks(uint32_t ranks,
           const std::vector<uint32_t>& rackOfHost,
           CollectivePlacement policy,
           uint64_t seed)
{
    const auto hosts = static_cast<uint32_t>(rackOfHost.size());
    if (ranks == 0 || ranks > hosts)
    {
        throw PrestoInputError("--ranks=" + std::to_string(ranks) + " must be in [1, " +
                               std::to_string(hosts) + "] (one rank per host of the fabric)");
    }
    std::vector<uint32_t> order(hosts);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        order[h] = h;
    }
    if (policy == CollectivePlacement::RANDOM)
    {
        // Fisher-Yates on a SplitMix64 stream: the same on every standard library
        uint64_t state = SplitMix64(seed ^ 0x636f6c6cULL); // "coll"
        for (uint32_t i = hosts - 1; i > 0; --i)
        {
            state = SplitMix64(state);
            std::swap(order[i], order[state % (i + 1)]);
        }
    }
    else if (policy == CollectivePlacement::SPREAD)
    {
        // racks in order of their first host; deal one host of each rack in turn
        std::map<uint32_t, uint32_t> rankOfRack;
        std::vector<std::vector<uint32_t>> racks;
        for (uint32_t h = 0; h < hosts; ++h)
        {
            auto it = rankOfRack.emplace(rackOfHost[h], static_cast<uint32_t>(racks.size()));
            if (it.second)
            {
                racks.emplace_back();
            }
            racks[it.first->second].push_back(h);
        }
        order.clear();
        for (size_t round = 0; order.size() < hosts; ++round)
        {
            for (const auto& rack : racks)
            {
                if (round < rack.size())
                {
                    order.push_back(rack[round]);
                }
            }
        }
    }
    order.resize(ranks);
    return order;
}

CollectiveSummary
CollectiveSummary::Of(const std::vector<CollectiveStepRecord>& records)
{
    CollectiveSummary s;
    s.complete = !records.empty();
    int64_t first = INT64_MAX;
    int64_t last = INT64_MIN;
    std::map<uint32_t, std::pair<int64_t, int64_t>> iterations; // first start, last end
    std::map<uint32_t, int64_t> rankEnd;
    std::vector<double> durations;
    std::map<uint32_t, std::vector<double>> byStep;
    for (const CollectiveStepRecord& r : records)
    {
        if (r.startNs < 0 || r.endNs < 0)
        {
            s.complete = false;
            continue;
        }
        first = std::min(first, r.startNs);
        last = std::max(last, r.endNs);
        auto it = iterations.emplace(r.iteration, std::make_pair(r.startNs, r.endNs)).first;
        it->second.first = std::min(it->second.first, r.startNs);
        it->second.second = std::max(it->second.second, r.endNs);
        int64_t& end = rankEnd.emplace(r.rank, r.endNs).first->second;
        end = std::max(end, r.endNs);
        durations.push_back(static_cast<double>(r.endNs - r.startNs));
        byStep[r.step].push_back(durations.back());
    }
    if (durations.empty())
    {
        return s;
    }
    s.jctNs = last - first;
    for (const auto& [i, span] : iterations)
    {
        s.iterationJctNs.push_back(span.second - span.first);
    }
    std::sort(durations.begin(), durations.end());
    s.stepP50Ns = Percentile(durations, 0.5);
    s.stepP99Ns = Percentile(durations, 0.99);
    s.stepMaxNs = durations.back();
    for (auto& [step, d] : byStep)
    {
        std::sort(d.begin(), d.end());
        s.perStepNs.emplace_back(Percentile(d, 0.5), Percentile(d, 0.99));
    }
    s.slowestRankEndNs = INT64_MIN;
    for (const auto& [rank, end] : rankEnd)
    {
        if (end > s.slowestRankEndNs) // ties: the lowest rank
        {
            s.slowestRank = rank;
            s.slowestRankEndNs = end;
        }
    }
    return s;
}

} // namespace ns3
