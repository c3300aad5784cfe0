/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RPC_ENDPOINT_H
#define PRESTO_RPC_ENDPOINT_H

#include "pending-connections.h"
#include "rpc-server-cores.h"
#include "rpc-workload.h"
#include "tcp-socket-endpoint.h"

#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The closed-loop RPC workload on the hosts' sockets (ns-3's TCP or an offload NIC's,
 * through the same TcpSocketEndpoint configuration as the flow workload).
 *
 * Every host listens on one port. Each host opens RpcWorkloadConfig::connectionsPerHost
 * persistent connections, spread evenly over an opening window, to servers drawn by
 * RpcWorkloadConfig::ServerOf. Once connected, a client keeps `outstanding` requests in
 * flight: it writes a request (its size from RpcMessageSizes), and when the whole response
 * has been read it records the latency (write of the request's first byte to read of the
 * response's last) and writes the next request. A server reads each whole request, then
 * writes its response. Both sides know every message's size from the shared stream of
 * sizes, so messages carry no header; every byte read is checked against the stream's
 * payload pattern (FillPayload of the connection and direction at that offset): a byte read
 * twice, out of order or altered counts as corrupt.
 *
 * Open loop (RpcWorkloadConfig::ratePerHost > 0): requests arrive at each client connection
 * as a Poisson process of ratePerHost / connectionsPerHost per second from its establishment
 * on (gaps from RpcArrivalGapNs), whatever has been answered: an arrival is written at once
 * behind the connection's earlier requests, so a response's latency includes the wait behind
 * them (no coordinated omission), and an arrival that finds `backlog` requests unanswered is
 * refused at the client and counted (`requests_refused`).
 *
 * Latencies count for requests written at or after the measurement start and answered
 * before the run ends; no request is written after the stop time.
 */
class RpcEndpoint : public Object
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    RpcEndpoint();
    ~RpcEndpoint() override;

    /**
     * \brief Set up on the fabric's hosts: listening sockets now, connections at Start.
     * \param transport configures and creates the sockets (its Install must have run)
     * \param hosts host nodes by host index
     * \param addresses their addresses
     * \param config the workload (validated)
     * \param request request sizes
     * \param response response sizes
     */
    void Install(Ptr<TcpSocketEndpoint> transport,
                 const NodeContainer& hosts,
                 const std::vector<Ipv4Address>& addresses,
                 const RpcWorkloadConfig& config,
                 const RpcSizes& request,
                 const RpcSizes& response);

    /**
     * \brief Make the messages a key-value store's GETs and SETs (instead of the request and
     * response sizes given to Install). Call after Install, before Start.
     * \param kv the mix
     */
    void SetKvMix(const RpcKvMix& kv);

    /**
     * \brief Schedule the connections and the measurement.
     * \param openWindow connections open evenly spread over [0, openWindow)
     * \param measureFrom latencies count for requests written from here on
     * \param stop no request is written from here on (the run's end)
     */
    void Start(Time openWindow, Time measureFrom, Time stop);

    /** \return requests answered in [measureFrom, stop) */
    uint64_t GetMeasuredRequests() const;
    /** \return the latencies of the measured requests, ns (copied) */
    std::vector<uint64_t> GetLatencies() const;

    /**
     * \brief Add the "rpc" section to summary.json: connections, outstanding, sizes, requests
     * written and answered, requests per second over the measurement window, latency
     * percentiles, connections established and failed, bytes, corrupt bytes.
     * \param doc the summary object
     */
    void AddReport(nlohmann::json& doc) const;

    /**
     * \param host host index
     * \return the host's dispatcher time so far, ns (Steering=HostDispatch; else 0): host
     * CPU work the run report counts
     */
    int64_t GetDispatchNs(uint32_t host) const;

    /** \return bytes read that did not match the payload stream (0 when exact) */
    uint64_t GetCorruptBytes() const;

    /**
     * TracedCallback signature for application bytes on a host.
     * \param host host index
     * \param bytes bytes written (or read) by the application
     */
    typedef void (*HostBytesTracedCallback)(uint32_t host, uint64_t bytes);

    /**
     * TracedCallback signature for a connection set up at a host.
     * \param host host index
     */
    typedef void (*HostTracedCallback)(uint32_t host);

  protected:
    void DoDispose() override;

  private:
    /**
     * The write times of a client's outstanding requests, oldest first. A std::deque
     * allocates about 576 bytes even while empty (every server end, every idle client): with
     * 10,000 connections per host that was 1.1 KB of each connection's memory. This holds a
     * vector that allocates on the first request and keeps its capacity.
     */
    class TimeFifo
    {
      public:
        /** \return no request outstanding */
        bool empty() const
        {
            return m_head == m_times.size();
        }

        /** \return requests outstanding */
        std::size_t size() const
        {
            return m_times.size() - m_head;
        }

        /** \return the oldest write time, ns (not empty) */
        int64_t front() const
        {
            return m_times[m_head];
        }

        /** \param ns a request written now */
        void push_back(int64_t ns)
        {
            m_times.push_back(ns);
        }

        /** The oldest request was answered. */
        void pop_front()
        {
            if (++m_head == m_times.size())
            {
                m_times.clear(); // keeps the capacity
                m_head = 0;
            }
            else if (m_head >= 64 && 2 * m_head >= m_times.size())
            {
                m_times.erase(m_times.begin(), m_times.begin() + m_head);
                m_head = 0;
            }
        }

      private:
        std::vector<int64_t> m_times; //!< write times, ns; the first m_head are answered
        std::size_t m_head{0};        //!< index of the oldest outstanding
    };

    /** One end of a connection. */
    struct End : public SimpleRefCount<End>
    {
        RpcEndpoint* owner{nullptr}; //!< back pointer
        uint64_t conn{0};            //!< connection id
        uint32_t host{0};            //!< host index of this end
        bool client{true};           //!< client (requests out) or server end
        Ptr<Socket> socket;          //!< the connection
        uint64_t txOffset{0};        //!< stream bytes written
        uint64_t txBacklog{0};       //!< bytes of issued messages not yet written
        uint64_t rxOffset{0};        //!< stream bytes read
        uint64_t next{0};            //!< client: next request to write; server: next to read
        uint64_t answered{0};        //!< client: responses read; server: requests read
        uint64_t rxRemaining{0};     //!< bytes left of the message being read
        TimeFifo issued;             //!< client: write times of the outstanding requests, ns
        bool connected{false};       //!< established
        uint64_t arrivals{0};        //!< client, open loop: arrivals so far

        /** Connection established (client). */
        void Connected(Ptr<Socket> s);
        /** Connection failed (client). */
        void Failed(Ptr<Socket> s);
        /** Room in the send buffer. */
        void Space(Ptr<Socket> s, uint32_t available);
        /** Data readable. */
        void Read(Ptr<Socket> s);
        /** Peer closed. */
        void Closed(Ptr<Socket> s);
        /** Write backlog while the send buffer has room. */
        void Pump();
        /** Client: write the next request if the window and the clock allow. */
        void Issue();
        /** Client, open loop: a request arrives (written, or refused past the backlog). */
        void Arrive();
        /** Client, open loop: schedule the next arrival. */
        void ScheduleArrival();
        /** Server: a request was served; queue its response of `bytes`. */
        void Respond(uint64_t bytes);
        int64_t respondAtNs{0}; //!< server: when the last response was queued, ns
        /** Sizes of message k of this connection. */
        std::pair<uint64_t, uint64_t> Sizes(uint64_t k) const;
    };

    /** Open client connection conn. */
    void Open(uint64_t conn);
    /** A listening socket accepted a connection. */
    void Accept(Ptr<Socket> socket, const Address& from);

    Ptr<TcpSocketEndpoint> m_transport;     //!< socket configuration
    NodeContainer m_hosts;                  //!< by host index
    std::vector<Ipv4Address> m_addresses;   //!< by host index
    RpcWorkloadConfig m_config;             //!< the workload
    RpcSizes m_request;                     //!< request sizes
    RpcSizes m_response;                    //!< response sizes
    std::unique_ptr<RpcKvMix> m_kv;         //!< key-value messages instead, if set
    uint16_t m_port;                        //!< the servers' port (attribute)
    Time m_measureFrom;                     //!< measurement start
    Time m_stop;                            //!< no request written from here on
    std::vector<Ptr<Socket>> m_listeners;   //!< by host
    std::vector<Ptr<End>> m_clients;        //!< by connection id
    std::vector<Ptr<End>> m_servers;        //!< accepted ends
    PendingConnections<uint64_t> m_pending; //!< connection id of each, for Accept
    std::vector<uint64_t> m_latencies;      //!< measured, ns
    uint64_t m_written{0};                  //!< requests written
    uint64_t m_refused{0};                  //!< open loop: arrivals refused past the backlog
    uint64_t m_offered{0};                  //!< open loop: arrivals in [measureFrom, stop)
    size_t m_backlogMax{0};                 //!< open loop: most requests a connection held
    uint64_t m_answered{0};                 //!< responses read completely
    uint64_t m_measured{0};                 //!< of which measured
    uint64_t m_established{0};              //!< client connections established
    uint64_t m_failed{0};                   //!< client connections failed
    uint64_t m_corrupt{0};                  //!< mismatched bytes read
    uint64_t m_bytesRead{0};                //!< bytes read by applications
    std::vector<uint8_t> m_buf;             //!< scratch
    uint32_t m_serverCores{0};              //!< ServerCores
    Time m_serviceTime;                     //!< ServiceTime
    RpcSteering m_steering{RPC_AFFINITY};   //!< Steering
    Time m_dispatchTime;                    //!< DispatchTime
    std::vector<RpcServerCores> m_cores;    //!< by host (empty: no server model)

    TracedCallback<uint32_t, uint64_t> m_writeTrace; //!< application wrote bytes
    TracedCallback<uint32_t, uint64_t> m_readTrace;  //!< application read bytes
    TracedCallback<uint32_t> m_connectionTrace;      //!< a connection end was set up
};

} // namespace ns3

#endif // PRESTO_RPC_ENDPOINT_H
