/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_TIMING_WHEEL_SCHEDULER_H
#define PRESTO_TIMING_WHEEL_SCHEDULER_H

#include "ns3/assert.h"
#include "ns3/scheduler.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief An event queue kept as a timing wheel of slots of 2^kGrain time steps, with a heap
 * for the events beyond the wheel's horizon.
 *
 * The experiments' event queue (Simulator's SchedulerType, bound by ParseCommandLine unless
 * the user names one). Events leave in ns-3's order, time stamp then unique id, the order
 * every Scheduler must give; the id is unique, so the order is total and every result is the
 * same as with MapScheduler or PriorityQueueScheduler.
 *
 * Why: the fast links schedule a packet's arrival when it enters the link's queue, so the
 * event queue holds every packet queued or in flight in the fabric, and almost every event
 * is due within a few hundred microseconds (propagation, transmission and queueing delays,
 * the NICs' latencies). A binary heap (PriorityQueueScheduler) cost about 270 instructions to
 * remove an event; the radix heap this replaces about 180, most of it moving events between
 * its buckets. A wheel puts an event in its slot once, in constant time, and takes the slots
 * in turn (Varghese and Lauck, "Hashed and hierarchical timing wheels", SOSP 1987).
 *
 * The wheel has kSlots slots; slot s holds the events whose time stamp shifted right by
 * kGrain is s modulo kSlots, for the kSlots slots from the current one on. The current slot
 * is kept sorted by time stamp and id (an event of the current slot is almost always later
 * than the others there, an append); a slot is sorted when it becomes current, usually a
 * handful of events. A bitmap of the non-empty slots finds the next one in a few words.
 * Events beyond the horizon (kSlots << kGrain time steps: about 262 us at ns-3's default
 * resolution of 1 ns) wait in a binary heap and move into the wheel once, when it comes
 * within reach; at a finer resolution more events wait there, correct but slower.
 *
 * It relies on what a discrete-event simulator gives: no event is inserted before the slot of
 * the last one removed or peeked (ns-3 gives a new event a time stamp no earlier than now).
 * Should that ever not hold, the queue rebuilds itself around the new event, correct but
 * slow.
 */
class TimingWheelScheduler : public Scheduler
{
  public:
    /**
     * \brief Register this type.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    TimingWheelScheduler();

    // Insert, IsEmpty and RemoveNext are final and their common case inline:
    // LeanSimulatorImpl calls them without the virtual call when this is its queue.

    void Insert(const Event& ev) final
    {
        const uint64_t slot = SlotOf(ev);
        if (slot > m_cur && slot - m_cur < kSlots) // the usual case: a later slot of the wheel
        {
            PutInSlot(ev, slot);
            ++m_size;
            return;
        }
        InsertElsewhere(ev);
    }

    bool IsEmpty() const final
    {
        return m_size == 0;
    }

    Event PeekNext() const override;

    Event RemoveNext() final
    {
        NS_ASSERT(m_size > 0);
        if (m_head == m_current->size())
        {
            Advance();
        }
        --m_size;
        return (*m_current)[m_head++];
    }

    void Remove(const Event& ev) override;

  private:
    /// A slot spans 2^kGrain time steps: events of the reference scenario are a few time
    /// steps (ns) apart, so a slot holds a few events, and the per-slot work (find it, sort
    /// it) is shared among them.
    static constexpr unsigned kGrain = 6;
    /// Slots in the wheel: the horizon, kSlots << kGrain time steps, covers a full switch
    /// buffer's queueing delay at 10 Gbps (300 KB, 240 us) at ns-3's default resolution.
    static constexpr uint64_t kSlots = 4096;
    /// Events every slot has room for from the start; a slot holding more grows.
    static constexpr std::size_t kSlotRoom = 4;
    static constexpr uint64_t kMask = kSlots - 1;      //!< slot number to wheel index
    static constexpr std::size_t kWords = kSlots / 64; //!< bitmap words

    /// \param ev an event \return its slot number (time stamp in slots)
    static uint64_t SlotOf(const Event& ev)
    {
        return ev.key.m_ts >> kGrain;
    }

    /// Insert \p ev in the current slot, beyond the horizon, or before the current slot.
    void InsertElsewhere(const Event& ev);
    /// Put \p ev where it belongs given the current slot (not before it).
    void Place(const Event& ev) const;

    /// Put \p ev in the wheel's slot \p slot, a later one than the current, within reach.
    void PutInSlot(const Event& ev, uint64_t slot) const
    {
        const uint64_t i = slot & kMask;
        m_slots[i].push_back(ev);
        m_used[i / 64] |= uint64_t{1} << (i % 64);
        ++m_inWheel;
    }

    /// Put \p ev, of the current slot, in its place among the current slot's events.
    void PlaceCurrent(const Event& ev) const;
    /// Make the earliest event the current slot's next (the current slot is exhausted).
    void Advance() const;
    /// Re-place every event around slot \p slot, which is before the current one.
    void Rebuild(uint64_t slot);

    // mutable: PeekNext (const) advances the wheel as RemoveNext does; the order of events
    // out of the queue does not depend on when that happens.
    mutable std::vector<std::vector<Event>> m_slots; //!< the wheel, kSlots slots
    mutable std::array<uint64_t, kWords> m_used{};   //!< non-empty slots but the current
    mutable std::vector<Event> m_far;                //!< beyond the horizon: a binary heap
    mutable std::vector<Event>* m_current;           //!< the current slot
    mutable uint64_t m_cur{0};                       //!< the current slot's number
    mutable std::size_t m_head{0};    //!< the current slot's next event (those before it left)
    mutable std::size_t m_inWheel{0}; //!< events in the wheel's other slots
    std::size_t m_size{0};            //!< events queued
};

} // namespace ns3

#endif // PRESTO_TIMING_WHEEL_SCHEDULER_H
