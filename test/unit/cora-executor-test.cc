/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-test-support.h"
#include "input-error-matchers.h"

#include "ns3/cora-allocator.h"
#include "ns3/cora-count-min.h"
#include "ns3/cora-executor.h"
#include "ns3/cora-perf-model.h"
#include "ns3/cora-program.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <map>
#include <random>
#include <set>

using namespace ns3;
using namespace ns3::test::cora;

namespace
{

/// A single global register protected by one lock (all traffic serialises on
/// it).
CoraProgram
OneLock()
{
    CoraProgram p("one-lock");
    CoraStateElement reg = Element("reg", CoraFlowKey::GLOBAL, 1, 8, 10, 1);
    reg.locks = 1;
    reg.lockAccessesPerPacket = 2;
    p.AddElement(reg);
    p.AddBranch({"pkt", 20, {"reg"}});
    p.Finalize();
    return p;
}

/// \return a config of strategy s whose queues never overflow
CoraExecutorConfig
AmpleQueues(CoraStrategy s)
{
    CoraExecutorConfig cfg;
    cfg.strategy = s;
    cfg.nicQueueCapacity = 1u << 20;
    cfg.hostQueueCapacity = 1u << 20;
    return cfg;
}

} // namespace

// Many flows at a high rate while pairs migrate back and forth every 3 us:
// nothing is lost, per-flow order holds, held packets wait for the commit,
// counters and memory move with state.
TEST(CoraExecutor, MigrationUnderTrafficKeepsOrderStateAndMemory)
{
    const CoraProgram prog = ConnCounter();
    const uint32_t connBlock = BlockOf(prog, "conn");
    const uint32_t cntBlock = BlockOf(prog, "cnt");
    CoraExecutor exec(prog,
                      CoraPerfModel(CoraPerfProfile::Netronome()),
                      AmpleQueues(CoraStrategy::CORA));
    std::vector<CoraMigrationEvent> events;
    exec.SetMigrationCallback([&](const CoraMigrationEvent& e) { events.push_back(e); });

    const uint32_t nFlows = 200;
    const int64_t end = 10000000; // 10 ms at 4 Mpps: 40,000 packets
    const auto arrivals = Periodic(Zipf(nFlows, 0.8, 4e6), 0, end);
    std::vector<std::vector<std::pair<int64_t, int64_t>>> perFlow(nFlows); // (arrival, depart)
    std::map<std::pair<uint32_t, uint64_t>, uint64_t> expected;
    std::mt19937_64 rng(7);
    uint64_t started = 0;
    uint64_t refused = 0;
    int64_t nextMigration = 3000;
    for (const auto& a : arrivals)
    {
        while (nextMigration <= a.t)
        {
            // Move a random known pair to the other side.
            auto nic = exec.GetPairs(CoraSide::NIC);
            auto host = exec.GetPairs(CoraSide::HOST);
            nic.insert(nic.end(), host.begin(), host.end());
            if (!nic.empty())
            {
                const auto k = nic[rng() % nic.size()];
                const CoraSide to = exec.GetSide(k.first, k.second) == CoraSide::NIC
                                        ? CoraSide::HOST
                                        : CoraSide::NIC;
                exec.Migrate(nextMigration, k.first, k.second, to) ? ++started : ++refused;
            }
            nextMigration += 3000;
        }
        const CoraFlow f = Flow(a.flow);
        const CoraVerdict v = exec.Process(a.t, CoraPacket{f, 1024});
        ASSERT_FALSE(v.dropped) << "flow " << a.flow << " at " << a.t << ": " << ToString(v.reason);
        ASSERT_GE(v.departNs, a.t);
        perFlow[a.flow].emplace_back(a.t, v.departNs);
        ++expected[{connBlock, f.id}];
        ++expected[{cntBlock, f.dstIp}];
    }
    exec.AdvanceTo(end + 100000000);
    const auto& st = exec.GetStats();

    // Nothing lost.
    EXPECT_EQ(st.packets, arrivals.size());
    EXPECT_EQ(st.nicPackets + st.hostPackets, arrivals.size());
    EXPECT_EQ(st.nicDrops + st.hostDrops + st.lockDrops, 0u);
    // Per-flow order: departures non-decreasing in sequence order.
    uint64_t inversions = 0;
    for (const auto& pkts : perFlow)
    {
        for (std::size_t k = 1; k < pkts.size(); ++k)
        {
            inversions += pkts[k].second < pkts[k - 1].second;
        }
    }
    EXPECT_EQ(inversions, 0u);
    // Migrations really happened, under traffic, in both directions, and all
    // committed.
    EXPECT_GT(started, 1000u);
    EXPECT_EQ(events.size(), started);
    EXPECT_EQ(st.migrationsToHost + st.migrationsToNic, started);
    EXPECT_GT(st.migrationsToHost, 100u);
    EXPECT_GT(st.migrationsToNic, 100u);
    EXPECT_GT(st.heldPackets, 100u);
    EXPECT_EQ(exec.GetNextCommitNs(), -1);
    // Held packets ran no earlier than the commit of the migration that held
    // them.
    uint64_t heldChecked = 0;
    uint64_t heldEarly = 0;
    int64_t maxMigrationNs = 0;
    for (const auto& e : events)
    {
        EXPECT_GT(e.commitNs, e.startNs);
        maxMigrationNs = std::max(maxMigrationNs, e.commitNs - e.startNs);
        for (uint32_t i = 0; i < nFlows; ++i)
        {
            const CoraFlow f = Flow(i);
            const bool touches = (e.block == connBlock && f.id == e.key) ||
                                 (e.block == cntBlock && f.dstIp == e.key);
            if (!touches)
            {
                continue;
            }
            for (const auto& [t, d] : perFlow[i])
            {
                if (t >= e.startNs && t < e.commitNs)
                {
                    ++heldChecked;
                    heldEarly += d < e.commitNs;
                }
            }
        }
    }
    EXPECT_GT(heldChecked, 100u);
    EXPECT_EQ(heldEarly, 0u);
    // State counters moved with the state; each pair on exactly one side; memory
    // adds up.
    const auto nic = exec.GetPairs(CoraSide::NIC);
    const auto host = exec.GetPairs(CoraSide::HOST);
    EXPECT_EQ(nic.size() + host.size(), expected.size());
    std::set<std::pair<uint32_t, uint64_t>> all(nic.begin(), nic.end());
    all.insert(host.begin(), host.end());
    EXPECT_EQ(all.size(), expected.size());
    for (const auto& [k, n] : expected)
    {
        EXPECT_EQ(exec.GetStateCount(k.first, k.second), n);
        EXPECT_FALSE(exec.IsMigrating(k.first, k.second));
    }
    uint64_t nicBytes = 0;
    for (const auto& k : nic)
    {
        nicBytes += exec.GetPairBytes(k.first);
    }
    EXPECT_EQ(st.nicMemoryBytes, nicBytes);
    EXPECT_EQ(st.nicPairs, nic.size());
    EXPECT_EQ(st.hostPairs, host.size());
    std::printf("migration under traffic: %zu packets of %u flows, %llu "
                "migrations (%llu to host, "
                "%llu to NIC, %llu refused), %llu held packets (%llu checked "
                "after commit), "
                "longest migration %lld ns, %zu pairs on NIC / %zu on host, NIC "
                "memory %llu B\n",
                arrivals.size(),
                nFlows,
                (unsigned long long)started,
                (unsigned long long)st.migrationsToHost,
                (unsigned long long)st.migrationsToNic,
                (unsigned long long)refused,
                (unsigned long long)st.heldPackets,
                (unsigned long long)heldChecked,
                (long long)maxMigrationNs,
                nic.size(),
                host.size(),
                (unsigned long long)st.nicMemoryBytes);
}

