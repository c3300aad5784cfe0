/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/offload-dma-engine.h"

#include <gtest/gtest.h>
#include <map>
#include <random>
#include <vector>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

using Arb = OffloadDmaEngine::Arbitration;

/// 8 Gbit/s: one byte per ns, so times read as bytes.
OffloadDmaEngine::Config
OneBytePerNs(uint32_t channels, Arb arb = Arb::ROUND_ROBIN)
{
    OffloadDmaEngine::Config c;
    c.bandwidthBps = 8e9;
    c.latencyNs = 500;
    c.channels = channels;
    c.arbitration = arb;
    return c;
}

/// Serve everything queued, back to back from nowNs; the order of service.
std::vector<OffloadDmaEngine::Started>
Drain(OffloadDmaEngine& e, int64_t nowNs)
{
    std::vector<OffloadDmaEngine::Started> served;
    OffloadDmaEngine::Started s;
    while (e.StartNext(nowNs, s))
    {
        served.push_back(s);
        nowNs = s.endNs;
        e.Finish();
    }
    return served;
}

TEST(OffloadDmaEngine, OneChannelIsAFifoAtTheBandwidth)
{
    OffloadDmaEngine e(OneBytePerNs(1));
    e.Submit(0, 1000);
    e.Submit(0, 0); // a marker: no time on the interface, in order
    e.Submit(0, 1500);
    const auto s = Drain(e, 100);
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].ticket, 0u);
    EXPECT_EQ(s[0].endNs, 1100);
    EXPECT_EQ(s[0].inPlaceNs, 1600);
    EXPECT_EQ(s[1].ticket, 1u);
    EXPECT_EQ(s[1].inPlaceNs, 1600) << "the marker is in place with the bytes before it";
    EXPECT_EQ(s[2].endNs, 2600);
    EXPECT_EQ(s[2].inPlaceNs, 3100);
    EXPECT_EQ(e.GetChannelBytes()[0], 2500u);
    EXPECT_EQ(e.GetChannelBacklogMax()[0], 2500u);
}

TEST(OffloadDmaEngine, BusyUntilFinishedAndIdleStartsAtNow)
{
    OffloadDmaEngine e(OneBytePerNs(1));
    OffloadDmaEngine::Started s;
    EXPECT_FALSE(e.StartNext(0, s)) << "nothing waits";
    e.Submit(0, 100);
    e.Submit(0, 100);
    ASSERT_TRUE(e.StartNext(0, s));
    EXPECT_TRUE(e.IsBusy());
    EXPECT_FALSE(e.StartNext(50, s)) << "one transfer at a time";
    e.Finish();
    ASSERT_TRUE(e.StartNext(5000, s)) << "idle since 100";
    EXPECT_EQ(s.endNs, 5100);
}

/// Round robin: a short application's transfer waits for one transfer of a long one's
/// backlog, not for all of it; in one channel it waits for all of it.
TEST(OffloadDmaEngine, RoundRobinEndsHeadOfLineBlocking)
{
    for (uint32_t channels : {1u, 2u})
    {
        OffloadDmaEngine e(OneBytePerNs(channels));
        for (int i = 0; i < 50; ++i)
        {
            e.Submit(0, 1448); // the long flow's backlog
        }
        const uint64_t shortTicket = e.Submit(channels - 1, 1448);
        const auto s = Drain(e, 0);
        int64_t shortDone = 0;
        for (const auto& x : s)
        {
            shortDone = x.ticket == shortTicket ? x.inPlaceNs : shortDone;
        }
        if (channels == 1)
        {
            EXPECT_EQ(shortDone, 51 * 1448 + 500) << "behind the whole backlog";
        }
        else
        {
            EXPECT_EQ(s[1].ticket, shortTicket) << "served at the next turn";
            EXPECT_EQ(shortDone, 2 * 1448 + 500);
        }
    }
}

