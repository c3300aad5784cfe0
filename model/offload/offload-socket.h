/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_SOCKET_H
#define PRESTO_OFFLOAD_SOCKET_H

#include "offload-tcp-connection.h"

#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/socket-factory.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <vector>

namespace ns3
{

class OffloadNetDevice;
class OffloadTcpConnection;
struct OffloadSegment;

/**
 * \ingroup presto
 * \brief A TCP socket whose connection lives on an offload NIC (OffloadNetDevice).
 *
 * It implements ns-3's TcpSocket API, so unmodified applications (BulkSendApplication,
 * PacketSink, the experiment's endpoint) run over Presto, FlexTOE or Cora NICs by choosing
 * ns3::OffloadSocketFactory instead of ns3::TcpSocketFactory. The socket holds no protocol
 * state: the handshake and teardown run on the host control plane of the device, the data
 * path on the NIC; payload sits in per-connection host buffers that the NIC reads and writes
 * by DMA.
 *
 * It also carries the connection's trace sources, under the names and signatures of
 * TcpSocketBase's (CongestionWindow, SlowStartThreshold, RTT, RTO, BytesInFlight, State, Tx,
 * Rx) plus Retransmission and OutOfOrderIntervals; the sockets of a node are reachable as
 * /NodeList/N/$ns3::OffloadSocketFactory/SocketList/I/... (doc/presto.rst, "Tracing and
 * logging an offloaded connection"). The device updates them only once one is connected
 * (IsTraced); State is always kept.
 */
class OffloadSocket : public TcpSocket
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    OffloadSocket();
    ~OffloadSocket() override;

    /**
     * \param node the node
     * \param device its offload NIC
     */
    void SetDevice(Ptr<Node> node, Ptr<OffloadNetDevice> device);

    // Socket API
    enum SocketErrno GetErrno() const override;
    enum SocketType GetSocketType() const override;
    Ptr<Node> GetNode() const override;
    int Bind() override;
    int Bind6() override;
    int Bind(const Address& address) override;
    int Close() override;
    int ShutdownSend() override;
    int ShutdownRecv() override;
    int Connect(const Address& address) override;
    int Listen() override;
    uint32_t GetTxAvailable() const override;
    int Send(Ptr<Packet> p, uint32_t flags) override;
    int SendTo(Ptr<Packet> p, uint32_t flags, const Address& toAddress) override;
    uint32_t GetRxAvailable() const override;
    Ptr<Packet> Recv(uint32_t maxSize, uint32_t flags) override;
    Ptr<Packet> RecvFrom(uint32_t maxSize, uint32_t flags, Address& fromAddress) override;

    /**
     * \brief Send as Send does a zero-filled packet of this size, without building it: for
     * applications that carry no payload bytes (virtual payload, doc/presto.rst), which
     * spares a Packet per write.
     * \param bytes how many
     * \return bytes accepted, or -1 with the errno Send gives (not connected, closed, more
     * than GetTxAvailable)
     */
    int SendBytes(uint32_t bytes);
    /**
     * \brief Receive as Recv does, without building a packet: the bytes are consumed.
     * \param maxBytes limit
     * \return bytes read (0 if none)
     */
    uint32_t RecvBytes(uint32_t maxBytes);
    int GetSockName(Address& address) const override;
    int GetPeerName(Address& address) const override;
    bool SetAllowBroadcast(bool allowBroadcast) override;
    bool GetAllowBroadcast() const override;

