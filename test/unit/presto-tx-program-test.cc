/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/offload-seq.h"
#include "ns3/offload-tcp-connection.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-tx-program.h"
#include "ns3/rmt-pipeline.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

constexpr uint32_t MSS = 1448;

TEST(PrestoTxProgram, RefusesWhatDoesNotFit)
{
    RmtPipelineConfig small;
    small.stageBudget = 9;
    const std::string e = ErrorOf([&] { PrestoTxProgram(16, {}, small); });
    EXPECT_TRUE(Contains(e, {"needs 10 stages", "stage budget is 9"})) << e;
    RmtPipelineConfig onePass;
    onePass.maxPasses = 1;
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoTxProgram(16, {}, onePass); }),
                         {"mispredicted segment", "at least 2"}));
    RmtPipelineConfig tiny;
    tiny.registerBitsPerStage = 64 * 100; // tx.peer holds 64 + 32 bits per connection
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoTxProgram(100, {}, tiny); }),
                         {"does not fit", "100 connections"}));
    PrestoTxProgram::Params bad;
    bad.dupAckThreshold = 0;
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoTxProgram(4, bad, {}); }), {"threshold"}));
    PrestoTxProgram p(4, {}, {});
    EXPECT_TRUE(Contains(ErrorOf([&] { p.OnTimerScan(4, 0); }), {"connection 4", "below 4"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.Init(1, OffloadSendState{}, 0); }),
                         {"connection 1", "MSS", "not 0"}));
    const RmtResourceReport r = p.GetResourceReport();
    EXPECT_EQ(r.stagesUsed, PrestoTxProgram::STAGES);
    // 64 + 32 + 34 + 64 + 32 + 32 + 33 + 34 + 64 + 64 + 8 + 64 + 64 bits per connection
    EXPECT_EQ(r.registerBits, uint64_t{589} * 4);
}

/// One connection of the differential test: the data path, and what the peer has seen.
struct Endpoint
{
    std::unique_ptr<OffloadTcpConnection> tcp;
    uint32_t mss{MSS};   //!< its MSS
    uint32_t peerSeq{0}; //!< the peer's next sequence number
    uint32_t window{0};  //!< the window the peer announces
    bool closed{false};  //!< AppClose was called
    uint32_t highAck{0}; //!< the highest ack the peer may send (snd_max seen)
    bool posted{false};  //!< a doorbell came since the last send pass: the next one is its
};

/**
 * The differential test: random applications writes and closes, send passes (new data and
 * go-back-N re-sends, short segments, FINs, nothing to send), ACKs (progress, duplicates,
 * old, too old, beyond snd_max, with payload or FIN, changing windows, closed windows) and
 * timer scans over 4 connections, with the time advancing so that timers expire and back off;
 * after every event PrestoTxProgram and OffloadTcpConnection agree on every field of
 * OffloadSendState, on the segment each send pass chose (NextSegment's), on what each ACK did,
 * on whether a send is due after each ACK and doorbell (ChooseSegment), on timeouts and
 * probes, and the passes are the ones the program's guess explains.
 */
