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

namespace ns3
{

/**
 * \ingroup presto
 * \brief Presto's send side as a program for the match-action engine (RmtPipeline): ACK
 * processing (acceptability, cumulative advance, the FIN's sequence number, duplicate-ACK
 * counting and the go-back-N trigger with its recovery point, the peer's window edge), the
 * transmit bookkeeping (snd_nxt, snd_max, which segment is timed), RTT estimation (RFC 6298
 * with shifts: 3/4, 7/8 and 4 x are shifts and adds) and the retransmission timer, whose
 * expiry a timer-scan packet finds. The rules are OffloadTcpConnection's, exactly (no
 * approximation): the differential tests compare every field of OffloadSendState after every
 * event.
 *
 * Not in the program: choosing what to send next (segment length, silly-window avoidance,
 * FIN placement), the persist timer and its probes, challenge-ACK rate limiting, pacing;
 * they stay in the shared data path.
 *
 * **Stages** (10), with their register arrays (per connection):
 * - `tx.max`: `tx.snd_max` (32). Read; raised by a transmitted segment.
 * - `tx.una`: `tx.snd_una` (32), `tx.close` (34: closed, FIN acked, end of stream).
 *   Classifies the ACK (beyond snd_max: unacceptable; below snd_una: old; else processed),
 *   advances snd_una; notes an ACK that covers our FIN.
 * - `tx.peer`: `tx.peer` (64: right edge, last window), `tx.max_peer_window` (32). The
 *   duplicate-ACK condition (same window, nothing acked, no payload); the edge never moves
 *   left; an old ACK beyond the largest window is "too old".
 * - `tx.dup`: `tx.dup_acks` (32). Counts; zero on progress or timeout.
 * - `tx.recovery`: `tx.recovery` (33: in recovery, recover). Leaves recovery past the
 *   recovery point; the threshold-th duplicate outside recovery goes back N.
 * - `tx.nxt`: `tx.snd_nxt` (32). Never behind snd_una; rewound by go-back-N.
 * - `tx.rtt_seq`: `tx.rtt_seq` (34: has RTT, timing, end of the timed segment). Starts and
 *   stops timing (Karn: a go-back-N stops it).
 * - `tx.rtt_start`: `tx.rtt_start` (64). The timed segment's send time; the sample.
 * - `tx.rtt`: `tx.rtt` (64: SRTT, RTTVAR, ns, 32 bits each: samples up to 4.29 s),
 *   `tx.backoff` (8). The RFC 6298 update; backoff cleared by a sample, raised by a timeout.
 * - `tx.rto`: `tx.rto` (64: armed, deadline). Armed by a transmission, restarted by
 *   progress, stopped when all is acknowledged; a scan packet past the deadline times out.
 *
 * **Passes.** ACKs and transmissions take one pass (riding on the packet's own); a scan
 * packet one, except one that finds an expired timer: it recirculates, and pass 2 goes back
 * N, clears the duplicate count, stops timing, raises the backoff and restarts the timer with
 * it (all of which sit in front of `tx.rto`).
 */
class PrestoTxProgram
{
  public:
    /// Stages the program uses.
    static constexpr uint32_t STAGES = 10;
    /// Stages before the acked bytes and snd_una of an ACK are known (tx.max, tx.una): a
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
     * \brief Start a connection from the data path's state (control plane).
     * \param conn connection id
     * \param state the state to load
     */
    void Init(uint32_t conn, const OffloadSendState& state);

    /**
     * \brief The application closed: the FIN follows the stream's last byte (control plane,
     * the host's doorbell).
     * \param conn connection id
     * \param sndBufEnd the stream's end (the FIN's sequence number)
     */
    void Close(uint32_t conn, uint32_t sndBufEnd);

    /**
     * \brief An arriving segment's ACK field (segments with ACK, without RST or SYN).
     * \param conn connection id
     * \param ack its ack number
     * \param window its window, bytes (scaled)
     * \param payloadLen its payload, bytes
     * \param fin it carries FIN
     * \param nowNs the time, ns
     * \return what it did
     */
    AckResult OnAck(uint32_t conn,
                    uint32_t ack,
                    uint32_t window,
                    uint32_t payloadLen,
                    bool fin,
                    uint64_t nowNs);

    /**
     * \brief A data segment (or FIN) left.
     * \param conn connection id
     * \param seq its sequence number
     * \param seqLen the sequence space it takes (payload + FIN), > 0
     * \param nowNs the time, ns
     */
    void OnTransmit(uint32_t conn, uint32_t seq, uint32_t seqLen, uint64_t nowNs);

