/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rmt-pipe-slots.h"

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace ns3
{

RmtPipeSlots::RmtPipeSlots(const Config& config)
    : m_config(config)
{
    if (!(config.clockHz > 0) || !std::isfinite(config.clockHz))
    {
        throw PrestoInputError("RMT pipeline clock of " + std::to_string(config.clockHz) +
                               " Hz: the clock must be positive");
    }
    if (config.pipes == 0)
    {
        throw PrestoInputError("RMT pipeline with 0 pipes: at least one pipe is needed");
    }
    const double total = config.clockHz * config.pipes;
    if (!(config.reservedPassRate >= 0) || config.reservedPassRate >= total)
    {
        std::ostringstream os;
        os << "RMT pipeline: a packet generator taking " << config.reservedPassRate
           << " passes/s leaves no slot of the " << total << " passes/s (clock * pipes) to packets";
        throw PrestoInputError(os.str());
    }
    m_cyclePs = 1e12 / (config.clockHz - config.reservedPassRate / config.pipes);
    m_freePs.assign(config.pipes, 0.0);
}

uint32_t
RmtPipeSlots::Backlog(int64_t nowPs) const
{
    uint32_t waiting = 0;
    for (double free : m_freePs)
    {
        // the slots ahead end at free: all but the one running now are still waiting (free
        // is a sum of fractional cycles, so it can sit a rounding error above a whole slot:
        // that is no waiting pass, and the count must not wrap below zero)
        const double remaining = free - double(nowPs);
        if (remaining > 0)
        {
            const double slots = std::ceil(remaining / m_cyclePs - 1e-9);
            waiting += slots > 1 ? static_cast<uint32_t>(slots) - 1 : 0;
        }
    }
    return waiting;
}

bool
RmtPipeSlots::Admit(int64_t nowPs)
{
    // a packet that finds a pipe free needs no buffer; one that must wait needs a place
    const bool pipeFree = *std::min_element(m_freePs.begin(), m_freePs.end()) <= double(nowPs);
    if (pipeFree || Backlog(nowPs) < m_config.bufferPasses)
    {
        return true;
    }
    ++m_counters.refused;
    return false;
}

int64_t
RmtPipeSlots::Take(int64_t nowPs, uint32_t passes)
{
    auto pipe = std::min_element(m_freePs.begin(), m_freePs.end());
    const double start = std::max(double(nowPs), *pipe);
    *pipe = start + std::max<uint32_t>(passes, 1) * m_cyclePs;
    // the busiest window: passes count in the window their first slot begins in
    const auto window = static_cast<int64_t>(start) / PEAK_WINDOW_PS;
    if (window != m_window)
    {
        const double windowSlots = double(PEAK_WINDOW_PS) * 1e-12 * GetPassRate();
        const double u = m_windowPasses / windowSlots + m_config.reservedPassRate / GetPassRate();
        m_peak = std::max(m_peak, std::min(1.0, u)); // a window ended (later ones begin later)
        m_window = window;
        m_windowPasses = 0;
    }
    m_windowPasses += std::max<uint32_t>(passes, 1);
    // a wait is never shorter than the model says: round up to whole picoseconds
    const int64_t wait = static_cast<int64_t>(std::ceil(start - double(nowPs) - 1e-6));
    Counters& c = m_counters;
    ++c.packets;
    c.passes += std::max<uint32_t>(passes, 1);
    if (wait > 0)
    {
        ++c.waited;
        c.waitPsTotal += wait;
        c.waitPsMax = std::max(c.waitPsMax, wait);
    }
    if (wait > 0 || passes > 1)
    {
        // else nothing new waits: the other pipes' backlogs were counted at their arrivals
        c.backlogMax = std::max(c.backlogMax, Backlog(nowPs));
    }
    return wait;
}

double
RmtPipeSlots::Utilisation(int64_t elapsedPs) const
{
    if (elapsedPs <= 0)
    {
        return 0;
    }
    return double(m_counters.passes) * 1e12 / (double(elapsedPs) * GetPassRate()) +
           m_config.reservedPassRate / GetPassRate();
}

double
RmtPipeSlots::PeakUtilisation() const
{
    return m_peak;
}

double
RmtPipeSlots::GetFreePassRate() const
{
    return GetPassRate() - m_config.reservedPassRate;
}

double
RmtPipeSlots::GetCyclePs() const
{
    return m_cyclePs;
}

double
RmtPipeSlots::GetPassRate() const
{
    return m_config.clockHz * m_config.pipes;
}

const RmtPipeSlots::Counters&
RmtPipeSlots::GetCounters() const
{
    return m_counters;
}

} // namespace ns3
