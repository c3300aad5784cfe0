/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "packet-buffer-primer.h"

#include "ns3/packet.h"

#include <array>
#include <vector>

namespace ns3
{

void
PrimePacketBufferFreeList()
{
    static bool primed = false;
    if (primed)
    {
        return;
    }
    primed = true;
    static const std::array<uint8_t, PrimedBufferBytes> zeros{};
    std::vector<Ptr<Packet>> held;
    held.reserve(PrimedBuffers);
    for (uint32_t i = 0; i < PrimedBuffers; ++i)
    {
        held.push_back(Create<Packet>(zeros.data(), PrimedBufferBytes));
    }
    // held goes out of scope: every area returns to the free list together
}

} // namespace ns3
