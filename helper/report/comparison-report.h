/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_COMPARISON_REPORT_H
#define PRESTO_COMPARISON_REPORT_H

#include "ns3/fct-record.h"
#include "ns3/fct-statistics.h"

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Flow-size classes of the device comparison, fixed (not per CDF) so that every
 * workload and every run is split the same way: small <= 100 KB (10^5 bytes) < medium
 * <= 10 MB (10^7 bytes) < large.
 */
enum class SizeClass
{
    SMALL = 0,  //!< size <= kSmallMaxBytes
    MEDIUM = 1, //!< kSmallMaxBytes < size <= kMediumMaxBytes
    LARGE = 2,  //!< size > kMediumMaxBytes
};

constexpr uint64_t kSmallMaxBytes = 100000;    //!< largest small flow, bytes (100 KB)
constexpr uint64_t kMediumMaxBytes = 10000000; //!< largest medium flow, bytes (10 MB)
constexpr std::size_t kSizeClasses = 3;        //!< number of SizeClass values

/**
 * \ingroup presto
 * \brief ns-3 stream number of the small-flow p99 bootstrap (MakeComparisonRow), drawn
 * under ns-3's seed and the run's own run number ("config"."seed" of its report).
 */
constexpr int64_t kBootstrapStream = 200000;

/**
 * \ingroup presto
 * \param bytes a flow size, bytes
 * \return its class (edges inclusive above: 100000 is small, 100001 medium)
 */
SizeClass ClassifyFlowSize(uint64_t bytes);

/**
 * \ingroup presto
 * \param c a class
 * \return "small", "medium" or "large"
 */
std::string SizeClassName(SizeClass c);

/**
 * \ingroup presto
 * \brief One run of the comparison as asked for by --devices: "host-tcp", "presto:1",
 * "presto:full", "flextoe", "cora", "cora:state".
 */
struct ComparisonDevice
{
    std::string device;   //!< SprayExperiment device name
    std::string fidelity; //!< presto: the K after the colon ("" for other devices)
    std::string strategy; //!< cora: the strategy after the colon ("": the default)
    std::string label;    //!< run label and folder name: "presto-K1", "cora-state", "flextoe"
};

/**
 * \ingroup presto
 * \brief Parse a --devices list: comma-separated names, each a device of \p valid with an
 * optional ":parameter" for presto (its fidelity K, required) and cora (its strategy).
 *
 * Throws PrestoInputError naming the option and the item for an empty list or item, an
 * unknown device (the message lists the valid ones), a parameter on a device that takes none,
 * presto without ":K", or the same label twice. K and the strategy are checked later by the
 * experiment itself.
 * \param text the option's value
 * \param valid the device names the experiment accepts (SprayExperiment::Devices())
 * \return the runs in the order given
 */
std::vector<ComparisonDevice> ParseComparisonDevices(const std::string& text,
                                                     const std::vector<std::string>& valid);

/**
 * \ingroup presto
 * \brief One device's row of the comparison. Unknown or not-applicable numbers are NaN
 * (printed "-", written as an empty CSV field).
 */
