/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_SPLITMIX_H
#define PRESTO_SPLITMIX_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The SplitMix64 finaliser: a cheap full-avalanche 64-bit mix (every input bit flips
 * every output bit with probability ~1/2), used wherever the module hashes flow keys (ECMP,
 * flow groups, sketches, locks, payload patterns).
 * \param x value \return mixed value
 */
inline uint64_t
SplitMix64Finalize(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/**
 * \ingroup presto
 * \brief One SplitMix64 step: add the golden-ratio increment, then finalise (so that 0 does
 * not map to 0 and consecutive inputs land far apart).
 * \param x value \return mixed value
 */
inline uint64_t
SplitMix64(uint64_t x)
{
    return SplitMix64Finalize(x + 0x9e3779b97f4a7c15ULL);
}

} // namespace ns3

#endif // PRESTO_SPLITMIX_H
