/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "spray-experiment.h"

#include "presto-command-line.h"

#include "ns3/attribute-default.h"
#include "ns3/boolean.h"
#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/experiment-random.h"
#include "ns3/fabric-link-net-device.h"
#include "ns3/fabric-size.h"
#include "ns3/fct-plot.h"
#include "ns3/flow-file.h"
#include "ns3/flow-generator.h"
#include "ns3/flow-monitor-helper.h"
#include "ns3/flow-monitor.h"
#include "ns3/host-cpu-accounting.h"
#include "ns3/host-cpu-helper.h"
#include "ns3/ideal-fct.h"
#include "ns3/incast-bursts.h"
#include "ns3/input-file.h"
#include "ns3/lean-simulator-impl.h"
#include "ns3/log.h"
#include "ns3/nic-design.h"
#include "ns3/object-factory.h"
#include "ns3/offload-congestion-control.h"
#include "ns3/offload-congestion.h"
#include "ns3/offload-flow-monitor-helper.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-socket.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/presto-dctcp-congestion.h"
#include "ns3/presto-hybrid-net-device.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/presto-net-device.h"
#include "ns3/presto-rack-pipeline.h"
#include "ns3/queue-disc.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/row-parity.h"
#include "ns3/rpc-endpoint.h"
#include "ns3/simulator.h"
#include "ns3/splitmix.h"
#include "ns3/string.h"
#include "ns3/tcp-dctcp.h"
#include "ns3/tcp-socket-endpoint.h"
#include "ns3/topology-file.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <tuple>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SprayExperiment");

namespace
{

/// RNG stream numbers: fixed so that a run depends only on the seed (run number).
constexpr int64_t WORKLOAD_STREAM = 1;
constexpr int64_t INCAST_STREAM = 2;
constexpr int64_t FABRIC_STREAM = 100;
constexpr int64_t LOSS_STREAM = 100000;

std::string
Join(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v)
    {
        s += (s.empty() ? "" : ", ") + x;
    }
    return s;
}

void
RequireOneOf(const std::string& option,
             const std::string& value,
             const std::vector<std::string>& valid)
{
    if (std::find(valid.begin(), valid.end(), value) == valid.end())
    {
        throw PrestoInputError("--" + option + "=" + value +
                               " is not valid; valid values: " + Join(valid));
    }
}

/**
 * \brief Read an input named by an option: an error of the reader that does not name the
 * option is given it in front (the user wrote --workload=X, not "CDF file X").
 * \param option the option \param read the reader \return what it read
 */
template <typename F>
auto
WithOption(const std::string& option, F&& read) -> decltype(read())
{
    try
    {
        return read();
    }
    catch (const PrestoInputError& e)
    {
        const std::string what = e.what();
        if (what.find("--" + option) != std::string::npos)
        {
            throw;
        }
        throw PrestoInputError("--" + option + ": " + what);
    }
}

/// A data rate with its unit, in bit/s.
double
ParseRate(const std::string& option, const std::string& text)
{
    // the unit is required (a bare number was bit/s) and the rate is a whole number of bit/s
    // (DataRate counts whole bit/s: 3.9bps ran at 3) up to 1 Pbit/s, beyond any link
    constexpr double MAX_RATE_BPS = 1e15;
    double bps = 0;
    std::string why;
    if (!WholeToken::ParseRate(text, bps, why))
    {
        throw PrestoInputError("--" + option + "=" + InputExcerpt(text) +
                               " is not a data rate (examples: 10Gbps, 40Gb/s, 100Mbps): it " +
                               why);
    }
    if (bps > MAX_RATE_BPS)
    {
        std::ostringstream os;
        os << "--" << option << "=" << InputExcerpt(text) << " is " << bps
           << " bit/s: a rate is at most 1e+15 bit/s (1 Pbit/s)";
        throw PrestoInputError(os.str());
    }
    return bps;
}

/// Time with an explicit unit (s, ms, us, ns), at most 1e6 s; ns-3's own parser aborts on
/// bad input.
int64_t
ParseTimeNs(const std::string& option, const std::string& text)
{
    int64_t ns = 0;
    std::string why;
    if (!WholeToken::ParseDuration(text, 1000000000000000, ns, why))
    {
        throw PrestoInputError("--" + option + "=" + InputExcerpt(text) +
                               " is not a time with a unit (examples: 1us, 500ns, 2ms): it " + why);
    }
    return ns;
}

/// Longest --simTime, --drainTime or --warmup, s. ns-3's Time counts int64 ns (+-9.2e9 s) but
/// the module's fast links and its simulator compute event times in int64 ps, which end at
/// 2^63 ps = 9.2e6 s ("EventPool: an event in the past" at 9243456 s): with 1e6 s each the
/// run (arrivals, then the drain) ends before 2e6 s.
constexpr double MAX_SECONDS = 1e6;

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

/// \param option its name \param value seconds \param positive whether 0 is refused
void
CheckSeconds(const std::string& option, double value, bool positive)
{
    std::ostringstream os;
    if (!std::isfinite(value) || value < 0 || (positive && value == 0))
    {
        os << "--" << option << "=" << value << " must be a finite number of seconds "
           << (positive ? "> 0" : ">= 0");
    }
    else if (value > MAX_SECONDS)
    {
        os << "--" << option << "=" << value << " is too large: at most " << MAX_SECONDS
           << " s (the module's event times count int64 picoseconds: 9.2e6 s)";
    }
    if (!os.str().empty())
    {
        throw PrestoInputError(os.str());
    }
}

/// Every text option goes into summary.json, which must be UTF-8: refuse others up front
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

