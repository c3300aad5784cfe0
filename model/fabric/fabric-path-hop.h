/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FABRIC_PATH_HOP_H
#define PRESTO_FABRIC_PATH_HOP_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * One link of a path through the fabric, in the direction of the data: what the fabric's
 * topology reports for a host pair (FabricTopology::BestPath) and the ideal FCT reads.
 */
struct PathHop
{
    double rateBps{0};  //!< link rate, bit/s
    int64_t delayNs{0}; //!< propagation delay, ns
};

} // namespace ns3

#endif // PRESTO_FABRIC_PATH_HOP_H
