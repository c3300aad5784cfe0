/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_TCP_CONNECTION_H
#define PRESTO_OFFLOAD_TCP_CONNECTION_H

#include "offload-congestion-control.h"
#include "offload-reassembly.h"
#include "offload-seq.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief One TCP segment as the offload data path sees it: the fields of the IPv4 and TCP
 * headers it needs, already parsed by the device (or to be written by it).
 *
 * The flag values are those of the TCP header (and of ns3::TcpHeader::Flags_t), so a device
 * copies them straight across.
 */
struct OffloadSegment
{
    static constexpr uint8_t FIN = 0x01; //!< no more data from sender
    static constexpr uint8_t SYN = 0x02; //!< synchronise sequence numbers (control plane)
    static constexpr uint8_t RST = 0x04; //!< reset the connection
    static constexpr uint8_t PSH = 0x08; //!< push (ignored)
    static constexpr uint8_t ACK = 0x10; //!< the ack field is valid
    static constexpr uint8_t ECE = 0x40; //!< ECN-Echo
    static constexpr uint8_t CWR = 0x80; //!< congestion window reduced

    uint32_t seq{0};        //!< sequence number of the first payload byte (or of SYN/FIN)
    uint32_t ack{0};        //!< acknowledgement number (valid with ACK)
    uint32_t window{0};     //!< advertised receive window, bytes, after window scaling
    uint32_t payloadLen{0}; //!< payload length, bytes
    uint8_t flags{0};       //!< TCP flags, the constants above
    bool ce{false};         //!< the IP header carried ECN Congestion Experienced
    uint16_t pathLabel{0};  //!< the path label it came with (intervals per path)
    /// SACK blocks an option of 40 bytes holds without timestamps (RFC 2018)
    static constexpr uint32_t MAX_SACK_BLOCKS = 4;
    uint8_t sackBlocks{0}; //!< SACK blocks in sack (0: no SACK option)
    /// [left, right) edges of the out-of-order ranges held, the most recent first (RFC 2018)
    std::array<std::pair<uint32_t, uint32_t>, MAX_SACK_BLOCKS> sack{};

    /**
     * \param f one or more flag constants
     * \return true when any of them is set
     */
    bool Has(uint8_t f) const
    {
        return (flags & f) != 0;
    }
};

/// When the receive side sends ACKs.
enum class OffloadAckPolicy : uint8_t
{
    /**
     * An ACK for every segment that carries payload or FIN, also the dropped ones (TAS,
     * FlexTOE). An RMT pipeline processes one packet per pass and keeps no delayed-ACK timer,
     * so it answers each data segment in the pass that processed it; this is also what
     * DCTCP's exact ECE echo needs.
     */
    EVERY_SEGMENT,
};

/**
 * \ingroup presto
 * \brief Configuration of an offloaded connection. Times in nanoseconds, sizes in bytes.
 */
struct OffloadTcpConfig
{
    uint32_t mss{1448};   //!< maximum segment payload, bytes
    uint32_t fidelity{1}; //!< reassembly fidelity K (ReassemblyTracker)
    /// how the K intervals are assigned (PER_PATH uses OffloadSegment::pathLabel)
    ReassemblyTracker::Policy intervalPolicy{ReassemblyTracker::Policy::ARRIVAL_ORDER};
    uint32_t rxBufferSize{256 * 1024}; //!< host receive buffer, bytes (<= 2^30)
    uint32_t txBufferSize{256 * 1024}; //!< host send buffer, bytes (<= 2^30)
    uint32_t initialCwndSegments{10};  //!< initial congestion window, segments
    uint64_t minRtoNs{1000000};        //!< lower bound of the RTO, ns (1 ms)
    uint64_t initialRtoNs{1000000};    //!< RTO before the first RTT sample, ns (1 ms)
    uint64_t maxRtoNs{1000000000};     //!< upper bound of the backed-off RTO, ns (1 s)
    uint32_t dupAckThreshold{3};       //!< duplicate ACKs that trigger go-back-N
    /// SACK was negotiated: ACKs carry the out-of-order intervals held as SACK blocks
    /// (RFC 2018). The sender side ignores SACK blocks: go-back-N, as TAS.
    bool sack{false};
    /// Largest window announced, bytes: the receive buffer the application asked for, while
    /// rxBufferSize may be larger (headroom for data not yet read, as Linux doubles
    /// SO_RCVBUF), so that a peer whose send buffer is no larger than our announced window
    /// never finds the window below it
    uint32_t rxWindowLimit{ReassemblyTracker::MAX_WINDOW};
    OffloadAckPolicy ackPolicy{OffloadAckPolicy::EVERY_SEGMENT}; //!< when to ACK
    uint32_t controlIntervalRtts{2}; //!< host control interval, RTTs (TAS: 2), >= 1
    /// ACKs that answer unacceptable segments (challenge ACKs of RFC 5961, answers to acks
    /// of data never sent and to zero-length segments below rcv_next) are sent at most once
    /// per this interval, ns: two endpoints can never ACK each other in an unbounded loop
    uint64_t challengeAckIntervalNs{100000};
    uint64_t controlRttInitNs{50000}; //!< RTT estimate before a sample, ns (TAS: 50 us)
    /// Window scale we announced: the peer sees our window in units of 2^windowShift bytes
    uint32_t windowShift{0};
    /// TAS/FlexTOE timeouts: the host control loop retransmits (go-back-N from snd_una) when
    /// snd_una made no progress for 4 control intervals and at least 2 RTT; the RTO timer of
    /// OnTimerScan is then off
    bool hostLoopTimeouts{false};

