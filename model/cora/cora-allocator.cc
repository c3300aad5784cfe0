/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-allocator.h"

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

/// \param x value \return a well-mixed 64-bit hash (one SplitMix64 step)
uint64_t
Mix64(uint64_t x)
{
    return SplitMix64(x);
}

/// Relative slack for comparing sums built incrementally with sums built from scratch.
constexpr double EPS = 1e-9;

/// Blocks of a branch are tracked as bits of a 64-bit mask.
constexpr std::size_t MAX_BRANCH_BLOCKS = 64;

/// Exhaustive search over block subsets up to this many candidate blocks.
constexpr std::size_t MAX_EXHAUSTIVE_BLOCKS = 6;

/// Branches visiting up to this many blocks cache their rates in a dense table.
constexpr std::size_t DENSE_RATE_BLOCKS = 12;

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
    /// \param br branch \param b block \return NicLoad with only block b on the NIC
    CoraProgramLoad LoadOnly(uint32_t br, uint32_t b) const;

    std::vector<std::vector<double>> m_dense;                  //!< [branch][mask] pps or -1
    std::vector<std::unordered_map<uint64_t, double>> m_rates; //!< [branch] mask -> pps
};

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
    const auto& blocks = prog.GetBlocks();
    const auto& branches = prog.GetBranches();
    const auto& model = alloc.GetModel();
    const auto& profile = model.GetProfile();
    nBlocks = blocks.size();

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

    // A block can run on the NIC only if the profile models every access it makes (as
    // Gallium and Cora check that the NIC supports a state's operations).
    const CoraAccessKind lockWord{CoraMemoryType::IMEM,
                                  CoraMemoryOp::WRITE,
                                  CoraAccessMode::ATOMIC,
                                  4};
    supported.assign(nBlocks, true);
    std::vector<uint32_t> blockLocks(nBlocks, 0);
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        for (uint32_t e : blocks[b].elements)
        {
            const auto& el = prog.GetElements()[e];
            blockLocks[b] += el.locks;
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

    // Per block: attainable NIC rate and one lock's rate, the smallest over the branches.
    const double inf = std::numeric_limits<double>::infinity();
    attainable.assign(nBlocks, inf);
    std::vector<double> perLock(nBlocks, inf);
    std::vector<std::vector<bool>> takesLock(branches.size(), std::vector<bool>(nBlocks, false));
    for (uint32_t br = 0; br < branches.size(); ++br)
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
                takesLock[br][b] = true;
                perLock[b] = std::min(perLock[b], model.PredictPerLockPps(load));
            }
        }
    }
    std::vector<uint32_t> slotBase(nBlocks, 0);
    for (uint32_t b = 0; b < nBlocks; ++b)
    {
        slotBase[b] = slotRate.size();
        if (supported[b] && perLock[b] < inf)
        {
            slotRate.insert(slotRate.end(), blockLocks[b], perLock[b]);
        }
    }

    // Validate the flows and build the aggregates (insight 1).
    index.assign(nBlocks, {});
    for (auto& m : index)
    {
        m.reserve(traffic.size());
    }
    blockAggs.assign(nBlocks, {});
    flowOffset.reserve(traffic.size() + 1);
    for (uint32_t i = 0; i < traffic.size(); ++i)
    {
        const CoraFlow& f = traffic[i];
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
            ++agg.end; // a count for now, turned into a range below
            flowAgg.push_back(it->second);
            flowSlot.push_back(takesLock[f.branch][b]
                                   ? slotBase[b] + CoraLockIndex(key, f, blockLocks[b])
                                   : NO_SLOT);
        }
    }
    flowOffset.push_back(flowAgg.size());
    // Group the flows by aggregate (counting sort: flows keep their traffic order).
    uint32_t next = 0;
    for (auto& agg : aggs)
    {
        agg.begin = next;
        next += agg.end;
        agg.end = agg.begin;
    }
    aggFlows.resize(next);
    for (uint32_t i = 0; i < traffic.size(); ++i)
    {
        for (uint32_t j = flowOffset[i]; j < flowOffset[i + 1]; ++j)
        {
            aggFlows[aggs[flowAgg[j]].end++] = i;
        }
    }
    m_rates.resize(branches.size());
    // Branches visit few blocks: a dense table per branch avoids hashing on the hot path.
    m_dense.resize(branches.size());
    for (uint32_t br = 0; br < branches.size(); ++br)
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

/// PCIe crossings of one packet: NIC->host and host->NIC (0 or 1 each).
struct Crossings
{
    int toHost{0}; //!< crosses to the host
    int toNic{0};  //!< comes back to the NIC
};

