/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/comparison-report.h"
#include "ns3/experiment-random.h"
#include "ns3/presto-input-error.h"

#include <cmath>
#include <gtest/gtest.h>
#include <sstream>

using namespace ns3;

namespace
{

const std::vector<std::string> kValid = {"host-tcp", "presto", "flextoe", "cora"};

/// A finished flow of \p size bytes with slowdown \p slowdown (ideal 1000 ns).
FctRecord
Flow(uint32_t id, uint64_t size, double slowdown, int64_t startNs = 0)
{
    FctRecord r;
    r.flow.id = id;
    r.flow.sizeBytes = size;
    r.flow.startNs = startNs;
    r.idealNs = 1000;
    r.finishNs = startNs + static_cast<int64_t>(slowdown * 1000);
    return r;
}

/// The fields of one CSV line.
std::vector<std::string>
Fields(const std::string& line)
{
    std::vector<std::string> f;
    std::istringstream is(line);
    std::string x;
    while (std::getline(is, x, ','))
    {
        f.push_back(x);
    }
    if (!line.empty() && line.back() == ',')
    {
        f.emplace_back();
    }
    return f;
}

/// The CSV's lines.
std::vector<std::string>
Lines(const std::string& text)
{
    std::vector<std::string> l;
    std::istringstream is(text);
    for (std::string x; std::getline(is, x);)
    {
        l.push_back(x);
    }
    return l;
}

} // namespace

TEST(ComparisonReport, ClassEdgesAreInclusiveAbove)
{
    EXPECT_EQ(ClassifyFlowSize(1), SizeClass::SMALL);
    EXPECT_EQ(ClassifyFlowSize(100000), SizeClass::SMALL);
    EXPECT_EQ(ClassifyFlowSize(100001), SizeClass::MEDIUM);
    EXPECT_EQ(ClassifyFlowSize(10000000), SizeClass::MEDIUM);
    EXPECT_EQ(ClassifyFlowSize(10000001), SizeClass::LARGE);
    EXPECT_EQ(SizeClassName(SizeClass::LARGE), "large");
}

TEST(ComparisonReport, ParsesDeviceList)
{
    auto d =
        ParseComparisonDevices("host-tcp,presto:0,presto:full,flextoe,cora,cora:state", kValid);
    ASSERT_EQ(d.size(), 6u);
    EXPECT_EQ(d[0].label, "host-tcp");
    EXPECT_EQ(d[1].device, "presto");
    EXPECT_EQ(d[1].fidelity, "0");
    EXPECT_EQ(d[1].label, "presto-K0");
    EXPECT_EQ(d[2].label, "presto-Kfull");
    EXPECT_EQ(d[4].label, "cora");
    EXPECT_EQ(d[4].strategy, "");
    EXPECT_EQ(d[5].strategy, "state");
    EXPECT_EQ(d[5].label, "cora-state");
}

TEST(ComparisonReport, RejectsBadDeviceLists)
{
    try
    {
        ParseComparisonDevices("host-tcp,foo", kValid);
        FAIL() << "unknown device accepted";
    }
    catch (const PrestoInputError& e)
    {
        const std::string m = e.what();
        EXPECT_NE(m.find("--devices"), std::string::npos) << m;
        EXPECT_NE(m.find("'foo'"), std::string::npos) << m;
        EXPECT_NE(m.find("host-tcp, presto, flextoe, cora"), std::string::npos) << m;
    }
    for (const char* bad : {"",
                            ",",
                            "host-tcp,",
                            "host-tcp,,flextoe",
                            "presto",
                            "presto:",
                            "flextoe:2",
                            "presto:1,presto:1",
                            "host-tcp,host-tcp"})
    {
        EXPECT_THROW(ParseComparisonDevices(bad, kValid), PrestoInputError) << bad;
    }
}

