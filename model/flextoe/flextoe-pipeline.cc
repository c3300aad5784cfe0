/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flextoe-pipeline.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlexToePipeline");

const char*
FlexToeDropReasonName(FlexToeDropReason r)
{
    switch (r)
    {
    case FlexToeDropReason::NONE:
        return "none";
    case FlexToeDropReason::QUEUE_FULL:
        return "queue full";
    case FlexToeDropReason::EXTENSION:
        return "extension";
    }
    return "?";
}

FlexToePipeline::FlexToePipeline(const FlexToePipelineConfig& cfg)
    : m_cfg(cfg)
{
    NS_LOG_FUNCTION(this << cfg.name);
    FlexToeProfile::Validate(m_cfg);
    for (std::size_t i = 0; i < FLEXTOE_STAGES; ++i)
    {
        Pool& p = m_pools[i];
        p.cfg = m_cfg.stages[i];
        const bool protocol = static_cast<FlexToeStage>(i) == FlexToeStage::PROTOCOL;
        // One protocol core per flow group: per-flow state is mutated in one place only.
        p.cores = protocol ? m_cfg.flowGroups : p.cfg.cores;
        p.psPerCycle = 1e12 / p.cfg.clockHz;
        p.stallPs = static_cast<uint64_t>(std::llround(p.cfg.memoryStallNs * 1000.0));
        p.computeFreePs.assign(p.cores, 0);
        p.threadFreePs.assign(static_cast<std::size_t>(p.cores) * p.cfg.threadsPerCore, 0);
        p.nextThread.assign(p.cores, 0);
        // The protocol stage queues per core, so one overloaded flow group does not drop
        // another group's packets.
        p.queues.resize(protocol ? p.cores : 1);
        for (auto& q : p.queues)
        {
            q.leavePs.assign(p.cfg.queueCapacity, 0);
        }
    }
    m_seqLastReleasePs.assign(m_cfg.flowGroups, 0);
}

void
FlexToePipeline::Reset()
{
    NS_LOG_FUNCTION(this);
    for (auto& p : m_pools)
    {
        std::fill(p.computeFreePs.begin(), p.computeFreePs.end(), 0);
        std::fill(p.threadFreePs.begin(), p.threadFreePs.end(), 0);
        std::fill(p.nextThread.begin(), p.nextThread.end(), 0);
        for (auto& q : p.queues)
        {
            q.head = 0;
            q.count = 0;
        }
        p.stats = FlexToeStageStats{};
    }
    std::fill(m_seqLastReleasePs.begin(), m_seqLastReleasePs.end(), 0);
    m_lastNowPs = 0;
    m_firstPs = 0;
    m_lastDepartPs = 0;
    m_started = false;
    m_delivered = 0;
    m_dropped = 0;
}

void
FlexToePipeline::Drain(Queue& q, uint64_t tPs)
{
    const auto cap = static_cast<uint32_t>(q.leavePs.size());
    while (q.count > 0 && q.leavePs[q.head] <= tPs)
    {
        q.head = (q.head + 1 == cap) ? 0 : q.head + 1;
        --q.count;
    }
}

void
FlexToePipeline::Push(Queue& q, uint64_t leavePs)
{
    const auto cap = static_cast<uint32_t>(q.leavePs.size());
    uint32_t tail = q.head + q.count;
    if (tail >= cap)
    {
        tail -= cap;
    }
    q.leavePs[tail] = leavePs;
    ++q.count;
}

uint64_t
FlexToePipeline::RunOnCore(Pool& p, int core, uint64_t arrivePs, double cycles, uint64_t& startPs)
{
    const uint32_t threads = p.cfg.threadsPerCore;
    // A core can start a packet when its instruction stream and its next thread are free.
    auto availableAt = [&p, threads](uint32_t c) {
        return std::max(p.computeFreePs[c],
                        p.threadFreePs[static_cast<std::size_t>(c) * threads + p.nextThread[c]]);
    };
    uint32_t c = 0;
    uint64_t avail = 0;
    if (core >= 0)
    {
        c = static_cast<uint32_t>(core);
        avail = availableAt(c);
    }
    else
    {
        avail = std::numeric_limits<uint64_t>::max();
        for (uint32_t i = 0; i < p.cores; ++i)
        {
            const uint64_t a = availableAt(i);
            if (a < avail) // ties: lowest index, for determinism
            {
                avail = a;
                c = i;
                if (a <= arrivePs)
                {
                    break; // idle now: no core can start it earlier
                }
            }
        }
    }
    startPs = std::max(arrivePs, avail);
    const auto servicePs = static_cast<uint64_t>(std::llround(cycles * p.psPerCycle));
    p.computeFreePs[c] = startPs + servicePs;
    const uint64_t departPs = startPs + servicePs + p.stallPs;
    p.threadFreePs[static_cast<std::size_t>(c) * threads + p.nextThread[c]] = departPs;
    p.nextThread[c] = (p.nextThread[c] + 1 == threads) ? 0 : p.nextThread[c] + 1;
    ++p.stats.packets;
    p.stats.busyPs += servicePs;
    return departPs;
}

