/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The comparison's rows: a run's flows and summary.json turned into a ComparisonRow (or an
// IncastRow), and the runs of several seeds pooled into one row.
#include "comparison-cells.h"
#include "comparison-report.h"

#include "ns3/presto-input-error.h"
#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

using comparison::kNaN;

namespace
{

/// A counter of a JSON object as a double; NaN when absent or not a number.
double
Number(const nlohmann::json& obj, const char* key)
{
    if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number())
    {
        return kNaN;
    }
    return obj[key].get<double>();
}

/// The host cores in simulated time ("host_cpu" "cores"), if the run had a budget.
void
AddCores(ComparisonRow& row, const nlohmann::json& cpu)
{
    if (!cpu.contains("cores") || !cpu["cores"].is_object())
    {
        return;
    }
    const nlohmann::json& c = cpu["cores"];
    row.coreBudget = Number(c, "per_host");
    row.coreUtil = Number(c, "utilisation");
    row.busiestCore = Number(c, "busiest_core_utilisation");
    row.coreWaitUs = Number(c, "wait_ns_mean") / 1e3;
}

/// a + b where a NaN counts as "nothing yet".
double
AddKnown(double a, double b)
{
    return std::isnan(a) ? b : (std::isnan(b) ? a : a + b);
}

/// The collective workloads' numbers ("collective").
void
AddCollectiveFields(ComparisonRow& row, const nlohmann::json& report)
{
    if (report.contains("collective"))
    {
        const auto& c = report["collective"];
        row.collectiveRanks = Number(c, "ranks");
        row.collectiveJctUs = Number(c, "jct_ns") / 1e3;
        row.collectiveStepP50Us = Number(c, "step_p50_ns") / 1e3;
        row.collectiveStepP99Us = Number(c, "step_p99_ns") / 1e3;
        row.collectiveSlowestRank = Number(c, "slowest_rank");
    }
}

/// The RPC workload's numbers ("rpc"), the host CPU split into connection setup and
/// requests ("host_cpu") and the connections the NIC refused.
void
AddRpcFields(ComparisonRow& row, const nlohmann::json& report)
{
    if (report.contains("rpc"))
    {
        const auto& rpc = report["rpc"];
        row.rpcConnections = Number(rpc, "connections_per_host");
        row.rpcRate = Number(rpc, "requests_per_s");
        row.rpcP50Us = Number(rpc, "latency_p50_us");
        row.rpcP99Us = Number(rpc, "latency_p99_us");
        row.rpcP9999Us = Number(rpc, "latency_p9999_us");
    }
    if (report.contains("host_cpu"))
    {
        const auto& cpu = report["host_cpu"];
        row.cyclesPerRequest = Number(cpu, "cycles_per_request");
        // the one-time setup of persistent connections apart from the per-request work
        const double perCore = Number(cpu, "clock_hz") * Number(cpu, "sim_seconds");
        const double setup = Number(cpu, "setup_cycles");
        if (!std::isnan(setup) && perCore > 0)
        {
            row.setupCores = setup / perCore;
            row.requestCores = (Number(cpu, "cycles") - setup) / perCore;
        }
    }
    if (report.contains("nic"))
    {
        row.refused = Number(report["nic"], "connections_refused");
    }
}

/// The congestion control ("config"."cc") and what the hosts do beyond the design
/// ("policy").
void
AddConfigFields(ComparisonRow& row, const nlohmann::json& report)
{
    if (report.contains("config") && report["config"].contains("cc") &&
        report["config"]["cc"].is_string())
    {
        row.cc = report["config"]["cc"].get<std::string>();
    }
    if (report.contains("policy") && report["policy"].is_object())
    {
        for (const auto& [key, value] : report["policy"].items())
        {
            if (value.is_string())
            {
                row.policy[key] = value.get<std::string>();
            }
        }
    }
}

/// The flows counted (started at or after the warm-up): row.flows, row.unfinished and the
/// slowdowns per size class (row.slow). Percentiles of a class come from its flows: bucket
/// percentiles cannot be averaged.
/// \param row the row to fill
/// \param records the run's flows
/// \param warmupNs flows starting before are not counted
/// \param recordRetx set to the bytes the records say were retransmitted, over every flow
/// (NaN: no record knows)
/// \return the slowdowns of the counted finished flows, per size class
std::array<std::vector<double>, kSizeClasses>
AddFlowSlowdowns(ComparisonRow& row,
                 const std::vector<FctRecord>& records,
                 int64_t warmupNs,
                 double& recordRetx)
{
    std::array<std::vector<double>, kSizeClasses> slow;
    recordRetx = kNaN;
    for (const FctRecord& r : records)
    {
        if (r.retxBytes >= 0)
        {
            recordRetx = AddKnown(recordRetx, static_cast<double>(r.retxBytes));
        }
        if (r.flow.startNs < warmupNs)
        {
            continue;
        }
        ++row.flows;
        if (!r.Finished())
        {
            ++row.unfinished;
            continue;
        }
        slow[static_cast<std::size_t>(ClassifyFlowSize(r.flow.sizeBytes))].push_back(r.Slowdown());
    }
    for (std::size_t c = 0; c < kSizeClasses; ++c)
    {
        row.slow[c] = Summarize(slow[c]);
    }
    return slow;
}

/// The row's seed, its small-flow p99 and the p99's bootstrap interval. The seed is the
/// run's own run number, the interval's stream one of its own: the same run, the same tiers.
/// \param row the row, its row.slow filled
/// \param report the run's summary.json
/// \param small the slowdowns of the counted finished small flows
void
AddSmallP99Interval(ComparisonRow& row,
                    const nlohmann::json& report,
                    const std::vector<double>& small)
{
    const uint64_t run = report.contains("config") && report["config"].contains("seed") &&
                                 report["config"]["seed"].is_number_unsigned()
                             ? report["config"]["seed"].get<uint64_t>()
                             : RngSeedManager::GetRun();
    row.seeds = {static_cast<uint32_t>(run)};
    row.seedSmallP99 = {row.slow[static_cast<std::size_t>(SizeClass::SMALL)].count > 0
                            ? row.slow[static_cast<std::size_t>(SizeClass::SMALL)].p99
                            : kNaN};
    ExperimentRandom random(kBootstrapStream, RngSeedManager::GetSeed(), run);
    auto ci = BootstrapQuantileCi(small, 0.99, random);
    row.smallP99Ci = {ci.first, ci.second};
}

/// The senders' retransmissions and timeouts: an offload NIC's own counters (\p nic), else
/// host TCP's (\p tcp, and the bytes of the records, \p recordRetx).
void
AddSenderCounters(ComparisonRow& row,
                  const nlohmann::json& nic,
                  const nlohmann::json& tcp,
                  double recordRetx)
{
    if (!nic.empty())
    {
        // the offload NIC is the sender: its counters are the retransmissions
        row.fidelityDrops = Number(nic, "fidelity_drops");
        row.retxBytes = Number(nic, "retx_bytes");
        row.retxSegments = Number(nic, "retx_segments");
        row.outOfOrderPlaced = Number(nic, "out_of_order_placed");
        row.timeouts = Number(nic, "timeouts");
    }
    else
    {
        row.fidelityDrops = 0; // host TCP keeps every out-of-order segment
        row.retxBytes = std::isnan(recordRetx) ? kNaN : recordRetx;
        row.retxSegments = Number(tcp, "retx_segments");
        row.timeouts = Number(tcp, "timeouts");
    }
}

/// Presto's programs on the RMT pipeline ("nic"): the receive programs (one per fidelity
/// class), the send and the congestion program, then the totals of all of them, which
/// replace the receive programs' stages, bytes and budget where the run reports them.
void
AddPipelinePrograms(ComparisonRow& row, const nlohmann::json& nic)
{
    if (nic.contains("pipeline") && nic["pipeline"].is_array())
    {
        // Presto's receive programs, one per fidelity class; a class with full reassembly has
        // none (stages_used null): no RMT pipeline can keep out-of-order payload
        row.rmtRealisable = 1;
        for (const auto& cls : nic["pipeline"])
        {
            if (cls.contains("fidelity") && cls["fidelity"] == "full")
            {
                row.rmtRealisable = 0;
            }
            const double stages = Number(cls, "stages_used");
            if (!std::isnan(stages))
            {
                row.stagesUsed =
                    std::isnan(row.stagesUsed) ? stages : std::max(row.stagesUsed, stages);
                row.programStages[0] = std::isnan(row.programStages[0])
                                           ? stages
                                           : std::max(row.programStages[0], stages);
            }
            const double bytes = Number(cls, "register_bytes");
            row.registerBytes = AddKnown(row.registerBytes, bytes);
            row.programRegisters[0] = AddKnown(row.programRegisters[0], bytes);
            row.stageBudget = Number(cls, "stage_budget");
        }
    }
    const char* const programs[] = {"tx_program", "cc_program"};
    for (std::size_t p = 0; p < 2; ++p)
    {
        if (nic.contains(programs[p]) && nic[programs[p]].is_object())
        {
            row.programStages[p + 1] = Number(nic[programs[p]], "stages_used");
            row.programRegisters[p + 1] = Number(nic[programs[p]], "register_bytes");
        }
    }
    if (nic.contains("pipeline_total") && nic["pipeline_total"].is_object())
    {
        // Presto: every program on the pipeline (receive, send, congestion) together
        const auto& t = nic["pipeline_total"];
        row.stagesUsed = Number(t, "stages_used");
        row.registerBytes = Number(t, "register_bytes_per_nic");
        row.stageBudget = Number(t, "stage_budget");
        row.pipelineUtil = Number(t, "utilisation_max");
        const double passRate = Number(nic, "pipeline_pass_rate_per_s");
        row.timerScanShare = passRate > 0 ? Number(nic, "timer_scan_rate_per_s") / passRate : kNaN;
    }
}

/// How loaded the NIC was: FlexTOE's busiest stage and longest stage queue, Cora's NIC
/// utilisation and migrations, and the drops inside the NIC.
void
AddNicLoad(ComparisonRow& row, const nlohmann::json& nic)
{
    if (nic.contains("flextoe_stages") && nic["flextoe_stages"].is_structured())
    {
        // an object keyed by stage name ("pre", "protocol", ...)
        for (const auto& st : nic["flextoe_stages"])
        {
            const double u = Number(st, "max_utilisation");
            const double q = Number(st, "max_queue");
            row.maxStageUtil = std::isnan(row.maxStageUtil) ? u : std::max(row.maxStageUtil, u);
            row.maxStageQueue = std::isnan(row.maxStageQueue) ? q : std::max(row.maxStageQueue, q);
        }
    }
    row.nicUtilisation = Number(nic, "nic_utilisation");
    row.migrations = Number(nic, "migrations");
    // drops inside the NIC: FlexTOE's stage queues, Cora's overload and lock drops
    row.nicDrops = AddKnown(Number(nic, "queue_drops"), Number(nic, "nic_drops"));
}

} // namespace

