/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Replayed sprayed, lossy, retransmitted streams through the reassembly tracker and the Presto
// pipeline program for K = 1, 2, 4, 8, 16 (issue 14, "K means K"): the tracker must do what
// an ideal K-interval tracker with TAS's overlap rule does, and the program what the tracker
// does, on every segment.

#include "ns3/offload-reassembly.h"
#include "ns3/presto-rx-program.h"
#include "ns3/rmt-pipeline.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <gtest/gtest.h>
#include <iostream>
#include <memory>
#include <queue>
#include <random>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

using V = ReassemblyTracker::Verdict;
using Iv = ReassemblyTracker::Interval;
constexpr uint32_t U = ReassemblyTracker::UNBOUNDED;

struct Seg
{
    uint32_t seq;
    uint32_t len;
};

/// One replayed stream: what arrived at the receiver, in order.
struct Stream
{
    uint32_t isn{0};
    uint32_t length{0};
    uint32_t window{0};
    bool misaligned{false}; //!< some retransmission was cut off the MSS grid
    std::vector<Seg> arrivals;
};

/**
 * A go-back-N sender (MSS-aligned segments, one per tick while the window allows) over paths
 * with different delays and per-packet jitter, a segment sprayed on a random path, lost with
 * some probability; three duplicate ACKs or a timeout send again from the first unacknowledged
 * byte, and some of those retransmissions are re-cut off the grid (as a sender re-segmenting
 * would). The ACKs come from a receiver with K = 1, 4 or full reassembly (chosen per stream);
 * the arrivals it saw are then replayed, identically, to every K under test.
 */
Stream
MakeStream(std::mt19937_64& rng)
{
    auto uni = [&rng](uint64_t lo, uint64_t hi) {
        return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
    };
    auto chance = [&rng](double p) {
        return std::uniform_real_distribution<double>(0, 1)(rng) < p;
    };
    Stream st;
    const uint32_t mss = std::vector<uint32_t>{100, 536, 1448}[uni(0, 2)];
    const auto nSeg = static_cast<uint32_t>(uni(60, 300));
    st.length = nSeg * mss - static_cast<uint32_t>(uni(0, mss - 1));
    // A third of the streams cross 2^32.
    st.isn =
        chance(0.3) ? static_cast<uint32_t>(0u - uni(1, st.length)) : static_cast<uint32_t>(rng());
    const uint32_t cwnd = std::vector<uint32_t>{8, 16, 32, 64}[uni(0, 3)];
    // Mostly the sender's window limits; sometimes the receiver's (window drops).
    st.window = (chance(0.2) ? cwnd / 2 : cwnd + 8) * mss;
    const uint32_t paths = std::vector<uint32_t>{2, 4, 8}[uni(0, 2)];
    const auto spread = static_cast<uint32_t>(uni(1, 40));
    std::vector<uint32_t> pathDelay(paths);
    for (auto& d : pathDelay)
    {
        d = 20 + static_cast<uint32_t>(uni(0, spread));
    }
    const auto jitter = static_cast<uint32_t>(uni(0, 10));
    const double loss = std::vector<double>{0.001, 0.01, 0.03, 0.08}[uni(0, 3)];
    const double recut = std::vector<double>{0.0, 0.2, 0.5}[uni(0, 2)];
    ReassemblyTracker rx(std::vector<uint32_t>{1, 4, U}[uni(0, 2)], st.isn, st.window);

    struct Packet
    {
        uint64_t at;
        uint64_t order;
        bool data;
        uint32_t a; //!< seq (data) or cumulative ACK
        uint32_t b; //!< payload length (data)

        bool operator>(const Packet& o) const
        {
            return at != o.at ? at > o.at : order > o.order;
        }
    };

    std::priority_queue<Packet, std::vector<Packet>, std::greater<>> net;
    uint64_t order = 0;
    uint32_t una = 0; // offsets from the ISN
    uint32_t nxt = 0;
    uint32_t high = 0;
    uint32_t dupAcks = 0;
    uint64_t lastProgress = 0;
    bool recutting = false;
    const uint64_t rto = 4 * (40 + spread + jitter) + 20;
    for (uint64_t now = 0; now < 400000 && una < st.length; ++now)
    {
        while (!net.empty() && net.top().at <= now)
        {
            const Packet p = net.top();
            net.pop();
            if (p.data)
            {
                st.arrivals.push_back(Seg{p.a, p.b});
                const auto r = rx.OnSegment(p.a, p.b);
                rx.OpenWindow(r.delivered); // the application reads at once
                net.push(Packet{now + 20 + uni(0, jitter), order++, false, r.ack, 0});
                continue;
            }
            const uint32_t ack = p.a - st.isn;
            if (ack > una && ack <= high)
            {
                una = ack;
                nxt = std::max(nxt, una);
                dupAcks = 0;
                lastProgress = now;
            }
            else if (ack == una && nxt > una && ++dupAcks == 3)
            {
                nxt = una; // go-back-N
                recutting = chance(recut);
            }
        }
        if (now - lastProgress > rto)
        {
            nxt = una; // timeout: go-back-N
            dupAcks = 0;
            lastProgress = now;
            recutting = chance(recut);
        }
        if (nxt < st.length && nxt - una < cwnd * mss)
        {
            uint32_t len = mss - nxt % mss; // on the MSS grid
            if (recutting && nxt < high)
            {
                len = static_cast<uint32_t>(uni(mss / 3, 2 * mss)); // a re-cut retransmission
                st.misaligned = true;
            }
            else
            {
                recutting = false;
            }
            len = std::min(len, st.length - nxt);
            if (!chance(loss))
            {
                const uint64_t at = now + pathDelay[uni(0, paths - 1)] + uni(0, jitter);
                net.push(Packet{at, order++, true, st.isn + nxt, len});
            }
            nxt += len;
            high = std::max(high, nxt);
        }
    }
    return st;
}

