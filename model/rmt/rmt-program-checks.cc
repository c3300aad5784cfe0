/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rmt-program-checks.h"

#include "rmt-register.h"

#include "ns3/presto-input-error.h"

// Pure logic with no ns-3 dependency: the unit tests compile it alone.

namespace ns3
{

uint32_t
RmtProgramChecks::BitsFor(uint32_t n)
{
    uint32_t bits = 1;
    while (bits < 32 && (uint64_t{1} << bits) < n)
    {
        ++bits;
    }
    return bits;
}

void
RmtProgramChecks::Connections(const std::string& who, uint32_t connections)
{
    if (connections == 0 || connections > RmtRegisterArray::MAX_SIZE)
    {
        throw PrestoInputError(who + ": the number of connections must be 1.." +
                               std::to_string(RmtRegisterArray::MAX_SIZE) + ", not " +
                               std::to_string(connections));
    }
}

void
RmtProgramChecks::Stages(const std::string& who,
                         uint32_t needed,
                         const RmtPipelineConfig& config,
                         const std::string& detail,
                         const std::string& hint)
{
    if (needed > config.stageBudget)
    {
        throw PrestoInputError(who + " needs " + std::to_string(needed) + " stages" + detail +
                               " but the stage budget is " + std::to_string(config.stageBudget) +
                               " stages" + hint);
    }
}

void
RmtProgramChecks::OneRecirculation(const std::string& who,
                                   const RmtPipelineConfig& config,
                                   const std::string& why)
{
    if (config.maxPasses != 0 && config.maxPasses < 2)
    {
        throw PrestoInputError(who + ": the pass limit is " + std::to_string(config.maxPasses) +
                               " but " + why + ": at least 2 passes are needed");
    }
}

} // namespace ns3