// The three steps on one pair, by hand: commit = drain + PCIe latency + entry
// copy.
TEST(CoraExecutor, MigrationStepsAndRefusals)
{
    const CoraProgram prog = ConnCounter();
    const uint32_t connBlock = BlockOf(prog, "conn");
    CoraExecutorConfig cfg = AmpleQueues(CoraStrategy::CORA);
    cfg.limits.memoryBytes = 40; // one connection entry (32 B) and one counter (8 B)
    CoraExecutor exec(prog, CoraPerfModel(CoraPerfProfile::Netronome()), cfg);
    const CoraFlow f = Flow(1);
    const CoraVerdict first = exec.Process(0, CoraPacket{f, 1024});
    EXPECT_FALSE(first.visitedHost);
    EXPECT_EQ(exec.GetSide(connBlock, f.id), CoraSide::NIC);
    EXPECT_EQ(exec.GetStats().nicMemoryBytes, 40u);
    // The NIC is full: a second flow's entry goes to the host.
    const CoraFlow g = Flow(17); // same destination counter (17 % 16 == 1)
    EXPECT_TRUE(exec.Process(10, CoraPacket{g, 1024}).visitedHost);
    EXPECT_EQ(exec.GetSide(connBlock, g.id), CoraSide::HOST);

    EXPECT_FALSE(exec.Migrate(20, connBlock, 999999, CoraSide::HOST)); // unknown pair
    EXPECT_FALSE(exec.Migrate(20, connBlock, f.id, CoraSide::NIC));    // already there
    EXPECT_FALSE(exec.Migrate(20, connBlock, g.id, CoraSide::NIC));    // no NIC memory
    ASSERT_TRUE(exec.Migrate(20, connBlock, f.id, CoraSide::HOST));
    EXPECT_FALSE(exec.Migrate(21, connBlock, f.id, CoraSide::NIC)); // migrating
    const int64_t commit = exec.GetNextCommitNs();
    // Drained after the first packet left (its departure), then 1 us PCIe + 32 B
    // copy.
    const double copyNs = 32 * 1e9 / cfg.limits.pcieBytesPerSecond;
    EXPECT_EQ(commit, static_cast<int64_t>(std::ceil(first.departNs + cfg.pcieLatencyNs + copyNs)));
    // Held: the packet runs on the host, after the commit; the NIC still owns the
    // state.
    const CoraVerdict held = exec.Process(30, CoraPacket{f, 1024});
    EXPECT_TRUE(held.held);
    EXPECT_TRUE(held.visitedHost);
    EXPECT_GE(held.departNs, commit);
    EXPECT_EQ(exec.GetSide(connBlock, f.id), CoraSide::NIC);
    std::vector<CoraMigrationEvent> ev;
    exec.SetMigrationCallback([&](const CoraMigrationEvent& e) { ev.push_back(e); });
    exec.AdvanceTo(commit);
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].heldPackets, 1u);
    EXPECT_EQ(ev[0].to, CoraSide::HOST);
    EXPECT_EQ(exec.GetSide(connBlock, f.id), CoraSide::HOST);
    EXPECT_EQ(exec.GetStateCount(connBlock, f.id), 2u);
    EXPECT_EQ(exec.GetStats().nicMemoryBytes,
              8u); // the entry was freed at commit
    // Now g's entry fits.
    EXPECT_TRUE(exec.Migrate(commit, connBlock, g.id, CoraSide::NIC));
    EXPECT_EQ(exec.GetStats().nicMemoryBytes, 40u); // reserved at PREPARE
}

