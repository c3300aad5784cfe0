/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The offload NIC's transmit scheduler: round robin among ready connections, one segment per
// turn, under the three bounds on what the NIC commits towards the wire.

#include "ns3/offload-tx-scheduler.h"

#include <gtest/gtest.h>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

OffloadTxScheduler
Scheduler(uint32_t depth, uint32_t packets, uint64_t bytes)
{
    OffloadTxScheduler s;
    OffloadTxScheduler::Limits l;
    l.pipelineDepth = depth;
    l.queuePackets = packets;
    l.queueBytes = bytes;
    s.SetLimits(l);
    return s;
}

} // namespace

TEST(OffloadTxScheduler, ReadyOnceAndRoundRobinOneSegmentPerTurn)
{
    OffloadTxScheduler s = Scheduler(100, 100, 1000000);
    EXPECT_FALSE(s.HasReady());
    EXPECT_FALSE(s.MayCommit(0, 0)) << "nobody ready: nothing to commit";
    for (uint32_t id : {7u, 3u, 9u, 3u, 7u})
    {
        s.MarkReady(id);
    }
    EXPECT_TRUE(s.IsReady(3));
    EXPECT_FALSE(s.IsReady(4));
    EXPECT_FALSE(s.IsReady(1000)) << "a slot never seen is not ready";
    std::vector<uint32_t> order;
    for (int i = 0; i < 9; ++i)
    {
        ASSERT_TRUE(s.MayCommit(0, 0));
        order.push_back(s.Current());
        s.Advance();
    }
    EXPECT_EQ(order, (std::vector<uint32_t>{7, 3, 9, 7, 3, 9, 7, 3, 9})) << "each once per round";
}

TEST(OffloadTxScheduler, DropCurrentLeavesTheListAndTheRestKeepTheirTurns)
{
    OffloadTxScheduler s = Scheduler(100, 100, 1000000);
    for (uint32_t id : {1u, 2u, 3u, 4u})
    {
        s.MarkReady(id);
    }
    EXPECT_EQ(s.Current(), 1u);
    s.Advance();
    EXPECT_EQ(s.Current(), 2u);
    s.DropCurrent(); // 2 had nothing to send: the last (4) takes its place
    EXPECT_FALSE(s.IsReady(2));
    std::map<uint32_t, int> turns;
    for (int i = 0; i < 30; ++i)
    {
        ++turns[s.Current()];
        s.Advance();
    }
    EXPECT_EQ(turns.count(2), 0u);
    EXPECT_EQ(turns[1], 10);
    EXPECT_EQ(turns[3], 10);
    EXPECT_EQ(turns[4], 10);
    s.MarkReady(2); // ready again: back in the rotation
    EXPECT_TRUE(s.IsReady(2));
    while (s.HasReady())
    {
        s.DropCurrent();
    }
    EXPECT_FALSE(s.MayCommit(0, 0));
}

TEST(OffloadTxScheduler, PipelineDepthBoundsSegmentsInsideTheNic)
{
    OffloadTxScheduler s = Scheduler(2, 100, 1000000);
    s.MarkReady(0);
    s.EnterNic(1500);
    EXPECT_TRUE(s.MayCommit(0, 0));
    s.EnterNic(1500);
    EXPECT_FALSE(s.MayCommit(0, 0)) << "two inside the NIC: the pipeline is full";
    s.LeaveNic(1500);
    EXPECT_TRUE(s.MayCommit(0, 0));
    EXPECT_EQ(s.GetInNic(), 1u);
    EXPECT_EQ(s.GetInNicBytes(), 1500u);
}

TEST(OffloadTxScheduler, PacketsAndBytesCountTheNicAndTheDeviceQueueTogether)
{
    OffloadTxScheduler s = Scheduler(100, 4, 12500); // 10 us at 10 Gbit/s
    s.MarkReady(0);
    EXPECT_TRUE(s.MayCommit(3, 0));
    EXPECT_FALSE(s.MayCommit(4, 0)) << "the device queue alone holds QueuePackets";
    s.EnterNic(64);
    EXPECT_FALSE(s.MayCommit(3, 0)) << "3 queued + 1 inside the NIC";
    s.LeaveNic(64);
    EXPECT_TRUE(s.MayCommit(0, 12499));
    EXPECT_FALSE(s.MayCommit(0, 12500)) << "bytes at the bound";
    s.EnterNic(1500);
    EXPECT_FALSE(s.MayCommit(0, 11000)) << "11000 queued + 1500 inside = 12500";
    EXPECT_TRUE(s.MayCommit(0, 10999));
}
