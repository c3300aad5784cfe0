/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fabric-link-queue.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

// An idle link puts the frame on the wire at once: nothing waits, the link is busy until
// now + txTime.
TEST(FabricLinkQueue, IdleLinkStartsNow)
{
    FabricLinkQueue q;
    q.Expire(100);
    EXPECT_EQ(q.Enqueue(100, 1502, 1200), 100);
    EXPECT_EQ(q.GetBusyUntil(), 1300);
    EXPECT_EQ(q.GetPackets(), 0u);
    EXPECT_EQ(q.GetBytes(), 0u);
    EXPECT_EQ(q.GetNextStart(), -1);
}

// Back-to-back frames start one after the other; only those not yet started count.
TEST(FabricLinkQueue, FramesQueueBehindTheWire)
{
    FabricLinkQueue q;
    EXPECT_EQ(q.Enqueue(0, 1000, 100), 0);
    EXPECT_EQ(q.Enqueue(0, 500, 50), 100);
    EXPECT_EQ(q.Enqueue(10, 200, 20), 150);
    EXPECT_EQ(q.GetBusyUntil(), 170);
    EXPECT_EQ(q.GetPackets(), 2u);
    EXPECT_EQ(q.GetBytes(), 700u);
    EXPECT_EQ(q.GetNextStart(), 100);
    // a frame whose start has come is on the wire, not in the queue (as PointToPointNetDevice)
    q.Expire(99);
    EXPECT_EQ(q.GetPackets(), 2u);
    q.Expire(100);
    EXPECT_EQ(q.GetPackets(), 1u);
    EXPECT_EQ(q.GetBytes(), 200u);
    q.Expire(1000);
    EXPECT_EQ(q.GetPackets(), 0u);
    EXPECT_EQ(q.GetBytes(), 0u);
    // after the link went idle, the next frame starts when it comes
    EXPECT_EQ(q.Enqueue(1000, 100, 10), 1000);
}

// The link never idles while frames wait: each start is the previous end.
TEST(FabricLinkQueue, DeparturesAreWorkConserving)
{
    FabricLinkQueue q;
    int64_t end = 0;
    for (int i = 0; i < 50; ++i)
    {
        const int64_t now = i * 7; // arrivals faster than the 10-step transmissions
        q.Expire(now);
        const int64_t start = q.Enqueue(now, 100, 10);
        EXPECT_EQ(start, std::max<int64_t>(now, end));
        end = start + 10;
    }
    EXPECT_EQ(q.GetBusyUntil(), end);
}

// Limits in bytes and in packets, as a drop-tail queue's MaxSize, the frame on the wire
// excluded.
TEST(FabricLinkQueue, AdmissionByBytesAndPackets)
{
    FabricLinkQueue q;
    q.Enqueue(0, 1000, 100); // on the wire
    EXPECT_TRUE(q.Admits(1000, 1000, 0));
    q.Enqueue(0, 1000, 100); // waits
    EXPECT_FALSE(q.Admits(1, 1000, 0));
    EXPECT_TRUE(q.Admits(500, 1500, 0));
    EXPECT_FALSE(q.Admits(501, 1500, 0));
    EXPECT_TRUE(q.Admits(1, 0, 2));
    q.Enqueue(0, 10, 1);
    EXPECT_FALSE(q.Admits(1, 0, 2));
    EXPECT_TRUE(q.Admits(1, 0, 0)); // no limit
    q.Expire(100);                  // the second frame took the wire
    EXPECT_TRUE(q.Admits(1, 0, 2));
}

// Flush drops the waiting frames; the frame on the wire still ends when it was to end.
TEST(FabricLinkQueue, FlushKeepsTheFrameOnTheWire)
{
    FabricLinkQueue q;
    q.Enqueue(0, 100, 100);
    q.Enqueue(0, 100, 100);
    q.Enqueue(0, 100, 100);
    EXPECT_EQ(q.Flush(50), 2u);
    EXPECT_EQ(q.GetPackets(), 0u);
    EXPECT_EQ(q.GetBytes(), 0u);
    EXPECT_EQ(q.GetBusyUntil(), 100);
    EXPECT_EQ(q.Enqueue(60, 100, 100), 100);
    // nothing waiting: nothing to drop, nothing changes
    EXPECT_EQ(q.Flush(500), 0u);
    EXPECT_EQ(q.GetBusyUntil(), 200);
}

