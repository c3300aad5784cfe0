/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-replay.h"

#include "ns3/presto-input-error.h"

namespace ns3
{

CoraReplay::CoraReplay(CoraExecutor& exec, CoraController* controller, int64_t stream)
    : m_exec(exec),
      m_controller(controller),
      m_random(stream)
{
    if (m_controller)
    {
        m_intervalNs = m_controller->GetConfig().intervalNs;
    }
}

int64_t
CoraReplay::Now() const
{
    return m_now;
}

CoraReplayPhase
CoraReplay::Run(const std::vector<CoraFlow>& flows,
                int64_t durationNs,
                uint32_t packetBytes,
                const std::function<void(int64_t)>& onInterval)
{
    if (flows.empty() || durationNs <= 0)
    {
        throw PrestoInputError("Cora replay needs flows and a positive duration");
    }
    double total = CoraTotalPps(flows);
    if (!(total > 0))
    {
        throw PrestoInputError("Cora replay: the flows carry no packets");
    }
    std::vector<double> cumulative;
    cumulative.reserve(flows.size());
    double sum = 0;
    for (const auto& f : flows)
    {
        sum += f.pps;
        cumulative.push_back(sum);
    }
    // the merge of independent Poisson flows: one Poisson process at the total rate, each
    // arrival belonging to a flow with probability proportional to its volume
    const double meanGapNs = 1e9 / total;
    const CoraExecutorStats before = m_exec.GetStats();
    const int64_t start = m_now;
    const int64_t end = m_now + durationNs;
    int64_t nextTick = m_now + m_intervalNs;
    CoraReplayPhase phase;
    double t = static_cast<double>(m_now);
    while (true)
    {
        t += m_random.Exponential(meanGapNs);
        int64_t now = static_cast<int64_t>(t);
        while (nextTick <= std::min(now, end))
        {
            if (m_controller)
            {
                m_controller->Tick(nextTick);
            }
            if (onInterval)
            {
                onInterval(nextTick);
            }
            nextTick += m_intervalNs;
        }
        if (now >= end)
        {
            break;
        }
        CoraPacket p;
        p.flow = flows[m_random.Pick(cumulative)];
        p.bytes = packetBytes;
        if (m_controller)
        {
            m_controller->OnPacket(p);
        }
        CoraVerdict v = m_exec.Process(now, p);
        ++phase.packets;
        phase.drops += v.dropped;
        phase.hostPackets += !v.dropped && v.visitedHost;
        m_now = now;
    }
    m_now = end;
    const CoraExecutorStats& after = m_exec.GetStats();
    const double seconds = durationNs / 1e9;
    phase.migrations = (after.migrationsToHost + after.migrationsToNic) -
                       (before.migrationsToHost + before.migrationsToNic);
    phase.hostCores =
        (after.hostBusyCycles - before.hostBusyCycles) / (m_exec.GetConfig().hostClockHz * seconds);
    phase.nicUtilisation = m_exec.GetNicUtilisation(start, end);
    phase.offeredPps = phase.packets / seconds;
    return phase;
}

} // namespace ns3