    /**
     * \brief Check every field; throws PrestoInputError naming the first bad one.
     * \param where prefix for the message (e.g. the attribute path or device name)
     */
    void Validate(const char* where = "OffloadTcpConfig") const;
};

/**
 * \ingroup presto
 * \brief Event counters of one connection (never reset; 64 bits).
 */
struct OffloadTcpCounters
{
    // receive side
    uint64_t segmentsReceived{0}; //!< segments handed to OnSegment
    uint64_t inOrder{0};          //!< data segments that advanced rcv_next
    uint64_t outOfOrderPlaced{0}; //!< data segments placed in an out-of-order interval
    uint64_t fidelityDrops{0};    //!< in-window data dropped for lack of intervals (ACKed)
    uint64_t windowDrops{0};      //!< data with no byte inside the window (ACKed)
    uint64_t duplicates{0};       //!< data segments with nothing new (ACKed)
    uint64_t bytesDelivered{0};   //!< bytes that became deliverable in order
    uint64_t acksSent{0};         //!< pure ACKs produced (responses and window updates)
    uint64_t windowUpdates{0};    //!< of which window updates after an application read
    uint64_t probesAnswered{0};   //!< zero-length segments below rcv_next that were ACKed
    uint64_t ceReceived{0};       //!< data segments that arrived CE-marked (echoed as ECE)
    // send side
    uint64_t dataSegmentsSent{0};      //!< segments carrying new data or a first FIN
    uint64_t bytesSent{0};             //!< new payload bytes sent
    uint64_t retransmittedSegments{0}; //!< segments re-sent by go-back-N
    uint64_t retransmittedBytes{0};    //!< payload bytes re-sent by go-back-N
    uint64_t bytesAcked{0};            //!< payload bytes acknowledged (freed from the send buffer)
    uint64_t dupAcks{0};               //!< duplicate ACKs received (RFC 5681 definition)
    uint64_t goBackN{0};               //!< go-back-N triggered by the duplicate-ACK threshold
    uint64_t timeouts{0};              //!< retransmission timeouts (each also goes back N)
    uint64_t eceReceived{0};           //!< acceptable ACKs carrying ECE
    uint64_t cwrSent{0};               //!< data segments sent with CWR
    uint64_t rttSamples{0};            //!< RTT samples taken (Karn: never from re-sent data)
    uint64_t windowProbes{0};          //!< zero-window probes sent
    uint64_t invalidAcks{0};           //!< segments acknowledging data never sent (dropped)
    uint64_t oldAcks{0};               //!< ack numbers below snd_una (ignored)
    uint64_t noAckDrops{0};            //!< segments without the ACK flag (dropped, RFC 793)
    uint64_t resets{0};                //!< RST segments accepted (exactly at rcv_next)
    uint64_t rstChallenged{0}; //!< RSTs inside the window but not at rcv_next (RFC 5961 3.2)
    uint64_t rstIgnored{0};    //!< RSTs outside the window, dropped
    uint64_t synChallenged{0}; //!< SYNs on the established connection (RFC 5961 4.2)
    uint64_t ackTooOld{0};     //!< acks below snd_una - max window: dropped (RFC 5961 5.2)
    uint64_t challengeAcks{0}; //!< ACKs sent in answer to an unacceptable segment
    uint64_t challengeAcksSuppressed{0}; //!< of those, not sent: the rate limit

