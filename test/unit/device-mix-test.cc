/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/device-mix.h"

#include <gtest/gtest.h>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{
const std::vector<std::string> kValid = {"host-tcp", "presto", "flextoe", "cora"};
}

TEST(DeviceMix, ParsesSharesInOrder)
{
    const auto m = ParseDeviceMix("presto:0.25,host-tcp:0.5,cora:0.25", kValid);
    ASSERT_EQ(m.size(), 3u);
    EXPECT_EQ(m[0].device, "presto");
    EXPECT_EQ(m[1].fraction, 0.5);
    EXPECT_EQ(m[2].device, "cora");
}

TEST(DeviceMix, BlocksByLargestRemainder)
{
    const auto half = ParseDeviceMix("presto:0.5,host-tcp:0.5", kValid);
    EXPECT_EQ(AssignDeviceMix(half, 8, "hosts"), (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
    EXPECT_EQ(AssignDeviceMix(half, 3, "hosts"), (std::vector<uint32_t>{0, 0, 1})); // tie: first
    const auto third = ParseDeviceMix("presto:0.3,flextoe:0.3,host-tcp:0.4", kValid);
    // 3, 3, 4 of 10; 2.1, 2.1, 2.8 of 7 -> 2, 2, 3
    EXPECT_EQ(AssignDeviceMix(third, 10, "hosts"),
              (std::vector<uint32_t>{0, 0, 0, 1, 1, 1, 2, 2, 2, 2}));
    EXPECT_EQ(AssignDeviceMix(third, 7, "hosts"), (std::vector<uint32_t>{0, 0, 1, 1, 2, 2, 2}));
    EXPECT_TRUE(Contains(ErrorOf([&] { AssignDeviceMix(third, 2, "leaves"); }),
                         {"2 leaves gives it none"}));
}

TEST(DeviceMix, BadValuesAreRefusedByName)
{
    auto error = [](const std::string& text) {
        return ErrorOf([&] { ParseDeviceMix(text, kValid); });
    };
    EXPECT_TRUE(Contains(error("presto"), {"--mix=presto", "not device:fraction"}));
    EXPECT_TRUE(Contains(error("smartnic:0.5,presto:0.5"),
                         {"unknown device 'smartnic'", "host-tcp, presto, flextoe, cora"}));
    EXPECT_TRUE(Contains(error("presto:0.5,presto:0.5"), {"named twice"}));
    EXPECT_TRUE(Contains(error("presto:half,host-tcp:0.5"), {"fraction 'half'"}));
    EXPECT_TRUE(Contains(error("presto:0,host-tcp:1"), {"fraction '0'"}));
    EXPECT_TRUE(Contains(error("presto:1"), {"at least two devices"}));
    EXPECT_TRUE(Contains(error("presto:0.5,host-tcp:0.4"), {"sum to 0.9"}));
    EXPECT_TRUE(Contains(error("presto:0.5,host-tcp:0.5,"), {"empty item"}));
}