/// \param full all blocks of the branch \param mask NIC blocks \return crossings per packet
Crossings
CrossingsOf(uint64_t full, uint64_t mask)
{
    const uint64_t host = full & ~mask;
    if (host == 0)
    {
        return {};
    }
    // Bits are positions in topological order: a NIC block above the first host block means
    // the packet returns to the NIC after the host.
    const int firstHost = __builtin_ctzll(host);
    const bool back = firstHost < 63 && ((mask >> (firstHost + 1)) != 0);
    return {1, back ? 1 : 0};
}

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

PlanState::PlanState(Workspace& ws)
    : m_ws(ws)
{
    const std::size_t n = ws.flows.size();
    m_mask.assign(n, 0);
    m_term.assign(n, 0);
    m_newMask.assign(n, 0);
    m_isTouched.assign(n, false);
    m_lockVol.assign(ws.slotRate.size(), 0);
    m_slotDelta.assign(ws.slotRate.size(), 0);
    m_slotTouched.assign(ws.slotRate.size(), false);
    aggOnNic.assign(ws.aggs.size(), false);
    const double bytes = ws.alloc.GetLimits().packetBytes;
    for (uint32_t f = 0; f < n; ++f)
    {
        m_term[f] = Term(f, 0);
        m_util += m_term[f];
        m_toHost +=
            CrossingsOf(ws.fullMask[ws.flows[f].branch], 0).toHost * ws.flows[f].pps * bytes;
    }
    const auto& blocks = ws.prog.GetBlocks();
    for (const auto& a : ws.aggs)
    {
        hostInstructions += a.volume * blocks[a.block].instructions;
    }
}

double
PlanState::Term(uint32_t f, uint64_t mask)
{
    const CoraFlow& fl = m_ws.flows[f];
    return fl.pps > 0 ? fl.pps / m_ws.Rate(fl.branch, mask) : 0.0;
}

bool
PlanState::TryAdd(const std::vector<uint32_t>& add)
{
    const auto& blocks = m_ws.prog.GetBlocks();
    const auto& lim = m_ws.alloc.GetLimits();
    uint64_t dMem = 0;
    uint64_t dPairs = 0;
    double dInstr = 0;
    for (uint32_t a : add)
    {
        if (aggOnNic[a])
        {
            continue;
        }
        const Aggregate& agg = m_ws.aggs[a];
        dMem += blocks[agg.block].bytesPerAggregate;
        dInstr += agg.volume * blocks[agg.block].instructions;
        ++dPairs;
        for (uint32_t f : m_ws.FlowsOf(a))
        {
            if (!m_isTouched[f])
            {
                m_isTouched[f] = true;
                m_touched.push_back(f);
                m_newMask[f] = m_mask[f];
            }
            const int p = m_ws.pos[m_ws.flows[f].branch][agg.block];
            m_newMask[f] |= uint64_t{1} << p;
            const uint32_t slot = m_ws.flowSlot[m_ws.flowOffset[f] + p];
            if (slot != NO_SLOT)
            {
                if (!m_slotTouched[slot])
                {
                    m_slotTouched[slot] = true;
                    m_slots.push_back(slot);
                }
                m_slotDelta[slot] += m_ws.flows[f].pps;
            }
        }
    }

    double dUtil = 0;
    double dHost = 0;
    double dNic = 0;
    for (uint32_t f : m_touched)
    {
        const CoraFlow& fl = m_ws.flows[f];
        dUtil += Term(f, m_newMask[f]) - m_term[f];
        const Crossings o = CrossingsOf(m_ws.fullMask[fl.branch], m_mask[f]);
        const Crossings c = CrossingsOf(m_ws.fullMask[fl.branch], m_newMask[f]);
        dHost += (c.toHost - o.toHost) * fl.pps * lim.packetBytes;
        dNic += (c.toNic - o.toNic) * fl.pps * lim.packetBytes;
    }

    bool ok = memory + dMem <= lim.memoryBytes;
    // Utilisation only grows with more NIC work; PCIe may shrink, which is always allowed.
    ok = ok && m_util + dUtil <= lim.rateHeadroom * (1 + EPS);
    const double oldPcie = std::max(m_toHost, m_toNic);
    const double newPcie = std::max(m_toHost + dHost, m_toNic + dNic);
    ok = ok && (newPcie <= lim.pcieBytesPerSecond * (1 + EPS) || newPcie <= oldPcie);
    for (uint32_t s : m_slots)
    {
        ok = ok && m_lockVol[s] + m_slotDelta[s] <= m_ws.slotRate[s] * (1 + EPS);
    }

    if (ok)
    {
        for (uint32_t a : add)
        {
            aggOnNic[a] = true;
        }
        for (uint32_t f : m_touched)
        {
            m_mask[f] = m_newMask[f];
            m_term[f] = Term(f, m_mask[f]);
        }
        for (uint32_t s : m_slots)
        {
            m_lockVol[s] += m_slotDelta[s];
        }
        m_util += dUtil;
        m_toHost += dHost;
        m_toNic += dNic;
        memory += dMem;
        pairs += dPairs;
        hostInstructions -= dInstr;
    }
    for (uint32_t f : m_touched)
    {
        m_isTouched[f] = false;
    }
    for (uint32_t s : m_slots)
    {
        m_slotDelta[s] = 0;
        m_slotTouched[s] = false;
    }
    m_touched.clear();
    m_slots.clear();
    return ok;
}

