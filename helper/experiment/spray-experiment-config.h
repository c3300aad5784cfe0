/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_SPRAY_EXPERIMENT_CONFIG_H
#define PRESTO_SPRAY_EXPERIMENT_CONFIG_H

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

namespace ns3
{

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
    std::string workload{"websearch"}; //!< built-in CDF name, CDF file path, rpc, kv,
                                       //!< allreduce or alltoall
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
    uint64_t collectiveBytes{4000000};  //!< allreduce, alltoall: S, each rank's buffer, bytes
    uint32_t ranks{0};                  //!< allreduce, alltoall: N (0: every host)
    std::string placement{"linear"};    //!< allreduce, alltoall: linear | spread | random
    uint32_t iterations{1};             //!< allreduce, alltoall: times the collective runs
    double computeGap{0};               //!< allreduce, alltoall: compute between iterations, s
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

    /// One --option of the experiment: its name, its help text and the field it sets (whose
    /// type says how the value is read, PrestoCommandLine::AddValue).
    struct Option
    {
        const char* name; //!< the option's name, without dashes
        std::string help; //!< its help text
        /// the field it sets
        std::variant<std::string SprayExperimentConfig::*,
                     uint32_t SprayExperimentConfig::*,
                     uint64_t SprayExperimentConfig::*,
                     int32_t SprayExperimentConfig::*,
                     double SprayExperimentConfig::*,
                     bool SprayExperimentConfig::*>
            field;
    };

    /// An option of the experiment another program shares (SharedOptions).
    struct SharedOption
    {
        std::string name; //!< the option's name, without dashes
        std::string help; //!< its help text in that program ("": the experiment's)
    };

    /** \return every option of the experiment, in --PrintHelp's order */
    static std::vector<Option> Options();

    /**
     * \brief Register every field as a --option of a command line, and record the options
     * it gives into given.
     * \param cmd the command line
     */
    void AddToCommandLine(PrestoCommandLine& cmd);

    /**
     * \brief Register some of the experiment's options on the command line of another
     * program that shares them (the seed, the output folder, host cores, ...): their names
     * and how their values are read are the experiment's, so that the programs of the
     * module spell and check them alike. Their defaults are this configuration's values
     * (set them first); the options given are not recorded into given.
     * \param cmd the command line
     * \param shared the options, by name (aborts on a name that is not an option)
     */
    void AddToCommandLine(PrestoCommandLine& cmd, const std::vector<SharedOption>& shared);
    /**
     * \brief Refuse what the options show to be wrong before any NIC design is resolved:
     * text that is not UTF-8, an option of a mode that is off (see given), an unknown
     * --device, --hostStack, --cc, --intervals or --prestoPlacement, and with --hostParity
     * the attributes it holds (RowParity::CheckUserSettings). Throws PrestoInputError; sets
     * device to its canonical name (NicDesign::Canonical).
     */
    void Validate();
    /**
     * \brief Refuse the rest of what the options show to be wrong, after the designs were
     * resolved (SprayExperiment::ResolveDevice: an --intervals taken from the attribute
     * counts): --lb, --fabric, --links and their combinations, --queueTrace, --lossRate,
     * --load, --maxMemory, --simTime, --drainTime, --warmup, --progress. Throws
     * PrestoInputError; sets links=auto to the link model it stands for.
     */
    void ValidateRun();

    /** \return the configuration as a JSON object (the "config" section) */
    nlohmann::json ToJson() const;
    /** \return ToJson's fields of every workload (a collective adds its own) */
    nlohmann::json ToJsonCommon() const;
};

} // namespace ns3

#endif // PRESTO_SPRAY_EXPERIMENT_CONFIG_H