FlexToeResult
FlexToePipeline::Process(uint64_t nowNs, uint32_t flowHash, uint32_t payloadBytes)
{
    static const FlexToeStageCycles none{};
    return Process(nowNs, flowHash, payloadBytes, none, FLEXTOE_STAGES);
}

FlexToeResult
FlexToePipeline::Process(uint64_t nowNs,
                         uint32_t flowHash,
                         uint32_t payloadBytes,
                         const FlexToeStageCycles& extraCycles,
                         std::size_t dropAtStage)
{
    NS_LOG_FUNCTION(this << nowNs << flowHash << payloadBytes);
    const uint64_t nowPs = nowNs * 1000;
    if (m_started && nowPs < m_lastNowPs)
    {
        throw PrestoInputError("FlexTOE pipeline '" + m_cfg.name + "': packet entry time " +
                               std::to_string(nowNs) + " ns is before the previous one (" +
                               std::to_string(m_lastNowPs / 1000) + " ns)");
    }
    if (!m_started)
    {
        m_started = true;
        m_firstPs = nowPs;
    }
    m_lastNowPs = nowPs;

    FlexToeResult r;
    r.group = GroupOf(flowHash);
    r.arrivePs = nowPs;
    uint64_t t = nowPs;
    for (std::size_t i = 0; i < FLEXTOE_STAGES; ++i)
    {
        Pool& p = m_pools[i];
        const auto stage = static_cast<FlexToeStage>(i);
        const double cycles =
            p.cfg.cyclesPerPacket + p.cfg.cyclesPerByte * payloadBytes + extraCycles[i];
        p.stats.extensionCycles += extraCycles[i];
        const bool protocol = stage == FlexToeStage::PROTOCOL;
        Queue& q = p.queues[protocol ? r.group : 0];
        Drain(q, t);
        const bool ok = q.count < p.cfg.queueCapacity;
        uint64_t depart = t;
        if (ok)
        {
            uint64_t start = t;
            depart = RunOnCore(p, protocol ? static_cast<int>(r.group) : -1, t, cycles, start);
            uint64_t leave = start;
            if (stage == FlexToeStage::SEQUENCER)
            {
                // Release a flow group's packets in entry order. The reorder buffer holds a
                // packet until its release, so its occupancy counts packets by release time.
                depart = std::max(depart, m_seqLastReleasePs[r.group]);
                m_seqLastReleasePs[r.group] = depart;
                leave = depart;
            }
            if (leave > t)
            {
                Push(q, leave);
                p.stats.maxQueue = std::max(p.stats.maxQueue, q.count);
            }
        }
        else
        {
            ++p.stats.drops;
        }
        if (!ok)
        {
            r.dropped = true;
            r.dropStage = stage;
            r.reason = FlexToeDropReason::QUEUE_FULL;
            r.departPs = t;
            ++m_dropped;
            NS_LOG_LOGIC("drop at " << FlexToeStageName(stage) << ": queue full");
            return r;
        }
        t = depart;
        if (i == dropAtStage)
        {
            ++p.stats.extensionDrops;
            r.dropped = true;
            r.dropStage = stage;
            r.reason = FlexToeDropReason::EXTENSION;
            r.departPs = t;
            m_lastDepartPs = std::max(m_lastDepartPs, t);
            ++m_dropped;
            return r;
        }
    }
    r.departPs = t;
    m_lastDepartPs = std::max(m_lastDepartPs, t);
    ++m_delivered;
    return r;
}

uint32_t
FlexToePipeline::GroupOf(uint32_t flowHash) const
{
    return flowHash % m_cfg.flowGroups;
}

const FlexToeStageStats&
FlexToePipeline::GetStats(FlexToeStage s) const
{
    return m_pools[static_cast<std::size_t>(s)].stats;
}

double
FlexToePipeline::GetUtilisation(FlexToeStage s) const
{
    const Pool& p = m_pools[static_cast<std::size_t>(s)];
    if (!m_started || m_lastDepartPs <= m_firstPs)
    {
        return 0.0;
    }
    const double span = static_cast<double>(m_lastDepartPs - m_firstPs);
    return static_cast<double>(p.stats.busyPs) / (span * p.cores);
}

double
FlexToePipeline::GetCapacityPps(FlexToeStage s, uint32_t payloadBytes) const
{
    const Pool& p = m_pools[static_cast<std::size_t>(s)];
    const double cycles = p.cfg.cyclesPerPacket + p.cfg.cyclesPerByte * payloadBytes;
    const double serviceS = cycles / p.cfg.clockHz;
    const double latencyS = serviceS + p.cfg.memoryStallNs * 1e-9;
    if (latencyS <= 0)
    {
        return std::numeric_limits<double>::infinity();
    }
    const double compute = serviceS > 0 ? 1.0 / serviceS : std::numeric_limits<double>::infinity();
    const double threaded = p.cfg.threadsPerCore / latencyS;
    const uint32_t cores = s == FlexToeStage::PROTOCOL ? 1 : p.cores;
    return cores * std::min(compute, threaded);
}

const FlexToePipelineConfig&
FlexToePipeline::GetConfig() const
{
    return m_cfg;
}

uint64_t
FlexToePipeline::GetDelivered() const
{
    return m_delivered;
}

uint64_t
FlexToePipeline::GetDropped() const
{
    return m_dropped;
}

} // namespace ns3
