/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/cc-ablation.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(CcAblation, ShapleySplitWhenBothRunBothAlgorithms)
{
    // flextoe runs rate DCTCP natively, presto window DCTCP; each also ran the other's.
    AblationTable t = {{{"flextoe", "dctcp-rate"}, 10},
                       {{"flextoe", "dctcp"}, 30},
                       {{"presto", "dctcp"}, 25},
                       {{"presto", "dctcp-rate"}, 8}};
    const auto s = SplitDifferences(t,
                                    {"flextoe", "presto"},
                                    {{"flextoe", "dctcp-rate"}, {"presto", "dctcp"}});
    ASSERT_EQ(s.size(), 1u);
    EXPECT_DOUBLE_EQ(s[0].total, 10 - 25);
    // design: mean of (10 - 8) at dctcp-rate and (30 - 25) at dctcp
    EXPECT_DOUBLE_EQ(s[0].design, (2.0 + 5.0) / 2);
    EXPECT_DOUBLE_EQ(s[0].cc, -15 - 3.5);
    EXPECT_DOUBLE_EQ(s[0].design + s[0].cc, s[0].total);
    // the cc part is also the mean of each design's own cc effect (the other order)
    EXPECT_DOUBLE_EQ(s[0].cc, ((10 - 30) + (8 - 25)) / 2.0);
    EXPECT_EQ(s[0].at, (std::vector<std::string>{"dctcp-rate", "dctcp"}));
}

TEST(CcAblation, OneSidedWhenADesignCannotRunTheOthersAlgorithm)
{
    // host-tcp has no rate-based DCTCP: the design part is taken at window DCTCP only.
    AblationTable t = {{{"flextoe", "dctcp-rate"}, 12},
                       {{"flextoe", "dctcp"}, 28},
                       {{"host-tcp", "dctcp"}, 60}};
    const auto s = SplitDifferences(t,
                                    {"flextoe", "host-tcp"},
                                    {{"flextoe", "dctcp-rate"}, {"host-tcp", "dctcp"}});
    ASSERT_EQ(s.size(), 1u);
    EXPECT_DOUBLE_EQ(s[0].total, -48);
    EXPECT_DOUBLE_EQ(s[0].design, 28 - 60);
    EXPECT_DOUBLE_EQ(s[0].cc, -16);
    EXPECT_EQ(s[0].at, (std::vector<std::string>{"dctcp"}));
}

TEST(CcAblation, SameNativeIsAllDesignAndMissingRunsAreLeftOut)
{
    AblationTable t = {{{"a", "dctcp"}, 5}, {{"b", "dctcp"}, 9}, {{"c", "newreno"}, 1}};
    const auto s =
        SplitDifferences(t, {"a", "b", "c"}, {{"a", "dctcp"}, {"b", "dctcp"}, {"c", "dctcp"}});
    ASSERT_EQ(s.size(), 1u) << "c's native run is missing";
    EXPECT_EQ(s[0].a, "a");
    EXPECT_DOUBLE_EQ(s[0].design, -4);
    EXPECT_DOUBLE_EQ(s[0].cc, 0);
    EXPECT_EQ(s[0].at.size(), 1u);
    const std::string text = FormatAblation("p99", t, {"a", "b", "c"}, {"dctcp", "newreno"}, s);
    EXPECT_NE(text.find("a (dctcp) - b (dctcp)"), std::string::npos) << text;
    EXPECT_NE(text.find("-4.00 ="), std::string::npos) << text;
    EXPECT_EQ(AblationCsv(s),
              "a,b,cc_a,cc_b,total,from_design,from_cc,design_at\n"
              "a,b,dctcp,dctcp,-4,-4,0,dctcp\n");
}
