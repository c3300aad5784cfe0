/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-generator.h"

#include "ns3/input-file.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowGenerator");

namespace
{

const char* const ALL_TO_ALL_NAME = "all-to-all";
const char* const PERMUTATION_NAME = "permutation";
const char* const INCAST_NAME = "incast";

/// Uniform integer in [0, n) from one U(0,1) draw.
uint32_t
UniformIndex(Ptr<UniformRandomVariable> uniform, uint32_t n)
{
    const auto i = static_cast<uint32_t>(uniform->GetValue() * n);
    return i < n ? i : n - 1; // guard against a draw that rounds to 1.0
}

void
CheckConfig(const FlowGeneratorConfig& c)
{
    std::ostringstream os;
    if (c.nHosts < 2)
    {
        os << "flow generator: nHosts = " << c.nHosts << ", need at least 2 hosts";
    }
    else if (!(c.load > 0 && c.load <= 1))
    {
        os << "flow generator: load = " << c.load
           << ", must be in (0,1] (a fraction of host NIC bandwidth)";
    }
    else if (!(c.hostRateBps > 0) || !std::isfinite(c.hostRateBps))
    {
        os << "flow generator: hostRateBps = " << c.hostRateBps << ", must be > 0 bit/s";
    }
    else if (c.durationNs <= 0)
    {
        os << "flow generator: durationNs = " << c.durationNs << ", must be > 0 ns";
    }
    else if (c.startNs < 0)
    {
        os << "flow generator: startNs = " << c.startNs << ", must be >= 0 ns";
    }
    else if (c.pattern == TrafficPattern::INCAST &&
             (c.incastSenders < 1 || c.incastSenders > c.nHosts - 1))
    {
        os << "flow generator: incastSenders = " << c.incastSenders << ", must be in [1, "
           << c.nHosts - 1 << "] for " << c.nHosts << " hosts";
    }
    if (!os.str().empty())
    {
        throw PrestoInputError(os.str());
    }
}

/// A uniformly random derangement (no host sends to itself), by rejection: a shuffled
/// permutation has no fixed point with probability about 1/e, so this takes ~2.7 tries.
std::vector<uint32_t>
RandomDerangement(uint32_t n, Ptr<UniformRandomVariable> uniform)
{
    std::vector<uint32_t> perm(n);
    while (true)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            perm[i] = i;
        }
        for (uint32_t i = n - 1; i > 0; --i)
        {
            std::swap(perm[i], perm[UniformIndex(uniform, i + 1)]);
        }
        bool fixedPoint = false;
        for (uint32_t i = 0; i < n && !fixedPoint; ++i)
        {
            fixedPoint = perm[i] == i;
        }
        if (!fixedPoint)
        {
            return perm;
        }
    }
}

} // namespace

TrafficPattern
TrafficPatternFromString(const std::string& name)
{
    if (name == ALL_TO_ALL_NAME)
    {
        return TrafficPattern::ALL_TO_ALL;
    }
    if (name == PERMUTATION_NAME)
    {
        return TrafficPattern::PERMUTATION;
    }
    if (name == INCAST_NAME)
    {
        return TrafficPattern::INCAST;
    }
    throw PrestoInputError("unknown traffic pattern '" + name + "': valid names are " +
                           ALL_TO_ALL_NAME + ", " + PERMUTATION_NAME + ", " + INCAST_NAME);
}

std::string
ToString(TrafficPattern pattern)
{
    switch (pattern)
    {
    case TrafficPattern::ALL_TO_ALL:
        return ALL_TO_ALL_NAME;
    case TrafficPattern::PERMUTATION:
        return PERMUTATION_NAME;
    case TrafficPattern::INCAST:
        return INCAST_NAME;
    }
    return "unknown";
}

/**
 * \param config generator configuration (checked)
 * \param sizes flow sizes
 * \return the flow arrival rate that gives config.load, flows/s
 * \throws PrestoInputError if the mean size is below 1 byte or the run would need more
 *         flows than config.flowLimit
 */
static double
FlowsPerSecond(const FlowGeneratorConfig& config, const FlowSizeCdf& sizes)
{
    const double meanBytes = sizes.MeanBytes();
    if (!(meanBytes >= 1))
    {
        // a gap of (almost) 0 ns between arrivals: the loop would never reach the end
        std::ostringstream os;
        os << "flow generator: flow-size distribution '" << InputExcerpt(sizes.GetName())
           << "' has mean " << meanBytes
           << " bytes, below 1 byte (every flow carries at least one byte; are the sizes in "
              "bytes?)";
        throw PrestoInputError(os.str());
    }
    // load = lambda * E[size] * 8 / (nHosts * hostRate), solved for lambda (flows/s).
    const double flowsPerSecond =
        config.load * config.nHosts * config.hostRateBps / (8.0 * meanBytes);
    // Refuse a configuration that asks for more flows than can be held, before making any:
    // the expected count, or maxFlows if that is smaller.
    const double expected = flowsPerSecond * static_cast<double>(config.durationNs) * 1e-9;
    const double wanted =
        config.maxFlows != 0 ? std::min(expected, double(config.maxFlows)) : expected;
    if (!(wanted <= config.flowLimit))
    {
        std::ostringstream os;
        os << "flow generator: flow-size distribution '" << InputExcerpt(sizes.GetName())
           << "' (mean " << meanBytes << " bytes) at load " << config.load << " on "
           << config.nHosts << " hosts of " << config.hostRateBps << " bit/s for "
           << config.durationNs * 1e-9 << " s needs about " << std::llround(std::min(wanted, 1e18))
           << " flows, more than the limit of " << config.flowLimit
           << " (shorten the arrival window, lower the load or cap the flows with maxFlows)";
        throw PrestoInputError(os.str());
    }
    return flowsPerSecond;
}

