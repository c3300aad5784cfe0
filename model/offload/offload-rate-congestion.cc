/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-rate-congestion.h"

#include "offload-seq.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <string>

// Pure logic (no Simulator, no logging on the per-ACK path): the host control loop calls it
// once per control interval and the data path once per ACK; the unit tests drive it alone.

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadRateCongestion");
NS_OBJECT_ENSURE_REGISTERED(OffloadRateCongestionBase);
NS_OBJECT_ENSURE_REGISTERED(OffloadDctcpRateCongestion);
NS_OBJECT_ENSURE_REGISTERED(OffloadTasDctcpRateCongestion);

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
                      MakeDoubleAccessor(&OffloadRateCongestionBase::m_gainAttr),
                      MakeDoubleChecker<double>(1e-6, 1.0))
        .AddAttribute("AlphaInit",
                      "Initial alpha, in [0, 1] (TAS: 0; RFC 8257 and ns-3's TcpDctcp: 1)",
                      DoubleValue(d.alphaInit),
                      MakeDoubleAccessor(&OffloadRateCongestionBase::m_alphaInitAttr),
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

void
OffloadDctcpRateParams::Validate(const char* where) const
{
    auto bad = [where](const std::string& what) {
        throw PrestoInputError(std::string(where) + ": " + what);
    };
    if (mode != Mode::TAS && mode != Mode::ROBUST)
    {
        bad("unknown mode " + std::to_string(static_cast<int>(mode)));
    }
    if (!(gain > 0.0 && gain <= 1.0))
    {
        bad("EWMA gain g=" + std::to_string(gain) + " must be in (0, 1]");
    }
    if (!(alphaInit >= 0.0 && alphaInit <= 1.0))
    {
        bad("initial alpha=" + std::to_string(alphaInit) + " must be in [0, 1]");
    }
    if (maxRate == 0)
    {
        bad("maximum rate must be > 0 bytes/s");
    }
    if (maxRate < minRate)
    {
        bad("maximum rate " + std::to_string(maxRate) + " bytes/s is below the minimum rate " +
            std::to_string(minRate) + " bytes/s");
    }
    if (initialRate == 0 || initialRate < minRate || initialRate > maxRate)
    {
        bad("initial rate " + std::to_string(initialRate) + " bytes/s must be > 0 and in [" +
            std::to_string(minRate) + ", " + std::to_string(maxRate) + "]");
    }
    if (mode == Mode::ROBUST && minRate == 0)
    {
        bad("the robust mode needs a minimum rate > 0 bytes/s (a rate of 0 is unpaced)");
    }
    if (minAcks == 0)
    {
        bad("minAcks must be >= 1");
    }
    if (!(additiveIncrease >= 0.0) || !std::isfinite(additiveIncrease))
    {
        bad("additive increase " + std::to_string(additiveIncrease) + " must be >= 0");
    }
    if (!(rateClamp == 0.0 || rateClamp >= 1.0) || !std::isfinite(rateClamp))
    {
        bad("rate clamp " + std::to_string(rateClamp) + " must be 0 (off) or >= 1");
    }
}

OffloadRateCongestionBase::OffloadRateCongestionBase(OffloadDctcpRateParams::Mode mode)
{
    m_p.mode = mode;
}

OffloadRateCongestionBase::OffloadRateCongestionBase(uint32_t mss,
                                                     const OffloadDctcpRateParams& params)
    : m_mss(mss),
      m_p(params)
{
    Start();
}

void
OffloadRateCongestionBase::Start()
{
    if (m_mss == 0)
    {
        throw PrestoInputError("DCTCP rate: MSS must be at least 1 byte");
    }
    m_p.Validate("DCTCP rate");
    m_alpha = m_p.alphaInit;
    m_rate = static_cast<double>(m_p.initialRate);
}

void
OffloadRateCongestionBase::Setup(const OffloadCongestionContext& ctx)
{
    OffloadDctcpRateParams& p = m_p; // the mode is the subclass's
    p.gain = m_gainAttr;
    p.alphaInit = m_alphaInitAttr;
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
    m_mss = ctx.mss;
    Start();
}

Ptr<OffloadCongestionControl>
OffloadRateCongestionBase::Fork(const OffloadCongestionContext& ctx) const
{
    Ptr<OffloadRateCongestionBase> c = CopyObject<OffloadRateCongestionBase>(this);
    c->Setup(ctx);
    return c;
}

std::string
OffloadRateCongestionBase::GetShortName() const
{
    return m_p.mode == OffloadDctcpRateParams::Mode::TAS ? "dctcp-rate-tas" : "dctcp-rate";
}

const char*
OffloadRateCongestionBase::GetName() const
{
    return m_p.mode == OffloadDctcpRateParams::Mode::TAS ? "DCTCP-rate-TAS" : "DCTCP-rate";
}

void
OffloadRateCongestionBase::Init(uint32_t /* sndNxt */)
{
    m_acks = 0;
    m_ackedBytes = 0;
    m_eceBytes = 0;
    m_losses = 0;
    m_started = false;
}

bool
OffloadRateCongestionBase::OnAck(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt)
{
    // Only count, as the NIC's per-connection statistics do (TAS: c_acks, c_ackb, c_ecnb);
    // the host reacts once per control interval.
    ++m_acks;
    m_ackedBytes += ackedBytes;
    m_sndMaxSeen = sndNxt;
    if (!ece)
    {
        return false;
    }
    m_eceBytes += ackedBytes;
    if (!m_holding || seq::Geq(sndUna, m_holdUntil))
    {
        m_holding = false;
        m_eceFresh += ackedBytes; // marks on data sent after the last cut
    }
    // Acknowledge the congestion signal with CWR once per window of data (RFC 3168): a
    // classic-ECN receiver (ns-3's NewReno, Linux without DCTCP) repeats ECE until it sees
    // CWR. The rate itself is cut at the next control interval.
    if (!m_cwrArmed || seq::Geq(sndUna, m_cwrRecover))
    {
        m_cwrArmed = true;
        m_cwrRecover = sndNxt;
        return true;
    }
    return false;
}

void
OffloadRateCongestionBase::OnLoss(uint32_t /* bytesInFlight */, uint32_t /* sndNxt */)
{
    ++m_losses; // TAS: c_drops, the fast path's go-back-N count
}

void
OffloadRateCongestionBase::OnTimeout(uint32_t /* bytesInFlight */, uint32_t /* sndNxt */)
{
    ++m_losses; // TAS: cc_rexmits, the retransmissions the host loop issued
}

uint32_t
OffloadRateCongestionBase::GetCwnd() const
{
    return MAX_CWND;
}

uint32_t
OffloadRateCongestionBase::GetSsThresh() const
{
    // There is no window; report the window-scale limit in slow start and one segment after
    // it, so that a trace shows when slow start ended.
    return m_slowStart ? MAX_CWND : m_mss;
}

uint64_t
OffloadRateCongestionBase::AckGate(uint64_t elapsedNs) const
{
    if (m_p.mode == OffloadDctcpRateParams::Mode::TAS)
    {
        return m_p.minAcks;
    }
    // Half the segments the current rate sends in the elapsed time (ACKs may be delayed by
    // one segment), so that a slow flow is evaluated as often as a fast one.
    const double segments = m_rate * static_cast<double>(elapsedNs) * 1e-9 / m_mss;
    const auto expected = static_cast<uint64_t>(segments / 2);
    return std::max<uint64_t>(1, std::min<uint64_t>(m_p.minAcks, expected));
}

void
OffloadRateCongestionBase::OnControlInterval(uint64_t nowNs, uint64_t rttNs)
{
    const bool tas = m_p.mode == OffloadDctcpRateParams::Mode::TAS;
    if (!m_started)
    {
        // The first run only starts the clocks (TAS sets cc_last_ts when the connection opens).
        m_started = true;
        m_lastLoopNs = nowNs;
        m_lastEvalNs = nowNs;
        return;
    }
    const uint64_t sinceLoop = nowNs - m_lastLoopNs;
    m_lastLoopNs = nowNs; // TAS: cc_last_ts moves on every run, carried over or not
    const uint64_t sinceEval = nowNs - m_lastEvalNs;
    // 1. The gate (ROBUST: a loss is judged at once, and the gate scales with the rate).
    if (m_acks < AckGate(sinceEval) && (tas || m_losses == 0))
    {
        return; // too few ACKs to judge: carry the counts over (TAS cc_dctcp_minpkts)
    }
    ++m_intervals;
    m_lastEvalNs = nowNs;

    // 2. The measured rate, its EWMA, and the clamp. TAS divides the (possibly carried-over)
    //    bytes by the time since the previous run only; ROBUST by the time they took.
    const uint64_t span = tas ? sinceLoop : sinceEval;
    const double measured =
        span > 0 ? static_cast<double>(m_ackedBytes) * 1e9 / static_cast<double>(span) : 0.0;
    m_measured = (7 * m_measured + measured) / 8;
    const double actual = std::max(measured, m_measured);
    double rate = m_rate;
    // (ROBUST does not clamp in an interval with a loss: its ACKs are those of a go-back-N
    // recovery, not a measure of the share, and the loss halves the rate anyway.)
    if (m_p.rateClamp > 0 && rate > actual * m_p.rateClamp &&
        (tas || (actual > 0 && m_losses == 0)))
    {
        rate = actual * m_p.rateClamp;
    }
    // ROBUST reacts to marks once per round trip of its own reaction: ECE on data sent before
    // the previous cut reports the congestion that cut answered.
    const bool marked = tas ? m_eceBytes > 0 : m_eceFresh > 0;

    // 3. Slow start, 4. congestion avoidance (the same interval can end slow start and cut).
    if (m_slowStart)
    {
        if (m_losses == 0 && m_eceBytes == 0)
        {
            rate *= 2;
        }
        else
        {
            m_slowStart = false;
        }
    }
    if (!m_slowStart)
    {
        if (m_losses > 0)
        {
            // A loss is a stronger signal than marks: halve, as TAS does for drops and host
            // retransmissions, and leave alpha alone (the ECE count of a lossy interval is
            // incomplete).
            rate /= 2;
            m_dipFrom = 0;
            ++m_lossReductions;
        }
        else
        {
            if (m_ackedBytes > 0)
            {
                const double f = static_cast<double>(std::min(m_eceBytes, m_ackedBytes)) /
                                 static_cast<double>(m_ackedBytes);
                m_alpha = (1.0 - m_p.gain) * m_alpha + m_p.gain * f;
                m_alpha = std::min(1.0, std::max(0.0, m_alpha));
            }
            if (marked && tas)
            {
                rate *= 1.0 - m_alpha / 2.0;
                ++m_eceReductions;
            }
            else if (marked)
            {
                // A window DCTCP cut removes alpha/2 of a window, one RTT of sending, from the
                // queue once, and the ACK clock then sends at the share again. As a rate: dip
                // for this interval so that the same bytes drain, then come back.
                const double rtt = static_cast<double>(std::max<uint64_t>(rttNs, 1));
                const double drain = std::min(1.0, rtt / static_cast<double>(sinceEval));
                m_dipFrom = rate;
                rate *= 1.0 - m_alpha / 2.0 * drain;
                m_holding = true;
                m_holdUntil = m_sndMaxSeen;
                ++m_eceReductions;
            }
            else
            {
                double step = static_cast<double>(m_p.step);
                if (!tas && rttNs > 0)
                {
                    // additiveIncrease segments per RTT for every RTT that passed, as a rate
                    const double rtt = static_cast<double>(rttNs) * 1e-9;
                    step = std::max(step,
                                    m_p.additiveIncrease * m_mss *
                                        (static_cast<double>(sinceEval) * 1e-9) / (rtt * rtt));
                }
                rate = std::max(rate, m_dipFrom) + step; // back from a dip, then increase
                m_dipFrom = 0;
            }
        }
    }
    // 5. Bounds. A rate of 0 (TAS only: minRate 0) means unpaced.
    m_rate = std::min(static_cast<double>(m_p.maxRate),
                      std::max(static_cast<double>(m_p.minRate), rate));
    m_acks = 0;
    m_ackedBytes = 0;
    m_eceBytes = 0;
    m_eceFresh = 0;
    m_losses = 0;
}

uint64_t
OffloadRateCongestionBase::GetPacingRate() const
{
    // Rounded down; a rate below 1 byte/s is 0, unpaced (only reachable with minRate 0).
    return static_cast<uint64_t>(m_rate);
}

bool
OffloadRateCongestionBase::UsesControlLoop() const
{
    return true;
}

uint32_t
OffloadRateCongestionBase::GetControlIntervalRtts() const
{
    return m_p.controlIntervalRtts;
}

double
OffloadRateCongestionBase::GetAlpha() const
{
    return m_alpha;
}

double
OffloadRateCongestionBase::GetRate() const
{
    return m_rate;
}

double
OffloadRateCongestionBase::GetMeasuredRate() const
{
    return m_measured;
}

bool
OffloadRateCongestionBase::InSlowStart() const
{
    return m_slowStart;
}

uint32_t
OffloadRateCongestionBase::GetIntervals() const
{
    return m_intervals;
}

uint32_t
OffloadRateCongestionBase::GetEceReductions() const
{
    return m_eceReductions;
}

uint32_t
OffloadRateCongestionBase::GetLossReductions() const
{
    return m_lossReductions;
}

const OffloadDctcpRateParams&
OffloadRateCongestionBase::GetParams() const
{
    return m_p;
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

OffloadDctcpRateCongestion::OffloadDctcpRateCongestion()
    : OffloadRateCongestionBase(OffloadDctcpRateParams::Mode::ROBUST)
{
}

Ptr<OffloadCongestionControl>
OffloadDctcpRateCongestion::Fork(const OffloadCongestionContext& ctx) const
{
    Ptr<OffloadDctcpRateCongestion> c = CopyObject<OffloadDctcpRateCongestion>(this);
    c->Setup(ctx);
    return c;
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

OffloadTasDctcpRateCongestion::OffloadTasDctcpRateCongestion()
    : OffloadRateCongestionBase(OffloadDctcpRateParams::Mode::TAS)
{
}

Ptr<OffloadCongestionControl>
OffloadTasDctcpRateCongestion::Fork(const OffloadCongestionContext& ctx) const
{
    Ptr<OffloadTasDctcpRateCongestion> c = CopyObject<OffloadTasDctcpRateCongestion>(this);
    c->Setup(ctx);
    return c;
}

} // namespace ns3
