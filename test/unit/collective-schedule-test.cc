/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/collective-schedule.h"
#include "ns3/presto-input-error.h"

#include <gtest/gtest.h>
#include <map>
#include <set>
#include <vector>

using namespace ns3;

namespace
{
/// \return the message of what f throws (PrestoInputError), or "" if it does not
template <typename F>
std::string
ErrorOf(F f)
{
    try
    {
        f();
    }
    catch (const PrestoInputError& e)
    {
        return e.what();
    }
    return "";
}
} // namespace

TEST(CollectiveSchedule, RingHasTwoNMinusOneStepsOfOneChunkToTheSuccessor)
{
    for (uint32_t n : {2u, 3u, 4u, 16u})
    {
        const CollectiveSchedule s(CollectiveKind::ALL_REDUCE, n, 1000 * n);
        ASSERT_EQ(s.GetSteps(), 2 * (n - 1));
        for (uint32_t k = 0; k < s.GetSteps(); ++k)
        {
            for (uint32_t r = 0; r < n; ++r)
            {
                const auto out = s.Sends(k, r);
                ASSERT_EQ(out.size(), 1u);
                EXPECT_EQ(out[0].src, r);
                EXPECT_EQ(out[0].dst, (r + 1) % n);
                EXPECT_EQ(out[0].bytes, 1000u);
                // what r receives is exactly what its predecessor sends
                const auto in = s.Receives(k, r);
                ASSERT_EQ(in.size(), 1u);
                const auto pred = s.Sends(k, (r + n - 1) % n);
                EXPECT_EQ(in[0].src, pred[0].src);
                EXPECT_EQ(in[0].dst, r);
                EXPECT_EQ(in[0].bytes, pred[0].bytes);
            }
        }
        EXPECT_EQ(s.Pairs().size(), n);
        EXPECT_EQ(s.BytesSentPerRank(0), 2 * (n - 1) * 1000u);
    }
}

TEST(CollectiveSchedule, RingChunksFollowReduceScatterThenAllGather)
{
    // hand-worked N = 4: reduce-scatter r sends r, r-1, r-2; all-gather r+1, r, r-1 (mod 4)
    const CollectiveSchedule s(CollectiveKind::ALL_REDUCE, 4, 400);
    const uint32_t want[6][4] =
        {{0, 1, 2, 3}, {3, 0, 1, 2}, {2, 3, 0, 1}, {1, 2, 3, 0}, {0, 1, 2, 3}, {3, 0, 1, 2}};
    for (uint32_t k = 0; k < 6; ++k)
    {
        for (uint32_t r = 0; r < 4; ++r)
        {
            EXPECT_EQ(s.RingChunk(k, r), want[k][r]) << "step " << k << " rank " << r;
        }
    }
    // semantics: after the reduce-scatter, chunk c was reduced along the whole ring, ending at
    // rank c-1, which then owns it; each rank receives every chunk once in the all-gather
    for (uint32_t n : {3u, 5u, 8u})
    {
        const CollectiveSchedule t(CollectiveKind::ALL_REDUCE, n, n);
        for (uint32_t c = 0; c < n; ++c)
        {
            std::vector<uint32_t> holders; // ranks that received chunk c, reduce-scatter
            for (uint32_t k = 0; k + 1 < n; ++k)
            {
                for (uint32_t r = 0; r < n; ++r)
                {
                    if (t.RingChunk(k, r) == c)
                    {
                        holders.push_back((r + 1) % n);
                    }
                }
            }
            ASSERT_EQ(holders.size(), n - 1);
            EXPECT_EQ(holders.back(), (c + n - 1) % n) << "owner of chunk " << c;
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            std::set<uint32_t> got; // chunks r receives in the all-gather, plus its own
            got.insert((r + 1) % n);
            for (uint32_t k = n - 1; k < t.GetSteps(); ++k)
            {
                got.insert(t.RingChunk(k, (r + n - 1) % n));
            }
            EXPECT_EQ(got.size(), n) << "rank " << r << " of " << n;
        }
    }
}

TEST(CollectiveSchedule, RemainderRidesOnTheLastChunk)
{
    const CollectiveSchedule s(CollectiveKind::ALL_REDUCE, 4, 1003);
    EXPECT_EQ(s.ChunkBytes(0), 250u);
    EXPECT_EQ(s.ChunkBytes(2), 250u);
    EXPECT_EQ(s.ChunkBytes(3), 253u);
    uint64_t total = 0;
    for (uint32_t c = 0; c < 4; ++c)
    {
        total += s.ChunkBytes(c);
    }
    EXPECT_EQ(total, 1003u);
    uint64_t sent = 0;
    for (uint32_t r = 0; r < 4; ++r)
    {
        sent += s.BytesSentPerRank(r);
    }
    EXPECT_EQ(sent, 2u * 3u * 1003u); // every chunk travels 2(N-1) times in all
    const CollectiveSchedule a(CollectiveKind::ALL_TO_ALL, 3, 10);
    EXPECT_EQ(a.ChunkBytes(2), 4u);
    EXPECT_EQ(a.BytesSentPerRank(2), 6u); // 3 + 3 to ranks 0 and 1
    EXPECT_EQ(a.BytesSentPerRank(0), 7u); // 3 to rank 1, 4 to rank 2
}

