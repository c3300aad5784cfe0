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

    /**
     * \return true if the algorithm needs OnControlInterval (rate-based algorithms: the host
     * control loop computes the rate); false for window-based ones (the default)
     */
    virtual bool UsesControlLoop() const
    {
        return false;
    }

    /**
     * \return the control interval the algorithm wants, RTTs; 0 (the default): the
     * connection's own (OffloadTcpConfig::controlIntervalRtts, TAS's 2)
     */
    virtual uint32_t GetControlIntervalRtts() const
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

    /**
     * \brief The alpha update at the end of a window of data (RFC 8257): exact arithmetic
     * here, alpha = (1 - g) alpha + g F with F = eceBytes / ackedBytes. A subclass may
     * approximate it (PrestoDctcpArithmetic: a pipeline's shifts and lookup tables).
     * \param alpha alpha before the update
     * \param ackedBytes bytes acknowledged in the window (> 0)
     * \param eceBytes of which acknowledged with ECE (<= ackedBytes)
     * \return alpha after the update, in [0, 1]
     */
    virtual double NextAlpha(double alpha, uint64_t ackedBytes, uint64_t eceBytes) const;

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
 * cc_dctcp_weight = 1/16, cc_dctcp_min = 0, cc_dctcp_minpkts = 50; tas/slow/cc.c: ecn_rate,
 * i.e. alpha, starts at 0; the rate is clamped to 1.2 x the measured rate). The ROBUST mode's
 * differences are listed at OffloadDctcpRate.
 */
struct OffloadDctcpRateParams
{
    /// Which rules OffloadDctcpRate follows.
    enum class Mode : uint8_t
    {
        TAS,    //!< TAS's dctcp_rate_update, rule for rule (fidelity)
        ROBUST, //!< TAS's rules with the changes that keep it from starving (the default)
    };

