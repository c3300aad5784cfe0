/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PERCENTILE_H
#define PRESTO_PERCENTILE_H

#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief numpy's default percentile ("linear"): position q * (n - 1) in the sorted sample,
 * interpolated between its two neighbours.
 * \param sorted non-empty, increasing
 * \param q quantile in [0, 1]
 * \return the percentile
 */
double Percentile(const std::vector<double>& sorted, double q);

} // namespace ns3

#endif // PRESTO_PERCENTILE_H
