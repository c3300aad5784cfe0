/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fct-statistics.h"
#include "ns3/presto-input-error.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

FctRecord
Flow(uint32_t id, uint64_t size, int64_t start, int64_t finish, int64_t ideal)
{
    FctRecord r;
    r.flow.id = id;
    r.flow.sizeBytes = size;
    r.flow.startNs = start;
    r.finishNs = finish;
    r.idealNs = ideal;
    return r;
}

} // namespace

TEST(Summarize, EmptyIsAllZero)
{
    DistributionSummary s = Summarize({});
    EXPECT_EQ(s.count, 0u);
    EXPECT_EQ(s.mean, 0);
    EXPECT_EQ(s.p50, 0);
    EXPECT_EQ(s.p999, 0);
}

TEST(Summarize, SingleValue)
{
    DistributionSummary s = Summarize({7.5});
    EXPECT_EQ(s.count, 1u);
    EXPECT_DOUBLE_EQ(s.mean, 7.5);
    EXPECT_DOUBLE_EQ(s.p50, 7.5);
    EXPECT_DOUBLE_EQ(s.p95, 7.5);
    EXPECT_DOUBLE_EQ(s.p99, 7.5);
    EXPECT_DOUBLE_EQ(s.p999, 7.5);
}

TEST(Summarize, LinearInterpolationLikeNumpy)
{
    // numpy.percentile([1, 2, 3, 4], [50, 95, 99, 99.9]) = 2.5, 3.85, 3.97, 3.997
    DistributionSummary s = Summarize({4, 1, 3, 2});
    EXPECT_EQ(s.count, 4u);
    EXPECT_DOUBLE_EQ(s.mean, 2.5);
    EXPECT_DOUBLE_EQ(s.p50, 2.5);
    EXPECT_DOUBLE_EQ(s.p95, 3.85);
    EXPECT_DOUBLE_EQ(s.p99, 3.97);
    EXPECT_DOUBLE_EQ(s.p999, 3.997);

    // [1, 3, 5] given out of order: median 3; p95 at rank 1.9 -> 3 + 0.9 * 2 = 4.8
    s = Summarize({5, 1, 3});
    EXPECT_DOUBLE_EQ(s.mean, 3);
    EXPECT_DOUBLE_EQ(s.p50, 3);
    EXPECT_DOUBLE_EQ(s.p95, 4.8);
    EXPECT_DOUBLE_EQ(s.p99, 4.96);
    EXPECT_DOUBLE_EQ(s.p999, 4.996);
}

TEST(Summarize, HundredAndOneValues)
{
    // 1..101: ranks fall on integers for p50/p95/p99, p99.9 at rank 99.9 -> 100.9
    std::vector<double> v;
    for (int i = 101; i >= 1; --i)
    {
        v.push_back(i);
    }
    DistributionSummary s = Summarize(v);
    EXPECT_EQ(s.count, 101u);
    EXPECT_DOUBLE_EQ(s.mean, 51);
    EXPECT_DOUBLE_EQ(s.p50, 51);
    EXPECT_DOUBLE_EQ(s.p95, 96);
    EXPECT_DOUBLE_EQ(s.p99, 100);
    EXPECT_NEAR(s.p999, 100.9, 1e-9);
}

TEST(Summarize, TiesAndSkew)
{
    // Nine 1s and one 1000: median 1, mean 100.9, p95 at rank 8.55 -> 1 + 0.55 * 999
    std::vector<double> v(9, 1.0);
    v.push_back(1000);
    DistributionSummary s = Summarize(v);
    EXPECT_DOUBLE_EQ(s.mean, 100.9);
    EXPECT_DOUBLE_EQ(s.p50, 1);
    EXPECT_NEAR(s.p95, 1 + 0.55 * 999, 1e-9);
}

TEST(Summarize, RejectsNonFinite)
{
    EXPECT_THROW(Summarize({1, std::nan(""), 3}), PrestoInputError);
    EXPECT_THROW(Summarize({std::numeric_limits<double>::infinity()}), PrestoInputError);
}

TEST(SummarizeFct, BucketsAreLowerExclusiveUpperInclusive)
{
    // FCT = 10 * id us so every value says where it came from; ideal = 1000 ns.
    std::vector<FctRecord> r{
        Flow(1, 1, 0, 10000, 1000),
        Flow(2, 10000, 0, 20000, 1000),  // on the edge: first bucket
        Flow(3, 10001, 0, 30000, 1000),  // just above: second bucket
        Flow(4, 100000, 0, 40000, 1000), // on the second edge
        Flow(5, 100001, 0, 50000, 1000), // above the last edge: final bucket
    };
    FctSummary s = SummarizeFct(r, {10000, 100000}, 0);
    ASSERT_EQ(s.buckets.size(), 3u);
    EXPECT_EQ(s.buckets[0].loBytes, 0u);
    EXPECT_EQ(s.buckets[0].hiBytes, 10000u);
    EXPECT_EQ(s.buckets[1].loBytes, 10000u);
    EXPECT_EQ(s.buckets[1].hiBytes, 100000u);
    EXPECT_EQ(s.buckets[2].loBytes, 100000u);
    EXPECT_EQ(s.buckets[2].hiBytes, kMax);

    EXPECT_EQ(s.buckets[0].fctNs.count, 2u);
    EXPECT_DOUBLE_EQ(s.buckets[0].fctNs.mean, 15000);
    EXPECT_DOUBLE_EQ(s.buckets[0].slowdown.mean, 15);
    EXPECT_EQ(s.buckets[1].fctNs.count, 2u);
    EXPECT_DOUBLE_EQ(s.buckets[1].fctNs.p50, 35000);
    EXPECT_EQ(s.buckets[2].fctNs.count, 1u);
    EXPECT_DOUBLE_EQ(s.buckets[2].slowdown.p99, 50);

    EXPECT_EQ(s.flows, 5u);
    EXPECT_EQ(s.counted, 5u);
    EXPECT_EQ(s.finished, 5u);
    EXPECT_EQ(s.fctNs.count, 5u);
    EXPECT_DOUBLE_EQ(s.fctNs.p50, 30000);
    EXPECT_DOUBLE_EQ(s.slowdown.mean, 30);
}

