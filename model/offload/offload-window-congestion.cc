/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-window-congestion.h"

#include "offload-seq.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <string>

// Pure logic (no Simulator, no logging on the per-ACK path): it runs once per ACK inside the
// offload data path, and the unit tests drive it alone.

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadWindowCongestion");
NS_OBJECT_ENSURE_REGISTERED(OffloadNewRenoCongestion);
NS_OBJECT_ENSURE_REGISTERED(OffloadDctcpCongestion);

TypeId
OffloadNewRenoCongestion::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OffloadNewRenoCongestion")
                            .SetParent<OffloadCongestionControl>()
                            .SetGroupName("Presto")
                            .AddConstructor<OffloadNewRenoCongestion>();
    return tid;
}

OffloadNewRenoCongestion::OffloadNewRenoCongestion() = default;

OffloadNewRenoCongestion::OffloadNewRenoCongestion(uint32_t mss, uint32_t initialCwndSegments)
{
    SetWindow(mss, initialCwndSegments);
}

void
OffloadNewRenoCongestion::SetWindow(uint32_t mss, uint32_t initialCwndSegments)
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
    m_mss = mss;
    m_cwnd = static_cast<uint32_t>(initial);
}

void
OffloadNewRenoCongestion::Setup(const OffloadCongestionContext& ctx)
{
    SetWindow(ctx.mss, ctx.initialCwndSegments);
}

Ptr<OffloadCongestionControl>
OffloadNewRenoCongestion::Fork(const OffloadCongestionContext& ctx) const
{
    Ptr<OffloadNewRenoCongestion> c = CopyObject<OffloadNewRenoCongestion>(this);
    c->Setup(ctx);
    return c;
}

std::string
OffloadNewRenoCongestion::GetShortName() const
{
    return "newreno";
}

const char*
OffloadNewRenoCongestion::GetName() const
{
    return "NewReno";
}

void
OffloadNewRenoCongestion::Init(uint32_t sndNxt)
{
    m_reductionEnd = sndNxt;
}

bool
OffloadNewRenoCongestion::OnAck(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt)
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
OffloadNewRenoCongestion::Grow(uint32_t ackedBytes)
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
OffloadNewRenoCongestion::OnLoss(uint32_t bytesInFlight, uint32_t sndNxt)
{
    m_ssThresh = std::max(bytesInFlight / 2, 2 * m_mss);
    m_cwnd = std::min(m_cwnd, m_ssThresh);
    m_caBytes = 0;
    m_inReduction = true;
    m_growthFrozen = true;
    m_reductionEnd = sndNxt;
}

void
OffloadNewRenoCongestion::OnTimeout(uint32_t bytesInFlight, uint32_t sndNxt)
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
OffloadNewRenoCongestion::GetCwnd() const
{
    return m_cwnd;
}

uint32_t
OffloadNewRenoCongestion::GetSsThresh() const
{
    return m_ssThresh;
}

uint32_t
OffloadNewRenoCongestion::GetEceReductions() const
{
    return m_eceReductions;
}

void
OffloadNewRenoCongestion::OnAckObserved(uint32_t /* ackedBytes */,
                                        bool /* ece */,
                                        uint32_t /* sndUna */,
                                        uint32_t /* sndNxt */)
{
}

uint32_t
OffloadNewRenoCongestion::EceReducedWindow() const
{
    return m_cwnd / 2;
}

TypeId
OffloadDctcpCongestion::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OffloadDctcpCongestion")
            .SetParent<OffloadNewRenoCongestion>()
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

OffloadDctcpCongestion::OffloadDctcpCongestion() = default;

OffloadDctcpCongestion::OffloadDctcpCongestion(uint32_t mss,
                                               uint32_t initialCwndSegments,
                                               double gain,
                                               double alphaInit)
    : OffloadNewRenoCongestion(mss, initialCwndSegments),
      m_gain(gain),
      m_alphaInit(alphaInit)
{
    StartAlpha();
}

void
OffloadDctcpCongestion::StartAlpha()
{
    if (!(m_gain > 0.0 && m_gain <= 1.0))
    {
        throw PrestoInputError("DCTCP: EWMA gain g=" + std::to_string(m_gain) +
                               " must be in (0, 1]");
    }
    if (!(m_alphaInit >= 0.0 && m_alphaInit <= 1.0))
    {
        throw PrestoInputError("DCTCP: initial alpha=" + std::to_string(m_alphaInit) +
                               " must be in [0, 1]");
    }
    m_alpha = m_alphaInit;
}

void
OffloadDctcpCongestion::Setup(const OffloadCongestionContext& ctx)
{
    OffloadNewRenoCongestion::Setup(ctx);
    StartAlpha();
}

Ptr<OffloadCongestionControl>
OffloadDctcpCongestion::Fork(const OffloadCongestionContext& ctx) const
{
    Ptr<OffloadDctcpCongestion> c = CopyObject<OffloadDctcpCongestion>(this);
    c->Setup(ctx);
    return c;
}

std::string
OffloadDctcpCongestion::GetShortName() const
{
    return "dctcp";
}

const char*
OffloadDctcpCongestion::GetName() const
{
    return "DCTCP";
}

void
OffloadDctcpCongestion::Init(uint32_t sndNxt)
{
    OffloadNewRenoCongestion::Init(sndNxt);
    m_windowEnd = sndNxt;
    m_ackedBytes = 0;
    m_ackedEceBytes = 0;
}

double
OffloadDctcpCongestion::GetAlpha() const
{
    return m_alpha;
}

double
OffloadDctcpCongestion::GetGain() const
{
    return m_gain;
}

uint32_t
OffloadDctcpCongestion::GetAlphaUpdates() const
{
    return m_alphaUpdates;
}

void
OffloadDctcpCongestion::OnAckObserved(uint32_t ackedBytes,
                                      bool ece,
                                      uint32_t sndUna,
                                      uint32_t sndNxt)
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
OffloadDctcpCongestion::NextAlpha(double alpha, uint64_t ackedBytes, uint64_t eceBytes) const
{
    const double f = static_cast<double>(eceBytes) / static_cast<double>(ackedBytes);
    return std::min(1.0, std::max(0.0, (1.0 - m_gain) * alpha + m_gain * f));
}

uint32_t
OffloadDctcpCongestion::EceReducedWindow() const
{
    return static_cast<uint32_t>(std::floor(GetCwnd() * (1.0 - m_alpha / 2.0)));
}

} // namespace ns3
