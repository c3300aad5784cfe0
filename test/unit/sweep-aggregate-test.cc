/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/presto-input-error.h"
#include "ns3/sweep-aggregate.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

/// A summary.json as presto-spray writes it, reduced to what the aggregate reads: two
/// buckets (<=10K with \p count flows and slowdowns p50 / p99 / mean, and an empty >10K).
nlohmann::json
Summary(const std::string& device,
        double load,
        uint32_t seed,
        double p50,
        double p99,
        double mean,
        uint64_t count = 5)
{
    nlohmann::json bucket = {{"lo_bytes", 0},
                             {"hi_bytes", 10000},
                             {"count", count},
                             {"slowdown_mean", mean},
                             {"slowdown_p50", p50},
                             {"slowdown_p99", p99}};
    nlohmann::json empty = {{"lo_bytes", 10000},
                            {"hi_bytes", std::numeric_limits<uint64_t>::max()},
                            {"count", 0},
                            {"slowdown_mean", 0.0},
                            {"slowdown_p50", 0.0},
                            {"slowdown_p99", 0.0}};
    nlohmann::json s;
    s["config"] = {{"device", device},
                   {"fidelity", "1"},
                   {"lb", "spray"},
                   {"load", load},
                   {"seed", seed},
                   {"label", device}};
    s["buckets"] = nlohmann::json::array({bucket, empty});
    s["overall"] = bucket;
    s["host_cpu"] = {{"cores_used", 0.5 + seed}, {"cycles_per_byte", 2.0}};
    if (device == "presto")
    {
        s["nic"] = {{"fidelity_drops", 10 * seed}, {"retx_segments", 3}};
    }
    return s;
}

/// The row of \p group / \p bucket / \p metric, or fail.
const SweepAggregateRow&
Row(const std::vector<SweepAggregateRow>& rows,
    const std::string& group,
    const std::string& bucket,
    const std::string& metric)
{
    for (const SweepAggregateRow& r : rows)
    {
        if (r.group == group && r.bucket == bucket && r.metric == metric)
        {
            return r;
        }
    }
    ADD_FAILURE() << "no row " << group << " / " << bucket << " / " << metric;
    static SweepAggregateRow none;
    return none;
}

} // namespace

TEST(SweepAggregate, StudentTIntervalMatchesHandComputation)
{
    // {1,2,3,4}: mean 2.5, s = sqrt(5/3) = 1.290994, t(0.975, 3) = 3.182446,
    // half width = 3.182446 * 1.290994 / 2 = 2.054260
    ConfidenceInterval ci = MeanConfidenceInterval({1, 2, 3, 4});
    EXPECT_EQ(ci.n, 4U);
    EXPECT_DOUBLE_EQ(ci.mean, 2.5);
    EXPECT_NEAR(ci.stddev, 1.290994, 1e-6);
    EXPECT_NEAR(ci.low, 2.5 - 2.054260, 1e-5);
    EXPECT_NEAR(ci.high, 2.5 + 2.054260, 1e-5);
    // n = 2: t(0.975, 1) = 12.706205, s = sqrt(2): half width = 12.706205
    ci = MeanConfidenceInterval({2, 4});
    EXPECT_NEAR(ci.low, 3 - 12.706205, 1e-5);
    EXPECT_NEAR(ci.high, 3 + 12.706205, 1e-5);
    // the 90% interval is narrower: t(0.95, 3) = 2.353363
    ci = MeanConfidenceInterval({1, 2, 3, 4}, 0.90);
    EXPECT_NEAR(ci.high - ci.mean, 2.353363 * 1.290994 / 2, 1e-5);
    // equal values: a zero-width interval, not NaN
    ci = MeanConfidenceInterval({7, 7, 7});
    EXPECT_DOUBLE_EQ(ci.low, 7);
    EXPECT_DOUBLE_EQ(ci.high, 7);
}

