/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_SPRAY_EXPERIMENT_H
#define PRESTO_SPRAY_EXPERIMENT_H

#include "ns3/collective-schedule.h"
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
#include "ns3/spray-experiment-config.h"
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

class RpcEndpoint;

class CollectiveEndpoint;

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
    /**
     * \brief Resolve the run's designs (--device, or every device of --mix: ResolveDevice)
     * and refuse a design option none of them has (CheckDesignOptions); sets m_ccType, m_mix
     * and m_mixCc.
     * \param given the configuration as given (before ResolveDevice filled it in)
     */
    void ResolveDesigns(const SprayExperimentConfig& given);
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
    /** A collective workload (allreduce, alltoall) on the built fabric, and its outputs:
     * collective.csv and summary.json's "collective". */
    void RunCollective(FabricHelper& fabric);
    /**
     * \brief summary.json of a collective run, after the simulation (m_speed made).
     * \param fabric the fabric \param collective the collective \param transport its endpoint
     * \param hostCpu the hosts' accounting
     */
    void ReportCollectiveRun(const FabricHelper& fabric,
                             Ptr<CollectiveEndpoint> collective,
                             Ptr<TcpSocketEndpoint> transport,
                             const HostCpuAccounting& hostCpu);
    /** The console lines of a collective run (without --quiet). */
    void PrintCollectiveRun() const;
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
    /** summary.json's "config", "command_line", "version", "attributes", "policy" and
     * "topology": what describes the run, for every workload. */
    void AddRunContext();
    /**
     * \brief The console lines of a flow run (without --quiet).
     * \param label the run's label \param incast whether it has incast bursts
     */
    void PrintFlowRun(const std::string& label, bool incast) const;
    /** The console lines of an RPC run (without --quiet). */
    void PrintRpcRun() const;
    /**
     * \brief summary.json of a flow run, after the simulation (m_summary and m_speed made).
     * \param fabric the fabric \param endpoint the flows' endpoint \param hostCpu the hosts'
     * accounting
     */
    void ReportFlowRun(const FabricHelper& fabric,
                       Ptr<FlowEndpoint> endpoint,
                       const HostCpuAccounting& hostCpu);
    /**
     * \brief summary.json of an RPC run, after the simulation (m_speed made).
     * \param fabric the fabric \param rpc the RPC workload \param transport its endpoint
     * \param hostCpu the hosts' accounting
     */
    void ReportRpcRun(const FabricHelper& fabric,
                      Ptr<RpcEndpoint> rpc,
                      Ptr<TcpSocketEndpoint> transport,
                      const HostCpuAccounting& hostCpu);
    /**
     * \brief m_speed after a simulation.
     * \param fabric the fabric \param events the events it ran \param wallS its wall time, s
     */
    void RecordSpeed(const FabricHelper& fabric, uint64_t events, double wallS);
    /** ns3::HostCpu on every host with --hostCores > 0 (servers with --serverCores their
     * own count), with the run's costs (RunCosts). \param fabric the built fabric */
    void InstallHostCores(FabricHelper& fabric) const;
    /** Random loss: --lossRate on every switch-to-switch link, a topology file's loss rate
     * on its links. \param fabric the built fabric */
    void InstallLinkLoss(FabricHelper& fabric) const;
    /** summary.json's "nic" and "fabric" sections, and the run's speed. */
    void AddNetworkReport(const FabricHelper& fabric);
    /** \return true for the RPC workload */
    bool IsRpc() const;
    /** \return true for a collective workload (allreduce, alltoall) */
    bool IsCollective() const;
    /** The collective workloads: m_collective and m_hostOfRank from --collectiveBytes,
     * --ranks, --placement, --iterations and --computeGap, checked. */
    void ConfigureCollective();
    /**
     * \brief m_topology from --topology (a built-in shape, refused before it is built when
     * too large, or a topology file) and m_hostRateBps, the hosts' (mean) link rate.
     */
    void BuildTopology();
    /**
     * \brief Add a list of link changes to m_linkChanges.
     * \param list --failLinks ("a-b[@t],...") or --degradeLinks ("a-b:rate[@t],...")
     * \param withRate true for --degradeLinks
     */
    void ParseLinkChanges(const std::string& list, bool withRate);
    /** The RPC and key-value workloads: m_rpc, the message sizes, m_rpcOpen (and the warm-up
     * it implies when --warmup is not given). */
    void ConfigureRpc();
    /** The flow workloads: m_flows from --flowFile, or generated from --workload (m_cdf). */
    void MakeFlows();
    /** The incast bursts (AddIncastBursts), the flows dealt to --apps applications, and the
     * refusal of the RPC workloads' options on a flow workload. */
    void AddBurstsAndApplications();
    /** m_records, one per flow in id order, with its ideal FCT on the idle fabric (a flow
     * whose ideal FCT does not fit in ns-3's time is refused here, before anything runs). */
    void ComputeIdealFcts();
    /** m_edges: --buckets, the CDF's default, or the fixed edges of a replayed workload. */
    void ChooseBucketEdges();
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
    std::unique_ptr<CollectiveSchedule> m_collective; //!< allreduce, alltoall: the schedule
    std::vector<uint32_t> m_hostOfRank;               //!< allreduce, alltoall: by rank
    double m_hostRateBps{0};                          //!< hosts' (mean) link rate, bit/s
};

} // namespace ns3

#endif // PRESTO_SPRAY_EXPERIMENT_H
