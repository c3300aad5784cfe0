/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "run-report.h"

#include "ns3/input-file.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>
#include <sys/resource.h>
#include <tuple>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RunReport");

namespace
{

/// The header of fct.csv before the flow's addresses, ports and timeouts were added: still read.
constexpr const char* kFctCsvHeaderV1 = "id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,"
                                        "ideal_fct_ns,slowdown,retx_bytes";
/// Number of comma-separated fields of a row of that header.
constexpr std::size_t kFctCsvFieldsV1 = 10;
/// The header of fct.csv as written, one of the first lines ReadFctCsv accepts.
constexpr const char* kFctCsvHeader = "id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,"
                                      "ideal_fct_ns,slowdown,retx_bytes,src_addr,dst_addr,"
                                      "src_port,dst_port,timeouts";
/// Number of comma-separated fields of a row.
constexpr std::size_t kFctCsvFields = 15;

/// \p a (host order) as a dotted quad.
std::string
DottedQuad(uint32_t a)
{
    return std::to_string(a >> 24) + '.' + std::to_string((a >> 16) & 0xff) + '.' +
           std::to_string((a >> 8) & 0xff) + '.' + std::to_string(a & 0xff);
}

/**
 * Write \p content to \p path through a temporary file in the same directory and a
 * rename, so that readers (and a run that dies half-way) never see a partial file.
 * \param path the file
 * \param content the bytes
 * \param what what the file is, for the error message
 */
void
WriteAtomically(const std::string& path, const std::string& content, const std::string& what)
{
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out)
        {
            throw PrestoInputError("cannot write " + what + " '" + path + "' (cannot create '" +
                                   tmp + "')");
        }
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
        out.close();
        if (!out)
        {
            std::remove(tmp.c_str());
            throw PrestoInputError("cannot write " + what + " '" + path + "' (write failed)");
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        std::remove(tmp.c_str());
        throw PrestoInputError("cannot write " + what + " '" + path + "' (rename failed)");
    }
}

/// Shortest text that reads back as the same double (std::to_chars round-trip guarantee).
std::string
ShortestDouble(double v)
{
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof(buf), v);
    return std::string(buf, res.ptr);
}

