/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Cora's runtime under changing traffic (the paper's DPVS experiment, Figure 18, scaled
// down): a NAT whose table does not fit the NIC. Four phases replayed packet by packet
// through the executor with the runtime controller:
//   1. base load: the compile-time plan keeps the heaviest flows on the NIC;
//   2. the load rises above the NIC's capacity: the controller evicts flows to the host in the
//      order of --evictionPolicy (default heaviest, the paper's rule: the fewest migrations
//      that shed the excess load);
//   3. the load falls back: underload, the heaviest host flows are offloaded back until the
//      table is full;
//   4. the NIC table shrinks: the smallest flows are evicted first (whatever the policy).
// It prints one line per phase and writes a per-interval timeline (timeline.csv) and the
// migrations (migrations.csv). With --compare (default) it then replays phases 1-2 on the
// same trace under each eviction policy (heaviest, lightest, random: the paper's Fig. 18(b)
// baseline) and prints the evictions and host cores of each.

#include "ns3/cora-allocator.h"
#include "ns3/cora-controller.h"
#include "ns3/cora-executor.h"
#include "ns3/cora-program.h"
#include "ns3/cora-replay.h"
#include "ns3/cora-traffic.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/spray-experiment-config.h"

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>

using namespace ns3;

namespace
{

/// Everything a scenario run shares: the program, its traffic and the NIC.
struct Setup
{
    const CoraProgram* program;        //!< the NAT
    const CoraPerfModel* model;        //!< Netronome model
    std::vector<CoraFlow> base;        //!< base traffic
    std::map<uint64_t, double> volume; //!< flow id -> base pps
    CoraNicLimits limits;              //!< NIC memory
    uint32_t hostCores;                //!< host cores
    uint32_t maxMigrations;            //!< per controller interval
    double peakFactor;                 //!< load of phase 2
    double shrinkFraction;             //!< table kept in phase 4
    int64_t phaseNs;                   //!< every phase
    uint64_t seed;                     //!< seed of the random eviction policy
};

/// What one phase did.
struct PhaseResult
{
    CoraReplayPhase replay;      //!< packets, drops, host cores, NIC utilisation
    uint64_t evicted{0};         //!< evictions the controller started
    uint64_t offloaded{0};       //!< offloads the controller started
    uint64_t memoryEvicted{0};   //!< of evicted: for NIC memory, not load
    uint32_t overloadedTicks{0}; //!< controller intervals it took as overload (its signal)
    uint64_t nicFlows{0};        //!< flows with their NAT entry on the NIC at the end
    double evictedMean{0};       //!< mean base pps of the flows evicted in the phase
    double nicMean{0};           //!< mean base pps of the flows on the NIC at the end
};

/// The phases: name, load factor, share of the table kept.
struct Phase
{
    const char* name; //!< printed
    double factor;    //!< load multiplier
    double memory;    //!< table fraction
};

/**
 * Replay the first `phases` phases with a fresh executor and controller.
 * \param s setup \param policy eviction policy \param phases how many (1..4)
 * \param migrations migrations.csv or null \param timeline timeline.csv or null
 * \return one result per phase
 */
std::vector<PhaseResult>
RunScenario(const Setup& s,
            CoraEvictionPolicy policy,
            int phases,
            std::ostream* migrations,
            std::ostream* timeline)
{
    const CoraProgram& program = *s.program;
    CoraExecutorConfig ec;
    ec.hostCores = s.hostCores;
    ec.limits = s.limits;
    ec.strategy = CoraStrategy::CORA;
    CoraExecutor exec(program, *s.model, ec);
    CoraAllocator allocator(program, *s.model, s.limits);
    exec.SetPlan(allocator.Allocate(CoraStrategy::CORA, s.base));
    CoraController::Config cc;
    cc.maxMigrationsPerInterval = s.maxMigrations;
    cc.eviction = policy;
    cc.seed = s.seed;
    CoraController controller(exec, cc);
    int phase = 0;
    std::map<int, std::vector<double>> evictedPps;
    exec.SetMigrationCallback([&](const CoraMigrationEvent& e) {
        const auto& block = program.GetBlocks()[e.block];
        auto it = s.volume.find(e.key);
        const double pps =
            block.key == CoraFlowKey::FLOW && it != s.volume.end() ? it->second : 0.0;
        if (e.to == CoraSide::HOST)
        {
            evictedPps[phase].push_back(pps);
        }
        if (migrations)
        {
            *migrations << phase << "," << e.startNs << "," << e.commitNs << "," << e.block << ","
                        << e.key << "," << (e.to == CoraSide::NIC ? "nic" : "host") << ","
                        << e.heldPackets << "," << pps << "\n";
        }
    });
    CoraReplay replay(exec, &controller); // stream kCoraReplayStream: the same trace
    int64_t last = 0;
    auto onInterval = [&](int64_t now) {
        if (timeline)
        {
            const CoraExecutorStats& st = exec.GetStats();
            *timeline << now / 1e6 << "," << phase << "," << exec.GetNicUtilisation(last, now)
                      << "," << st.nicPairs << "," << st.hostPairs << "," << st.nicMemoryBytes
                      << "," << st.migrationsToHost << "," << st.migrationsToNic << ","
                      << st.nicDrops + st.lockDrops + st.hostDrops << "\n";
        }
        last = now;
    };
    const Phase all[4] = {{"base load", 1.0, 1.0},
                          {"load rises", s.peakFactor, 1.0},
                          {"load falls", 1.0, 1.0},
                          {"table shrinks", 1.0, s.shrinkFraction}};
    std::vector<PhaseResult> out;
    for (phase = 0; phase < phases; ++phase)
    {
        const Phase& p = all[phase];
        if (p.memory < 1.0)
        {
            exec.SetNicMemoryBytes(static_cast<uint64_t>(s.limits.memoryBytes * p.memory));
        }
        PhaseResult r;
        const uint64_t ev0 = controller.GetEvictions();
        const uint64_t off0 = controller.GetOffloads();
        const std::size_t tick0 = controller.GetHistory().size();
        r.replay = replay.Run(CoraScaleTraffic(s.base, p.factor), s.phaseNs, 1024, onInterval);
        r.evicted = controller.GetEvictions() - ev0;
        r.offloaded = controller.GetOffloads() - off0;
        const auto& history = controller.GetHistory();
        for (std::size_t i = tick0; i < history.size(); ++i)
        {
            r.memoryEvicted += history[i].memoryEvicted;
            r.overloadedTicks += history[i].overloaded ? 1 : 0;
        }
        for (const auto& [b, key] : exec.GetPairs(CoraSide::NIC))
        {
            auto it = s.volume.find(key);
            if (program.GetBlocks()[b].key == CoraFlowKey::FLOW && it != s.volume.end())
            {
                r.nicMean += it->second;
                ++r.nicFlows;
            }
        }
        r.nicMean = r.nicFlows ? r.nicMean / r.nicFlows : 0.0;
        for (double v : evictedPps[phase])
        {
            r.evictedMean += v;
        }
        r.evictedMean = evictedPps[phase].empty() ? 0.0 : r.evictedMean / evictedPps[phase].size();
        out.push_back(r);
    }
    return out;
}

} // namespace

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    uint32_t flows = 20000;
    double baseMpps = 8;
    double peakFactor = 2.6;
    double fitFraction = 0.7;
    double shrinkFraction = 0.7;
    double phaseMs = 20;
    double zipf = 1.1;
    uint32_t maxMigrations = 1024;
    std::string policyName = "heaviest";
    bool compare = true;
    uint64_t seed = 1;
    // the options presto-spray has too: its names and parsers, this program's defaults
    // (--seed is not one of them: here a 64-bit run number that also seeds the eviction
    // policy, the experiment's is 32-bit)
    SprayExperimentConfig shared;
    shared.hostCores = 8;
    shared.out = "results/cora-dynamic";
    PrestoCommandLine cmd(__FILE__);
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
    shared.AddToCommandLine(cmd, {{"hostCores", "Host cores for the host part"}});
    cmd.AddValue("zipf", "Zipf exponent of per-flow volumes", zipf);
    cmd.AddValue("maxMigrations",
                 "Migrations the controller starts per 1 ms interval",
                 maxMigrations);
    cmd.AddValue("evictionPolicy",
                 "Order of evictions under overload: heaviest, lightest or random",
                 policyName);
    cmd.AddValue("compare",
                 "Also replay the load rise under each eviction policy on the same trace",
                 compare);
    cmd.AddValue("seed",
                 "ns-3 run number of the flows' addresses and arrivals (fixed streams), and "
                 "seed of the random eviction policy",
                 seed);
    shared.AddToCommandLine(cmd, {{"out", "Output directory"}});
    ParseCommandLine(cmd, argc, argv);
    const uint32_t hostCores = shared.hostCores;
    const std::string& out = shared.out;
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
        const CoraEvictionPolicy policy =
            CoraEvictionPolicyFromString(policyName, "--evictionPolicy");
        RngSeedManager::SetRun(seed);
        CoraProgram program = CoraPrograms::Nat();
        CoraPerfModel model(CoraPerfProfile::Netronome());
        CoraTrafficSpec spec;
        spec.branchShare = {{program.GetBranches()[0].name, 1.0}};
        spec.flows = flows;
        spec.totalPps = baseMpps * 1e6;
        spec.zipf = zipf;
        spec.sources = 256; // internal hosts behind the NAT (one port allocator each)
        Setup setup;
        setup.program = &program;
        setup.model = &model;
        setup.base = CoraMakeTraffic(program, spec);
        for (const auto& f : setup.base)
        {
            setup.volume[f.id] = f.pps;
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
        setup.limits.memoryBytes = fixed + static_cast<uint64_t>(perFlow * flows * fitFraction);
        setup.limits.Validate();
        setup.hostCores = hostCores;
        setup.maxMigrations = maxMigrations;
        setup.peakFactor = peakFactor;
        setup.shrinkFraction = shrinkFraction;
        setup.phaseNs = static_cast<int64_t>(phaseMs * 1e6);
        setup.seed = seed;

        std::filesystem::create_directories(out);
        std::ofstream migrations(out + "/migrations.csv");
        migrations << "phase,start_ns,commit_ns,block,key,to,held_packets,flow_pps\n";
        std::ofstream timeline(out + "/timeline.csv");
        timeline << "time_ms,phase,nic_utilisation,nic_pairs,host_pairs,nic_memory_bytes,"
                    "migrations_to_host,migrations_to_nic,drops\n";
        const auto results = RunScenario(setup, policy, 4, &migrations, &timeline);
        const char* names[4] = {"base load", "load rises", "load falls", "table shrinks"};
        std::cout << "eviction policy under overload: " << ToString(policy) << "\n";
        std::cout << std::left << std::setw(15) << "phase" << std::right << std::setw(9) << "Mpps"
                  << std::setw(10) << "NIC util" << std::setw(10) << "evicted" << std::setw(10)
                  << "offloaded" << std::setw(9) << "drops" << std::setw(11) << "host cores"
                  << std::setw(10) << "NIC flows" << std::setw(18) << "evicted mean pps"
                  << std::setw(16) << "NIC mean pps\n";
        for (std::size_t i = 0; i < results.size(); ++i)
        {
            const PhaseResult& r = results[i];
            std::cout << std::left << std::setw(15) << names[i] << std::right << std::fixed
                      << std::setprecision(1) << std::setw(9) << r.replay.offeredPps / 1e6
                      << std::setprecision(2) << std::setw(10) << r.replay.nicUtilisation
                      << std::setw(10) << r.evicted << std::setw(10) << r.offloaded << std::setw(9)
                      << r.replay.drops << std::setw(11) << r.replay.hostCores << std::setw(10)
                      << r.nicFlows << std::setprecision(1) << std::setw(18) << r.evictedMean
                      << std::setw(15) << r.nicMean << "\n";
        }
        if (compare)
        {
            // Phases 1-2 again on the same trace (same arrivals) under each policy.
            std::cout << "\nload rises, by eviction policy (same trace; the paper's Fig. 18(b): "
                         "random evicted 3.6x the flows of Cora's heaviest-first, +0.5 host "
                         "cores)\n";
            std::cout << std::left << std::setw(10) << "policy" << std::right << std::setw(17)
                      << "load evictions" << std::setw(12) << "x heaviest" << std::setw(18)
                      << "memory evictions" << std::setw(14) << "ms overloaded" << std::setw(11)
                      << "host cores" << std::setw(9) << "drops" << std::setw(10) << "NIC util"
                      << std::setw(18) << "evicted mean pps\n";
            double heaviest = 0;
            for (auto p : {CoraEvictionPolicy::HEAVIEST,
                           CoraEvictionPolicy::LIGHTEST,
                           CoraEvictionPolicy::RANDOM})
            {
                const PhaseResult r =
                    p == policy ? results[1] : RunScenario(setup, p, 2, nullptr, nullptr)[1];
                const uint64_t forLoad = r.evicted - r.memoryEvicted;
                if (p == CoraEvictionPolicy::HEAVIEST)
                {
                    heaviest = static_cast<double>(forLoad);
                }
                std::cout << std::left << std::setw(10) << ToString(p) << std::right
                          << std::setw(17) << forLoad << std::setprecision(2) << std::setw(12)
                          << (heaviest > 0 ? forLoad / heaviest : 0.0) << std::setw(18)
                          << r.memoryEvicted << std::setw(14) << r.overloadedTicks << std::setw(11)
                          << r.replay.hostCores << std::setw(9) << r.replay.drops << std::setw(10)
                          << r.replay.nicUtilisation << std::setprecision(1) << std::setw(17)
                          << r.evictedMean << "\n";
            }
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

int
main(int argc, char* argv[])
{
    return RunPrestoMain("cora-dynamic", [argc, argv] { return Main(argc, argv); });
}
