/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-congestion.h"

#include "offload-seq.h"

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <string>

// Pure logic with no ns-3 dependency (no NS_LOG): it runs once per ACK inside the offload
// data path, and the unit tests compile it alone.

namespace ns3
{

OffloadNewReno::OffloadNewReno(uint32_t mss, uint32_t initialCwndSegments)
    : m_mss(mss),
      m_cwnd(0)
{
    if (mss == 0)
    {
        throw PrestoInputError("offload congestion control: MSS must be at least 1 byte");
    }
    if (initialCwndSegments == 0)
    {
        throw PrestoInputError("offload congestion control: initial window must be at least "
                               "1 segment");
    }
    const uint64_t initial = static_cast<uint64_t>(mss) * initialCwndSegments;
    if (initial > MAX_CWND)
    {
        throw PrestoInputError("offload congestion control: initial window " +
                               std::to_string(initialCwndSegments) + " segments x " +
                               std::to_string(mss) + " bytes exceeds the limit of " +
                               std::to_string(MAX_CWND) + " bytes");
    }
    m_cwnd = static_cast<uint32_t>(initial);
}

const char*
OffloadNewReno::GetName() const
{
    return "NewReno";
}

void
OffloadNewReno::Init(uint32_t sndNxt)
{
    m_reductionEnd = sndNxt;
}

bool
OffloadNewReno::OnAck(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt)
{
    if (m_inReduction && seq::Geq(sndUna, m_reductionEnd))
    {
        // Everything sent before the last reduction is acknowledged: a new window begins.
        m_inReduction = false;
        m_growthFrozen = false;
    }
    OnAckObserved(ackedBytes, ece, sndUna, sndNxt);
    if (ece && !m_inReduction)
    {
        // React to congestion once per window of data: the ECEs of the rest of this window
        // report the same congestion episode.
        m_ssThresh = std::max(EceReducedWindow(), 2 * m_mss);
        m_cwnd = std::min(m_cwnd, m_ssThresh);
        m_caBytes = 0;
        m_inReduction = true;
        m_growthFrozen = true;
        m_reductionEnd = sndNxt;
        ++m_eceReductions;
        return true;
    }
    if (!m_growthFrozen)
    {
        Grow(ackedBytes);
    }
    return false;
}

void
OffloadNewReno::Grow(uint32_t ackedBytes)
{
    if (ackedBytes == 0)
    {
        return;
    }
    uint64_t cwnd = m_cwnd;
    if (m_cwnd < m_ssThresh)
    {
        // Appropriate byte counting with L = 2 MSS: a large cumulative ACK (a go-back-N hole
        // being filled) does not release a burst.
        cwnd = std::min<uint64_t>(cwnd + std::min(ackedBytes, 2 * m_mss), m_ssThresh);
    }
    else
    {
        m_caBytes = std::min<uint64_t>(static_cast<uint64_t>(m_caBytes) + ackedBytes, m_cwnd);
        if (m_caBytes >= m_cwnd)
        {
            m_caBytes = 0;
            cwnd += m_mss;
        }
    }
    m_cwnd = static_cast<uint32_t>(std::min<uint64_t>(cwnd, MAX_CWND));
}

void
OffloadNewReno::OnLoss(uint32_t bytesInFlight, uint32_t sndNxt)
{
    m_ssThresh = std::max(bytesInFlight / 2, 2 * m_mss);
    m_cwnd = std::min(m_cwnd, m_ssThresh);
    m_caBytes = 0;
    m_inReduction = true;
    m_growthFrozen = true;
    m_reductionEnd = sndNxt;
}

void
OffloadNewReno::OnTimeout(uint32_t bytesInFlight, uint32_t sndNxt)
{
    m_ssThresh = std::max(bytesInFlight / 2, 2 * m_mss);
    m_cwnd = m_mss; // the loss window, then slow start
    m_caBytes = 0;
    // The ECEs of data sent before the timeout report congestion the timeout already
    // answered; growth (slow start) is allowed.
    m_inReduction = true;
    m_growthFrozen = false;
    m_reductionEnd = sndNxt;
}

uint32_t
OffloadNewReno::GetCwnd() const
{
    return m_cwnd;
}

uint32_t
OffloadNewReno::GetSsThresh() const
{
    return m_ssThresh;
}

uint32_t
OffloadNewReno::GetEceReductions() const
{
    return m_eceReductions;
}

void
OffloadNewReno::OnAckObserved(uint32_t /* ackedBytes */,
                              bool /* ece */,
                              uint32_t /* sndUna */,
                              uint32_t /* sndNxt */)
{
}

uint32_t
OffloadNewReno::EceReducedWindow() const
{
    return m_cwnd / 2;
}

OffloadDctcp::OffloadDctcp(uint32_t mss,
                           uint32_t initialCwndSegments,
                           double gain,
                           double alphaInit)
    : OffloadNewReno(mss, initialCwndSegments),
      m_gain(gain),
      m_alpha(alphaInit)
{
    if (!(gain > 0.0 && gain <= 1.0))
    {
        throw PrestoInputError("DCTCP: EWMA gain g=" + std::to_string(gain) + " must be in (0, 1]");
    }
    if (!(alphaInit >= 0.0 && alphaInit <= 1.0))
    {
        throw PrestoInputError("DCTCP: initial alpha=" + std::to_string(alphaInit) +
                               " must be in [0, 1]");
    }
}

const char*
OffloadDctcp::GetName() const
{
    return "DCTCP";
}

void
OffloadDctcp::Init(uint32_t sndNxt)
{
    OffloadNewReno::Init(sndNxt);
    m_windowEnd = sndNxt;
    m_ackedBytes = 0;
    m_ackedEceBytes = 0;
}

double
OffloadDctcp::GetAlpha() const
{
    return m_alpha;
}

double
OffloadDctcp::GetGain() const
{
    return m_gain;
}

uint32_t
OffloadDctcp::GetAlphaUpdates() const
{
    return m_alphaUpdates;
}

void
OffloadDctcp::OnAckObserved(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt)
{
    m_ackedBytes += ackedBytes;
    if (ece)
    {
        m_ackedEceBytes += ackedBytes;
    }
    if (!seq::Geq(sndUna, m_windowEnd))
    {
        return;
    }
    // One window of data is acknowledged. A window in which nothing was acknowledged (nothing
    // was in flight when it began) carries no information: alpha is left alone rather than
    // decayed.
    if (m_ackedBytes > 0)
    {
        m_alpha = NextAlpha(m_alpha, m_ackedBytes, m_ackedEceBytes);
        ++m_alphaUpdates;
    }
    m_ackedBytes = 0;
    m_ackedEceBytes = 0;
    m_windowEnd = sndNxt;
}

double
OffloadDctcp::NextAlpha(double alpha, uint64_t ackedBytes, uint64_t eceBytes) const
{
    const double f = static_cast<double>(eceBytes) / static_cast<double>(ackedBytes);
    return std::min(1.0, std::max(0.0, (1.0 - m_gain) * alpha + m_gain * f));
}

uint32_t
OffloadDctcp::EceReducedWindow() const
{
    return static_cast<uint32_t>(std::floor(GetCwnd() * (1.0 - m_alpha / 2.0)));
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

OffloadDctcpRate::OffloadDctcpRate(uint32_t mss, const OffloadDctcpRateParams& params)
    : m_mss(mss),
      m_p(params),
      m_alpha(params.alphaInit),
      m_rate(static_cast<double>(params.initialRate))
{
    if (mss == 0)
    {
        throw PrestoInputError("DCTCP rate: MSS must be at least 1 byte");
    }
    params.Validate("DCTCP rate");
}

const char*
OffloadDctcpRate::GetName() const
{
    return m_p.mode == OffloadDctcpRateParams::Mode::TAS ? "DCTCP-rate-TAS" : "DCTCP-rate";
}

void
OffloadDctcpRate::Init(uint32_t /* sndNxt */)
{
    m_acks = 0;
    m_ackedBytes = 0;
    m_eceBytes = 0;
    m_losses = 0;
    m_started = false;
}

bool
OffloadDctcpRate::OnAck(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt)
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
OffloadDctcpRate::OnLoss(uint32_t /* bytesInFlight */, uint32_t /* sndNxt */)
{
    ++m_losses; // TAS: c_drops, the fast path's go-back-N count
}

void
OffloadDctcpRate::OnTimeout(uint32_t /* bytesInFlight */, uint32_t /* sndNxt */)
{
    ++m_losses; // TAS: cc_rexmits, the retransmissions the host loop issued
}

uint32_t
OffloadDctcpRate::GetCwnd() const
{
    return MAX_CWND;
}

uint32_t
OffloadDctcpRate::GetSsThresh() const
{
    // There is no window; report the window-scale limit in slow start and one segment after
    // it, so that a trace shows when slow start ended.
    return m_slowStart ? MAX_CWND : m_mss;
}

uint64_t
OffloadDctcpRate::AckGate(uint64_t elapsedNs) const
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
OffloadDctcpRate::OnControlInterval(uint64_t nowNs, uint64_t rttNs)
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
OffloadDctcpRate::GetPacingRate() const
{
    // Rounded down; a rate below 1 byte/s is 0, unpaced (only reachable with minRate 0).
    return static_cast<uint64_t>(m_rate);
}

bool
OffloadDctcpRate::UsesControlLoop() const
{
    return true;
}

uint32_t
OffloadDctcpRate::GetControlIntervalRtts() const
{
    return m_p.controlIntervalRtts;
}

double
OffloadDctcpRate::GetAlpha() const
{
    return m_alpha;
}

double
OffloadDctcpRate::GetRate() const
{
    return m_rate;
}

double
OffloadDctcpRate::GetMeasuredRate() const
{
    return m_measured;
}

bool
OffloadDctcpRate::InSlowStart() const
{
    return m_slowStart;
}

uint32_t
OffloadDctcpRate::GetIntervals() const
{
    return m_intervals;
}

uint32_t
OffloadDctcpRate::GetEceReductions() const
{
    return m_eceReductions;
}

uint32_t
OffloadDctcpRate::GetLossReductions() const
{
    return m_lossReductions;
}

const OffloadDctcpRateParams&
OffloadDctcpRate::GetParams() const
{
    return m_p;
}

} // namespace ns3
