/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "queue-report.h"

#include "gnuplot-png.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

/// The ports whose queues peaked highest, highest first (ties: lower port index first), at
/// most \p maxLines of them, none that never held a byte.
/// \return (port, peak bytes) pairs
std::vector<std::pair<uint32_t, uint32_t>>
HighestPeaks(const std::vector<QueueSample>& samples, uint32_t maxLines)
{
    std::map<uint32_t, uint32_t> peak;
    for (const QueueSample& s : samples)
    {
        peak[s.port] = std::max(peak[s.port], s.bytes);
    }
    std::vector<std::pair<uint32_t, uint32_t>> byPeak; // (port, peak)
    for (const auto& [port, bytes] : peak)
    {
        if (bytes > 0)
        {
            byPeak.emplace_back(port, bytes);
        }
    }
    std::stable_sort(byPeak.begin(), byPeak.end(), [](const auto& a, const auto& b) {
        return a.second > b.second;
    });
    if (byPeak.size() > maxLines)
    {
        byPeak.resize(maxLines);
    }
    return byPeak;
}

/// The upper panel: the queues of the \p byPeak ports over time, a step line each.
void
QueuePanel(std::ostream& gp,
           const std::vector<TracedPort>& ports,
           const std::vector<QueueSample>& samples,
           const std::vector<std::pair<uint32_t, uint32_t>>& byPeak,
           const std::string& xrange)
{
    if (byPeak.empty())
    {
        gp << "set title 'switch port queues'\n" << GnuplotEmptyPanel("no queue held a byte");
        return;
    }
    gp << "set title "
       << GnuplotQuote("switch port queues: the " + std::to_string(byPeak.size()) +
                       " highest peaks")
       << "\nset xlabel 'time (ms)'\nset ylabel 'queue (KB)'\n"
       << xrange << "plot ";
    for (std::size_t i = 0; i < byPeak.size(); ++i)
    {
        const TracedPort& p = ports.at(byPeak[i].first);
        gp << (i ? ", " : "") << "'-' using 1:2 with steps lw 1.5 title "
           << GnuplotQuote(p.switchName + ":" + std::to_string(p.port) + ">" + p.neighbourName);
    }
    gp << "\n";
    for (const auto& [port, bytes] : byPeak)
    {
        for (const QueueSample& s : samples)
        {
            if (s.port == port)
            {
                gp << s.timeNs / 1e6 << " " << s.bytes / 1e3 << "\n";
            }
        }
        gp << "e\n";
    }
}

/// The lower panel: cumulative drops and ECN marks of all ports, to \p endNs.
void
EventPanel(std::ostream& gp,
           const std::vector<SwitchEvent>& events,
           int64_t endNs,
           const std::string& xrange)
{
    if (events.empty())
    {
        gp << "set title 'drops and ECN marks'\n" << GnuplotEmptyPanel("no drop and no ECN mark");
        return;
    }
    // the totals in the key: a handful of drops is invisible under thousands of marks
    uint64_t drops = 0;
    for (const SwitchEvent& e : events)
    {
        drops += e.drop ? 1 : 0;
    }
    gp << "set title 'drops and ECN marks, all switch ports'\n"
       << "set xlabel 'time (ms)'\nset ylabel 'cumulative packets'\nunset logscale\n"
       << "set autoscale\n"
       << xrange << "set xtics\nset ytics\n"
       << "plot '-' using 1:2 with steps lw 1.5 title "
       << GnuplotQuote("drops (" + std::to_string(drops) + ")") << ", "
       << "'-' using 1:2 with steps lw 1.5 title "
       << GnuplotQuote("ECN marks (" + std::to_string(events.size() - drops) + ")") << "\n";
    for (bool drop : {true, false})
    {
        uint64_t n = 0;
        gp << "0 0\n";
        for (const SwitchEvent& e : events)
        {
            if (e.drop == drop)
            {
                gp << e.timeNs / 1e6 << " " << ++n << "\n";
            }
        }
        gp << endNs / 1e6 << " " << n << "\n"; // flat to the end of the axis
        gp << "e\n";
    }
}

} // namespace

std::string
QueueSamplesCsv(const std::vector<TracedPort>& ports, const std::vector<QueueSample>& samples)
{
    std::ostringstream os;
    os << "time_ns,switch,port,neighbour,bytes,packets\n";
    for (const QueueSample& s : samples)
    {
        const TracedPort& p = ports.at(s.port);
        os << s.timeNs << "," << p.switchName << "," << p.port << "," << p.neighbourName << ","
           << s.bytes << "," << s.packets << "\n";
    }
    return os.str();
}

std::string
SwitchEventsCsv(const std::vector<TracedPort>& ports, const std::vector<SwitchEvent>& events)
{
    std::ostringstream os;
    os << "time_ns,switch,port,neighbour,event,bytes\n";
    for (const SwitchEvent& e : events)
    {
        os << e.timeNs << ",";
        if (e.port == NO_TRACED_PORT)
        {
            os << ",,,drop_no_route";
        }
        else
        {
            const TracedPort& p = ports.at(e.port);
            os << p.switchName << "," << p.port << "," << p.neighbourName << ","
               << (e.drop ? "drop" : "mark");
        }
        os << "," << e.bytes << "\n";
    }
    return os.str();
}

std::string
QueuePlotScript(const std::vector<TracedPort>& ports,
                const std::vector<QueueSample>& samples,
                const std::vector<SwitchEvent>& events,
                const std::string& pngPath,
                uint32_t maxLines,
                const std::string& caption)
{
    // one time axis for both panels: to the last sample or event
    int64_t endNs = 0;
    for (const QueueSample& s : samples)
    {
        endNs = std::max(endNs, s.timeNs);
    }
    for (const SwitchEvent& e : events)
    {
        endNs = std::max(endNs, e.timeNs);
    }
    std::ostringstream xrange;
    if (endNs > 0)
    {
        xrange << "set xrange [0:" << endNs / 1e6 << "]\n";
    }

    std::ostringstream gp;
    gp << GnuplotTerminal(1000, 800) << "set output " << GnuplotQuote(pngPath) << "\n"
       << GnuplotMultiplot(2, 1, caption) << "set grid\nset key outside right top\n";
    QueuePanel(gp, ports, samples, HighestPeaks(samples, maxLines), xrange.str());
    EventPanel(gp, events, endNs, xrange.str());
    gp << "unset multiplot\nset output\n";
    return gp.str();
}

} // namespace ns3
