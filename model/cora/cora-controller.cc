/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-controller.h"

#include "ns3/presto-input-error.h"
#include "ns3/splitmix.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <tuple>

namespace ns3
{

namespace
{
/// Every eviction policy, in the order the messages list them.
constexpr CoraEvictionPolicy EVICTION_POLICIES[] = {CoraEvictionPolicy::HEAVIEST,
                                                    CoraEvictionPolicy::LIGHTEST,
                                                    CoraEvictionPolicy::RANDOM};
} // namespace

std::string
ToString(CoraEvictionPolicy p)
{
    switch (p)
    {
    case CoraEvictionPolicy::HEAVIEST:
        return "heaviest";
    case CoraEvictionPolicy::LIGHTEST:
        return "lightest";
    case CoraEvictionPolicy::RANDOM:
        return "random";
    }
    return "?";
}

CoraEvictionPolicy
CoraEvictionPolicyFromString(const std::string& name, const std::string& where)
{
    for (auto p : EVICTION_POLICIES)
    {
        if (name == ToString(p))
        {
            return p;
        }
    }
    throw PrestoInputError(where + ": unknown eviction policy '" + name +
                           "' (valid: heaviest, lightest, random)");
}

std::string
ToString(CoraOverloadSignal s)
{
    switch (s)
    {
    case CoraOverloadSignal::IDLE:
        return "idle";
    case CoraOverloadSignal::QUEUE:
        return "queue";
    }
    return "?";
}

CoraOverloadSignal
CoraOverloadSignalFromString(const std::string& name, const std::string& where)
{
    for (auto s : {CoraOverloadSignal::IDLE, CoraOverloadSignal::QUEUE})
    {
        if (name == ToString(s))
        {
            return s;
        }
    }
    throw PrestoInputError(where + ": unknown overload signal '" + name + "' (valid: idle, queue)");
}

void
CoraController::Config::Validate() const
{
    std::ostringstream os;
    if (intervalNs < 1)
    {
        os << "CoraController.Config.intervalNs must be >= 1 ns (got " << intervalNs << ")";
    }
    else if (!(std::isfinite(overload) && overload > 0))
    {
        os << "CoraController.Config.overload must be > 0 and finite (got " << overload << ")";
    }
    else if (!(std::isfinite(underload) && underload >= 0 && underload < overload))
    {
        os << "CoraController.Config.underload must be in [0, overload = " << overload << ") (got "
           << underload << ")";
    }
    else if (maxMigrationsPerInterval < 1)
    {
        os << "CoraController.Config.maxMigrationsPerInterval must be >= 1 (got "
           << maxMigrationsPerInterval << ")";
    }
    else if (sketchWidth < 1 || sketchDepth < 1)
    {
        os << "CoraController.Config.sketchWidth and sketchDepth must be >= 1 (got " << sketchWidth
           << ", " << sketchDepth << ")";
    }
    else if (ToString(signal) == "?")
    {
        os << "CoraController.Config.signal must be idle or queue (got " << static_cast<int>(signal)
           << ")";
    }
    else if (!(queueOverload > 0 && queueOverload <= 1))
    {
        os << "CoraController.Config.queueOverload must be in (0, 1] of the NIC queue (got "
           << queueOverload << ")";
    }
    else if (ToString(eviction) == "?")
    {
        os << "CoraController.Config.eviction must be heaviest, lightest or random (got "
           << static_cast<int>(eviction) << ")";
    }
    else
    {
        return;
    }
    throw PrestoInputError(os.str());
}

CoraController::CoraController(CoraExecutor& exec, Config cfg)
    : m_exec(exec),
      m_cfg((cfg.Validate(), cfg)),
      m_sketch(cfg.sketchWidth, cfg.sketchDepth),
      m_groupPackets(CORA_FLOW_GROUPS, 0),
      m_rng(cfg.seed)
{
}

void
CoraController::OnPacket(const CoraPacket& p)
{
    const CoraProgram& prog = m_exec.GetProgram();
    if (p.flow.branch >= prog.GetBranches().size())
    {
        return; // the executor reports the bad branch
    }
    const auto& blocks = prog.GetBlocks();
    for (uint32_t b : prog.GetBranchBlocks(p.flow.branch))
    {
        m_sketch.Add(CoraPairHash(b, CoraAggregateKey(blocks[b].key, p.flow)));
    }
    ++m_groupPackets[CoraFlowGroup(p.flow.id)];
}

uint64_t
CoraController::Estimate(uint32_t block, uint64_t key) const
{
    return m_sketch.Estimate(CoraPairHash(block, key));
}

double
CoraController::LoadOf(const PairKey& k) const
{
    return static_cast<double>(Estimate(k.first, k.second)) *
           m_exec.GetPairNicCostNs(k.first, k.second) / m_intervalNs;
}

uint64_t
CoraController::MemoryStaying() const
{
    uint64_t leaving = 0;
    for (const auto& k : m_exec.GetPairs(CoraSide::NIC))
    {
        if (m_exec.IsMigrating(k.first, k.second))
        {
            leaving += m_exec.GetPairBytes(k.first);
        }
    }
    return m_exec.GetStats().nicMemoryBytes - leaving;
}

void
CoraController::MoveUnbudgeted(int64_t now, const PairKey& k, CoraSide to, CoraControllerTick& rec)
{
    if (m_budget == 0)
    {
        ++m_budget; // the unit's remaining pairs are counted as if the budget allowed them
    }
    Move(now, k, to, rec);
}

bool
CoraController::Move(int64_t now, const PairKey& k, CoraSide to, CoraControllerTick& rec)
{
    if (m_budget == 0 || !m_exec.Migrate(now, k.first, k.second, to))
    {
        return false;
    }
    --m_budget;
    if (to == CoraSide::HOST)
    {
        ++m_evictions;
        ++rec.evicted;
    }
    else
    {
        ++m_offloads;
        ++rec.offloaded;
    }
    return true;
}

void
CoraController::Tick(int64_t nowNs)
{
    m_exec.AdvanceTo(nowNs);
    if (nowNs <= m_lastNs)
    {
        return;
    }
    CoraControllerTick rec;
    rec.nowNs = nowNs;
    rec.utilisation = m_exec.GetNicUtilisation(m_lastNs, nowNs);
    rec.offeredLoad = m_exec.GetNicOfferedLoad(m_lastNs, nowNs);
    rec.meanQueue = m_exec.GetNicMeanQueue(m_lastNs, nowNs);
    const CoraExecutorStats& st = m_exec.GetStats();
    // NIC queue drops only: a hot lock's drops are EvictLockBound's, not a NIC overload
    rec.nicDrops = st.nicDrops - m_dropsSeen;
    m_dropsSeen = st.nicDrops;
    const double pileUp = m_cfg.queueOverload * m_exec.GetConfig().nicQueueCapacity;
    rec.overloaded =
        rec.utilisation > m_cfg.overload &&
        (m_cfg.signal == CoraOverloadSignal::IDLE || rec.nicDrops > 0 || rec.meanQueue > pileUp);
    m_intervalNs = static_cast<double>(nowNs - m_lastNs);
    m_budget = m_cfg.maxMigrationsPerInterval;
    double load = rec.offeredLoad;
    const CoraStrategy strategy = m_exec.GetConfig().strategy;
    if (strategy == CoraStrategy::CORA)
    {
        EvictLockBound(nowNs, rec);
        if (rec.overloaded)
        {
            Overload(nowNs, rec, load);
        }
        else if (rec.utilisation < m_cfg.underload)
        {
            Underload(nowNs, rec, load);
        }
        FitMemory(nowNs, rec);
    }
    else if (strategy == CoraStrategy::FLOW_PARTITION)
    {
        if (rec.overloaded)
        {
            MoveGroups(nowNs, rec, load, 0);
        }
        else if (rec.utilisation < m_cfg.underload)
        {
            MoveGroups(nowNs, rec, load, 1);
        }
        MoveGroups(nowNs, rec, load, 2);
    }
    // STATE_PARTITION: static, nothing to do.
    m_history.push_back(rec);
    m_sketch.Reset();
    std::fill(m_groupPackets.begin(), m_groupPackets.end(), 0);
    m_lastNs = nowNs;
}

void
CoraController::LightestFirst(std::vector<std::pair<uint64_t, PairKey>>& cand) const
{
    // This interval's sketch estimate first; most light pairs see no packet in one interval,
    // so among equal estimates the pair whose state counted fewer packets in its life is the
    // lighter (the entry's own packet counter, as a NIC table entry keeps one).
    std::vector<std::tuple<uint64_t, uint64_t, PairKey>> keyed;
    keyed.reserve(cand.size());
    for (const auto& [est, k] : cand)
    {
        keyed.emplace_back(est, m_exec.GetStateCount(k.first, k.second), k);
    }
    std::sort(keyed.begin(), keyed.end());
    for (std::size_t i = 0; i < keyed.size(); ++i)
    {
        cand[i] = {std::get<0>(keyed[i]), std::get<2>(keyed[i])};
    }
}

void
CoraController::Shuffle(std::vector<std::pair<uint64_t, PairKey>>& cand)
{
    // Fisher-Yates on a SplitMix64 stream: no std distribution, so the order is the same with
    // every standard library. The modulo's bias (n / 2^64) is negligible.
    for (std::size_t i = cand.size(); i > 1; --i)
    {
        m_rng += 0x9e3779b97f4a7c15ULL;
        const std::size_t j = SplitMix64Finalize(m_rng) % i;
        std::swap(cand[i - 1], cand[j]);
    }
}

void
CoraController::ShedHeaviest(int64_t now,
                             CoraControllerTick& rec,
                             double& load,
                             double target,
                             const std::vector<std::pair<uint64_t, PairKey>>& cand)
{
    // (load it sheds, state counter, pair), heaviest first; ties: the busier state in its life,
    // then the smaller key (determinism).
    std::vector<std::tuple<double, uint64_t, PairKey>> heavy;
    heavy.reserve(cand.size());
    for (const auto& [est, k] : cand)
    {
        const double saved = LoadOf(k);
        if (saved > 0)
        {
            heavy.emplace_back(saved, m_exec.GetStateCount(k.first, k.second), k);
        }
    }
    std::sort(heavy.begin(), heavy.end(), [](const auto& a, const auto& b) {
        if (std::get<0>(a) != std::get<0>(b))
        {
            return std::get<0>(a) > std::get<0>(b);
        }
        if (std::get<1>(a) != std::get<1>(b))
        {
            return std::get<1>(a) > std::get<1>(b);
        }
        return std::get<2>(a) < std::get<2>(b);
    });
    // heavy[0] is the heaviest pair not yet tried; savings are non-increasing along heavy.
    while (load > target && m_budget > 0 && !heavy.empty())
    {
        const double excess = load - target;
        std::size_t pick = 0; // the heaviest cannot shed the rest alone: the biggest bite
        if (std::get<0>(heavy[0]) >= excess)
        {
            // One pair finishes: the lightest one that still sheds the whole rest (binary
            // search for the last saving >= excess).
            std::size_t hi = heavy.size();
            while (hi - pick > 1)
            {
                const std::size_t mid = pick + (hi - pick) / 2;
                (std::get<0>(heavy[mid]) >= excess ? pick : hi) = mid;
            }
        }
        const double saved = std::get<0>(heavy[pick]);
        const PairKey k = std::get<2>(heavy[pick]);
        heavy.erase(heavy.begin() + static_cast<std::ptrdiff_t>(pick));
        if (Move(now, k, CoraSide::HOST, rec))
        {
            load -= saved;
        }
    }
}

void
CoraController::Overload(int64_t now, CoraControllerTick& rec, double& load)
{
    const double target = (m_cfg.overload + m_cfg.underload) / 2;
    std::vector<std::pair<uint64_t, PairKey>> cand;
    for (const auto& k : m_exec.GetPairs(CoraSide::NIC))
    {
        const uint64_t est = Estimate(k.first, k.second);
        // A pair without traffic frees nothing; leave it (and its memory) alone.
        if (est > 0 && !m_exec.IsMigrating(k.first, k.second))
        {
            cand.emplace_back(est, k);
        }
    }
    switch (m_cfg.eviction)
    {
    case CoraEvictionPolicy::HEAVIEST:
        ShedHeaviest(now, rec, load, target, cand);
        return;
    case CoraEvictionPolicy::LIGHTEST:
        // The heavy pairs, which save the most host work, stay on the NIC; many migrations.
        LightestFirst(cand);
        break;
    case CoraEvictionPolicy::RANDOM:
        Shuffle(cand); // cand is in (block, key) order here: the shuffle alone decides
        break;
    }
    for (const auto& [est, k] : cand)
    {
        if (load <= target || m_budget == 0)
        {
            break;
        }
        const double saved = LoadOf(k);
        if (Move(now, k, CoraSide::HOST, rec))
        {
            load -= saved;
        }
    }
}

void
CoraController::EvictLockBound(int64_t now, CoraControllerTick& rec)
{
    // Cora never offloads an aggregate above the rate of its lock (the allocator's rule); at
    // run time the sign is the lock's queue dropping its packets: evict it now, whatever the
    // NIC's utilisation (lock drops do not show there), and never offload it again.
    for (const auto& k : m_exec.GetPairs(CoraSide::NIC))
    {
        const uint64_t drops = m_exec.GetPairLockDrops(k.first, k.second);
        if (drops > 0 && !m_lockBound.count(k) && !m_exec.IsMigrating(k.first, k.second))
        {
            m_lockBound.insert(k);
            MoveUnbudgeted(now, k, CoraSide::HOST, rec);
        }
    }
}

void
CoraController::Underload(int64_t now, CoraControllerTick& rec, double& load)
{
    std::vector<std::pair<uint64_t, PairKey>> cand;
    for (const auto& k : m_exec.GetPairs(CoraSide::HOST))
    {
        const uint64_t est = Estimate(k.first, k.second);
        if (est > 0 && !m_exec.IsMigrating(k.first, k.second))
        {
            cand.emplace_back(est, k);
        }
    }
    // Heaviest first (ties: the smaller key first, for determinism).
    std::sort(cand.begin(), cand.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (const auto& [est, k] : cand)
    {
        if (m_budget == 0)
        {
            break;
        }
        if (m_lockBound.count(k))
        {
            continue; // above its lock's rate: the NIC would drop it again
        }
        const double added = LoadOf(k);
        if (load + added >= m_cfg.overload)
        {
            continue; // a lighter pair may still fit
        }
        // Migrate() refuses when the entry does not fit in the free NIC memory.
        if (Move(now, k, CoraSide::NIC, rec))
        {
            load += added;
        }
    }
}

void
CoraController::FitMemory(int64_t now, CoraControllerTick& rec)
{
    uint64_t staying = MemoryStaying();
    const uint64_t capacity = m_exec.GetNicMemoryCapacity();
    if (staying <= capacity)
    {
        return;
    }
    std::vector<std::pair<uint64_t, PairKey>> cand;
    for (const auto& k : m_exec.GetPairs(CoraSide::NIC))
    {
        if (!m_exec.IsMigrating(k.first, k.second))
        {
            cand.emplace_back(Estimate(k.first, k.second), k);
        }
    }
    // Smallest first: they cost the host least, and are the easiest to find.
    LightestFirst(cand);
    for (const auto& [est, k] : cand)
    {
        if (staying <= capacity || m_budget == 0)
        {
            break;
        }
        if (Move(now, k, CoraSide::HOST, rec))
        {
            staying -= m_exec.GetPairBytes(k.first);
            rec.memoryEviction = true;
            ++rec.memoryEvicted;
        }
    }
}

std::vector<uint32_t>
CoraController::Closure(uint32_t group) const
{
    std::vector<bool> in(CORA_FLOW_GROUPS, false);
    std::vector<uint32_t> todo{group};
    in[group] = true;
    std::vector<uint32_t> out;
    while (!todo.empty())
    {
        const uint32_t g = todo.back();
        todo.pop_back();
        out.push_back(g);
        for (const auto& k : m_exec.GetGroupPairs(g))
        {
            const uint64_t mask = m_exec.GetPairGroups(k.first, k.second);
            for (uint32_t h = 0; h < CORA_FLOW_GROUPS; ++h)
            {
                if ((mask >> h & 1) && !in[h])
                {
                    in[h] = true;
                    todo.push_back(h);
                }
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<CoraController::PairKey>
CoraController::PairsOf(const std::vector<uint32_t>& groups) const
{
    std::set<PairKey> pairs;
    for (uint32_t g : groups)
    {
        for (const auto& k : m_exec.GetGroupPairs(g))
        {
            pairs.insert(k);
        }
    }
    return {pairs.begin(), pairs.end()};
}

void
CoraController::MoveGroups(int64_t now, CoraControllerTick& rec, double& load, int mode)
{
    const double target = (m_cfg.overload + m_cfg.underload) / 2;
    const CoraSide from = mode == 1 ? CoraSide::HOST : CoraSide::NIC;
    const CoraSide to = mode == 1 ? CoraSide::NIC : CoraSide::HOST;
    uint64_t staying = MemoryStaying();
    const uint64_t capacity = m_exec.GetNicMemoryCapacity();
    if (mode == 2 && staying <= capacity)
    {
        return;
    }
    std::vector<std::pair<uint64_t, uint32_t>> cand;
    for (uint32_t g = 0; g < CORA_FLOW_GROUPS; ++g)
    {
        if (m_exec.GetGroupSide(g) == from && !m_exec.GetGroupPairs(g).empty() &&
            (mode == 2 || m_groupPackets[g] > 0))
        {
            cand.emplace_back(m_groupPackets[g], g);
        }
    }
    // Evictions take the lightest groups first, offloads the heaviest.
    std::sort(cand.begin(), cand.end());
    if (mode == 1)
    {
        std::stable_sort(cand.begin(), cand.end(), [](const auto& a, const auto& b) {
            return a.first > b.first;
        });
    }
    std::vector<bool> done(CORA_FLOW_GROUPS, false);
    for (const auto& [packets, g] : cand)
    {
        if (m_budget == 0 || (mode == 0 && load <= target) || (mode == 2 && staying <= capacity))
        {
            break;
        }
        if (done[g])
        {
            continue;
        }
        const auto groups = Closure(g);
        std::vector<PairKey> moving;
        double delta = 0;
        uint64_t bytes = 0;
        for (const auto& k : PairsOf(groups))
        {
            if (m_exec.GetSide(k.first, k.second) == from && !m_exec.IsMigrating(k.first, k.second))
            {
                moving.push_back(k);
                delta += LoadOf(k);
                bytes += m_exec.GetPairBytes(k.first);
            }
        }
        for (uint32_t h : groups)
        {
            done[h] = true;
        }
        // A unit moves whole or not at all; one larger than the budget may move alone (the
        // first in its Tick), or a unit coupling many groups could never move.
        if (moving.size() > m_budget && m_budget < m_cfg.maxMigrationsPerInterval)
        {
            continue;
        }
        if (mode == 1 && (load + delta >= m_cfg.overload || staying + bytes > capacity))
        {
            continue;
        }
        const uint32_t evictedBefore = rec.evicted;
        for (const auto& k : moving)
        {
            MoveUnbudgeted(now, k, to, rec);
        }
        if (mode == 2)
        {
            rec.memoryEvicted += rec.evicted - evictedBefore;
        }
        for (uint32_t h : groups)
        {
            m_exec.SetGroupSide(h, to);
        }
        if (mode == 1)
        {
            load += delta;
            staying += bytes;
        }
        else
        {
            load -= delta;
            staying -= std::min(staying, bytes);
            rec.memoryEviction = rec.memoryEviction || mode == 2;
        }
    }
}

const CoraController::Config&
CoraController::GetConfig() const
{
    return m_cfg;
}

uint64_t
CoraController::GetEvictions() const
{
    return m_evictions;
}

uint64_t
CoraController::GetOffloads() const
{
    return m_offloads;
}

const std::vector<CoraControllerTick>&
CoraController::GetHistory() const
{
    return m_history;
}

} // namespace ns3
