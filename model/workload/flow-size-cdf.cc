/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-size-cdf.h"

#include "ns3/flow-spec.h"
#include "ns3/input-file.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#ifndef PRESTO_DATA_DIR
#define PRESTO_DATA_DIR "data"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowSizeCdf");

namespace
{

/// Tolerance on the last cumulative probability: files written with rounded percentages
/// must still end at exactly 1 up to floating-point noise, not up to a typo.
constexpr double LAST_PROB_TOLERANCE = 1e-9;

std::string
Where(const std::string& source, uint64_t line)
{
    std::ostringstream os;
    os << "CDF file '" << source << "', line " << line << ": ";
    return os.str();
}

std::string
JoinNames(const std::vector<std::string>& names)
{
    std::string s;
    for (size_t i = 0; i < names.size(); ++i)
    {
        s += (i ? ", " : "") + names[i];
    }
    return s;
}

/// \return a piece of input as a message quotes it: '...', at most 80 characters
std::string
Quote(const std::string& text)
{
    return "'" + InputExcerpt(text) + "'";
}

/// Directory of the built-in CDF files: the environment wins so that an installed binary
/// can be pointed at a copy of data/ without recompiling.
std::string
DataDirectory()
{
    const char* env = std::getenv("PRESTO_DATA_DIR");
    if (env != nullptr && env[0] != '\0')
    {
        return env;
    }
    return PRESTO_DATA_DIR;
}

} // namespace

std::vector<std::string>
FlowSizeCdf::BuiltinNames()
{
    return {"websearch", "datamining", "hadoop", "alistorage", "googlerpc"};
}

FlowSizeCdf
FlowSizeCdf::Load(const std::string& nameOrPath)
{
    NS_LOG_FUNCTION(nameOrPath);
    auto names = BuiltinNames();
    // message sizes of the key-value workload, not flow workloads: built in, not listed
    names.insert(names.end(), {"etc-key", "etc-value"});
    const bool builtin = std::find(names.begin(), names.end(), nameOrPath) != names.end();
    const std::string path = builtin ? DataDirectory() + "/" + nameOrPath + ".cdf" : nameOrPath;

    auto text = TryReadInputText(path, "CDF file");
    if (!text)
    {
        if (builtin)
        {
            throw PrestoInputError("built-in workload '" + nameOrPath + "': cannot open '" + path +
                                   "' (set PRESTO_DATA_DIR to the folder holding the .cdf files)");
        }
        // A bare word that is not a file was most likely meant as a built-in name.
        const bool looksLikeName = nameOrPath.find_first_of("/.") == std::string::npos;
        if (looksLikeName)
        {
            throw PrestoInputError("unknown workload '" + nameOrPath + "': valid names are " +
                                   JoinNames(names) + ", or give the path of a CDF file");
        }
        throw PrestoInputError("cannot open CDF file '" + path +
                               "' (built-in names: " + JoinNames(names) + ")");
    }
    InputTextStream in(text);
    FlowSizeCdf cdf = Parse(in, path);
    if (builtin)
    {
        cdf.m_name = nameOrPath;
    }
    return cdf;
}

