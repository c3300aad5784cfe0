/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_TCP_SOCKET_ENDPOINT_H
#define PRESTO_TCP_SOCKET_ENDPOINT_H

#include "flow-endpoint.h"

#include "ns3/nstime.h"
#include "ns3/socket.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"

#include <map>
#include <tuple>

namespace ns3
{

class OffloadSocket;

/**
 * \ingroup presto
 * \brief The baseline: ns-3's own TCP (TcpSocketBase) on the host CPU.
 *
 * Each flow is one TCP connection: the sender connects at the flow's start, writes the flow's
 * payload as the send buffer allows, and closes; the receiver's listening socket (one per
 * host and destination port) accepts it and hands every byte it reads to the base class,
 * which verifies it. DCTCP with ECN is the default; any TcpCongestionOps works
 * (CongestionControl attribute), with or without SACK.
 *
 * AddReport writes "tcp" (ns-3's TCP: congestion control, SACK, data segments sent,
 * retransmitted segments, failed connections) and, when some hosts' flows run on an offload
 * NIC (the SocketFactory attribute), "nic": the counters of those hosts' NICs summed
 * (OffloadNetDevice::AddCounters), "offloaded_hosts" and "offloaded_flows".
 */
class TcpSocketEndpoint : public FlowEndpoint
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    TcpSocketEndpoint();
    ~TcpSocketEndpoint() override;

    void Install(const NodeContainer& hosts, const std::vector<Ipv4Address>& addresses) override;
    WireModel GetWireModel() const override;
    std::string GetName() const override;
    void AddReport(nlohmann::json& doc) const override;
    /**
     * \param flowId a started flow
     * \return bytes its sender retransmitted: for ns-3's TCP counted from the socket's Tx
     * trace (bytes below the highest sent), for an offload socket the connection's
     * retransmittedBytes; -1 for an unknown flow
     */
    int64_t GetRetxBytes(uint32_t flowId) const override;
    /**
     * \param flowId a started flow
     * \return its sender's retransmission timeouts: for ns-3's TCP the entries into the
     * CA_LOSS congestion state (only an RTO enters it; a second RTO before recovery ends
     * counts once), for an offload socket the connection's timeouts; -1 for an unknown flow
     */
    int64_t GetTimeouts(uint32_t flowId) const override;
    int32_t GetSourcePort(uint32_t flowId) const override;

    /**
     * \param host host index (after Install)
     * \return the socket factory that host's connections use: the configured one, or ns-3's
     * TCP on a host without it (a host with no offload NIC in a mixed fabric)
     */
    TypeId FactoryFor(uint32_t host) const;

    /**
     * \brief Apply the TCP attributes (segment size, initial window, buffers, timeouts,
     * delayed ACKs; for ns-3's TCP also SACK, MinRto, ECN) to a new socket. Other workloads
     * (RpcEndpoint) configure their sockets with it too, so every workload runs the same TCP.
     * \param socket the socket
     */
    void ConfigureSocket(Ptr<Socket> socket) const;

  protected:
    void DoStartFlow(const FlowSpec& flow) override;
    void DoDispose() override;

  private:
    /** One connection's sending side. */
    struct Sender : public SimpleRefCount<Sender>
    {
        TcpSocketEndpoint* owner; //!< back pointer
        uint32_t flowId;          //!< flow
        uint64_t size;            //!< bytes to send
        uint64_t queued{0};       //!< bytes handed to the socket
        Ptr<Socket> socket;       //!< the connection
        SequenceNumber32 highest; //!< end of the highest byte sent so far
        uint16_t port{0};         //!< local (source) port
        int64_t timeouts{-1};     //!< RTOs (ns-3's TCP); -1: not traced
        bool sentAny{false};      //!< highest is valid
        /// the socket as an offload NIC's when payload is virtual: written by count, no packet
        OffloadSocket* bytesOnly{nullptr};
        /** Connection established: start writing. */
        void Connected(Ptr<Socket> s);
        /** Connection failed. */
        void Failed(Ptr<Socket> s);
        /** Send buffer has room. */
        void Space(Ptr<Socket> s, uint32_t available);
        /** A segment left the socket: count retransmitted bytes. */
        void Tx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s);
        /** ns-3's TCP changed congestion state: count entries into CA_LOSS (an RTO). */
        void CongState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to);
        /** Write payload until the buffer is full or the flow is queued. */
        void Fill();
    };

    /** One connection's receiving side. */
    struct Receiver : public SimpleRefCount<Receiver>
    {
        TcpSocketEndpoint* owner; //!< back pointer
        uint32_t flowId;          //!< flow
        /// the socket as an offload NIC's when payload is virtual: read by count, no packet
        OffloadSocket* bytesOnly{nullptr};
        /** Data readable. */
        void Read(Ptr<Socket> s);
        /** Peer closed. */
        void Closed(Ptr<Socket> s);
    };

    /** A listening socket accepted a connection. */
    void Accept(Ptr<Socket> socket, const Address& from);
    /** \return a listening socket on host:port, created on first use */
    void EnsureListener(uint32_t host, uint16_t port);

    // attributes
    TypeId m_socketFactory;     //!< socket factory of the flows
    std::string m_name;         //!< report name
    TypeId m_congestionControl; //!< TcpCongestionOps subclass
    bool m_sack;                //!< SACK option
    uint32_t m_segmentSize;     //!< MSS, bytes
    uint32_t m_initialCwnd;     //!< segments
    uint32_t m_bufferBytes;     //!< send and receive buffer, bytes
    Time m_minRto;              //!< minimum retransmission timeout
    Time m_clockGranularity;    //!< RTO clock granularity
    Time m_connTimeout;         //!< SYN retransmission timeout
    Time m_delAckTimeout;       //!< delayed ACK timeout
    uint32_t m_delAckCount;     //!< segments per delayed ACK

    NodeContainer m_hosts;                                            //!< by host index
    std::vector<Ipv4Address> m_addresses;                             //!< by host index
    std::map<std::pair<uint32_t, uint16_t>, Ptr<Socket>> m_listeners; //!< (host, port)
    /// (src address, src port, dst address, dst port) -> flow id, for accepted connections
    std::map<std::tuple<uint32_t, uint16_t, uint32_t, uint16_t>, uint32_t> m_pending;
    std::map<uint32_t, Ptr<Sender>> m_senders;     //!< by flow id
    std::map<uint32_t, Ptr<Receiver>> m_receivers; //!< by flow id
    std::map<uint32_t, int64_t> m_retx;            //!< retransmitted bytes by flow id
    uint64_t m_segmentsSent{0};                    //!< data segments sent, all flows
    uint64_t m_retxSegments{0};                    //!< of which retransmissions
    uint64_t m_connectFailures{0};                 //!< connections that failed
    uint64_t m_offloadedFlows{0};                  //!< flows sent through an offload NIC
};

} // namespace ns3

#endif // PRESTO_TCP_SOCKET_ENDPOINT_H
