/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// PrestoRackPipeline: one rack switch's pipeline shared by its hosts.

#include "ns3/presto-input-error.h"
#include "ns3/presto-rack-pipeline.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(PrestoRackPipeline, HostsShareOnePacketRate)
{
    PrestoRackPipeline rack(4);
    RmtPipeSlots::Config cfg;
    int a = 0;
    int b = 0;
    RmtPipeSlots& first = rack.Join(cfg, 4, &a);
    RmtPipeSlots& second = rack.Join(cfg, 4, &b);
    EXPECT_EQ(&first, &second);
    EXPECT_EQ(rack.GetMembers(), 2u);
    EXPECT_TRUE(rack.IsReporter(&a));
    EXPECT_FALSE(rack.IsReporter(&b));
    // one pipe: a second packet at the same instant waits for the first's slot
    EXPECT_EQ(first.Take(0, 1), 0);
    EXPECT_GT(second.Take(0, 1), 0);
}

TEST(PrestoRackPipeline, ConnectionSlotsAreTheRacks)
{
    PrestoRackPipeline rack(3);
    EXPECT_TRUE(rack.Reserve());
    EXPECT_TRUE(rack.Reserve());
    EXPECT_TRUE(rack.Reserve());
    EXPECT_FALSE(rack.Reserve()); // the fourth, from whichever host
    EXPECT_EQ(rack.GetRefused(), 1u);
    rack.Release();
    EXPECT_TRUE(rack.Reserve());
    EXPECT_EQ(rack.GetInUse(), 3u);
    EXPECT_EQ(rack.GetInUseMax(), 3u);
}

TEST(PrestoRackPipeline, OneScanWalksEveryHostsSlots)
{
    PrestoRackPipeline rack(100);
    rack.GrowScanRange(10);
    rack.GrowScanRange(5);
    EXPECT_EQ(rack.GetScanRange(), 15u);
}

TEST(PrestoRackPipeline, RefusesDifferentHardware)
{
    PrestoRackPipeline rack(8);
    RmtPipeSlots::Config cfg;
    int a = 0;
    rack.Join(cfg, 8, &a);
    RmtPipeSlots::Config faster = cfg;
    faster.pipes = 2;
    EXPECT_THROW(rack.Join(faster, 8, &a), PrestoInputError);
    EXPECT_THROW(rack.Join(cfg, 16, &a), PrestoInputError);
    EXPECT_THROW(PrestoRackPipeline(0), PrestoInputError);
}
