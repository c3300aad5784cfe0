/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// HostCoreQueue: first-come first-served host cores, in ns.

#include "ns3/host-core-queue.h"
#include "ns3/presto-input-error.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(HostCoreQueue, OneCoreServesWorkInOrderForItsCyclesAtTheClock)
{
    HostCoreQueue q(1, 2e9); // 2 cycles per ns
    const auto a = q.Submit(7, 2000, 0);
    EXPECT_TRUE(a.accepted);
    EXPECT_EQ(a.startNs, 0);
    EXPECT_EQ(a.doneNs, 1000);
    const auto b = q.Submit(7, 1000, 100); // waits for a
    EXPECT_EQ(b.startNs, 1000);
    EXPECT_EQ(b.doneNs, 1500);
    const auto c = q.Submit(7, 200, 5000); // idle core: at once
    EXPECT_EQ(c.startNs, 5000);
    EXPECT_EQ(c.doneNs, 5100);
    EXPECT_EQ(q.GetTotalWaitNs(), 900);
    EXPECT_EQ(q.GetMaxWaitNs(), 900);
    EXPECT_EQ(q.GetBusyNs(0), 1600);
    EXPECT_DOUBLE_EQ(q.GetCycles(), 3200);
    EXPECT_EQ(q.GetAccepted(), 3u);
}

TEST(HostCoreQueue, AFlowStaysOnOneCoreAndFlowsSpreadOverTheCores)
{
    HostCoreQueue q(8, 1e9);
    std::vector<uint32_t> perCore(8, 0);
    for (uint64_t flow = 0; flow < 8000; ++flow)
    {
        const auto s1 = q.Submit(flow, 1, 0);
        const auto s2 = q.Submit(flow, 1, 0);
        EXPECT_EQ(s1.core, s2.core);
        ++perCore[s1.core];
    }
    for (uint32_t n : perCore)
    {
        EXPECT_GT(n, 800u); // 1000 expected per core
        EXPECT_LT(n, 1200u);
    }
}

TEST(HostCoreQueue, EarliestFreeBalancesWhereTheHashWouldQueue)
{
    HostCoreQueue q(4, 1e9);
    for (int i = 0; i < 4; ++i)
    {
        const auto s = q.Submit(1, 1000, 0, HOST_CORE_EARLIEST_FREE);
        EXPECT_EQ(s.core, static_cast<uint32_t>(i)); // each on an idle core
        EXPECT_EQ(s.startNs, 0);
    }
    const auto fifth = q.Submit(1, 1000, 0, HOST_CORE_EARLIEST_FREE);
    EXPECT_EQ(fifth.startNs, 1000);
    HostCoreQueue h(4, 1e9);
    for (int i = 0; i < 4; ++i)
    {
        h.Submit(1, 1000, 0); // one flow: one core, one after the other
    }
    EXPECT_EQ(h.GetMaxWaitNs(), 3000);
}

TEST(HostCoreQueue, ABoundedPieceIsRefusedAtAFullBacklogAndAcceptedOnceItDrains)
{
    HostCoreQueue q(1, 1e9, 3);
    for (int i = 0; i < 3; ++i)
    {
        EXPECT_TRUE(q.Submit(1, 100, 0, HOST_CORE_FLOW_HASH, true).accepted);
    }
    EXPECT_FALSE(q.Submit(1, 100, 0, HOST_CORE_FLOW_HASH, true).accepted);
    EXPECT_EQ(q.GetRefused(), 1u);
    // unbounded work (a send, the application) is never refused, and not in the backlog
    EXPECT_TRUE(q.Submit(1, 100, 0).accepted);
    // at 250 ns two received pieces are done (at 100 and 200), one remains (300): room for
    // two more
    EXPECT_TRUE(q.Submit(1, 100, 250, HOST_CORE_FLOW_HASH, true).accepted);
    EXPECT_TRUE(q.Submit(1, 100, 250, HOST_CORE_FLOW_HASH, true).accepted);
    EXPECT_FALSE(q.Submit(1, 100, 250, HOST_CORE_FLOW_HASH, true).accepted);
    EXPECT_EQ(q.GetRefused(), 2u);
}

TEST(HostCoreQueue, ACoreCapsThroughputAtClockOverCyclesPerPiece)
{
    // offered faster than a core serves: the core's rate is clock / cycles
    HostCoreQueue q(1, 2.5e9);
    const double cycles = 3730;
    int64_t done = 0;
    const int n = 100000;
    for (int i = 0; i < n; ++i)
    {
        done = q.Submit(1, cycles, i * 100).doneNs; // offered at 10 M/s
    }
    const double rate = n / (done * 1e-9);
    EXPECT_NEAR(rate, 2.5e9 / cycles, 2.5e9 / cycles * 0.001);
}

TEST(HostCoreQueue, RefusesNoCoresAndABadClock)
{
    EXPECT_THROW(HostCoreQueue(0, 1e9), PrestoInputError);
    EXPECT_THROW(HostCoreQueue(1, 0), PrestoInputError);
    EXPECT_THROW(HostCoreQueue(1, -1), PrestoInputError);
}

TEST(HostCoreQueue, BusyTimeUntilATimeLeavesOutWorkReservedBeyondIt)
{
    HostCoreQueue q(1, 1e9);
    q.Submit(1, 1000, 0);    // 0..1000
    q.Submit(1, 1000, 2000); // 2000..3000
    q.Submit(1, 1000, 2500); // 3000..4000
    EXPECT_EQ(q.GetBusyNsUntil(0, 5000), 3000);
    EXPECT_EQ(q.GetBusyNsUntil(0, 3500), 2500);
    EXPECT_EQ(q.GetBusyNsUntil(0, 2500), 1500);
}
