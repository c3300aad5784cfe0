/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_SPRAY_EXPERIMENT_H
#define PRESTO_SPRAY_EXPERIMENT_H

#include "ns3/device-mix.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-queue-tracer.h"
#include "ns3/fct-plot.h"
#include "ns3/fct-record.h"
#include "ns3/fct-statistics.h"
#include "ns3/flow-endpoint.h"
#include "ns3/flow-size-cdf.h"
#include "ns3/flow-spec.h"
#include "ns3/host-cpu-model.h"
#include "ns3/input-file.h"
#include "ns3/object-factory.h"
#include "ns3/rpc-workload.h"
#include "ns3/run-report.h"
#include "ns3/tcp-socket-endpoint.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

class PrestoRackPipeline;

class HostCpuAccounting;

class PrestoCommandLine;

/**
 * \ingroup presto
 * \brief Everything that defines one run of the FCT experiment. Defaults: a small leaf-spine
 * (2 leaves x 2 spines x 4 hosts, 10G hosts, 40G core, 1 us links) with per-packet spraying and
 * WebSearch at 50% load for 20 ms of arrivals: well under a minute on one core.
 */
struct SprayExperimentConfig
{
    std::string device{"host-tcp"}; //!< endpoint: see SprayExperiment::Devices()
    /// presto: reassembly fidelity K per class, 0..16|full ("": the attribute
    /// ns3::PrestoNetDevice::ReassemblyFidelity, default 1)
    std::string fidelity;
    /// congestion control of every host: dctcp | dctcp-rate | dctcp-rate-tas | newreno |
    /// native ("": the device's CongestionControl attribute, window DCTCP by default)
    std::string cc;
    std::string classRules;   //!< presto: classifier rules file ("": one class)
    std::string coraStrategy; //!< cora: partitioning strategy, cora | state | flow ("": attribute)
    /// presto: how the K intervals are assigned, ArrivalOrder | PerPath ("": the attribute
    /// ns3::PrestoNetDevice::IntervalPolicy, ArrivalOrder)
    std::string intervals;
    /// presto: host | tor, the pipeline on each host's NIC or the rack switch's one shared by
    /// the rack's hosts ("": the attribute PrestoNetDevice::Placement)
    std::string prestoPlacement;
    std::string lb{"spray"};           //!< ecmp | spray | spray-rr | flowlet
    std::string workload{"websearch"}; //!< built-in CDF name, CDF file path, or rpc
    /// applications per host: a host's flows are dealt to applications 0..apps-1 in turn,
    /// each on its own DMA channel (OffloadNetDevice::DmaChannels >= apps)
    uint32_t apps{1};
    uint32_t rpcConnections{1};    //!< rpc: client connections each host opens
    uint32_t rpcOutstanding{1};    //!< rpc: requests in flight per connection
    double rpcRate{0};             //!< rpc: open-loop requests/s per client host (0: closed)
    uint32_t rpcBacklog{4096};     //!< rpc, open loop: unanswered requests per connection
    std::string rpcRequest{"64"};  //!< rpc: request size, bytes or a CDF
    std::string rpcResponse{"64"}; //!< rpc: response size, bytes or a CDF
    /// rpc, kv: hosts 0..rpcServers-1 serve, the others are clients (0: every host is both)
    uint32_t rpcServers{0};
    /// rpc, kv with rpcServers > 0: host cores of each server (0: hostCores, as the clients)
    uint32_t serverCores{0};
    double kvGets{30.0 / 31.0};         //!< kv: fraction of GETs among requests (ETC: 30:1)
    std::string kvKeys{"etc-key"};      //!< kv: key sizes, bytes or a CDF
    std::string kvValues{"etc-value"};  //!< kv: value sizes, bytes or a CDF
    double load{0.5};                   //!< fraction of host NIC bandwidth offered, (0,1]
    std::string pattern{"all-to-all"};  //!< all-to-all | permutation | incast
    uint32_t incastSenders{8};          //!< senders per incast event
    std::string bursts{"off"};          //!< incast bursts over the load: off|periodic|poisson
    double burstInterval{0.001};        //!< periodic: gap between bursts; poisson: its mean, s
    uint32_t burstSenders{4};           //!< senders per burst
    uint64_t burstBytes{64000};         //!< bytes each sender sends per burst
    int32_t burstReceiver{-1};          //!< receiver host index of every burst (-1: random)
    double queueTrace{0};               //!< switch queue sampling interval, s (0: no traces)
    std::string mix;                    //!< mixed fabric: "device:fraction,..." ("": --device)
    std::string mixBy{"host"};          //!< the mix's fractions are of: host | leaf
    std::string flowFile;               //!< replay this HPCC flow file instead of generating
    std::string topology{"leaf-spine"}; //!< leaf-spine | fat-tree
    uint32_t leaves{2};                 //!< leaf-spine: leaf switches
    uint32_t spines{2};                 //!< leaf-spine: spine switches
    uint32_t hostsPerLeaf{4};           //!< leaf-spine: hosts per leaf
    uint32_t fatTreeK{4};               //!< fat-tree: k
    std::string hostRate{"10Gbps"};     //!< host link rate
    std::string coreRate{"40Gbps"};     //!< switch-switch link rate
    std::string linkDelay{"1us"};       //!< every link's propagation delay
    std::string failLinks;              //!< "a-b[@t],...", nodes named leaf0, spine1, host3, ...
    std::string degradeLinks;           //!< "a-b:rate[@t],..."
    std::string fabric{"presto"};       //!< presto (module switch) | ns3-routers (reference)
    /// auto (fast on the module's switches, p2p with ns3-routers) | p2p (PointToPointNetDevice)
    /// | fast (FabricLinkNetDevice); the report records what auto became
    std::string links{"auto"};
    double lossRate{0.0};  //!< random loss per packet on switch-switch links, [0,1)
    double simTime{0.02};  //!< flow arrivals in [0, simTime), s
    double drainTime{1.0}; //!< after simTime, wait at most this for flows to end, s
    double warmup{0.0};    //!< flows starting before this are not counted, s
    std::string buckets;   //!< "e1,e2,..." bucket upper edges, bytes; "" = default
    uint32_t maxFlows{0};  //!< cap on generated flows (0: none)
    uint32_t seed{1};      //!< ns-3 run number (RngSeedManager::SetRun)
    /// host cores per host in simulated time (HostCpu::Cores); 0: unlimited, host work is
    /// counted and takes no time (the model before host cores existed)
    uint32_t hostCores{DEFAULT_HOST_CORES};
    /// the host stack's cost profile of ns-3's TCP: "linux" (HostCpu's attributes) or "tas"
    /// (a kernel-bypass stack, HostCpuCosts::KernelBypass)
    std::string hostStack{"linux"};
    /// hold host-tcp's egress and ACK policy equal to the offload NICs': a per-flow fair
    /// queue disc over a device queue of the NICs' wire commitment, and an ACK for every
    /// segment (presto-compare: on by default); false: ns-3's FIFO and delayed ACKs
    bool hostParity{false};
    /// the default core budget: a realistic server's share for the networked application
    /// (doc/presto.rst "Host CPU")
    static constexpr uint32_t DEFAULT_HOST_CORES = 8;
    bool pcap{false}; //!< write pcap traces of host links into out
    /// send pattern bytes and compare each byte received; false: virtual (zero-filled)
    /// payload, delivery checked by counting
    bool verifyPayload{false};
    bool plot{true};   //!< write fct.png
    bool quiet{false}; //!< do not print the table
    /// print progress to stderr every this many seconds of wall time (0: never; none with
    /// quiet unless progressWhenQuiet)
    double progress{5};
    /// progress lines although quiet is set (presto-compare's rows: their tables are its own)
    bool progressWhenQuiet{false};
    bool hpccFct{false};     //!< also write fct.txt in HPCC's format
    bool flowMonitor{false}; //!< run FlowMonitor (offload NICs too), write flowmon.xml
    /// accept a run that did not do everything asked (flows unfinished at the end of the
    /// drain, connections that failed to open, no request measured): exit 0 and publish
    bool allowUnfinished{false};
    /// memory a run may take, GB; 0: what the machine has available (MemAvailable). A run
    /// whose estimate (doc/presto.rst "Sizes and memory") is larger is refused before it is
    /// built
    double maxMemory{0};
    std::string out{"results/presto-spray"}; //!< output directory
    std::string label;                       //!< run label for tables and plots ("" = device)
    /// the options the command line gave, with their text (AddToCommandLine records them):
    /// an option of a mode that is off (an --rpc* option on a flow workload, a --burst*
    /// option without --bursts, ...) is refused rather than ignored; empty for a
    /// configuration built in code
    std::map<std::string, std::string> given;