    /**
     * \brief Add another connection's counters field by field (device totals).
     * \param o the counters to add
     * \return this object
     */
    OffloadTcpCounters& operator+=(const OffloadTcpCounters& o);
};

/**
 * \ingroup presto
 * \brief What the device must do after OnSegment.
 */
struct OffloadRxDecision
{
    /// What the reassembly tracker decided about the payload (NO_PAYLOAD without payload).
    ReassemblyTracker::Verdict verdict{ReassemblyTracker::NO_PAYLOAD};
    /// First sequence number of the payload to DMA into the host receive buffer; the bytes
    /// start at payload offset writeSeq - seg.seq.
    uint32_t writeSeq{0};
    uint32_t writeLen{0};      //!< bytes to DMA (0: none)
    uint32_t delivered{0};     //!< bytes that became readable in order (notify the app)
    bool sendAck{false};       //!< emit ackSegment now
    OffloadSegment ackSegment; //!< the ACK to send (valid when sendAck)
    uint32_t ackedBytes{0};    //!< send-buffer bytes freed by this ACK (notify the app)
    bool goBackN{false};       //!< this duplicate ACK triggered go-back-N
    /// snd_una passed snd_nxt (after a go-back-N), which moved up with it
    bool sndNxtRaised{false};
    bool peerClosed{false}; //!< the peer's FIN was consumed now (tell the control plane)
    bool finAcked{false};   //!< our FIN was acknowledged now (tell the control plane)
    bool reset{false};      //!< RST: the control plane tears the connection down
    /// Refused by an acceptability rule (RFC 5961: a misplaced RST, a SYN, a bogus ack, no
    /// ACK flag): nothing of the segment was used; the device traces it as a drop.
    bool unacceptable{false};
};

/**
 * \ingroup presto
 * \brief A segment NextSegment wants sent.
 */
struct OffloadTxSegment
{
    OffloadSegment seg;         //!< header fields; the payload is send-stream bytes at seq
    bool retransmission{false}; //!< re-sent by go-back-N (not new data)
    bool probe{false};          //!< a zero-window probe (seq = snd_una - 1, no payload)
};

/**
 * \ingroup presto
 * \brief The segment the sender's rules allow now (OffloadTcpConnection::ChooseSegment):
 * how much payload from snd_nxt, and whether the FIN rides on it. Probes and pacing are
 * decided apart.
 */
struct OffloadSegmentChoice
{
    uint32_t len{0};            //!< payload bytes from snd_nxt (at most the MSS)
    bool fin{false};            //!< the FIN follows them
    bool retransmission{false}; //!< snd_nxt is behind snd_max (go-back-N re-send)
};

/**
 * \ingroup presto
 * \brief What OnTimerScan found.
 */
struct OffloadTimerDecision
{
    bool timeout{false}; //!< the RTO expired: go-back-N from snd_una with cwnd reset
    bool probe{false};   //!< a zero-window probe is due

    /// \return true when the device should call NextSegment
    bool WantsSend() const
    {
        return timeout || probe;
    }
};

/**
 * \ingroup presto
 * \brief The send side's state of one connection: what ACK processing, the transmit
 * bookkeeping and the retransmission timer read and write. A pipeline program that keeps the
 * same state in registers (PrestoTxProgram) is compared with it field by field.
 */
