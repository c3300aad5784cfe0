/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/packet-buffer-primer.h"
#include "ns3/packet.h"

#include <array>
#include <cstdint>
#include <gtest/gtest.h>

using namespace ns3;

TEST(PacketBufferPrimer, UsesNoPacketUidsAndLeavesPacketsAsTheyWere)
{
    // ns-3 numbers every packet created; priming must not shift the numbers packets get
    // afterwards (logs, traces and error models name packets by uid)
    const uint64_t before = Create<Packet>()->GetUid();
    PrimePacketBufferFreeList();
    PrimePacketBufferFreeList(); // a second call does nothing
    std::array<uint8_t, 60> header{};
    for (uint32_t i = 0; i < header.size(); ++i)
    {
        header[i] = static_cast<uint8_t>(i * 7 + 1);
    }
    Ptr<Packet> p = Create<Packet>(header.data(), header.size());
    EXPECT_EQ(p->GetUid(), before + 1);
    // a packet made on a primed area holds exactly its bytes
    std::array<uint8_t, 60> back{};
    ASSERT_EQ(p->CopyData(back.data(), back.size()), header.size());
    EXPECT_EQ(back, header);
    EXPECT_EQ(p->GetSize(), header.size());
}
