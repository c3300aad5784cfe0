/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_CONGESTION_H
#define PRESTO_OFFLOAD_CONGESTION_H

#include <cstdint>
#include <memory>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Congestion control of the shared offload TCP data path (OffloadTcpConnection),
 * behind a small interface in the spirit of ns-3's TcpCongestionOps.
 *
 * Pure logic, no Simulator: the connection reports every acceptable ACK (also duplicate ACKs,
 * with 0 acked bytes, so that an ECE on them is seen), every go-back-N triggered by duplicate
 * ACKs and every retransmission timeout; it reads the congestion window back with GetCwnd().
 * All windows are in bytes. All sequence numbers are 32-bit and compared modulo 2^32.
 *
 * The window is kept in bytes, and grows and shrinks by whole or fractional segments; the
 * connection's sender rounds the usable window down to whole segments where it can (see
 * OffloadTcpConnection::NextSegment).
 */
class OffloadCongestionOps
{
  public:
    virtual ~OffloadCongestionOps() = default;

    /// \return the algorithm name, e.g. "DCTCP"
    virtual const char* GetName() const = 0;

    /**
     * \brief Start the per-window bookkeeping of a new connection.
     * \param sndNxt the first sequence number the connection will send (ISS + 1)
     */
    virtual void Init(uint32_t sndNxt) = 0;

    /**
     * \brief An acceptable ACK arrived (its ack number lies in [snd_una, snd_max]).
     * \param ackedBytes sequence space newly acknowledged (0 for a duplicate ACK)
     * \param ece the ACK carried ECN-Echo
     * \param sndUna snd_una after the ACK
     * \param sndNxt the highest sequence number sent so far plus one (snd_max)
     * \return true when this ACK made the window shrink in response to ECE (the sender then
     * sets CWR on its next data segment)
     */
    virtual bool OnAck(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt) = 0;

    /**
     * \brief The duplicate-ACK threshold was reached and the sender goes back N.
     * \param bytesInFlight snd_max - snd_una when the loss was detected, bytes
     * \param sndNxt snd_max: the reduction covers the data sent up to here
     */
    virtual void OnLoss(uint32_t bytesInFlight, uint32_t sndNxt) = 0;

    /**
     * \brief The retransmission timer expired.
     * \param bytesInFlight snd_max - snd_una when the timer expired, bytes
     * \param sndNxt snd_max
     */
    virtual void OnTimeout(uint32_t bytesInFlight, uint32_t sndNxt) = 0;

    /// \return the congestion window, bytes (never below one segment)
    virtual uint32_t GetCwnd() const = 0;
    /// \return the slow-start threshold, bytes
    virtual uint32_t GetSsThresh() const = 0;

    /**
     * \brief One control interval of the host control loop has passed (TAS/FlexTOE: the host
     * recomputes every connection's rate every control interval, 2 x RTT by default).
     *
     * Window-based algorithms ignore it (the default does nothing); rate-based ones turn the
     * ACKs seen since the previous call into a new pacing rate.
     * \param nowNs current time, ns
     * \param rttNs the connection's RTT estimate, ns (> 0)
     */
    virtual void OnControlInterval(uint64_t nowNs, uint64_t rttNs)
    {
        (void)nowNs;
        (void)rttNs;
    }

    /**
     * \return the rate at which the NIC must pace this connection's data segments, bytes of
     * sequence space per second; 0 means no pacing (window-based algorithms, the default)
     */
    virtual uint64_t GetPacingRate() const
    {
        return 0;
    }
};

