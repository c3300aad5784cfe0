/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RADIX_HEAP_SCHEDULER_H
#define PRESTO_RADIX_HEAP_SCHEDULER_H

#include "ns3/scheduler.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief An event queue kept as a radix heap: buckets by the highest bit in which an event's
 * key differs from the last event removed.
 *
 * The experiments' event queue (Simulator's SchedulerType, bound by ParseCommandLine unless
 * the user names one). Events leave in ns-3's order, time stamp then unique id, the order
 * every Scheduler must give; the id is unique, so the order is total and every result is the
 * same as with MapScheduler or PriorityQueueScheduler.
 *
 * Why: the fast links schedule a packet's arrival when it enters the link's queue, so the
 * event queue holds every packet queued or in flight in the fabric, thousands of events in
 * the reference scenario. A binary heap (PriorityQueueScheduler) then cost about 270
 * instructions to remove an event, a 4-ary heap about 250. A radix heap (Ahuja, Mehlhorn,
 * Orlin and Tarjan, 1990) inserts in constant time and moves an event between buckets only
 * a few times before it leaves, whatever the queue's length. It needs what a discrete-event
 * simulator gives: no event is inserted before the last one removed (ns-3 gives a new event a
 * time stamp no earlier than now and a larger id). Should that ever not hold (a simulator
 * implementation that inserts behind the clock), the queue re-sorts its buckets around the
 * new event, correct but slow.
 *
 * The buckets sort by time stamp in slots of 2^kGrain time steps: bucket 0 holds the events
 * of the reference slot (that of the last time stamp settled), sorted by time stamp and id;
 * bucket b > 0 the events whose time stamp's highest bit that differs from the reference is
 * bit b - 1 + kGrain. Removing takes bucket 0's next event, or else finds the first non-empty
 * bucket, makes its earliest time stamp the reference and spreads the bucket's events over
 * the lower buckets.
 */
class RadixHeapScheduler : public Scheduler
{
  public:
    /**
     * \brief Register this type.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    RadixHeapScheduler();

    void Insert(const Event& ev) override;
    bool IsEmpty() const override;
    Event PeekNext() const override;
    Event RemoveNext() override;
    void Remove(const Event& ev) override;

  private:
    /// Time stamps that differ only in their low kGrain bits share bucket 0, kept sorted:
    /// the radix levels below it moved every event four or five times between buckets,
    /// and events of the reference scenario are a few time steps (ns) apart.
    static constexpr unsigned kGrain = 6;
    /// Buckets: 0 for the reference slot, then one per bit of the time stamp above kGrain.
    static constexpr std::size_t kBuckets = 65 - kGrain;

    /**
     * \param ts an event's time stamp, not less than the reference
     * \return the bucket of \p ts against the reference time stamp's slot
     */
    std::size_t BucketOf(uint64_t ts) const
    {
        const uint64_t diff = (ts ^ m_reference) >> kGrain;
        return diff == 0 ? 0 : 64 - static_cast<std::size_t>(__builtin_clzll(diff));
    }

    /// Put \p ev into its bucket against the reference slot.
    /// \param ev the event
    void Place(const Event& ev) const
    {
        const std::size_t b = BucketOf(ev.key.m_ts);
        if (b == 0)
        {
            PlaceNow(ev);
            return;
        }
        m_buckets[b].push_back(ev);
        m_used |= uint64_t{1} << (b - 1);
    }

    /// Put \p ev (in the reference slot) into bucket 0, in ns-3's order.
    /// \param ev the event
    void PlaceNow(const Event& ev) const;
    /// Make the earliest time stamp the reference, its events the ones in bucket 0 (the
    /// queue is not empty).
    void Settle() const;
    /// Re-bucket every event against a new, earlier reference time stamp (the slow path).
    /// \param ts the new reference
    void Rebase(uint64_t ts);

    // mutable: PeekNext (const) settles the buckets as RemoveNext does; the order of events
    // out of the queue does not depend on when that happens.
    mutable std::array<std::vector<Event>, kBuckets> m_buckets; //!< the events, by bucket
    mutable std::size_t m_head{0};   //!< bucket 0's next event (those before it left)
    mutable uint64_t m_used{0};      //!< bit b - 1: bucket b > 0 is not empty
    mutable uint64_t m_reference{0}; //!< the reference time stamp
    std::size_t m_size{0};           //!< events queued
};

} // namespace ns3

#endif // PRESTO_RADIX_HEAP_SCHEDULER_H
