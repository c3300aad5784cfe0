/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "experiment-options.h"
#include "experiment-progress.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/fabric-link-net-device.h"
#include "ns3/flow-file.h"
#include "ns3/flow-monitor-helper.h"
#include "ns3/flow-monitor.h"
#include "ns3/host-cpu-accounting.h"
#include "ns3/host-cpu-helper.h"
#include "ns3/lean-simulator-impl.h"
#include "ns3/log.h"
#include "ns3/offload-flow-monitor-helper.h"
#include "ns3/offload-net-device.h"
#include "ns3/pointer.h"
#include "ns3/presto-hybrid-net-device.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/row-parity.h"
#include "ns3/rpc-endpoint.h"
#include "ns3/simulator.h"
#include "ns3/spray-experiment.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SprayExperiment");

using namespace experiment;

namespace
{

/// RNG stream numbers: fixed so that a run depends only on the seed (run number).
constexpr int64_t FABRIC_STREAM = 100;
constexpr int64_t LOSS_STREAM = 100000;

/**
 * \param out --out
 * \return the folder the run writes into before publishing: OUT.partial beside it, or
 * .presto-partial inside it when --out has no name of its own (., .., /)
 */
std::filesystem::path
StagingFolder(const std::filesystem::path& out)
{
    std::filesystem::path p = out.lexically_normal();
    if (!p.empty() && !p.has_filename())
    {
        p = p.parent_path(); // a trailing slash
    }
    const std::string name = p.filename().string();
    if (name.empty() || name == "." || name == "..")
    {
        return p / ".presto-partial";
    }
    return p.parent_path() / (name + ".partial");
}

/**
 * \brief Move the staged outputs into out: a rename of the whole folder when out does not
 * exist, else file by file (replacing the run's own earlier files, keeping everything else).
 * \param stage the staging folder \param out --out
 */
void
PublishStagedOutputs(const std::filesystem::path& stage, const std::filesystem::path& out)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(out, ec))
    {
        fs::rename(stage, out, ec);
        if (!ec)
        {
            return;
        }
    }
    ec.clear();
    fs::create_directories(out, ec);
    std::vector<fs::path> entries;
    for (const fs::directory_entry& e : fs::directory_iterator(stage, ec))
    {
        entries.push_back(e.path());
    }
    for (const fs::path& from : entries)
    {
        fs::rename(from, out / from.filename(), ec);
        if (ec)
        {
            throw PrestoInputError("--out=" + out.string() + ": cannot move " + from.string() +
                                   " into it: " + ec.message());
        }
    }
    fs::remove(stage, ec);
}

} // namespace

void
SprayExperiment::FlowFinished(uint32_t flowId)
{
    auto it = std::lower_bound(m_records.begin(),
                               m_records.end(),
                               flowId,
                               [](const FctRecord& r, uint32_t id) { return r.flow.id < id; });
    NS_ASSERT(it != m_records.end() && it->flow.id == flowId);
    it->finishNs = Simulator::Now().GetNanoSeconds();
    if (++m_finished == m_records.size())
    {
        Simulator::Stop();
    }
}

void
SprayExperiment::InstallHostCores(FabricHelper& fabric) const
{
    const auto& c = m_config;
    if (c.hostCores == 0)
    {
        return;
    }
    // every host's work on its cores in simulated time (HostCpu's other attributes: the
    // command line's --ns3::HostCpu::...); servers with roles may have their own count
    const HostCpuCosts costs = RunCosts();
    HostCpuHelper clients;
    HostCpuHelper servers;
    for (HostCpuHelper* h : {&clients, &servers})
    {
        h->SetAttribute("PacketSentCycles", DoubleValue(costs.packetSent));
        h->SetAttribute("PacketReceivedCycles", DoubleValue(costs.packetReceived));
        h->SetAttribute("AckCycles", DoubleValue(costs.ack));
        h->SetAttribute("ConnectionSetupCycles", DoubleValue(costs.connectionSetup));
        h->SetAttribute("ConnectionTeardownCycles", DoubleValue(costs.connectionTeardown));
    }
    clients.SetAttribute("Cores", UintegerValue(c.hostCores));
    servers.SetAttribute("Cores", UintegerValue(c.serverCores > 0 ? c.serverCores : c.hostCores));
    for (uint32_t h = 0; h < fabric.GetHosts().GetN(); ++h)
    {
        const bool server = IsRpc() && m_rpc.servers > 0 && m_rpc.IsServer(h);
        (server ? servers : clients).Install(fabric.GetHosts().Get(h));
    }
}

