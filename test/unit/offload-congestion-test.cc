/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/object-factory.h"
#include "ns3/offload-rate-congestion.h"
#include "ns3/offload-window-congestion.h"
#include "ns3/presto-input-error.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{

constexpr uint32_t MSS = 1000;

/// A sender model for feeding ACKs: keeps `inFlight` segments outstanding, one ACK per
/// segment, and sends one new segment per ACK (wrap-around included via the start value).
struct AckFeeder
{
    uint32_t sndUna;
    uint32_t sndMax;

    AckFeeder(uint32_t start, uint32_t inFlight)
        : sndUna(start),
          sndMax(start + inFlight * MSS)
    {
    }

    /// Acknowledge one segment and send one more.
    bool Ack(OffloadCongestionControl& cc, bool ece)
    {
        sndUna += MSS;
        sndMax += MSS;
        return cc.OnAck(MSS, ece, sndUna, sndMax);
    }
};

} // namespace

TEST(OffloadNewRenoCongestion, SlowStartGrowsPerAckWithByteCountingLimit)
{
    OffloadNewRenoCongestion cc(MSS, 10);
    cc.Init(1);
    EXPECT_EQ(cc.GetCwnd(), 10 * MSS);
    cc.OnAck(MSS, false, 1 + MSS, 1 + 10 * MSS);
    EXPECT_EQ(cc.GetCwnd(), 11 * MSS);
    // A large cumulative ACK counts at most 2 MSS (RFC 3465, L = 2).
    cc.OnAck(5 * MSS, false, 1 + 6 * MSS, 1 + 11 * MSS);
    EXPECT_EQ(cc.GetCwnd(), 13 * MSS);
    // A duplicate ACK (nothing acknowledged) does not grow the window.
    cc.OnAck(0, false, 1 + 6 * MSS, 1 + 11 * MSS);
    EXPECT_EQ(cc.GetCwnd(), 13 * MSS);
}

TEST(OffloadNewRenoCongestion, LossHalvesFlightOncePerWindowThenAvoidance)
{
    OffloadNewRenoCongestion cc(MSS, 20);
    const uint32_t start = 100;
    cc.Init(start);
    const uint32_t sndMax = start + 20 * MSS;
    cc.OnLoss(20 * MSS, sndMax);
    EXPECT_EQ(cc.GetSsThresh(), 10 * MSS);
    EXPECT_EQ(cc.GetCwnd(), 10 * MSS);
    // Within the loss window no growth (recovery), even when bytes are acknowledged.
    cc.OnAck(MSS, false, start + MSS, sndMax);
    cc.OnAck(MSS, false, start + 2 * MSS, sndMax);
    EXPECT_EQ(cc.GetCwnd(), 10 * MSS);
    // The window closes when snd_una reaches the snd_max of the loss: congestion avoidance,
    // + 1 MSS per cwnd of acknowledged bytes.
    uint32_t una = sndMax;
    cc.OnAck(sndMax - (start + 2 * MSS), false, una, una + 10 * MSS);
    const uint32_t afterClose = cc.GetCwnd();
    // 18 MSS acknowledged at once is more than one cwnd: + 1 MSS, and no more than that.
    EXPECT_EQ(afterClose, 11 * MSS);
    uint32_t ackedTowardsIncrease = 0;
    while (cc.GetCwnd() == afterClose)
    {
        una += MSS;
        cc.OnAck(MSS, false, una, una + 10 * MSS);
        ackedTowardsIncrease += MSS;
        ASSERT_LT(ackedTowardsIncrease, 100 * MSS);
    }
    EXPECT_EQ(cc.GetCwnd(), afterClose + MSS);
    EXPECT_EQ(ackedTowardsIncrease, afterClose); // exactly one cwnd of bytes per + 1 MSS
}

TEST(OffloadNewRenoCongestion, MinimumWindowIsTwoSegmentsExceptAfterTimeout)
{
    OffloadNewRenoCongestion cc(MSS, 10);
    cc.Init(0);
    cc.OnLoss(MSS, MSS); // half a segment of flight: floor at 2 MSS
    EXPECT_EQ(cc.GetSsThresh(), 2 * MSS);
    EXPECT_EQ(cc.GetCwnd(), 2 * MSS);

    OffloadNewRenoCongestion t(MSS, 10);
    t.Init(0);
    t.OnTimeout(8 * MSS, 8 * MSS);
    EXPECT_EQ(t.GetCwnd(), MSS); // loss window
    EXPECT_EQ(t.GetSsThresh(), 4 * MSS);
    // Slow start resumes at once after a timeout (growth is not frozen).
    t.OnAck(MSS, false, MSS, 8 * MSS);
    EXPECT_EQ(t.GetCwnd(), 2 * MSS);
}

