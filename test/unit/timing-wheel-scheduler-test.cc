/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/timing-wheel-scheduler.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <iterator>
#include <random>
#include <set>
#include <utility>

using namespace ns3;

namespace
{

/// The order every ns-3 scheduler must give: time stamp, then id.
using Key = std::pair<uint64_t, uint32_t>;

Scheduler::Event
MakeEv(uint64_t ts, uint32_t uid)
{
    Scheduler::Event e;
    e.impl = nullptr;
    e.key.m_ts = ts;
    e.key.m_uid = uid;
    e.key.m_context = uid % 7;
    return e;
}

Key
KeyOf(const Scheduler::Event& e)
{
    return {e.key.m_ts, e.key.m_uid};
}

/// Drive \p q and an ordered set side by side as a simulator would: new events no earlier
/// than the last one removed, with growing ids; some removed before they are due (Remove).
/// \return the number of events that left the queue in order
int
RunAgainstOracle(uint32_t seed, int steps, uint64_t maxDelay)
{
    std::mt19937_64 rng(seed);
    Ptr<TimingWheelScheduler> q = CreateObject<TimingWheelScheduler>();
    std::set<Key> oracle;
    uint64_t now = 0;
    uint32_t uid = 4;
    int removed = 0;
    for (int i = 0; i < steps; ++i)
    {
        const unsigned action = rng() % 10;
        if (action < 5 || oracle.empty())
        {
            // several events per step, some at the same time stamp, now included
            const uint64_t delay = (rng() % 4 == 0) ? 0 : rng() % maxDelay;
            const Scheduler::Event e = MakeEv(now + delay, uid++);
            q->Insert(e);
            oracle.insert(KeyOf(e));
        }
        else if (action < 9)
        {
            EXPECT_FALSE(q->IsEmpty());
            EXPECT_EQ(KeyOf(q->PeekNext()), *oracle.begin());
            const Scheduler::Event e = q->RemoveNext();
            EXPECT_EQ(KeyOf(e), *oracle.begin());
            EXPECT_EQ(e.key.m_context, e.key.m_uid % 7);
            oracle.erase(oracle.begin());
            now = e.key.m_ts;
            ++removed;
        }
        else
        {
            auto it = oracle.begin();
            std::advance(it, static_cast<long>(rng() % oracle.size()));
            q->Remove(MakeEv(it->first, it->second));
            oracle.erase(it);
        }
        EXPECT_EQ(q->IsEmpty(), oracle.empty());
    }
    while (!oracle.empty())
    {
        EXPECT_EQ(KeyOf(q->RemoveNext()), *oracle.begin());
        oracle.erase(oracle.begin());
        ++removed;
    }
    EXPECT_TRUE(q->IsEmpty());
    return removed;
}

} // namespace

// Events leave by time stamp, then by id, whatever order they were inserted in.
TEST(TimingWheelScheduler, TimeThenIdOrder)
{
    Ptr<TimingWheelScheduler> q = CreateObject<TimingWheelScheduler>();
    EXPECT_TRUE(q->IsEmpty());
    q->Insert(MakeEv(100, 9));
    q->Insert(MakeEv(5, 10));
    q->Insert(MakeEv(100, 11));
    q->Insert(MakeEv(7, 12));
    q->Insert(MakeEv(5, 13));
    const Key expected[] = {{5, 10}, {5, 13}, {7, 12}, {100, 9}, {100, 11}};
    for (const Key& k : expected)
    {
        ASSERT_FALSE(q->IsEmpty());
        EXPECT_EQ(KeyOf(q->PeekNext()), k);
        EXPECT_EQ(KeyOf(q->RemoveNext()), k);
    }
    EXPECT_TRUE(q->IsEmpty());
}

// An event at the current time stamp with a smaller id than one already queued there (only
// a simulator that reuses ids would do it) still leaves in id order.
TEST(TimingWheelScheduler, SameTimeStampSmallerIdGoesFirst)
{
    Ptr<TimingWheelScheduler> q = CreateObject<TimingWheelScheduler>();
    q->Insert(MakeEv(50, 20));
    q->Insert(MakeEv(50, 30));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(50, 20));
    q->Insert(MakeEv(50, 25));
    q->Insert(MakeEv(50, 40));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(50, 25));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(50, 30));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(50, 40));
    EXPECT_TRUE(q->IsEmpty());
}