std::vector<uint64_t>
ParseEdges(const std::string& text)
{
    std::vector<uint64_t> edges;
    std::istringstream is(text);
    std::string item;
    // each edge read whole: a stream read wrapped -1 to 2^64-1 and took "+5" as 5
    std::string why;
    while (std::getline(is, item, ','))
    {
        uint64_t e = 0;
        if (!WholeToken::Parse(item, e, why) || e == 0 || (!edges.empty() && e <= edges.back()))
        {
            throw PrestoInputError("--buckets=" + InputExcerpt(text) +
                                   ": expected increasing positive byte counts separated by "
                                   "commas, got '" +
                                   InputExcerpt(item) + "'");
        }
        edges.push_back(e);
    }
    if (!text.empty() && text.back() == ',')
    {
        throw PrestoInputError("--buckets=" + InputExcerpt(text) +
                               ": ends with a comma (an edge is missing)");
    }
    return edges;
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
        {{"flowMonitor"},
         !rpc,
         "watches the flows of the flow workloads; --workload=" + c.workload +
             " is not wired to FlowMonitor: it would be ignored"},
        {{"hpccFct"},
         !rpc,
         "writes the flows' completion times; --workload=" + c.workload +
             " measures requests, not flows: it would be ignored"},
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
         !file || rpc,
         "names the flow-size distribution; --flowFile gives every flow: it would be ignored"},
        {{"load", "pattern", "maxFlows", "incastSenders"}, !rpc && !file, flowsWhy},
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
 * \brief An experiment option that stands for a device attribute: the option if given, else
 * the attribute's default; both given and different is an error (neither silently wins).
 * \param option the option name
 * \param value the option's value ("": not given)
 * \param tid the device TypeId
 * \param attribute the attribute name
 * \return the value to use
 */
std::string
ResolveOption(const std::string& option,
              const std::string& value,
              TypeId tid,
              const std::string& attribute)
{
    const auto [current, changed] = AttributeDefault(tid, attribute);
    if (value.empty())
    {
        return current;
    }
    if (changed && value != current)
    {
        throw PrestoInputError("--" + option + "=" + value + " and --" + tid.GetName() +
                               "::" + attribute + "=" + current + " disagree: give one of them");
    }
    return value;
}

/// An experiment option that stands for an attribute of the NIC designs that have it.
struct DesignOption
{
    const char* option;                        //!< the --option
    std::string SprayExperimentConfig::*field; //!< its value ("": not given)
    const char* attribute;                     //!< the device attribute it sets
};

/// \return whether \p tid (or a parent) has the attribute \p name
bool
HasAttribute(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info; // ns-3 <= 3.37 writes it unconditionally
    return tid.LookupAttributeByName(name, &info);
}

/// \return the experiment's design options: a design takes the ones whose attribute it has
const std::vector<DesignOption>&
DesignOptions()
{
    static const std::vector<DesignOption> options = {
        {"fidelity", &SprayExperimentConfig::fidelity, "ReassemblyFidelity"},
        {"classRules", &SprayExperimentConfig::classRules, "ClassifierRules"},
        {"coraStrategy", &SprayExperimentConfig::coraStrategy, "Strategy"},
        {"intervals", &SprayExperimentConfig::intervals, "IntervalPolicy"},
        {"prestoPlacement", &SprayExperimentConfig::prestoPlacement, "Placement"}};
    return options;
}

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

/**
 * \brief Prints a run's progress to stderr every interval of wall time while it lives:
 * simulated time against the end (--simTime + --drainTime), events per second of wall time
 * since the last line, and the wall time left if the run goes to that end (ETA; a run ends
 * sooner when every flow has finished). It reads the simulator from LeanSimulatorImpl's
 * between-events hook, which is no event: the run is exactly the same with it. With another
 * simulator implementation it prints nothing.
 */
class ProgressReport
{
  public:
    /**
     * \param intervalS seconds of wall time between lines (<= 0: none)
     * \param endS the simulated time the run stops at the latest, s
     * \param label the run's label
     */
    ProgressReport(double intervalS, double endS, std::string label)
        : m_interval(intervalS),
          m_end(endS),
          m_label(std::move(label)),
          m_start(std::chrono::steady_clock::now()),
          m_last(m_start)
    {
        if (m_interval > 0)
        {
            LeanSimulatorImpl::SetBetweenEventsHook([this] { Check(); });
        }
    }

    ~ProgressReport()
    {
        if (m_interval > 0)
        {
            LeanSimulatorImpl::SetBetweenEventsHook({});
        }
    }

    ProgressReport(const ProgressReport&) = delete;
    ProgressReport& operator=(const ProgressReport&) = delete;

  private:
    /// Between two events: print a line if the interval has passed.
    void Check()
    {
        const auto now = std::chrono::steady_clock::now();
        const double sinceLast = std::chrono::duration<double>(now - m_last).count();
        const LeanSimulatorImpl* sim = LeanSimulatorImpl::GetRunning();
        if (sinceLast < m_interval || !sim)
        {
            return;
        }
        const double wall = std::chrono::duration<double>(now - m_start).count();
        const double simS = static_cast<double>(sim->GetNanoSeconds()) / 1e9;
        const uint64_t events = sim->GetEventCount();
        const double rate = static_cast<double>(events - m_lastEvents) / sinceLast;
        std::ostringstream os;
        os << "progress: " << m_label << ": simulated " << std::setprecision(6) << simS << " of "
           << m_end << " s (" << std::fixed << std::setprecision(1)
           << (m_end > 0 ? 100 * simS / m_end : 0.0) << "%), wall " << wall << " s, "
           << std::setprecision(0) << rate << " events/s";
        if (simS > 0)
        {
            os << ", ETA <= " << std::setprecision(1) << wall / simS * std::max(0.0, m_end - simS)
               << " s";
        }
        std::cerr << os.str() << std::endl;
        m_last = now;
        m_lastEvents = events;
    }

