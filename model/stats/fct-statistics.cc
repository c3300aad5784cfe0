/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fct-statistics.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FctStatistics");

DistributionSummary
Summarize(std::vector<double> values)
{
    NS_LOG_FUNCTION(values.size());
    DistributionSummary s;
    if (values.empty())
    {
        return s;
    }
    for (std::size_t i = 0; i < values.size(); ++i)
    {
        if (!std::isfinite(values[i]))
        {
            std::ostringstream msg;
            msg << "Summarize: value " << i << " of the sample is not finite (" << values[i] << ")";
            throw PrestoInputError(msg.str());
        }
    }
    std::sort(values.begin(), values.end());
    // long double: a million FCTs of ~1e9 ns summed in double would lose the last digits.
    long double sum = 0;
    for (double v : values)
    {
        sum += v;
    }
    s.count = values.size();
    s.mean = static_cast<double>(sum / static_cast<long double>(values.size()));
    s.p50 = Percentile(values, 0.50);
    s.p95 = Percentile(values, 0.95);
    s.p99 = Percentile(values, 0.99);
    s.p999 = Percentile(values, 0.999);
    return s;
}

std::pair<double, double>
BootstrapQuantileCi(const std::vector<double>& values,
                    double q,
                    ExperimentRandom& random,
                    double level,
                    uint32_t resamples)
{
    if (!(q >= 0 && q <= 1) || !(level > 0 && level < 1) || resamples == 0)
    {
        throw PrestoInputError("BootstrapQuantileCi: q must be in [0,1], level in (0,1), "
                               "resamples >= 1");
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    if (values.empty())
    {
        return {nan, nan};
    }
    std::vector<double> resample(values.size());
    std::vector<double> stats;
    stats.reserve(resamples);
    for (uint32_t r = 0; r < resamples; ++r)
    {
        for (auto& v : resample)
        {
            v = values[random.Index(values.size())];
        }
        std::sort(resample.begin(), resample.end());
        stats.push_back(Percentile(resample, q));
    }
    std::sort(stats.begin(), stats.end());
    return {Percentile(stats, (1 - level) / 2), Percentile(stats, (1 + level) / 2)};
}

FctSummary
SummarizeFct(const std::vector<FctRecord>& records,
             const std::vector<uint64_t>& bucketEdges,
             int64_t warmupNs)
{
    NS_LOG_FUNCTION(records.size() << bucketEdges.size() << warmupNs);
    for (std::size_t i = 0; i < bucketEdges.size(); ++i)
    {
        const uint64_t previous = i == 0 ? 0 : bucketEdges[i - 1];
        if (bucketEdges[i] <= previous)
        {
            std::ostringstream msg;
            msg << "FCT bucket edges must be positive and strictly increasing: edge " << i << " ("
                << bucketEdges[i] << ") is not above " << previous;
            throw PrestoInputError(msg.str());
        }
    }

    std::vector<uint64_t> edges = bucketEdges;
    if (edges.empty() || edges.back() != std::numeric_limits<uint64_t>::max())
    {
        edges.push_back(std::numeric_limits<uint64_t>::max());
    }

    FctSummary summary;
    summary.warmupNs = warmupNs;
    summary.flows = records.size();
    std::vector<std::vector<double>> bucketFct(edges.size());
    std::vector<std::vector<double>> bucketSlowdown(edges.size());
    std::vector<double> allFct;
    std::vector<double> allSlowdown;

    for (const FctRecord& r : records)
    {
        if (r.flow.sizeBytes == 0)
        {
            std::ostringstream msg;
            msg << "flow " << r.flow.id << " has size 0 bytes: it belongs to no FCT bucket";
            throw PrestoInputError(msg.str());
        }
        if (r.flow.startNs < warmupNs)
        {
            ++summary.warmupExcluded;
            continue;
        }
        ++summary.counted;
        if (!r.Finished())
        {
            ++summary.unfinished;
            continue;
        }
        if (r.finishNs < r.flow.startNs)
        {
            std::ostringstream msg;
            msg << "flow " << r.flow.id << " finishes (" << r.finishNs << " ns) before it starts ("
                << r.flow.startNs << " ns)";
            throw PrestoInputError(msg.str());
        }
        if (r.idealNs <= 0)
        {
            std::ostringstream msg;
            msg << "flow " << r.flow.id << " has no ideal FCT (ideal_fct_ns = " << r.idealNs
                << "): its slowdown is undefined";
            throw PrestoInputError(msg.str());
        }
        ++summary.finished;
        // First edge >= size: the bucket (edge[i-1], edge[i]] that holds the size.
        const auto it = std::lower_bound(edges.begin(), edges.end(), r.flow.sizeBytes);
        const auto b = static_cast<std::size_t>(it - edges.begin());
        const auto fct = static_cast<double>(r.FctNs());
        const double slowdown = r.Slowdown();
        bucketFct[b].push_back(fct);
        bucketSlowdown[b].push_back(slowdown);
        allFct.push_back(fct);
        allSlowdown.push_back(slowdown);
    }

    for (std::size_t i = 0; i < edges.size(); ++i)
    {
        BucketSummary bucket;
        bucket.loBytes = i == 0 ? 0 : edges[i - 1];
        bucket.hiBytes = edges[i];
        bucket.fctNs = Summarize(std::move(bucketFct[i]));
        bucket.slowdown = Summarize(std::move(bucketSlowdown[i]));
        summary.buckets.push_back(bucket);
    }
    summary.fctNs = Summarize(std::move(allFct));
    summary.slowdown = Summarize(std::move(allSlowdown));
    return summary;
}

std::string
FormatBytes(uint64_t bytes)
{
    struct Unit
    {
        uint64_t size;
        const char* suffix;
    };

    static const Unit units[] = {{1000000000ULL, "G"}, {1000000ULL, "M"}, {1000ULL, "K"}};
    for (const Unit& u : units)
    {
        const uint64_t thousandth = u.size / 1000;
        if (bytes >= u.size && bytes % thousandth == 0)
        {
            std::string text = std::to_string(bytes / u.size);
            const uint64_t rest = (bytes % u.size) / thousandth; // 0..999 thousandths
            if (rest != 0)
            {
                std::string decimals = std::to_string(rest);
                decimals.insert(0, 3 - decimals.size(), '0');
                decimals.erase(decimals.find_last_not_of('0') + 1);
                text += "." + decimals;
            }
            return text + u.suffix;
        }
    }
    return std::to_string(bytes);
}

std::string
BucketLabel(const BucketSummary& bucket)
{
    if (bucket.hiBytes == std::numeric_limits<uint64_t>::max())
    {
        return bucket.loBytes == 0 ? std::string("all") : ">" + FormatBytes(bucket.loBytes);
    }
    return "<=" + FormatBytes(bucket.hiBytes);
}

} // namespace ns3
