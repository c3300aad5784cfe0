/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \file
 * \ingroup presto
 * presto-aggregate: merge the runs of a sweep into tables and plots with 95% confidence
 * intervals across seeds.
 *
 *     presto-aggregate --in=SWEEP_DIR [--out=SWEEP_DIR/aggregate] [--plot=1]
 *
 * Reads every SWEEP_DIR/runs/NAME/summary.json (sweep/presto-sweep.sh writes them; folders
 * ending in ".partial" are unfinished runs and are skipped), groups the runs by configuration
 * without the seed, and writes into --out: aggregate.csv (one row per group x flow-size
 * bucket x metric: n, mean, ci95_low, ci95_high; see SweepAggregateCsv) and
 * slowdown_p99.png (p99 slowdown by bucket, one line per group, error bars = 95% CI; a
 * group with one seed has no bar). Prints the table. Bad input: a message on stderr and
 * exit status 1.
 */

#include "ns3/core-module.h"
#include "ns3/fct-plot.h"
#include "ns3/gnuplot-png.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/sweep-aggregate.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>
#include <unistd.h>

using namespace ns3;
namespace fs = std::filesystem;

namespace
{

/// The summary.json of every finished run under \p in/runs, in name order.
std::vector<std::string>
FindRuns(const std::string& in)
{
    const fs::path runs = fs::path(in) / "runs";
    std::error_code ec;
    if (!fs::is_directory(runs, ec))
    {
        throw PrestoInputError("--in='" + in +
                               "': no 'runs' folder (expected the --out of "
                               "sweep/presto-sweep.sh)");
    }
    std::vector<std::string> found;
    for (const fs::directory_entry& e : fs::directory_iterator(runs, ec))
    {
        const std::string name = e.path().filename().string();
        const fs::path summary = e.path() / "summary.json";
        // unfinished runs live in NAME.partial until they succeed
        if (e.is_directory() && name.size() > 8 &&
            name.compare(name.size() - 8, 8, ".partial") == 0)
        {
            continue;
        }
        if (e.is_directory() && fs::exists(summary))
        {
            found.push_back(summary.string());
        }
    }
    if (ec)
    {
        throw PrestoInputError("cannot list '" + runs.string() + "': " + ec.message());
    }
    std::sort(found.begin(), found.end());
    if (found.empty())
    {
        throw PrestoInputError("--in='" + in + "': no finished run (runs/*/summary.json)");
    }
    return found;
}

/// Write \p text to \p path (through a temporary name, so readers never see half a file).
void
WriteFile(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        if (!out)
        {
            throw PrestoInputError("cannot write '" + path + "'");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        std::remove(tmp.c_str());
        throw PrestoInputError("cannot write '" + path + "' (rename failed)");
    }
}

/**
 * Draw p99 slowdown by bucket, one line per group with 95% CI error bars, through
 * RenderGnuplotPng (PNG checked, written to a temporary name and renamed).
 */
void
PlotP99(const std::vector<SweepAggregateRow>& rows,
        const std::string& pngPath,
        const std::string& caption)
{
    const std::string metric = "slowdown_p99";
    std::map<std::pair<uint64_t, uint64_t>, std::string> buckets; // by (hi, lo): label
    std::vector<std::string> groups;
    for (const SweepAggregateRow& r : rows)
    {
        if (r.metric == metric && r.bucket != "all")
        {
            buckets[{r.hiBytes, r.loBytes}] = r.bucket;
            if (std::find(groups.begin(), groups.end(), r.group) == groups.end())
            {
                groups.push_back(r.group);
            }
        }
    }
    if (groups.empty())
    {
        throw PrestoInputError("plot '" + pngPath + "': no finished flows in any run");
    }
    std::map<std::pair<uint64_t, uint64_t>, int> xOf;
    std::string xtics;
    for (const auto& [key, label] : buckets)
    {
        const int x = static_cast<int>(xOf.size());
        xOf[key] = x;
        xtics += (x ? ", " : "") + GnuplotQuote(label) + " " + std::to_string(x);
    }
    using Point = std::tuple<double, double, double, double>; // x, y, ylow, yhigh
    std::vector<std::vector<Point>> lines(groups.size());
    for (const SweepAggregateRow& r : rows)
    {
        if (r.metric != metric || r.bucket == "all" || !(r.ci.mean > 0))
        {
            continue; // log y cannot show values <= 0
        }
        const auto g = std::find(groups.begin(), groups.end(), r.group) - groups.begin();
        // spread the groups a little so that their error bars do not hide each other
        const double spread = groups.size() > 1 ? 0.3 / static_cast<double>(groups.size()) : 0;
        const double x = xOf[{r.hiBytes, r.loBytes}] +
                         (static_cast<double>(g) - (groups.size() - 1) / 2.0) * spread;
        // log y: a lower end <= 0 (wide interval, few seeds) is drawn at mean / 1000
        const double lo = r.ci.HasInterval() ? std::max(r.ci.low, r.ci.mean * 1e-3) : r.ci.mean;
        const double hi = r.ci.HasInterval() ? r.ci.high : r.ci.mean;
        lines[g].emplace_back(x, r.ci.mean, lo, hi);
    }

    // Numbers as gnuplot-iostream wrote them when this plot was piped: same image.
    std::ostringstream gp;
    gp << std::scientific << std::setprecision(18);
    gp << GnuplotTerminal(1000, 600) << "set output " << GnuplotQuote(kGnuplotPngPlaceholder)
       << "\n"
       << GnuplotMultiplot(1, 1, caption) << "set grid\nset key outside below\nset logscale y\n"
       << "set title 'p99 slowdown (FCT / ideal FCT) by flow size (bytes), mean and 95% "
          "CI across seeds'\n"
       << "set ylabel 'p99 slowdown'\n"
       << "set xrange [-0.5:" << static_cast<double>(xOf.size()) - 0.5 << "]\n"
       << "set xtics (" << xtics << ")\nplot ";
    bool first = true;
    for (std::size_t g = 0; g < groups.size(); ++g)
    {
        if (!lines[g].empty())
        {
            gp << (first ? "" : ", ") << "'-' using 1:2:3:4 with yerrorlines lw 2 pt 7 lc " << g + 1
               << " title " << GnuplotQuote(groups[g]);
            first = false;
        }
    }
    gp << "\n";
    for (const auto& line : lines)
    {
        if (!line.empty())
        {
            for (const auto& [x, y, low, high] : line)
            {
                gp << x << " " << y << " " << low << " " << high << "\n";
            }
            gp << "e\n";
        }
    }
    gp << "unset multiplot\nset output\n";
    RenderGnuplotPng(gp.str(), pngPath, "plot");
}

} // namespace

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    std::string in;
    std::string out;
    bool plot = true;
    PrestoCommandLine cmd(__FILE__);
    cmd.Usage("Merge the runs of a sweep (sweep/presto-sweep.sh) into tables and plots with\n"
              "95% confidence intervals across seeds.\n"
              "usage: presto-aggregate --in=SWEEP_DIR [--out=SWEEP_DIR/aggregate]");
    cmd.AddValue("in", "the sweep folder (holds runs/NAME/summary.json)", in);
    cmd.AddValue("out", "output folder (default: IN/aggregate)", out);
    cmd.AddValue("plot", "write slowdown_p99.png (needs gnuplot)", plot);
    ParseCommandLine(cmd, argc, argv);

    try
    {
        if (in.empty())
        {
            throw PrestoInputError("--in=SWEEP_DIR is required");
        }
        if (cmd.GetNExtraNonOptions() > 0)
        {
            throw PrestoInputError("unexpected argument '" + cmd.GetExtraNonOption(0) +
                                   "' (usage: presto-aggregate --in=SWEEP_DIR)");
        }
        if (out.empty())
        {
            out = (fs::path(in) / "aggregate").string();
        }
        std::vector<SweepRun> runs;
        for (const std::string& path : FindRuns(in))
        {
            runs.push_back(ReadSweepRun(path));
        }
        const std::vector<SweepAggregateRow> rows = AggregateSweep(runs);
        std::error_code ec;
        fs::create_directories(out, ec);
        if (ec)
        {
            throw PrestoInputError("--out='" + out + "': cannot create: " + ec.message());
        }
        const std::string csv = (fs::path(out) / "aggregate.csv").string();
        WriteFile(csv, SweepAggregateCsv(rows));
        PrintSweepAggregate(std::cout, rows);
        std::cout << "presto-aggregate: " << runs.size() << " runs -> " << csv;
        if (plot)
        {
            const std::string png = (fs::path(out) / "slowdown_p99.png").string();
            std::vector<nlohmann::json> configs; // the caption: what the sweep varied
            for (const SweepRun& r : runs)
            {
                nlohmann::json c = r.config;
                c["seed"] = r.seed;
                configs.push_back(c);
            }
            PlotP99(rows, png, RunCaption(configs));
            std::cout << ", " << png;
        }
        std::cout << std::endl;
    }
    catch (const std::exception& e)
    {
        std::cerr << "presto-aggregate: error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}

int
main(int argc, char* argv[])
{
    return RunPrestoMain("presto-aggregate", [argc, argv] { return Main(argc, argv); });
}