    /**
     * \brief Register every field as a --option of a command line.
     * \param cmd the command line
     */
    void AddToCommandLine(PrestoCommandLine& cmd);
    /** \return the configuration as a JSON object (the "config" section) */
    nlohmann::json ToJson() const;
};

/**
 * \ingroup presto
 * \brief One run of the FCT experiment: fabric, endpoint, workload, records, reports.
 *
 * The constructor validates the whole configuration, reads every input file once (an
 * InputFileScope: the devices reuse the text the validation read) and computes every flow's
 * ideal FCT, throwing PrestoInputError before anything is written: text options that are
 * not UTF-8, --simTime, --drainTime or --warmup that are not finite or above 1e6 s, a
 * workload asking for more than 10^7 flows, a flow whose ideal FCT is beyond ns-3's time.
 * Run() simulates and writes fct.csv,
 * summary.json, flows.txt (the workload in HPCC format) and fct.png into the output directory.
 * All of them are byte-identical for the same configuration and seed, except the "speed"
 * object of summary.json (wall-clock measurements).
 */
class SprayExperiment
{
  public:
    /**
     * \param config the run; throws PrestoInputError if anything is invalid
     */
    explicit SprayExperiment(const SprayExperimentConfig& config);
    ~SprayExperiment();

    /**
     * \brief Build, simulate, write the outputs (Simulator::Destroy at the end).
     *
     * The outputs are written into a staging folder beside --out (OUT.partial) and moved into
     * --out only when the run did what was asked: a run killed midway leaves no (empty or
     * half-written) --out. A run that fell short (see Shortfall) throws PrestoRunIncomplete
     * with its outputs left in the staging folder, unless allowUnfinished.
     */
    void Run();
    /**
     * \brief What the finished run did not do that was asked, from its report: flows
     * unfinished at the end of the drain, connections that failed to open, an RPC run that
     * measured no request.
     * \return one line per shortfall; empty if none
     */
    std::string Shortfall() const;

