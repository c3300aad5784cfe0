/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fct-plot.h"
#include "ns3/presto-input-error.h"
#include "ns3/run-report.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// A fresh directory under the system temp dir, removed with its files at the end.
class TempDir
{
  public:
    TempDir()
    {
        char templ[] = "/tmp/presto-run-report-XXXXXX";
        const char* dir = ::mkdtemp(templ);
        EXPECT_NE(dir, nullptr);
        m_path = dir ? dir : "/tmp";
    }

    ~TempDir()
    {
        std::string cmd = "rm -rf '" + m_path + "'";
        if (m_path != "/tmp" && std::system(cmd.c_str()) != 0)
        {
            ADD_FAILURE() << "could not remove " << m_path;
        }
    }

    std::string File(const std::string& name) const
    {
        return m_path + "/" + name;
    }

  private:
    std::string m_path;
};

std::string
ReadAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void
WriteText(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

std::vector<std::string>
ListDir(const std::string& file)
{
    // everything in the directory of file whose name starts with the file's name
    std::vector<std::string> found;
    const std::string dir = file.substr(0, file.rfind('/'));
    const std::string base = file.substr(file.rfind('/') + 1);
    std::string cmd = "ls -1 '" + dir + "'";
    FILE* p = ::popen(cmd.c_str(), "r");
    char line[4096];
    while (p && std::fgets(line, sizeof(line), p))
    {
        std::string name(line);
        name.erase(name.find_last_not_of('\n') + 1);
        if (name.rfind(base, 0) == 0)
        {
            found.push_back(name);
        }
    }
    if (p)
    {
        ::pclose(p);
    }
    return found;
}

FctRecord
Flow(uint32_t id, uint64_t size, int64_t start, int64_t finish, int64_t ideal, int64_t retx = -1)
{
    FctRecord r;
    r.flow.id = id;
    r.flow.src = id % 7;
    r.flow.dst = (id + 3) % 11;
    r.flow.sizeBytes = size;
    r.flow.startNs = start;
    r.finishNs = finish;
    r.idealNs = ideal;
    r.retxBytes = retx;
    return r;
}

/// A plausible workload: sizes spread over the buckets, some unfinished, some in the warm-up.
std::vector<FctRecord>
Workload(uint32_t n, uint64_t seed, double slowdownScale)
{
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> size(9, 2.5);
    std::uniform_real_distribution<double> extra(0, slowdownScale);
    std::vector<FctRecord> records;
    for (uint32_t i = 0; i < n; ++i)
    {
        const auto bytes = static_cast<uint64_t>(1 + size(rng));
        const auto ideal = static_cast<int64_t>(2000 + bytes * 0.8);
        const int64_t start = 1000 * static_cast<int64_t>(i);
        const int64_t fct = static_cast<int64_t>(ideal * (1 + extra(rng) * extra(rng)));
        const bool finished = i % 37 != 5;
        records.push_back(
            Flow(i, bytes, start, finished ? start + fct : -1, ideal, i % 3 ? -1 : i * 10));
        if (i % 4 == 1) // transports that know the flow's addresses, ports and timeouts
        {
            records.back().srcAddr = 0x0a000001 + i;
            records.back().dstAddr = 0xffffffff - i;
            records.back().srcPort = static_cast<int32_t>(49152 + i % 16384);
            records.back().flow.dport = static_cast<uint16_t>(i % 65536);
            records.back().timeouts = i % 5;
        }
    }
    return records;
}

bool
SameRecord(const FctRecord& a, const FctRecord& b)
{
    return a.flow.id == b.flow.id && a.flow.src == b.flow.src && a.flow.dst == b.flow.dst &&
           a.flow.sizeBytes == b.flow.sizeBytes && a.flow.startNs == b.flow.startNs &&
           a.finishNs == b.finishNs && a.idealNs == b.idealNs && a.retxBytes == b.retxBytes &&
           a.srcAddr == b.srcAddr && a.dstAddr == b.dstAddr && a.srcPort == b.srcPort &&
           a.flow.dport == b.flow.dport && a.timeouts == b.timeouts;
}

/// The header of fct.csv files written before the address, port and timeout columns.
const std::string kHeader =
    "id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,retx_bytes\n";
/// The header WriteFctCsv writes.
const std::string kHeaderNow =
    "id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,slowdown,retx_bytes,"
    "src_addr,dst_addr,src_port,dst_port,timeouts\n";

} // namespace

