/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/offload-rate-congestion.h"
#include "ns3/offload-tcp-connection.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t MSS = 1000;

/// TAS's rules with test-friendly numbers; the measured-rate clamp is off unless a test
/// turns it on (it has its own tests).
OffloadDctcpRateParams
Params(uint64_t initial,
       double alphaInit = 1.0,
       uint32_t minAcks = 1,
       OffloadDctcpRateParams::Mode mode = OffloadDctcpRateParams::Mode::TAS)
{
    OffloadDctcpRateParams p;
    p.mode = mode;
    p.gain = 1.0 / 16;
    p.alphaInit = alphaInit;
    p.initialRate = initial;
    p.step = 1000000; // 1 MB/s per interval
    p.minRate = 100000;
    p.maxRate = 10000000000ull;
    p.minAcks = minAcks;
    p.rateClamp = 0;
    return p;
}

/// A rate control whose clocks run from t = 0 (its first control-loop run only starts them).
struct Started
{
    OffloadRateCongestionBase cc;

    explicit Started(const OffloadDctcpRateParams& p)
        : cc(MSS, p)
    {
        cc.Init(1);
        cc.OnControlInterval(0, 20000);
    }
};

/// Feed one control interval ending at `now` (ns): n ACKs of `bytes` each, the first `marked`
/// of them with ECE.
void
Interval(OffloadRateCongestionBase& cc, uint32_t n, uint32_t bytes, uint32_t marked, uint64_t now)
{
    for (uint32_t i = 0; i < n; ++i)
    {
        cc.OnAck(bytes, i < marked, 0, 0);
    }
    cc.OnControlInterval(now, 20000);
}

} // namespace

TEST(OffloadRateCongestionBase, SlowStartDoublesUntilTheFirstMarkThenCutsByHalfAlpha)
{
    Started s(Params(1000000, 0.5));
    OffloadRateCongestionBase& cc = s.cc;
    EXPECT_EQ(cc.GetCwnd(), OffloadRateCongestionBase::MAX_CWND); // the window never limits
    EXPECT_TRUE(cc.UsesControlLoop());
    EXPECT_EQ(cc.GetPacingRate(), 1000000u);
    // Unmarked intervals in slow start: doubling, alpha untouched (TAS updates it only after
    // slow start).
    double alpha = 0.5;
    double rate = 1000000;
    for (int i = 1; i <= 3; ++i)
    {
        Interval(cc, 10, MSS, 0, 40000 * i);
        rate *= 2;
        EXPECT_TRUE(cc.InSlowStart());
        EXPECT_EQ(cc.GetPacingRate(), static_cast<uint64_t>(rate));
        EXPECT_DOUBLE_EQ(cc.GetAlpha(), alpha);
    }
    // 4 of 10 equal ACKs carry ECE: slow start ends, and in the same interval
    // alpha = 15/16 alpha + 0.4/16 and rate *= 1 - alpha / 2 (two ECE ACKs here, two below).
    // The first ECE asks for CWR (RFC 3168; classic-ECN receivers repeat ECE until they see
    // it), once per window; the rate itself is cut at the interval, not per ACK.
    EXPECT_TRUE(cc.OnAck(MSS, true, 0, 5 * MSS)) << "the first ECE requests CWR";
    EXPECT_FALSE(cc.OnAck(MSS, true, MSS, 5 * MSS)) << "no second CWR in the same window";
    EXPECT_EQ(cc.GetPacingRate(), static_cast<uint64_t>(rate)) << "no cut per ACK";
    Interval(cc, 8, MSS, 2, 160000);
    alpha = 15.0 / 16 * alpha + 0.4 / 16;
    rate *= 1 - alpha / 2;
    EXPECT_FALSE(cc.InSlowStart());
    EXPECT_DOUBLE_EQ(cc.GetAlpha(), alpha);
    EXPECT_EQ(cc.GetPacingRate(), static_cast<uint64_t>(rate));
    EXPECT_EQ(cc.GetEceReductions(), 1u);
    // Unmarked after slow start: additive increase by the step, not doubling.
    Interval(cc, 10, MSS, 0, 200000);
    alpha *= 15.0 / 16;
    rate += 1000000;
    EXPECT_EQ(cc.GetPacingRate(), static_cast<uint64_t>(rate));
    // A loss halves and leaves alpha alone, even with marks in the same interval.
    cc.OnLoss(5 * MSS, 100);
    Interval(cc, 10, MSS, 5, 240000);
    rate /= 2;
    EXPECT_DOUBLE_EQ(cc.GetAlpha(), alpha);
    EXPECT_EQ(cc.GetPacingRate(), static_cast<uint64_t>(rate));
    EXPECT_EQ(cc.GetLossReductions(), 1u);
    EXPECT_EQ(cc.GetIntervals(), 6u);
}

