/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/offload-reassembly.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-rx-program.h"
#include "ns3/rmt-pipeline.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <gtest/gtest.h>
#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

/// A hardware configuration with room for every K.
RmtPipelineConfig
BigConfig()
{
    RmtPipelineConfig c;
    c.name = "presto-rx-test";
    c.stageBudget = 64;
    return c;
}

/// Expect two results to be identical, with context for the failure message.
::testing::AssertionResult
SameResult(const ReassemblyTracker::Result& ref, const ReassemblyTracker::Result& got)
{
    if (ref.verdict == got.verdict && ref.writeSeq == got.writeSeq &&
        ref.writeLen == got.writeLen && ref.delivered == got.delivered && ref.ack == got.ack &&
        ref.ackRequired == got.ackRequired)
    {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure()
           << "reference " << ReassemblyTracker::VerdictName(ref.verdict) << " write ["
           << ref.writeSeq << "+" << ref.writeLen << ") delivered " << ref.delivered << " ack "
           << ref.ack << " ackReq " << ref.ackRequired << "; pipeline "
           << ReassemblyTracker::VerdictName(got.verdict) << " write [" << got.writeSeq << "+"
           << got.writeLen << ") delivered " << got.delivered << " ack " << got.ack << " ackReq "
           << got.ackRequired;
}

/// Compare the whole state of one connection: rcv_next, window and every raw slot.
::testing::AssertionResult
SameState(const ReassemblyTracker& ref, const PrestoRxProgram& prog, uint32_t conn)
{
    if (ref.GetRcvNext() != prog.GetRcvNext(conn))
    {
        return ::testing::AssertionFailure()
               << "rcv_next " << ref.GetRcvNext() << " vs " << prog.GetRcvNext(conn);
    }
    if (ref.GetWindow() != prog.GetWindow(conn))
    {
        return ::testing::AssertionFailure()
               << "window " << ref.GetWindow() << " vs " << prog.GetWindow(conn);
    }
    for (uint32_t i = 0; i < ref.GetFidelity(); ++i)
    {
        const auto a = ref.GetSlot(i);
        const auto b = prog.GetSlot(conn, i);
        if (!(a == b))
        {
            return ::testing::AssertionFailure() << "slot " << i << " [" << a.start << "+" << a.len
                                                 << ") vs [" << b.start << "+" << b.len << ")";
        }
        const uint16_t wantOwner =
            ref.GetPolicy() == ReassemblyTracker::Policy::PER_PATH ? ref.GetSlotOwner(i) : 0;
        if (wantOwner != prog.GetSlotOwner(conn, i))
        {
            return ::testing::AssertionFailure() << "slot " << i << " owner " << wantOwner << " vs "
                                                 << prog.GetSlotOwner(conn, i);
        }
    }
    return ::testing::AssertionSuccess();
}

/// One connection of the differential test: the reference and the sender's grid.
struct DiffConn
{
    uint32_t id;           //!< connection id in the program
    ReassemblyTracker ref; //!< the reference
    uint32_t isn;          //!< grid origin (segments mostly start at isn + k * MSS)
    uint32_t unread{0};    //!< bytes delivered but not yet read by the application
};

/// What the differential run saw, for the non-vacuity checks.
struct DiffStats
{
    std::array<uint64_t, 6> verdicts{}; //!< per verdict
    uint64_t segments{0};               //!< segments compared
    uint64_t merges{0};                 //!< in-order segments that reached an interval
    uint64_t setWindows{0};             //!< SetWindow calls
    uint64_t wraps{0};                  //!< rcv_next crossed 2^32
    uint64_t compactions{0};            //!< in-order segments moving kept slots down
    uint64_t bridges{0};                //!< out-of-order segments joining two intervals
    uint64_t undos{0};                  //!< growths undone by a later overlapping slot
    uint64_t pathRefusals{0};           //!< per path: dropped where arrival order would place
};

/// Why a segment needs a second pass, worked out from the reference alone.
struct PassReason
{
    bool merge{false};   //!< in order, rcv_next moved beyond the segment's end
    bool compact{false}; //!< in order, a kept slot sits behind a removed one
    bool bridge{false};  //!< out of order, two intervals joined (one slot fewer)
    bool undo{false};    //!< dropped after the first slot deciding was one T touches

    /// \return the passes the program must take
    uint32_t Passes() const
    {
        return (merge || compact || bridge || undo) ? 2 : 1;
    }
};

/**
 * The passes a segment needs, from the reference's slots before it and its result: the
 * program walks the slots in order and decides at the first one containing, overlapping or
 * touching T; it needs pass 2 to commit a merge, to move kept slots down, to join a bridge, or
 * to undo a growth that a later slot's overlap disproves.
 */
PassReason
ExpectedPasses(const std::vector<ReassemblyTracker::Interval>& before,
               uint32_t rcv,
               uint32_t win,
               uint32_t seq,
               uint32_t len,
               const ReassemblyTracker::Result& r,
               uint32_t rcvAfter,
               uint32_t liveAfter)
{
    PassReason p;
    auto lt = [](uint32_t a, uint32_t b) { return static_cast<int32_t>(a - b) < 0; };
    auto leq = [&lt](uint32_t a, uint32_t b) { return !lt(b, a); };
    if (r.verdict == ReassemblyTracker::IN_ORDER)
    {
        p.merge = r.delivered > r.writeLen;
        bool removed = false;
        for (const auto& x : before)
        {
            const bool gone = leq(x.start, rcvAfter);
            p.compact = p.compact || (removed && !gone);
            removed = removed || gone;
        }
    }
    else if (r.verdict == ReassemblyTracker::OUT_OF_ORDER_PLACED)
    {
        p.bridge = liveAfter < before.size();
    }
    else if (r.verdict == ReassemblyTracker::DROPPED_FIDELITY && len > 0)
    {
        const uint32_t s = lt(seq, rcv) ? rcv : seq;
        const uint32_t e = lt(seq + len, rcv + win) ? seq + len : rcv + win;
        for (const auto& x : before)
        {
            const bool touches = x.End() == s || x.start == e;
            const bool overlaps = lt(x.start, e) && lt(s, x.End());
            if (touches || overlaps)
            {
                p.undo = touches;
                break;
            }
        }
    }
    return p;
}

/// \return the live slots of a reference (a prefix of its K slots)
std::vector<ReassemblyTracker::Interval>
LiveSlots(const ReassemblyTracker& t)
{
    std::vector<ReassemblyTracker::Interval> v;
    for (uint32_t i = 0; i < t.GetLiveSlotCount(); ++i)
    {
        v.push_back(t.GetSlot(i));
    }
    return v;
}

/**
 * Drive the reference and the pipeline program with the same random arrivals on several
 * interleaved connections and compare every result and the full state after every step.
 */
DiffStats
RunDifferential(uint32_t k, uint64_t segments, uint32_t seed, uint32_t pathLabels = 0)
{
    constexpr uint32_t MSS = 1000;
    constexpr uint32_t MAX_CONN = 4096;
    PrestoRxProgram prog(k, MAX_CONN, BigConfig(), pathLabels);
    const auto policy = pathLabels > 0 ? ReassemblyTracker::Policy::PER_PATH
                                       : ReassemblyTracker::Policy::ARRIVAL_ORDER;
    std::mt19937 rng(seed);
    auto uni = [&rng](uint32_t lo, uint32_t hi) {
        return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
    };
    auto chance = [&rng](double p) {
        return std::uniform_real_distribution<double>(0, 1)(rng) < p;
    };

    const std::array<uint32_t, 6> ids{0, 1, 7, 100, 2048, MAX_CONN - 1};
    std::vector<DiffConn> conns;
    for (size_t c = 0; c < ids.size(); ++c)
    {
        // Start close to 2^32 so that sequence numbers wrap during the run.
        const uint32_t isn = 0u - static_cast<uint32_t>(200000 * (c + 1)) + uni(0, 999);
        const uint32_t window = uni(4, 24) * MSS;
        conns.push_back(DiffConn{ids[c], ReassemblyTracker(k, isn, window), isn});
        conns.back().ref.SetPolicy(policy);
        prog.Reset(ids[c], isn, window);
    }
    DiffStats st;
    uint64_t expectRecirc = 0;
    const uint64_t recircBefore = prog.GetPipeline().GetRecirculations();
    while (st.segments < segments)
    {
        DiffConn& c = conns[uni(0, static_cast<uint32_t>(conns.size() - 1))];
        const uint32_t rcv = c.ref.GetRcvNext();
        const uint32_t win = c.ref.GetWindow();
        const uint32_t op = uni(0, 999);
        if (op < 25 && c.unread > 0)
        {
            // The application reads: the window opens again.
            const uint32_t bytes = uni(1, c.unread);
            c.unread -= bytes;
            c.ref.OpenWindow(bytes);
            prog.OpenWindow(c.id, bytes);
            EXPECT_EQ(prog.GetLastExecution().passes, 1u);
        }
        else if (op < 35)
        {
            // The host sets the window (shrinking forgets out-of-order bytes beyond the edge).
            const uint32_t w = uni(0, 30) * MSS + (chance(0.3) ? uni(0, 999) : 0);
            c.ref.SetWindow(w);
            prog.SetWindow(c.id, w);
            EXPECT_EQ(prog.GetLastExecution().passes, 2u);
            ++expectRecirc;
            ++st.setWindows;
            c.unread = 0;
        }
        else if (op < 37)
        {
            const uint32_t isn = chance(0.5) ? uni(0, 0xffffffffu) : 0u - uni(1, 50000);
            const uint32_t w = uni(4, 24) * MSS;
            c.ref.Reset(isn, w);
            prog.Reset(c.id, isn, w);
            c.isn = isn;
            c.unread = 0;
        }
        else
        {
            uint32_t seq;
            uint32_t len;
            const uint32_t kind = uni(0, 99);
            if (kind < 20)
            {
                // The next expected grid segment (in order, possibly reaching intervals).
                const uint32_t kNext = (rcv - c.isn) / MSS;
                seq = c.isn + kNext * MSS;
                len = chance(0.8) ? MSS : uni(1, 2 * MSS);
            }
            else if (kind < 75)
            {
                // A grid segment somewhere around the window: reordered, duplicated, beyond.
                const int32_t kNext = static_cast<int32_t>((rcv - c.isn) / MSS);
                const int32_t kk = kNext + static_cast<int32_t>(uni(0, win / MSS + 5)) - 3;
                seq = c.isn + static_cast<uint32_t>(kk) * MSS;
                len = chance(0.85) ? MSS : (chance(0.5) ? uni(1, MSS) : 2 * MSS);
            }
            else if (kind < 97)
            {
                // Off-grid: overlapping pieces (retransmissions with other segmentation).
                seq = rcv - 3000 + uni(0, win + 6000);
                len = uni(1, 3000);
            }
            else
            {
                seq = rcv + uni(0, win + 2000);
                len = chance(0.5) ? 0 : uni(1, 100);
            }
            const std::vector<ReassemblyTracker::Interval> before =
                k == 0 ? std::vector<ReassemblyTracker::Interval>{} : LiveSlots(c.ref);
            // per path: mostly few labels, so that a path often holds a slot already
            const auto path = static_cast<uint16_t>(
                pathLabels == 0 ? 0 : uni(0, chance(0.8) ? 1 : pathLabels - 1));
            ReassemblyTracker byArrival = c.ref; // what arrival order would have done
            byArrival.SetPolicy(ReassemblyTracker::Policy::ARRIVAL_ORDER);
            const auto ref = c.ref.OnSegment(seq, len, path);
            const auto got = prog.OnSegment(c.id, seq, len, path);
            EXPECT_TRUE(SameResult(ref, got))
                << "K=" << k << " paths " << pathLabels << " conn " << c.id << " segment "
                << st.segments << " seq " << seq << " len " << len << " path " << path
                << " rcv_next " << rcv << " window " << win;
            if (ref.verdict == ReassemblyTracker::DROPPED_FIDELITY &&
                byArrival.OnSegment(seq, len).verdict == ReassemblyTracker::OUT_OF_ORDER_PLACED)
            {
                ++st.pathRefusals;
            }
            const PassReason why = ExpectedPasses(before,
                                                  rcv,
                                                  win,
                                                  seq,
                                                  len,
                                                  ref,
                                                  c.ref.GetRcvNext(),
                                                  c.ref.GetLiveSlotCount());
            EXPECT_EQ(prog.GetLastExecution().passes, why.Passes())
                << "K=" << k << " conn " << c.id << " segment " << st.segments << " seq " << seq
                << " len " << len << " rcv_next " << rcv << " merge " << why.merge << " compact "
                << why.compact << " bridge " << why.bridge << " undo " << why.undo;
            st.merges += why.merge ? 1 : 0;
            st.compactions += why.compact ? 1 : 0;
            st.bridges += why.bridge ? 1 : 0;
            st.undos += why.undo ? 1 : 0;
            expectRecirc += why.Passes() - 1;
            ++st.verdicts[ref.verdict];
            ++st.segments;
            c.unread += ref.delivered;
            if (ref.delivered > 0 && c.ref.GetRcvNext() < rcv)
            {
                ++st.wraps;
            }
            if (ref.delivered > 0 && chance(0.6))
            {
                c.ref.OpenWindow(c.unread);
                prog.OpenWindow(c.id, c.unread);
                c.unread = 0;
            }
        }
        const bool same = SameState(c.ref, prog, c.id);
        EXPECT_TRUE(same) << "K=" << k << " conn " << c.id << " after segment " << st.segments;
        if (!same || ::testing::Test::HasFailure())
        {
            break; // one clear failure, not a flood
        }
        // K means K: every live slot is a distinct interval, and the free slots are empty.
        EXPECT_EQ(c.ref.GetLiveSlotCount(), c.ref.GetIntervals().size());
        for (uint32_t i = c.ref.GetLiveSlotCount(); i < k; ++i)
        {
            EXPECT_EQ(c.ref.GetSlot(i), (ReassemblyTracker::Interval{})) << "slot " << i;
        }
    }
    for (auto& c : conns)
    {
        EXPECT_TRUE(SameState(c.ref, prog, c.id)) << "K=" << k << " conn " << c.id << " at end";
    }
    EXPECT_EQ(prog.GetPipeline().GetRecirculations() - recircBefore, expectRecirc);
    return st;
}

class PrestoRxDifferential : public ::testing::TestWithParam<uint32_t>
{
};

} // namespace