TEST(FctCsv, WritesDocumentedRows)
{
    TempDir dir;
    const std::string path = dir.File("fct.csv");
    // Given out of id order: written in id order.
    std::vector<FctRecord> r{Flow(2, 5000, 100, -1, 700), Flow(1, 1000, 10, 3010, 1200, 0)};
    r[1].srcAddr = 0x0a000102; // 10.0.1.2
    r[1].dstAddr = 0xc0a8ff01; // 192.168.255.1
    r[1].srcPort = 49153;
    r[1].flow.dport = 5001;
    r[1].timeouts = 2;
    r[0].flow.dport = 80;
    WriteFctCsv(path, r);
    EXPECT_EQ(ReadAll(path),
              kHeaderNow +
                  "1,1,4,1000,10,3010,3000,1200,2.5,0,10.0.1.2,192.168.255.1,49153,5001,2\n"
                  "2,2,5,5000,100,,,700,,,,,,80,\n");
    // No temporary file left next to it.
    EXPECT_EQ(ListDir(path), std::vector<std::string>{"fct.csv"});
}

TEST(FctCsv, RoundTripIsExact)
{
    TempDir dir;
    std::vector<FctRecord> r = Workload(500, 7, 5);
    // Extremes of every field.
    r.push_back(Flow(std::numeric_limits<uint32_t>::max(),
                     std::numeric_limits<uint64_t>::max(),
                     std::numeric_limits<int64_t>::min() / 2,
                     std::numeric_limits<int64_t>::max() / 2,
                     3,
                     std::numeric_limits<int64_t>::max()));
    r.push_back(Flow(100000, 1, 0, 0, 1)); // FCT 0
    WriteFctCsv(dir.File("a.csv"), r);
    std::swap(r[r.size() - 1], r[r.size() - 2]); // the file is in id order
    std::vector<FctRecord> back = ReadFctCsv(dir.File("a.csv"));
    ASSERT_EQ(back.size(), r.size());
    for (std::size_t i = 0; i < r.size(); ++i)
    {
        EXPECT_TRUE(SameRecord(r[i], back[i])) << "record " << i;
    }
    // And writing what was read gives the same bytes.
    WriteFctCsv(dir.File("b.csv"), back);
    EXPECT_EQ(ReadAll(dir.File("a.csv")), ReadAll(dir.File("b.csv")));
}

TEST(FctCsv, HpccFctTxtLines)
{
    TempDir dir;
    const std::string path = dir.File("fct.txt");
    // flow 1 finishes last, flow 3 never: HPCC's qp_finish writes a line per completion
    std::vector<FctRecord> r{Flow(1, 1000, 10, 9010, 1200),
                             Flow(2, 5000, 100, 3100, 700),
                             Flow(3, 7, 0, -1, 5)};
    r[0].srcAddr = 0x0b000101; // 11.0.1.1, an HPCC host address
    r[0].dstAddr = 0x0b000201;
    r[0].srcPort = 10000;
    r[0].flow.dport = 100;
    r[1].srcAddr = 0x0a000001;
    r[1].dstAddr = 0xc0a80001;
    r[1].srcPort = 49152;
    r[1].flow.dport = 5001;
    WriteHpccFct(path, r);
    EXPECT_EQ(ReadAll(path),
              "0a000001 c0a80001 49152 5001 5000 100 3000 700\n"
              "0b000101 0b000201 10000 100 1000 10 9000 1200\n");
}

TEST(FctCsv, ReadsAddressesPortsAndTimeouts)
{
    TempDir dir;
    const std::string path = dir.File("fct.csv");
    WriteText(path, kHeaderNow + "1,0,1,100,0,200,200,100,2,7,10.0.0.1,10.0.3.255,50000,9,3\n");
    std::vector<FctRecord> r = ReadFctCsv(path);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].retxBytes, 7);
    EXPECT_EQ(r[0].srcAddr, 0x0a000001u);
    EXPECT_EQ(r[0].dstAddr, 0x0a0003ffu);
    EXPECT_EQ(r[0].srcPort, 50000);
    EXPECT_EQ(r[0].flow.dport, 9);
    EXPECT_EQ(r[0].timeouts, 3);
    for (const char* bad : {"10.0.0", "10.0.0.256", "10..0.1", "0.0.0.0", "10.0.0.1.2"})
    {
        WriteText(path, kHeaderNow + "1,0,1,100,0,200,200,100,2,7," + bad + ",10.0.0.2,1,9,3\n");
        try
        {
            ReadFctCsv(path);
            ADD_FAILURE() << "accepted src_addr " << bad;
        }
        catch (const PrestoInputError& e)
        {
            EXPECT_NE(std::string(e.what()).find(path + ":2: src_addr"), std::string::npos)
                << e.what();
        }
    }
    for (const char* row : {"1,0,1,100,0,200,200,100,2,7,,,70000,9,\n",
                            "1,0,1,100,0,200,200,100,2,7,,,1,,\n",
                            "1,0,1,100,0,200,200,100,2,7,,,1,9,-1\n"})
    {
        WriteText(path, kHeaderNow + row);
        EXPECT_THROW(ReadFctCsv(path), PrestoInputError) << row;
    }
}

