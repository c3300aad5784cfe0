/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FCT_PLOT_H
#define PRESTO_FCT_PLOT_H

#include "ns3/fct-record.h"
#include "ns3/fct-statistics.h"

#include <string>
#include <vector>

namespace ns3
{

/** \ingroup presto One run to draw: its label, summary and per-flow records. */
struct PlotRun
{
    std::string label;              //!< legend entry
    FctSummary summary;             //!< per-bucket statistics
    std::vector<FctRecord> records; //!< per-flow rows (for the FCT CDF)
};

/**
 * \ingroup presto
 * \brief Draw one PNG (gnuplot through RenderGnuplotPng, 1200x500) with two panels:
 * slowdown p50 (dashed, open points) and p99 (solid, filled points) by flow-size bucket
 * (x = bucket labels as BucketLabel, e.g. "<=10K"; every bucket of any run), one line pair
 * per run in one colour, log y; and the CDF of FCT (us) of the finished flows counted by
 * each run's summary (started at or after its warm-up), one line per run, log x.
 *
 * Uses the 'pngcairo' terminal when gnuplot has it, else the gd 'png' terminal (which
 * draws every line solid; there the p50 line is thinner, and on either the points are open
 * (p50) or filled (p99)). Labels are drawn as they are ('noenhanced': underscores stay
 * underscores). Empty buckets are left out of their run's lines, a run without finished flows is
 * left out of the legend, and a panel with nothing to draw says so instead of failing. CDFs of
 * large runs are drawn from at most 4000 evenly spaced ranks. Throws PrestoInputError if runs is
 * empty, the file cannot be written, gnuplot is missing or fails (its error output is in the
 * message); the file is written atomically (rendered to a temporary name, then renamed), so a
 * failure leaves no file. \param runs the runs (at least one) \param pngPath the output file
 */
void PlotFct(const std::vector<PlotRun>& runs, const std::string& pngPath);

} // namespace ns3

#endif // PRESTO_FCT_PLOT_H