TEST_P(PrestoRxDifferential, MatchesReassemblyTracker)
{
    const uint32_t k = GetParam();
    const uint64_t n = k <= 4 ? 120000 : 30000;
    const DiffStats st = RunDifferential(k, n, 1234 + k);
    ASSERT_FALSE(HasFailure());
    EXPECT_GE(st.segments, n);
    // The workload must reach every case, or the comparison proves little.
    EXPECT_GT(st.verdicts[ReassemblyTracker::IN_ORDER], 1000u);
    EXPECT_GT(st.verdicts[ReassemblyTracker::DUPLICATE], 1000u);
    EXPECT_GT(st.verdicts[ReassemblyTracker::DROPPED_FIDELITY], 100u);
    EXPECT_GT(st.verdicts[ReassemblyTracker::DROPPED_WINDOW], 100u);
    EXPECT_GT(st.verdicts[ReassemblyTracker::NO_PAYLOAD], 100u);
    EXPECT_GT(st.setWindows, 100u);
    EXPECT_GT(st.wraps, 0u);
    if (k == 0)
    {
        EXPECT_EQ(st.verdicts[ReassemblyTracker::OUT_OF_ORDER_PLACED], 0u);
        EXPECT_EQ(st.merges, 0u);
    }
    else
    {
        EXPECT_GT(st.verdicts[ReassemblyTracker::OUT_OF_ORDER_PLACED], 1000u);
        EXPECT_GT(st.merges, 100u);
    }
    if (k >= 2)
    {
        // Every case of the second pass was exercised.
        EXPECT_GT(st.bridges, 100u);
        EXPECT_GT(st.undos, 10u);
        EXPECT_GT(st.compactions, 10u);
    }
    std::cout << "[ K=" << k << " ] " << st.segments << " segments, verdicts";
    for (uint32_t v = 0; v < st.verdicts.size(); ++v)
    {
        std::cout << " "
                  << ReassemblyTracker::VerdictName(static_cast<ReassemblyTracker::Verdict>(v))
                  << "=" << st.verdicts[v];
    }
    std::cout << ", merges " << st.merges << ", compactions " << st.compactions << ", bridges "
              << st.bridges << ", undos " << st.undos << ", wraps " << st.wraps << std::endl;
}

