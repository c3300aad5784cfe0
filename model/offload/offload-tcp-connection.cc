/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-tcp-connection.h"

#include "offload-seq.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <string>

// Pure logic with no Simulator calls: every NIC design calls it per segment, per timer scan
// and per application event, and the unit tests drive it without a simulator. It logs
// through NS_LOG (component OffloadTcpConnection): LOGIC at each retransmission, timeout,
// go-back-N, fidelity drop and state change, FUNCTION on entry of the per-segment
// functions; each is one test of the component's level while logging is off, and the
// time prefix is printed only when a simulator has set the log's time printer.

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadTcpConnection");

namespace
{

/// Largest buffer, bytes: keeps all compared sequence numbers within 2^31 of each other.
constexpr uint32_t MAX_BUFFER = ReassemblyTracker::MAX_WINDOW;

[[noreturn]] void
Bad(const char* where, const std::string& what)
{
    throw PrestoInputError(std::string(where) + ": " + what);
}

} // namespace

void
OffloadTcpConfig::Validate(const char* where) const
{
    if (mss == 0 || mss > MAX_BUFFER)
    {
        Bad(where,
            "mss=" + std::to_string(mss) + " bytes must be in [1, " + std::to_string(MAX_BUFFER) +
                "]");
    }
    if (fidelity > ReassemblyTracker::MAX_FIDELITY && fidelity != ReassemblyTracker::UNBOUNDED)
    {
        Bad(where,
            "fidelity K=" + std::to_string(fidelity) + " must be in [0, " +
                std::to_string(ReassemblyTracker::MAX_FIDELITY) + "] or UNBOUNDED");
    }
    if (rxBufferSize == 0 || rxBufferSize > MAX_BUFFER)
    {
        Bad(where,
            "rxBufferSize=" + std::to_string(rxBufferSize) + " bytes must be in [1, " +
                std::to_string(MAX_BUFFER) + "]");
    }
    if (txBufferSize == 0 || txBufferSize > MAX_BUFFER)
    {
        Bad(where,
            "txBufferSize=" + std::to_string(txBufferSize) + " bytes must be in [1, " +
                std::to_string(MAX_BUFFER) + "]");
    }
    if (initialCwndSegments == 0 ||
        static_cast<uint64_t>(initialCwndSegments) * mss > OffloadNewReno::MAX_CWND)
    {
        Bad(where,
            "initialCwndSegments=" + std::to_string(initialCwndSegments) +
                " must be >= 1 and at most " + std::to_string(OffloadNewReno::MAX_CWND) +
                " bytes in total");
    }
    if (minRtoNs == 0)
    {
        Bad(where, "minRtoNs must be > 0");
    }
    if (initialRtoNs == 0)
    {
        Bad(where, "initialRtoNs must be > 0");
    }
    if (maxRtoNs < minRtoNs || maxRtoNs < initialRtoNs)
    {
        Bad(where,
            "maxRtoNs=" + std::to_string(maxRtoNs) + " must be >= minRtoNs and >= initialRtoNs");
    }
    if (dupAckThreshold == 0)
    {
        Bad(where, "dupAckThreshold must be >= 1");
    }
    if (ackPolicy != OffloadAckPolicy::EVERY_SEGMENT)
    {
        Bad(where, "unknown ackPolicy " + std::to_string(static_cast<int>(ackPolicy)));
    }
    if (controlIntervalRtts == 0)
    {
        Bad(where, "controlIntervalRtts must be >= 1");
    }
    if (controlRttInitNs == 0)
    {
        Bad(where, "controlRttInitNs must be > 0");
    }
    if (rxWindowLimit == 0)
    {
        Bad(where, "rxWindowLimit must be > 0");
    }
    if (windowShift > 14)
    {
        Bad(where, "windowShift=" + std::to_string(windowShift) + " must be <= 14 (RFC 7323)");
    }
}