    /** \return the endpoint names accepted by --device */
    static std::vector<std::string> Devices();

    /** \return the names accepted by --cc */
    static std::vector<std::string> CongestionControls();

    /**
     * \brief The congestion control a device runs under a --cc name.
     * \param device a name of Devices()
     * \param cc a name of CongestionControls() ("native": the design's own, as its paper)
     * \return the TypeId: a TcpCongestionOps for host-tcp, an OffloadCongestionControl for the
     * offload NICs; throws PrestoInputError if the device has no such algorithm (host-tcp has
     * no rate-based DCTCP: ns-3's TCP has no host control loop)
     */
    static TypeId CongestionTypeId(const std::string& device, const std::string& cc);

    /**
     * \param device a name of Devices()
     * \return the --cc name of the design's own congestion control (FlexTOE: dctcp-rate)
     */
    static std::string NativeCongestion(const std::string& device);

    /**
     * \brief Refuse a congestion control that runs on Presto's pipeline
     * (ns3::PrestoDctcpCongestion) for a design without one.
     * \param cc the congestion control's TypeId
     * \param device the design
     * \param given how the user asked for it, for the message
     */
    static void RequirePipelineFor(TypeId cc, const std::string& device, const std::string& given);

    /**
     * \brief The NIC every host gets for a device name, with its congestion control.
     * \param device a name of Devices() other than host-tcp
     * \param cc an OffloadCongestionControl TypeId (CongestionTypeId)
     * \return the factory (set more attributes on it before use)
     */
    static ObjectFactory DeviceFactory(const std::string& device, TypeId cc);