/**
 * \ingroup presto
 * \brief Window-based AIMD in the style of NewReno, adapted to a go-back-N sender.
 *
 * - Slow start while cwnd < ssthresh: cwnd += min(acked, 2 MSS) per ACK (appropriate byte
 *   counting with L = 2, RFC 3465), never beyond ssthresh in one step.
 * - Congestion avoidance: byte counting, one MSS per cwnd of acknowledged bytes (RFC 5681
 *   section 3.1).
 * - Duplicate-ACK loss (go-back-N): ssthresh = max(flight / 2, 2 MSS), cwnd = ssthresh; no
 *   growth and no further reduction until snd_una reaches the snd_max of that moment (one
 *   reduction per window, the NewReno recovery point of RFC 6582).
 * - ECE (classic ECN, RFC 3168): treated as a loss without retransmission: cwnd halves at most
 *   once per window of data, and does not grow during that window (Linux's CWR state).
 * - Timeout: ssthresh = max(flight / 2, 2 MSS), cwnd = 1 MSS (the loss window of RFC 5681),
 *   then slow start; ECE cannot cut again until snd_una passes the snd_max of the timeout.
 *
 * **Minimum window:** reductions (ECE and duplicate-ACK loss) never go below 2 MSS, as Linux's
 * tcp_reno_ssthresh and dctcp_ssthresh; only a timeout takes cwnd to 1 MSS.
 */
class OffloadNewReno : public OffloadCongestionOps
{
  public:
    /// Largest congestion window, bytes (the TCP window-scale limit, 2^30).
    static constexpr uint32_t MAX_CWND = 1u << 30;

    /**
     * \param mss maximum segment size, bytes (> 0)
     * \param initialCwndSegments initial window, segments (>= 1)
     *
     * Throws PrestoInputError for a zero MSS or initial window, or an initial window beyond
     * MAX_CWND.
     */
    OffloadNewReno(uint32_t mss, uint32_t initialCwndSegments);

    const char* GetName() const override;
    void Init(uint32_t sndNxt) override;
    bool OnAck(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt) override;
    void OnLoss(uint32_t bytesInFlight, uint32_t sndNxt) override;
    void OnTimeout(uint32_t bytesInFlight, uint32_t sndNxt) override;
    uint32_t GetCwnd() const override;
    uint32_t GetSsThresh() const override;

    /// \return how many times an ECE made the window shrink
    uint32_t GetEceReductions() const;

  protected:
    /**
     * \brief Hook run on every ACK before the ECE reaction (DCTCP updates alpha here).
     * \param ackedBytes sequence space newly acknowledged
     * \param ece the ACK carried ECN-Echo
     * \param sndUna snd_una after the ACK
     * \param sndNxt snd_max
     */
    virtual void OnAckObserved(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt);

    /**
     * \return the window after an ECE reduction, bytes, before the 2-MSS floor (NewReno:
     * cwnd / 2)
     */
    virtual uint32_t EceReducedWindow() const;

    uint32_t m_mss; //!< maximum segment size, bytes

  private:
    /// Grow the window for ackedBytes newly acknowledged bytes.
    void Grow(uint32_t ackedBytes);

    uint32_t m_cwnd;               //!< congestion window, bytes
    uint32_t m_ssThresh{MAX_CWND}; //!< slow-start threshold, bytes
    uint32_t m_caBytes{0};         //!< bytes acked towards the next +1 MSS in avoidance
    bool m_inReduction{false};     //!< a reduction window is open: no further ECE cut
    bool m_growthFrozen{false};    //!< no growth until the reduction window closes
    uint32_t m_reductionEnd{0};    //!< the reduction window closes when snd_una reaches it
    uint32_t m_eceReductions{0};   //!< ECE reductions so far
};

/**
 * \ingroup presto
 * \brief DCTCP, window based (RFC 8257; ns-3's TcpDctcp and Linux's tcp_dctcp.c).
 *
 * The sender counts the bytes acknowledged and the bytes acknowledged by ACKs carrying ECE.
 * Once per window of data (when snd_una reaches the snd_max recorded at the start of the
 * window) it updates alpha = (1 - g) alpha + g F, with F the fraction of ECE bytes in that
 * window, and starts a new window. On an ECE, after the alpha update of the same ACK,
 * cwnd = max(cwnd (1 - alpha / 2), 2 MSS), at most once per window of data (no growth during
 * that window). Losses and timeouts react as NewReno (RFC 8257 section 3.4), which is the
 * base class. The receiver side of DCTCP (exact ECE echo) is in OffloadTcpConnection.
 */
class OffloadDctcp : public OffloadNewReno
{
  public:
    /**
     * \param mss maximum segment size, bytes (> 0)
     * \param initialCwndSegments initial window, segments (>= 1)
     * \param gain EWMA gain g, in (0, 1] (RFC 8257 suggests 1/16)
     * \param alphaInit initial alpha, in [0, 1] (Linux and ns-3 default: 1)
     *
     * Throws PrestoInputError for a parameter out of range.
     */
    OffloadDctcp(uint32_t mss, uint32_t initialCwndSegments, double gain, double alphaInit);

