/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-net-device.h"

#include "presto-input-error.h"

#include "ns3/log.h"
#include "ns3/string.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PrestoNetDevice");
NS_OBJECT_ENSURE_REGISTERED(PrestoNetDevice);

TypeId
PrestoNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PrestoNetDevice")
            .SetParent<OffloadNetDevice>()
            .SetGroupName("Presto")
            .AddConstructor<PrestoNetDevice>()
            .AddAttribute("ReassemblyFidelity",
                          "Out-of-order intervals K tracked per connection: 0..16, or full "
                          "(unbounded reassembly, the reference)",
                          StringValue("1"),
                          MakeStringAccessor(&PrestoNetDevice::m_fidelityText),
                          MakeStringChecker())
            .AddAttribute("PassLatency",
                          "Latency of one pass through the match-action pipeline",
                          TimeValue(NanoSeconds(200)),
                          MakeTimeAccessor(&PrestoNetDevice::m_passLatency),
                          MakeTimeChecker(Time(0)));
    return tid;
}

PrestoNetDevice::PrestoNetDevice()
{
    NS_LOG_FUNCTION(this);
}

PrestoNetDevice::~PrestoNetDevice()
{
    NS_LOG_FUNCTION(this);
}

uint32_t
PrestoNetDevice::ParseFidelity(const std::string& text, const std::string& where)
{
    if (text == "full")
    {
        return ReassemblyTracker::UNBOUNDED;
    }
    std::istringstream is(text);
    uint32_t k;
    if (is >> k && is.eof() && k <= ReassemblyTracker::MAX_FIDELITY)
    {
        return k;
    }
    throw PrestoInputError(where + "=" + text + " is not valid; valid values: 0.." +
                           std::to_string(ReassemblyTracker::MAX_FIDELITY) + " or full");
}

void
PrestoNetDevice::ConfigureConnection(OffloadTcpConfig& cfg,
                                     Ipv4Address peer,
                                     uint16_t localPort,
                                     uint16_t peerPort)
{
    cfg.fidelity = ParseFidelity(m_fidelityText, "PrestoNetDevice::ReassemblyFidelity");
}

Time
PrestoNetDevice::ProcessReceived(uint32_t conn,
                                 const OffloadSegment& seg,
                                 const OffloadRxDecision& decision)
{
    ++m_passes;
    return m_passLatency;
}

Time
PrestoNetDevice::ProcessTransmit(uint32_t conn, const OffloadSegment& seg)
{
    ++m_passes;
    return m_passLatency;
}

void
PrestoNetDevice::AddCounters(nlohmann::json& nic) const
{
    OffloadNetDevice::AddCounters(nic);
    nic["pipeline_passes"] = nic.value("pipeline_passes", uint64_t(0)) + m_passes;
}

} // namespace ns3