// State partition puts every pair on the NIC; above the NIC's rate it drops (no
// backpressure).
TEST(CoraExecutor, StatePartitionDropsAboveNicRate)
{
    const CoraProgram prog = ConnCounter();
    CoraExecutorConfig cfg;
    cfg.strategy = CoraStrategy::STATE_PARTITION;
    cfg.nicRateScale = 0.1; // 1.10 Mpps with both blocks on the NIC
    CoraExecutor exec(prog, CoraPerfModel(CoraPerfProfile::Netronome()), cfg);
    exec.SetPlan(AllOnNic(prog));
    const int64_t end = 5000000;
    const auto arrivals = Periodic(Zipf(200, 0.8, 1.6e6), 0, end);
    for (const auto& a : arrivals)
    {
        const CoraVerdict v = exec.Process(a.t, CoraPacket{Flow(a.flow), 1024});
        EXPECT_FALSE(v.visitedHost);
        if (v.dropped)
        {
            EXPECT_EQ(v.reason, CoraDropReason::NIC_OVERLOAD);
        }
    }
    const auto& st = exec.GetStats();
    const double capacity =
        0.1 * CoraPerfModel(CoraPerfProfile::Netronome())
                  .PredictLockFreePps(prog.NicLoad(0, std::vector<bool>(2, true)));
    const double n = static_cast<double>(st.packets);
    const double dropFrac = static_cast<double>(st.nicDrops) / n;
    // Served: the NIC's rate over the run plus the packets still queued at the
    // end.
    const double expectedFrac = (n - capacity * end * 1e-9 - cfg.nicQueueCapacity) / n;
    EXPECT_GT(st.nicDrops, 0u);
    EXPECT_NEAR(dropFrac, expectedFrac, 0.02);
    EXPECT_EQ(st.hostPackets, 0u);
    EXPECT_NEAR(exec.GetNicUtilisation(1000000, end), 1.0, 0.01);
    std::printf("state partition at 1.6 Mpps on a %.2f Mpps NIC: %.1f%% dropped "
                "(expected %.1f%%)\n",
                capacity / 1e6,
                100 * dropFrac,
                100 * expectedFrac);
}

