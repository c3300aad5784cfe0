/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-executor.h"

#include "cora-count-min.h"

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

namespace
{

// Salt: keeps the RSS core choice independent of the flow group and lock choices.
constexpr uint64_t CORE_SALT = 0x0C0E5EEDULL;

/// Throw a PrestoInputError naming a CoraExecutorConfig field.
[[noreturn]] void
BadField(const std::string& field, const std::string& rule, double got)
{
    std::ostringstream os;
    os << "CoraExecutorConfig." << field << " must be " << rule << " (got " << got << ")";
    throw PrestoInputError(os.str());
}

bool
Finite(double x)
{
    return std::isfinite(x);
}

} // namespace

std::string
ToString(CoraSide s)
{
    return s == CoraSide::NIC ? "nic" : "host";
}

std::string
ToString(CoraDropReason r)
{
    switch (r)
    {
    case CoraDropReason::NONE:
        return "none";
    case CoraDropReason::NIC_OVERLOAD:
        return "nic_overload";
    case CoraDropReason::HOST_OVERLOAD:
        return "host_overload";
    case CoraDropReason::LOCK_CONTENTION:
        return "lock_contention";
    }
    return "unknown";
}

void
CoraExecutorConfig::Validate() const
{
    if (hostCores < 1)
    {
        BadField("hostCores", ">= 1", hostCores);
    }
    if (!(Finite(hostClockHz) && hostClockHz > 0))
    {
        BadField("hostClockHz", "> 0 and finite", hostClockHz);
    }
    if (!(Finite(hostCyclesPerInstruction) && hostCyclesPerInstruction >= 0))
    {
        BadField("hostCyclesPerInstruction", ">= 0 and finite", hostCyclesPerInstruction);
    }
    if (!(Finite(hostPacketCycles) && hostPacketCycles >= 0))
    {
        BadField("hostPacketCycles", ">= 0 and finite", hostPacketCycles);
    }
    if (hostQueueCapacity < 1)
    {
        BadField("hostQueueCapacity", ">= 1", hostQueueCapacity);
    }
    if (nicQueueCapacity < 1)
    {
        BadField("nicQueueCapacity", ">= 1", nicQueueCapacity);
    }
    if (!(Finite(nicRateScale) && nicRateScale > 0))
    {
        BadField("nicRateScale", "> 0 and finite", nicRateScale);
    }
    if (nicLatencyNs < 0)
    {
        BadField("nicLatencyNs", ">= 0", static_cast<double>(nicLatencyNs));
    }
    if (pcieLatencyNs < 0)
    {
        BadField("pcieLatencyNs", ">= 0", static_cast<double>(pcieLatencyNs));
    }
    if (!(Finite(placementOverload) && placementOverload > 0))
    {
        BadField("placementOverload", "> 0 and finite", placementOverload);
    }
    if (!(placementQueueShare >= 0 && placementQueueShare <= 1))
    {
        BadField("placementQueueShare", "in [0, 1]", placementQueueShare);
    }
    if (placementWindowNs < 1)
    {
        BadField("placementWindowNs", ">= 1", static_cast<double>(placementWindowNs));
    }
    if (utilBucketNs < 1)
    {
        BadField("utilBucketNs", ">= 1", static_cast<double>(utilBucketNs));
    }
    if (utilHistoryNs < utilBucketNs)
    {
        BadField("utilHistoryNs", ">= utilBucketNs", static_cast<double>(utilHistoryNs));
    }
    limits.Validate();
}

CoraExecutor::CoraExecutor(const CoraProgram& program,
                           const CoraPerfModel& model,
                           CoraExecutorConfig cfg)
    : m_program(program),
      m_model(model),
      m_cfg(std::move(cfg))
{
    if (!m_program.IsFinalized())
    {
        throw PrestoInputError("Cora executor: program '" + m_program.GetName() +
                               "' is not finalized");
    }
    m_cfg.Validate();
    m_plan.strategy = m_cfg.strategy;
    m_groupPairs.assign(CORA_FLOW_GROUPS, {});
    m_groupSide.assign(CORA_FLOW_GROUPS, -1);
    m_cores.assign(m_cfg.hostCores, Fifo{});
    // A block's host work is the instructions of all its elements (the branch touches each
    // element of a block it visits: blocks are built from the branch's elements).
    for (const auto& b : m_program.GetBlocks())
    {
        m_blockInstructions.push_back(b.instructions);
    }
    // A block's locks are the sum of its elements' locks (as in the allocator).
    m_blockLocks.assign(m_program.GetBlocks().size(), 0);
    for (uint32_t e = 0; e < m_program.GetElements().size(); ++e)
    {
        m_blockLocks[m_program.GetBlockOf(e)] += m_program.GetElements()[e].locks;
    }
}

