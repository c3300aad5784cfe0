/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "comparison-report.h"

#include "gnuplot-png.h"

#include "ns3/presto-input-error.h"
#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Shortest text that reads back as the same double; "" for NaN (an empty CSV field).
std::string
CsvNumber(double v)
{
    if (std::isnan(v))
    {
        return "";
    }
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof(buf), v);
    return std::string(buf, res.ptr);
}

/// A number of the console table: "-" for NaN, else fixed with \p decimals.
std::string
Cell(double v, int decimals)
{
    if (std::isnan(v))
    {
        return "-";
    }
    std::ostringstream os;
    os << std::fixed << std::setprecision(decimals) << v;
    return os.str();
}

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

/// The budget cell: cores per host, or "inf" when host work takes no time.
std::string
BudgetCell(double budget)
{
    return std::isnan(budget) ? std::string("inf") : Cell(budget, 0);
}

/// a + b where a NaN counts as "nothing yet".
double
AddKnown(double a, double b)
{
    return std::isnan(a) ? b : (std::isnan(b) ? a : a + b);
}

/// Presto's per-program columns, the same in both CSVs (after every older column)
constexpr const char* kProgramColumns =
    "nic_stages_rx,nic_stages_tx,nic_stages_cc,nic_stage_budget,nic_register_bytes_rx,"
    "nic_register_bytes_tx,nic_register_bytes_cc,nic_timer_scan_share,"
    "nic_pipeline_utilisation,nic_rmt_realisable";

/// \param r a row \return its kProgramColumns fields, each after a comma
std::string
ProgramFields(const ComparisonRow& r)
{
    std::string out;
    for (double v : {r.programStages[0],
                     r.programStages[1],
                     r.programStages[2],
                     r.stageBudget,
                     r.programRegisters[0],
                     r.programRegisters[1],
                     r.programRegisters[2],
                     r.timerScanShare,
                     r.pipelineUtil,
                     r.rmtRealisable})
    {
        out += "," + CsvNumber(v);
    }
    return out;
}

/// \param r a row \return ",seeds,small_p99_by_seed": each a ';'-separated list
std::string
SeedFields(const ComparisonRow& r)
{
    std::string seeds;
    std::string p99;
    for (std::size_t i = 0; i < r.seeds.size(); ++i)
    {
        seeds += (i ? ";" : "") + std::to_string(r.seeds[i]);
        p99 += (i ? ";" : "") + (i < r.seedSmallP99.size() ? CsvNumber(r.seedSmallP99[i]) : "");
    }
    return "," + seeds + "," + p99;
}

std::string
Join(const std::vector<std::string>& v, const std::string& sep)
{
    std::string s;
    for (const auto& x : v)
    {
        s += (s.empty() ? "" : sep) + x;
    }
    return s;
}

/// The terminal lines every script starts with (GnuplotTerminal), then its output.
std::string
ScriptHeader(const std::string& pngPath, int width, int height)
{
    std::ostringstream os;
    os << GnuplotTerminal(width, height) << "set output " << GnuplotQuote(pngPath) << "\n"
       << "set grid ytics\n";
    return os.str();
}

