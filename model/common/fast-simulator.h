/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FAST_SIMULATOR_H
#define PRESTO_FAST_SIMULATOR_H

#include "lean-simulator-impl.h"

#include "ns3/event-impl.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The few Simulator calls of the per-packet path, answered without Simulator's
 * indirection while a LeanSimulatorImpl runs.
 *
 * Simulator::Now() goes through a static accessor of the implementation, a virtual call and
 * a Time built and copied (about 50 instructions); GetNanoSeconds() then looks up the unit
 * table (about 30 more). The module's devices ask for the time three times per packet-hop.
 * While LeanSimulatorImpl::Run() executes, these functions read its clock directly; at any
 * other time, or with any other SimulatorImpl, they call Simulator's and return exactly the
 * same values. Nothing here changes what runs or when.
 */
class FastSimulator
{
  public:
    /** \return Simulator::Now() */
    static Time Now()
    {
        const LeanSimulatorImpl* lean = LeanSimulatorImpl::GetRunning();
        return lean ? TimeStep(static_cast<int64_t>(lean->GetTimeSteps())) : Simulator::Now();
    }

    /** \return Simulator::Now().GetNanoSeconds() */
    static int64_t NowNs()
    {
        const LeanSimulatorImpl* lean = LeanSimulatorImpl::GetRunning();
        return lean ? lean->GetNanoSeconds() : Simulator::Now().GetNanoSeconds();
    }

    /** \return Simulator::Now().GetPicoSeconds() */
    static int64_t NowPs()
    {
        const LeanSimulatorImpl* lean = LeanSimulatorImpl::GetRunning();
        return lean ? lean->GetPicoSeconds() : Simulator::Now().GetPicoSeconds();
    }

    /** \param ns nanoseconds \return NanoSeconds(ns) */
    static Time FromNs(int64_t ns)
    {
        const LeanSimulatorImpl* lean = LeanSimulatorImpl::GetRunning();
        return lean ? lean->FromNanoSeconds(ns) : NanoSeconds(ns);
    }

    /** \param t a time \return t.GetNanoSeconds() */
    static int64_t ToNs(const Time& t)
    {
        const LeanSimulatorImpl* lean = LeanSimulatorImpl::GetRunning();
        return lean ? lean->ToNanoSeconds(t) : t.GetNanoSeconds();
    }

    /** \return Simulator::GetContext() */
    static uint32_t GetContext()
    {
        const LeanSimulatorImpl* lean = LeanSimulatorImpl::GetRunning();
        return lean ? lean->GetCurrentContext() : Simulator::GetContext();
    }

    /**
     * Simulator::ScheduleWithContext(context, delay, event)
     * \param context the event's context
     * \param delay from now
     * \param event the event (the simulator takes the caller's reference)
     */
    static void ScheduleWithContext(uint32_t context, const Time& delay, EventImpl* event)
    {
        if (LeanSimulatorImpl* lean = LeanSimulatorImpl::GetRunning())
        {
            lean->ScheduleWithContext(context, delay, event); // final: a direct call
        }
        else
        {
            Simulator::ScheduleWithContext(context, delay, event);
        }
    }
};

} // namespace ns3

#endif // PRESTO_FAST_SIMULATOR_H
