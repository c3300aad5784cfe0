/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_RATE_CONGESTION_H
#define PRESTO_OFFLOAD_RATE_CONGESTION_H

#include "offload-congestion-control.h"

#include "ns3/data-rate.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Parameters of the rate-based DCTCP (OffloadRateCongestionBase), resolved for one
 * connection. Rates in bytes (of TCP sequence space) per second.
 *
 * The defaults are TAS's (tas/slow/config.c: cc_dctcp_init = cc_dctcp_step = 10000 kbit/s,
 * cc_dctcp_weight = 1/16, cc_dctcp_min = 0, cc_dctcp_minpkts = 50; tas/slow/cc.c: ecn_rate,
 * i.e. alpha, starts at 0; the rate is clamped to 1.2 x the measured rate). The ROBUST mode's
 * differences are listed at OffloadRateCongestionBase.
 */
struct OffloadDctcpRateParams
{
    /// Which rules OffloadRateCongestionBase follows.
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
 * The start rate and the bounds are parameters (OffloadDctcpRateCongestion starts ROBUST
 * at the initial window per initial RTT).
 *
 * The window is not a limit: GetCwnd() returns MAX_CWND, so only the pacing rate and the
 * peer's receive window limit the sender (as in TAS's fast path). OnAck asks for CWR once per
 * window of data after an ECE, so that classic-ECN receivers stop repeating ECE; the rate is
 * cut at the interval, not there.
 *
 * The two TypeIds below (OffloadDctcpRateCongestion, OffloadTasDctcpRateCongestion) are this
 * algorithm with their own rules and attribute defaults; this class's own TypeId has no
 * constructor. Its attributes are added to each of them (AddParameters); Fork() resolves them
 * into an OffloadDctcpRateParams for the connection (0 rates: from the NIC's line rate and the
 * initial window per initial RTT).
 */
class OffloadRateCongestionBase : public OffloadCongestionControl
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();

    /**
     * \brief A connection's state, set up directly with resolved parameters (unit tests).
     * \param mss maximum segment size, bytes (> 0; reported as the slow-start threshold)
     * \param params the parameters, mode included (validated; PrestoInputError if bad)
     */
    OffloadRateCongestionBase(uint32_t mss, const OffloadDctcpRateParams& params);

    Ptr<OffloadCongestionControl> Fork(const OffloadCongestionContext& ctx) const override;
    std::string GetShortName() const override;
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

  protected:
    /**
     * \brief A configuration (a subclass's TypeId constructor): the attributes are set after.
     * \param mode the rules of the subclass
     */
    explicit OffloadRateCongestionBase(OffloadDctcpRateParams::Mode mode);

    /// Attribute defaults of one variant.
    struct Defaults
    {
        double alphaInit;      //!< initial alpha
        DataRate initialRate;  //!< start rate (0: the initial window per initial RTT)
        DataRate minRate;      //!< lower bound
        double rateClamp;      //!< clamp to this x the measured rate
        uint32_t intervalRtts; //!< control interval, RTTs
    };

    /**
     * \brief Add the parameters as attributes of a subclass's TypeId.
     * \param tid the subclass's TypeId
     * \param d its defaults
     * \return tid with the attributes
     */
    static TypeId AddParameters(TypeId tid, const Defaults& d);

    /**
     * \brief Set up a forked copy for its connection: resolve the attributes against ctx
     * into the parameters, check them and start the rate (PrestoInputError if bad).
     * \param ctx the connection and the NIC
     */
    void Setup(const OffloadCongestionContext& ctx);

  private:
    /// \return the ACKs an interval needs before it is evaluated
    uint64_t AckGate(uint64_t elapsedNs) const;

    /// Check m_p and m_mss and start alpha and the rate from them (PrestoInputError if bad).
    void Start();

    // The attributes: the configuration a connection's parameters are resolved from.
    double m_gainAttr{1.0 / 16}; //!< EWMA gain g
    double m_alphaInitAttr{0};   //!< initial alpha
    DataRate m_initialRate;      //!< start rate (0: initial window / initial RTT)
    DataRate m_step;             //!< additive increase per interval
    DataRate m_minRate;          //!< lower bound
    DataRate m_maxRate;          //!< upper bound (0: the line rate)
    uint32_t m_minAcks{50};      //!< ACK gate
    double m_rateClamp{1.2};     //!< clamp to this x the measured rate (0: off)
    double m_additive{0.5};      //!< robust additive increase, segments per RTT per RTT
    uint32_t m_intervalRtts{2};  //!< control interval, RTTs

    // The connection's state.
    uint32_t m_mss{1448};         //!< maximum segment size, bytes
    OffloadDctcpRateParams m_p;   //!< parameters
    double m_alpha{0};            //!< estimated fraction of marked bytes
    double m_rate{0};             //!< sending rate, bytes/s (0: unpaced)
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

/**
 * \ingroup presto
 * \brief Rate-based DCTCP with TAS's rules, made robust (OffloadDctcpRateParams::ROBUST, see
 * OffloadRateCongestionBase): losses are not gated, the ACK gate scales with the rate, marks
 * are answered once per round by a one-interval dip, the additive increase scales with the
 * RTT, the rate is clamped to the measured rate, and it starts at the initial window per
 * initial RTT. The default rate-based algorithm (`--cc=dctcp-rate`).
 */
class OffloadDctcpRateCongestion : public OffloadRateCongestionBase
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    OffloadDctcpRateCongestion();
    Ptr<OffloadCongestionControl> Fork(const OffloadCongestionContext& ctx) const override;
};

/**
 * \ingroup presto
 * \brief Rate-based DCTCP exactly as TAS's slow path runs it (OffloadDctcpRateParams::TAS):
 * 10 Mbit/s start, 50-ACK gate also before a loss halves the rate, 1.2 x measured-rate clamp,
 * a rate of 0 unpaced (`--cc=dctcp-rate-tas`). It starves under random loss; see the doc.
 */
class OffloadTasDctcpRateCongestion : public OffloadRateCongestionBase
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    OffloadTasDctcpRateCongestion();
    Ptr<OffloadCongestionControl> Fork(const OffloadCongestionContext& ctx) const override;
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_RATE_CONGESTION_H