// An event behind the last one removed (a simulator implementation that inserts behind its
// clock) takes the slow path and still leaves first.
TEST(TimingWheelScheduler, EventBehindTheReferenceStillLeavesInOrder)
{
    Ptr<TimingWheelScheduler> q = CreateObject<TimingWheelScheduler>();
    q->Insert(MakeEv(1000, 4));
    q->Insert(MakeEv(3000, 5));
    q->Insert(MakeEv(1000000, 6));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(1000, 4));
    EXPECT_EQ(KeyOf(q->PeekNext()), Key(3000, 5)); // makes 3000's slot the current one
    q->Insert(MakeEv(2000, 7));
    q->Insert(MakeEv(10, 8));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(10, 8));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(2000, 7));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(3000, 5));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(1000000, 6));
    EXPECT_TRUE(q->IsEmpty());
}

// Remove takes out exactly the named event, wherever it is: at the head, in the current slot
// behind the head, or in a later slot.
TEST(TimingWheelScheduler, RemoveTakesOutTheNamedEvent)
{
    Ptr<TimingWheelScheduler> q = CreateObject<TimingWheelScheduler>();
    const uint64_t at[] = {100, 100, 110, 110, 200, 200}; // slots of 64: 100 and 110 share one
    for (uint32_t i = 0; i < 6; ++i)
    {
        q->Insert(MakeEv(at[i], 4 + i));
    }
    EXPECT_EQ(KeyOf(q->PeekNext()), Key(100, 4));
    q->Remove(MakeEv(100, 5)); // the current slot, behind the head
    q->Remove(MakeEv(200, 8)); // a later slot
    q->Remove(MakeEv(100, 4)); // the head
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(110, 6));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(110, 7));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(200, 9));
    EXPECT_TRUE(q->IsEmpty());
}

// Removing an event that is not queued is a programming error, not a silent no-op.
TEST(TimingWheelSchedulerDeathTest, RemoveOfAnEventNotQueuedStops)
{
    Ptr<TimingWheelScheduler> q = CreateObject<TimingWheelScheduler>();
    q->Insert(MakeEv(100, 4));
    EXPECT_DEATH(q->Remove(MakeEv(100, 5)), "is not queued");
}

// Events beyond the wheel's horizon (4096 slots of 64 time steps) wait in the heap and leave
// in order among the wheel's own, also when they come within reach in the same slot as an
// event inserted later, and when the wheel is empty in between.
TEST(TimingWheelScheduler, EventsBeyondTheHorizonLeaveInOrder)
{
    Ptr<TimingWheelScheduler> q = CreateObject<TimingWheelScheduler>();
    const uint64_t horizon = 4096 * 64;
    q->Insert(MakeEv(3 * horizon + 5, 4)); // far: the heap
    q->Insert(MakeEv(horizon + 70, 5));    // far: the heap
    q->Insert(MakeEv(10, 6));              // the current slot
    q->Insert(MakeEv(horizon - 1, 7));     // the wheel's last slot
    q->Insert(MakeEv(3 * horizon + 5, 8)); // far, the same time stamp as 4
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(10, 6));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(horizon - 1, 7)); // 5 is now within reach
    q->Insert(MakeEv(horizon + 66, 9));                     // the same slot as 5, earlier
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(horizon + 66, 9));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(horizon + 70, 5));
    // the wheel is empty: the next slot is the heap's earliest
    EXPECT_EQ(KeyOf(q->PeekNext()), Key(3 * horizon + 5, 4));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(3 * horizon + 5, 4));
    EXPECT_EQ(KeyOf(q->RemoveNext()), Key(3 * horizon + 5, 8));
    EXPECT_TRUE(q->IsEmpty());
}

// Remove finds an event beyond the horizon too, and the heap keeps its order after it.
TEST(TimingWheelScheduler, RemoveBeyondTheHorizon)
{
    Ptr<TimingWheelScheduler> q = CreateObject<TimingWheelScheduler>();
    for (uint32_t i = 0; i < 8; ++i)
    {
        q->Insert(MakeEv(1000000 + 100000 * (7 - i), 4 + i)); // all far, inserted latest first
    }
    q->Remove(MakeEv(1000000 + 100000 * 3, 8));
    for (uint32_t i = 0; i < 8; ++i)
    {
        if (i != 3)
        {
            EXPECT_EQ(KeyOf(q->RemoveNext()), Key(1000000 + 100000 * i, 11 - i));
        }
    }
    EXPECT_TRUE(q->IsEmpty());
}

// Long random runs as a simulator drives it, at several spreads of delays (all events within
// a few time steps, microseconds, about the wheel's horizon, seconds apart): the same order as
// an ordered set.
TEST(TimingWheelScheduler, RandomRunsMatchAnOrderedSet)
{
    for (uint64_t maxDelay : {3ULL, 1000ULL, 300000ULL, 1000000000ULL})
    {
        for (uint32_t seed = 1; seed <= 5; ++seed)
        {
            EXPECT_GT(RunAgainstOracle(seed, 20000, maxDelay), 5000)
                << "seed " << seed << " maxDelay " << maxDelay;
        }
    }
}
