/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-count-min.h"

#include "ns3/presto-input-error.h"
#include "ns3/splitmix.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ns3
{

uint64_t
CoraHash64(uint64_t x)
{
    // every input bit affects every output bit, so consecutive flow ids spread evenly over
    // cores and sketch columns
    return SplitMix64(x);
}

uint64_t
CoraPairHash(uint32_t block, uint64_t key)
{
    return CoraHash64(key ^ CoraHash64(0xC0A4000000000000ULL + block));
}

CoraCountMin::CoraCountMin(uint32_t width, uint32_t depth)
    : m_width(width),
      m_depth(depth)
{
    if (width == 0 || depth == 0)
    {
        throw PrestoInputError("Cora count-min sketch: width and depth must be >= 1 (got width " +
                               std::to_string(width) + ", depth " + std::to_string(depth) + ")");
    }
    m_counters.assign(static_cast<std::size_t>(width) * depth, 0);
}

std::size_t
CoraCountMin::Index(uint32_t row, uint64_t key) const
{
    // One independent-looking hash per row: hash the key with a row-specific seed.
    const uint64_t h = CoraHash64(key ^ CoraHash64(0x5EED0000ULL + row));
    return static_cast<std::size_t>(row) * m_width + static_cast<std::size_t>(h % m_width);
}

void
CoraCountMin::Add(uint64_t key, uint64_t n)
{
    for (uint32_t r = 0; r < m_depth; ++r)
    {
        m_counters[Index(r, key)] += n;
    }
    m_total += n;
}

uint64_t
CoraCountMin::Estimate(uint64_t key) const
{
    uint64_t best = std::numeric_limits<uint64_t>::max();
    for (uint32_t r = 0; r < m_depth; ++r)
    {
        best = std::min(best, m_counters[Index(r, key)]);
    }
    return best;
}

uint64_t
CoraCountMin::GetTotal() const
{
    return m_total;
}

void
CoraCountMin::Reset()
{
    std::fill(m_counters.begin(), m_counters.end(), 0);
    m_total = 0;
}

void
CoraCountMin::Decay(double factor)
{
    if (!(factor >= 0.0 && factor <= 1.0))
    {
        throw PrestoInputError("Cora count-min sketch: decay factor must be in [0, 1] (got " +
                               std::to_string(factor) + ")");
    }
    for (auto& c : m_counters)
    {
        c = static_cast<uint64_t>(std::floor(static_cast<double>(c) * factor));
    }
    m_total = static_cast<uint64_t>(std::floor(static_cast<double>(m_total) * factor));
}

uint32_t
CoraCountMin::GetWidth() const
{
    return m_width;
}

uint32_t
CoraCountMin::GetDepth() const
{
    return m_depth;
}

} // namespace ns3
