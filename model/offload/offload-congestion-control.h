/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_CONGESTION_CONTROL_H
#define PRESTO_OFFLOAD_CONGESTION_CONTROL_H

#include "offload-congestion.h"

#include "ns3/data-rate.h"
#include "ns3/object.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief What a congestion control needs to know about the connection and the NIC it runs on
 * when it starts.
 */
struct OffloadCongestionContext
{
    uint32_t mss{1448};                  //!< maximum segment size, bytes
    uint32_t initialCwndSegments{10};    //!< initial window, segments
    uint64_t lineRateBytesPerS{1250000}; //!< the NIC's line rate, bytes/s
    uint64_t rttInitNs{50000};           //!< RTT estimate before a sample, ns
    uint32_t connId{0};                  //!< the NIC's connection slot (< maxConnections)
    uint32_t maxConnections{1};          //!< the NIC's connection table size
};

/**
 * \ingroup presto
 * \brief The congestion control of an offload NIC, chosen by TypeId as ns-3's TcpSocketBase
 * takes a TcpCongestionOps: OffloadNetDevice's CongestionControl attribute names a subclass,
 * whose attributes are the algorithm's parameters (e.g.
 * `--ns3::OffloadDctcpCongestion::Gain=0.125`).
 *
 * The object is the configuration; each connection gets its own state, a pure-logic
 * OffloadCongestionOps (no Simulator, unit-tested on its own), from Create().
 */
class OffloadCongestionControl : public Object
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();

    /**
     * \brief The state of one new connection.
     * \param ctx the connection and the NIC
     * \return the algorithm's per-connection object (throws PrestoInputError if the
     * parameters are invalid)
     */
    virtual std::unique_ptr<OffloadCongestionOps> Create(
        const OffloadCongestionContext& ctx) const = 0;

    /**
     * \return the short name used by reports and the experiments' --cc option, e.g.
     * "dctcp"
     */
    virtual std::string GetShortName() const = 0;

    /**
     * \brief Check the parameters now, before a simulation runs: create the state of a
     * typical connection (10 Gbit/s, MSS 1448) and discard it.
     * \param where who asks, for the message (e.g. "OffloadNetDevice::CongestionControl")
     */
    void Validate(const std::string& where) const;
};

/**
 * \ingroup presto
 * \brief Window-based DCTCP (RFC 8257) on the offload data path: OffloadDctcp.
 */
class OffloadDctcpCongestion : public OffloadCongestionControl
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    std::unique_ptr<OffloadCongestionOps> Create(
        const OffloadCongestionContext& ctx) const override;
    std::string GetShortName() const override;

  private:
    double m_gain;      //!< EWMA gain g
    double m_alphaInit; //!< initial alpha
};

/**
 * \ingroup presto
 * \brief Window-based NewReno-style AIMD (with classic ECN) on the offload data path:
 * OffloadNewReno.
 */
class OffloadNewRenoCongestion : public OffloadCongestionControl
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    std::unique_ptr<OffloadCongestionOps> Create(
        const OffloadCongestionContext& ctx) const override;
    std::string GetShortName() const override;
};

/**
 * \ingroup presto
 * \brief The parameters shared by both rate-based DCTCP variants (OffloadDctcpRate); the two
 * TypeIds below differ in their rules and defaults.
 */
class OffloadRateCongestionBase : public OffloadCongestionControl
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    std::unique_ptr<OffloadCongestionOps> Create(
        const OffloadCongestionContext& ctx) const override;

  protected:
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

    /// \return the rules this variant follows
    virtual OffloadDctcpRateParams::Mode GetMode() const = 0;

  private:
    double m_gain;           //!< EWMA gain g
    double m_alphaInit;      //!< initial alpha
    DataRate m_initialRate;  //!< start rate (0: initial window / initial RTT)
    DataRate m_step;         //!< additive increase per interval
    DataRate m_minRate;      //!< lower bound
    DataRate m_maxRate;      //!< upper bound (0: the line rate)
    uint32_t m_minAcks;      //!< ACK gate
    double m_rateClamp;      //!< clamp to this x the measured rate (0: off)
    double m_additive;       //!< robust additive increase, segments per RTT per RTT
    uint32_t m_intervalRtts; //!< control interval, RTTs
};

/**
 * \ingroup presto
 * \brief Rate-based DCTCP with TAS's rules, made robust (OffloadDctcpRateParams::ROBUST, see
 * OffloadDctcpRate): losses are not gated, the ACK gate scales with the rate, marks are
 * answered once per round by a one-interval dip, the additive increase scales with the RTT,
 * the rate is clamped to the measured rate, and it starts at the initial window per initial
 * RTT. The default rate-based algorithm (`--cc=dctcp-rate`).
 */
class OffloadDctcpRateCongestion : public OffloadRateCongestionBase
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    std::string GetShortName() const override;

  protected:
    OffloadDctcpRateParams::Mode GetMode() const override;
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
    std::string GetShortName() const override;

  protected:
    OffloadDctcpRateParams::Mode GetMode() const override;
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_CONGESTION_CONTROL_H