struct ComparisonRow
{
    std::string label;                                  //!< the run label
    std::string device;                                 //!< the device name
    std::string cc;                                     //!< its congestion control (--cc)
    std::array<DistributionSummary, kSizeClasses> slow; //!< slowdown per SizeClass
    std::vector<BucketSummary> buckets;                 //!< the run's own size buckets
    uint64_t flows{0};                                  //!< flows counted (after warm-up)
    uint64_t unfinished{0};                             //!< counted flows not finished
    double fidelityDrops{0}; //!< segments dropped for lack of reassembly intervals (0: host)
    double retxBytes{0};     //!< bytes retransmitted by all senders
    double retxSegments{0};  //!< segments retransmitted by all senders
    double hostCores{0};     //!< host cores busy on networking, summed over hosts
    double cyclesPerByte{0}; //!< host cycles per delivered byte
    /// host cores per host in simulated time (--hostCores); NaN: unlimited (counted only)
    double coreBudget{std::numeric_limits<double>::quiet_NaN()};
    /// mean utilisation of those cores over the run, 0..1 (NaN: unlimited)
    double coreUtil{std::numeric_limits<double>::quiet_NaN()};
    /// busiest single core's utilisation, 0..1 (NaN: unlimited)
    double busiestCore{std::numeric_limits<double>::quiet_NaN()};
    /// mean wait of a piece of host work for its core, us (NaN: unlimited)
    double coreWaitUs{std::numeric_limits<double>::quiet_NaN()};
    double stagesUsed;    //!< presto: deepest program on the pipeline, stages
    double registerBytes; //!< presto: register memory of every program, bytes
    /// presto, per program (NaN: not there): stages of the receive program (the deepest
    /// class), of the send program and of the congestion program
    std::array<double, 3> programStages;
    /// presto, per program: register bytes of the receive programs (every class), the send
    /// program and the congestion program
    std::array<double, 3> programRegisters;
    double stageBudget;    //!< presto: stages the pipeline has
    double timerScanShare; //!< presto: share of the pipeline's slots the timer scan takes
    double pipelineUtil;   //!< presto: busiest pipeline's utilisation, 0..1
    /// presto: 1 if every class is an RMT program, 0 if one keeps full reassembly (Kfull,
    /// a reference no RMT pipeline can run)
    double rmtRealisable;
    double maxStageUtil;     //!< flextoe: busiest pipeline stage's utilisation, 0..1
    double maxStageQueue;    //!< flextoe: longest stage queue, packets
    double nicUtilisation;   //!< cora: busiest NIC's utilisation, 0..1
    double migrations;       //!< cora: state migrations between NIC and host
    double nicDrops;         //!< drops inside the NIC (queue, overload, lock; NaN: none)
    double outOfOrderPlaced; //!< offload: segments placed out of order
    /// small flows: 95% bootstrap interval of the p99 slowdown {low, high} (NaN: none)
    std::array<double, 2> smallP99Ci;
    double rpcConnections;   //!< rpc: connections per host (NaN: a flow workload)
    double rpcRate;          //!< rpc: requests answered per second in the window
    double rpcP50Us;         //!< rpc: median latency, us
    double rpcP99Us;         //!< rpc: 99th percentile latency, us
    double rpcP9999Us;       //!< rpc: 99.99th percentile latency, us
    double cyclesPerRequest; //!< rpc: host cycles per request (setup excluded)
    double setupCores;       //!< rpc: host cores on connection setup, summed over hosts
    double requestCores;     //!< rpc: host cores on everything else, summed over hosts
    double refused;          //!< offload: connections refused (table full)
    /// allreduce, alltoall: ranks (NaN: not a collective)
    double collectiveRanks{std::numeric_limits<double>::quiet_NaN()};
    /// allreduce, alltoall: job completion time, first step start to last completion, us
    double collectiveJctUs{std::numeric_limits<double>::quiet_NaN()};
    /// allreduce, alltoall: step durations over every rank and iteration, median, us
    double collectiveStepP50Us{std::numeric_limits<double>::quiet_NaN()};
    /// allreduce, alltoall: step durations, 99th percentile, us
    double collectiveStepP99Us{std::numeric_limits<double>::quiet_NaN()};
    /// allreduce, alltoall: the rank that completed last
    double collectiveSlowestRank{std::numeric_limits<double>::quiet_NaN()};
    /// packets the fabric's switches ECN-marked (summary.json fabric.switch_ecn_marks)
    double switchEcnMarks{std::numeric_limits<double>::quiet_NaN()};
    /// packets the fabric's switches dropped (fabric.switch_drops)
    double switchDrops{std::numeric_limits<double>::quiet_NaN()};
    /// retransmission timeouts of all senders (nic.timeouts for an offload design,
    /// tcp.timeouts for ns-3's TCP; NaN: not reported)
    double timeouts{std::numeric_limits<double>::quiet_NaN()};
    /// what the row's hosts do beyond the design (summary.json "policy": egress, ack,
    /// transport; RowParity::Describe)
    std::map<std::string, std::string> policy;
    /// the seeds (run numbers) the row holds: one, or several pooled
    std::vector<uint32_t> seeds;
    /// small-flow p99 slowdown of each seed's run alone, in the order of seeds (NaN: none)
    std::vector<double> seedSmallP99;

    ComparisonRow();
};

