/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_SEQ_H
#define PRESTO_OFFLOAD_SEQ_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief TCP sequence-number comparisons modulo 2^32 (RFC 793 arithmetic). Valid while the
 * two numbers are less than 2^31 apart, which the data path guarantees by limiting windows
 * and buffers to 2^30 bytes.
 */
namespace seq
{

/// \param a sequence number \param b sequence number \return a strictly before b
inline bool
Lt(uint32_t a, uint32_t b)
{
    return static_cast<int32_t>(a - b) < 0;
}

/// \param a sequence number \param b sequence number \return a at or before b
inline bool
Leq(uint32_t a, uint32_t b)
{
    return static_cast<int32_t>(a - b) <= 0;
}

/// \param a sequence number \param b sequence number \return a at or after b
inline bool
Geq(uint32_t a, uint32_t b)
{
    return static_cast<int32_t>(a - b) >= 0;
}

/// \param a sequence number \param b sequence number \return the later of the two
inline uint32_t
Max(uint32_t a, uint32_t b)
{
    return Lt(a, b) ? b : a;
}

/// \param a sequence number \param b sequence number \return the earlier of the two
inline uint32_t
Min(uint32_t a, uint32_t b)
{
    return Lt(a, b) ? a : b;
}

} // namespace seq
} // namespace ns3

#endif // PRESTO_OFFLOAD_SEQ_H