void
PlanState::SetMasks(const std::vector<uint64_t>& masks)
{
    const double bytes = m_ws.alloc.GetLimits().packetBytes;
    m_util = 0;
    m_toHost = 0;
    m_toNic = 0;
    std::fill(m_lockVol.begin(), m_lockVol.end(), 0.0);
    for (uint32_t f = 0; f < masks.size(); ++f)
    {
        const CoraFlow& fl = m_ws.flows[f];
        m_mask[f] = masks[f];
        m_term[f] = Term(f, masks[f]);
        m_util += m_term[f];
        const Crossings c = CrossingsOf(m_ws.fullMask[fl.branch], masks[f]);
        m_toHost += c.toHost * fl.pps * bytes;
        m_toNic += c.toNic * fl.pps * bytes;
        for (uint32_t i = m_ws.flowOffset[f]; i < m_ws.flowOffset[f + 1]; ++i)
        {
            const uint32_t p = i - m_ws.flowOffset[f];
            if (m_ws.flowSlot[i] != NO_SLOT && ((masks[f] >> p) & 1) != 0)
            {
                m_lockVol[m_ws.flowSlot[i]] += fl.pps;
            }
        }
    }
}

CoraPlanCost
PlanState::Cost(uint64_t mem, uint64_t nicPairs) const
{
    const auto& lim = m_ws.alloc.GetLimits();
    CoraPlanCost c;
    c.hostInstructionsPerSecond = std::max(0.0, hostInstructions);
    c.offeredPps = m_ws.offered;
    c.nicUtilisation = m_util;
    c.nicCapacityPps = m_util > 0 ? m_ws.offered / m_util : 0.0;
    double lockDrops = 0;
    for (std::size_t s = 0; s < m_lockVol.size(); ++s)
    {
        if (m_lockVol[s] > m_ws.slotRate[s] * (1 + EPS))
        {
            lockDrops += m_lockVol[s] - m_ws.slotRate[s];
        }
    }
    const double overload = m_util > 1 + EPS ? m_ws.offered - c.nicCapacityPps : 0.0;
    c.nicDropPps = std::min(m_ws.offered, lockDrops + overload);
    c.nicMemoryBytes = mem;
    c.pcieBytesPerSecond = std::max(m_toHost, m_toNic);
    c.nicPairs = nicPairs;
    c.feasible = mem <= lim.memoryBytes &&
                 c.pcieBytesPerSecond <= lim.pcieBytesPerSecond * (1 + EPS) &&
                 m_util <= lim.rateHeadroom * (1 + EPS) && c.nicDropPps == 0;
    return c;
}

/// \param ws workspace \param state state \return the plan of the state's NIC pairs
CoraPlan
PlanOf(const Workspace& ws, const PlanState& state, CoraStrategy s)
{
    CoraPlan plan;
    plan.strategy = s;
    plan.wholeBlockOnNic.assign(ws.nBlocks, false);
    for (uint32_t a = 0; a < ws.aggs.size(); ++a)
    {
        if (state.aggOnNic[a])
        {
            plan.nicPairs.emplace(ws.aggs[a].block, ws.aggs[a].key);
        }
    }
    return plan;
}

/// Cora's algorithm (see the class documentation). \param ws workspace \return the plan
CoraPlan
AllocateCora(Workspace& ws)
{
    const auto& blocks = ws.prog.GetBlocks();
    // Candidates: pairs worth offloading that the NIC can sustain at all.
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
        // Per-lock rule: the aggregate alone must not push one lock above its rate.
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
        if (lockOk)
        {
            cand.push_back(a);
        }
    }
    // Global ordering: volume x instructions, descending; deterministic ties.
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
    // Block subsets, as the set of candidate blocks allowed on the NIC; the full set first so
    // that it wins ties.
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
