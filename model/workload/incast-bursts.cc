/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "incast-bursts.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IncastBursts");

BurstArrivals
BurstArrivalsFromString(const std::string& name, const std::string& option)
{
    if (name == "off")
    {
        return BurstArrivals::OFF;
    }
    if (name == "periodic")
    {
        return BurstArrivals::PERIODIC;
    }
    if (name == "poisson")
    {
        return BurstArrivals::POISSON;
    }
    throw PrestoInputError("--" + option + "=" + name +
                           " is not valid; valid values: off, periodic, poisson");
}

std::string
ToString(BurstArrivals arrivals)
{
    switch (arrivals)
    {
    case BurstArrivals::OFF:
        return "off";
    case BurstArrivals::PERIODIC:
        return "periodic";
    case BurstArrivals::POISSON:
        return "poisson";
    }
    return "unknown";
}

std::vector<FlowSpec>
GenerateIncastBursts(const IncastBurstConfig& c,
                     ExperimentRandom& random,
                     std::vector<uint32_t>* burstOfFlow)
{
    NS_LOG_FUNCTION(ToString(c.arrivals)
                    << c.nHosts << c.senders << c.bytesPerSender << c.intervalNs);
    if (burstOfFlow)
    {
        burstOfFlow->clear();
    }
    if (c.arrivals == BurstArrivals::OFF)
    {
        return {};
    }
    std::ostringstream os;
    if (c.nHosts < 2 || c.senders < 1 || c.senders > c.nHosts - 1)
    {
        os << "incast bursts: " << c.senders << " senders per burst, must be in [1, "
           << (c.nHosts < 2 ? 0 : c.nHosts - 1) << "] for " << c.nHosts << " hosts";
    }
    else if (c.receiver < -1 || c.receiver >= static_cast<int64_t>(c.nHosts))
    {
        os << "incast bursts: receiver " << c.receiver << " is not a host index in [0, "
           << c.nHosts - 1 << "] (or -1: a random receiver per burst)";
    }
    else if (c.bytesPerSender < 1 || c.bytesPerSender > MAX_FLOW_BYTES)
    {
        os << "incast bursts: " << c.bytesPerSender << " bytes per sender, must be in [1, "
           << MAX_FLOW_BYTES << "]";
    }
    else if (c.intervalNs <= 0 || c.durationNs <= 0 || c.startNs < 0)
    {
        os << "incast bursts: interval " << c.intervalNs << " ns and window " << c.durationNs
           << " ns must be positive, start " << c.startNs << " ns >= 0";
    }
    else if (c.arrivals == BurstArrivals::PERIODIC && c.intervalNs >= c.durationNs)
    {
        os << "incast bursts: periodic interval " << c.intervalNs * 1e-9
           << " s is not below the arrival window of " << c.durationNs * 1e-9
           << " s: no burst would arrive";
    }
    else if (static_cast<double>(c.durationNs) / c.intervalNs * c.senders > c.flowLimit)
    {
        os << "incast bursts: about "
           << static_cast<uint64_t>(static_cast<double>(c.durationNs) / c.intervalNs) * c.senders
           << " flows, more than the limit of " << c.flowLimit
           << " (a longer interval or fewer senders)";
    }
    if (!os.str().empty())
    {
        throw PrestoInputError(os.str());
    }

    std::vector<FlowSpec> flows;
    std::vector<uint32_t> others(c.nHosts - 1);
    const double end = static_cast<double>(c.startNs) + c.durationNs;
    double t = static_cast<double>(c.startNs);
    for (uint32_t burst = 0;; ++burst)
    {
        t = c.arrivals == BurstArrivals::PERIODIC
                ? static_cast<double>(c.startNs) + static_cast<double>(burst + 1) * c.intervalNs
                : t + random.Exponential(static_cast<double>(c.intervalNs));
        if (t >= end)
        {
            break;
        }
        const auto dst = c.receiver >= 0 ? static_cast<uint32_t>(c.receiver)
                                         : static_cast<uint32_t>(random.Index(c.nHosts));
        uint32_t n = 0;
        for (uint32_t h = 0; h < c.nHosts; ++h)
        {
            if (h != dst)
            {
                others[n++] = h;
            }
        }
        for (uint32_t k = 0; k < c.senders; ++k)
        {
            const auto j = static_cast<uint32_t>(k + random.Index(n - k));
            std::swap(others[k], others[j]);
            if (flows.size() >= c.flowLimit)
            {
                std::ostringstream limit;
                limit << "incast bursts: more than the limit of " << c.flowLimit << " flows";
                throw PrestoInputError(limit.str());
            }
            FlowSpec f;
            f.id = static_cast<uint32_t>(flows.size());
            f.src = others[k];
            f.dst = dst;
            f.dport = c.dport;
            f.sizeBytes = c.bytesPerSender;
            f.startNs = static_cast<int64_t>(t);
            flows.push_back(f);
            if (burstOfFlow)
            {
                burstOfFlow->push_back(burst);
            }
        }
    }
    NS_LOG_INFO(flows.size() << " incast flows");
    return flows;
}

} // namespace ns3
