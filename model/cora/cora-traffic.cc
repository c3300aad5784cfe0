/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-traffic.h"

#include "ns3/experiment-random.h"
#include "ns3/presto-input-error.h"

#include <cmath>

namespace ns3
{

std::vector<CoraFlow>
CoraMakeTraffic(const CoraProgram& program, const CoraTrafficSpec& spec)
{
    const std::string where = "Cora traffic for program " + program.GetName();
    if (spec.flows == 0 || spec.sources == 0 || spec.destinations == 0)
    {
        throw PrestoInputError(where + ": flows, sources and destinations must be >= 1");
    }
    if (!(spec.totalPps > 0) || !std::isfinite(spec.totalPps))
    {
        throw PrestoInputError(where + ": total packet rate must be positive and finite");
    }
    if (!(spec.zipf >= 0) || !std::isfinite(spec.zipf))
    {
        throw PrestoInputError(where + ": Zipf exponent must be >= 0");
    }
    double sum = 0;
    for (const auto& [name, share] : spec.branchShare)
    {
        program.GetBranchIndex(name); // throws, listing the branches
        if (!(share >= 0) || !std::isfinite(share))
        {
            throw PrestoInputError(where + ": share of branch " + name + " must be >= 0");
        }
        sum += share;
    }
    if (std::abs(sum - 1.0) > 1e-6)
    {
        throw PrestoInputError(where + ": branch shares sum to " + std::to_string(sum) + ", not 1");
    }
    ExperimentRandom random(spec.stream);
    std::vector<CoraFlow> flows;
    uint64_t id = 1;
    uint32_t assigned = 0;
    uint32_t positive = 0;
    for (const auto& [name, share] : spec.branchShare)
    {
        positive += share > 0;
    }
    uint32_t seen = 0;
    for (const auto& [name, share] : spec.branchShare)
    {
        if (share <= 0)
        {
            continue;
        }
        ++seen;
        // the last branch takes the rounding remainder, every branch at least one flow
        uint32_t n = spec.branchFlows.count(name) ? spec.branchFlows.at(name)
                     : seen == positive
                         ? std::max<uint32_t>(1, spec.flows - std::min(assigned, spec.flows))
                         : std::max<uint32_t>(1, std::lround(spec.flows * share));
        if (n == 0)
        {
            throw PrestoInputError(where + ": branch " + name + " has a share but no flows");
        }
        assigned += n;
        double norm = 0;
        for (uint32_t k = 1; k <= n; ++k)
        {
            norm += 1.0 / std::pow(k, spec.zipf);
        }
        const uint32_t branch = program.GetBranchIndex(name);
        for (uint32_t k = 1; k <= n; ++k)
        {
            CoraFlow f;
            f.id = id++;
            f.branch = branch;
            f.srcIp = 0x0a000000u + static_cast<uint32_t>(random.Index(spec.sources));
            f.dstIp = 0x0b000000u + static_cast<uint32_t>(random.Index(spec.destinations));
            f.pps = spec.totalPps * share / std::pow(k, spec.zipf) / norm;
            flows.push_back(f);
        }
    }
    return flows;
}

std::vector<CoraFlow>
CoraScaleTraffic(std::vector<CoraFlow> flows, double factor)
{
    if (!(factor > 0) || !std::isfinite(factor))
    {
        throw PrestoInputError("Cora traffic scale factor must be positive and finite");
    }
    for (auto& f : flows)
    {
        f.pps *= factor;
    }
    return flows;
}

double
CoraTotalPps(const std::vector<CoraFlow>& flows)
{
    double total = 0;
    for (const auto& f : flows)
    {
        total += f.pps;
    }
    return total;
}

} // namespace ns3