TEST(SweepAggregate, OneValueHasNoInterval)
{
    ConfidenceInterval ci = MeanConfidenceInterval({3.5});
    EXPECT_EQ(ci.n, 1U);
    EXPECT_DOUBLE_EQ(ci.mean, 3.5);
    EXPECT_FALSE(ci.HasInterval());
    EXPECT_TRUE(std::isnan(ci.low));
    EXPECT_TRUE(std::isnan(ci.high));
    EXPECT_TRUE(MeanConfidenceInterval({1, 2}).HasInterval());
    EXPECT_TRUE(std::isnan(MeanConfidenceInterval({}).mean));
}

TEST(SweepAggregate, BadIntervalInputThrows)
{
    EXPECT_TRUE(Contains(ErrorOf([] {
                             MeanConfidenceInterval({1, 2}, 1.0);
                         }),
                         {"confidence level", "(0, 1)"}));
    EXPECT_TRUE(Contains(ErrorOf([] {
                             MeanConfidenceInterval({1, std::numeric_limits<double>::infinity()});
                         }),
                         {"not finite"}));
}

TEST(SweepAggregate, ParsesSummaryIntoSamples)
{
    SweepRun run = ParseSweepRun(Summary("presto", 0.5, 2, 1.5, 4.0, 2.0), "x/summary.json");
    EXPECT_EQ(run.seed, 2U);
    EXPECT_FALSE(run.config.contains("seed"));
    // 3 slowdown metrics of the non-empty bucket + 3 overall + 2 host_cpu + 2 nic; the
    // empty bucket gives none
    ASSERT_EQ(run.samples.size(), 10U);
    EXPECT_EQ(run.samples[0].bucket, "<=10K");
    EXPECT_EQ(run.samples[0].hiBytes, 10000U);
    EXPECT_EQ(run.samples[0].metric, "slowdown_mean");
    EXPECT_DOUBLE_EQ(run.samples[0].value, 2.0);
    EXPECT_EQ(run.samples[2].metric, "slowdown_p99");
    EXPECT_DOUBLE_EQ(run.samples[2].value, 4.0);
    EXPECT_EQ(run.samples[3].bucket, "all");
    EXPECT_EQ(run.samples[6].metric, "host_cpu.cores_used");
    EXPECT_DOUBLE_EQ(run.samples[6].value, 2.5);
    EXPECT_EQ(run.samples[8].metric, "nic.fidelity_drops");
    EXPECT_DOUBLE_EQ(run.samples[8].value, 20);
    // host-tcp has no nic section: no nic samples
    EXPECT_EQ(ParseSweepRun(Summary("host-tcp", 0.5, 1, 1, 2, 1), "y").samples.size(), 8U);
}

TEST(SweepAggregate, MalformedSummaryNamesFileAndKey)
{
    nlohmann::json s = Summary("presto", 0.5, 1, 1, 2, 1);
    s["config"].erase("seed");
    EXPECT_TRUE(Contains(ErrorOf([&] { ParseSweepRun(s, "runs/a/summary.json"); }),
                         {"runs/a/summary.json", "seed"}));
    s = Summary("presto", 0.5, 1, 1, 2, 1);
    s["buckets"][0]["slowdown_p99"] = "high";
    EXPECT_TRUE(Contains(ErrorOf([&] { ParseSweepRun(s, "f.json"); }),
                         {"f.json", "bucket 0", "slowdown_p99"}));
    s = Summary("presto", 0.5, 1, 1, 2, 1);
    s["nic"]["fidelity_drops"] = nullptr;
    EXPECT_TRUE(
        Contains(ErrorOf([&] { ParseSweepRun(s, "f.json"); }), {"\"nic\"", "fidelity_drops"}));
    s = Summary("presto", 0.5, 1, 1, 2, 1);
    s.erase("buckets");
    EXPECT_TRUE(Contains(ErrorOf([&] { ParseSweepRun(s, "f.json"); }), {"f.json", "buckets"}));

    // from a file: truncated JSON and a missing file both name the file
    char templ[] = "/tmp/presto-sweep-aggregate-XXXXXX";
    ASSERT_NE(::mkdtemp(templ), nullptr);
    const std::string path = std::string(templ) + "/summary.json";
    std::ofstream(path) << "{\"config\": {\"seed\": 1}, \"buckets\": [";
    EXPECT_TRUE(Contains(ErrorOf([&] { ReadSweepRun(path); }), {path.c_str(), "not valid JSON"}));
    std::ofstream(path) << Summary("flextoe", 0.3, 4, 1, 2, 1).dump();
    EXPECT_EQ(ReadSweepRun(path).seed, 4U);
    std::remove(path.c_str());
    ::rmdir(templ);
    EXPECT_TRUE(Contains(ErrorOf([&] { ReadSweepRun(path); }), {"cannot open", path.c_str()}));
}