TEST(ComparisonReport, ClassPercentilesComeFromTheRecords)
{
    // small: slowdowns 1..100 (p99 by numpy's linear rule = 99.01); medium: 2 and 4;
    // no large flows; one unfinished small flow; one flow before the warm-up (excluded)
    std::vector<FctRecord> records;
    for (uint32_t i = 0; i < 100; ++i)
    {
        records.push_back(Flow(i, 1000 + i, 1.0 + i, 5000));
    }
    records.push_back(Flow(100, 200000, 2.0, 5000));
    records.push_back(Flow(101, 10000000, 4.0, 5000));
    FctRecord unfinished = Flow(102, 50, 1.0, 5000);
    unfinished.finishNs = -1;
    records.push_back(unfinished);
    records.push_back(Flow(103, 50, 1000.0, 0)); // warm-up: would dominate small p99
    FctSummary summary = SummarizeFct(records, {100000}, 1000);

    ComparisonRow row = MakeComparisonRow("host-tcp", "host-tcp", records, summary, {});
    EXPECT_EQ(row.flows, 103u);
    EXPECT_EQ(row.unfinished, 1u);
    EXPECT_EQ(row.slow[0].count, 100u);
    EXPECT_DOUBLE_EQ(row.slow[0].p50, 50.5);
    EXPECT_NEAR(row.slow[0].p99, 99.01, 1e-9);
    EXPECT_EQ(row.slow[1].count, 2u);
    EXPECT_DOUBLE_EQ(row.slow[1].p50, 3.0);
    EXPECT_EQ(row.slow[2].count, 0u);
    EXPECT_EQ(row.buckets.size(), 2u);
}

TEST(ComparisonReport, CountersFromTheReport)
{
    std::vector<FctRecord> records = {Flow(0, 1000, 2.0)};
    records[0].retxBytes = 3000;
    FctSummary summary = SummarizeFct(records, {}, 0);

    nlohmann::json host = {{"tcp", {{"retx_segments", 7}, {"timeouts", 2}}},
                           {"fabric", {{"switch_ecn_marks", 40}, {"switch_drops", 3}}},
                           {"host_cpu", {{"cores_used", 1.5}, {"cycles_per_byte", 2.25}}}};
    ComparisonRow h = MakeComparisonRow("host-tcp", "host-tcp", records, summary, host);
    EXPECT_EQ(h.fidelityDrops, 0);
    EXPECT_EQ(h.retxBytes, 3000);
    EXPECT_EQ(h.retxSegments, 7);
    EXPECT_EQ(h.hostCores, 1.5);
    EXPECT_EQ(h.cyclesPerByte, 2.25);
    EXPECT_EQ(h.timeouts, 2); // ns-3's TCP: the "tcp" section's
    EXPECT_EQ(h.switchEcnMarks, 40);
    EXPECT_EQ(h.switchDrops, 3);
    EXPECT_TRUE(std::isnan(h.stagesUsed));
    EXPECT_TRUE(std::isnan(h.nicUtilisation));

    nlohmann::json presto = host;
    presto["nic"] = {{"fidelity_drops", 12},
                     {"retx_bytes", 14480},
                     {"retx_segments", 10},
                     {"out_of_order_placed", 99},
                     {"pipeline",
                      {{{"stages_used", 5}, {"register_bytes", 100}},
                       {{"stages_used", 9}, {"register_bytes", 28}},
                       {{"stages_used", nullptr}, {"register_bytes", 0}}}}};
    ComparisonRow p = MakeComparisonRow("presto-K1", "presto", records, summary, presto);
    EXPECT_EQ(p.fidelityDrops, 12);
    EXPECT_EQ(p.retxBytes, 14480); // the NIC's counter, not the records'
    EXPECT_EQ(p.retxSegments, 10);
    EXPECT_EQ(p.stagesUsed, 9);
    EXPECT_EQ(p.registerBytes, 128);
    EXPECT_EQ(p.outOfOrderPlaced, 99);
    EXPECT_TRUE(std::isnan(p.timeouts)); // an offload NIC's come from "nic", which has none

    nlohmann::json flextoe = host;
    flextoe["nic"] = {{"fidelity_drops", 0},
                      {"queue_drops", 3},
                      {"flextoe_stages",
                       {{"protocol", {{"max_utilisation", 0.25}, {"max_queue", 4}}},
                        {"dma", {{"max_utilisation", 0.75}, {"max_queue", 2}}}}}};
    ComparisonRow f = MakeComparisonRow("flextoe", "flextoe", records, summary, flextoe);
    EXPECT_EQ(f.maxStageUtil, 0.75);
    EXPECT_EQ(f.maxStageQueue, 4);
    EXPECT_EQ(f.nicDrops, 3);

    nlohmann::json cora = host;
    cora["nic"] = {{"nic_utilisation", 0.4}, {"migrations", 6}, {"nic_drops", 2}};
    ComparisonRow c = MakeComparisonRow("cora", "cora", records, summary, cora);
    EXPECT_EQ(c.nicUtilisation, 0.4);
    EXPECT_EQ(c.migrations, 6);
    EXPECT_EQ(c.nicDrops, 2);
}