TEST(OffloadRateCongestionBase, TasGatesLossesBehindTheAckCount)
{
    // TAS carries every count over, losses included, until minAcks ACKs arrived: a loss
    // does not halve the rate before then (cc_dctcp_minpkts).
    Started s(Params(2000000, 0.0, 50));
    OffloadRateCongestionBase& cc = s.cc;
    cc.OnAck(MSS, false, 0, 0);
    cc.OnLoss(10 * MSS, 0);
    for (int i = 1; i <= 5; ++i)
    {
        Interval(cc, 5, MSS, 0, 40000 * i);
        EXPECT_EQ(cc.GetPacingRate(), 2000000u) << "interval " << i << ": carried over";
        EXPECT_EQ(cc.GetIntervals(), 0u);
    }
    // 26 + 24 = 50 ACKs: the loss is judged now; it ends slow start and halves the rate.
    Interval(cc, 24, MSS, 0, 240000);
    EXPECT_EQ(cc.GetIntervals(), 1u);
    EXPECT_FALSE(cc.InSlowStart());
    EXPECT_EQ(cc.GetLossReductions(), 1u);
    EXPECT_EQ(cc.GetPacingRate(), 1000000u);
}

TEST(OffloadRateCongestionBase, RobustJudgesALossAtOnce)
{
    Started s(Params(2000000, 0.0, 50, OffloadDctcpRateParams::Mode::ROBUST));
    OffloadRateCongestionBase& cc = s.cc;
    cc.OnAck(MSS, false, 0, 0);
    cc.OnLoss(10 * MSS, 0);
    Interval(cc, 0, MSS, 0, 40000);
    EXPECT_EQ(cc.GetIntervals(), 1u);
    EXPECT_EQ(cc.GetLossReductions(), 1u);
    EXPECT_EQ(cc.GetPacingRate(), 1000000u);
}

TEST(OffloadRateCongestionBase, RobustGateScalesWithTheRate)
{
    // 2 MB/s over 40 us is 80 bytes, a tenth of a segment: one ACK is enough to judge an
    // interval, where TAS would wait for 50.
    Started slow(Params(2000000, 0.0, 50, OffloadDctcpRateParams::Mode::ROBUST));
    Interval(slow.cc, 1, MSS, 0, 40000);
    EXPECT_EQ(slow.cc.GetIntervals(), 1u);
    EXPECT_EQ(slow.cc.GetPacingRate(), 4000000u) << "slow start doubled";
    Started tas(Params(2000000, 0.0, 50));
    Interval(tas.cc, 1, MSS, 0, 40000);
    EXPECT_EQ(tas.cc.GetIntervals(), 0u);
    // 1 GB/s over 40 us is 40 segments: the gate is min(50, 40 / 2) = 20 ACKs.
    Started fast(Params(1000000000, 0.0, 50, OffloadDctcpRateParams::Mode::ROBUST));
    Interval(fast.cc, 19, MSS, 0, 40000);
    EXPECT_EQ(fast.cc.GetIntervals(), 0u) << "19 ACKs: carried over";
    Interval(fast.cc, 1, MSS, 0, 80000);
    EXPECT_EQ(fast.cc.GetIntervals(), 0u) << "80 us now: the gate is min(50, 40) = 40";
    Interval(fast.cc, 20, MSS, 0, 80001);
    EXPECT_EQ(fast.cc.GetIntervals(), 1u);
}

