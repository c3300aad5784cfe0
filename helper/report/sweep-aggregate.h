/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_SWEEP_AGGREGATE_H
#define PRESTO_SWEEP_AGGREGATE_H

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief One value of one run: a metric of one flow-size bucket, or a run-wide metric.
 *
 * Bucket metrics: "slowdown_mean", "slowdown_p50", "slowdown_p99" of every non-empty bucket
 * and of "overall" (bucket "all"). Run-wide metrics (bucket "all"), only when the run reports
 * them: "host_cpu.cores_used", "host_cpu.cycles_per_byte", "nic.fidelity_drops",
 * "nic.retx_segments" (retransmitted segments).
 */
struct SweepSample
{
    std::string bucket;  //!< bucket label as BucketLabel ("<=10K", ">30M") or "all"
    uint64_t loBytes{0}; //!< exclusive lower edge of the bucket, bytes (0 for "all")
    uint64_t hiBytes{0}; //!< inclusive upper edge, bytes (max uint64 for "all")
    std::string metric;  //!< metric name, see above
    double value{0};     //!< the run's value
};

/**
 * \ingroup presto
 * \brief What one run's summary.json contributes to a sweep aggregate.
 */
struct SweepRun
{
    std::string source; //!< where it was read from (for messages)
    /// the "config" object without "seed", with the "attributes" object's entries (changed
    /// ns-3 attribute defaults, "ns3::Type::Attribute") added as keys of their own
    nlohmann::json config;
    uint32_t seed{0};                 //!< "config"."seed"
    std::vector<SweepSample> samples; //!< every value of the run
};

/**
 * \ingroup presto
 * \brief Extract a run from the content of a summary.json written by presto-spray.
 *
 * Requires "config" (an object with a non-negative integer "seed"), "buckets" (objects with
 * non-negative integers "lo_bytes", "hi_bytes", "count" and finite numbers "slowdown_mean",
 * "slowdown_p50", "slowdown_p99") and "overall" (with "count" and the same slowdown keys);
 * buckets with count 0 give no samples (they have no slowdown). "host_cpu" and "nic" are
 * optional, but a metric listed in SweepSample that is present must be a finite number.
 * Throws PrestoInputError naming \p source and the missing or mistyped key.
 * \param summary the parsed summary.json
 * \param source the file it came from, for messages
 * \return the run
 */
SweepRun ParseSweepRun(const nlohmann::json& summary, const std::string& source);

/**
 * \ingroup presto
 * \brief Read and parse one summary.json (see ParseSweepRun). Throws PrestoInputError naming
 * the file if it cannot be opened, is not valid JSON or lacks a required key.
 * \param path the summary.json file
 * \return the run
 */
SweepRun ReadSweepRun(const std::string& path);

/**
 * \ingroup presto
 * \brief Mean of a sample and its two-sided Student-t confidence interval.
 *
 * With n >= 2: mean +- t(1 - (1 - level) / 2, n - 1) * s / sqrt(n), s the sample standard
 * deviation (divisor n - 1). With n = 1 there is no interval (the spread across seeds is
 * unknown): HasInterval() is false and low = high = NaN. With n = 0 everything is NaN.
 */
struct ConfidenceInterval
{
    uint64_t n{0};    //!< sample size
    double mean{0};   //!< arithmetic mean
    double stddev{0}; //!< sample standard deviation (n - 1 divisor), NaN if n < 2
    double low{0};    //!< lower end of the interval, NaN if n < 2
    double high{0};   //!< upper end of the interval, NaN if n < 2

    /** \return true if the interval is defined (n >= 2) */
    bool HasInterval() const
    {
        return n >= 2;
    }
};

/**
 * \ingroup presto
 * \brief The mean and Student-t confidence interval of a sample (see ConfidenceInterval).
 * Throws PrestoInputError if a value is not finite or level is not in (0, 1).
 * \param values the sample (e.g. one metric over seeds)
 * \param level confidence level, e.g. 0.95
 * \return the interval
 */
ConfidenceInterval MeanConfidenceInterval(const std::vector<double>& values, double level = 0.95);

/**
 * \ingroup presto
 * \brief One row of the aggregate: one group x bucket x metric over the group's seeds.
 */
struct SweepAggregateRow
{
    std::string group; //!< the group's label (see AggregateSweep)
    /// the group's value of every key that differs between groups (the swept parameters),
    /// in key order, the same keys for every row: (key, value as in the label)
    std::vector<std::pair<std::string, std::string>> parameters;
    std::string bucket;    //!< bucket label or "all"
    uint64_t loBytes{0};   //!< bucket's exclusive lower edge, bytes
    uint64_t hiBytes{0};   //!< bucket's inclusive upper edge, bytes
    std::string metric;    //!< metric name (see SweepSample)
    ConfidenceInterval ci; //!< mean and 95% interval across the runs that have the value
};

/**
 * \ingroup presto
 * \brief Group runs by configuration without the seed and compute, per group, bucket and
 * metric, the mean and 95% Student-t confidence interval across the group's runs.
 *
 * Runs with equal "config" (seed removed) form a group. The group label names the config keys
 * whose values differ between groups, as "key=value" joined by spaces and in key order (e.g.
 * "device=presto fidelity=1 lb=spray load=0.5"); "fidelity" and "class_rules" are left out
 * for groups whose device is not "presto" (they do not apply there); "label" is never used.
 * When no key differs (one group) the label is "device=<device>" ("all runs" without a
 * device). If leaving out the presto-only keys makes two labels equal, those groups keep
 * them. Groups are ordered by their differing values
 * (numbers numerically); rows within a group by bucket upper edge ("all" last) and metric
 * name. A bucket that is empty in some runs averages only the runs that have flows there (n
 * says how many). Throws PrestoInputError if runs is empty or two runs of a group have the
 * same seed (the same run twice: both sources are named).
 * \param runs the runs
 * \return the rows
 */
std::vector<SweepAggregateRow> AggregateSweep(const std::vector<SweepRun>& runs);

/**
 * \ingroup presto
 * \brief The aggregate as CSV: header "group,bucket,lo_bytes,hi_bytes,metric,n,mean,ci95_low,
 * ci95_high" and then one column per swept parameter (the rows' parameters keys, e.g.
 * "device,load"), one line per row; lo_bytes and hi_bytes are empty for bucket "all", ci95_low
 * and ci95_high are empty when n = 1 (no interval). A parameter's column holds the group's
 * value, also for the presto-only keys the group label leaves out (an empty field where the
 * group's config lacks the key). Fields with a comma or quote are quoted.
 * Numbers are written in the shortest form that reads back as the same double.
 * \param rows the rows
 * \return the CSV text
 */
std::string SweepAggregateCsv(const std::vector<SweepAggregateRow>& rows);

/**
 * \ingroup presto
 * \brief Print a human-readable table: per group, one line per bucket with n and
 * "mean [low, high]" of slowdown mean, p50 and p99, then the run-wide metrics.
 * \param os the stream
 * \param rows the rows
 */
void PrintSweepAggregate(std::ostream& os, const std::vector<SweepAggregateRow>& rows);

} // namespace ns3

#endif // PRESTO_SWEEP_AGGREGATE_H