void
SprayExperiment::InstallLinkLoss(FabricHelper& fabric) const
{
    const auto& c = m_config;
    // random loss: --lossRate on every switch-to-switch link, a topology file's error rate on
    // its links (the file's value where it gives one); streams in link order
    int64_t stream = LOSS_STREAM;
    for (uint32_t l = 0; l < m_topology.GetLinks().size(); ++l)
    {
        const auto& link = m_topology.GetLinks()[l];
        const bool core = !m_topology.IsHost(link.a) && !m_topology.IsHost(link.b);
        const double rate = link.lossRate > 0 ? link.lossRate : core ? c.lossRate : 0.0;
        if (rate == 0)
        {
            continue;
        }
        auto devices = fabric.GetLinkDevices(l);
        for (Ptr<NetDevice> d : {devices.first, devices.second})
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(rate);
            em->AssignStreams(stream++);
            if (auto fast = DynamicCast<FabricLinkNetDevice>(d))
            {
                fast->SetLinkReceiveErrorModel(em); // both of its paths
            }
            else
            {
                d->SetAttribute("ReceiveErrorModel", PointerValue(em));
            }
        }
    }
}

void
SprayExperiment::RecordSpeed(const FabricHelper& fabric, uint64_t events, double wallS)
{
    m_speed.wallS = wallS;
    m_speed.events = events;
    m_speed.simS = Simulator::Now().GetSeconds();
    m_speed.packetHops = fabric.GetPacketHops();
    m_speed.packetHopsPerS = m_speed.wallS > 0 ? m_speed.packetHops / m_speed.wallS : 0;
    m_speed.peakRssKb = PeakRssKb();
    m_speed.scheduler = SchedulerName();
    m_speed.simulator = SimulatorImplName();
    m_speed.progressS = m_config.progress; // as given, also when --quiet silences it
}

void
SprayExperiment::BuildFabric(FabricHelper& fabric)
{
    const auto& c = m_config;
    std::filesystem::path out(c.out);
    static const std::map<std::string, FabricSwitch::LoadBalancing> lbModes = {
        {"ecmp", FabricSwitch::ECMP},
        {"spray", FabricSwitch::SPRAY},
        {"spray-rr", FabricSwitch::SPRAY_RR},
        {"flowlet", FabricSwitch::FLOWLET},
        {"label", FabricSwitch::LABEL}};
    fabric.SetSwitchAttribute("LoadBalancing", EnumValue(lbModes.at(c.lb)));
    fabric.SetUseNs3Routers(c.fabric == "ns3-routers");
    fabric.SetFastLinks(c.links == "fast");
    if (c.hostParity)
    {
        fabric.SetStackHostEgress(RowParity::QueueDiscs(), &RowParity::DeviceQueue);
    }
    if (!m_mix.empty())
    {
        for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
        {
            const uint32_t d = m_hostDevice[h];
            if (m_mix[d].device != "host-tcp")
            {
                fabric.SetHostDeviceFactory(h, NicFactory(m_mix[d].device, m_mixCc[d]));
            }
        }
    }
    else if (c.device != "host-tcp")
    {
        fabric.SetHostDeviceFactory(NicFactory(c.device, m_ccType));
    }
    fabric.Install(m_topology);
    fabric.AssignStreams(FABRIC_STREAM);
    ShareRackPipelines(fabric);
    InstallHostCores(fabric);
    InstallLinkLoss(fabric);
    for (const auto& change : m_linkChanges)
    {
        if (change.rateBps == 0)
        {
            fabric.FailLink(change.link, Seconds(change.atS));
        }
        else
        {
            fabric.SetLinkRate(change.link, change.rateBps, Seconds(change.atS));
        }
    }
    // the NICs check their configuration (device queue, congestion control) now, so that a
    // bad one stops the run before anything is written
    NetDeviceContainer nics = fabric.GetHostDevices();
    for (uint32_t h = 0; h < nics.GetN(); ++h)
    {
        if (auto d = DynamicCast<OffloadNetDevice>(nics.Get(h)))
        {
            d->Setup();
        }
    }
    try
    {
        CheckRpcSteering(fabric);
        CheckApplications(fabric);
    }
    catch (const PrestoInputError&)
    {
        Simulator::Destroy(); // the built fabric's global state goes, as after a run
        throw;
    }
    // the outputs go to a staging folder, published into --out when the run did what was
    // asked; a staging folder left by a killed run of the same --out is replaced
    m_stage = StagingFolder(out);
    std::error_code ec;
    std::filesystem::remove_all(m_stage, ec);
    ec.clear();
    std::filesystem::create_directories(m_stage, ec);
    if (ec)
    {
        throw PrestoInputError("--out=" + c.out + ": cannot create directory " + m_stage.string() +
                               ": " + ec.message());
    }
    if (c.pcap)
    {
        fabric.EnablePcapHosts((m_stage / "host").string());
    }
    if (c.queueTrace > 0)
    {
        m_queueTracer = std::make_unique<FabricQueueTracer>();
        m_queueTracer->Install(fabric, NanoSeconds(std::llround(c.queueTrace * 1e9)));
    }
}

