/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_DCTCP_PROGRAM_H
#define PRESTO_PRESTO_DCTCP_PROGRAM_H

#include "ns3/rmt-phv.h"
#include "ns3/rmt-pipeline.h"

#include <cstdint>
#include <memory>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Presto's sender-side congestion control as a program for the match-action engine
 * (RmtPipeline): window DCTCP (RFC 8257) with NewReno's reactions to losses and timeouts, the
 * rules of OffloadDctcpCongestion, with the pipeline's arithmetic of PrestoDctcpArithmetic (no
 * division, no multiplication: shifts, a ternary leading-one table and exact-match lookup
 * tables). Per-connection state lives in register arrays indexed by connection id.
 *
 * The differential tests hold it to OffloadDctcpPipelineArithmetic (OffloadDctcpCongestion with the
 * same arithmetic) event for event: the congestion window, ssthresh, alpha, and whether the
 * ACK cut the window.
 *
 * **Stages** (9), with their register arrays (per connection) and what they decide:
 * - `cc.ack`: `cc.reduction` (34 bit: in, frozen, end), `cc.mss` (16 bit), `cc.window_end`
 *   (32 bit). Closes a reduction window, decides an ECE cut (once per window), opens a
 *   reduction on loss or timeout; ends DCTCP's observation window.
 * - `cc.bytes`: `cc.acked`, `cc.ece` (32 bit). The window's bytes and ECE bytes; read and
 *   zeroed when it ends.
 * - `cc.frac_norm`: ternary table of 33 - B entries. The shift that leaves acked's B leading
 *   bits.
 * - `cc.frac`: exact table (eceM, ackedM) -> F. F = ece / acked in Q20.
 * - `cc.alpha`: `cc.alpha` (21 bit, Q20). alpha - (alpha >> s) + (F >> s).
 * - `cc.ssthresh`: `cc.ssthresh` (32 bit). Read; max(flight / 2, 2 MSS) on loss or timeout;
 *   the cut in pass 2.
 * - `cc.window`: `cc.window` (64 bit: cwnd, bytes acked in avoidance). Slow start, avoidance,
 *   loss, timeout; the cut in pass 2.
 * - `cc.cut_norm`: ternary table of 33 - B entries. The shift that leaves cwnd's B leading
 *   bits.
 * - `cc.cut`: exact table (cwndM, alphaIndex) -> product. The reduced window (2-MSS floor);
 *   recirculates.
 *
 * **Passes.** Every ACK and timeout takes one pass, except an ACK that cuts the window for
 * an ECE: the window register is read in stage `cc.window` but the reduced value needs the
 * product table behind it, and ssthresh sits in front of it; the packet recirculates once
 * and pass 2 (OP_CUT_COMMIT) writes ssthresh and cwnd (at most once per window of data). A
 * duplicate ACK that triggers go-back-N runs OnAck, then OnLoss in a second pass (the send
 * side decides go-back-N behind the stages OnLoss writes): GetRecirculations counts it.
 *
 * **Depth.** The program's inputs (acked bytes, snd_una) come from the send program's first
 * two stages (PrestoTxProgram::ACK_INPUT_STAGES), so beside it an ACK needs
 * ACK_INPUT_STAGES + STAGES = 11 stages.
 *
 * The window is read by the transmit path (GetCwnd: a read of `cc.window` in the transmit
 * pass, modelled as a control-plane read); connection setup (Init) is control plane.
 */
class PrestoDctcpProgram
{
  public:
    /// Stages the program uses.
    static constexpr uint32_t STAGES = 9;

    /// Parameters of the algorithm.
    struct Params
    {
        double gain{1.0 / 16};    //!< EWMA gain, a power of two
        double alphaInit{1.0};    //!< initial alpha, [0, 1]
        uint32_t mantissaBits{6}; //!< B of PrestoDctcpArithmetic
    };

    /**
     * \brief Build the program and install its lookup tables. Throws PrestoInputError when a
     * parameter is out of range or the program does not fit the hardware (stage budget,
     * register memory per stage, pass limit below 2), naming what does not fit.
     * \param maxConnections register array size: connection ids are 0..maxConnections-1
     * \param params the algorithm's parameters
     * \param config the hardware (the Presto NIC's); its name names the program in reports
     */
    PrestoDctcpProgram(uint32_t maxConnections,
                       const Params& params,
                       const RmtPipelineConfig& config);
    ~PrestoDctcpProgram();

    PrestoDctcpProgram(const PrestoDctcpProgram&) = delete;
    PrestoDctcpProgram& operator=(const PrestoDctcpProgram&) = delete;

    /**
     * \brief Start a connection (control plane).
     * \param conn connection id
     * \param mss its maximum segment size, bytes (1..65535)
     * \param initialCwndSegments its initial window, segments (>= 1)
     * \param sndNxt the first sequence number it sends (ISS + 1)
     */
    void Init(uint32_t conn, uint32_t mss, uint32_t initialCwndSegments, uint32_t sndNxt);

    /**
     * \brief An acceptable ACK (OffloadCongestionControl::OnAck).
     * \param conn connection id
     * \param ackedBytes newly acknowledged bytes (0: a duplicate ACK)
     * \param ece the ACK carried ECN-Echo
     * \param sndUna snd_una after the ACK
     * \param sndNxt snd_max
     * \return true if the window was cut for the ECE
     */
    bool OnAck(uint32_t conn, uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt);

    /**
     * \brief Go-back-N after duplicate ACKs (OffloadCongestionControl::OnLoss).
     * \param conn connection id
     * \param bytesInFlight snd_max - snd_una
     * \param sndNxt snd_max
     */
    void OnLoss(uint32_t conn, uint32_t bytesInFlight, uint32_t sndNxt);

