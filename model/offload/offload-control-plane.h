/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_CONTROL_PLANE_H
#define PRESTO_OFFLOAD_CONTROL_PLANE_H

#include "offload-wire.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/// Control-plane state of a connection slot (RFC 9293 names; the data path runs the rest).
enum class OffloadCpState : uint8_t
{
    FREE,       //!< no connection
    SYN_SENT,   //!< active open: our SYN is out
    SYN_RCVD,   //!< a SYN was received (passive open or simultaneous open), our SYN-ACK is out
    ESTABLISHED //!< handed to the data path
};

/**
 * \ingroup presto
 * \brief Handshake state of one connection: what the control plane negotiated so far.
 * Plain data, kept in the device's connection slot.
 */
struct OffloadHandshake
{
    OffloadCpState state{OffloadCpState::FREE}; //!< state
    bool activeOpen{false};                     //!< this host sent the first SYN (a client)
    uint32_t iss{0};                            //!< our initial sequence number
    uint32_t irs{0};                            //!< peer's initial sequence number
    uint32_t rcvBuf{131072};                    //!< our receive buffer, bytes (SYN window)
    uint8_t peerShift{0};                       //!< peer's window scale
    uint8_t ourShift{0};                        //!< our window scale
    bool ecn{false};                            //!< ECN negotiated
    bool sack{false};                           //!< SACK negotiated
    uint16_t peerMss{0};                        //!< MSS option of the peer's SYN (0: none)
    uint32_t synTries{0};                       //!< SYN/SYN-ACK transmissions
};

/**
 * \ingroup presto
 * \brief A control segment the device builds and sends: the TCP fields and the SYN options.
 */
struct OffloadControlSegment
{
    uint16_t localPort{0};     //!< source port
    uint16_t peerPort{0};      //!< destination port
    uint32_t seq{0};           //!< sequence number
    uint32_t ack{0};           //!< acknowledgement number
    uint8_t flags{0};          //!< TCP flags (OffloadSegment constants)
    uint16_t window{0};        //!< window field as sent (a SYN's is never scaled)
    bool windowScale{false};   //!< carry a window-scale option
    uint8_t shift{0};          //!< its shift
    bool sackPermitted{false}; //!< carry a SACK-permitted option
};

/// What the device does with the SYN or SYN-ACK timer of a connection.
struct OffloadHandshakeTx
{
    bool send{false};              //!< send segment and arm the timer for timerNs
    bool giveUp{false};            //!< SynRetries reached: the handshake failed, free the slot
    OffloadControlSegment segment; //!< the SYN or SYN-ACK (ports left 0: the device knows them)
    uint64_t timerNs{0};           //!< retransmission timeout of this transmission, ns
};

/// The control plane's verdict on a received segment of a connection in the table.
enum class OffloadHandshakeVerdict : uint8_t
{
    DATA_PATH,    //!< established: the segment is the data path's
    DROP,         //!< does not fit the handshake state: counted (handshake_drops), dropped
    RST_IGNORED,  //!< an RST that does not count (RFC 9293 3.10.7, RFC 5961): counted, dropped
    RESET,        //!< an acceptable RST: the connection is refused, free the slot
    ESTABLISHED,  //!< handshake done: create the data path (see OffloadHandshakeRx)
    SEND_SYN_ACK, //!< simultaneous open: now SYN-RECEIVED, send the SYN-ACK (NextHandshake)
};

/// The control plane's decision on a received segment, with what the device needs.
struct OffloadHandshakeRx
{
    OffloadHandshakeVerdict verdict{OffloadHandshakeVerdict::DROP}; //!< what to do
    uint32_t peerWindowBytes{0}; //!< ESTABLISHED: the peer's window, scaled, bytes
    bool sendAck{false};         //!< ESTABLISHED: acknowledge the peer's SYN-ACK
    bool dataFollows{false};     //!< ESTABLISHED: the segment also carries data or FIN
};

/// What the device does with a segment of a 4-tuple that has no connection.
enum class OffloadTimeWaitVerdict : uint8_t
{
    NONE,   //!< not in TIME-WAIT: the segment is not the NIC's to absorb
    ABSORB, //!< a late segment of a torn-down connection: dropped silently
    RE_ACK, //!< a retransmitted FIN: send the ACK again (RFC 9293 TIME-WAIT)
};

/**
 * \ingroup presto
 * \brief The TCP control plane of an offload NIC, as plain logic: ports, the handshake
 * (active, passive and simultaneous open; SYN and SYN-ACK retransmission; option
 * negotiation: window scale, SACK-permitted, ECN, the peer's MSS), RSTs during the
 * handshake, TIME-WAIT and the teardown decision.
 *
 * It holds no simulator state: time comes in as integer nanoseconds, and every method
 * returns a decision (a segment to send, a timer to arm, the negotiated parameters, a drop)
 * that OffloadNetDevice carries out with its connection table, timers and wire. This keeps
 * every control-plane rule testable without a simulation (test/unit/offload-control-plane-
 * test.cc) and the device to glue.
 */
class OffloadControlPlane
{
  public:
    /// Configuration (the device's attributes, in plain units).
    struct Config
    {
        uint64_t synTimeoutNs{2000000}; //!< first SYN/SYN-ACK retransmission timeout, ns
        uint32_t synRetries{6};         //!< transmissions before giving up
        bool sack{true};                //!< offer and grant SACK-permitted
        uint64_t timeWaitNs{10000000};  //!< how long a torn-down 4-tuple is remembered, ns
    };