TEST(SweepAggregate, GroupsBySeedlessConfigWithIntervals)
{
    std::vector<SweepRun> runs;
    // presto at load 0.5: p99 4, 6, 8 over seeds 1..3 -> mean 6, s = 2, t(0.975,2) = 4.302653,
    // half = 4.302653 * 2 / sqrt(3) = 4.968275
    runs.push_back(ParseSweepRun(Summary("presto", 0.5, 1, 1, 4, 2), "p1"));
    runs.push_back(ParseSweepRun(Summary("presto", 0.5, 2, 1, 6, 2), "p2"));
    runs.push_back(ParseSweepRun(Summary("presto", 0.5, 3, 1, 8, 2), "p3"));
    // host-tcp at load 0.5, one seed; and at 0.3 (sorted first)
    runs.push_back(ParseSweepRun(Summary("host-tcp", 0.5, 1, 1, 3, 2), "h1"));
    runs.push_back(ParseSweepRun(Summary("host-tcp", 0.3, 1, 1, 2, 2), "h2"));
    // a presto run at 0.3 whose small bucket is empty in seed 2
    runs.push_back(ParseSweepRun(Summary("presto", 0.3, 1, 1, 5, 2), "q1"));
    runs.push_back(ParseSweepRun(Summary("presto", 0.3, 2, 1, 5, 2, 0), "q2"));

    std::vector<SweepAggregateRow> rows = AggregateSweep(runs);
    // labels name only the differing keys; fidelity is left out for host-tcp
    const SweepAggregateRow& p99 = Row(rows, "device=presto load=0.5", "<=10K", "slowdown_p99");
    EXPECT_EQ(p99.ci.n, 3U);
    EXPECT_DOUBLE_EQ(p99.ci.mean, 6);
    EXPECT_NEAR(p99.ci.low, 6 - 4.968275, 1e-5);
    EXPECT_NEAR(p99.ci.high, 6 + 4.968275, 1e-5);
    EXPECT_EQ(p99.hiBytes, 10000U);
    const SweepAggregateRow& drops =
        Row(rows, "device=presto load=0.5", "all", "nic.fidelity_drops");
    EXPECT_DOUBLE_EQ(drops.ci.mean, 20); // 10, 20, 30
    const SweepAggregateRow& one = Row(rows, "device=host-tcp load=0.5", "<=10K", "slowdown_p99");
    EXPECT_EQ(one.ci.n, 1U);
    EXPECT_FALSE(one.ci.HasInterval());
    // the empty bucket of seed 2 is not averaged in as zero
    EXPECT_EQ(Row(rows, "device=presto load=0.3", "<=10K", "slowdown_p99").ci.n, 1U);
    EXPECT_EQ(Row(rows, "device=presto load=0.3", "all", "host_cpu.cores_used").ci.n, 2U);

    // group order: by device then load; rows: buckets by edge, "all" last
    EXPECT_EQ(rows.front().group, "device=host-tcp load=0.3");
    EXPECT_EQ(rows.back().group, "device=presto load=0.5");
    EXPECT_EQ(rows.back().bucket, "all");

    const std::string csv = SweepAggregateCsv(rows);
    // the packed group first, then one column per swept parameter
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "group,bucket,lo_bytes,hi_bytes,metric,n,mean,ci95_low,ci95_high,device,load");
    EXPECT_NE(csv.find("device=host-tcp load=0.5,<=10K,0,10000,slowdown_p99,1,3,,,host-tcp,0.5\n"),
              std::string::npos);
    EXPECT_NE(csv.find("device=presto load=0.5,all,,,nic.fidelity_drops,3,20,"), std::string::npos);
    ASSERT_FALSE(rows.empty());
    for (const SweepAggregateRow& r : rows)
    {
        ASSERT_EQ(r.parameters.size(), 2U);
        EXPECT_EQ(r.parameters[0].first, "device");
        EXPECT_EQ(r.parameters[1].first, "load");
        EXPECT_EQ(r.group, "device=" + r.parameters[0].second + " load=" + r.parameters[1].second);
    }

    std::ostringstream table;
    PrintSweepAggregate(table, rows);
    EXPECT_NE(table.str().find("device=presto load=0.5: slowdown"), std::string::npos);
    EXPECT_NE(table.str().find("6.000 [1.032, 10.968]"), std::string::npos);
}

