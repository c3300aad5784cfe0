/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FCT_STATISTICS_H
#define PRESTO_FCT_STATISTICS_H

#include "fct-record.h"

#include "ns3/experiment-random.h"
#include "ns3/percentile.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Order statistics of one sample. All zero when count == 0.
 *
 * Percentiles are numpy's default ("linear"): for a sorted sample v[0..n-1] the q-quantile
 * is v[i] + (v[i+1] - v[i]) * f with i + f = q * (n - 1).
 */
struct DistributionSummary
{
    uint64_t count{0}; //!< sample size
    double mean{0};    //!< arithmetic mean
    double p50{0};     //!< median
    double p95{0};     //!< 95th percentile
    double p99{0};     //!< 99th percentile
    double p999{0};    //!< 99.9th percentile
};

/**
 * \ingroup presto
 * \brief Summarise a sample. Percentiles use linear interpolation between closest ranks
 * (numpy's default), so they are exact for small samples too.
 *
 * Throws PrestoInputError if a value is not finite (NaN would make the order undefined).
 * \param values the sample (any order; copied and sorted)
 * \return the summary
 */
DistributionSummary Summarize(std::vector<double> values);

/**
 * \ingroup presto
 * \brief Percentile bootstrap confidence interval of a sample's q-quantile.
 *
 * Resamples the sample with replacement `resamples` times and returns the (1-level)/2 and
 * (1+level)/2 quantiles of the resampled q-quantiles. Each resampled value is
 * values[random.Index(n)], one draw of ns-3's generator per value, so the same sample, seed,
 * run and stream number give the same interval with any standard library. Used to tell
 * whether two devices' p99 slowdowns differ beyond sampling noise.
 * \param values the sample (empty: {NaN, NaN}, no draw)
 * \param q quantile in [0, 1]
 * \param random the draws (ns-3 seed, run and stream number)
 * \param level confidence level in (0, 1)
 * \param resamples bootstrap resamples (>= 1)
 * \return {low, high}
 */
std::pair<double, double> BootstrapQuantileCi(const std::vector<double>& values,
                                              double q,
                                              ExperimentRandom& random,
                                              double level = 0.95,
                                              uint32_t resamples = 1000);

/**
 * \ingroup presto
 * \brief One flow-size bucket (lo, hi] of the report.
 *
 * The distributions cover the finished flows of the bucket that started after the warm-up;
 * their count is the bucket's count.
 */
struct BucketSummary
{
    uint64_t loBytes{0};          //!< exclusive lower edge
    uint64_t hiBytes{0};          //!< inclusive upper edge
    DistributionSummary fctNs;    //!< FCT of finished flows in the bucket, ns
    DistributionSummary slowdown; //!< slowdown of finished flows in the bucket
};

/** \ingroup presto The FCT part of a run's summary. */
struct FctSummary
{
    std::vector<BucketSummary> buckets; //!< per flow-size bucket, increasing
    DistributionSummary fctNs;          //!< all finished, counted flows
    DistributionSummary slowdown;       //!< all finished, counted flows
    uint64_t flows{0};                  //!< flows in the workload
    uint64_t counted{0};                //!< flows started at or after the warm-up
    uint64_t finished{0};               //!< counted flows that finished
    uint64_t unfinished{0};             //!< counted flows that did not finish
    uint64_t warmupExcluded{0};         //!< flows started before the warm-up ended
    int64_t warmupNs{0};                //!< the warm-up window, ns
};

/**
 * \ingroup presto
 * \brief Per-bucket FCT and slowdown statistics of a run.
 *
 * The final bucket (last edge, max uint64] is always present (possibly empty) unless the
 * last edge is already max uint64, so that every run of an experiment has the same buckets
 * and feeding the "hi_bytes" of a summary back as edges reproduces the same buckets.
 * Flows with startNs < warmupNs count only in flows and warmupExcluded.
 *
 * Throws PrestoInputError if the edges are not strictly increasing and positive, if a
 * flow has size 0 (it would fall in no bucket), or if a finished counted flow has
 * finishNs < startNs or idealNs <= 0 (its slowdown would be meaningless).
 * \param records one per flow
 * \param bucketEdges strictly increasing inclusive upper edges in bytes; bucket i is
 *        (edge[i-1], edge[i]] with edge[-1] = 0; flows above the last edge go into a final
 *        bucket (last edge, max uint64]; empty: one bucket (0, max uint64]
 * \param warmupNs flows that start before this time are excluded from every statistic
 * \return the summary
 */
FctSummary SummarizeFct(const std::vector<FctRecord>& records,
                        const std::vector<uint64_t>& bucketEdges,
                        int64_t warmupNs);

/**
 * \ingroup presto
 * \brief A byte count in short, exact decimal units: the largest of G (1e9), M (1e6), K (1e3)
 * in which it needs at most 3 decimals: 1000 -> "1K", 2500000 -> "2.5M", 1448 -> "1.448K",
 * 1234567 -> "1234.567K", 999 -> "999".
 * \param bytes the count
 * \return the text
 */
std::string FormatBytes(uint64_t bytes);

/**
 * \ingroup presto
 * \brief The label of a bucket for tables and plots: "<=10K" for (lo, 10K], ">30M" for the
 * final bucket (30M, max uint64].
 * \param bucket the bucket
 * \return the label
 */
std::string BucketLabel(const BucketSummary& bucket);

} // namespace ns3

#endif // PRESTO_FCT_STATISTICS_H
