/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_COUNT_MIN_H
#define PRESTO_CORA_COUNT_MIN_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \brief The Cora runtime's hash (splitmix64 finaliser): RSS core selection and the
 * count-min sketch rows. (Flow groups and locks use CoraFlowGroup and CoraLockIndex of
 * cora-allocator.h, shared with the allocator.)
 * \param x value to hash
 * \return a well-mixed 64-bit hash of x
 */
uint64_t CoraHash64(uint64_t x);

/**
 * \brief Key of a (block, aggregate key) pair in the sketch: both hashed into one value.
 * \param block block index
 * \param key aggregate key
 * \return a 64-bit key
 */
uint64_t CoraPairHash(uint32_t block, uint64_t key);

/**
 * \ingroup presto
 * \brief A count-min sketch: per-key volume estimates in fixed memory (Cora's heavy-hitter
 * detector on the NIC).
 *
 * depth rows of width counters; a key adds to one counter per row (chosen by a per-row
 * seeded hash) and its estimate is the minimum of its counters, which never underestimates
 * and overestimates by at most e/width of the total with probability 1 - exp(-depth).
 * Pure logic.
 */
class CoraCountMin
{
  public:
    /**
     * \param width counters per row (>= 1)
     * \param depth rows (>= 1)
     * \throws PrestoInputError if width or depth is 0
     */
    CoraCountMin(uint32_t width, uint32_t depth);

    /**
     * \param key key (any 64-bit value)
     * \param n amount to add (packets)
     */
    void Add(uint64_t key, uint64_t n = 1);
    /// \param key key \return estimated total added for key (>= the true total)
    uint64_t Estimate(uint64_t key) const;
    /// \return total added since the last Reset (decayed by Decay)
    uint64_t GetTotal() const;
    /// Set every counter to zero (start of a new measurement interval).
    void Reset();
    /**
     * \brief Age the counts: every counter is multiplied by factor (rounded down), so that
     * old traffic fades instead of vanishing at once.
     * \param factor in [0, 1]
     * \throws PrestoInputError if factor is outside [0, 1]
     */
    void Decay(double factor);
    /// \return counters per row
    uint32_t GetWidth() const;
    /// \return rows
    uint32_t GetDepth() const;

  private:
    /// \param row row \param key key \return counter index in m_counters
    std::size_t Index(uint32_t row, uint64_t key) const;

    uint32_t m_width;                 //!< counters per row
    uint32_t m_depth;                 //!< rows
    std::vector<uint64_t> m_counters; //!< depth x width counters, row-major
    uint64_t m_total{0};              //!< sum added (decayed)
};

} // namespace ns3

#endif // PRESTO_CORA_COUNT_MIN_H
