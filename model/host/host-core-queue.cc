/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "host-core-queue.h"

#include "ns3/presto-input-error.h"
#include "ns3/splitmix.h"

#include <algorithm>
#include <cmath>
#include <string>

// Pure logic with no ns-3 dependency; the unit tests compile it alone.

namespace ns3
{

HostCoreQueue::HostCoreQueue(uint32_t cores, double clockHz, uint32_t maxBacklog)
    : m_clockHz(clockHz),
      m_nsPerCycle(1e9 / clockHz),
      m_maxBacklog(maxBacklog)
{
    if (cores == 0 || !std::isfinite(clockHz) || clockHz <= 0)
    {
        throw PrestoInputError("host cores: need at least 1 core and a clock > 0 Hz (got " +
                               std::to_string(cores) + " cores at " + std::to_string(clockHz) +
                               " Hz)");
    }
    m_freeAt.assign(cores, 0);
    m_busyNs.assign(cores, 0);
    if (maxBacklog > 0)
    {
        m_in.resize(cores);
    }
}

uint32_t
HostCoreQueue::Choose(uint64_t key, HostCoreSteering steering) const
{
    if (steering == HOST_CORE_FLOW_HASH)
    {
        // mixed first: keys that differ in their low bits only (ports) spread over the cores
        return static_cast<uint32_t>(SplitMix64(key) % m_freeAt.size());
    }
    return static_cast<uint32_t>(std::min_element(m_freeAt.begin(), m_freeAt.end()) -
                                 m_freeAt.begin());
}

HostCoreQueue::Slot
HostCoreQueue::Submit(uint64_t key,
                      double cycles,
                      int64_t nowNs,
                      HostCoreSteering steering,
                      bool bounded)
{
    Slot s;
    s.core = Choose(key, steering);
    if (bounded && m_maxBacklog > 0)
    {
        std::deque<int64_t>& in = m_in[s.core];
        while (!in.empty() && in.front() <= nowNs)
        {
            in.pop_front(); // served by now
        }
        if (bounded && in.size() >= m_maxBacklog)
        {
            ++m_refused;
            return s;
        }
    }
    const int64_t serviceNs =
        cycles > 0 ? static_cast<int64_t>(std::llround(cycles * m_nsPerCycle)) : 0;
    s.accepted = true;
    s.startNs = std::max(nowNs, m_freeAt[s.core]);
    s.doneNs = s.startNs + serviceNs;
    m_freeAt[s.core] = s.doneNs;
    m_busyNs[s.core] += serviceNs;
    if (bounded && m_maxBacklog > 0)
    {
        m_in[s.core].push_back(s.doneNs); // the backlog counts the bounded pieces only
    }
    m_cycles += std::max(cycles, 0.0);
    ++m_accepted;
    const int64_t wait = s.startNs - nowNs;
    m_waitNs += wait;
    m_maxWaitNs = std::max(m_maxWaitNs, wait);
    return s;
}

uint32_t
HostCoreQueue::GetCores() const
{
    return static_cast<uint32_t>(m_freeAt.size());
}

double
HostCoreQueue::GetClockHz() const
{
    return m_clockHz;
}

int64_t
HostCoreQueue::GetBusyNs(uint32_t core) const
{
    return m_busyNs.at(core);
}

int64_t
HostCoreQueue::GetBusyNsUntil(uint32_t core, int64_t untilNs) const
{
    const int64_t beyond = std::max<int64_t>(0, m_freeAt.at(core) - untilNs);
    return std::max<int64_t>(0, m_busyNs.at(core) - beyond);
}

int64_t
HostCoreQueue::GetTotalBusyNs() const
{
    int64_t t = 0;
    for (int64_t b : m_busyNs)
    {
        t += b;
    }
    return t;
}

double
HostCoreQueue::GetCycles() const
{
    return m_cycles;
}

uint64_t
HostCoreQueue::GetAccepted() const
{
    return m_accepted;
}

uint64_t
HostCoreQueue::GetRefused() const
{
    return m_refused;
}

int64_t
HostCoreQueue::GetTotalWaitNs() const
{
    return m_waitNs;
}

int64_t
HostCoreQueue::GetMaxWaitNs() const
{
    return m_maxWaitNs;
}

int64_t
HostCoreQueue::GetFreeAtNs(uint32_t core) const
{
    return m_freeAt.at(core);
}

} // namespace ns3