/// Deficit round robin: backlogged channels share the bytes by weight, whatever the sizes.
TEST(OffloadDmaEngine, WeightsShareTheBytes)
{
    OffloadDmaEngine::Config c = OneBytePerNs(3, Arb::WEIGHTED);
    c.weights = {1, 3, 4};
    c.quantumBytes = 1500;
    OffloadDmaEngine e(c);
    std::mt19937 rng(3);
    for (int i = 0; i < 4000; ++i)
    {
        for (uint32_t ch = 0; ch < 3; ++ch)
        {
            e.Submit(ch, 64 + rng() % 1400);
        }
    }
    // serve while all three stay backlogged
    OffloadDmaEngine::Started s;
    int64_t now = 0;
    std::vector<uint64_t> bytes(3, 0);
    while (e.GetQueued(0) > 0 && e.GetQueued(1) > 0 && e.GetQueued(2) > 0)
    {
        ASSERT_TRUE(e.StartNext(now, s));
        bytes[s.channel] += s.bytes;
        now = s.endNs;
        e.Finish();
    }
    const double total = bytes[0] + bytes[1] + bytes[2];
    EXPECT_NEAR(bytes[0] / total, 1.0 / 8, 0.01);
    EXPECT_NEAR(bytes[1] / total, 3.0 / 8, 0.01);
    EXPECT_NEAR(bytes[2] / total, 4.0 / 8, 0.01);
}

/// Random submissions and service: every transfer is served once, each channel in its own
/// order, one at a time, and never later than needed (work conserving).
TEST(OffloadDmaEngine, RandomLoadKeepsTheRules)
{
    for (Arb arb : {Arb::ROUND_ROBIN, Arb::WEIGHTED})
    {
        OffloadDmaEngine::Config c = OneBytePerNs(4, arb);
        c.weights = {1, 2, 3, 5};
        c.quantumBytes = 700;
        OffloadDmaEngine e(c);
        std::mt19937 rng(11);
        std::map<uint64_t, uint32_t> channelOf;
        std::vector<uint64_t> lastTicket(4, 0);
        std::vector<bool> seen(4, false);
        uint64_t served = 0;
        int64_t now = 0;
        int64_t freeAt = 0;
        OffloadDmaEngine::Started s;
        for (int step = 0; step < 100000; ++step)
        {
            now += rng() % 400;
            if (e.IsBusy() && now >= freeAt)
            {
                e.Finish();
            }
            for (uint32_t k = rng() % 3; k > 0; --k)
            {
                const uint32_t ch = rng() % 4;
                channelOf[e.Submit(ch, rng() % 3 == 0 ? 0 : rng() % 1500)] = ch;
            }
            if (!e.IsBusy() && e.StartNext(now, s))
            {
                ASSERT_EQ(channelOf.count(s.ticket), 1u) << "served once";
                ASSERT_EQ(channelOf[s.ticket], s.channel);
                channelOf.erase(s.ticket);
                ASSERT_TRUE(!seen[s.channel] || s.ticket > lastTicket[s.channel]) << "FIFO";
                seen[s.channel] = true;
                lastTicket[s.channel] = s.ticket;
                ASSERT_EQ(s.endNs, now + static_cast<int64_t>(s.bytes)) << "starts when free";
                ASSERT_EQ(s.inPlaceNs, s.endNs + 500);
                freeAt = s.endNs;
                ++served;
            }
        }
        e.Finish();
        served += Drain(e, now + 1000000).size();
        EXPECT_EQ(served, e.Submit(0, 0)) << "every ticket before this one was served";
    }
}

TEST(OffloadDmaEngine, RefusesImpossibleConfigurations)
{
    OffloadDmaEngine::Config c = OneBytePerNs(2, Arb::WEIGHTED);
    c.weights = {1};
    EXPECT_TRUE(Contains(ErrorOf([&] { OffloadDmaEngine e(c); }), {"1 weights for 2 channels"}));
    c.weights = {1, 0};
    EXPECT_TRUE(Contains(ErrorOf([&] { OffloadDmaEngine e(c); }), {"weight of channel 1 is 0"}));
    c.weights = {};
    c.channels = 0;
    EXPECT_TRUE(Contains(ErrorOf([&] { OffloadDmaEngine e(c); }), {"at least one channel"}));
    c.channels = 2;
    c.bandwidthBps = 0;
    EXPECT_TRUE(Contains(ErrorOf([&] { OffloadDmaEngine e(c); }), {"bandwidth must be positive"}));
    c.bandwidthBps = 8e9;
    c.quantumBytes = 0;
    EXPECT_TRUE(Contains(ErrorOf([&] { OffloadDmaEngine e(c); }), {"quantum"}));
    c.quantumBytes = 1;
    OffloadDmaEngine e(c);
    EXPECT_TRUE(Contains(ErrorOf([&] { e.Submit(2, 10); }), {"channel 2 does not exist", "2"}));
}

} // namespace
