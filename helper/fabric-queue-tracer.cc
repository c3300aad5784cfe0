/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-queue-tracer.h"

#include "ns3/callback.h"
#include "ns3/gnuplot-png.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/run-report.h"
#include "ns3/simulator.h"

#include <filesystem>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricQueueTracer");

void
FabricQueueTracer::Install(const FabricHelper& fabric, Time interval)
{
    NS_LOG_FUNCTION(this << interval);
    if (!interval.IsStrictlyPositive())
    {
        throw PrestoInputError("FabricQueueTracer: the sampling interval must be > 0");
    }
    if (fabric.GetUseNs3Routers())
    {
        throw PrestoInputError("queue traces need the module's switches (--fabric=presto), not "
                               "ns-3 routers");
    }
    m_interval = interval;
    const FabricTopology& t = fabric.GetTopology();
    for (uint32_t n = 0; n < t.GetNNodes(); ++n)
    {
        if (t.IsHost(n))
        {
            continue;
        }
        Ptr<FabricSwitch> sw = fabric.GetNode(n)->GetObject<FabricSwitch>();
        NS_ABORT_MSG_UNLESS(sw, "switch node " << n << " has no FabricSwitch");
        const auto base = static_cast<uint32_t>(m_ports.size());
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            const auto& link = t.GetLinks()[t.GetPorts(n)[p]];
            const uint32_t other = link.a == n ? link.b : link.a;
            m_ports.push_back(TracedPort{t.GetNodeName(n), p, t.GetNodeName(other)});
            m_queues.emplace_back(sw->GetPortDevice(p));
        }
        sw->TraceConnectWithoutContext(
            "Drop",
            MakeBoundCallback(&FabricQueueTracer::OnEvent, this, base, true));
        sw->TraceConnectWithoutContext(
            "Mark",
            MakeBoundCallback(&FabricQueueTracer::OnEvent, this, base, false));
    }
    m_wasBusy.assign(m_ports.size(), false);
    Simulator::ScheduleNow(&FabricQueueTracer::Sample, this);
}

void
FabricQueueTracer::Sample()
{
    const int64_t now = Simulator::Now().GetNanoSeconds();
    for (uint32_t i = 0; i < m_queues.size(); ++i)
    {
        const uint32_t bytes = m_queues[i].GetBytes();
        if (bytes > 0 || m_wasBusy[i])
        {
            m_samples.push_back(QueueSample{now, i, bytes, m_queues[i].GetPackets()});
        }
        m_wasBusy[i] = bytes > 0;
    }
    Simulator::Schedule(m_interval, &FabricQueueTracer::Sample, this);
}

void
FabricQueueTracer::OnEvent(FabricQueueTracer* self,
                           uint32_t base,
                           bool drop,
                           Ptr<const Packet> packet,
                           uint32_t port)
{
    const uint32_t traced = port == FabricSwitch::NO_PORT ? NO_TRACED_PORT : base + port;
    self->m_events.push_back(
        SwitchEvent{Simulator::Now().GetNanoSeconds(), traced, drop, packet->GetSize()});
}

const std::vector<TracedPort>&
FabricQueueTracer::GetPorts() const
{
    return m_ports;
}

const std::vector<QueueSample>&
FabricQueueTracer::GetSamples() const
{
    return m_samples;
}

const std::vector<SwitchEvent>&
FabricQueueTracer::GetEvents() const
{
    return m_events;
}

void
FabricQueueTracer::Write(const std::string& dir, bool plot, const std::string& caption) const
{
    const std::filesystem::path out(dir);
    WriteFileAtomically((out / "queues.csv").string(),
                        QueueSamplesCsv(m_ports, m_samples),
                        "queue trace");
    WriteFileAtomically((out / "switch-events.csv").string(),
                        SwitchEventsCsv(m_ports, m_events),
                        "switch event trace");
    if (plot)
    {
        RenderGnuplotPng(
            QueuePlotScript(m_ports, m_samples, m_events, kGnuplotPngPlaceholder, 8, caption),
            (out / "queues.png").string(),
            "queue plot");
    }
}

} // namespace ns3