void
CoraExecutor::SetPlan(const CoraPlan& plan)
{
    const auto nBlocks = m_program.GetBlocks().size();
    if (!plan.wholeBlockOnNic.empty() && plan.wholeBlockOnNic.size() != nBlocks)
    {
        std::ostringstream os;
        os << "Cora executor: plan has " << plan.wholeBlockOnNic.size()
           << " wholeBlockOnNic flags, program '" << m_program.GetName() << "' has " << nBlocks
           << " blocks";
        throw PrestoInputError(os.str());
    }
    for (const auto& [block, key] : plan.nicPairs)
    {
        if (block >= nBlocks)
        {
            std::ostringstream os;
            os << "Cora executor: plan names block " << block << ", program '"
               << m_program.GetName() << "' has " << nBlocks << " blocks";
            throw PrestoInputError(os.str());
        }
    }
    m_plan = plan;
}

const CoraExecutor::Rates&
CoraExecutor::GetRates(uint32_t branch, const std::vector<bool>& nicBlocks) const
{
    auto key = std::make_pair(branch, nicBlocks);
    auto it = m_rates.find(key);
    if (it != m_rates.end())
    {
        return it->second;
    }
    const CoraProgramLoad load = m_program.NicLoad(branch, nicBlocks);
    Rates r;
    r.nicServiceNs = 1e9 / (m_cfg.nicRateScale * m_model.PredictLockFreePps(load));
    return m_rates.emplace(std::move(key), r).first->second;
}

double
CoraExecutor::GetLockServiceNs(uint32_t branch, uint32_t block) const
{
    auto key = std::make_pair(branch, block);
    auto it = m_lockServiceNs.find(key);
    if (it != m_lockServiceNs.end())
    {
        return it->second;
    }
    // As the allocator: one lock sustains PredictPerLockPps of the branch's load with only
    // this block on the NIC. A lock serialises its holders, so its rate does not grow with
    // the share of NIC cores the program has (nicRateScale).
    std::vector<bool> only(m_program.GetBlocks().size(), false);
    only[block] = true;
    const double s = 1e9 / m_model.PredictPerLockPps(m_program.NicLoad(branch, only));
    m_lockServiceNs.emplace(key, s);
    return s;
}

std::size_t
CoraExecutor::Occupancy(const Fifo& q, double t)
{
    // Departures are non-decreasing (FIFO), so those after t are a suffix.
    return static_cast<std::size_t>(q.departs.end() -
                                    std::upper_bound(q.departs.begin(), q.departs.end(), t));
}

void
CoraExecutor::Prune(Fifo& q, double now)
{
    while (!q.departs.empty() && q.departs.front() <= now)
    {
        q.departs.pop_front();
    }
}

double
CoraExecutor::Serve(Fifo& q, double t, double s)
{
    // Served in submission order: a packet submitted later never leaves earlier, even if it
    // arrives earlier (held packets are injected at their commit time).
    const double end = std::max(t, q.busyUntil) + s;
    q.busyUntil = end;
    q.departs.push_back(end);
    return end;
}

void
CoraExecutor::AddBusy(double from, double to)
{
    // Partial buckets at the ends get an entry each; the whole buckets between them are one
    // run, so a packet that holds the NIC for a long time (a huge instruction count, a tiny
    // NicRateScale) costs O(1) entries instead of one per bucket.
    const auto b = static_cast<double>(m_cfg.utilBucketNs);
    auto i = static_cast<int64_t>(std::floor(from / b));
    while (from < to)
    {
        const double edge = static_cast<double>(i + 1) * b;
        if (from == static_cast<double>(i) * b && to >= edge)
        {
            const auto j = static_cast<int64_t>(std::floor(to / b)); // i..j-1 are whole
            AddBusyRun(i, j);
            from = static_cast<double>(j) * b;
            i = j;
            continue;
        }
        const double end = std::min(edge, to);
        m_busy[i] += end - from;
        from = end;
        ++i;
    }
}

void
CoraExecutor::AddBusyRun(int64_t first, int64_t end)
{
    // The NIC is one FIFO server: busy intervals do not overlap, so a run extends the last
    // one or starts after it (an overlap, which only rounding could make, is merged).
    if (!m_busyRuns.empty())
    {
        auto last = std::prev(m_busyRuns.end());
        if (last->first <= first && first <= last->second)
        {
            last->second = std::max(last->second, end);
            return;
        }
    }
    m_busyRuns.emplace(first, end);
}