TEST(ComparisonReport, PrestoCostsPerProgram)
{
    std::vector<FctRecord> records = {Flow(0, 1000, 2.0)};
    FctSummary summary = SummarizeFct(records, {}, 0);
    nlohmann::json rep;
    rep["nic"] = {{"pipeline",
                   {{{"fidelity", 1}, {"stages_used", 5}, {"register_bytes", 1000}},
                    {{"fidelity", 2}, {"stages_used", 7}, {"register_bytes", 2000}}}},
                  {"tx_program", {{"stages_used", 10}, {"register_bytes", 50000}}},
                  {"cc_program", {{"stages_used", 6}, {"register_bytes", 700}}},
                  {"pipeline_pass_rate_per_s", 1.25e9},
                  {"timer_scan_rate_per_s", 1.25e8},
                  {"pipeline_total",
                   {{"stages_used", 10},
                    {"stage_budget", 12},
                    {"register_bytes_per_nic", 53700},
                    {"utilisation_max", 0.5}}}};
    ComparisonRow k = MakeComparisonRow("presto-K1", "presto", records, summary, rep);
    EXPECT_EQ(k.programStages[0], 7); // the deepest receive program
    EXPECT_EQ(k.programStages[1], 10);
    EXPECT_EQ(k.programStages[2], 6);
    EXPECT_EQ(k.programRegisters[0], 3000); // every class's
    EXPECT_EQ(k.programRegisters[1], 50000);
    EXPECT_EQ(k.stageBudget, 12);
    EXPECT_DOUBLE_EQ(k.timerScanShare, 0.1);
    EXPECT_EQ(k.rmtRealisable, 1);
    const std::string cell = NicCell(k);
    EXPECT_NE(cell.find("stages rx 7 tx 10 cc 6 of 12"), std::string::npos) << cell;
    EXPECT_NE(cell.find("pipe util 0.50 (scan 10%)"), std::string::npos) << cell;
    EXPECT_EQ(cell.find("NOT RMT"), std::string::npos) << cell;

    // full reassembly has no receive program: the row is a reference, said so
    rep["nic"]["pipeline"] = {{{"fidelity", "full"}, {"stages_used", nullptr}}};
    ComparisonRow full = MakeComparisonRow("presto-Kfull", "presto", records, summary, rep);
    EXPECT_EQ(full.rmtRealisable, 0);
    EXPECT_TRUE(std::isnan(full.programStages[0]));
    EXPECT_EQ(NicCell(full).rfind("NOT RMT-realisable", 0), 0u) << NicCell(full);
    EXPECT_NE(NicCell(full).find("stages rx - tx 10"), std::string::npos) << NicCell(full);
}