void
SprayExperiment::Run()
{
    const auto& c = m_config;
    std::filesystem::path out(c.out);
    FabricHelper fabric;
    BuildFabric(fabric);
    if (IsRpc())
    {
        RunRpc(fabric);
        return;
    }
    if (IsCollective())
    {
        RunCollective(fabric);
        return;
    }

    Ptr<FlowEndpoint> endpoint = RunEndpoint();
    std::vector<Ipv4Address> addresses;
    for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
    {
        addresses.push_back(fabric.GetHostAddress(h));
    }
    endpoint->Install(fabric.GetHosts(), addresses);
    endpoint->SetFlowFinishedCallback(MakeCallback(&SprayExperiment::FlowFinished, this));
    // host CPU cost accounting: per host, by its device (host-tcp, offload, or mixed)
    HostCpuAccounting hostCpu;
    ConfigureAccounting(hostCpu);
    hostCpu.Install(fabric.GetHosts(), fabric.GetHostDevices(), m_flows, endpoint);

    // records in id order, with their ideal FCT, were made by the constructor
    for (auto& r : m_records)
    {
        r.finishNs = -1;
        r.retxBytes = -1;
    }
    m_finished = 0;
    for (const auto& f : m_flows)
    {
        Simulator::Schedule(NanoSeconds(f.startNs), &FlowEndpoint::StartFlow, endpoint, f);
    }
    FlowMonitorHelper flowmon;
    Ptr<FlowMonitor> monitor;
    if (c.flowMonitor)
    {
        monitor = flowmon.InstallAll();             // ns-3's probe: the hosts' IP stacks
        OffloadFlowMonitorHelper::Install(flowmon); // the offload NICs and the fabric
    }

    Simulator::Stop(Seconds(c.simTime + c.drainTime));
    uint64_t eventsBefore = Simulator::GetEventCount();
    auto wallStart = std::chrono::steady_clock::now();
    if (!m_records.empty())
    {
        ProgressReport progress(c.quiet && !c.progressWhenQuiet ? 0 : c.progress,
                                c.simTime + c.drainTime,
                                !c.label.empty() ? c.label
                                : m_mix.empty()  ? c.device
                                                 : std::string("mix"));
        Simulator::Run();
    }
    auto wallEnd = std::chrono::steady_clock::now();

    for (auto& r : m_records)
    {
        r.retxBytes = endpoint->GetRetxBytes(r.flow.id);
        r.timeouts = endpoint->GetTimeouts(r.flow.id);
        r.srcPort = endpoint->GetSourcePort(r.flow.id);
        r.srcAddr = addresses[r.flow.src].Get();
        r.dstAddr = addresses[r.flow.dst].Get();
    }
    RecordSpeed(fabric,
                Simulator::GetEventCount() - eventsBefore,
                std::chrono::duration<double>(wallEnd - wallStart).count());

    m_summary = SummarizeFct(m_records, m_edges, static_cast<int64_t>(c.warmup * 1e9));
    ReportFlowRun(fabric, endpoint, hostCpu);

    std::string label = !c.label.empty() ? c.label : m_mix.empty() ? c.device : std::string("mix");
    const std::vector<PlotRun> classes = ReportIncast(label);
    WriteQueueTrace();
    WriteFlowFile((m_stage / "flows.txt").string(), m_flows);
    WriteFctCsv((m_stage / "fct.csv").string(), m_records);
    if (c.hpccFct)
    {
        WriteHpccFct((m_stage / "fct.txt").string(), m_records);
    }
    if (monitor)
    {
        monitor->CheckForLostPackets();
        monitor->SerializeToXmlFile((m_stage / "flowmon.xml").string(), true, true);
    }
    WriteJson((m_stage / "summary.json").string(), m_report);
    if (!c.quiet)
    {
        PrintFlowRun(label, !classes.empty());
    }
    endpoint->Dispose();
    Simulator::Destroy();
    if (c.plot)
    {
        // with incast bursts, the two classes as two runs of the plot
        PlotFct(classes.empty() ? std::vector<PlotRun>{PlotRun{label, m_summary, m_records}}
                                : classes,
                (m_stage / "fct.png").string(),
                RunCaption({m_report.value("config", nlohmann::json::object())}));
    }
    Publish();
}

