/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-seq.h"
#include "offload-tcp-connection.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <string>

// OffloadTcpConnection, receive side: the acceptability of an arriving segment (RST, SYN,
// the ACK flag and the ACK field, RFC 5961), its payload through the reassembly tracker,
// the peer's FIN, and the ACKs we send (MakeAck with SACK blocks, rate-limited challenge
// ACKs, window updates after AppRead). What an acceptable ACK does to the send side is in
// offload-tcp-ack.cc.

namespace ns3
{

// Logs to OffloadTcpConnection's component, which offload-tcp-connection.cc defines: one
// component for the whole data path, whichever of its files a statement is in.
extern LogComponent g_offloadTcpConnectionLog;
static LogComponent& g_log [[maybe_unused]] = g_offloadTcpConnectionLog;

// The helpers of OnSegment come first: they are inlined into it (one per-segment function).

[[gnu::always_inline]] inline void
OffloadTcpConnection::PlacePayload(const OffloadSegment& seg, OffloadRxDecision& d)
{
    const ReassemblyTracker::Result r = m_rx.OnSegment(seg.seq, seg.payloadLen, seg.pathLabel);
    d.verdict = r.verdict;
    d.writeSeq = r.writeSeq;
    d.writeLen = r.writeLen;
    d.delivered = r.delivered;
    m_rxUnread += r.delivered;
    m_counters.bytesDelivered += r.delivered;
    switch (r.verdict)
    {
    case ReassemblyTracker::IN_ORDER:
        ++m_counters.inOrder;
        break;
    case ReassemblyTracker::OUT_OF_ORDER_PLACED:
        ++m_counters.outOfOrderPlaced;
        m_lastPlacedSeq = seg.seq; // its interval is reported first (RFC 2018)
        break;
    case ReassemblyTracker::DUPLICATE:
        ++m_counters.duplicates;
        break;
    case ReassemblyTracker::DROPPED_FIDELITY:
        ++m_counters.fidelityDrops;
        NS_LOG_LOGIC(this << " fidelity drop: seq " << seg.seq << " len " << seg.payloadLen << ", "
                          << m_rx.GetLiveSlotCount()
                          << " intervals held of K=" << m_config.fidelity);
        break;
    case ReassemblyTracker::DROPPED_WINDOW:
        ++m_counters.windowDrops;
        break;
    case ReassemblyTracker::NO_PAYLOAD:
        break;
    }
}

[[gnu::always_inline]] inline void
OffloadTcpConnection::ReceivePayload(const OffloadSegment& seg, OffloadRxDecision& d)
{
    if (seg.ce)
    {
        ++m_counters.ceReceived;
    }
    if (m_peerFin)
    {
        // After the FIN nothing new can come: a retransmission of old data or the FIN.
        if (seg.payloadLen > 0)
        {
            d.verdict = ReassemblyTracker::DUPLICATE;
            ++m_counters.duplicates;
        }
        return;
    }
    if (seg.payloadLen > 0)
    {
        PlacePayload(seg, d);
    }
    // The FIN sits after the segment's last byte. Its position is remembered even when it
    // arrives ahead of earlier data (spraying reorders the last segments of a flow): the
    // stream end does not move, and a FIN forgotten here would be recovered only by the
    // peer's retransmission timeout. It is consumed once every byte before it is in order.
    if (seg.Has(OffloadSegment::FIN))
    {
        m_finPending = true;
        m_finSeq = seg.seq + seg.payloadLen;
    }
    if (m_finPending && m_rx.GetRcvNext() == m_finSeq)
    {
        m_peerFin = true;
        d.peerClosed = true;
        NS_LOG_LOGIC(this << " peer FIN consumed at " << m_finSeq);
    }
}

[[gnu::always_inline]] inline bool
OffloadTcpConnection::AcceptAckField(const OffloadSegment& seg,
                                     uint64_t nowNs,
                                     OffloadRxDecision& d)
{
    // 3. The ACK field (send side, RFC 5961 5.2): acceptable in
    //    [snd_una - MAX.SND.WND, snd_max]. An ack of data never sent is answered with an
    //    ACK and the segment dropped (RFC 793); an ack further back than the largest window
    //    the peer ever offered is dropped, data included (blind data injection must guess
    //    the ack too); an ack below snd_una but within that is old news, ignored.
    if (seq::Lt(m_sndMax, seg.ack))
    {
        ++m_counters.invalidAcks;
        d.unacceptable = true;
        Challenge(nowNs, d);
        return false;
    }
    // (only an ack below snd_una can be too old: with 2^30 bytes in flight and a 2^30-byte
    // window, snd_una - MAX.SND.WND is 2^31 behind snd_max and the test alone would wrap)
    if (seq::Lt(seg.ack, m_sndUna) && seq::Lt(seg.ack, m_sndUna - m_maxPeerWindow))
    {
        ++m_counters.ackTooOld;
        d.unacceptable = true;
        Challenge(nowNs, d);
        return false;
    }
    if (seq::Lt(seg.ack, m_sndUna))
    {
        ++m_counters.oldAcks;
    }
    else
    {
        ProcessAck(seg, nowNs, d);
    }
    return true;
}

OffloadRxDecision
OffloadTcpConnection::OnSegment(const OffloadSegment& seg, uint64_t nowNs)
{
    NS_LOG_FUNCTION(this << seg.seq << seg.ack << seg.payloadLen << unsigned(seg.flags) << nowNs);
    OffloadRxDecision d;
    ++m_counters.segmentsReceived;

    if (m_reset)
    {
        return d; // torn down: the control plane removes the connection
    }
    // 1.-2. RST, SYN, no ACK flag: refused (rare; out of line).
    if (seg.Has(OffloadSegment::RST | OffloadSegment::SYN) || !seg.Has(OffloadSegment::ACK))
    {
        RefuseControl(seg, nowNs, d);
        return d;
    }
    // 3. The ACK field: a segment refused here is not used at all (an ACK it deserves is in
    //    d); an acceptable ACK has been processed.
    if (!AcceptAckField(seg, nowNs, d))
    {
        return d;
    }
    // 4. Payload and FIN (receive side): every segment occupying sequence space is answered.
    if (seg.payloadLen > 0 || seg.Has(OffloadSegment::FIN))
    {
        ReceivePayload(seg, d);
        d.sendAck = true;
        d.ackSegment = MakeAck(seg.ce); // DCTCP exact echo: ECE iff this segment was CE
    }
    else if (seq::Lt(seg.seq, GetRcvNext()))
    {
        // A zero-length segment below rcv_next is unacceptable (RFC 793): answer with an
        // ACK. This is the peer's zero-window probe (seq = snd_una - 1) or keep-alive. Our own
        // pure ACKs carry seq = snd_max, which is never below the peer's rcv_next, so two
        // offload connections cannot ping-pong ACKs; against anything else the answer is
        // rate limited.
        ++m_counters.probesAnswered;
        Challenge(nowNs, d);
    }
    return d;
}

void
OffloadTcpConnection::RefuseControl(const OffloadSegment& seg, uint64_t nowNs, OffloadRxDecision& d)
{
    // 1. RST (RFC 9293 3.10.7.4, RFC 5961 3.2): only an RST exactly at rcv_next resets; one
    //    elsewhere in the window gets a challenge ACK (a peer that really reset answers it
    //    with an RST at the right place); one outside the window is dropped. A blind
    //    attacker must guess rcv_next exactly.
    if (seg.Has(OffloadSegment::RST))
    {
        const uint32_t rcvNext = GetRcvNext();
        const uint32_t rcvWindow = std::max<uint32_t>(1, m_rx.GetWindow());
        if (seg.seq == rcvNext)
        {
            ++m_counters.resets;
            m_reset = true;
            d.reset = true;
            NS_LOG_LOGIC(this << " RST at rcv_next " << rcvNext << ": connection reset");
        }
        else if (seq::Lt(rcvNext, seg.seq) && seq::Lt(seg.seq, rcvNext + rcvWindow))
        {
            ++m_counters.rstChallenged;
            d.unacceptable = true;
            Challenge(nowNs, d);
        }
        else
        {
            ++m_counters.rstIgnored;
            d.unacceptable = true;
        }
        return;
    }
    // 2. A SYN on a synchronised connection (RFC 5961 4.2): a challenge ACK, never a reset.
    //    A peer whose SYN-ACK was answered and lost learns rcv_next from it.
    if (seg.Has(OffloadSegment::SYN))
    {
        ++m_counters.synChallenged;
        d.unacceptable = true;
        Challenge(nowNs, d);
        return;
    }
    // In a synchronised state every segment carries ACK (RFC 793); one without is bogus.
    ++m_counters.noAckDrops;
    d.unacceptable = true;
}

std::optional<OffloadSegment>
OffloadTcpConnection::AppRead(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    if (bytes > m_rxUnread)
    {
        throw PrestoInputError("OffloadTcpConnection::AppRead: reading " + std::to_string(bytes) +
                               " bytes but only " + std::to_string(m_rxUnread) +
                               " are delivered and unread");
    }
    m_rxUnread -= bytes;
    m_rx.OpenWindow(bytes);
    if (m_peerFin || m_reset)
    {
        return std::nullopt; // the peer sends no more data
    }
    const uint32_t w = WindowToAnnounce();
    const uint32_t step = std::min(m_config.mss, m_config.rxBufferSize / 2);
    const uint64_t grown = static_cast<uint64_t>(m_lastAdvWindow) + std::max(step, 1u);
    if (w >= grown && w >= 2ull * m_lastAdvWindow)
    {
        ++m_counters.windowUpdates;
        return MakeAck(false);
    }
    return std::nullopt;
}

OffloadSegment
OffloadTcpConnection::MakeAck(bool ece)
{
    OffloadSegment a;
    a.seq = m_sndMax;
    a.ack = GetRcvNext();
    a.window = WindowToAnnounce();
    a.flags = OffloadSegment::ACK | (ece ? OffloadSegment::ECE : 0);
    AddSackBlocks(a);
    m_lastAdvWindow = a.window;
    ++m_counters.acksSent;
    return a;
}

void
OffloadTcpConnection::AddSackBlocks(OffloadSegment& a) const
{
    // RFC 2018 section 4: the first block holds the segment that arrived most recently, the
    // others as many further intervals as fit. The tracker keeps its intervals in sequence
    // order; the one containing the latest placed segment goes first.
    if (!m_config.sack || m_rx.GetLiveSlotCount() == 0)
    {
        return;
    }
    const std::vector<ReassemblyTracker::Interval> held = m_rx.GetIntervals();
    uint8_t n = 0;
    for (const ReassemblyTracker::Interval& i : held)
    {
        if (!seq::Lt(m_lastPlacedSeq, i.start) && seq::Lt(m_lastPlacedSeq, i.End()))
        {
            a.sack[n++] = {i.start, i.End()};
            break;
        }
    }
    for (const ReassemblyTracker::Interval& i : held)
    {
        if (n == OffloadSegment::MAX_SACK_BLOCKS)
        {
            break;
        }
        if (n > 0 && a.sack[0].first == i.start)
        {
            continue; // already first
        }
        a.sack[n++] = {i.start, i.End()};
    }
    a.sackBlocks = n;
}

void
OffloadTcpConnection::Challenge(uint64_t nowNs, OffloadRxDecision& d)
{
    if (m_challengeSent && nowNs - m_lastChallengeNs < m_config.challengeAckIntervalNs)
    {
        ++m_counters.challengeAcksSuppressed;
        return;
    }
    m_challengeSent = true;
    m_lastChallengeNs = nowNs;
    ++m_counters.challengeAcks;
    d.sendAck = true;
    d.ackSegment = MakeAck(false);
}

} // namespace ns3