INSTANTIATE_TEST_SUITE_P(Fidelities,
                         PrestoRxDifferential,
                         ::testing::Values(0u, 1u, 2u, 4u, 8u, 16u));

/// Intervals per path: the program keeps an owner per slot and refuses a second interval to
/// a path, bit for bit as the reference; over 4 labels and over the most (16 bits of owner).
TEST(PrestoRxDifferentialPerPath, MatchesReassemblyTracker)
{
    for (uint32_t k : {1u, 2u, 4u, 8u})
    {
        for (uint32_t labels : {4u, 65536u})
        {
            const uint64_t n = 100000;
            const DiffStats st = RunDifferential(k, n, 77 + k, labels);
            ASSERT_FALSE(HasFailure()) << "K=" << k << " labels " << labels;
            EXPECT_GT(st.verdicts[ReassemblyTracker::OUT_OF_ORDER_PLACED], 1000u);
            if (k >= 2)
            {
                // the per-path rule decided often, and every second-pass case was reached
                EXPECT_GT(st.pathRefusals, 1000u) << "K=" << k << " labels " << labels;
                EXPECT_GT(st.bridges, 50u); // fewer than by arrival: fewer intervals are open
                EXPECT_GT(st.undos, 10u);
                EXPECT_GT(st.compactions, 10u);
            }
            else
            {
                EXPECT_EQ(st.pathRefusals, 0u) << "K=1: the only slot is free or taken";
            }
            std::cout << "[ K=" << k << " labels=" << labels << " ] " << st.segments
                      << " segments, placed " << st.verdicts[ReassemblyTracker::OUT_OF_ORDER_PLACED]
                      << ", refused per path " << st.pathRefusals << ", bridges " << st.bridges
                      << ", compactions " << st.compactions << std::endl;
        }
    }
}

