/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "packet-buffer-primer.h"

#include "ns3/buffer.h"

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
    // Bare Buffers, not Packets: no packet uids used up (ns-3's uids number every packet
    // created), and no packet-metadata state touched (a Packet made from bytes with metadata
    // off would later forbid Packet::EnablePrinting).
    std::vector<Buffer> held;
    held.reserve(PrimedBuffers);
    for (uint32_t i = 0; i < PrimedBuffers; ++i)
    {
        held.emplace_back();
        held.back().AddAtStart(PrimedBufferBytes);
    }
    // held goes out of scope: every area returns to the free list together
}

} // namespace ns3
