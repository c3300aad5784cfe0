/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_COLLECTIVE_ENDPOINT_H
#define PRESTO_COLLECTIVE_ENDPOINT_H

#include "collective-schedule.h"
#include "payload-pattern.h"
#include "pending-connections.h"
#include "tcp-socket-endpoint.h"

#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/offload-socket.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief A collective (ring all-reduce, all-to-all) run by ranks on the hosts' sockets:
 * ns-3's TCP or an offload NIC's, configured by the same TcpSocketEndpoint as the flow and
 * RPC workloads, so the collective runs on every design through the same sockets.
 *
 * One persistent connection per ordered (src, dst) rank pair of the schedule
 * (CollectiveSchedule::Pairs: N for the ring, N(N-1) for the all-to-all), all opened at
 * Start. The collective begins when every connection is established at its sender (the
 * SYN-ACK arrived), so the handshakes are not part of the job completion time (JCT); a
 * receiver whose handshake's last ACK was lost is set up by the first data segment. Then
 * each rank follows the
 * schedule under its dependency model (CollectiveSchedule): a step's bytes are written as
 * the send buffers free; a step completes at a rank when all the bytes it expects in the
 * step were read and its own were written; the next step starts then (after the compute
 * gap at an iteration's end). Each connection carries its steps' chunks back to back as
 * one byte stream, the payload pattern of the connection (FillPayload with the pair's
 * index as the flow), and the receiver checks every byte read with a PayloadVerifier: a
 * byte lost, altered, out of order or twice shows as corrupt or excess bytes. Without the
 * transport's VerifyPayload the payload is virtual, as for the flows: zero-filled packets
 * (an offload socket moves a count), and the receiver counts the bytes, so a stream is
 * complete when exactly its bytes arrived and a byte beyond is excess.
 */
class CollectiveEndpoint : public Object
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    CollectiveEndpoint();
    ~CollectiveEndpoint() override;

    /**
     * \brief Set up on the fabric's hosts: listening sockets now, connections at Start.
     * \param transport configures and creates the sockets (its Install must have run)
     * \param hosts host nodes by host index
     * \param addresses their addresses
     * \param schedule the collective
     * \param hostOfRank by rank, its host index (distinct hosts; PlaceRanks)
     * \param iterations how many times the collective runs (>= 1)
     * \param computeGap a rank's compute time between its iterations
     */
    void Install(Ptr<TcpSocketEndpoint> transport,
                 const NodeContainer& hosts,
                 const std::vector<Ipv4Address>& addresses,
                 const CollectiveSchedule& schedule,
                 const std::vector<uint32_t>& hostOfRank,
                 uint32_t iterations,
                 Time computeGap);

    /** \brief Open the connections now; the collective starts once all are established. */
    void Start();

    /**
     * \brief Called once when every rank completed its last step.
     * \param cb the callback
     */
    void SetFinishedCallback(Callback<void> cb);

    /** \return true when every rank completed every step */
    bool IsFinished() const;
    /** \return one record per (iteration, step, rank), in that order */
    const std::vector<CollectiveStepRecord>& GetRecords() const;
    /** \return when the connections were all set up and step 0 began, ns (-1: not yet) */
    int64_t GetStartNs() const;
    /** \return bytes read that differed from the pattern (0 when exact) */
    uint64_t GetCorruptBytes() const;
    /** \return bytes read beyond a connection's expected stream (0 when exact) */
    uint64_t GetExcessBytes() const;
    /** \return bytes read by the ranks, verified or not */
    uint64_t GetDeliveredBytes() const;

    /**
     * \brief Add the "collective" section to summary.json: the collective, its size, ranks
     * and their hosts, connections, JCT (per iteration too), step durations p50/p99/max
     * overall and per step index, the slowest rank, bytes and the delivery check.
     * \param doc the summary object
     */
    void AddReport(nlohmann::json& doc) const;

    /**
     * \brief Write collective.csv: iteration,step,rank,start_ns,end_ns (times from the
     * simulation's start; -1 for a step that never started or ended).
     * \param os the stream
     */
    void WriteCsv(std::ostream& os) const;

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
    /** One connection: rank src's stream of chunks to rank dst. */
    struct Pair : public SimpleRefCount<Pair>
    {
        CollectiveEndpoint* owner{nullptr};        //!< back pointer
        uint32_t index{0};                         //!< pair index (its payload stream)
        uint32_t src{0};                           //!< sending rank
        uint32_t dst{0};                           //!< receiving rank
        Ptr<Socket> tx;                            //!< the sender's socket
        Ptr<Socket> rx;                            //!< the receiver's accepted socket
        uint64_t txOffset{0};                      //!< stream bytes written
        uint64_t txBacklog{0};                     //!< bytes of started steps not yet written
        std::unique_ptr<PayloadVerifier> verifier; //!< checks the stream read
        uint64_t rxOffset{0};                      //!< stream bytes read
        uint32_t rxCursor{0};                      //!< index into the pair's (linear step) list
        uint64_t rxRemaining{0};                   //!< bytes left of that step's chunk
        bool connected{false};                     //!< client end established
        /// the sender's socket as an offload NIC's when payload is virtual: written by count
        OffloadSocket* txBytes{nullptr};
        /// the receiver's socket as an offload NIC's when payload is virtual: read by count
        OffloadSocket* rxBytes{nullptr};

        /** Connection established (client). */
        void Connected(Ptr<Socket> s);
        /** Connection failed (client). */
        void Failed(Ptr<Socket> s);
        /** Room in the send buffer. */
        void Space(Ptr<Socket> s, uint32_t available);
        /** Data readable (receiver). */
        void Read(Ptr<Socket> s);
        /** Write the backlog while the send buffer has room. */
        void Pump();
        /** \param len bytes read, in stream order: count them against the steps' chunks */
        void Take(uint32_t len);
    };

    /** One rank's progress. */
    struct Rank
    {
        uint32_t host{0};               //!< its host index
        uint64_t step{0};               //!< current linear step (iteration x steps + step)
        bool started{false};            //!< the current step started
        bool done{false};               //!< every step completed
        uint64_t sendLeft{0};           //!< bytes of the current step not yet written
        std::vector<uint64_t> recvLeft; //!< by linear step: bytes still expected
    };

    /** A listening socket accepted a connection. */
    void Accept(Ptr<Socket> socket, const Address& from);
    /** One more connection is established at its sender; start the collective when all
     * are. */
    void EndReady();
    /** \param rank a rank \param step its next linear step: start it (write its bytes) */
    void StartStep(uint32_t rank, uint64_t step);
    /** \param rank a rank: complete and start its steps as far as the dependencies allow */
    void Advance(uint32_t rank);
    /** \param rank a rank \param step its next linear step: start it after the compute gap */
    void Resume(uint32_t rank, uint64_t step);
    /** \param rank a rank \param bytes it wrote (of its current step) */
    void Written(uint32_t rank, uint64_t bytes);
    /** \param r a record's rank \param step its linear step \return the record */
    CollectiveStepRecord& Record(uint32_t r, uint64_t step);

    Ptr<TcpSocketEndpoint> m_transport;             //!< socket configuration
    NodeContainer m_hosts;                          //!< by host index
    std::vector<Ipv4Address> m_addresses;           //!< by host index
    std::unique_ptr<CollectiveSchedule> m_schedule; //!< the collective
    uint32_t m_iterations{1};                       //!< iterations
    Time m_computeGap;                              //!< between a rank's iterations
    bool m_verify{true};                            //!< the transport's VerifyPayload
    uint16_t m_port{7100};                          //!< every host's listening port (attribute)
    std::vector<Ptr<Socket>> m_listeners;           //!< by host
    std::vector<Ptr<Pair>> m_pairs;                 //!< by pair index
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_pairOf; //!< (src, dst) -> index
    /// by pair index: the linear steps of one iteration that carry its bytes, and how many
    std::vector<std::vector<std::pair<uint32_t, uint64_t>>> m_pairSteps;
    PendingConnections<uint32_t> m_pending;      //!< pair index of each connection, for Accept
    std::vector<Rank> m_ranks;                   //!< by rank
    std::vector<CollectiveStepRecord> m_records; //!< by (iteration, step, rank)
    uint32_t m_ready{0};                         //!< connections established at the sender
    uint32_t m_failed{0};                        //!< connections that failed
    uint32_t m_ranksDone{0};                     //!< ranks that completed every step
    int64_t m_startNs{-1};                       //!< the collective's start
    uint64_t m_delivered{0};                     //!< bytes read
    std::vector<uint8_t> m_buf;                  //!< scratch
    Callback<void> m_finished;                   //!< to the experiment

    TracedCallback<uint32_t, uint64_t> m_writeTrace; //!< application wrote bytes
    TracedCallback<uint32_t, uint64_t> m_readTrace;  //!< application read bytes
    TracedCallback<uint32_t> m_connectionTrace;      //!< a connection end was set up
};

} // namespace ns3

#endif // PRESTO_COLLECTIVE_ENDPOINT_H
