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
    const auto dropped = static_cast<uint32_t>(m_waiting.size());
    if (dropped > 0)
    {
        // the first waiting frame was to start when the frame on the wire ends
        m_busyUntil = m_waiting.front().start;
        m_waiting.clear();
        m_bytes = 0;
    }
    return dropped;
}

} // namespace ns3
