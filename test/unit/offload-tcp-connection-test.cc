/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/offload-reassembly.h"
#include "ns3/offload-tcp-connection.h"
#include "ns3/offload-window-congestion.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <gtest/gtest.h>
#include <memory>
#include <queue>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t MSS = 1000;

bool
SeqLeq(uint32_t a, uint32_t b)
{
    return static_cast<int32_t>(a - b) <= 0;
}

OffloadTcpConfig
SmallConfig(uint32_t fidelity = 1)
{
    OffloadTcpConfig c;
    c.mss = MSS;
    c.fidelity = fidelity;
    c.rxBufferSize = 64 * MSS;
    c.txBufferSize = 64 * MSS;
    c.initialCwndSegments = 10;
    c.minRtoNs = 200000;      // 200 us
    c.initialRtoNs = 1000000; // 1 ms
    c.maxRtoNs = 4000000;     // 4 ms
    return c;
}

/// The congestion control of a test connection: NewReno (the default here) or DCTCP with
/// RFC 8257's g = 1/16 and alpha = 1.
Ptr<OffloadCongestionControl>
MakeCc(const OffloadTcpConfig& c, bool dctcp)
{
    if (dctcp)
    {
        return Create<OffloadDctcpCongestion>(c.mss, c.initialCwndSegments, 1.0 / 16, 1.0);
    }
    return Create<OffloadNewRenoCongestion>(c.mss, c.initialCwndSegments);
}

/// Everything NextSegment is willing to send now.
std::vector<OffloadTxSegment>
Drain(OffloadTcpConnection& c, uint64_t now)
{
    std::vector<OffloadTxSegment> v;
    while (auto s = c.NextSegment(now))
    {
        v.push_back(*s);
        if (v.size() > 100000)
        {
            ADD_FAILURE() << "NextSegment never stops";
            break;
        }
    }
    return v;
}

/// Two connected endpoints, fed by hand.
struct Pair
{
    static constexpr uint32_t ISS_A = 1000;
    static constexpr uint32_t ISS_B = 900000;
    OffloadTcpConnection a;
    OffloadTcpConnection b;

    explicit Pair(const OffloadTcpConfig& ca, const OffloadTcpConfig& cb, bool dctcp = false)
        : a(ca, ISS_A, ISS_B, cb.rxBufferSize, MakeCc(ca, dctcp)),
          b(cb, ISS_B, ISS_A, ca.rxBufferSize, MakeCc(cb, dctcp))
    {
    }

    explicit Pair(const OffloadTcpConfig& c, bool dctcp = false)
        : Pair(c, c, dctcp)
    {
    }

    /// Sends what A has for B and feeds B's ACKs back to A until nothing moves.
    void Exchange(uint64_t nowNs)
    {
        for (int round = 0; round < 1000; ++round)
        {
            bool moved = false;
            while (auto t = a.NextSegment(nowNs))
            {
                moved = true;
                auto d = b.OnSegment(t->seg, nowNs);
                if (d.sendAck)
                {
                    a.OnSegment(d.ackSegment, nowNs);
                }
            }
            if (!moved)
            {
                return;
            }
        }
    }

    /// A pure ACK from B with the given ack number and window (as B would send it).
    OffloadSegment AckFromB(uint32_t ack, uint32_t window) const
    {
        OffloadSegment s;
        s.seq = b.GetSndMax();
        s.ack = ack;
        s.window = window;
        s.flags = OffloadSegment::ACK;
        return s;
    }
};

} // namespace

// ---------------------------------------------------------------------------------------
// Hand-fed behaviour
// ---------------------------------------------------------------------------------------

TEST(OffloadTcpConnection, InOrderTransferAcksEverySegment)
{
    Pair p(SmallConfig());
    EXPECT_EQ(p.a.AppSend(2500), 2500u);
    auto segs = Drain(p.a, 0);
    ASSERT_EQ(segs.size(), 3u);
    EXPECT_EQ(segs[0].seg.seq, Pair::ISS_A + 1);
    EXPECT_EQ(segs[0].seg.payloadLen, MSS);
    EXPECT_EQ(segs[2].seg.payloadLen, 500u); // the tail goes at once (no Nagle)
    EXPECT_TRUE(segs[0].seg.Has(OffloadSegment::ACK));
    EXPECT_EQ(segs[0].seg.ack, Pair::ISS_B + 1);
    uint32_t delivered = 0;
    for (const auto& s : segs)
    {
        auto d = p.b.OnSegment(s.seg, 10);
        EXPECT_EQ(d.verdict, ReassemblyTracker::IN_ORDER);
        EXPECT_EQ(d.writeSeq, s.seg.seq);
        EXPECT_EQ(d.writeLen, s.seg.payloadLen);
        ASSERT_TRUE(d.sendAck);
        EXPECT_EQ(d.ackSegment.ack, s.seg.seq + s.seg.payloadLen);
        EXPECT_FALSE(d.ackSegment.Has(OffloadSegment::ECE));
        delivered += d.delivered;
        EXPECT_EQ(d.ackSegment.window, 64 * MSS - delivered); // unread bytes hold buffer
        auto r = p.a.OnSegment(d.ackSegment, 20);
        EXPECT_EQ(r.ackedBytes, s.seg.payloadLen);
        EXPECT_FALSE(r.sendAck); // pure ACKs are not answered
    }
    EXPECT_EQ(delivered, 2500u);
    EXPECT_EQ(p.b.GetRxUnread(), 2500u);
    EXPECT_EQ(p.a.GetSndUna(), Pair::ISS_A + 1 + 2500);
    EXPECT_EQ(p.a.GetTxBuffered(), 0u);
    EXPECT_FALSE(p.a.IsRtoArmed());              // everything acknowledged: timer stopped
    EXPECT_EQ(p.a.GetCounters().rttSamples, 1u); // one timed segment at a time
    EXPECT_EQ(p.b.GetCounters().inOrder, 3u);
    EXPECT_EQ(p.b.GetCounters().acksSent, 3u);
}

TEST(OffloadTcpConnection, GoBackNExactlyAtThirdDuplicateAck)
{
    Pair p(SmallConfig(1));
    p.a.AppSend(10 * MSS);
    auto segs = Drain(p.a, 0);
    ASSERT_EQ(segs.size(), 10u); // initial window
    std::vector<OffloadSegment> acks;
    for (size_t i = 0; i < segs.size(); ++i)
    {
        if (i == 1)
        {
            continue; // lost
        }
        auto d = p.b.OnSegment(segs[i].seg, 5);
        ASSERT_TRUE(d.sendAck);
        acks.push_back(d.ackSegment);
    }
    EXPECT_EQ(p.b.GetCounters().outOfOrderPlaced, 8u); // K = 1: one growing interval
    const uint32_t hole = segs[1].seg.seq;
    auto r0 = p.a.OnSegment(acks[0], 10);
    EXPECT_EQ(r0.ackedBytes, MSS);
    const uint32_t nxt = p.a.GetSndNxt();
    for (size_t i = 1; i < acks.size(); ++i)
    {
        ASSERT_EQ(acks[i].ack, hole);
        auto r = p.a.OnSegment(acks[i], 10 + i);
        EXPECT_EQ(p.a.GetCounters().dupAcks, i);
        if (i < 3)
        {
            EXPECT_FALSE(r.goBackN) << "duplicate " << i;
            EXPECT_EQ(p.a.GetSndNxt(), nxt);
        }
        else if (i == 3)
        {
            EXPECT_TRUE(r.goBackN);
            EXPECT_EQ(p.a.GetSndNxt(), hole);
        }
        else
        {
            EXPECT_FALSE(r.goBackN) << "duplicate " << i; // once per window
        }
    }
    EXPECT_EQ(p.a.GetCounters().goBackN, 1u);
    // Go-back-N: the first segment out is the hole, flagged as a retransmission.
    auto re = Drain(p.a, 30);
    ASSERT_FALSE(re.empty());
    EXPECT_EQ(re[0].seg.seq, hole);
    EXPECT_TRUE(re[0].retransmission);
    uint32_t inFlight = 0;
    for (const auto& s : re)
    {
        inFlight += s.seg.payloadLen;
    }
    EXPECT_LE(inFlight, p.a.GetCwnd()); // re-sending obeys the (reduced) window
    // The hole arrives: the receiver's cumulative ACK jumps over the interval.
    auto d = p.b.OnSegment(re[0].seg, 40);
    EXPECT_EQ(d.delivered, 9 * MSS);
    auto r = p.a.OnSegment(d.ackSegment, 50);
    EXPECT_EQ(r.ackedBytes, 9 * MSS);
    EXPECT_EQ(p.a.GetSndUna(), segs[9].seg.seq + MSS);
    EXPECT_EQ(p.a.GetSndNxt(), p.a.GetSndUna()); // nothing below the ACK is re-sent
}