/// Path labels cost register bits, not stages; a label beyond those configured is refused.
TEST(PrestoRxProgram, PathLabelsCostBitsNotStages)
{
    PrestoRxProgram byArrival(2, 1024, BigConfig());
    PrestoRxProgram perPath(2, 1024, BigConfig(), 8);
    EXPECT_EQ(perPath.GetStageCount(), byArrival.GetStageCount());
    const uint64_t a = byArrival.GetResourceReport().registerBits;
    const uint64_t b = perPath.GetResourceReport().registerBits;
    EXPECT_EQ(b - a, uint64_t{2} * 3 * 1024) << "3 owner bits per interval per connection";
    perPath.Reset(0, 0, 100000);
    EXPECT_TRUE(Contains(ErrorOf([&] { perPath.OnSegment(0, 1000, 100, 8); }),
                         {"path label 8", "knows 8 labels"}));
    EXPECT_TRUE(Contains(ErrorOf([] { PrestoRxProgram(2, 16, BigConfig(), 70000); }),
                         {"70000 path labels"}));
}

TEST(PrestoRxProgram, WalkthroughK1)
{
    PrestoRxProgram prog(1, 16, RmtPipelineConfig{});
    prog.Reset(3, 1000, 10000);
    auto r = prog.OnSegment(3, 3000, 1000); // a hole [1000, 3000)
    EXPECT_EQ(r.verdict, ReassemblyTracker::OUT_OF_ORDER_PLACED);
    EXPECT_EQ(r.writeSeq, 3000u);
    EXPECT_EQ(r.writeLen, 1000u);
    EXPECT_EQ(r.ack, 1000u);
    EXPECT_EQ(prog.GetLastExecution().passes, 1u);
    r = prog.OnSegment(3, 4000, 500); // end-adjacent: the interval grows to [3000, 4500)
    EXPECT_EQ(r.verdict, ReassemblyTracker::OUT_OF_ORDER_PLACED);
    EXPECT_EQ(prog.GetSlot(3, 0).start, 3000u);
    EXPECT_EQ(prog.GetSlot(3, 0).len, 1500u);
    r = prog.OnSegment(3, 6000, 500); // a second gap: K=1 cannot track it
    EXPECT_EQ(r.verdict, ReassemblyTracker::DROPPED_FIDELITY);
    EXPECT_TRUE(r.ackRequired);
    r = prog.OnSegment(3, 1000, 1000); // in order, not yet reaching the interval
    EXPECT_EQ(r.verdict, ReassemblyTracker::IN_ORDER);
    EXPECT_EQ(r.delivered, 1000u);
    EXPECT_EQ(prog.GetLastExecution().passes, 1u);
    const uint64_t recirc = prog.GetPipeline().GetRecirculations();
    r = prog.OnSegment(3, 2000, 1000); // fills the hole: merges the interval, one recirculation
    EXPECT_EQ(r.verdict, ReassemblyTracker::IN_ORDER);
    EXPECT_EQ(r.writeSeq, 2000u);
    EXPECT_EQ(r.writeLen, 1000u);
    EXPECT_EQ(r.delivered, 2500u);
    EXPECT_EQ(r.ack, 4500u);
    EXPECT_EQ(prog.GetLastExecution().passes, 2u);
    EXPECT_EQ(prog.GetPipeline().GetRecirculations(), recirc + 1);
    EXPECT_GT(prog.GetLastExecution().latencyNs,
              2 * prog.GetPipeline().CyclesToNs(prog.GetPipeline().GetPassCycles()) - 1e-9);
    EXPECT_EQ(prog.GetRcvNext(3), 4500u);
    EXPECT_EQ(prog.GetWindow(3), 10000u - 3500u); // the right edge stayed at 11000
    EXPECT_EQ(prog.GetSlot(3, 0).len, 0u);
    r = prog.OnSegment(3, 4000, 0);
    EXPECT_EQ(r.verdict, ReassemblyTracker::NO_PAYLOAD);
    EXPECT_FALSE(r.ackRequired);
    EXPECT_EQ(r.ack, 4500u);
    r = prog.OnSegment(3, 11000, 100); // exactly at the right edge
    EXPECT_EQ(r.verdict, ReassemblyTracker::DROPPED_WINDOW);
    prog.OpenWindow(3, 100);
    r = prog.OnSegment(3, 11000, 200); // now one byte... a hundred fit: trimmed at the edge
    EXPECT_EQ(r.verdict, ReassemblyTracker::OUT_OF_ORDER_PLACED);
    EXPECT_EQ(r.writeLen, 100u);
    prog.SetWindow(3, 1000); // the new edge 5500 forgets [11000, 11100)
    EXPECT_EQ(prog.GetLastExecution().passes, 2u);
    EXPECT_EQ(prog.GetSlot(3, 0).len, 0u);
    EXPECT_EQ(prog.GetWindow(3), 1000u);
}