TEST(OffloadRateCongestionBase, RobustAdditiveIncreaseScalesWithTheRtt)
{
    // After slow start, an unmarked interval of 40 us at an RTT of 20 us adds
    // additiveIncrease x MSS x 40 us / (20 us)^2 = 0.5 x 100 MB/s (segments per RTT, per RTT
    // elapsed); TAS adds its fixed step.
    for (auto mode : {OffloadDctcpRateParams::Mode::ROBUST, OffloadDctcpRateParams::Mode::TAS})
    {
        Started s(Params(500000000, 0.0, 1, mode));
        Interval(s.cc, 10, MSS, 10, 40000); // a mark ends slow start
        ASSERT_FALSE(s.cc.InSlowStart());
        Interval(s.cc, 10, MSS, 0, 80000); // (ROBUST: back from the dip, plus a step)
        const double before = s.cc.GetRate();
        Interval(s.cc, 10, MSS, 0, 120000);
        const double expected = mode == OffloadDctcpRateParams::Mode::TAS ? 1000000 : 50000000;
        EXPECT_NEAR(s.cc.GetRate() - before, expected, 1e-3);
    }
}

TEST(OffloadRateCongestionBase, RobustMarksCutOncePerRoundAsADip)
{
    // A window DCTCP cut drains alpha/2 of a window once; ROBUST dips by alpha/2 x RTT /
    // interval for one interval, ignores the marks on data sent before the dip, and returns.
    auto p = Params(400000000, 0.5, 1, OffloadDctcpRateParams::Mode::ROBUST);
    Started s(p);
    OffloadRateCongestionBase& cc = s.cc;
    // marked interval of 40 us at an RTT of 20 us: alpha = 15/16 0.5 + 1/16, dip by alpha/4
    for (int i = 0; i < 10; ++i)
    {
        cc.OnAck(MSS, true, MSS * (i + 1), 100 * MSS);
    }
    cc.OnControlInterval(40000, 20000);
    const double alpha = 15.0 / 16 * 0.5 + 1.0 / 16;
    EXPECT_DOUBLE_EQ(cc.GetAlpha(), alpha);
    EXPECT_NEAR(cc.GetRate(), 400000000 * (1 - alpha / 4), 1e-3);
    EXPECT_EQ(cc.GetEceReductions(), 1u);
    // marks on data sent before the dip (snd_una below 100 MSS): no second cut, the rate
    // comes back from the dip
    for (int i = 0; i < 10; ++i)
    {
        cc.OnAck(MSS, true, MSS * (20 + i), 150 * MSS);
    }
    cc.OnControlInterval(80000, 20000);
    EXPECT_EQ(cc.GetEceReductions(), 1u);
    EXPECT_GE(cc.GetRate(), 400000000.0);
    // a mark on data sent after it cuts again
    cc.OnAck(MSS, true, 101 * MSS, 150 * MSS);
    cc.OnControlInterval(120000, 20000);
    EXPECT_EQ(cc.GetEceReductions(), 2u);
}

TEST(OffloadRateCongestionBase, TasClampsToTheMeasuredRateAndZeroIsUnpaced)
{
    auto p = Params(8000000, 0.0, 2);
    p.rateClamp = 1.2;
    p.minRate = 0;
    Started s(p);
    OffloadRateCongestionBase& cc = s.cc;
    // 4 ACKs of 1000 bytes in 1 ms: measured 4 MB/s (its EWMA 0.5 MB/s), the rate is clamped
    // to 1.2 x 4 = 4.8 MB/s, then slow start doubles it.
    Interval(cc, 4, MSS, 0, 1000000);
    EXPECT_DOUBLE_EQ(cc.GetMeasuredRate(), 4000000.0 / 8);
    EXPECT_EQ(cc.GetPacingRate(), 9600000u);
    // An interval of duplicate ACKs only (no byte acknowledged): measured 0, EWMA 0.4375 MB/s,
    // clamp to 1.2 x max(0, 0.4375) = 0.525 MB/s, doubled.
    Interval(cc, 3, 0, 0, 2000000);
    EXPECT_EQ(cc.GetPacingRate(), 1050000u);
    // Many more: the EWMA decays, the clamp takes the rate to 0, and TAS's minimum is 0 -- a
    // flow whose rate is 0 is not paced at all (TAS's queue manager).
    for (int i = 3; i < 400; ++i)
    {
        Interval(cc, 3, 0, 0, 1000000ull * i);
    }
    EXPECT_EQ(cc.GetPacingRate(), 0u) << "rate 0 means unpaced";
    // The robust mode never unpaces: a measured rate of 0 does not clamp.
    p.mode = OffloadDctcpRateParams::Mode::ROBUST;
    p.minRate = 100000;
    Started r(p);
    for (int i = 1; i < 50; ++i)
    {
        Interval(r.cc, 3, 0, 0, 1000000ull * i);
    }
    EXPECT_GT(r.cc.GetPacingRate(), 0u);
}

