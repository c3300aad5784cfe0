/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Reassembly fidelity sweep: the same sprayed workload with Presto at K = 0, 1, 2, 4 and full
// reassembly. Per K: slowdown p50/p99 per flow-size bucket, fidelity drops, retransmissions
// and the pipeline stages the configuration uses; one plot with a line pair per K.
//
//   presto-fidelity --fidelities=0,1,2,4,full --load=0.6 --out=results/presto-fidelity
//
// --intervals may list interval policies (e.g. ArrivalOrder,PerPath with sender-side
// spraying: --lb=label --ns3::OffloadNetDevice::PathLabels=4): one row per K and policy.
//
// Every presto-spray option is accepted (topology, workload, load, lb, seed, ...).

#include "ns3/fct-plot.h"
#include "ns3/input-file.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/spray-experiment.h"

#include <iomanip>
#include <iostream>
#include <sstream>

using namespace ns3;

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    SprayExperimentConfig base;
    base.device = "presto";
    base.out = "results/presto-fidelity";
    base.leaves = 4;
    base.spines = 4;
    base.hostsPerLeaf = 4;
    base.load = 0.6;
    std::string fidelities = "0,1,2,4,full";
    PrestoCommandLine cmd(__FILE__);
    base.AddToCommandLine(cmd);
    cmd.AddValue("fidelities", "Reassembly fidelities to compare, comma separated", fidelities);
    ParseCommandLine(cmd, argc, argv);

    try
    {
        // the options every run sets itself: given, they would be ignored
        for (const char* option : {"fidelity", "label"})
        {
            if (cmd.WasSet(option))
            {
                throw PrestoInputError("--" + std::string(option) + "=" +
                                       InputExcerpt(base.given[option]) +
                                       " is set per run by presto-fidelity from --fidelities: "
                                       "give --fidelities=...");
            }
        }
        auto split = [](const std::string& list) {
            std::vector<std::string> items;
            std::istringstream is(list);
            for (std::string item; std::getline(is, item, ',');)
            {
                items.push_back(item);
            }
            return items.empty() ? std::vector<std::string>{""} : items;
        };
        const std::vector<std::string> ks = split(fidelities);
        const std::vector<std::string> policies = split(base.intervals);
        // validate every configuration before running any
        std::vector<SprayExperimentConfig> configs;
        for (const auto& k : ks)
        {
            for (const auto& policy : policies)
            {
                SprayExperimentConfig c = base;
                c.fidelity = k;
                c.intervals = policy;
                c.label = "K=" + k + (policies.size() > 1 ? " " + policy : "");
                c.out = base.out + "/K" + k + (policies.size() > 1 ? "-" + policy : "");
                c.quiet = true;
                c.plot = false;
                SprayExperiment check(c);
                configs.push_back(c);
            }
        }
        std::vector<PlotRun> runs;
        std::vector<nlohmann::json> runConfigs; // for the plot's caption
        std::ostringstream table;
        table << std::left << std::setw(6) << "K" << std::setw(14) << "intervals" << std::right
              << std::setw(8) << "stages" << std::setw(11) << "fid.drops" << std::setw(10) << "ooo"
              << std::setw(10) << "retx" << std::setw(10) << "unfin.";
        bool header = false;
        for (const auto& c : configs)
        {
            SprayExperiment e(c);
            e.Run();
            const auto& rep = e.GetReport();
            const auto& nic = rep["nic"];
            if (!header)
            {
                for (const auto& b : e.GetSummary().buckets)
                {
                    std::string label = BucketLabel(b);
                    table << std::setw(12) << (label + " p50") << std::setw(12) << (label + " p99");
                }
                table << "\n";
                header = true;
            }
            const auto& cls = nic["pipeline"][0];
            const std::string policy = rep["config"]["intervals"].get<std::string>();
            table << std::left << std::setw(6) << c.fidelity << std::setw(14)
                  << (policy.empty() ? "-" : policy) << std::right << std::setw(8)
                  << (cls["stages_used"].is_null() ? std::string("-")
                                                   : std::to_string(cls["stages_used"].get<int>()))
                  << std::setw(11) << nic["fidelity_drops"].get<uint64_t>() << std::setw(10)
                  << nic["out_of_order_placed"].get<uint64_t>() << std::setw(10)
                  << nic["retx_segments"].get<uint64_t>() << std::setw(10)
                  << rep["unfinished"].get<uint64_t>();
            for (const auto& b : e.GetSummary().buckets)
            {
                table << std::fixed << std::setprecision(2) << std::setw(12) << b.slowdown.p50
                      << std::setw(12) << b.slowdown.p99;
            }
            table << "\n";
            runs.push_back(PlotRun{c.label, e.GetSummary(), e.GetRecords()});
            runConfigs.push_back(rep.value("config", nlohmann::json::object()));
        }
        std::cout << "Presto reassembly fidelity sweep (" << base.workload << ", load " << base.load
                  << ", lb " << base.lb << ", seed " << base.seed
                  << "): slowdown p50/p99 by flow size\n"
                  << table.str();
        PlotFct(runs, base.out + "/fidelity.png", RunCaption(runConfigs));
        std::cout << "plot: " << base.out << "/fidelity.png; per-K runs in " << base.out << "/K*/"
                  << std::endl;
    }
    catch (const PrestoInputError& e)
    {
        std::cerr << "presto-fidelity: error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}

int
main(int argc, char* argv[])
{
    return RunPrestoMain("presto-fidelity", [argc, argv] { return Main(argc, argv); });
}