    double m_interval;                             //!< wall seconds between lines
    double m_end;                                  //!< the latest end, simulated s
    std::string m_label;                           //!< the run's label
    std::chrono::steady_clock::time_point m_start; //!< when the run started
    std::chrono::steady_clock::time_point m_last;  //!< the last line (or the start)
    uint64_t m_lastEvents{0};                      //!< events run at m_last
};

} // namespace

void
SprayExperimentConfig::AddToCommandLine(PrestoCommandLine& cmd)
{
    cmd.RecordGiven(&given);
    cmd.AddValue("device", "Endpoint on every host: " + Join(SprayExperiment::Devices()), device);
    cmd.AddValue("fidelity",
                 "Presto reassembly fidelity K (out-of-order intervals): 0..16 or full; "
                 "with --classRules one value per class, e.g. 2,0,full (default: "
                 "ns3::PrestoNetDevice::ReassemblyFidelity, 1)",
                 fidelity);
    cmd.AddValue(
        "cc",
        "Congestion control of every host: " + Join(SprayExperiment::CongestionControls()) +
            " (native: each design's own; default: the device's CongestionControl "
            "attribute, window DCTCP)",
        cc);
    cmd.AddValue("classRules",
                 "Presto classifier rules file mapping connections to fidelity classes",
                 classRules);
    cmd.AddValue("coraStrategy",
                 "Cora NIC/host partitioning strategy: cora (runtime controller), state "
                 "(Gallium-like static), flow (iPipe-like flow groups)",
                 coraStrategy);
    cmd.AddValue("intervals",
                 "Presto: how a connection's K out-of-order intervals are assigned: "
                 "ArrivalOrder (the first K runs) or PerPath (at most one per path label; "
                 "needs --lb=label and ns3::OffloadNetDevice::PathLabels > 0) (default: "
                 "ns3::PrestoNetDevice::IntervalPolicy, ArrivalOrder)",
                 intervals);
    cmd.AddValue("prestoPlacement",
                 "Presto: where the pipeline is: host (a NIC per host) or tor (the rack "
                 "switch's one pipeline, shared by the rack's hosts: packet rate, connection "
                 "slots, timer scan) (default: ns3::PrestoNetDevice::Placement, host)",
                 prestoPlacement);
    cmd.AddValue("lb",
                 "Load balancing in the switches: ecmp|spray|spray-rr|flowlet|label (the path "
                 "the sending NIC chose, see OffloadNetDevice::PathLabels)",
                 lb);
    cmd.AddValue("workload",
                 "Flow-size CDF: websearch|datamining|hadoop or a CDF file path; or rpc, the "
                 "closed-loop RPC workload (--rpc* options)",
                 workload);
    cmd.AddValue("apps",
                 "Applications per host: a host's flows are dealt to applications 0..N-1 in "
                 "turn, each with its own DMA channel to the NIC (needs offload NICs with "
                 "--ns3::OffloadNetDevice::DmaChannels >= N)",
                 apps);
    cmd.AddValue("rpcConnections",
                 "rpc: persistent client connections each host opens to servers on the other "
                 "hosts",
                 rpcConnections);
    cmd.AddValue("rpcOutstanding", "rpc: requests in flight per connection", rpcOutstanding);
    cmd.AddValue("rpcRate",
                 "rpc: open loop, requests/s each client host offers (Poisson, spread over its "
                 "connections, whatever is answered); 0: the closed loop of --rpcOutstanding",
                 rpcRate);
    cmd.AddValue("rpcBacklog",
                 "rpc, open loop: unanswered requests a connection holds; an arrival beyond is "
                 "refused at the client and counted",
                 rpcBacklog);
    cmd.AddValue("rpcRequest",
                 "rpc: request size, bytes, or a size distribution (a built-in CDF name or "
                 "a CDF file)",
                 rpcRequest);
    cmd.AddValue("rpcResponse", "rpc: response size, bytes, or a size distribution", rpcResponse);
    cmd.AddValue("rpcServers",
                 "rpc, kv: hosts 0..N-1 serve and the others are clients (0: every host is both)",
                 rpcServers);
    cmd.AddValue("serverCores",
                 "rpc, kv with --rpcServers: host cores of each server (0: --hostCores)",
                 serverCores);
    cmd.AddValue("kvGets", "kv: fraction of GETs among the requests (ETC: 30 per SET)", kvGets);
    cmd.AddValue("kvKeys", "kv: key sizes, bytes or a size distribution", kvKeys);
    cmd.AddValue("kvValues", "kv: value sizes, bytes or a size distribution", kvValues);
    cmd.AddValue("load", "Offered load, fraction of host NIC bandwidth (0,1]", load);
    cmd.AddValue("pattern", "Traffic pattern: all-to-all|permutation|incast", pattern);
    cmd.AddValue("incastSenders", "Senders per incast event", incastSenders);
    cmd.AddValue("bursts",
                 "Incast bursts on top of the background flows: off|periodic|poisson",
                 bursts);
    cmd.AddValue("burstInterval",
                 "Incast bursts: periodic, the gap between bursts; poisson, its mean; seconds",
                 burstInterval);
    cmd.AddValue("burstSenders", "Incast bursts: senders per burst", burstSenders);
    cmd.AddValue("burstBytes", "Incast bursts: bytes each sender sends per burst", burstBytes);
    cmd.AddValue("burstReceiver",
                 "Incast bursts: receiver host index of every burst (-1: a random one each)",
                 burstReceiver);
    cmd.AddValue("mix",
                 "Mixed fabric instead of --device: device:fraction,... of the hosts (or "
                 "leaves, --mixBy), e.g. presto:0.5,host-tcp:0.5",
                 mix);
    cmd.AddValue("mixBy",
                 "The mix's fractions are of: host (blocks of hosts in host order) or leaf "
                 "(blocks of leaves, every host its leaf's device)",
                 mixBy);
    cmd.AddValue("queueTrace",
                 "Sample every switch port's queue at this interval, seconds, and record drops "
                 "and ECN marks: queues.csv, switch-events.csv, queues.png (0: off)",
                 queueTrace);
    cmd.AddValue("flowFile", "Replay this HPCC flow file instead of generating flows", flowFile);
    cmd.AddValue("topology",
                 "Fabric: leaf-spine|fat-tree, or a topology file (HPCC topology.txt or "
                 "presto-topology; e.g. data/topology/leaf-spine-4x4x8.txt)",
                 topology);
    cmd.AddValue("leaves", "Leaf switches (leaf-spine)", leaves);
    cmd.AddValue("spines", "Spine switches (leaf-spine)", spines);
    cmd.AddValue("hostsPerLeaf", "Hosts per leaf (leaf-spine)", hostsPerLeaf);
    cmd.AddValue("k", "Fat-tree arity k (even)", fatTreeK);
    cmd.AddValue("hostRate", "Host link rate (e.g. 10Gbps)", hostRate);
    cmd.AddValue("coreRate", "Switch-to-switch link rate (e.g. 40Gbps)", coreRate);
    cmd.AddValue("linkDelay", "Propagation delay of every link (e.g. 1us)", linkDelay);
    cmd.AddValue("failLinks", "Links to fail: a-b[@time],... (e.g. leaf0-spine1@5ms)", failLinks);
    cmd.AddValue("degradeLinks",
                 "Links to slow down: a-b:rate[@time],... (e.g. leaf0-spine1:10Gbps)",
                 degradeLinks);
    cmd.AddValue("fabric",
                 "Switch model: presto (module switch) | ns3-routers (ns-3 IP routers, "
                 "per-packet random ECMP; reference for speed comparisons)",
                 fabric);
    cmd.AddValue("links",
                 "Link model: auto (fast; p2p with --fabric=ns3-routers) | p2p (ns-3 "
                 "point-to-point) | fast (FabricLinkNetDevice: one event per packet-hop, no "
                 "copy; every link, offload NICs' included)",
                 links);
    cmd.AddValue("lossRate",
                 "Random loss probability of every packet on every switch-to-switch link",
                 lossRate);
    cmd.AddValue("simTime", "Flows arrive during [0, simTime), seconds", simTime);
    cmd.AddValue("drainTime",
                 "Then wait at most this long for flows to finish, seconds",
                 drainTime);
    cmd.AddValue("warmup", "Flows starting before this are not counted, seconds", warmup);
    cmd.AddValue("buckets",
                 "Flow-size bucket upper edges, bytes: e1,e2,... (default: per CDF)",
                 buckets);
    cmd.AddValue("maxFlows", "Cap on generated flows (0: none)", maxFlows);
    cmd.AddValue("seed", "Run number for ns-3's random streams", seed);
    cmd.AddValue("hostStack",
                 "Cost profile of ns-3's TCP on the hosts: linux (ns3::HostCpu's attributes) or "
                 "tas (a kernel-bypass stack: a quarter of the per-packet and per-connection "
                 "costs, assumed)",
                 hostStack);
    cmd.AddValue("hostCores",
                 "Host cores per host that serve the host's work in simulated time (ns-3's "
                 "TCP/IP, the offload NICs' host side, the application); 0: unlimited, work "
                 "is counted and takes no time",
                 hostCores);
    cmd.AddValue("hostParity",
                 "Hold ns-3's TCP hosts' egress and ACK policy equal to the offload NICs': "
                 "per-flow fair queueing (ns3::FqCoDelQueueDisc with CoDel off) over a device "
                 "queue of the NICs' wire commitment (OffloadNetDevice::TxQueueTime, "
                 "TxQueuePackets) and an ACK per segment; 0: ns-3's FIFO and delayed ACKs",
                 hostParity);
    cmd.AddValue("pcap", "Write pcap traces of host links into the output directory", pcap);
    cmd.AddValue("verifyPayload",
                 "Send each flow's bytes as a pattern and compare every byte received "
                 "(slower); 0: zero-filled virtual payload, delivery checked by counting",
                 verifyPayload);
    cmd.AddValue("plot", "Write fct.png", plot);
    cmd.AddValue("quiet", "Do not print the table (and no progress lines)", quiet);
    cmd.AddValue("progress",
                 "Print the run's progress (simulated time, events/s, ETA) to stderr every this "
                 "many seconds of wall time; 0: never. Output files are the same either way",
                 progress);
    cmd.AddValue("hpccFct",
                 "Also write fct.txt in HPCC's format (sip dip sport dport size start_ns fct_ns "
                 "standalone_fct_ns, addresses in hex)",
                 hpccFct);
    cmd.AddValue("flowMonitor",
                 "Run ns-3's FlowMonitor on every node, the offload NICs' frames and the "
                 "fabric's drops included (OffloadFlowMonitorHelper), and write flowmon.xml",
                 flowMonitor);
    cmd.AddValue("allowUnfinished",
                 "Accept a run with flows unfinished at the end of the drain, connections that "
                 "failed to open or no RPC request measured (exit 0, outputs in --out); "
                 "without it such a run exits 3 and leaves its outputs in OUT.partial",
                 allowUnfinished);
    cmd.AddValue("maxMemory",
                 "Memory the run may take, GB (0: the machine's available memory); a run whose "
                 "estimate is larger is refused before it is built",
                 maxMemory);
    cmd.AddValue("out", "Output directory for fct.csv, summary.json, flows.txt, fct.png", out);
    cmd.AddValue("label", "Run label for tables and plots (default: the device, or mix)", label);
}