    /**
     * \brief A timer-scan packet visits the connection.
     * \param conn connection id
     * \param nowNs the time, ns
     * \return true if the retransmission timer expired (go-back-N done)
     */
    bool OnTimerScan(uint32_t conn, uint64_t nowNs);

    /// \param conn connection id \return its state in the registers (control-plane reads)
    OffloadSendState GetState(uint32_t conn) const;

    /// \return the recirculations so far (one per timeout)
    uint64_t GetRecirculations() const;
    /// \return the record of the last packet run
    const RmtExecution& GetLastExecution() const;
    /// \return the resource report
    RmtResourceReport GetResourceReport() const;
    /// \return the number of connection ids
    uint32_t GetMaxConnections() const;

  private:
    /// Operations carried in meta.op.
    enum Op : uint8_t
    {
        OP_NONE = 0,
        OP_ACK = 1,            //!< an arriving segment's ACK field
        OP_TX = 2,             //!< a segment left
        OP_SCAN = 3,           //!< a timer-scan packet
        OP_TIMEOUT_COMMIT = 4, //!< pass 2 of an expired timer
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
        RmtFieldId seq;         //!< transmitted segment's seq
        RmtFieldId seqLen;      //!< its sequence length
        RmtFieldId max;         //!< snd_max (after a transmission's update)
        RmtFieldId maxOld;      //!< snd_max before it
        RmtFieldId una;         //!< snd_una (after the ACK)
        RmtFieldId cls;         //!< AckClass
        RmtFieldId acked;       //!< sequence space newly acknowledged
        RmtFieldId finInAck;    //!< the ack covers our FIN
        RmtFieldId finNew;      //!< and it was not acknowledged before
        RmtFieldId dupCond;     //!< a duplicate ACK
        RmtFieldId dup;         //!< duplicate count after it
        RmtFieldId goBackN;     //!< threshold reached outside recovery
        RmtFieldId sample;      //!< the ACK ends the timed segment
        RmtFieldId first;       //!< and it is the first sample
        RmtFieldId hasRtt;      //!< SRTT holds a sample (after this packet)
        RmtFieldId startTiming; //!< the transmission starts timing
        RmtFieldId sampleNs;    //!< the RTT sample, ns
        RmtFieldId srtt;        //!< SRTT after the packet
        RmtFieldId rttvar;      //!< RTTVAR after the packet
        RmtFieldId backoff;     //!< backoff after the packet
        RmtFieldId timeout;     //!< the scan found the timer expired
    };

    /// Declare the PHV fields.
    void DeclareFields();
    /// Build the stages, in order.
    void BuildStages();
    /// Throw unless conn is a valid id.
    void CheckConn(uint32_t conn, const char* where) const;
    /// Run the prepared PHV.
    void Run();

    uint32_t m_maxConnections;               //!< connection ids
    Params m_params;                         //!< parameters
    std::unique_ptr<RmtPipeline> m_pipeline; //!< the engine
    Fields m_f{};                            //!< PHV handles
    RmtRegisterArray* m_max{};               //!< snd_max
    RmtRegisterArray* m_una{};               //!< snd_una
    RmtRegisterArray* m_close{};             //!< closed, FIN acked, stream end
    RmtRegisterArray* m_peer{};              //!< right edge (low), last window (high)
    RmtRegisterArray* m_maxPeerWindow{};     //!< largest peer window
    RmtRegisterArray* m_dup{};               //!< duplicate ACKs
    RmtRegisterArray* m_recovery{};          //!< in recovery, recover
    RmtRegisterArray* m_nxt{};               //!< snd_nxt
    RmtRegisterArray* m_rttSeq{};            //!< has RTT, timing, timed end
    RmtRegisterArray* m_rttStart{};          //!< timed segment's send time
    RmtRegisterArray* m_rtt{};               //!< SRTT (low), RTTVAR (high)
    RmtRegisterArray* m_backoff{};           //!< RTO doublings
    RmtRegisterArray* m_rto{};               //!< armed, deadline
    std::unique_ptr<RmtPhv> m_phv;           //!< reused PHV
    RmtExecution m_exec;                     //!< reused execution record
    uint64_t m_recirculations{0};            //!< extra passes so far
};

} // namespace ns3

#endif // PRESTO_PRESTO_TX_PROGRAM_H