SizeClass
ClassifyFlowSize(uint64_t bytes)
{
    if (bytes <= kSmallMaxBytes)
    {
        return SizeClass::SMALL;
    }
    return bytes <= kMediumMaxBytes ? SizeClass::MEDIUM : SizeClass::LARGE;
}

std::string
SizeClassName(SizeClass c)
{
    switch (c)
    {
    case SizeClass::SMALL:
        return "small";
    case SizeClass::MEDIUM:
        return "medium";
    case SizeClass::LARGE:
        return "large";
    }
    return "?";
}

ComparisonRow::ComparisonRow()
    : stagesUsed(kNaN),
      registerBytes(kNaN),
      programStages{kNaN, kNaN, kNaN},
      programRegisters{kNaN, kNaN, kNaN},
      stageBudget(kNaN),
      timerScanShare(kNaN),
      pipelineUtil(kNaN),
      rmtRealisable(kNaN),
      maxStageUtil(kNaN),
      maxStageQueue(kNaN),
      nicUtilisation(kNaN),
      migrations(kNaN),
      nicDrops(kNaN),
      outOfOrderPlaced(kNaN),
      smallP99Ci{kNaN, kNaN},
      rpcConnections(kNaN),
      rpcRate(kNaN),
      rpcP50Us(kNaN),
      rpcP99Us(kNaN),
      rpcP9999Us(kNaN),
      cyclesPerRequest(kNaN),
      setupCores(kNaN),
      requestCores(kNaN),
      refused(kNaN)
{
}

