/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-allocator-workspace.h"

#include <algorithm>

namespace ns3
{

namespace cora_alloc
{

namespace
{

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

} // namespace

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

} // namespace cora_alloc

} // namespace ns3
