/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "lean-simulator-impl.h"

#include "ns3/assert.h"
#include "ns3/event-impl.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/timing-wheel-scheduler.h"

#include <type_traits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LeanSimulatorImpl");
NS_OBJECT_ENSURE_REGISTERED(LeanSimulatorImpl);

namespace
{
// EventId's reserved ids (EventId::UID from ns-3.36 on; the same numbers before)
constexpr uint32_t kInvalidUid = 0; //!< no event has run
constexpr uint32_t kDestroyUid = 2; //!< an event of ScheduleDestroy
constexpr uint32_t kFirstUid = 4;   //!< the first id of a scheduled event

/// What Stop(delay) returns: nothing before ns-3.41, the stop event's id after.
/// \tparam R SimulatorImpl::Stop(const Time&)'s return type
/// \param id the stop event
/// \return \p id, or nothing
template <typename R>
R
StopReturn(const EventId& id)
{
    if constexpr (!std::is_void_v<R>)
    {
        return id;
    }
}
} // namespace

TypeId
LeanSimulatorImpl::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LeanSimulatorImpl")
                            .SetParent<SimulatorImpl>()
                            .SetGroupName("Presto")
                            .AddConstructor<LeanSimulatorImpl>();
    return tid;
}

LeanSimulatorImpl::LeanSimulatorImpl()
    : m_uid(kFirstUid),
      m_currentUid(kInvalidUid),
      m_currentContext(Simulator::NO_CONTEXT),
      m_mainThreadId(std::this_thread::get_id())
{
    NS_LOG_FUNCTION(this);
}

void
LeanSimulatorImpl::DoDispose()
{
    NS_LOG_FUNCTION(this);
    InsertForeignEvents();
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            m_events->RemoveNext().impl->Unref();
        }
    }
    m_events = nullptr;
    m_wheel = nullptr;
    SimulatorImpl::DoDispose();
}

void
LeanSimulatorImpl::Destroy()
{
    NS_LOG_FUNCTION(this);
    while (!m_destroyEvents.empty())
    {
        Ptr<EventImpl> ev = m_destroyEvents.front().PeekEventImpl();
        m_destroyEvents.pop_front();
        if (!ev->IsCancelled())
        {
            ev->Invoke();
        }
    }
}

void
LeanSimulatorImpl::SetScheduler(ObjectFactory schedulerFactory)
{
    NS_LOG_FUNCTION(this << schedulerFactory);
    Ptr<Scheduler> scheduler = schedulerFactory.Create<Scheduler>();
    if (m_events)
    {
        while (!m_events->IsEmpty())
        {
            scheduler->Insert(m_events->RemoveNext());
        }
    }
    m_events = scheduler;
    // the module's queue is called without a virtual call (its hot methods are final and inline)
    m_wheel = dynamic_cast<TimingWheelScheduler*>(PeekPointer(scheduler));
}

uint32_t
LeanSimulatorImpl::GetSystemId() const
{
    return 0; // not distributed
}

bool
LeanSimulatorImpl::IsFinished() const
{
    return m_events->IsEmpty() || m_stop;
}

void
LeanSimulatorImpl::InsertForeignEvents()
{
    if (!m_foreignPending.load(std::memory_order_acquire))
    {
        return;
    }
    std::deque<ForeignEvent> foreign;
    {
        std::lock_guard<std::mutex> lock(m_foreignMutex);
        foreign.swap(m_foreign);
        m_foreignPending.store(false, std::memory_order_release);
    }
    for (const ForeignEvent& f : foreign)
    {
        Scheduler::Event ev;
        ev.impl = f.event;
        ev.key.m_ts = m_currentTs + f.delay;
        ev.key.m_context = f.context;
        ev.key.m_uid = m_uid++;
        ++m_unscheduledEvents;
        m_events->Insert(ev);
    }
}

void
LeanSimulatorImpl::Run()
{
    NS_LOG_FUNCTION(this);
    m_mainThreadId = std::this_thread::get_id();
    InsertForeignEvents();
    m_stop = false;
    m_ns = UnitScale::Of(Time::NS); // the resolution is fixed once time runs
    m_ps = UnitScale::Of(Time::PS);

    // FastSimulator's clock and scheduling go straight to this instance while it runs
    struct Running
    {
        explicit Running(LeanSimulatorImpl* self)
            : previous(s_running)
        {
            s_running = self;
        }

        ~Running()
        {
            s_running = previous;
        }

        LeanSimulatorImpl* previous;
    } running(this);

    // m_events each time round: an event may call SetScheduler. PeekPointer: Ptr's
    // operator-> asserts non-null and is not inlined in an assert-enabled build.
    while (!m_stop && !(m_wheel ? m_wheel->IsEmpty() : PeekPointer(m_events)->IsEmpty()))
    {
        const Scheduler::Event next =
            m_wheel ? m_wheel->RemoveNext() : PeekPointer(m_events)->RemoveNext();
        NS_ASSERT(next.key.m_ts >= m_currentTs);
        --m_unscheduledEvents;
        ++m_eventCount;
        m_currentTs = next.key.m_ts;
        m_currentContext = next.key.m_context;
        m_currentUid = next.key.m_uid;
        next.impl->Invoke();
        next.impl->Unref();
        InsertForeignEvents();
        if ((m_eventCount & 0xffff) == 0 && s_hook)
        {
            s_hook();
        }
    }
    // stopped for lack of events: none may have been lost
    NS_ASSERT(!m_events->IsEmpty() || m_unscheduledEvents == 0);
}

void
LeanSimulatorImpl::Stop()
{
    NS_LOG_FUNCTION(this);
    m_stop = true;
}

