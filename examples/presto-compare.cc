/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The headline comparison: the same sprayed workload on every host with each device in turn
// (host TCP, Presto at several reassembly fidelities, FlexTOE, Cora), one table and three
// plots. Every device runs the same congestion control (--cc, window DCTCP by default;
// --cc=native gives each design its paper's own), so that the table compares designs.
//
//   presto-compare --devices=host-tcp,presto:0,presto:1,presto:2,presto:full,flextoe,cora
//                  --out=results/compare
//
// Every presto-spray option applies to every run (--device and --fidelity are set per run
// from --devices; --coraStrategy and --classRules go to the rows whose design has them). Each run
// writes its usual fct.csv, summary.json, flows.txt, fct.png into OUT/<label>/; then
// OUT/comparison.csv (one row per device), OUT/slowdown-by-bucket.png, OUT/p99-small.png and
// OUT/host-cpu.png. Bad input: a message and exit status 1 before anything runs.
//
// --seeds=1,2,3 runs every device once per seed (into OUT/<label>/seed<S>/) and pools the
// seeds' flows for each row: percentiles, bootstrap intervals and tiers from all of them,
// counters as the seeds' means, each seed's small-flow p99 beside the pooled one
// (OUT/comparison.csv pooled, OUT/comparison-by-seed.csv one row per device and seed).
//
// --ablation=dctcp,dctcp-rate,newreno also runs every device under each of those congestion
// controls and under its native one (into OUT/ablation/<label>-<cc>/) and splits each
// pairwise difference of the small-flow p99 slowdown, each design under its native
// algorithm, into the part from the design and the part from the congestion control
// (OUT/ablation.csv).

#include "ns3/cc-ablation.h"
#include "ns3/comparison-report.h"
#include "ns3/fct-plot.h"
#include "ns3/gnuplot-png.h"
#include "ns3/input-file.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/spray-experiment.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <unistd.h>

using namespace ns3;