void
CoraExecutor::PruneHistory(int64_t now)
{
    const int64_t oldest = (now - m_cfg.utilHistoryNs) / m_cfg.utilBucketNs;
    while (!m_busy.empty() && m_busy.begin()->first < oldest)
    {
        m_busy.erase(m_busy.begin());
    }
    while (!m_busyRuns.empty() && m_busyRuns.begin()->first < oldest)
    {
        const int64_t end = m_busyRuns.begin()->second;
        m_busyRuns.erase(m_busyRuns.begin());
        if (end > oldest)
        {
            m_busyRuns.emplace(oldest, end); // the part still inside the history
        }
    }
    for (auto* rec : {&m_offered, &m_queued, &m_arrived})
    {
        while (!rec->empty() && rec->begin()->first < oldest)
        {
            rec->erase(rec->begin());
        }
    }
}

bool
CoraExecutor::NicAccepts(uint64_t bytes, int64_t now) const
{
    if (m_stats.nicMemoryBytes + bytes > m_cfg.limits.memoryBytes)
    {
        return false;
    }
    const int64_t from = std::max<int64_t>(0, now - m_cfg.placementWindowNs);
    if (GetNicUtilisation(from, now) <= m_cfg.placementOverload)
    {
        return true;
    }
    // busy: overloaded only if packets also pile up (as the controller's queue signal)
    return m_cfg.placementQueueShare > 0 &&
           GetNicMeanQueue(from, now) <= m_cfg.placementQueueShare * m_cfg.nicQueueCapacity;
}

CoraSide
CoraExecutor::Place(const PairKey& k, const CoraFlow& flow, int64_t now)
{
    const uint32_t block = k.first;
    const bool planNic = m_plan.nicPairs.count(k) > 0 ||
                         (block < m_plan.wholeBlockOnNic.size() && m_plan.wholeBlockOnNic[block]);
    if (planNic)
    {
        // The plan was checked against the NIC memory by the allocator; under flow
        // partition its NIC pairs also put their flow's group on the NIC.
        const uint32_t g = CoraFlowGroup(flow.id);
        if (m_cfg.strategy == CoraStrategy::FLOW_PARTITION && m_groupSide[g] < 0)
        {
            m_groupSide[g] = 0;
        }
        return CoraSide::NIC;
    }
    const uint64_t bytes = GetPairBytes(block);
    if (m_plan.fromTraffic)
    {
        // a plan computed from this traffic placed the pair on the host on purpose (an
        // aggregate above a lock's rate, memory or rate limits): the runtime may move it later
        if (m_cfg.strategy == CoraStrategy::FLOW_PARTITION)
        {
            const uint32_t g = CoraFlowGroup(flow.id);
            if (m_groupSide[g] < 0)
            {
                m_groupSide[g] = 1;
            }
        }
        return CoraSide::HOST;
    }
    switch (m_cfg.strategy)
    {
    case CoraStrategy::STATE_PARTITION:
        return CoraSide::HOST;
    case CoraStrategy::CORA:
        return NicAccepts(bytes, now) ? CoraSide::NIC : CoraSide::HOST;
    case CoraStrategy::FLOW_PARTITION: {
        const uint32_t g = CoraFlowGroup(flow.id);
        if (m_groupSide[g] < 0)
        {
            m_groupSide[g] = NicAccepts(bytes, now) ? 0 : 1;
        }
        const bool fits = m_stats.nicMemoryBytes + bytes <= m_cfg.limits.memoryBytes;
        return (m_groupSide[g] == 0 && fits) ? CoraSide::NIC : CoraSide::HOST;
    }
    }
    return CoraSide::HOST;
}

