/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/offload-tcp-connection.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-tx-program.h"
#include "ns3/rmt-pipeline.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <iostream>
#include <memory>
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
                         {"expired timer recirculates", "at least 2"}));
    RmtPipelineConfig tiny;
    tiny.registerBitsPerStage = 64 * 100; // tx.peer holds 64 + 32 bits per connection
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoTxProgram(100, {}, tiny); }),
                         {"does not fit", "100 connections"}));
    PrestoTxProgram::Params bad;
    bad.dupAckThreshold = 0;
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoTxProgram(4, bad, {}); }), {"threshold"}));
    PrestoTxProgram p(4, {}, {});
    EXPECT_TRUE(Contains(ErrorOf([&] { p.OnTimerScan(4, 0); }), {"connection 4", "below 4"}));
    const RmtResourceReport r = p.GetResourceReport();
    EXPECT_EQ(r.stagesUsed, PrestoTxProgram::STAGES);
    // 32 + 32 + 34 + 64 + 32 + 32 + 33 + 32 + 34 + 64 + 64 + 8 + 64 bits per connection
    EXPECT_EQ(r.registerBits, uint64_t{525} * 4);
}

/// One connection of the differential test: the data path, and what the peer has seen.
struct Endpoint
{
    std::unique_ptr<OffloadTcpConnection> tcp;
    uint32_t peerSeq{0}; //!< the peer's next sequence number
    uint32_t window{0};  //!< the window the peer announces
    bool closed{false};  //!< AppClose was called
    uint32_t highAck{0}; //!< the highest ack the peer may send (snd_max seen)
};

/**
 * The differential test: random applications writes and closes, transmissions (new data and
 * go-back-N re-sends, FINs), ACKs (progress, duplicates, old, too old, beyond snd_max, with
 * payload or FIN, changing windows) and timer scans over 4 connections, with the time
 * advancing so that timers expire and back off; after every event PrestoTxProgram and
 * OffloadTcpConnection agree on every field of OffloadSendState, and on what each ACK did.
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
        cfg.mss = MSS;
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
        prog.Init(c, ep[c].tcp->GetSendState());
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
                prog.Close(c, tcp.GetSendState().sndBufEnd);
            }
        }
        else if (roll < 450)
        {
            what = "NextSegment";
            const auto tx = tcp.NextSegment(now);
            if (tx && (tx->seg.payloadLen > 0 || tx->seg.Has(OffloadSegment::FIN)))
            {
                const uint32_t seqLen =
                    tx->seg.payloadLen + (tx->seg.Has(OffloadSegment::FIN) ? 1 : 0);
                prog.OnTransmit(c, tx->seg.seq, seqLen, now);
                ASSERT_EQ(prog.GetLastExecution().passes, 1u);
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
            if (kind < 55 && flight > 0)
            {
                seg.ack = st.sndUna + 1 + static_cast<uint32_t>(rng() % flight); // progress
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
            if (rng() % 10 == 0)
            {
                e.window = static_cast<uint32_t>(rng() % (40 * MSS)); // sometimes 0
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
                                                            now);
            ASSERT_EQ(prog.GetLastExecution().passes, 1u);
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
            const bool timeout = tcp.OnTimerScan(now).timeout;
            ASSERT_EQ(prog.OnTimerScan(c, now), timeout) << "event " << i;
            ASSERT_EQ(prog.GetLastExecution().passes, timeout ? 2u : 1u);
            timeouts += timeout;
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
    std::cout << events << " events (threshold " << dupThreshold << ", min RTO " << minRtoNs
              << " ns): " << acks << " ACKs processed, " << old << " old, " << unacceptable
              << " refused, " << goBackN << " go-back-N, " << timeouts
              << " timeouts (2 passes each); every field equal after every event" << std::endl;
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
