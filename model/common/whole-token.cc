/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "whole-token.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

// Pure logic (no Simulator): PrestoCommandLine reads every option through it.

namespace ns3
{

namespace
{

/// \param text a token \param why set on refusal \return true if it may be a value at all
bool
Clean(const std::string& text, std::string& why)
{
    if (text.find('\0') != std::string::npos)
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
ParseUnsigned(const std::string& text, uint64_t max, uint64_t& value, std::string& why)
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
        if (v > (max - d) / 10)
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
ParseSigned(const std::string& text, int64_t min, int64_t max, int64_t& value, std::string& why)
{
    const bool negative = !text.empty() && text[0] == '-';
    uint64_t magnitude = 0;
    const std::string digits = negative ? text.substr(1) : text;
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

} // namespace

bool
WholeToken::Parse(const std::string& text, uint64_t& value, std::string& why)
{
    return ParseUnsigned(text, std::numeric_limits<uint64_t>::max(), value, why);
}

bool
WholeToken::Parse(const std::string& text, uint32_t& value, std::string& why)
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
WholeToken::Parse(const std::string& text, uint16_t& value, std::string& why)
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
WholeToken::Parse(const std::string& text, int64_t& value, std::string& why)
{
    return ParseSigned(text,
                       std::numeric_limits<int64_t>::min(),
                       std::numeric_limits<int64_t>::max(),
                       value,
                       why);
}

bool
WholeToken::Parse(const std::string& text, int32_t& value, std::string& why)
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
WholeToken::Parse(const std::string& text, double& value, std::string& why)
{
    if (!Clean(text, why))
    {
        return false;
    }
    // a decimal number: [sign] digits [. digits] [e [sign] digits], at least one digit
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
        }
    }
    if (digits == 0 || i != n)
    {
        why = "is not a decimal number (digits, optional fraction and exponent such as 1e-3; "
              "no hex, list, nan, inf or unit)";
        return false;
    }
    const double v = std::strtod(text.c_str(), nullptr);
    if (!std::isfinite(v))
    {
        why = "is beyond the range of a double";
        return false;
    }
    value = v;
    return true;
}

bool
WholeToken::Parse(const std::string& text, bool& value, std::string& why)
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
WholeToken::Parse(const std::string& text, std::string& value, std::string& why)
{
    if (text.find('\0') != std::string::npos)
    {
        why = "holds a NUL byte";
        return false;
    }
    value = text;
    return true;
}

} // namespace ns3