HostCpuCosts
SprayExperiment::RunCosts() const
{
    HostCpuCosts c = CreateObject<HostCpu>()->GetCosts(); // the attributes as configured
    if (m_config.hostStack == "tas")
    {
        const HostCpuCosts linuxLike = HostCpuCosts::HostTcp();
        const HostCpuCosts tas = HostCpuCosts::KernelBypass();
        const std::pair<double HostCpuCosts::*, const char*> stack[] = {
            {&HostCpuCosts::packetSent, "PacketSentCycles"},
            {&HostCpuCosts::packetReceived, "PacketReceivedCycles"},
            {&HostCpuCosts::ack, "AckCycles"},
            {&HostCpuCosts::connectionSetup, "ConnectionSetupCycles"},
            {&HostCpuCosts::connectionTeardown, "ConnectionTeardownCycles"}};
        for (const auto& [field, name] : stack)
        {
            if (c.*field != linuxLike.*field)
            {
                throw PrestoInputError(std::string("--hostStack=tas sets the stack's costs, and "
                                                   "--ns3::HostCpu::") +
                                       name + " sets one too: give one of them");
            }
            c.*field = tas.*field;
        }
    }
    return c;
}

void
SprayExperiment::ConfigureAccounting(HostCpuAccounting& accounting) const
{
    // the one cost table: the HostCpu's attributes (--ns3::HostCpu::...Cycles) or the
    // --hostStack profile, counted with or without cores in simulated time
    accounting.SetCosts(RunCosts());
    accounting.SetClockHz(CreateObject<HostCpu>()->GetClockHz());
}