TEST(OffloadNewRenoCongestion, EceHalvesAtMostOncePerWindow)
{
    OffloadNewRenoCongestion cc(MSS, 16);
    AckFeeder f(7, 16);
    cc.Init(f.sndUna);
    EXPECT_TRUE(f.Ack(cc, true));
    EXPECT_EQ(cc.GetCwnd(), 8 * MSS);
    const uint32_t windowEnd = f.sndMax; // snd_max when the reduction happened
    // Further ECEs of the same window: no cut, no growth.
    while (f.sndUna != windowEnd - MSS)
    {
        EXPECT_FALSE(f.Ack(cc, true));
        EXPECT_EQ(cc.GetCwnd(), 8 * MSS);
    }
    // The next ACK closes the window; its ECE is a new congestion episode.
    EXPECT_TRUE(f.Ack(cc, true));
    EXPECT_EQ(cc.GetCwnd(), 4 * MSS);
    EXPECT_EQ(cc.GetEceReductions(), 2u);
}

TEST(OffloadDctcpCongestion, AlphaConvergesToMarkedFractionEveryFourth)
{
    const double g = 1.0 / 16;
    OffloadDctcpCongestion cc(MSS, 16, g, 1.0);
    // Start just below 2^32: the windows wrap around.
    AckFeeder f(0xFFFFFFFFu - 40 * MSS, 16);
    cc.Init(f.sndUna);
    // Independent model of RFC 8257: per window (closing when snd_una reaches the snd_max of
    // the previous closing) alpha = (1 - g) alpha + g * marked / acked.
    double expected = 1.0;
    uint32_t windowEnd = f.sndUna;
    uint64_t acked = 0;
    uint64_t marked = 0;
    uint32_t windows = 0;
    for (uint32_t i = 0; i < 16 * 150; ++i)
    {
        const bool ece = (i % 4) == 3;
        f.Ack(cc, ece);
        acked += MSS;
        marked += ece ? MSS : 0;
        if (static_cast<int32_t>(f.sndUna - windowEnd) >= 0)
        {
            expected = (1 - g) * expected + g * static_cast<double>(marked) / acked;
            acked = marked = 0;
            windowEnd = f.sndMax;
            ++windows;
        }
        ASSERT_NEAR(cc.GetAlpha(), expected, 1e-12) << "ack " << i;
    }
    EXPECT_EQ(cc.GetAlphaUpdates(), windows);
    EXPECT_GT(windows, 140u);
    EXPECT_NEAR(cc.GetAlpha(), 0.25, 0.005);
}

TEST(OffloadDctcpCongestion, AlphaTracksZeroAndFullMarking)
{
    for (bool mark : {false, true})
    {
        OffloadDctcpCongestion cc(MSS, 10, 1.0 / 16, 0.5);
        AckFeeder f(1, 10);
        cc.Init(f.sndUna);
        for (int i = 0; i < 10 * 200; ++i)
        {
            f.Ack(cc, mark);
        }
        EXPECT_NEAR(cc.GetAlpha(), mark ? 1.0 : 0.0, 1e-3) << "mark " << mark;
    }
}

TEST(OffloadDctcpCongestion, WindowCutMatchesFormulaOncePerWindow)
{
    OffloadDctcpCongestion cc(MSS, 10, 1.0 / 16, 1.0);
    AckFeeder f(1, 40);
    cc.Init(f.sndUna);
    // Grow the window and bring alpha down with unmarked traffic.
    for (int i = 0; i < 400; ++i)
    {
        f.Ack(cc, false);
    }
    // One marked window in four (by ACK count) lets alpha settle somewhere inside (0, 1).
    for (int i = 0; i < 400; ++i)
    {
        f.Ack(cc, (i % 8) == 0);
    }
    // Run unmarked until a reduction window cannot be open any more.
    for (int i = 0; i < 200; ++i)
    {
        f.Ack(cc, false);
    }
    const uint32_t before = cc.GetCwnd();
    ASSERT_GT(before, 4 * MSS);
    EXPECT_TRUE(f.Ack(cc, true));
    const double alpha = cc.GetAlpha(); // alpha after this ACK's own update (Linux order)
    EXPECT_GT(alpha, 0.0);
    EXPECT_LT(alpha, 1.0);
    const uint32_t want =
        std::max<uint32_t>(static_cast<uint32_t>(std::floor(before * (1.0 - alpha / 2.0))),
                           2 * MSS);
    EXPECT_EQ(cc.GetCwnd(), want);
    EXPECT_EQ(cc.GetSsThresh(), want);
    EXPECT_LT(cc.GetCwnd(), before);
    // No second cut within the same window of data.
    EXPECT_FALSE(f.Ack(cc, true));
    EXPECT_EQ(cc.GetCwnd(), want);
}

TEST(OffloadDctcpCongestion, LossReactsLikeNewReno)
{
    OffloadDctcpCongestion cc(MSS, 10, 1.0 / 16, 0.0);
    cc.Init(0);
    cc.OnLoss(12 * MSS, 12 * MSS);
    EXPECT_EQ(cc.GetCwnd(), 6 * MSS);
    cc.OnTimeout(6 * MSS, 12 * MSS);
    EXPECT_EQ(cc.GetCwnd(), MSS);
    EXPECT_EQ(cc.GetSsThresh(), 3 * MSS);
}

