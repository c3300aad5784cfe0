/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_EVENT_POOL_H
#define PRESTO_EVENT_POOL_H

#include "fast-simulator.h"

#include "ns3/assert.h"
#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Events of one kind, reused instead of allocated per event.
 *
 * Simulator::Schedule with MakeEvent allocates an event, and an EventId, per call and frees
 * them after the event ran: about 250 instructions, paid on every packet-hop by the fast links
 * and several times per segment by the offload NICs. Here an event is taken from a free list,
 * runs owner->*handler(payload), and goes back. It is scheduled at the same moment, for the
 * same time and context, as MakeEvent's would be, so the simulator's order (time stamp, then
 * the order of scheduling) and every result stay the same. There is no EventId: these events
 * are never cancelled (an owner that must ignore one checks its own state when it runs).
 *
 * The free list is shared by every pool of the same type, last in, first out.
 * A packet-hop frees its arrival event and, a few calls later, the next link takes that same
 * event, still in the cache. With a free list per pool, each link reused its own events, cold
 * again by the time the link sent next: in a 1,024-host fat-tree (callgrind, 2 MB simulated
 * last level) the shared list took the misses per packet-hop from 23.7 to 17.0.
 *
 * Ownership: a queued event belongs to the simulator (ns-3 releases it after Invoke, or when
 * Simulator::Destroy drops it unrun, which deletes it), a free one to the free list, which
 * takes its reference when it ran and hands it to the simulator when it is reused. An event is
 * reused only once the simulator let go of it, so it is never queued twice. When a pool goes
 * before its queued events ran, they run nothing.
 *
 * The handler is a template argument, not a member: a direct call instead of one through a
 * member pointer, and 16 bytes less in the owner's object, where the pool sits among the
 * members a packet-hop reads (FabricLinkNetDevice).
 *
 * \tparam Owner the class whose member runs the events
 * \tparam Payload what an event carries (moved in, handed to the handler, then reset)
 * \tparam Handler the owner's member that runs one, given the event's payload
 */
template <typename Owner, typename Payload, void (Owner::*Handler)(Payload& payload)>
class EventPool
{
  public:
    /**
     * \param owner the object whose handler runs the events (outlives the pool's use)
     */
    explicit EventPool(Owner* owner)
        : m_owner(owner)
    {
    }

    ~EventPool()
    {
        if (m_pending == 0)
        {
            return;
        }
        // rare (a pool destroyed with events still queued, as after Simulator::Stop): those
        // events stay in the simulator until it drops them, and must not reach this pool
        for (Event* e : Shared().all)
        {
            if (e->m_pool == this)
            {
                e->m_pool = nullptr;
            }
        }
    }

    EventPool(const EventPool&) = delete;
    EventPool& operator=(const EventPool&) = delete;

    /**
     * Schedule an event, as Simulator::ScheduleWithContext would.
     * \param context the event's context (a node id; Simulator::GetContext() for "here")
     * \param delay from now
     * \param payload what the handler gets
     */
    void Schedule(uint32_t context, const Time& delay, Payload&& payload)
    {
        ScheduleWith(context, delay, [&payload](Payload& slot) { slot = std::move(payload); });
    }

    /**
     * Schedule an event whose payload fill writes in place (no temporary payload: ns-3's Ptr
     * has no move, so each copy of one costs a reference count up and down).
     * \param context the event's context
     * \param delay from now
     * \param fill called with the event's payload, which it sets
     */
    template <typename Fill>
    void ScheduleWith(uint32_t context, const Time& delay, Fill&& fill)
    {
        // Simulator::Schedule asserts this; ScheduleWithContext does not
        NS_ASSERT_MSG(!delay.IsStrictlyNegative(), "EventPool: an event in the past");
        Lists& lists = Shared();
        Event* e; // with one reference, which the simulator takes and releases after Invoke
        if (!lists.free.empty() && lists.free.back()->GetReferenceCount() == 1)
        {
            e = lists.free.back();
            lists.free.pop_back();
        }
        else
        {
            e = new Event(); // none free (or, defensively, the last one still queued)
        }
        e->m_pool = this;
        fill(e->m_payload);
        if (++m_pending > m_mostPending)
        {
            m_mostPending = m_pending;
        }
        FastSimulator::ScheduleWithContext(context, delay, e);
    }

    /** \return the most events of this pool ever pending at once */
    std::size_t GetMostPending() const
    {
        return m_mostPending;
    }

    /** \return events of this pool type that exist, queued or free, all pools together */
    static std::size_t GetEventsMade()
    {
        return Shared().all.size();
    }

  private:
    /** One event. */
    class Event : public EventImpl
    {
      public:
        Event()
            : m_index(Shared().all.size())
        {
            Shared().all.push_back(this);
        }

        /// dropped unrun by Simulator::Destroy: out of the list of those that exist
        ~Event() override
        {
            std::vector<Event*>& all = Shared().all;
            all[m_index] = all.back();
            all[m_index]->m_index = m_index;
            all.pop_back();
        }

        Event(const Event&) = delete;
        Event& operator=(const Event&) = delete;

        EventPool* m_pool{nullptr}; //!< whose it is while queued (null: that pool is gone)
        Payload m_payload;          //!< what the handler gets

      private:
        void Notify() override
        {
            EventPool* pool = m_pool;
            if (pool)
            {
                --pool->m_pending;
                (pool->m_owner->*Handler)(m_payload);
            }
            m_payload = Payload{}; // release what it holds now, not at its next use
            // back on the list only now: an event scheduled by the handler above takes
            // another one, not this one, which the simulator still holds
            Ref(); // the list's reference, kept when the simulator releases its own
            Shared().free.push_back(this);
        }

        std::size_t m_index; //!< where it is in Shared().all
    };

    /** The events of every pool of this type. */
    struct Lists
    {
        std::vector<Event*> free; //!< ran; one reference each, reused once it is the only one
        std::vector<Event*> all;  //!< every event that exists (queued or free), no reference
    };

    /// The lists, made when the library loads and never destroyed: a pool or a queued event
    /// may outlive any static destructor (what a static points to is not a leak to the
    /// sanitizers). A pointer set before main, not a function's static, which would be a
    /// guarded check at every use.
    static inline Lists* const s_lists = new Lists();

    /** \return the lists */
    static Lists& Shared()
    {
        return *s_lists;
    }

    Owner* m_owner;               //!< runs the events
    std::size_t m_pending{0};     //!< events queued and not run
    std::size_t m_mostPending{0}; //!< the most ever queued at once
};

} // namespace ns3

#endif // PRESTO_EVENT_POOL_H