void
SprayExperiment::CheckRpcSteering(FabricHelper& fabric) const
{
    // The NIC's RPC stage and the servers' choice of core go together: one without the other
    // would cost cycles for nothing, or credit the NIC with a balance nobody provides.
    EnumValue steering;
    {
        Ptr<RpcEndpoint> probe = CreateObject<RpcEndpoint>(); // the configured defaults
        probe->GetAttribute("Steering", steering);
        UintegerValue cores;
        probe->GetAttribute("ServerCores", cores);
        TimeValue service;
        probe->GetAttribute("ServiceTime", service);
        if (!IsRpc() && (cores.Get() > 0 || steering.Get() != RPC_AFFINITY))
        {
            throw PrestoInputError("--ns3::RpcEndpoint::ServerCores and Steering model the RPC "
                                   "workload's servers: give --workload=rpc");
        }
        const bool hostCores = m_config.hostCores > 0;
        if (cores.Get() > 0 && hostCores)
        {
            throw PrestoInputError(
                "--ns3::RpcEndpoint::ServerCores=" + std::to_string(cores.Get()) +
                " gives the servers worker cores of their own, apart from the host's "
                "--hostCores=" +
                std::to_string(m_config.hostCores) +
                " on which the stack runs: leave ServerCores at 0 (requests are then served "
                "on the host's cores, ServiceTime each), or give --hostCores=0");
        }
        if (cores.Get() == 0 && !hostCores && !service.Get().IsZero())
        {
            throw PrestoInputError("--ns3::RpcEndpoint::ServiceTime is a core's time per "
                                   "request: give --hostCores > 0 (the host's cores) or "
                                   "--ns3::RpcEndpoint::ServerCores > 0");
        }
        if (steering.Get() == RPC_HOST_DISPATCH && cores.Get() == 0 && hostCores)
        {
            throw PrestoInputError("--ns3::RpcEndpoint::Steering=HostDispatch is modelled on "
                                   "ServerCores worker cores only: give --hostCores=0 and "
                                   "--ns3::RpcEndpoint::ServerCores > 0, or Steering=Affinity");
        }
        if (steering.Get() != RPC_AFFINITY && cores.Get() == 0 && !hostCores)
        {
            throw PrestoInputError("--ns3::RpcEndpoint::Steering chooses among a server's "
                                   "worker cores: give --ns3::RpcEndpoint::ServerCores > 0 "
                                   "(and a ServiceTime)");
        }
    }
    const bool nicSteers = IsRpc() && steering.Get() == RPC_NIC;
    const NetDeviceContainer nics = fabric.GetHostDevices();
    for (uint32_t h = 0; h < nics.GetN(); ++h)
    {
        Ptr<PrestoHybridNetDevice> d = DynamicCast<PrestoHybridNetDevice>(nics.Get(h));
        BooleanValue stage(false);
        if (d)
        {
            d->GetAttribute("RpcSteering", stage);
        }
        if (nicSteers && !stage.Get())
        {
            throw PrestoInputError(
                "--ns3::RpcEndpoint::Steering=Nic needs an RPC stage on every host's NIC: "
                "--device=presto-hybrid with --ns3::PrestoHybridNetDevice::RpcSteering=1 (host " +
                std::to_string(h) + " has " + (d ? "RpcSteering=0" : "no presto-hybrid NIC") + ")");
        }
        if (!nicSteers && stage.Get())
        {
            throw PrestoInputError(
                "--ns3::PrestoHybridNetDevice::RpcSteering=1 runs the NIC's RPC stage, which "
                "only the RPC workload's servers use: give --workload=rpc and "
                "--ns3::RpcEndpoint::Steering=Nic (and ServerCores > 0), or leave it off");
        }
    }
}

void
SprayExperiment::CheckApplications(FabricHelper& fabric) const
{
    if (m_config.apps <= 1)
    {
        return;
    }
    const NetDeviceContainer nics = fabric.GetHostDevices();
    for (uint32_t h = 0; h < nics.GetN(); ++h)
    {
        Ptr<OffloadNetDevice> d = DynamicCast<OffloadNetDevice>(nics.Get(h));
        if (!d)
        {
            throw PrestoInputError("--apps=" + std::to_string(m_config.apps) + ": host " +
                                   std::to_string(h) +
                                   " runs ns-3's TCP, which has no DMA channels per application");
        }
        UintegerValue channels;
        d->GetAttribute("DmaChannels", channels);
        if (channels.Get() < m_config.apps)
        {
            throw PrestoInputError("--apps=" + std::to_string(m_config.apps) +
                                   " gives each application its own DMA channel: set "
                                   "--ns3::OffloadNetDevice::DmaChannels=" +
                                   std::to_string(m_config.apps) + " or more (host " +
                                   std::to_string(h) + " has " + std::to_string(channels.Get()) +
                                   ")");
        }
    }
}