void
CoraExecutor::AdvanceTo(int64_t nowNs)
{
    if (nowNs < m_now)
    {
        std::ostringstream os;
        os << "Cora executor: time went backwards (" << nowNs << " ns after " << m_now << " ns)";
        throw PrestoInputError(os.str());
    }
    m_now = nowNs;
    while (!m_pending.empty() && m_pending.begin()->first <= nowNs)
    {
        const PairKey k = m_pending.begin()->second;
        m_pending.erase(m_pending.begin());
        Pair& p = m_pairs.at(k);
        p.migrating = false;
        p.side = p.to;
        if (p.to == CoraSide::HOST)
        {
            // The NIC entry is freed once the copy has landed on the host.
            m_stats.nicMemoryBytes -= GetPairBytes(k.first);
            --m_stats.nicPairs;
            ++m_stats.hostPairs;
        }
        else
        {
            --m_stats.hostPairs;
            ++m_stats.nicPairs;
        }
        if (m_onMigration)
        {
            m_onMigration(
                CoraMigrationEvent{p.startNs, p.commitNs, k.first, k.second, p.to, p.held});
        }
        p.held = 0;
        if (p.releaseOnCommit)
        {
            Erase(k);
        }
    }
}

bool
CoraExecutor::Release(int64_t nowNs, uint32_t block, uint64_t key)
{
    AdvanceTo(nowNs);
    auto it = m_pairs.find({block, key});
    if (it == m_pairs.end())
    {
        return false;
    }
    if (it->second.migrating)
    {
        it->second.releaseOnCommit = true;
        return true;
    }
    Erase(it->first);
    return true;
}

void
CoraExecutor::Erase(const PairKey& k)
{
    auto it = m_pairs.find(k);
    if (it->second.side == CoraSide::NIC)
    {
        m_stats.nicMemoryBytes -= GetPairBytes(k.first);
        --m_stats.nicPairs;
    }
    else
    {
        --m_stats.hostPairs;
    }
    for (uint32_t g = 0; g < m_groupPairs.size(); ++g)
    {
        if (it->second.groups & (uint64_t(1) << (g % 64)))
        {
            auto& v = m_groupPairs[g];
            v.erase(std::remove(v.begin(), v.end(), k), v.end());
        }
    }
    m_pairs.erase(it);
}

int64_t
CoraExecutor::GetNextCommitNs() const
{
    return m_pending.empty() ? -1 : m_pending.begin()->first;
}

void
CoraExecutor::CheckBranch(const CoraFlow& flow) const
{
    if (flow.branch >= m_program.GetBranches().size())
    {
        std::ostringstream os;
        os << "Cora executor: packet of flow " << flow.id << " names branch " << flow.branch
           << ", program '" << m_program.GetName() << "' has " << m_program.GetBranches().size()
           << " branches";
        throw PrestoInputError(os.str());
    }
}

CoraExecutor::Pair&
CoraExecutor::FindOrPlace(const PairKey& k, const CoraFlow& flow, int64_t nowNs)
{
    auto it = m_pairs.find(k);
    if (it == m_pairs.end())
    {
        Pair np;
        np.side = Place(k, flow, nowNs);
        np.to = np.side;
        if (np.side == CoraSide::NIC)
        {
            m_stats.nicMemoryBytes += GetPairBytes(k.first);
            ++m_stats.nicPairs;
        }
        else
        {
            ++m_stats.hostPairs;
        }
        it = m_pairs.emplace(k, np).first;
    }
    return it->second;
}

void
CoraExecutor::ResolvePath(int64_t nowNs, const CoraFlow& flow, PacketPath& path)
{
    const auto& blocks = path.blocks;
    const auto& branchBlocks = path.branch;
    const uint32_t group = CoraFlowGroup(flow.id);

    // Resolve every pair of the path: its side for this packet (the destination while it
    // migrates) and the time before which its state is not available here (commit).
    path.pairs.reserve(branchBlocks.size());
    path.sides.reserve(branchBlocks.size());
    for (uint32_t b : branchBlocks)
    {
        const PairKey k{b, CoraAggregateKey(blocks[b].key, flow)};
        Pair& pr = FindOrPlace(k, flow, nowNs);
        if (!(pr.groups & (1ULL << group)))
        {
            pr.groups |= 1ULL << group;
            m_groupPairs[group].push_back(k);
        }
        pr.lastBranch = flow.branch;
        const CoraSide side = pr.migrating ? pr.to : pr.side;
        path.held = path.held || pr.migrating;
        path.nicBlocks[b] = side == CoraSide::NIC;
        path.pairs.push_back(&pr);
        path.sides.push_back(side);
    }

    // Stages: NIC first pass (blocks before the first host block), host, NIC return pass.
    std::size_t firstHost = branchBlocks.size();
    for (std::size_t i = 0; i < branchBlocks.size(); ++i)
    {
        if (path.sides[i] == CoraSide::HOST)
        {
            firstHost = i;
            break;
        }
    }
    path.visitsHost = firstHost < branchBlocks.size();
    for (std::size_t i = 0; i < branchBlocks.size(); ++i)
    {
        const Pair& pr = *path.pairs[i];
        const double hold = pr.migrating ? static_cast<double>(pr.commitNs) : 0;
        if (path.sides[i] == CoraSide::HOST)
        {
            path.holdHost = std::max(path.holdHost, hold);
            path.hostInstructions += m_blockInstructions[branchBlocks[i]];
        }
        else if (i < firstHost)
        {
            path.holdNic = std::max(path.holdNic, hold);
        }
        else
        {
            path.returns = true;
            path.holdReturn = std::max(path.holdReturn, hold);
        }
    }
}

