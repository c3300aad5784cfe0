/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-link-queue.h"

namespace ns3
{

uint32_t
FabricLinkQueue::Flush(int64_t now)
{
    Expire(now);
    const uint32_t dropped = m_count;
    if (dropped > 0)
    {
        // the first waiting frame was to start when the frame on the wire ends
        m_busyUntil = m_ring[m_head].start;
        m_head = 0;
        m_count = 0;
        m_bytes = 0;
    }
    return dropped;
}

void
FabricLinkQueue::Grow()
{
    // a power of 2, so that an index wraps with a mask
    std::vector<Waiting> bigger(m_ring.empty() ? 16 : 2 * m_ring.size());
    for (uint32_t i = 0; i < m_count; ++i)
    {
        bigger[i] = m_ring[(m_head + i) & (m_ring.size() - 1)];
    }
    m_ring.swap(bigger);
    m_head = 0;
}

} // namespace ns3