ComparisonRow
MakeComparisonRow(const std::string& label,
                  const std::string& device,
                  const std::vector<FctRecord>& records,
                  const FctSummary& summary,
                  const nlohmann::json& report)
{
    ComparisonRow row;
    row.label = label;
    row.device = device;
    AddRpcFields(row, report);
    AddCollectiveFields(row, report);
    AddConfigFields(row, report);
    row.buckets = summary.buckets;
    double recordRetx = kNaN;
    const auto slow = AddFlowSlowdowns(row, records, summary.warmupNs, recordRetx);
    AddSmallP99Interval(row, report, slow[static_cast<std::size_t>(SizeClass::SMALL)]);

    const nlohmann::json none = nlohmann::json::object();
    const nlohmann::json& nic = report.contains("nic") ? report["nic"] : none;
    const nlohmann::json& tcp = report.contains("tcp") ? report["tcp"] : none;
    const nlohmann::json& cpu = report.contains("host_cpu") ? report["host_cpu"] : none;
    AddSenderCounters(row, nic, tcp, recordRetx);
    const nlohmann::json& fabric = report.contains("fabric") ? report["fabric"] : none;
    row.switchEcnMarks = Number(fabric, "switch_ecn_marks");
    row.switchDrops = Number(fabric, "switch_drops");
    row.hostCores = Number(cpu, "cores_used");
    row.cyclesPerByte = Number(cpu, "cycles_per_byte");
    AddCores(row, cpu);
    AddPipelinePrograms(row, nic);
    AddNicLoad(row, nic);
    return row;
}