TEST(OffloadRateCongestionBase, TasMeasuresCarriedBytesOverTheLastIntervalOnly)
{
    // TAS divides the carried-over acknowledged bytes by the time since the previous
    // control-loop run (cc_last_ts moves on every run): 5 ACKs carried over 4 runs of 10 us
    // read as 5000 bytes in 10 us. ROBUST divides by the 50 us they took.
    for (auto mode : {OffloadDctcpRateParams::Mode::TAS, OffloadDctcpRateParams::Mode::ROBUST})
    {
        auto p = Params(1000000000, 0.0, 5, mode); // fast enough for the robust gate to be 5
        Started s(p);
        for (int i = 1; i <= 4; ++i)
        {
            Interval(s.cc, 1, MSS, 0, 10000 * i);
        }
        Interval(s.cc, 1, MSS, 0, 50000);
        const double measured =
            mode == OffloadDctcpRateParams::Mode::TAS ? 5000.0 / 10e-6 : 5000.0 / 50e-6;
        EXPECT_EQ(s.cc.GetIntervals(), 1u);
        EXPECT_DOUBLE_EQ(s.cc.GetMeasuredRate(), measured / 8);
    }
}

TEST(OffloadRateCongestionBase, BoundsAndCarryOver)
{
    auto p = Params(200000, 1.0, 5);
    p.maxRate = 700000;
    Started s(p);
    OffloadRateCongestionBase& cc = s.cc;
    // Fewer than minAcks ACKs: carried over, nothing changes.
    Interval(cc, 4, MSS, 0, 40000);
    EXPECT_EQ(cc.GetIntervals(), 0u);
    EXPECT_EQ(cc.GetPacingRate(), 200000u);
    EXPECT_DOUBLE_EQ(cc.GetAlpha(), 1.0);
    // One more ACK (marked): the 5 ACKs are judged together, F = 1000 / 5000.
    Interval(cc, 1, MSS, 1, 80000);
    EXPECT_EQ(cc.GetIntervals(), 1u);
    const double alpha = 15.0 / 16 + 0.2 / 16;
    EXPECT_DOUBLE_EQ(cc.GetAlpha(), alpha);
    EXPECT_EQ(cc.GetPacingRate(), static_cast<uint64_t>(200000 * (1 - alpha / 2)));
    // Additive increase stops at maxRate.
    for (int i = 0; i < 10; ++i)
    {
        Interval(cc, 5, MSS, 0, 120000 + 40000 * i);
    }
    EXPECT_EQ(cc.GetPacingRate(), 700000u);
    // Full marking cuts towards but never below minRate.
    for (int i = 0; i < 100; ++i)
    {
        Interval(cc, 5, MSS, 5, 1000000 + 40000 * i);
    }
    EXPECT_EQ(cc.GetPacingRate(), p.minRate);
    // An idle interval (no ACK, no loss) changes nothing, so an idle flow keeps its rate.
    cc.OnControlInterval(9000000, 20000);
    EXPECT_EQ(cc.GetPacingRate(), p.minRate);
}

TEST(OffloadRateCongestionBase, AlphaConvergesToTheMarkedFraction)
{
    Started s(Params(50000000, 1.0));
    OffloadRateCongestionBase& cc = s.cc;
    Interval(cc, 20, MSS, 20, 40000); // leave slow start
    double expected = 1.0;
    for (int i = 1; i <= 200; ++i)
    {
        Interval(cc, 20, MSS, 5, 40000 * (i + 1)); // 25 % of the acknowledged bytes marked
        expected = 0.25 + 0.75 * std::pow(15.0 / 16, i);
        ASSERT_NEAR(cc.GetAlpha(), expected, 1e-12) << "interval " << i;
    }
    EXPECT_NEAR(cc.GetAlpha(), 0.25, 1e-5);
    // Marked bytes count, not marked ACKs: 2 marked ACKs of 3000 bytes among 8 of 1000.
    Started b(Params(50000000, 0.0));
    for (int i = 0; i < 300; ++i)
    {
        b.cc.OnAck(3000, true, 0, 0);
        b.cc.OnAck(3000, true, 0, 0);
        for (int k = 0; k < 8; ++k)
        {
            b.cc.OnAck(1000, false, 0, 0);
        }
        b.cc.OnControlInterval(40000 * (i + 1), 20000);
    }
    EXPECT_NEAR(b.cc.GetAlpha(), 6000.0 / 14000.0, 1e-6);
}