/// Run one segment through the program and a reference; expect the same result and state.
::testing::AssertionResult
Step(PrestoRxProgram& prog,
     ReassemblyTracker& ref,
     uint32_t seq,
     uint32_t len,
     ReassemblyTracker::Verdict verdict,
     uint32_t passes)
{
    const auto want = ref.OnSegment(seq, len);
    const auto got = prog.OnSegment(0, seq, len);
    auto same = SameResult(want, got);
    if (!same)
    {
        return same << " at [" << seq << "+" << len << ")";
    }
    if (got.verdict != verdict)
    {
        return ::testing::AssertionFailure()
               << "[" << seq << "+" << len << "): " << ReassemblyTracker::VerdictName(got.verdict)
               << ", expected " << ReassemblyTracker::VerdictName(verdict);
    }
    if (prog.GetLastExecution().passes != passes)
    {
        return ::testing::AssertionFailure()
               << "[" << seq << "+" << len << "): " << prog.GetLastExecution().passes
               << " passes, expected " << passes;
    }
    return SameState(ref, prog, 0);
}

TEST(PrestoRxProgram, KMeansKTheIssueExample)
{
    // Issue 14 (K = 2, single-byte units): the program holds two distinct intervals and keeps
    // [9,10); the old one-pass rule ended with [6,7) and [5,7) and dropped it.
    using R = ReassemblyTracker;
    PrestoRxProgram prog(2, 1, BigConfig());
    R ref(2, 0, 1000);
    prog.Reset(0, 0, 1000);
    EXPECT_TRUE(Step(prog, ref, 2, 1, R::OUT_OF_ORDER_PLACED, 1)); // a new interval: slot 0
    EXPECT_TRUE(Step(prog, ref, 5, 1, R::OUT_OF_ORDER_PLACED, 1)); // slot 1
    // Merges [2,3): pass 2 commits rcv_next 3 and moves [5,6) down to slot 0.
    EXPECT_TRUE(Step(prog, ref, 0, 2, R::IN_ORDER, 2));
    EXPECT_EQ(prog.GetSlot(0, 0), (R::Interval{5, 1}));
    EXPECT_TRUE(Step(prog, ref, 6, 1, R::OUT_OF_ORDER_PLACED, 1)); // grows slot 0 in place
    EXPECT_TRUE(Step(prog, ref, 9, 1, R::OUT_OF_ORDER_PLACED, 1)); // slot 1: kept
    EXPECT_EQ(prog.GetSlot(0, 0), (R::Interval{5, 2}));
    EXPECT_EQ(prog.GetSlot(0, 1), (R::Interval{9, 1}));
    EXPECT_EQ(ref.GetLiveSlotCount(), 2u);
}