FlowSizeCdf
FlowSizeCdf::Parse(std::istream& in, const std::string& sourceName)
{
    NS_LOG_FUNCTION(sourceName);
    FlowSizeCdf cdf;
    cdf.m_name = sourceName;
    std::string line;
    InputLineReader lines(in, sourceName);
    uint64_t lastPointLine = 0;
    while (lines.Next(line))
    {
        const uint64_t lineNo = lines.LineNumber();
        std::istringstream fields(line);
        std::vector<std::string> tokens;
        std::string token;
        while (fields >> token)
        {
            tokens.push_back(token);
        }
        if (tokens.empty() || tokens[0][0] == '#')
        {
            continue;
        }
        if (tokens.size() < 2)
        {
            throw PrestoInputError(Where(sourceName, lineNo) +
                                   "expected 'size_bytes cumulative_prob', got " + Quote(line));
        }
        if (tokens.size() > 2)
        {
            throw PrestoInputError(Where(sourceName, lineNo) + "trailing garbage " +
                                   Quote(tokens[2]) + " after 'size_bytes cumulative_prob'");
        }
        double size = 0;
        double prob = 0;
        std::string why;
        if (!WholeToken::Parse(tokens[0], size, why))
        {
            throw PrestoInputError(Where(sourceName, lineNo) + "cannot parse size " +
                                   Quote(tokens[0]) + " as a finite number of bytes: it " + why);
        }
        if (!WholeToken::Parse(tokens[1], prob, why))
        {
            throw PrestoInputError(Where(sourceName, lineNo) + "cannot parse probability " +
                                   Quote(tokens[1]) + " as a number: it " + why);
        }
        if (size < 0)
        {
            throw PrestoInputError(Where(sourceName, lineNo) + "negative size " + Quote(tokens[0]));
        }
        if (size > static_cast<double>(MAX_FLOW_BYTES))
        {
            throw PrestoInputError(
                Where(sourceName, lineNo) + "size " + Quote(tokens[0]) +
                " above the largest flow, 2^53 = " + std::to_string(MAX_FLOW_BYTES) + " bytes");
        }
        if (prob < 0 || prob > 1)
        {
            throw PrestoInputError(Where(sourceName, lineNo) + "probability " + Quote(tokens[1]) +
                                   " outside [0,1] (percentages must be divided by 100)");
        }
        if (!cdf.m_points.empty())
        {
            const auto& prev = cdf.m_points.back();
            if (size < prev.first)
            {
                throw PrestoInputError(Where(sourceName, lineNo) + "size " + Quote(tokens[0]) +
                                       " is smaller than the previous size (sizes must not "
                                       "decrease)");
            }
            if (prob < prev.second)
            {
                throw PrestoInputError(Where(sourceName, lineNo) + "probability " +
                                       Quote(tokens[1]) +
                                       " is smaller than the previous probability (a CDF must "
                                       "not decrease)");
            }
        }
        cdf.m_points.emplace_back(size, prob);
        lastPointLine = lineNo;
    }
    if (in.bad())
    {
        throw PrestoInputError(Where(sourceName, lines.LineNumber()) + "read error");
    }
    if (cdf.m_points.empty())
    {
        throw PrestoInputError(Where(sourceName, std::max<uint64_t>(lines.LineNumber(), 1)) +
                               "no points (end of file reached without a 'size_bytes "
                               "cumulative_prob' line)");
    }
    const double last = cdf.m_points.back().second;
    if (std::fabs(last - 1.0) > LAST_PROB_TOLERANCE)
    {
        std::ostringstream os;
        os << Where(sourceName, lastPointLine) << "last cumulative probability is " << last
           << ", it must be 1";
        throw PrestoInputError(os.str());
    }
    // Snap to exactly 1 so that sampling can never fall off the end of the table.
    cdf.m_points.back().second = 1.0;
    NS_LOG_INFO("loaded " << cdf.m_points.size() << " points from " << sourceName << ", mean "
                          << cdf.MeanBytes() << " bytes");
    return cdf;
}

uint64_t
FlowSizeCdf::Sample(double u) const
{
    NS_LOG_FUNCTION(this << u);
    u = std::min(std::max(u, 0.0), 1.0);
    // First point whose probability exceeds u: u lies in [p[i-1], p[i]).
    auto it =
        std::upper_bound(m_points.begin(),
                         m_points.end(),
                         u,
                         [](double v, const std::pair<double, double>& p) { return v < p.second; });
    double x;
    if (it == m_points.begin())
    {
        // Mass below the first point's probability sits at the first size (a point mass).
        x = m_points.front().first;
    }
    else if (it == m_points.end())
    {
        x = m_points.back().first;
    }
    else
    {
        const auto& lo = *(it - 1);
        const auto& hi = *it;
        x = lo.first + (hi.first - lo.first) * (u - lo.second) / (hi.second - lo.second);
    }
    // Rounding up keeps P(Sample <= k) == Cdf(k) at every whole byte k, so the integer
    // sizes follow the file exactly where it can be checked; the mean grows by < 1 byte.
    const double bytes = std::ceil(x);
    return bytes < 1 ? 1 : static_cast<uint64_t>(bytes);
}

