/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_CONNECTION_TABLE_H
#define PRESTO_OFFLOAD_CONNECTION_TABLE_H

#include "offload-byte-ring.h"
#include "offload-control-plane.h"
#include "offload-tcp-connection.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

class OffloadSocket;

/**
 * \ingroup presto
 * \brief What an offload NIC keeps of one connection (OffloadNetDevice): its handshake, its
 * endpoints, its host buffers and DMA channel, its data path once established, and where it
 * is on the device's lists.
 */
struct OffloadConnectionState
{
    OffloadHandshake hs;                       //!< control-plane state and negotiation
    Ipv4Address peer;                          //!< remote address
    uint32_t peerBits{0};                      //!< peer.Get(), for the per-segment path
    uint16_t localPort{0};                     //!< local port
    uint16_t peerPort{0};                      //!< remote port
    uint32_t mss{1448};                        //!< segment size
    uint32_t sndBuf{131072};                   //!< send buffer, bytes
    uint32_t rcvBuf{131072};                   //!< receive buffer, bytes
    uint32_t initialCwnd{10};                  //!< segments
    Ptr<OffloadSocket> socket;                 //!< application socket
    Ptr<OffloadSocket> listener;               //!< passive open: the listener
    std::unique_ptr<OffloadTcpConnection> tcp; //!< the data path (when established)
    std::unique_ptr<OffloadByteRing> txRing;   //!< host send buffer
    std::unique_ptr<OffloadByteRing> rxRing;   //!< host receive buffer
    uint32_t txTail{0};                        //!< sequence after the last app byte
    uint32_t rxReadable{0};                    //!< in place, readable by the app
    OffloadDmaChannel dma;                     //!< NIC <-> host memory
    EventId synTimer;                          //!< handshake retransmission
    bool appClosed{false};                     //!< application closed
    bool peerClosedSeen{false};                //!< peer FIN reported
    uint32_t activeIndex{0};                   //!< position in the table's active list
    bool timed{false};                         //!< on the timed list (the timer scan visits it)
    uint32_t timedIndex{0};                    //!< position in the timed list
    uint64_t nextControlNs{0};                 //!< next host control-loop run (rate-based CC)
    EventId paceWake;                          //!< pacing: wake-up at the next allowed send time
    bool ownsPort{false};   //!< active open: the local port returns to the pool at teardown
    Time txLast;            //!< when the last segment produced reaches the wire queue (keeps order)
    uint32_t dmaChannel{0}; //!< DmaChannels > 0: its application's channel
    std::array<uint32_t, 2> dmaPending{}; //!< DmaChannels > 0: transfers not yet in place,
                                          //!< by direction (DMA_RX, DMA_TX)
    Time dmaRxSubmit;       //!< DmaChannels > 0: when its last receive transfer enters
                            //!< its channel (keeps arrival order)
    uint32_t notifying{0};  //!< notifications to the host on their way
    int64_t rxInPlaceNs{0}; //!< when its last received bytes are in place, ns (a
                            //!< notification never comes before them)
    uint32_t txPosting{0};  //!< timed HostCpu: bytes written, not yet posted to the NIC
};

/**
 * \ingroup presto
 * \brief An offload NIC's connection table: fixed state arrays of at most MaxConnections
 * entries, of which memory is taken only for those in use; a 4-tuple lookup; the list of
 * connections in use and the list the timer scan visits. Bookkeeping only: what a new or
 * freed connection means is OffloadNetDevice's.
 *
 * An id names an entry; the entry's generation bumps when it is freed, so that an event of a
 * connection that is gone recognises it (the entry may hold a new connection by then).
 */
class OffloadConnectionTable
{
  public:
    static constexpr uint32_t NONE = 0xffffffff; //!< no connection

    /** \param id a connection \return its state */
    OffloadConnectionState& operator[](uint32_t id)
    {
        return m_entries[id];
    }

    /** \param id a connection \return its state */
    const OffloadConnectionState& operator[](uint32_t id) const
    {
        return m_entries[id];
    }

    /** \return entries made so far (every id below is valid) */
    size_t Size() const
    {
        return m_entries.size();
    }

    /** \param id an entry \return its generation: bumps each time it is freed */
    uint32_t Generation(uint32_t id) const
    {
        return m_generation[id];
    }

    /** \param max the table's size \return true if no entry is free */
    bool IsFull(uint32_t max) const
    {
        return m_free.empty() && m_entries.size() >= max;
    }

    /**
     * \brief Take a free entry (the table must not be full).
     * \param max the table's size
     * \return its id, on the active list
     */
    uint32_t Allocate(uint32_t max);

    /**
     * \brief Free an entry: off the timed and active lists, its state reset, its generation
     * bumped. \param id the connection (its 4-tuple must be unbound by then)
     */
    void Release(uint32_t id);

    /** \param key OffloadControlPlane::Key of a 4-tuple \return its connection, or NONE */
    uint32_t Find(uint64_t key) const
    {
        auto it = m_lookup.find(key);
        return it != m_lookup.end() ? it->second : NONE;
    }

    /** \param key OffloadControlPlane::Key of a 4-tuple \param id the connection it names */
    void Bind(uint64_t key, uint32_t id)
    {
        m_lookup[key] = id;
    }

    /** \param key OffloadControlPlane::Key of a 4-tuple no longer in use */
    void Unbind(uint64_t key)
    {
        m_lookup.erase(key);
    }

    /** \return the connections in use */
    const std::vector<uint32_t>& Active() const
    {
        return m_active;
    }

    /** \return the connections the timer scan visits (not idle, or handshaking) */
    const std::vector<uint32_t>& Timed() const
    {
        return m_timed;
    }

    /** \param id a connection to put on the timed list (if it is not on it) */
    void AddTimed(uint32_t id)
    {
        OffloadConnectionState& c = m_entries[id];
        if (!c.timed)
        {
            c.timed = true;
            c.timedIndex = static_cast<uint32_t>(m_timed.size());
            m_timed.push_back(id);
        }
    }

    /** \param id a connection to take off the timed list (if it is on it) */
    void RemoveTimed(uint32_t id)
    {
        OffloadConnectionState& c = m_entries[id];
        if (!c.timed)
        {
            return;
        }
        const uint32_t pos = c.timedIndex;
        m_timed[pos] = m_timed.back();
        m_entries[m_timed[pos]].timedIndex = pos;
        m_timed.pop_back();
        c.timed = false;
    }

    /** \brief Drop every entry's state (they hold sockets, which hold the device). */
    void Clear();

  private:
    std::deque<OffloadConnectionState> m_entries;    //!< the table (grows to its size)
    std::vector<uint32_t> m_free;                    //!< free ids
    std::vector<uint32_t> m_active;                  //!< ids in use
    std::vector<uint32_t> m_timed;                   //!< ids the timer scan visits
    std::vector<uint32_t> m_generation;              //!< per id, bumps on free
    std::unordered_map<uint64_t, uint32_t> m_lookup; //!< 4-tuple -> id
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_CONNECTION_TABLE_H