/// \p s without leading and trailing blanks.
std::string
Trim(const std::string& s)
{
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
    {
        return "";
    }
    const auto e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

/// Reads one fct.csv; holds file name and line number for the error messages.
class FctCsvParser
{
  public:
    FctCsvParser(const std::string& path, std::size_t line)
        : m_path(path),
          m_line(line)
    {
    }

    /// Throw PrestoInputError at this line.
    [[noreturn]] void Fail(const std::string& msg) const
    {
        std::ostringstream os;
        os << m_path << ":" << m_line << ": " << msg;
        throw PrestoInputError(os.str());
    }

    /// Parse a whole field as an integer of type T, in range.
    template <typename T>
    T Integer(const std::string& field, const char* name) const
    {
        T value{};
        const char* first = field.data();
        const char* last = field.data() + field.size();
        const auto res = std::from_chars(first, last, value);
        if (field.empty() || res.ec == std::errc::invalid_argument || res.ptr != last)
        {
            Fail(std::string(name) + " '" + InputExcerpt(field) + "' is not a whole number");
        }
        if (res.ec == std::errc::result_out_of_range)
        {
            Fail(std::string(name) + " '" + InputExcerpt(field) + "' is out of range");
        }
        return value;
    }

    /// Parse a whole field as a dotted-quad IPv4 address other than 0.0.0.0, host order.
    uint32_t Address(const std::string& field, const char* name) const
    {
        uint32_t a = 0;
        std::size_t pos = 0;
        for (int i = 0; i < 4; ++i)
        {
            const std::size_t end = i < 3 ? field.find('.', pos) : field.size();
            if (end == std::string::npos || end == pos || end - pos > 3)
            {
                Fail(std::string(name) + " '" + InputExcerpt(field) +
                     "' is not an IPv4 address a.b.c.d");
            }
            a = (a << 8) | Integer<uint8_t>(field.substr(pos, end - pos), name);
            pos = end + 1;
        }
        if (a == 0)
        {
            Fail(std::string(name) + " '0.0.0.0' is not an address (leave it empty when unknown)");
        }
        return a;
    }

    /// Parse a whole field as a finite double.
    double Real(const std::string& field, const char* name) const
    {
        double value = 0;
        const char* last = field.data() + field.size();
        const auto res = std::from_chars(field.data(), last, value);
        if (field.empty() || res.ec != std::errc() || res.ptr != last || !std::isfinite(value))
        {
            Fail(std::string(name) + " '" + InputExcerpt(field) + "' is not a finite number");
        }
        return value;
    }

  private:
    const std::string& m_path;
    std::size_t m_line;
};

/// The fields of an FCT CSV row, each trimmed; a trailing comma is an empty last field.
std::vector<std::string>
SplitCsvFields(const std::string& text)
{
    std::vector<std::string> f;
    std::istringstream row(text);
    std::string field;
    while (std::getline(row, field, ','))
    {
        f.push_back(Trim(field));
    }
    if (!text.empty() && text.back() == ',')
    {
        f.emplace_back(); // getline drops an empty last field
    }
    return f;
}

/// A finished flow's finish_ns, fct_ns and slowdown (fields 5, 6, 8), each checked against
/// the others: fct_ns = finish_ns - start_ns, slowdown = fct_ns / ideal_fct_ns.
void
ParseFinish(const FctCsvParser& p, const std::vector<std::string>& f, FctRecord& r)
{
    r.finishNs = p.Integer<int64_t>(f[5], "finish_ns");
    if (r.finishNs < 0)
    {
        p.Fail("finish_ns '" + f[5] + "' is negative");
    }
    const auto fct = p.Integer<int64_t>(f[6], "fct_ns");
    if (fct != r.FctNs())
    {
        p.Fail("fct_ns " + f[6] + " is not finish_ns - start_ns = " + std::to_string(r.FctNs()));
    }
    const double slowdown = p.Real(f[8], "slowdown");
    const double expected = r.Slowdown();
    // Other tools may round (printf %g keeps 6 digits); a larger gap is a wrong row.
    if (std::fabs(slowdown - expected) > 1e-5 * std::max(1.0, std::fabs(expected)))
    {
        p.Fail("slowdown " + f[8] + " is not fct_ns / ideal_fct_ns = " + ShortestDouble(expected));
    }
}

/// The columns the current version added (fields 10..14): addresses, ports, timeouts.
void
ParseEndpointFields(const FctCsvParser& p, const std::vector<std::string>& f, FctRecord& r)
{
    if (!f[10].empty())
    {
        r.srcAddr = p.Address(f[10], "src_addr");
    }
    if (!f[11].empty())
    {
        r.dstAddr = p.Address(f[11], "dst_addr");
    }
    if (!f[12].empty())
    {
        r.srcPort = p.Integer<uint16_t>(f[12], "src_port");
    }
    r.flow.dport = p.Integer<uint16_t>(f[13], "dst_port");
    if (!f[14].empty())
    {
        r.timeouts = p.Integer<int64_t>(f[14], "timeouts");
        if (r.timeouts < 0)
        {
            p.Fail("timeouts '" + f[14] + "' is negative (leave it empty when unknown)");
        }
    }
}

/// One flow of an FCT CSV row with \p fields fields (kFctCsvFields, or kFctCsvFieldsV1 for a
/// file of an earlier version); a wrong row fails at its line (\p p), and so does a flow id
/// already in \p ids (the ids read so far, the row's added).
FctRecord
ParseFctRow(const FctCsvParser& p,
            const std::string& text,
            std::size_t fields,
            std::set<uint32_t>& ids)
{
    const std::vector<std::string> f = SplitCsvFields(text);
    if (f.size() != fields)
    {
        std::ostringstream msg;
        msg << "expected " << fields << " comma-separated fields, found " << f.size();
        p.Fail(msg.str());
    }
    FctRecord r;
    r.flow.id = p.Integer<uint32_t>(f[0], "id");
    r.flow.src = p.Integer<uint32_t>(f[1], "src");
    r.flow.dst = p.Integer<uint32_t>(f[2], "dst");
    r.flow.sizeBytes = p.Integer<uint64_t>(f[3], "size_bytes");
    r.flow.startNs = p.Integer<int64_t>(f[4], "start_ns");
    r.idealNs = p.Integer<int64_t>(f[7], "ideal_fct_ns");
    const bool finished = !f[5].empty();
    if (f[6].empty() == finished || f[8].empty() == finished)
    {
        p.Fail("finish_ns, fct_ns and slowdown must be all given (finished flow) or all "
               "empty (unfinished flow)");
    }
    if (finished)
    {
        ParseFinish(p, f, r);
    }
    if (!f[9].empty())
    {
        r.retxBytes = p.Integer<int64_t>(f[9], "retx_bytes");
        if (r.retxBytes < 0)
        {
            p.Fail("retx_bytes '" + f[9] + "' is negative (leave it empty when unknown)");
        }
    }
    if (fields == kFctCsvFields)
    {
        ParseEndpointFields(p, f, r);
    }
    if (!ids.insert(r.flow.id).second)
    {
        p.Fail("flow id " + f[0] + " appears twice");
    }
    return r;
}

/// The statistics of one distribution under the summary.json names.
void
PutDistribution(nlohmann::json& j, const DistributionSummary& fct, const DistributionSummary& sd)
{
    j["count"] = fct.count;
    j["fct_mean_ns"] = fct.mean;
    j["fct_p50_ns"] = fct.p50;
    j["fct_p95_ns"] = fct.p95;
    j["fct_p99_ns"] = fct.p99;
    j["fct_p999_ns"] = fct.p999;
    j["slowdown_mean"] = sd.mean;
    j["slowdown_p50"] = sd.p50;
    j["slowdown_p95"] = sd.p95;
    j["slowdown_p99"] = sd.p99;
    j["slowdown_p999"] = sd.p999;
}

} // namespace

