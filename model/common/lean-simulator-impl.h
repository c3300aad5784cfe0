/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_LEAN_SIMULATOR_IMPL_H
#define PRESTO_LEAN_SIMULATOR_IMPL_H

#include "ns3/event-id.h"
#include "ns3/ptr.h"
#include "ns3/scheduler.h"
#include "ns3/simulator-impl.h"
#include "ns3/simulator.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <utility>

namespace ns3
{

class TimingWheelScheduler;

/**
 * \ingroup presto
 * \brief ns-3's sequential simulator (DefaultSimulatorImpl's contract) with less work per
 * event.
 *
 * The experiments' simulator implementation (ns-3's global value SimulatorImplementationType,
 * bound by ParseCommandLine unless the user names one). It runs events in the order
 * DefaultSimulatorImpl runs them: the scheduler's order (time stamp, then id), ids given in
 * the same sequence (Schedule, ScheduleNow, ScheduleWithContext and ScheduleDestroy each take
 * one), the same current time, context and id while an event runs, the same answers to
 * IsExpired, GetDelayLeft, Remove and Cancel, events scheduled from other threads queued
 * and inserted after the event that runs, destroy events run in order by Destroy. The same
 * seed gives the same results with either (test/compare-determinism.sh).
 *
 * What it leaves out, per event, is work DefaultSimulatorImpl does that changes nothing here
 * (about 170 of its 400 instructions per event in Debian's ns-3.37): an EventId built and
 * released for PreEventHook (a hook for subclasses; this class is final and has none),
 * logging calls, the lock-free check for events from other threads made as a function call,
 * and Time arithmetic where the time step is at hand.
 */
class LeanSimulatorImpl final : public SimulatorImpl
{
  public:
    /**
     * \brief Register this type.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    LeanSimulatorImpl();

    /// What SimulatorImpl::Stop(const Time&) returns in this ns-3 (void up to 3.40, EventId
    /// after).
    using StopResult = decltype(std::declval<SimulatorImpl&>().Stop(std::declval<const Time&>()));

    void Destroy() override;
    bool IsFinished() const override;
    void Stop() override;
    StopResult Stop(const Time& delay) override;
    EventId Schedule(const Time& delay, EventImpl* event) override;
    void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event) override;
    EventId ScheduleNow(EventImpl* event) override;
    EventId ScheduleDestroy(EventImpl* event) override;
    void Remove(const EventId& id) override;
    void Cancel(const EventId& id) override;
    bool IsExpired(const EventId& id) const override;
    void Run() override;
    Time Now() const override;
    Time GetDelayLeft(const EventId& id) const override;
    Time GetMaximumSimulationTime() const override;
    void SetScheduler(ObjectFactory schedulerFactory) override;
    uint32_t GetSystemId() const override;
    uint32_t GetContext() const override;
    uint64_t GetEventCount() const override;

    /**
     * \return the LeanSimulatorImpl whose Run() is executing, or null (before and after the
     * run, and whenever another SimulatorImpl is in use). FastSimulator reads it.
     */
    static LeanSimulatorImpl* GetRunning()
    {
        return s_running;
    }

    /**
     * \brief Call \p hook between two events, once every 65536 events, while any instance
     * runs (progress reports). The hook must not schedule, cancel or change anything of the
     * simulation: it is not an event, so it leaves the run, its event ids and its event count
     * exactly as they are without it.
     * \param hook the callback; an empty function removes it
     */
    static void SetBetweenEventsHook(std::function<void()> hook)
    {
        s_hook = std::move(hook);
    }

    /** \return now, in time steps: Now() without a virtual call and a Time built */
    uint64_t GetTimeSteps() const
    {
        return m_currentTs;
    }

    /** \return Now().GetNanoSeconds() without the Time and its unit table */
    int64_t GetNanoSeconds() const
    {
        return m_ns.ToUnit(static_cast<int64_t>(m_currentTs));
    }

    /** \return Now().GetPicoSeconds() without the Time and its unit table */
    int64_t GetPicoSeconds() const
    {
        return m_ps.ToUnit(static_cast<int64_t>(m_currentTs));
    }