/// One bar panel: a bar per row with a finite, positive value (x tics = the labels), with
/// its value written above it; with \p interval, a whisker over the rows whose interval is
/// known (its {low, high}), the value written above the whisker.
std::string
BarPanel(const std::vector<ComparisonRow>& rows,
         const std::string& title,
         const std::string& ylabel,
         double (*value)(const ComparisonRow&),
         const std::string& block,
         std::array<double, 2> (*interval)(const ComparisonRow&) = nullptr)
{
    std::ostringstream data;
    std::ostringstream whiskers;
    std::ostringstream tics;
    int bars = 0;
    int intervals = 0;
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        tics << (i ? ", " : "") << GnuplotQuote(rows[i].label) << " " << i;
        const double v = value(rows[i]);
        if (std::isfinite(v) && v >= 0)
        {
            const std::array<double, 2> ci =
                interval ? interval(rows[i]) : std::array<double, 2>{kNaN, kNaN};
            const bool hasCi = std::isfinite(ci[0]) && std::isfinite(ci[1]);
            // columns: x, value, colour, where the value's text goes
            data << i << " " << CsvNumber(v) << " " << (i + 1) << " "
                 << CsvNumber(hasCi ? std::max(v, ci[1]) : v) << "\n";
            if (hasCi)
            {
                whiskers << i << " " << CsvNumber(v) << " " << CsvNumber(ci[0]) << " "
                         << CsvNumber(ci[1]) << "\n";
                ++intervals;
            }
            ++bars;
        }
    }
    std::ostringstream os;
    os << "set title " << GnuplotQuote(title) << "\nset ylabel " << GnuplotQuote(ylabel) << "\n";
    if (bars == 0)
    {
        os << GnuplotEmptyPanel("nothing to draw");
        return os.str();
    }
    os << "$" << block << " << EOD\n" << data.str() << "EOD\n";
    if (intervals > 0)
    {
        os << "$" << block << "_ci << EOD\n" << whiskers.str() << "EOD\n";
    }
    // the top offset keeps the room for the text above the highest bar inside the frame
    os << "unset logscale\nset xrange [-0.6:" << static_cast<double>(rows.size()) - 0.4 << "]\n"
       << "set yrange [0:*]\nset offsets 0,0,graph 0.1,0\nset ytics autofreq\nset xtics ("
       << tics.str() << ") rotate by -30\n"
       << "set style fill solid 0.8 border -1\nset boxwidth 0.6\n"
       << "plot $" << block << " using 1:2:3 with boxes lc variable notitle, ";
    if (intervals > 0)
    {
        os << "$" << block << "_ci using 1:2:3:4 with yerrorbars lc rgb 'black' lw 1.5 pt 0 "
           << "title '95% bootstrap interval', ";
    }
    os << "$" << block << " using 1:4:(sprintf('%.3g', $2)) with labels offset 0,0.7 notitle\n"
       << "set offsets 0,0,0,0\n";
    return os.str();
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