/// With 2^30 bytes in flight and a 2^30-byte peer window, snd_una - MAX.SND.WND lies 2^31
/// behind snd_max: the too-old test must not wrap and refuse the ACK of everything sent.
TEST(OffloadTcpConnection, AckOfAWholeMaximalWindowIsNotTooOld)
{
    OffloadTcpConfig cfg;
    cfg.mss = 1u << 20;
    cfg.initialCwndSegments = 1024; // cwnd 2^30
    cfg.txBufferSize = 1u << 30;
    const uint32_t iss = 1000;
    OffloadTcpConnection c(cfg, iss, 5000, 1u << 30, nullptr);
    ASSERT_EQ(c.AppSend(1u << 30), 1u << 30);
    while (c.NextSegment(0))
    {
    }
    const OffloadSendState before = c.GetSendState();
    ASSERT_EQ(before.sndMax - before.sndUna, 1u << 30) << "the whole window in flight";
    OffloadSegment ack;
    ack.flags = OffloadSegment::ACK;
    ack.seq = 5001;
    ack.ack = before.sndMax;
    ack.window = 1u << 30;
    const OffloadRxDecision d = c.OnSegment(ack, 1000);
    EXPECT_FALSE(d.unacceptable);
    EXPECT_EQ(d.ackedBytes, 1u << 30);
    EXPECT_EQ(c.GetSndUna(), before.sndMax);
    EXPECT_EQ(c.GetCounters().ackTooOld, 0u);
}

TEST(OffloadTcpConnection, DuplicateAckDefinition)
{
    Pair p(SmallConfig());
    p.a.AppSend(5 * MSS);
    Drain(p.a, 0);
    const uint32_t una = p.a.GetSndUna();
    const uint32_t w = 64 * MSS;
    // Window changes are window updates, not duplicates.
    p.a.OnSegment(p.AckFromB(una, w - 1), 1);
    p.a.OnSegment(p.AckFromB(una, w - 2), 1);
    EXPECT_EQ(p.a.GetCounters().dupAcks, 0u);
    // Segments carrying data are not duplicate ACKs either.
    OffloadSegment data = p.AckFromB(una, w - 2);
    data.payloadLen = 10;
    data.seq = Pair::ISS_B + 1;
    p.a.OnSegment(data, 1);
    EXPECT_EQ(p.a.GetCounters().dupAcks, 0u);
    p.a.OnSegment(p.AckFromB(una, w - 2), 1);
    EXPECT_EQ(p.a.GetCounters().dupAcks, 1u);
    // Without outstanding data an unchanged ACK is not a duplicate.
    p.a.OnSegment(p.AckFromB(p.a.GetSndMax(), w - 2), 2);
    p.a.OnSegment(p.AckFromB(p.a.GetSndMax(), w - 2), 2);
    EXPECT_EQ(p.a.GetCounters().dupAcks, 1u);
}

TEST(OffloadTcpConnection, NoRepeatedGoBackNUntilRecoveryPointPassed)
{
    auto cfg = SmallConfig();
    cfg.initialCwndSegments = 20;
    Pair p(cfg);
    p.a.AppSend(40 * MSS);
    auto first = Drain(p.a, 0);
    ASSERT_EQ(first.size(), 20u);
    const uint32_t base = Pair::ISS_A + 1;
    const uint32_t w = 64 * MSS;
    auto dup3 = [&](uint32_t ack) {
        uint64_t before = p.a.GetCounters().goBackN;
        for (int i = 0; i < 3; ++i)
        {
            p.a.OnSegment(p.AckFromB(ack, w), 1);
        }
        return p.a.GetCounters().goBackN - before;
    };
    EXPECT_EQ(dup3(base), 1u);
    const uint32_t recover = base + 20 * MSS; // snd_max at the go-back-N
    EXPECT_EQ(dup3(base), 0u);
    // A partial ACK inside the recovery window, then three duplicates of it: no new go-back-N.
    p.a.OnSegment(p.AckFromB(base + 5 * MSS, w), 2);
    EXPECT_EQ(dup3(base + 5 * MSS), 0u);
    // Re-send the rest and get everything up to exactly the recovery point acknowledged.
    Drain(p.a, 3);
    p.a.OnSegment(p.AckFromB(recover, w), 4);
    auto more = Drain(p.a, 5); // new data beyond the recovery point
    ASSERT_FALSE(more.empty());
    ASSERT_FALSE(more[0].retransmission);
    // Duplicates of exactly the recovery point may come from our own re-sent copies: ignored.
    EXPECT_EQ(dup3(recover), 0u);
    // Once snd_una is beyond it, a new loss triggers go-back-N again.
    p.a.OnSegment(p.AckFromB(recover + MSS, w), 6);
    EXPECT_EQ(dup3(recover + MSS), 1u);
    EXPECT_EQ(p.a.GetSndNxt(), recover + MSS);
    EXPECT_EQ(p.a.GetCounters().goBackN, 2u);
}

TEST(OffloadTcpConnection, RtoFollowsRfc6298WithBackoffAndKarn)
{
    auto cfg = SmallConfig();
    Pair p(cfg);
    EXPECT_EQ(p.a.GetRtoNs(), cfg.initialRtoNs);
    const uint32_t base = Pair::ISS_A + 1;
    auto sendAndAck = [&](uint64_t sendT, uint64_t ackT) {
        p.a.AppSend(MSS);
        auto s = Drain(p.a, sendT);
        EXPECT_EQ(s.size(), 1u);
        p.a.OnSegment(p.AckFromB(p.a.GetSndMax(), 64 * MSS), ackT);
    };
    // Sample 1 = 100 us: SRTT = 100 us, RTTVAR = 50 us, RTO = 100 + 4 * 50 = 300 us.
    sendAndAck(0, 100000);
    EXPECT_EQ(p.a.GetSrttNs(), 100000);
    EXPECT_EQ(p.a.GetRttVarNs(), 50000);
    EXPECT_EQ(p.a.GetRtoNs(), 300000u);
    // Sample 2 = 140 us: RTTVAR = 3/4 * 50 + 1/4 * |100 - 140| = 47.5 us,
    // SRTT = 7/8 * 100 + 1/8 * 140 = 105 us, RTO = 105 + 190 = 295 us.
    sendAndAck(200000, 340000);
    EXPECT_EQ(p.a.GetRttVarNs(), 47500);
    EXPECT_EQ(p.a.GetSrttNs(), 105000);
    EXPECT_EQ(p.a.GetRtoNs(), 295000u);
    EXPECT_EQ(p.a.GetCounters().rttSamples, 2u);

    // Timeout and exponential backoff, driven by the timer scan.
    p.a.AppSend(MSS);
    const uint64_t t0 = 1000000;
    auto s = Drain(p.a, t0);
    ASSERT_EQ(s.size(), 1u);
    ASSERT_TRUE(p.a.IsRtoArmed());
    EXPECT_EQ(p.a.GetRtoDeadlineNs(), t0 + 295000);
    EXPECT_FALSE(p.a.OnTimerScan(t0 + 294999).timeout);
    auto t = p.a.OnTimerScan(t0 + 295000);
    EXPECT_TRUE(t.timeout);
    EXPECT_TRUE(t.WantsSend());
    EXPECT_EQ(p.a.GetRtoNs(), 590000u);
    EXPECT_EQ(p.a.GetRtoDeadlineNs(), t0 + 295000 + 590000);
    EXPECT_EQ(p.a.GetSndNxt(), p.a.GetSndUna());
    EXPECT_EQ(p.a.GetCwnd(), MSS); // loss window
    auto re = Drain(p.a, t0 + 295000);
    ASSERT_EQ(re.size(), 1u);
    EXPECT_TRUE(re[0].retransmission);
    EXPECT_EQ(re[0].seg.seq, base + 2 * MSS);
    EXPECT_TRUE(p.a.OnTimerScan(t0 + 295000 + 590000).timeout);
    EXPECT_EQ(p.a.GetRtoNs(), 1180000u);
    EXPECT_TRUE(p.a.OnTimerScan(t0 + 295000 + 590000 + 1180000).timeout);
    EXPECT_EQ(p.a.GetRtoNs(), 2360000u);
    const uint64_t t4 = t0 + 295000 + 590000 + 1180000 + 2360000;
    EXPECT_TRUE(p.a.OnTimerScan(t4).timeout);
    EXPECT_EQ(p.a.GetRtoNs(), cfg.maxRtoNs); // 4.72 ms capped at 4 ms
    EXPECT_EQ(p.a.GetCounters().timeouts, 4u);
    EXPECT_EQ(p.a.GetBackoff(), 4u);

    // Karn: the ACK of re-sent data gives no sample and keeps the backoff.
    Drain(p.a, t4);
    p.a.OnSegment(p.AckFromB(p.a.GetSndMax(), 64 * MSS), t4 + 100000);
    EXPECT_EQ(p.a.GetCounters().rttSamples, 2u);
    EXPECT_EQ(p.a.GetBackoff(), 4u);
    EXPECT_FALSE(p.a.IsRtoArmed());
    // New data gives a valid sample: backoff over. Sample 121 us:
    // RTTVAR = (3 * 47500 + 16000) / 4 = 39625, SRTT = (7 * 105000 + 121000) / 8 = 107000.
    sendAndAck(t4 + 200000, t4 + 321000);
    EXPECT_EQ(p.a.GetCounters().rttSamples, 3u);
    EXPECT_EQ(p.a.GetBackoff(), 0u);
    EXPECT_EQ(p.a.GetRttVarNs(), 39625);
    EXPECT_EQ(p.a.GetSrttNs(), 107000);
    EXPECT_EQ(p.a.GetRtoNs(), 107000u + 4 * 39625u);
}

