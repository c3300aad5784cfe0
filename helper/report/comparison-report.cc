/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The comparison's text: the --devices list, the console tables and the CSVs of the flow,
// RPC and incast comparisons. The rows are built in comparison-row.cc, the plots in
// comparison-plots.cc.
#include "comparison-report.h"

#include "comparison-cells.h"

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

using comparison::Cell;
using comparison::CsvNumber;
using comparison::Join;
using comparison::kNaN;

namespace
{

/// The budget cell: cores per host, or "inf" when host work takes no time.
std::string
BudgetCell(double budget)
{
    return std::isnan(budget) ? std::string("inf") : Cell(budget, 0);
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

/// The device and cc columns every table starts with, each as wide as its longest entry.
class LeadColumns
{
  public:
    explicit LeadColumns(const std::vector<ComparisonRow>& rows)
    {
        for (const auto& r : rows)
        {
            m_label = std::max(m_label, r.label.size() + 1);
            m_cc = std::max(m_cc, r.cc.size() + 1);
        }
    }

    /// Write the two headings, then switch to right alignment for the table's own columns.
    void Header(std::ostream& os) const
    {
        os << std::left << std::setw(static_cast<int>(m_label)) << "device"
           << std::setw(static_cast<int>(m_cc)) << "cc" << std::right;
    }

    /// Write a row's two cells, then switch to right alignment.
    void Row(std::ostream& os, const ComparisonRow& r) const
    {
        os << std::left << std::setw(static_cast<int>(m_label)) << r.label
           << std::setw(static_cast<int>(m_cc)) << (r.cc.empty() ? "-" : r.cc) << std::right;
    }

  private:
    std::size_t m_label{6}; //!< width of the device column
    std::size_t m_cc{3};    //!< width of the cc column
};

} // namespace

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
    const LeadColumns lead(rows);
    os << FormatRowPolicies(rows);
    lead.Header(os);
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
        lead.Row(os, r);
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
FormatRpcTable(const std::vector<ComparisonRow>& rows)
{
    std::ostringstream os;
    const LeadColumns lead(rows);
    os << FormatRowPolicies(rows);
    lead.Header(os);
    os << std::setw(8) << "conns" << std::setw(12) << "req/s" << std::setw(10) << "p50 us"
       << std::setw(10) << "p99 us" << std::setw(12) << "p99.99 us" << std::setw(10) << "req cores"
       << std::setw(7) << "setup" << std::setw(9) << "cyc/req" << std::setw(7) << "budget"
       << std::setw(6) << "util" << std::setw(9) << "wait us"
       << "  nic\n";
    for (const auto& r : rows)
    {
        lead.Row(os, r);
        os << std::setw(8) << Cell(r.rpcConnections, 0) << std::setw(12) << Cell(r.rpcRate, 0)
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
FormatCollectiveTable(const std::vector<ComparisonRow>& rows)
{
    std::ostringstream os;
    const LeadColumns lead(rows);
    os << FormatRowPolicies(rows);
    lead.Header(os);
    os << std::setw(6) << "ranks" << std::setw(12) << "JCT us" << std::setw(11) << "step p50"
       << std::setw(11) << "step p99" << std::setw(9) << "slowest" << std::setw(8) << "retx"
       << std::setw(6) << "RTOs" << std::setw(7) << "drops" << std::setw(8) << "ECN" << std::setw(7)
       << "cores" << std::setw(7) << "cyc/B"
       << "  nic\n";
    for (const auto& r : rows)
    {
        lead.Row(os, r);
        os << std::setw(6) << Cell(r.collectiveRanks, 0) << std::setw(12)
           << Cell(r.collectiveJctUs, 1) << std::setw(11) << Cell(r.collectiveStepP50Us, 1)
           << std::setw(11) << Cell(r.collectiveStepP99Us, 1) << std::setw(9)
           << Cell(r.collectiveSlowestRank, 0) << std::setw(8) << Cell(r.retxSegments, 0)
           << std::setw(6) << Cell(r.timeouts, 0) << std::setw(7) << Cell(r.switchDrops, 0)
           << std::setw(8) << Cell(r.switchEcnMarks, 0) << std::setw(7) << Cell(r.hostCores, 2)
           << std::setw(7) << Cell(r.cyclesPerByte, 2) << "  " << NicCell(r) << "\n";
    }
    os << "JCT = first step start to last step completion over every rank and iteration (the "
          "connections' handshakes before it); step p50/p99 = durations of the steps of every "
          "rank and iteration, us; slowest = the rank that completed last; retx = segments "
          "retransmitted, RTOs = retransmission timeouts, drops and ECN = the switches'; "
          "cores = host cores busy over the run, summed over the hosts, cyc/B = host cycles "
          "per byte delivered\n";
    return os.str();
}

std::string
CollectiveCsv(const std::vector<ComparisonRow>& rows)
{
    std::string out = "label,device,cc,ranks,jct_us,step_p50_us,step_p99_us,slowest_rank,"
                      "retx_segments,timeouts,switch_drops,switch_ecn_marks,nic_stages_used,"
                      "nic_drops,host_cores_used,host_cycles_per_byte," +
                      std::string(kProgramColumns) + "\n";
    for (const auto& r : rows)
    {
        out += r.label + "," + r.device + "," + r.cc;
        for (double v : {r.collectiveRanks,
                         r.collectiveJctUs,
                         r.collectiveStepP50Us,
                         r.collectiveStepP99Us,
                         r.collectiveSlowestRank,
                         r.retxSegments,
                         r.timeouts,
                         r.switchDrops,
                         r.switchEcnMarks,
                         r.stagesUsed,
                         r.nicDrops,
                         r.hostCores,
                         r.cyclesPerByte})
        {
            out += "," + CsvNumber(v);
        }
        out += ProgramFields(r) + "\n";
    }
    return out;
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
