/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "payload-pattern.h"

#include "ns3/splitmix.h"

#include <algorithm>
#include <cstring>

namespace ns3
{

namespace
{

/// splitmix64: one well-mixed 64-bit word per 8 stream bytes.
inline uint64_t
PatternWord(uint32_t flowId, uint64_t wordIndex)
{
    return SplitMix64((static_cast<uint64_t>(flowId) << 44) ^ wordIndex);
}

inline uint8_t
PatternByte(uint32_t flowId, uint64_t offset)
{
    return static_cast<uint8_t>(PatternWord(flowId, offset >> 3) >> ((offset & 7) * 8));
}

} // namespace

void
FillPayload(uint32_t flowId, uint64_t offset, uint8_t* buf, size_t len)
{
    size_t i = 0;
    // unaligned head, then whole words (little-endian byte order of the word), then tail
    while (i < len && ((offset + i) & 7) != 0)
    {
        buf[i] = PatternByte(flowId, offset + i);
        ++i;
    }
    for (; i + 8 <= len; i += 8)
    {
        // the word's bytes in little-endian order, whatever the host's byte order
        uint64_t w = PatternWord(flowId, (offset + i) >> 3);
        uint8_t bytes[8];
        for (int b = 0; b < 8; ++b)
        {
            bytes[b] = static_cast<uint8_t>(w >> (8 * b));
        }
        std::memcpy(buf + i, bytes, 8);
    }
    for (; i < len; ++i)
    {
        buf[i] = PatternByte(flowId, offset + i);
    }
}

PayloadVerifier::PayloadVerifier(uint32_t flowId, uint64_t sizeBytes)
    : m_flowId(flowId),
      m_size(sizeBytes),
      m_delivered(0),
      m_corrupt(0),
      m_excess(0)
{
}

void
PayloadVerifier::Deliver(const uint8_t* data, size_t len)
{
    uint64_t inSize = std::min<uint64_t>(len, m_size - m_delivered);
    m_excess += len - inSize;
    uint8_t expected[4096];
    for (uint64_t done = 0; done < inSize;)
    {
        size_t chunk = static_cast<size_t>(std::min<uint64_t>(sizeof(expected), inSize - done));
        FillPayload(m_flowId, m_delivered + done, expected, chunk);
        if (std::memcmp(expected, data + done, chunk) != 0)
        {
            for (size_t k = 0; k < chunk; ++k)
            {
                m_corrupt += expected[k] != data[done + k] ? 1 : 0;
            }
        }
        done += chunk;
    }
    m_delivered += inSize;
}

void
PayloadVerifier::Count(size_t len)
{
    const uint64_t inSize = std::min<uint64_t>(len, m_size - m_delivered);
    m_excess += len - inSize;
    m_delivered += inSize;
}

bool
PayloadVerifier::IsComplete() const
{
    return m_delivered == m_size && m_corrupt == 0 && m_excess == 0;
}

uint64_t
PayloadVerifier::GetDelivered() const
{
    return m_delivered;
}

uint64_t
PayloadVerifier::GetCorrupt() const
{
    return m_corrupt;
}

uint64_t
PayloadVerifier::GetExcess() const
{
    return m_excess;
}

} // namespace ns3