ComparisonRow
MakePooledComparisonRow(const std::string& label,
                        const std::string& device,
                        const std::vector<ComparisonRun>& runs)
{
    if (runs.empty())
    {
        throw PrestoInputError("MakePooledComparisonRow('" + label + "'): no runs to pool");
    }
    std::vector<ComparisonRow> single;
    std::vector<FctRecord> pooled;
    for (const auto& run : runs)
    {
        single.push_back(MakeComparisonRow(label, device, run.records, run.summary, run.report));
        pooled.insert(pooled.end(), run.records.begin(), run.records.end());
    }
    std::vector<uint64_t> edges;
    for (const auto& b : runs[0].summary.buckets)
    {
        edges.push_back(b.hiBytes);
    }
    const FctSummary summary = SummarizeFct(pooled, edges, runs[0].summary.warmupNs);
    ComparisonRow row = MakeComparisonRow(label, device, pooled, summary, runs[0].report);
    // counters: the mean of the runs (NaN where a run does not have it)
    for (double ComparisonRow::*counter : {&ComparisonRow::fidelityDrops,
                                           &ComparisonRow::retxBytes,
                                           &ComparisonRow::retxSegments,
                                           &ComparisonRow::hostCores,
                                           &ComparisonRow::cyclesPerByte,
                                           &ComparisonRow::coreUtil,
                                           &ComparisonRow::busiestCore,
                                           &ComparisonRow::coreWaitUs,
                                           &ComparisonRow::maxStageUtil,
                                           &ComparisonRow::maxStageQueue,
                                           &ComparisonRow::nicUtilisation,
                                           &ComparisonRow::migrations,
                                           &ComparisonRow::nicDrops,
                                           &ComparisonRow::outOfOrderPlaced,
                                           &ComparisonRow::pipelineUtil,
                                           &ComparisonRow::refused,
                                           &ComparisonRow::switchEcnMarks,
                                           &ComparisonRow::switchDrops,
                                           &ComparisonRow::timeouts})
    {
        double sum = 0;
        for (const auto& r : single)
        {
            sum += r.*counter;
        }
        row.*counter = sum / static_cast<double>(single.size());
    }
    row.seeds.clear();
    row.seedSmallP99.clear();
    for (std::size_t i = 0; i < runs.size(); ++i)
    {
        row.seeds.push_back(runs[i].seed);
        row.seedSmallP99.push_back(single[i].seedSmallP99.at(0));
    }
    return row;
}

IncastRow
MakeIncastRow(const std::string& label, const std::string& device, const nlohmann::json& report)
{
    if (!report.contains("incast") || !report.contains("background"))
    {
        throw PrestoInputError("run " + label +
                               ": its report has no \"incast\" section (run with --bursts)");
    }
    const nlohmann::json& i = report["incast"];
    const nlohmann::json& b = report["background"];
    const nlohmann::json none = nlohmann::json::object();
    const nlohmann::json& io = i.contains("overall") ? i["overall"] : none;
    const nlohmann::json& bo = b.contains("overall") ? b["overall"] : none;
    const nlohmann::json& bc = i.contains("burst_completion") ? i["burst_completion"] : none;
    IncastRow r;
    r.label = label;
    r.device = device;
    r.bursts = Number(bc, "count") + Number(bc, "unfinished");
    r.incastFlows = Number(io, "count");
    r.incastUnfinished = Number(i, "unfinished");
    r.incastFctP50Us = Number(io, "fct_p50_ns") / 1e3;
    r.incastFctP99Us = Number(io, "fct_p99_ns") / 1e3;
    r.incastSlowdownP50 = Number(io, "slowdown_p50");
    r.incastSlowdownP99 = Number(io, "slowdown_p99");
    r.burstP50Us = Number(bc, "p50_ns") / 1e3;
    r.burstP99Us = Number(bc, "p99_ns") / 1e3;
    r.backgroundFlows = Number(bo, "count");
    r.backgroundUnfinished = Number(b, "unfinished");
    r.backgroundFctP50Us = Number(bo, "fct_p50_ns") / 1e3;
    r.backgroundFctP99Us = Number(bo, "fct_p99_ns") / 1e3;
    r.backgroundSlowdownP50 = Number(bo, "slowdown_p50");
    r.backgroundSlowdownP99 = Number(bo, "slowdown_p99");
    return r;
}

} // namespace ns3
