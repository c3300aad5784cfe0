/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "experiment-options.h"
#include "experiment-progress.h"

#include "ns3/collective-endpoint.h"
#include "ns3/host-cpu-accounting.h"
#include "ns3/presto-main.h"
#include "ns3/simulator.h"
#include "ns3/spray-experiment.h"

#include <chrono>
#include <fstream>
#include <iostream>

namespace ns3
{

using namespace experiment;

void
SprayExperiment::RunCollective(FabricHelper& fabric)
{
    const auto& c = m_config;
    Ptr<TcpSocketEndpoint> transport = RunEndpoint();
    std::vector<Ipv4Address> addresses;
    for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
    {
        addresses.push_back(fabric.GetHostAddress(h));
    }
    transport->Install(fabric.GetHosts(), addresses);
    Ptr<CollectiveEndpoint> collective = CreateObject<CollectiveEndpoint>();
    collective->Install(transport,
                        fabric.GetHosts(),
                        addresses,
                        *m_collective,
                        m_hostOfRank,
                        c.iterations,
                        Seconds(c.computeGap));
    void (*stopNow)() = &Simulator::Stop; // the overload without a delay
    collective->SetFinishedCallback(MakeCallback(stopNow));
    HostCpuAccounting hostCpu;
    ConfigureAccounting(hostCpu);
    hostCpu.Install(fabric.GetHosts(), fabric.GetHostDevices(), collective);
    // the connections open at 0; the collective starts when all are set up. The run ends
    // when the last rank completes, at the latest at --simTime + --drainTime
    Simulator::ScheduleNow(&CollectiveEndpoint::Start, collective);
    Simulator::Stop(Seconds(c.simTime + c.drainTime));
    const uint64_t eventsBefore = Simulator::GetEventCount();
    const auto wallStart = std::chrono::steady_clock::now();
    {
        ProgressReport progress(c.quiet && !c.progressWhenQuiet ? 0 : c.progress,
                                c.simTime + c.drainTime,
                                !c.label.empty() ? c.label : c.device + " " + c.workload);
        Simulator::Run();
    }
    RecordSpeed(
        fabric,
        Simulator::GetEventCount() - eventsBefore,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count());

    ReportCollectiveRun(fabric, collective, transport, hostCpu);
    {
        std::ofstream csv(m_stage / "collective.csv");
        collective->WriteCsv(csv);
        if (!csv)
        {
            throw PrestoInputError("cannot write " + (m_stage / "collective.csv").string());
        }
    }
    WriteQueueTrace();
    WriteJson((m_stage / "summary.json").string(), m_report);
    if (!c.quiet)
    {
        PrintCollectiveRun();
    }
    collective->Dispose();
    transport->Dispose();
    Simulator::Destroy();
    Publish();
}

void
SprayExperiment::ReportCollectiveRun(const FabricHelper& fabric,
                                     Ptr<CollectiveEndpoint> collective,
                                     Ptr<TcpSocketEndpoint> transport,
                                     const HostCpuAccounting& hostCpu)
{
    const auto& c = m_config;
    m_report = nlohmann::json::object();
    AddRunContext();
    m_report["speed"] = SpeedToJson(m_speed);
    collective->AddReport(m_report);
    m_report["collective"]["placement"] = m_config.placement;
    nlohmann::json tcp;
    transport->AddReport(tcp);
    if (tcp.contains("tcp"))
    {
        m_report["tcp"] = tcp["tcp"];
    }
    AddNetworkReport(fabric);
    // cores over the run, which ends when the collective does (cycles_per_byte is the
    // per-work figure, the persistent connections' setup included)
    nlohmann::json cpu = hostCpu.Report(m_speed.simS > 0 ? m_speed.simS : c.simTime);
    cpu["cores_basis"] = "run";
    if (nlohmann::json cores = hostCpu.CoresReport(m_speed.simS > 0 ? m_speed.simS : c.simTime);
        !cores.is_null())
    {
        cpu["cores"] = cores;
    }
    m_report["host_cpu"] = cpu;
}

} // namespace ns3
