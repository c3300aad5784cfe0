/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fabric-link-queue.h"

#include <gtest/gtest.h>

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
