/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * \file
 * \ingroup presto
 * presto-plot: draw the FCT of one or more runs into one PNG.
 *
 *     presto-plot --out=plot.png RUN_DIR [RUN_DIR...]
 *
 * Each RUN_DIR is the output folder of a run (presto-spray writes one): its fct.csv gives
 * the flows, its summary.json the bucket edges ("hi_bytes" of "buckets"), the warm-up
 * ("warmup_ns") and the legend label ("config"."label", else the folder name). The
 * statistics are recomputed from fct.csv, so the plot never disagrees with the rows.
 * Left panel: slowdown p50 (dashed) and p99 (solid) per flow-size bucket, log y; right
 * panel: CDF of FCT, log x; the runs' configuration (RunCaption) along the top; the same
 * plot as an SVG beside the PNG (plot.svg). Bad input: a message on stderr and exit status 1.
 */

#include "ns3/core-module.h"
#include "ns3/fct-plot.h"
#include "ns3/fct-statistics.h"
#include "ns3/gnuplot-png.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/run-report.h"

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

/// The last path component of \p dir, ignoring trailing slashes.
std::string
BaseName(std::string dir)
{
    while (dir.size() > 1 && dir.back() == '/')
    {
        dir.pop_back();
    }
    const auto slash = dir.rfind('/');
    return slash == std::string::npos ? dir : dir.substr(slash + 1);
}

/// Load one run folder: records from fct.csv, edges, warm-up and label from summary.json;
/// \p config gets its "config" object (for the caption; empty if it has none).
PlotRun
LoadRun(const std::string& dir, nlohmann::json& config)
{
    const std::string csvPath = dir + "/fct.csv";
    const std::string jsonPath = dir + "/summary.json";
    PlotRun run;
    run.records = ReadFctCsv(csvPath);

    std::ifstream in(jsonPath);
    if (!in)
    {
        throw PrestoInputError("cannot open '" + jsonPath + "'");
    }
    nlohmann::json summary;
    try
    {
        summary = nlohmann::json::parse(in);
    }
    catch (const nlohmann::json::exception& e)
    {
        throw PrestoInputError("'" + jsonPath + "' is not valid JSON: " + e.what());
    }
    if (!summary.is_object() || !summary.contains("buckets") || !summary["buckets"].is_array())
    {
        throw PrestoInputError("'" + jsonPath + "' has no \"buckets\" array");
    }
    std::vector<uint64_t> edges;
    for (std::size_t i = 0; i < summary["buckets"].size(); ++i)
    {
        const nlohmann::json& b = summary["buckets"][i];
        if (!b.is_object() || !b.contains("hi_bytes") || !b["hi_bytes"].is_number_unsigned())
        {
            throw PrestoInputError("'" + jsonPath + "': bucket " + std::to_string(i) +
                                   " has no unsigned integer \"hi_bytes\"");
        }
        edges.push_back(b["hi_bytes"].get<uint64_t>());
    }
    if (!summary.contains("warmup_ns") || !summary["warmup_ns"].is_number_integer())
    {
        throw PrestoInputError("'" + jsonPath + "' has no integer \"warmup_ns\"");
    }
    const auto warmupNs = summary["warmup_ns"].get<int64_t>();

    run.label = BaseName(dir);
    config = summary.contains("config") && summary["config"].is_object() ? summary["config"]
                                                                         : nlohmann::json::object();
    if (summary.contains("config") && summary["config"].is_object() &&
        summary["config"].contains("label") && summary["config"]["label"].is_string() &&
        !summary["config"]["label"].get<std::string>().empty())
    {
        run.label = summary["config"]["label"].get<std::string>();
    }
    try
    {
        run.summary = SummarizeFct(run.records, edges, warmupNs);
    }
    catch (const PrestoInputError& e)
    {
        throw PrestoInputError("run '" + dir + "': " + e.what());
    }
    return run;
}

} // namespace

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    std::string out;
    PrestoCommandLine cmd(__FILE__);
    cmd.Usage("Draw slowdown by flow-size bucket and the FCT CDF of runs into one PNG.\n"
              "usage: presto-plot --out=plot.png RUN_DIR [RUN_DIR...]\n"
              "Each RUN_DIR holds the fct.csv and summary.json of one run.");
    cmd.AddValue("out", "the PNG file to write", out);
    ParseCommandLine(cmd, argc, argv);

    try
    {
        if (out.empty())
        {
            throw PrestoInputError("--out=FILE.png is required");
        }
        const std::size_t n = cmd.GetNExtraNonOptions();
        if (n == 0)
        {
            throw PrestoInputError("no RUN_DIR given (usage: presto-plot --out=plot.png "
                                   "RUN_DIR [RUN_DIR...])");
        }
        std::vector<PlotRun> runs;
        std::vector<nlohmann::json> configs;
        for (std::size_t i = 0; i < n; ++i)
        {
            configs.emplace_back();
            runs.push_back(LoadRun(cmd.GetExtraNonOption(i), configs.back()));
        }
        PlotFct(runs, out, RunCaption(configs));
        std::cout << "presto-plot: wrote " << out << " and " << SvgBeside(out) << " ("
                  << runs.size() << " run" << (runs.size() == 1 ? "" : "s") << ")" << std::endl;
    }
    catch (const PrestoInputError& e)
    {
        std::cerr << "presto-plot: error: " << e.what() << std::endl;
        return 1;
    }
    catch (const std::exception& e)
    {
        std::cerr << "presto-plot: error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}

int
main(int argc, char* argv[])
{
    return RunPrestoMain("presto-plot", [argc, argv] { return Main(argc, argv); });
}