struct OffloadSendState
{
    uint32_t sndUna{0};            //!< first unacknowledged sequence number
    uint32_t sndNxt{0};            //!< next sequence number to send
    uint32_t sndMax{0};            //!< highest sequence number sent plus one
    bool closeRequested{false};    //!< the application closed: our FIN sits at sndBufEnd
    uint32_t sndBufEnd{0};         //!< end of the send stream (what the host posted)
    bool finAcked{false};          //!< our FIN was acknowledged
    uint32_t peerRightEdge{0};     //!< highest ack + window seen
    uint32_t peerWindowLast{0};    //!< window of the last acceptable ACK
    uint32_t maxPeerWindow{0};     //!< largest window the peer advertised
    uint32_t dupAcks{0};           //!< consecutive duplicate ACKs
    bool inRecovery{false};        //!< a go-back-N is being recovered
    uint32_t recover{0};           //!< snd_max at the last go-back-N
    bool rttTiming{false};         //!< a segment is timed
    uint32_t rttSeq{0};            //!< its end
    uint64_t rttStartNs{0};        //!< when it was sent, ns
    bool hasRtt{false};            //!< SRTT and RTTVAR hold a sample
    int64_t srttNs{0};             //!< smoothed RTT, ns
    int64_t rttVarNs{0};           //!< RTT variation, ns
    uint32_t backoff{0};           //!< RTO doublings
    bool rtoArmed{false};          //!< the retransmission timer runs
    uint64_t rtoDeadlineNs{0};     //!< when it expires, ns
    bool persistArmed{false};      //!< the persist (zero-window) timer runs
    uint64_t persistDeadlineNs{0}; //!< when the next probe is due, ns
    uint32_t persistBackoff{0};    //!< probe interval doublings

    /**
     * \param o another state
     * \return "" if equal, else the fields that differ with both values ("sndNxt 5 != 7, ...")
     */
    std::string Diff(const OffloadSendState& o) const;
};

/**
 * \ingroup presto
 * \brief The TCP data path of one established, offloaded connection: send and receive
 * state in one object of fixed size, and plain functions that take a segment, a timer tick
 * or an application event and return decisions. No Simulator calls, no allocation per
 * segment (the UNBOUNDED reference tracker aside); time is passed in as nanoseconds.
 *
 * Every NIC design (Presto's RMT pipeline, FlexTOE's core pipeline, Cora) runs this one data
 * path and differs only in when, and at what cost, it calls these functions. The connection
 * is set up by the host control plane after the handshake (ISS, IRS, the peer's window); SYN
 * and RST are reported to it, never handled here.
 *
 * **Receive.** OnSegment processes the ACK field (send side, below), then the payload through
 * a ReassemblyTracker with fidelity K (window check, in-order delivery, out-of-order
 * intervals) and answers every segment carrying payload or FIN with a cumulative ACK
 * (OffloadAckPolicy::EVERY_SEGMENT), also when it dropped it. ECN: DCTCP exact echo, the ACK
 * carries ECE iff the segment it answers was CE-marked. The advertised window is the free host
 * buffer: rxBufferSize minus the bytes delivered in order and not yet read by the application.
 * A FIN is consumed (one sequence number) when all data before it has arrived; a FIN that
 * arrives ahead of earlier data is remembered and consumed when the gap fills.
 * AppRead frees buffer and returns a window-update ACK when the window grew by at least
 * min(MSS, rxBufferSize / 2) and at least doubled since the last advertisement (this includes
 * opening from zero); smaller openings are announced by the next data ACK or the answer to a
 * zero-window probe (receiver silly-window avoidance, RFC 1122 4.2.3.3; the doubling test is
 * Linux's tcp_cleanup_rbuf).
 *
 * **Send.** AppSend appends bytes to the send buffer (up to its free space), ACKs free them.
 * NextSegment returns the next segment allowed by min(cwnd, peer window): new data, or, after
 * a go-back-N, re-sent data from snd_nxt, or nothing. ACK processing: snd_una advances;
 * a duplicate ACK (RFC 5681: same ack, no payload, no SYN/FIN, same window, data outstanding)
 * counts, and exactly the dupAckThreshold-th one triggers go-back-N (snd_nxt = snd_una, the
 * congestion control's OnLoss), at most once per window: not again until snd_una passes (is beyond)
 * the snd_max of the last go-back-N or timeout (the recovery point, RFC 6582's "covers more
 * than recover"), so that duplicate ACKs caused by our own re-sent copies cannot start a
 * spurious second go-back-N. RTT: one timed segment at a time, only new
 * data (Karn), RFC 6298 SRTT/RTTVAR, RTO = max(minRto, SRTT + 4 RTTVAR), doubled per timeout
 * up to maxRto, the backoff kept until the next valid sample. OnTimerScan, like a periodic
 * timer packet scanning the connection table, detects an expired RTO (go-back-N from snd_una,
 * cwnd to 1 MSS) and a zero peer window with nothing in flight (persist: a probe with
 * seq = snd_una - 1, which the peer must answer with an ACK). After AppClose, a FIN follows
 * the last byte.
 *
 * **Pacing.** When the congestion control returns a pacing rate R > 0 (OffloadRateCongestionBase),
 * a data segment (new or re-sent) of L sequence numbers sent at time t allows the next one at t +
 * ceil(L / R); NextSegment returns nothing before then (GetNextSendTimeNs). Zero-window probes and
 * ACKs are not paced. With R = 0 the sender is exactly the window-based one.
 *
 * **Sender silly-window avoidance.** A segment shorter than the MSS is sent only when it
 * carries the last buffered byte (no Nagle delay: an RPC tail goes at once) or nothing is in
 * flight; otherwise the sender waits for ACKs to open a full segment.
 *
 * **Peer window.** The sender keeps the right edge ack + window of the acceptable ACKs and
 * never moves it left (a reordered older ACK cannot shrink it; this receiver never shrinks
 * its window).
 *
 * **Device loop.** After OnSegment, AppSend, AppRead or a timer decision that WantsSend(), the
 * device calls NextSegment until it returns nothing, builds real headers from each segment
 * (payload = send-stream bytes starting at seg.seq, i.e. offset seq - ISS - 1 modulo 2^32),
 * DMAs OffloadRxDecision's write range to the host buffer and sends the ACKs it is given.
 *
 * **State size.** All state is plain fields of this object; the congestion control is one
 * object allocated at construction, and the tracker's UNBOUNDED reference mode uses a map.
 * Nothing is allocated per segment.
 *
 * Sequence numbers are 32-bit and compared modulo 2^32 everywhere; buffers and windows are at
 * most 2^30 bytes, so every comparison spans less than 2^31.
 */