nlohmann::json
SprayExperimentConfig::ToJson() const
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

std::vector<std::string>
SprayExperiment::Devices()
{
    return NicDesign::Names();
}

std::vector<std::string>
SprayExperiment::CongestionControls()
{
    return {"dctcp", "dctcp-pipeline", "dctcp-rate", "dctcp-rate-tas", "newreno", "native"};
}

std::string
SprayExperiment::NativeCongestion(const std::string& device)
{
    // the baseline is ns-3's TcpDctcp; each design names its own (FlexTOE: rate-based DCTCP
    // from the host control loop, as TAS)
    if (device == NicDesign::HOST_TCP)
    {
        return "dctcp";
    }
    return DeviceFactory(device, OffloadDctcpCongestion::GetTypeId())
        .Create<OffloadNetDevice>()
        ->GetNativeCongestion();
}

TypeId
SprayExperiment::CongestionTypeId(const std::string& device, const std::string& cc)
{
    RequireOneOf("cc", cc, CongestionControls());
    const std::string name = cc == "native" ? NativeCongestion(device) : cc;
    if (device == NicDesign::HOST_TCP)
    {
        if (name == "dctcp")
        {
            return TypeId::LookupByName("ns3::TcpDctcp");
        }
        if (name == "newreno")
        {
            return TypeId::LookupByName("ns3::TcpNewReno");
        }
        throw PrestoInputError("--cc=" + cc +
                               " is not available for host-tcp: ns-3's TCP has no host control "
                               "loop for rate-based DCTCP (host-tcp runs dctcp or newreno)");
    }
    static const std::map<std::string, std::string> offload = {
        {"dctcp", "ns3::OffloadDctcpCongestion"},
        {"dctcp-pipeline", "ns3::PrestoDctcpCongestion"},
        {"dctcp-rate", "ns3::OffloadDctcpRateCongestion"},
        {"dctcp-rate-tas", "ns3::OffloadTasDctcpRateCongestion"},
        {"newreno", "ns3::OffloadNewRenoCongestion"}};
    const TypeId type = TypeId::LookupByName(offload.at(name));
    RequirePipelineFor(type, device, "--cc=" + name);
    return type;
}