TEST(FctCsv, AcceptsCrlfAndBlankLines)
{
    TempDir dir;
    const std::string path = dir.File("fct.csv");
    std::string crlf = kHeader;
    crlf.insert(crlf.size() - 1, "\r");
    WriteText(path, crlf + "\r\n1,0,1,100,0,200,200,100,2,\r\n\r\n");
    std::vector<FctRecord> r = ReadFctCsv(path);
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].finishNs, 200);
    EXPECT_EQ(r[0].retxBytes, -1);
}

TEST(FctCsv, MalformedInputNamesFileAndLine)
{
    TempDir dir;
    const std::string path = dir.File("bad.csv");
    const std::string good = "1,0,1,100,0,200,200,100,2,\n";

    struct Case
    {
        std::string text;
        std::string line; // expected "<path>:<line>:"
        std::string what; // a word of the message
    };

    const std::vector<Case> cases{
        {"id,src,dst\n" + good, "1", "header"},
        {kHeader + good + "2,0,1,100,0,200,200,100,2\n", "3", "fields"},
        {kHeader + good + "2,0,1,abc,0,200,200,100,2,\n", "3", "size_bytes"},
        {kHeader + "2,0,1,100,0,200,200,100,2,,\n", "2", "fields"},
        {kHeader + "2,0,1,-100,0,200,200,100,2,\n", "2", "size_bytes"},
        {kHeader + "2,0,1,100,0,200,199,100,2,\n", "2", "fct_ns"},
        {kHeader + "2,0,1,100,0,200,200,100,3,\n", "2", "slowdown"},
        {kHeader + "2,0,1,100,0,200,,100,2,\n", "2", "empty"},
        {kHeader + "2,0,1,100,0,,,100,2,\n", "2", "empty"},
        {kHeader + "2,0,1,100,0,200,200,100,nan,\n", "2", "slowdown"},
        {kHeader + "5000000000,0,1,100,0,200,200,100,2,\n", "2", "range"},
        {kHeader + "2,0,1,100,0,200,200,100,2,-4\n", "2", "retx_bytes"},
        {kHeader + "2,0,1,100,0,200,200,100,2,7x\n", "2", "retx_bytes"},
        {kHeader + good + "\n" + good, "4", "twice"},
        // a long field is quoted as an excerpt, not whole
        {kHeader + "2,0,1," + std::string(5000, '9') + "x,0,200,200,100,2,\n",
         "2",
         "(5001 characters)"},
    };
    for (const Case& c : cases)
    {
        WriteText(path, c.text);
        try
        {
            ReadFctCsv(path);
            ADD_FAILURE() << "accepted:\n" << c.text;
        }
        catch (const PrestoInputError& e)
        {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(path + ":" + c.line + ":"), std::string::npos) << msg;
            EXPECT_NE(msg.find(c.what), std::string::npos) << msg;
            EXPECT_LT(msg.size(), path.size() + 300) << msg.substr(0, 300);
        }
    }
    WriteText(path, "");
    EXPECT_THROW(ReadFctCsv(path), PrestoInputError);
    EXPECT_THROW(ReadFctCsv(dir.File("missing.csv")), PrestoInputError);
    EXPECT_THROW(WriteFctCsv(dir.File("no/such/dir/fct.csv"), {}), PrestoInputError);
}