TEST(SweepAggregate, AttributeArgumentsAreParameters)
{
    // two runs that differ only in an --ns3:: attribute are two groups, named by it
    nlohmann::json a = Summary("presto", 0.5, 1, 1, 4, 2);
    nlohmann::json b = Summary("presto", 0.5, 1, 1, 6, 2);
    a["attributes"] = {{"ns3::FabricSwitch::EcnThreshold", "30000"}};
    b["attributes"] = {{"ns3::FabricSwitch::EcnThreshold", "60000"}};
    const std::vector<SweepRun> runs = {ParseSweepRun(a, "a"), ParseSweepRun(b, "b")};
    const std::vector<SweepAggregateRow> rows = AggregateSweep(runs);
    const SweepAggregateRow& p99 =
        Row(rows, "ns3::FabricSwitch::EcnThreshold=60000", "<=10K", "slowdown_p99");
    EXPECT_DOUBLE_EQ(p99.ci.mean, 6);
    const std::string csv = SweepAggregateCsv(rows);
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "group,bucket,lo_bytes,hi_bytes,metric,n,mean,ci95_low,ci95_high,"
              "ns3::FabricSwitch::EcnThreshold");
    EXPECT_NE(csv.find(",slowdown_p99,1,4,,,30000\n"), std::string::npos) << csv;
}

TEST(SweepAggregate, SameSeedTwiceAndNoRunsThrow)
{
    std::vector<SweepRun> runs = {ParseSweepRun(Summary("presto", 0.5, 1, 1, 4, 2), "a.json"),
                                  ParseSweepRun(Summary("presto", 0.5, 1, 1, 4, 2), "b.json")};
    EXPECT_TRUE(Contains(ErrorOf([&] { AggregateSweep(runs); }), {"a.json", "b.json", "seed 1"}));
    EXPECT_TRUE(Contains(ErrorOf([] { AggregateSweep({}); }), {"no runs"}));
}

TEST(SweepAggregate, SingleGroupIsNamedByDevice)
{
    std::vector<SweepRun> runs = {ParseSweepRun(Summary("flextoe", 0.5, 1, 1, 4, 2), "a"),
                                  ParseSweepRun(Summary("flextoe", 0.5, 2, 1, 4, 2), "b")};
    std::vector<SweepAggregateRow> rows = AggregateSweep(runs);
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows[0].group, "device=flextoe");
    EXPECT_EQ(rows[0].ci.n, 2U);
}