TEST(OffloadRateCongestionBase, BadParametersAreRefused)
{
    auto bad = [](auto mutate) {
        auto p = Params(1000000);
        mutate(p);
        return p;
    };
    EXPECT_THROW(OffloadRateCongestionBase(0, Params(1000000)), PrestoInputError);
    EXPECT_THROW(OffloadRateCongestionBase(MSS, bad([](auto& p) { p.maxRate = 1; })),
                 PrestoInputError);
    EXPECT_THROW(OffloadRateCongestionBase(MSS, bad([](auto& p) { p.maxRate = 0; })),
                 PrestoInputError);
    EXPECT_THROW(OffloadRateCongestionBase(MSS, bad([](auto& p) { p.initialRate = 1; })),
                 PrestoInputError);
    EXPECT_THROW(OffloadRateCongestionBase(MSS, bad([](auto& p) { p.initialRate = 0; })),
                 PrestoInputError);
    EXPECT_THROW(OffloadRateCongestionBase(MSS, bad([](auto& p) { p.minAcks = 0; })),
                 PrestoInputError);
    EXPECT_THROW(OffloadRateCongestionBase(MSS, bad([](auto& p) { p.gain = 0; })),
                 PrestoInputError);
    EXPECT_THROW(OffloadRateCongestionBase(MSS, bad([](auto& p) { p.alphaInit = 1.5; })),
                 PrestoInputError);
    EXPECT_THROW(OffloadRateCongestionBase(MSS, bad([](auto& p) { p.rateClamp = 0.5; })),
                 PrestoInputError);
    // TAS allows a minimum of 0 (unpaced); the robust mode does not
    EXPECT_NO_THROW(OffloadRateCongestionBase(MSS, bad([](auto& p) { p.minRate = 0; })));
    EXPECT_THROW(OffloadRateCongestionBase(MSS, bad([](auto& p) {
                                               p.minRate = 0;
                                               p.mode = OffloadDctcpRateParams::Mode::ROBUST;
                                           })),
                 PrestoInputError);
    OffloadTcpConfig c;
    c.controlIntervalRtts = 0;
    EXPECT_THROW(OffloadTcpConnection(c, 1, 1, 1000), PrestoInputError);
}

TEST(OffloadRateCongestionBase, TheConnectionRunsItsControlLoop)
{
    OffloadTcpConfig c;
    c.mss = MSS;
    c.controlIntervalRtts = 3;
    c.controlRttInitNs = 40000;
    OffloadTcpConnection conn(c,
                              1,
                              1,
                              64 * MSS,
                              Create<OffloadRateCongestionBase>(MSS, Params(3000000)));
    EXPECT_EQ(conn.GetPacingRate(), 3000000u);
    EXPECT_TRUE(conn.UsesControlLoop());
    EXPECT_EQ(conn.GetControlIntervalNs(), 120000u); // 3 x the initial RTT guess
    EXPECT_NE(dynamic_cast<const OffloadRateCongestionBase*>(&conn.GetCongestion()), nullptr);
}

TEST(OffloadRateCongestionBase, PacingSpacesSegmentsAtTheRate)
{
    OffloadTcpConfig c;
    c.mss = MSS;
    c.txBufferSize = 1 << 20;
    auto p = Params(100000000); // 100 MB/s: one 1000-byte segment per 10 us
    p.minRate = p.maxRate = 100000000;
    OffloadTcpConnection conn(c, 1, 1, 1 << 20, Create<OffloadRateCongestionBase>(MSS, p));
    ASSERT_EQ(conn.AppSend(500 * MSS), 500 * MSS);
    const uint64_t gap = MSS * 1000000000ull / 100000000;
    uint64_t now = 1000;
    std::vector<uint64_t> sent;
    for (int i = 0; i < 200; ++i)
    {
        auto s = conn.NextSegment(now);
        ASSERT_TRUE(s.has_value()) << "segment " << i;
        EXPECT_EQ(s->seg.payloadLen, MSS);
        sent.push_back(now);
        // Nothing more until the rate allows it, although both windows are wide open.
        EXPECT_FALSE(conn.NextSegment(now).has_value());
        EXPECT_FALSE(conn.NextSegment(conn.GetNextSendTimeNs() - 1).has_value());
        EXPECT_EQ(conn.GetNextSendTimeNs(), now + gap);
        // The device wakes up at the next allowed time, sometimes a little late.
        now = conn.GetNextSendTimeNs() + (i % 7 == 0 ? 300 : 0);
    }
    // Over any prefix, bytes sent never exceed rate x elapsed time + one segment.
    for (size_t i = 0; i < sent.size(); ++i)
    {
        const double allowed = 1e-9 * 100000000 * static_cast<double>(sent[i] - sent[0]) + MSS;
        EXPECT_LE(static_cast<double>((i + 1) * MSS), allowed) << "segment " << i;
    }
    EXPECT_EQ(conn.GetCounters().dataSegmentsSent, 200u);
}