    /**
     * \brief The endpoint that runs the flows through ns-3's socket API: ns-3's TCP with the
     * congestion control cc for host-tcp, the offload NIC's socket factory otherwise.
     * \param device a name of Devices()
     * \param cc for host-tcp, its TcpCongestionOps TypeId (ignored otherwise)
     * \return the endpoint
     */
    static Ptr<TcpSocketEndpoint> MakeEndpoint(const std::string& device, TypeId cc);

    /**
     * \brief A design option (--fidelity, --classRules, --coraStrategy) given although none
     * of \p devices has its attribute is refused, not ignored (PrestoInputError).
     * \param given the configuration as given
     * \param devices the devices the options are meant for (a run's, or all rows of a
     * comparison)
     * \param where what to name in the message, e.g. --device=flextoe
     */
    static void CheckDesignOptions(const SprayExperimentConfig& given,
                                   const std::vector<std::string>& devices,
                                   const std::string& where);

    /**
     * \brief Clear the design options whose attribute c.device does not have: for a
     * comparison or a sweep that gives one option to runs of several designs (after
     * CheckDesignOptions over all of them).
     * \param c a run's configuration
     */
    static void KeepOwnDesignOptions(SprayExperimentConfig& c);

    const std::vector<FctRecord>& GetRecords() const; //!< \return one record per flow
    const FctSummary& GetSummary() const;             //!< \return the FCT statistics
    const RunSpeed& GetSpeed() const;                 //!< \return how fast it ran
    const nlohmann::json& GetReport() const;          //!< \return summary.json's content
    const std::vector<FlowSpec>& GetFlows() const;    //!< \return the workload
    const FabricTopology& GetTopology() const;        //!< \return the topology

  private:
    /** Flow finished callback from the endpoint. */
    void FlowFinished(uint32_t flowId);
    /**
     * \brief Check a device's options (fidelity, strategy, congestion control) and resolve
     * its congestion control; sets m_config.fidelity and m_config.cc.
     * \param device a name of Devices()
     * \return the congestion control's TypeId
     */
    TypeId ResolveDevice(const std::string& device);
    /** \param device a device other than host-tcp \param cc its congestion control
     * \return its NIC's factory with the run's options */
    ObjectFactory NicFactory(const std::string& device, TypeId cc) const;
    /** Give every host its device of the mix (m_hostDevice). */
    void AssignMix();
    /** \return the run's endpoint: MakeEndpoint, or for a mix one on every host's NIC */
    Ptr<TcpSocketEndpoint> RunEndpoint() const;
    /** DelAckCount 1 on the run's endpoint with --hostParity (RowParity). \param endpoint it */
    void ApplyParity(Ptr<TcpSocketEndpoint> endpoint) const;
    /** \return summary.json's "policy" (RowParity::Describe) */
    nlohmann::json PolicyReport() const;
    /** \param host a host index \return its device name */
    std::string HostDevice(uint32_t host) const;
    /** summary.json's "mix" and "by_device" sections (mixed fabrics). */
    void ReportMix(const FabricHelper& fabric);
    /**
     * \brief A Presto device placed on the rack switch (Placement=tor) joins its rack's
     * pipeline (made at its first host); any other device is left alone.
     * \param device a host's device \param tor its rack switch's node \param racks by node
     */
    static void JoinRack(Ptr<NetDevice> device,
                         uint32_t tor,
                         std::map<uint32_t, Ptr<PrestoRackPipeline>>& racks);
    /** Presto hosts placed on the rack switch (Placement=tor) share their rack's pipeline. */
    void ShareRackPipelines(const FabricHelper& fabric);
    /** Fabric, NICs, losses, link changes, output folder, pcap: what every workload needs. */
    void BuildFabric(FabricHelper& fabric);
    /**
     * \brief Refuse the RPC stage of PrestoHybridNetDevice (RpcSteering) without RPC servers
     * that use it (RpcEndpoint's Steering=Nic), and the other way round; before the run.
     * \param fabric the built fabric
     */
    void CheckRpcSteering(FabricHelper& fabric) const;
    /**
     * \brief Refuse --apps > 1 on a host without an offload NIC or with fewer DMA channels
     * than applications; before the run.
     * \param fabric the built fabric
     */
    void CheckApplications(FabricHelper& fabric) const;
    /** The closed-loop RPC workload on the built fabric, and its outputs. */
    void RunRpc(FabricHelper& fabric);
    /**
     * \brief Move the staged outputs into --out, or throw PrestoRunIncomplete naming the
     * shortfall and the staging folder (allowUnfinished publishes anyway, with a warning).
     */
    void Publish();
    /** \return where the outputs end up: --out, or the staging folder of a short run */
    std::filesystem::path PublishedFolder() const;
    /** queues.csv, switch-events.csv, queues.png and summary.json's "queue_trace". */
    void WriteQueueTrace();
    /**
     * \return the cost table of the run: ns3::HostCpu's attributes, with --hostStack=tas the
     * kernel-bypass stack costs (refused if a stack cost attribute was set as well)
     */
    HostCpuCosts RunCosts() const;
    /** \brief The accounting's costs (RunCosts) and clock (ns3::HostCpu's). */
    void ConfigureAccounting(HostCpuAccounting& accounting) const;
    /** summary.json's "nic" and "fabric" sections, and the run's speed. */
    void AddNetworkReport(const FabricHelper& fabric);
    /** \return true for the RPC workload */
    bool IsRpc() const;
    /** Add the incast bursts to m_flows (ids re-assigned in start order), fill m_burstOf. */
    void AddIncastBursts();
    /**
     * Refuse a run whose memory estimate exceeds --maxMemory (or the machine's available
     * memory), naming the options that size it. \param flows flows known so far
     */
    void CheckMemory(uint64_t flows) const;
    /**
     * \brief summary.json's "incast" and "background" sections and incast.csv, after the run.
     * \param label the run's label
     * \return the two classes for fct.png (empty without bursts)
     */
    std::vector<PlotRun> ReportIncast(const std::string& label);

