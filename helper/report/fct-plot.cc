/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fct-plot.h"

#include "gnuplot-png.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FctPlot");

namespace
{

/// At most this many points per CDF line: a million flows would only slow gnuplot down.
constexpr std::size_t kMaxCdfPoints = 4000;

/// A point of a line: (x, y).
using Points = std::vector<std::pair<double, double>>;

/// Inline data for one '-' of a plot command: "x y" lines, then "e".
void
SendPoints(std::ostream& gp, const Points& points)
{
    for (const auto& [x, y] : points)
    {
        gp << x << " " << y << "\n";
    }
    gp << "e\n";
}

/// The points of a CDF of the FCT (us) of the finished flows the summary counts.
Points
FctCdf(const PlotRun& run)
{
    std::vector<double> us;
    for (const FctRecord& r : run.records)
    {
        // Same population as the summary; log x cannot show a zero FCT.
        if (r.flow.startNs >= run.summary.warmupNs && r.Finished() && r.FctNs() > 0)
        {
            us.push_back(static_cast<double>(r.FctNs()) / 1e3);
        }
    }
    std::sort(us.begin(), us.end());
    Points cdf;
    const std::size_t n = us.size();
    const std::size_t points = std::min(n, kMaxCdfPoints);
    for (std::size_t k = 0; k < points; ++k)
    {
        // Evenly spaced ranks, always ending at the largest value.
        const std::size_t i = points == 1 ? n - 1 : k * (n - 1) / (points - 1);
        cdf.emplace_back(us[i], static_cast<double>(i + 1) / static_cast<double>(n));
    }
    return cdf;
}

/// One line of a panel: its gnuplot style (after "'-' ") and its points.
struct Line
{
    std::string style; //!< e.g. "with lines lw 2 lc 1 title 'x'"
    Points points;     //!< its inline data
};

/// The x axis of the slowdown panel: every bucket any run has, by upper edge.
struct BucketAxis
{
    std::map<std::pair<uint64_t, uint64_t>, int> xOf; //!< (hiBytes, loBytes) -> x
    std::string xtics;                                //!< the tics, "'label' x, ..."
};

/// \param runs the runs to draw \return the x axis of their buckets
BucketAxis
MakeBucketAxis(const std::vector<PlotRun>& runs)
{
    std::map<std::pair<uint64_t, uint64_t>, std::string> bucketSet;
    for (const PlotRun& run : runs)
    {
        for (const BucketSummary& b : run.summary.buckets)
        {
            bucketSet[{b.hiBytes, b.loBytes}] = BucketLabel(b);
        }
    }
    BucketAxis axis;
    for (const auto& [key, label] : bucketSet)
    {
        const int x = static_cast<int>(axis.xOf.size());
        axis.xOf[key] = x;
        axis.xtics += (x ? ", " : "") + GnuplotQuote(label) + " " + std::to_string(x);
    }
    return axis;
}

/// The slowdown panel's lines of \p run in \p color: p50 dashed, p99 solid, each only if
/// it has a point.
void
AddSlowdownLines(const PlotRun& run,
                 const std::string& color,
                 BucketAxis& axis,
                 std::vector<Line>& left)
{
    Points p50;
    Points p99;
    for (const BucketSummary& b : run.summary.buckets)
    {
        const double x = axis.xOf[{b.hiBytes, b.loBytes}];
        // Empty buckets have no statistics; log y cannot show values <= 0.
        if (b.slowdown.count > 0 && b.slowdown.p50 > 0)
        {
            p50.emplace_back(x, b.slowdown.p50);
        }
        if (b.slowdown.count > 0 && b.slowdown.p99 > 0)
        {
            p99.emplace_back(x, b.slowdown.p99);
        }
    }
    if (!p50.empty())
    {
        left.push_back({"with linespoints dt 2 lw p50width pt 6" + color + " title " +
                            GnuplotQuote(run.label + " p50"),
                        p50});
    }
    if (!p99.empty())
    {
        left.push_back({"with linespoints dt 1 lw 2 pt 7" + color + " title " +
                            GnuplotQuote(run.label + " p99"),
                        p99});
    }
}

/// The rest of a plot command after "plot ": a '-' per line, then the lines' inline data.
void
SendPlotLines(std::ostream& gp, const std::vector<Line>& lines)
{
    for (std::size_t i = 0; i < lines.size(); ++i)
    {
        gp << (i ? ", " : "") << "'-' " << lines[i].style;
    }
    gp << "\n";
    for (const Line& line : lines)
    {
        SendPoints(gp, line.points);
    }
}

/// \return the text of a config value: strings as they are, numbers in gnuplot's %g style.
std::string
ConfigText(const nlohmann::json& v)
{
    if (v.is_string())
    {
        return v.get<std::string>();
    }
    if (v.is_number_float())
    {
        std::ostringstream os;
        os << v.get<double>();
        return os.str();
    }
    return v.is_null() ? std::string() : v.dump();
}

} // namespace