TEST(OffloadRateCongestionBase, WindowBasedSenderIsNotPaced)
{
    OffloadTcpConfig c;
    c.mss = MSS;
    OffloadTcpConnection conn(c, 1, 1, 1 << 20); // window DCTCP, the default
    conn.AppSend(100 * MSS);
    EXPECT_EQ(conn.GetPacingRate(), 0u);
    EXPECT_FALSE(conn.UsesControlLoop());
    int n = 0;
    while (conn.NextSegment(5000))
    {
        ++n;
    }
    EXPECT_EQ(n, 10); // the initial window, back to back at one instant
    EXPECT_EQ(conn.GetNextSendTimeNs(), 0u);
    conn.OnControlInterval(10000); // a no-op for window-based DCTCP
    EXPECT_EQ(conn.GetCwnd(), 10 * MSS);
}

// ---------------------------------------------------------------------------------------
// Loopback: two paced connections through a lossy, marking channel (a reduced copy of the
// harness in offload-tcp-connection-test.cc, plus pacing wake-ups and control intervals)
// ---------------------------------------------------------------------------------------

namespace
{

class PacedLoopback
{
  public:
    struct Node
    {
        std::unique_ptr<OffloadTcpConnection> conn;
        uint32_t iss{0};
        uint32_t irs{0};
        std::vector<uint8_t> out;
        uint64_t appended{0};
        bool closed{false};
        std::vector<uint8_t> in;    //!< received stream (read at once)
        std::vector<uint8_t> stash; //!< receive buffer by stream offset
        std::vector<uint8_t> have;  //!< stash byte valid
        uint64_t deliveredEnd{0};
        uint64_t ceMarked{0};
        uint64_t dataPackets{0};
        uint64_t dataLost{0};
        uint64_t paceViolations{0}; //!< data sent before the allowed time
        bool wakeScheduled{false};
    };

    Node n[2];
    uint64_t now{0};
    uint64_t failures{0};
    double loss{0};
    uint32_t ceEvery{0};
    uint64_t slotNs{1000}; //!< link: 1000 bytes per us (1 GB/s)
    uint64_t propNs{5000};

    PacedLoopback(const OffloadTcpConfig& cfg,
                  const OffloadDctcpRateParams& rate,
                  uint64_t bytesAB,
                  uint64_t bytesBA,
                  uint64_t seed)
        : m_rng(seed)
    {
        n[0].iss = 1000;
        n[0].irs = 4000000000u;
        n[1].iss = 4000000000u;
        n[1].irs = 1000;
        n[0].out.resize(bytesAB);
        n[1].out.resize(bytesBA);
        for (auto& node : n)
        {
            for (auto& b : node.out)
            {
                b = static_cast<uint8_t>(m_rng());
            }
            node.conn = std::make_unique<OffloadTcpConnection>(
                cfg,
                node.iss,
                node.irs,
                cfg.rxBufferSize,
                Create<OffloadRateCongestionBase>(cfg.mss, rate));
        }
        n[0].stash.resize(bytesBA);
        n[0].have.resize(bytesBA);
        n[1].stash.resize(bytesAB);
        n[1].have.resize(bytesAB);
    }

    bool Run(uint64_t limitNs)
    {
        for (int i = 0; i < 2; ++i)
        {
            Push(20000, SCAN, i);
            Push(n[i].conn->GetControlIntervalNs(), CTRL, i);
            Pump(i);
        }
        while (!m_q.empty() && !Done())
        {
            Event e = m_q.top();
            m_q.pop();
            now = e.t;
            if (now > limitNs)
            {
                return false;
            }
            Node& node = n[e.node];
            switch (e.type)
            {
            case ARRIVE:
                Arrive(e.node, e.seg, e.payload);
                break;
            case SCAN:
                if (node.conn->OnTimerScan(now).WantsSend())
                {
                    Pump(e.node);
                }
                Push(now + 20000, SCAN, e.node);
                break;
            case CTRL:
                node.conn->OnControlInterval(now);
                Push(now + node.conn->GetControlIntervalNs(), CTRL, e.node);
                break;
            case WAKE:
                node.wakeScheduled = false;
                Pump(e.node);
                break;
            }
        }
        return Done();
    }