TEST(ComparisonReport, SeedsPoolTheirFlows)
{
    // seed 1: small slowdowns 1..10, seed 2: 11..20; counters 10 and 30
    auto run = [](uint32_t seed, double base, double retx) {
        ComparisonRun r;
        r.seed = seed;
        for (uint32_t i = 0; i < 10; ++i)
        {
            r.records.push_back(Flow(i, 1000, base + i));
        }
        r.summary = SummarizeFct(r.records, {100000}, 0);
        r.report = {{"tcp", {{"retx_segments", retx}}},
                    {"host_cpu", {{"cores_used", retx / 10}}},
                    {"config", {{"seed", seed}}}};
        return r;
    };
    const std::vector<ComparisonRun> runs = {run(1, 1, 10), run(2, 11, 30)};
    const ComparisonRow p = MakePooledComparisonRow("host-tcp", "host-tcp", runs);
    EXPECT_EQ(p.slow[0].count, 20u); // every seed's flows
    EXPECT_EQ(p.flows, 20u);
    EXPECT_DOUBLE_EQ(p.slow[0].p50, 10.5);
    EXPECT_EQ(p.retxSegments, 20); // the mean
    EXPECT_DOUBLE_EQ(p.hostCores, 2);
    EXPECT_EQ(p.seeds, (std::vector<uint32_t>{1, 2}));
    ASSERT_EQ(p.seedSmallP99.size(), 2u);
    EXPECT_DOUBLE_EQ(
        p.seedSmallP99[0],
        MakeComparisonRow("x", "host-tcp", runs[0].records, runs[0].summary, {}).slow[0].p99);
    EXPECT_GT(p.seedSmallP99[1], p.seedSmallP99[0]);
    // the pooled interval spans both seeds' flows
    EXPECT_LT(p.smallP99Ci[0], p.smallP99Ci[1]);
    EXPECT_LE(p.smallP99Ci[1], 20.0);
    // the buckets are recomputed from the pooled flows
    ASSERT_FALSE(p.buckets.empty());
    EXPECT_EQ(p.buckets[0].slowdown.count, 20u);

    const std::string t = FormatComparisonTable({p});
    EXPECT_NE(t.find("pooled over seeds 1, 2"), std::string::npos) << t;
    EXPECT_NE(t.find(" / "), std::string::npos) << t;
    const auto lines = Lines(ComparisonCsv({p}));
    const auto header = Fields(lines[0]);
    const auto row = Fields(lines[1]);
    auto col = [&header](const std::string& name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) -
                                        header.begin());
    };
    EXPECT_EQ(row[col("seeds")], "1;2");
    EXPECT_NE(row[col("small_p99_by_seed")].find(';'), std::string::npos);
    // one seed: no pooling lines
    EXPECT_EQ(FormatSeeds({MakePooledComparisonRow("a", "host-tcp", {runs[0]})}), "");
    EXPECT_THROW(MakePooledComparisonRow("a", "host-tcp", {}), PrestoInputError);
}

TEST(ComparisonReport, RpcCoresSplitSetupFromRequests)
{
    nlohmann::json rep = {{"rpc", {{"requests_per_s", 1e6}}},
                          {"host_cpu",
                           {{"cores_used", 3.0},
                            {"cycles", 3.0e7},
                            {"setup_cycles", 2.0e7},
                            {"clock_hz", 1e9},
                            {"sim_seconds", 0.01},
                            {"cycles_per_request", 1000}}}};
    ComparisonRow r = MakeComparisonRow("presto-K1", "presto", {}, SummarizeFct({}, {}, 0), rep);
    EXPECT_DOUBLE_EQ(r.setupCores, 2.0);
    EXPECT_DOUBLE_EQ(r.requestCores, 1.0);
    const std::string t = FormatRpcTable({r});
    EXPECT_NE(t.find("req cores"), std::string::npos) << t;
    const auto lines = Lines(RpcCsv({r}));
    const auto header = Fields(lines[0]);
    const auto row = Fields(lines[1]);
    ASSERT_EQ(row.size(), header.size());
    auto col = [&header](const std::string& name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) -
                                        header.begin());
    };
    EXPECT_EQ(row[col("host_cores_setup")], "2");
    EXPECT_EQ(row[col("host_cores_requests")], "1");
}

TEST(ComparisonReport, CollectiveRowTableAndCsv)
{
    nlohmann::json rep = {{"collective",
                           {{"ranks", 8},
                            {"jct_ns", 3066400},
                            {"step_p50_ns", 216400.0},
                            {"step_p99_ns", 229100.0},
                            {"slowest_rank", 5}}},
                          {"fabric", {{"switch_drops", 3}, {"switch_ecn_marks", 40}}}};
    ComparisonRow r = MakeComparisonRow("presto-K1", "presto", {}, SummarizeFct({}, {}, 0), rep);
    EXPECT_DOUBLE_EQ(r.collectiveRanks, 8);
    EXPECT_DOUBLE_EQ(r.collectiveJctUs, 3066.4);
    EXPECT_DOUBLE_EQ(r.collectiveStepP50Us, 216.4);
    EXPECT_DOUBLE_EQ(r.collectiveStepP99Us, 229.1);
    EXPECT_DOUBLE_EQ(r.collectiveSlowestRank, 5);
    const std::string t = FormatCollectiveTable({r});
    EXPECT_NE(t.find("JCT us"), std::string::npos) << t;
    EXPECT_NE(t.find("3066.4"), std::string::npos) << t;
    const auto lines = Lines(CollectiveCsv({r}));
    ASSERT_EQ(lines.size(), 2u);
    const auto header = Fields(lines[0]);
    const auto row = Fields(lines[1]);
    ASSERT_EQ(row.size(), header.size());
    auto col = [&header](const std::string& name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) -
                                        header.begin());
    };
    EXPECT_EQ(row[col("jct_us")], "3066.4");
    EXPECT_EQ(row[col("slowest_rank")], "5");
    EXPECT_EQ(row[col("switch_drops")], "3");
    // a flow run's row has no collective numbers
    ComparisonRow flows =
        MakeComparisonRow("presto-K1", "presto", {}, SummarizeFct({}, {}, 0), nlohmann::json{});
    EXPECT_TRUE(std::isnan(flows.collectiveJctUs));
}