    Mode mode{Mode::TAS};             //!< rules
    double gain{1.0 / 16};            //!< EWMA gain g, in (0, 1]
    double alphaInit{0.0};            //!< initial alpha, in [0, 1] (TAS: 0)
    uint64_t initialRate{1250000};    //!< rate before the first interval, bytes/s (10 Mbit/s)
    uint64_t step{1250000};           //!< additive increase per unmarked interval, bytes/s
    uint64_t minRate{0};              //!< lower bound, bytes/s (TAS: 0; a rate of 0 is unpaced)
    uint64_t maxRate{12500000000ull}; //!< upper bound, bytes/s (the line rate)
    uint32_t minAcks{50};  //!< ACKs needed before an interval is evaluated (fewer: carried over)
    double rateClamp{1.2}; //!< the rate never exceeds this x the measured ACK rate (0: off)
    /// ROBUST: additive increase per interval, segments per RTT for every RTT elapsed
    double additiveIncrease{0.5};
    /// control interval, RTTs (0: the connection's, TAS's 2)
    uint32_t controlIntervalRtts{0};

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
 * OnAck only counts, as the NIC's per-connection statistics do: ACKs, acknowledged bytes,
 * and bytes acknowledged by ACKs carrying ECE; go-back-N losses and timeouts are counted too.
 * OnControlInterval then evaluates, in TAS's order (Mode::TAS):
 * 1. Gate: with fewer than minAcks ACKs (counting those carried over) every count, losses
 *    included, is carried over to the next interval and nothing changes (cc_dctcp_minpkts).
 * 2. Measured rate: M = acknowledged bytes / time since the previous control-loop run; its
 *    EWMA E = (7 E + M) / 8; the rate is clamped to rateClamp x max(M, E).
 * 3. Slow start: without loss and marks the rate doubles; a loss or a mark ends slow start.
 * 4. After slow start: a loss halves the rate (alpha is not updated). Otherwise
 *    alpha = (1 - g) alpha + g F, F = ECE bytes / acked bytes, and with marks
 *    rate = rate (1 - alpha / 2), without them rate += step.
 * 5. The rate is bounded by [minRate, maxRate]. A rate of 0 means unpaced (TAS's queue
 *    manager does not limit a flow whose rate is 0): it happens when the clamp meets a
 *    measured rate of 0, e.g. an interval of only duplicate ACKs.
 *
 * TAS's rules starve a flow under random loss: a loss waits for minAcks ACKs, at a low rate
 * that takes many intervals, and then halves, while the additive step is 10 Mbit/s per
 * interval however large the RTT or the link; and a pacing rate, unlike a window, keeps
 * adding to the queue until the next interval, so its marks come late and the cuts pile
 * up (on a 10 Gbit/s dumbbell two flows reach about 90% of the link). Mode::ROBUST keeps
 * the structure (the host loop computes a rate every interval, the NIC paces, alpha as
 * above) and changes:
 * - losses are not gated: an interval with a loss is evaluated at once;
 * - the ACK gate scales down with the rate: min(minAcks, half the segments the current rate
 *   sends in the interval), at least 1;
 * - the measured rate is taken over the whole evaluated period (TAS divides the carried-over
 *   bytes by the last control interval only), and a measured rate of 0 does not unpace;
 * - marks are answered once per round: ECE on data sent before the previous cut does not
 *   cut again (window DCTCP's once per window of data);
 * - a cut is a dip: a window DCTCP cut drains alpha/2 of a window, one RTT of sending, from
 *   the queue once, and its ACK clock then sends at the share again; so the rate dips by
 *   alpha/2 x RTT / interval for one interval and the next unmarked interval returns to the
 *   rate before the dip;
 * - the additive increase is at least additiveIncrease segments per RTT for every RTT that
 *   passed (MSS x additiveIncrease x elapsed / RTT^2 as a rate). A window adds one segment
 *   per RTT to the queue; a rate adds its excess all interval long, so the window's 1.0
 *   overshoots (8 flows: mean queue 77 packets against ns-3 TcpDctcp's 62); the default
 *   0.3 with a measured-rate clamp of 1.0 is calibrated on the dumbbell (assumed, see the
 *   doc).
 * The start rate and the bounds are parameters (the factory of the ns-3 object
 * OffloadDctcpRateCongestion starts ROBUST at the initial window per initial RTT).
 *
 * The window is not a limit: GetCwnd() returns MAX_CWND, so only the pacing rate and the
 * peer's receive window limit the sender (as in TAS's fast path). OnAck asks for CWR once per
 * window of data after an ECE, so that classic-ECN receivers stop repeating ECE; the rate is
 * cut at the interval, not there.
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
    bool UsesControlLoop() const override;
    uint32_t GetControlIntervalRtts() const override;

    /// \return the current alpha estimate, in [0, 1]
    double GetAlpha() const;
    /// \return the rate computed by the last evaluation, bytes/s (0: unpaced)
    double GetRate() const;
    /// \return the EWMA of the measured ACK rate, bytes/s
    double GetMeasuredRate() const;
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
    /// \return the ACKs an interval needs before it is evaluated
    uint64_t AckGate(uint64_t elapsedNs) const;

    uint32_t m_mss;               //!< maximum segment size, bytes
    OffloadDctcpRateParams m_p;   //!< parameters
    double m_alpha;               //!< estimated fraction of marked bytes
    double m_rate;                //!< sending rate, bytes/s (0: unpaced)
    double m_measured{0};         //!< EWMA of the measured ACK rate, bytes/s
    bool m_slowStart{true};       //!< doubling until the first mark or loss
    bool m_started{false};        //!< the first control interval has run
    bool m_cwrArmed{false};       //!< a CWR was requested
    uint32_t m_cwrRecover{0};     //!< no new CWR until snd_una passes this
    uint64_t m_lastLoopNs{0};     //!< previous control-loop run, ns
    uint64_t m_lastEvalNs{0};     //!< previous evaluated (not carried-over) interval, ns
    uint64_t m_acks{0};           //!< ACKs in the current (possibly carried-over) interval
    uint64_t m_ackedBytes{0};     //!< bytes acknowledged in it
    uint64_t m_eceBytes{0};       //!< of which acknowledged by ACKs carrying ECE
    uint64_t m_eceFresh{0};       //!< of those, on data sent after the last ECN cut
    bool m_holding{false};        //!< an ECN cut was made; its marks are still returning
    uint32_t m_holdUntil{0};      //!< marks count again once snd_una passes this
    uint32_t m_sndMaxSeen{0};     //!< snd_max of the last ACK
    double m_dipFrom{0};          //!< rate before the last ECN dip (0: not dipping)
    uint32_t m_losses{0};         //!< go-back-N and timeouts in it
    uint32_t m_intervals{0};      //!< intervals evaluated
    uint32_t m_eceReductions{0};  //!< ECN cuts
    uint32_t m_lossReductions{0}; //!< loss halvings
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_CONGESTION_H