double
FlowSizeCdf::Cdf(double bytes) const
{
    // First point strictly beyond `bytes`: the CDF is right-continuous, so a point mass at
    // a repeated size counts as soon as bytes reaches that size.
    auto it =
        std::upper_bound(m_points.begin(),
                         m_points.end(),
                         bytes,
                         [](double v, const std::pair<double, double>& p) { return v < p.first; });
    if (it == m_points.begin())
    {
        return 0.0;
    }
    if (it == m_points.end())
    {
        return 1.0;
    }
    const auto& lo = *(it - 1);
    const auto& hi = *it;
    return lo.second + (hi.second - lo.second) * (bytes - lo.first) / (hi.first - lo.first);
}

double
FlowSizeCdf::MeanBytes() const
{
    // The first point's probability is a point mass at its size; each segment after it
    // is uniform between its end sizes.
    double mean = m_points.front().first * m_points.front().second;
    for (size_t i = 1; i < m_points.size(); ++i)
    {
        const auto& lo = m_points[i - 1];
        const auto& hi = m_points[i];
        mean += 0.5 * (lo.first + hi.first) * (hi.second - lo.second);
    }
    return mean;
}

const std::string&
FlowSizeCdf::GetName() const
{
    return m_name;
}

const std::vector<std::pair<double, double>>&
FlowSizeCdf::GetPoints() const
{
    return m_points;
}

std::vector<uint64_t>
FlowSizeCdf::DefaultBucketEdges() const
{
    const double maxSize = m_points.back().first;
    // Smallest size a flow can have: the last size still at probability 0 (the start of
    // the first segment), or the first size if it carries a point mass.
    double minSize = m_points.front().first;
    for (const auto& p : m_points)
    {
        if (p.second > 0)
        {
            break;
        }
        minSize = p.first;
    }
    // Decade edges strictly inside (smallest size, largest size); the largest size closes
    // the last bucket.
    std::vector<double> edges;
    for (double d = 1; d < maxSize; d *= 10)
    {
        if (d > minSize)
        {
            edges.push_back(d);
        }
    }
    // A first bucket with almost no flows (< 5%) says nothing: start where flows are.
    const double minFirstMass = 0.05;
    while (edges.size() > 1 && Cdf(edges.front()) < minFirstMass)
    {
        edges.erase(edges.begin());
    }
    auto mass = [this, &edges, maxSize](size_t bucket) {
        const double hi = bucket < edges.size() ? edges[bucket] : maxSize;
        const double lo = bucket == 0 ? -1.0 : edges[bucket - 1];
        return Cdf(hi) - Cdf(lo);
    };
    // Too few buckets (a narrow CDF): split the heaviest bucket that has a 3*10^k inside.
    while (edges.size() < 4)
    {
        double bestMass = -1;
        double bestEdge = 0;
        for (size_t b = 0; b <= edges.size(); ++b)
        {
            const double hi = b < edges.size() ? edges[b] : maxSize;
            const double lo = b == 0 ? minSize : edges[b - 1];
            for (double d = 3; d < hi; d *= 10)
            {
                if (d > lo && mass(b) > bestMass)
                {
                    bestMass = mass(b);
                    bestEdge = d;
                }
            }
        }
        if (bestMass < 0)
        {
            break;
        }
        edges.insert(std::upper_bound(edges.begin(), edges.end(), bestEdge), bestEdge);
    }
    // Too many buckets (a CDF over many decades): merge the lightest neighbouring pair, so
    // the buckets that hold the flows keep their resolution.
    while (edges.size() > 5)
    {
        size_t bestEdge = 0;
        double bestMass = 2;
        for (size_t e = 0; e < edges.size(); ++e)
        {
            const double merged = mass(e) + mass(e + 1);
            if (merged < bestMass)
            {
                bestMass = merged;
                bestEdge = e;
            }
        }
        edges.erase(edges.begin() + bestEdge);
    }
    std::vector<uint64_t> result;
    for (double e : edges)
    {
        result.push_back(static_cast<uint64_t>(e));
    }
    const uint64_t last = static_cast<uint64_t>(std::ceil(maxSize));
    if (result.empty() || result.back() < last)
    {
        result.push_back(std::max<uint64_t>(last, 1));
    }
    return result;
}

} // namespace ns3