std::vector<ComparisonDevice>
ParseComparisonDevices(const std::string& text, const std::vector<std::string>& valid)
{
    std::vector<ComparisonDevice> out;
    std::set<std::string> labels;
    std::istringstream is(text);
    std::string item;
    const std::string where = "--devices=" + text + ": ";
    while (std::getline(is, item, ','))
    {
        if (item.empty())
        {
            throw PrestoInputError(where + "empty item (devices are separated by single commas)");
        }
        ComparisonDevice d;
        // a TypeId name (ns3::Name) has colons of its own: the parameter follows the next one
        const auto colon = item.find(':', item.compare(0, 5, "ns3::") == 0 ? 5 : 0);
        d.device = item.substr(0, colon);
        if (d.device.compare(0, 5, "ns3::") == 0 &&
            std::find(valid.begin(), valid.end(), d.device.substr(5)) != valid.end())
        {
            d.device = d.device.substr(5); // a design listed under its TypeId name
        }
        const bool hasParam = colon != std::string::npos;
        const std::string param = hasParam ? item.substr(colon + 1) : std::string();
        if (std::find(valid.begin(), valid.end(), d.device) == valid.end())
        {
            // name the parameterised forms only for the devices that exist
            std::vector<std::string> forms;
            if (std::find(valid.begin(), valid.end(), "presto") != valid.end())
            {
                forms.emplace_back("presto:K with K = 0..16 or full");
            }
            if (std::find(valid.begin(), valid.end(), "cora") != valid.end())
            {
                forms.emplace_back("cora[:strategy]");
            }
            throw PrestoInputError(where + "unknown device '" + d.device +
                                   "'; valid devices: " + Join(valid, ", ") +
                                   (forms.empty() ? "" : " (" + Join(forms, ", ") + ")"));
        }
        if (hasParam && param.empty())
        {
            throw PrestoInputError(where + "'" + item + "' has an empty parameter after ':'");
        }
        if (d.device == "presto")
        {
            if (!hasParam)
            {
                throw PrestoInputError(where + "'presto' needs its fidelity: presto:K with K = "
                                               "0..16 or full (e.g. presto:1)");
            }
            d.fidelity = param;
            d.label = "presto-K" + param;
        }
        else if (d.device == "cora")
        {
            d.strategy = param;
            d.label = hasParam ? "cora-" + param : "cora";
        }
        else if (hasParam)
        {
            throw PrestoInputError(where + "'" + d.device + "' takes no parameter, got '" + item +
                                   "'");
        }
        else
        {
            d.label = d.device;
        }
        if (!labels.insert(d.label).second)
        {
            throw PrestoInputError(where + "'" + item + "' is listed twice");
        }
        out.push_back(d);
    }
    if (out.empty() || (!text.empty() && text.back() == ','))
    {
        throw PrestoInputError(where + "expected a comma-separated list of devices, e.g. "
                                       "host-tcp,presto:1,flextoe");
    }
    return out;
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
    row.buckets = summary.buckets;

    // Percentiles of a class come from its flows: bucket percentiles cannot be averaged.
    std::array<std::vector<double>, kSizeClasses> slow;
    double recordRetx = kNaN;
    for (const FctRecord& r : records)
    {
        if (r.retxBytes >= 0)
        {
            recordRetx = AddKnown(recordRetx, static_cast<double>(r.retxBytes));
        }
        if (r.flow.startNs < summary.warmupNs)
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
    // the run's own seed and run number, a stream of its own: the same run, the same tiers
    const uint64_t run = report.contains("config") && report["config"].contains("seed") &&
                                 report["config"]["seed"].is_number_unsigned()
                             ? report["config"]["seed"].get<uint64_t>()
                             : RngSeedManager::GetRun();
    row.seeds = {static_cast<uint32_t>(run)};
    row.seedSmallP99 = {row.slow[static_cast<std::size_t>(SizeClass::SMALL)].count > 0
                            ? row.slow[static_cast<std::size_t>(SizeClass::SMALL)].p99
                            : kNaN};
    ExperimentRandom random(kBootstrapStream, RngSeedManager::GetSeed(), run);
    auto ci = BootstrapQuantileCi(slow[static_cast<std::size_t>(SizeClass::SMALL)], 0.99, random);
    row.smallP99Ci = {ci.first, ci.second};

    const nlohmann::json none = nlohmann::json::object();
    const nlohmann::json& nic = report.contains("nic") ? report["nic"] : none;
    const nlohmann::json& tcp = report.contains("tcp") ? report["tcp"] : none;
    const nlohmann::json& cpu = report.contains("host_cpu") ? report["host_cpu"] : none;
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
    const nlohmann::json& fabric = report.contains("fabric") ? report["fabric"] : none;
    row.switchEcnMarks = Number(fabric, "switch_ecn_marks");
    row.switchDrops = Number(fabric, "switch_drops");
    row.hostCores = Number(cpu, "cores_used");
    row.cyclesPerByte = Number(cpu, "cycles_per_byte");
    AddCores(row, cpu);

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

std::vector<std::string>
OrderBySmallP99(const std::vector<ComparisonRow>& rows)
{
    std::vector<const ComparisonRow*> order;
    for (const auto& r : rows)
    {
        order.push_back(&r);
    }
    std::stable_sort(order.begin(),
                     order.end(),
                     [](const ComparisonRow* a, const ComparisonRow* b) {
                         const auto& sa = a->slow[0];
                         const auto& sb = b->slow[0];
                         if ((sa.count > 0) != (sb.count > 0))
                         {
                             return sa.count > 0;
                         }
                         return sa.count > 0 && sa.p99 < sb.p99;
                     });
    std::vector<std::string> labels;
    for (const auto* r : order)
    {
        labels.push_back(r->label);
    }
    return labels;
}

std::string
NicCell(const ComparisonRow& r)
{
    std::vector<std::string> nic;
    if (r.rmtRealisable == 0)
    {
        nic.push_back("NOT RMT-realisable (full reassembly: reference only)");
    }
    if (!std::isnan(r.programStages[1]))
    {
        // Presto, per program: receive / send / congestion, stages of the budget and bytes
        auto stages = [&r](std::size_t p) {
            return std::isnan(r.programStages[p]) ? std::string("-") : Cell(r.programStages[p], 0);
        };
        auto bytes = [&r](std::size_t p) {
            return std::isnan(r.programRegisters[p])
                       ? std::string("-")
                       : FormatBytes(static_cast<uint64_t>(r.programRegisters[p])) + "B";
        };
        std::string cell = "stages rx " + stages(0) + " tx " + stages(1);
        if (!std::isnan(r.programStages[2]))
        {
            cell += " cc " + stages(2);
        }
        cell += " of " + Cell(r.stageBudget, 0) + ", regs rx " + bytes(0) + " tx " + bytes(1);
        if (!std::isnan(r.programRegisters[2]))
        {
            cell += " cc " + bytes(2);
        }
        nic.push_back(cell);
        if (!std::isnan(r.pipelineUtil))
        {
            nic.push_back("pipe util " + Cell(r.pipelineUtil, 2) + " (scan " +
                          Cell(100 * r.timerScanShare, 0) + "%)");
        }
    }
    else if (!std::isnan(r.stagesUsed))
    {
        nic.push_back("stages " + Cell(r.stagesUsed, 0) + ", regs " +
                      FormatBytes(static_cast<uint64_t>(r.registerBytes)) + "B");
    }
    if (!std::isnan(r.maxStageUtil))
    {
        nic.push_back("stage util " + Cell(r.maxStageUtil, 2) + ", q " + Cell(r.maxStageQueue, 0));
    }
    if (!std::isnan(r.nicUtilisation))
    {
        nic.push_back("util " + Cell(r.nicUtilisation, 2) + ", migr " + Cell(r.migrations, 0));
    }
    if (!std::isnan(r.nicDrops) && r.nicDrops > 0)
    {
        nic.push_back("drops " + Cell(r.nicDrops, 0));
    }
    if (r.refused > 0)
    {
        nic.push_back("refused " + Cell(r.refused, 0));
    }
    return nic.empty() ? "-" : Join(nic, ", ");
}

std::string
FormatComparisonTable(const std::vector<ComparisonRow>& rows)
{
    std::ostringstream os;
    std::size_t labelWidth = 6;
    for (const auto& r : rows)
    {
        labelWidth = std::max(labelWidth, r.label.size() + 1);
    }
    std::size_t ccWidth = 3;
    for (const auto& r : rows)
    {
        ccWidth = std::max(ccWidth, r.cc.size() + 1);
    }
    os << FormatRowPolicies(rows);
    os << std::left << std::setw(static_cast<int>(labelWidth)) << "device"
       << std::setw(static_cast<int>(ccWidth)) << "cc" << std::right;
    for (std::size_t c = 0; c < kSizeClasses; ++c)
    {
        const std::string name = SizeClassName(static_cast<SizeClass>(c));
        os << std::setw(9) << (name + " n") << std::setw(8) << "p50" << std::setw(8) << "p99";
    }
    os << std::setw(7) << "unfin" << std::setw(10) << "fid.drops" << std::setw(8) << "retx"
       << std::setw(7) << "cores" << std::setw(8) << "cyc/B" << std::setw(7) << "budget"
       << std::setw(6) << "util" << std::setw(9) << "wait us"
       << "  nic\n";
    for (const auto& r : rows)
    {
        os << std::left << std::setw(static_cast<int>(labelWidth)) << r.label
           << std::setw(static_cast<int>(ccWidth)) << (r.cc.empty() ? "-" : r.cc) << std::right;
        for (std::size_t c = 0; c < kSizeClasses; ++c)
        {
            const auto& s = r.slow[c];
            os << std::setw(9) << s.count << std::setw(8) << Cell(s.count ? s.p50 : kNaN, 2)
               << std::setw(8) << Cell(s.count ? s.p99 : kNaN, 2);
        }
        os << std::setw(7) << r.unfinished << std::setw(10) << Cell(r.fidelityDrops, 0)
           << std::setw(8) << Cell(r.retxSegments, 0) << std::setw(7) << Cell(r.hostCores, 2)
           << std::setw(8) << Cell(r.cyclesPerByte, 2) << std::setw(7) << BudgetCell(r.coreBudget)
           << std::setw(6) << Cell(r.coreUtil, 2) << std::setw(9) << Cell(r.coreWaitUs, 2) << "  ";
        os << NicCell(r) << "\n";
    }
    os << "slowdown = FCT / ideal FCT; small <= 100KB < medium <= 10MB < large; retx = "
          "retransmitted segments; cores = host cores on networking over the arrival window "
          "(the same for every row); cyc/B = host cycles per delivered byte; budget = host "
          "cores per host in simulated time (--hostCores; inf: host work takes no time); util "
          "= their mean utilisation over the run; wait us = mean wait of a piece of host work "
          "for its core\n"
       << "order by small-flow p99: " << Join(OrderBySmallP99(rows), " < ") << "\n"
       << "tiers (~: 95% bootstrap intervals of p99 overlap): " << TieredOrderBySmallP99(rows)
       << "\n"
       << FormatCounters(rows) << FormatSeeds(rows);
    return os.str();
}

std::string
FormatCounters(const std::vector<ComparisonRow>& rows)
{
    if (std::none_of(rows.begin(), rows.end(), [](const ComparisonRow& r) {
            return !std::isnan(r.switchEcnMarks) || !std::isnan(r.switchDrops) ||
                   !std::isnan(r.timeouts);
        }))
    {
        return "";
    }
    std::string line = "switch ECN marks / switch drops / timeouts:";
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        const ComparisonRow& r = rows[i];
        line += std::string(i ? ";" : "") + " " + r.label + " " + Cell(r.switchEcnMarks, 0) +
                " / " + Cell(r.switchDrops, 0) + " / " + Cell(r.timeouts, 0);
    }
    return line + "\n";
}

std::string
FormatSeeds(const std::vector<ComparisonRow>& rows)
{
    if (std::none_of(rows.begin(), rows.end(), [](const ComparisonRow& r) {
            return r.seeds.size() > 1;
        }))
    {
        return "";
    }
    std::vector<std::string> seeds;
    for (uint32_t s : rows[0].seeds)
    {
        seeds.push_back(std::to_string(s));
    }
    std::ostringstream os;
    os << "pooled over seeds " << Join(seeds, ", ")
       << ": the flows of every seed are one sample (percentiles, bootstrap intervals, tiers); "
          "counters are the seeds' means\n"
       << "small-flow p99 [95% interval] pooled, then per seed " << Join(seeds, "/") << ":\n";
    for (const auto& r : rows)
    {
        std::vector<std::string> per;
        for (double v : r.seedSmallP99)
        {
            per.push_back(Cell(v, 2));
        }
        os << "  " << std::left << std::setw(14) << r.label << std::right << " "
           << Cell(r.slow[0].count ? r.slow[0].p99 : kNaN, 2) << " [" << Cell(r.smallP99Ci[0], 2)
           << ", " << Cell(r.smallP99Ci[1], 2) << "]  " << Join(per, " / ") << "\n";
    }
    return os.str();
}

std::string
FormatRowPolicies(const std::vector<ComparisonRow>& rows)
{
    std::vector<std::string> keys;
    for (const auto& r : rows)
    {
        for (const auto& [key, value] : r.policy)
        {
            if (std::find(keys.begin(), keys.end(), key) == keys.end())
            {
                keys.push_back(key);
            }
        }
    }
    std::vector<std::string> equal;
    std::ostringstream differs;
    for (const auto& key : keys)
    {
        // the rows by value, in the rows' order
        std::vector<std::pair<std::string, std::vector<std::string>>> groups;
        for (const auto& r : rows)
        {
            auto it = r.policy.find(key);
            const std::string value = it == r.policy.end() ? "-" : it->second;
            auto g = std::find_if(groups.begin(), groups.end(), [&value](const auto& x) {
                return x.first == value;
            });
            if (g == groups.end())
            {
                groups.push_back({value, {}});
                g = groups.end() - 1;
            }
            g->second.push_back(r.label);
        }
        if (groups.size() == 1)
        {
            equal.push_back(key + " " + groups[0].first);
            continue;
        }
        std::vector<std::string> parts;
        for (const auto& [value, labels] : groups)
        {
            parts.push_back(Join(labels, ", ") + ": " + value);
        }
        differs << "differs in " << key << ": " << Join(parts, "; ") << "\n";
    }
    std::string out;
    if (!equal.empty())
    {
        out = "held equal: " + Join(equal, "; ") + "\n";
    }
    return out + differs.str();
}

std::string
TieredOrderBySmallP99(const std::vector<ComparisonRow>& rows)
{
    std::map<std::string, const ComparisonRow*> byLabel;
    for (const auto& r : rows)
    {
        byLabel[r.label] = &r;
    }
    std::string out;
    const ComparisonRow* tierHead = nullptr;
    for (const auto& label : OrderBySmallP99(rows))
    {
        const ComparisonRow* r = byLabel.at(label);
        if (!tierHead)
        {
            out = label;
            tierHead = r;
            continue;
        }
        // overlap with the tier's best: not distinguishable in this run
        const bool tie = r->slow[0].count > 0 && tierHead->slow[0].count > 0 &&
                         r->smallP99Ci[0] <= tierHead->smallP99Ci[1];
        out += (tie ? " ~ " : " < ") + label;
        if (!tie)
        {
            tierHead = r;
        }
    }
    return out;
}

std::string
ComparisonCsv(const std::vector<ComparisonRow>& rows)
{
    std::string out = "label,device,cc,flows,unfinished";
    for (std::size_t c = 0; c < kSizeClasses; ++c)
    {
        const std::string n = SizeClassName(static_cast<SizeClass>(c));
        out += "," + n + "_count," + n + "_p50," + n + "_p99";
    }
    out += ",fidelity_drops,retx_bytes,retx_segments,host_cores_used,host_cycles_per_byte,"
           "nic_stages_used,nic_register_bytes,nic_max_stage_utilisation,nic_max_stage_queue,"
           "nic_utilisation,nic_migrations,nic_drops,out_of_order_placed,small_p99_ci95_low,"
           "small_p99_ci95_high,host_core_budget,host_core_utilisation,host_busiest_core,"
           "host_core_wait_us," +
           std::string(kProgramColumns) +
           ",seeds,small_p99_by_seed,switch_ecn_marks,switch_drops,timeouts\n";
    for (const auto& r : rows)
    {
        out += r.label + "," + r.device + "," + r.cc + "," + std::to_string(r.flows) + "," +
               std::to_string(r.unfinished);
        for (const auto& s : r.slow)
        {
            out += "," + std::to_string(s.count) + "," + CsvNumber(s.count ? s.p50 : kNaN) + "," +
                   CsvNumber(s.count ? s.p99 : kNaN);
        }
        for (double v : {r.fidelityDrops,
                         r.retxBytes,
                         r.retxSegments,
                         r.hostCores,
                         r.cyclesPerByte,
                         r.stagesUsed,
                         r.registerBytes,
                         r.maxStageUtil,
                         r.maxStageQueue,
                         r.nicUtilisation,
                         r.migrations,
                         r.nicDrops,
                         r.outOfOrderPlaced,
                         r.smallP99Ci[0],
                         r.smallP99Ci[1],
                         r.coreBudget,
                         r.coreUtil,
                         r.busiestCore,
                         r.coreWaitUs})
        {
            out += "," + CsvNumber(v);
        }
        out += ProgramFields(r) + SeedFields(r);
        for (double v : {r.switchEcnMarks, r.switchDrops, r.timeouts})
        {
            out += "," + CsvNumber(v);
        }
        out += "\n";
    }
    return out;
}

std::string
SlowdownByBucketScript(const std::vector<ComparisonRow>& rows,
                       const std::string& pngPath,
                       const std::string& caption)
{
    // x axis: every bucket of any row, by its edges
    std::map<std::pair<uint64_t, uint64_t>, std::string> bucketSet;
    for (const auto& r : rows)
    {
        for (const auto& b : r.buckets)
        {
            bucketSet[{b.hiBytes, b.loBytes}] = BucketLabel(b);
        }
    }
    std::map<std::pair<uint64_t, uint64_t>, int> xOf;
    std::string tics;
    for (const auto& [key, name] : bucketSet)
    {
        const int x = static_cast<int>(xOf.size());
        xOf[key] = x;
        tics += (x ? ", " : "") + GnuplotQuote(name) + " " + std::to_string(x);
    }
    std::ostringstream blocks;
    std::vector<std::string> plots;
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        std::ostringstream data;
        for (const auto& b : rows[i].buckets)
        {
            // empty buckets have no percentile; log y cannot show values <= 0
            if (b.slowdown.count > 0 && b.slowdown.p99 > 0)
            {
                data << xOf[{b.hiBytes, b.loBytes}] << " " << CsvNumber(b.slowdown.p99) << "\n";
            }
        }
        if (data.str().empty())
        {
            continue;
        }
        const std::string name = "$run" + std::to_string(i);
        blocks << name << " << EOD\n" << data.str() << "EOD\n";
        plots.push_back(name + " with linespoints lw 2 pt 7 lc " + std::to_string(i + 1) +
                        " title " + GnuplotQuote(rows[i].label));
    }
    std::ostringstream os;
    os << ScriptHeader(pngPath, 1000, 550) << GnuplotMultiplot(1, 1, caption)
       << "set title 'p99 slowdown (FCT / ideal FCT) by flow size (bytes), one line per device'\n"
       << "set ylabel 'p99 slowdown'\nset key outside right\n";
    if (plots.empty())
    {
        os << GnuplotEmptyPanel("no finished flows");
    }
    else
    {
        os << blocks.str()
           << "set logscale y\nset xrange [-0.5:" << static_cast<double>(xOf.size()) - 0.5
           << "]\nset xtics (" << tics << ")\nplot " << Join(plots, ", ") << "\n";
    }
    os << "unset multiplot\nset output\n";
    return os.str();
}