    /**
     * \brief A retransmission timeout found by a timer-scan packet.
     * \param conn connection id
     * \param bytesInFlight snd_max - snd_una
     * \param sndNxt snd_max
     */
    void OnTimeout(uint32_t conn, uint32_t bytesInFlight, uint32_t sndNxt);

    /// \param conn connection id \return its congestion window, bytes
    uint32_t GetCwnd(uint32_t conn) const;
    /// \param conn connection id \return its slow-start threshold, bytes
    uint32_t GetSsThresh(uint32_t conn) const;
    /// \param conn connection id \return its alpha, Q20
    uint32_t GetAlphaQ20(uint32_t conn) const;

    /// \return the recirculations so far (one per ECE cut, one per go-back-N)
    uint64_t GetRecirculations() const;

    /// \return the record of the last packet run: passes, latency
    const RmtExecution& GetLastExecution() const;
    /// \return the resource report (stages, arrays, tables, counters)
    RmtResourceReport GetResourceReport() const;
    /// \return the number of connection ids
    uint32_t GetMaxConnections() const;
    /// \return the parameters
    const Params& GetParams() const;

  private:
    /// Operations carried in meta.op.
    enum Op : uint8_t
    {
        OP_NONE = 0,
        OP_ACK = 1,        //!< an acceptable ACK
        OP_LOSS = 2,       //!< go-back-N after duplicate ACKs
        OP_TIMEOUT = 3,    //!< a timer-scan packet found an expired timer
        OP_CUT_COMMIT = 4, //!< pass 2 of an ECE cut: write ssthresh and cwnd
    };

    /// PHV field handles, resolved once.
    struct Fields
    {
        RmtFieldId conn;     //!< connection id
        RmtFieldId op;       //!< Op
        RmtFieldId acked;    //!< newly acknowledged bytes
        RmtFieldId ece;      //!< ECN-Echo
        RmtFieldId sndUna;   //!< snd_una after the ACK
        RmtFieldId sndNxt;   //!< snd_max
        RmtFieldId flight;   //!< bytes in flight (loss, timeout)
        RmtFieldId mss;      //!< the connection's MSS (read in cc.ack)
        RmtFieldId cut;      //!< this ACK cuts the window
        RmtFieldId grow;     //!< this ACK may grow the window
        RmtFieldId newWin;   //!< DCTCP's observation window ended
        RmtFieldId total;    //!< bytes acked in the ended window
        RmtFieldId eceTotal; //!< of which with ECE
        RmtFieldId ackedM;   //!< total's mantissa
        RmtFieldId eceM;     //!< eceTotal at the same shift
        RmtFieldId frac;     //!< F, Q20
        RmtFieldId alpha;    //!< alpha after the update, Q20
        RmtFieldId ssthresh; //!< ssthresh (read, or the new one)
        RmtFieldId cwnd;     //!< cwnd (read in pass 1 of a cut; the result otherwise)
        RmtFieldId cwndM;    //!< cwnd's mantissa
        RmtFieldId cwndS;    //!< its shift
        RmtFieldId alphaI;   //!< alpha's index
        RmtFieldId newSs;    //!< ssthresh after the cut (pass 2)
    };

    /// Declare the PHV fields.
    void DeclareFields();
    /// Build stage cc.ack.
    void BuildAckStage();
    /// Build stage cc.bytes.
    void BuildBytesStage();
    /// Build stages cc.frac_norm and cc.frac.
    void BuildFractionStages();
    /// Build stage cc.alpha.
    void BuildAlphaStage();
    /// Build stage cc.ssthresh.
    void BuildSsThreshStage();
    /// Build stage cc.window.
    void BuildWindowStage();
    /// Build stages cc.cut_norm and cc.cut.
    void BuildCutStages();
    /// Add the leading-one entries of a normalising table.
    void AddNormEntries(RmtTable& t, const char* action);
    /// Throw unless conn is a valid id.
    void CheckConn(uint32_t conn, const char* where) const;
    /// Run one packet through the pipeline.
    void Run(uint32_t conn, Op op, uint32_t a, uint32_t b, uint32_t c, bool ece);

    uint32_t m_maxConnections;               //!< connection ids
    Params m_params;                         //!< parameters
    uint32_t m_bits;                         //!< B
    uint32_t m_gainShift;                    //!< g = 2^-m_gainShift
    std::unique_ptr<RmtPipeline> m_pipeline; //!< the engine
    Fields m_f{};                            //!< PHV handles
    RmtRegisterArray* m_reduction{};         //!< in (bit 33), frozen (bit 32), end
    RmtRegisterArray* m_mss{};               //!< MSS
    RmtRegisterArray* m_windowEnd{};         //!< DCTCP's observation window end
    RmtRegisterArray* m_acked{};             //!< bytes acked in the window
    RmtRegisterArray* m_ece{};               //!< ECE bytes acked in the window
    RmtRegisterArray* m_alpha{};             //!< alpha, Q20
    RmtRegisterArray* m_ssthresh{};          //!< ssthresh
    RmtRegisterArray* m_window{};            //!< cwnd (low 32 bits), avoidance bytes (high)
    std::unique_ptr<RmtPhv> m_phv;           //!< reused PHV
    RmtExecution m_exec;                     //!< reused execution record
    uint64_t m_recirculations{0};            //!< extra passes so far
};

} // namespace ns3

#endif // PRESTO_PRESTO_DCTCP_PROGRAM_H