OffloadTcpCounters&
OffloadTcpCounters::operator+=(const OffloadTcpCounters& o)
{
    segmentsReceived += o.segmentsReceived;
    inOrder += o.inOrder;
    outOfOrderPlaced += o.outOfOrderPlaced;
    fidelityDrops += o.fidelityDrops;
    windowDrops += o.windowDrops;
    duplicates += o.duplicates;
    bytesDelivered += o.bytesDelivered;
    acksSent += o.acksSent;
    windowUpdates += o.windowUpdates;
    probesAnswered += o.probesAnswered;
    ceReceived += o.ceReceived;
    dataSegmentsSent += o.dataSegmentsSent;
    bytesSent += o.bytesSent;
    retransmittedSegments += o.retransmittedSegments;
    retransmittedBytes += o.retransmittedBytes;
    bytesAcked += o.bytesAcked;
    dupAcks += o.dupAcks;
    goBackN += o.goBackN;
    timeouts += o.timeouts;
    eceReceived += o.eceReceived;
    cwrSent += o.cwrSent;
    rttSamples += o.rttSamples;
    windowProbes += o.windowProbes;
    invalidAcks += o.invalidAcks;
    oldAcks += o.oldAcks;
    noAckDrops += o.noAckDrops;
    resets += o.resets;
    rstChallenged += o.rstChallenged;
    rstIgnored += o.rstIgnored;
    synChallenged += o.synChallenged;
    ackTooOld += o.ackTooOld;
    challengeAcks += o.challengeAcks;
    challengeAcksSuppressed += o.challengeAcksSuppressed;
    return *this;
}

namespace
{

/// Validate first, so that a bad configuration is reported before any member uses it.
const OffloadTcpConfig&
Checked(const OffloadTcpConfig& c)
{
    c.Validate("OffloadTcpConnection");
    return c;
}

} // namespace

OffloadTcpConnection::OffloadTcpConnection(const OffloadTcpConfig& config,
                                           uint32_t iss,
                                           uint32_t irs,
                                           uint32_t peerWindow,
                                           std::unique_ptr<OffloadCongestionOps> cc)
    : m_config(Checked(config)),
      m_cc(std::move(cc)),
      m_rx(config.fidelity, irs + 1, config.rxBufferSize),
      m_sndUna(iss + 1),
      m_sndNxt(iss + 1),
      m_sndMax(iss + 1),
      m_sndBufEnd(iss + 1),
      m_peerRightEdge(iss + 1 + std::min(peerWindow, MAX_BUFFER)),
      m_peerWindowLast(peerWindow),
      m_maxPeerWindow(std::min(peerWindow, MAX_BUFFER)),
      m_lastAdvWindow(std::min(config.rxBufferSize, config.rxWindowLimit))
{
    m_rx.SetPolicy(config.intervalPolicy);
    if (peerWindow > MAX_BUFFER)
    {
        Bad("OffloadTcpConnection",
            "peer window " + std::to_string(peerWindow) + " bytes exceeds the TCP limit of " +
                std::to_string(MAX_BUFFER));
    }
    if (!m_cc)
    {
        m_cc =
            std::make_unique<OffloadDctcp>(config.mss, config.initialCwndSegments, 1.0 / 16, 1.0);
    }
    m_cc->Init(m_sndNxt);
}