std::string
P99SmallScript(const std::vector<ComparisonRow>& rows,
               const std::string& pngPath,
               const std::string& caption)
{
    std::ostringstream os;
    os << ScriptHeader(pngPath, 1000, 500) << GnuplotMultiplot(1, 1, caption)
       << "set key top right\n"
       << BarPanel(
              rows,
              "small flows (<= 100KB): p99 slowdown (FCT / ideal FCT)",
              "p99 slowdown",
              [](const ComparisonRow& r) { return r.slow[0].count ? r.slow[0].p99 : kNaN; },
              "small",
              [](const ComparisonRow& r) { return r.smallP99Ci; })
       << "unset multiplot\nset output\n";
    return os.str();
}

std::string
HostCpuScript(const std::vector<ComparisonRow>& rows,
              const std::string& pngPath,
              const std::string& caption)
{
    std::ostringstream os;
    os << ScriptHeader(pngPath, 1200, 500) << GnuplotMultiplot(1, 2, caption)
       << BarPanel(
              rows,
              "host CPU: cores busy on networking (all hosts)",
              "cores",
              [](const ComparisonRow& r) { return r.hostCores; },
              "cores")
       << BarPanel(
              rows,
              "host CPU: cycles per delivered byte",
              "cycles / byte",
              [](const ComparisonRow& r) { return r.cyclesPerByte; },
              "cpb")
       << "unset multiplot\nset output\n";
    return os.str();
}