class OffloadTcpConnection
{
  public:
    /// Largest number of RTO doublings (2^20 times any sane RTO exceeds any sane maximum).
    static constexpr uint32_t MAX_BACKOFF = 20;
    /// Largest buffer and window, bytes: keeps all compared sequence numbers within 2^31 of
    /// each other.
    static constexpr uint32_t MAX_BUFFER = ReassemblyTracker::MAX_WINDOW;

    /**
     * \param config connection parameters (validated; PrestoInputError if bad)
     * \param iss our initial sequence number: the first data byte is iss + 1
     * \param irs the peer's initial sequence number: its first data byte is irs + 1
     * \param peerWindow the window the peer advertised in the handshake, bytes (scaled)
     * \param cc congestion control to use (the device creates it from its
     * OffloadCongestionControl); null: window DCTCP with g = 1/16 and alpha = 1 (RFC 8257)
     */
    OffloadTcpConnection(const OffloadTcpConfig& config,
                         uint32_t iss,
                         uint32_t irs,
                         uint32_t peerWindow,
                         Ptr<OffloadCongestionControl> cc = nullptr);

    OffloadTcpConnection(const OffloadTcpConnection&) = delete;
    OffloadTcpConnection& operator=(const OffloadTcpConnection&) = delete;
    OffloadTcpConnection(OffloadTcpConnection&&) = default;
    OffloadTcpConnection& operator=(OffloadTcpConnection&&) = default;

    /**
     * \brief Process one arriving segment (receive and ACK processing).
     * \param seg the parsed segment
     * \param nowNs current time, ns (for RTT samples and the RTO timer)
     * \return what to DMA, whom to notify and whether to send an ACK
     */
    OffloadRxDecision OnSegment(const OffloadSegment& seg, uint64_t nowNs);

    /**
     * \brief The application read bytes from the receive buffer.
     * \param bytes bytes read (<= GetRxUnread(); PrestoInputError otherwise)
     * \return a window-update ACK to send, if the window opened enough (see class doc)
     */
    std::optional<OffloadSegment> AppRead(uint32_t bytes);

    /**
     * \brief The application appends bytes to the send stream.
     * \param bytes bytes offered
     * \return bytes accepted (limited by the free send buffer); PrestoInputError after
     * AppClose
     */
    uint32_t AppSend(uint32_t bytes);