TEST(SummaryJson, HasTheDocumentedKeysAndValues)
{
    std::vector<FctRecord> r{Flow(1, 100, 0, 300, 100),
                             Flow(2, 100, 0, 500, 100),
                             Flow(3, 5000, 0, 8000, 2000),
                             Flow(4, 5000, 0, -1, 2000),
                             Flow(5, 100, -10, 50, 10)};
    FctSummary s = SummarizeFct(r, {1000}, 0);
    RunSpeed speed;
    speed.wallS = 2.5;
    speed.simS = 0.01;
    speed.events = 123456;
    speed.packetHops = 1000000;
    speed.packetHopsPerS = 400000;
    speed.peakRssKb = 2048;
    speed.scheduler = "ns3::TimingWheelScheduler";
    speed.simulator = "ns3::LeanSimulatorImpl";
    nlohmann::json j = SummaryToJson(s, speed);

    std::vector<std::string> top;
    for (auto it = j.begin(); it != j.end(); ++it)
    {
        top.push_back(it.key());
    }
    EXPECT_EQ(top,
              (std::vector<std::string>{"buckets",
                                        "finished",
                                        "flows",
                                        "overall",
                                        "speed",
                                        "unfinished",
                                        "warmup_excluded",
                                        "warmup_ns"}));
    EXPECT_EQ(j["flows"], 5);
    EXPECT_EQ(j["finished"], 3);
    EXPECT_EQ(j["unfinished"], 1);
    EXPECT_EQ(j["warmup_ns"], 0);
    EXPECT_EQ(j["warmup_excluded"], 1);

    const std::vector<std::string> stats{"count",
                                         "fct_mean_ns",
                                         "fct_p50_ns",
                                         "fct_p95_ns",
                                         "fct_p99_ns",
                                         "fct_p999_ns",
                                         "slowdown_mean",
                                         "slowdown_p50",
                                         "slowdown_p95",
                                         "slowdown_p99",
                                         "slowdown_p999"};
    ASSERT_EQ(j["buckets"].size(), 2u);
    for (const auto& b : j["buckets"])
    {
        EXPECT_EQ(b.size(), stats.size() + 2);
        EXPECT_TRUE(b.contains("lo_bytes"));
        EXPECT_TRUE(b.contains("hi_bytes"));
        for (const std::string& k : stats)
        {
            EXPECT_TRUE(b.contains(k)) << k;
        }
    }
    EXPECT_EQ(j["buckets"][0]["lo_bytes"], 0);
    EXPECT_EQ(j["buckets"][0]["hi_bytes"], 1000);
    EXPECT_EQ(j["buckets"][0]["count"], 2);
    EXPECT_DOUBLE_EQ(j["buckets"][0]["fct_mean_ns"].get<double>(), 400);
    EXPECT_DOUBLE_EQ(j["buckets"][0]["slowdown_p50"].get<double>(), 4);
    EXPECT_EQ(j["buckets"][1]["lo_bytes"], 1000);
    EXPECT_EQ(j["buckets"][1]["hi_bytes"].get<uint64_t>(), std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(j["buckets"][1]["count"], 1);
    EXPECT_DOUBLE_EQ(j["buckets"][1]["slowdown_p999"].get<double>(), 4);

    EXPECT_EQ(j["overall"].size(), stats.size());
    EXPECT_EQ(j["overall"]["count"], 3);
    EXPECT_DOUBLE_EQ(j["overall"]["fct_p50_ns"].get<double>(), 500);
    EXPECT_DOUBLE_EQ(j["overall"]["fct_p999_ns"].get<double>(), 500 + 0.998 * 7500);

    EXPECT_EQ(j["speed"].size(), 9u);
    EXPECT_DOUBLE_EQ(j["speed"]["wall_s"].get<double>(), 2.5);
    EXPECT_DOUBLE_EQ(j["speed"]["sim_s"].get<double>(), 0.01);
    EXPECT_EQ(j["speed"]["events"], 123456);
    EXPECT_EQ(j["speed"]["packet_hops"], 1000000);
    EXPECT_DOUBLE_EQ(j["speed"]["packet_hops_per_s"].get<double>(), 400000);
    EXPECT_EQ(j["speed"]["peak_rss_kb"], 2048);
    EXPECT_EQ(j["speed"]["scheduler"], "ns3::TimingWheelScheduler");
    EXPECT_EQ(j["speed"]["simulator"], "ns3::LeanSimulatorImpl");
    EXPECT_DOUBLE_EQ(j["speed"]["progress_s"].get<double>(), 0); // not set: no progress lines
}

TEST(SummaryJson, WriteJsonIsDeterministicAndPretty)
{
    TempDir dir;
    FctSummary s = SummarizeFct(Workload(300, 3, 4), {10000, 100000, 1000000}, 20000);
    RunSpeed speed;
    speed.wallS = 1.0 / 3.0;
    nlohmann::json a = SummaryToJson(s, speed);
    a["config"] = {{"label", "presto_k1"}, {"seed", 1}};
    // The same content built in another insertion order.
    nlohmann::json b = nlohmann::json::object();
    b["config"] = {{"seed", 1}, {"label", "presto_k1"}};
    for (auto it = a.begin(); it != a.end(); ++it)
    {
        if (it.key() != "config")
        {
            b[it.key()] = it.value();
        }
    }
    WriteJson(dir.File("a.json"), a);
    WriteJson(dir.File("b.json"), b);
    const std::string text = ReadAll(dir.File("a.json"));
    EXPECT_EQ(text, ReadAll(dir.File("b.json")));
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n');
    EXPECT_EQ(text.substr(0, 16), "{\n  \"buckets\": [");
    EXPECT_EQ(nlohmann::json::parse(text), a);
    EXPECT_EQ(ListDir(dir.File("a.json")), std::vector<std::string>{"a.json"});
    EXPECT_THROW(WriteJson(dir.File("missing/x.json"), a), PrestoInputError);
    EXPECT_THROW(WriteJson(dir.File("bad.json"), nlohmann::json("\xff\xfe")), PrestoInputError);
    EXPECT_TRUE(ListDir(dir.File("bad.json")).empty());
}

/// A "VmXXX:  1234 kB" field of /proc/self/status, KiB; -1 if absent.
int64_t
ProcStatusKb(const std::string& field)
{
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);)
    {
        if (line.rfind(field + ":", 0) == 0)
        {
            return std::stoll(line.substr(field.size() + 1));
        }
    }
    return -1;
}

