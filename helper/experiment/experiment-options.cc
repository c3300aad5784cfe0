/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "experiment-options.h"

#include "ns3/input-file.h"
#include "ns3/presto-input-error.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{
namespace experiment
{

std::string
Join(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
    {
        s += (s.empty() ? "" : ", ") + x;
    }
    return s;
}

void
RequireOneOf(const std::string& option,
             const std::string& value,
             const std::vector<std::string>& valid)
{
    if (std::find(valid.begin(), valid.end(), value) == valid.end())
    {
        throw PrestoInputError("--" + option + "=" + value +
                               " is not valid; valid values: " + Join(valid));
    }
}

/// A data rate with its unit, in bit/s.
double
ParseRate(const std::string& option, const std::string& text)
{
    // the unit is required (a bare number was bit/s) and the rate is a whole number of bit/s
    // (DataRate counts whole bit/s: 3.9bps ran at 3) up to 1 Pbit/s, beyond any link
    constexpr double MAX_RATE_BPS = 1e15;
    double bps = 0;
    std::string why;
    if (!WholeToken::ParseRate(text, bps, why))
    {
        throw PrestoInputError("--" + option + "=" + InputExcerpt(text) +
                               " is not a data rate (examples: 10Gbps, 40Gb/s, 100Mbps): it " +
                               why);
    }
    if (bps > MAX_RATE_BPS)
    {
        std::ostringstream os;
        os << "--" << option << "=" << InputExcerpt(text) << " is " << bps
           << " bit/s: a rate is at most 1e+15 bit/s (1 Pbit/s)";
        throw PrestoInputError(os.str());
    }
    return bps;
}

/// Time with an explicit unit (s, ms, us, ns), at most 1e6 s; ns-3's own parser aborts on
/// bad input.
int64_t
ParseTimeNs(const std::string& option, const std::string& text)
{
    int64_t ns = 0;
    std::string why;
    if (!WholeToken::ParseDuration(text, 1000000000000000, ns, why))
    {
        throw PrestoInputError("--" + option + "=" + InputExcerpt(text) +
                               " is not a time with a unit (examples: 1us, 500ns, 2ms): it " + why);
    }
    return ns;
}

/// \param option its name \param value seconds \param positive whether 0 is refused
void
CheckSeconds(const std::string& option, double value, bool positive)
{
    std::ostringstream os;
    if (!std::isfinite(value) || value < 0 || (positive && value == 0))
    {
        os << "--" << option << "=" << value << " must be a finite number of seconds "
           << (positive ? "> 0" : ">= 0");
    }
    else if (value > MAX_SECONDS)
    {
        os << "--" << option << "=" << value << " is too large: at most " << MAX_SECONDS
           << " s (the module's event times count int64 picoseconds: 9.2e6 s)";
    }
    if (!os.str().empty())
    {
        throw PrestoInputError(os.str());
    }
}

/// Every text option goes into summary.json, which must be UTF-8: refuse others up front

std::vector<uint64_t>
ParseEdges(const std::string& text)
{
    std::vector<uint64_t> edges;
    std::istringstream is(text);
    std::string item;
    // each edge read whole: a stream read wrapped -1 to 2^64-1 and took "+5" as 5
    std::string why;
    while (std::getline(is, item, ','))
    {
        uint64_t e = 0;
        if (!WholeToken::Parse(item, e, why) || e == 0 || (!edges.empty() && e <= edges.back()))
        {
            throw PrestoInputError("--buckets=" + InputExcerpt(text) +
                                   ": expected increasing positive byte counts separated by "
                                   "commas, got '" +
                                   InputExcerpt(item) + "'");
        }
        edges.push_back(e);
    }
    if (!text.empty() && text.back() == ',')
    {
        throw PrestoInputError("--buckets=" + InputExcerpt(text) +
                               ": ends with a comma (an edge is missing)");
    }
    return edges;
}

} // namespace experiment
} // namespace ns3
