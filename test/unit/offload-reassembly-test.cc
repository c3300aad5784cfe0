/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/offload-reassembly.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cstdint>
#include <gtest/gtest.h>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

using V = ReassemblyTracker::Verdict;
using Iv = ReassemblyTracker::Interval;
constexpr uint32_t U = ReassemblyTracker::UNBOUNDED;

/// Check every field of a result; the message names the step.
void
ExpectResult(const ReassemblyTracker::Result& r,
             V verdict,
             uint32_t writeSeq,
             uint32_t writeLen,
             uint32_t delivered,
             uint32_t ack,
             const std::string& step)
{
    SCOPED_TRACE(step);
    EXPECT_EQ(ReassemblyTracker::VerdictName(r.verdict), ReassemblyTracker::VerdictName(verdict));
    EXPECT_EQ(r.writeLen, writeLen);
    if (writeLen != 0)
    {
        EXPECT_EQ(r.writeSeq, writeSeq);
    }
    EXPECT_EQ(r.delivered, delivered);
    EXPECT_EQ(r.ack, ack);
    EXPECT_EQ(r.ackRequired, verdict != ReassemblyTracker::NO_PAYLOAD);
}

std::vector<Iv>
Ivs(std::initializer_list<std::pair<uint32_t, uint32_t>> l)
{
    std::vector<Iv> v;
    for (auto [s, e] : l)
    {
        v.push_back(Iv{s, e - s});
    }
    return v;
}

// ---------------------------------------------------------------------------------------
// Hand-written scenarios
// ---------------------------------------------------------------------------------------

