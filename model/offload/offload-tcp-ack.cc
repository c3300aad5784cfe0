/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-seq.h"
#include "offload-tcp-connection.h"

#include "ns3/log.h"

#include <algorithm>

// OffloadTcpConnection, ACK processing: what an acceptable ACK (its ack in [snd_una,
// snd_max]) does to the send side. snd_una advances and frees the send buffer, our FIN is
// found acknowledged, an RTT sample is taken (Karn), the RTO restarts or stops; a duplicate
// ACK counts towards go-back-N, once per window; the peer's window edge moves right; the
// congestion control sees every ACK. The checks that decide acceptability are in
// offload-tcp-receive.cc, the RTO computation in offload-tcp-timers.cc.

namespace ns3
{

// Logs to OffloadTcpConnection's component, which offload-tcp-connection.cc defines: one
// component for the whole data path, whichever of its files a statement is in.
extern LogComponent g_offloadTcpConnectionLog;
static LogComponent& g_log [[maybe_unused]] = g_offloadTcpConnectionLog;

void
OffloadTcpConnection::ProcessAck(const OffloadSegment& seg, uint64_t nowNs, OffloadRxDecision& d)
{
    const uint32_t acked = seg.ack - m_sndUna;
    const bool ece = seg.Has(OffloadSegment::ECE);
    if (ece)
    {
        ++m_counters.eceReceived;
    }
    bool dupThresholdReached = false;
    if (acked > 0)
    {
        // The FIN occupies the sequence number m_sndBufEnd; everything below it is payload.
        uint32_t dataAcked = acked;
        if (m_closeRequested && seq::Lt(m_sndBufEnd, seg.ack))
        {
            dataAcked -= 1;
            if (!m_finAcked)
            {
                m_finAcked = true;
                d.finAcked = true;
                NS_LOG_LOGIC(this << " our FIN acknowledged");
            }
        }
        m_sndUna = seg.ack;
        if (seq::Lt(m_sndNxt, m_sndUna))
        {
            m_sndNxt = m_sndUna; // go-back-N re-sends only what the peer does not have yet
            d.sndNxtRaised = true;
        }
        m_dupAcks = 0;
        if (m_inRecovery && seq::Lt(m_recover, m_sndUna))
        {
            m_inRecovery = false;
        }
        d.ackedBytes = dataAcked;
        m_counters.bytesAcked += dataAcked;

        if (m_rttTiming && seq::Leq(m_rttSeq, seg.ack))
        {
            // Karn: the timed segment was sent once (timing stops at any go-back-N).
            m_rttTiming = false;
            UpdateRtt(static_cast<int64_t>(nowNs - m_rttStartNs));
        }
        // RFC 6298 (5.2), (5.3): stop the timer when all is acknowledged, else restart it.
        if (m_sndUna == m_sndMax)
        {
            m_rtoArmed = false;
        }
        else
        {
            m_rtoArmed = true;
            m_rtoDeadlineNs = nowNs + GetRtoNs();
        }
    }
    else if (seg.payloadLen == 0 && !seg.Has(OffloadSegment::FIN) &&
             seg.window == m_peerWindowLast && seq::Lt(m_sndUna, m_sndMax))
    {
        // RFC 5681 duplicate ACK. Go-back-N exactly at the threshold, and only once per
        // window: not again before snd_una passes the recovery point (RFC 6582's "covers
        // more than recover"), so that the duplicate ACKs our own re-sent copies cause
        // cannot start a second, spurious go-back-N.
        ++m_dupAcks;
        ++m_counters.dupAcks;
        dupThresholdReached = m_dupAcks == m_config.dupAckThreshold && !m_inRecovery;
    }

    // The peer's window: the right edge never moves left (see class doc).
    const uint32_t edge = seg.ack + std::min(seg.window, MAX_BUFFER);
    if (seq::Lt(m_peerRightEdge, edge))
    {
        m_peerRightEdge = edge;
    }
    m_peerWindowLast = seg.window;
    m_maxPeerWindow = std::max(m_maxPeerWindow, std::min(seg.window, MAX_BUFFER));

    if (Cc().OnAck(acked, ece, m_sndUna, m_sndMax))
    {
        m_cwrPending = true;
    }
    if (dupThresholdReached)
    {
        NS_LOG_LOGIC(this << " go-back-N at duplicate ACK " << m_dupAcks << ": snd_una " << m_sndUna
                          << " snd_max " << m_sndMax << " cwnd " << GetCwnd());
        Cc().OnLoss(m_sndMax - m_sndUna, m_sndMax);
        GoBackN();
        ++m_counters.goBackN;
        d.goBackN = true;
    }
}

void
OffloadTcpConnection::GoBackN()
{
    m_sndNxt = m_sndUna;
    m_recover = m_sndMax;
    m_inRecovery = true;
    m_rttTiming = false; // Karn: an ACK may now answer either copy
}

void
OffloadTcpConnection::UpdateRtt(int64_t sampleNs)
{
    ++m_counters.rttSamples;
    if (sampleNs < 0)
    {
        sampleNs = 0;
    }
    m_lastRttNs = sampleNs;
    if (!m_hasRtt)
    {
        // RFC 6298 (2.2)
        m_srttNs = sampleNs;
        m_rttVarNs = sampleNs / 2;
        m_hasRtt = true;
    }
    else
    {
        // RFC 6298 (2.3), beta = 1/4 then alpha = 1/8 (RTTVAR uses the old SRTT)
        const int64_t err = m_srttNs > sampleNs ? m_srttNs - sampleNs : sampleNs - m_srttNs;
        m_rttVarNs = (3 * m_rttVarNs + err) / 4;
        m_srttNs = (7 * m_srttNs + sampleNs) / 8;
    }
    m_backoff = 0; // Karn: a valid sample ends the backoff
}

} // namespace ns3
