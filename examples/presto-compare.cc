/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The headline comparison: the same sprayed workload on every host with each device in turn
// (host TCP, Presto at several reassembly fidelities, FlexTOE, Cora), one table and three plots.
//
//   presto-compare --devices=host-tcp,presto:0,presto:1,presto:2,presto:full,flextoe,cora \
//                  --out=results/compare
//
// Every presto-spray option applies to every run (--device and --fidelity are set per run
// from --devices). Each run writes its usual fct.csv, summary.json, flows.txt, fct.png into
// OUT/<label>/; then OUT/comparison.csv (one row per device), OUT/slowdown-by-bucket.png,
// OUT/p99-small.png and OUT/host-cpu.png. Bad input: a message and exit status 1 before
// anything runs.

#include "ns3/command-line.h"
#include "ns3/comparison-report.h"
#include "ns3/gnuplot-png.h"
#include "ns3/presto-input-error.h"
#include "ns3/spray-experiment.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
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

/// Render a script made by one of the comparison's script builders into \p pngPath.
void
RenderPng(std::string (*script)(const std::vector<ComparisonRow>&, const std::string&),
          const std::vector<ComparisonRow>& rows,
          const std::string& pngPath)
{
    RenderGnuplotPng(script(rows, kGnuplotPngPlaceholder), pngPath, "plot");
}

} // namespace

int
main(int argc, char* argv[])
{
    SprayExperimentConfig base;
    base.out = "results/compare";
    // 100 ms of arrivals: about 350 flows per device, 200 of them small, enough for the
    // small-flow p99 to separate the device groups consistently across seeds (20 ms, 70
    // flows, does not: see test/compare-seeds.sh); about 1.5 minutes for the seven runs.
    base.simTime = 0.1;
    std::string devices = "host-tcp,presto:0,presto:1,presto:2,presto:full,flextoe,cora";
    CommandLine cmd(__FILE__);
    base.AddToCommandLine(cmd);
    cmd.AddValue("devices",
                 "Devices to compare, comma separated: host-tcp, presto:K (K = 0..16 or full), "
                 "flextoe, cora[:strategy]",
                 devices);
    cmd.Parse(argc, argv);

    try
    {
        // validate every run before running any: a bad option stops it with nothing written
        std::vector<SprayExperimentConfig> configs;
        for (const auto& d : ParseComparisonDevices(devices, SprayExperiment::Devices()))
        {
            SprayExperimentConfig c = base;
            c.device = d.device;
            if (!d.fidelity.empty())
            {
                c.fidelity = d.fidelity;
            }
            if (!d.strategy.empty())
            {
                c.coraStrategy = d.strategy;
            }
            c.label = d.label;
            c.out = (std::filesystem::path(base.out) / d.label).string();
            c.quiet = true;
            SprayExperiment check(c);
            configs.push_back(c);
        }

        std::cout << "presto-compare: " << configs.size() << " devices, " << base.workload
                  << " at load " << base.load << ", lb " << base.lb << ", " << base.topology
                  << ", simTime " << base.simTime << " s, seed " << base.seed << std::endl;
        std::vector<ComparisonRow> rows;
        for (std::size_t i = 0; i < configs.size(); ++i)
        {
            const auto& c = configs[i];
            const auto start = std::chrono::steady_clock::now();
            SprayExperiment e(c);
            e.Run();
            rows.push_back(MakeComparisonRow(c.label,
                                             c.device,
                                             e.GetRecords(),
                                             e.GetSummary(),
                                             e.GetReport()));
            const double wall =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::cout << "  [" << (i + 1) << "/" << configs.size() << "] " << std::left
                      << std::setw(14) << c.label << std::right << e.GetSummary().counted
                      << " flows, " << std::fixed << std::setprecision(1) << wall << " s -> "
                      << c.out << "/" << std::defaultfloat << std::endl;
        }

        const std::filesystem::path out(base.out);
        WriteAtomically((out / "comparison.csv").string(), ComparisonCsv(rows));
        std::cout << "\n" << FormatComparisonTable(rows);
        RenderPng(&SlowdownByBucketScript, rows, (out / "slowdown-by-bucket.png").string());
        RenderPng(&P99SmallScript, rows, (out / "p99-small.png").string());
        RenderPng(&HostCpuScript, rows, (out / "host-cpu.png").string());
        std::cout << "outputs: " << out.string()
                  << "/{comparison.csv,slowdown-by-bucket.png,p99-small.png,host-cpu.png} and "
                  << out.string() << "/<device>/" << std::endl;
    }
    catch (const PrestoInputError& e)
    {
        std::cerr << "presto-compare: error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}