namespace
{

/// Write \p text to \p path through a temporary name, so a failure leaves no partial file.
void
WriteAtomically(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        if (!out.flush())
        {
            std::remove(tmp.c_str());
            throw PrestoInputError("cannot write '" + path + "'");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        std::remove(tmp.c_str());
        throw PrestoInputError("cannot rename to '" + path + "'");
    }
}

/// Render a script made by one of the comparison's script builders into \p pngPath (and its
/// SVG beside it), \p caption (the runs' configuration) along the top.
void
RenderPng(std::string (*script)(const std::vector<ComparisonRow>&,
                                const std::string&,
                                const std::string&),
          const std::vector<ComparisonRow>& rows,
          const std::string& pngPath,
          const std::string& caption)
{
    RenderGnuplotPng(script(rows, kGnuplotPngPlaceholder, caption), pngPath, "plot");
}

/**
 * \param text --seeds: comma-separated run numbers, each a whole decimal number, none twice
 * \param base the shared options (--seed)
 * \return the seeds to run: --seeds, or --seed alone when it is empty
 * \throws PrestoInputError naming --seeds, and for options that pooling cannot serve
 */
std::vector<uint32_t>
ParseSeeds(const std::string& text, const SprayExperimentConfig& base)
{
    if (text.empty())
    {
        return {base.seed};
    }
    if (base.seed != SprayExperimentConfig().seed)
    {
        throw PrestoInputError("--seeds=" + text + " and --seed=" + std::to_string(base.seed) +
                               " exclude each other: give the seeds in --seeds");
    }
    std::vector<uint32_t> seeds;
    std::istringstream is(text + ",");
    for (std::string item; std::getline(is, item, ',');)
    {
        uint32_t v = 0;
        const char* end = item.data() + item.size();
        const auto [ptr, ec] = std::from_chars(item.data(), end, v);
        if (item.empty() || ec != std::errc() || ptr != end || v == 0)
        {
            throw PrestoInputError("--seeds=" + text + ": '" + item +
                                   "' is not a run number (a whole number from 1 to 4294967295)");
        }
        if (std::find(seeds.begin(), seeds.end(), v) != seeds.end())
        {
            throw PrestoInputError("--seeds=" + text + ": seed " + item +
                                   " is listed twice (its flows would count twice)");
        }
        seeds.push_back(v);
    }
    if (seeds.size() > 1 && (base.workload == "rpc" || base.workload == "kv"))
    {
        throw PrestoInputError("--seeds with --workload=" + base.workload +
                               ": pooling needs each flow's record; the RPC latencies are "
                               "summarised per run (run one seed at a time)");
    }
    if (seeds.size() > 1 && (base.workload == "allreduce" || base.workload == "alltoall"))
    {
        throw PrestoInputError("--seeds with --workload=" + base.workload +
                               ": pooling needs each flow's record; a collective's steps are "
                               "summarised per run (run one seed at a time)");
    }
    return seeds;
}

} // namespace

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    SprayExperimentConfig base;
    base.out = "results/compare";
    // 100 ms of arrivals: about 350 flows per device, 200 of them small, enough for the
    // small-flow p99 to separate the device groups consistently across seeds (20 ms, 70
    // flows, does not: see test/compare-seeds.sh); about 1.5 minutes for the seven runs.
    base.simTime = 0.1;
    // every row under the same congestion control unless the user says otherwise
    base.cc = "dctcp";
    // and host-tcp's egress and ACK policy as the offload NICs' (--hostParity=0: ns-3's own)
    base.hostParity = true;
    std::string devices = "host-tcp,presto:0,presto:1,presto:2,presto:full,flextoe,cora";
    std::string ablation;
    std::string seedList;
    PrestoCommandLine cmd(__FILE__);
    base.AddToCommandLine(cmd);
    cmd.AddValue("devices",
                 "Devices to compare, comma separated: host-tcp, presto:K (K = 0..16 or full), "
                 "flextoe, cora[:strategy]",
                 devices);
    cmd.AddValue("ablation",
                 "Also run every device under each of these congestion controls and its "
                 "native one, and split each pairwise difference into design and congestion "
                 "control (comma separated, e.g. dctcp,dctcp-rate,newreno; empty: off)",
                 ablation);
    cmd.AddValue("seeds",
                 "Run every device once per seed and pool the seeds' flows for each row "
                 "(comma separated run numbers, e.g. 1,2,3; empty: --seed alone)",
                 seedList);
    ParseCommandLine(cmd, argc, argv);

    try
    {
        // the options every row sets itself: given, they would be ignored
        for (const char* option : {"device", "label"})
        {
            if (cmd.WasSet(option))
            {
                throw PrestoInputError(
                    "--" + std::string(option) + "=" + InputExcerpt(base.given[option]) +
                    " is set per row by presto-compare from --devices (the device, and its "
                    "fidelity or strategy as presto:K, cora:strategy): give --devices=...");
            }
        }
        if (!base.mix.empty())
        {
            throw PrestoInputError("--mix=" + base.mix +
                                   " is a presto-spray option: presto-compare runs one device "
                                   "on every host per row (--devices)");
        }
        const std::vector<uint32_t> seeds = ParseSeeds(seedList, base);
        const bool pooled = seeds.size() > 1;
        // validate every run before running any: a bad option stops it with nothing written
        std::vector<SprayExperimentConfig> configs;
        const auto requested = ParseComparisonDevices(devices, SprayExperiment::Devices());
        // a design option (--coraStrategy, --classRules) is for the rows whose design has it
        std::vector<std::string> rowDevices;
        for (const auto& d : requested)
        {
            rowDevices.push_back(d.device);
        }
        SprayExperiment::CheckDesignOptions(base, rowDevices, "--devices=" + devices);
        // --fidelity or --coraStrategy that every row of its design overrides (presto:K,
        // cora:strategy) would be ignored: it must reach at least one row
        bool fidelityUsed = base.fidelity.empty();
        bool strategyUsed = base.coraStrategy.empty();
        for (const auto& d : requested)
        {
            SprayExperimentConfig c = base;
            c.device = d.device;
            SprayExperiment::KeepOwnDesignOptions(c);
            if (!d.fidelity.empty())
            {
                c.fidelity = d.fidelity;
            }
            if (!d.strategy.empty())
            {
                c.coraStrategy = d.strategy;
            }
            fidelityUsed = fidelityUsed || (!c.fidelity.empty() && c.fidelity == base.fidelity &&
                                            d.fidelity.empty());
            strategyUsed = strategyUsed || (!c.coraStrategy.empty() && d.strategy.empty() &&
                                            c.coraStrategy == base.coraStrategy);
            c.label = d.label;
            c.out = (std::filesystem::path(base.out) / d.label).string();
            c.progressWhenQuiet = !base.quiet; // the rows' tables are this one's
            c.quiet = true;
            SprayExperiment check(c);
            configs.push_back(c);
        }
        if (!fidelityUsed || !strategyUsed)
        {
            const bool fidelity = !fidelityUsed;
            throw PrestoInputError(std::string(fidelity ? "--fidelity=" : "--coraStrategy=") +
                                   InputExcerpt(fidelity ? base.fidelity : base.coraStrategy) +
                                   " reaches no row of --devices=" + InputExcerpt(devices) +
                                   ": every " +
                                   (fidelity ? "presto row sets its own K (presto:K)"
                                             : "cora row sets its own strategy (cora:strategy)") +
                                   ", and the other rows' designs do not have it");
        }

        // the ablation's runs: every device under each listed algorithm and its native one
        std::vector<std::string> ablationCcs;
        std::vector<SprayExperimentConfig> ablationRuns;
        std::map<std::string, std::string> native;
        if (!ablation.empty() && pooled)
        {
            throw PrestoInputError("--ablation with --seeds: the ablation splits one run's "
                                   "differences; give one seed");
        }
        if (!ablation.empty())
        {
            std::istringstream is(ablation);
            for (std::string cc; std::getline(is, cc, ',');)
            {
                if (cc == "native" ||
                    std::find(ablationCcs.begin(), ablationCcs.end(), cc) != ablationCcs.end())
                {
                    throw PrestoInputError("--ablation=" + ablation +
                                           ": list each congestion control once, without "
                                           "native (every device's native one runs anyway)");
                }
                SprayExperiment::CongestionTypeId("presto", cc); // refuses an unknown name
                ablationCcs.push_back(cc);
            }
            for (const auto& c : configs)
            {
                native[c.label] = SprayExperiment::NativeCongestion(c.device);
                std::vector<std::string> ccs = ablationCcs;
                if (std::find(ccs.begin(), ccs.end(), native[c.label]) == ccs.end())
                {
                    ccs.push_back(native[c.label]);
                }
                for (const auto& cc : ccs)
                {
                    SprayExperimentConfig a = c;
                    a.cc = cc;
                    a.out = (std::filesystem::path(base.out) / "ablation" / (c.label + "-" + cc))
                                .string();
                    try
                    {
                        SprayExperiment check(a);
                    }
                    catch (const PrestoInputError&)
                    {
                        continue; // this design cannot run it (host-tcp: no rate DCTCP)
                    }
                    ablationRuns.push_back(a);
                }
            }
            for (const auto& [label, cc] : native)
            {
                if (std::find(ablationCcs.begin(), ablationCcs.end(), cc) == ablationCcs.end())
                {
                    ablationCcs.push_back(cc);
                }
            }
        }

        std::string seedText;
        for (uint32_t s : seeds)
        {
            seedText += (seedText.empty() ? "" : ",") + std::to_string(s);
        }
        std::cout << "presto-compare: " << configs.size() << " devices, " << base.workload
                  << " at load " << base.load << ", lb " << base.lb << ", " << base.topology
                  << ", simTime " << base.simTime << " s, seed" << (pooled ? "s " : " ") << seedText
                  << ", cc " << base.cc << std::endl;
        std::vector<ComparisonRow> rows;
        std::vector<ComparisonRow> seedRows; // pooled: one per device and seed
        std::vector<IncastRow> incastRows;
        std::vector<nlohmann::json> runConfigs; // every run's "config", for the plots' caption
        const std::size_t total = configs.size() * seeds.size();
        std::size_t done = 0;
        for (const auto& device : configs)
        {
            std::vector<ComparisonRun> runs;
            for (uint32_t seed : seeds)
            {
                SprayExperimentConfig c = device;
                c.seed = seed;
                if (pooled)
                {
                    c.out = (std::filesystem::path(device.out) / ("seed" + std::to_string(seed)))
                                .string();
                }
                const auto start = std::chrono::steady_clock::now();
                SprayExperiment e(c);
                e.Run();
                runs.push_back({seed, e.GetRecords(), e.GetSummary(), e.GetReport()});
                runConfigs.push_back(e.GetReport().value("config", nlohmann::json::object()));
                if (e.GetReport().contains("incast"))
                {
                    // pooled: one incast row per seed, named by it
                    incastRows.push_back(
                        MakeIncastRow(pooled ? c.label + "@seed" + std::to_string(seed) : c.label,
                                      c.device,
                                      e.GetReport()));
                }
                const double wall =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                const nlohmann::json& report = e.GetReport();
                const std::string did =
                    report.contains("collective")
                        ? "JCT " + std::to_string(report["collective"].value("jct_ns", 0) / 1000) +
                              " us"
                        : std::to_string(e.GetSummary().counted) + " flows";
                std::cout << "  [" << ++done << "/" << total << "] " << std::left << std::setw(14)
                          << c.label << " " << std::right << did << ", " << std::fixed
                          << std::setprecision(1) << wall << " s -> " << c.out << "/"
                          << std::defaultfloat << std::endl;
            }
            rows.push_back(MakePooledComparisonRow(device.label, device.device, runs));
            for (const auto& run : runs)
            {
                seedRows.push_back(MakeComparisonRow(device.label,
                                                     device.device,
                                                     run.records,
                                                     run.summary,
                                                     run.report));
            }
        }

        const std::filesystem::path out(base.out);
        const bool rpcWorkload = base.workload == "rpc";
        const bool collectiveWorkload = base.workload == "allreduce" || base.workload == "alltoall";
        const std::string caption = RunCaption(runConfigs);
        if (collectiveWorkload)
        {
            WriteAtomically((out / "comparison.csv").string(), CollectiveCsv(rows));
            std::cout << "\n" << FormatCollectiveTable(rows);
            std::cout << "outputs: " << out.string() << "/comparison.csv and " << out.string()
                      << "/<device>/{collective.csv,summary.json}" << std::endl;
        }
        else if (rpcWorkload)
        {
            WriteAtomically((out / "comparison.csv").string(), RpcCsv(rows));
            std::cout << "\n" << FormatRpcTable(rows);
            RenderPng(&RpcLatencyScript, rows, (out / "rpc.png").string(), caption);
            RenderPng(&HostCpuScript, rows, (out / "host-cpu.png").string(), caption);
            std::cout << "outputs: " << out.string()
                      << "/{comparison.csv,rpc.png,host-cpu.png} and " << out.string()
                      << "/<device>/" << std::endl;
        }
        else
        {
            WriteAtomically((out / "comparison.csv").string(), ComparisonCsv(rows));
            if (pooled)
            {
                WriteAtomically((out / "comparison-by-seed.csv").string(), ComparisonCsv(seedRows));
            }
            std::cout << "\n" << FormatComparisonTable(rows);
            RenderPng(&SlowdownByBucketScript,
                      rows,
                      (out / "slowdown-by-bucket.png").string(),
                      caption);
            RenderPng(&P99SmallScript, rows, (out / "p99-small.png").string(), caption);
            RenderPng(&HostCpuScript, rows, (out / "host-cpu.png").string(), caption);
            if (!incastRows.empty())
            {
                WriteAtomically((out / "incast.csv").string(), IncastCsv(incastRows));
                std::cout << "\n" << FormatIncastTable(incastRows);
            }
            std::cout << "outputs: " << out.string() << "/{comparison.csv,"
                      << (pooled ? "comparison-by-seed.csv," : "")
                      << "slowdown-by-bucket.png,p99-small.png,host-cpu.png"
                      << (incastRows.empty() ? "" : ",incast.csv") << "} and " << out.string()
                      << "/<device>/" << (pooled ? "seed<S>/" : "") << std::endl;
        }

        if (!ablationRuns.empty())
        {
            // the main table's runs are ablation cells already (same seed, same config)
            // the metric: small-flow p99 slowdown, or the RPC latency p99
            auto small = [rpcWorkload, collectiveWorkload](const ComparisonRow& r) {
                if (collectiveWorkload)
                {
                    return r.collectiveJctUs;
                }
                if (rpcWorkload)
                {
                    return r.rpcP99Us;
                }
                const auto& s = r.slow[static_cast<std::size_t>(SizeClass::SMALL)];
                return s.count > 0 ? s.p99 : std::nan("");
            };
            const std::string metric = collectiveWorkload ? "collective JCT (us)"
                                       : rpcWorkload      ? "RPC latency p99 (us)"
                                                          : "small-flow p99 slowdown";
            AblationTable table;
            std::vector<std::string> labels;
            for (const auto& r : rows)
            {
                table[{r.label, r.cc}] = small(r);
            }
            std::cout << "\nablation: " << ablationRuns.size() << " runs (the table's "
                      << rows.size() << " reused)" << std::endl;
            for (const auto& a : ablationRuns)
            {
                if (std::find(labels.begin(), labels.end(), a.label) == labels.end())
                {
                    labels.push_back(a.label);
                }
                if (table.count({a.label, a.cc}))
                {
                    continue;
                }
                SprayExperimentConfig quiet = a;
                quiet.plot = false;
                SprayExperiment e(quiet);
                e.Run();
                const ComparisonRow row = MakeComparisonRow(a.label,
                                                            a.device,
                                                            e.GetRecords(),
                                                            e.GetSummary(),
                                                            e.GetReport());
                table[{a.label, a.cc}] = small(row);
                std::cout << "  " << std::left << std::setw(14) << a.label << std::setw(16) << a.cc
                          << std::right << metric << " " << std::fixed << std::setprecision(2)
                          << table[{a.label, a.cc}] << std::defaultfloat << std::endl;
            }
            const auto splits = SplitDifferences(table, labels, native);
            std::cout << "\n" << FormatAblation(metric, table, labels, ablationCcs, splits);
            WriteAtomically((out / "ablation.csv").string(), AblationCsv(splits));
            std::cout << "outputs: " << out.string() << "/ablation.csv and " << out.string()
                      << "/ablation/<device>-<cc>/" << std::endl;
        }
    }
    catch (const PrestoInputError& e)
    {
        std::cerr << "presto-compare: error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}

int
main(int argc, char* argv[])
{
    return RunPrestoMain("presto-compare", [argc, argv] { return Main(argc, argv); });
}
