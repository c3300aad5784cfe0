/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Cora's runtime under changing traffic (the paper's DPVS experiment, Figure 18, scaled
// down): a NAT whose table does not fit the NIC. Four phases replayed packet by packet
// through the executor with the runtime controller:
//   1. base load: the compile-time plan keeps the heaviest flows on the NIC;
//   2. the load rises above the NIC's capacity: the controller evicts flows to the host
//      (the lightest first, heavy flows stay on the NIC);
//   3. the load falls back: underload, the heaviest host flows are offloaded back until the
//      table is full;
//   4. the NIC table shrinks: the smallest flows are evicted first.
// It prints one line per phase and writes a per-interval timeline (timeline.csv) and the
// migrations (migrations.csv).

#include "ns3/command-line.h"
#include "ns3/cora-allocator.h"
#include "ns3/cora-controller.h"
#include "ns3/cora-executor.h"
#include "ns3/cora-program.h"
#include "ns3/cora-replay.h"
#include "ns3/cora-traffic.h"
#include "ns3/presto-input-error.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>

using namespace ns3;

int
main(int argc, char* argv[])
{
    uint32_t flows = 20000;
    double baseMpps = 8;
    double peakFactor = 2.3;
    double fitFraction = 0.7;
    double shrinkFraction = 0.7;
    double phaseMs = 20;
    uint32_t hostCores = 8;
    double zipf = 1.1;
    uint32_t maxMigrations = 1024;
    std::string out = "results/cora-dynamic";
    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "NAT flows", flows);
    cmd.AddValue("baseMpps", "Base packet rate, Mpps", baseMpps);
    cmd.AddValue("peakFactor", "Load multiplier of the high-load phase", peakFactor);
    cmd.AddValue("fitFraction",
                 "Fraction of the flows' NAT entries the NIC table holds",
                 fitFraction);
    cmd.AddValue("shrinkFraction",
                 "The table keeps this fraction of its size in phase 4",
                 shrinkFraction);
    cmd.AddValue("phaseMs", "Duration of every phase, ms", phaseMs);
    cmd.AddValue("hostCores", "Host cores for the host part", hostCores);
    cmd.AddValue("zipf", "Zipf exponent of per-flow volumes", zipf);
    cmd.AddValue("maxMigrations",
                 "Migrations the controller starts per 1 ms interval",
                 maxMigrations);
    cmd.AddValue("out", "Output directory", out);
    cmd.Parse(argc, argv);
    try
    {
        if (!(fitFraction > 0 && fitFraction <= 1) || !(shrinkFraction > 0 && shrinkFraction <= 1))
        {
            throw PrestoInputError("--fitFraction and --shrinkFraction must be in (0, 1]");
        }
        if (!(peakFactor > 0) || !(phaseMs > 0))
        {
            throw PrestoInputError("--peakFactor and --phaseMs must be positive");
        }
        CoraProgram program = CoraPrograms::Nat();
        CoraPerfModel model(CoraPerfProfile::Netronome());
        CoraTrafficSpec spec;
        spec.branchShare = {{program.GetBranches()[0].name, 1.0}};
        spec.flows = flows;
        spec.totalPps = baseMpps * 1e6;
        spec.zipf = zipf;
        spec.sources = 256; // internal hosts behind the NAT (one port allocator each)
        std::vector<CoraFlow> base = CoraMakeTraffic(program, spec);
        std::map<uint64_t, double> volume;
        for (const auto& f : base)
        {
            volume[f.id] = f.pps;
        }
        // NIC memory: the FLOW-keyed blocks of fitFraction of the flows (plus every
        // non-FLOW block whole)
        uint64_t perFlow = 0;
        uint64_t fixed = 0;
        for (const auto& b : program.GetBlocks())
        {
            (b.key == CoraFlowKey::FLOW ? perFlow : fixed) +=
                b.key == CoraFlowKey::FLOW ? b.bytesPerAggregate : b.memoryBytes;
        }
        CoraNicLimits limits;
        limits.memoryBytes = fixed + static_cast<uint64_t>(perFlow * flows * fitFraction);
        limits.Validate();
        CoraExecutorConfig ec;
        ec.hostCores = hostCores;
        ec.limits = limits;
        ec.strategy = CoraStrategy::CORA;
        CoraExecutor exec(program, model, ec);
        CoraAllocator allocator(program, model, limits);
        exec.SetPlan(allocator.Allocate(CoraStrategy::CORA, base));
        CoraController::Config cc;
        cc.maxMigrationsPerInterval = maxMigrations;
        CoraController controller(exec, cc);
        std::filesystem::create_directories(out);
        std::ofstream migrations(out + "/migrations.csv");
        migrations << "phase,start_ns,commit_ns,block,key,to,held_packets,flow_pps\n";
        int phase = 0;
        std::map<int, std::vector<double>> evictedPps;
        exec.SetMigrationCallback([&](const CoraMigrationEvent& e) {
            const auto& block = program.GetBlocks()[e.block];
            double pps =
                block.key == CoraFlowKey::FLOW && volume.count(e.key) ? volume[e.key] : 0.0;
            if (e.to == CoraSide::HOST)
            {
                evictedPps[phase].push_back(pps);
            }
            migrations << phase << "," << e.startNs << "," << e.commitNs << "," << e.block << ","
                       << e.key << "," << (e.to == CoraSide::NIC ? "nic" : "host") << ","
                       << e.heldPackets << "," << pps << "\n";
        });
        std::ofstream timeline(out + "/timeline.csv");
        timeline << "time_ms,phase,nic_utilisation,nic_pairs,host_pairs,nic_memory_bytes,"
                    "migrations_to_host,migrations_to_nic,drops\n";
        CoraReplay replay(exec, &controller, 1);
        int64_t last = 0;
        auto onInterval = [&](int64_t now) {
            const CoraExecutorStats& s = exec.GetStats();
            timeline << now / 1e6 << "," << phase << "," << exec.GetNicUtilisation(last, now) << ","
                     << s.nicPairs << "," << s.hostPairs << "," << s.nicMemoryBytes << ","
                     << s.migrationsToHost << "," << s.migrationsToNic << ","
                     << s.nicDrops + s.lockDrops + s.hostDrops << "\n";
            last = now;
        };
        const int64_t phaseNs = static_cast<int64_t>(phaseMs * 1e6);

        struct Phase
        {
            const char* name;
            double factor;
            double memory;
        };

        const Phase phases[4] = {{"base load", 1.0, 1.0},
                                 {"load rises", peakFactor, 1.0},
                                 {"load falls", 1.0, 1.0},
                                 {"table shrinks", 1.0, shrinkFraction}};
        std::cout << std::left << std::setw(15) << "phase" << std::right << std::setw(9) << "Mpps"
                  << std::setw(10) << "NIC util" << std::setw(10) << "evicted" << std::setw(10)
                  << "offloaded" << std::setw(9) << "drops" << std::setw(11) << "host cores"
                  << std::setw(10) << "NIC flows" << std::setw(18) << "evicted mean pps"
                  << std::setw(16) << "NIC mean pps\n";
        for (phase = 0; phase < 4; ++phase)
        {
            const Phase& p = phases[phase];
            if (p.memory < 1.0)
            {
                exec.SetNicMemoryBytes(static_cast<uint64_t>(limits.memoryBytes * p.memory));
            }
            uint64_t ev0 = controller.GetEvictions();
            uint64_t off0 = controller.GetOffloads();
            CoraReplayPhase r =
                replay.Run(CoraScaleTraffic(base, p.factor), phaseNs, 1024, onInterval);
            double nicMean = 0;
            auto nicPairs = exec.GetPairs(CoraSide::NIC);
            uint64_t nicFlows = 0;
            for (const auto& [b, key] : nicPairs)
            {
                if (program.GetBlocks()[b].key == CoraFlowKey::FLOW && volume.count(key))
                {
                    nicMean += volume[key];
                    ++nicFlows;
                }
            }
            nicMean = nicFlows ? nicMean / nicFlows : 0.0;
            double evMean = 0;
            for (double v : evictedPps[phase])
            {
                evMean += v;
            }
            evMean = evictedPps[phase].empty() ? 0.0 : evMean / evictedPps[phase].size();
            std::cout << std::left << std::setw(15) << p.name << std::right << std::fixed
                      << std::setprecision(1) << std::setw(9) << r.offeredPps / 1e6
                      << std::setprecision(2) << std::setw(10) << r.nicUtilisation << std::setw(10)
                      << controller.GetEvictions() - ev0 << std::setw(10)
                      << controller.GetOffloads() - off0 << std::setw(9) << r.drops << std::setw(11)
                      << r.hostCores << std::setw(10) << nicFlows << std::setprecision(1)
                      << std::setw(18) << evMean << std::setw(15) << nicMean << "\n";
        }
        std::cout << "wrote " << out << "/timeline.csv and " << out << "/migrations.csv\n";
    }
    catch (const PrestoInputError& e)
    {
        std::cerr << "cora-dynamic: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