// One lock serialises everything: beyond its rate, packets wait on it and then
// drop.
TEST(CoraExecutor, HotLockDrops)
{
    const CoraProgram prog = OneLock();
    CoraExecutorConfig cfg;
    cfg.strategy = CoraStrategy::STATE_PARTITION;
    CoraExecutor exec(prog, CoraPerfModel(CoraPerfProfile::Netronome()), cfg);
    CoraPlan plan;
    plan.wholeBlockOnNic.assign(1, true);
    exec.SetPlan(plan);
    const CoraPerfModel model(CoraPerfProfile::Netronome());
    const double perLock = model.PredictPerLockPps(prog.NicLoad(0, {true}));
    const double offered = 2 * perLock;
    const int64_t end = 5000000;
    const auto arrivals = Periodic(std::vector<double>(50, offered / 50), 0, end);
    for (const auto& a : arrivals)
    {
        exec.Process(a.t, CoraPacket{Flow(a.flow), 64});
    }
    const auto& st = exec.GetStats();
    const double n = static_cast<double>(st.packets);
    const double frac = static_cast<double>(st.lockDrops) / n;
    EXPECT_EQ(st.nicDrops, 0u); // the NIC itself is far from busy
    // Served: the lock's rate over the run plus the packets still waiting for it.
    EXPECT_NEAR(frac, (n - perLock * end * 1e-9 - cfg.nicQueueCapacity) / n, 0.01);
    std::printf("one lock at %.3f Mpps, offered %.3f Mpps: %.1f%% "
                "lock-contention drops\n",
                perLock / 1e6,
                offered / 1e6,
                100 * frac);
}

