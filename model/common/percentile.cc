/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Shared by the FCT statistics (model/stats) and the RPC latency summary (model/workload).
#include "percentile.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

double
Percentile(const std::vector<double>& sorted, double q)
{
    const double pos = q * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    // Written as a + (b - a) * f, like numpy, so equal neighbours give exactly that value.
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

} // namespace ns3