void
RunDifferential(uint64_t seed, int events, uint32_t dupThreshold, uint64_t minRtoNs)
{
    const uint32_t conns = 4;
    PrestoTxProgram::Params params;
    params.dupAckThreshold = dupThreshold;
    params.minRtoNs = minRtoNs;
    params.initialRtoNs = minRtoNs;
    PrestoTxProgram prog(conns, params, {});
    std::mt19937_64 rng(seed);
    std::vector<Endpoint> ep(conns);
    uint64_t now = 1000;
    auto start = [&](uint32_t c) {
        OffloadTcpConfig cfg;
        const uint32_t sizes[] = {MSS, MSS, 536, 8948};
        cfg.mss = ep[c].mss = sizes[rng() % 4];
        cfg.dupAckThreshold = dupThreshold;
        cfg.minRtoNs = minRtoNs;
        cfg.initialRtoNs = minRtoNs;
        cfg.txBufferSize = 64 * 1024;
        const auto iss =
            static_cast<uint32_t>(rng() % 3 == 0 ? 0xffffffffu - rng() % 100000 : rng());
        const auto irs = static_cast<uint32_t>(rng());
        ep[c].window = 8 * MSS + static_cast<uint32_t>(rng() % (32 * MSS));
        ep[c].tcp = std::make_unique<OffloadTcpConnection>(cfg, iss, irs, ep[c].window, nullptr);
        ep[c].peerSeq = irs + 1;
        ep[c].closed = false;
        prog.Init(c, ep[c].tcp->GetSendState(), cfg.mss);
    };
    for (uint32_t c = 0; c < conns; ++c)
    {
        start(c);
    }
    uint64_t acks = 0;
    uint64_t goBackN = 0;
    uint64_t timeouts = 0;
    uint64_t samples = 0;
    uint64_t old = 0;
    uint64_t unacceptable = 0;
    uint64_t sends = 0;
    uint64_t nothing = 0;
    uint64_t mispredicted = 0;
    uint64_t probes = 0;
    uint64_t persistArmed = 0;
    uint64_t doorbellSends = 0;
    uint64_t readyAcks = 0;
    uint64_t ackFixes = 0;
    auto ready = [](const OffloadTcpConnection& t) { return t.ChooseSegment().has_value(); };
    for (int i = 0; i < events; ++i)
    {
        const auto c = static_cast<uint32_t>(rng() % conns);
        Endpoint& e = ep[c];
        OffloadTcpConnection& tcp = *e.tcp;
        const uint32_t roll = rng() % 1000;
        now += rng() % 4 == 0 ? rng() % (2 * minRtoNs) : rng() % 20000;
        std::string what;
        if (roll < 3)
        {
            start(c);
            continue;
        }
        else if (roll < 120)
        {
            what = "AppSend";
            if (!e.closed)
            {
                tcp.AppSend(static_cast<uint32_t>(rng() % (20 * MSS)));
            }
            if (!e.closed && rng() % 200 == 0)
            {
                what = "AppClose";
                tcp.AppClose();
                e.closed = true;
            }
            const OffloadSendState st = tcp.GetSendState();
            ASSERT_EQ(prog.Post(c, st.sndBufEnd, st.closeRequested, tcp.GetCwnd(), now), ready(tcp))
                << "event " << i << ": a send due after the doorbell";
            e.posted = rng() % 2 == 0; // half the doorbells go on to send in their own pass
        }
        else if (roll < 450)
        {
            what = "NextSegment";
            const uint32_t cwnd = tcp.GetCwnd();
            const OffloadSendState before = tcp.GetSendState();
            const auto tx = tcp.NextSegment(now);
            if (tx && tx->probe)
            {
                // the scan asked for it (compared there); no send pass
            }
            else
            {
                std::optional<uint32_t> postedEnd;
                uint32_t guess = e.mss;
                if (e.posted)
                {
                    postedEnd = before.sndBufEnd;
                    const uint32_t unsent = seq::Lt(before.sndNxt, before.sndBufEnd)
                                                ? before.sndBufEnd - before.sndNxt
                                                : 0;
                    guess = std::min(guess, unsent);
                    e.posted = false;
                    ++doorbellSends;
                }
                const PrestoTxProgram::SendResult r = prog.Send(c, cwnd, now, postedEnd);
                if (tx)
                {
                    const bool fin = tx->seg.Has(OffloadSegment::FIN);
                    ASSERT_EQ(r.seqLen, tx->seg.payloadLen + (fin ? 1 : 0)) << "event " << i;
                    ASSERT_EQ(r.seq, tx->seg.seq) << "event " << i;
                    ASSERT_EQ(r.len, tx->seg.payloadLen) << "event " << i;
                    ASSERT_EQ(r.fin, fin) << "event " << i;
                    ASSERT_EQ(r.retransmission, tx->retransmission) << "event " << i;
                    ++sends;
                }
                else
                {
                    ASSERT_EQ(r.seqLen, 0u) << "event " << i << ": the data path sends nothing";
                    ++nothing;
                }
                // one pass when the guess (a full segment, or what the doorbell posted) was
                // right, two otherwise
                const uint32_t passes = r.seqLen == guess ? 1 : 2;
                ASSERT_EQ(prog.GetLastExecution().passes, passes) << "event " << i;
                mispredicted += passes - 1;
            }
        }
        else if (roll < 900)
        {
            what = "ACK";
            const OffloadSendState st = tcp.GetSendState();
            const uint32_t flight = st.sndMax - st.sndUna;
            OffloadSegment seg;
            seg.flags = OffloadSegment::ACK;
            const uint32_t kind = rng() % 100;
            if (kind < 45 && flight > 0)
            {
                seg.ack = st.sndUna + 1 + static_cast<uint32_t>(rng() % flight); // progress
            }
            else if (kind < 55)
            {
                seg.ack = st.sndMax; // everything sent, and often a closed window: blocked
                if (rng() % 2 == 0)
                {
                    e.window = 0;
                }
            }
            else if (kind < 85)
            {
                seg.ack = st.sndUna; // a duplicate, if nothing else differs
            }
            else if (kind < 92)
            {
                seg.ack = st.sndUna - 1 - static_cast<uint32_t>(rng() % (2 * st.maxPeerWindow + 1));
            }
            else
            {
                seg.ack = st.sndMax + 1 + static_cast<uint32_t>(rng() % 5000); // never sent
            }
            if (rng() % 8 == 0)
            {
                // a quarter of the changes close the window (persist, probes)
                e.window = rng() % 4 == 0 ? 0 : static_cast<uint32_t>(rng() % (40 * MSS));
            }
            seg.window = e.window;
            seg.seq = e.peerSeq;
            if (rng() % 8 == 0)
            {
                seg.payloadLen = 1 + static_cast<uint32_t>(rng() % MSS);
                e.peerSeq += seg.payloadLen;
            }
            if (rng() % 200 == 0)
            {
                seg.flags |= OffloadSegment::FIN;
            }
            if (rng() % 4 == 0)
            {
                seg.flags |= OffloadSegment::ECE;
            }
            const OffloadRxDecision d = tcp.OnSegment(seg, now);
            const PrestoTxProgram::AckResult r = prog.OnAck(c,
                                                            seg.ack,
                                                            seg.window,
                                                            seg.payloadLen,
                                                            seg.Has(OffloadSegment::FIN),
                                                            tcp.GetCwnd(),
                                                            now);
            // a second pass exactly when the ACK moved snd_nxt other than by sending
            const OffloadSendState after = tcp.GetSendState();
            const bool moved = d.goBackN || d.sndNxtRaised;
            ASSERT_EQ(d.sndNxtRaised, !d.goBackN && after.sndNxt != st.sndNxt) << "event " << i;
            ASSERT_EQ(prog.GetLastExecution().passes, moved ? 2u : 1u) << "event " << i;
            ackFixes += moved;
            ASSERT_EQ(r.ready, ready(tcp)) << "event " << i << ": a send due after the ACK";
            readyAcks += r.ready;
            const bool refused =
                r.cls == PrestoTxProgram::ACK_UNACCEPTABLE || r.cls == PrestoTxProgram::ACK_TOO_OLD;
            ASSERT_EQ(refused, d.unacceptable) << "event " << i << " class " << int(r.cls);
            ASSERT_EQ(r.goBackN, d.goBackN) << "event " << i;
            ASSERT_EQ(r.dataAcked, d.ackedBytes) << "event " << i;
            ASSERT_EQ(r.finAcked, d.finAcked) << "event " << i;
            acks += r.cls == PrestoTxProgram::ACK_PROCESSED;
            old += r.cls == PrestoTxProgram::ACK_OLD;
            unacceptable += refused;
            goBackN += r.goBackN;
        }
        else
        {
            what = "OnTimerScan";
            const OffloadTimerDecision want = tcp.OnTimerScan(now);
            const OffloadTimerDecision got = prog.OnTimerScan(c, now);
            ASSERT_EQ(got.timeout, want.timeout) << "event " << i;
            ASSERT_EQ(got.probe, want.probe) << "event " << i;
            probes += want.probe;
            persistArmed += prog.GetState(c).persistArmed;
            ASSERT_EQ(prog.GetLastExecution().passes, want.timeout ? 2u : 1u);
            timeouts += want.timeout;
        }
        const std::string diff = prog.GetState(c).Diff(tcp.GetSendState());
        ASSERT_EQ(diff, "") << "event " << i << " (" << what << ") conn " << c
                            << ": program vs data path";
        samples = std::max<uint64_t>(samples, tcp.GetCounters().rttSamples);
    }
    EXPECT_GT(acks, uint64_t(events) / 5);
    EXPECT_GT(goBackN, 20u) << "the events must reach the duplicate-ACK threshold";
    EXPECT_GT(timeouts, 50u) << "and expire timers";
    EXPECT_GT(old, 100u);
    EXPECT_GT(unacceptable, 100u);
    EXPECT_GT(samples, 10u);
    EXPECT_GT(sends, uint64_t(events) / 20);
    EXPECT_GT(nothing, 100u);
    EXPECT_GT(doorbellSends, 1000u);
    EXPECT_GT(mispredicted, nothing) << "short segments and FINs guess wrong too";
    EXPECT_GT(persistArmed, 100u) << "closed windows must arm the persist timer";
    EXPECT_GT(probes, 5u) << "until it fires";
    EXPECT_GT(readyAcks, 100u);
    EXPECT_GT(ackFixes, goBackN) << "and ACKs must pass a rewound snd_nxt";
    std::cout << events << " events (threshold " << dupThreshold << ", min RTO " << minRtoNs
              << " ns): " << sends << " segments chosen (" << nothing << " send passes found "
              << "nothing; " << mispredicted << " took 2 passes), " << acks << " ACKs processed ("
              << readyAcks << " made a send due; " << ackFixes << " moved snd_nxt in 2 passes), "
              << old << " old, " << unacceptable << " refused, " << goBackN << " go-back-N, "
              << timeouts << " timeouts (2 passes each), " << persistArmed
              << " scans with the persist timer armed, " << probes
              << " probes due; every field equal after every event" << std::endl;
}

TEST(PrestoTxProgram, DifferentialAgainstDataPath)
{
    RunDifferential(1, 150000, 3, 200000);
}

TEST(PrestoTxProgram, DifferentialOtherParameters)
{
    RunDifferential(2, 100000, 1, 50000);
    RunDifferential(3, 100000, 5, 1000000);
}

} // namespace