std::string
FormatRpcTable(const std::vector<ComparisonRow>& rows)
{
    std::ostringstream os;
    std::size_t labelWidth = 6;
    std::size_t ccWidth = 3;
    for (const auto& r : rows)
    {
        labelWidth = std::max(labelWidth, r.label.size() + 1);
        ccWidth = std::max(ccWidth, r.cc.size() + 1);
    }
    os << FormatRowPolicies(rows);
    os << std::left << std::setw(static_cast<int>(labelWidth)) << "device"
       << std::setw(static_cast<int>(ccWidth)) << "cc" << std::right << std::setw(8) << "conns"
       << std::setw(12) << "req/s" << std::setw(10) << "p50 us" << std::setw(10) << "p99 us"
       << std::setw(12) << "p99.99 us" << std::setw(10) << "req cores" << std::setw(7) << "setup"
       << std::setw(9) << "cyc/req" << std::setw(7) << "budget" << std::setw(6) << "util"
       << std::setw(9) << "wait us"
       << "  nic\n";
    for (const auto& r : rows)
    {
        os << std::left << std::setw(static_cast<int>(labelWidth)) << r.label
           << std::setw(static_cast<int>(ccWidth)) << (r.cc.empty() ? "-" : r.cc) << std::right
           << std::setw(8) << Cell(r.rpcConnections, 0) << std::setw(12) << Cell(r.rpcRate, 0)
           << std::setw(10) << Cell(r.rpcP50Us, 1) << std::setw(10) << Cell(r.rpcP99Us, 1)
           << std::setw(12) << Cell(r.rpcP9999Us, 1) << std::setw(10)
           << Cell(std::isnan(r.requestCores) ? r.hostCores : r.requestCores, 2) << std::setw(7)
           << Cell(r.setupCores, 2) << std::setw(9) << Cell(r.cyclesPerRequest, 0) << std::setw(7)
           << BudgetCell(r.coreBudget) << std::setw(6) << Cell(r.coreUtil, 2) << std::setw(9)
           << Cell(r.coreWaitUs, 2) << "  " << NicCell(r) << "\n";
    }
    os << "req/s = requests answered per second in the measurement window; latency = first "
          "request byte written to last response byte read; req cores = host cores on the "
          "requests over the run (the same window for every row), setup = host cores on "
          "opening the persistent connections (handshakes, control-plane events), both summed "
          "over the hosts; cyc/req = host cycles per request without "
          "connection setup; budget, util, wait us: the host cores in simulated time (see the "
          "FCT table)\n";
    return os.str();
}