TEST(OffloadTcpConnection, RtoNeverBelowMinimum)
{
    auto cfg = SmallConfig();
    Pair p(cfg);
    p.a.AppSend(MSS);
    Drain(p.a, 0);
    p.a.OnSegment(p.AckFromB(p.a.GetSndMax(), 64 * MSS), 20000); // 20 us: 3 * 20 < 200
    EXPECT_EQ(p.a.GetSrttNs(), 20000);
    EXPECT_EQ(p.a.GetRtoNs(), cfg.minRtoNs);
}

TEST(OffloadTcpConnection, TimerScanTimeoutGoesBackToSndUna)
{
    auto cfg = SmallConfig();
    Pair p(cfg, true);
    p.a.AppSend(6 * MSS);
    auto segs = Drain(p.a, 0);
    ASSERT_EQ(segs.size(), 6u);
    // Two segments arrive and are acknowledged; the rest is lost.
    for (int i = 0; i < 2; ++i)
    {
        auto d = p.b.OnSegment(segs[i].seg, 10000);
        p.a.OnSegment(d.ackSegment, 20000 + i);
    }
    const uint32_t una = p.a.GetSndUna();
    EXPECT_EQ(una, segs[2].seg.seq);
    // RFC 6298 (5.3): the ACK restarted the timer.
    const uint64_t deadline = p.a.GetRtoDeadlineNs();
    EXPECT_EQ(deadline, 20001 + p.a.GetRtoNs());
    for (uint64_t now = 30000; now < deadline; now += 25000)
    {
        EXPECT_FALSE(p.a.OnTimerScan(now).WantsSend()) << now;
    }
    auto t = p.a.OnTimerScan(deadline + 7); // the scan finds it a little late
    EXPECT_TRUE(t.timeout);
    EXPECT_EQ(p.a.GetCounters().timeouts, 1u);
    EXPECT_EQ(p.a.GetSndNxt(), una);
    EXPECT_EQ(p.a.GetCwnd(), MSS);
    auto re = Drain(p.a, deadline + 7);
    ASSERT_EQ(re.size(), 1u); // cwnd = 1 MSS
    EXPECT_EQ(re[0].seg.seq, una);
    EXPECT_TRUE(re[0].retransmission);
    EXPECT_EQ(p.a.GetCounters().retransmittedSegments, 1u);
    EXPECT_EQ(p.a.GetCounters().retransmittedBytes, MSS);
    // A scan before the new deadline does nothing.
    EXPECT_FALSE(p.a.OnTimerScan(deadline + 8).timeout);
}

TEST(OffloadTcpConnection, ZeroWindowProbeAndReopen)
{
    auto ca = SmallConfig();
    auto cb = SmallConfig();
    cb.rxBufferSize = 4 * MSS;
    Pair p(ca, cb);
    p.a.AppSend(20 * MSS);
    auto segs = Drain(p.a, 0);
    ASSERT_EQ(segs.size(), 4u); // the peer window, not cwnd (10), limits
    uint32_t lastWindow = 0;
    for (const auto& s : segs)
    {
        auto d = p.b.OnSegment(s.seg, 1000);
        EXPECT_EQ(d.verdict, ReassemblyTracker::IN_ORDER);
        lastWindow = d.ackSegment.window;
        p.a.OnSegment(d.ackSegment, 2000);
    }
    EXPECT_EQ(lastWindow, 0u);
    EXPECT_EQ(p.b.GetRxUnread(), 4 * MSS);
    EXPECT_TRUE(Drain(p.a, 3000).empty());
    // Persist: the first scan arms, a scan one RTO later sends a probe.
    EXPECT_FALSE(p.a.OnTimerScan(3000).WantsSend());
    const uint64_t probeAt = 3000 + p.a.GetRtoNs();
    EXPECT_FALSE(p.a.OnTimerScan(probeAt - 1).WantsSend());
    auto t = p.a.OnTimerScan(probeAt);
    EXPECT_TRUE(t.probe);
    auto probe = p.a.NextSegment(probeAt);
    ASSERT_TRUE(probe.has_value());
    EXPECT_TRUE(probe->probe);
    EXPECT_EQ(probe->seg.payloadLen, 0u);
    EXPECT_EQ(probe->seg.seq, p.a.GetSndUna() - 1);
    EXPECT_FALSE(p.a.NextSegment(probeAt).has_value());
    // The receiver must answer the probe, still with a zero window.
    auto d = p.b.OnSegment(probe->seg, probeAt + 1000);
    ASSERT_TRUE(d.sendAck);
    EXPECT_EQ(d.ackSegment.window, 0u);
    EXPECT_EQ(p.b.GetCounters().probesAnswered, 1u);
    p.a.OnSegment(d.ackSegment, probeAt + 2000);
    // A small read (less than min(MSS, buffer / 2)) does not announce a silly window.
    EXPECT_FALSE(p.b.AppRead(MSS / 2).has_value());
    // Reading to a full segment opens the window from zero: window update.
    auto upd = p.b.AppRead(MSS / 2);
    ASSERT_TRUE(upd.has_value());
    EXPECT_EQ(upd->window, MSS);
    EXPECT_EQ(upd->ack, segs[3].seg.seq + MSS);
    EXPECT_EQ(p.b.GetCounters().windowUpdates, 1u);
    p.a.OnSegment(*upd, probeAt + 3000);
    auto more = Drain(p.a, probeAt + 3000);
    ASSERT_EQ(more.size(), 1u); // exactly the reopened window
    EXPECT_EQ(more[0].seg.payloadLen, MSS);
    EXPECT_TRUE(SeqLeq(more[0].seg.seq + MSS, p.a.GetPeerWindowEdge()));
    auto d2 = p.b.OnSegment(more[0].seg, probeAt + 4000);
    EXPECT_EQ(d2.verdict, ReassemblyTracker::IN_ORDER);
    EXPECT_EQ(d2.ackSegment.window, 0u);
    // Zero again; reading 2 MSS reopens it (update), one more MSS does not double it.
    EXPECT_TRUE(p.b.AppRead(2 * MSS).has_value());
    EXPECT_EQ(p.b.GetAdvertisedWindow(), 2 * MSS);
    EXPECT_FALSE(p.b.AppRead(MSS).has_value());
}

TEST(OffloadTcpConnection, WindowUpdateRule)
{
    auto c = SmallConfig();
    c.rxBufferSize = 8 * MSS;
    Pair p(c);
    p.a.AppSend(8 * MSS);
    for (const auto& s : Drain(p.a, 0))
    {
        p.b.OnSegment(s.seg, 1); // B advertises 7, 6, ..., 0 MSS
    }
    EXPECT_EQ(p.b.GetAdvertisedWindow(), 0u);
    auto u = p.b.AppRead(3 * MSS); // from zero
    ASSERT_TRUE(u.has_value());
    EXPECT_EQ(u->window, 3 * MSS);
    EXPECT_FALSE(p.b.AppRead(MSS).has_value()); // 3 -> 4 MSS: grows, does not double
    EXPECT_FALSE(p.b.AppRead(MSS).has_value()); // 3 -> 5 MSS
    auto u2 = p.b.AppRead(MSS);                 // 3 -> 6 MSS: doubled and >= 1 MSS more
    ASSERT_TRUE(u2.has_value());
    EXPECT_EQ(u2->window, 6 * MSS);
    EXPECT_THROW(p.b.AppRead(3 * MSS), PrestoInputError); // only 2 MSS unread
}

TEST(OffloadTcpConnection, SenderNeverExceedsPeerWindowNorTxBuffer)
{
    auto ca = SmallConfig();
    ca.txBufferSize = 5 * MSS;
    ca.initialCwndSegments = 40;
    auto cb = SmallConfig();
    cb.rxBufferSize = 3 * MSS + 300;
    Pair p(ca, cb);
    EXPECT_EQ(p.a.AppSend(8 * MSS), 5 * MSS); // limited by the send buffer
    EXPECT_EQ(p.a.GetTxFree(), 0u);
    auto segs = Drain(p.a, 0);
    uint32_t end = 0;
    for (const auto& s : segs)
    {
        end = s.seg.seq + s.seg.payloadLen;
    }
    // 3.3 MSS of window, nothing acknowledged: three full segments, then silly-window
    // avoidance holds the 300-byte sliver while data is in flight.
    EXPECT_EQ(segs.size(), 3u);
    EXPECT_TRUE(SeqLeq(end, Pair::ISS_A + 1 + cb.rxBufferSize));
    auto d = p.b.OnSegment(segs[0].seg, 1);
    auto r = p.a.OnSegment(d.ackSegment, 2);
    EXPECT_EQ(r.ackedBytes, MSS);
    EXPECT_EQ(p.a.GetTxFree(), MSS);
    EXPECT_EQ(p.a.AppSend(8 * MSS), MSS);
    // B has not read: its right edge did not move, A may send only up to it.
    for (const auto& s : Drain(p.a, 3))
    {
        EXPECT_TRUE(SeqLeq(s.seg.seq + s.seg.payloadLen, p.a.GetPeerWindowEdge()));
        EXPECT_TRUE(SeqLeq(s.seg.seq + s.seg.payloadLen, Pair::ISS_A + 1 + cb.rxBufferSize));
    }
    // A reordered, older ACK with a smaller right edge does not shrink the window.
    const uint32_t edge = p.a.GetPeerWindowEdge();
    p.a.OnSegment(p.AckFromB(p.a.GetSndUna(), 0), 4);
    EXPECT_EQ(p.a.GetPeerWindowEdge(), edge);
}