TEST(ReassemblyTracker, RejectsBadConfiguration)
{
    EXPECT_THROW(ReassemblyTracker(17, 0, 1000), PrestoInputError);
    EXPECT_THROW(ReassemblyTracker(1, 0, ReassemblyTracker::MAX_WINDOW + 1), PrestoInputError);
    ReassemblyTracker t(2, 0, 1000);
    EXPECT_THROW(t.OnSegment(0, ReassemblyTracker::MAX_WINDOW + 1), PrestoInputError);
    EXPECT_THROW(t.SetWindow(ReassemblyTracker::MAX_WINDOW + 1), PrestoInputError);
    EXPECT_THROW(t.OpenWindow(ReassemblyTracker::MAX_WINDOW), PrestoInputError);
    EXPECT_THROW(t.GetSlot(2), PrestoInputError);
    EXPECT_THROW(ReassemblyTracker(U, 0, 10).GetSlot(0), PrestoInputError);
    try
    {
        ReassemblyTracker(40, 0, 10);
        FAIL() << "no exception";
    }
    catch (const PrestoInputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("K=40"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(ReassemblyTracker(16, 0, ReassemblyTracker::MAX_WINDOW));
    EXPECT_NO_THROW(ReassemblyTracker(U, 0, 0));
}

TEST(ReassemblyTracker, ZeroLengthSegmentChangesNothing)
{
    for (uint32_t k : {0u, 1u, 2u, U})
    {
        ReassemblyTracker t(k, 100, 1000);
        t.OnSegment(300, 50); // an interval (dropped for K = 0)
        auto r = t.OnSegment(100, 0);
        ExpectResult(r,
                     ReassemblyTracker::NO_PAYLOAD,
                     0,
                     0,
                     0,
                     100,
                     "pure ACK, K=" + std::to_string(k));
        EXPECT_EQ(t.GetRcvNext(), 100u);
        EXPECT_EQ(t.GetWindow(), 1000u);
        EXPECT_EQ(t.GetIntervals().size(), k == 0 ? 0u : 1u);
    }
}

TEST(ReassemblyTracker, FidelityZeroAcceptsOnlyInOrder)
{
    ReassemblyTracker t(0, 1000, 10000);
    ExpectResult(t.OnSegment(1000, 100), V::IN_ORDER, 1000, 100, 100, 1100, "in order");
    ExpectResult(t.OnSegment(1200, 100), V::DROPPED_FIDELITY, 0, 0, 0, 1100, "gap");
    EXPECT_TRUE(t.GetIntervals().empty());
    ExpectResult(t.OnSegment(1100, 100), V::IN_ORDER, 1100, 100, 100, 1200, "fill: no jump");
    ExpectResult(t.OnSegment(1200, 100), V::IN_ORDER, 1200, 100, 100, 1300, "resent");
    ExpectResult(t.OnSegment(1250, 100), V::IN_ORDER, 1300, 50, 50, 1350, "partly old");
    ExpectResult(t.OnSegment(1000, 300), V::DUPLICATE, 0, 0, 0, 1350, "old");
    EXPECT_EQ(t.GetWindow(), 10000u - 350u);
}

TEST(ReassemblyTracker, TasCreateExtendBothEndsAndMerge)
{
    ReassemblyTracker t(1, 0, 100000);
    ExpectResult(t.OnSegment(0, 100), V::IN_ORDER, 0, 100, 100, 100, "first");
    ExpectResult(t.OnSegment(300, 100), V::OUT_OF_ORDER_PLACED, 300, 100, 0, 100, "create");
    EXPECT_EQ(t.GetIntervals(), Ivs({{300, 400}}));
    ExpectResult(t.OnSegment(400, 100), V::OUT_OF_ORDER_PLACED, 400, 100, 0, 100, "extend end");
    ExpectResult(t.OnSegment(200, 100), V::OUT_OF_ORDER_PLACED, 200, 100, 0, 100, "extend front");
    EXPECT_EQ(t.GetIntervals(), Ivs({{200, 500}}));
    ExpectResult(t.OnSegment(600, 100), V::DROPPED_FIDELITY, 0, 0, 0, 100, "second gap");
    ExpectResult(t.OnSegment(150, 40), V::DROPPED_FIDELITY, 0, 0, 0, 100, "not adjacent");
    ExpectResult(t.OnSegment(250, 100), V::DUPLICATE, 0, 0, 0, 100, "inside interval");
    ExpectResult(t.OnSegment(450, 100), V::DROPPED_FIDELITY, 0, 0, 0, 100, "overlaps end");
    ExpectResult(t.OnSegment(150, 100), V::DROPPED_FIDELITY, 0, 0, 0, 100, "overlaps start");
    EXPECT_EQ(t.GetIntervals(), Ivs({{200, 500}}));
    // The fill: 100 written bytes plus the 300 held ones become deliverable.
    ExpectResult(t.OnSegment(100, 100), V::IN_ORDER, 100, 100, 400, 500, "fill merges");
    EXPECT_TRUE(t.GetIntervals().empty());
    EXPECT_EQ(t.GetWindow(), 100000u - 500u);
    ExpectResult(t.OnSegment(600, 100), V::OUT_OF_ORDER_PLACED, 600, 100, 0, 500, "new one");
}

TEST(ReassemblyTracker, TasInOrderSegmentOverlappingOrPassingTheInterval)
{
    ReassemblyTracker t(1, 0, 100000);
    t.OnSegment(200, 100); // [200, 300)
    // In-order segment that overlaps the interval's start: it is written whole, then the
    // interval (trimmed at rcv_next) is merged.
    ExpectResult(t.OnSegment(0, 250), V::IN_ORDER, 0, 250, 300, 300, "overlap start");
    EXPECT_TRUE(t.GetIntervals().empty());
    t.OnSegment(400, 100); // [400, 500)
    // An in-order segment that passes the interval's end: the interval is superfluous.
    ExpectResult(t.OnSegment(300, 300), V::IN_ORDER, 300, 300, 300, 600, "covers it");
    EXPECT_TRUE(t.GetIntervals().empty());
    t.OnSegment(700, 100);
    // Exactly reaching the interval's end.
    ExpectResult(t.OnSegment(600, 200), V::IN_ORDER, 600, 200, 200, 800, "reaches end");
    EXPECT_EQ(t.GetLiveSlotCount(), 0u);
    EXPECT_EQ(t.GetWindow(), 100000u - 800u);
}

TEST(ReassemblyTracker, PartlyOldSegmentsAreTrimmedAtRcvNext)
{
    for (uint32_t k : {0u, 1u, 3u, U})
    {
        ReassemblyTracker t(k, 0, 1000);
        t.OnSegment(0, 100);
        ExpectResult(t.OnSegment(50, 100), V::IN_ORDER, 100, 50, 50, 150, "trim start");
        ExpectResult(t.OnSegment(0, 150), V::DUPLICATE, 0, 0, 0, 150, "ends at rcv_next");
        ExpectResult(t.OnSegment(20, 10), V::DUPLICATE, 0, 0, 0, 150, "far below");
    }
}

TEST(ReassemblyTracker, WindowEdge)
{
    for (uint32_t k : {0u, 1u, 2u, U})
    {
        SCOPED_TRACE("K=" + std::to_string(k));
        ReassemblyTracker t(k, 1000, 500); // acceptable: [1000, 1500)
        ExpectResult(t.OnSegment(1500, 10), V::DROPPED_WINDOW, 0, 0, 0, 1000, "at edge");
        ExpectResult(t.OnSegment(1600, 10), V::DROPPED_WINDOW, 0, 0, 0, 1000, "beyond");
        ExpectResult(t.OnSegment(900, 100), V::DUPLICATE, 0, 0, 0, 1000, "below");
        if (k != 0)
        {
            ExpectResult(t.OnSegment(1400, 200),
                         V::OUT_OF_ORDER_PLACED,
                         1400,
                         100,
                         0,
                         1000,
                         "straddles the edge: trimmed");
            EXPECT_EQ(t.GetIntervals(), Ivs({{1400, 1500}}));
        }
        // In order and straddling the edge: trimmed to the edge, window exhausted.
        auto r = t.OnSegment(1000, 600);
        ExpectResult(r, V::IN_ORDER, 1000, 500, 500, 1500, "in order, trimmed");
        EXPECT_EQ(t.GetWindow(), 0u);
        ExpectResult(t.OnSegment(1500, 1), V::DROPPED_WINDOW, 0, 0, 0, 1500, "zero window");
        t.OpenWindow(200); // the application read 200 bytes
        ExpectResult(t.OnSegment(1500, 300), V::IN_ORDER, 1500, 200, 200, 1700, "reopened");
    }
}

TEST(ReassemblyTracker, ShrinkingTheWindowForgetsBytesBeyondTheEdge)
{
    for (uint32_t k : {1u, 2u, U})
    {
        ReassemblyTracker t(k, 0, 1000);
        t.OnSegment(100, 100);
        t.OnSegment(500, 100);
        t.SetWindow(550);
        if (k == 1)
        {
            EXPECT_EQ(t.GetIntervals(), Ivs({{100, 200}}));
        }
        else
        {
            EXPECT_EQ(t.GetIntervals(), Ivs({{100, 200}, {500, 550}}));
        }
        t.SetWindow(150);
        EXPECT_EQ(t.GetIntervals(), Ivs({{100, 150}}));
        // The fill may only deliver what is still tracked.
        ExpectResult(t.OnSegment(0, 100), V::IN_ORDER, 0, 100, 150, 150, "fill");
        EXPECT_EQ(t.GetWindow(), 0u);
    }
}

TEST(ReassemblyTracker, WrapAroundAtTwoToThe32)
{
    for (uint32_t k : {1u, 2u, U})
    {
        SCOPED_TRACE("K=" + std::to_string(k));
        const uint32_t isn = 0xFFFFFF00u; // 256 bytes before the wrap
        ReassemblyTracker t(k, isn, 4096);
        ExpectResult(t.OnSegment(isn, 200), V::IN_ORDER, isn, 200, 200, isn + 200, "before");
        // [isn + 220, isn + 420) crosses 2^32 (isn + 256 == 0).
        ExpectResult(t.OnSegment(isn + 220, 200),
                     V::OUT_OF_ORDER_PLACED,
                     isn + 220,
                     200,
                     0,
                     isn + 200,
                     "ooo across the wrap");
        EXPECT_EQ(t.GetIntervals(), Ivs({{isn + 220, isn + 420}}));
        ExpectResult(t.OnSegment(isn + 420, 100),
                     V::OUT_OF_ORDER_PLACED,
                     isn + 420,
                     100,
                     0,
                     isn + 200,
                     "extend after the wrap");
        EXPECT_EQ(t.GetIntervals(), Ivs({{isn + 220, 264u}}));
        ExpectResult(t.OnSegment(isn + 100, 50), V::DUPLICATE, 0, 0, 0, isn + 200, "old");
        ExpectResult(t.OnSegment(isn + 200, 20),
                     V::IN_ORDER,
                     isn + 200,
                     20,
                     320,
                     264u,
                     "fill: rcv_next wraps to 264");
        EXPECT_EQ(t.GetRcvNext(), 264u);
        EXPECT_TRUE(t.GetIntervals().empty());
        ExpectResult(t.OnSegment(isn, 100), V::DUPLICATE, 0, 0, 0, 264u, "old from before");
        // A segment "2^31 away" is in the past, not in the future.
        ExpectResult(t.OnSegment(264u + 0x80000000u, 10),
                     V::DUPLICATE,
                     0,
                     0,
                     0,
                     264u,
                     "half the space away");
    }
}

TEST(ReassemblyTracker, TwoIntervalsThirdDroppedThenBridgeAndFill)
{
    ReassemblyTracker t(2, 0, 100000);
    ExpectResult(t.OnSegment(100, 100), V::OUT_OF_ORDER_PLACED, 100, 100, 0, 0, "A");
    ExpectResult(t.OnSegment(300, 100), V::OUT_OF_ORDER_PLACED, 300, 100, 0, 0, "B");
    EXPECT_EQ(t.GetIntervals(), Ivs({{100, 200}, {300, 400}}));
    ExpectResult(t.OnSegment(500, 100), V::DROPPED_FIDELITY, 0, 0, 0, 0, "third: no slot");
    ExpectResult(t.OnSegment(400, 100), V::OUT_OF_ORDER_PLACED, 400, 100, 0, 0, "extend B");
    ExpectResult(t.OnSegment(50, 50), V::OUT_OF_ORDER_PLACED, 50, 50, 0, 0, "extend A front");
    EXPECT_EQ(t.GetSlot(0), (Iv{50, 150}));
    EXPECT_EQ(t.GetSlot(1), (Iv{300, 200}));
    // Exactly fills the gap between the two: they join into one interval, kept in the lower
    // slot; the other slot is free again.
    ExpectResult(t.OnSegment(200, 100), V::OUT_OF_ORDER_PLACED, 200, 100, 0, 0, "bridge");
    EXPECT_EQ(t.GetIntervals(), Ivs({{50, 500}}));
    EXPECT_EQ(t.GetSlot(0), (Iv{50, 450}));
    EXPECT_EQ(t.GetSlot(1), (Iv{}));
    EXPECT_EQ(t.GetLiveSlotCount(), 1u);
    ExpectResult(t.OnSegment(600, 100), V::OUT_OF_ORDER_PLACED, 600, 100, 0, 0, "slot 1 again");
    EXPECT_EQ(t.GetSlot(1), (Iv{600, 100}));
    ExpectResult(t.OnSegment(800, 100), V::DROPPED_FIDELITY, 0, 0, 0, 0, "K=2 are held");
    ExpectResult(t.OnSegment(300, 100), V::DUPLICATE, 0, 0, 0, 0, "inside the union");
    ExpectResult(t.OnSegment(0, 50), V::IN_ORDER, 0, 50, 500, 500, "fill delivers the union");
    // The merged slot is gone; the one behind it moved down.
    EXPECT_EQ(t.GetSlot(0), (Iv{600, 100}));
    EXPECT_EQ(t.GetSlot(1), (Iv{}));
    EXPECT_EQ(t.GetLiveSlotCount(), 1u);
    ExpectResult(t.OnSegment(800, 100), V::OUT_OF_ORDER_PLACED, 800, 100, 0, 500, "slot free");
    EXPECT_EQ(t.GetSlot(1), (Iv{800, 100}));
}

TEST(ReassemblyTracker, KMeansKTheIssueExample)
{
    // Issue 14: K = 2, single-byte units. A one-pass rule let the free slot 0 open [6,7)
    // before slot 1 could absorb it ([5,7) in slot 1, a dominated copy [6,7) in slot 0), so it
    // held one distinct interval and dropped [9,10). K intervals means two here.
    ReassemblyTracker t(2, 0, 1000);
    ExpectResult(t.OnSegment(2, 1), V::OUT_OF_ORDER_PLACED, 2, 1, 0, 0, "[2,3)");
    ExpectResult(t.OnSegment(5, 1), V::OUT_OF_ORDER_PLACED, 5, 1, 0, 0, "[5,6)");
    ExpectResult(t.OnSegment(0, 2), V::IN_ORDER, 0, 2, 3, 3, "[0,2) merges [2,3)");
    EXPECT_EQ(t.GetSlot(0), (Iv{5, 1}));
    EXPECT_EQ(t.GetSlot(1), (Iv{}));
    ExpectResult(t.OnSegment(6, 1), V::OUT_OF_ORDER_PLACED, 6, 1, 0, 3, "[6,7) extends [5,6)");
    EXPECT_EQ(t.GetSlot(0), (Iv{5, 2}));
    EXPECT_EQ(t.GetSlot(1), (Iv{}));
    ExpectResult(t.OnSegment(9, 1), V::OUT_OF_ORDER_PLACED, 9, 1, 0, 3, "[9,10) kept");
    EXPECT_EQ(t.GetSlot(0), (Iv{5, 2}));
    EXPECT_EQ(t.GetSlot(1), (Iv{9, 1}));
    EXPECT_EQ(t.GetIntervals(), Ivs({{5, 7}, {9, 10}}));
    EXPECT_EQ(t.GetLiveSlotCount(), 2u);
    ExpectResult(t.OnSegment(3, 2), V::IN_ORDER, 3, 2, 4, 7, "[3,5) merges [5,7)");
    ExpectResult(t.OnSegment(7, 2), V::IN_ORDER, 7, 2, 3, 10, "[7,9) merges [9,10)");
}

TEST(ReassemblyTracker, MergedSlotMovesDownAndExtensionsStayInTheirSlot)
{
    ReassemblyTracker t(3, 0, 100000);
    t.OnSegment(100, 100); // slot 0
    t.OnSegment(300, 100); // slot 1
    ExpectResult(t.OnSegment(0, 100), V::IN_ORDER, 0, 100, 200, 200, "merge slot 0");
    // The live slots stay a prefix: [300, 400) moved down to slot 0.
    EXPECT_EQ(t.GetSlot(0), (Iv{300, 100}));
    EXPECT_EQ(t.GetSlot(1), (Iv{}));
    EXPECT_EQ(t.GetLiveSlotCount(), 1u);
    // Extending it grows slot 0 in place: no second copy anywhere.
    ExpectResult(t.OnSegment(400, 100), V::OUT_OF_ORDER_PLACED, 400, 100, 0, 200, "extend");
    ExpectResult(t.OnSegment(500, 100), V::OUT_OF_ORDER_PLACED, 500, 100, 0, 200, "extend");
    EXPECT_EQ(t.GetSlot(0), (Iv{300, 300}));
    EXPECT_EQ(t.GetSlot(1), (Iv{}));
    EXPECT_EQ(t.GetIntervals(), Ivs({{300, 600}}));
    // Two more distinct intervals fit (K = 3), a fourth does not.
    ExpectResult(t.OnSegment(800, 100), V::OUT_OF_ORDER_PLACED, 800, 100, 0, 200, "new");
    ExpectResult(t.OnSegment(1000, 100), V::OUT_OF_ORDER_PLACED, 1000, 100, 0, 200, "new");
    EXPECT_EQ(t.GetSlot(1), (Iv{800, 100}));
    EXPECT_EQ(t.GetSlot(2), (Iv{1000, 100}));
    EXPECT_EQ(t.GetIntervals(), Ivs({{300, 600}, {800, 900}, {1000, 1100}}));
    ExpectResult(t.OnSegment(1200, 100), V::DROPPED_FIDELITY, 0, 0, 0, 200, "full");
    ExpectResult(t.OnSegment(200, 100), V::IN_ORDER, 200, 100, 400, 600, "fill");
    EXPECT_EQ(t.GetIntervals(), Ivs({{800, 900}, {1000, 1100}}));
    EXPECT_EQ(t.GetSlot(0), (Iv{800, 100}));
    EXPECT_EQ(t.GetSlot(1), (Iv{1000, 100}));
    EXPECT_EQ(t.GetSlot(2), (Iv{}));
    EXPECT_EQ(t.GetLiveSlotCount(), 2u);
}

TEST(ReassemblyTracker, DuplicateOrOverlapInAnySlot)
{
    ReassemblyTracker t(2, 0, 100000);
    t.OnSegment(100, 100); // slot 0
    t.OnSegment(300, 200); // slot 1: [300, 500)
    t.OnSegment(0, 100);   // merges slot 0 -> rcv_next 200; [300, 500) moves to slot 0
    EXPECT_EQ(t.GetSlot(0), (Iv{300, 200}));
    ExpectResult(t.OnSegment(350, 50), V::DUPLICATE, 0, 0, 0, 200, "inside slot 0");
    t.OnSegment(600, 100); // slot 1
    ExpectResult(t.OnSegment(650, 50), V::DUPLICATE, 0, 0, 0, 200, "inside slot 1");
    ExpectResult(t.OnSegment(550, 100), V::DROPPED_FIDELITY, 0, 0, 0, 200, "overlaps slot 1");
    // Touches slot 0's end, but overlaps slot 1: TAS's overlap rule wins, nothing changes.
    ExpectResult(t.OnSegment(500, 150), V::DROPPED_FIDELITY, 0, 0, 0, 200, "touch + overlap");
    // Contains slot 1 whole: an overlap as well.
    ExpectResult(t.OnSegment(550, 200), V::DROPPED_FIDELITY, 0, 0, 0, 200, "contains slot 1");
    EXPECT_EQ(t.GetSlot(0), (Iv{300, 200}));
    EXPECT_EQ(t.GetSlot(1), (Iv{600, 100}));
    ExpectResult(t.OnSegment(500, 100), V::OUT_OF_ORDER_PLACED, 500, 100, 0, 200, "bridge");
    EXPECT_EQ(t.GetSlot(0), (Iv{300, 400}));
    EXPECT_EQ(t.GetSlot(1), (Iv{}));
}

TEST(ReassemblyTracker, BridgeKeepsTheUnionInTheLowerSlotAndMovesTheRestDown)
{
    for (bool rightFirst : {false, true})
    {
        SCOPED_TRACE(rightFirst ? "right neighbour in the lower slot" : "left neighbour lower");
        ReassemblyTracker t(4, 0, 100000);
        t.OnSegment(rightFirst ? 300 : 100, 100); // slot 0
        t.OnSegment(700, 100);                    // slot 1
        t.OnSegment(rightFirst ? 100 : 300, 100); // slot 2
        t.OnSegment(500, 100);                    // slot 3
        ExpectResult(t.OnSegment(200, 100), V::OUT_OF_ORDER_PLACED, 200, 100, 0, 0, "bridge");
        EXPECT_EQ(t.GetSlot(0), (Iv{100, 300}));
        EXPECT_EQ(t.GetSlot(1), (Iv{700, 100}));
        EXPECT_EQ(t.GetSlot(2), (Iv{500, 100}));
        EXPECT_EQ(t.GetSlot(3), (Iv{}));
        EXPECT_EQ(t.GetLiveSlotCount(), 3u);
        // A second bridge, between slots 0 and 2; slot 1 stays.
        ExpectResult(t.OnSegment(400, 100), V::OUT_OF_ORDER_PLACED, 400, 100, 0, 0, "bridge 2");
        EXPECT_EQ(t.GetSlot(0), (Iv{100, 500}));
        EXPECT_EQ(t.GetSlot(1), (Iv{700, 100}));
        EXPECT_EQ(t.GetSlot(2), (Iv{}));
        EXPECT_EQ(t.GetIntervals(), Ivs({{100, 600}, {700, 800}}));
    }
}

TEST(ReassemblyTracker, InOrderSegmentCoveringAnIntervalMovesTheOthersDown)
{
    ReassemblyTracker t(3, 0, 100000);
    t.OnSegment(100, 100); // slot 0
    t.OnSegment(300, 100); // slot 1
    t.OnSegment(500, 100); // slot 2
    // A re-cut retransmission covers slot 0 whole without reaching slot 1.
    ExpectResult(t.OnSegment(0, 250), V::IN_ORDER, 0, 250, 250, 250, "covers [100, 200)");
    EXPECT_EQ(t.GetSlot(0), (Iv{300, 100}));
    EXPECT_EQ(t.GetSlot(1), (Iv{500, 100}));
    EXPECT_EQ(t.GetSlot(2), (Iv{}));
}

TEST(ReassemblyTracker, ShrinkingTheWindowKeepsTheSlotsAPrefix)
{
    ReassemblyTracker t(3, 0, 100000);
    t.OnSegment(700, 100); // slot 0
    t.OnSegment(300, 100); // slot 1
    t.OnSegment(500, 100); // slot 2
    // The new edge 550 forgets slot 0 and cuts slot 2; the kept ones move down in order.
    t.SetWindow(550);
    EXPECT_EQ(t.GetSlot(0), (Iv{300, 100}));
    EXPECT_EQ(t.GetSlot(1), (Iv{500, 50}));
    EXPECT_EQ(t.GetSlot(2), (Iv{}));
    EXPECT_EQ(t.GetLiveSlotCount(), 2u);
    ExpectResult(t.OnSegment(900, 100), V::DROPPED_WINDOW, 0, 0, 0, 0, "beyond the edge");
    t.OpenWindow(1000);
    ExpectResult(t.OnSegment(900, 100), V::OUT_OF_ORDER_PLACED, 900, 100, 0, 0, "slot 2");
    EXPECT_EQ(t.GetSlot(2), (Iv{900, 100}));
}

TEST(ReassemblyTracker, InOrderSegmentMergesSeveralIntervals)
{
    for (uint32_t k : {3u, 4u, U})
    {
        SCOPED_TRACE("K=" + std::to_string(k));
        ReassemblyTracker t(k, 0, 100000);
        t.OnSegment(300, 100); // slot 0 gets the higher one
        t.OnSegment(100, 100);
        t.OnSegment(600, 100);
        EXPECT_EQ(t.GetIntervals(), Ivs({{100, 200}, {300, 400}, {600, 700}}));
        // A (re-segmented) in-order segment covering the first gap and the second interval's
        // start: the first two intervals merge, the third stays.
        ExpectResult(t.OnSegment(0, 350), V::IN_ORDER, 0, 350, 400, 400, "two merges");
        EXPECT_EQ(t.GetIntervals(), Ivs({{600, 700}}));
        EXPECT_EQ(t.GetWindow(), 100000u - 400u);
    }
}

TEST(ReassemblyTracker, UnboundedAcceptsEveryInWindowSegment)
{
    ReassemblyTracker t(U, 0, 100000);
    for (uint32_t s : {900u, 100u, 500u, 300u, 700u})
    {
        EXPECT_EQ(t.OnSegment(s, 100).verdict, V::OUT_OF_ORDER_PLACED);
    }
    EXPECT_EQ(t.GetIntervals().size(), 5u);
    // Partial overlaps are accepted (written whole) and coalesce.
    ExpectResult(t.OnSegment(150, 200), V::OUT_OF_ORDER_PLACED, 150, 200, 0, 0, "overlap");
    EXPECT_EQ(t.GetIntervals(), Ivs({{100, 400}, {500, 600}, {700, 800}, {900, 1000}}));
    ExpectResult(t.OnSegment(600, 100), V::OUT_OF_ORDER_PLACED, 600, 100, 0, 0, "bridge");
    EXPECT_EQ(t.GetIntervals(), Ivs({{100, 400}, {500, 800}, {900, 1000}}));
    ExpectResult(t.OnSegment(550, 100), V::DUPLICATE, 0, 0, 0, 0, "inside");
    ExpectResult(t.OnSegment(0, 100), V::IN_ORDER, 0, 100, 400, 400, "fill first gap");
    ExpectResult(t.OnSegment(350, 600), V::IN_ORDER, 400, 550, 600, 1000, "covers the rest");
    EXPECT_TRUE(t.GetIntervals().empty());
}

TEST(ReassemblyTracker, ResetStartsANewConnection)
{
    for (uint32_t k : {2u, U})
    {
        ReassemblyTracker t(k, 0, 1000);
        t.OnSegment(0, 100);
        t.OnSegment(300, 100);
        t.Reset(5000, 200);
        EXPECT_EQ(t.GetRcvNext(), 5000u);
        EXPECT_EQ(t.GetWindow(), 200u);
        EXPECT_TRUE(t.GetIntervals().empty());
        EXPECT_EQ(t.GetLiveSlotCount(), 0u);
        ExpectResult(t.OnSegment(5000, 100), V::IN_ORDER, 5000, 100, 100, 5100, "new conn");
        EXPECT_THROW(t.Reset(0, ReassemblyTracker::MAX_WINDOW + 1), PrestoInputError);
    }
}

// ---------------------------------------------------------------------------------------
// Independent straightforward re-implementation of TAS's receive rule (fast_flows_packet
// with FLEXNIC_PL_OOO_RECV), in relative offsets, used to check K = 1.
// ---------------------------------------------------------------------------------------

struct TasModel
{
    uint32_t rxNext;
    uint32_t rxAvail;
    uint32_t oooStart{0};
    uint32_t oooLen{0};

    struct Out
    {
        uint32_t writeSeq{0};
        uint32_t writeLen{0};
        uint32_t bump{0};
    };

    /// tcp_trim_rxbuf: false to drop, else trims relative to [rxNext, rxNext + rxAvail].
    bool Trim(uint32_t seq, uint32_t len, uint32_t& trimStart, uint32_t& trimEnd) const
    {
        const int64_t a = static_cast<int32_t>(seq - rxNext);
        const int64_t b = a + len;
        if (b < 0 || a > static_cast<int64_t>(rxAvail))
        {
            return false;
        }
        trimStart = a < 0 ? static_cast<uint32_t>(-a) : 0;
        trimEnd = b > rxAvail ? static_cast<uint32_t>(b - rxAvail) : 0;
        return true;
    }

    Out Packet(uint32_t seq, uint32_t len)
    {
        Out o;
        uint32_t ts = 0;
        uint32_t te = 0;
        if (len == 0 || !Trim(seq, len, ts, te))
        {
            return o;
        }
        const uint32_t payload = len - ts - te;
        seq += ts;
        if (seq != rxNext)
        {
            if (payload == 0)
            {
                return o;
            }
            if (oooLen == 0)
            {
                oooStart = seq;
                oooLen = payload;
            }
            else if (seq + payload == oooStart)
            {
                oooStart = seq;
                oooLen += payload;
            }
            else if (oooStart + oooLen == seq)
            {
                oooLen += payload;
            }
            else
            {
                return o; // no luck with the interval
            }
            o.writeSeq = seq;
            o.writeLen = payload;
            return o;
        }
        if (payload == 0)
        {
            return o;
        }
        o.writeSeq = seq;
        o.writeLen = payload;
        o.bump = payload;
        rxNext += payload;
        rxAvail -= payload;
        if (oooLen != 0)
        {
            if (!Trim(oooStart, oooLen, ts, te))
            {
                oooLen = 0;
            }
            else
            {
                oooStart += ts;
                oooLen -= ts + te;
                if (oooLen > 0 && oooStart == rxNext)
                {
                    o.bump += oooLen;
                    rxAvail -= oooLen;
                    rxNext += oooLen;
                    oooLen = 0;
                }
            }
        }
        return o;
    }
};

// ---------------------------------------------------------------------------------------
// Random arrivals: a stream cut into segments, sprayed (local reordering), lost, duplicated,
// retransmitted in rounds (sometimes re-cut, so retransmissions overlap partially).
// ---------------------------------------------------------------------------------------

struct Seg
{
    uint32_t seq;
    uint32_t len;
};

struct Scenario
{
    uint32_t isn{0};
    uint32_t length{0};
    uint32_t window{0};
    bool lazyReader{false}; //!< the application reads in batches, not after every segment
    std::vector<Seg> arrivals;
    size_t lastRoundStart{0}; //!< index where the last, lossless round begins
};

std::vector<Seg>
Cut(uint32_t isn, uint32_t length, uint32_t mss, std::mt19937_64& rng)
{
    std::vector<Seg> segs;
    std::uniform_int_distribution<uint32_t> size(1, mss);
    const bool variable = rng() % 3 == 0;
    for (uint32_t off = 0; off < length;)
    {
        const uint32_t len = std::min(length - off, variable ? size(rng) : mss);
        segs.push_back(Seg{isn + off, len});
        off += len;
    }
    return segs;
}

/// One round of transmission: sprayed over paths (displacement up to `spread` segments),
/// each copy lost with pLoss, duplicated with pDup.
void
Round(const std::vector<Seg>& segs,
      uint32_t spread,
      double pLoss,
      double pDup,
      std::mt19937_64& rng,
      std::vector<Seg>& out)
{
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<std::pair<double, Seg>> timed;
    for (size_t i = 0; i < segs.size(); ++i)
    {
        const int copies = 1 + (u(rng) < pDup ? 1 : 0);
        for (int c = 0; c < copies; ++c)
        {
            if (u(rng) < pLoss)
            {
                continue;
            }
            timed.emplace_back(static_cast<double>(i) + u(rng) * spread, segs[i]);
        }
    }
    std::stable_sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) {
        return a.first < b.first;
    });
    for (const auto& t : timed)
    {
        out.push_back(t.second);
    }
}

