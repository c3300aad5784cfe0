/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CC_ABLATION_H
#define PRESTO_CC_ABLATION_H

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief One metric (e.g. small-flow p99 slowdown) of every design under every congestion
 * control it was run with: value[{design, cc}].
 */
using AblationTable = std::map<std::pair<std::string, std::string>, double>;

/**
 * \ingroup presto
 * \brief How much of the difference between two designs, each under its own congestion
 * control, comes from the congestion control and how much from the design.
 *
 * A and B run their native algorithms a and b: total = m(A, a) - m(B, b). The design's part
 * is the difference at equal congestion control, averaged over the natives both can run:
 * design = mean over c in {a, b} of m(A, c) - m(B, c) (with a == b it is the total); the
 * congestion control's part is the rest, cc = total - design. With both natives available
 * this is the Shapley split of a two-factor difference (each factor's effect averaged over
 * both orders); when one design cannot run the other's algorithm (host-tcp has no rate-based
 * DCTCP), the design's part is taken at the one both run.
 */
struct AblationSplit
{
    std::string a;               //!< first design
    std::string b;               //!< second design
    std::string ccA;             //!< a's native congestion control
    std::string ccB;             //!< b's native congestion control
    double total{0};             //!< m(a, ccA) - m(b, ccB)
    double design{0};            //!< part from the design
    double cc{0};                //!< part from the congestion control
    std::vector<std::string> at; //!< the congestion controls the design part was taken at
};

/**
 * \ingroup presto
 * \brief Split every pairwise difference (designs in the order given).
 * \param table the metric per {design, cc}
 * \param designs the designs, in table order
 * \param native each design's native congestion control
 * \return one split per pair whose natives were both run and that share at least one of the
 * two natives; pairs without one are left out
 */
std::vector<AblationSplit> SplitDifferences(const AblationTable& table,
                                            const std::vector<std::string>& designs,
                                            const std::map<std::string, std::string>& native);

/**
 * \ingroup presto
 * \brief The console text: the metric per design and congestion control, then one line per
 * pair with the total and its two parts.
 * \param metric the metric's name, e.g. "small-flow p99 slowdown"
 * \param table the metric per {design, cc}
 * \param designs the designs, in table order
 * \param ccs the congestion controls, in column order
 * \param splits SplitDifferences' result
 * \return the text, ending in a newline
 */
std::string FormatAblation(const std::string& metric,
                           const AblationTable& table,
                           const std::vector<std::string>& designs,
                           const std::vector<std::string>& ccs,
                           const std::vector<AblationSplit>& splits);

/**
 * \ingroup presto
 * \brief ablation.csv: "a,b,cc_a,cc_b,total,from_design,from_cc,design_at" per split.
 * \param splits the splits
 * \return the file's text
 */
std::string AblationCsv(const std::vector<AblationSplit>& splits);

} // namespace ns3

#endif // PRESTO_CC_ABLATION_H
