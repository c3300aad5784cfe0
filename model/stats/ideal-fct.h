/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_IDEAL_FCT_H
#define PRESTO_IDEAL_FCT_H

#include "ns3/fabric-path-hop.h"
#include "ns3/wire-model.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The FCT of a flow alone on the idle fabric.
 *
 * Definition: one handshake round trip (the SYN store-and-forwarded along the path, the
 * SYN-ACK along the reverse of the same path, same rates and delays), then the data as
 * ceil(size / mss) segments of mss + dataOverhead wire bytes (the last one carries the
 * remainder) sent back to back, store-and-forwarded hop by hop with zero processing delay;
 * the flow is done when the last bit of the last segment reaches the receiver. For equal
 * segments the departure of segment k from hop h is D_h(0) + k * s / min(rate_1..rate_h);
 * the smaller last segment is then followed exactly hop by hop, leaving hop h at
 * max(its arrival, departure of the previous segment) + its serialisation time. O(hops).
 * Window, slow start and ACK clocking do not appear: the ideal is what a transport starting
 * at line rate could reach. With wire.synBytes == 0 there is no handshake at all.
 *
 * Throws PrestoInputError for size 0, an empty path, a rate that is not positive and
 * finite, a negative delay, mss 0, or a result beyond int64 ns; the message names the hop.
 *
 * \param sizeBytes application bytes (> 0)
 * \param path the hops from sender to receiver (non-empty)
 * \param wire the transport's framing
 * \return the ideal FCT, ns (rounded up)
 */
int64_t IdealFctNs(uint64_t sizeBytes, const std::vector<PathHop>& path, const WireModel& wire);

} // namespace ns3

#endif // PRESTO_IDEAL_FCT_H