    /// every input file (CDF, flow file, rules, Cora program) is read once while the
    /// experiment lives: validation and the devices share the text (first member: it must
    /// outlive the reads of the others' construction)
    InputFileScope m_inputs;
    SprayExperimentConfig m_config;     //!< the run (fidelity and cc resolved)
    TypeId m_ccType;                    //!< congestion control of every host
    FabricTopology m_topology;          //!< built from the config
    std::unique_ptr<FlowSizeCdf> m_cdf; //!< workload sizes (null when replaying a file)
    std::vector<uint64_t> m_edges;      //!< bucket edges
    std::vector<FlowSpec> m_flows;      //!< workload, by id
    std::vector<FctRecord> m_records;   //!< results, by id
    std::vector<int64_t> m_burstOf;     //!< by flow id: its incast burst, -1 background
    uint64_t m_finished{0};             //!< flows finished
    FctSummary m_summary;               //!< statistics
    RunSpeed m_speed;                   //!< speed
    nlohmann::json m_report;            //!< summary.json
    std::filesystem::path m_stage;      //!< where the outputs are written until published

    struct LinkChange
    {
        uint32_t link;  //!< link id
        double rateBps; //!< new rate (0: fail)
        double atS;     //!< when
    };

    std::vector<LinkChange> m_linkChanges;            //!< failures and degradations
    RpcWorkloadConfig m_rpc;                          //!< rpc: the workload
    std::unique_ptr<RpcSizes> m_rpcRequest;           //!< rpc: request sizes
    std::unique_ptr<RpcSizes> m_rpcResponse;          //!< rpc: response sizes
    std::unique_ptr<RpcKvMix> m_kv;                   //!< kv: the GET/SET mix
    std::unique_ptr<FabricQueueTracer> m_queueTracer; //!< with --queueTrace
    std::vector<DeviceShare> m_mix;                   //!< mixed fabric: the devices
    std::vector<TypeId> m_mixCc;                      //!< their congestion controls
    std::vector<uint32_t> m_hostDevice;               //!< per host, its index in m_mix
    Time m_rpcOpen;                                   //!< rpc: connections open over [0, this)
    double m_hostRateBps{0};                          //!< hosts' (mean) link rate, bit/s
};

} // namespace ns3

#endif // PRESTO_SPRAY_EXPERIMENT_H
