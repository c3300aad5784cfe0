/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-seq.h"
#include "offload-tcp-connection.h"

#include "ns3/log.h"

#include <algorithm>

// OffloadTcpConnection, timers: the retransmission timeout and the persist (zero-window)
// timer checked by the device's periodic scan, the host control loop of TAS/FlexTOE (rate
// updates, host-loop timeouts), the RTO with its backoff, and whether a connection needs
// the scans at all.

namespace ns3
{

// Logs to OffloadTcpConnection's component, which offload-tcp-connection.cc defines: one
// component for the whole data path, whichever of its files a statement is in.
extern LogComponent g_offloadTcpConnectionLog;
static LogComponent& g_log [[maybe_unused]] = g_offloadTcpConnectionLog;

OffloadTimerDecision
OffloadTcpConnection::OnTimerScan(uint64_t nowNs)
{
    NS_LOG_FUNCTION(this << nowNs);
    OffloadTimerDecision t;
    if (m_reset)
    {
        return t;
    }
    if (!m_config.hostLoopTimeouts && m_rtoArmed && seq::Lt(m_sndUna, m_sndMax) &&
        nowNs >= m_rtoDeadlineNs)
    {
        // RFC 6298 (5.4)-(5.6): go back to snd_una, back off, restart the timer.
        NS_LOG_LOGIC(this << " retransmission timeout: snd_una " << m_sndUna << " snd_max "
                          << m_sndMax << " backoff " << m_backoff + 1);
        ++m_counters.timeouts;
        Cc().OnTimeout(m_sndMax - m_sndUna, m_sndMax);
        GoBackN();
        m_dupAcks = 0;
        m_backoff = std::min(m_backoff + 1, MAX_BACKOFF);
        m_rtoDeadlineNs = nowNs + GetRtoNs();
        t.timeout = true;
    }
    else if (m_rtoArmed && m_sndUna == m_sndMax)
    {
        m_rtoArmed = false;
    }

    // Persist: nothing in flight, data waiting, and the peer's window is closed.
    const bool blocked =
        m_sndUna == m_sndMax && UnsentFrom(m_sndNxt) > 0 && seq::Leq(m_peerRightEdge, m_sndNxt);
    if (!blocked)
    {
        m_persistArmed = false;
        m_persistBackoff = 0;
    }
    else if (!m_persistArmed)
    {
        m_persistArmed = true;
        m_persistDeadlineNs = nowNs + GetRtoNs();
    }
    else if (nowNs >= m_persistDeadlineNs)
    {
        m_probePending = true;
        m_persistBackoff = std::min(m_persistBackoff + 1, MAX_BACKOFF);
        const uint64_t interval = std::min(m_config.maxRtoNs, GetRtoNs() << m_persistBackoff);
        m_persistDeadlineNs = nowNs + interval;
        t.probe = true;
    }
    return t;
}

bool
OffloadTcpConnection::OnControlInterval(uint64_t nowNs)
{
    NS_LOG_FUNCTION(this << nowNs);
    Cc().OnControlInterval(nowNs, ControlRttNs());
    if (!m_config.hostLoopTimeouts || m_reset)
    {
        return false;
    }
    if (m_sndUna != m_loopLastUna || m_sndUna == m_sndMax)
    {
        // progress, or nothing outstanding: the stall count starts over
        m_loopLastUna = m_sndUna;
        m_loopStalled = 0;
        m_loopProgressNs = nowNs;
        return false;
    }
    // TAS: retransmit after 4 control intervals and at least 2 RTT without ACK progress
    if (++m_loopStalled >= 4 && nowNs - m_loopProgressNs >= 2 * ControlRttNs())
    {
        NS_LOG_LOGIC(this << " host-loop timeout: snd_una " << m_sndUna << " stalled "
                          << m_loopStalled << " intervals");
        ++m_counters.timeouts;
        Cc().OnTimeout(m_sndMax - m_sndUna, m_sndMax);
        GoBackN();
        m_dupAcks = 0;
        m_loopStalled = 0;
        m_loopProgressNs = nowNs;
        return true;
    }
    return false;
}

bool
OffloadTcpConnection::NeedsTimers() const
{
    if (m_reset)
    {
        return false;
    }
    const bool finUnsent = m_closeRequested && seq::Lt(m_sndMax, m_sndBufEnd + 1);
    return seq::Lt(m_sndUna, m_sndMax) || UnsentFrom(m_sndNxt) > 0 || finUnsent || m_rtoArmed ||
           m_persistArmed || m_probePending;
}

bool
OffloadTcpConnection::UsesControlLoop() const
{
    return m_config.hostLoopTimeouts || Cc().UsesControlLoop();
}

uint64_t
OffloadTcpConnection::GetControlIntervalNs() const
{
    const uint32_t rtts = Cc().GetControlIntervalRtts() > 0 ? Cc().GetControlIntervalRtts()
                                                            : m_config.controlIntervalRtts;
    return std::max<uint64_t>(1, ControlRttNs() * rtts);
}

uint64_t
OffloadTcpConnection::ControlRttNs() const
{
    // SRTT once there is a sample (TAS uses the NIC's RTT estimate), else the configured guess.
    return m_hasRtt && m_srttNs > 0 ? static_cast<uint64_t>(m_srttNs) : m_config.controlRttInitNs;
}

uint64_t
OffloadTcpConnection::GetPacingRate() const
{
    return Cc().GetPacingRate();
}

uint64_t
OffloadTcpConnection::GetNextSendTimeNs() const
{
    return m_nextSendNs;
}

uint64_t
OffloadTcpConnection::GetRtoNs() const
{
    uint64_t base = m_config.initialRtoNs;
    if (m_hasRtt)
    {
        base =
            std::max<uint64_t>(m_config.minRtoNs, static_cast<uint64_t>(m_srttNs + 4 * m_rttVarNs));
    }
    base = std::min(base, m_config.maxRtoNs);
    for (uint32_t i = 0; i < m_backoff && base < m_config.maxRtoNs; ++i)
    {
        base *= 2;
    }
    return std::min(base, m_config.maxRtoNs);
}

} // namespace ns3