TEST(CollectiveSchedule, AllToAllSendsABlockToEveryOtherRank)
{
    const uint32_t n = 5;
    const CollectiveSchedule s(CollectiveKind::ALL_TO_ALL, n, 5000);
    ASSERT_EQ(s.GetSteps(), 1u);
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> sent;
    for (uint32_t r = 0; r < n; ++r)
    {
        const auto out = s.Sends(0, r);
        ASSERT_EQ(out.size(), n - 1);
        for (const auto& t : out)
        {
            EXPECT_EQ(t.src, r);
            EXPECT_NE(t.dst, r);
            EXPECT_EQ(t.bytes, 1000u);
            EXPECT_TRUE(sent.emplace(std::make_pair(t.src, t.dst), t.bytes).second);
        }
    }
    EXPECT_EQ(sent.size(), n * (n - 1));
    EXPECT_EQ(s.Pairs().size(), n * (n - 1));
    for (uint32_t r = 0; r < n; ++r)
    {
        const auto in = s.Receives(0, r);
        ASSERT_EQ(in.size(), n - 1);
        for (const auto& t : in)
        {
            EXPECT_EQ(t.dst, r);
            EXPECT_EQ(sent.at({t.src, t.dst}), t.bytes);
        }
    }
}

TEST(CollectiveSchedule, RefusesTooFewRanksOrBytes)
{
    EXPECT_NE(
        ErrorOf([] { CollectiveSchedule(CollectiveKind::ALL_REDUCE, 1, 100); }).find("--ranks=1"),
        std::string::npos);
    EXPECT_NE(ErrorOf([] {
                  CollectiveSchedule(CollectiveKind::ALL_REDUCE, 4, 0);
              }).find("--collectiveBytes=0"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] {
                  CollectiveSchedule(CollectiveKind::ALL_TO_ALL, 4, 3);
              }).find("--collectiveBytes=3"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { CollectiveKindFromString("ring"); }).find("--workload=ring"),
              std::string::npos);
    EXPECT_NE(ErrorOf([] { CollectivePlacementFromString("x"); }).find("--placement=x"),
              std::string::npos);
    EXPECT_EQ(CollectiveKindFromString("alltoall"), CollectiveKind::ALL_TO_ALL);
    EXPECT_EQ(CollectivePlacementFromString("spread"), CollectivePlacement::SPREAD);
}

TEST(CollectivePlacement, LinearSpreadRandom)
{
    // 3 racks of 4 hosts: hosts 0-3 rack 7, 4-7 rack 8, 8-11 rack 9
    std::vector<uint32_t> rack;
    for (uint32_t h = 0; h < 12; ++h)
    {
        rack.push_back(7 + h / 4);
    }
    EXPECT_EQ(PlaceRanks(4, rack, CollectivePlacement::LINEAR, 1),
              (std::vector<uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(PlaceRanks(7, rack, CollectivePlacement::SPREAD, 1),
              (std::vector<uint32_t>{0, 4, 8, 1, 5, 9, 2}));
    // uneven racks: a rack that runs out is skipped
    const std::vector<uint32_t> uneven = {0, 1, 1, 1};
    EXPECT_EQ(PlaceRanks(4, uneven, CollectivePlacement::SPREAD, 1),
              (std::vector<uint32_t>{0, 1, 2, 3}));
    const auto a = PlaceRanks(12, rack, CollectivePlacement::RANDOM, 5);
    EXPECT_EQ(std::set<uint32_t>(a.begin(), a.end()).size(), 12u);      // distinct hosts
    EXPECT_EQ(a, PlaceRanks(12, rack, CollectivePlacement::RANDOM, 5)); // the seed decides
    EXPECT_NE(a, PlaceRanks(12, rack, CollectivePlacement::RANDOM, 6));
    EXPECT_NE(a, PlaceRanks(12, rack, CollectivePlacement::LINEAR, 5));
    EXPECT_NE(ErrorOf([&] {
                  PlaceRanks(13, rack, CollectivePlacement::LINEAR, 1);
              }).find("--ranks=13 must be in [1, 12]"),
              std::string::npos);
}

TEST(CollectiveSummary, JctPercentilesAndSlowestRank)
{
    std::vector<CollectiveStepRecord> recs = {
        {0, 0, 0, 100, 200}, // durations 100, 150, 120, 400
        {0, 0, 1, 100, 250},
        {0, 1, 0, 200, 320},
        {0, 1, 1, 250, 650},
    };
    CollectiveSummary s = CollectiveSummary::Of(recs);
    EXPECT_TRUE(s.complete);
    EXPECT_EQ(s.jctNs, 550);
    ASSERT_EQ(s.iterationJctNs.size(), 1u);
    EXPECT_EQ(s.iterationJctNs[0], 550);
    EXPECT_DOUBLE_EQ(s.stepP50Ns, 135); // numpy linear: between 120 and 150
    EXPECT_DOUBLE_EQ(s.stepMaxNs, 400);
    EXPECT_NEAR(s.stepP99Ns, 150 + 0.97 * 250, 1e-9);
    EXPECT_EQ(s.slowestRank, 1u);
    EXPECT_EQ(s.slowestRankEndNs, 650);
    ASSERT_EQ(s.perStepNs.size(), 2u);
    EXPECT_DOUBLE_EQ(s.perStepNs[0].first, 125);
    EXPECT_DOUBLE_EQ(s.perStepNs[1].second, 120 + 0.99 * 280);
    recs.push_back({1, 0, 0, 700, -1});
    s = CollectiveSummary::Of(recs);
    EXPECT_FALSE(s.complete);
    EXPECT_EQ(s.jctNs, 550); // over the records that ended
}