    /** The control plane with all ports free and nothing in TIME-WAIT. */
    OffloadControlPlane();

    /** \param config new configuration (takes effect for the next decision) */
    void SetConfig(const Config& config);
    /** \return the configuration */
    const Config& GetConfig() const;

    // ports
    /** \return a free local port of the ephemeral range (now taken), 0 if none */
    uint16_t AllocatePort();
    /** \param port a port \return true if it was free and is now taken */
    bool ReservePort(uint16_t port);
    /** \param port a port that returns to the pool */
    void ReleasePort(uint16_t port);

    // handshake
    /**
     * \brief Window-scale shift for a receive buffer: the smallest that lets the 16-bit
     * window field carry the whole buffer (as TcpSocketBase::CalculateWScale).
     * \param buffer receive buffer, bytes \return shift, at most 14
     */
    static uint8_t ShiftFor(uint32_t buffer);
    /**
     * \brief A deterministic initial sequence number per 4-tuple (no clock: runs repeat),
     * below 2^30 (see the implementation for why).
     * \param local local address \param peer remote address
     * \param lport local port \param pport remote port \return the ISN
     */
    static uint32_t InitialSequence(uint32_t local, uint32_t peer, uint16_t lport, uint16_t pport);
    /**
     * \brief Active open: the slot enters SYN-SENT.
     * \param hs the slot's handshake \param iss our ISN \param rcvBuf our receive buffer
     */
    void ActiveOpen(OffloadHandshake& hs, uint32_t iss, uint32_t rcvBuf) const;
    /**
     * \brief Passive open on a SYN for a listening port: the slot enters SYN-RECEIVED with
     * the options of the peer's SYN negotiated.
     * \param hs the slot's handshake \param syn the peer's SYN
     * \param iss our ISN \param rcvBuf our receive buffer
     */
    void PassiveOpen(OffloadHandshake& hs,
                     const WireSegment& syn,
                     uint32_t iss,
                     uint32_t rcvBuf) const;
    /**
     * \brief The handshake timer fired (or the first transmission is due): the SYN or SYN-ACK
     * to send and the timeout to arm (doubling), or give up after SynRetries transmissions.
     * Nothing to do when the slot left the handshake.
     * \param hs the slot's handshake \return the decision
     */
    OffloadHandshakeTx NextHandshake(OffloadHandshake& hs) const;
    /**
     * \brief A received segment of a connection in the table.
     * \param hs the slot's handshake (updated: state, negotiated options)
     * \param seg the segment
     * \return the decision
     */
    OffloadHandshakeRx OnSegment(OffloadHandshake& hs, const WireSegment& seg) const;
    /**
     * \brief Teardown decision of an established connection.
     * \param hs the slot's handshake \param finAcked our FIN is acknowledged
     * \param peerClosed the peer's FIN was delivered to the application
     * \return true when both directions are done and the slot can be freed
     */
    static bool ShouldTearDown(const OffloadHandshake& hs, bool finAcked, bool peerClosed);

    // TIME-WAIT
    /**
     * \brief Remember a torn-down connection for TimeWait (nothing when TimeWait is 0).
     * \param key 4-tuple key (Key) \param nowNs current time, ns
     * \param seq our snd_max at teardown \param ack our rcv_next at teardown
     * \param localPort local port \param peerPort remote port
     */
    void EnterTimeWait(uint64_t key,
                       uint64_t nowNs,
                       uint32_t seq,
                       uint32_t ack,
                       uint16_t localPort,
                       uint16_t peerPort);
    /**
     * \brief A segment (not a SYN) for a 4-tuple without a connection.
     * \param key 4-tuple key \param flags its TCP flags \param nowNs current time, ns
     * \param reAck set to the ACK to send when RE_ACK is returned
     * \return the decision
     */
    OffloadTimeWaitVerdict OnTimeWaitSegment(uint64_t key,
                                             uint8_t flags,
                                             uint64_t nowNs,
                                             OffloadControlSegment& reAck);
    /** \return 4-tuples in TIME-WAIT (some may have expired and not yet been forgotten) */
    size_t GetTimeWaitSize() const;
    /**
     * \param peer remote address \param peerPort remote port \param localPort local port
     * \return the key of a 4-tuple (the local address is the device's own)
     */
    static uint64_t Key(uint32_t peer, uint16_t peerPort, uint16_t localPort);

  private:
    /// Forget the TIME-WAIT entries expired at nowNs.
    void ExpireTimeWait(uint64_t nowNs);

    /// A torn-down connection, remembered for TimeWait (TCP's TIME-WAIT).
    struct TimeWaitEntry
    {
        uint64_t expiryNs{0};  //!< forgotten after this
        uint32_t seq{0};       //!< our snd_max at teardown (sequence number of a re-sent ACK)
        uint32_t ack{0};       //!< our rcv_next at teardown (the peer's FIN acknowledged)
        uint16_t localPort{0}; //!< local port
        uint16_t peerPort{0};  //!< remote port
    };

    Config m_config;                                             //!< configuration
    std::vector<bool> m_portUsed;                                //!< local ports taken
    uint16_t m_nextEphemeral;                                    //!< ephemeral port cursor
    std::unordered_map<uint64_t, TimeWaitEntry> m_timeWaitTable; //!< 4-tuple -> entry
    std::deque<std::pair<uint64_t, uint64_t>> m_timeWaitOrder;   //!< (expiry, key) in order
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_CONTROL_PLANE_H
