/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNetDevice's timer scan: the data path has no timers of its own; a periodic scan
// of the connections with something in flight finds expired retransmission timeouts (as
// timer packets do in a match-action pipeline) and runs the host control loop.

#include "offload-net-device.h"
#include "offload-socket.h"

#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadNetDeviceTimers");

void
OffloadNetDevice::AddTimed(uint32_t id)
{
    Conn& c = m_slots[id];
    if (!c.timed)
    {
        c.timed = true;
        c.timedIndex = static_cast<uint32_t>(m_timed.size());
        m_timed.push_back(id);
    }
    if (!m_scanPending)
    {
        m_scanEvent = Simulator::Schedule(m_timerScanPeriod, &OffloadNetDevice::TimerScan, this);
        m_scanPending = true;
    }
}

void
OffloadNetDevice::RemoveTimed(uint32_t id)
{
    Conn& c = m_slots[id];
    if (!c.timed)
    {
        return;
    }
    const uint32_t pos = c.timedIndex;
    m_timed[pos] = m_timed.back();
    m_slots[m_timed[pos]].timedIndex = pos;
    m_timed.pop_back();
    c.timed = false;
}

void
OffloadNetDevice::TimerScan()
{
    m_scanPending = false;
    uint64_t now = FastSimulator::NowNs();
    const bool timers = TimersDue(now);
    // Only the connections with something in flight or to send: an idle one has no timer
    // that can expire and nothing for the control loop to judge (TAS's loop would carry its
    // zero counts over), so thousands of idle persistent connections cost nothing here.
    for (size_t i = m_timed.size(); i-- > 0;)
    {
        const uint32_t id = m_timed[i];
        Conn& c = m_slots[id];
        if (c.tcp && c.tcp->UsesControlLoop() && now >= c.nextControlNs)
        {
            // the host control loop (rate-based CC, TAS-style timeouts), every interval
            bool timedOut = c.tcp->OnControlInterval(now);
            c.nextControlNs = now + c.tcp->GetControlIntervalNs();
            ++m_controlLoops;
            ChargeControlLoop(id);
            if (timedOut)
            {
                m_txScheduler.MarkReady(id);
            }
        }
        if (timers && c.tcp)
        {
            const OffloadTimerDecision t = c.tcp->OnTimerScan(now);
            if (t.timeout)
            {
                NS_LOG_LOGIC(this << " connection " << id << ": retransmission timeout");
            }
            OnTimersExamined(id, *c.tcp, t, now);
            if (t.WantsSend())
            {
                m_txScheduler.MarkReady(id);
            }
        }
        if (c.tcp && c.socket && c.socket->IsTraced())
        {
            c.socket->SyncTraces(*c.tcp); // a timeout's window and RTO, once traced
        }
        if (c.tcp && !c.tcp->NeedsTimers() && !m_txScheduler.IsReady(id))
        {
            RemoveTimed(id);
        }
    }
    PumpTx();
    if (!m_timed.empty() && !m_scanPending)
    {
        m_scanEvent = Simulator::Schedule(m_timerScanPeriod, &OffloadNetDevice::TimerScan, this);
        m_scanPending = true;
    }
}

} // namespace ns3