TEST(PrestoRxProgram, WhichSegmentsTakeTwoPasses)
{
    using R = ReassemblyTracker;
    PrestoRxProgram prog(4, 1, BigConfig());
    R ref(4, 0, 100000);
    prog.Reset(0, 0, 100000);
    // One pass: new intervals, growth at either end, duplicates, overlaps, a full table.
    EXPECT_TRUE(Step(prog, ref, 1000, 100, R::OUT_OF_ORDER_PLACED, 1)); // slot 0
    EXPECT_TRUE(Step(prog, ref, 300, 100, R::OUT_OF_ORDER_PLACED, 1));  // slot 1
    EXPECT_TRUE(Step(prog, ref, 100, 100, R::OUT_OF_ORDER_PLACED, 1));  // slot 2
    EXPECT_TRUE(Step(prog, ref, 400, 50, R::OUT_OF_ORDER_PLACED, 1));   // slot 1 grows at end
    EXPECT_TRUE(Step(prog, ref, 950, 50, R::OUT_OF_ORDER_PLACED, 1));   // slot 0 at front
    EXPECT_TRUE(Step(prog, ref, 310, 20, R::DUPLICATE, 1));
    EXPECT_TRUE(Step(prog, ref, 120, 200, R::DROPPED_FIDELITY, 1));    // overlaps slots 1 and 2
    EXPECT_TRUE(Step(prog, ref, 600, 100, R::OUT_OF_ORDER_PLACED, 1)); // slot 3
    EXPECT_TRUE(Step(prog, ref, 800, 10, R::DROPPED_FIDELITY, 1));     // four held, no touch
    // [100,200) [300,450) [600,700) [950,1100) in slots 2, 1, 3, 0.
    // Two passes: T grows slot 1 at its end (optimistically) and then overlaps slot 3: the
    // growth is undone in pass 2.
    EXPECT_TRUE(Step(prog, ref, 450, 200, R::DROPPED_FIDELITY, 2));
    EXPECT_EQ(prog.GetSlot(0, 1), (R::Interval{300, 150}));
    // Two passes: T bridges slot 1 and slot 3; the union stays in slot 1, slot 3 goes.
    EXPECT_TRUE(Step(prog, ref, 450, 150, R::OUT_OF_ORDER_PLACED, 2));
    EXPECT_EQ(prog.GetSlot(0, 1), (R::Interval{300, 400}));
    EXPECT_EQ(prog.GetSlot(0, 3), (R::Interval{}));
    // Two passes: a bridge between slot 2 and slot 1; slots behind move down.
    EXPECT_TRUE(Step(prog, ref, 200, 100, R::OUT_OF_ORDER_PLACED, 2));
    EXPECT_EQ(prog.GetSlot(0, 0), (R::Interval{950, 150}));
    EXPECT_EQ(prog.GetSlot(0, 1), (R::Interval{100, 600}));
    EXPECT_EQ(prog.GetSlot(0, 2), (R::Interval{}));
    EXPECT_TRUE(Step(prog, ref, 750, 50, R::OUT_OF_ORDER_PLACED, 1)); // slot 2
    // In order, not reaching an interval, nothing removed: one pass.
    EXPECT_TRUE(Step(prog, ref, 0, 50, R::IN_ORDER, 1));
    // In order, [50, 100) reaches slot 1 ([100, 700)): a merge, and slot 2 moves down: 2.
    EXPECT_TRUE(Step(prog, ref, 50, 50, R::IN_ORDER, 2));
    EXPECT_EQ(prog.GetRcvNext(0), 700u);
    EXPECT_EQ(prog.GetSlot(0, 0), (R::Interval{950, 150}));
    EXPECT_EQ(prog.GetSlot(0, 1), (R::Interval{750, 50}));
    // In order, covering slot 1 whole without reaching slot 0, which stays in place (it is in
    // front of the removed slot): one pass.
    EXPECT_TRUE(Step(prog, ref, 700, 120, R::IN_ORDER, 1));
    EXPECT_EQ(prog.GetSlot(0, 1), (R::Interval{}));
    // Slot 0 [950,1100), slot 1 gets [1200,1300); covering slot 0 alone (misaligned): rcv_next
    // is the segment's end, but slot 1 must move down: two passes.
    EXPECT_TRUE(Step(prog, ref, 1200, 100, R::OUT_OF_ORDER_PLACED, 1));
    EXPECT_TRUE(Step(prog, ref, 820, 330, R::IN_ORDER, 2));
    EXPECT_EQ(prog.GetRcvNext(0), 1150u);
    EXPECT_EQ(prog.GetSlot(0, 0), (R::Interval{1200, 100}));
    EXPECT_EQ(prog.GetSlot(0, 1), (R::Interval{}));
    // SetWindow: pass 1 trims, pass 2 writes the edge and compacts.
    EXPECT_TRUE(Step(prog, ref, 1400, 100, R::OUT_OF_ORDER_PLACED, 1)); // slot 1
    ref.SetWindow(280);                                                 // edge 1430
    prog.SetWindow(0, 280);
    EXPECT_EQ(prog.GetLastExecution().passes, 2u);
    EXPECT_TRUE(SameState(ref, prog, 0));
    EXPECT_EQ(prog.GetSlot(0, 1), (R::Interval{1400, 30}));
    ref.SetWindow(200); // edge 1350: forgets slot 1
    prog.SetWindow(0, 200);
    EXPECT_TRUE(SameState(ref, prog, 0));
    EXPECT_EQ(prog.GetSlot(0, 1), (R::Interval{}));
    // A shrink that forgets a slot in front of a kept one moves the kept one down.
    ref.OpenWindow(1000);
    prog.OpenWindow(0, 1000);
    EXPECT_TRUE(Step(prog, ref, 1600, 100, R::OUT_OF_ORDER_PLACED, 1)); // slot 1
    EXPECT_TRUE(Step(prog, ref, 1400, 50, R::OUT_OF_ORDER_PLACED, 1));  // slot 2
    ref.SetWindow(350);                                                 // edge 1500
    prog.SetWindow(0, 350);
    EXPECT_EQ(prog.GetLastExecution().passes, 2u);
    EXPECT_TRUE(SameState(ref, prog, 0));
    EXPECT_EQ(prog.GetSlot(0, 0), (R::Interval{1200, 100}));
    EXPECT_EQ(prog.GetSlot(0, 1), (R::Interval{1400, 50}));
    EXPECT_EQ(prog.GetSlot(0, 2), (R::Interval{}));
}

