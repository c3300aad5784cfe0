/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-link-arrivals.h"

#include "fabric-link-net-device.h"

#include "ns3/simulator.h"

namespace ns3
{

FabricLinkArrivals::~FabricLinkArrivals()
{
    for (Arrival* a : m_all)
    {
        a->m_pool = nullptr; // a pending one may outlive the pool until Simulator::Destroy
        a->Unref();
    }
}

void
FabricLinkArrivals::Schedule(uint32_t context,
                             int64_t delaySteps,
                             FabricLinkNetDevice* to,
                             Ptr<Packet> packet,
                             uint16_t protocol)
{
    Arrival* a;
    if (!m_free.empty() && m_free.back()->GetReferenceCount() == 1)
    {
        a = m_free.back();
        m_free.pop_back();
    }
    else
    {
        // none free, or the last one to run is still being invoked: a new one
        a = new Arrival(this);
        m_all.push_back(a);
    }
    a->m_to = to;
    a->m_packet = std::move(packet);
    a->m_protocol = protocol;
    a->Ref(); // the simulator's reference, released after Invoke
    Simulator::ScheduleWithContext(context, TimeStep(delaySteps), a);
}

void
FabricLinkArrivals::Arrival::Notify()
{
    Ptr<Packet> packet = std::move(m_packet);
    if (m_pool)
    {
        m_pool->m_free.push_back(this);
    }
    m_to->FastReceive(std::move(packet), m_protocol);
}

} // namespace ns3