    // Called by the device
    /** \brief The device accepted this socket as connection conn (before the handshake).
     * \param conn connection slot \param localPort local port \param peer remote address
     * \param peerPort remote port */
    void Attach(uint32_t conn, uint16_t localPort, Ipv4Address peer, uint16_t peerPort);
    /** \brief Handshake completed (active open). */
    void Established();
    /** \brief Handshake failed or the connection table is full. */
    void Failed();
    /** \brief A passive open completed: a new socket for the listener's application.
     * \param socket the new connection \param from the peer */
    void Accepted(Ptr<OffloadSocket> socket, const Address& from);
    /** \brief In-order data reached the host receive buffer. */
    void DataArrived();
    /** \brief Acknowledged data freed send buffer space.
     * \param available bytes free now */
    void SpaceFreed(uint32_t available);
    /** \brief The peer sent FIN (all its data has arrived). */
    void PeerClosed();
    /** \brief Both directions closed; the connection slot is gone (its counters are kept). */
    void Finished();
    /**
     * \return the data-path counters of this socket's connection: live while it is
     * established, as they were when the NIC freed it afterwards, all zero before
     */
    OffloadTcpCounters GetConnectionCounters() const;
    /** \brief The peer reset the connection (an acceptable RST): the slot is gone, unread
     * data with it, and the application hears NotifyErrorClose. */
    void Reset();
    uint32_t GetSndBufSize() const override; //!< \return send buffer size, bytes
    uint32_t GetRcvBufSize() const override; //!< \return receive buffer size, bytes
    /** \return MSS the application asked for, bytes */
    uint32_t GetMss() const;
    /** \return initial congestion window, segments */
    uint32_t GetInitialCwndSegments() const;
    /** \return the DMA channel of the application owning the socket (DmaChannel) */
    uint32_t GetDmaChannel() const;

    /**
     * \brief Refuse the TcpSocket attributes the NIC does not honour when they are set to
     * anything but their default (doc/presto.rst lists which). Called by Connect and Listen,
     * and by the device's Setup on a fresh socket (so that Config::SetDefault is refused
     * before the run).
     * \param where prefix of the message (the caller)
     * \throws PrestoInputError naming the attribute, its value and what to set instead
     */
    void CheckAttributes(const std::string& where) const;

    // Trace sources (doc/presto.rst, "Tracing and logging an offloaded connection")
    /**
     * TracedCallback signature of Tx, Rx and Retransmission (TcpSocketBase's, with this
     * socket).
     * \param packet the payload (zero-filled when the connection carries no payload bytes)
     * \param header its TCP header (no options)
     * \param socket this socket
     */
    typedef void (*TcpTxRxTracedCallback)(const Ptr<const Packet> packet,
                                          const TcpHeader& header,
                                          const Ptr<const OffloadSocket> socket);
    /** \brief A sink was connected to one of the per-connection trace sources: from now on
     * the device keeps them up to date (EnablingTraceSourceAccessor). */
    void EnableTraces();

    /** \return whether a per-connection trace source has (had) a sink: the device's one
     * test per decision */
    bool IsTraced() const
    {
        return m_traced;
    }

    /** \brief Update the traced values from the data path after a decision (only while
     * IsTraced). \param tcp the connection's data path */
    void SyncTraces(const OffloadTcpConnection& tcp);
    /**
     * \brief A segment of the connection left for the wire (only while IsTraced).
     * \param seg its fields \param window its window field \param payload its payload, or
     * null when virtual
     */
    void TraceTx(const OffloadSegment& seg, uint16_t window, Ptr<const Packet> payload);
    /**
     * \brief A segment of the connection reached the data path (only while IsTraced).
     * \param seg its fields \param window its window field as received
     */
    void TraceRx(const OffloadSegment& seg, uint16_t window);
    /**
     * \brief The data path re-sends a segment (go-back-N or timeout; only while IsTraced).
     * \param seg its fields
     */
    void TraceRetransmission(const OffloadSegment& seg);

  private:
    /// Send's and SendBytes' checks; sets m_errno when it says no
    bool MaySend(uint32_t bytes);

