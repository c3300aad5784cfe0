/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "dumbbell-scenario.h"

#include "fabric-helper.h"
#include "spray-experiment.h"

#include "ns3/error-model.h"
#include "ns3/fabric-switch.h"
#include "ns3/log.h"
#include "ns3/offload-net-device.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/presto-dctcp-congestion.h"
#include "ns3/queue.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-endpoint.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DumbbellScenario");

namespace
{

/// Watches the bottleneck port: wire bytes started, time-weighted queue, first finish, and
/// the payload delivered between the window's start and end.
class BottleneckMonitor
{
  public:
    BottleneckMonitor(Time start, Time stop, Ptr<TcpSocketEndpoint> endpoint)
        : m_start(start),
          m_end(stop),
          m_endpoint(endpoint)
    {
    }

    /// The window opens (warm-up over).
    void Start()
    {
        m_deliveredAtStart = m_endpoint->GetDeliveredBytes();
    }

    void TxBegin(Ptr<const Packet> p)
    {
        if (InWindow())
        {
            m_txBytes += p->GetSize();
        }
    }

    void Packets(uint32_t, uint32_t packets)
    {
        Accumulate();
        m_packets = packets;
        if (InWindow())
        {
            m_max = std::max(m_max, packets);
        }
    }

    void FlowFinished(uint32_t, uint64_t)
    {
        m_finishNs.push_back(Simulator::Now().GetNanoSeconds());
        if (!m_ended)
        {
            End();
        }
    }

    /// Close the window now (first flow finished, or the run ends).
    void End()
    {
        if (m_ended)
        {
            return;
        }
        Accumulate();
        m_end = std::max(m_start, Simulator::Now());
        m_ended = true;
        m_deliveredAtEnd = m_endpoint->GetDeliveredBytes();
    }

    bool InWindow() const
    {
        return !m_ended && Simulator::Now() >= m_start;
    }

    Time m_start;
    Time m_end;
    bool m_ended{false};
    uint64_t m_txBytes{0};
    uint32_t m_packets{0};
    uint32_t m_max{0};
    double m_area{0}; //!< packets x seconds
    Time m_last;
    std::vector<uint64_t> m_finishNs;
    Ptr<TcpSocketEndpoint> m_endpoint;
    uint64_t m_deliveredAtStart{0};
    uint64_t m_deliveredAtEnd{0};

  private:
    void Accumulate()
    {
        const Time now = Simulator::Now();
        if (!m_ended && now > m_start)
        {
            m_area += m_packets * (now - std::max(m_last, m_start)).GetSeconds();
        }
        m_last = now;
    }
};

/// Random loss on both ends of the bottleneck link, each end its own stream.
void
AddBottleneckLoss(const std::pair<Ptr<NetDevice>, Ptr<NetDevice>>& devices, double lossRate)
{
    int64_t stream = 1000;
    for (Ptr<NetDevice> d : {devices.first, devices.second})
    {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(lossRate);
        em->AssignStreams(stream++);
        d->SetAttribute("ReceiveErrorModel", PointerValue(em));
    }
}

/// The long flows, sender i (left) to receiver flows + i (right), 1 us apart: more than
/// the bottleneck can carry in the run, unless a size is given.
void
ScheduleFlows(const DumbbellConfig& cfg, Ptr<TcpSocketEndpoint> ep)
{
    const uint64_t bytes =
        cfg.flowBytes > 0
            ? cfg.flowBytes
            : static_cast<uint64_t>(cfg.bottleneckRateBps / 8 * cfg.duration.GetSeconds()) + 1;
    for (uint32_t i = 0; i < cfg.flows; ++i)
    {
        FlowSpec f;
        f.id = i;
        f.src = i;
        f.dst = cfg.flows + i;
        f.dport = 5000;
        f.sizeBytes = bytes;
        f.startNs = 1000 * i;
        Simulator::Schedule(NanoSeconds(f.startNs), &FlowEndpoint::StartFlow, ep, f);
    }
}

/// The switches' drops and marks, and the offload NICs' retransmissions, timeouts, send
/// drops and congestion-program passes, summed into \p r.
void
AddFabricCounters(const FabricHelper& fabric, DumbbellResult& r)
{
    for (const auto& sw : fabric.GetSwitchObjects())
    {
        r.switchDrops += sw->GetDropped();
        r.switchMarks += sw->GetMarked();
    }
    NetDeviceContainer hosts = fabric.GetHostDevices();
    for (uint32_t h = 0; h < hosts.GetN(); ++h)
    {
        if (auto d = DynamicCast<OffloadNetDevice>(hosts.Get(h)))
        {
            const OffloadTcpCounters t = d->GetTotals();
            r.retxSegments += t.retransmittedSegments;
            r.timeouts += t.timeouts;
            r.nicTxDrops += d->GetNicTxDrops();
            auto pipelineCc = DynamicCast<const PrestoDctcpCongestion>(d->GetCongestionControl());
            if (pipelineCc && pipelineCc->GetProgram())
            {
                const RmtResourceReport rep = pipelineCc->GetProgram()->GetResourceReport();
                r.ccProgramPackets += rep.packets;
                r.ccRecirculations += rep.recirculations;
            }
        }
    }
}

} // namespace