TEST(OffloadCongestion, BadParametersAreRefused)
{
    EXPECT_THROW(OffloadNewRenoCongestion(0, 10), PrestoInputError);
    EXPECT_THROW(OffloadNewRenoCongestion(MSS, 0), PrestoInputError);
    EXPECT_THROW(OffloadNewRenoCongestion(1u << 20, 1u << 12), PrestoInputError);
    EXPECT_THROW(OffloadDctcpCongestion(MSS, 10, 0.0, 1.0), PrestoInputError);
    EXPECT_THROW(OffloadDctcpCongestion(MSS, 10, 1.5, 1.0), PrestoInputError);
    EXPECT_THROW(OffloadDctcpCongestion(MSS, 10, 1.0 / 16, -0.1), PrestoInputError);
    EXPECT_THROW(OffloadDctcpCongestion(MSS, 10, 1.0 / 16, std::nan("")), PrestoInputError);
}

/// One class per algorithm, chosen by TypeId: the configured object's attributes reach every
/// connection's copy, the copies keep the TypeId and the context's window, and they do not
/// share state with each other or with the configuration.
TEST(OffloadCongestion, ForkCopiesTheConfigurationIntoIndependentConnections)
{
    Ptr<OffloadCongestionControl> config =
        ObjectFactory("ns3::OffloadDctcpCongestion").Create<OffloadCongestionControl>();
    config->SetAttribute("Gain", DoubleValue(0.25));
    config->SetAttribute("AlphaInit", DoubleValue(0.5));
    OffloadCongestionContext ctx;
    ctx.mss = MSS;
    ctx.initialCwndSegments = 4;
    Ptr<OffloadCongestionControl> a = config->Fork(ctx);
    ctx.initialCwndSegments = 8;
    Ptr<OffloadCongestionControl> b = config->Fork(ctx);
    ASSERT_NE(PeekPointer(a), PeekPointer(b));
    EXPECT_EQ(a->GetInstanceTypeId().GetName(), "ns3::OffloadDctcpCongestion");
    EXPECT_EQ(a->GetShortName(), "dctcp");
    EXPECT_EQ(a->GetCwnd(), 4 * MSS);
    EXPECT_EQ(b->GetCwnd(), 8 * MSS);
    const auto& da = dynamic_cast<const OffloadDctcpCongestion&>(*a);
    EXPECT_DOUBLE_EQ(da.GetGain(), 0.25);
    EXPECT_DOUBLE_EQ(da.GetAlpha(), 0.5);
    a->Init(0);
    b->Init(0);
    AckFeeder f(0, 4);
    EXPECT_TRUE(f.Ack(*a, true)) << "ECE cuts a";
    EXPECT_LT(a->GetCwnd(), 4 * MSS);
    EXPECT_EQ(b->GetCwnd(), 8 * MSS) << "b is untouched";
    // a bad parameter is refused: by the attribute's checker, or when a connection is set up
    EXPECT_FALSE(config->SetAttributeFailSafe("Gain", DoubleValue(0.0)));
    ctx.mss = 0;
    EXPECT_THROW(config->Fork(ctx), PrestoInputError);
}

TEST(OffloadCongestion, RateVariantsForkWithTheirOwnRulesAndDefaults)
{
    OffloadCongestionContext ctx;
    ctx.mss = MSS;
    ctx.initialCwndSegments = 10;
    ctx.rttInitNs = 10000;                 // 10 us: 10 segments per 10 us = 1 GB/s
    ctx.lineRateBytesPerS = 1250000000ull; // 10 Gbit/s
    Ptr<OffloadCongestionControl> robust = ObjectFactory("ns3::OffloadDctcpRateCongestion")
                                               .Create<OffloadCongestionControl>()
                                               ->Fork(ctx);
    Ptr<OffloadCongestionControl> tas = ObjectFactory("ns3::OffloadTasDctcpRateCongestion")
                                            .Create<OffloadCongestionControl>()
                                            ->Fork(ctx);
    const auto& r = dynamic_cast<const OffloadRateCongestionBase&>(*robust);
    const auto& t = dynamic_cast<const OffloadRateCongestionBase&>(*tas);
    EXPECT_EQ(r.GetShortName(), "dctcp-rate");
    EXPECT_EQ(t.GetShortName(), "dctcp-rate-tas");
    EXPECT_EQ(r.GetParams().mode, OffloadDctcpRateParams::Mode::ROBUST);
    EXPECT_EQ(t.GetParams().mode, OffloadDctcpRateParams::Mode::TAS);
    EXPECT_EQ(r.GetParams().initialRate, 1000000000ull) << "the initial window per initial RTT";
    EXPECT_EQ(t.GetParams().initialRate, 1250000ull) << "TAS's 10 Mbit/s";
    EXPECT_EQ(r.GetParams().maxRate, ctx.lineRateBytesPerS) << "0: the line rate";
    EXPECT_EQ(r.GetParams().controlIntervalRtts, 1u);
    EXPECT_EQ(t.GetParams().controlIntervalRtts, 2u);
    EXPECT_TRUE(r.UsesControlLoop());
    EXPECT_EQ(r.GetCwnd(), OffloadCongestionControl::MAX_CWND);
}