TEST(OffloadTcpConnection, FinAfterLastByteAndOutOfOrderFin)
{
    Pair p(SmallConfig(1));
    p.a.AppSend(2500);
    p.a.AppClose();
    EXPECT_THROW(p.a.AppSend(1), PrestoInputError);
    auto segs = Drain(p.a, 0);
    ASSERT_EQ(segs.size(), 3u);
    EXPECT_FALSE(segs[1].seg.Has(OffloadSegment::FIN));
    EXPECT_TRUE(segs[2].seg.Has(OffloadSegment::FIN)); // piggybacked on the last byte
    EXPECT_EQ(p.a.GetSndMax(), Pair::ISS_A + 1 + 2500 + 1);
    // The FIN segment arrives first (out of order): its data is placed and the FIN's
    // position remembered; the connection is not closed while bytes before it are missing.
    auto d2 = p.b.OnSegment(segs[2].seg, 1);
    EXPECT_EQ(d2.verdict, ReassemblyTracker::OUT_OF_ORDER_PLACED);
    EXPECT_FALSE(d2.peerClosed);
    EXPECT_EQ(d2.ackSegment.ack, Pair::ISS_A + 1); // nothing in order yet
    auto d0 = p.b.OnSegment(segs[0].seg, 2);
    EXPECT_FALSE(d0.peerClosed);
    EXPECT_FALSE(p.b.IsPeerClosed());
    // The gap fills: the interval merges and the remembered FIN is consumed with it, so the
    // sender needs no retransmission timeout to close.
    auto d1 = p.b.OnSegment(segs[1].seg, 3);
    EXPECT_EQ(d1.delivered, 1500u); // the interval merged
    EXPECT_TRUE(d1.peerClosed);
    EXPECT_TRUE(p.b.IsPeerClosed());
    ASSERT_TRUE(d1.sendAck);
    EXPECT_EQ(d1.ackSegment.ack, Pair::ISS_A + 1 + 2500 + 1); // FIN takes one number
    auto ra = p.a.OnSegment(d1.ackSegment, 4);
    EXPECT_TRUE(ra.finAcked);
    EXPECT_TRUE(p.a.IsFinAcked());
    EXPECT_FALSE(p.a.IsRtoArmed());
    EXPECT_EQ(p.a.GetCounters().timeouts, 0u);
    // A FIN lost outright still comes back with the peer's retransmission timeout.
    Pair q(SmallConfig(1));
    q.a.AppSend(1000);
    q.a.AppClose();
    auto qs = Drain(q.a, 0);
    ASSERT_EQ(qs.size(), 1u);
    OffloadSegment dataOnly = qs[0].seg;
    dataOnly.flags &= static_cast<uint8_t>(~OffloadSegment::FIN); // the FIN bit was lost
    auto qd = q.b.OnSegment(dataOnly, 1);
    EXPECT_FALSE(qd.peerClosed);
    q.a.OnSegment(qd.ackSegment, 2);
    EXPECT_FALSE(q.a.IsFinAcked());
    ASSERT_TRUE(q.a.OnTimerScan(q.a.GetRtoDeadlineNs()).timeout);
    auto re = Drain(q.a, q.a.GetRtoDeadlineNs());
    ASSERT_EQ(re.size(), 1u);
    EXPECT_TRUE(re[0].seg.Has(OffloadSegment::FIN));
    EXPECT_EQ(re[0].seg.payloadLen, 0u);
    EXPECT_TRUE(re[0].retransmission);
    auto df = q.b.OnSegment(re[0].seg, 5);
    EXPECT_TRUE(df.peerClosed);
    EXPECT_EQ(df.ackSegment.ack, Pair::ISS_A + 1 + 1000 + 1);
    auto qa = q.a.OnSegment(df.ackSegment, 6);
    EXPECT_TRUE(qa.finAcked);
    EXPECT_EQ(qa.ackedBytes, 0u); // only the FIN
    // A duplicate FIN is acknowledged again, and reported closed only once.
    auto dd = q.b.OnSegment(re[0].seg, 7);
    EXPECT_TRUE(dd.sendAck);
    EXPECT_FALSE(dd.peerClosed);
    EXPECT_EQ(dd.ackSegment.ack, Pair::ISS_A + 1 + 1000 + 1);
}

TEST(OffloadTcpConnection, BareFinNeedsNoWindow)
{
    auto ca = SmallConfig();
    auto cb = SmallConfig();
    cb.rxBufferSize = 2 * MSS;
    Pair p(ca, cb);
    p.a.AppSend(2 * MSS);
    for (const auto& s : Drain(p.a, 0))
    {
        p.a.OnSegment(p.b.OnSegment(s.seg, 1).ackSegment, 2);
    }
    EXPECT_EQ(p.b.GetAdvertisedWindow(), 0u);
    EXPECT_TRUE(Drain(p.a, 3).empty());
    p.a.AppClose();
    auto f = Drain(p.a, 4);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_TRUE(f[0].seg.Has(OffloadSegment::FIN));
    EXPECT_EQ(f[0].seg.payloadLen, 0u);
    auto d = p.b.OnSegment(f[0].seg, 5);
    EXPECT_TRUE(d.peerClosed);
    EXPECT_TRUE(p.a.OnSegment(d.ackSegment, 6).finAcked);
}

TEST(OffloadTcpConnection, EcnExactEchoAndDctcpReaction)
{
    auto cfg = SmallConfig();
    Pair p(cfg, true); // DCTCP with alpha = 1 at the start
    p.a.AppSend(10 * MSS);
    auto segs = Drain(p.a, 0);
    ASSERT_EQ(segs.size(), 10u);
    std::vector<OffloadSegment> acks;
    for (size_t i = 0; i < segs.size(); ++i)
    {
        OffloadSegment s = segs[i].seg;
        s.ce = (i == 2 || i == 3); // two marked in a row
        auto d = p.b.OnSegment(s, 1);
        EXPECT_EQ(d.ackSegment.Has(OffloadSegment::ECE), s.ce) << i; // exact echo
        acks.push_back(d.ackSegment);
    }
    EXPECT_EQ(p.b.GetCounters().ceReceived, 2u);
    const auto& dctcp = dynamic_cast<const OffloadDctcpCongestion&>(p.a.GetCongestion());
    p.a.OnSegment(acks[0], 2);
    p.a.OnSegment(acks[1], 2);
    const uint32_t before = p.a.GetCwnd();
    p.a.OnSegment(acks[2], 3); // ECE: one cut with the current alpha
    const double alpha = dctcp.GetAlpha();
    EXPECT_EQ(
        p.a.GetCwnd(),
        std::max<uint32_t>(static_cast<uint32_t>(std::floor(before * (1 - alpha / 2))), 2 * MSS));
    const uint32_t cut = p.a.GetCwnd();
    p.a.OnSegment(acks[3], 3); // second ECE of the same window: no second cut
    EXPECT_EQ(p.a.GetCwnd(), cut);
    EXPECT_EQ(p.a.GetCounters().eceReceived, 2u);
    // The next new data segment carries CWR, once.
    p.a.AppSend(20 * MSS);
    for (size_t i = 4; i < acks.size(); ++i)
    {
        p.a.OnSegment(acks[i], 4);
    }
    auto next = Drain(p.a, 5);
    ASSERT_FALSE(next.empty());
    EXPECT_TRUE(next[0].seg.Has(OffloadSegment::CWR));
    for (size_t i = 1; i < next.size(); ++i)
    {
        EXPECT_FALSE(next[i].seg.Has(OffloadSegment::CWR));
    }
    EXPECT_EQ(p.a.GetCounters().cwrSent, 1u);
}