TEST(ComparisonReport, TableAndOrder)
{
    std::vector<ComparisonRow> rows(3);
    rows[0].label = "host-tcp";
    rows[0].slow[0] = Summarize({1.0, 3.0});
    rows[0].retxSegments = 17;
    rows[1].label = "presto-K0";
    rows[1].slow[0] = Summarize({1.0, 9.0});
    rows[1].fidelityDrops = 4321;
    rows[1].stagesUsed = 6;
    rows[1].registerBytes = 2048;
    rows[2].label = "empty"; // no small flows: last
    EXPECT_EQ(OrderBySmallP99(rows), (std::vector<std::string>{"host-tcp", "presto-K0", "empty"}));
    rows[0].slow[0] = Summarize({20.0});
    EXPECT_EQ(OrderBySmallP99(rows), (std::vector<std::string>{"presto-K0", "host-tcp", "empty"}));

    const std::string t = FormatComparisonTable(rows);
    const auto lines = Lines(t);
    ASSERT_EQ(lines.size(), 7u) << t; // header, 3 rows, legend, order, tiers
    EXPECT_EQ(lines[1].rfind("host-tcp", 0), 0u);
    EXPECT_NE(lines[1].find("20.00"), std::string::npos) << lines[1];
    EXPECT_NE(lines[1].find(" 17 "), std::string::npos) << lines[1];
    EXPECT_NE(lines[2].find("4321"), std::string::npos) << lines[2];
    EXPECT_NE(lines[2].find("stages 6, regs 2.048KB"), std::string::npos) << lines[2];
    EXPECT_EQ(lines[5], "order by small-flow p99: presto-K0 < host-tcp < empty");
    EXPECT_EQ(lines[6].rfind("tiers", 0), 0u) << lines[6];
}

TEST(ComparisonReport, PoliciesSayWhatDiffers)
{
    std::vector<ComparisonRow> rows(3);
    rows[0].label = "host-tcp";
    rows[0].policy = {{"ack", "every segment"}, {"egress", "fair"}, {"transport", "ns-3"}};
    rows[1].label = "presto-K1";
    rows[1].policy = {{"ack", "every segment"}, {"egress", "round robin"}, {"transport", "nic"}};
    rows[2].label = "flextoe";
    rows[2].policy = rows[1].policy;
    const auto lines = Lines(FormatRowPolicies(rows));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "held equal: ack every segment");
    EXPECT_EQ(lines[1], "differs in egress: host-tcp: fair; presto-K1, flextoe: round robin");
    EXPECT_EQ(lines[2], "differs in transport: host-tcp: ns-3; presto-K1, flextoe: nic");
    // a row without a policy (an older summary.json) differs in every key, shown as "-"
    rows[2].policy.clear();
    EXPECT_NE(FormatRowPolicies(rows).find("differs in ack: host-tcp, presto-K1: every "
                                           "segment; flextoe: -"),
              std::string::npos)
        << FormatRowPolicies(rows);
    // and the table starts with the lines
    rows[2].policy = rows[1].policy;
    EXPECT_EQ(FormatComparisonTable(rows).rfind("held equal: ack every segment\n", 0), 0u);
    EXPECT_EQ(FormatRowPolicies(std::vector<ComparisonRow>(2)), "");
}

TEST(ComparisonReport, TiersJoinOverlappingIntervals)
{
    std::vector<ComparisonRow> rows(4);
    const double p99[4] = {10, 11, 30, 12};
    const std::array<double, 2> ci[4] = {{8, 12}, {9, 14}, {25, 40}, {11.5, 13}};
    const char* names[4] = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; ++i)
    {
        rows[i].label = names[i];
        rows[i].slow[0].count = 100;
        rows[i].slow[0].p99 = p99[i];
        rows[i].smallP99Ci = ci[i];
    }
    // b and d overlap a's interval (their lows 9 and 11.5 are below a's high 12); c does not
    EXPECT_EQ(TieredOrderBySmallP99(rows), "a ~ b ~ d < c");
    rows[3].smallP99Ci = {12.5, 13};
    EXPECT_EQ(TieredOrderBySmallP99(rows), "a ~ b < d < c");
}