LeanSimulatorImpl::StopResult
LeanSimulatorImpl::Stop(const Time& delay)
{
    NS_LOG_FUNCTION(this << delay);
    // through Simulator::Schedule, as DefaultSimulatorImpl: the same event, the same id
    return StopReturn<StopResult>(Simulator::Schedule(delay, &Simulator::Stop));
}

Scheduler::Event
LeanSimulatorImpl::Enqueue(uint32_t context, const Time& delay, EventImpl* event)
{
    NS_ASSERT_MSG(delay.GetTimeStep() >= 0, "LeanSimulatorImpl: negative delay " << delay);
    Scheduler::Event ev;
    ev.impl = event;
    ev.key.m_ts = m_currentTs + static_cast<uint64_t>(delay.GetTimeStep());
    ev.key.m_context = context;
    ev.key.m_uid = m_uid++;
    ++m_unscheduledEvents;
    if (m_wheel)
    {
        m_wheel->Insert(ev);
    }
    else
    {
        PeekPointer(m_events)->Insert(ev);
    }
    return ev;
}

EventId
LeanSimulatorImpl::Schedule(const Time& delay, EventImpl* event)
{
    NS_ASSERT_MSG(m_mainThreadId == std::this_thread::get_id(),
                  "Simulator::Schedule Thread-unsafe invocation!");
    const Scheduler::Event ev = Enqueue(m_currentContext, delay, event);
    return EventId(event, ev.key.m_ts, ev.key.m_context, ev.key.m_uid);
}

void
LeanSimulatorImpl::ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
{
    if (m_mainThreadId == std::this_thread::get_id())
    {
        Enqueue(context, delay, event);
        return;
    }
    ScheduleFromAnotherThread(context, delay, event);
}

void
LeanSimulatorImpl::ScheduleFromAnotherThread(uint32_t context, const Time& delay, EventImpl* event)
{
    // the event is inserted, and its time fixed, after the running event
    std::lock_guard<std::mutex> lock(m_foreignMutex);
    m_foreign.push_back({event, static_cast<uint64_t>(delay.GetTimeStep()), context});
    m_foreignPending.store(true, std::memory_order_release);
}

EventId
LeanSimulatorImpl::ScheduleNow(EventImpl* event)
{
    return Schedule(Time(0), event);
}

EventId
LeanSimulatorImpl::ScheduleDestroy(EventImpl* event)
{
    NS_ASSERT_MSG(m_mainThreadId == std::this_thread::get_id(),
                  "Simulator::ScheduleDestroy Thread-unsafe invocation!");
    EventId id(Ptr<EventImpl>(event, false), m_currentTs, 0xffffffff, kDestroyUid);
    m_destroyEvents.push_back(id);
    ++m_uid; // as DefaultSimulatorImpl: the ids of later events stay the same
    return id;
}

LeanSimulatorImpl::UnitScale
LeanSimulatorImpl::UnitScale::Of(Time::Unit unit)
{
    // Time's own table: a unit at least one time step long converts by steps per unit,
    // a finer one by units per step
    UnitScale s;
    const int64_t stepsPerUnit = Time::FromInteger(1, unit).GetTimeStep();
    if (stepsPerUnit >= 1)
    {
        s.factor = static_cast<uint64_t>(stepsPerUnit);
        s.unitFiner = false;
    }
    else
    {
        s.factor = static_cast<uint64_t>(TimeStep(1).ToInteger(unit));
        s.unitFiner = true;
    }
    return s;
}

Time
LeanSimulatorImpl::Now() const
{
    return TimeStep(m_currentTs);
}

Time
LeanSimulatorImpl::GetDelayLeft(const EventId& id) const
{
    return IsExpired(id) ? TimeStep(0) : TimeStep(id.GetTs() - m_currentTs);
}

void
LeanSimulatorImpl::Remove(const EventId& id)
{
    if (id.GetUid() == kDestroyUid)
    {
        for (auto i = m_destroyEvents.begin(); i != m_destroyEvents.end(); ++i)
        {
            if (*i == id)
            {
                m_destroyEvents.erase(i);
                break;
            }
        }
        return;
    }
    if (IsExpired(id))
    {
        return;
    }
    Scheduler::Event event;
    event.impl = id.PeekEventImpl();
    event.key.m_ts = id.GetTs();
    event.key.m_context = id.GetContext();
    event.key.m_uid = id.GetUid();
    m_events->Remove(event);
    event.impl->Cancel();
    event.impl->Unref(); // the queue's reference
    --m_unscheduledEvents;
}

void
LeanSimulatorImpl::Cancel(const EventId& id)
{
    if (!IsExpired(id))
    {
        id.PeekEventImpl()->Cancel();
    }
}

bool
LeanSimulatorImpl::IsExpired(const EventId& id) const
{
    if (id.GetUid() == kDestroyUid)
    {
        if (id.PeekEventImpl() == nullptr || id.PeekEventImpl()->IsCancelled())
        {
            return true;
        }
        for (const EventId& e : m_destroyEvents)
        {
            if (e == id)
            {
                return false;
            }
        }
        return true;
    }
    return id.PeekEventImpl() == nullptr || id.GetTs() < m_currentTs ||
           (id.GetTs() == m_currentTs && id.GetUid() <= m_currentUid) ||
           id.PeekEventImpl()->IsCancelled();
}

Time
LeanSimulatorImpl::GetMaximumSimulationTime() const
{
    return TimeStep(0x7fffffffffffffffLL);
}

uint32_t
LeanSimulatorImpl::GetContext() const
{
    return m_currentContext;
}

uint64_t
LeanSimulatorImpl::GetEventCount() const
{
    return m_eventCount;
}

} // namespace ns3