void
SprayExperiment::RequirePipelineFor(TypeId cc, const std::string& device, const std::string& given)
{
    // DCTCP as a pipeline program runs on Presto's pipeline (and its subclasses') only
    const TypeId program = PrestoDctcpCongestion::GetTypeId();
    const TypeId presto = PrestoNetDevice::GetTypeId();
    const TypeId design = NicDesign::GetTypeId(device);
    if ((cc == program || cc.IsChildOf(program)) && design != presto && !design.IsChildOf(presto))
    {
        throw PrestoInputError(given +
                               " is DCTCP as a program on Presto's match-action pipeline; "
                               "--device=" +
                               device + " has no such pipeline (it runs dctcp)");
    }
}

TypeId
SprayExperiment::ResolveDevice(const std::string& device)
{
    const auto& c = m_config;
    // The congestion control: --cc, or else the attribute it stands for (never both).
    const bool host = device == NicDesign::HOST_TCP;
    const TypeId holder = host ? TcpSocketEndpoint::GetTypeId() : OffloadNetDevice::GetTypeId();
    const std::string ccAttr = host ? "ns3::TcpSocketEndpoint::CongestionControl"
                                    : "ns3::OffloadNetDevice::CongestionControl";
    const auto [ccDefault, ccChanged] = AttributeDefault(holder, "CongestionControl");
    if (!c.cc.empty() && ccChanged && CongestionTypeId(device, c.cc).GetName() != ccDefault)
    {
        throw PrestoInputError("--cc=" + c.cc + " and --" + ccAttr + "=" + ccDefault +
                               " disagree: give one of them");
    }
    const TypeId ccType = !c.cc.empty() || !ccChanged
                              ? CongestionTypeId(device, c.cc.empty() ? "dctcp" : c.cc)
                              : TypeId::LookupByName(ccDefault);
    if (host)
    {
        m_config.cc = ccType == TypeId::LookupByName("ns3::TcpNewReno") ? "newreno"
                      : ccType == TypeId::LookupByName("ns3::TcpDctcp") ? "dctcp"
                                                                        : ccType.GetName();
        return ccType;
    }
    if (!ccType.IsChildOf(OffloadCongestionControl::GetTypeId()))
    {
        throw PrestoInputError("--" + ccAttr + "=" + ccType.GetName() +
                               " is not a subclass of ns3::OffloadCongestionControl");
    }
    RequirePipelineFor(ccType, device, "--" + ccAttr + "=" + ccType.GetName());
    // The design's options: each stands for an attribute of the designs that have it and
    // takes the attribute's value when not given (ResolveOption: never both, never silently).
    const TypeId design = NicDesign::GetTypeId(device);
    std::string given;
    for (const auto& o : DesignOptions())
    {
        if (!HasAttribute(design, o.attribute))
        {
            continue;
        }
        std::string& value = m_config.*o.field;
        if (!value.empty())
        {
            given += std::string(given.empty() ? "" : ", ") + "--" + o.option + "=" + value +
                     " sets " + design.GetName() + "::" + o.attribute;
        }
        value = ResolveOption(o.option, value, design, o.attribute);
    }
    // Build one NIC as the run will and let it check itself (the congestion control, the
    // design's parameters: Presto's stage budget and classifier rules, Cora's program and
    // model), so that a bad configuration stops here, before anything runs or is written.
    try
    {
        Ptr<OffloadNetDevice> probe = NicFactory(device, ccType).Create<OffloadNetDevice>();
        std::map<uint32_t, Ptr<PrestoRackPipeline>> rack;
        JoinRack(probe, 0, rack); // a rack of its own, as ShareRackPipelines gives the hosts
        probe->Setup();
    }
    catch (const PrestoInputError& e)
    {
        throw PrestoInputError(std::string(e.what()) + (given.empty() ? "" : " (" + given + ")"));
    }
    Ptr<OffloadCongestionControl> cc =
        ObjectFactory(ccType.GetName()).Create<OffloadCongestionControl>();
    m_config.cc = cc->GetShortName();
    return ccType;
}