bool
CoraExecutor::AdmitLocks(const CoraFlow& flow, double now, PacketPath& path)
{
    const auto& blocks = path.blocks;
    const auto& branchBlocks = path.branch;
    for (std::size_t i = 0; i < branchBlocks.size(); ++i)
    {
        const uint32_t b = branchBlocks[i];
        if (path.sides[i] != CoraSide::NIC || m_blockLocks[b] == 0)
        {
            continue;
        }
        // Same lock choice as the allocator: all flows of an aggregate share its lock.
        const uint32_t lock = CoraLockIndex(blocks[b].key, flow, m_blockLocks[b]);
        Fifo& q = m_locks[{b, lock}];
        Prune(q, now);
        if (Occupancy(q, std::max(now, path.holdNic)) >= m_cfg.nicQueueCapacity)
        {
            ++m_stats.lockDrops;
            ++path.pairs[i]->lockDrops; // the runtime learns that this aggregate is lock-bound
            return false;
        }
        path.locks.emplace_back(&q, GetLockServiceNs(flow.branch, b));
    }
    return true;
}

bool
CoraExecutor::AdmitHost(uint64_t flowId, double now, HostVisit& host)
{
    if (m_hostServer)
    {
        host.doneNs = m_hostServer(flowId, host.arrivalNs, host.cycles);
        return !(host.doneNs < 0); // a negative time: the host refused it
    }
    host.core = &m_cores[CoraHash64(flowId ^ CORE_SALT) % m_cfg.hostCores];
    Prune(*host.core, now);
    return Occupancy(*host.core, host.arrivalNs) < m_cfg.hostQueueCapacity;
}

double
CoraExecutor::ServeNic(double arrivalNs, const Rates& rates)
{
    const double end = Serve(m_nic, arrivalNs, rates.nicServiceNs);
    AddBusy(end - rates.nicServiceNs, end);
    m_stats.nicBusyNs += rates.nicServiceNs;
    return end;
}

void
CoraExecutor::CountAccepted(const PacketPath& path, int64_t departNs)
{
    for (Pair* pr : path.pairs)
    {
        ++pr->count;
        pr->lastDepartNs = std::max(pr->lastDepartNs, static_cast<double>(departNs));
        if (pr->migrating)
        {
            ++pr->held;
        }
    }
    if (path.held)
    {
        ++m_stats.heldPackets;
    }
    if (path.visitsHost)
    {
        ++m_stats.hostPackets;
    }
    else
    {
        ++m_stats.nicPackets;
    }
}