/**
 * The ideal K-interval tracker with TAS's overlap rule, as plainly as it can be written:
 * stream offsets (64 bit, no wrap-around), an unordered vector of intervals, the five rules.
 */
struct Reference
{
    uint32_t k;
    uint64_t rcv{0};
    uint64_t window;
    std::vector<std::pair<uint64_t, uint64_t>> iv; // [start, end)

    /// \return the verdict for the segment [s, e) (e > s)
    V OnSegment(uint64_t s, uint64_t e)
    {
        if (e <= rcv)
        {
            return V::DUPLICATE;
        }
        s = std::max(s, rcv);
        if (s >= rcv + window)
        {
            return V::DROPPED_WINDOW;
        }
        e = std::min(e, rcv + window);
        if (s == rcv)
        {
            // In order: advance, then merge whatever rcv_next reaches, until nothing does.
            window -= e - rcv;
            rcv = e;
            for (size_t i = 0; i < iv.size();)
            {
                if (iv[i].first <= rcv)
                {
                    window -= std::max(rcv, iv[i].second) - rcv;
                    rcv = std::max(rcv, iv[i].second);
                    iv.erase(iv.begin() + i);
                    i = 0;
                }
                else
                {
                    ++i;
                }
            }
            return V::IN_ORDER;
        }
        for (const auto& x : iv)
        {
            if (x.first <= s && e <= x.second)
            {
                return V::DUPLICATE; // 1. contained
            }
        }
        for (const auto& x : iv)
        {
            if (x.first < e && s < x.second)
            {
                return V::DROPPED_FIDELITY; // 2. overlaps
            }
        }
        int left = -1;
        int right = -1;
        for (size_t i = 0; i < iv.size(); ++i)
        {
            left = iv[i].second == s ? static_cast<int>(i) : left;
            right = iv[i].first == e ? static_cast<int>(i) : right;
        }
        if (left >= 0 && right >= 0)
        {
            iv[left].second = iv[right].second; // 3. bridge
            iv.erase(iv.begin() + right);
        }
        else if (left >= 0)
        {
            iv[left].second = e; // 3. grows at its end
        }
        else if (right >= 0)
        {
            iv[right].first = s; // 3. grows at its start
        }
        else if (iv.size() < k)
        {
            iv.emplace_back(s, e); // 4. a new interval
        }
        else
        {
            return V::DROPPED_FIDELITY; // 5.
        }
        return V::OUT_OF_ORDER_PLACED;
    }

