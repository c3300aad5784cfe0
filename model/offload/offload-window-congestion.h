/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_WINDOW_CONGESTION_H
#define PRESTO_OFFLOAD_WINDOW_CONGESTION_H

#include "offload-congestion-control.h"

#include <cstdint>
#include <string>

namespace ns3
{

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
class OffloadNewRenoCongestion : public OffloadCongestionControl
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();

    /// A configuration (the TypeId's constructor); Fork() sets up each connection's copy.
    OffloadNewRenoCongestion();

    /**
     * \brief A connection's state, set up directly (unit tests, the connection's default).
     * \param mss maximum segment size, bytes (> 0)
     * \param initialCwndSegments initial window, segments (>= 1)
     *
     * Throws PrestoInputError for a zero MSS or initial window, or an initial window beyond
     * MAX_CWND.
     */
    OffloadNewRenoCongestion(uint32_t mss, uint32_t initialCwndSegments);

    Ptr<OffloadCongestionControl> Fork(const OffloadCongestionContext& ctx) const override;
    std::string GetShortName() const override;
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
     * \brief Set up a forked copy for its connection: the window of ctx, then the
     * subclass's parameters. Throws PrestoInputError for a bad value.
     * \param ctx the connection and the NIC
     */
    virtual void Setup(const OffloadCongestionContext& ctx);

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

    uint32_t m_mss{1448}; //!< maximum segment size, bytes

  private:
    /**
     * \brief Take the connection's segment size and initial window (checked).
     * \param mss maximum segment size, bytes
     * \param initialCwndSegments initial window, segments
     */
    void SetWindow(uint32_t mss, uint32_t initialCwndSegments);

    /// Grow the window for ackedBytes newly acknowledged bytes.
    void Grow(uint32_t ackedBytes);

    uint32_t m_cwnd{0};            //!< congestion window, bytes
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
class OffloadDctcpCongestion : public OffloadNewRenoCongestion
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();

    /// A configuration (the TypeId's constructor): its attributes are the parameters.
    OffloadDctcpCongestion();

    /**
     * \brief A connection's state, set up directly (unit tests, the connection's default).
     * \param mss maximum segment size, bytes (> 0)
     * \param initialCwndSegments initial window, segments (>= 1)
     * \param gain EWMA gain g, in (0, 1] (RFC 8257 suggests 1/16)
     * \param alphaInit initial alpha, in [0, 1] (Linux and ns-3 default: 1)
     *
     * Throws PrestoInputError for a parameter out of range.
     */
    OffloadDctcpCongestion(uint32_t mss,
                           uint32_t initialCwndSegments,
                           double gain,
                           double alphaInit);

    Ptr<OffloadCongestionControl> Fork(const OffloadCongestionContext& ctx) const override;
    std::string GetShortName() const override;
    const char* GetName() const override;
    void Init(uint32_t sndNxt) override;

    /// \return the current alpha estimate, in [0, 1]
    double GetAlpha() const;
    /// \return the EWMA gain g
    double GetGain() const;
    /// \return how many times alpha was updated (windows of data observed)
    uint32_t GetAlphaUpdates() const;

  protected:
    void Setup(const OffloadCongestionContext& ctx) override;
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
    /// Check the gain and the initial alpha and start alpha there (PrestoInputError if bad).
    void StartAlpha();

    double m_gain{1.0 / 16};     //!< EWMA gain g (attribute Gain)
    double m_alphaInit{1.0};     //!< initial alpha (attribute AlphaInit)
    double m_alpha{1.0};         //!< estimated fraction of marked bytes
    uint64_t m_ackedBytes{0};    //!< bytes acknowledged in the current window
    uint64_t m_ackedEceBytes{0}; //!< of which acknowledged with ECE
    uint32_t m_windowEnd{0};     //!< the window ends when snd_una reaches this
    uint32_t m_alphaUpdates{0};  //!< windows completed
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_WINDOW_CONGESTION_H