TEST(OffloadTcpConnection, ControlSegmentsAndBogusAcks)
{
    Pair p(SmallConfig());
    p.a.AppSend(MSS);
    auto s = Drain(p.a, 0);
    // An ACK for data never sent: answered with an ACK, the segment (and its data) dropped.
    OffloadSegment bogus = p.AckFromB(p.a.GetSndMax() + 5, 64 * MSS);
    bogus.seq = Pair::ISS_B + 1;
    bogus.payloadLen = 100;
    auto d = p.a.OnSegment(bogus, 1);
    EXPECT_TRUE(d.sendAck);
    EXPECT_EQ(d.delivered, 0u);
    EXPECT_EQ(p.a.GetCounters().invalidAcks, 1u);
    EXPECT_EQ(p.a.GetSndUna(), Pair::ISS_A + 1);
    // No ACK flag: dropped.
    OffloadSegment noAck = s[0].seg;
    noAck.flags = 0;
    EXPECT_FALSE(p.b.OnSegment(noAck, 1).sendAck);
    EXPECT_EQ(p.b.GetCounters().noAckDrops, 1u);
    // A SYN on an established connection gets a challenge ACK (RFC 5961 4.2), never
    // delivers data and never resets.
    OffloadSegment syn = s[0].seg;
    syn.flags |= OffloadSegment::SYN;
    auto ds = p.b.OnSegment(syn, 1);
    EXPECT_TRUE(ds.sendAck);
    EXPECT_EQ(ds.ackSegment.ack, p.b.GetRcvNext());
    EXPECT_FALSE(ds.reset);
    EXPECT_EQ(p.b.GetRxUnread(), 0u);
    EXPECT_EQ(p.b.GetCounters().synChallenged, 1u);
    // An RST exactly at rcv_next tears down.
    OffloadSegment rst = s[0].seg;
    rst.flags = OffloadSegment::RST;
    rst.seq = p.b.GetRcvNext();
    EXPECT_TRUE(p.b.OnSegment(rst, 1).reset);
    EXPECT_TRUE(p.b.IsReset());
    EXPECT_EQ(p.b.GetCounters().resets, 1u);
    p.b.AppSend(MSS);
    EXPECT_FALSE(p.b.NextSegment(2).has_value());
}

TEST(OffloadTcpConnection, BlindResetsAndInjectionAreRefused)
{
    // RFC 5961: an off-path attacker who guesses a sequence number in the window must not
    // reset the connection or inject data; it only provokes rate-limited challenge ACKs.
    Pair p(SmallConfig());
    p.a.AppSend(4 * MSS);
    p.Exchange(1);
    ASSERT_EQ(p.b.GetRxUnread(), 4 * MSS);
    const uint32_t rcvNext = p.b.GetRcvNext();
    const uint64_t now = 1000000;
    OffloadSegment rst;
    rst.flags = OffloadSegment::RST;
    // In the window but not at rcv_next: challenge ACK, no reset.
    rst.seq = rcvNext + 1;
    auto d = p.b.OnSegment(rst, now);
    EXPECT_FALSE(d.reset);
    EXPECT_TRUE(d.sendAck);
    EXPECT_EQ(d.ackSegment.ack, rcvNext);
    EXPECT_EQ(p.b.GetCounters().rstChallenged, 1u);
    // A second one within the challenge interval is not answered (RFC 5961 7).
    rst.seq = rcvNext + 100;
    d = p.b.OnSegment(rst, now + 1);
    EXPECT_FALSE(d.sendAck);
    EXPECT_EQ(p.b.GetCounters().challengeAcksSuppressed, 1u);
    // Outside the window: silently ignored.
    rst.seq = rcvNext - 1;
    EXPECT_FALSE(p.b.OnSegment(rst, now + 2).reset);
    rst.seq = rcvNext + (1u << 30);
    EXPECT_FALSE(p.b.OnSegment(rst, now + 3).reset);
    EXPECT_EQ(p.b.GetCounters().rstIgnored, 2u);
    EXPECT_FALSE(p.b.IsReset());
    EXPECT_EQ(p.b.GetCounters().resets, 0u);
    // After the interval, challenges resume.
    rst.seq = rcvNext + 1;
    EXPECT_TRUE(p.b.OnSegment(rst, now + SmallConfig().challengeAckIntervalNs).sendAck);
    EXPECT_EQ(p.b.GetCounters().challengeAcks, 2u);

    // Blind data injection: right sequence number, but an ack the attacker cannot know.
    // An ack far behind snd_una (more than the peer's largest window) is refused with
    // its data; an ack of data never sent likewise.
    OffloadSegment inject;
    inject.flags = OffloadSegment::ACK;
    inject.seq = rcvNext;
    inject.payloadLen = 100;
    inject.window = 64 * MSS;
    inject.ack = p.b.GetSndUna() - (1u << 30);
    d = p.b.OnSegment(inject, now + 10 * SmallConfig().challengeAckIntervalNs);
    EXPECT_EQ(d.delivered, 0u);
    EXPECT_EQ(d.writeLen, 0u);
    EXPECT_EQ(p.b.GetCounters().ackTooOld, 1u);
    inject.ack = p.b.GetSndMax() + 1;
    d = p.b.OnSegment(inject, now + 20 * SmallConfig().challengeAckIntervalNs);
    EXPECT_EQ(d.delivered, 0u);
    EXPECT_EQ(p.b.GetCounters().invalidAcks, 1u);
    EXPECT_EQ(p.b.GetRcvNext(), rcvNext);
    EXPECT_EQ(p.b.GetRxUnread(), 4 * MSS);
    // The real stream still flows afterwards, byte-exact.
    p.a.AppSend(4 * MSS);
    p.Exchange(now + 30 * SmallConfig().challengeAckIntervalNs);
    EXPECT_EQ(p.b.GetRxUnread(), 8 * MSS);
}

TEST(OffloadTcpConnection, SackBlocksDescribeTheIntervalsHeld)
{
    // With SACK negotiated, every ACK lists the out-of-order intervals the receiver holds,
    // the one with the most recent segment first (RFC 2018 4); without, none.
    for (bool sack : {true, false})
    {
        OffloadTcpConfig c = SmallConfig(2);
        c.sack = sack;
        Pair p(c);
        p.a.AppSend(6 * MSS);
        auto segs = Drain(p.a, 0);
        ASSERT_EQ(segs.size(), 6u);
        auto ack0 = p.b.OnSegment(segs[0].seg, 1).ackSegment; // in order
        EXPECT_EQ(ack0.sackBlocks, 0u);
        auto ack2 = p.b.OnSegment(segs[2].seg, 2).ackSegment; // hole at 1
        auto ack4 = p.b.OnSegment(segs[4].seg, 3).ackSegment; // hole at 3
        auto ack3 = p.b.OnSegment(segs[3].seg, 4).ackSegment; // joins 2 and 4
        if (!sack)
        {
            EXPECT_EQ(ack2.sackBlocks + ack4.sackBlocks + ack3.sackBlocks, 0u);
            continue;
        }
        const uint32_t s1 = segs[1].seg.seq;
        ASSERT_EQ(ack2.sackBlocks, 1u);
        EXPECT_EQ(ack2.sack[0], std::make_pair(s1 + MSS, s1 + 2 * MSS));
        ASSERT_EQ(ack4.sackBlocks, 2u);
        EXPECT_EQ(ack4.sack[0], std::make_pair(s1 + 3 * MSS, s1 + 4 * MSS)); // most recent
        EXPECT_EQ(ack4.sack[1], std::make_pair(s1 + MSS, s1 + 2 * MSS));
        ASSERT_EQ(ack3.sackBlocks, 1u);
        EXPECT_EQ(ack3.sack[0], std::make_pair(s1 + MSS, s1 + 4 * MSS));
        auto ack1 = p.b.OnSegment(segs[1].seg, 5).ackSegment; // fills the hole
        EXPECT_EQ(ack1.ack, s1 + 4 * MSS);
        EXPECT_EQ(ack1.sackBlocks, 0u);
    }
}

TEST(OffloadTcpConnection, AnnouncedWindowStopsAtTheLimit)
{
    // Host memory of twice the window: unread data eats the headroom first, so the window
    // announced stays at rxWindowLimit until more than the headroom is unread.
    OffloadTcpConfig c = SmallConfig();
    c.rxWindowLimit = 32 * MSS;
    c.rxBufferSize = 64 * MSS;
    Pair p(c);
    p.a.AppSend(40 * MSS);
    OffloadSegment last;
    for (int round = 0; round < 10; ++round)
    {
        for (auto& t : Drain(p.a, round))
        {
            auto d = p.b.OnSegment(t.seg, round);
            ASSERT_TRUE(d.sendAck);
            last = d.ackSegment;
            EXPECT_LE(last.window, 32 * MSS);
            p.a.OnSegment(d.ackSegment, round);
        }
    }
    EXPECT_EQ(p.b.GetRxUnread(), 40 * MSS);      // nothing read
    EXPECT_EQ(last.window, 64 * MSS - 40 * MSS); // headroom used up: the buffer decides
    // Reading reopens it, but never beyond the limit (24 -> 32 MSS is no doubling: no
    // window update; the next ACK carries it).
    EXPECT_FALSE(p.b.AppRead(40 * MSS).has_value());
    EXPECT_EQ(p.b.GetAdvertisedWindow(), 64 * MSS); // the memory is free
    p.a.AppSend(MSS);
    auto more = Drain(p.a, 20);
    ASSERT_EQ(more.size(), 1u);
    EXPECT_EQ(p.b.OnSegment(more[0].seg, 20).ackSegment.window, 32 * MSS);
}