    /// \brief The application closed: a FIN follows the last byte of the send stream.
    void AppClose();

    /**
     * \brief The next segment the sender may transmit now.
     * \param nowNs current time, ns (starts RTT samples and the RTO timer)
     * \return the segment, or nothing when the windows or the send buffer do not allow one
     */
    std::optional<OffloadTxSegment> NextSegment(uint64_t nowNs);

    /**
     * \brief The segment NextSegment would send now if nothing else held it back (the
     * windows, the send buffer, silly-window avoidance and the FIN's place; not a pending
     * probe, not pacing). Changes nothing.
     * \return the choice, or nothing when the rules allow no segment
     */
    std::optional<OffloadSegmentChoice> ChooseSegment() const;

    /**
     * \brief Periodic timer scan: check the RTO and the persist condition.
     * \param nowNs current time, ns
     * \return what happened; call NextSegment when WantsSend()
     */
    OffloadTimerDecision OnTimerScan(uint64_t nowNs);

    /**
     * \brief One host control interval has passed: the congestion control recomputes its rate
     * (OffloadRateCongestionBase; a no-op for window-based algorithms). The device calls this every
     * GetControlIntervalNs(). With hostLoopTimeouts it also detects a stalled sender.
     * \param nowNs current time, ns
     * \return true if it timed out (the device should try to send)
     */
    bool OnControlInterval(uint64_t nowNs);

    /**
     * \return true while the connection needs the timer scan and the control loop: data in
     * flight or waiting to be sent, a FIN to send, or a retransmission or persist timer
     * running. An idle connection (everything sent and acknowledged) needs neither; the
     * device leaves it out of its scans until it has something to send again.
     */
    bool NeedsTimers() const;

    /**
     * \return true if the device must call OnControlInterval (a rate-based congestion control
     * or host-loop timeouts)
     */
    bool UsesControlLoop() const;

    /**
     * \return the host control interval, ns: controlIntervalRtts x (SRTT, or controlRttInitNs
     * before the first RTT sample); at least 1 ns
     */
    uint64_t GetControlIntervalNs() const;

    /// \return the pacing rate the NIC enforces, bytes/s (0: no pacing, window-limited only)
    uint64_t GetPacingRate() const;

    /**
     * \return the earliest time NextSegment may send the next data segment, ns (0 before
     * anything was paced). While pacing, NextSegment returns nothing before this time even
     * when the windows allow a segment; the device schedules itself for then.
     */
    uint64_t GetNextSendTimeNs() const;

    /**
     * \brief Build a pure ACK with the current ack number and window.
     * \param ece set ECN-Echo
     * \return the segment (seq = snd_max, so the peer never finds it unacceptable)
     */
    OffloadSegment MakeAck(bool ece);

    uint32_t GetSndUna() const;            //!< \return first unacknowledged sequence number
    uint32_t GetSndNxt() const;            //!< \return next sequence number to send
    uint32_t GetSndMax() const;            //!< \return highest sequence number sent plus one
    uint32_t GetSndBufEnd() const;         //!< \return end of the posted send stream
    uint32_t GetRcvNext() const;           //!< \return ack number we send (FIN counted)
    uint32_t GetAdvertisedWindow() const;  //!< \return our receive window now, bytes
    uint32_t GetPeerWindowEdge() const;    //!< \return the peer's right window edge (seq)
    uint32_t GetCwnd() const;              //!< \return congestion window, bytes
    uint64_t GetRtoNs() const;             //!< \return current RTO with backoff, ns
    int64_t GetSrttNs() const;             //!< \return smoothed RTT, ns (0 before a sample)
    int64_t GetRttVarNs() const;           //!< \return RTT variation, ns (0 before a sample)
    int64_t GetLastRttNs() const;          //!< \return the last RTT sample, ns (0 before one)
    uint32_t GetBackoff() const;           //!< \return number of RTO doublings in force
    bool IsRtoArmed() const;               //!< \return true when the RTO timer runs
    uint64_t GetRtoDeadlineNs() const;     //!< \return when the RTO expires (if armed), ns
    uint32_t GetTxBuffered() const;        //!< \return bytes in the send buffer (unacked)
    uint32_t GetTxFree() const;            //!< \return free send-buffer space, bytes
    uint32_t GetRxUnread() const;          //!< \return delivered bytes not yet read
    bool IsPeerClosed() const;             //!< \return the peer's FIN was consumed
    bool IsFinAcked() const;               //!< \return our FIN was acknowledged
    bool IsReset() const;                  //!< \return an RST was received
    OffloadSendState GetSendState() const; //!< \return the send side's state
    const OffloadTcpCounters& GetCounters() const;         //!< \return the event counters
    const OffloadTcpConfig& GetConfig() const;             //!< \return the configuration
    const OffloadCongestionControl& GetCongestion() const; //!< \return the congestion control
    const ReassemblyTracker& GetReassembly() const;        //!< \return the receive tracker