Scenario
MakeScenario(std::mt19937_64& rng, bool bigWindow)
{
    Scenario sc;
    const uint32_t mss = std::vector<uint32_t>{16, 64, 100, 536}[rng() % 4];
    const uint32_t nSeg = 40 + static_cast<uint32_t>(rng() % 260);
    sc.length = mss * nSeg - static_cast<uint32_t>(rng() % mss);
    // A third of the streams cross 2^32.
    sc.isn = (rng() % 3 == 0) ? static_cast<uint32_t>(0u - (rng() % sc.length))
                              : static_cast<uint32_t>(rng());
    sc.window = bigWindow ? sc.length + static_cast<uint32_t>(rng() % 1000)
                          : mss * (2 + static_cast<uint32_t>(rng() % 40));
    sc.lazyReader = rng() % 2 == 0;
    const uint32_t spread = 1 + static_cast<uint32_t>(rng() % 12);
    const double pLoss = std::vector<double>{0.0, 0.01, 0.05, 0.2}[rng() % 4];
    const double pDup = std::vector<double>{0.0, 0.02, 0.1}[rng() % 3];
    const uint32_t rounds = 1 + static_cast<uint32_t>(rng() % 3);
    for (uint32_t r = 0; r < rounds; ++r)
    {
        // Retransmission rounds are sometimes cut with another segment size.
        const uint32_t m = (r > 0 && rng() % 2 == 0) ? 1 + static_cast<uint32_t>(rng() % mss) : mss;
        Round(Cut(sc.isn, sc.length, m, rng), spread, pLoss, pDup, rng, sc.arrivals);
    }
    // A last round without loss, still sprayed: every byte arrives at least once more.
    sc.lastRoundStart = sc.arrivals.size();
    Round(Cut(sc.isn, sc.length, mss, rng), spread, 0.0, 0.0, rng, sc.arrivals);
    return sc;
}

