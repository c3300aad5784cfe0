/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-congestion-control.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadCongestionControl");
NS_OBJECT_ENSURE_REGISTERED(OffloadCongestionControl);
NS_OBJECT_ENSURE_REGISTERED(OffloadDctcpCongestion);
NS_OBJECT_ENSURE_REGISTERED(OffloadNewRenoCongestion);
NS_OBJECT_ENSURE_REGISTERED(OffloadRateCongestionBase);
NS_OBJECT_ENSURE_REGISTERED(OffloadDctcpRateCongestion);
NS_OBJECT_ENSURE_REGISTERED(OffloadTasDctcpRateCongestion);

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
        Create(ctx);
    }
    catch (const std::exception& e)
    {
        throw PrestoInputError(where + "=" + GetInstanceTypeId().GetName() + ": " + e.what());
    }
}

// ------------------------------------------------------------------ window DCTCP

TypeId
OffloadDctcpCongestion::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OffloadDctcpCongestion")
            .SetParent<OffloadCongestionControl>()
            .SetGroupName("Presto")
            .AddConstructor<OffloadDctcpCongestion>()
            .AddAttribute("Gain",
                          "EWMA gain g of the marked-fraction estimate alpha, in (0, 1] "
                          "(RFC 8257: 1/16)",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&OffloadDctcpCongestion::m_gain),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("AlphaInit",
                          "Initial alpha, in [0, 1] (Linux and ns-3's TcpDctcp: 1)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&OffloadDctcpCongestion::m_alphaInit),
                          MakeDoubleChecker<double>(0.0, 1.0));
    return tid;
}

std::unique_ptr<OffloadCongestionOps>
OffloadDctcpCongestion::Create(const OffloadCongestionContext& ctx) const
{
    return std::make_unique<OffloadDctcp>(ctx.mss, ctx.initialCwndSegments, m_gain, m_alphaInit);
}

std::string
OffloadDctcpCongestion::GetShortName() const
{
    return "dctcp";
}

// ------------------------------------------------------------------ NewReno

TypeId
OffloadNewRenoCongestion::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OffloadNewRenoCongestion")
                            .SetParent<OffloadCongestionControl>()
                            .SetGroupName("Presto")
                            .AddConstructor<OffloadNewRenoCongestion>();
    return tid;
}

std::unique_ptr<OffloadCongestionOps>
OffloadNewRenoCongestion::Create(const OffloadCongestionContext& ctx) const
{
    return std::make_unique<OffloadNewReno>(ctx.mss, ctx.initialCwndSegments);
}

std::string
OffloadNewRenoCongestion::GetShortName() const
{
    return "newreno";
}

// ------------------------------------------------------------------ rate-based DCTCP

TypeId
OffloadRateCongestionBase::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OffloadRateCongestionBase")
                            .SetParent<OffloadCongestionControl>()
                            .SetGroupName("Presto");
    return tid;
}

TypeId
OffloadRateCongestionBase::AddParameters(TypeId tid, const Defaults& d)
{
    return tid
        .AddAttribute("Gain",
                      "EWMA gain g of the marked-fraction estimate alpha, in (0, 1] (TAS "
                      "cc_dctcp_weight: 1/16)",
                      DoubleValue(1.0 / 16),
                      MakeDoubleAccessor(&OffloadRateCongestionBase::m_gain),
                      MakeDoubleChecker<double>(1e-6, 1.0))
        .AddAttribute("AlphaInit",
                      "Initial alpha, in [0, 1] (TAS: 0; RFC 8257 and ns-3's TcpDctcp: 1)",
                      DoubleValue(d.alphaInit),
                      MakeDoubleAccessor(&OffloadRateCongestionBase::m_alphaInit),
                      MakeDoubleChecker<double>(0.0, 1.0))
        .AddAttribute("InitialRate",
                      "Rate before the first control interval, bit/s; 0: the initial window "
                      "per initial RTT estimate, capped at the line rate (TAS "
                      "cc_dctcp_init: 10 Mbit/s)",
                      DataRateValue(d.initialRate),
                      MakeDataRateAccessor(&OffloadRateCongestionBase::m_initialRate),
                      MakeDataRateChecker())
        .AddAttribute("Step",
                      "Additive increase per unmarked control interval, bit/s (TAS "
                      "cc_dctcp_step: 10 Mbit/s)",
                      DataRateValue(DataRate("10Mbps")),
                      MakeDataRateAccessor(&OffloadRateCongestionBase::m_step),
                      MakeDataRateChecker())
        .AddAttribute("MinRate",
                      "Lower bound of the rate, bit/s (TAS cc_dctcp_min: 0, and a rate of 0 "
                      "is unpaced)",
                      DataRateValue(d.minRate),
                      MakeDataRateAccessor(&OffloadRateCongestionBase::m_minRate),
                      MakeDataRateChecker())
        .AddAttribute("MaxRate",
                      "Upper bound of the rate, bit/s; 0: the NIC's line rate",
                      DataRateValue(DataRate(0)),
                      MakeDataRateAccessor(&OffloadRateCongestionBase::m_maxRate),
                      MakeDataRateChecker())
        .AddAttribute("MinAcks",
                      "ACKs a control interval needs before it is evaluated; fewer are "
                      "carried over, ACKs (TAS cc_dctcp_minpkts: 50)",
                      UintegerValue(50),
                      MakeUintegerAccessor(&OffloadRateCongestionBase::m_minAcks),
                      MakeUintegerChecker<uint32_t>(1, 1000000))
        .AddAttribute("RateClamp",
                      "The rate is clamped to this factor times the measured ACK rate, 0 "
                      "(off) or >= 1 (TAS: 1.2; robust default: 1.0)",
                      DoubleValue(d.rateClamp),
                      MakeDoubleAccessor(&OffloadRateCongestionBase::m_rateClamp),
                      MakeDoubleChecker<double>(0.0, 1000.0))
        .AddAttribute("ControlInterval",
                      "Control interval of the rate computation, RTTs (TAS "
                      "cc_control_interval: 2; robust default: 1); host-loop timeouts "
                      "count these intervals",
                      UintegerValue(d.intervalRtts),
                      MakeUintegerAccessor(&OffloadRateCongestionBase::m_intervalRtts),
                      MakeUintegerChecker<uint32_t>(1, 1000))
        .AddAttribute("AdditiveIncrease",
                      "Robust mode: additive increase per control interval, at least this "
                      "many segments per RTT for every RTT elapsed, segments (calibrated "
                      "default 0.5; TAS's mode adds Step only)",
                      DoubleValue(0.5),
                      MakeDoubleAccessor(&OffloadRateCongestionBase::m_additive),
                      MakeDoubleChecker<double>(0.0, 1000.0));
}