TEST(ComparisonReport, BootstrapIntervalCoversTheQuantile)
{
    std::vector<double> v;
    for (int i = 1; i <= 400; ++i)
    {
        v.push_back(i);
    }
    ExperimentRandom random(kBootstrapStream, 1, 1);
    auto ci = BootstrapQuantileCi(v, 0.99, random);
    EXPECT_LE(ci.first, 396.01);
    EXPECT_GE(ci.second, 396.01);
    EXPECT_GT(ci.first, 380); // the p99 of 400 values is pinned to the top few
    ExperimentRandom again(kBootstrapStream, 1, 1);
    EXPECT_EQ(ci, BootstrapQuantileCi(v, 0.99, again)) << "same sample and run, same interval";
    ExperimentRandom empty(kBootstrapStream, 1, 1);
    EXPECT_TRUE(std::isnan(BootstrapQuantileCi({}, 0.99, empty).first));
}

// The interval follows ns-3's run number: another run resamples differently (with 400
// distinct values, two runs giving the same interval to the last bit would be a fluke).
TEST(ComparisonReport, BootstrapFollowsTheRunNumber)
{
    std::vector<double> v;
    for (int i = 1; i <= 400; ++i)
    {
        v.push_back(i * 1.5 + (i % 7) * 0.1);
    }
    ExperimentRandom run1(kBootstrapStream, 1, 1);
    ExperimentRandom run2(kBootstrapStream, 1, 2);
    EXPECT_NE(BootstrapQuantileCi(v, 0.5, run1), BootstrapQuantileCi(v, 0.5, run2));
}

TEST(ComparisonReport, CountersLine)
{
    std::vector<FctRecord> records = {Flow(0, 1000, 1.5)};
    FctSummary summary = SummarizeFct(records, {}, 0);
    nlohmann::json host = {{"tcp", {{"timeouts", 3}}},
                           {"fabric", {{"switch_ecn_marks", 120}, {"switch_drops", 7}}}};
    nlohmann::json presto = {{"nic", {{"timeouts", 0}}},
                             {"fabric", {{"switch_ecn_marks", 80}, {"switch_drops", 0}}}};
    std::vector<ComparisonRow> rows = {
        MakeComparisonRow("host-tcp", "host-tcp", records, summary, host),
        MakeComparisonRow("presto-K1", "presto", records, summary, presto),
        MakeComparisonRow("old", "flextoe", records, summary, {})};
    const std::string line =
        "switch ECN marks / switch drops / timeouts: host-tcp 120 / 7 / 3; presto-K1 80 / 0 / 0; "
        "old - / - / -\n";
    EXPECT_EQ(FormatCounters(rows), line);
    EXPECT_NE(FormatComparisonTable(rows).find(line), std::string::npos);
    // runs that report none of them (older summaries): no line
    EXPECT_EQ(FormatCounters({rows[2]}), "");
}

