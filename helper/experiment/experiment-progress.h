/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_EXPERIMENT_PROGRESS_H
#define PRESTO_EXPERIMENT_PROGRESS_H

#include "ns3/lean-simulator-impl.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>

namespace ns3
{

namespace experiment
{

/**
 * \brief Prints a run's progress to stderr every interval of wall time while it lives:
 * simulated time against the end (--simTime + --drainTime), events per second of wall time
 * since the last line, and the wall time left if the run goes to that end (ETA; a run ends
 * sooner when every flow has finished). It reads the simulator from LeanSimulatorImpl's
 * between-events hook, which is no event: the run is exactly the same with it. With another
 * simulator implementation it prints nothing.
 */
class ProgressReport
{
  public:
    /**
     * \param intervalS seconds of wall time between lines (<= 0: none)
     * \param endS the simulated time the run stops at the latest, s
     * \param label the run's label
     */
    ProgressReport(double intervalS, double endS, std::string label)
        : m_interval(intervalS),
          m_end(endS),
          m_label(std::move(label)),
          m_start(std::chrono::steady_clock::now()),
          m_last(m_start)
    {
        if (m_interval > 0)
        {
            LeanSimulatorImpl::SetBetweenEventsHook([this] { Check(); });
        }
    }

    ~ProgressReport()
    {
        if (m_interval > 0)
        {
            LeanSimulatorImpl::SetBetweenEventsHook({});
        }
    }

    ProgressReport(const ProgressReport&) = delete;
    ProgressReport& operator=(const ProgressReport&) = delete;

  private:
    /// Between two events: print a line if the interval has passed.
    void Check()
    {
        const auto now = std::chrono::steady_clock::now();
        const double sinceLast = std::chrono::duration<double>(now - m_last).count();
        const LeanSimulatorImpl* sim = LeanSimulatorImpl::GetRunning();
        if (sinceLast < m_interval || !sim)
        {
            return;
        }
        const double wall = std::chrono::duration<double>(now - m_start).count();
        const double simS = static_cast<double>(sim->GetNanoSeconds()) / 1e9;
        const uint64_t events = sim->GetEventCount();
        const double rate = static_cast<double>(events - m_lastEvents) / sinceLast;
        std::ostringstream os;
        os << "progress: " << m_label << ": simulated " << std::setprecision(6) << simS << " of "
           << m_end << " s (" << std::fixed << std::setprecision(1)
           << (m_end > 0 ? 100 * simS / m_end : 0.0) << "%), wall " << wall << " s, "
           << std::setprecision(0) << rate << " events/s";
        if (simS > 0)
        {
            os << ", ETA <= " << std::setprecision(1) << wall / simS * std::max(0.0, m_end - simS)
               << " s";
        }
        std::cerr << os.str() << std::endl;
        m_last = now;
        m_lastEvents = events;
    }

    double m_interval;                             //!< wall seconds between lines
    double m_end;                                  //!< the latest end, simulated s
    std::string m_label;                           //!< the run's label
    std::chrono::steady_clock::time_point m_start; //!< when the run started
    std::chrono::steady_clock::time_point m_last;  //!< the last line (or the start)
    uint64_t m_lastEvents{0};                      //!< events run at m_last
};

} // namespace experiment

} // namespace ns3

#endif // PRESTO_EXPERIMENT_PROGRESS_H