std::string
RunCaption(const std::vector<nlohmann::json>& configs)
{
    // every distinct value of one field, in the order of the runs
    auto values = [&configs](const std::string& key, const std::string& sep = ", ") {
        std::vector<std::string> seen;
        for (const nlohmann::json& c : configs)
        {
            if (c.is_object() && c.contains(key))
            {
                const std::string v = ConfigText(c[key]);
                if (!v.empty() && std::find(seen.begin(), seen.end(), v) == seen.end())
                {
                    seen.push_back(v);
                }
            }
        }
        std::string out;
        for (const std::string& v : seen)
        {
            out += (out.empty() ? "" : sep) + v;
        }
        return out;
    };
    std::vector<std::string> parts;
    auto add = [&parts](const std::string& part) {
        if (!part.empty())
        {
            parts.push_back(part);
        }
    };
    add(values("label").empty() ? values("device") : values("label"));
    std::string workload = values("flow_file").empty() ? values("workload") : "flow file";
    const std::string pattern = values("pattern");
    workload += (workload.empty() || pattern.empty() ? "" : " ") + pattern;
    const std::string load = values("load");
    add(workload + (load.empty() ? "" : (workload.empty() ? "load " : ", load ") + load));
    std::string fabric = values("topology");
    if (fabric == "leaf-spine" && !values("leaves").empty())
    {
        fabric += " " + values("leaves") + " leaves x " + values("hosts_per_leaf") + " hosts, " +
                  values("spines") + " spines";
    }
    if (!values("host_rate").empty())
    {
        fabric += (fabric.empty() ? "" : ", ") + values("host_rate") + "/" + values("core_rate");
    }
    add(fabric);
    add(values("cc"));
    const std::string seeds = values("seed", ",");
    add(seeds.empty() ? "" : (seeds.find(',') == std::string::npos ? "seed " : "seeds ") + seeds);
    const std::string simTime = values("sim_time_s");
    add(simTime.empty() ? "" : "simTime " + simTime + " s");
    std::string caption;
    for (const std::string& p : parts)
    {
        caption += (caption.empty() ? "" : " | ") + p;
    }
    return caption;
}

void
PlotFct(const std::vector<PlotRun>& runs, const std::string& pngPath, const std::string& caption)
{
    NS_LOG_FUNCTION(runs.size() << pngPath);
    if (runs.empty())
    {
        throw PrestoInputError("FCT plot '" + pngPath + "': no runs to draw");
    }
    BucketAxis axis = MakeBucketAxis(runs);

    // Data first, so that a run with nothing to show is left out instead of making gnuplot
    // fail with "no valid points".
    std::vector<Line> left;
    std::vector<Line> right;
    for (std::size_t i = 0; i < runs.size(); ++i)
    {
        const std::string color = " lc " + std::to_string(i + 1);
        AddSlowdownLines(runs[i], color, axis, left);
        Points cdf = FctCdf(runs[i]);
        if (!cdf.empty())
        {
            right.push_back(
                {"with lines lw 2" + color + " title " + GnuplotQuote(runs[i].label), cdf});
        }
    }

    // Numbers as gnuplot-iostream wrote them when this plot was piped: same image.
    std::ostringstream gp;
    gp << std::scientific << std::setprecision(18);
    gp << GnuplotTerminal(1200, 500) << "p50width = presto_cairo ? 2 : 1\n"
       << "set output " << GnuplotQuote(kGnuplotPngPlaceholder) << "\n"
       << GnuplotMultiplot(1, 2, caption) << "set grid\nset key outside below\n";

    gp << "set title 'Slowdown (FCT / ideal FCT) by flow size (bytes): p50 dashed, p99 solid'\n"
       << "unset xlabel\nset ylabel 'slowdown'\n";
    if (left.empty())
    {
        gp << GnuplotEmptyPanel("no finished flows");
    }
    else
    {
        gp << "set logscale y\n"
           << "set xrange [-0.5:" << static_cast<double>(axis.xOf.size()) - 0.5 << "]\n"
           << "set xtics (" << axis.xtics << ")\n"
           << "plot ";
        SendPlotLines(gp, left);
    }

    gp << "unset logscale\nset autoscale\nset xtics autofreq\nset ytics autofreq\n"
       << "set title 'CDF of flow completion time (FCT, us)'\n"
       << "unset xlabel\nset ylabel 'fraction of flows'\n";
    if (right.empty())
    {
        gp << GnuplotEmptyPanel("no finished flows");
    }
    else
    {
        // room right of the axis for the last tick label (e.g. 100000) at the panel's edge
        gp << "set logscale x\nset yrange [0:1]\nset rmargin 6\nplot ";
        SendPlotLines(gp, right);
    }
    gp << "unset multiplot\nset output\n";
    RenderGnuplotPng(gp.str(), pngPath, "FCT plot");
}

} // namespace ns3