  private:
    /// \return the window to put in a segment we send: the free receive buffer, at most
    /// rxWindowLimit, in units of 2^windowShift
    uint32_t WindowToAnnounce() const;
    /// Put the out-of-order intervals held into a's SACK blocks (RFC 2018).
    void AddSackBlocks(OffloadSegment& a) const;
    /**
     * \brief OnSegment's steps 1 and 2 for an RST, a SYN or a segment without ACK: refuse it
     * (counted, answered with a challenge ACK where RFC 5961 says so; an RST exactly at
     * rcv_next resets the connection).
     * \param seg the segment \param nowNs current time \param d the decision
     */
    void RefuseControl(const OffloadSegment& seg, uint64_t nowNs, OffloadRxDecision& d);
    /**
     * \brief OnSegment's step 3, the ACK field: refuse an ack of data never sent or one older
     * than the largest peer window (RFC 5961 5.2), ignore an old one, process the others.
     * \param seg the segment \param nowNs current time \param d the decision
     * \return true if the segment is acceptable and its payload is looked at
     */
    bool AcceptAckField(const OffloadSegment& seg, uint64_t nowNs, OffloadRxDecision& d);
    /**
     * \brief OnSegment's step 4 for a segment with payload or FIN: place the payload, note
     * and consume the FIN. \param seg the segment \param d the decision
     */
    void ReceivePayload(const OffloadSegment& seg, OffloadRxDecision& d);
    /**
     * \brief The payload through the reassembly tracker, counted by verdict.
     * \param seg the segment (payloadLen > 0) \param d the decision (write range, delivered)
     */
    void PlacePayload(const OffloadSegment& seg, OffloadRxDecision& d);
    /// Process the ACK field of an acceptable ACK (ack in [snd_una, snd_max]).
    void ProcessAck(const OffloadSegment& seg, uint64_t nowNs, OffloadRxDecision& d);
    /**
     * \brief Answer an unacceptable segment with an ACK, unless one was sent within
     * challengeAckIntervalNs (RFC 5961 7).
     * \param nowNs current time \param d the decision to put the ACK in
     */
    void Challenge(uint64_t nowNs, OffloadRxDecision& d);
    /// Rewind snd_nxt to snd_una and close the loss window (shared by both triggers).
    void GoBackN();
    /// Feed one RTT sample into SRTT/RTTVAR (RFC 6298 section 2).
    void UpdateRtt(int64_t sampleNs);
    /// \return the RTT the host control loop uses, ns (SRTT, or controlRttInitNs before one)
    uint64_t ControlRttNs() const;
    /**
     * \brief ChooseSegment's rule, shared with NextSegment (inlined into both).
     * \param out the choice when there is one
     * \return true if the rules allow a segment now
     */
    bool ChooseInto(OffloadSegmentChoice& out) const;
    /// \return bytes of the send stream not yet sent from snd_nxt (0 past the last byte)
    uint32_t UnsentFrom(uint32_t seq) const;

    OffloadTcpConfig m_config; //!< parameters

    /**
     * \return the congestion control (never null after construction). Read through the raw
     * pointer: Ptr's operator-> asserts non-null on every call, several times per ACK.
     */
    OffloadCongestionControl& Cc() const
    {
        return *PeekPointer(m_cc);
    }

    Ptr<OffloadCongestionControl> m_cc; //!< congestion control
    ReassemblyTracker m_rx;             //!< receive-side reassembly