TEST(PrestoRxProgram, StagesPerInterval)
{
    uint32_t previous = 0;
    for (uint32_t k = 0; k <= PrestoRxProgram::MAX_FIDELITY; ++k)
    {
        PrestoRxProgram prog(k, 32768, BigConfig());
        const RmtResourceReport rep = prog.GetResourceReport();
        EXPECT_TRUE(rep.finalised);
        EXPECT_EQ(rep.stagesUsed, PrestoRxProgram::StagesFor(k));
        EXPECT_EQ(rep.stagesUsed,
                  PrestoRxProgram::STAGES_BASE + PrestoRxProgram::STAGES_PER_INTERVAL * k);
        EXPECT_EQ(prog.GetStageCount(), rep.stagesUsed);
        if (k > 0)
        {
            EXPECT_EQ(rep.stagesUsed - previous, PrestoRxProgram::STAGES_PER_INTERVAL);
        }
        previous = rep.stagesUsed;
        // One array per stage: edge, rcv_next, then start and length of each slot in their own
        // stages, in slot order; nothing in the verdict stage.
        ASSERT_EQ(rep.registers.size(), 2u + 2u * k);
        EXPECT_EQ(rep.registers[0].name, "rx.edge");
        EXPECT_EQ(rep.registers[0].stageIndex, 0u);
        EXPECT_EQ(rep.registers[1].name, "rx.rcv_next");
        EXPECT_EQ(rep.registers[1].stageIndex, 1u);
        for (uint32_t i = 0; i < k; ++i)
        {
            const auto& a = rep.registers[2 + 2 * i];
            const auto& b = rep.registers[3 + 2 * i];
            EXPECT_EQ(a.name, "ooo" + std::to_string(i) + ".start");
            EXPECT_EQ(b.name, "ooo" + std::to_string(i) + ".len");
            EXPECT_EQ(a.stageIndex, 2 + 2 * i);
            EXPECT_EQ(b.stageIndex, 3 + 2 * i);
            EXPECT_EQ(a.size, 32768u);
            EXPECT_EQ(a.widthBits, 33u);
            EXPECT_EQ(b.widthBits, 31u);
        }
        EXPECT_EQ(rep.stages.back().name, "rx.verdict");
        EXPECT_EQ(rep.stages.back().registers, 0u);
        // Per connection: 32 + 32 bits, plus 33 + 31 bits per interval.
        EXPECT_EQ(rep.registerBits, uint64_t{32768} * (64 + 64 * k));
    }
}

TEST(PrestoRxProgram, RefusesWhatDoesNotFit)
{
    RmtPipelineConfig tofino; // 12 stages
    EXPECT_EQ(PrestoRxProgram::MaxFidelityFor(12), 4u);
    EXPECT_NO_THROW(PrestoRxProgram(4, 1024, tofino));
    const std::string six = ErrorOf([&] { PrestoRxProgram(6, 1024, tofino); });
    EXPECT_TRUE(
        Contains(six, {"K=6", "needs 15 stages", "stage budget is 12", "largest K that fits is 4"}))
        << six;
    const std::string five = ErrorOf([&] { PrestoRxProgram(5, 1024, tofino); });
    EXPECT_TRUE(Contains(five, {"K=5", "needs 13 stages", "stage budget is 12"})) << five;

    const std::string unb =
        ErrorOf([&] { PrestoRxProgram(ReassemblyTracker::UNBOUNDED, 1024, BigConfig()); });
    EXPECT_TRUE(Contains(unb, {"UNBOUNDED", "0..16"})) << unb;
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoRxProgram(17, 1024, BigConfig()); }), {"K=17"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoRxProgram(1, 0, BigConfig()); }), {"connections"}));

    RmtPipelineConfig onePass = BigConfig();
    onePass.maxPasses = 1;
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoRxProgram(1, 16, onePass); }), {"pass limit", "2"}));

    RmtPipelineConfig smallSram = BigConfig();
    smallSram.registerBitsPerStage = 32 * 1000;
    const std::string sram = ErrorOf([&] { PrestoRxProgram(1, 32768, smallSram); });
    EXPECT_TRUE(Contains(sram, {"K=1", "32768 connections", "register memory"})) << sram;
    EXPECT_NO_THROW(PrestoRxProgram(1, 900, smallSram));

    RmtPipelineConfig tiny = BigConfig();
    tiny.stageBudget = 2;
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoRxProgram(0, 16, tiny); }), {"needs 3 stages", "2"}));
    EXPECT_FALSE(ErrorOf([] { PrestoRxProgram::MaxFidelityFor(2); }).empty());
}

