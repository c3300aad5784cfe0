/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "sweep-aggregate.h"

#include "ns3/fct-statistics.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace ns3
{

namespace
{

/// Slowdown statistics taken from every bucket and from "overall".
const char* const kBucketMetrics[] = {"slowdown_mean", "slowdown_p50", "slowdown_p99"};

/// Run-wide metrics taken when present: (section, key).
const std::pair<const char*, const char*> kRunMetrics[] = {
    {"host_cpu", "cores_used"},
    {"host_cpu", "cycles_per_byte"},
    {"nic", "fidelity_drops"},
    {"nic", "retx_segments"},
};

/// Label of the pseudo-bucket holding whole-run values.
constexpr const char* kAll = "all";

/// Shortest text that reads back as the same double.
std::string
ShortestDouble(double v)
{
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof(buf), v);
    return std::string(buf, res.ptr);
}

/// Throw the error for a missing or mistyped key of \p source.
[[noreturn]] void
Malformed(const std::string& source, const std::string& what)
{
    throw PrestoInputError("'" + source + "': " + what);
}

/// j[key] as an unsigned integer, or throw naming \p where.
uint64_t
GetUnsigned(const nlohmann::json& j,
            const char* key,
            const std::string& source,
            const std::string& where)
{
    // parsed files hold unsigned numbers, JSON built in code may hold signed ones
    if (!j.contains(key) || !j[key].is_number_integer() ||
        (!j[key].is_number_unsigned() && j[key].get<int64_t>() < 0))
    {
        Malformed(source, where + " has no non-negative integer \"" + key + "\"");
    }
    return j[key].get<uint64_t>();
}

/// j[key] as a finite number, or throw naming \p where.
double
GetNumber(const nlohmann::json& j,
          const char* key,
          const std::string& source,
          const std::string& where)
{
    if (!j.contains(key) || !j[key].is_number() || !std::isfinite(j[key].get<double>()))
    {
        Malformed(source, where + " has no finite number \"" + key + "\"");
    }
    return j[key].get<double>();
}

/// A config value as label text: strings bare, everything else as JSON.
std::string
ValueText(const nlohmann::json& v)
{
    return v.is_string() ? v.get<std::string>() : v.dump();
}

/// "mean [low, high]" (or just the mean when there is no interval), 3 decimals.
std::string
IntervalText(const ConfidenceInterval& ci)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(3) << ci.mean;
    if (ci.HasInterval())
    {
        os << " [" << ci.low << ", " << ci.high << "]";
    }
    return os.str();
}

/// One CSV field, quoted if needed.
std::string
CsvField(const std::string& s)
{
    if (s.find_first_of(",\"\n\r") == std::string::npos)
    {
        return s;
    }
    std::string q = "\"";
    for (char c : s)
    {
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return q + "\"";
}

/// A group of runs: the shared config and its runs.
struct Group
{
    nlohmann::json config;               //!< config without seed
    std::vector<const SweepRun*> runs;   //!< members
    std::vector<nlohmann::json> sortKey; //!< values of the differing keys
    std::string label;                   //!< label for tables and plots
};

/// Key that orders rows within a group: buckets by edge, "all" last, then metric.
using RowKey = std::tuple<bool, uint64_t, uint64_t, std::string, std::string>;

} // namespace