TEST(OffloadTcpConnection, BadConfigurationIsRefused)
{
    auto bad = [](auto mutate) {
        OffloadTcpConfig c = SmallConfig();
        mutate(c);
        return c;
    };
    EXPECT_THROW(OffloadTcpConnection(bad([](auto& c) { c.mss = 0; }), 1, 1, 1000),
                 PrestoInputError);
    EXPECT_THROW(OffloadTcpConnection(bad([](auto& c) { c.fidelity = 17; }), 1, 1, 1000),
                 PrestoInputError);
    EXPECT_THROW(OffloadTcpConnection(bad([](auto& c) { c.rxBufferSize = 0; }), 1, 1, 1000),
                 PrestoInputError);
    EXPECT_THROW(
        OffloadTcpConnection(bad([](auto& c) { c.txBufferSize = (1u << 30) + 1; }), 1, 1, 1000),
        PrestoInputError);
    EXPECT_THROW(OffloadTcpConnection(bad([](auto& c) { c.minRtoNs = 0; }), 1, 1, 1000),
                 PrestoInputError);
    EXPECT_THROW(OffloadTcpConnection(bad([](auto& c) { c.maxRtoNs = 1; }), 1, 1, 1000),
                 PrestoInputError);
    EXPECT_THROW(OffloadTcpConnection(bad([](auto& c) { c.dupAckThreshold = 0; }), 1, 1, 1000),
                 PrestoInputError);
    EXPECT_THROW(OffloadTcpConnection(bad([](auto& c) { c.initialCwndSegments = 0; }), 1, 1, 1),
                 PrestoInputError);
    EXPECT_THROW(OffloadTcpConnection(SmallConfig(), 1, 1, (1u << 30) + 1), PrestoInputError);
    try
    {
        OffloadTcpConnection(bad([](auto& c) { c.mss = 0; }), 1, 1, 1000);
    }
    catch (const PrestoInputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("mss"), std::string::npos) << e.what();
    }
}

TEST(OffloadTcpConnection, CountersAddEveryField)
{
    constexpr size_t N = sizeof(OffloadTcpCounters) / sizeof(uint64_t);
    static_assert(sizeof(OffloadTcpCounters) == N * sizeof(uint64_t), "only uint64_t fields");
    uint64_t a[N];
    uint64_t b[N];
    for (size_t i = 0; i < N; ++i)
    {
        a[i] = i + 1;
        b[i] = 1000 * (i + 1);
    }
    OffloadTcpCounters x;
    OffloadTcpCounters y;
    std::memcpy(&x, a, sizeof(a));
    std::memcpy(&y, b, sizeof(b));
    x += y;
    uint64_t r[N];
    std::memcpy(r, &x, sizeof(r));
    for (size_t i = 0; i < N; ++i)
    {
        EXPECT_EQ(r[i], 1001 * (i + 1)) << "field " << i << " not added";
    }
}

// ---------------------------------------------------------------------------------------
// Loopback harness: two connections through a lossy, reordering, duplicating channel
// ---------------------------------------------------------------------------------------

namespace
{

/// One direction of the simulated link.
struct ChannelConfig
{
    double loss{0};            //!< drop probability per packet
    double duplicate{0};       //!< probability of a second copy
    uint32_t maxDelaySlots{0}; //!< extra delay uniform in [0, N] packet times
    uint32_t ceEvery{0};       //!< CE-mark every n-th data packet (0: never)
    uint64_t slotNs{1000};     //!< one full-size packet time
    uint64_t propNs{5000};     //!< propagation delay
};

struct HarnessConfig
{
    OffloadTcpConfig tcp;
    ChannelConfig ab;         //!< A -> B
    ChannelConfig ba;         //!< B -> A
    uint64_t bytesAB{200000}; //!< stream A sends
    uint64_t bytesBA{150000}; //!< stream B sends
    uint32_t issA{1000};
    uint32_t issB{77777777};
    uint64_t seed{1};
    bool slowReader{false}; //!< read at a limited rate instead of at once
    uint64_t readPeriodNs{20000};
    uint64_t scanNs{20000};
    uint64_t timeLimitNs{20000000000ull};
    bool dctcp{false}; //!< DCTCP instead of NewReno
};

class Loopback
{
  public:
    struct Node
    {
        std::unique_ptr<OffloadTcpConnection> conn;
        uint32_t iss{0};
        uint32_t irs{0};
        std::vector<uint8_t> out; //!< stream to send
        uint64_t appended{0};
        bool closed{false};
        std::vector<uint8_t> ring;    //!< host receive buffer (rxBufferSize, circular)
        std::vector<uint8_t> written; //!< ring byte holds data not yet read
        uint64_t readPos{0};
        uint64_t deliveredEnd{0};
        std::vector<uint8_t> in; //!< stream received and read
        uint32_t advEdge{0};     //!< highest right edge this node advertised
        uint64_t ceMarked{0};    //!< CE marks put on data packets this node sent
        uint64_t dataPackets{0};
        uint64_t packetsSent{0};
        uint64_t dataLost{0}; //!< data packets from this node the channel dropped
    };

    Node n[2];
    /// Called with (node, segment, snd_una, snd_max) before node processes an arrival.
    std::function<void(int, const OffloadSegment&, uint32_t, uint32_t)> onArrive;
    uint64_t failures{0};
    uint64_t now{0};
    uint64_t events{0};

    explicit Loopback(const HarnessConfig& hc)
        : m_hc(hc),
          m_rng(hc.seed)
    {
        n[0].iss = hc.issA;
        n[0].irs = hc.issB;
        n[1].iss = hc.issB;
        n[1].irs = hc.issA;
        n[0].out.resize(hc.bytesAB);
        n[1].out.resize(hc.bytesBA);
        for (auto& node : n)
        {
            for (auto& b : node.out)
            {
                b = static_cast<uint8_t>(m_rng());
            }
            node.conn = std::make_unique<OffloadTcpConnection>(hc.tcp,
                                                               node.iss,
                                                               node.irs,
                                                               hc.tcp.rxBufferSize,
                                                               MakeCc(hc.tcp, hc.dctcp));
            node.ring.assign(hc.tcp.rxBufferSize, 0);
            node.written.assign(hc.tcp.rxBufferSize, 0);
            node.advEdge = node.irs + 1 + hc.tcp.rxBufferSize;
        }
    }

    /// Run until both streams and both FINs are through; false on the time limit.
    bool Run()
    {
        for (int i = 0; i < 2; ++i)
        {
            Schedule(m_hc.scanNs, SCAN, i);
            if (m_hc.slowReader)
            {
                Schedule(m_hc.readPeriodNs, READ, i);
            }
            Pump(i);
        }
        while (!m_queue.empty() && !Done())
        {
            Event e = m_queue.top();
            m_queue.pop();
            now = e.t;
            ++events;
            if (now > m_hc.timeLimitNs)
            {
                return false;
            }
            switch (e.type)
            {
            case ARRIVE:
                Arrive(e.node, e.seg, e.payload);
                break;
            case SCAN: {
                auto t = n[e.node].conn->OnTimerScan(now);
                if (t.WantsSend())
                {
                    Pump(e.node);
                }
                Schedule(now + m_hc.scanNs, SCAN, e.node);
                break;
            }
            case READ:
                Read(e.node, std::uniform_int_distribution<uint32_t>(0, 2 * MSS)(m_rng));
                Schedule(now + m_hc.readPeriodNs, READ, e.node);
                break;
            }
        }
        return Done();
    }

    /// \return true when each side read the whole peer stream and both FINs are acknowledged
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

    /// \return "" when node i received exactly the peer's stream, else where it differs
    std::string CompareStream(int i) const
    {
        const auto& got = n[i].in;
        const auto& want = n[1 - i].out;
        if (got.size() != want.size())
        {
            return "size " + std::to_string(got.size()) + " != " + std::to_string(want.size());
        }
        auto mm = std::mismatch(got.begin(), got.end(), want.begin());
        if (mm.first != got.end())
        {
            return "first difference at byte " + std::to_string(mm.first - got.begin());
        }
        return "";
    }

  private:
    enum Type
    {
        ARRIVE,
        SCAN,
        READ
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

    void Fail(const std::string& what)
    {
        if (++failures <= 5)
        {
            ADD_FAILURE() << "t=" << now << " ns: " << what;
        }
    }

    void Schedule(uint64_t t, Type type, int node)
    {
        Event e{t, m_order++, type, node, {}, {}};
        m_queue.push(std::move(e));
    }