DumbbellResult
RunDumbbell(const DumbbellConfig& cfg)
{
    NS_LOG_FUNCTION(cfg.device << cfg.cc << cfg.flows);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(cfg.seed);
    const TypeId cc = SprayExperiment::CongestionTypeId(cfg.device, cfg.cc);
    const FabricTopology topo = FabricTopology::Dumbbell(cfg.flows,
                                                         cfg.accessRateBps,
                                                         cfg.bottleneckRateBps,
                                                         cfg.linkDelayNs);
    FabricHelper fabric;
    if (cfg.device != "host-tcp")
    {
        fabric.SetHostDeviceFactory(SprayExperiment::DeviceFactory(cfg.device, cc));
    }
    fabric.Install(topo);
    fabric.AssignStreams(100);

    // the bottleneck: the left switch's port towards the right switch (the last link)
    const uint32_t link = static_cast<uint32_t>(topo.GetLinks().size() - 1);
    auto devices = fabric.GetLinkDevices(link);
    Ptr<PointToPointNetDevice> port = DynamicCast<PointToPointNetDevice>(devices.first);
    if (cfg.lossRate > 0)
    {
        AddBottleneckLoss(devices, cfg.lossRate);
    }
    Ptr<TcpSocketEndpoint> ep = SprayExperiment::MakeEndpoint(cfg.device, cc);
    BottleneckMonitor mon(cfg.warmup, cfg.duration, ep);
    port->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&BottleneckMonitor::TxBegin, &mon));
    port->GetQueue()->TraceConnectWithoutContext("PacketsInQueue",
                                                 MakeCallback(&BottleneckMonitor::Packets, &mon));

    std::vector<Ipv4Address> addresses;
    for (uint32_t h = 0; h < topo.GetNHosts(); ++h)
    {
        addresses.push_back(fabric.GetHostAddress(h));
    }
    ep->Install(fabric.GetHosts(), addresses);
    ep->TraceConnectWithoutContext("FlowFinish",
                                   MakeCallback(&BottleneckMonitor::FlowFinished, &mon));
    ScheduleFlows(cfg, ep);
    // the window closes at the first finish (FlowFinished) or at the end
    Simulator::Schedule(cfg.warmup, &BottleneckMonitor::Start, &mon);
    Simulator::Schedule(cfg.duration, &BottleneckMonitor::End, &mon);
    Simulator::Stop(cfg.duration);
    Simulator::Run();

    DumbbellResult r;
    r.windowS = (mon.m_end - mon.m_start).GetSeconds();
    if (r.windowS > 0)
    {
        r.utilisation = 8.0 * mon.m_txBytes / (cfg.bottleneckRateBps * r.windowS);
        r.meanQueuePackets = mon.m_area / r.windowS;
        r.goodputBps = 8.0 * (mon.m_deliveredAtEnd - mon.m_deliveredAtStart) / r.windowS;
    }
    r.maxQueuePackets = mon.m_max;
    const WireModel wire = ep->GetWireModel();
    r.payloadRateBps =
        cfg.bottleneckRateBps * wire.mssBytes / double(wire.mssBytes + wire.dataOverhead);
    AddFabricCounters(fabric, r);
    if (cfg.device == "host-tcp")
    {
        nlohmann::json doc;
        ep->AddReport(doc);
        r.retxSegments = doc["tcp"]["retx_segments"].get<uint64_t>();
    }
    r.deliveredBytes = ep->GetDeliveredBytes();
    r.badBytes = ep->GetCorruptBytes() + ep->GetExcessBytes();
    r.finishNs = mon.m_finishNs;
    ep->Dispose();
    Simulator::Destroy();
    return r;
}

} // namespace ns3