SweepRun
ParseSweepRun(const nlohmann::json& summary, const std::string& source)
{
    if (!summary.is_object())
    {
        Malformed(source, "is not a JSON object");
    }
    SweepRun run;
    run.source = source;
    if (!summary.contains("config") || !summary["config"].is_object())
    {
        Malformed(source, "has no \"config\" object");
    }
    run.config = summary["config"];
    const uint64_t seed = GetUnsigned(run.config, "seed", source, "\"config\"");
    if (seed > std::numeric_limits<uint32_t>::max())
    {
        Malformed(source, "\"config\".\"seed\" is out of range");
    }
    run.seed = static_cast<uint32_t>(seed);
    run.config.erase("seed");
    if (summary.contains("attributes") && summary["attributes"].is_object())
    {
        // --ns3::Type::Attribute=value arguments (and other changed defaults) are parameters
        // of the run as much as the options are: a sweep over one groups by it
        for (const auto& [name, value] : summary["attributes"].items())
        {
            run.config[name] = value;
        }
    }

    if (!summary.contains("buckets") || !summary["buckets"].is_array())
    {
        Malformed(source, "has no \"buckets\" array");
    }
    const nlohmann::json& buckets = summary["buckets"];
    for (std::size_t i = 0; i < buckets.size(); ++i)
    {
        const nlohmann::json& b = buckets[i];
        const std::string where = "bucket " + std::to_string(i);
        if (!b.is_object())
        {
            Malformed(source, where + " is not an object");
        }
        BucketSummary bs;
        bs.loBytes = GetUnsigned(b, "lo_bytes", source, where);
        bs.hiBytes = GetUnsigned(b, "hi_bytes", source, where);
        if (GetUnsigned(b, "count", source, where) == 0)
        {
            continue; // an empty bucket has no slowdown
        }
        for (const char* m : kBucketMetrics)
        {
            run.samples.push_back(
                {BucketLabel(bs), bs.loBytes, bs.hiBytes, m, GetNumber(b, m, source, where)});
        }
    }
    if (!summary.contains("overall") || !summary["overall"].is_object())
    {
        Malformed(source, "has no \"overall\" object");
    }
    const nlohmann::json& overall = summary["overall"];
    const uint64_t all = std::numeric_limits<uint64_t>::max();
    if (GetUnsigned(overall, "count", source, "\"overall\"") > 0)
    {
        for (const char* m : kBucketMetrics)
        {
            run.samples.push_back({kAll, 0, all, m, GetNumber(overall, m, source, "\"overall\"")});
        }
    }
    for (const auto& [section, key] : kRunMetrics)
    {
        if (!summary.contains(section))
        {
            continue;
        }
        const nlohmann::json& s = summary[section];
        const std::string where = std::string("\"") + section + "\"";
        if (!s.is_object())
        {
            Malformed(source, where + " is not an object");
        }
        if (s.contains(key))
        {
            run.samples.push_back(
                {kAll, 0, all, std::string(section) + "." + key, GetNumber(s, key, source, where)});
        }
    }
    return run;
}

SweepRun
ReadSweepRun(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw PrestoInputError("cannot open run summary '" + path + "'");
    }
    nlohmann::json summary;
    try
    {
        summary = nlohmann::json::parse(in);
    }
    catch (const nlohmann::json::exception& e)
    {
        throw PrestoInputError("'" + path + "' is not valid JSON: " + e.what());
    }
    return ParseSweepRun(summary, path);
}