void
WriteFileAtomically(const std::string& path, const std::string& content, const std::string& what)
{
    WriteAtomically(path, content, what);
}

int64_t
PeakRssKb()
{
    struct rusage usage
    {
    };

    if (getrusage(RUSAGE_SELF, &usage) != 0)
    {
        return 0;
    }
    return static_cast<int64_t>(usage.ru_maxrss); // KiB on Linux
}

void
WriteFctCsv(const std::string& path, const std::vector<FctRecord>& records)
{
    NS_LOG_FUNCTION(path << records.size());
    std::vector<const FctRecord*> order;
    order.reserve(records.size());
    for (const FctRecord& r : records)
    {
        order.push_back(&r);
    }
    std::stable_sort(order.begin(), order.end(), [](const FctRecord* a, const FctRecord* b) {
        return a->flow.id < b->flow.id;
    });

    std::string out = kFctCsvHeader;
    out += '\n';
    for (const FctRecord* r : order)
    {
        out += std::to_string(r->flow.id) + ',' + std::to_string(r->flow.src) + ',' +
               std::to_string(r->flow.dst) + ',' + std::to_string(r->flow.sizeBytes) + ',' +
               std::to_string(r->flow.startNs) + ',';
        if (r->Finished())
        {
            out += std::to_string(r->finishNs) + ',' + std::to_string(r->FctNs()) + ',';
        }
        else
        {
            out += ",,";
        }
        out += std::to_string(r->idealNs) + ',';
        if (r->Finished())
        {
            out += ShortestDouble(r->Slowdown());
        }
        out += ',';
        if (r->retxBytes >= 0)
        {
            out += std::to_string(r->retxBytes);
        }
        out += ',';
        if (r->srcAddr != 0)
        {
            out += DottedQuad(r->srcAddr);
        }
        out += ',';
        if (r->dstAddr != 0)
        {
            out += DottedQuad(r->dstAddr);
        }
        out += ',';
        if (r->srcPort >= 0)
        {
            out += std::to_string(r->srcPort);
        }
        out += ',' + std::to_string(r->flow.dport) + ',';
        if (r->timeouts >= 0)
        {
            out += std::to_string(r->timeouts);
        }
        out += '\n';
    }
    WriteAtomically(path, out, "FCT file");
}