std::string
RpcCsv(const std::vector<ComparisonRow>& rows)
{
    std::string out = "label,device,cc,connections_per_host,requests_per_s,latency_p50_us,"
                      "latency_p99_us,latency_p9999_us,host_cores_used,host_cycles_per_request,"
                      "nic_stages_used,nic_max_stage_utilisation,nic_max_stage_queue,"
                      "nic_utilisation,nic_migrations,nic_drops,connections_refused,"
                      "host_core_budget,host_core_utilisation,host_busiest_core,"
                      "host_core_wait_us,host_cores_setup,host_cores_requests," +
                      std::string(kProgramColumns) + "\n";
    for (const auto& r : rows)
    {
        out += r.label + "," + r.device + "," + r.cc;
        for (double v :
             {r.rpcConnections, r.rpcRate,          r.rpcP50Us,   r.rpcP99Us,     r.rpcP9999Us,
              r.hostCores,      r.cyclesPerRequest, r.stagesUsed, r.maxStageUtil, r.maxStageQueue,
              r.nicUtilisation, r.migrations,       r.nicDrops,   r.refused,      r.coreBudget,
              r.coreUtil,       r.busiestCore,      r.coreWaitUs, r.setupCores,   r.requestCores})
        {
            out += "," + CsvNumber(v);
        }
        out += ProgramFields(r) + "\n";
    }
    return out;
}

