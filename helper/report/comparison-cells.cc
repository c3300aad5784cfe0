/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "comparison-cells.h"

#include <charconv>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace comparison
{

std::string
CsvNumber(double v)
{
    if (std::isnan(v))
    {
        return "";
    }
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof(buf), v);
    return std::string(buf, res.ptr);
}

std::string
Cell(double v, int decimals)
{
    if (std::isnan(v))
    {
        return "-";
    }
    std::ostringstream os;
    os << std::fixed << std::setprecision(decimals) << v;
    return os.str();
}

std::string
Join(const std::vector<std::string>& v, const std::string& sep)
{
    std::string s;
    for (const auto& x : v)
    {
        s += (s.empty() ? "" : sep) + x;
    }
    return s;
}

} // namespace comparison

} // namespace ns3