void
WriteHpccFct(const std::string& path, const std::vector<FctRecord>& records)
{
    NS_LOG_FUNCTION(path << records.size());
    std::vector<const FctRecord*> order;
    for (const FctRecord& r : records)
    {
        if (r.Finished())
        {
            order.push_back(&r);
        }
    }
    std::stable_sort(order.begin(), order.end(), [](const FctRecord* a, const FctRecord* b) {
        return std::tie(a->finishNs, a->flow.id) < std::tie(b->finishNs, b->flow.id);
    });
    std::string out;
    char hex[2][16];
    for (const FctRecord* r : order)
    {
        std::snprintf(hex[0], sizeof(hex[0]), "%08x", r->srcAddr);
        std::snprintf(hex[1], sizeof(hex[1]), "%08x", r->dstAddr);
        out += std::string(hex[0]) + ' ' + hex[1] + ' ' +
               std::to_string(r->srcPort >= 0 ? r->srcPort : 0) + ' ' +
               std::to_string(r->flow.dport) + ' ' + std::to_string(r->flow.sizeBytes) + ' ' +
               std::to_string(r->flow.startNs) + ' ' + std::to_string(r->FctNs()) + ' ' +
               std::to_string(r->idealNs) + '\n';
    }
    WriteAtomically(path, out, "HPCC FCT file");
}

std::vector<FctRecord>
ReadFctCsv(const std::string& path)
{
    NS_LOG_FUNCTION(path);
    std::ifstream in(path);
    if (!in)
    {
        throw PrestoInputError("cannot open FCT file '" + path + "'");
    }
    std::vector<FctRecord> records;
    std::set<uint32_t> ids;
    std::string text;
    std::size_t lineNo = 0;
    bool header = false;
    std::size_t fields = kFctCsvFields;
    while (std::getline(in, text))
    {
        ++lineNo;
        if (!text.empty() && text.back() == '\r')
        {
            text.pop_back();
        }
        FctCsvParser p(path, lineNo);
        if (Trim(text).empty())
        {
            continue;
        }
        if (!header)
        {
            if (Trim(text) == kFctCsvHeaderV1)
            {
                fields = kFctCsvFieldsV1; // a file of an earlier version
            }
            else if (Trim(text) != kFctCsvHeader)
            {
                p.Fail(std::string("expected the header '") + kFctCsvHeader + "'");
            }
            header = true;
            continue;
        }
        records.push_back(ParseFctRow(p, text, fields, ids));
    }
    if (in.bad())
    {
        throw PrestoInputError("cannot read FCT file '" + path + "'");
    }
    if (!header)
    {
        throw PrestoInputError(path + ": empty FCT file (expected the header '" + kFctCsvHeader +
                               "')");
    }
    return records;
}

nlohmann::json
SummaryToJson(const FctSummary& summary, const RunSpeed& speed)
{
    NS_LOG_FUNCTION(summary.flows);
    nlohmann::json j = nlohmann::json::object();
    j["flows"] = summary.flows;
    j["finished"] = summary.finished;
    j["unfinished"] = summary.unfinished;
    j["warmup_ns"] = summary.warmupNs;
    j["warmup_excluded"] = summary.warmupExcluded;
    nlohmann::json buckets = nlohmann::json::array();
    for (const BucketSummary& b : summary.buckets)
    {
        nlohmann::json bj = nlohmann::json::object();
        bj["lo_bytes"] = b.loBytes;
        bj["hi_bytes"] = b.hiBytes;
        PutDistribution(bj, b.fctNs, b.slowdown);
        buckets.push_back(bj);
    }
    j["buckets"] = buckets;
    nlohmann::json overall = nlohmann::json::object();
    PutDistribution(overall, summary.fctNs, summary.slowdown);
    j["overall"] = overall;
    j["speed"] = SpeedToJson(speed);
    return j;
}

