/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ideal-fct.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IdealFct");

namespace
{

/// Time in ns to serialise \p bytes on a link of \p rateBps bit/s. long double keeps the
/// closed form D_h(0) + k * s / r exact to well under a nanosecond for any realistic flow.
long double
TxNs(uint64_t bytes, double rateBps)
{
    return static_cast<long double>(bytes) * 8.0L * 1e9L / static_cast<long double>(rateBps);
}

/// Time for a packet of \p bytes to be store-and-forwarded over the whole path, ns.
long double
StoreAndForwardNs(uint64_t bytes, const std::vector<PathHop>& path)
{
    long double t = 0;
    for (const PathHop& hop : path)
    {
        t += TxNs(bytes, hop.rateBps) + static_cast<long double>(hop.delayNs);
    }
    return t;
}

} // namespace

int64_t
IdealFctNs(uint64_t sizeBytes, const std::vector<PathHop>& path, const WireModel& wire)
{
    NS_LOG_FUNCTION(sizeBytes << path.size());
    if (sizeBytes == 0)
    {
        throw PrestoInputError("ideal FCT: flow size must be > 0 bytes");
    }
    if (path.empty())
    {
        throw PrestoInputError("ideal FCT: the path from sender to receiver has no hops");
    }
    if (wire.mssBytes == 0)
    {
        throw PrestoInputError("ideal FCT: MSS must be > 0 bytes");
    }
    for (std::size_t h = 0; h < path.size(); ++h)
    {
        // !(x > 0) also rejects NaN.
        if (!(path[h].rateBps > 0) || !std::isfinite(path[h].rateBps))
        {
            std::ostringstream msg;
            msg << "ideal FCT: hop " << h << " of the path has rate " << path[h].rateBps
                << " bit/s (must be > 0 and finite)";
            throw PrestoInputError(msg.str());
        }
        if (path[h].delayNs < 0)
        {
            std::ostringstream msg;
            msg << "ideal FCT: hop " << h << " of the path has negative delay " << path[h].delayNs
                << " ns";
            throw PrestoInputError(msg.str());
        }
    }

    // Handshake: the SYN travels the path, the SYN-ACK the same links back; the first data
    // segment leaves with the ACK that completes the handshake, so data starts at t0.
    long double t0 = 0;
    if (wire.synBytes > 0)
    {
        t0 = StoreAndForwardNs(wire.synBytes, path) + StoreAndForwardNs(wire.synAckBytes, path);
    }

    const uint64_t segments = (sizeBytes + wire.mssBytes - 1) / wire.mssBytes;
    const uint64_t lastPayload = sizeBytes - (segments - 1) * wire.mssBytes;
    // Segments 0..equal-1 all carry a full MSS; a smaller last one is handled apart.
    const uint64_t equal = lastPayload == wire.mssBytes ? segments : segments - 1;
    const uint64_t fullWire = uint64_t{wire.mssBytes} + wire.dataOverhead;
    const uint64_t lastWire = lastPayload + wire.dataOverhead;

    // Per hop h, in the order the data crosses them:
    //  - firstArrival: when segment 0 has fully arrived at the sender side of link h;
    //  - D_h(0) = firstArrival + s / rate_h (store and forward, zero processing delay);
    //  - D_h(equal-1) = D_h(0) + (equal-1) * s / min(rate_1..rate_h): back-to-back equal
    //    segments leave every hop spaced by the slowest link so far;
    //  - the smaller last segment starts on link h when it has arrived and the link has
    //    sent the previous segment: max(lastArrival, D_h(equal-1)).
    long double firstArrival = t0;
    long double lastArrival = t0;
    long double finish = t0;
    double minRate = std::numeric_limits<double>::infinity();
    for (const PathHop& hop : path)
    {
        minRate = std::min(minRate, hop.rateBps);
        const auto delay = static_cast<long double>(hop.delayNs);
        const long double d0 = firstArrival + TxNs(fullWire, hop.rateBps);
        // Departure of the last segment sent so far on this link (t0: link idle).
        long double depart = t0;
        if (equal > 0)
        {
            depart = d0 + static_cast<long double>(equal - 1) * TxNs(fullWire, minRate);
        }
        if (equal < segments)
        {
            depart = std::max(lastArrival, depart) + TxNs(lastWire, hop.rateBps);
        }
        firstArrival = d0 + delay;
        lastArrival = depart + delay;
        finish = lastArrival;
    }

    // Round up; the tolerance keeps an exact integer that long double arithmetic put a
    // hair above it (1000.0000000001) from becoming 1001.
    const long double rounded = std::ceil(finish - 1e-6L);
    if (!(rounded < static_cast<long double>(std::numeric_limits<int64_t>::max())))
    {
        std::ostringstream msg;
        msg << "ideal FCT: a flow of " << sizeBytes << " bytes takes longer than int64 ns";
        throw PrestoInputError(msg.str());
    }
    return static_cast<int64_t>(rounded);
}

} // namespace ns3
