/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-byte-ring.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ns3
{

OffloadByteRing::OffloadByteRing(uint32_t capacity, uint32_t headSeq)
    : m_capacity(capacity),
      m_head(headSeq)
{
}

uint32_t
OffloadByteRing::GetCapacity() const
{
    return m_capacity;
}

uint32_t
OffloadByteRing::GetHead() const
{
    return m_head;
}

void
OffloadByteRing::Copy(uint32_t offset, uint8_t* buf, uint32_t len, bool write)
{
    uint64_t at = static_cast<uint64_t>(m_headInPage) + offset; // from the first page's start
    while (len > 0)
    {
        const auto page = static_cast<std::size_t>(at / PAGE_BYTES);
        const auto inPage = static_cast<uint32_t>(at % PAGE_BYTES);
        const uint32_t n = std::min(len, PAGE_BYTES - inPage);
        if (write)
        {
            if (page >= m_pages.size())
            {
                m_pages.resize(page + 1);
            }
            if (!m_pages[page])
            {
                m_pages[page] = std::make_unique<uint8_t[]>(PAGE_BYTES); // zeroed
            }
            std::memcpy(m_pages[page].get() + inPage, buf, n);
        }
        else if (page < m_pages.size() && m_pages[page])
        {
            std::memcpy(buf, m_pages[page].get() + inPage, n);
        }
        else
        {
            std::memset(buf, 0, n); // never written
        }
        buf += n;
        len -= n;
        at += n;
    }
}

bool
OffloadByteRing::Write(uint32_t seq, const uint8_t* data, uint32_t len)
{
    uint32_t offset = seq - m_head; // wraps correctly in 32-bit sequence space
    if (static_cast<uint64_t>(offset) + len > m_capacity)
    {
        return false;
    }
    Copy(offset, const_cast<uint8_t*>(data), len, true);
    return true;
}

bool
OffloadByteRing::Read(uint32_t seq, uint8_t* out, uint32_t len) const
{
    uint32_t offset = seq - m_head;
    if (static_cast<uint64_t>(offset) + len > m_capacity)
    {
        return false;
    }
    const_cast<OffloadByteRing*>(this)->Copy(offset, out, len, false);
    return true;
}

void
OffloadByteRing::Advance(uint32_t len)
{
    len = std::min(len, m_capacity);
    m_head += len;
    const uint64_t at = static_cast<uint64_t>(m_headInPage) + len;
    // free the pages the head passed
    const auto passed = static_cast<std::size_t>(at / PAGE_BYTES);
    m_pages.erase(m_pages.begin(),
                  m_pages.begin() + static_cast<std::ptrdiff_t>(std::min(passed, m_pages.size())));
    m_headInPage = static_cast<uint32_t>(at % PAGE_BYTES);
    if (m_pages.empty())
    {
        m_pages.shrink_to_fit(); // an idle connection keeps nothing
    }
}

uint64_t
OffloadByteRing::GetAllocatedBytes() const
{
    uint64_t n = 0;
    for (const auto& p : m_pages)
    {
        n += p ? PAGE_BYTES : 0;
    }
    return n;
}

OffloadDmaChannel::OffloadDmaChannel(int64_t latencyNs, double bandwidthBps)
    : m_latencyNs(latencyNs),
      m_nsPerByte(8e9 / bandwidthBps),
      m_busyUntilNs(0),
      m_bytes(0),
      m_transfers(0)
{
}

int64_t
OffloadDmaChannel::Transfer(int64_t nowNs, uint32_t bytes)
{
    double start = std::max(static_cast<double>(nowNs), m_busyUntilNs);
    m_busyUntilNs = start + bytes * m_nsPerByte;
    m_bytes += bytes;
    ++m_transfers;
    return static_cast<int64_t>(std::ceil(m_busyUntilNs)) + m_latencyNs;
}

uint64_t
OffloadDmaChannel::GetBytes() const
{
    return m_bytes;
}

uint64_t
OffloadDmaChannel::GetTransfers() const
{
    return m_transfers;
}

} // namespace ns3