nlohmann::json
SpeedToJson(const RunSpeed& speed)
{
    return {{"wall_s", speed.wallS},
            {"sim_s", speed.simS},
            {"events", speed.events},
            {"packet_hops", speed.packetHops},
            {"packet_hops_per_s", speed.packetHopsPerS},
            {"peak_rss_kb", speed.peakRssKb},
            {"scheduler", speed.scheduler},
            {"simulator", speed.simulator},
            {"progress_s", speed.progressS}};
}

void
WriteJson(const std::string& path, const nlohmann::json& doc)
{
    NS_LOG_FUNCTION(path);
    std::string text;
    try
    {
        text = doc.dump(2) + "\n";
    }
    catch (const nlohmann::json::exception& e)
    {
        // e.g. a string that is not valid UTF-8
        throw PrestoInputError("cannot write JSON file '" + path + "': " + e.what());
    }
    WriteAtomically(path, text, "JSON file");
}

void
PrintSummaryTable(std::ostream& os,
                  const std::string& label,
                  const FctSummary& summary,
                  const RunSpeed& speed)
{
    // Format into a local stream so the caller's flags and precision stay untouched.
    std::ostringstream t;
    std::size_t w = 6; // the bucket column fits "bucket", "all" and every label
    for (const BucketSummary& b : summary.buckets)
    {
        w = std::max(w, BucketLabel(b).size());
    }
    t << label << ": FCT by flow size (slowdown = FCT / ideal FCT)\n";
    t << std::left << std::setw(static_cast<int>(w)) << "bucket" << std::right << std::setw(10)
      << "count" << std::setw(13) << "fct p50 us" << std::setw(13) << "fct p99 us"
      << "  slowdown" << std::setw(9) << "mean" << std::setw(9) << "p50" << std::setw(9) << "p95"
      << std::setw(9) << "p99" << std::setw(9) << "p99.9"
      << "\n";
    auto row = [&](const std::string& name,
                   const DistributionSummary& fct,
                   const DistributionSummary& sd) {
        t << std::left << std::setw(static_cast<int>(w)) << name << std::right << std::setw(10)
          << fct.count << std::fixed << std::setprecision(2) << std::setw(13) << fct.p50 / 1e3
          << std::setw(13) << fct.p99 / 1e3 << std::setw(10) << "" << std::setw(9) << sd.mean
          << std::setw(9) << sd.p50 << std::setw(9) << sd.p95 << std::setw(9) << sd.p99
          << std::setw(9) << sd.p999 << "\n";
        t.unsetf(std::ios::floatfield);
    };
    for (const BucketSummary& b : summary.buckets)
    {
        row(BucketLabel(b), b.fctNs, b.slowdown);
    }
    row("all", summary.fctNs, summary.slowdown);
    t << std::setprecision(6);
    t << "flows: " << summary.flows << " total, " << summary.finished << " finished, "
      << summary.unfinished << " unfinished, " << summary.warmupExcluded
      << " excluded by the warm-up of " << static_cast<double>(summary.warmupNs) / 1e6 << " ms\n";
    t << "speed: " << std::fixed << std::setprecision(0) << speed.packetHopsPerS
      << " packet-hops/s (" << speed.packetHops << " hops in " << std::setprecision(3)
      << speed.wallS << " s wall, " << std::setprecision(6) << speed.simS << " s simulated, "
      << speed.events << " events, " << std::setprecision(1)
      << static_cast<double>(speed.peakRssKb) / 1024.0 << " MB peak RSS)\n";
    os << t.str();
}

} // namespace ns3
