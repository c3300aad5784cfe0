/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PACKET_BUFFER_PRIMER_H
#define PRESTO_PACKET_BUFFER_PRIMER_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Fill ns-3's Buffer free list with header-sized data areas, once per process.
 *
 * A packet of the module carries its payload as Buffer's virtual zero area and only its
 * headers as bytes, so each new packet needs a data area of a few dozen bytes. ns-3's Buffer
 * reuses a freed data area only if it is at least as large as the largest it has freed so far,
 * and a new Buffer takes one only when the free list is not empty. Headers of varying sizes
 * (a SACK block more or less) defeat that: almost every packet allocated two areas (an empty
 * one, then one for its headers) and freed both. Freeing PrimedBuffers areas of
 * PrimedBufferBytes at once leaves them on the free list, each large enough for any header
 * stack, so from then on a packet takes one and gives it back. Nothing changes in what a
 * packet holds, and no packet is created (packet uids and metadata are untouched).
 *
 * It helps only while no data area larger than PrimedBufferBytes has been freed: ns-3's
 * threshold only grows, so once a larger one is freed (real payload bytes with
 * --verifyPayload=1, ns-3's TCP on the hosts), the primed areas are given back to the heap
 * as they are freed and ns-3 allocates as before. Nothing breaks then; there is no gain.
 *
 * The fabric link calls it when it first resolves its channel (at the device's
 * initialisation or first send); later calls do nothing.
 */
void PrimePacketBufferFreeList();

/// Bytes of each primed area: IPv4 and TCP headers with their largest options (60 + 60) and a
/// PPP header (2), rounded up.
constexpr uint32_t PrimedBufferBytes = 128;

/// Areas primed: ns-3 keeps at most about 1,000 on its free list.
constexpr uint32_t PrimedBuffers = 1000;

} // namespace ns3

#endif // PRESTO_PACKET_BUFFER_PRIMER_H
