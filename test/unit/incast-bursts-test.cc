/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/incast-bursts.h"

#include <cmath>
#include <functional>
#include <gtest/gtest.h>
#include <set>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

IncastBurstConfig
Periodic()
{
    IncastBurstConfig c;
    c.arrivals = BurstArrivals::PERIODIC;
    c.nHosts = 16;
    c.senders = 5;
    c.bytesPerSender = 20000;
    c.intervalNs = 1000000;
    c.durationNs = 10000000;
    return c;
}

} // namespace

TEST(IncastBursts, PeriodicBurstsOfDistinctSendersToOneReceiver)
{
    ExperimentRandom random(2, 1, 1);
    std::vector<uint32_t> burst;
    const auto flows = GenerateIncastBursts(Periodic(), random, &burst);
    ASSERT_EQ(flows.size(), 9u * 5); // at 1, 2, ..., 9 ms of a 10 ms window
    ASSERT_EQ(burst.size(), flows.size());
    for (uint32_t b = 0; b < 9; ++b)
    {
        std::set<uint32_t> senders;
        for (uint32_t k = 0; k < 5; ++k)
        {
            const FlowSpec& f = flows[b * 5 + k];
            EXPECT_EQ(f.id, b * 5 + k);
            EXPECT_EQ(burst[f.id], b);
            EXPECT_EQ(f.startNs, int64_t(b + 1) * 1000000);
            EXPECT_EQ(f.sizeBytes, 20000u);
            EXPECT_EQ(f.dst, flows[b * 5].dst) << "one receiver per burst";
            EXPECT_NE(f.src, f.dst);
            EXPECT_LT(f.src, 16u);
            senders.insert(f.src);
        }
        EXPECT_EQ(senders.size(), 5u) << "distinct senders in burst " << b;
    }
}

TEST(IncastBursts, FixedReceiverAndAllOthersSending)
{
    IncastBurstConfig c = Periodic();
    c.receiver = 3;
    c.senders = 15;
    ExperimentRandom random(2, 1, 1);
    for (const FlowSpec& f : GenerateIncastBursts(c, random, nullptr))
    {
        EXPECT_EQ(f.dst, 3u);
        EXPECT_NE(f.src, 3u);
    }
}

TEST(IncastBursts, PoissonCountAndSameRunSameBursts)
{
    IncastBurstConfig c = Periodic();
    c.arrivals = BurstArrivals::POISSON;
    c.intervalNs = 10000; // 10 us mean gap over 10 ms: 1000 bursts expected
    ExperimentRandom a(2, 1, 1);
    ExperimentRandom b(2, 1, 1);
    ExperimentRandom other(2, 1, 2);
    const auto x = GenerateIncastBursts(c, a, nullptr);
    const auto y = GenerateIncastBursts(c, b, nullptr);
    const auto z = GenerateIncastBursts(c, other, nullptr);
    EXPECT_NEAR(x.size() / 5.0, 1000.0, 4 * std::sqrt(1000.0)); // within 4 sigma
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        EXPECT_EQ(x[i].startNs, y[i].startNs);
        EXPECT_EQ(x[i].src, y[i].src);
        EXPECT_EQ(x[i].dst, y[i].dst);
    }
    EXPECT_TRUE(x.size() != z.size() || x[0].startNs != z[0].startNs) << "another run";
    for (std::size_t i = 1; i < x.size(); ++i)
    {
        EXPECT_LE(x[i - 1].startNs, x[i].startNs);
        EXPECT_LT(x[i].startNs, c.durationNs);
    }
}

TEST(IncastBursts, OffMakesNothingAndBadConfigsAreRefused)
{
    IncastBurstConfig off;
    ExperimentRandom random(2, 1, 1);
    EXPECT_TRUE(GenerateIncastBursts(off, random, nullptr).empty());
    auto error = [&](const std::function<void(IncastBurstConfig&)>& change) {
        IncastBurstConfig c = Periodic();
        change(c);
        return ErrorOf([&] { GenerateIncastBursts(c, random, nullptr); });
    };
    EXPECT_TRUE(Contains(error([](auto& c) { c.senders = 16; }), {"16 senders", "[1, 15]"}));
    EXPECT_TRUE(Contains(error([](auto& c) { c.senders = 0; }), {"0 senders"}));
    EXPECT_TRUE(Contains(error([](auto& c) { c.receiver = 16; }), {"receiver 16"}));
    EXPECT_TRUE(Contains(error([](auto& c) { c.bytesPerSender = 0; }), {"0 bytes per sender"}));
    EXPECT_TRUE(Contains(error([](auto& c) { c.intervalNs = 0; }), {"interval 0 ns"}));
    EXPECT_TRUE(Contains(error([](auto& c) { c.intervalNs = c.durationNs; }),
                         {"not below the arrival window"}));
    EXPECT_TRUE(Contains(error([](auto& c) { c.flowLimit = 10; }), {"limit of 10"}));
    EXPECT_TRUE(Contains(ErrorOf([] { BurstArrivalsFromString("sometimes", "bursts"); }),
                         {"--bursts=sometimes", "off, periodic, poisson"}));
}
