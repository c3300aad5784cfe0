/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-congestion-control.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(OffloadCongestionControl);

TypeId
OffloadCongestionControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OffloadCongestionControl").SetParent<Object>().SetGroupName("Presto");
    return tid;
}

void
OffloadCongestionControl::Validate(const std::string& where) const
{
    OffloadCongestionContext ctx;
    ctx.lineRateBytesPerS = 1250000000; // 10 Gbit/s
    try
    {
        Fork(ctx);
    }
    catch (const std::exception& e)
    {
        throw PrestoInputError(where + "=" + GetInstanceTypeId().GetName() + ": " + e.what());
    }
}

void
OffloadCongestionControl::OnControlInterval(uint64_t /* nowNs */, uint64_t /* rttNs */)
{
}

uint64_t
OffloadCongestionControl::GetPacingRate() const
{
    return 0;
}

bool
OffloadCongestionControl::UsesControlLoop() const
{
    return false;
}

uint32_t
OffloadCongestionControl::GetControlIntervalRtts() const
{
    return 0;
}

} // namespace ns3