/**
 * \ingroup presto
 * \brief Build a device's row from its run.
 *
 * Slowdowns per class are recomputed from the records (finished flows that started at or
 * after \p warmupNs), never averaged from bucket percentiles. Counters come from the run's
 * summary.json object: "nic" (offload devices: fidelity_drops, retx_bytes, retx_segments,
 * out_of_order_placed, "pipeline" classes, "flextoe_stages", nic_utilisation, migrations,
 * queue_drops / nic_drops), else retransmissions from the records' retx_bytes and
 * "tcp"."retx_segments"; "host_cpu"."cores_used" and "cycles_per_byte"; the congestion
 * control from "config"."cc". The small-flow p99's bootstrap interval draws from stream
 * kBootstrapStream under RngSeedManager's seed and the run number "config"."seed" (the
 * current run if absent).
 * \param label the run label
 * \param device the device name
 * \param records the run's flows
 * \param summary the run's FCT summary (its buckets and warm-up)
 * \param report the run's summary.json object
 * \return the row
 */
ComparisonRow MakeComparisonRow(const std::string& label,
                                const std::string& device,
                                const std::vector<FctRecord>& records,
                                const FctSummary& summary,
                                const nlohmann::json& report);

/**
 * \ingroup presto
 * \brief One seed's run of a device (MakePooledComparisonRow's input).
 */
struct ComparisonRun
{
    uint32_t seed{0};               //!< its run number
    std::vector<FctRecord> records; //!< its flows
    FctSummary summary;             //!< its FCT summary
    nlohmann::json report;          //!< its summary.json
};

/**
 * \ingroup presto
 * \brief A device's row pooled over several seeds.
 *
 * The flows of every run are one sample: the size classes' percentiles, the buckets and the
 * small-flow p99's bootstrap interval (drawn under the first run's seed) come from all of
 * them, so the interval and the tiers reflect seed-to-seed variation as well as the flows'.
 * Counters (retransmissions, drops, cores, utilisations, migrations) are the mean of the
 * runs; the configuration (stages, registers, budget, policy) is the first run's. The rows
 * of each run alone give seedSmallP99.
 * \param label the device's label
 * \param device its name
 * \param runs its runs, at least one, in seed order
 * \return the pooled row (seeds: the runs' seeds)
 * \throws PrestoInputError without runs
 */
ComparisonRow MakePooledComparisonRow(const std::string& label,
                                      const std::string& device,
                                      const std::vector<ComparisonRun>& runs);

/**
 * \ingroup presto
 * \brief The labels ordered by small-flow p99 slowdown, lowest first (ties and rows without
 * small flows keep their order; rows without small flows go last).
 * \param rows the rows
 * \return the labels
 */