ObjectFactory
SprayExperiment::NicFactory(const std::string& device, TypeId cc) const
{
    ObjectFactory nic = DeviceFactory(device, cc);
    const TypeId design = nic.GetTypeId();
    for (const auto& o : DesignOptions())
    {
        const std::string& value = m_config.*o.field;
        if (!value.empty() && HasAttribute(design, o.attribute))
        {
            nic.Set(o.attribute, StringValue(value));
        }
    }
    // Flows carry payload bytes only when they are verified; the RPC workload always
    // verifies its own.
    nic.Set("CarryPayload", BooleanValue(m_config.verifyPayload || IsRpc()));
    return nic;
}

void
SprayExperiment::CheckDesignOptions(const SprayExperimentConfig& given,
                                    const std::vector<std::string>& devices,
                                    const std::string& where)
{
    for (const auto& o : DesignOptions())
    {
        const std::string& value = given.*o.field;
        if (value.empty())
        {
            continue;
        }
        bool used = false;
        for (const auto& d : devices)
        {
            used = used ||
                   (d != NicDesign::HOST_TCP && HasAttribute(NicDesign::GetTypeId(d), o.attribute));
        }
        if (used)
        {
            continue;
        }
        // name the designs the option is for
        std::string takers;
        for (const auto& d : NicDesign::Names())
        {
            if (d != NicDesign::HOST_TCP && HasAttribute(NicDesign::GetTypeId(d), o.attribute))
            {
                takers += (takers.empty() ? "" : ", ") + d;
            }
        }
        throw PrestoInputError("--" + std::string(o.option) + "=" + InputExcerpt(value) +
                               " sets the attribute " + o.attribute + " of " + takers +
                               "; no device of this run has it (" + where + ")");
    }
}

void
SprayExperiment::KeepOwnDesignOptions(SprayExperimentConfig& c)
{
    const bool host = NicDesign::Canonical(c.device, "--device") == NicDesign::HOST_TCP;
    for (const auto& o : DesignOptions())
    {
        if (host || !HasAttribute(NicDesign::GetTypeId(c.device), o.attribute))
        {
            (c.*o.field).clear();
        }
    }
}

void
SprayExperiment::AssignMix()
{
    const auto& c = m_config;
    m_hostDevice.clear();
    if (m_mix.empty())
    {
        return;
    }
    if (c.mixBy == "host")
    {
        m_hostDevice = AssignDeviceMix(m_mix, m_topology.GetNHosts(), "hosts");
        return;
    }
    // by leaf: the switches hosts hang off, in node order; each host gets its leaf's device
    std::map<uint32_t, uint32_t> leafIndex;
    std::vector<uint32_t> leafOfHost;
    for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
    {
        const uint32_t node = m_topology.HostNode(h);
        const auto& link = m_topology.GetLinks()[m_topology.GetPorts(node)[0]];
        leafOfHost.push_back(link.a == node ? link.b : link.a);
        leafIndex[leafOfHost.back()] = 0;
    }
    uint32_t next = 0;
    for (auto& [leaf, index] : leafIndex)
    {
        index = next++;
    }
    const std::vector<uint32_t> byLeaf =
        AssignDeviceMix(m_mix, static_cast<uint32_t>(leafIndex.size()), "leaves");
    for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
    {
        m_hostDevice.push_back(byLeaf[leafIndex[leafOfHost[h]]]);
    }
}

void
SprayExperiment::ApplyParity(Ptr<TcpSocketEndpoint> endpoint) const
{
    if (m_config.hostParity)
    {
        // an ACK per segment, as the offload NICs send (RowParity::CheckUserSettings refused
        // a DelAckCount the user set otherwise)
        endpoint->SetAttribute("DelAckCount", UintegerValue(1));
    }
}

nlohmann::json
SprayExperiment::PolicyReport() const
{
    return RowParity::Describe(m_mix.empty() ? m_config.device : "mix",
                               m_config.hostParity,
                               m_hostRateBps);
}

std::string
SprayExperiment::HostDevice(uint32_t host) const
{
    return m_mix.empty() ? m_config.device : m_mix[m_hostDevice.at(host)].device;
}

