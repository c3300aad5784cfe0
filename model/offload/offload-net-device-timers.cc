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

#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadNetDeviceTimers");

void
OffloadNetDevice::AddTimed(uint32_t id)
{
    m_connections.AddTimed(id);
    if (!m_scanPending)
    {
        m_scanEvent = Simulator::Schedule(m_timerScanPeriod, &OffloadNetDevice::TimerScan, this);
        m_scanPending = true;
    }
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
    const std::vector<uint32_t>& timed = m_connections.Timed();
    for (size_t i = timed.size(); i-- > 0;)
    {
        const uint32_t id = timed[i];
        OffloadConnectionState& c = m_connections[id];
        if (c.tcp && c.tcp->UsesControlLoop() && now >= c.nextControlNs)
        {
            // the host control loop (rate-based CC, TAS-style timeouts), every interval
            bool timedOut = c.tcp->OnControlInterval(now);
            c.nextControlNs = now + c.tcp->GetControlIntervalNs();
            ++m_counters.controlLoops;
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
            m_connections.RemoveTimed(id);
        }
    }
    PumpTx();
    if (!timed.empty() && !m_scanPending)
    {
        m_scanEvent = Simulator::Schedule(m_timerScanPeriod, &OffloadNetDevice::TimerScan, this);
        m_scanPending = true;
    }
}

} // namespace ns3