// Host cycles follow the per-packet cost; cores used and NIC utilisation are
// plausible.
TEST(CoraExecutor, HostCyclesAndNicUtilisation)
{
    const CoraProgram prog = ConnCounter();
    CoraExecutorConfig cfg;
    cfg.strategy = CoraStrategy::STATE_PARTITION; // empty plan: every pair on the host
    CoraExecutor exec(prog, CoraPerfModel(CoraPerfProfile::Netronome()), cfg);
    const int64_t end = 10000000;
    const double pps = 3e6;
    const auto arrivals = Periodic(Zipf(100, 1.0, pps), 0, end);
    for (const auto& a : arrivals)
    {
        EXPECT_TRUE(exec.Process(a.t, CoraPacket{Flow(a.flow), 1024}).visitedHost);
    }
    const auto& st = exec.GetStats();
    EXPECT_EQ(st.hostPackets, arrivals.size());
    // 300 driver cycles + 250 + 20 instructions x 1 cycle each.
    EXPECT_DOUBLE_EQ(st.hostBusyCycles, 570.0 * static_cast<double>(arrivals.size()));
    const double cores = st.hostBusyCycles / (cfg.hostClockHz * end * 1e-9);
    EXPECT_NEAR(cores, pps * 570 / 3e9, 0.01);
    EXPECT_LE(cores, cfg.hostCores);
    // The NIC runs only the stateless part: utilisation = pps / stateless rate.
    const double statelessPps = CoraPerfModel(CoraPerfProfile::Netronome())
                                    .PredictLockFreePps(prog.NicLoad(0, {false, false}));
    const double util = exec.GetNicUtilisation(1000000, 9000000);
    EXPECT_NEAR(util, pps / statelessPps, 0.01);
    for (int64_t from = 0; from < end; from += 777777)
    {
        const double u = exec.GetNicUtilisation(from, from + 333333);
        EXPECT_GE(u, 0.0);
        EXPECT_LE(u, 1.0);
    }
    std::printf("all on host at 3 Mpps: %.3f host cores, NIC utilisation %.3f "
                "(model %.3f)\n",
                cores,
                util,
                pps / statelessPps);
}

TEST(CoraExecutor, BadInputThrows)
{
    const CoraProgram prog = ConnCounter();
    const CoraPerfModel model(CoraPerfProfile::Netronome());
    CoraExecutorConfig cfg;
    cfg.hostCores = 0;
    EXPECT_TRUE(
        test::Contains(test::ErrorOf([&] { CoraExecutor e(prog, model, cfg); }), {"hostCores"}));
    cfg = CoraExecutorConfig{};
    cfg.nicRateScale = -1;
    EXPECT_TRUE(test::Contains(test::ErrorOf([&] { cfg.Validate(); }), {"nicRateScale"}));
    cfg = CoraExecutorConfig{};
    cfg.hostClockHz = std::nan("");
    EXPECT_TRUE(test::Contains(test::ErrorOf([&] { cfg.Validate(); }), {"hostClockHz"}));
    CoraExecutor exec(prog, model, CoraExecutorConfig{});
    CoraPlan bad;
    bad.wholeBlockOnNic.assign(5, true);
    EXPECT_TRUE(test::Contains(test::ErrorOf([&] { exec.SetPlan(bad); }), {"wholeBlockOnNic"}));
    CoraFlow f = Flow(0);
    f.branch = 3;
    EXPECT_TRUE(test::Contains(test::ErrorOf([&] {
                                   exec.Process(0, CoraPacket{f, 64});
                               }),
                               {"branch 3"}));
    exec.Process(100, CoraPacket{Flow(0), 64});
    EXPECT_TRUE(test::Contains(test::ErrorOf([&] {
                                   exec.Process(50, CoraPacket{Flow(0), 64});
                               }),
                               {"backwards"}));
}