std::string
RpcLatencyScript(const std::vector<ComparisonRow>& rows,
                 const std::string& pngPath,
                 const std::string& caption)
{
    std::ostringstream os;
    os << ScriptHeader(pngPath, 1200, 500) << GnuplotMultiplot(1, 2, caption)
       << BarPanel(
              rows,
              "RPC: requests answered per second",
              "requests / s",
              [](const ComparisonRow& r) { return r.rpcRate; },
              "rate")
       << BarPanel(
              rows,
              "RPC latency p99 (us)",
              "p99 latency, us",
              [](const ComparisonRow& r) { return r.rpcP99Us; },
              "p99")
       << "unset multiplot\nset output\n";
    return os.str();
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

std::string
FormatIncastTable(const std::vector<IncastRow>& rows)
{
    std::ostringstream os;
    os << std::left << std::setw(14) << "incast" << std::right << std::setw(7) << "bursts"
       << " | " << std::setw(6) << "flows" << std::setw(6) << "unfin" << std::setw(10) << "FCT p50"
       << std::setw(10) << "FCT p99" << std::setw(8) << "sd p50" << std::setw(8) << "sd p99"
       << std::setw(10) << "burst p50" << std::setw(10) << "burst p99"
       << " | background " << std::setw(6) << "flows" << std::setw(6) << "unfin" << std::setw(10)
       << "FCT p50" << std::setw(10) << "FCT p99" << std::setw(8) << "sd p50" << std::setw(8)
       << "sd p99"
       << "\n";
    for (const IncastRow& r : rows)
    {
        os << std::left << std::setw(14) << r.label << std::right << std::setw(7)
           << Cell(r.bursts, 0) << " | " << std::setw(6) << Cell(r.incastFlows, 0) << std::setw(6)
           << Cell(r.incastUnfinished, 0) << std::setw(10) << Cell(r.incastFctP50Us, 1)
           << std::setw(10) << Cell(r.incastFctP99Us, 1) << std::setw(8)
           << Cell(r.incastSlowdownP50, 2) << std::setw(8) << Cell(r.incastSlowdownP99, 2)
           << std::setw(10) << Cell(r.burstP50Us, 1) << std::setw(10) << Cell(r.burstP99Us, 1)
           << " |            " << std::setw(6) << Cell(r.backgroundFlows, 0) << std::setw(6)
           << Cell(r.backgroundUnfinished, 0) << std::setw(10) << Cell(r.backgroundFctP50Us, 1)
           << std::setw(10) << Cell(r.backgroundFctP99Us, 1) << std::setw(8)
           << Cell(r.backgroundSlowdownP50, 2) << std::setw(8) << Cell(r.backgroundSlowdownP99, 2)
           << "\n";
    }
    os << "FCT in us over finished flows; sd = slowdown (FCT / ideal FCT); burst = burst "
          "completion, first start to last finish, us\n";
    return os.str();
}

std::string
IncastCsv(const std::vector<IncastRow>& rows)
{
    std::ostringstream os;
    os << "label,device,bursts,incast_flows,incast_unfinished,incast_fct_p50_us,"
          "incast_fct_p99_us,incast_slowdown_p50,incast_slowdown_p99,burst_completion_p50_us,"
          "burst_completion_p99_us,background_flows,background_unfinished,"
          "background_fct_p50_us,background_fct_p99_us,background_slowdown_p50,"
          "background_slowdown_p99\n";
    for (const IncastRow& r : rows)
    {
        os << r.label << "," << r.device;
        for (double v : {r.bursts,
                         r.incastFlows,
                         r.incastUnfinished,
                         r.incastFctP50Us,
                         r.incastFctP99Us,
                         r.incastSlowdownP50,
                         r.incastSlowdownP99,
                         r.burstP50Us,
                         r.burstP99Us,
                         r.backgroundFlows,
                         r.backgroundUnfinished,
                         r.backgroundFctP50Us,
                         r.backgroundFctP99Us,
                         r.backgroundSlowdownP50,
                         r.backgroundSlowdownP99})
        {
            os << "," << CsvNumber(v);
        }
        os << "\n";
    }
    return os.str();
}

} // namespace ns3