TEST(RunReport, PeakRssMatchesTheKernel)
{
    // The kernel's own high-water mark (VmHWM) is what getrusage reports; RSS grows while
    // the test runs, so allow a little slack.
    std::vector<char> big(64 << 20, 1); // touch 64 MiB so the process is surely above it
    volatile char sink = big[12345];
    (void)sink;
    const int64_t rss = ProcStatusKb("VmRSS");
    const int64_t hwm = ProcStatusKb("VmHWM");
    ASSERT_GT(rss, 0);
    ASSERT_GT(hwm, 0);
    const int64_t peak = PeakRssKb();
    EXPECT_GE(peak, rss - 1024);
    EXPECT_GE(peak, 64 << 10);
    EXPECT_NEAR(static_cast<double>(peak), static_cast<double>(hwm), 0.05 * hwm + 1024);
}

TEST(RunReport, SummaryTable)
{
    std::vector<FctRecord> r{Flow(1, 100, 0, 3000, 1000),
                             Flow(2, 100, 0, 5000, 1000),
                             Flow(3, 50000, 0, 80000, 20000),
                             Flow(4, 50000, 0, -1, 2000)};
    FctSummary s = SummarizeFct(r, {10000}, 0);
    RunSpeed speed{2.0,
                   0.5,
                   1000,
                   500000,
                   250000,
                   10240,
                   "ns3::MapScheduler",
                   "ns3::DefaultSimulatorImpl"};
    std::ostringstream os;
    os << std::setprecision(2); // the caller's stream state must not leak into the table
    PrintSummaryTable(os, "presto_k1", s, speed);
    const std::string out = os.str();
    std::istringstream lines(out);
    std::vector<std::string> l;
    for (std::string line; std::getline(lines, line);)
    {
        l.push_back(line);
    }
    ASSERT_EQ(l.size(), 7u) << out;
    EXPECT_NE(l[0].find("presto_k1"), std::string::npos);
    EXPECT_NE(l[1].find("slowdown"), std::string::npos);
    // Aligned: the header and every row have the same width.
    for (std::size_t i = 2; i <= 4; ++i)
    {
        EXPECT_EQ(l[i].size(), l[1].size()) << l[i];
    }
    EXPECT_EQ(l[2].rfind("<=10K", 0), 0u);
    // <=10K: FCT 3 and 5 us -> p50 4.00, p99 4.98; slowdown mean 4, p99.9 4.998 -> 5.00
    EXPECT_NE(l[2].find("4.00"), std::string::npos) << l[2];
    EXPECT_NE(l[2].find("4.98"), std::string::npos) << l[2];
    EXPECT_NE(l[2].find("5.00"), std::string::npos) << l[2];
    EXPECT_EQ(l[3].rfind(">10K", 0), 0u);
    EXPECT_NE(l[3].find("80.00"), std::string::npos) << l[3];
    EXPECT_EQ(l[4].rfind("all", 0), 0u);
    EXPECT_NE(l[5].find("1 unfinished"), std::string::npos) << l[5];
    EXPECT_EQ(l[6],
              "speed: 250000 packet-hops/s (500000 hops in 2.000 s wall, 0.500000 s simulated, "
              "1000 events, 10.0 MB peak RSS)");
}