/// Stream content at offset o (never equal to the garbage that fills an unwritten buffer).
uint8_t
StreamByte(uint32_t o)
{
    return static_cast<uint8_t>((o * 2654435761u) >> 13);
}

uint8_t
Garbage(uint32_t o)
{
    return static_cast<uint8_t>(StreamByte(o) ^ 0xA5);
}

/// A tracker under test with the host buffer it writes into and the application reading.
struct Receiver
{
    std::unique_ptr<ReassemblyTracker> tracker;
    std::vector<uint8_t> buffer; //!< host buffer, indexed by stream offset
    std::vector<bool> written;   //!< bytes ever written (for the tracked-bytes check)
    std::vector<bool> received;  //!< bytes that arrived inside the window (oracle)
    uint64_t deliveredTotal{0};  //!< sum of the reported deliverable bytes
    uint32_t unread{0};          //!< delivered, not yet read by the application
    std::map<std::string, uint64_t> verdicts;
};

struct Totals
{
    uint64_t arrivals{0};
    std::map<uint32_t, std::map<std::string, uint64_t>> verdicts; //!< per K
};

std::string
KName(uint32_t k)
{
    return k == U ? std::string("U") : std::to_string(k);
}

/**
 * Feed one scenario to trackers with the given fidelities (the last one must be UNBOUNDED)
 * and to the TAS model, checking every property after every arrival.
 */
