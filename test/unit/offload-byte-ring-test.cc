/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/offload-byte-ring.h"

#include <gtest/gtest.h>
#include <map>
#include <random>
#include <vector>

using namespace ns3;

TEST(OffloadByteRing, RandomWritesReadsAndAdvancesMatchAFlatModel)
{
    // A flat model of the sequence space next to the ring: out-of-order writes anywhere in
    // the window, reads anywhere, advances of any length, across the 2^32 wrap.
    for (uint32_t capacity : {1u, 1000u, 4096u, 65536u})
    {
        std::mt19937 rng(capacity);
        const uint32_t start = 0xffff0000u;
        OffloadByteRing ring(capacity, start);
        std::map<uint32_t, uint8_t> model; // offset from start -> byte
        uint64_t head = 0;                 // bytes advanced
        for (int step = 0; step < 3000; ++step)
        {
            const uint32_t off = static_cast<uint32_t>(rng() % capacity);
            const uint32_t len = static_cast<uint32_t>(rng() % (capacity - off + 1));
            const uint32_t seq = static_cast<uint32_t>(start + head + off);
            switch (rng() % 3)
            {
            case 0: {
                std::vector<uint8_t> data(len);
                for (auto& b : data)
                {
                    b = static_cast<uint8_t>(rng());
                }
                ASSERT_TRUE(ring.Write(seq, data.data(), len));
                for (uint32_t i = 0; i < len; ++i)
                {
                    model[static_cast<uint32_t>(head + off + i)] = data[i];
                }
                break;
            }
            case 1: {
                std::vector<uint8_t> out(len, 0xee);
                ASSERT_TRUE(ring.Read(seq, out.data(), len));
                for (uint32_t i = 0; i < len; ++i)
                {
                    auto it = model.find(static_cast<uint32_t>(head + off + i));
                    ASSERT_EQ(out[i], it == model.end() ? 0 : it->second)
                        << "capacity " << capacity << " step " << step << " byte " << i;
                }
                break;
            }
            default: {
                const uint32_t n = static_cast<uint32_t>(rng() % (capacity + 1));
                ring.Advance(n);
                for (uint32_t i = 0; i < n; ++i)
                {
                    model.erase(static_cast<uint32_t>(head + i));
                }
                head += n;
                EXPECT_EQ(ring.GetHead(), static_cast<uint32_t>(start + head));
                break;
            }
            }
            // memory follows use: never more pages than the window spans
            EXPECT_LE(ring.GetAllocatedBytes(),
                      (capacity / OffloadByteRing::PAGE_BYTES + 2) * OffloadByteRing::PAGE_BYTES);
        }
        // outside the window is refused
        uint8_t b = 0;
        EXPECT_FALSE(ring.Write(static_cast<uint32_t>(start + head + capacity), &b, 1));
        EXPECT_FALSE(ring.Read(static_cast<uint32_t>(start + head - 1), &b, 1));
    }
}

TEST(OffloadByteRing, AnIdleRingHoldsNoMemory)
{
    OffloadByteRing ring(256 * 1024, 7);
    EXPECT_EQ(ring.GetAllocatedBytes(), 0u) << "nothing allocated up front";
    std::vector<uint8_t> msg(100, 0x5a);
    ASSERT_TRUE(ring.Write(7, msg.data(), 100));
    EXPECT_EQ(ring.GetAllocatedBytes(), OffloadByteRing::PAGE_BYTES) << "one small message";
    ring.Advance(100);
    EXPECT_EQ(ring.GetAllocatedBytes(), OffloadByteRing::PAGE_BYTES) << "head still in page";
    ASSERT_TRUE(ring.Write(107, msg.data(), 100));
    ring.Advance(2000);
    EXPECT_EQ(ring.GetAllocatedBytes(), 0u) << "the head passed every written page";
}
