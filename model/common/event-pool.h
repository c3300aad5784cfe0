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
 * Ownership: the simulator holds a reference to a scheduled event (ns-3 releases it after
 * Invoke, or when Simulator::Destroy drops pending events), the pool one to every event it
 * made. An event is reused only when the pool's reference is the last, so it is never queued
 * twice. When the pool goes first, its pending events run nothing.
 *
 * \tparam Owner the class whose member runs the events
 * \tparam Payload what an event carries (moved in, handed to the handler, then reset)
 */
template <typename Owner, typename Payload>
class EventPool
{
  public:
    /// runs an event: a member of the owner, given the event's payload
    using Handler = void (Owner::*)(Payload& payload);

    /**
     * \param owner the object whose handler runs the events (outlives the pool's use)
     * \param handler its member that runs one
     */
    EventPool(Owner* owner, Handler handler)
        : m_owner(owner),
          m_handler(handler)
    {
    }

    ~EventPool()
    {
        for (Event* e : m_all)
        {
            e->m_pool = nullptr; // a pending one may outlive the pool until Simulator::Destroy
            e->Unref();
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
        Event* e;
        if (!m_free.empty() && m_free.back()->GetReferenceCount() == 1)
        {
            e = m_free.back();
            m_free.pop_back();
        }
        else
        {
            e = new Event(this); // none free (or, defensively, the last one still queued)
            m_all.push_back(e);
        }
        fill(e->m_payload);
        e->Ref(); // the simulator's reference, released after Invoke
        FastSimulator::ScheduleWithContext(context, delay, e);
    }

    /** \return events made so far: the most ever pending at once (give or take one) */
    std::size_t GetEventsMade() const
    {
        return m_all.size();
    }

  private:
    /** One event. */
    class Event : public EventImpl
    {
      public:
        /** \param pool where it returns */
        explicit Event(EventPool* pool)
            : m_pool(pool)
        {
        }

        EventPool* m_pool; //!< where it returns (null: the pool is gone)
        Payload m_payload; //!< what the handler gets

      private:
        void Notify() override
        {
            if (!m_pool)
            {
                return;
            }
            (m_pool->m_owner->*m_pool->m_handler)(m_payload);
            m_payload = Payload{}; // release what it holds now, not at its next use
            if (m_pool)
            {
                // back on the list only now: an event scheduled by the handler above takes
                // another one, not this one, which the simulator still holds
                m_pool->m_free.push_back(this);
            }
        }
    };

    Owner* m_owner;             //!< runs the events
    Handler m_handler;          //!< its member that does
    std::vector<Event*> m_free; //!< ran; reused once only the pool holds them
    std::vector<Event*> m_all;  //!< every event made, one reference each
};

} // namespace ns3

#endif // PRESTO_EVENT_POOL_H
