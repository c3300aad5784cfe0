/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FCT_PLOT_H
#define PRESTO_FCT_PLOT_H

#include "ns3/fct-record.h"
#include "ns3/fct-statistics.h"

#include <nlohmann/json.hpp>
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
 * failure leaves no file; an SVG of the same plot is written beside it (RenderGnuplotPng).
 * \p caption (RunCaption), if not empty, is one line along the top of the image.
 * \param runs the runs (at least one) \param pngPath the output file \param caption the run
 * configuration
 */
void PlotFct(const std::vector<PlotRun>& runs,
             const std::string& pngPath,
             const std::string& caption = "");

/**
 * \ingroup presto
 * \brief The run configuration as one caption line for a plot, from the "config" objects of
 * the runs' summary.json: devices (their labels), workload, traffic pattern and load,
 * fabric shape (topology; leaf-spine as leaves x hosts per leaf and spines; host and core
 * rates), congestion control, seeds and simulated time, e.g. "host-tcp, presto-K1 |
 * websearch all-to-all, load 0.5 | leaf-spine 2 leaves x 4 hosts, 2 spines, 10Gbps/40Gbps |
 * dctcp | seed 1 | simTime 0.01 s". A field that differs between runs lists each value
 * once, in the order of the runs; fields a config lacks are left out; "" if none is there.
 * \param configs the runs' "config" objects (non-objects are skipped)
 * \return the caption
 */
std::string RunCaption(const std::vector<nlohmann::json>& configs);

} // namespace ns3

#endif // PRESTO_FCT_PLOT_H
