/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_COMPARISON_CELLS_H
#define PRESTO_COMPARISON_CELLS_H

#include <limits>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The number and list texts the device comparison's tables, CSVs and gnuplot scripts
 * share (comparison-report.cc, comparison-plots.cc), one definition so that a number reads
 * the same in every output.
 */
namespace comparison
{

/// An unknown or not-applicable number of a ComparisonRow.
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/**
 * \param v a number
 * \return the shortest text that reads back as the same double; "" for NaN (an empty CSV
 * field)
 */
std::string CsvNumber(double v);

/**
 * \param v a number
 * \param decimals digits after the point
 * \return a number of the console table: "-" for NaN, else fixed with \p decimals
 */
std::string Cell(double v, int decimals);

/**
 * \param v the parts
 * \param sep what goes between two parts
 * \return the parts joined by \p sep
 */
std::string Join(const std::vector<std::string>& v, const std::string& sep);

} // namespace comparison

} // namespace ns3

#endif // PRESTO_COMPARISON_CELLS_H
