/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-connection-table.h"

#include "offload-socket.h" // an entry's state holds its sockets

namespace ns3
{

uint32_t
OffloadConnectionTable::Allocate(uint32_t max)
{
    if (m_free.empty() && m_entries.size() < max)
    {
        // std::deque keeps references to existing entries valid as it grows
        m_free.push_back(static_cast<uint32_t>(m_entries.size()));
        m_entries.emplace_back();
        m_generation.push_back(0);
    }
    const uint32_t id = m_free.back();
    m_free.pop_back();
    m_entries[id].activeIndex = static_cast<uint32_t>(m_active.size());
    m_active.push_back(id);
    return id;
}

void
OffloadConnectionTable::Release(uint32_t id)
{
    RemoveTimed(id);
    OffloadConnectionState& c = m_entries[id];
    const uint32_t pos = c.activeIndex;
    m_active[pos] = m_active.back();
    m_entries[m_active[pos]].activeIndex = pos;
    m_active.pop_back();
    c = OffloadConnectionState();
    ++m_generation[id];
    m_free.push_back(id);
}

void
OffloadConnectionTable::Clear()
{
    m_entries.clear();
}

} // namespace ns3