TEST(SummarizeFct, EmptyBucketsStayAndAreZero)
{
    std::vector<FctRecord> r{Flow(1, 500, 0, 2000, 1000)};
    FctSummary s = SummarizeFct(r, {1000, 2000, 3000}, 0);
    ASSERT_EQ(s.buckets.size(), 4u);
    EXPECT_EQ(s.buckets[0].fctNs.count, 1u);
    for (std::size_t i = 1; i < 4; ++i)
    {
        EXPECT_EQ(s.buckets[i].fctNs.count, 0u);
        EXPECT_EQ(s.buckets[i].slowdown.p99, 0);
    }
    // The last edge at max uint64 adds no extra bucket: hi_bytes read back from a summary
    // give the same buckets.
    std::vector<uint64_t> edges;
    for (const BucketSummary& b : s.buckets)
    {
        edges.push_back(b.hiBytes);
    }
    EXPECT_EQ(SummarizeFct(r, edges, 0).buckets.size(), 4u);
    // No edges: one bucket for everything.
    FctSummary all = SummarizeFct(r, {}, 0);
    ASSERT_EQ(all.buckets.size(), 1u);
    EXPECT_EQ(all.buckets[0].hiBytes, kMax);
    EXPECT_EQ(all.buckets[0].fctNs.count, 1u);
}

TEST(SummarizeFct, WarmupAndUnfinished)
{
    std::vector<FctRecord> r{
        Flow(1, 100, 999, 5000, 100),    // starts before the warm-up ends: excluded
        Flow(2, 100, 1000, 1500, 100),   // starts exactly at the end: counted, slowdown 5
        Flow(3, 100, 2000, -1, 100),     // unfinished
        Flow(4, 5000, 3000, -1, 100),    // unfinished, other bucket
        Flow(5, 5000, 4000, 6000, 1000), // slowdown 2
        Flow(6, 100, 0, -1, 100),        // unfinished but in the warm-up: excluded
    };
    FctSummary s = SummarizeFct(r, {1000}, 1000);
    EXPECT_EQ(s.warmupNs, 1000);
    EXPECT_EQ(s.flows, 6u);
    EXPECT_EQ(s.warmupExcluded, 2u);
    EXPECT_EQ(s.counted, 4u);
    EXPECT_EQ(s.finished, 2u);
    EXPECT_EQ(s.unfinished, 2u);
    EXPECT_EQ(s.fctNs.count, 2u);
    EXPECT_DOUBLE_EQ(s.fctNs.mean, (500 + 2000) / 2.0);
    EXPECT_DOUBLE_EQ(s.slowdown.p50, 3.5);
    EXPECT_EQ(s.buckets[0].fctNs.count, 1u);
    EXPECT_DOUBLE_EQ(s.buckets[0].slowdown.mean, 5);
    EXPECT_EQ(s.buckets[1].fctNs.count, 1u);
    EXPECT_DOUBLE_EQ(s.buckets[1].slowdown.mean, 2);
}

TEST(SummarizeFct, RejectsBadInput)
{
    std::vector<FctRecord> ok{Flow(1, 100, 0, 500, 100)};
    EXPECT_THROW(SummarizeFct(ok, {1000, 1000}, 0), PrestoInputError);
    EXPECT_THROW(SummarizeFct(ok, {2000, 1000}, 0), PrestoInputError);
    EXPECT_THROW(SummarizeFct(ok, {0, 1000}, 0), PrestoInputError);
    EXPECT_THROW(SummarizeFct({Flow(1, 0, 0, 500, 100)}, {1000}, 0), PrestoInputError);
    EXPECT_THROW(SummarizeFct({Flow(1, 100, 600, 500, 100)}, {1000}, 0), PrestoInputError);
    EXPECT_THROW(SummarizeFct({Flow(1, 100, 0, 500, 0)}, {1000}, 0), PrestoInputError);
    // An unfinished flow needs no ideal, a flow in the warm-up is not checked.
    EXPECT_NO_THROW(SummarizeFct({Flow(1, 100, 0, -1, 0)}, {1000}, 0));
    EXPECT_NO_THROW(SummarizeFct({Flow(1, 100, 0, 500, 0)}, {1000}, 1));
}

TEST(FctLabels, BytesAndBuckets)
{
    EXPECT_EQ(FormatBytes(999), "999");
    EXPECT_EQ(FormatBytes(1000), "1K");
    EXPECT_EQ(FormatBytes(1448), "1.448K");
    EXPECT_EQ(FormatBytes(10000), "10K");
    EXPECT_EQ(FormatBytes(2500000), "2.5M");
    EXPECT_EQ(FormatBytes(1234567), "1234.567K");
    EXPECT_EQ(FormatBytes(30000000), "30M");
    EXPECT_EQ(FormatBytes(1000000000), "1G");
    BucketSummary b;
    b.loBytes = 0;
    b.hiBytes = 10000;
    EXPECT_EQ(BucketLabel(b), "<=10K");
    b.loBytes = 30000000;
    b.hiBytes = kMax;
    EXPECT_EQ(BucketLabel(b), ">30M");
    b.loBytes = 0;
    EXPECT_EQ(BucketLabel(b), "all");
}
