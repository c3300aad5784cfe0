/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "experiment-options.h"

#include "ns3/experiment-random.h"
#include "ns3/fabric-size.h"
#include "ns3/flow-file.h"
#include "ns3/flow-generator.h"
#include "ns3/ideal-fct.h"
#include "ns3/incast-bursts.h"
#include "ns3/input-file.h"
#include "ns3/nic-design.h"
#include "ns3/offload-window-congestion.h"
#include "ns3/presto-input-error.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/splitmix.h"
#include "ns3/spray-experiment.h"
#include "ns3/tcp-dctcp.h"
#include "ns3/topology-file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <unistd.h>

namespace ns3
{

namespace
{
/// Most (iteration, step, rank) records a collective keeps: 10^8, about 4 GB with their
/// byte counts (a 128-rank ring all-reduce of 254 steps runs about 3,000 iterations)
constexpr uint64_t COLLECTIVE_MAX_RECORDS = 100000000;
} // namespace

using namespace experiment;

namespace
{

/// RNG stream numbers: fixed so that a run depends only on the seed (run number).
constexpr int64_t WORKLOAD_STREAM = 1;
constexpr int64_t INCAST_STREAM = 2;

/// Node names for --failLinks: the topology's own (leaf-spine: hostN, leafN, spineN; fat-tree:
/// hostN, edgeN, aggN, coreN; a topology file: its node names), and hostN for any host.
uint32_t
NodeByName(const FabricTopology& topo, const std::string& name)
{
    uint32_t node = 0;
    if (topo.FindNode(name, node))
    {
        return node;
    }
    if (name.compare(0, 4, "host") == 0 && name.size() > 4)
    {
        std::istringstream is(name.substr(4));
        uint32_t index = 0;
        if (is >> index && is.eof() && index < topo.GetNHosts())
        {
            return topo.HostNode(index);
        }
    }
    std::string examples;
    for (uint32_t n = 0; n < topo.GetNNodes() && n < 4; ++n)
    {
        examples += (examples.empty() ? "" : ", ") + topo.GetNodeName(n);
    }
    throw PrestoInputError("no node named '" + InputExcerpt(name) + "' in this fabric (" +
                           topo.Describe() + "; names such as " + examples + ", host<i>)");
}

} // namespace

SprayExperiment::SprayExperiment(const SprayExperimentConfig& config)
    : m_config(config)
{
    // the order of the checks is the order of the messages: the first problem is named
    m_config.Validate();
    ResolveDesigns(config);
    m_config.ValidateRun();
    BuildTopology();
    CheckMemory(0);
    // link failures and degradations: "a-b[:rate][@time]"
    ParseLinkChanges(m_config.failLinks, false);
    ParseLinkChanges(m_config.degradeLinks, true);
    AssignMix();

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(m_config.seed);
    if (IsRpc())
    {
        ConfigureRpc();
    }
    else if (IsCollective())
    {
        ConfigureCollective();
    }
    else
    {
        MakeFlows();
    }
    AddBurstsAndApplications();
    if (!IsRpc() && !IsCollective())
    {
        ComputeIdealFcts();
    }
    CheckMemory(m_flows.size());
    ChooseBucketEdges();
}

void
SprayExperiment::BuildTopology()
{
    const auto& c = m_config;
    double hostRate = ParseRate("hostRate", c.hostRate);
    double coreRate = ParseRate("coreRate", c.coreRate);
    int64_t delayNs = ParseTimeNs("linkDelay", c.linkDelay);
    if (c.topology != "leaf-spine" && c.topology != "fat-tree")
    {
        // a topology file gives every link's rate and delay: the shape options do not apply
        const SprayExperimentConfig defaults;
        const std::pair<const char*, bool> shape[] = {
            {"hostRate", c.hostRate != defaults.hostRate},
            {"coreRate", c.coreRate != defaults.coreRate},
            {"linkDelay", c.linkDelay != defaults.linkDelay},
            {"leaves", c.leaves != defaults.leaves},
            {"spines", c.spines != defaults.spines},
            {"hostsPerLeaf", c.hostsPerLeaf != defaults.hostsPerLeaf},
            {"k", c.fatTreeK != defaults.fatTreeK}};
        for (const auto& [option, given] : shape)
        {
            if (given)
            {
                throw PrestoInputError(
                    std::string("--") + option +
                    " does not apply with --topology=" + InputExcerpt(c.topology) +
                    ": the topology file gives every link's rate and delay");
            }
        }
        std::error_code ec; // a name too long for the file system is a name that is not there
        if (!IsRegularInputFile(c.topology) && !std::filesystem::exists(c.topology, ec))
        {
            throw PrestoInputError("--topology=" + InputExcerpt(c.topology) +
                                   " is not valid; valid values: leaf-spine, fat-tree, or a "
                                   "topology file (HPCC topology.txt or presto-topology)");
        }
        m_topology = WithOption("topology", [&c] { return ReadTopologyFile(c.topology); });
        // the load is a fraction of the summed host NIC bandwidth: the generator's host rate is
        // the hosts' mean link rate
        double sum = 0;
        for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
        {
            const uint32_t link = m_topology.GetPorts(m_topology.HostNode(h))[0];
            sum += m_topology.GetLinks()[link].rateBps;
        }
        hostRate = sum / m_topology.GetNHosts();
    }
    else
    {
        // counted from the shape first: a shape too large is refused before it is built
        const bool leafSpine = c.topology == "leaf-spine";
        const FabricSize size = leafSpine
                                    ? FabricSize::LeafSpine(c.leaves, c.spines, c.hostsPerLeaf)
                                    : FabricSize::FatTree(c.fatTreeK);
        const std::string problem = FabricLimitProblem(size);
        if (!problem.empty())
        {
            throw PrestoInputError((leafSpine
                                        ? "--leaves=" + std::to_string(c.leaves) +
                                              " --spines=" + std::to_string(c.spines) +
                                              " --hostsPerLeaf=" + std::to_string(c.hostsPerLeaf)
                                        : "--topology=fat-tree --k=" + std::to_string(c.fatTreeK)) +
                                   " gives " + problem);
        }
    }
    if (c.topology == "leaf-spine")
    {
        m_topology = FabricTopology::LeafSpine(c.leaves,
                                               c.spines,
                                               c.hostsPerLeaf,
                                               hostRate,
                                               coreRate,
                                               delayNs);
    }
    else if (c.topology == "fat-tree")
    {
        m_topology = FabricTopology::FatTree(c.fatTreeK, hostRate, coreRate, delayNs);
    }
    if (const std::string problem = FabricLimitProblem(FabricSize::Of(m_topology));
        !problem.empty())
    {
        throw PrestoInputError("--topology=" + InputExcerpt(c.topology) + " gives " + problem);
    }
    m_hostRateBps = hostRate;
}

void
SprayExperiment::ParseLinkChanges(const std::string& list, bool withRate)
{
    std::istringstream is(list);
    std::string item;
    const char* option = withRate ? "degradeLinks" : "failLinks";
    while (std::getline(is, item, ','))
    {
        LinkChange change{0, 0, 0};
        std::string spec = item;
        size_t at = spec.find('@');
        if (at != std::string::npos)
        {
            change.atS = ParseTimeNs(option, spec.substr(at + 1)) * 1e-9;
            spec = spec.substr(0, at);
        }
        if (withRate)
        {
            size_t colon = spec.find(':');
            if (colon == std::string::npos)
            {
                throw PrestoInputError(std::string("--") + option + ": '" + item +
                                       "' lacks ':rate'");
            }
            change.rateBps = ParseRate(option, spec.substr(colon + 1));
            spec = spec.substr(0, colon);
        }
        size_t dash = spec.find('-');
        if (dash == std::string::npos)
        {
            throw PrestoInputError(std::string("--") + option + ": '" + item +
                                   "' is not of the form a-b");
        }
        uint32_t a = 0;
        uint32_t b = 0;
        try
        {
            a = NodeByName(m_topology, spec.substr(0, dash));
            b = NodeByName(m_topology, spec.substr(dash + 1));
        }
        catch (const PrestoInputError& e)
        {
            throw PrestoInputError(std::string("--") + option + ": " + e.what());
        }
        try
        {
            change.link = m_topology.FindLink(a, b);
        }
        catch (const PrestoInputError&)
        {
            // name the option and the nodes as the user wrote them, not node ids
            throw PrestoInputError(std::string("--") + option + ": no link " + InputExcerpt(spec) +
                                   " in topology " + m_topology.Describe());
        }
        m_linkChanges.push_back(change);
    }
}

void
SprayExperiment::ConfigureRpc()
{
    const auto& c = m_config;
    if (!c.flowFile.empty())
    {
        throw PrestoInputError("--workload=" + c.workload + " and --flowFile exclude each other");
    }
    m_rpc.hosts = m_topology.GetNHosts();
    m_rpc.connectionsPerHost = c.rpcConnections;
    m_rpc.outstanding = c.rpcOutstanding;
    m_rpc.ratePerHost = c.rpcRate;
    m_rpc.backlog = c.rpcBacklog;
    m_rpc.seed = SplitMix64(uint64_t(RngSeedManager::GetSeed()) << 32 | RngSeedManager::GetRun());
    m_rpc.servers = c.rpcServers;
    m_rpc.Validate();
    if (c.serverCores > 0 && c.rpcServers == 0)
    {
        throw PrestoInputError("--serverCores=" + std::to_string(c.serverCores) +
                               " sets the servers' cores: give --rpcServers > 0 (with 0 "
                               "every host is a server and --hostCores applies)");
    }
    if (c.serverCores > 0 && c.hostCores == 0)
    {
        throw PrestoInputError("--serverCores needs --hostCores > 0: the clients' host work "
                               "would take no time while the servers' does");
    }
    if (c.workload == "kv")
    {
        if (c.rpcRequest != "64" || c.rpcResponse != "64")
        {
            throw PrestoInputError("--workload=kv sizes its messages from --kvKeys and "
                                   "--kvValues: --rpcRequest and --rpcResponse do not apply");
        }
        if (!(c.kvGets >= 0 && c.kvGets <= 1))
        {
            throw PrestoInputError("--kvGets=" + std::to_string(c.kvGets) +
                                   " must be a fraction in [0, 1]");
        }
        m_kv = std::make_unique<RpcKvMix>();
        m_kv->getFraction = c.kvGets;
        m_kv->keys = RpcSizes::FromSpec(c.kvKeys, "--kvKeys");
        m_kv->values = RpcSizes::FromSpec(c.kvValues, "--kvValues");
    }
    m_rpcRequest = std::make_unique<RpcSizes>(RpcSizes::FromSpec(c.rpcRequest, "--rpcRequest"));
    m_rpcResponse = std::make_unique<RpcSizes>(RpcSizes::FromSpec(c.rpcResponse, "--rpcResponse"));
    // connections open one every 200 ns per host (at least over 100 us, at most over the
    // first quarter of the run: a storm of handshakes at one instant is not the point);
    // the measurement starts after twice that unless --warmup says when
    m_rpcOpen = std::min(Seconds(c.simTime / 4),
                         std::max(MicroSeconds(100), NanoSeconds(200) * c.rpcConnections));
    if (c.warmup == 0)
    {
        m_config.warmup = 2 * m_rpcOpen.GetSeconds();
    }
}

void
SprayExperiment::ConfigureCollective()
{
    const auto& c = m_config;
    if (!c.flowFile.empty())
    {
        throw PrestoInputError("--workload=" + c.workload + " and --flowFile exclude each other");
    }
    const uint32_t hosts = m_topology.GetNHosts();
    const uint32_t ranks = c.ranks == 0 ? hosts : c.ranks;
    if (ranks > hosts)
    {
        throw PrestoInputError("--ranks=" + std::to_string(ranks) + " is more than the " +
                               std::to_string(hosts) + " hosts of " + m_topology.Describe() +
                               " (one rank per host)");
    }
    m_collective = std::make_unique<CollectiveSchedule>(CollectiveKindFromString(c.workload),
                                                        ranks,
                                                        c.collectiveBytes);
    // every (iteration, step, rank) keeps a record and a byte count for the whole run
    const uint64_t records = uint64_t{m_collective->GetSteps()} * c.iterations * ranks;
    if (records > COLLECTIVE_MAX_RECORDS)
    {
        throw PrestoInputError(
            "--iterations=" + std::to_string(c.iterations) + " with " + std::to_string(ranks) +
            " ranks of --workload=" + c.workload + " (" + std::to_string(m_collective->GetSteps()) +
            " steps) keeps " + std::to_string(records) + " step records (" +
            std::to_string((records * (sizeof(CollectiveStepRecord) + sizeof(uint64_t))) >> 20) +
            " MiB), more than the limit of " + std::to_string(COLLECTIVE_MAX_RECORDS) +
            ": run fewer iterations");
    }
    // a host's rack: the switch at the other end of its first link
    std::vector<uint32_t> rackOfHost(hosts);
    for (uint32_t h = 0; h < hosts; ++h)
    {
        const uint32_t node = m_topology.HostNode(h);
        const auto& ports = m_topology.GetPorts(node);
        const auto& link = m_topology.GetLinks().at(ports.at(0));
        rackOfHost[h] = link.a == node ? link.b : link.a;
    }
    m_hostOfRank = PlaceRanks(
        ranks,
        rackOfHost,
        CollectivePlacementFromString(c.placement),
        SplitMix64(uint64_t(RngSeedManager::GetSeed()) << 32 | RngSeedManager::GetRun()));
}

void
SprayExperiment::MakeFlows()
{
    const auto& c = m_config;
    if (!c.flowFile.empty())
    {
        m_flows = WithOption("flowFile", [this, &c] {
            return ReadFlowFile(c.flowFile, m_topology.GetNHosts());
        });
    }
    else
    {
        m_cdf = std::make_unique<FlowSizeCdf>(
            WithOption("workload", [&c] { return FlowSizeCdf::Load(c.workload); }));
        FlowGeneratorConfig g;
        g.nHosts = m_topology.GetNHosts();
        g.load = c.load;
        g.hostRateBps = m_hostRateBps;
        g.startNs = 0;
        g.durationNs = static_cast<int64_t>(c.simTime * 1e9);
        g.pattern = WithOption("pattern", [&c] { return TrafficPatternFromString(c.pattern); });
        g.incastSenders = c.incastSenders;
        g.maxFlows = c.maxFlows;
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(WORKLOAD_STREAM);
        try
        {
            m_flows = GenerateFlows(g, *m_cdf, u);
        }
        catch (const PrestoInputError& e)
        {
            throw PrestoInputError(std::string(e.what()) +
                                   " (--workload, --load, --hostRate, --simTime, "
                                   "--maxFlows)");
        }
    }
}

void
SprayExperiment::AddBurstsAndApplications()
{
    const auto& c = m_config;
    const BurstArrivals arrivals = BurstArrivalsFromString(c.bursts, "bursts");
    if (arrivals != BurstArrivals::OFF && (IsRpc() || IsCollective()))
    {
        throw PrestoInputError(
            "--bursts=" + c.bursts +
            " adds incast flows to a flow workload, not to --workload=" + c.workload);
    }
    AddIncastBursts();
    if (c.apps == 0)
    {
        throw PrestoInputError("--apps=0: a host needs at least 1 application");
    }
    if (c.apps > 1)
    {
        if (IsRpc() || IsCollective())
        {
            throw PrestoInputError("--apps deals flows to applications; the " + c.workload +
                                   " workload's connections belong to one application per "
                                   "host");
        }
        // a host's flows go to its applications in turn, in start order
        std::vector<uint32_t> next(m_topology.GetNHosts(), 0);
        for (FlowSpec& f : m_flows)
        {
            f.app = next[f.src]++ % c.apps;
        }
    }
    if (!IsRpc() && (c.rpcServers > 0 || c.serverCores > 0))
    {
        throw PrestoInputError("--rpcServers and --serverCores give the RPC and key-value "
                               "workloads' servers: give --workload=rpc or --workload=kv");
    }
    if (!IsRpc() && (c.rpcRate != 0 || c.rpcBacklog != SprayExperimentConfig{}.rpcBacklog))
    {
        throw PrestoInputError("--rpcRate and --rpcBacklog set the RPC and key-value "
                               "workloads' open loop: give --workload=rpc or --workload=kv");
    }
}

void
SprayExperiment::ComputeIdealFcts()
{
    // Every flow's ideal FCT now, from the path it takes on the idle fabric: a flow whose
    // ideal FCT does not fit in ns-3's time stops the run here, before anything is written.
    const auto& c = m_config;
    // the wire each flow sees: ns-3's TCP puts timestamps on data only when both ends run
    // it; an offload NIC's SYN and SYN-ACK carry only the window scale
    const WireModel hostWire = MakeEndpoint("host-tcp", TcpDctcp::GetTypeId())->GetWireModel();
    const WireModel nicWire =
        MakeEndpoint("presto", OffloadDctcpCongestion::GetTypeId())->GetWireModel();
    const WireModel runWire = MakeEndpoint(c.device, m_ccType)->GetWireModel();
    auto wireOf = [&](const FlowSpec& f) {
        if (m_mix.empty())
        {
            return runWire;
        }
        const bool srcHost = HostDevice(f.src) == "host-tcp";
        const bool dstHost = HostDevice(f.dst) == "host-tcp";
        WireModel w = srcHost && dstHost ? hostWire : nicWire;
        w.synBytes = srcHost ? hostWire.synBytes : nicWire.synBytes;
        w.synAckBytes = dstHost && srcHost ? hostWire.synAckBytes : nicWire.synAckBytes;
        return w;
    };
    std::map<std::pair<uint32_t, uint32_t>, std::vector<PathHop>> paths;
    m_records.reserve(m_flows.size());
    for (const auto& f : m_flows)
    {
        auto key = std::make_pair(f.src, f.dst);
        auto p = paths.find(key);
        if (p == paths.end())
        {
            p = paths.emplace(key, m_topology.BestPath(f.src, f.dst)).first;
        }
        FctRecord r;
        r.flow = f;
        try
        {
            r.idealNs = IdealFctNs(f.sizeBytes, p->second, wireOf(f));
        }
        catch (const PrestoInputError& e)
        {
            std::ostringstream os;
            os << (c.flowFile.empty() ? "workload '" + c.workload + "'"
                                      : "--flowFile=" + c.flowFile)
               << ": flow " << f.id << " (host " << f.src << " to " << f.dst << ", " << f.sizeBytes
               << " bytes): " << e.what();
            throw PrestoInputError(os.str());
        }
        m_records.push_back(r);
    }
    std::sort(m_records.begin(), m_records.end(), [](const FctRecord& a, const FctRecord& b) {
        return a.flow.id < b.flow.id;
    });
}

void
SprayExperiment::ChooseBucketEdges()
{
    const auto& c = m_config;
    if (!c.buckets.empty())
    {
        m_edges = ParseEdges(c.buckets);
    }
    else if (m_cdf)
    {
        m_edges = m_cdf->DefaultBucketEdges();
    }
    else
    {
        m_edges = {10000, 100000, 1000000, 10000000};
    }
}

SprayExperiment::~SprayExperiment() = default;

namespace
{

/// \return the memory this machine has available, bytes (MemAvailable; the physical memory
/// where /proc/meminfo does not say)
double
AvailableMemoryBytes()
{
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kb = 0;
    std::string unit;
    while (meminfo >> key >> kb >> unit)
    {
        if (key == "MemAvailable:")
        {
            return double(kb) * 1024;
        }
    }
    return double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
}

/**
 * Peak resident bytes per host of a design with its stack, and per long-lived connection
 * (both ends), measured with presto-spray at the defaults (leaf-spine 8 leaves x 512 hosts
 * against 8 x 8, and RPC 1,000 against 100 connections per host on 8 hosts), rounded up.
 * Designs not measured take Cora's, the largest.
 */
struct DesignMemory
{
    double perHost;       //!< bytes per host
    double perConnection; //!< bytes per connection
};

DesignMemory
MemoryOf(const std::string& device)
{
    if (device == "host-tcp")
    {
        return {128e3, 11e3}; // measured 120 KB, 10.3 KB
    }
    if (device == "presto" || device == "flextoe")
    {
        return {140e3, 3e3}; // measured 131-132 KB, 2.7 KB
    }
    return {700e3, 11e3}; // cora: measured 647 KB, 2.7 KB; others: the largest of each
}

} // namespace

void
SprayExperiment::CheckMemory(uint64_t flows) const
{
    const auto& c = m_config;
    DesignMemory m = MemoryOf(c.device);
    if (!c.mix.empty())
    {
        m = {700e3, 11e3}; // a mix: the largest of every design
    }
    const FabricSize size = c.topology == "leaf-spine"
                                ? FabricSize::LeafSpine(c.leaves, c.spines, c.hostsPerLeaf)
                            : c.topology == "fat-tree" ? FabricSize::FatTree(c.fatTreeK)
                                                       : FabricSize::Of(m_topology);
    const uint64_t connections = IsRpc() ? size.hosts * c.rpcConnections : 0;
    const RunMemoryEstimate e =
        RunMemoryEstimate::Of(size, m.perHost, connections, m.perConnection, flows);
    const double limit = c.maxMemory > 0 ? c.maxMemory * 1e9 : AvailableMemoryBytes();
    if (e.Total() <= limit)
    {
        return;
    }
    std::ostringstream os;
    os << (c.topology == "leaf-spine"
               ? "--leaves=" + std::to_string(c.leaves) + " --spines=" + std::to_string(c.spines) +
                     " --hostsPerLeaf=" + std::to_string(c.hostsPerLeaf)
           : c.topology == "fat-tree" ? "--topology=fat-tree --k=" + std::to_string(c.fatTreeK)
                                      : "--topology=" + InputExcerpt(c.topology))
       << " (" << size.hosts << " hosts, " << size.switches << " switches, " << size.links
       << " links, " << size.routeEntries << " route entries)";
    if (connections > 0)
    {
        os << " with --rpcConnections=" << c.rpcConnections << " (" << connections
           << " connections)";
    }
    if (flows > 0)
    {
        os << " and " << flows << " flows";
    }
    os << " needs an estimated " << e.Describe() << ", more than the " << std::setprecision(3)
       << limit / 1e9 << " GB " << (c.maxMemory > 0 ? "of --maxMemory" : "available")
       << ": make it smaller, use a larger machine, or raise --maxMemory=GB";
    throw PrestoInputError(os.str());
}

void
SprayExperiment::AddIncastBursts()
{
    const auto& c = m_config;
    m_burstOf.assign(m_flows.size(), -1);
    IncastBurstConfig b;
    b.arrivals = BurstArrivalsFromString(c.bursts, "bursts");
    if (b.arrivals == BurstArrivals::OFF)
    {
        return;
    }
    CheckSeconds("burstInterval", c.burstInterval, true);
    b.nHosts = m_topology.GetNHosts();
    b.senders = c.burstSenders;
    b.bytesPerSender = c.burstBytes;
    b.intervalNs = std::llround(c.burstInterval * 1e9);
    b.startNs = 0;
    b.durationNs = static_cast<int64_t>(c.simTime * 1e9);
    b.receiver = c.burstReceiver;
    std::vector<uint32_t> burstOf;
    std::vector<FlowSpec> incast;
    ExperimentRandom random(INCAST_STREAM);
    try
    {
        incast = GenerateIncastBursts(b, random, &burstOf);
    }
    catch (const PrestoInputError& e)
    {
        throw PrestoInputError("--bursts=" + c.bursts +
                               " (--burstSenders, --burstBytes, "
                               "--burstInterval, --burstReceiver, --simTime): " +
                               e.what());
    }
    // background and incast flows in start order (background first at equal times), ids
    // re-assigned in that order
    std::vector<std::pair<FlowSpec, int64_t>> all;
    all.reserve(m_flows.size() + incast.size());
    for (const auto& f : m_flows)
    {
        all.emplace_back(f, -1);
    }
    for (std::size_t i = 0; i < incast.size(); ++i)
    {
        all.emplace_back(incast[i], burstOf[i]);
    }
    std::stable_sort(all.begin(), all.end(), [](const auto& x, const auto& y) {
        return x.first.startNs < y.first.startNs;
    });
    m_flows.clear();
    m_burstOf.clear();
    for (auto& [f, burst] : all)
    {
        f.id = static_cast<uint32_t>(m_flows.size());
        m_flows.push_back(f);
        m_burstOf.push_back(burst);
    }
}

bool
SprayExperiment::IsRpc() const
{
    return m_config.workload == "rpc" || m_config.workload == "kv";
}

bool
SprayExperiment::IsCollective() const
{
    return m_config.workload == "allreduce" || m_config.workload == "alltoall";
}

} // namespace ns3