Ptr<TcpSocketEndpoint>
SprayExperiment::RunEndpoint() const
{
    if (m_mix.empty())
    {
        Ptr<TcpSocketEndpoint> e = MakeEndpoint(m_config.device, m_ccType);
        e->SetAttribute("VerifyPayload", BooleanValue(m_config.verifyPayload));
        ApplyParity(e);
        return e;
    }
    // the offload socket factory: hosts without an offload NIC keep ns-3's TCP
    // (TcpSocketEndpoint::FactoryFor), with the host-tcp share's congestion control
    Ptr<TcpSocketEndpoint> e = MakeEndpoint("presto", m_ccType);
    e->SetAttribute("Name", StringValue("mix"));
    e->SetAttribute("VerifyPayload", BooleanValue(m_config.verifyPayload));
    ApplyParity(e);
    for (std::size_t i = 0; i < m_mix.size(); ++i)
    {
        if (m_mix[i].device == "host-tcp")
        {
            e->SetAttribute("CongestionControl", TypeIdValue(m_mixCc[i]));
        }
    }
    return e;
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

SprayExperiment::SprayExperiment(const SprayExperimentConfig& config)
    : m_config(config)
{
    const auto& c = m_config;
    CheckUtf8(c);
    CheckModeOptions(c);
    m_config.device = NicDesign::Canonical(c.device, "--device");
    RequireOneOf("hostStack", c.hostStack, {"linux", "tas"});
    if (c.hostParity)
    {
        RowParity::CheckUserSettings();
    }
    if (!c.cc.empty())
    {
        RequireOneOf("cc", c.cc, CongestionControls());
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
    if (c.mix.empty())
    {
        m_ccType = ResolveDevice(c.device);
    }
    else
    {
        if (c.device != SprayExperimentConfig().device)
        {
            throw PrestoInputError("--mix=" + InputExcerpt(c.mix) + " and --device=" + c.device +
                                   " exclude each other: the mix names every device");
        }
        RequireOneOf("mixBy", c.mixBy, {"host", "leaf"});
        m_mix = ParseDeviceMix(c.mix, Devices());
        const std::string cc = c.cc.empty() ? "dctcp" : c.cc;
        for (const auto& share : m_mix)
        {
            // one congestion control by name for every device of the mix
            m_config.cc = cc;
            m_mixCc.push_back(ResolveDevice(share.device));
        }
        m_config.cc = cc;
        m_ccType = m_mixCc[0];
    }
    {
        std::vector<std::string> devices;
        for (const auto& share : m_mix)
        {
            devices.push_back(share.device);
        }
        if (m_mix.empty())
        {
            devices.push_back(m_config.device);
        }
        CheckDesignOptions(config,
                           devices,
                           m_mix.empty() ? "--device=" + m_config.device : "--mix=" + c.mix);
    }
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
        m_config.links = c.fabric == "ns3-routers" ? "p2p" : "fast";
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
    CheckMemory(0);

    // link failures and degradations: "a-b[:rate][@time]"
    auto parseLinks = [this, &c](const std::string& list, bool withRate) {
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
                throw PrestoInputError(std::string("--") + option + ": no link " +
                                       InputExcerpt(spec) + " in topology " +
                                       m_topology.Describe());
            }
            m_linkChanges.push_back(change);
        }
    };
    parseLinks(c.failLinks, false);
    parseLinks(c.degradeLinks, true);
    AssignMix();

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(c.seed);
    if (IsRpc())
    {
        if (!c.flowFile.empty())
        {
            throw PrestoInputError("--workload=" + c.workload +
                                   " and --flowFile exclude each other");
        }
        m_rpc.hosts = m_topology.GetNHosts();
        m_rpc.connectionsPerHost = c.rpcConnections;
        m_rpc.outstanding = c.rpcOutstanding;
        m_rpc.ratePerHost = c.rpcRate;
        m_rpc.backlog = c.rpcBacklog;
        m_rpc.seed =
            SplitMix64(uint64_t(RngSeedManager::GetSeed()) << 32 | RngSeedManager::GetRun());
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
        m_rpcResponse =
            std::make_unique<RpcSizes>(RpcSizes::FromSpec(c.rpcResponse, "--rpcResponse"));
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
    else if (!c.flowFile.empty())
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
        g.hostRateBps = hostRate;
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
    const BurstArrivals arrivals = BurstArrivalsFromString(c.bursts, "bursts");
    if (arrivals != BurstArrivals::OFF && IsRpc())
    {
        throw PrestoInputError("--bursts=" + c.bursts +
                               " adds incast flows to a flow workload, not to --workload=rpc");
    }
    AddIncastBursts();
    if (c.apps == 0)
    {
        throw PrestoInputError("--apps=0: a host needs at least 1 application");
    }
    if (c.apps > 1)
    {
        if (IsRpc())
        {
            throw PrestoInputError("--apps deals flows to applications; the RPC workload's "
                                   "connections belong to one application per host");
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
    // Every flow's ideal FCT now, from the path it takes on the idle fabric: a flow whose
    // ideal FCT does not fit in ns-3's time stops the run here, before anything is written.
    if (!IsRpc())
    {
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
                   << ": flow " << f.id << " (host " << f.src << " to " << f.dst << ", "
                   << f.sizeBytes << " bytes): " << e.what();
                throw PrestoInputError(os.str());
            }
            m_records.push_back(r);
        }
        std::sort(m_records.begin(), m_records.end(), [](const FctRecord& a, const FctRecord& b) {
            return a.flow.id < b.flow.id;
        });
    }
    CheckMemory(m_flows.size());
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

ObjectFactory
SprayExperiment::DeviceFactory(const std::string& device, TypeId cc)
{
    ObjectFactory nic;
    nic.SetTypeId(NicDesign::GetTypeId(device)); // throws for host-tcp: it has no offload NIC
    nic.Set("CongestionControl", TypeIdValue(cc));
    return nic;
}

Ptr<TcpSocketEndpoint>
SprayExperiment::MakeEndpoint(const std::string& device, TypeId cc)
{
    // Devices() lists exactly the names handled here: every endpoint drives flows through
    // ns-3's socket API; the offload NICs bring their own socket factory.
    Ptr<TcpSocketEndpoint> e = CreateObject<TcpSocketEndpoint>();
    e->SetAttribute("Name", StringValue(device));
    if (device != NicDesign::HOST_TCP)
    {
        e->SetAttribute("SocketFactory", TypeIdValue(OffloadSocketFactory::GetTypeId()));
    }
    else
    {
        e->SetAttribute("CongestionControl", TypeIdValue(cc));
    }
    return e;
}

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

namespace
{

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

void
SprayExperiment::JoinRack(Ptr<NetDevice> device,
                          uint32_t tor,
                          std::map<uint32_t, Ptr<PrestoRackPipeline>>& racks)
{
    Ptr<PrestoNetDevice> presto = DynamicCast<PrestoNetDevice>(device);
    if (!presto)
    {
        return;
    }
    EnumValue placement;
    presto->GetAttribute("Placement", placement);
    if (placement.Get() != PrestoNetDevice::PLACE_TOR)
    {
        return;
    }
    auto& rack = racks[tor];
    if (!rack)
    {
        UintegerValue slots;
        presto->GetAttribute("MaxConnections", slots);
        rack = Create<PrestoRackPipeline>(static_cast<uint32_t>(slots.Get()));
    }
    presto->SetRackPipeline(rack);
}

void
SprayExperiment::ShareRackPipelines(const FabricHelper& fabric)
{
    // Presto hosts whose Placement is tor: one pipeline per rack switch (the switch each host
    // hangs off), shared by the rack's Presto hosts
    std::map<uint32_t, Ptr<PrestoRackPipeline>> racks;
    const NetDeviceContainer devices = fabric.GetHostDevices();
    for (uint32_t h = 0; h < devices.GetN(); ++h)
    {
        const uint32_t node = m_topology.HostNode(h);
        const auto& link = m_topology.GetLinks()[m_topology.GetPorts(node)[0]];
        JoinRack(devices.Get(h), link.a == node ? link.b : link.a, racks);
    }
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
    if (c.hostCores > 0)
    {
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
        servers.SetAttribute("Cores",
                             UintegerValue(c.serverCores > 0 ? c.serverCores : c.hostCores));
        for (uint32_t h = 0; h < fabric.GetHosts().GetN(); ++h)
        {
            const bool server = IsRpc() && m_rpc.servers > 0 && m_rpc.IsServer(h);
            (server ? servers : clients).Install(fabric.GetHosts().Get(h));
        }
    }
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

bool
SprayExperiment::IsRpc() const
{
    return m_config.workload == "rpc" || m_config.workload == "kv";
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
    m_speed.wallS = std::chrono::duration<double>(wallEnd - wallStart).count();
    m_speed.events = Simulator::GetEventCount() - eventsBefore;

    m_summary = SummarizeFct(m_records, m_edges, static_cast<int64_t>(c.warmup * 1e9));
    m_speed.simS = Simulator::Now().GetSeconds();
    m_speed.packetHops = fabric.GetPacketHops();
    m_speed.packetHopsPerS = m_speed.wallS > 0 ? m_speed.packetHops / m_speed.wallS : 0;
    m_speed.peakRssKb = PeakRssKb();
    m_speed.scheduler = SchedulerName();
    m_speed.simulator = SimulatorImplName();
    m_speed.progressS = c.progress; // as given, also when --quiet silences it
    m_report = SummaryToJson(m_summary, m_speed);
    m_report["config"] = c.ToJson();
    AddProvenance(m_report);
    m_report["policy"] = PolicyReport();
    m_report["topology"] = m_topology.Describe();
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
        PrintSummaryTable(std::cout, label, m_summary, m_speed);
        std::cout << "delivery: " << m_report["delivery"].dump() << "\n"
                  << "fabric:   " << m_report["fabric"].dump() << "\n"
                  << (m_report.contains("nic") ? "nic:      " + m_report["nic"].dump() + "\n"
                                               : std::string())
                  << "host cpu: " << HostCpuLine(m_report["host_cpu"]) << "\n";
        if (!classes.empty())
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
        std::cout << "outputs:  " << PublishedFolder().string()
                  << "/{fct.csv,summary.json,flows.txt" << (c.hpccFct ? ",fct.txt" : "")
                  << (c.flowMonitor ? ",flowmon.xml" : "") << (classes.empty() ? "" : ",incast.csv")
                  << (c.queueTrace > 0 ? ",queues.csv,switch-events.csv" : "")
                  << (c.queueTrace > 0 && c.plot ? ",queues.png" : "")
                  << (c.plot ? ",fct.png}" : "}") << std::endl;
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
    m_speed.wallS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    m_speed.events = Simulator::GetEventCount() - eventsBefore;
    m_speed.simS = Simulator::Now().GetSeconds();
    m_speed.packetHops = fabric.GetPacketHops();
    m_speed.packetHopsPerS = m_speed.wallS > 0 ? m_speed.packetHops / m_speed.wallS : 0;
    m_speed.peakRssKb = PeakRssKb();
    m_speed.scheduler = SchedulerName();
    m_speed.simulator = SimulatorImplName();
    m_speed.progressS = c.progress; // as given, also when --quiet silences it

    m_report = nlohmann::json::object();
    m_report["config"] = c.ToJson();
    AddProvenance(m_report);
    m_report["policy"] = PolicyReport();
    m_report["topology"] = m_topology.Describe();
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
    WriteQueueTrace();
    WriteJson((m_stage / "summary.json").string(), m_report);
    if (!c.quiet)
    {
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
                  << cpu["cycles_per_request"].get<double>() << " cycles/request\n"
                  << "outputs:  " << PublishedFolder().string() << "/summary.json" << std::endl;
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
    if (r.contains("rpc"))
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