TEST(ComparisonReport, CsvFormat)
{
    std::vector<FctRecord> records = {Flow(0, 1000, 1.5), Flow(1, 20000000, 3.0)};
    FctSummary summary = SummarizeFct(records, {}, 0);
    nlohmann::json rep = {
        {"nic", {{"fidelity_drops", 5}, {"nic_utilisation", 0.125}, {"timeouts", 4}}},
        {"fabric", {{"switch_ecn_marks", 120}, {"switch_drops", 7}}},
        {"host_cpu",
         {{"cores_used", 0.1},
          {"cycles_per_byte", 3},
          {"cores",
           {{"per_host", 4},
            {"utilisation", 0.25},
            {"busiest_core_utilisation", 0.5},
            {"wait_ns_mean", 1500}}}}},
        {"config", {{"cc", "dctcp"}}}};
    std::vector<ComparisonRow> rows = {
        MakeComparisonRow("cora", "cora", records, summary, rep),
        MakeComparisonRow("host-tcp", "host-tcp", records, summary, {})};
    const auto lines = Lines(ComparisonCsv(rows));
    ASSERT_EQ(lines.size(), 3u);
    const auto header = Fields(lines[0]);
    ASSERT_EQ(header.size(), 48u);
    // the counters that explain a ranking are the last columns
    EXPECT_EQ(std::vector<std::string>(header.end() - 3, header.end()),
              (std::vector<std::string>{"switch_ecn_marks", "switch_drops", "timeouts"}));
    EXPECT_EQ(lines[0].substr(0, 60),
              std::string("label,device,cc,flows,unfinished,small_count,small_p50,small_p99")
                  .substr(0, 60));
    auto col = [&header](const std::string& name) {
        return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) -
                                        header.begin());
    };
    const auto cora = Fields(lines[1]);
    ASSERT_EQ(cora.size(), header.size()) << lines[1];
    EXPECT_EQ(cora[col("label")], "cora");
    EXPECT_EQ(cora[col("cc")], "dctcp");
    EXPECT_EQ(cora[col("flows")], "2");
    EXPECT_EQ(cora[col("small_count")], "1");
    EXPECT_EQ(cora[col("small_p99")], "1.5");
    EXPECT_EQ(cora[col("medium_count")], "0");
    EXPECT_EQ(cora[col("medium_p99")], ""); // empty class: no percentile
    // one small flow: every resample is that flow, the interval is the point
    EXPECT_EQ(cora[col("small_p99_ci95_low")], "1.5");
    EXPECT_EQ(cora[col("small_p99_ci95_high")], "1.5");
    EXPECT_EQ(cora[col("large_p50")], "3");
    EXPECT_EQ(cora[col("fidelity_drops")], "5");
    EXPECT_EQ(cora[col("nic_utilisation")], "0.125");
    EXPECT_EQ(cora[col("host_cores_used")], "0.1");
    EXPECT_EQ(cora[col("nic_stages_used")], "");
    EXPECT_EQ(cora[col("host_core_budget")], "4");
    EXPECT_EQ(cora[col("host_core_utilisation")], "0.25");
    EXPECT_EQ(cora[col("host_busiest_core")], "0.5");
    EXPECT_EQ(cora[col("host_core_wait_us")], "1.5");
    EXPECT_EQ(cora[col("switch_ecn_marks")], "120");
    EXPECT_EQ(cora[col("switch_drops")], "7");
    EXPECT_EQ(cora[col("timeouts")], "4");
    const auto host = Fields(lines[2]);
    ASSERT_EQ(host.size(), header.size()) << lines[2];
    EXPECT_EQ(host[col("cc")], ""); // not in the report
    EXPECT_EQ(host[col("fidelity_drops")], "0");
    EXPECT_EQ(host[col("retx_bytes")], ""); // records do not know it
    EXPECT_EQ(host[col("host_cores_used")], "");
    EXPECT_EQ(host[col("host_core_budget")], ""); // no cores in simulated time
    EXPECT_EQ(host[col("switch_ecn_marks")], ""); // no "fabric" in the report
    EXPECT_EQ(host[col("timeouts")], "");         // no "tcp" either
}