std::vector<std::string> OrderBySmallP99(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief The order by small-flow p99 with statistical ties: "a < b ~ c < d".
 *
 * Rows are sorted by small-flow p99 (OrderBySmallP99); a row joins the tier of the row
 * before it ("~") when its 95% bootstrap interval overlaps the interval of the tier's first
 * row, else it starts a new tier ("<"). Devices in one tier do not differ beyond sampling
 * noise of this run; the order of tiers is the claim a run supports.
 * \param rows the rows
 * \return the order, e.g. "flextoe < presto-K1 ~ presto-K2 < host-tcp"
 */
std::string TieredOrderBySmallP99(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief The table's header lines on what the rows hold equal and what still differs
 * between them beyond the design: one line "held equal: key value; ..." for the policy keys
 * every row shares, and one line "differs in KEY: a, b: X; c: Y" per key whose value
 * differs (ComparisonRow::policy). Empty when no row has a policy.
 * \param rows the rows
 * \return the lines, each ending in a newline
 */
std::string FormatRowPolicies(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief For rows pooled over seeds: which seeds, what is pooled, and each row's small-flow
 * p99 with its interval, then the p99 of each seed alone. Empty unless a row holds more than
 * one seed.
 * \param rows the rows
 * \return the lines
 */
std::string FormatSeeds(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief The NIC's resources of a row in words ("stages 7, regs 1.2KB", "stage util 0.83,
 * q 12", "util 0.40, migr 3", "drops 5", "refused 12"), "-" for none.
 * \param r the row
 * \return the text
 */
std::string NicCell(const ComparisonRow& r);

/**
 * \ingroup presto
 * \brief The console table: one line per row with slowdown p50/p99 per class, unfinished
 * flows, fidelity drops, retransmitted segments, host cores and cycles/byte, and the NIC's
 * resources in words ("stages 7, regs 1.2KB", "stage util 0.83, q 12", "util 0.40, migr 3"),
 * then the line "order by small-flow p99: a < b < ...", the tiers and FormatCounters.
 * \param rows the rows
 * \return the text, ending in a newline
 */
std::string FormatComparisonTable(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief The table's line of the counters that explain a ranking: "switch ECN marks / switch
 * drops / timeouts: a 120 / 7 / 4; b 80 / 0 / 1" (a counter a run does not report as "-"),
 * or "" when no row has any of them (FormatComparisonTable ends with it, before the seeds).
 * \param rows the rows
 * \return the line with its newline, or ""
 */
std::string FormatCounters(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief comparison.csv: header "label,device,flows,unfinished,small_count,small_p50,
 * small_p99,medium_count,medium_p50,medium_p99,large_count,large_p50,large_p99,
 * fidelity_drops,retx_bytes,retx_segments,host_cores_used,host_cycles_per_byte,
 * nic_stages_used,nic_register_bytes,nic_max_stage_utilisation,nic_max_stage_queue,
 * nic_utilisation,nic_migrations,nic_drops,out_of_order_placed,...,seeds,small_p99_by_seed,
 * switch_ecn_marks,switch_drops,timeouts", one line per row (the last three: the fabric's
 * switch counters and the senders' retransmission timeouts, which explain a ranking). Numbers
 * in the shortest form that reads back as the same double; NaN (and the percentiles of an
 * empty class) as an empty field.
 * \param rows the rows
 * \return the file's text
 */
std::string ComparisonCsv(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief A gnuplot script drawing p99 slowdown per flow-size bucket, one line per row (x =
 * bucket labels of every row's buckets, log y; empty buckets left out).
 * \param rows the rows
 * \param pngPath the image the script writes (kGnuplotPngPlaceholder to render it with
 * RenderGnuplotPng)
 * \param caption the run configuration (RunCaption), one line along the top ("": none)
 * \return the script
 */
std::string SlowdownByBucketScript(const std::vector<ComparisonRow>& rows,
                                   const std::string& pngPath,
                                   const std::string& caption = "");

/**
 * \ingroup presto
 * \brief A gnuplot script drawing one bar per row: small-flow p99 slowdown (rows without
 * small flows draw no bar), with a whisker over its 95% bootstrap interval (smallP99Ci,
 * the small_p99_ci95_low/high columns of comparison.csv) where the row has one.
 * \param rows the rows
 * \param pngPath the image the script writes (kGnuplotPngPlaceholder to render it with
 * RenderGnuplotPng)
 * \param caption the run configuration (RunCaption), one line along the top ("": none)
 * \return the script
 */
std::string P99SmallScript(const std::vector<ComparisonRow>& rows,
                           const std::string& pngPath,
                           const std::string& caption = "");

/**
 * \ingroup presto
 * \brief A gnuplot script with two bar panels per row: host cores used and host cycles per
 * delivered byte.
 * \param rows the rows
 * \param pngPath the image the script writes (kGnuplotPngPlaceholder to render it with
 * RenderGnuplotPng)
 * \param caption the run configuration (RunCaption), one line along the top ("": none)
 * \return the script
 */
std::string HostCpuScript(const std::vector<ComparisonRow>& rows,
                          const std::string& pngPath,
                          const std::string& caption = "");

/**
 * \ingroup presto
 * \brief The console table of an RPC comparison: per row the connections per host,
 * requests/s, latency p50/p99/p99.99 (us), host cores, host cycles per request and the NIC's
 * resources, then the definitions.
 * \param rows rows made from RPC runs
 * \return the text, ending in a newline
 */
std::string FormatRpcTable(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief comparison.csv of an RPC comparison: "label,device,cc,connections_per_host,
 * requests_per_s,latency_p50_us,latency_p99_us,latency_p9999_us,host_cores_used,
 * host_cycles_per_request,nic_stages_used,nic_max_stage_utilisation,nic_max_stage_queue,
 * nic_utilisation,nic_migrations,nic_drops,connections_refused", one line per row.
 * \param rows the rows
 * \return the file's text
 */
std::string RpcCsv(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief The console table of a collective comparison (--workload=allreduce or alltoall):
 * per row the ranks, the job completion time, the step durations p50/p99 (us), the slowest
 * rank, the retransmissions, switch drops and ECN marks, the host cores and cycles per byte
 * and the NIC's resources, then the definitions.
 * \param rows rows made from collective runs
 * \return the text, ending in a newline
 */
std::string FormatCollectiveTable(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief comparison.csv of a collective comparison: "label,device,cc,ranks,jct_us,
 * step_p50_us,step_p99_us,slowest_rank,retx_segments,timeouts,switch_drops,switch_ecn_marks,
 * nic_stages_used,nic_drops,host_cores_used,host_cycles_per_byte" and the program columns,
 * one line per row.
 * \param rows the rows
 * \return the file's text
 */
std::string CollectiveCsv(const std::vector<ComparisonRow>& rows);

/**
 * \ingroup presto
 * \brief A gnuplot script with two bar panels per row: requests per second and p99 latency.
 * \param rows the rows
 * \param pngPath the image (kGnuplotPngPlaceholder to render it with RenderGnuplotPng)
 * \param caption the run configuration (RunCaption), one line along the top ("": none)
 * \return the script
 */
std::string RpcLatencyScript(const std::vector<ComparisonRow>& rows,
                             const std::string& pngPath,
                             const std::string& caption = "");

/**
 * \ingroup presto
 * \brief One device's incast and background flows side by side (runs with --bursts): FCT
 * and slowdown of each class over its counted, finished flows, and the burst completion
 * time (first flow's start to the last flow's end). Unknown numbers are NaN.
 */
struct IncastRow
{
    std::string label;            //!< the run label
    std::string device;           //!< the device name
    double bursts;                //!< bursts counted (after the warm-up)
    double incastFlows;           //!< incast flows finished
    double incastUnfinished;      //!< incast flows not finished
    double incastFctP50Us;        //!< incast FCT median, us
    double incastFctP99Us;        //!< incast FCT p99, us
    double incastSlowdownP50;     //!< incast slowdown median
    double incastSlowdownP99;     //!< incast slowdown p99
    double burstP50Us;            //!< burst completion median, us
    double burstP99Us;            //!< burst completion p99, us
    double backgroundFlows;       //!< background flows finished
    double backgroundUnfinished;  //!< background flows not finished
    double backgroundFctP50Us;    //!< background FCT median, us
    double backgroundFctP99Us;    //!< background FCT p99, us
    double backgroundSlowdownP50; //!< background slowdown median
    double backgroundSlowdownP99; //!< background slowdown p99
};

/**
 * \ingroup presto
 * \brief A device's IncastRow from its summary.json object ("incast" and "background").
 * \param label the run label \param device the device name
 * \param report the run's summary.json object
 * \return the row; throws PrestoInputError if the report has no "incast" section
 */
IncastRow MakeIncastRow(const std::string& label,
                        const std::string& device,
                        const nlohmann::json& report);

/**
 * \ingroup presto
 * \brief The console table of incast against background: per row the bursts, then for the
 * incast flows the finished and unfinished count, FCT p50/p99 (us), slowdown p50/p99 and
 * burst completion p50/p99 (us), then the same FCT and slowdown columns for the background.
 * \param rows the rows
 * \return the text, ending in a newline
 */
std::string FormatIncastTable(const std::vector<IncastRow>& rows);

/**
 * \ingroup presto
 * \brief incast.csv of a comparison: header "label,device,bursts,incast_flows,
 * incast_unfinished,incast_fct_p50_us,incast_fct_p99_us,incast_slowdown_p50,
 * incast_slowdown_p99,burst_completion_p50_us,burst_completion_p99_us,background_flows,
 * background_unfinished,background_fct_p50_us,background_fct_p99_us,background_slowdown_p50,
 * background_slowdown_p99", one line per row (numbers as in comparison.csv).
 * \param rows the rows
 * \return the file's text
 */
std::string IncastCsv(const std::vector<IncastRow>& rows);

} // namespace ns3

#endif // PRESTO_COMPARISON_REPORT_H