    /// Node i puts a segment on the wire towards node 1 - i.
    void Transmit(int i, OffloadSegment seg)
    {
        Node& src = n[i];
        Node& dst = n[1 - i];
        ++src.packetsSent;
        // The sender must never go beyond what the receiver has advertised.
        if (seg.payloadLen > 0 && !SeqLeq(seg.seq + seg.payloadLen, dst.advEdge))
        {
            Fail("node " + std::to_string(i) + " sent beyond the peer window");
        }
        // Every segment carries this node's own receive window.
        const uint32_t edge = seg.ack + seg.window;
        if (SeqLeq(src.advEdge, edge))
        {
            src.advEdge = edge;
        }
        else
        {
            Fail("node " + std::to_string(i) + " moved its window edge left");
        }
        std::vector<uint8_t> payload;
        if (seg.payloadLen > 0)
        {
            const uint64_t off = static_cast<uint32_t>(seg.seq - (src.iss + 1));
            if (off + seg.payloadLen > src.appended)
            {
                Fail("node " + std::to_string(i) + " sent bytes the application never gave");
                return;
            }
            payload.assign(src.out.begin() + off, src.out.begin() + off + seg.payloadLen);
        }
        const ChannelConfig& ch = i == 0 ? m_hc.ab : m_hc.ba;
        const uint64_t txTime = seg.payloadLen > 0 ? ch.slotNs : ch.slotNs / 16;
        const uint64_t dep = std::max(now, m_linkFree[i]);
        m_linkFree[i] = dep + txTime;
        if (seg.payloadLen > 0 && ch.ceEvery != 0 && ++src.dataPackets % ch.ceEvery == 0)
        {
            seg.ce = true;
            ++src.ceMarked;
        }
        std::uniform_real_distribution<double> u(0, 1);
        std::uniform_int_distribution<uint32_t> slots(0, ch.maxDelaySlots);
        const int copies = 1 + (u(m_rng) < ch.duplicate ? 1 : 0);
        for (int c = 0; c < copies; ++c)
        {
            if (u(m_rng) < ch.loss)
            {
                src.dataLost += seg.payloadLen > 0 ? 1 : 0;
                continue;
            }
            const uint64_t at = dep + txTime + ch.propNs + ch.slotNs * slots(m_rng);
            m_queue.push(Event{at, m_order++, ARRIVE, 1 - i, seg, payload});
        }
    }

    void Arrive(int i, const OffloadSegment& seg, const std::vector<uint8_t>& payload)
    {
        Node& node = n[i];
        const uint32_t rb = m_hc.tcp.rxBufferSize;
        if (onArrive)
        {
            onArrive(i, seg, node.conn->GetSndUna(), node.conn->GetSndMax());
        }
        auto d = node.conn->OnSegment(seg, now);
        if (d.writeLen > 0)
        {
            const uint32_t from = d.writeSeq - seg.seq;
            if (static_cast<uint64_t>(from) + d.writeLen > payload.size())
            {
                Fail("write range outside the segment");
                return;
            }
            for (uint32_t j = 0; j < d.writeLen; ++j)
            {
                const uint64_t off = static_cast<uint32_t>(d.writeSeq + j - (node.irs + 1));
                if (off < node.readPos || off >= node.readPos + rb)
                {
                    Fail("receive buffer overflow at stream offset " + std::to_string(off));
                    return;
                }
                if (node.written[off % rb] && node.ring[off % rb] != payload[from + j])
                {
                    Fail("a byte was overwritten with different data");
                }
                node.ring[off % rb] = payload[from + j];
                node.written[off % rb] = 1;
            }
        }
        for (uint32_t j = 0; j < d.delivered; ++j)
        {
            if (!node.written[(node.deliveredEnd + j) % rb])
            {
                Fail("delivered a byte that was never written");
                break;
            }
        }
        node.deliveredEnd += d.delivered;
        if (node.conn->GetRxUnread() != node.deliveredEnd - node.readPos ||
            node.conn->GetAdvertisedWindow() + node.conn->GetRxUnread() != rb)
        {
            Fail("window + unread != receive buffer");
        }
        if (d.sendAck)
        {
            Transmit(i, d.ackSegment);
        }
        if (!m_hc.slowReader)
        {
            Read(i, UINT32_MAX);
        }
        Pump(i);
    }

    void Read(int i, uint32_t maxBytes)
    {
        Node& node = n[i];
        const uint32_t rb = m_hc.tcp.rxBufferSize;
        const uint32_t k =
            static_cast<uint32_t>(std::min<uint64_t>(maxBytes, node.deliveredEnd - node.readPos));
        if (k == 0)
        {
            return;
        }
        for (uint32_t j = 0; j < k; ++j)
        {
            const uint64_t off = node.readPos + j;
            node.in.push_back(node.ring[off % rb]);
            node.written[off % rb] = 0;
        }
        node.readPos += k;
        if (auto upd = node.conn->AppRead(k))
        {
            Transmit(i, *upd);
        }
    }