std::vector<FlowSpec>
GenerateFlows(const FlowGeneratorConfig& config,
              const FlowSizeCdf& sizes,
              Ptr<UniformRandomVariable> uniform)
{
    NS_LOG_FUNCTION(config.nHosts << config.load << config.hostRateBps << config.durationNs
                                  << ToString(config.pattern) << sizes.GetName());
    CheckConfig(config);
    if (!uniform)
    {
        throw PrestoInputError("flow generator: no uniform random stream given");
    }
    const double flowsPerSecond = FlowsPerSecond(config, sizes);
    const uint32_t flowsPerEvent =
        config.pattern == TrafficPattern::INCAST ? config.incastSenders : 1;
    // An incast event carries N flows, so events arrive N times less often.
    const double meanGapNs = 1e9 * flowsPerEvent / flowsPerSecond;
    NS_LOG_INFO("lambda " << flowsPerSecond << " flows/s, mean gap between events " << meanGapNs
                          << " ns");

    std::vector<uint32_t> partner;
    if (config.pattern == TrafficPattern::PERMUTATION)
    {
        partner = RandomDerangement(config.nHosts, uniform);
    }
    std::vector<uint32_t> hosts(config.nHosts);

    std::vector<FlowSpec> flows;
    const double endNs = static_cast<double>(config.startNs) + config.durationNs;
    // Accumulate in double so rounding to whole ns does not drift the arrival rate.
    double t = static_cast<double>(config.startNs);
    while (true)
    {
        // Exponential gap by inversion; 1 - u lies in (0,1], so the log is finite.
        t += -std::log(1.0 - uniform->GetValue()) * meanGapNs;
        const auto startNs = static_cast<int64_t>(std::floor(t));
        if (t >= endNs)
        {
            break;
        }
        auto addFlow = [&](uint32_t src, uint32_t dst) {
            if (flows.size() >= config.flowLimit)
            {
                // more than expected (a Poisson count above its mean): still bounded
                std::ostringstream os;
                os << "flow generator: flow-size distribution '" << InputExcerpt(sizes.GetName())
                   << "' gives more than the limit of " << config.flowLimit << " flows in "
                   << config.durationNs * 1e-9
                   << " s (shorten the arrival window or cap the flows with maxFlows)";
                throw PrestoInputError(os.str());
            }
            FlowSpec f;
            f.id = static_cast<uint32_t>(flows.size());
            f.src = src;
            f.dst = dst;
            f.dport = config.dport;
            f.sizeBytes = sizes.Sample(uniform->GetValue());
            f.startNs = startNs;
            flows.push_back(f);
        };
        switch (config.pattern)
        {
        case TrafficPattern::ALL_TO_ALL: {
            const uint32_t src = UniformIndex(uniform, config.nHosts);
            uint32_t dst = UniformIndex(uniform, config.nHosts - 1);
            dst += dst >= src ? 1 : 0; // uniform over the other hosts
            addFlow(src, dst);
            break;
        }
        case TrafficPattern::PERMUTATION: {
            const uint32_t src = UniformIndex(uniform, config.nHosts);
            addFlow(src, partner[src]);
            break;
        }
        case TrafficPattern::INCAST: {
            const uint32_t dst = UniformIndex(uniform, config.nHosts);
            // Partial Fisher-Yates over the other hosts: N distinct senders.
            uint32_t n = 0;
            for (uint32_t h = 0; h < config.nHosts; ++h)
            {
                if (h != dst)
                {
                    hosts[n++] = h;
                }
            }
            for (uint32_t k = 0; k < config.incastSenders; ++k)
            {
                const uint32_t j = k + UniformIndex(uniform, n - k);
                std::swap(hosts[k], hosts[j]);
                if (config.maxFlows == 0 || flows.size() < config.maxFlows)
                {
                    addFlow(hosts[k], dst);
                }
            }
            break;
        }
        }
        if (config.maxFlows != 0 && flows.size() >= config.maxFlows)
        {
            break;
        }
    }
    NS_LOG_INFO("generated " << flows.size() << " flows");
    return flows;
}

} // namespace ns3