void
SprayExperiment::RunRpc(FabricHelper& fabric)
{
    const auto& c = m_config;
    const std::filesystem::path out(c.out);
    Ptr<TcpSocketEndpoint> transport = RunEndpoint();
    std::vector<Ipv4Address> addresses;
    for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
    {
        addresses.push_back(fabric.GetHostAddress(h));
    }
    transport->Install(fabric.GetHosts(), addresses);
    Ptr<RpcEndpoint> rpc = CreateObject<RpcEndpoint>();
    rpc->Install(transport, fabric.GetHosts(), addresses, m_rpc, *m_rpcRequest, *m_rpcResponse);
    if (m_kv)
    {
        rpc->SetKvMix(*m_kv);
    }
    HostCpuAccounting hostCpu;
    ConfigureAccounting(hostCpu);
    hostCpu.Install(fabric.GetHosts(), fabric.GetHostDevices(), rpc);
    rpc->Start(m_rpcOpen, Seconds(c.warmup), Seconds(c.simTime));

    Simulator::Stop(Seconds(c.simTime));
    const uint64_t eventsBefore = Simulator::GetEventCount();
    const auto wallStart = std::chrono::steady_clock::now();
    {
        ProgressReport progress(c.quiet && !c.progressWhenQuiet ? 0 : c.progress,
                                c.simTime,
                                !c.label.empty() ? c.label : c.device + " " + c.workload);
        Simulator::Run();
    }
    RecordSpeed(
        fabric,
        Simulator::GetEventCount() - eventsBefore,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count());

    ReportRpcRun(fabric, rpc, transport, hostCpu);
    WriteQueueTrace();
    WriteJson((m_stage / "summary.json").string(), m_report);
    if (!c.quiet)
    {
        PrintRpcRun();
    }
    rpc->Dispose();
    transport->Dispose();
    Simulator::Destroy();
    Publish();
}

std::string
SprayExperiment::Shortfall() const
{
    std::ostringstream os;
    const nlohmann::json& r = m_report;
    const auto count = [](const nlohmann::json& o, const char* key) {
        return o.is_object() ? o.value(key, uint64_t{0}) : uint64_t{0};
    };
    if (r.contains("collective"))
    {
        const nlohmann::json& co = r["collective"];
        if (const uint64_t failed = count(co, "connections_failed"); failed > 0)
        {
            os << failed << " of " << count(co, "connections")
               << " collective connections failed to open\n";
        }
        if (!co.value("finished", false))
        {
            os << "the collective did not finish by --simTime + --drainTime = "
               << m_config.simTime + m_config.drainTime << " s\n";
        }
        if (count(co, "corrupt_bytes") + count(co, "excess_bytes") > 0)
        {
            os << "the collective's streams arrived altered, out of order or twice ("
               << count(co, "corrupt_bytes") << " corrupt, " << count(co, "excess_bytes")
               << " excess bytes)\n";
        }
    }
    else if (r.contains("rpc"))
    {
        const nlohmann::json& rpc = r["rpc"];
        if (const uint64_t failed = count(rpc, "connections_failed"); failed > 0)
        {
            os << failed << " of " << count(rpc, "connections")
               << " RPC connections failed to open\n";
        }
        if (count(rpc, "requests_measured") == 0)
        {
            os << "no RPC request was answered in the measurement window (--warmup to "
                  "--simTime)\n";
        }
    }
    else
    {
        const uint64_t flows = count(r, "flows");
        const uint64_t finished = count(r, "finished");
        if (finished < flows)
        {
            os << flows - finished << " of " << flows
               << " flows did not finish by the end of the drain (--simTime + --drainTime = "
               << m_config.simTime + m_config.drainTime << " s)\n";
        }
    }
    return os.str();
}

std::filesystem::path
SprayExperiment::PublishedFolder() const
{
    return Shortfall().empty() || m_config.allowUnfinished ? std::filesystem::path(m_config.out)
                                                           : m_stage;
}

void
SprayExperiment::Publish()
{
    const std::filesystem::path out(m_config.out);
    std::string shortfall = Shortfall();
    if (!shortfall.empty())
    {
        shortfall.pop_back(); // the last newline
    }
    if (!shortfall.empty() && !m_config.allowUnfinished)
    {
        throw PrestoRunIncomplete(shortfall + "; the outputs are in " + m_stage.string() +
                                  " (--allowUnfinished accepts such a run into --out)");
    }
    if (!shortfall.empty())
    {
        std::cerr << "warning: " << shortfall << "; accepted (--allowUnfinished)" << std::endl;
    }
    PublishStagedOutputs(m_stage, out);
}

} // namespace ns3
