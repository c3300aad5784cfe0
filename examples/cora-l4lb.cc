/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The Cora paper's motivating case (its Figures 1 and 2): an HTTP server whose traffic a
// count-min sketch counts per sender, and an L4 load balancer (ConnTable -> {LoadCntr,
// MinLoad}), on a SmartNIC too small for all of their state. Two traffic mixes, L4LB-heavy and
// HTTP-heavy, change the best partition plan: this program computes the plans of Cora and of
// the two strawmen (state partition, flow partition) for both mixes, prints where each state
// block's traffic runs, the host instructions each plan leaves and the NIC load, then replays
// packets through the executor (with the runtime controller for cora and flow) to measure
// drops and host cores. With --overloadFactor > 1 a second, heavier load shows state
// partition dropping packets while Cora moves work to the host.

#include "ns3/cora-allocator.h"
#include "ns3/cora-controller.h"
#include "ns3/cora-executor.h"
#include "ns3/cora-perf-model.h"
#include "ns3/cora-program.h"
#include "ns3/cora-replay.h"
#include "ns3/cora-traffic.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/spray-experiment-config.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>

using namespace ns3;

namespace
{

/// Share of a block's packets that the plan runs on the NIC.
double
NicShare(const CoraProgram& program,
         const CoraPlan& plan,
         const std::vector<CoraFlow>& flows,
         uint32_t block)
{
    double on = 0;
    double all = 0;
    for (const auto& f : flows)
    {
        for (uint32_t b : program.GetBranchBlocks(f.branch))
        {
            if (b == block)
            {
                all += f.pps;
                on += plan.OnNic(b, CoraAggregateKey(program.GetBlocks()[b].key, f)) ? f.pps : 0;
            }
        }
    }
    return all > 0 ? on / all : 0.0;
}

/// Names of a block's elements, "A+B".
std::string
BlockName(const CoraProgram& program, uint32_t block)
{
    std::string name;
    for (uint32_t e : program.GetBlocks()[block].elements)
    {
        name += (name.empty() ? "" : "+") + program.GetElements()[e].name;
    }
    return name;
}

} // namespace

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    uint32_t l4lbFlows = 50000;
    uint32_t httpFlows = 20000;
    double totalMpps = 4;
    double overloadFactor = 5.0;
    double zipf = 0.8;
    uint64_t memory = 0;
    std::string profile = "netronome";
    double replayMs = 10;
    // the options presto-spray has too: its names and parsers, this program's defaults
    SprayExperimentConfig shared;
    shared.hostCores = 8;
    shared.out = "results/cora-l4lb";
    PrestoCommandLine cmd(__FILE__);
    cmd.AddValue("l4lbFlows", "L4LB connections (both mixes)", l4lbFlows);
    cmd.AddValue("httpFlows", "HTTP senders' flows (both mixes)", httpFlows);
    cmd.AddValue("totalMpps", "Offered packet rate, Mpps", totalMpps);
    cmd.AddValue("overloadFactor",
                 "Second load: totalMpps times this (1 = skip the overload phase)",
                 overloadFactor);
    cmd.AddValue("zipf", "Zipf exponent of per-flow volumes", zipf);
    cmd.AddValue("memory",
                 "NIC memory for the program's state, bytes (0: the sketch, the load "
                 "counters and a third of the L4LB connections, so the program does not fit)",
                 memory);
    cmd.AddValue("profile", "NIC profile: netronome or bluefield", profile);
    shared.AddToCommandLine(cmd, {{"hostCores", "Host cores for the host part"}});
    cmd.AddValue("replayMs", "Packet replay per plan, ms (0: plans only)", replayMs);
    shared.AddToCommandLine(cmd, {{"out", "Output directory (plans.csv)"}});
    ParseCommandLine(cmd, argc, argv);
    const uint32_t hostCores = shared.hostCores;
    const std::string& out = shared.out;
    try
    {
        CoraProgram program = CoraPrograms::L4lbHttp();
        CoraPerfModel model(CoraPerfProfile::ByName(profile, "--profile"));
        if (memory == 0)
        {
            // the seed's Figure 2: the whole program does not fit in the NIC
            const auto& blocks = program.GetBlocks();
            const uint32_t conn = program.GetBlockOf(program.GetElementIndex("ConnTable"));
            for (uint32_t b = 0; b < blocks.size(); ++b)
            {
                memory += b == conn ? blocks[b].bytesPerAggregate * (l4lbFlows / 3)
                                    : blocks[b].memoryBytes;
            }
        }
        CoraNicLimits limits;
        limits.memoryBytes = memory;
        limits.Validate();
        CoraAllocator allocator(program, model, limits);
        std::filesystem::create_directories(out);
        std::ofstream csv(out + "/plans.csv");
        csv << "mix,load_mpps,strategy,host_minstr_per_s,host_cores_model,nic_utilisation,"
               "nic_drop_mpps,feasible,nic_memory_bytes,replay_drop_fraction,replay_host_cores";
        for (uint32_t b = 0; b < program.GetBlocks().size(); ++b)
        {
            csv << ",nic_share_" << BlockName(program, b);
        }
        csv << "\n";
        std::vector<double> loads = {totalMpps};
        if (overloadFactor > 1)
        {
            loads.push_back(totalMpps * overloadFactor);
        }
        const std::vector<std::pair<std::string, std::map<std::string, double>>> mixes = {
            {"l4lb-heavy", {{"l4lb", 0.9}, {"http", 0.1}}},
            {"http-heavy", {{"l4lb", 0.1}, {"http", 0.9}}}};
        for (double mpps : loads)
        {
            for (const auto& [mixName, share] : mixes)
            {
                CoraTrafficSpec spec;
                spec.branchShare = share;
                spec.branchFlows = {{"l4lb", l4lbFlows}, {"http", httpFlows}};
                spec.flows = l4lbFlows + httpFlows;
                spec.totalPps = mpps * 1e6;
                spec.zipf = zipf;
                std::vector<CoraFlow> traffic = CoraMakeTraffic(program, spec);
                std::cout << "\n== " << mixName << " at " << mpps << " Mpps, " << spec.flows
                          << " flows, NIC memory " << memory << " B ==\n";
                std::cout << std::left << std::setw(7) << "plan" << std::right << std::setw(13)
                          << "host Minst/s" << std::setw(8) << "cores" << std::setw(9) << "NIC util"
                          << std::setw(11) << "drop Mpps" << std::setw(9) << "feasible"
                          << std::setw(10) << "replay %" << std::setw(8) << "cores";
                for (uint32_t b = 0; b < program.GetBlocks().size(); ++b)
                {
                    std::cout << "  " << BlockName(program, b);
                }
                std::cout << "\n";
                for (CoraStrategy s : {CoraStrategy::CORA,
                                       CoraStrategy::STATE_PARTITION,
                                       CoraStrategy::FLOW_PARTITION})
                {
                    CoraPlan plan = allocator.Allocate(s, traffic);
                    CoraPlanCost cost = allocator.Evaluate(plan, traffic);
                    CoraExecutorConfig ec;
                    ec.hostCores = hostCores;
                    ec.limits = limits;
                    ec.strategy = s;
                    const double modelCores = cost.hostInstructionsPerSecond *
                                              ec.hostCyclesPerInstruction / ec.hostClockHz;
                    double dropFraction = 0;
                    double replayCores = 0;
                    if (replayMs > 0)
                    {
                        CoraExecutor exec(program, model, ec);
                        exec.SetPlan(plan);
                        std::unique_ptr<CoraController> ctl;
                        if (s != CoraStrategy::STATE_PARTITION)
                        {
                            ctl = std::make_unique<CoraController>(exec, CoraController::Config{});
                        }
                        CoraReplay replay(exec, ctl.get());
                        CoraReplayPhase ph =
                            replay.Run(traffic, static_cast<int64_t>(replayMs * 1e6));
                        dropFraction = ph.packets ? double(ph.drops) / ph.packets : 0.0;
                        replayCores = ph.hostCores;
                    }
                    std::cout << std::left << std::setw(7) << ToString(s) << std::right
                              << std::fixed << std::setprecision(1) << std::setw(13)
                              << cost.hostInstructionsPerSecond / 1e6 << std::setw(8)
                              << std::setprecision(2) << modelCores << std::setw(9)
                              << cost.nicUtilisation << std::setw(11) << cost.nicDropPps / 1e6
                              << std::setw(9) << (cost.feasible ? "yes" : "no") << std::setw(10)
                              << std::setprecision(1) << 100 * dropFraction << std::setw(8)
                              << std::setprecision(2) << replayCores;
                    csv << mixName << "," << mpps << "," << ToString(s) << ","
                        << cost.hostInstructionsPerSecond / 1e6 << "," << modelCores << ","
                        << cost.nicUtilisation << "," << cost.nicDropPps / 1e6 << ","
                        << cost.feasible << "," << cost.nicMemoryBytes << "," << dropFraction << ","
                        << replayCores;
                    for (uint32_t b = 0; b < program.GetBlocks().size(); ++b)
                    {
                        double sh = NicShare(program, plan, traffic, b);
                        std::cout << "  " << std::setw(BlockName(program, b).size())
                                  << std::setprecision(2) << sh;
                        csv << "," << sh;
                    }
                    std::cout << "\n";
                    csv << "\n";
                }
            }
        }
        std::cout << "\nnic share = fraction of the block's packets processed on the NIC; "
                     "cores = host cores (model: instructions x CPI / clock; replay: measured)\n"
                  << "wrote " << out << "/plans.csv\n";
    }
    catch (const PrestoInputError& e)
    {
        std::cerr << "cora-l4lb: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

int
main(int argc, char* argv[])
{
    return RunPrestoMain("cora-l4lb", [argc, argv] { return Main(argc, argv); });
}
