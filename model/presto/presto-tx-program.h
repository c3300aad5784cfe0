/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_TX_PROGRAM_H
#define PRESTO_PRESTO_TX_PROGRAM_H

#include "ns3/offload-tcp-connection.h"
#include "ns3/rmt-phv.h"
#include "ns3/rmt-pipeline.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Presto's send side as a program for the match-action engine (RmtPipeline): the
 * segment choice (how much of what the host posted goes next: the congestion and peer
 * windows, the send buffer, silly-window avoidance, the FIN's place), ACK processing
 * (acceptability, cumulative advance, the FIN's sequence number, duplicate-ACK counting and
 * the go-back-N trigger with its recovery point, the peer's window edge), the transmit
 * bookkeeping (snd_nxt, snd_max, which segment is timed), RTT estimation (RFC 6298 with
 * shifts: 3/4, 7/8 and 4 x are shifts and adds), the retransmission timer and the persist
 * timer, whose expiry a timer-scan packet finds. The rules are OffloadTcpConnection's,
 * exactly (no approximation): the differential tests compare every field of OffloadSendState
 * after every event, and every segment chosen.
 *
 * Not in the program: the congestion window (an input of each pass: the congestion program's,
 * PrestoDctcpProgram, or the data path's), pacing (the NIC's rate limiter releases a
 * connection's send passes; the rate's division is the host control loop's), challenge-ACK
 * rate limiting, and CWR (ECN's one-bit echo state, kept with the congestion control).
 *
 * **Stages** (10), with their register arrays (per connection):
 * - `tx.snd`: `tx.snd` (64: snd_nxt, snd_max). Read by everything first (an ACK is
 *   acceptable up to snd_max). A send pass writes a guess here: a full segment from snd_nxt.
 * - `tx.una`: `tx.snd_una` (32), `tx.close` (34: closed, FIN acked, end of the posted
 *   stream). Classifies the ACK (beyond snd_max: unacceptable; below snd_una: old; else
 *   processed), advances snd_una; notes an ACK that covers our FIN. The host's doorbell (a
 *   post pass) writes the stream's end and the close.
 * - `tx.peer`: `tx.peer` (64: right edge, last window), `tx.max_peer_window` (32). The
 *   duplicate-ACK condition (same window, nothing acked, no payload); the edge never moves
 *   left; an old ACK beyond the largest window is "too old".
 * - `tx.dup`: `tx.dup_acks` (32). Counts; zero on progress or timeout.
 * - `tx.recovery`: `tx.recovery` (33: in recovery, recover). Leaves recovery past the
 *   recovery point; the threshold-th duplicate outside recovery goes back N.
 * - `tx.choose`: no registers. The segment the windows, the posted stream, silly-window
 *   avoidance and the FIN allow from snd_nxt; checks the send pass's guess; tells an ACK or a
 *   doorbell whether a send pass is due (ready); finds a sender blocked by a closed window.
 * - `tx.rtt_seq`: `tx.rtt_seq` (34: has RTT, timing, end of the timed segment). Starts and
 *   stops timing (Karn: a go-back-N stops it).
 * - `tx.rtt_start`: `tx.rtt_start` (64). The timed segment's send time; the sample.
 * - `tx.rtt`: `tx.rtt` (64: SRTT, RTTVAR, ns, 32 bits each: samples up to 4.29 s),
 *   `tx.backoff` (8). The RFC 6298 update; backoff cleared by a sample, raised by a timeout.
 * - `tx.rto`: `tx.rto` (64: armed, deadline), `tx.persist` (64: armed, 5-bit probe backoff,
 *   58-bit deadline). Armed by a transmission, restarted by progress, stopped when all is
 *   acknowledged; a scan packet past the deadline times out. A scan that finds the sender
 *   blocked arms the persist timer at one RTO, and past its deadline asks for a probe and
 *   doubles the interval (a shift), up to the maximum RTO; a transmission disarms it.
 *
 * **Passes.** snd_nxt and snd_max sit in front of everything that decides the segment, and
 * one register array takes one access per pass, so a send pass writes them before it knows
 * the segment: it guesses a full segment (the common case of a bulk sender), or, when the
 * pass is a doorbell's (the host posted bytes, and its packet goes on to send), the posted
 * bytes up to a full segment (a small RPC message); tx.choose checks the guess. Any other
 * segment (a short one, a FIN, or nothing to send) recirculates: pass 2 writes the right
 * snd_nxt and snd_max and does the bookkeeping. For the same reason an ACK that
 * moves snd_nxt (a go-back-N, or snd_una passing snd_nxt after one) takes a second pass that
 * writes snd_nxt. A scan packet takes one pass, except one that finds an expired timer: pass
 * 2 goes back N, clears the duplicate count, stops timing, raises the backoff and restarts
 * the timer with it (all of which sit in front of `tx.rto`). The last stage sends every
 * second pass back. GetRecirculations counts them all.
 */
class PrestoTxProgram
{
  public:
    /// Stages the program uses.
    static constexpr uint32_t STAGES = 10;
    /// Stages before the acked bytes and snd_una of an ACK are known (tx.snd, tx.una): a
    /// program that needs them (PrestoDctcpProgram) starts behind these.
    static constexpr uint32_t ACK_INPUT_STAGES = 2;

    /// Connection parameters every connection of the NIC shares.
    struct Params
    {
        uint32_t dupAckThreshold{3};    //!< duplicate ACKs that trigger go-back-N
        uint64_t minRtoNs{1000000};     //!< RTO lower bound, ns
        uint64_t initialRtoNs{1000000}; //!< RTO before a sample, ns
        uint64_t maxRtoNs{1000000000};  //!< RTO upper bound, ns
    };

    /// How an ACK was classified.
    enum AckClass : uint8_t
    {
        ACK_UNACCEPTABLE = 0, //!< acknowledges data never sent
        ACK_TOO_OLD = 1,      //!< further back than the largest window the peer offered
        ACK_OLD = 2,          //!< below snd_una: ignored
        ACK_PROCESSED = 3,    //!< in [snd_una, snd_max]: processed
    };

    /// What an ACK did.
    struct AckResult
    {
        AckClass cls{ACK_UNACCEPTABLE}; //!< classification
        uint32_t dataAcked{0};          //!< payload bytes newly acknowledged (FIN excluded)
        bool finAcked{false};           //!< our FIN became acknowledged
        bool goBackN{false};            //!< the duplicate-ACK threshold was reached
        bool ready{false};              //!< a segment may be sent after it (issue a send pass)
    };

    /// What a send pass chose.
    struct SendResult
    {
        uint32_t seq{0};            //!< the segment's sequence number (snd_nxt)
        uint32_t len{0};            //!< its payload, bytes
        bool fin{false};            //!< the FIN rides on it
        uint32_t seqLen{0};         //!< sequence space: len + FIN; 0: nothing was sent
        bool retransmission{false}; //!< below snd_max (a go-back-N re-send)
    };

    /**
     * \brief Build the program. Throws PrestoInputError when it does not fit (stage budget,
     * register memory per stage, pass limit below 2) or a parameter is out of range.
     * \param maxConnections register array size
     * \param params the connection parameters
     * \param config the hardware
     */
    PrestoTxProgram(uint32_t maxConnections, const Params& params, const RmtPipelineConfig& config);
    ~PrestoTxProgram();

    PrestoTxProgram(const PrestoTxProgram&) = delete;
    PrestoTxProgram& operator=(const PrestoTxProgram&) = delete;

    /**
     * \brief Start a connection from the data path's state (control plane). Its MSS is the
     * connection table entry's action data: every packet of the connection carries it.
     * \param conn connection id
     * \param state the state to load
     * \param mss its maximum segment payload, bytes (1 to 65535; PrestoInputError otherwise)
     */
    void Init(uint32_t conn, const OffloadSendState& state, uint32_t mss);

    /**
     * \brief The host's doorbell: it posted bytes up to sndBufEnd, or closed (one pass).
     * \param conn connection id
     * \param sndBufEnd the end of the posted stream (the FIN's sequence number once closed)
     * \param closed the application closed: a FIN follows sndBufEnd
     * \param cwnd the congestion window, bytes
     * \param nowNs the time, ns
     * \return true if a segment may be sent now (issue a send pass)
     */
    bool Post(uint32_t conn, uint32_t sndBufEnd, bool closed, uint32_t cwnd, uint64_t nowNs);

    /**
     * \brief An arriving segment's ACK field (segments with ACK, without RST or SYN).
     * \param conn connection id
     * \param ack its ack number
     * \param window its window, bytes (scaled)
     * \param payloadLen its payload, bytes
     * \param fin it carries FIN
     * \param cwnd the congestion window after this ACK, bytes (for AckResult::ready)
     * \param nowNs the time, ns
     * \return what it did
     */
    AckResult OnAck(uint32_t conn,
                    uint32_t ack,
                    uint32_t window,
                    uint32_t payloadLen,
                    bool fin,
                    uint32_t cwnd,
                    uint64_t nowNs);

    /**
     * \brief A send pass: choose the next segment and do its bookkeeping (snd_nxt, snd_max,
     * timing, the timers), or find that nothing may be sent.
     * \param conn connection id
     * \param cwnd the congestion window, bytes
     * \param nowNs the time, ns
     * \param postedEnd on the pass of a doorbell (the host posted bytes and the same packet
     * sends): the stream's new end it carries, so that tx.snd guesses the posted bytes (up to
     * the MSS) instead of a full segment
     * \return the segment (seqLen 0: nothing)
     */
    SendResult Send(uint32_t conn,
                    uint32_t cwnd,
                    uint64_t nowNs,
                    std::optional<uint32_t> postedEnd = std::nullopt);

    /**
     * \brief A timer-scan packet visits the connection.
     * \param conn connection id
     * \param nowNs the time, ns
     * \return timeout: the retransmission timer expired (go-back-N done); probe: the persist
     * timer expired (send a zero-window probe)
     */
    OffloadTimerDecision OnTimerScan(uint32_t conn, uint64_t nowNs);

    /// \param conn connection id \return its state in the registers (control-plane reads)
    OffloadSendState GetState(uint32_t conn) const;

    /// \return the recirculations so far (timeouts, wrong guesses, ACKs that move snd_nxt)
    uint64_t GetRecirculations() const;
    /// \return the record of the last packet run
    const RmtExecution& GetLastExecution() const;
    /// \return the resource report
    RmtResourceReport GetResourceReport() const;
    /// \return the number of connection ids
    uint32_t GetMaxConnections() const;
    /// \param conn connection id \return the MSS its segment choice uses, bytes
    uint32_t GetMss(uint32_t conn) const;

  private:
    /// Operations carried in meta.op.
    enum Op : uint8_t
    {
        OP_NONE = 0,
        OP_ACK = 1,            //!< an arriving segment's ACK field
        OP_SEND = 2,           //!< a send pass
        OP_SCAN = 3,           //!< a timer-scan packet
        OP_TIMEOUT_COMMIT = 4, //!< pass 2 of an expired timer
        OP_SEND_FIX = 5,       //!< pass 2 of a send pass that guessed wrong
        OP_ACK_FIX = 6,        //!< pass 2 of an ACK that moves snd_nxt
        OP_POST = 7,           //!< the host's doorbell
    };

    /// PHV field handles, resolved once.
    struct Fields
    {
        RmtFieldId conn;        //!< connection id
        RmtFieldId op;          //!< Op
        RmtFieldId now;         //!< ingress time, ns
        RmtFieldId ack;         //!< ack number
        RmtFieldId window;      //!< window
        RmtFieldId payload;     //!< payload length
        RmtFieldId fin;         //!< FIN flag
        RmtFieldId cwnd;        //!< congestion window (input)
        RmtFieldId mss;         //!< the connection's MSS (connection table's action data)
        RmtFieldId posted;      //!< a doorbell's send pass
        RmtFieldId postedEnd;   //!< the stream's end it carries
        RmtFieldId guess;       //!< the sequence space tx.snd guessed
        RmtFieldId seq;         //!< the chosen segment's seq
        RmtFieldId len;         //!< its payload
        RmtFieldId finOut;      //!< it carries the FIN
        RmtFieldId seqLen;      //!< its sequence length
        RmtFieldId commit;      //!< its bookkeeping is due in this pass
        RmtFieldId mispredict;  //!< tx.snd's guess was wrong
        RmtFieldId nxt;         //!< snd_nxt as read
        RmtFieldId max;         //!< snd_max (after this pass's write)
        RmtFieldId maxOld;      //!< snd_max as read
        RmtFieldId una;         //!< snd_una (after the ACK)
        RmtFieldId bufEnd;      //!< end of the posted stream
        RmtFieldId closed;      //!< the host closed
        RmtFieldId edge;        //!< the peer's right edge (after the ACK)
        RmtFieldId cls;         //!< AckClass
        RmtFieldId acked;       //!< sequence space newly acknowledged
        RmtFieldId finInAck;    //!< the ack covers our FIN
        RmtFieldId finNew;      //!< and it was not acknowledged before
        RmtFieldId dupCond;     //!< a duplicate ACK
        RmtFieldId dup;         //!< duplicate count after it
        RmtFieldId goBackN;     //!< threshold reached outside recovery
        RmtFieldId fixNxt;      //!< the ACK moves snd_nxt (pass 2)
        RmtFieldId ready;       //!< a segment may be sent after this packet
        RmtFieldId sample;      //!< the ACK ends the timed segment
        RmtFieldId first;       //!< and it is the first sample
        RmtFieldId hasRtt;      //!< SRTT holds a sample (after this packet)
        RmtFieldId startTiming; //!< the transmission starts timing
        RmtFieldId sampleNs;    //!< the RTT sample, ns
        RmtFieldId srtt;        //!< SRTT after the packet
        RmtFieldId rttvar;      //!< RTTVAR after the packet
        RmtFieldId backoff;     //!< backoff after the packet
        RmtFieldId timeout;     //!< the scan found the timer expired
        RmtFieldId blocked;     //!< nothing in flight, data waiting, the peer's window closed
        RmtFieldId probe;       //!< the scan found the persist timer expired
    };

    // The packed registers' bits, shared by the stages (presto-tx-stages.cc) and the control
    // plane (Init, GetState).
    static constexpr uint64_t CLOSED = uint64_t{1} << 33;      //!< tx.close: FIN requested
    static constexpr uint64_t FIN_ACKED = uint64_t{1} << 32;   //!< tx.close: FIN acknowledged
    static constexpr uint64_t IN_RECOVERY = uint64_t{1} << 32; //!< tx.recovery
    static constexpr uint64_t HAS_RTT = uint64_t{1} << 33;     //!< tx.rtt_seq
    static constexpr uint64_t TIMING = uint64_t{1} << 32;      //!< tx.rtt_seq
    static constexpr uint64_t ARMED = uint64_t{1} << 63;       //!< tx.rto, tx.persist
    static constexpr uint64_t LOW32 = 0xffffffffull;           //!< the low word of a cell
    static constexpr uint32_t PERSIST_SHIFT = 58;              //!< tx.persist: the backoff
    static constexpr uint64_t PERSIST_TIME = (uint64_t{1} << PERSIST_SHIFT) - 1; //!< deadline

    /// Declare the PHV fields.
    void DeclareFields();
    /// Build the stages, in order: one function per stage (presto-tx-stages.cc).
    void BuildStages();
    /// tx.snd: snd_nxt and snd_max; a send pass's guess of its segment.
    void BuildSndStage();
    /// tx.una: the ACK's class, snd_una; the posted stream's end and the close.
    void BuildUnaStage();
    /// tx.peer: the peer's window edge and the duplicate-ACK condition.
    void BuildPeerStage();
    /// tx.dup: consecutive duplicate ACKs.
    void BuildDupStage();
    /// tx.recovery: the go-back-N trigger and its recovery point.
    void BuildRecoveryStage();
    /// tx.choose: what may be sent now (no registers).
    void BuildChooseStage();
    /// tx.rtt_seq: which segment is timed.
    void BuildRttSeqStage();
    /// tx.rtt_start: the timed segment's send time and the sample.
    void BuildRttStartStage();
    /// tx.rtt: SRTT, RTTVAR and the backoff.
    void BuildRttStage();
    /// tx.rto: the retransmission and persist timers; the second passes.
    void BuildRtoStage();
    /// \param st a stage \param name the table's name \return a new table keyed on meta.op
    RmtTable& OpTable(RmtStage& st, const std::string& name) const;
    /// \param f the fields \param c a pass \return true if it is an ACK tx.una processed
    static bool Processed(const Fields& f, const RmtActionContext& c);
    /// Read tx.snd's cell into meta.snd_nxt, meta.snd_max and meta.snd_max_old.
    /// \param f the fields \param c the pass \param cell the cell
    static void Unpack(const Fields& f, RmtActionContext& c, uint64_t cell);
    /// Throw unless conn is a valid id.
    void CheckConn(uint32_t conn, const char* where) const;
    /// Clear the PHV for a packet of op on conn at nowNs (throws for a bad conn).
    void Start(uint32_t conn, uint8_t op, uint64_t nowNs);
    /// Run the prepared PHV.
    void Run();

    uint32_t m_maxConnections;               //!< connection ids
    Params m_params;                         //!< parameters
    std::unique_ptr<RmtPipeline> m_pipeline; //!< the engine
    Fields m_f{};                            //!< PHV handles
    RmtRegisterArray* m_snd{};               //!< snd_nxt (low), snd_max (high)
    RmtRegisterArray* m_una{};               //!< snd_una
    RmtRegisterArray* m_close{};             //!< closed, FIN acked, stream end
    RmtRegisterArray* m_peer{};              //!< right edge (low), last window (high)
    RmtRegisterArray* m_maxPeerWindow{};     //!< largest peer window
    RmtRegisterArray* m_dup{};               //!< duplicate ACKs
    RmtRegisterArray* m_recovery{};          //!< in recovery, recover
    RmtRegisterArray* m_rttSeq{};            //!< has RTT, timing, timed end
    RmtRegisterArray* m_rttStart{};          //!< timed segment's send time
    RmtRegisterArray* m_rtt{};               //!< SRTT (low), RTTVAR (high)
    RmtRegisterArray* m_backoff{};           //!< RTO doublings
    RmtRegisterArray* m_rto{};               //!< armed, deadline
    RmtRegisterArray* m_persist{};           //!< armed, probe backoff, deadline
    std::vector<uint16_t> m_mss;             //!< by connection: the MSS (table action data), grown
    std::unique_ptr<RmtPhv> m_phv;           //!< reused PHV
    RmtExecution m_exec;                     //!< reused execution record
    uint64_t m_recirculations{0};            //!< extra passes so far
};

} // namespace ns3

#endif // PRESTO_PRESTO_TX_PROGRAM_H