ConfidenceInterval
MeanConfidenceInterval(const std::vector<double>& values, double level)
{
    if (!(level > 0 && level < 1))
    {
        throw PrestoInputError("confidence level " + ShortestDouble(level) + " must be in (0, 1)");
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    ConfidenceInterval ci;
    ci.n = values.size();
    ci.mean = ci.stddev = ci.low = ci.high = nan;
    double sum = 0;
    for (double v : values)
    {
        if (!std::isfinite(v))
        {
            throw PrestoInputError("confidence interval: value " + ShortestDouble(v) +
                                   " is not finite");
        }
        sum += v;
    }
    if (ci.n == 0)
    {
        return ci;
    }
    const double n = static_cast<double>(ci.n);
    ci.mean = sum / n;
    if (ci.n < 2)
    {
        return ci; // one seed says nothing about the spread across seeds
    }
    double squares = 0;
    for (double v : values)
    {
        squares += (v - ci.mean) * (v - ci.mean);
    }
    ci.stddev = std::sqrt(squares / (n - 1));
    const boost::math::students_t dist(n - 1);
    const double t = boost::math::quantile(boost::math::complement(dist, (1 - level) / 2));
    const double half = t * ci.stddev / std::sqrt(n);
    ci.low = ci.mean - half;
    ci.high = ci.mean + half;
    return ci;
}

namespace
{

/// The runs grouped by their configuration without the seed (std::map keeps JSON dumps in
/// order); two runs of a group with the same seed are an error.
std::map<std::string, Group>
GroupBySeedlessConfig(const std::vector<SweepRun>& runs)
{
    std::map<std::string, Group> byConfig;
    for (const SweepRun& run : runs)
    {
        Group& g = byConfig[run.config.dump()];
        g.config = run.config;
        for (const SweepRun* other : g.runs)
        {
            if (other->seed == run.seed)
            {
                throw PrestoInputError("runs '" + other->source + "' and '" + run.source +
                                       "' have the same configuration and seed " +
                                       std::to_string(run.seed));
            }
        }
        g.runs.push_back(&run);
    }
    return byConfig;
}

/// The configuration keys whose values differ between groups, in key order: they name the
/// groups.
std::vector<std::string>
DifferingKeys(const std::map<std::string, Group>& byConfig)
{
    std::set<std::string> keys;
    for (const auto& [dump, g] : byConfig)
    {
        for (const auto& [k, v] : g.config.items())
        {
            keys.insert(k);
        }
    }
    std::vector<std::string> differing;
    for (const std::string& k : keys)
    {
        if (k == "label")
        {
            continue; // derived from the device unless given; not a parameter
        }
        const nlohmann::json first = byConfig.begin()->second.config.value(k, nlohmann::json());
        for (const auto& [dump, g] : byConfig)
        {
            if (g.config.value(k, nlohmann::json()) != first)
            {
                differing.push_back(k);
                break;
            }
        }
    }
    return differing;
}

/// A group's label: its values of the \p differing keys ("all runs" or its device if none
/// differs). Without \p all, presto's own parameters are left out for other devices.
std::string
GroupLabel(const Group& g, const std::vector<std::string>& differing, bool all)
{
    std::string text;
    const bool presto = g.config.value("device", nlohmann::json()) == "presto";
    for (const std::string& k : differing)
    {
        if (!all && !presto && (k == "fidelity" || k == "class_rules"))
        {
            continue; // presto-only parameters mean nothing for other devices
        }
        text +=
            (text.empty() ? "" : " ") + k + "=" + ValueText(g.config.value(k, nlohmann::json()));
    }
    if (text.empty())
    {
        text = g.config.contains("device") ? "device=" + ValueText(g.config["device"])
                                           : std::string("all runs");
    }
    return text;
}

/// Every group labelled (GroupLabel; in full where the short labels of two groups are the
/// same) and ordered by its values of the \p differing keys.
std::vector<Group*>
LabelAndOrderGroups(std::map<std::string, Group>& byConfig,
                    const std::vector<std::string>& differing)
{
    std::vector<Group*> groups;
    std::map<std::string, int> labelUses;
    for (auto& [dump, g] : byConfig)
    {
        for (const std::string& k : differing)
        {
            g.sortKey.push_back(g.config.value(k, nlohmann::json()));
        }
        g.label = GroupLabel(g, differing, false);
        ++labelUses[g.label];
        groups.push_back(&g);
    }
    for (Group* g : groups)
    {
        if (labelUses[g->label] > 1)
        {
            // e.g. two host-tcp groups that differ in fidelity only
            g->label = GroupLabel(*g, differing, true);
        }
    }
    std::stable_sort(groups.begin(), groups.end(), [](const Group* a, const Group* b) {
        return a->sortKey < b->sortKey;
    });
    return groups;
}

/// A group's rows: per bucket and metric, the mean and interval over its runs.
void
AddGroupRows(const Group& g,
             const std::vector<std::string>& differing,
             std::vector<SweepAggregateRow>& rows)
{
    std::map<RowKey, std::vector<double>> values;
    for (const SweepRun* run : g.runs)
    {
        for (const SweepSample& s : run->samples)
        {
            values[{s.bucket == kAll, s.hiBytes, s.loBytes, s.metric, s.bucket}].push_back(s.value);
        }
    }
    for (const auto& [key, v] : values)
    {
        SweepAggregateRow row;
        row.group = g.label;
        for (const std::string& k : differing)
        {
            const nlohmann::json v = g.config.value(k, nlohmann::json());
            row.parameters.emplace_back(k, v.is_null() ? std::string() : ValueText(v));
        }
        row.bucket = std::get<4>(key);
        row.hiBytes = std::get<1>(key);
        row.loBytes = std::get<2>(key);
        row.metric = std::get<3>(key);
        row.ci = MeanConfidenceInterval(v, 0.95);
        rows.push_back(row);
    }
}

} // namespace

std::vector<SweepAggregateRow>
AggregateSweep(const std::vector<SweepRun>& runs)
{
    if (runs.empty())
    {
        throw PrestoInputError("no runs to aggregate");
    }
    std::map<std::string, Group> byConfig = GroupBySeedlessConfig(runs);
    const std::vector<std::string> differing = DifferingKeys(byConfig);
    std::vector<SweepAggregateRow> rows;
    for (const Group* g : LabelAndOrderGroups(byConfig, differing))
    {
        AddGroupRows(*g, differing, rows);
    }
    return rows;
}

std::string
SweepAggregateCsv(const std::vector<SweepAggregateRow>& rows)
{
    std::string out = "group,bucket,lo_bytes,hi_bytes,metric,n,mean,ci95_low,ci95_high";
    if (!rows.empty())
    {
        for (const auto& [key, value] : rows.front().parameters)
        {
            out += ',' + CsvField(key);
        }
    }
    out += '\n';
    for (const SweepAggregateRow& r : rows)
    {
        const bool all = r.bucket == kAll;
        out += CsvField(r.group) + ',' + CsvField(r.bucket) + ',' +
               (all ? "" : std::to_string(r.loBytes)) + ',' +
               (all ? "" : std::to_string(r.hiBytes)) + ',' + CsvField(r.metric) + ',' +
               std::to_string(r.ci.n) + ',' + ShortestDouble(r.ci.mean) + ',' +
               (r.ci.HasInterval() ? ShortestDouble(r.ci.low) : "") + ',' +
               (r.ci.HasInterval() ? ShortestDouble(r.ci.high) : "");
        for (const auto& [key, value] : r.parameters)
        {
            out += ',' + CsvField(value);
        }
        out += '\n';
    }
    return out;
}

void
PrintSweepAggregate(std::ostream& os, const std::vector<SweepAggregateRow>& rows)
{
    std::ostringstream t;
    std::size_t i = 0;
    while (i < rows.size())
    {
        const std::string& group = rows[i].group;
        std::size_t end = i;
        while (end < rows.size() && rows[end].group == group)
        {
            ++end;
        }
        t << group << ": slowdown mean [95% CI] across seeds\n";
        t << std::left << std::setw(10) << "bucket" << std::right << std::setw(4) << "n"
          << "  " << std::left << std::setw(26) << "mean" << std::setw(26) << "p50"
          << "p99\n";
        // rows are ordered by bucket, so one bucket's slowdown metrics are adjacent
        std::map<std::string, const SweepAggregateRow*> cells;
        std::vector<std::string> order;
        for (std::size_t k = i; k < end; ++k)
        {
            const SweepAggregateRow& r = rows[k];
            if (r.metric.rfind("slowdown_", 0) == 0)
            {
                if (std::find(order.begin(), order.end(), r.bucket) == order.end())
                {
                    order.push_back(r.bucket);
                }
                cells[r.bucket + "/" + r.metric] = &r;
            }
        }
        for (const std::string& b : order)
        {
            auto cell = [&](const char* m) {
                auto it = cells.find(b + "/" + m);
                return it == cells.end() ? std::string("-") : IntervalText(it->second->ci);
            };
            auto n = cells.count(b + "/slowdown_mean") ? cells[b + "/slowdown_mean"]->ci.n : 0;
            t << std::left << std::setw(10) << b << std::right << std::setw(4) << n << "  "
              << std::left << std::setw(26) << cell("slowdown_mean") << std::setw(26)
              << cell("slowdown_p50") << cell("slowdown_p99") << "\n";
        }
        for (std::size_t k = i; k < end; ++k)
        {
            const SweepAggregateRow& r = rows[k];
            if (r.metric.rfind("slowdown_", 0) != 0)
            {
                t << "  " << std::left << std::setw(26) << r.metric << "n=" << r.ci.n << "  "
                  << IntervalText(r.ci) << "\n";
            }
        }
        t << "\n";
        i = end;
    }
    os << t.str();
}

} // namespace ns3
