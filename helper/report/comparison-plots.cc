/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The comparison's gnuplot scripts: p99 slowdown by flow size, small-flow p99 with its
// bootstrap intervals, host CPU and RPC rate and latency, as bar panels of one row each.
#include "comparison-cells.h"
#include "comparison-report.h"
#include "gnuplot-png.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

namespace ns3
{

using comparison::CsvNumber;
using comparison::Join;
using comparison::kNaN;

namespace
{

/// The terminal lines every script starts with (GnuplotTerminal), then its output.
std::string
ScriptHeader(const std::string& pngPath, int width, int height)
{
    std::ostringstream os;
    os << GnuplotTerminal(width, height) << "set output " << GnuplotQuote(pngPath) << "\n"
       << "set grid ytics\n";
    return os.str();
}

/// One bar panel: a bar per row with a finite, positive value (x tics = the labels), with
/// its value written above it; with \p interval, a whisker over the rows whose interval is
/// known (its {low, high}), the value written above the whisker.
std::string
BarPanel(const std::vector<ComparisonRow>& rows,
         const std::string& title,
         const std::string& ylabel,
         double (*value)(const ComparisonRow&),
         const std::string& block,
         std::array<double, 2> (*interval)(const ComparisonRow&) = nullptr)
{
    std::ostringstream data;
    std::ostringstream whiskers;
    std::ostringstream tics;
    int bars = 0;
    int intervals = 0;
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        tics << (i ? ", " : "") << GnuplotQuote(rows[i].label) << " " << i;
        const double v = value(rows[i]);
        if (std::isfinite(v) && v >= 0)
        {
            const std::array<double, 2> ci =
                interval ? interval(rows[i]) : std::array<double, 2>{kNaN, kNaN};
            const bool hasCi = std::isfinite(ci[0]) && std::isfinite(ci[1]);
            // columns: x, value, colour, where the value's text goes
            data << i << " " << CsvNumber(v) << " " << (i + 1) << " "
                 << CsvNumber(hasCi ? std::max(v, ci[1]) : v) << "\n";
            if (hasCi)
            {
                whiskers << i << " " << CsvNumber(v) << " " << CsvNumber(ci[0]) << " "
                         << CsvNumber(ci[1]) << "\n";
                ++intervals;
            }
            ++bars;
        }
    }
    std::ostringstream os;
    os << "set title " << GnuplotQuote(title) << "\nset ylabel " << GnuplotQuote(ylabel) << "\n";
    if (bars == 0)
    {
        os << GnuplotEmptyPanel("nothing to draw");
        return os.str();
    }
    os << "$" << block << " << EOD\n" << data.str() << "EOD\n";
    if (intervals > 0)
    {
        os << "$" << block << "_ci << EOD\n" << whiskers.str() << "EOD\n";
    }
    // the top offset keeps the room for the text above the highest bar inside the frame
    os << "unset logscale\nset xrange [-0.6:" << static_cast<double>(rows.size()) - 0.4 << "]\n"
       << "set yrange [0:*]\nset offsets 0,0,graph 0.1,0\nset ytics autofreq\nset xtics ("
       << tics.str() << ") rotate by -30\n"
       << "set style fill solid 0.8 border -1\nset boxwidth 0.6\n"
       << "plot $" << block << " using 1:2:3 with boxes lc variable notitle, ";
    if (intervals > 0)
    {
        os << "$" << block << "_ci using 1:2:3:4 with yerrorbars lc rgb 'black' lw 1.5 pt 0 "
           << "title '95% bootstrap interval', ";
    }
    os << "$" << block << " using 1:4:(sprintf('%.3g', $2)) with labels offset 0,0.7 notitle\n"
       << "set offsets 0,0,0,0\n";
    return os.str();
}

} // namespace