    const char* GetName() const override;
    void Init(uint32_t sndNxt) override;

    /// \return the current alpha estimate, in [0, 1]
    double GetAlpha() const;
    /// \return the EWMA gain g
    double GetGain() const;
    /// \return how many times alpha was updated (windows of data observed)
    uint32_t GetAlphaUpdates() const;

  protected:
    void OnAckObserved(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt) override;
    uint32_t EceReducedWindow() const override;

  private:
    double m_gain;               //!< EWMA gain g
    double m_alpha;              //!< estimated fraction of marked bytes
    uint64_t m_ackedBytes{0};    //!< bytes acknowledged in the current window
    uint64_t m_ackedEceBytes{0}; //!< of which acknowledged with ECE
    uint32_t m_windowEnd{0};     //!< the window ends when snd_una reaches this
    uint32_t m_alphaUpdates{0};  //!< windows completed
};

/**
 * \ingroup presto
 * \brief Parameters of OffloadDctcpRate. Rates in bytes (of TCP sequence space) per second.
 *
 * The defaults are TAS's (tas/slow/config.c: cc_dctcp_init = cc_dctcp_step = 10000 kbit/s,
 * cc_dctcp_weight = 1/16, cc_dctcp_minpkts = 50); TAS's minimum rate is 0, but here a rate of
 * 0 means "no pacing", so the floor is one step. The ceiling should be set to the line rate by
 * the device.
 */
struct OffloadDctcpRateParams
{
    double gain{1.0 / 16};            //!< EWMA gain g, in (0, 1]
    double alphaInit{1.0};            //!< initial alpha, in [0, 1]
    uint64_t initialRate{1250000};    //!< rate before the first interval, bytes/s (10 Mbit/s)
    uint64_t step{1250000};           //!< additive increase per unmarked interval, bytes/s
    uint64_t minRate{1250000};        //!< lower bound, bytes/s (> 0)
    uint64_t maxRate{12500000000ull}; //!< upper bound, bytes/s (100 Gbit/s; set the line rate)
    uint32_t minAcks{50}; //!< ACKs needed before an interval is evaluated (fewer: carried over)

    /**
     * \brief Check every field; throws PrestoInputError naming the first bad one.
     * \param where prefix for the message
     */
    void Validate(const char* where = "DCTCP rate") const;
};

/**
 * \ingroup presto
 * \brief DCTCP, rate based, as the host control loop of TAS and FlexTOE runs it (TAS
 * tas/slow/cc.c, dctcp_rate_update): the NIC enforces a per-connection rate by pacing and the
 * host recomputes it every control interval (2 x RTT).
 *
 * OnAck only counts: ACKs, acknowledged bytes, and bytes acknowledged by ACKs carrying ECE;
 * duplicate-ACK losses and timeouts are remembered. OnControlInterval then evaluates the
 * interval, in this order:
 * 1. If it saw fewer than minAcks ACKs and no loss, its counts are carried over to the next
 *    interval and nothing changes (TAS's cc_dctcp_minpkts; an idle connection keeps its
 *    rate).
 * 2. A loss (go-back-N or timeout) halves the rate and ends slow start; alpha is not updated
 *    (TAS: "if we have drops, cut by half").
 * 3. Otherwise alpha = (1 - g) alpha + g F, F = ECE bytes / acked bytes of the interval (when
 *    bytes were acknowledged). With marks: slow start ends and rate = rate (1 - alpha / 2).
 *    Without marks: rate doubles in slow start, else rate += step (additive increase).
 * 4. The rate is clamped to [minRate, maxRate].
 *
 * The window is not a limit: GetCwnd() returns MAX_CWND, so only the pacing rate and the
 * peer's receive window limit the sender (as in TAS's fast path). OnAck never asks for CWR:
 * the reduction happens at the interval, and DCTCP's exact ECE echo does not use CWR.
 *
 * Differences from TAS: TAS also clamps the rate to 1.2 x the measured ACK rate and updates
 * alpha only after slow start; here alpha is updated in every evaluated interval (as Linux
 * DCTCP does every window), and the rate of an application-limited connection is bounded only
 * by maxRate.
 */
