/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cc-ablation.h"

#include <cmath>
#include <iomanip>
#include <sstream>

// Pure logic (no ns-3): the comparison's ablation mode computes and prints it.

namespace ns3
{

namespace
{

/// \return table[{design, cc}], or NaN when that run is missing
double
Value(const AblationTable& table, const std::string& design, const std::string& cc)
{
    auto it = table.find({design, cc});
    return it == table.end() ? std::nan("") : it->second;
}

std::string
Number(double v)
{
    if (std::isnan(v))
    {
        return "-";
    }
    std::ostringstream os;
    os << std::fixed << std::setprecision(2) << v;
    return os.str();
}

} // namespace

std::vector<AblationSplit>
SplitDifferences(const AblationTable& table,
                 const std::vector<std::string>& designs,
                 const std::map<std::string, std::string>& native)
{
    std::vector<AblationSplit> out;
    for (std::size_t i = 0; i < designs.size(); ++i)
    {
        for (std::size_t j = i + 1; j < designs.size(); ++j)
        {
            AblationSplit s;
            s.a = designs[i];
            s.b = designs[j];
            s.ccA = native.at(s.a);
            s.ccB = native.at(s.b);
            s.total = Value(table, s.a, s.ccA) - Value(table, s.b, s.ccB);
            if (std::isnan(s.total))
            {
                continue; // a native run is missing
            }
            double sum = 0;
            for (const std::string& c : {s.ccA, s.ccB})
            {
                const double d = Value(table, s.a, c) - Value(table, s.b, c);
                if (!std::isnan(d) && (s.at.empty() || s.at.front() != c))
                {
                    sum += d;
                    s.at.push_back(c);
                }
            }
            if (s.at.empty())
            {
                continue; // no common algorithm among the natives
            }
            s.design = sum / static_cast<double>(s.at.size());
            s.cc = s.total - s.design;
            out.push_back(s);
        }
    }
    return out;
}

std::string
FormatAblation(const std::string& metric,
               const AblationTable& table,
               const std::vector<std::string>& designs,
               const std::vector<std::string>& ccs,
               const std::vector<AblationSplit>& splits)
{
    std::ostringstream os;
    std::size_t width = 8;
    for (const auto& d : designs)
    {
        width = std::max(width, d.size() + 1);
    }
    os << metric << " by congestion control:\n"
       << std::left << std::setw(static_cast<int>(width)) << "device" << std::right;
    for (const auto& c : ccs)
    {
        os << std::setw(16) << c;
    }
    os << "\n";
    for (const auto& d : designs)
    {
        os << std::left << std::setw(static_cast<int>(width)) << d << std::right;
        for (const auto& c : ccs)
        {
            os << std::setw(16) << Number(Value(table, d, c));
        }
        os << "\n";
    }
    os << "each pair under its own congestion control: difference = from design + from cc\n";
    for (const auto& s : splits)
    {
        std::string pair = s.a + " (" + s.ccA + ") - " + s.b + " (" + s.ccB + ")";
        os << "  " << std::left << std::setw(48) << pair << std::right << std::setw(9)
           << Number(s.total) << " = " << std::setw(8) << Number(s.design) << " + " << std::setw(8)
           << Number(s.cc) << "   (design part at";
        for (const auto& c : s.at)
        {
            os << " " << c;
        }
        os << ")\n";
    }
    return os.str();
}

std::string
AblationCsv(const std::vector<AblationSplit>& splits)
{
    std::ostringstream os;
    os << "a,b,cc_a,cc_b,total,from_design,from_cc,design_at\n";
    os << std::setprecision(17);
    for (const auto& s : splits)
    {
        os << s.a << "," << s.b << "," << s.ccA << "," << s.ccB << "," << s.total << "," << s.design
           << "," << s.cc << ",";
        for (std::size_t i = 0; i < s.at.size(); ++i)
        {
            os << (i ? " " : "") << s.at[i];
        }
        os << "\n";
    }
    return os.str();
}

} // namespace ns3