TEST(FctPlot, WritesPngForOneAndSeveralRuns)
{
    TempDir dir;
    const std::vector<uint64_t> edges{10000, 100000, 1000000, 10000000};
    auto run = [&](const std::string& label, uint64_t seed, double scale) {
        PlotRun p;
        p.label = label;
        p.records = Workload(2000, seed, scale);
        p.summary = SummarizeFct(p.records, edges, 50000);
        return p;
    };
    auto checkPng = [](const std::string& path) {
        const std::string png = ReadAll(path);
        ASSERT_GT(png.size(), 8u);
        EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
        // A 1200x500 chart with axes, lines and text: tens of KiB, not a few bytes.
        EXPECT_GT(png.size(), 5000u);
        EXPECT_LT(png.size(), 5u << 20);
    };

    const std::string one = dir.File("one.png");
    PlotFct({run("host_tcp", 1, 3)}, one);
    checkPng(one);
    EXPECT_EQ(ListDir(one), std::vector<std::string>{"one.png"});

    const std::string several = dir.File("several.png");
    PlotRun sparse = run("presto_k1 'quoted' \"too\"", 3, 2);
    sparse.records.resize(3); // most buckets empty
    sparse.summary = SummarizeFct(sparse.records, edges, 0);
    PlotFct({run("host_tcp", 1, 3), run("presto_k0", 2, 8), sparse}, several);
    checkPng(several);
    EXPECT_NE(ReadAll(one), ReadAll(several));
}

TEST(FctPlot, NothingToDrawStillWorksAndBadInputThrows)
{
    TempDir dir;
    PlotRun empty;
    empty.label = "empty_run";
    empty.summary = SummarizeFct({}, {10000}, 0);
    const std::string path = dir.File("empty.png");
    PlotFct({empty}, path);
    EXPECT_EQ(ReadAll(path).substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_THROW(PlotFct({}, dir.File("none.png")), PrestoInputError);
    EXPECT_THROW(PlotFct({empty}, dir.File("no/such/dir/x.png")), PrestoInputError);
    EXPECT_TRUE(ListDir(dir.File("none.png")).empty());
}

TEST(FctPlot, RunCaptionNamesTheConfigurationOnce)
{
    const nlohmann::json a = {{"label", "host-tcp"},
                              {"workload", "websearch"},
                              {"pattern", "all-to-all"},
                              {"load", 0.5},
                              {"topology", "leaf-spine"},
                              {"leaves", 2},
                              {"hosts_per_leaf", 4},
                              {"spines", 2},
                              {"host_rate", "10Gbps"},
                              {"core_rate", "40Gbps"},
                              {"cc", "dctcp"},
                              {"seed", 1},
                              {"sim_time_s", 0.01},
                              {"flow_file", ""}};
    EXPECT_EQ(RunCaption({a}),
              "host-tcp | websearch all-to-all, load 0.5 | leaf-spine 2 leaves x 4 hosts, 2 "
              "spines, 10Gbps/40Gbps | dctcp | seed 1 | simTime 0.01 s");
    // what differs between runs lists each value once, in the runs' order
    nlohmann::json b = a;
    b["label"] = "presto-K1";
    b["seed"] = 2;
    nlohmann::json c = b;
    c["label"] = "host-tcp";
    EXPECT_EQ(RunCaption({a, b, c}),
              "host-tcp, presto-K1 | websearch all-to-all, load 0.5 | leaf-spine 2 leaves x 4 "
              "hosts, 2 spines, 10Gbps/40Gbps | dctcp | seeds 1,2 | simTime 0.01 s");
    // a flow file instead of a workload; missing keys are left out; nothing: ""
    EXPECT_EQ(RunCaption({{{"device", "flextoe"}, {"flow_file", "f.txt"}, {"load", 0.3}}}),
              "flextoe | flow file, load 0.3");
    EXPECT_EQ(RunCaption({}), "");
    EXPECT_EQ(RunCaption({nlohmann::json::array()}), "");
}
