/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "spray-experiment-config.h"

#include "experiment-options.h"

#include "ns3/abort.h"
#include "ns3/input-file.h"
#include "ns3/nic-design.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/row-parity.h"
#include "ns3/spray-experiment.h"

#include <algorithm>
#include <utility>
#include <variant>

namespace ns3
{

using namespace experiment;

namespace
{

/// instead of failing after the run.
void
CheckUtf8(const SprayExperimentConfig& c)
{
    const std::pair<const char*, const std::string*> options[] = {
        {"device", &c.device},
        {"fidelity", &c.fidelity},
        {"cc", &c.cc},
        {"classRules", &c.classRules},
        {"coraStrategy", &c.coraStrategy},
        {"intervals", &c.intervals},
        {"prestoPlacement", &c.prestoPlacement},
        {"lb", &c.lb},
        {"workload", &c.workload},
        {"hostStack", &c.hostStack},
        {"kvKeys", &c.kvKeys},
        {"kvValues", &c.kvValues},
        {"rpcRequest", &c.rpcRequest},
        {"rpcResponse", &c.rpcResponse},
        {"placement", &c.placement},
        {"pattern", &c.pattern},
        {"bursts", &c.bursts},
        {"mix", &c.mix},
        {"mixBy", &c.mixBy},
        {"flowFile", &c.flowFile},
        {"topology", &c.topology},
        {"hostRate", &c.hostRate},
        {"coreRate", &c.coreRate},
        {"linkDelay", &c.linkDelay},
        {"failLinks", &c.failLinks},
        {"degradeLinks", &c.degradeLinks},
        {"fabric", &c.fabric},
        {"buckets", &c.buckets},
        {"out", &c.out},
        {"label", &c.label}};
    for (const auto& [name, value] : options)
    {
        if (!IsValidUtf8(*value))
        {
            throw PrestoInputError(std::string("--") + name + "='" + InputExcerpt(*value) +
                                   "' is not valid UTF-8 (summary.json holds it as text)");
        }
    }
}

/**
 * \brief Refuse an option the command line gave for a mode that is off: it would be ignored
 * (an --rpc* option on a flow workload, a --burst* option with --bursts=off, --mixBy without
 * --mix, --k on a leaf-spine, ...). Only what the user wrote counts (c.given): defaults, and
 * the values a comparison or a sweep sets for its rows, never trigger it.
 * \param c the configuration
 */
void
CheckModeOptions(const SprayExperimentConfig& c)
{
    if (c.given.empty())
    {
        return;
    }
    const bool rpc = c.workload == "rpc" || c.workload == "kv";
    const bool collective = c.workload == "allreduce" || c.workload == "alltoall";
    const bool file = !c.flowFile.empty();
    const bool builtIn = c.topology == "leaf-spine" || c.topology == "fat-tree";
    const std::string workload =
        file && !rpc ? "this run replays --flowFile" : "this run's workload is " + c.workload;
    const std::string rpcWhy = "is an option of the RPC and key-value workloads "
                               "(--workload=rpc or kv); " +
                               workload + ": it would be ignored";
    const std::string fileTopology = "does not apply with --topology=" + c.topology +
                                     ": the topology file gives every node and link";
    const std::string flowsWhy =
        rpc ? "shapes the generated flows; --workload=" + c.workload +
                  " runs RPC connections instead (--rpc* options): it would be ignored"
        : collective
            ? "shapes the generated flows; --workload=" + c.workload +
                  " runs a collective alone (background flows beside it are not modelled "
                  "yet): it would be ignored"
            : "shapes the generated flows; --flowFile gives every flow: it would be ignored";

    struct Rule
    {
        std::vector<const char*> options; //!< the options of the mode
        bool active;                      //!< the mode is on
        std::string why;                  //!< why they would be ignored
    };

    const Rule rules[] = {
        {{"rpcConnections", "rpcOutstanding", "rpcRate", "rpcBacklog", "rpcServers", "serverCores"},
         rpc,
         rpcWhy},
        {{"collectiveBytes", "ranks", "placement", "iterations", "computeGap"},
         collective,
         "is an option of the collective workloads (--workload=allreduce or alltoall); " +
             workload + ": it would be ignored"},
        {{"flowMonitor"},
         !rpc && !collective,
         "watches the flows of the flow workloads; --workload=" + c.workload +
             " is not wired to FlowMonitor: it would be ignored"},
        {{"hpccFct"},
         !rpc && !collective,
         "writes the flows' completion times; --workload=" + c.workload +
             " measures requests or steps, not flows: it would be ignored"},
        {{"rpcRequest", "rpcResponse"},
         c.workload == "rpc",
         c.workload == "kv" ? "does not apply to --workload=kv: it sizes its messages from "
                              "--kvKeys and --kvValues"
                            : rpcWhy},
        {{"kvGets", "kvKeys", "kvValues"},
         c.workload == "kv",
         "is an option of the key-value workload (--workload=kv); " + workload +
             ": it would be ignored"},
        {{"rpcOutstanding"},
         c.rpcRate == 0,
         "is the closed loop's window: with --rpcRate > 0 requests arrive open-loop and "
         "--rpcBacklog bounds what a connection holds"},
        {{"rpcBacklog"},
         c.rpcRate > 0,
         "bounds the open loop's unanswered requests per connection; with --rpcRate=0 the "
         "closed loop of --rpcOutstanding runs: give --rpcRate > 0"},
        {{"serverCores"},
         c.rpcServers > 0,
         "sets the servers' cores: give --rpcServers > 0 (with 0 every host is a server and "
         "--hostCores applies)"},
        {{"burstInterval", "burstSenders", "burstBytes", "burstReceiver"},
         c.bursts != "off",
         "shapes the incast bursts, and --bursts is off: give --bursts=periodic or poisson"},
        {{"mixBy"},
         !c.mix.empty(),
         "says what --mix's fractions are of; no --mix is given (--device runs on every host)"},
        {{"k"},
         c.topology == "fat-tree",
         builtIn
             ? "is the fat-tree's arity; --topology is " + c.topology + ": give --topology=fat-tree"
             : fileTopology},
        {{"leaves", "spines", "hostsPerLeaf"},
         c.topology == "leaf-spine",
         builtIn ? "shapes the leaf-spine; --topology is " + c.topology + " (its size is --k)"
                 : fileTopology},
        {{"hostRate", "coreRate", "linkDelay"},
         builtIn,
         "does not apply with --topology=" + c.topology +
             ": the topology file gives every link's rate and delay"},
        {{"workload"},
         !file || rpc || collective,
         "names the flow-size distribution; --flowFile gives every flow: it would be ignored"},
        {{"load", "pattern", "maxFlows", "incastSenders"}, !rpc && !collective && !file, flowsWhy},
        {{"incastSenders"},
         c.pattern == "incast",
         "is the senders per event of --pattern=incast; --pattern is " + c.pattern +
             ": it would be ignored"},
    };
    for (const auto& rule : rules)
    {
        if (rule.active)
        {
            continue;
        }
        for (const char* option : rule.options)
        {
            const auto it = c.given.find(option);
            if (it != c.given.end())
            {
                throw PrestoInputError(std::string("--") + option + "=" + InputExcerpt(it->second) +
                                       " " + rule.why);
            }
        }
    }
}

/**
 * \brief The collective workloads' options that need no topology (--ranks beyond the hosts
 * is refused once the fabric is known, SprayExperiment::ConfigureCollective).
 * \param c the configuration
 */
void
CheckCollective(const SprayExperimentConfig& c)
{
    RequireOneOf("placement", c.placement, {"linear", "spread", "random"});
    if (c.ranks == 1)
    {
        throw PrestoInputError("--ranks=1: a collective needs at least 2 ranks (0: every host)");
    }
    if (c.collectiveBytes == 0)
    {
        throw PrestoInputError("--collectiveBytes=0: every rank's buffer needs at least one byte "
                               "per rank");
    }
    if (c.iterations == 0)
    {
        throw PrestoInputError("--iterations=0: the collective runs at least once");
    }
    CheckSeconds("computeGap", c.computeGap, false);
}

/// The endpoint, its NIC design and congestion control, and the switches' load balancing.
/// \return the options, in --PrintHelp's order
std::vector<SprayExperimentConfig::Option>
DesignOptions()
{
    using C = SprayExperimentConfig;
    return {
        {"device", "Endpoint on every host: " + Join(SprayExperiment::Devices()), &C::device},
        {"fidelity",
         "Presto reassembly fidelity K (out-of-order intervals): 0..16 or full; "
         "with --classRules one value per class, e.g. 2,0,full (default: "
         "ns3::PrestoNetDevice::ReassemblyFidelity, 1)",
         &C::fidelity},
        {"cc",
         "Congestion control of every host: " + Join(SprayExperiment::CongestionControls()) +
             " (native: each design's own; default: the device's CongestionControl "
             "attribute, window DCTCP)",
         &C::cc},
        {"classRules",
         "Presto classifier rules file mapping connections to fidelity classes",
         &C::classRules},
        {"coraStrategy",
         "Cora NIC/host partitioning strategy: cora (runtime controller), state "
         "(Gallium-like static), flow (iPipe-like flow groups)",
         &C::coraStrategy},
        {"intervals",
         "Presto: how a connection's K out-of-order intervals are assigned: "
         "ArrivalOrder (the first K runs) or PerPath (at most one per path label; "
         "needs --lb=label and ns3::OffloadNetDevice::PathLabels > 0) (default: "
         "ns3::PrestoNetDevice::IntervalPolicy, ArrivalOrder)",
         &C::intervals},
        {"prestoPlacement",
         "Presto: where the pipeline is: host (a NIC per host) or tor (the rack "
         "switch's one pipeline, shared by the rack's hosts: packet rate, connection "
         "slots, timer scan) (default: ns3::PrestoNetDevice::Placement, host)",
         &C::prestoPlacement},
        {"lb",
         "Load balancing in the switches: ecmp|spray|spray-rr|flowlet|label (the path "
         "the sending NIC chose, see OffloadNetDevice::PathLabels)",
         &C::lb},
    };
}

/// What the hosts send: the flow, RPC and key-value workloads, incast, the device mix.
/// \return the options, in --PrintHelp's order
std::vector<SprayExperimentConfig::Option>
WorkloadOptions()
{
    using C = SprayExperimentConfig;
    return {
        {"workload",
         "Flow-size CDF: websearch|datamining|hadoop or a CDF file path; or rpc, the "
         "closed-loop RPC workload (--rpc* options); or allreduce|alltoall, a collective "
         "(ring all-reduce, all-to-all) of --ranks ranks",
         &C::workload},
        {"apps",
         "Applications per host: a host's flows are dealt to applications 0..N-1 in "
         "turn, each with its own DMA channel to the NIC (needs offload NICs with "
         "--ns3::OffloadNetDevice::DmaChannels >= N)",
         &C::apps},
        {"rpcConnections",
         "rpc: persistent client connections each host opens to servers on the other "
         "hosts",
         &C::rpcConnections},
        {"rpcOutstanding", "rpc: requests in flight per connection", &C::rpcOutstanding},
        {"rpcRate",
         "rpc: open loop, requests/s each client host offers (Poisson, spread over its "
         "connections, whatever is answered); 0: the closed loop of --rpcOutstanding",
         &C::rpcRate},
        {"rpcBacklog",
         "rpc, open loop: unanswered requests a connection holds; an arrival beyond is "
         "refused at the client and counted",
         &C::rpcBacklog},
        {"rpcRequest",
         "rpc: request size, bytes, or a size distribution (a built-in CDF name or "
         "a CDF file)",
         &C::rpcRequest},
        {"rpcResponse", "rpc: response size, bytes, or a size distribution", &C::rpcResponse},
        {"rpcServers",
         "rpc, kv: hosts 0..N-1 serve and the others are clients (0: every host is both)",
         &C::rpcServers},
        {"serverCores",
         "rpc, kv with --rpcServers: host cores of each server (0: --hostCores)",
         &C::serverCores},
        {"kvGets", "kv: fraction of GETs among the requests (ETC: 30 per SET)", &C::kvGets},
        {"kvKeys", "kv: key sizes, bytes or a size distribution", &C::kvKeys},
        {"kvValues", "kv: value sizes, bytes or a size distribution", &C::kvValues},
        {"collectiveBytes",
         "allreduce, alltoall: each rank's buffer S, bytes (the ring sends 2(N-1) chunks of "
         "S/N; the all-to-all S/N to every other rank)",
         &C::collectiveBytes},
        {"ranks", "allreduce, alltoall: ranks N, one per host (0: every host)", &C::ranks},
        {"placement",
         "allreduce, alltoall: ranks on hosts: linear (rank i on host i), spread "
         "(round-robin over the racks) or random (from --seed)",
         &C::placement},
        {"iterations", "allreduce, alltoall: times the collective runs", &C::iterations},
        {"computeGap",
         "allreduce, alltoall: a rank's compute time between its iterations, seconds",
         &C::computeGap},
        {"load", "Offered load, fraction of host NIC bandwidth (0,1]", &C::load},
        {"pattern", "Traffic pattern: all-to-all|permutation|incast", &C::pattern},
        {"incastSenders", "Senders per incast event", &C::incastSenders},
        {"bursts",
         "Incast bursts on top of the background flows: off|periodic|poisson",
         &C::bursts},
        {"burstInterval",
         "Incast bursts: periodic, the gap between bursts; poisson, its mean; seconds",
         &C::burstInterval},
        {"burstSenders", "Incast bursts: senders per burst", &C::burstSenders},
        {"burstBytes", "Incast bursts: bytes each sender sends per burst", &C::burstBytes},
        {"burstReceiver",
         "Incast bursts: receiver host index of every burst (-1: a random one each)",
         &C::burstReceiver},
        {"mix",
         "Mixed fabric instead of --device: device:fraction,... of the hosts (or "
         "leaves, --mixBy), e.g. presto:0.5,host-tcp:0.5",
         &C::mix},
        {"mixBy",
         "The mix's fractions are of: host (blocks of hosts in host order) or leaf "
         "(blocks of leaves, every host its leaf's device)",
         &C::mixBy},
    };
}

/// The fabric: its traces, topology, links, failures and losses (and a replayed flow file).
/// \return the options, in --PrintHelp's order
std::vector<SprayExperimentConfig::Option>
FabricOptions()
{
    using C = SprayExperimentConfig;
    return {
        {"queueTrace",
         "Sample every switch port's queue at this interval, seconds, and record drops "
         "and ECN marks: queues.csv, switch-events.csv, queues.png (0: off)",
         &C::queueTrace},
        {"flowFile", "Replay this HPCC flow file instead of generating flows", &C::flowFile},
        {"topology",
         "Fabric: leaf-spine|fat-tree, or a topology file (HPCC topology.txt or "
         "presto-topology; e.g. data/topology/leaf-spine-4x4x8.txt)",
         &C::topology},
        {"leaves", "Leaf switches (leaf-spine)", &C::leaves},
        {"spines", "Spine switches (leaf-spine)", &C::spines},
        {"hostsPerLeaf", "Hosts per leaf (leaf-spine)", &C::hostsPerLeaf},
        {"k", "Fat-tree arity k (even)", &C::fatTreeK},
        {"hostRate", "Host link rate (e.g. 10Gbps)", &C::hostRate},
        {"coreRate", "Switch-to-switch link rate (e.g. 40Gbps)", &C::coreRate},
        {"linkDelay", "Propagation delay of every link (e.g. 1us)", &C::linkDelay},
        {"failLinks", "Links to fail: a-b[@time],... (e.g. leaf0-spine1@5ms)", &C::failLinks},
        {"degradeLinks",
         "Links to slow down: a-b:rate[@time],... (e.g. leaf0-spine1:10Gbps)",
         &C::degradeLinks},
        {"fabric",
         "Switch model: presto (module switch) | ns3-routers (ns-3 IP routers, "
         "per-packet random ECMP; reference for speed comparisons)",
         &C::fabric},
        {"links",
         "Link model: auto (fast; p2p with --fabric=ns3-routers) | p2p (ns-3 "
         "point-to-point) | fast (FabricLinkNetDevice: one event per packet-hop, no "
         "copy; every link, offload NICs' included)",
         &C::links},
        {"lossRate",
         "Random loss probability of every packet on every switch-to-switch link",
         &C::lossRate},
    };
}

/// How long the run is, what it counts, its seed and the hosts' stack.
/// \return the options, in --PrintHelp's order
std::vector<SprayExperimentConfig::Option>
RunOptions()
{
    using C = SprayExperimentConfig;
    return {
        {"simTime", "Flows arrive during [0, simTime), seconds", &C::simTime},
        {"drainTime", "Then wait at most this long for flows to finish, seconds", &C::drainTime},
        {"warmup", "Flows starting before this are not counted, seconds", &C::warmup},
        {"buckets",
         "Flow-size bucket upper edges, bytes: e1,e2,... (default: per CDF)",
         &C::buckets},
        {"maxFlows", "Cap on generated flows (0: none)", &C::maxFlows},
        {"seed", "Run number for ns-3's random streams", &C::seed},
        {"hostStack",
         "Cost profile of ns-3's TCP on the hosts: linux (ns3::HostCpu's attributes) or "
         "tas (a kernel-bypass stack: a quarter of the per-packet and per-connection "
         "costs, assumed)",
         &C::hostStack},
        {"hostCores",
         "Host cores per host that serve the host's work in simulated time (ns-3's "
         "TCP/IP, the offload NICs' host side, the application); 0: unlimited, work "
         "is counted and takes no time",
         &C::hostCores},
        {"hostParity",
         "Hold ns-3's TCP hosts' egress and ACK policy equal to the offload NICs': "
         "per-flow fair queueing (ns3::FqCoDelQueueDisc with CoDel off) over a device "
         "queue of the NICs' wire commitment (OffloadNetDevice::TxQueueTime, "
         "TxQueuePackets) and an ACK per segment; 0: ns-3's FIFO and delayed ACKs",
         &C::hostParity},
    };
}

/// What the run writes and prints, and what it may take.
/// \return the options, in --PrintHelp's order
std::vector<SprayExperimentConfig::Option>
OutputOptions()
{
    using C = SprayExperimentConfig;
    return {
        {"pcap", "Write pcap traces of host links into the output directory", &C::pcap},
        {"verifyPayload",
         "Send each flow's bytes as a pattern and compare every byte received "
         "(slower); 0: zero-filled virtual payload, delivery checked by counting",
         &C::verifyPayload},
        {"plot", "Write fct.png", &C::plot},
        {"quiet", "Do not print the table (and no progress lines)", &C::quiet},
        {"progress",
         "Print the run's progress (simulated time, events/s, ETA) to stderr every this "
         "many seconds of wall time; 0: never. Output files are the same either way",
         &C::progress},
        {"hpccFct",
         "Also write fct.txt in HPCC's format (sip dip sport dport size start_ns fct_ns "
         "standalone_fct_ns, addresses in hex)",
         &C::hpccFct},
        {"flowMonitor",
         "Run ns-3's FlowMonitor on every node, the offload NICs' frames and the "
         "fabric's drops included (OffloadFlowMonitorHelper), and write flowmon.xml",
         &C::flowMonitor},
        {"allowUnfinished",
         "Accept a run with flows unfinished at the end of the drain, connections that "
         "failed to open or no RPC request measured (exit 0, outputs in --out); "
         "without it such a run exits 3 and leaves its outputs in OUT.partial",
         &C::allowUnfinished},
        {"maxMemory",
         "Memory the run may take, GB (0: the machine's available memory); a run whose "
         "estimate is larger is refused before it is built",
         &C::maxMemory},
        {"out", "Output directory for fct.csv, summary.json, flows.txt, fct.png", &C::out},
        {"label", "Run label for tables and plots (default: the device, or mix)", &C::label},
    };
}

/**
 * \brief Register one option on a command line, into a configuration's field.
 * \param c the configuration \param cmd the command line \param o the option \param help
 * its help text
 */
void
AddOption(SprayExperimentConfig& c,
          PrestoCommandLine& cmd,
          const SprayExperimentConfig::Option& o,
          const std::string& help)
{
    std::visit([&](auto field) { cmd.AddValue(o.name, help, c.*field); }, o.field);
}

} // namespace

std::vector<SprayExperimentConfig::Option>
SprayExperimentConfig::Options()
{
    std::vector<Option> options;
    for (auto table : {DesignOptions, WorkloadOptions, FabricOptions, RunOptions, OutputOptions})
    {
        for (Option& o : table())
        {
            options.push_back(std::move(o));
        }
    }
    return options;
}

void
SprayExperimentConfig::AddToCommandLine(PrestoCommandLine& cmd)
{
    cmd.RecordGiven(&given);
    for (const Option& o : Options())
    {
        AddOption(*this, cmd, o, o.help);
    }
}

void
SprayExperimentConfig::AddToCommandLine(PrestoCommandLine& cmd,
                                        const std::vector<SharedOption>& shared)
{
    const std::vector<Option> options = Options();
    for (const SharedOption& s : shared)
    {
        const auto o = std::find_if(options.begin(), options.end(), [&s](const Option& x) {
            return s.name == x.name;
        });
        NS_ABORT_MSG_IF(o == options.end(), "SprayExperimentConfig has no option --" + s.name);
        AddOption(*this, cmd, *o, s.help.empty() ? o->help : s.help);
    }
}

nlohmann::json
SprayExperimentConfig::ToJson() const
{
    nlohmann::json j = ToJsonCommon();
    if (workload == "allreduce" || workload == "alltoall")
    {
        // only for a collective: the other workloads' config sections stay as they were
        j["collective_bytes"] = collectiveBytes;
        j["ranks"] = ranks;
        j["placement"] = placement;
        j["iterations"] = iterations;
        j["compute_gap_s"] = computeGap;
    }
    return j;
}

nlohmann::json
SprayExperimentConfig::ToJsonCommon() const
{
    return {{"device", mix.empty() ? device : std::string("mix")},
            {"fidelity", fidelity},
            {"verify_payload", verifyPayload},
            {"apps", apps},
            {"rpc_connections", rpcConnections},
            {"rpc_outstanding", rpcOutstanding},
            {"rpc_rate", rpcRate},
            {"rpc_backlog", rpcBacklog},
            {"rpc_request", rpcRequest},
            {"rpc_response", rpcResponse},
            {"rpc_servers", rpcServers},
            {"server_cores", serverCores},
            {"kv_gets", kvGets},
            {"kv_keys", kvKeys},
            {"kv_values", kvValues},
            {"cc", cc},
            {"cora_strategy", coraStrategy},
            {"intervals", intervals},
            {"presto_placement", prestoPlacement},
            {"class_rules", classRules},
            {"lb", lb},
            {"workload", workload},
            {"load", load},
            {"pattern", pattern},
            {"incast_senders", incastSenders},
            {"bursts", bursts},
            {"burst_interval_s", burstInterval},
            {"burst_senders", burstSenders},
            {"burst_bytes", burstBytes},
            {"burst_receiver", burstReceiver},
            {"queue_trace_s", queueTrace},
            {"mix", mix},
            {"mix_by", mixBy},
            {"flow_file", flowFile},
            {"topology", topology},
            {"leaves", leaves},
            {"spines", spines},
            {"hosts_per_leaf", hostsPerLeaf},
            {"k", fatTreeK},
            {"host_rate", hostRate},
            {"core_rate", coreRate},
            {"link_delay", linkDelay},
            {"fail_links", failLinks},
            {"degrade_links", degradeLinks},
            {"fabric", fabric},
            {"links", links},
            {"loss_rate", lossRate},
            {"sim_time_s", simTime},
            {"drain_time_s", drainTime},
            {"allow_unfinished", allowUnfinished},
            {"max_memory", maxMemory},
            {"warmup_s", warmup},
            {"buckets", buckets},
            {"max_flows", maxFlows},
            {"seed", seed},
            {"host_cores", hostCores},
            {"host_stack", hostStack},
            {"host_parity", hostParity},
            {"label",
             !label.empty() ? label
             : mix.empty()  ? device
                            : std::string("mix")}};
}

void
SprayExperimentConfig::Validate()
{
    const auto& c = *this;
    CheckUtf8(c);
    CheckModeOptions(c);
    device = NicDesign::Canonical(c.device, "--device");
    RequireOneOf("hostStack", c.hostStack, {"linux", "tas"});
    if (c.hostParity)
    {
        RowParity::CheckUserSettings();
    }
    if (!c.cc.empty())
    {
        RequireOneOf("cc", c.cc, SprayExperiment::CongestionControls());
    }
    if (!c.intervals.empty())
    {
        // checked here: an enum attribute given an unknown name asserts inside ns-3
        RequireOneOf("intervals", c.intervals, {"ArrivalOrder", "PerPath"});
    }
    if (!c.prestoPlacement.empty())
    {
        RequireOneOf("prestoPlacement", c.prestoPlacement, {"host", "tor"});
    }
    if (c.workload == "allreduce" || c.workload == "alltoall")
    {
        CheckCollective(c);
    }
}

void
SprayExperimentConfig::ValidateRun()
{
    const auto& c = *this;
    RequireOneOf("lb", c.lb, {"ecmp", "spray", "spray-rr", "flowlet", "label"});
    if (c.intervals == "PerPath" && c.lb != "label")
    {
        // the labels would not name paths: the switches choose the path, not the sender
        throw PrestoInputError("PrestoNetDevice::IntervalPolicy=PerPath (--intervals) assigns "
                               "intervals by the path label the sender chose; with --lb=" +
                               c.lb +
                               " the switches choose the path instead: use --lb=label (and "
                               "ns3::OffloadNetDevice::PathLabels > 0)");
    }
    RequireOneOf("fabric", c.fabric, {"presto", "ns3-routers"});
    RequireOneOf("links", c.links, {"auto", "p2p", "fast"});
    if (c.links == "auto")
    {
        // ns-3's routers need ns-3's devices; the module's switches take the fast link
        links = c.fabric == "ns3-routers" ? "p2p" : "fast";
    }
    if (c.links == "fast" && c.fabric == "ns3-routers")
    {
        throw PrestoInputError("--links=fast needs the module's switches: use --links=p2p with "
                               "--fabric=ns3-routers");
    }
    CheckSeconds("queueTrace", c.queueTrace, false);
    if (c.queueTrace > 0 && c.fabric == "ns3-routers")
    {
        throw PrestoInputError("--queueTrace traces the module's switches: it does not apply "
                               "with --fabric=ns3-routers");
    }
    if (c.queueTrace > 0 && c.queueTrace < 1e-9)
    {
        throw PrestoInputError("--queueTrace=" + std::to_string(c.queueTrace) +
                               " is below 1 ns, ns-3's time step");
    }
    if (c.fabric == "ns3-routers" && c.lb != "spray")
    {
        throw PrestoInputError("--fabric=ns3-routers only offers per-packet random ECMP: use "
                               "--lb=spray with it");
    }
    if (!(c.lossRate >= 0 && c.lossRate < 1))
    {
        throw PrestoInputError("--lossRate=" + std::to_string(c.lossRate) + " must be in [0, 1)");
    }
    if (!(c.load > 0 && c.load <= 1))
    {
        throw PrestoInputError("--load=" + std::to_string(c.load) + " must be in (0, 1]");
    }
    if (!(c.maxMemory >= 0))
    {
        throw PrestoInputError("--maxMemory=" + std::to_string(c.maxMemory) +
                               " must be >= 0 (GB; 0: the machine's available memory)");
    }
    CheckSeconds("simTime", c.simTime, true);
    CheckSeconds("drainTime", c.drainTime, false);
    CheckSeconds("warmup", c.warmup, false);
    CheckSeconds("progress", c.progress, false); // wall seconds; MAX_SECONDS is plenty
    if (c.warmup >= c.simTime)
    {
        throw PrestoInputError("--warmup=" + std::to_string(c.warmup) +
                               " must be below --simTime=" + std::to_string(c.simTime) +
                               " (flows starting before it are not counted)");
    }
}

} // namespace ns3