    /** \param t a time \return t.GetNanoSeconds(), from the scale cached at Run() */
    int64_t ToNanoSeconds(const Time& t) const
    {
        return m_ns.ToUnit(t.GetTimeStep());
    }

    /** \param ns nanoseconds \return NanoSeconds(ns), from the scale cached at Run() */
    Time FromNanoSeconds(int64_t ns) const
    {
        return TimeStep(m_ns.FromUnit(ns));
    }

    /** \return the context of the event that runs: GetContext() without a virtual call */
    uint32_t GetCurrentContext() const
    {
        return m_currentContext;
    }

  private:
    void DoDispose() override;

    /**
     * Time::ToInteger and Time::FromInteger for one unit at the resolution of the run: the
     * same integer arithmetic, with the factor looked up once per Run() instead of per call.
     */
    struct UnitScale
    {
        uint64_t factor{1};    //!< time steps per unit, or units per time step
        bool unitFiner{false}; //!< the unit is finer than a time step (multiply to convert)

        /** \param unit the unit \return its scale at the current resolution */
        static UnitScale Of(Time::Unit unit);

        /** \param v time steps \return as Time::ToInteger */
        int64_t ToUnit(int64_t v) const
        {
            return unitFiner ? v * static_cast<int64_t>(factor) : v / static_cast<int64_t>(factor);
        }

        /** \param value in the unit \return time steps, as Time::FromInteger */
        int64_t FromUnit(int64_t value) const
        {
            const auto v = static_cast<uint64_t>(value); // Time::FromInteger's type
            return static_cast<int64_t>(unitFiner ? v / factor : v * factor);
        }
    };

    /// Insert an event at now + \p delay with the next id.
    /// \param context the event's context
    /// \param delay time from now
    /// \param event the event (the queue takes the caller's reference)
    /// \return the queued event
    Scheduler::Event Enqueue(uint32_t context, const Time& delay, EventImpl* event);
    /// ScheduleWithContext from a thread other than the simulation's: the event waits for
    /// InsertForeignEvents. Out of line, so that the usual path does not pay for the lock.
    /// \param context the event's context
    /// \param delay time from when it is inserted
    /// \param event the event
    [[gnu::noinline]] void ScheduleFromAnotherThread(uint32_t context,
                                                     const Time& delay,
                                                     EventImpl* event);
    /// Insert the events other threads scheduled, as of now.
    void InsertForeignEvents();

    /// An event scheduled from another thread, waiting to be inserted.
    struct ForeignEvent
    {
        EventImpl* event; //!< the event
        uint64_t delay;   //!< time steps from the moment it is inserted
        uint32_t context; //!< its context
    };

    Ptr<Scheduler> m_events;                //!< the event queue
    TimingWheelScheduler* m_wheel{nullptr}; //!< m_events, when it is the module's own
    std::list<EventId> m_destroyEvents;     //!< run by Destroy, in order
    bool m_stop{false};                     //!< Stop was called: Run returns
    uint32_t m_uid;                         //!< the id of the next event
    uint32_t m_currentUid;                  //!< the id of the event that runs (or ran last)
    uint64_t m_currentTs{0};                //!< now, in time steps
    uint32_t m_currentContext;              //!< the context of the event that runs
    uint64_t m_eventCount{0};               //!< events run
    int64_t m_unscheduledEvents{0};         //!< events queued and not yet run
    std::thread::id m_mainThreadId;         //!< the thread that runs the simulation

    std::mutex m_foreignMutex;                 //!< guards m_foreign
    std::deque<ForeignEvent> m_foreign;        //!< events from other threads
    std::atomic<bool> m_foreignPending{false}; //!< m_foreign may be non-empty
    UnitScale m_ns;                            //!< nanoseconds, set by Run()
    UnitScale m_ps;                            //!< picoseconds, set by Run()

    /// the instance whose Run() is executing (one simulator runs at a time in ns-3)
    static inline LeanSimulatorImpl* s_running{nullptr};
    /// SetBetweenEventsHook's callback (empty: none)
    static inline std::function<void()> s_hook;
};

} // namespace ns3

#endif // PRESTO_LEAN_SIMULATOR_IMPL_H