// Many frames waiting, and the queue's storage wrapping around as frames start and new ones
// wait: the count, the bytes and the next start stay those of the frames still waiting.
TEST(FabricLinkQueue, LongQueuesAndWrapAround)
{
    FabricLinkQueue q;
    uint64_t bytes = 0;
    // 1 + 99 frames of 10 steps each, sizes 1..100: the first goes on the wire at once
    for (uint32_t i = 1; i <= 100; ++i)
    {
        q.Enqueue(0, i, 10);
        bytes += i > 1 ? i : 0;
    }
    EXPECT_EQ(q.GetPackets(), 99u);
    EXPECT_EQ(q.GetBytes(), bytes);
    EXPECT_EQ(q.GetNextStart(), 10);
    // time 505: frames 2..51 (starts 10..500) have started
    q.Expire(505);
    EXPECT_EQ(q.GetPackets(), 49u);
    EXPECT_EQ(q.GetBytes(), bytes - (2 + 51) * 50 / 2);
    EXPECT_EQ(q.GetNextStart(), 510);
    // then waves of new frames while old ones start: the ring wraps many times
    int64_t now = 505;
    for (uint32_t wave = 0; wave < 50; ++wave)
    {
        for (uint32_t i = 0; i < 7; ++i)
        {
            q.Enqueue(now, 1000, 10);
        }
        now += 70;
        q.Expire(now);
    }
    // busy until: 1,000 (the first 100 frames) + 350 x 10; waiting: the new frames (starts
    // 1,000, 1,010, ...) that start after now
    EXPECT_EQ(q.GetBusyUntil(), 1000 + 3500);
    uint32_t waiting = 0;
    for (int64_t start = 1000; start < 4500; start += 10)
    {
        waiting += start > now ? 1 : 0;
    }
    EXPECT_EQ(q.GetPackets(), waiting);
    EXPECT_EQ(q.GetNextStart(), 4500 - 10 * int64_t{waiting});
    EXPECT_EQ(q.GetBytes(), uint64_t{q.GetPackets()} * 1000);
    EXPECT_EQ(q.Flush(now), waiting);
    EXPECT_EQ(q.GetPackets(), 0u);
}

// The storage grows while it has wrapped around: the frames still leave in start order, each
// with its own size.
TEST(FabricLinkQueue, GrowingAfterWrapKeepsTheOrder)
{
    FabricLinkQueue q;
    std::vector<uint32_t> sizes; // of the waiting frames, in start order
    q.Enqueue(0, 1, 10);         // on the wire at once
    for (uint32_t k = 0; k < 10; ++k)
    {
        q.Enqueue(0, 100 + k, 10); // starts 10, 20, ..., 100
        sizes.push_back(100 + k);
    }
    q.Expire(80); // eight have started: the first waiting frame is no longer the first stored
    sizes.erase(sizes.begin(), sizes.begin() + 8);
    for (uint32_t k = 10; k < 60; ++k)
    {
        q.Enqueue(80, 100 + k, 10); // wraps around, then grows (several times)
        sizes.push_back(100 + k);
    }
    int64_t start = 90;
    while (!sizes.empty())
    {
        uint64_t bytes = 0;
        for (uint32_t s : sizes)
        {
            bytes += s;
        }
        ASSERT_EQ(q.GetPackets(), sizes.size());
        EXPECT_EQ(q.GetBytes(), bytes);
        EXPECT_EQ(q.GetNextStart(), start);
        q.Expire(start);
        sizes.erase(sizes.begin());
        start += 10;
    }
    EXPECT_EQ(q.GetPackets(), 0u);
    EXPECT_EQ(q.GetBytes(), 0u);
}