    // TcpSocket attribute plumbing
    void SetSndBufSize(uint32_t size) override;
    void SetRcvBufSize(uint32_t size) override;
    void SetSegSize(uint32_t size) override;
    uint32_t GetSegSize() const override;
    void SetInitialSSThresh(uint32_t threshold) override;
    uint32_t GetInitialSSThresh() const override;
    void SetInitialCwnd(uint32_t cwnd) override;
    uint32_t GetInitialCwnd() const override;
    void SetConnTimeout(Time timeout) override;
    Time GetConnTimeout() const override;
    void SetSynRetries(uint32_t count) override;
    uint32_t GetSynRetries() const override;
    void SetDataRetries(uint32_t retries) override;
    uint32_t GetDataRetries() const override;
    void SetDelAckTimeout(Time timeout) override;
    Time GetDelAckTimeout() const override;
    void SetDelAckMaxCount(uint32_t count) override;
    uint32_t GetDelAckMaxCount() const override;
    void SetTcpNoDelay(bool noDelay) override;
    bool GetTcpNoDelay() const override;
    void SetPersistTimeout(Time timeout) override;
    Time GetPersistTimeout() const override;

    /** Set the State trace. \param state the new state */
    void SetState(TcpStates_t state);
    /** Take this socket off its node's SocketList (the connection is gone). */
    void Forget();
    /**
     * The setters of the refused TcpSocket attributes note whether the value is one the NIC
     * does not honour, so that CheckAttributes costs one test when none is.
     * \param bit the attribute's REFUSED_ bit \param differs its value is refused
     */
    void NoteRefused(uint32_t bit, bool differs);

    /// m_refused bits, one per refused TcpSocket attribute
    enum : uint32_t
    {
        REFUSED_CONN_TIMEOUT = 1u << 0, //!< ConnTimeout
        REFUSED_CONN_COUNT = 1u << 1,   //!< ConnCount
        REFUSED_DATA_RETRIES = 1u << 2, //!< DataRetries
        REFUSED_DELACK_COUNT = 1u << 4, //!< DelAckCount
        REFUSED_NO_DELAY = 1u << 5,     //!< TcpNoDelay
        REFUSED_PERSIST = 1u << 6,      //!< PersistTimeout
        REFUSED_SSTHRESH = 1u << 7,     //!< InitialSlowStartThreshold
    };

    uint32_t m_refused{0}; //!< REFUSED_ bits of the attributes set to a refused value

    static constexpr uint32_t NO_CONN = 0xffffffff; //!< not attached

    Ptr<Node> m_node;                 //!< owner
    Ptr<OffloadNetDevice> m_device;   //!< the NIC
    mutable enum SocketErrno m_errno; //!< last error
    uint32_t m_conn{NO_CONN};         //!< connection slot on the NIC
    uint16_t m_localPort{0};          //!< bound port (0: unbound)
    Ipv4Address m_peer;               //!< remote address
    uint16_t m_peerPort{0};           //!< remote port
    bool m_listening{false};          //!< passive socket
    bool m_closed{false};             //!< Close() called
    bool m_connected{false};          //!< handshake done
    uint32_t m_sndBuf{131072};        //!< attribute
    uint32_t m_rcvBuf{131072};        //!< attribute
    uint32_t m_segSize{1448};         //!< attribute
    uint32_t m_ssThresh{0xffffffff};  //!< attribute (kept for the API)
    uint32_t m_initialCwnd{10};       //!< attribute
    uint32_t m_dmaChannel{0};         //!< attribute DmaChannel
    Time m_connTimeout;               //!< attribute
    uint32_t m_synRetries{6};         //!< attribute
    uint32_t m_dataRetries{6};        //!< attribute
    Time m_delAckTimeout;             //!< attribute (the NIC ACKs every segment)
    uint32_t m_delAckCount{1};        //!< attribute
    bool m_noDelay{true};             //!< attribute
    Time m_persistTimeout;            //!< attribute

