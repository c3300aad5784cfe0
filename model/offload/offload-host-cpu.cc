/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNetDevice's host side on the host's cores: with a timed HostCpu on the node, the
// work the host does for an offloaded connection (the application's notifications and
// copies, posting its writes and its close, the control plane and the control loop) is
// served on a host core for its cycles, and what depends on it waits (HostCpu).

#include "offload-net-device.h"

#include "ns3/log.h"
#include "ns3/node.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadHostCpu");

HostCpu*
OffloadNetDevice::TimedHostCpu()
{
    if (!m_hostCpuResolved)
    {
        m_hostCpuResolved = true;
        Ptr<HostCpu> cpu = GetNode() ? GetNode()->GetObject<HostCpu>() : nullptr;
        if (cpu && cpu->IsTimed())
        {
            m_hostCpu = cpu;
            m_hostCosts = cpu->GetCosts();
        }
    }
    return PeekPointer(m_hostCpu);
}

Time
OffloadNetDevice::ControlPlaneDelay(uint32_t id)
{
    if (HostCpu* cpu = TimedHostCpu())
    {
        return cpu->Reserve(HostCpu::WORK_CONTROL, id, m_hostCosts.controlPlaneEvent) -
               FastSimulator::Now();
    }
    return Seconds(m_controlCycles / m_hostClockHz);
}

void
OffloadNetDevice::MakeReadable(uint32_t id, uint32_t bytes, bool peerClosed, uint32_t generation)
{
    HostCpu* cpu = TimedHostCpu();
    if (!cpu || m_connections.Generation(id) != generation)
    {
        DeliverReadable(id, bytes, peerClosed, generation);
        return;
    }
    // the application takes the notification from its context queue and copies the bytes
    // out of the receive buffer on the connection's core
    const double cycles = m_hostCosts.appNotification + bytes * m_hostCosts.byteCopied;
    OffloadDeviceEvent e;
    e.kind = OffloadDeviceEventKind::HOST_READABLE;
    e.id = id;
    e.generation = generation;
    e.bytes = bytes;
    e.flag = peerClosed;
    ScheduleDeviceEvent(cpu->Reserve(HostCpu::WORK_NIC_HOST, id, cycles) - FastSimulator::Now(),
                        std::move(e));
}

void
OffloadNetDevice::QueueHostWrite(uint32_t id, uint32_t n)
{
    HostCpu* cpu = TimedHostCpu();
    OffloadConnectionState& c = m_connections[id];
    c.txPosting += n;
    // The library copies the bytes into the send buffer and posts a descriptor: the NIC may
    // start once the first segment's bytes are in place; the rest of the copy keeps the core
    // busy behind it (assumed: the copy runs ahead of the wire, as it does below a core's
    // memory bandwidth).
    const uint32_t first = std::min(n, c.mss);
    const double postCycles = m_hostCosts.dmaDescriptor + first * m_hostCosts.byteCopied;
    const HostCoreQueue::Slot s =
        cpu->ReserveSlot(HostCpu::WORK_NIC_HOST,
                         id,
                         postCycles + (n - first) * m_hostCosts.byteCopied);
    const Time posted = NanoSeconds(s.startNs + std::llround(postCycles * 1e9 / cpu->GetClockHz()));
    OffloadDeviceEvent e;
    e.kind = OffloadDeviceEventKind::HOST_POSTED;
    e.id = id;
    e.generation = m_connections.Generation(id);
    e.bytes = n;
    ScheduleDeviceEvent(posted - FastSimulator::Now(), std::move(e));
}

void
OffloadNetDevice::PostWrite(uint32_t id, uint32_t n)
{
    OffloadConnectionState& c = m_connections[id];
    c.txPosting -= n;
    const uint32_t accepted = c.tcp->AppSend(n);
    NS_ASSERT_MSG(accepted == n, "send buffer space reserved at the write was lost");
    (void)accepted;
    OnApplicationPosted(id);
    QueueForTransmit(id);
}

void
OffloadNetDevice::PostClose(uint32_t id)
{
    OffloadConnectionState& c = m_connections[id];
    c.tcp->AppClose();
    OnApplicationPosted(id);
    QueueForTransmit(id);
}

void
OffloadNetDevice::ChargeControlLoop(uint32_t id)
{
    if (HostCpu* cpu = TimedHostCpu())
    {
        // nothing waits for the loop's decision beyond its run (assumed: its effect, a new
        // rate, applies at once)
        cpu->Reserve(HostCpu::WORK_CONTROL, id, m_hostCosts.controlInterval);
    }
}

} // namespace ns3