// ---------------------------------------------------------------------------------------
// Receive path
// ---------------------------------------------------------------------------------------

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
    // 1. RST (RFC 9293 3.10.7.4, RFC 5961 3.2): only an RST exactly at rcv_next resets; one
    //    elsewhere in the window gets a challenge ACK (a peer that really reset answers it
    //    with an RST at the right place); one outside the window is dropped. A blind
    //    attacker must guess rcv_next exactly.
    const uint32_t rcvNext = GetRcvNext();
    const uint32_t rcvWindow = std::max<uint32_t>(1, m_rx.GetWindow());
    if (seg.Has(OffloadSegment::RST))
    {
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
        return d;
    }
    // 2. A SYN on a synchronised connection (RFC 5961 4.2): a challenge ACK, never a reset.
    //    A peer whose SYN-ACK was answered and lost learns rcv_next from it.
    if (seg.Has(OffloadSegment::SYN))
    {
        ++m_counters.synChallenged;
        d.unacceptable = true;
        Challenge(nowNs, d);
        return d;
    }
    // In a synchronised state every segment carries ACK (RFC 793); one without is bogus.
    if (!seg.Has(OffloadSegment::ACK))
    {
        ++m_counters.noAckDrops;
        d.unacceptable = true;
        return d;
    }

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
        return d;
    }
    // (only an ack below snd_una can be too old: with 2^30 bytes in flight and a 2^30-byte
    // window, snd_una - MAX.SND.WND is 2^31 behind snd_max and the test alone would wrap)
    if (seq::Lt(seg.ack, m_sndUna) && seq::Lt(seg.ack, m_sndUna - m_maxPeerWindow))
    {
        ++m_counters.ackTooOld;
        d.unacceptable = true;
        Challenge(nowNs, d);
        return d;
    }
    if (seq::Lt(seg.ack, m_sndUna))
    {
        ++m_counters.oldAcks;
    }
    else
    {
        ProcessAck(seg, nowNs, d);
    }

    // 4. Payload and FIN (receive side).
    const bool fin = seg.Has(OffloadSegment::FIN);
    bool ackRequired = false;
    if (seg.payloadLen > 0 || fin)
    {
        ackRequired = true; // every segment occupying sequence space is answered
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
        }
        else
        {
            if (seg.payloadLen > 0)
            {
                const ReassemblyTracker::Result r =
                    m_rx.OnSegment(seg.seq, seg.payloadLen, seg.pathLabel);
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
                    NS_LOG_LOGIC(this << " fidelity drop: seq " << seg.seq << " len "
                                      << seg.payloadLen << ", " << m_rx.GetLiveSlotCount()
                                      << " intervals held of K=" << m_config.fidelity);
                    break;
                case ReassemblyTracker::DROPPED_WINDOW:
                    ++m_counters.windowDrops;
                    break;
                case ReassemblyTracker::NO_PAYLOAD:
                    break;
                }
            }
            // The FIN sits after the segment's last byte. Its position is remembered even
            // when it arrives ahead of earlier data (spraying reorders the last segments of a
            // flow): the stream end does not move, and a FIN forgotten here would be
            // recovered only by the peer's retransmission timeout. It is consumed once every
            // byte before it is in order.
            if (fin)
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
        return d;
    }

    if (ackRequired)
    {
        d.sendAck = true;
        d.ackSegment = MakeAck(seg.ce); // DCTCP exact echo: ECE iff this segment was CE
    }
    return d;
}

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

    if (m_cc->OnAck(acked, ece, m_sndUna, m_sndMax))
    {
        m_cwrPending = true;
    }
    if (dupThresholdReached)
    {
        NS_LOG_LOGIC(this << " go-back-N at duplicate ACK " << m_dupAcks << ": snd_una " << m_sndUna
                          << " snd_max " << m_sndMax << " cwnd " << GetCwnd());
        m_cc->OnLoss(m_sndMax - m_sndUna, m_sndMax);
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

std::optional<OffloadSegment>
OffloadTcpConnection::AppRead(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    if (bytes > m_rxUnread)
    {
        Bad("OffloadTcpConnection::AppRead",
            "reading " + std::to_string(bytes) + " bytes but only " + std::to_string(m_rxUnread) +
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

uint32_t
OffloadTcpConnection::WindowToAnnounce() const
{
    // What the peer will see: the free buffer, at most the window the application asked
    // for (the buffer may be larger, see rxWindowLimit), in units of our window scale.
    const uint32_t unit = 1u << m_config.windowShift;
    uint32_t w = std::min(m_rx.GetWindow(), m_config.rxWindowLimit);
    w &= ~(unit - 1);
    return w;
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

// ---------------------------------------------------------------------------------------
// Send path
// ---------------------------------------------------------------------------------------

uint32_t
OffloadTcpConnection::AppSend(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    if (m_closeRequested)
    {
        Bad("OffloadTcpConnection::AppSend",
            "the application sent " + std::to_string(bytes) + " bytes after closing");
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

uint32_t
OffloadTcpConnection::UnsentFrom(uint32_t seq) const
{
    return seq::Lt(seq, m_sndBufEnd) ? m_sndBufEnd - seq : 0;
}

inline bool
OffloadTcpConnection::ChooseInto(OffloadSegmentChoice& out) const
{
    if (m_reset)
    {
        return false;
    }
    // Sending is limited by both windows, counted from snd_una.
    const uint32_t cwndEdge = m_sndUna + std::min(m_cc->GetCwnd(), MAX_BUFFER);
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
    const uint64_t rate = m_cc->GetPacingRate();
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
        m_cc->OnTimeout(m_sndMax - m_sndUna, m_sndMax);
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
    m_cc->OnControlInterval(nowNs, ControlRttNs());
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
        m_cc->OnTimeout(m_sndMax - m_sndUna, m_sndMax);
        GoBackN();
        m_dupAcks = 0;
        m_loopStalled = 0;
        m_loopProgressNs = nowNs;
        return true;
    }
    return false;
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
    return m_config.hostLoopTimeouts || m_cc->UsesControlLoop();
}

uint64_t
OffloadTcpConnection::GetControlIntervalNs() const
{
    const uint32_t rtts = m_cc->GetControlIntervalRtts() > 0 ? m_cc->GetControlIntervalRtts()
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
    return m_cc->GetPacingRate();
}

uint64_t
OffloadTcpConnection::GetNextSendTimeNs() const
{
    return m_nextSendNs;
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

// ---------------------------------------------------------------------------------------
// Accessors
// ---------------------------------------------------------------------------------------

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

uint32_t
OffloadTcpConnection::GetSndUna() const
{
    return m_sndUna;
}

uint32_t
OffloadTcpConnection::GetSndNxt() const
{
    return m_sndNxt;
}

uint32_t
OffloadTcpConnection::GetSndMax() const
{
    return m_sndMax;
}

uint32_t
OffloadTcpConnection::GetRcvNext() const
{
    return m_rx.GetRcvNext() + (m_peerFin ? 1 : 0);
}

uint32_t
OffloadTcpConnection::GetAdvertisedWindow() const
{
    return m_rx.GetWindow();
}

uint32_t
OffloadTcpConnection::GetPeerWindowEdge() const
{
    return m_peerRightEdge;
}

uint32_t
OffloadTcpConnection::GetCwnd() const
{
    return m_cc->GetCwnd();
}

int64_t
OffloadTcpConnection::GetSrttNs() const
{
    return m_srttNs;
}

int64_t
OffloadTcpConnection::GetRttVarNs() const
{
    return m_rttVarNs;
}

int64_t
OffloadTcpConnection::GetLastRttNs() const
{
    return m_lastRttNs;
}

uint32_t
OffloadTcpConnection::GetBackoff() const
{
    return m_backoff;
}

bool
OffloadTcpConnection::IsRtoArmed() const
{
    return m_rtoArmed;
}

uint64_t
OffloadTcpConnection::GetRtoDeadlineNs() const
{
    return m_rtoDeadlineNs;
}

uint32_t
OffloadTcpConnection::GetSndBufEnd() const
{
    return m_sndBufEnd;
}

uint32_t
OffloadTcpConnection::GetTxBuffered() const
{
    return seq::Lt(m_sndUna, m_sndBufEnd) ? m_sndBufEnd - m_sndUna : 0;
}

uint32_t
OffloadTcpConnection::GetTxFree() const
{
    return m_config.txBufferSize - GetTxBuffered();
}

uint32_t
OffloadTcpConnection::GetRxUnread() const
{
    return m_rxUnread;
}

bool
OffloadTcpConnection::IsPeerClosed() const
{
    return m_peerFin;
}

bool
OffloadTcpConnection::IsFinAcked() const
{
    return m_finAcked;
}

bool
OffloadTcpConnection::IsReset() const
{
    return m_reset;
}

const OffloadTcpCounters&
OffloadTcpConnection::GetCounters() const
{
    return m_counters;
}

const OffloadTcpConfig&
OffloadTcpConnection::GetConfig() const
{
    return m_config;
}

const OffloadCongestionOps&
OffloadTcpConnection::GetCongestion() const
{
    return *m_cc;
}

const ReassemblyTracker&
OffloadTcpConnection::GetReassembly() const
{
    return m_rx;
}

OffloadSendState
OffloadTcpConnection::GetSendState() const
{
    OffloadSendState st;
    st.sndUna = m_sndUna;
    st.sndNxt = m_sndNxt;
    st.sndMax = m_sndMax;
    st.closeRequested = m_closeRequested;
    st.sndBufEnd = m_sndBufEnd;
    st.finAcked = m_finAcked;
    st.peerRightEdge = m_peerRightEdge;
    st.peerWindowLast = m_peerWindowLast;
    st.maxPeerWindow = m_maxPeerWindow;
    st.dupAcks = m_dupAcks;
    st.inRecovery = m_inRecovery;
    st.recover = m_recover;
    st.rttTiming = m_rttTiming;
    st.rttSeq = m_rttSeq;
    st.rttStartNs = m_rttStartNs;
    st.hasRtt = m_hasRtt;
    st.srttNs = m_srttNs;
    st.rttVarNs = m_rttVarNs;
    st.backoff = m_backoff;
    st.rtoArmed = m_rtoArmed;
    st.rtoDeadlineNs = m_rtoDeadlineNs;
    st.persistArmed = m_persistArmed;
    st.persistDeadlineNs = m_persistDeadlineNs;
    st.persistBackoff = m_persistBackoff;
    return st;
}

std::string
OffloadSendState::Diff(const OffloadSendState& o) const
{
    std::string out;
    auto field = [&out](const char* name, auto a, auto b) {
        if (a != b)
        {
            out += std::string(out.empty() ? "" : ", ") + name + " " + std::to_string(a) +
                   " != " + std::to_string(b);
        }
    };
    field("sndUna", sndUna, o.sndUna);
    field("sndNxt", sndNxt, o.sndNxt);
    field("sndMax", sndMax, o.sndMax);
    field("closeRequested", closeRequested, o.closeRequested);
    field("sndBufEnd", sndBufEnd, o.sndBufEnd);
    field("finAcked", finAcked, o.finAcked);
    field("peerRightEdge", peerRightEdge, o.peerRightEdge);
    field("peerWindowLast", peerWindowLast, o.peerWindowLast);
    field("maxPeerWindow", maxPeerWindow, o.maxPeerWindow);
    field("dupAcks", dupAcks, o.dupAcks);
    field("inRecovery", inRecovery, o.inRecovery);
    field("recover", recover, o.recover);
    field("rttTiming", rttTiming, o.rttTiming);
    field("rttSeq", rttSeq, o.rttSeq);
    field("rttStartNs", rttStartNs, o.rttStartNs);
    field("hasRtt", hasRtt, o.hasRtt);
    field("srttNs", srttNs, o.srttNs);
    field("rttVarNs", rttVarNs, o.rttVarNs);
    field("backoff", backoff, o.backoff);
    field("rtoArmed", rtoArmed, o.rtoArmed);
    field("rtoDeadlineNs", rtoDeadlineNs, o.rtoDeadlineNs);
    field("persistArmed", persistArmed, o.persistArmed);
    field("persistDeadlineNs", persistDeadlineNs, o.persistDeadlineNs);
    field("persistBackoff", persistBackoff, o.persistBackoff);
    return out;
}

} // namespace ns3