    /// \return the intervals, sorted
    std::vector<std::pair<uint64_t, uint64_t>> Sorted() const
    {
        auto v = iv;
        std::sort(v.begin(), v.end());
        return v;
    }
};

/// A hardware configuration with room for K = 16.
RmtPipelineConfig
BigConfig()
{
    RmtPipelineConfig c;
    c.name = "presto-rx-replay";
    c.stageBudget = 64;
    return c;
}

/// Totals per K over the replay set.
struct PerK
{
    uint64_t drops{0};         //!< DROPPED_FIDELITY of the tracker
    uint64_t refDrops{0};      //!< DROPPED_FIDELITY of the reference
    uint64_t passes{0};        //!< pipeline passes for the segments
    uint64_t twoPass{0};       //!< segments that needed a recirculation
    uint64_t bridges{0};       //!< segments joining two intervals
    uint64_t deliveredSum{0};  //!< sum over arrivals of the bytes delivered so far
    uint64_t belowSmallerK{0}; //!< arrivals after which this K had delivered less than the K
                               //!< before it in the list
};

} // namespace

TEST(ReassemblyReplay, SprayedLossyRetransmittedStreams)
{
    const std::vector<uint32_t> ks{1, 2, 4, 8, 16};
    constexpr int STREAMS = 1000;
    std::mt19937_64 rng(14);
    std::vector<std::unique_ptr<PrestoRxProgram>> progs;
    for (uint32_t k : ks)
    {
        progs.push_back(std::make_unique<PrestoRxProgram>(k, 1, BigConfig()));
    }
    std::vector<PerK> perK(ks.size());
    uint64_t arrivals = 0;
    uint64_t misaligned = 0;
    uint64_t wrapped = 0;
    uint64_t windowDrops = 0;
    uint64_t nonMonotoneStreams = 0;
    for (int n = 0; n < STREAMS; ++n)
    {
        const Stream st = MakeStream(rng);
        arrivals += st.arrivals.size();
        misaligned += st.misaligned ? 1 : 0;
        wrapped += (st.isn + st.length < st.isn) ? 1 : 0;
        std::vector<ReassemblyTracker> trackers;
        std::vector<Reference> refs;
        for (size_t i = 0; i < ks.size(); ++i)
        {
            trackers.emplace_back(ks[i], st.isn, st.window);
            refs.push_back(Reference{ks[i], 0, st.window, {}});
            progs[i]->Reset(0, st.isn, st.window);
        }
        // The bounds every K lies between: no interval, and full reassembly.
        ReassemblyTracker none(0, st.isn, st.window);
        ReassemblyTracker full(U, st.isn, st.window);
        std::vector<uint64_t> streamDrops(ks.size(), 0);
        std::vector<uint64_t> streamRefDrops(ks.size(), 0);
        bool nonMonotone = false;
        for (size_t a = 0; a < st.arrivals.size(); ++a)
        {
            const Seg seg = st.arrivals[a];
            const uint64_t off = static_cast<uint32_t>(seg.seq - st.isn);
            none.OpenWindow(none.OnSegment(seg.seq, seg.len).delivered);
            full.OpenWindow(full.OnSegment(seg.seq, seg.len).delivered);
            uint32_t previous = 0;
            for (size_t i = 0; i < ks.size(); ++i)
            {
                const uint32_t k = ks[i];
                const std::string where = "stream " + std::to_string(n) + " arrival " +
                                          std::to_string(a) + " K=" + std::to_string(k) + " [" +
                                          std::to_string(off) + "," +
                                          std::to_string(off + seg.len) + ")";
                ReassemblyTracker& t = trackers[i];
                const uint32_t liveBefore = t.GetLiveSlotCount();
                const auto r = t.OnSegment(seg.seq, seg.len);
                t.OpenWindow(r.delivered);
                windowDrops += (r.verdict == V::DROPPED_WINDOW) ? 1 : 0;

                // (a) The tracker is the ideal K-interval tracker.
                Reference& ref = refs[i];
                const uint64_t refRcv = ref.rcv;
                const V want = ref.OnSegment(off, off + seg.len);
                ref.window += ref.rcv - refRcv; // the application reads at once
                ASSERT_EQ(ReassemblyTracker::VerdictName(r.verdict),
                          std::string(ReassemblyTracker::VerdictName(want)))
                    << where;
                ASSERT_EQ(static_cast<uint32_t>(t.GetRcvNext() - st.isn), ref.rcv) << where;
                const auto held = ref.Sorted();
                const auto ivs = t.GetIntervals();
                ASSERT_EQ(ivs.size(), held.size()) << where;
                ASSERT_EQ(t.GetLiveSlotCount(), held.size()) << where << ": K means K";
                for (size_t j = 0; j < ivs.size(); ++j)
                {
                    ASSERT_EQ(static_cast<uint32_t>(ivs[j].start - st.isn), held[j].first) << where;
                    ASSERT_EQ(static_cast<uint64_t>(ivs[j].len), held[j].second - held[j].first)
                        << where;
                }
                streamDrops[i] += (r.verdict == V::DROPPED_FIDELITY) ? 1 : 0;
                streamRefDrops[i] += (want == V::DROPPED_FIDELITY) ? 1 : 0;
                perK[i].bridges +=
                    (r.verdict == V::OUT_OF_ORDER_PLACED && t.GetLiveSlotCount() < liveBefore) ? 1
                                                                                               : 0;

                // (c) The pipeline program does what the tracker does, slot for slot.
                PrestoRxProgram& prog = *progs[i];
                const auto got = prog.OnSegment(0, seg.seq, seg.len);
                const uint32_t passes = prog.GetLastExecution().passes;
                if (got.delivered > 0)
                {
                    prog.OpenWindow(0, got.delivered); // a pipeline pass of its own
                }
                ASSERT_EQ(got.verdict, r.verdict) << where;
                ASSERT_EQ(got.writeSeq, r.writeSeq) << where;
                ASSERT_EQ(got.writeLen, r.writeLen) << where;
                ASSERT_EQ(got.delivered, r.delivered) << where;
                ASSERT_EQ(got.ack, r.ack) << where;
                ASSERT_EQ(got.ackRequired, r.ackRequired) << where;
                ASSERT_EQ(prog.GetRcvNext(0), t.GetRcvNext()) << where;
                ASSERT_EQ(prog.GetWindow(0), t.GetWindow()) << where;
                for (uint32_t j = 0; j < k; ++j)
                {
                    ASSERT_EQ(prog.GetSlot(0, j), t.GetSlot(j)) << where << " slot " << j;
                }
                ASSERT_TRUE(passes == 1 || passes == 2) << where;
                perK[i].passes += passes;
                perK[i].twoPass += passes - 1;

                // (b) Delivery across K: between no interval and full reassembly, always.
                const auto delivered = static_cast<uint32_t>(t.GetRcvNext() - st.isn);
                ASSERT_LE(static_cast<uint32_t>(none.GetRcvNext() - st.isn), delivered) << where;
                ASSERT_LE(delivered, static_cast<uint32_t>(full.GetRcvNext() - st.isn)) << where;
                perK[i].deliveredSum += delivered;
                if (i > 0 && delivered < previous)
                {
                    ++perK[i].belowSmallerK;
                    nonMonotone = true;
                }
                previous = delivered;
            }
        }
        for (size_t i = 0; i < ks.size(); ++i)
        {
            ASSERT_EQ(streamDrops[i], streamRefDrops[i]) << "stream " << n << " K=" << ks[i];
            perK[i].drops += streamDrops[i];
            perK[i].refDrops += streamRefDrops[i];
        }
        nonMonotoneStreams += nonMonotone ? 1 : 0;
    }

    std::cout << "[ replay ] " << STREAMS << " streams, " << arrivals << " arrivals, " << misaligned
              << " with re-cut retransmissions, " << wrapped << " crossing 2^32\n";
    for (size_t i = 0; i < ks.size(); ++i)
    {
        const PerK& p = perK[i];
        std::cout << "[ replay ] K=" << ks[i] << ": fidelity drops " << p.drops << " (reference "
                  << p.refDrops << "), bridges " << p.bridges << ", pipeline "
                  << static_cast<double>(p.passes) / arrivals << " passes/segment, "
                  << 100.0 * static_cast<double>(p.twoPass) / arrivals << "% recirculated, "
                  << progs[i]->GetStageCount() << " stages; arrivals after "
                  << "which it delivered less than the K before: " << p.belowSmallerK << "\n";
    }
    std::cout << "[ replay ] streams where a larger K was behind a smaller one at some point: "
              << nonMonotoneStreams << std::endl;

    // (a) in total as well (per stream checked above).
    for (size_t i = 0; i < ks.size(); ++i)
    {
        EXPECT_EQ(perK[i].drops, perK[i].refDrops) << "K=" << ks[i];
    }
    // (b) Per arrival, a larger K is NOT always ahead of a smaller one (see
    // ReassemblyReplay.DeliveryIsNotMonotoneInKArrivalByArrival); over the replay set, the
    // bytes delivered so far, summed over all arrivals, must still grow with K.
    for (size_t i = 1; i < ks.size(); ++i)
    {
        EXPECT_GT(perK[i].deliveredSum, perK[i - 1].deliveredSum) << "K=" << ks[i];
    }
    // The replay must exercise what it claims to: reordering that K = 1 cannot track, fewer
    // drops with more intervals, bridges, re-cut overlaps, window drops, wrap-around, and the
    // second pass of the program.
    EXPECT_GE(arrivals, 300000u);
    EXPECT_GT(misaligned, 100u);
    EXPECT_GT(wrapped, 100u);
    EXPECT_GT(windowDrops, 1000u);
    EXPECT_GT(perK[0].drops, 50000u);
    for (size_t i = 1; i < ks.size(); ++i)
    {
        EXPECT_LT(perK[i].drops, perK[i - 1].drops) << "K=" << ks[i];
        EXPECT_GT(perK[i].bridges, 1000u) << "K=" << ks[i];
        EXPECT_GT(perK[i].twoPass, 1000u) << "K=" << ks[i];
    }
}

