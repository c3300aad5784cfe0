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
        const double f = static_cast<double>(m_ackedEceBytes) / static_cast<double>(m_ackedBytes);
        m_alpha = (1.0 - m_gain) * m_alpha + m_gain * f;
        m_alpha = std::min(1.0, std::max(0.0, m_alpha));
        ++m_alphaUpdates;
    }
    m_ackedBytes = 0;
    m_ackedEceBytes = 0;
    m_windowEnd = sndNxt;
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
    if (!(gain > 0.0 && gain <= 1.0))
    {
        bad("EWMA gain g=" + std::to_string(gain) + " must be in (0, 1]");
    }
    if (!(alphaInit >= 0.0 && alphaInit <= 1.0))
    {
        bad("initial alpha=" + std::to_string(alphaInit) + " must be in [0, 1]");
    }
    if (minRate == 0)
    {
        bad("minimum rate must be > 0 bytes/s (a rate of 0 would mean no pacing)");
    }
    if (maxRate < minRate)
    {
        bad("maximum rate " + std::to_string(maxRate) + " bytes/s is below the minimum rate " +
            std::to_string(minRate) + " bytes/s");
    }
    if (initialRate < minRate || initialRate > maxRate)
    {
        bad("initial rate " + std::to_string(initialRate) + " bytes/s must be in [" +
            std::to_string(minRate) + ", " + std::to_string(maxRate) + "]");
    }
    if (minAcks == 0)
    {
        bad("minAcks must be >= 1");
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
    return "DCTCP-rate";
}

void
OffloadDctcpRate::Init(uint32_t /* sndNxt */)
{
    m_acks = 0;
    m_ackedBytes = 0;
    m_eceBytes = 0;
    m_losses = 0;
}

bool
OffloadDctcpRate::OnAck(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt)
{
    // Only count, as the NIC's per-connection statistics do (TAS: c_acks, c_ackb, c_ecnb);
    // the host reacts once per control interval.
    ++m_acks;
    m_ackedBytes += ackedBytes;
    if (!ece)
    {
        return false;
    }
    m_eceBytes += ackedBytes;
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
    ++m_losses;
}

void
OffloadDctcpRate::OnTimeout(uint32_t /* bytesInFlight */, uint32_t /* sndNxt */)
{
    ++m_losses;
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

void
OffloadDctcpRate::OnControlInterval(uint64_t /* nowNs */, uint64_t /* rttNs */)
{
    if (m_acks < m_p.minAcks && m_losses == 0)
    {
        return; // too few ACKs to judge: carry the counts over (TAS cc_dctcp_minpkts)
    }
    ++m_intervals;
    double rate = m_rate;
    if (m_losses > 0)
    {
        // A loss is a stronger signal than marks: halve, as TAS does for drops and host
        // retransmissions, and leave alpha alone (the ECE count of a lossy interval is
        // incomplete).
        m_slowStart = false;
        rate /= 2;
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
        if (m_eceBytes > 0)
        {
            m_slowStart = false; // the first mark ends slow start and is answered at once
            rate *= 1.0 - m_alpha / 2.0;
            ++m_eceReductions;
        }
        else if (m_slowStart)
        {
            rate *= 2;
        }
        else
        {
            rate += static_cast<double>(m_p.step);
        }
    }
    m_rate = std::min(static_cast<double>(m_p.maxRate),
                      std::max(static_cast<double>(m_p.minRate), rate));
    m_acks = 0;
    m_ackedBytes = 0;
    m_eceBytes = 0;
    m_losses = 0;
}

uint64_t
OffloadDctcpRate::GetPacingRate() const
{
    // Rounded down, but never below the floor (> 0), so that pacing never turns off.
    return std::max<uint64_t>(m_p.minRate, static_cast<uint64_t>(m_rate));
}

double
OffloadDctcpRate::GetAlpha() const
{
    return m_alpha;
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

std::unique_ptr<OffloadCongestionOps>
CreateOffloadCongestion(OffloadCongestionType type,
                        uint32_t mss,
                        uint32_t initialCwndSegments,
                        double dctcpGain,
                        double dctcpAlphaInit,
                        const OffloadDctcpRateParams& rate)
{
    switch (type)
    {
    case OffloadCongestionType::DCTCP_RATE: {
        OffloadDctcpRateParams p = rate;
        p.gain = dctcpGain;
        p.alphaInit = dctcpAlphaInit;
        return std::make_unique<OffloadDctcpRate>(mss, p);
    }
    case OffloadCongestionType::DCTCP:
        return std::make_unique<OffloadDctcp>(mss, initialCwndSegments, dctcpGain, dctcpAlphaInit);
    case OffloadCongestionType::NEW_RENO:
        return std::make_unique<OffloadNewReno>(mss, initialCwndSegments);
    }
    throw PrestoInputError("offload congestion control: unknown type " +
                           std::to_string(static_cast<int>(type)));
}

} // namespace ns3