TEST(CoraCountMin, EstimatesNeverUnderAndCloseForHeavyKeys)
{
    CoraCountMin cm(1024, 4);
    std::map<uint64_t, uint64_t> truth;
    for (uint64_t k = 0; k < 2000; ++k)
    {
        const uint64_t n = k < 10 ? 10000 : 1 + k % 7;
        cm.Add(CoraPairHash(0, k), n);
        truth[k] = n;
    }
    uint64_t maxOver = 0;
    for (const auto& [k, n] : truth)
    {
        const uint64_t e = cm.Estimate(CoraPairHash(0, k));
        ASSERT_GE(e, n);
        maxOver = std::max(maxOver, e - n);
    }
    // Overestimates stay far below the heavy keys' counts.
    EXPECT_LT(maxOver, 1000u);
    cm.Decay(0.5);
    EXPECT_LE(cm.Estimate(CoraPairHash(0, 0)), 5000u + maxOver);
    cm.Reset();
    EXPECT_EQ(cm.Estimate(CoraPairHash(0, 0)), 0u);
    EXPECT_TRUE(test::Contains(test::ErrorOf([] { CoraCountMin bad(0, 4); }), {"width"}));
    EXPECT_TRUE(test::Contains(test::ErrorOf([&] { cm.Decay(2); }), {"decay"}));
    std::printf("count-min 1024x4, 2000 keys: largest overestimate %llu packets\n",
                (unsigned long long)maxOver);
}

// A packet that holds the NIC for a long time (here 1 s, through a tiny NicRateScale; in a
// program file, a huge stateless cost) used to add one busy-time entry per 10 us bucket:
// 100,000 per packet, until memory ran out. The record now stays a few entries per packet
// and the utilisation it reports is unchanged.
TEST(CoraExecutor, LongNicWorkKeepsTheBusyRecordSmall)
{
    const CoraProgram prog = ConnCounter();
    const CoraPerfModel model(CoraPerfProfile::Netronome());
    // empty state-partition plan: the NIC runs every packet's stateless part, 1 s each
    CoraExecutorConfig cfg = AmpleQueues(CoraStrategy::STATE_PARTITION);
    const double normalNs = 1e9 / model.PredictLockFreePps(prog.NicLoad(0, {false, false}));
    cfg.nicRateScale = normalNs / 1e9;
    CoraExecutor exec(prog, model, cfg);
    for (int64_t t = 0; t < 200; ++t)
    {
        exec.Process(t * 1000, CoraPacket{Flow(static_cast<uint32_t>(t % 7)), 1024});
    }
    EXPECT_LT(exec.GetBusyRecordEntries(), 1000U);
    // the NIC is busy from the first packet on, for as long as its queue lasts
    EXPECT_NEAR(exec.GetNicUtilisation(5000000, 95000000), 1.0, 1e-9);
    EXPECT_NEAR(exec.GetNicUtilisation(12345, 67890), 1.0, 1e-9);
}

// The busy-time record with runs gives what a record of every bucket gave: utilisation of
// windows that cut buckets and runs anywhere.
TEST(CoraExecutor, BusyRunsMatchPerBucketRecord)
{
    const CoraProgram prog = ConnCounter();
    const CoraPerfModel model(CoraPerfProfile::Netronome());
    CoraExecutorConfig cfg = AmpleQueues(CoraStrategy::STATE_PARTITION);
    const double normalNs = 1e9 / model.PredictLockFreePps(prog.NicLoad(0, {false, false}));
    cfg.nicRateScale = normalNs / 37000.0; // 37 us per packet: runs of 3 buckets and ends
    CoraExecutor exec(prog, model, cfg);
    std::vector<std::pair<double, double>> busy; // the reference: every busy interval
    double busyUntil = 0;
    for (int64_t k = 0; k < 300; ++k)
    {
        const int64_t t = k * 50000 + (k % 3) * 7000; // idle gaps between some packets
        const auto v = exec.Process(t, CoraPacket{Flow(static_cast<uint32_t>(k % 5)), 1024});
        if (!v.dropped)
        {
            const double start = std::max(static_cast<double>(t), busyUntil);
            busyUntil = start + 37000.0;
            busy.emplace_back(start, busyUntil);
        }
    }
    for (int64_t from = 0; from < 15000000; from += 123457)
    {
        const int64_t to = from + 271828;
        double ref = 0;
        for (const auto& [a, b] : busy)
        {
            ref += std::max(0.0, std::min<double>(to, b) - std::max<double>(from, a));
        }
        EXPECT_NEAR(exec.GetNicUtilisation(from, to), ref / (to - from), 0.02) << from;
    }
}