    bool Done() const
    {
        for (int i = 0; i < 2; ++i)
        {
            if (n[i].in.size() != n[1 - i].out.size() || !n[i].conn->IsPeerClosed() ||
                !n[i].conn->IsFinAcked())
            {
                return false;
            }
        }
        return true;
    }

  private:
    enum Type
    {
        ARRIVE,
        SCAN,
        CTRL,
        WAKE
    };

    struct Event
    {
        uint64_t t;
        uint64_t order;
        Type type;
        int node;
        OffloadSegment seg;
        std::vector<uint8_t> payload;
    };

    struct Later
    {
        bool operator()(const Event& a, const Event& b) const
        {
            return a.t != b.t ? a.t > b.t : a.order > b.order;
        }
    };

    void Push(uint64_t t, Type type, int node)
    {
        m_q.push(Event{t, m_order++, type, node, {}, {}});
    }

    void Fail(const std::string& what)
    {
        if (++failures <= 5)
        {
            ADD_FAILURE() << "t=" << now << " ns: " << what;
        }
    }

    void Transmit(int i, OffloadSegment seg)
    {
        Node& src = n[i];
        std::vector<uint8_t> payload;
        if (seg.payloadLen > 0)
        {
            const uint64_t off = static_cast<uint32_t>(seg.seq - (src.iss + 1));
            if (off + seg.payloadLen > src.appended)
            {
                Fail("sent bytes the application never gave");
                return;
            }
            payload.assign(src.out.begin() + off, src.out.begin() + off + seg.payloadLen);
            if (ceEvery != 0 && ++src.dataPackets % ceEvery == 0)
            {
                seg.ce = true;
                ++src.ceMarked;
            }
        }
        const uint64_t tx = seg.payloadLen > 0 ? slotNs : slotNs / 16;
        const uint64_t dep = std::max(now, m_linkFree[i]);
        m_linkFree[i] = dep + tx;
        if (std::uniform_real_distribution<double>(0, 1)(m_rng) < loss)
        {
            src.dataLost += seg.payloadLen > 0 ? 1 : 0;
            return;
        }
        m_q.push(Event{dep + tx + propNs, m_order++, ARRIVE, 1 - i, seg, payload});
    }

    void Arrive(int i, const OffloadSegment& seg, const std::vector<uint8_t>& payload)
    {
        Node& node = n[i];
        auto d = node.conn->OnSegment(seg, now);
        for (uint32_t j = 0; j < d.writeLen; ++j)
        {
            const uint64_t off = static_cast<uint32_t>(d.writeSeq + j - (node.irs + 1));
            if (off >= node.stash.size())
            {
                Fail("write beyond the stream");
                return;
            }
            node.stash[off] = payload[d.writeSeq - seg.seq + j];
            node.have[off] = 1;
        }
        for (uint32_t j = 0; j < d.delivered; ++j)
        {
            const uint64_t off = node.deliveredEnd + j;
            if (off >= node.have.size() || !node.have[off])
            {
                Fail("delivered a byte never written");
                return;
            }
            node.in.push_back(node.stash[off]);
        }
        node.deliveredEnd += d.delivered;
        if (d.sendAck)
        {
            Transmit(i, d.ackSegment);
        }
        if (d.delivered > 0)
        {
            if (auto upd = node.conn->AppRead(d.delivered))
            {
                Transmit(i, *upd);
            }
        }
        Pump(i);
    }