TEST(PrestoRxProgram, RejectsBadCalls)
{
    PrestoRxProgram prog(2, 8, BigConfig());
    prog.Reset(1, 0, 1000);
    EXPECT_TRUE(Contains(ErrorOf([&] { prog.OnSegment(8, 0, 10); }), {"connection id 8", "0..7"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { prog.Reset(9, 0, 10); }), {"connection id 9"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { prog.OnSegment(1, 0, (1u << 30) + 1); }), {"limit"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { prog.SetWindow(1, (1u << 30) + 1); }), {"SetWindow"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { prog.OpenWindow(1, 1u << 30); }),
                         {"OpenWindow", "makes the window"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { prog.OpenWindow(1, 0xffffffffu); }), {"OpenWindow"}));
    prog.OpenWindow(1, (1u << 30) - 1000); // exactly the limit is fine
    EXPECT_EQ(prog.GetWindow(1), 1u << 30);
    prog.SetWindow(1, 1000);
    EXPECT_TRUE(Contains(ErrorOf([&] { prog.Reset(1, 0, (1u << 30) + 1); }), {"Reset"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { prog.GetSlot(1, 2); }), {"slot 2"}));
    // A refused call changed nothing.
    EXPECT_EQ(prog.GetWindow(1), 1000u);
    EXPECT_EQ(prog.GetRcvNext(1), 0u);
}

TEST(PrestoRxProgram, ConnectionsAreIsolated)
{
    PrestoRxProgram prog(2, 64, BigConfig());
    ReassemblyTracker a(2, 5000, 20000);
    ReassemblyTracker b(2, 5000, 20000);
    prog.Reset(10, 5000, 20000);
    prog.Reset(11, 5000, 20000);
    // The same packets on both ids, but conn 10 gets extra out-of-order data first.
    EXPECT_EQ(prog.OnSegment(10, 7000, 1000).verdict, ReassemblyTracker::OUT_OF_ORDER_PLACED);
    a.OnSegment(7000, 1000);
    EXPECT_EQ(prog.GetSlot(11, 0).len, 0u); // nothing leaked into conn 11
    const auto r11 = prog.OnSegment(11, 5000, 2000);
    const auto r10 = prog.OnSegment(10, 5000, 2000);
    EXPECT_TRUE(SameResult(b.OnSegment(5000, 2000), r11));
    EXPECT_TRUE(SameResult(a.OnSegment(5000, 2000), r10));
    EXPECT_EQ(r11.delivered, 2000u);
    EXPECT_EQ(r10.delivered, 3000u);
    EXPECT_TRUE(SameState(a, prog, 10));
    EXPECT_TRUE(SameState(b, prog, 11));
    prog.SetWindow(11, 0);
    EXPECT_EQ(prog.GetWindow(10), a.GetWindow());
    EXPECT_EQ(prog.GetWindow(11), 0u);
}

TEST(PrestoRxProgram, SegmentsPerSecond)
{
    // Print, not assert: speed depends on the machine. A steady reordered stream.
    for (uint32_t k : {1u, 4u})
    {
        constexpr uint32_t CONNS = 1024;
        constexpr uint32_t MSS = 1460;
        PrestoRxProgram prog(k, CONNS, RmtPipelineConfig{});
        std::vector<ReassemblyTracker> refs;
        for (uint32_t c = 0; c < CONNS; ++c)
        {
            prog.Reset(c, c * 7919u, 64 * MSS);
            refs.emplace_back(k, c * 7919u, 64 * MSS);
        }
        std::mt19937 rng(7);
        // Pre-generate the arrivals so that the timed loop measures the program only.
        const uint32_t n = 300000;
        std::vector<std::array<uint32_t, 3>> arrivals;
        arrivals.reserve(n);
        std::vector<uint32_t> next(CONNS);
        for (uint32_t c = 0; c < CONNS; ++c)
        {
            next[c] = c * 7919u;
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint32_t c = rng() % CONNS;
            // Mostly in order, sometimes the next-but-one segment first (spraying).
            const uint32_t skip = (rng() % 8 == 0) ? MSS : 0;
            arrivals.push_back({c, next[c] + skip, MSS});
            if (skip == 0)
            {
                next[c] += MSS;
            }
        }
        auto t0 = std::chrono::steady_clock::now();
        uint64_t delivered = 0;
        for (const auto& a : arrivals)
        {
            const uint32_t d = prog.OnSegment(a[0], a[1], a[2]).delivered;
            if (d > 0)
            {
                prog.OpenWindow(a[0], d); // the application reads at once
            }
            delivered += d;
        }
        const double pipeSec =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        t0 = std::chrono::steady_clock::now();
        uint64_t refDelivered = 0;
        for (const auto& a : arrivals)
        {
            const uint32_t d = refs[a[0]].OnSegment(a[1], a[2]).delivered;
            if (d > 0)
            {
                refs[a[0]].OpenWindow(d);
            }
            refDelivered += d;
        }
        const double refSec =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        EXPECT_EQ(delivered, refDelivered);
        EXPECT_GT(delivered, 0u);
        const RmtResourceReport rep = prog.GetResourceReport();
        std::cout << "[ speed ] K=" << k << ": pipeline program " << n / pipeSec
                  << " segments/s (reference tracker " << n / refSec << " segments/s), "
                  << rep.avgPassesPerPacket << " passes/packet, modelled bound "
                  << rep.throughputBoundPps / 1e6 << " Mpps, " << rep.stagesUsed << " stages"
                  << std::endl;
    }
}
