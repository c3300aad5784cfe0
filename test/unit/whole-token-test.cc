/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/whole-token.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <string>

using namespace ns3;

namespace
{
/// \return true if text parses as T (value in out), the reason in why otherwise
template <typename T>
bool
Reads(const std::string& text, T& out, std::string& why)
{
    why.clear();
    return WholeToken::Parse(text, out, why);
}
} // namespace

// The cases ns-3's CommandLine truncated or wrapped (issue 35): each refused, with a reason.
TEST(WholeToken, TruncationsAndWrapsAreRefused)
{
    std::string why;
    uint32_t u = 7;
    for (const char* bad : {"1e5",
                            "3.9",
                            "-1",
                            "+1",
                            "0x10",
                            "1,2,3",
                            "7abc",
                            "10Gbps",
                            "",
                            " 4",
                            "4 ",
                            "1e9x",
                            "4294967296"})
    {
        EXPECT_FALSE(Reads(bad, u, why)) << bad;
        EXPECT_FALSE(why.empty()) << bad;
        EXPECT_EQ(u, 7u) << bad << ": the variable keeps its value";
    }
    EXPECT_FALSE(Reads(std::string("200\0 1", 6), u, why));
    EXPECT_NE(why.find("NUL"), std::string::npos);
    double d = 1.5;
    for (const char* bad :
         {"0x10", "1,2,3", "10Gbps", "nan", "inf", "-inf", "1e999", "", ".", "e5", "1e", "1..2"})
    {
        EXPECT_FALSE(Reads(bad, d, why)) << bad;
        EXPECT_EQ(d, 1.5) << bad;
    }
    int32_t i = 3;
    EXPECT_FALSE(Reads("2147483648", i, why));
    EXPECT_FALSE(Reads("-2147483649", i, why));
    EXPECT_NE(why.find("smallest"), std::string::npos) << why;
    bool b = false;
    EXPECT_FALSE(Reads("yes", b, why));
    EXPECT_FALSE(Reads("2", b, why));
}

// What a number is: the whole token, in range, written as people write it.
TEST(WholeToken, WholeTokensAreRead)
{
    std::string why;
    uint32_t u = 0;
    EXPECT_TRUE(Reads("100000", u, why));
    EXPECT_EQ(u, 100000u);
    EXPECT_TRUE(Reads("4294967295", u, why));
    EXPECT_EQ(u, std::numeric_limits<uint32_t>::max());
    uint64_t big = 0;
    EXPECT_TRUE(Reads("18446744073709551615", big, why));
    EXPECT_EQ(big, std::numeric_limits<uint64_t>::max());
    EXPECT_FALSE(Reads("18446744073709551616", big, why));
    uint16_t port = 0;
    EXPECT_TRUE(Reads("65535", port, why));
    EXPECT_FALSE(Reads("65536", port, why));
    int64_t s = 0;
    EXPECT_TRUE(Reads("-9223372036854775808", s, why));
    EXPECT_EQ(s, std::numeric_limits<int64_t>::min());
    EXPECT_TRUE(Reads("-0", s, why));
    EXPECT_EQ(s, 0);
    double d = 0;
    for (const auto& [text, value] :
         std::initializer_list<std::pair<const char*, double>>{{"0.1", 0.1},
                                                               {"1e-3", 1e-3},
                                                               {"-2.5E2", -250},
                                                               {".5", 0.5},
                                                               {"5.", 5},
                                                               {"+3", 3},
                                                               {"1e5", 1e5}})
    {
        EXPECT_TRUE(Reads(text, d, why)) << text << ": " << why;
        EXPECT_DOUBLE_EQ(d, value) << text;
    }
    bool b = false;
    EXPECT_TRUE(Reads("true", b, why));
    EXPECT_TRUE(b);
    EXPECT_TRUE(Reads("0", b, why));
    EXPECT_FALSE(b);
    EXPECT_TRUE(Reads("", b, why)); // a bare --flag
    EXPECT_TRUE(b);
    std::string str;
    EXPECT_TRUE(Reads("any text, 1e5", str, why));
    EXPECT_EQ(str, "any text, 1e5");
}

// The readers the input files add: a bound of the field's own, seconds to exact ns, rates and
// durations with a unit.
TEST(WholeToken, FieldReaders)
{
    std::string why;
    uint64_t v = 7;
    EXPECT_TRUE(WholeToken::Parse("65535", 65535, v, why));
    EXPECT_EQ(v, 65535u);
    EXPECT_FALSE(WholeToken::Parse("65536", 65535, v, why));
    EXPECT_EQ(why, "is above the largest value, 65535");
    EXPECT_FALSE(WholeToken::Parse("7", 3, v, why)) << "a digit above a small bound";
    EXPECT_FALSE(WholeToken::Parse(std::string("200\0 1", 6), 1000, v, why));
    EXPECT_EQ(why, "holds a NUL byte");

    int64_t ns = 0;
    for (const auto& [text, want] :
         std::initializer_list<std::pair<const char*, int64_t>>{{"2.000000100", 2000000100},
                                                                {"0.000415046", 415046},
                                                                {"0.0000000016", 2},
                                                                {"0.00000000149", 1},
                                                                {".25", 250000000},
                                                                {"5.", 5000000000},
                                                                {"1e-3", 1000000},
                                                                {"-0.5", -500000000},
                                                                {"1000000", 1000000000000000}})
    {
        EXPECT_TRUE(WholeToken::ParseSeconds(text, 1000000, ns, why)) << text << ": " << why;
        EXPECT_EQ(ns, want) << text;
    }
    for (const char* bad : {"0x10", "1e7", "1000000.000000001", "nan", "inf", "1,5", "", "."})
    {
        EXPECT_FALSE(WholeToken::ParseSeconds(bad, 1000000, ns, why)) << bad;
    }
    EXPECT_FALSE(WholeToken::ParseSeconds(std::string("0.00\0"
                                                      "0415046",
                                                      12),
                                          1000000,
                                          ns,
                                          why));
    EXPECT_EQ(why, "holds a NUL byte");

    double bps = 0;
    EXPECT_TRUE(WholeToken::ParseRate("10Gbps", bps, why)) << why;
    EXPECT_EQ(bps, 1e10);
    EXPECT_TRUE(WholeToken::ParseRate("2.5e1Gb/s", bps, why)) << why;
    EXPECT_EQ(bps, 25e9);
    for (const char* bad : {"1.2.3Gbps",
                            "0x10Gbps",
                            "10",
                            "Gbps",
                            "10Gbpx",
                            "0Gbps",
                            "-1Gbps",
                            "nanGbps",
                            "1e30Gbps"})
    {
        EXPECT_FALSE(WholeToken::ParseRate(bad, bps, why)) << bad;
    }
    EXPECT_TRUE(WholeToken::ParseDuration("0.001ms", 1000000, ns, why)) << why;
    EXPECT_EQ(ns, 1000);
    EXPECT_TRUE(WholeToken::ParseDuration("1e3ns", 1000000, ns, why)) << why;
    EXPECT_EQ(ns, 1000);
    for (const char* bad : {"1", "1.5.5us", "0x10us", "-1us", "2ms", "1 us", "us"})
    {
        EXPECT_FALSE(WholeToken::ParseDuration(bad, 1000000, ns, why)) << bad;
    }
}
