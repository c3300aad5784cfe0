/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-seq.h"
#include "offload-tcp-connection.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <string>

// OffloadTcpConnection, send side: the application's send stream (AppSend, AppClose), the
// choice of the next segment (both windows, silly-window avoidance, the FIN's place, a
// go-back-N re-send) and its transmission (zero-window probes, CWR, RTT timing, pacing, the
// RTO armed). ACKs for what was sent are processed in offload-tcp-ack.cc.

namespace ns3
{

// Logs to OffloadTcpConnection's component, which offload-tcp-connection.cc defines: one
// component for the whole data path, whichever of its files a statement is in.
extern LogComponent g_offloadTcpConnectionLog;
static LogComponent& g_log [[maybe_unused]] = g_offloadTcpConnectionLog;

uint32_t
OffloadTcpConnection::AppSend(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    if (m_closeRequested)
    {
        throw PrestoInputError("OffloadTcpConnection::AppSend: the application sent " +
                               std::to_string(bytes) + " bytes after closing");
    }
    const uint32_t accepted = std::min(bytes, GetTxFree());
    m_sndBufEnd += accepted;
    return accepted;
}

void
OffloadTcpConnection::AppClose()
{
    NS_LOG_FUNCTION(this);
    m_closeRequested = true;
}

inline bool
OffloadTcpConnection::ChooseInto(OffloadSegmentChoice& out) const
{
    if (m_reset)
    {
        return false;
    }
    // Sending is limited by both windows, counted from snd_una.
    const uint32_t cwndEdge = m_sndUna + std::min(Cc().GetCwnd(), MAX_BUFFER);
    const uint32_t edge = seq::Lt(cwndEdge, m_peerRightEdge) ? cwndEdge : m_peerRightEdge;
    const uint32_t usable = seq::Lt(m_sndNxt, edge) ? edge - m_sndNxt : 0;
    const bool retransmission = seq::Lt(m_sndNxt, m_sndMax);
    uint32_t avail = UnsentFrom(m_sndNxt);
    if (retransmission)
    {
        // A re-sent segment never straddles snd_max: new data is timed and counted apart.
        avail = std::min(avail, m_sndMax - m_sndNxt);
    }
    uint32_t len = std::min({m_config.mss, avail, usable});
    if (len > 0 && len < m_config.mss && len < avail && m_sndNxt != m_sndUna)
    {
        len = 0; // silly-window avoidance: wait for a full segment while data is in flight
    }
    const bool finDue = m_closeRequested && m_sndNxt + len == m_sndBufEnd;
    // The FIN takes no buffer space at the peer, so it needs no window.
    const bool fin = finDue && (retransmission ? seq::Lt(m_sndNxt + len, m_sndMax)
                                               : !seq::Lt(m_sndBufEnd, m_sndMax));
    if (len == 0 && !fin)
    {
        return false;
    }
    out = OffloadSegmentChoice{len, fin, retransmission};
    return true;
}

std::optional<OffloadSegmentChoice>
OffloadTcpConnection::ChooseSegment() const
{
    OffloadSegmentChoice c;
    if (!ChooseInto(c))
    {
        return std::nullopt;
    }
    return c;
}

std::optional<OffloadTxSegment>
OffloadTcpConnection::NextSegment(uint64_t nowNs)
{
    NS_LOG_FUNCTION(this << nowNs);
    if (m_reset)
    {
        return std::nullopt;
    }
    OffloadTxSegment out;
    OffloadSegment& s = out.seg;
    s.ack = GetRcvNext();
    s.window = WindowToAnnounce();
    s.flags = OffloadSegment::ACK;

    if (m_probePending)
    {
        m_probePending = false;
        s.seq = m_sndUna - 1; // old sequence number: the peer must answer with an ACK
        out.probe = true;
        NS_LOG_LOGIC(this << " zero-window probe, seq " << s.seq);
        m_lastAdvWindow = s.window;
        ++m_counters.windowProbes;
        return out;
    }

    OffloadSegmentChoice choice;
    if (!ChooseInto(choice))
    {
        return std::nullopt;
    }
    const uint32_t len = choice.len;
    const bool fin = choice.fin;
    const bool retransmission = choice.retransmission;
    const uint64_t rate = Cc().GetPacingRate();
    if (rate > 0 && nowNs < m_nextSendNs)
    {
        return std::nullopt; // the NIC's rate limiter has not released this flow yet
    }

    s.seq = m_sndNxt;
    s.payloadLen = len;
    if (fin)
    {
        s.flags |= OffloadSegment::FIN;
    }
    if (m_cwrPending && !retransmission)
    {
        s.flags |= OffloadSegment::CWR; // RFC 3168: the first new data after the reduction
        m_cwrPending = false;
        ++m_counters.cwrSent;
    }
    out.retransmission = retransmission;
    const uint32_t seqLen = len + (fin ? 1 : 0);
    if (retransmission)
    {
        NS_LOG_LOGIC(this << " retransmission: seq " << s.seq << " len " << len);
        ++m_counters.retransmittedSegments;
        m_counters.retransmittedBytes += len;
    }
    else
    {
        ++m_counters.dataSegmentsSent;
        m_counters.bytesSent += len;
        if (!m_rttTiming)
        {
            m_rttTiming = true;
            m_rttSeq = m_sndNxt + seqLen;
            m_rttStartNs = nowNs;
        }
    }
    if (rate > 0)
    {
        // The next segment may leave once this one has been sent at the rate (rounded up, so
        // the rate is never exceeded). No credit is kept for a late call: pacing spaces
        // segments, it does not make up for an idle flow.
        m_nextSendNs = nowNs + (static_cast<uint64_t>(seqLen) * 1000000000ull + rate - 1) / rate;
    }
    m_sndNxt += seqLen;
    if (seq::Lt(m_sndMax, m_sndNxt))
    {
        m_sndMax = m_sndNxt;
    }
    if (!m_rtoArmed)
    {
        m_rtoArmed = true; // RFC 6298 (5.1)
        m_rtoDeadlineNs = nowNs + GetRtoNs();
    }
    m_persistArmed = false;
    m_persistBackoff = 0;
    m_lastAdvWindow = s.window;
    return out;
}

} // namespace ns3