TEST(ComparisonReport, PlotScriptsCarryTheData)
{
    std::vector<FctRecord> records = {Flow(0, 1000, 1.5), Flow(1, 20000000, 3.0)};
    FctSummary summary = SummarizeFct(records, {10000}, 0);
    nlohmann::json rep = {{"host_cpu", {{"cores_used", 0.75}, {"cycles_per_byte", 2.5}}}};
    std::vector<ComparisonRow> rows = {MakeComparisonRow("a'b", "host-tcp", records, summary, rep)};

    const std::string s = SlowdownByBucketScript(rows, "/x/s.png");
    EXPECT_NE(s.find("set output '/x/s.png'"), std::string::npos);
    EXPECT_NE(s.find("set logscale y"), std::string::npos);
    EXPECT_NE(s.find("0 1.5\n1 3\n"), std::string::npos) << s; // p99 per bucket
    EXPECT_NE(s.find("title 'a''b'"), std::string::npos) << s; // quoted label
    EXPECT_NE(s.find("'<=10K' 0, '>10K' 1"), std::string::npos) << s;

    // bars: x, value, colour, where the value is written (above the whisker, if any)
    rows[0].smallP99Ci = {std::nan(""), std::nan("")};
    const std::string bare = P99SmallScript(rows, "p.png");
    EXPECT_NE(bare.find("0 1.5 1 1.5\n"), std::string::npos) << bare;
    EXPECT_EQ(bare.find("yerrorbars"), std::string::npos) << "no interval, no whisker";
    rows[0].smallP99Ci = {1.25, 1.75};
    const std::string p99 = P99SmallScript(rows, "p.png", "host-tcp | seed 1");
    EXPECT_NE(p99.find("0 1.5 1 1.75\n"), std::string::npos) << p99;
    EXPECT_NE(p99.find("$small_ci << EOD\n0 1.5 1.25 1.75\nEOD"), std::string::npos) << p99;
    EXPECT_NE(p99.find("using 1:2:3:4 with yerrorbars"), std::string::npos) << p99;
    EXPECT_NE(p99.find("title 'host-tcp | seed 1'"), std::string::npos) << "the caption";
    const std::string cpu = HostCpuScript(rows, "c.png");
    EXPECT_NE(cpu.find("0 0.75 1 0.75\n"), std::string::npos) << cpu;
    EXPECT_NE(cpu.find("0 2.5 1 2.5\n"), std::string::npos) << cpu;
    EXPECT_EQ(cpu.find("yerrorbars"), std::string::npos) << "no intervals for host CPU";
    EXPECT_NE(cpu.find("set offsets 0,0,graph 0.1,0"), std::string::npos)
        << "room for the text above the highest bar";

    // nothing to draw: a note instead of a plot gnuplot would refuse
    std::vector<ComparisonRow> empty(1);
    empty[0].label = "none";
    EXPECT_NE(P99SmallScript(empty, "p.png").find("nothing to draw"), std::string::npos);
    EXPECT_NE(SlowdownByBucketScript(empty, "s.png").find("no finished flows"), std::string::npos);
}

// A run with incast bursts: its "incast" and "background" sections become one row, in the
// table and in incast.csv, FCTs in microseconds.
TEST(ComparisonReport, IncastRowTableAndCsv)
{
    const nlohmann::json report = {
        {"incast",
         {{"unfinished", 1},
          {"overall",
           {{"count", 53},
            {"fct_p50_ns", 515452.0},
            {"fct_p99_ns", 1358750.0},
            {"slowdown_p50", 7.5},
            {"slowdown_p99", 21.0}}},
          {"burst_completion",
           {{"count", 8}, {"unfinished", 1}, {"p50_ns", 922973.0}, {"p99_ns", 1495640.0}}}}},
        {"background",
         {{"unfinished", 0},
          {"overall",
           {{"count", 32},
            {"fct_p50_ns", 190441.0},
            {"fct_p99_ns", 8493800.0},
            {"slowdown_p50", 1.5},
            {"slowdown_p99", 28.25}}}}}};
    const IncastRow r = MakeIncastRow("presto-K1", "presto", report);
    EXPECT_EQ(r.bursts, 9);
    EXPECT_EQ(r.incastFlows, 53);
    EXPECT_EQ(r.incastUnfinished, 1);
    EXPECT_DOUBLE_EQ(r.incastFctP50Us, 515.452);
    EXPECT_DOUBLE_EQ(r.burstP99Us, 1495.64);
    EXPECT_DOUBLE_EQ(r.backgroundFctP99Us, 8493.8);
    EXPECT_EQ(r.backgroundSlowdownP99, 28.25);
    const std::string table = FormatIncastTable({r});
    EXPECT_NE(table.find("presto-K1"), std::string::npos) << table;
    EXPECT_NE(table.find("515.5"), std::string::npos) << table;
    EXPECT_NE(table.find("8493.8"), std::string::npos) << table;
    const std::string csv = IncastCsv({r});
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "label,device,bursts,incast_flows,incast_unfinished,incast_fct_p50_us,"
              "incast_fct_p99_us,incast_slowdown_p50,incast_slowdown_p99,"
              "burst_completion_p50_us,burst_completion_p99_us,background_flows,"
              "background_unfinished,background_fct_p50_us,background_fct_p99_us,"
              "background_slowdown_p50,background_slowdown_p99");
    EXPECT_EQ(csv.substr(csv.find('\n') + 1),
              "presto-K1,presto,9,53,1,515.452,1358.75,7.5,21,922.973,1495.64,32,0,190.441,"
              "8493.8,1.5,28.25\n");
    EXPECT_THROW(MakeIncastRow("x", "host-tcp", nlohmann::json::object()), PrestoInputError);
}
