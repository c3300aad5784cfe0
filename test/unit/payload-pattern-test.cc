/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/payload-pattern.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

std::vector<uint8_t>
Stream(uint32_t flow, uint64_t size)
{
    std::vector<uint8_t> v(size);
    FillPayload(flow, 0, v.data(), v.size());
    return v;
}

} // namespace

TEST(PayloadPattern, FillAtAnyOffsetMatchesWholeStream)
{
    auto whole = Stream(7, 10000);
    for (uint64_t off : {0ULL, 1ULL, 7ULL, 8ULL, 13ULL, 4095ULL, 9990ULL})
    {
        for (size_t len : {size_t(1), size_t(3), size_t(8), size_t(9), size_t(10000 - off)})
        {
            if (off + len > whole.size())
            {
                continue;
            }
            std::vector<uint8_t> part(len);
            FillPayload(7, off, part.data(), len);
            EXPECT_TRUE(std::equal(part.begin(), part.end(), whole.begin() + off))
                << "offset " << off << " len " << len;
        }
    }
}

TEST(PayloadPattern, FlowsDiffer)
{
    auto a = Stream(1, 4096);
    auto b = Stream(2, 4096);
    size_t same = 0;
    for (size_t i = 0; i < a.size(); ++i)
    {
        same += a[i] == b[i];
    }
    EXPECT_LT(same, 64u); // ~16 expected by chance
}

TEST(PayloadVerifier, AcceptsExactStreamInChunks)
{
    auto s = Stream(3, 5000);
    PayloadVerifier v(3, 5000);
    size_t pos = 0;
    for (size_t chunk : {1u, 1447u, 1448u, 100u, 2004u})
    {
        v.Deliver(s.data() + pos, chunk);
        pos += chunk;
    }
    EXPECT_EQ(pos, 5000u);
    EXPECT_TRUE(v.IsComplete());
    EXPECT_EQ(v.GetCorrupt(), 0u);
}

TEST(PayloadVerifier, DetectsReorderDuplicateCorruptionAndShortness)
{
    auto s = Stream(4, 3000);
    {
        PayloadVerifier v(4, 3000); // two chunks swapped
        v.Deliver(s.data() + 1500, 1500);
        v.Deliver(s.data(), 1500);
        EXPECT_FALSE(v.IsComplete());
        EXPECT_GT(v.GetCorrupt(), 0u);
    }
    {
        PayloadVerifier v(4, 3000); // a chunk delivered twice
        v.Deliver(s.data(), 1500);
        v.Deliver(s.data(), 1500);
        v.Deliver(s.data() + 1500, 1500);
        EXPECT_FALSE(v.IsComplete());
        EXPECT_GT(v.GetCorrupt(), 0u);
        EXPECT_EQ(v.GetExcess(), 1500u);
    }
    {
        PayloadVerifier v(4, 3000); // one flipped byte
        auto bad = s;
        bad[2999] ^= 1;
        v.Deliver(bad.data(), bad.size());
        EXPECT_FALSE(v.IsComplete());
        EXPECT_EQ(v.GetCorrupt(), 1u);
    }
    {
        PayloadVerifier v(4, 3000); // short
        v.Deliver(s.data(), 2999);
        EXPECT_FALSE(v.IsComplete());
        EXPECT_EQ(v.GetDelivered(), 2999u);
    }
}

TEST(PayloadVerifier, CountOnlyCompletesAtTheSizeAndFlagsExcess)
{
    // Virtual payload: bytes are counted, not compared; the flow completes at exactly its
    // size, and a chunk past it is excess (a duplicate delivery).
    PayloadVerifier v(7, 10000);
    v.Count(4000);
    EXPECT_FALSE(v.IsComplete());
    v.Count(6000);
    EXPECT_TRUE(v.IsComplete());
    EXPECT_EQ(v.GetDelivered(), 10000u);
    EXPECT_EQ(v.GetCorrupt(), 0u);
    v.Count(1448);
    EXPECT_EQ(v.GetExcess(), 1448u);
    EXPECT_FALSE(v.IsComplete());
}
