/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "whole-token.h"

#include "ns3/data-rate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>

// Pure logic (no Simulator): PrestoCommandLine reads every option through it, and every
// input file parser every numeric field.

namespace ns3
{

namespace
{

/// \param text a token \param why set on refusal \return true if it may be a value at all
bool
Clean(std::string_view text, std::string& why)
{
    if (text.find('\0') != std::string_view::npos)
    {
        why = "holds a NUL byte";
        return false;
    }
    if (!text.empty() && (std::isspace(static_cast<unsigned char>(text.front())) ||
                          std::isspace(static_cast<unsigned char>(text.back()))))
    {
        why = "has white space around the value";
        return false;
    }
    return true;
}

/// Whole-token unsigned decimal within [0, max].
bool
ParseUnsigned(std::string_view text, uint64_t max, uint64_t& value, std::string& why)
{
    if (!Clean(text, why))
    {
        return false;
    }
    if (text.empty())
    {
        why = "is empty: a whole number is needed";
        return false;
    }
    if (text[0] == '-' || text[0] == '+')
    {
        why = "has a sign: a whole number >= 0 is needed (no sign)";
        return false;
    }
    uint64_t v = 0;
    for (char c : text)
    {
        if (c < '0' || c > '9')
        {
            why = "is not a whole number (decimal digits only: no fraction, exponent, hex or "
                  "unit)";
            return false;
        }
        const auto d = static_cast<uint64_t>(c - '0');
        if (d > max || v > (max - d) / 10)
        {
            why = "is above the largest value, " + std::to_string(max);
            return false;
        }
        v = v * 10 + d;
    }
    value = v;
    return true;
}

/// Whole-token signed decimal within [min, max].
bool
ParseSigned(std::string_view text, int64_t min, int64_t max, int64_t& value, std::string& why)
{
    const bool negative = !text.empty() && text[0] == '-';
    uint64_t magnitude = 0;
    const std::string_view digits = negative ? text.substr(1) : text;
    if (!ParseUnsigned(digits,
                       negative ? uint64_t(-(min + 1)) + 1 : static_cast<uint64_t>(max),
                       magnitude,
                       why))
    {
        if (why.rfind("is above", 0) == 0)
        {
            why = negative ? "is below the smallest value, " + std::to_string(min)
                           : "is above the largest value, " + std::to_string(max);
        }
        return false;
    }
    // -(magnitude - 1) - 1 reaches the smallest value without overflowing
    value = !negative        ? static_cast<int64_t>(magnitude)
            : magnitude == 0 ? 0
                             : -static_cast<int64_t>(magnitude - 1) - 1;
    return true;
}

/// Whether text is a decimal number: [sign] digits [. digits] [e [sign] digits], with at
/// least one digit before the exponent. \param text a token \param[out] exponent true if it
/// has an exponent \param why set on refusal \return true if it is
bool
Decimal(std::string_view text, bool& exponent, std::string& why)
{
    if (!Clean(text, why))
    {
        return false;
    }
    std::size_t i = 0;
    const std::size_t n = text.size();
    if (i < n && (text[i] == '+' || text[i] == '-'))
    {
        ++i;
    }
    std::size_t digits = 0;
    while (i < n && std::isdigit(static_cast<unsigned char>(text[i])))
    {
        ++i;
        ++digits;
    }
    if (i < n && text[i] == '.')
    {
        ++i;
        while (i < n && std::isdigit(static_cast<unsigned char>(text[i])))
        {
            ++i;
            ++digits;
        }
    }
    exponent = false;
    if (digits > 0 && i < n && (text[i] == 'e' || text[i] == 'E'))
    {
        std::size_t j = i + 1;
        if (j < n && (text[j] == '+' || text[j] == '-'))
        {
            ++j;
        }
        std::size_t expDigits = 0;
        while (j < n && std::isdigit(static_cast<unsigned char>(text[j])))
        {
            ++j;
            ++expDigits;
        }
        if (expDigits > 0)
        {
            i = j;
            exponent = true;
        }
    }
    if (digits == 0 || i != n)
    {
        why = "is not a decimal number (such as 2, 0.5 or 1e-3; no hex, nan, inf, list or unit)";
        return false;
    }
    return true;
}

} // namespace

bool
WholeToken::Parse(std::string_view text, uint64_t& value, std::string& why)
{
    return ParseUnsigned(text, std::numeric_limits<uint64_t>::max(), value, why);
}

bool
WholeToken::Parse(std::string_view text, uint32_t& value, std::string& why)
{
    uint64_t v = 0;
    if (!ParseUnsigned(text, std::numeric_limits<uint32_t>::max(), v, why))
    {
        return false;
    }
    value = static_cast<uint32_t>(v);
    return true;
}

bool
WholeToken::Parse(std::string_view text, uint16_t& value, std::string& why)
{
    uint64_t v = 0;
    if (!ParseUnsigned(text, std::numeric_limits<uint16_t>::max(), v, why))
    {
        return false;
    }
    value = static_cast<uint16_t>(v);
    return true;
}

bool
WholeToken::Parse(std::string_view text, int64_t& value, std::string& why)
{
    return ParseSigned(text,
                       std::numeric_limits<int64_t>::min(),
                       std::numeric_limits<int64_t>::max(),
                       value,
                       why);
}

bool
WholeToken::Parse(std::string_view text, int32_t& value, std::string& why)
{
    int64_t v = 0;
    if (!ParseSigned(text,
                     std::numeric_limits<int32_t>::min(),
                     std::numeric_limits<int32_t>::max(),
                     v,
                     why))
    {
        return false;
    }
    value = static_cast<int32_t>(v);
    return true;
}

bool
WholeToken::Parse(std::string_view text, double& value, std::string& why)
{
    bool exponent = false;
    if (!Decimal(text, exponent, why))
    {
        return false;
    }
    const std::string terminated(text); // strtod reads up to a NUL, which Decimal refused
    const double v = std::strtod(terminated.c_str(), nullptr);
    if (!std::isfinite(v))
    {
        why = "is beyond the range of a double";
        return false;
    }
    value = v;
    return true;
}

bool
WholeToken::Parse(std::string_view text, bool& value, std::string& why)
{
    if (text.empty() || text == "true" || text == "1")
    {
        value = true;
        return true;
    }
    if (text == "false" || text == "0")
    {
        value = false;
        return true;
    }
    why = "is not a boolean (true, false, 1 or 0)";
    return false;
}

bool
WholeToken::Parse(std::string_view text, std::string& value, std::string& why)
{
    if (text.find('\0') != std::string_view::npos)
    {
        why = "holds a NUL byte";
        return false;
    }
    value = std::string(text);
    return true;
}

bool
WholeToken::Parse(std::string_view text, uint64_t max, uint64_t& value, std::string& why)
{
    return ParseUnsigned(text, max, value, why);
}

bool
WholeToken::ParseSeconds(std::string_view text, uint64_t maxSeconds, int64_t& ns, std::string& why)
{
    constexpr int64_t NS_PER_S = 1000000000;
    // room for the rounding and the fraction: the bound's ns stay below 2^63
    maxSeconds = std::min<uint64_t>(maxSeconds, std::numeric_limits<int64_t>::max() / NS_PER_S - 1);
    const int64_t maxNs = static_cast<int64_t>(maxSeconds) * NS_PER_S;
    const std::string above =
        "is beyond " + std::to_string(maxSeconds) + " s, the largest " + "time accepted";
    bool exponent = false;
    if (!Decimal(text, exponent, why))
    {
        return false;
    }
    int64_t v = 0;
    if (exponent)
    {
        double s = 0;
        if (!Parse(text, s, why))
        {
            return false;
        }
        if (std::fabs(s) > static_cast<double>(maxSeconds))
        {
            why = above;
            return false;
        }
        v = std::llround(s * NS_PER_S);
    }
    else
    {
        const bool negative = text[0] == '-';
        std::size_t i = (text[0] == '-' || text[0] == '+') ? 1 : 0;
        uint64_t seconds = 0;
        for (; i < text.size() && text[i] != '.'; ++i)
        {
            const auto d = static_cast<uint64_t>(text[i] - '0');
            if (d > maxSeconds || seconds > (maxSeconds - d) / 10)
            {
                why = above;
                return false;
            }
            seconds = seconds * 10 + d;
        }
        const std::string_view frac = i < text.size() ? text.substr(i + 1) : std::string_view();
        int64_t fracNs = 0;
        for (std::size_t k = 0; k < 9; ++k)
        {
            fracNs = fracNs * 10 + (k < frac.size() ? frac[k] - '0' : 0);
        }
        if (frac.size() > 9 && frac[9] >= '5')
        {
            ++fracNs; // half up on the first dropped digit
        }
        v = static_cast<int64_t>(seconds) * NS_PER_S + fracNs;
        v = negative ? -v : v;
    }
    if (v > maxNs || v < -maxNs)
    {
        why = above;
        return false;
    }
    ns = v;
    return true;
}

bool
WholeToken::ParseRate(std::string_view text, double& bps, std::string& why)
{
    if (!Clean(text, why))
    {
        return false;
    }
    // the unit: the letters and slashes at the end ("Gbps", "Gb/s")
    std::size_t u = text.size();
    while (u > 0 && (std::isalpha(static_cast<unsigned char>(text[u - 1])) || text[u - 1] == '/'))
    {
        --u;
    }
    const std::string_view unit = text.substr(u);
    DataRateValue one;
    if (unit.empty() || !one.DeserializeFromString("1" + std::string(unit), MakeDataRateChecker()))
    {
        why = "has no data rate unit at its end (bps, kbps, Mbps, Gbps, Gb/s, ...; examples: "
              "10Gbps, 400Mbps)";
        return false;
    }
    double number = 0;
    if (!Parse(text.substr(0, u), number, why))
    {
        why = "has a number before its unit that " + why;
        return false;
    }
    const double exact = number * static_cast<double>(one.Get().GetBitRate());
    const double v = std::round(exact);
    if (!(v >= 1) || v >= 18446744073709551616.0)
    {
        why = "is not a data rate of at least 1 bit/s and below 2^64 bit/s";
        return false;
    }
    if (std::abs(exact - v) > 1e-9 * v)
    {
        // DataRate counts whole bit/s: 3.9bps would run at 3
        why = "is not a whole number of bit/s";
        return false;
    }
    bps = v;
    return true;
}

bool
WholeToken::ParseDuration(std::string_view text, int64_t maxNs, int64_t& ns, std::string& why)
{
    static const std::pair<std::string_view, double> units[] = {{"ns", 1.0},
                                                                {"us", 1e3},
                                                                {"ms", 1e6},
                                                                {"s", 1e9}};
    if (!Clean(text, why))
    {
        return false;
    }
    for (const auto& [unit, scale] : units)
    {
        if (text.size() > unit.size() && text.substr(text.size() - unit.size()) == unit)
        {
            double number = 0;
            if (!Parse(text.substr(0, text.size() - unit.size()), number, why))
            {
                why = "has a number before its unit that " + why;
                return false;
            }
            if (number < 0)
            {
                why = "is negative: a duration is >= 0";
                return false;
            }
            if (number * scale > static_cast<double>(maxNs))
            {
                why = "is beyond " + std::to_string(maxNs) + " ns, the longest accepted";
                return false;
            }
            ns = std::llround(number * scale);
            return true;
        }
    }
    why = "has no time unit at its end (ns, us, ms or s; examples: 1000ns, 1us)";
    return false;
}

} // namespace ns3
