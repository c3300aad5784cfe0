/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FABRIC_LINK_QUEUE_H
#define PRESTO_FABRIC_LINK_QUEUE_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The output-queued FIFO of a fabric link end, as arithmetic on departure times.
 *
 * Plain C++ (no Simulator call; times are integer time steps chosen by the caller). A frame's
 * transmission starts when the previous one has ended: start = max(now, busyUntil), and
 * busyUntil becomes start + txTime. Its arrival at the far end is known at that point, so the
 * link needs one event per frame (the arrival) and no transmit-complete event.
 *
 * Occupancy is derived from the frames whose transmission has not started yet: like
 * ns-3's PointToPointNetDevice queue, the frame on the wire is not in the queue. Frames leave
 * the accounting lazily, when Expire is called with a time at or after their start.
 */
class FabricLinkQueue
{
  public:
    /**
     * Forget the frames whose transmission started at or before now.
     * \param now current time
     */
    void Expire(int64_t now);

    /**
     * Whether one more frame fits (call Expire(now) first).
     * \param bytes the frame's size, bytes
     * \param maxBytes byte limit of the waiting frames (0: none)
     * \param maxPackets frame limit of the waiting frames (0: none)
     * \return true if the frame may be enqueued
     */
    bool Admits(uint32_t bytes, uint64_t maxBytes, uint64_t maxPackets) const;

    /**
     * Enqueue a frame (call Expire(now) first).
     * \param now current time
     * \param bytes the frame's size, bytes
     * \param txTime its transmission time
     * \return the time its transmission starts (now when the link is idle)
     */
    int64_t Enqueue(int64_t now, uint32_t bytes, int64_t txTime);

    /**
     * Drop the waiting frames; the frame on the wire, if any, still ends at its time.
     * \param now current time
     * \return the number of frames dropped
     */
    uint32_t Flush(int64_t now);

    /** \return bytes of the frames waiting (not on the wire) */
    uint64_t GetBytes() const
    {
        return m_bytes;
    }

    /** \return number of frames waiting (not on the wire) */
    uint32_t GetPackets() const
    {
        return m_count;
    }

    /** \return when the last enqueued frame's transmission ends */
    int64_t GetBusyUntil() const
    {
        return m_busyUntil;
    }

    /** \return start of the first waiting frame's transmission, or -1 when none waits */
    int64_t GetNextStart() const
    {
        return m_count == 0 ? -1 : m_ring[m_head].start;
    }

  private:
    /** A frame waiting for the wire. */
    struct Waiting
    {
        int64_t start;  //!< when its transmission starts
        uint32_t bytes; //!< its size
    };

    /// Make room for one more waiting frame (the ring is full): double it, in order.
    void Grow();

    // A ring of waiting frames instead of a std::deque: the queue is read at every forward
    // and a deque's pop_front and push_back check node boundaries each time.
    std::vector<Waiting> m_ring; //!< the waiting frames, in start order from m_head
    uint32_t m_head{0};          //!< the first waiting frame's index in m_ring
    uint32_t m_count{0};         //!< waiting frames
    uint64_t m_bytes{0};         //!< sum of the waiting frames' bytes
    int64_t m_busyUntil{0};      //!< end of the last enqueued frame's transmission
};

// Inline: these run once or twice per packet-hop.

inline void
FabricLinkQueue::Expire(int64_t now)
{
    while (m_count > 0 && m_ring[m_head].start <= now)
    {
        m_bytes -= m_ring[m_head].bytes;
        m_head = (m_head + 1) & static_cast<uint32_t>(m_ring.size() - 1); // a power of 2
        --m_count;
    }
}

inline bool
FabricLinkQueue::Admits(uint32_t bytes, uint64_t maxBytes, uint64_t maxPackets) const
{
    if (maxBytes > 0 && m_bytes + bytes > maxBytes)
    {
        return false;
    }
    return maxPackets == 0 || uint64_t{m_count} + 1 <= maxPackets;
}

inline int64_t
FabricLinkQueue::Enqueue(int64_t now, uint32_t bytes, int64_t txTime)
{
    const int64_t start = std::max(now, m_busyUntil);
    m_busyUntil = start + txTime;
    if (start > now)
    {
        if (m_count == m_ring.size())
        {
            Grow();
        }
        m_ring[(m_head + m_count) & static_cast<uint32_t>(m_ring.size() - 1)] = {start, bytes};
        ++m_count;
        m_bytes += bytes;
    }
    return start;
}

} // namespace ns3

#endif // PRESTO_FABRIC_LINK_QUEUE_H