std::string
SlowdownByBucketScript(const std::vector<ComparisonRow>& rows,
                       const std::string& pngPath,
                       const std::string& caption)
{
    // x axis: every bucket of any row, by its edges
    std::map<std::pair<uint64_t, uint64_t>, std::string> bucketSet;
    for (const auto& r : rows)
    {
        for (const auto& b : r.buckets)
        {
            bucketSet[{b.hiBytes, b.loBytes}] = BucketLabel(b);
        }
    }
    std::map<std::pair<uint64_t, uint64_t>, int> xOf;
    std::string tics;
    for (const auto& [key, name] : bucketSet)
    {
        const int x = static_cast<int>(xOf.size());
        xOf[key] = x;
        tics += (x ? ", " : "") + GnuplotQuote(name) + " " + std::to_string(x);
    }
    std::ostringstream blocks;
    std::vector<std::string> plots;
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        std::ostringstream data;
        for (const auto& b : rows[i].buckets)
        {
            // empty buckets have no percentile; log y cannot show values <= 0
            if (b.slowdown.count > 0 && b.slowdown.p99 > 0)
            {
                data << xOf[{b.hiBytes, b.loBytes}] << " " << CsvNumber(b.slowdown.p99) << "\n";
            }
        }
        if (data.str().empty())
        {
            continue;
        }
        const std::string name = "$run" + std::to_string(i);
        blocks << name << " << EOD\n" << data.str() << "EOD\n";
        plots.push_back(name + " with linespoints lw 2 pt 7 lc " + std::to_string(i + 1) +
                        " title " + GnuplotQuote(rows[i].label));
    }
    std::ostringstream os;
    os << ScriptHeader(pngPath, 1000, 550) << GnuplotMultiplot(1, 1, caption)
       << "set title 'p99 slowdown (FCT / ideal FCT) by flow size (bytes), one line per device'\n"
       << "set ylabel 'p99 slowdown'\nset key outside right\n";
    if (plots.empty())
    {
        os << GnuplotEmptyPanel("no finished flows");
    }
    else
    {
        os << blocks.str()
           << "set logscale y\nset xrange [-0.5:" << static_cast<double>(xOf.size()) - 0.5
           << "]\nset xtics (" << tics << ")\nplot " << Join(plots, ", ") << "\n";
    }
    os << "unset multiplot\nset output\n";
    return os.str();
}

std::string
P99SmallScript(const std::vector<ComparisonRow>& rows,
               const std::string& pngPath,
               const std::string& caption)
{
    std::ostringstream os;
    os << ScriptHeader(pngPath, 1000, 500) << GnuplotMultiplot(1, 1, caption)
       << "set key top right\n"
       << BarPanel(
              rows,
              "small flows (<= 100KB): p99 slowdown (FCT / ideal FCT)",
              "p99 slowdown",
              [](const ComparisonRow& r) { return r.slow[0].count ? r.slow[0].p99 : kNaN; },
              "small",
              [](const ComparisonRow& r) { return r.smallP99Ci; })
       << "unset multiplot\nset output\n";
    return os.str();
}

std::string
HostCpuScript(const std::vector<ComparisonRow>& rows,
              const std::string& pngPath,
              const std::string& caption)
{
    std::ostringstream os;
    os << ScriptHeader(pngPath, 1200, 500) << GnuplotMultiplot(1, 2, caption)
       << BarPanel(
              rows,
              "host CPU: cores busy on networking (all hosts)",
              "cores",
              [](const ComparisonRow& r) { return r.hostCores; },
              "cores")
       << BarPanel(
              rows,
              "host CPU: cycles per delivered byte",
              "cycles / byte",
              [](const ComparisonRow& r) { return r.cyclesPerByte; },
              "cpb")
       << "unset multiplot\nset output\n";
    return os.str();
}

std::string
RpcLatencyScript(const std::vector<ComparisonRow>& rows,
                 const std::string& pngPath,
                 const std::string& caption)
{
    std::ostringstream os;
    os << ScriptHeader(pngPath, 1200, 500) << GnuplotMultiplot(1, 2, caption)
       << BarPanel(
              rows,
              "RPC: requests answered per second",
              "requests / s",
              [](const ComparisonRow& r) { return r.rpcRate; },
              "rate")
       << BarPanel(
              rows,
              "RPC latency p99 (us)",
              "p99 latency, us",
              [](const ComparisonRow& r) { return r.rpcP99Us; },
              "p99")
       << "unset multiplot\nset output\n";
    return os.str();
}

} // namespace ns3