    void Pump(int i)
    {
        Node& node = n[i];
        while (node.appended < node.out.size())
        {
            const uint64_t want = std::min<uint64_t>(node.out.size() - node.appended, 65536);
            const uint32_t got = node.conn->AppSend(static_cast<uint32_t>(want));
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
        int guard = 0;
        while (auto s = node.conn->NextSegment(now))
        {
            Transmit(i, s->seg);
            if (++guard > 100000)
            {
                Fail("NextSegment never stops");
                break;
            }
        }
    }

    HarnessConfig m_hc;
    std::mt19937_64 m_rng;
    std::priority_queue<Event, std::vector<Event>, Later> m_queue;
    uint64_t m_order{0};
    uint64_t m_linkFree[2]{0, 0};
};

std::string
FidelityName(uint32_t k)
{
    return k == ReassemblyTracker::UNBOUNDED ? "unbounded" : std::to_string(k);
}

/// Run a transfer, check both streams byte-exactly, return the harness for more checks.
std::unique_ptr<Loopback>
RunTransfer(const HarnessConfig& hc,
            const std::string& label,
            std::function<void(int, const OffloadSegment&, uint32_t, uint32_t)> onArrive = {})
{
    auto lb = std::make_unique<Loopback>(hc);
    lb->onArrive = std::move(onArrive);
    const bool done = lb->Run();
    EXPECT_TRUE(done) << label << ": transfer did not finish by " << hc.timeLimitNs
                      << " ns (A read " << lb->n[0].in.size() << "/" << hc.bytesBA << ", B read "
                      << lb->n[1].in.size() << "/" << hc.bytesAB << ")";
    EXPECT_EQ(lb->failures, 0u) << label;
    EXPECT_EQ(lb->CompareStream(1), "") << label << ": A -> B";
    EXPECT_EQ(lb->CompareStream(0), "") << label << ": B -> A";
    return lb;
}

const uint32_t FIDELITIES[] = {0, 1, 2, 4, ReassemblyTracker::UNBOUNDED};

} // namespace

TEST(OffloadTcpLoopback, CleanChannelNeedsNoRecovery)
{
    HarnessConfig hc;
    hc.tcp = SmallConfig(1);
    auto lb = RunTransfer(hc, "clean");
    for (const auto& node : lb->n)
    {
        const auto& c = node.conn->GetCounters();
        EXPECT_EQ(c.retransmittedSegments, 0u);
        EXPECT_EQ(c.timeouts, 0u);
        EXPECT_EQ(c.goBackN, 0u);
        EXPECT_EQ(c.outOfOrderPlaced + c.fidelityDrops + c.duplicates, 0u);
    }
    EXPECT_EQ(lb->n[1].conn->GetCounters().bytesDelivered, hc.bytesAB);
    EXPECT_EQ(lb->n[0].conn->GetCounters().bytesSent, hc.bytesAB);
}

TEST(OffloadTcpLoopback, OnePercentLossEveryFidelity)
{
    for (uint32_t k : FIDELITIES)
    {
        HarnessConfig hc;
        hc.tcp = SmallConfig(k);
        hc.ab.loss = hc.ba.loss = 0.01;
        hc.bytesAB = 600000;
        hc.bytesBA = 400000;
        hc.seed = 11 + k;
        const std::string label = "loss 1%, K=" + FidelityName(k);
        auto lb = RunTransfer(hc, label);
        uint64_t lost = 0;
        for (const auto& node : lb->n)
        {
            lost += node.dataLost;
            if (node.dataLost > 0)
            {
                EXPECT_GT(node.conn->GetCounters().retransmittedSegments, 0u) << label;
            }
        }
        EXPECT_GT(lost, 0u) << label << ": the channel should have lost data packets";
    }
}

TEST(OffloadTcpLoopback, HeavyReorderingEveryFidelity)
{
    std::vector<uint64_t> fidelityDrops;
    for (uint32_t k : FIDELITIES)
    {
        HarnessConfig hc;
        hc.tcp = SmallConfig(k);
        hc.ab.maxDelaySlots = hc.ba.maxDelaySlots = 12;
        hc.seed = 21 + k;
        const std::string label = "reorder 0..12 slots, K=" + FidelityName(k);
        auto lb = RunTransfer(hc, label);
        uint64_t drops = 0;
        uint64_t placed = 0;
        for (const auto& node : lb->n)
        {
            drops += node.conn->GetCounters().fidelityDrops;
            placed += node.conn->GetCounters().outOfOrderPlaced;
        }
        fidelityDrops.push_back(drops);
        if (k == 0)
        {
            EXPECT_EQ(placed, 0u) << label;
            EXPECT_GT(drops, 0u) << label;
        }
        else
        {
            EXPECT_GT(placed, 0u) << label;
        }
        if (k == ReassemblyTracker::UNBOUNDED)
        {
            EXPECT_EQ(drops, 0u) << label;
        }
    }
    // More intervals never need more fidelity drops here than none at all.
    EXPECT_GT(fidelityDrops.front(), fidelityDrops[1]);
}

TEST(OffloadTcpLoopback, LossReorderDuplicationAndSlowReader)
{
    for (uint32_t k : FIDELITIES)
    {
        HarnessConfig hc;
        hc.tcp = SmallConfig(k);
        hc.tcp.rxBufferSize = 8 * MSS; // a small buffer the reader keeps nearly full
        hc.ab.loss = hc.ba.loss = 0.01;
        hc.ab.duplicate = hc.ba.duplicate = 0.02;
        hc.ab.maxDelaySlots = hc.ba.maxDelaySlots = 6;
        hc.slowReader = true;
        hc.bytesAB = 120000;
        hc.bytesBA = 90000;
        hc.seed = 31 + k;
        const std::string label = "loss+dup+reorder+slow reader, K=" + FidelityName(k);
        auto lb = RunTransfer(hc, label);
        uint64_t windowDrops = 0;
        uint64_t duplicates = 0;
        for (const auto& node : lb->n)
        {
            windowDrops += node.conn->GetCounters().windowDrops;
            duplicates += node.conn->GetCounters().duplicates;
        }
        EXPECT_GT(duplicates, 0u) << label;
        (void)windowDrops; // a correct sender rarely causes any; counted, not required
    }
}

TEST(OffloadTcpLoopback, SequenceNumbersWrapDuringTransfer)
{
    for (uint32_t k : {1u, ReassemblyTracker::UNBOUNDED})
    {
        HarnessConfig hc;
        hc.tcp = SmallConfig(k);
        hc.issA = 0xFFFFFFFFu - 50000; // A's stream crosses 2^32 after 50 kB
        hc.issB = 0xFFFFFFFFu - 7;     // B's after 7 bytes
        hc.ab.loss = hc.ba.loss = 0.01;
        hc.ab.maxDelaySlots = hc.ba.maxDelaySlots = 4;
        hc.seed = 41 + k;
        const std::string label = "wrap, K=" + FidelityName(k);
        auto lb = RunTransfer(hc, label);
        // Both send sequences wrapped: snd_una is now numerically below the ISS.
        EXPECT_LT(lb->n[0].conn->GetSndUna(), hc.issA) << label;
        EXPECT_LT(lb->n[1].conn->GetSndUna(), hc.issB) << label;
        EXPECT_EQ(lb->n[0].conn->GetSndUna(), static_cast<uint32_t>(hc.issA + 1 + hc.bytesAB + 1));
    }
}

TEST(OffloadTcpLoopback, DctcpAlphaFollowsEchoedMarks)
{
    HarnessConfig hc;
    hc.tcp = SmallConfig(1);
    hc.dctcp = true;
    hc.ab.ceEvery = 4; // the switch marks every 4th data packet A -> B
    hc.bytesAB = 2000000;
    hc.bytesBA = 0;
    // Independent model of RFC 8257 fed with the ACKs as they arrive at A: per window of
    // data (closing when snd_una reaches the snd_max of the previous closing),
    // alpha = (1 - g) alpha + g * ECE-acked bytes / acked bytes.
    const double g = 1.0 / 16; // MakeCc's DCTCP
    double alpha = 1.0;
    uint32_t windowEnd = hc.issA + 1;
    uint64_t acked = 0;
    uint64_t eceAcked = 0;
    uint64_t allAcked = 0;
    uint64_t allEceAcked = 0;
    auto model = [&](int node, const OffloadSegment& s, uint32_t una, uint32_t max) {
        if (node != 0 || !s.Has(OffloadSegment::ACK) || static_cast<int32_t>(s.ack - una) < 0 ||
            static_cast<int32_t>(max - s.ack) < 0)
        {
            return; // not an acceptable ACK at A
        }
        const uint32_t a = s.ack - una;
        const bool ece = s.Has(OffloadSegment::ECE);
        acked += a;
        eceAcked += ece ? a : 0;
        allAcked += a;
        allEceAcked += ece ? a : 0;
        if (static_cast<int32_t>(s.ack - windowEnd) >= 0)
        {
            if (acked > 0)
            {
                alpha = (1 - g) * alpha + g * static_cast<double>(eceAcked) / acked;
            }
            acked = eceAcked = 0;
            windowEnd = max;
        }
    };
    auto lb = RunTransfer(hc, "dctcp", model);
    const auto& a = *lb->n[0].conn;
    const auto& dctcp = dynamic_cast<const OffloadDctcpCongestion&>(a.GetCongestion());
    EXPECT_GT(dctcp.GetAlphaUpdates(), 100u);
    EXPECT_NEAR(dctcp.GetAlpha(), alpha, 1e-9);
    // Exact echo over a clean channel: one ECE per CE mark, so a quarter of the acknowledged
    // bytes came back with ECE (the FIN's sequence number aside).
    EXPECT_EQ(a.GetCounters().eceReceived, lb->n[0].ceMarked);
    EXPECT_EQ(lb->n[1].conn->GetCounters().ceReceived, lb->n[0].ceMarked);
    EXPECT_NEAR(static_cast<double>(allEceAcked) / allAcked, 0.25, 0.001);
    EXPECT_GT(a.GetCounters().cwrSent, 0u);
    // Marking a quarter of all packets is a strong signal: windows are a few segments, each
    // window's fraction is 0 or 1, and alpha settles near (not at) the byte fraction. The
    // exact convergence to 0.25 with equal windows is OffloadDctcpCongestion's own unit test.
    EXPECT_GT(dctcp.GetAlpha(), 0.15);
    EXPECT_LT(dctcp.GetAlpha(), 0.45);
}

TEST(OffloadTcpLoopback, DeterministicForSameSeed)
{
    HarnessConfig hc;
    hc.tcp = SmallConfig(2);
    hc.ab.loss = hc.ba.loss = 0.02;
    hc.ab.maxDelaySlots = hc.ba.maxDelaySlots = 8;
    hc.bytesAB = 60000;
    hc.bytesBA = 40000;
    hc.seed = 99;
    auto x = RunTransfer(hc, "run 1");
    auto y = RunTransfer(hc, "run 2");
    EXPECT_EQ(x->now, y->now);
    EXPECT_EQ(x->events, y->events);
    EXPECT_EQ(x->n[0].packetsSent, y->n[0].packetsSent);
    EXPECT_EQ(x->n[1].conn->GetCounters().fidelityDrops, y->n[1].conn->GetCounters().fidelityDrops);
}

// TAS/FlexTOE timeouts: with hostLoopTimeouts the RTO timer is off and the host control loop
// goes back to snd_una after 4 intervals and at least 2 RTT without ACK progress.
TEST(OffloadTcpConnection, HostControlLoopTimeout)
{
    OffloadTcpConfig c;
    c.mss = 1000;
    c.hostLoopTimeouts = true;
    c.controlRttInitNs = 50000; // no RTT sample: 50 us, control interval 100 us
    OffloadTcpConnection conn(c, 1, 1, 1 << 20);
    ASSERT_TRUE(conn.UsesControlLoop());
    conn.AppSend(5000);
    uint32_t first = 0;
    int sent = 0;
    while (auto s = conn.NextSegment(0))
    {
        first = sent++ == 0 ? s->seg.seq : first;
    }
    EXPECT_EQ(sent, 5);
    // the RTO timer never fires, however late
    EXPECT_FALSE(conn.OnTimerScan(1000000000).timeout);
    EXPECT_FALSE(conn.NextSegment(1000000000).has_value());
    // control intervals: the first records the state, then 4 without progress -> timeout
    const uint64_t step = conn.GetControlIntervalNs();
    EXPECT_EQ(step, 100000u);
    uint64_t now = 1000000000;
    EXPECT_FALSE(conn.OnControlInterval(now)); // records snd_una
    for (int i = 1; i <= 3; ++i)
    {
        EXPECT_FALSE(conn.OnControlInterval(now + i * step)) << "interval " << i;
    }
    EXPECT_TRUE(conn.OnControlInterval(now + 4 * step)); // 4 stalled intervals, 400 us >= 2 RTT
    EXPECT_EQ(conn.GetCounters().timeouts, 1u);
    auto re = conn.NextSegment(now + 4 * step);
    ASSERT_TRUE(re.has_value());
    EXPECT_EQ(re->seg.seq, first); // go-back-N from snd_una
    EXPECT_TRUE(re->retransmission);
    // an ACK of everything: progress, no further timeout
    OffloadSegment ack;
    ack.flags = OffloadSegment::ACK;
    ack.ack = first + 5000;
    ack.window = 1 << 20;
    conn.OnSegment(ack, now + 5 * step);
    for (int i = 5; i <= 12; ++i)
    {
        EXPECT_FALSE(conn.OnControlInterval(now + i * step));
    }
    EXPECT_EQ(conn.GetCounters().timeouts, 1u);
}
