/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-rack-pipeline.h"

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

PrestoRackPipeline::PrestoRackPipeline(uint32_t maxConnections)
    : m_maxConnections(maxConnections)
{
    if (maxConnections == 0)
    {
        throw PrestoInputError("PrestoRackPipeline: a rack pipeline needs connection slots");
    }
}

RmtPipeSlots&
PrestoRackPipeline::Join(const RmtPipeSlots::Config& config,
                         uint32_t maxConnections,
                         const void* member)
{
    if (!m_slots)
    {
        m_reporter = member;
        m_config = config;
        m_slots = std::make_unique<RmtPipeSlots>(config);
    }
    else if (config.clockHz != m_config.clockHz || config.pipes != m_config.pipes ||
             config.bufferPasses != m_config.bufferPasses ||
             config.reservedPassRate != m_config.reservedPassRate)
    {
        std::ostringstream os;
        os << "PrestoRackPipeline: a host's PrestoNetDevice has PipelineClock=" << config.clockHz
           << ", Pipes=" << config.pipes << ", PipelineBuffer=" << config.bufferPasses
           << ", TimerScanRate=" << config.reservedPassRate
           << " but the rack's pipeline, set by its first host, has " << m_config.clockHz << ", "
           << m_config.pipes << ", " << m_config.bufferPasses << ", " << m_config.reservedPassRate
           << ": one switch has one pipeline";
        throw PrestoInputError(os.str());
    }
    if (maxConnections != m_maxConnections)
    {
        throw PrestoInputError("PrestoRackPipeline: a host's PrestoNetDevice::MaxConnections=" +
                               std::to_string(maxConnections) + " but the rack's arrays have " +
                               std::to_string(m_maxConnections) + " slots");
    }
    ++m_members;
    return *m_slots;
}

bool
PrestoRackPipeline::IsReporter(const void* member) const
{
    return member == m_reporter;
}

bool
PrestoRackPipeline::Reserve()
{
    if (m_inUse >= m_maxConnections)
    {
        ++m_refused;
        return false;
    }
    ++m_inUse;
    m_inUseMax = std::max(m_inUseMax, m_inUse);
    return true;
}

void
PrestoRackPipeline::Release()
{
    if (m_inUse > 0)
    {
        --m_inUse;
    }
}

void
PrestoRackPipeline::GrowScanRange(uint32_t slots)
{
    m_scanRange += slots;
}

uint32_t
PrestoRackPipeline::GetMembers() const
{
    return m_members;
}

uint32_t
PrestoRackPipeline::GetInUse() const
{
    return m_inUse;
}

uint32_t
PrestoRackPipeline::GetInUseMax() const
{
    return m_inUseMax;
}

uint64_t
PrestoRackPipeline::GetRefused() const
{
    return m_refused;
}

uint64_t
PrestoRackPipeline::GetScanRange() const
{
    return m_scanRange;
}

uint32_t
PrestoRackPipeline::GetMaxConnections() const
{
    return m_maxConnections;
}

const RmtPipeSlots*
PrestoRackPipeline::GetSlots() const
{
    return m_slots.get();
}

} // namespace ns3
