/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "device-mix.h"

#include "ns3/input-file.h"
#include "ns3/presto-input-error.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

namespace ns3
{

std::vector<DeviceShare>
ParseDeviceMix(const std::string& text, const std::vector<std::string>& valid)
{
    const std::string where = "--mix=" + InputExcerpt(text) + ": ";
    std::string names;
    for (const auto& v : valid)
    {
        names += (names.empty() ? "" : ", ") + v;
    }
    std::vector<DeviceShare> shares;
    std::istringstream is(text);
    std::string item;
    double sum = 0;
    while (std::getline(is, item, ','))
    {
        const std::size_t colon = item.rfind(':'); // a TypeId name has colons too
        if (item.empty() || colon == std::string::npos)
        {
            throw PrestoInputError(where + "item '" + InputExcerpt(item) +
                                   "' is not device:fraction (e.g. presto:0.5,host-tcp:0.5)");
        }
        DeviceShare s;
        s.device = item.substr(0, colon);
        if (s.device.compare(0, 5, "ns3::") == 0 &&
            std::find(valid.begin(), valid.end(), s.device.substr(5)) != valid.end())
        {
            s.device = s.device.substr(5); // a design listed under its TypeId name
        }
        const std::string number = item.substr(colon + 1);
        if (std::find(valid.begin(), valid.end(), s.device) == valid.end())
        {
            throw PrestoInputError(where + "unknown device '" + InputExcerpt(s.device) +
                                   "'; valid devices: " + names);
        }
        for (const auto& other : shares)
        {
            if (other.device == s.device)
            {
                throw PrestoInputError(where + "device " + s.device + " is named twice");
            }
        }
        std::string why;
        if (!WholeToken::Parse(number, s.fraction, why) || !(s.fraction > 0 && s.fraction <= 1))
        {
            throw PrestoInputError(where + "fraction '" + InputExcerpt(number) + "' of " +
                                   s.device + " is not a number in (0, 1]");
        }
        sum += s.fraction;
        shares.push_back(s);
    }
    if (!text.empty() && text.back() == ',')
    {
        throw PrestoInputError(where + "empty item at the end");
    }
    if (shares.size() < 2)
    {
        throw PrestoInputError(where + "a mix names at least two devices (one device: --device)");
    }
    if (std::fabs(sum - 1) > 1e-9)
    {
        std::ostringstream os;
        os << where << "fractions sum to " << sum << ", not 1";
        throw PrestoInputError(os.str());
    }
    return shares;
}

std::vector<uint32_t>
AssignDeviceMix(const std::vector<DeviceShare>& shares, uint32_t units, const std::string& what)
{
    std::vector<uint32_t> count(shares.size());
    std::vector<double> remainder(shares.size());
    uint32_t assigned = 0;
    for (std::size_t i = 0; i < shares.size(); ++i)
    {
        const double exact = shares[i].fraction * units;
        count[i] = static_cast<uint32_t>(std::floor(exact));
        remainder[i] = exact - count[i];
        assigned += count[i];
    }
    std::vector<std::size_t> order(shares.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return remainder[a] > remainder[b];
    });
    for (std::size_t k = 0; assigned < units && k < order.size(); ++k, ++assigned)
    {
        ++count[order[k]];
    }
    std::vector<uint32_t> device;
    for (std::size_t i = 0; i < shares.size(); ++i)
    {
        if (count[i] == 0)
        {
            std::ostringstream os;
            os << "--mix: " << shares[i].device << "'s fraction " << shares[i].fraction << " of "
               << units << " " << what << " gives it none";
            throw PrestoInputError(os.str());
        }
        device.insert(device.end(), count[i], static_cast<uint32_t>(i));
    }
    return device;
}

} // namespace ns3
