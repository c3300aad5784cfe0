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
    : m_data(capacity),
      m_head(headSeq),
      m_headIndex(0)
{
}

uint32_t
OffloadByteRing::GetCapacity() const
{
    return static_cast<uint32_t>(m_data.size());
}

uint32_t
OffloadByteRing::GetHead() const
{
    return m_head;
}

bool
OffloadByteRing::Write(uint32_t seq, const uint8_t* data, uint32_t len)
{
    uint32_t offset = seq - m_head; // wraps correctly in 32-bit sequence space
    if (static_cast<uint64_t>(offset) + len > m_data.size())
    {
        return false;
    }
    uint32_t cap = GetCapacity();
    uint32_t start = static_cast<uint32_t>((static_cast<uint64_t>(m_headIndex) + offset) % cap);
    uint32_t first = std::min(len, cap - start);
    std::memcpy(m_data.data() + start, data, first);
    std::memcpy(m_data.data(), data + first, len - first);
    return true;
}

bool
OffloadByteRing::Read(uint32_t seq, uint8_t* out, uint32_t len) const
{
    uint32_t offset = seq - m_head;
    if (static_cast<uint64_t>(offset) + len > m_data.size())
    {
        return false;
    }
    uint32_t cap = GetCapacity();
    uint32_t start = static_cast<uint32_t>((static_cast<uint64_t>(m_headIndex) + offset) % cap);
    uint32_t first = std::min(len, cap - start);
    std::memcpy(out, m_data.data() + start, first);
    std::memcpy(out + first, m_data.data(), len - first);
    return true;
}

void
OffloadByteRing::Advance(uint32_t len)
{
    len = std::min(len, GetCapacity());
    m_head += len;
    m_headIndex = static_cast<uint32_t>((static_cast<uint64_t>(m_headIndex) + len) % GetCapacity());
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