class OffloadDctcpRate : public OffloadCongestionOps
{
  public:
    /// The window reported to the connection: the TCP window-scale limit, 2^30 bytes.
    static constexpr uint32_t MAX_CWND = OffloadNewReno::MAX_CWND;

    /**
     * \param mss maximum segment size, bytes (> 0; reported as the slow-start threshold)
     * \param params the parameters (validated; PrestoInputError if bad)
     */
    OffloadDctcpRate(uint32_t mss, const OffloadDctcpRateParams& params);

    const char* GetName() const override;
    void Init(uint32_t sndNxt) override;
    bool OnAck(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt) override;
    void OnLoss(uint32_t bytesInFlight, uint32_t sndNxt) override;
    void OnTimeout(uint32_t bytesInFlight, uint32_t sndNxt) override;
    uint32_t GetCwnd() const override;
    uint32_t GetSsThresh() const override;
    void OnControlInterval(uint64_t nowNs, uint64_t rttNs) override;
    uint64_t GetPacingRate() const override;

    /// \return the current alpha estimate, in [0, 1]
    double GetAlpha() const;
    /// \return true while the rate still doubles per interval (no mark or loss seen yet)
    bool InSlowStart() const;
    /// \return how many intervals were evaluated (not carried over)
    uint32_t GetIntervals() const;
    /// \return how many intervals cut the rate because of ECN marks
    uint32_t GetEceReductions() const;
    /// \return how many intervals halved the rate because of a loss or timeout
    uint32_t GetLossReductions() const;
    /// \return the parameters
    const OffloadDctcpRateParams& GetParams() const;

  private:
    uint32_t m_mss;               //!< maximum segment size, bytes
    OffloadDctcpRateParams m_p;   //!< parameters
    double m_alpha;               //!< estimated fraction of marked bytes
    double m_rate;                //!< sending rate, bytes/s (double: exact (1 - alpha/2) cuts)
    bool m_slowStart{true};       //!< doubling until the first mark or loss
    bool m_cwrArmed{false};       //!< a CWR was requested
    uint32_t m_cwrRecover{0};     //!< no new CWR until snd_una passes this
    uint64_t m_acks{0};           //!< ACKs in the current (possibly carried-over) interval
    uint64_t m_ackedBytes{0};     //!< bytes acknowledged in it
    uint64_t m_eceBytes{0};       //!< of which acknowledged by ACKs carrying ECE
    uint32_t m_losses{0};         //!< go-back-N and timeouts in it
    uint32_t m_intervals{0};      //!< intervals evaluated
    uint32_t m_eceReductions{0};  //!< ECN cuts
    uint32_t m_lossReductions{0}; //!< loss halvings
};

/// The congestion controls available to OffloadTcpConnection.
enum class OffloadCongestionType : uint8_t
{
    DCTCP,      //!< OffloadDctcp (window based)
    NEW_RENO,   //!< OffloadNewReno
    DCTCP_RATE, //!< OffloadDctcpRate (rate based, paced by the NIC, host control loop)
};

/**
 * \param type the algorithm
 * \param mss maximum segment size, bytes
 * \param initialCwndSegments initial window, segments
 * \param dctcpGain DCTCP's g (ignored by NewReno)
 * \param dctcpAlphaInit DCTCP's initial alpha (ignored by NewReno)
 * \param rate DCTCP_RATE's rate parameters; its gain and alphaInit are replaced by dctcpGain
 * and dctcpAlphaInit, so that one pair of knobs serves both DCTCP variants (ignored by the
 * others)
 * \return a new congestion-control object (throws PrestoInputError for bad parameters)
 */
std::unique_ptr<OffloadCongestionOps> CreateOffloadCongestion(
    OffloadCongestionType type,
    uint32_t mss,
    uint32_t initialCwndSegments,
    double dctcpGain,
    double dctcpAlphaInit,
    const OffloadDctcpRateParams& rate = OffloadDctcpRateParams());

} // namespace ns3

#endif // PRESTO_OFFLOAD_CONGESTION_H