TEST(ReassemblyReplay, DeliveryIsNotMonotoneInKArrivalByArrival)
{
    // An ideal K-interval tracker with TAS's overlap rule is not monotone in the bytes it has
    // delivered after each arrival: a larger K can spend its extra slot on a range that later
    // blocks one a smaller K takes (by the overlap rule, or by having no slot left when the
    // smaller K has one). Both sequences are the shortest an exhaustive search found (every
    // sequence of segments inside [0, 6), up to 5 arrivals; of single-byte segments inside
    // [0, 10), up to 9 arrivals; K against K + 1 for K = 1..3).
    struct Case
    {
        std::vector<std::pair<uint32_t, uint32_t>> arrivals;
        uint32_t k1Delivers;
        uint32_t k2Delivers;
    };

    const std::vector<Case> cases{
        // K = 2 holds [1,2) and [3,4), so [2,4) overlaps [3,4) and is dropped; K = 1 had no
        // slot for [3,4), and [2,4) grows [1,2) to [1,4).
        {{{1, 2}, {3, 4}, {2, 4}, {0, 1}}, 4, 2},
        // MSS-aligned (single-byte) segments only: K = 2 fills both slots with [7,8) and [9,10)
        // and must drop [5,6), which K = 1 (its slot freed by the in-order [1,2)) takes.
        {{{3, 4}, {1, 2}, {0, 1}, {2, 3}, {7, 8}, {9, 10}, {1, 2}, {5, 6}, {4, 5}}, 6, 5},
    };
    for (const Case& c : cases)
    {
        ReassemblyTracker k1(1, 0, 1000);
        ReassemblyTracker k2(2, 0, 1000);
        ReassemblyTracker full(U, 0, 1000);
        for (auto [s, e] : c.arrivals)
        {
            k1.OnSegment(s, e - s);
            k2.OnSegment(s, e - s);
            full.OnSegment(s, e - s);
        }
        EXPECT_EQ(k1.GetRcvNext(), c.k1Delivers);
        EXPECT_EQ(k2.GetRcvNext(), c.k2Delivers);
        EXPECT_LT(k2.GetRcvNext(), k1.GetRcvNext()) << "K = 2 behind K = 1";
        EXPECT_GE(full.GetRcvNext(), k1.GetRcvNext());
    }
}