std::unique_ptr<OffloadCongestionOps>
OffloadRateCongestionBase::Create(const OffloadCongestionContext& ctx) const
{
    OffloadDctcpRateParams p;
    p.mode = GetMode();
    p.gain = m_gain;
    p.alphaInit = m_alphaInit;
    const uint64_t line = std::max<uint64_t>(1, ctx.lineRateBytesPerS);
    p.maxRate = m_maxRate.GetBitRate() > 0 ? m_maxRate.GetBitRate() / 8 : line;
    p.minRate = m_minRate.GetBitRate() / 8;
    p.step = m_step.GetBitRate() / 8;
    p.minAcks = m_minAcks;
    p.rateClamp = m_rateClamp;
    p.additiveIncrease = m_additive;
    p.controlIntervalRtts = m_intervalRtts;
    if (m_initialRate.GetBitRate() > 0)
    {
        p.initialRate = m_initialRate.GetBitRate() / 8;
    }
    else
    {
        // the initial window per initial RTT: what a window-based sender sends in its first RTT
        const double rate = static_cast<double>(ctx.mss) * ctx.initialCwndSegments * 1e9 /
                            static_cast<double>(std::max<uint64_t>(1, ctx.rttInitNs));
        p.initialRate =
            std::max<uint64_t>(p.minRate,
                               std::min<uint64_t>(p.maxRate, static_cast<uint64_t>(rate)));
    }
    return std::make_unique<OffloadDctcpRate>(ctx.mss, p);
}

TypeId
OffloadDctcpRateCongestion::GetTypeId()
{
    static TypeId tid = AddParameters(TypeId("ns3::OffloadDctcpRateCongestion")
                                          .SetParent<OffloadRateCongestionBase>()
                                          .SetGroupName("Presto")
                                          .AddConstructor<OffloadDctcpRateCongestion>(),
                                      Defaults{1.0, DataRate(0), DataRate("10Mbps"), 1.0, 1});
    return tid;
}

std::string
OffloadDctcpRateCongestion::GetShortName() const
{
    return "dctcp-rate";
}

OffloadDctcpRateParams::Mode
OffloadDctcpRateCongestion::GetMode() const
{
    return OffloadDctcpRateParams::Mode::ROBUST;
}

TypeId
OffloadTasDctcpRateCongestion::GetTypeId()
{
    static TypeId tid = AddParameters(TypeId("ns3::OffloadTasDctcpRateCongestion")
                                          .SetParent<OffloadRateCongestionBase>()
                                          .SetGroupName("Presto")
                                          .AddConstructor<OffloadTasDctcpRateCongestion>(),
                                      Defaults{0.0, DataRate("10Mbps"), DataRate(0), 1.2, 2});
    return tid;
}

std::string
OffloadTasDctcpRateCongestion::GetShortName() const
{
    return "dctcp-rate-tas";
}

OffloadDctcpRateParams::Mode
OffloadTasDctcpRateCongestion::GetMode() const
{
    return OffloadDctcpRateParams::Mode::TAS;
}

} // namespace ns3