    bool m_traced{false};                     //!< a per-connection trace has a sink
    TracedValue<uint32_t> m_cWnd{0};          //!< CongestionWindow, bytes
    TracedValue<uint32_t> m_ssThreshTrace{0}; //!< SlowStartThreshold, bytes
    TracedValue<Time> m_lastRtt{Seconds(0)};  //!< RTT: the last RTT sample
    TracedValue<Time> m_rto{Seconds(0)};      //!< RTO: with backoff
    TracedValue<uint32_t> m_bytesInFlight{0}; //!< BytesInFlight: snd_max - snd_una
    TracedValue<uint32_t> m_intervals{0};     //!< OutOfOrderIntervals held
    TracedValue<TcpStates_t> m_state{CLOSED}; //!< State
    TracedCallback<Ptr<const Packet>, const TcpHeader&, Ptr<const OffloadSocket>>
        m_txTrace; //!< Tx: segments sent
    TracedCallback<Ptr<const Packet>, const TcpHeader&, Ptr<const OffloadSocket>>
        m_rxTrace; //!< Rx: segments received
    TracedCallback<Ptr<const Packet>, const TcpHeader&, Ptr<const OffloadSocket>>
        m_retxTrace;                   //!< Retransmission: segments re-sent
    OffloadTcpCounters m_lastCounters; //!< the connection's, when its slot was freed
};

/**
 * \ingroup presto
 * \brief Creates OffloadSockets on a node whose host device is an OffloadNetDevice.
 * Aggregated to the node by the offload helper; applications select it with
 * TypeId "ns3::OffloadSocketFactory".
 */
class OffloadSocketFactory : public SocketFactory
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    /** \brief A socket on the node's offload NIC; aborts with a message naming the node if
     * the node has none. \return the socket */
    Ptr<Socket> CreateSocket() override;
    /** \param device the node's offload NIC */
    void SetDevice(Ptr<OffloadNetDevice> device);
    /** \return whether the factory has a NIC to open sockets on */
    bool HasDevice() const;
    /**
     * \brief What is wrong with asking for ns3::OffloadSocketFactory on \p node.
     * \param node the node (null: named "?")
     * \return "" if the node has an offload NIC to open sockets on, else a one-line
     * message naming the node (CreateSocket's fatal error says the same)
     */
    static std::string MissingNic(Ptr<Node> node);
    /**
     * \brief Check, before any socket is made, that \p node can open offload sockets.
     *
     * A program that sets an application's socket factory (e.g. BulkSendApplication's
     * "Protocol") to ns3::OffloadSocketFactory calls this for the application's node: in a
     * simulation without any offload device nothing else guards ns-3's Socket::CreateSocket,
     * which dereferences a missing factory (a bare segfault in optimised builds).
     * \param node the node
     * \throws PrestoInputError with MissingNic's message if it cannot
     */
    static void RequireNic(Ptr<Node> node);
    /**
     * \brief Put a socket on the SocketList (CreateSocket does; a listener's accepted
     * sockets are added by the listener). \param socket the socket
     */
    void AddSocket(Ptr<OffloadSocket> socket);
    /** \brief Take a socket off the SocketList (its connection is gone). \param socket it */
    void RemoveSocket(Ptr<OffloadSocket> socket);
    /**
     * \brief Puts a device-less factory on every node that has none, once per simulation,
     * at time 0 before any application starts.
     *
     * ns-3's Socket::CreateSocket dereferences the factory it finds without a check in
     * optimised builds: an application asking for ns3::OffloadSocketFactory on a node
     * without an offload NIC would crash with a bare segfault. With a device-less factory
     * in place, it stops with a message naming the node instead. Called by the offload
     * device when it is put on a node.
     */
    static void GuardNodesWithoutNic();

  protected:
    void DoDispose() override;

  private:
    /// Aggregates a device-less factory on every node without one (the scheduled guard).
    static void GuardNow();
    Ptr<OffloadNetDevice> m_device; //!< the NIC
    /// SocketList: the node's offload sockets with a connection or about to have one, as
    /// TcpL4Protocol's SocketList
    std::vector<Ptr<OffloadSocket>> m_sockets;
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_SOCKET_H
