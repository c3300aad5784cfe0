/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_CONGESTION_CONTROL_H
#define PRESTO_OFFLOAD_CONGESTION_CONTROL_H

#include "ns3/object.h"

#include <cstdint>
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
 * \brief Congestion control of the shared offload TCP data path (OffloadTcpConnection), one
 * class per algorithm chosen by TypeId, as ns-3's TcpSocketBase takes a TcpCongestionOps.
 *
 * OffloadNetDevice's CongestionControl attribute names a subclass; its attributes are the
 * algorithm's parameters (e.g. `--ns3::OffloadDctcpCongestion::Gain=0.125`). The device
 * builds one object from the TypeId, the configuration, and every new connection gets its
 * own copy of it from Fork() (as TcpCongestionOps::Fork), set up for that connection: the
 * copy holds the connection's state. A new algorithm is one subclass that overrides the
 * algorithm's virtuals, Fork() and GetShortName().
 *
 * The algorithm is pure logic: no Simulator calls (it runs once per ACK inside the offload
 * data path, and the unit tests drive it alone, constructed with its parameters directly).
 * The connection reports every acceptable ACK (also duplicate ACKs, with 0 acked bytes, so
 * that an ECE on them is seen), every go-back-N triggered by duplicate ACKs and every
 * retransmission timeout; it reads the congestion window back with GetCwnd(). All windows are
 * in bytes. All sequence numbers are 32-bit and compared modulo 2^32.
 *
 * The window is kept in bytes, and grows and shrinks by whole or fractional segments; the
 * connection's sender rounds the usable window down to whole segments where it can (see
 * OffloadTcpConnection::NextSegment).
 */
class OffloadCongestionControl : public Object
{
  public:
    /// Largest congestion window, bytes (the TCP window-scale limit, 2^30).
    static constexpr uint32_t MAX_CWND = 1u << 30;

    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();

    /**
     * \brief The state of one new connection: a copy of this object (its parameters), set
     * up for the connection (as TcpCongestionOps::Fork).
     * \param ctx the connection and the NIC
     * \return the connection's own object (throws PrestoInputError if the parameters are
     * invalid for it)
     */
    virtual Ptr<OffloadCongestionControl> Fork(const OffloadCongestionContext& ctx) const = 0;

    /**
     * \return the short name used by reports and the experiments' --cc option, e.g.
     * "dctcp"
     */
    virtual std::string GetShortName() const = 0;

    /**
     * \brief Check the parameters now, before a simulation runs: fork the state of a
     * typical connection (10 Gbit/s, MSS 1448) and discard it.
     * \param where who asks, for the message (e.g. "OffloadNetDevice::CongestionControl")
     */
    void Validate(const std::string& where) const;

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
    virtual void OnControlInterval(uint64_t nowNs, uint64_t rttNs);

    /**
     * \return the rate at which the NIC must pace this connection's data segments, bytes of
     * sequence space per second; 0 means no pacing (window-based algorithms, the default)
     */
    virtual uint64_t GetPacingRate() const;

    /**
     * \return true if the algorithm needs OnControlInterval (rate-based algorithms: the host
     * control loop computes the rate); false for window-based ones (the default)
     */
    virtual bool UsesControlLoop() const;

    /**
     * \return the control interval the algorithm wants, RTTs; 0 (the default): the
     * connection's own (OffloadTcpConfig::controlIntervalRtts, TAS's 2)
     */
    virtual uint32_t GetControlIntervalRtts() const;
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_CONGESTION_CONTROL_H
