/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-link-queue.h"

#include <algorithm>

namespace ns3
{

void
FabricLinkQueue::Expire(int64_t now)
{
    while (!m_waiting.empty() && m_waiting.front().start <= now)
    {
        m_bytes -= m_waiting.front().bytes;
        m_waiting.pop_front();
    }
}

bool
FabricLinkQueue::Admits(uint32_t bytes, uint64_t maxBytes, uint64_t maxPackets) const
{
    if (maxBytes > 0 && m_bytes + bytes > maxBytes)
    {
        return false;
    }
    return maxPackets == 0 || m_waiting.size() + 1 <= maxPackets;
}

int64_t
FabricLinkQueue::Enqueue(int64_t now, uint32_t bytes, int64_t txTime)
{
    const int64_t start = std::max(now, m_busyUntil);
    m_busyUntil = start + txTime;
    if (start > now)
    {
        m_waiting.push_back({start, bytes});
        m_bytes += bytes;
    }
    return start;
}

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