    // send side
    uint32_t m_sndUna;               //!< first unacknowledged sequence number
    uint32_t m_sndNxt;               //!< next sequence number to send
    uint32_t m_sndMax;               //!< highest sequence number sent plus one
    uint32_t m_sndBufEnd;            //!< sequence number after the last appended byte
    uint32_t m_peerRightEdge;        //!< highest ack + window seen
    uint32_t m_peerWindowLast;       //!< window of the last acceptable ACK (dup-ACK test)
    uint32_t m_maxPeerWindow;        //!< largest window the peer advertised (RFC 5961 5.2)
    uint64_t m_lastChallengeNs{0};   //!< when the last answering ACK was sent
    bool m_challengeSent{false};     //!< one was sent
    uint32_t m_dupAcks{0};           //!< consecutive duplicate ACKs
    uint32_t m_recover{0};           //!< snd_max at the last go-back-N
    bool m_inRecovery{false};        //!< go-back-N done and snd_una not beyond m_recover
    bool m_closeRequested{false};    //!< AppClose was called: FIN at m_sndBufEnd
    bool m_finAcked{false};          //!< our FIN was acknowledged
    bool m_cwrPending{false};        //!< set CWR on the next data segment
    bool m_rttTiming{false};         //!< a segment is being timed
    uint32_t m_rttSeq{0};            //!< the timed segment is acked when ack reaches this
    uint64_t m_rttStartNs{0};        //!< when it was sent, ns
    bool m_hasRtt{false};            //!< SRTT/RTTVAR hold a sample
    int64_t m_srttNs{0};             //!< smoothed RTT, ns
    int64_t m_rttVarNs{0};           //!< RTT variation, ns
    int64_t m_lastRttNs{0};          //!< the last RTT sample, ns
    uint32_t m_backoff{0};           //!< RTO doublings in force
    bool m_rtoArmed{false};          //!< the retransmission timer runs
    uint64_t m_rtoDeadlineNs{0};     //!< when it expires, ns
    bool m_persistArmed{false};      //!< the persist (zero-window) timer runs
    uint64_t m_persistDeadlineNs{0}; //!< when the next probe is due, ns
    uint32_t m_persistBackoff{0};    //!< probe interval doublings
    bool m_probePending{false};      //!< NextSegment must send a probe
    uint64_t m_nextSendNs{0};        //!< pacing: no data segment before this time, ns

    // receive side
    uint32_t m_rxUnread{0};       //!< delivered in order, not yet read by the application
    uint32_t m_lastAdvWindow;     //!< window in the last segment we sent
    uint32_t m_lastPlacedSeq{0};  //!< seq of the latest out-of-order segment placed (SACK)
    bool m_peerFin{false};        //!< the peer's FIN was consumed
    uint32_t m_loopLastUna{0};    //!< snd_una at the last control interval with progress
    uint32_t m_loopStalled{0};    //!< control intervals without progress
    uint64_t m_loopProgressNs{0}; //!< when snd_una last moved (control-loop view), ns
    bool m_finPending{false};     //!< a FIN arrived; consumed when rcv_next reaches m_finSeq
    uint32_t m_finSeq{0};         //!< sequence number of the peer's FIN
    bool m_reset{false};          //!< an RST arrived

    OffloadTcpCounters m_counters; //!< event counters
};

// Inline: the receive and send files call these per segment.

inline uint32_t
OffloadTcpConnection::GetRcvNext() const
{
    return m_rx.GetRcvNext() + (m_peerFin ? 1 : 0);
}

inline uint32_t
OffloadTcpConnection::WindowToAnnounce() const
{
    // What the peer will see: the free buffer, at most the window the application asked
    // for (the buffer may be larger, see rxWindowLimit), in units of our window scale.
    const uint32_t unit = 1u << m_config.windowShift;
    uint32_t w = std::min(m_rx.GetWindow(), m_config.rxWindowLimit);
    w &= ~(unit - 1);
    return w;
}

inline uint32_t
OffloadTcpConnection::UnsentFrom(uint32_t seq) const
{
    return seq::Lt(seq, m_sndBufEnd) ? m_sndBufEnd - seq : 0;
}

} // namespace ns3

#endif // PRESTO_OFFLOAD_TCP_CONNECTION_H