void
RunScenario(const Scenario& sc, const std::vector<uint32_t>& ks, Totals& totals, uint64_t id)
{
    ASSERT_EQ(ks.back(), U);
    std::vector<Receiver> rx(ks.size());
    for (size_t i = 0; i < ks.size(); ++i)
    {
        rx[i].tracker = std::make_unique<ReassemblyTracker>(ks[i], sc.isn, sc.window);
        rx[i].buffer.resize(sc.length);
        for (uint32_t o = 0; o < sc.length; ++o)
        {
            rx[i].buffer[o] = Garbage(o);
        }
        rx[i].written.assign(sc.length, false);
        rx[i].received.assign(sc.length, false);
    }
    TasModel tas{sc.isn, sc.window};
    auto off = [&](uint32_t seq) { return static_cast<uint32_t>(seq - sc.isn); };

    for (size_t n = 0; n < sc.arrivals.size(); ++n)
    {
        const Seg seg = sc.arrivals[n];
        ++totals.arrivals;
        const uint32_t segOff = off(seg.seq);
        const bool checkHeld = (n % 97 == 0) || n + 1 == sc.arrivals.size();
        for (size_t i = 0; i < ks.size(); ++i)
        {
            const uint32_t k = ks[i];
            Receiver& rv = rx[i];
            ReassemblyTracker& t = *rv.tracker;
            const uint32_t rcv = off(t.GetRcvNext());
            const uint32_t win = t.GetWindow();
            const uint64_t edge = std::min<uint64_t>(uint64_t{rcv} + win, sc.length);
            auto r = t.OnSegment(seg.seq, seg.len);
            const std::string name = ReassemblyTracker::VerdictName(r.verdict);
            rv.verdicts[name]++;
            totals.verdicts[k][name]++;
            const std::string where =
                "scenario " + std::to_string(id) + " arrival " + std::to_string(n) +
                " K=" + KName(k) + " seg [" + std::to_string(segOff) + "," +
                std::to_string(segOff + seg.len) + ") rcv " + std::to_string(rcv) + " edge " +
                std::to_string(edge) + " verdict " + name;
            SCOPED_TRACE(where);

            // Independent classification of the segment.
            const uint32_t s = std::max(segOff, rcv);
            const uint32_t e = static_cast<uint32_t>(std::min<uint64_t>(segOff + seg.len, edge));
            bool allReceived = true;
            for (uint32_t o = s; o < e && allReceived; ++o)
            {
                allReceived = rv.received[o];
            }
            if (segOff + seg.len <= rcv)
            {
                ASSERT_EQ(r.verdict, V::DUPLICATE);
            }
            else if (s >= edge)
            {
                ASSERT_EQ(r.verdict, V::DROPPED_WINDOW);
            }
            else if (s == rcv)
            {
                ASSERT_EQ(r.verdict, V::IN_ORDER);
                ASSERT_EQ(off(r.writeSeq), s);
                ASSERT_EQ(r.writeLen, e - s);
            }
            else if (k == 0)
            {
                ASSERT_EQ(r.verdict, V::DROPPED_FIDELITY);
            }
            else if (k == U)
            {
                // Full reassembly: duplicate exactly when every byte arrived before.
                ASSERT_EQ(r.verdict, allReceived ? V::DUPLICATE : V::OUT_OF_ORDER_PLACED);
            }
            else
            {
                ASSERT_TRUE(r.verdict == V::OUT_OF_ORDER_PLACED || r.verdict == V::DUPLICATE ||
                            r.verdict == V::DROPPED_FIDELITY);
            }
            ASSERT_TRUE(r.ackRequired);
            if (r.verdict == V::OUT_OF_ORDER_PLACED)
            {
                ASSERT_EQ(off(r.writeSeq), s);
                ASSERT_EQ(r.writeLen, e - s);
            }
            if (r.verdict != V::IN_ORDER && r.verdict != V::OUT_OF_ORDER_PLACED)
            {
                ASSERT_EQ(r.writeLen, 0u);
            }
            if (r.verdict == V::DUPLICATE)
            {
                // "Nothing new" must be true: every byte in the window was written before.
                for (uint32_t o = s; o < e; ++o)
                {
                    ASSERT_TRUE(rv.written[o]) << "offset " << o;
                }
            }
            // The oracle: bytes that arrived inside the window.
            for (uint32_t o = s; o < e; ++o)
            {
                rv.received[o] = true;
            }

            // Host buffer: the write must lie inside the segment and inside the window, never
            // below rcv_next (those bytes may already be consumed).
            if (r.writeLen > 0)
            {
                const uint32_t w = off(r.writeSeq);
                ASSERT_GE(w, segOff);
                ASSERT_LE(uint64_t{w} + r.writeLen, uint64_t{segOff} + seg.len);
                ASSERT_GE(w, rcv);
                ASSERT_LE(uint64_t{w} + r.writeLen, edge);
                for (uint32_t o = w; o < w + r.writeLen; ++o)
                {
                    rv.buffer[o] = StreamByte(o); // the segment's payload byte
                    rv.written[o] = true;
                }
            }
            ASSERT_EQ(r.ack, t.GetRcvNext());
            ASSERT_EQ(off(r.ack), rcv + r.delivered);
            ASSERT_LE(uint64_t{rcv} + r.delivered, edge);
            // Delivered bytes must reconstruct the stream: each byte once, in order.
            for (uint32_t o = rcv; o < rcv + r.delivered; ++o)
            {
                ASSERT_EQ(rv.buffer[o], StreamByte(o)) << "offset " << o << " never written";
                rv.buffer[o] = Garbage(o); // the application consumes it
            }
            rv.deliveredTotal += r.delivered;
            ASSERT_EQ(rv.deliveredTotal, off(t.GetRcvNext()));
            ASSERT_EQ(t.GetWindow() + r.delivered, win) << "delivered bytes consume window";

            if (k == U)
            {
                // Full reassembly delivers exactly the received prefix.
                uint32_t prefix = rcv;
                while (prefix < sc.length && rv.received[prefix])
                {
                    ++prefix;
                }
                ASSERT_EQ(off(t.GetRcvNext()), prefix);
            }
            // Intervals: at most K slots in use, inside (rcv_next, edge), sorted, disjoint,
            // non-adjacent, and every tracked byte was written.
            const uint32_t rcvAfter = off(t.GetRcvNext());
            const uint64_t edgeAfter = uint64_t{rcvAfter} + t.GetWindow();
            ASSERT_EQ(edgeAfter, uint64_t{rcv} + win);
            if (k != U)
            {
                ASSERT_LE(t.GetLiveSlotCount(), k);
            }
            uint64_t prevEnd = rcvAfter;
            for (const Iv& iv : t.GetIntervals())
            {
                const uint32_t a = off(iv.start);
                ASSERT_GT(iv.len, 0u);
                ASSERT_GT(a, prevEnd) << "unsorted, adjacent or touching rcv_next";
                ASSERT_LE(uint64_t{a} + iv.len, edgeAfter);
                if (checkHeld)
                {
                    for (uint32_t o = a; o < a + iv.len; ++o)
                    {
                        ASSERT_TRUE(rv.written[o]) << "tracked byte " << o << " never written";
                    }
                }
                prevEnd = uint64_t{a} + iv.len;
            }
            if (k != U)
            {
                // Slot invariant: the live slots are a prefix, pairwise disjoint and
                // non-adjacent (K distinct intervals); the free slots are empty.
                const uint32_t live = t.GetLiveSlotCount();
                ASSERT_EQ(live, t.GetIntervals().size());
                for (uint32_t a = 0; a < k; ++a)
                {
                    const Iv x = t.GetSlot(a);
                    if (a >= live)
                    {
                        ASSERT_EQ(x, Iv{}) << "free slot " << a;
                        continue;
                    }
                    ASSERT_GT(off(x.start), rcvAfter) << "slot " << a;
                    for (uint32_t b = a + 1; b < live; ++b)
                    {
                        const Iv y = t.GetSlot(b);
                        const uint32_t xs = off(x.start);
                        const uint32_t ys = off(y.start);
                        ASSERT_TRUE(xs + x.len < ys || ys + y.len < xs)
                            << "slots " << a << ", " << b;
                    }
                }
            }
            // Full reassembly never delivers less than any finite K on the same arrivals
            // (checked when the unbounded tracker, last, has processed the segment).
            if (k == U)
            {
                for (size_t j = 0; j + 1 < ks.size(); ++j)
                {
                    ASSERT_LE(off(rx[j].tracker->GetRcvNext()), off(t.GetRcvNext()))
                        << "K=" << KName(ks[j]) << " ahead of full reassembly";
                }
            }

            // K = 1 must be the TAS rule exactly.
            if (k == 1)
            {
                auto o = tas.Packet(seg.seq, seg.len);
                ASSERT_EQ(o.writeLen, r.writeLen) << "TAS write length";
                if (o.writeLen)
                {
                    ASSERT_EQ(o.writeSeq, r.writeSeq);
                }
                ASSERT_EQ(o.bump, r.delivered) << "TAS bump";
                ASSERT_EQ(tas.rxNext, t.GetRcvNext());
                ASSERT_EQ(tas.rxAvail, t.GetWindow());
                auto ivs = t.GetIntervals();
                ASSERT_EQ(ivs.size(), tas.oooLen ? 1u : 0u);
                if (tas.oooLen)
                {
                    ASSERT_EQ(ivs[0], (Iv{tas.oooStart, tas.oooLen}));
                }
            }

            // The application reads: at once, or every 16 arrivals in a batch.
            rv.unread += r.delivered;
            if (!sc.lazyReader || n % 16 == 15)
            {
                t.OpenWindow(rv.unread);
                if (k == 1)
                {
                    tas.rxAvail += rv.unread;
                }
                rv.unread = 0;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Properties on random arrivals
// ---------------------------------------------------------------------------------------

TEST(ReassemblyTrackerRandom, AllFidelitiesOnSprayedLossyStreams)
{
    std::mt19937_64 rng(20240611);
    const std::vector<uint32_t> ks{0, 1, 2, 3, 4, 8, 16, U};
    Totals totals;
    uint64_t id = 0;
    while (totals.arrivals < 120000)
    {
        Scenario sc = MakeScenario(rng, rng() % 2 == 0);
        RunScenario(sc, ks, totals, id++);
        if (HasFatalFailure())
        {
            return;
        }
    }
    EXPECT_GE(totals.arrivals, 100000u);
    // For the record (not asserted): how often each K could not track a segment.
    for (uint32_t k : ks)
    {
        std::cout << "[ info ] K=" << KName(k)
                  << " dropped for fidelity: " << totals.verdicts[k]["DROPPED_FIDELITY"] << " of "
                  << totals.arrivals << " arrivals\n";
    }
    // The random inputs must exercise every decision, or the properties prove little.
    for (uint32_t k : {1u, 2u, 4u})
    {
        for (const char* v :
             {"IN_ORDER", "OUT_OF_ORDER_PLACED", "DUPLICATE", "DROPPED_FIDELITY", "DROPPED_WINDOW"})
        {
            EXPECT_GT(totals.verdicts[k][v], 100u) << "K=" << k << " " << v;
        }
    }
    EXPECT_EQ(totals.verdicts[0]["OUT_OF_ORDER_PLACED"], 0u);
    EXPECT_GT(totals.verdicts[0]["DROPPED_FIDELITY"], 1000u);
    EXPECT_EQ(totals.verdicts[U]["DROPPED_FIDELITY"], 0u);
    EXPECT_GT(totals.verdicts[U]["OUT_OF_ORDER_PLACED"], 1000u);
    // More slots must at least sometimes keep what fewer slots drop.
    EXPECT_LT(totals.verdicts[16]["DROPPED_FIDELITY"], totals.verdicts[1]["DROPPED_FIDELITY"]);
}

TEST(ReassemblyTrackerRandom, UnboundedCompletesOnceEverythingArrived)
{
    std::mt19937_64 rng(7);
    Totals totals;
    for (uint64_t id = 0; id < 150; ++id)
    {
        Scenario sc = MakeScenario(rng, /* bigWindow */ true);
        RunScenario(sc, {1, U}, totals, id);
        if (HasFatalFailure())
        {
            return;
        }
        // Replay to read the final state (RunScenario owns its trackers).
        ReassemblyTracker full(U, sc.isn, sc.window);
        bool allArrivedBeforeEnd = false;
        for (size_t n = 0; n < sc.arrivals.size(); ++n)
        {
            full.OnSegment(sc.arrivals[n].seq, sc.arrivals[n].len);
            allArrivedBeforeEnd = full.GetRcvNext() == sc.isn + sc.length;
        }
        EXPECT_TRUE(allArrivedBeforeEnd) << "scenario " << id;
        EXPECT_EQ(full.GetRcvNext(), sc.isn + sc.length) << "scenario " << id;
        EXPECT_TRUE(full.GetIntervals().empty());
    }
}

TEST(ReassemblyTrackerRandom, TasMatchesOnPlainPermutations)
{
    // Whole permutations of fixed-size segments with duplicates: the classic case TAS was
    // written for, with a window that never limits.
    std::mt19937_64 rng(99);
    uint64_t compared = 0;
    for (int run = 0; run < 400; ++run)
    {
        const uint32_t isn = static_cast<uint32_t>(rng());
        const uint32_t mss = 1 + static_cast<uint32_t>(rng() % 1460);
        const uint32_t n = 2 + static_cast<uint32_t>(rng() % 60);
        std::vector<Seg> segs;
        for (uint32_t i = 0; i < n; ++i)
        {
            segs.push_back(Seg{isn + i * mss, mss});
        }
        std::vector<Seg> arrivals = segs;
        for (uint32_t i = 0; i < n / 4; ++i)
        {
            arrivals.push_back(segs[rng() % n]);
        }
        std::shuffle(arrivals.begin(), arrivals.end(), rng);
        ReassemblyTracker t(1, isn, n * mss);
        TasModel tas{isn, n * mss};
        for (const Seg& s : arrivals)
        {
            auto r = t.OnSegment(s.seq, s.len);
            auto o = tas.Packet(s.seq, s.len);
            ASSERT_EQ(r.writeLen, o.writeLen);
            ASSERT_EQ(r.delivered, o.bump);
            ASSERT_EQ(t.GetRcvNext(), tas.rxNext);
            ++compared;
        }
    }
    EXPECT_GT(compared, 10000u);
}

} // namespace

namespace
{

/// One path's cells arriving out of order twice hold both slots in arrival order; per path
/// the second is dropped and the slot stays for another path's run.
TEST(ReassemblyTrackerPerPath, OnePathCannotTakeTwoSlots)
{
    for (auto policy :
         {ReassemblyTracker::Policy::ARRIVAL_ORDER, ReassemblyTracker::Policy::PER_PATH})
    {
        ReassemblyTracker t(2, 0, 100000);
        t.SetPolicy(policy);
        const bool perPath = policy == ReassemblyTracker::Policy::PER_PATH;
        // path 0 runs ahead: [1000, 2000), then its next cell [3000, 4000)
        EXPECT_EQ(t.OnSegment(1000, 1000, 0).verdict, V::OUT_OF_ORDER_PLACED);
        EXPECT_EQ(t.OnSegment(3000, 1000, 0).verdict,
                  perPath ? V::DROPPED_FIDELITY : V::OUT_OF_ORDER_PLACED);
        // path 1's run [5000, 6000) finds a slot only per path
        EXPECT_EQ(t.OnSegment(5000, 1000, 1).verdict,
                  perPath ? V::OUT_OF_ORDER_PLACED : V::DROPPED_FIDELITY);
        EXPECT_EQ(t.GetSlotOwner(0), 0);
        EXPECT_EQ(t.GetSlotOwner(1), perPath ? 1 : 0);
        // growth by adjacency is path-agnostic: path 2 extends path 0's interval
        EXPECT_EQ(t.OnSegment(2000, 500, 2).verdict, V::OUT_OF_ORDER_PLACED);
        EXPECT_EQ(t.GetSlot(0), (Iv{1000, 1500}));
        EXPECT_EQ(t.GetSlotOwner(0), 0) << "an interval keeps the path that opened it";
        // in order: the first interval merges, the other moves down with its owner
        const auto r = t.OnSegment(0, 1000, 3);
        EXPECT_EQ(r.verdict, V::IN_ORDER);
        EXPECT_EQ(t.GetRcvNext(), 2500u);
        EXPECT_EQ(t.GetLiveSlotCount(), 1u);
        EXPECT_EQ(t.GetSlotOwner(0), perPath ? 1 : 0);
        EXPECT_EQ(t.GetSlotOwner(1), 0) << "a free slot has owner 0";
    }
}

/// A bridge keeps the lower slot and its owner; the path whose interval was absorbed may then
/// open a new one; a window trim moves owners with their slots.
TEST(ReassemblyTrackerPerPath, BridgesAndTrimsKeepOwners)
{
    ReassemblyTracker t(3, 0, 100000);
    t.SetPolicy(ReassemblyTracker::Policy::PER_PATH);
    EXPECT_EQ(t.OnSegment(3000, 1000, 5).verdict, V::OUT_OF_ORDER_PLACED); // slot 0, path 5
    EXPECT_EQ(t.OnSegment(1000, 1000, 7).verdict, V::OUT_OF_ORDER_PLACED); // slot 1, path 7
    EXPECT_EQ(t.OnSegment(2000, 1000, 9).verdict, V::OUT_OF_ORDER_PLACED); // bridges 1 and 0
    EXPECT_EQ(t.GetLiveSlotCount(), 1u);
    EXPECT_EQ(t.GetSlot(0), (Iv{1000, 3000}));
    EXPECT_EQ(t.GetSlotOwner(0), 5) << "the lower slot (0) kept its owner";
    EXPECT_EQ(t.OnSegment(6000, 1000, 7).verdict, V::OUT_OF_ORDER_PLACED) << "path 7 again";
    EXPECT_EQ(t.OnSegment(9000, 1000, 7).verdict, V::DROPPED_FIDELITY) << "not a second";
    EXPECT_EQ(t.OnSegment(9000, 1000, 8).verdict, V::OUT_OF_ORDER_PLACED);
    t.SetWindow(5000); // the edge at 5000: slots beyond it go, the first stays
    EXPECT_EQ(t.GetLiveSlotCount(), 1u);
    EXPECT_EQ(t.GetSlotOwner(0), 5);
    EXPECT_EQ(t.GetSlotOwner(1), 0);
}

/// Random arrivals from 4 paths: under both policies every byte is delivered once and in
/// order when the holes are finally filled in order, and PER_PATH never holds two intervals
/// of one path.
TEST(ReassemblyTrackerPerPath, RandomArrivalsKeepTheInvariants)
{
    std::mt19937_64 rng(17);
    for (uint32_t k : {1u, 2u, 4u})
    {
        for (auto policy :
             {ReassemblyTracker::Policy::ARRIVAL_ORDER, ReassemblyTracker::Policy::PER_PATH})
        {
            ReassemblyTracker t(k, 0, 1u << 20);
            t.SetPolicy(policy);
            uint64_t delivered = 0;
            for (int i = 0; i < 20000; ++i)
            {
                const uint32_t seq = t.GetRcvNext() + static_cast<uint32_t>(rng() % 40) * 100;
                const auto path = static_cast<uint16_t>(rng() % 4);
                const auto r = t.OnSegment(seq, 100, path);
                delivered += r.delivered;
                t.OpenWindow(r.delivered); // the application reads at once
                if (policy == ReassemblyTracker::Policy::PER_PATH)
                {
                    for (uint32_t a = 0; a < t.GetLiveSlotCount(); ++a)
                    {
                        for (uint32_t b = a + 1; b < t.GetLiveSlotCount(); ++b)
                        {
                            ASSERT_NE(t.GetSlotOwner(a), t.GetSlotOwner(b)) << "event " << i;
                        }
                    }
                }
                const auto iv = t.GetIntervals();
                for (size_t j = 1; j < iv.size(); ++j)
                {
                    ASSERT_TRUE(seq::Lt(iv[j - 1].End(), iv[j].start)) << "disjoint, apart";
                }
            }
            EXPECT_EQ(delivered, t.GetRcvNext()) << "every delivered byte once, in order";
            EXPECT_GT(delivered, 100000u);
        }
    }
}

} // namespace