CoraVerdict
CoraExecutor::Process(int64_t nowNs, const CoraPacket& p)
{
    AdvanceTo(nowNs);
    const auto& flow = p.flow;
    CheckBranch(flow);
    ++m_stats.packets;
    PruneHistory(nowNs);
    const double now = static_cast<double>(nowNs);

    PacketPath path(m_program.GetBlocks(), m_program.GetBranchBlocks(flow.branch));
    ResolvePath(nowNs, flow, path);
    const Rates& rates = GetRates(flow.branch, path.nicBlocks);
    m_offered[nowNs / m_cfg.utilBucketNs] += rates.nicServiceNs;

    CoraVerdict v;
    v.held = path.held;
    auto drop = [&](CoraDropReason r) {
        v.dropped = true;
        v.reason = r;
        v.departNs = nowNs;
        v.visitedHost = path.visitsHost;
        return v;
    };

    // NIC admission: the NIC server and the locks of the NIC elements this packet touches.
    Prune(m_nic, now);
    const std::size_t found = Occupancy(m_nic, now);
    const int64_t bucket = nowNs / m_cfg.utilBucketNs;
    m_queued[bucket] += static_cast<double>(found);
    m_arrived[bucket] += 1;
    if (found >= m_cfg.nicQueueCapacity)
    {
        ++m_stats.nicDrops;
        return drop(CoraDropReason::NIC_OVERLOAD);
    }
    if (!AdmitLocks(flow, now, path))
    {
        return drop(CoraDropReason::LOCK_CONTENTION);
    }

    const double xferNs = static_cast<double>(p.bytes) * 1e9 / m_cfg.limits.pcieBytesPerSecond;
    const double pcieNs = static_cast<double>(m_cfg.pcieLatencyNs) + xferNs;
    const double nicArrival = std::max(now, path.holdNic);
    // Tentative NIC departure, to find when the packet reaches its host core.
    double nicDone = std::max(nicArrival, m_nic.busyUntil) + rates.nicServiceNs;
    for (const auto& [q, s] : path.locks)
    {
        nicDone = std::max(nicDone, std::max(nicArrival, q->busyUntil) + s);
    }
    const double nicOut = nicDone + static_cast<double>(m_cfg.nicLatencyNs);

    HostVisit host;
    host.cycles = m_cfg.hostPacketCycles + path.hostInstructions * m_cfg.hostCyclesPerInstruction;
    if (path.visitsHost)
    {
        host.arrivalNs = std::max(nicOut + pcieNs, path.holdHost);
        if (!AdmitHost(flow.id, now, host))
        {
            // The NIC did its work before the host queue turned the packet away.
            ServeNic(nicArrival, rates);
            ++m_stats.hostDrops;
            return drop(CoraDropReason::HOST_OVERLOAD);
        }
    }

    // Accepted: run it.
    ServeNic(nicArrival, rates);
    for (const auto& [q, s] : path.locks)
    {
        Serve(*q, nicArrival, s);
    }
    double depart = nicOut;
    if (path.visitsHost)
    {
        const double serviceNs = host.cycles / m_cfg.hostClockHz * 1e9;
        depart = m_hostServer ? host.doneNs : Serve(*host.core, host.arrivalNs, serviceNs);
        m_stats.hostBusyCycles += host.cycles;
        if (path.returns)
        {
            depart = std::max(depart + pcieNs, path.holdReturn) +
                     static_cast<double>(m_cfg.nicLatencyNs);
        }
    }
    v.departNs = static_cast<int64_t>(std::ceil(depart));
    v.visitedHost = path.visitsHost;
    CountAccepted(path, v.departNs);
    return v;
}

bool
CoraExecutor::Migrate(int64_t nowNs, uint32_t block, uint64_t key, CoraSide to)
{
    AdvanceTo(nowNs);
    auto it = m_pairs.find({block, key});
    if (it == m_pairs.end())
    {
        return false;
    }
    Pair& p = it->second;
    if (p.migrating || p.side == to)
    {
        return false;
    }
    const uint64_t bytes = GetPairBytes(block);
    if (to == CoraSide::NIC)
    {
        if (m_stats.nicMemoryBytes + bytes > m_cfg.limits.memoryBytes)
        {
            return false;
        }
        // PREPARE reserves the destination entry.
        m_stats.nicMemoryBytes += bytes;
        ++m_stats.migrationsToNic;
    }
    else
    {
        ++m_stats.migrationsToHost;
    }
    // DRAIN + COPY: the marker leaves the source behind the pair's last packet, then the
    // entry crosses PCIe.
    const double drained = std::max(static_cast<double>(nowNs), p.lastDepartNs);
    const double copyNs = static_cast<double>(bytes) * 1e9 / m_cfg.limits.pcieBytesPerSecond;
    p.migrating = true;
    p.to = to;
    p.startNs = nowNs;
    p.commitNs = static_cast<int64_t>(
        std::ceil(drained + static_cast<double>(m_cfg.pcieLatencyNs) + copyNs));
    p.held = 0;
    m_pending.emplace(p.commitNs, it->first);
    return true;
}

void
CoraExecutor::SetNicMemoryBytes(uint64_t bytes)
{
    m_cfg.limits.memoryBytes = bytes;
}

uint64_t
CoraExecutor::GetPairBytes(uint32_t block) const
{
    return m_program.GetBlocks().at(block).bytesPerAggregate;
}

void
CoraExecutor::SetHostServer(HostServer server)
{
    m_hostServer = std::move(server);
}

void
CoraExecutor::SetMigrationCallback(std::function<void(const CoraMigrationEvent&)> cb)
{
    m_onMigration = std::move(cb);
}

void
CoraExecutor::SetGroupSide(uint32_t group, CoraSide side)
{
    m_groupSide.at(group) = side == CoraSide::NIC ? 0 : 1;
}

} // namespace ns3