    void Pump(int i)
    {
        Node& node = n[i];
        while (node.appended < node.out.size())
        {
            const uint32_t got = node.conn->AppSend(
                static_cast<uint32_t>(std::min<uint64_t>(node.out.size() - node.appended, 65536)));
            if (got == 0)
            {
                break;
            }
            node.appended += got;
        }
        if (node.appended == node.out.size() && !node.closed)
        {
            node.conn->AppClose();
            node.closed = true;
        }
        for (int guard = 0; guard < 100000; ++guard)
        {
            const uint64_t allowed = node.conn->GetNextSendTimeNs();
            auto s = node.conn->NextSegment(now);
            if (!s)
            {
                break;
            }
            if (!s->probe && s->seg.payloadLen > 0 && now < allowed)
            {
                ++node.paceViolations;
            }
            Transmit(i, s->seg);
        }
        // Paced out: the NIC's scheduler wakes this flow at its next allowed time.
        if (!node.wakeScheduled && node.conn->GetNextSendTimeNs() > now)
        {
            node.wakeScheduled = true;
            Push(node.conn->GetNextSendTimeNs(), WAKE, i);
        }
    }

    std::mt19937_64 m_rng;
    std::priority_queue<Event, std::vector<Event>, Later> m_q;
    uint64_t m_order{0};
    uint64_t m_linkFree[2]{0, 0};
};

OffloadTcpConfig
RateConfig()
{
    OffloadTcpConfig c;
    c.mss = MSS;
    c.rxBufferSize = 64 * MSS;
    c.txBufferSize = 64 * MSS;
    c.minRtoNs = 200000;
    c.initialRtoNs = 1000000;
    c.maxRtoNs = 4000000;
    c.controlRttInitNs = 15000;
    return c;
}

OffloadDctcpRateParams
RateParams(OffloadDctcpRateParams::Mode mode)
{
    OffloadDctcpRateParams p;
    p.mode = mode;
    p.alphaInit = 1.0;
    p.initialRate = 50000000; // 50 MB/s, a twentieth of the 1 GB/s link
    p.step = 5000000;
    p.minRate = 5000000;
    p.maxRate = 1000000000; // the line rate
    p.minAcks = 4;
    return p;
}

} // namespace

TEST(OffloadRateCongestionBase, LoopbackDeliversByteExactlyWithMarksAndLoss)
{
    for (auto mode : {OffloadDctcpRateParams::Mode::TAS, OffloadDctcpRateParams::Mode::ROBUST})
        for (double loss : {0.0, 0.01})
        {
            PacedLoopback lb(RateConfig(), RateParams(mode), 1500000, 300000, loss > 0 ? 7 : 5);
            lb.loss = loss;
            lb.ceEvery = 8;
            const std::string label =
                std::string(mode == OffloadDctcpRateParams::Mode::TAS ? "TAS" : "robust") +
                ", loss " + std::to_string(loss);
            ASSERT_TRUE(lb.Run(20000000000ull))
                << label << ": A read " << lb.n[0].in.size() << ", B read " << lb.n[1].in.size();
            EXPECT_EQ(lb.failures, 0u) << label;
            EXPECT_TRUE(lb.n[1].in == lb.n[0].out) << label << ": A -> B differs";
            EXPECT_TRUE(lb.n[0].in == lb.n[1].out) << label << ": B -> A differs";
            const auto& a = *lb.n[0].conn;
            const auto& cc = dynamic_cast<const OffloadRateCongestionBase&>(a.GetCongestion());
            EXPECT_EQ(lb.n[0].paceViolations + lb.n[1].paceViolations, 0u) << label;
            EXPECT_GT(lb.n[0].ceMarked, 0u) << label;
            if (loss == 0)
            {
                EXPECT_EQ(a.GetCounters().eceReceived, lb.n[0].ceMarked) << label; // exact echo
            }
            else
            {
                // A lost marked packet or a lost ECE-carrying ACK is echoed once or not at all.
                EXPECT_LE(a.GetCounters().eceReceived, lb.n[0].ceMarked) << label;
                EXPECT_GT(a.GetCounters().eceReceived, 0u) << label;
            }
            EXPECT_GT(cc.GetIntervals(), 10u) << label;
            EXPECT_GT(cc.GetEceReductions(), 0u) << label;
            EXPECT_FALSE(cc.InSlowStart()) << label;
            // One mark per 8 data packets: alpha tracks 1/8 loosely (intervals hold few packets).
            EXPECT_GT(cc.GetAlpha(), 0.05) << label;
            EXPECT_LT(cc.GetAlpha(), 0.5) << label;
            if (loss > 0)
            {
                EXPECT_GT(a.GetCounters().retransmittedSegments, 0u) << label;
            }
            // Paced below the line rate, so the transfer takes longer than the bytes at 1 GB/s.
            EXPECT_GT(lb.now, 1500000u) << label;
        }
}
