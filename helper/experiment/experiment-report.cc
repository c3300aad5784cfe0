/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "experiment-options.h"

#include "ns3/fabric-link-net-device.h"
#include "ns3/host-cpu-accounting.h"
#include "ns3/host-cpu-model.h"
#include "ns3/incast-bursts.h"
#include "ns3/offload-net-device.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/presto-main.h"
#include "ns3/queue-disc.h"
#include "ns3/row-parity.h"
#include "ns3/rpc-endpoint.h"
#include "ns3/spray-experiment.h"
#include "ns3/traffic-control-layer.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>

namespace ns3
{

using namespace experiment;

namespace
{

/**
 * \brief What makes summary.json self-describing: "command_line" (the arguments as typed,
 * argv[0] first), "version" (the module's git describe at build time) and "attributes"
 * (every attribute default the command line or the program changed, and every --ns3::
 * argument; see ChangedAttributeDefaults).
 * \param report the summary object
 */
void
AddProvenance(nlohmann::json& report)
{
    // an argument that is not UTF-8 is kept with U+FFFD in place of its bad bytes (JSON text
    // must be UTF-8; the options that are read as text were refused up front)
    auto text = [](const std::string& s) {
        return nlohmann::json::parse(
            nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    };
    nlohmann::json argv = nlohmann::json::array();
    for (const std::string& arg : ParsedArguments())
    {
        argv.push_back(text(arg));
    }
    report["command_line"] = argv;
    report["version"] = ModuleVersion();
    nlohmann::json attributes = nlohmann::json::object();
    for (const auto& [name, value] : ChangedAttributeDefaults())
    {
        attributes[name] = text(value);
    }
    report["attributes"] = attributes;
}

/// \param o an "overall" object \return "N flows, FCT p50 X us p99 Y us, slowdown p50 p99"
std::string
ClassLine(const nlohmann::json& o, uint64_t unfinished)
{
    std::ostringstream os;
    os << o.value("count", uint64_t{0}) << " flows finished, " << unfinished
       << " unfinished; FCT p50 " << o.value("fct_p50_ns", 0.0) / 1e3 << " us, p99 "
       << o.value("fct_p99_ns", 0.0) / 1e3 << " us; slowdown p50 " << o.value("slowdown_p50", 0.0)
       << ", p99 " << o.value("slowdown_p99", 0.0);
    return os.str();
}

/// The console lines of the incast and background classes.
std::string
IncastLines(const nlohmann::json& report)
{
    const auto& i = report["incast"];
    const auto& b = report["background"];
    const auto& bc = i["burst_completion"];
    std::ostringstream os;
    os << "incast:     " << i["bursts"].get<uint64_t>() << " bursts of "
       << i["senders_per_burst"].get<uint32_t>() << " x " << i["bytes_per_sender"].get<uint64_t>()
       << " B; " << ClassLine(i["overall"], i["unfinished"].get<uint64_t>())
       << "; burst completion p50 " << bc["p50_ns"].get<double>() / 1e3 << " us, p99 "
       << bc["p99_ns"].get<double>() / 1e3 << " us\n"
       << "background: " << ClassLine(b["overall"], b["unfinished"].get<uint64_t>()) << "\n";
    return os.str();
}

/// One line for the console: model, cycles per delivered byte and per packet, cores.
std::string
HostCpuLine(const nlohmann::json& h)
{
    std::ostringstream os;
    os << h.value("model", std::string()) << ", " << h.value("cycles_per_byte", 0.0)
       << " cycles/byte, " << h.value("cycles_per_packet", 0.0) << " cycles/packet, "
       << h.value("cores_used", 0.0) << " cores over the "
       << (h.value("cores_basis", std::string()) == "run" ? "run" : "arrival window") << ", "
       << h.value("cycles", 0.0) << " cycles";
    return os.str();
}
} // namespace

nlohmann::json
SprayExperiment::PolicyReport() const
{
    return RowParity::Describe(m_mix.empty() ? m_config.device : "mix",
                               m_config.hostParity,
                               m_hostRateBps);
}

void
SprayExperiment::ReportMix(const FabricHelper& fabric)
{
    if (m_mix.empty())
    {
        return;
    }
    const auto& c = m_config;
    nlohmann::json mix = {{"by", c.mixBy}, {"devices", nlohmann::json::array()}};
    nlohmann::json byDevice = nlohmann::json::object();
    const NetDeviceContainer nics = fabric.GetHostDevices();
    for (std::size_t i = 0; i < m_mix.size(); ++i)
    {
        const std::string& device = m_mix[i].device;
        uint32_t hosts = 0;
        nlohmann::json nic = nlohmann::json::object();
        for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
        {
            if (m_hostDevice[h] != i)
            {
                continue;
            }
            ++hosts;
            if (auto d = DynamicCast<OffloadNetDevice>(nics.Get(h)))
            {
                d->AddCounters(nic);
            }
        }
        // the flows these hosts send: their transport is this device's
        std::vector<FctRecord> sent;
        for (const auto& r : m_records)
        {
            if (m_hostDevice[r.flow.src] == i)
            {
                sent.push_back(r);
            }
        }
        nlohmann::json j =
            SummaryToJson(SummarizeFct(sent, m_edges, static_cast<int64_t>(c.warmup * 1e9)),
                          RunSpeed{});
        j.erase("speed");
        j["hosts"] = hosts;
        j["congestion_control"] = m_mixCc[i].GetName();
        if (!nic.empty())
        {
            j["nic"] = nic;
        }
        byDevice[device] = j;
        mix["devices"].push_back(
            {{"device", device}, {"fraction", m_mix[i].fraction}, {"hosts", hosts}});
    }
    m_report["mix"] = mix;
    m_report["by_device"] = byDevice;
}

std::vector<PlotRun>
SprayExperiment::ReportIncast(const std::string& label)
{
    const auto& c = m_config;
    if (BurstArrivalsFromString(c.bursts, "bursts") == BurstArrivals::OFF)
    {
        return {};
    }
    const auto warmupNs = static_cast<int64_t>(c.warmup * 1e9);
    std::vector<FctRecord> incast;
    std::vector<FctRecord> background;
    // per burst: start, latest finish, flows unfinished (bursts that start after the warm-up)
    std::map<int64_t, std::tuple<int64_t, int64_t, uint32_t>> bursts;
    std::string csv = "id,burst\n";
    for (const auto& r : m_records)
    {
        const int64_t burst = m_burstOf[r.flow.id];
        if (burst < 0)
        {
            background.push_back(r);
            continue;
        }
        incast.push_back(r);
        csv += std::to_string(r.flow.id) + "," + std::to_string(burst) + "\n";
        if (r.flow.startNs < warmupNs)
        {
            continue;
        }
        auto it = bursts.try_emplace(burst, r.flow.startNs, r.flow.startNs, 0).first;
        auto& [start, last, unfinished] = it->second;
        if (r.Finished())
        {
            last = std::max(last, r.finishNs);
        }
        else
        {
            ++unfinished;
        }
    }
    std::vector<double> completion;
    uint64_t unfinishedBursts = 0;
    for (const auto& [burst, b] : bursts)
    {
        const auto& [start, last, unfinished] = b;
        if (unfinished > 0)
        {
            ++unfinishedBursts;
        }
        else
        {
            completion.push_back(static_cast<double>(last - start));
        }
    }
    const FctSummary incastSummary = SummarizeFct(incast, m_edges, warmupNs);
    const FctSummary backgroundSummary = SummarizeFct(background, m_edges, warmupNs);
    nlohmann::json ji = SummaryToJson(incastSummary, RunSpeed{});
    ji.erase("speed");
    const DistributionSummary bc = Summarize(completion);
    ji["arrivals"] = c.bursts;
    ji["bursts"] = bursts.size();
    ji["senders_per_burst"] = c.burstSenders;
    ji["bytes_per_sender"] = c.burstBytes;
    ji["interval_s"] = c.burstInterval;
    ji["burst_completion"] = {{"count", bc.count},
                              {"unfinished", unfinishedBursts},
                              {"mean_ns", bc.mean},
                              {"p50_ns", bc.p50},
                              {"p99_ns", bc.p99}};
    nlohmann::json jb = SummaryToJson(backgroundSummary, RunSpeed{});
    jb.erase("speed");
    m_report["incast"] = ji;
    m_report["background"] = jb;
    WriteFileAtomically((m_stage / "incast.csv").string(), csv, "incast flow list");
    return {PlotRun{label + " background", backgroundSummary, background},
            PlotRun{label + " incast", incastSummary, incast}};
}

void
SprayExperiment::WriteQueueTrace()
{
    if (!m_queueTracer)
    {
        return;
    }
    m_queueTracer->Write(m_stage.string(),
                         m_config.plot,
                         RunCaption({m_report.value("config", nlohmann::json::object())}));
    uint64_t drops = 0;
    uint64_t marks = 0;
    uint32_t peak = 0;
    for (const auto& e : m_queueTracer->GetEvents())
    {
        (e.drop ? drops : marks) += 1;
    }
    for (const auto& q : m_queueTracer->GetSamples())
    {
        peak = std::max(peak, q.bytes);
    }
    m_report["queue_trace"] = {{"interval_s", m_config.queueTrace},
                               {"ports", m_queueTracer->GetPorts().size()},
                               {"samples", m_queueTracer->GetSamples().size()},
                               {"drops", drops},
                               {"marks", marks},
                               {"peak_queue_bytes", peak}};
}

void
SprayExperiment::AddNetworkReport(const FabricHelper& fabric)
{
    nlohmann::json nic = nlohmann::json::object();
    NetDeviceContainer hostDevices = fabric.GetHostDevices();
    for (uint32_t h = 0; h < hostDevices.GetN(); ++h)
    {
        if (auto d = DynamicCast<OffloadNetDevice>(hostDevices.Get(h)))
        {
            d->AddCounters(nic);
        }
    }
    // the endpoint's report has the offloaded flows' "nic" already (TcpSocketEndpoint); the
    // RPC workload's report does not
    if (!nic.empty() && !m_report.contains("nic"))
    {
        m_report["nic"] = nic;
    }
    uint64_t drops = 0;
    uint64_t marks = 0;
    uint64_t forwarded = 0;
    for (const auto& sw : fabric.GetSwitchObjects())
    {
        drops += sw->GetDropped();
        marks += sw->GetMarked();
        forwarded += sw->GetForwarded();
    }
    // the hosts' own egress: root queue discs and device queues (a TCP sender retransmits
    // what they drop, so every such drop is a retransmission the fabric did not cause)
    uint64_t qdiscDrops = 0;
    uint64_t deviceQueueDrops = 0;
    for (uint32_t h = 0; h < hostDevices.GetN(); ++h)
    {
        Ptr<NetDevice> device = hostDevices.Get(h);
        Ptr<TrafficControlLayer> tc = device->GetNode()->GetObject<TrafficControlLayer>();
        Ptr<QueueDisc> root = tc ? tc->GetRootQueueDiscOnDevice(device) : nullptr;
        if (root)
        {
            qdiscDrops += root->GetStats().nTotalDroppedPackets;
        }
        if (auto p2p = DynamicCast<PointToPointNetDevice>(device); p2p && p2p->GetQueue())
        {
            // before enqueue: a full queue; those after dequeue were flushed by a failed
            // link and are in link_down_drops
            deviceQueueDrops += p2p->GetQueue()->GetTotalDroppedPacketsBeforeEnqueue();
        }
    }
    // frames the hosts put on their links and took off them (fast links count both): at the
    // end of a drained run, sent - received = every frame lost in the fabric
    uint64_t hostSent = 0;
    uint64_t hostReceived = 0;
    bool allFast = true;
    for (uint32_t h = 0; h < hostDevices.GetN(); ++h)
    {
        auto fast = DynamicCast<FabricLinkNetDevice>(hostDevices.Get(h));
        allFast = allFast && fast && fast->IsFast();
        if (fast)
        {
            hostSent += fast->GetTxPackets();
            hostReceived += fast->GetRxPackets();
            if (!DynamicCast<OffloadNetDevice>(fast))
            {
                // the fast path's own full-queue refusals (an offload NIC counts its own in
                // nic.nic_tx_drops)
                deviceQueueDrops += fast->GetTxDrops();
            }
        }
    }
    const FabricHelper::LinkDrops links = fabric.GetLinkDrops();
    m_report["fabric"] = {{"switch_forwarded", forwarded},
                          {"switch_drops", drops},
                          {"switch_ecn_marks", marks},
                          {"host_qdisc_drops", qdiscDrops},
                          {"host_device_queue_drops", deviceQueueDrops},
                          {"link_loss_drops", links.randomLoss},
                          {"link_down_drops", links.linkDown}};
    if (allFast)
    {
        m_report["fabric"]["host_frames_sent"] = hostSent;
        m_report["fabric"]["host_frames_received"] = hostReceived;
        m_report["fabric"]["frames_in_flight"] = fabric.GetFramesInFlight();
    }
}

void
SprayExperiment::AddRunContext()
{
    m_report["config"] = m_config.ToJson();
    AddProvenance(m_report);
    m_report["policy"] = PolicyReport();
    m_report["topology"] = m_topology.Describe();
}

void
SprayExperiment::ReportFlowRun(const FabricHelper& fabric,
                               Ptr<FlowEndpoint> endpoint,
                               const HostCpuAccounting& hostCpu)
{
    const auto& c = m_config;
    m_report = SummaryToJson(m_summary, m_speed);
    AddRunContext();
    endpoint->AddReport(m_report);
    AddNetworkReport(fabric);
    ReportMix(fabric);
    // Cores over the arrival window, the same for every device and seed of a configuration:
    // averaged over the run's own length instead, a run that finishes later would look
    // cheaper for the same work. cycles_per_byte is the per-work figure.
    nlohmann::json cpu = hostCpu.Report(c.simTime);
    cpu["cores_basis"] = "arrival_window";
    cpu["run_seconds"] = m_speed.simS;
    if (nlohmann::json cores = hostCpu.CoresReport(m_speed.simS); !cores.is_null())
    {
        cpu["cores"] = cores; // over the whole run: all of the cores' work happened in it
    }
    m_report["host_cpu"] = cpu;
}

void
SprayExperiment::ReportRpcRun(const FabricHelper& fabric,
                              Ptr<RpcEndpoint> rpc,
                              Ptr<TcpSocketEndpoint> transport,
                              const HostCpuAccounting& hostCpu)
{
    const auto& c = m_config;
    m_report = nlohmann::json::object();
    AddRunContext();
    m_report["speed"] = SpeedToJson(m_speed);
    rpc->AddReport(m_report);
    nlohmann::json tcp;
    transport->AddReport(tcp);
    if (tcp.contains("tcp"))
    {
        m_report["tcp"] = tcp["tcp"];
    }
    AddNetworkReport(fabric);
    // cores over the run, the same window for every device; cycles per request is the
    // per-work figure (every response read, over the cycles of the whole run)
    nlohmann::json cpu = hostCpu.Report(c.simTime);
    cpu["cores_basis"] = "run";
    // per request, without the one-time setup of the persistent connections (host-tcp: the
    // handshakes; offload: the control plane's events), which a short run would otherwise
    // spread over few requests
    const HostCpuCounts& n = hostCpu.GetTotals();
    const HostCpuCosts costs = RunCosts();
    const double setup = n.connectionsOpened * costs.connectionSetup +
                         n.connectionsClosed * costs.connectionTeardown +
                         n.controlPlaneEvents * costs.controlPlaneEvent;
    const uint64_t answered = m_report["rpc"]["responses_read"].get<uint64_t>();
    cpu["setup_cycles"] = setup;
    cpu["cycles_per_request"] =
        answered > 0 ? (cpu["cycles"].get<double>() - setup) / answered : 0.0;
    if (nlohmann::json cores = hostCpu.CoresReport(c.simTime); !cores.is_null())
    {
        if (m_rpc.servers > 0)
        {
            // the servers apart: their cores are the ones a key-value study asks about
            std::vector<bool> servers(m_topology.GetNHosts(), false);
            for (uint32_t h = 0; h < m_rpc.servers; ++h)
            {
                servers[h] = true;
            }
            cores["servers"] = hostCpu.CoresReport(c.simTime, servers);
        }
        cpu["cores"] = cores;
    }
    m_report["host_cpu"] = cpu;
}

void
SprayExperiment::PrintFlowRun(const std::string& label, bool incast) const
{
    const auto& c = m_config;
    PrintSummaryTable(std::cout, label, m_summary, m_speed);
    std::cout << "delivery: " << m_report["delivery"].dump() << "\n"
              << "fabric:   " << m_report["fabric"].dump() << "\n"
              << (m_report.contains("nic") ? "nic:      " + m_report["nic"].dump() + "\n"
                                           : std::string())
              << "host cpu: " << HostCpuLine(m_report["host_cpu"]) << "\n";
    if (incast)
    {
        std::cout << IncastLines(m_report);
    }
    if (m_report.contains("by_device"))
    {
        for (const auto& [device, d] : m_report["by_device"].items())
        {
            std::cout << "sent by " << device << " (" << d["hosts"].get<uint32_t>()
                      << " hosts): " << ClassLine(d["overall"], d["unfinished"].get<uint64_t>())
                      << "\n";
        }
    }
    std::cout << "outputs:  " << PublishedFolder().string() << "/{fct.csv,summary.json,flows.txt"
              << (c.hpccFct ? ",fct.txt" : "") << (c.flowMonitor ? ",flowmon.xml" : "")
              << (incast ? ",incast.csv" : "")
              << (c.queueTrace > 0 ? ",queues.csv,switch-events.csv" : "")
              << (c.queueTrace > 0 && c.plot ? ",queues.png" : "") << (c.plot ? ",fct.png}" : "}")
              << std::endl;
}

void
SprayExperiment::PrintRpcRun() const
{
    const auto& c = m_config;
    const auto& r = m_report["rpc"];
    std::cout << (c.label.empty() ? c.device : c.label) << " rpc: " << r["connections_per_host"]
              << " connections per host x "
              << (c.rpcRate > 0 ? "open loop at " + std::to_string(c.rpcRate / 1e6) +
                                      " M offered/s per host, "
                                : r["outstanding"].dump() + " outstanding, ")
              << r["requests_per_s"].get<double>() << " requests/s, latency p50 "
              << r["latency_p50_us"].get<double>() << " us, p99 "
              << r["latency_p99_us"].get<double>() << " us, p99.99 "
              << r["latency_p9999_us"].get<double>() << " us\n"
              << "fabric:   " << m_report["fabric"].dump() << "\n"
              << (m_report.contains("nic") ? "nic:      " + m_report["nic"].dump() + "\n"
                                           : std::string())
              << "host cpu: " << HostCpuLine(m_report["host_cpu"]) << ", "
              << m_report["host_cpu"]["cycles_per_request"].get<double>() << " cycles/request\n"
              << "outputs:  " << PublishedFolder().string() << "/summary.json" << std::endl;
}

void
SprayExperiment::PrintCollectiveRun() const
{
    const auto& c = m_config;
    const auto& r = m_report["collective"];
    const std::string label = !c.label.empty() ? c.label : m_mix.empty() ? c.device : "mix";
    std::cout << label << " " << c.workload << ": " << r["ranks"] << " ranks x " << r["bytes"]
              << " bytes, " << r["iterations"] << " iteration(s), JCT "
              << r["jct_ns"].get<int64_t>() / 1e3 << " us, step p50 "
              << r["step_p50_ns"].get<double>() / 1e3 << " us, p99 "
              << r["step_p99_ns"].get<double>() / 1e3 << " us, slowest rank " << r["slowest_rank"]
              << " (host " << r["slowest_rank_host"] << ")"
              << (r["finished"].get<bool>() ? "" : ", NOT FINISHED") << "\n"
              << "delivery: " << r["bytes_delivered"] << " bytes, corrupt " << r["corrupt_bytes"]
              << ", excess " << r["excess_bytes"] << "\n"
              << "fabric:   " << m_report["fabric"].dump() << "\n"
              << (m_report.contains("nic") ? "nic:      " + m_report["nic"].dump() + "\n"
                                           : std::string())
              << "host cpu: " << HostCpuLine(m_report["host_cpu"]) << "\n"
              << "outputs:  " << PublishedFolder().string() << "/{collective.csv,summary.json}"
              << std::endl;
}

const std::vector<FctRecord>&
SprayExperiment::GetRecords() const
{
    return m_records;
}

const FctSummary&
SprayExperiment::GetSummary() const
{
    return m_summary;
}

const RunSpeed&
SprayExperiment::GetSpeed() const
{
    return m_speed;
}

const nlohmann::json&
SprayExperiment::GetReport() const
{
    return m_report;
}

const std::vector<FlowSpec>&
SprayExperiment::GetFlows() const
{
    return m_flows;
}

const FabricTopology&
SprayExperiment::GetTopology() const
{
    return m_topology;
}

} // namespace ns3
