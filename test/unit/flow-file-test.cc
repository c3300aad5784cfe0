/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/flow-file.h"
#include "ns3/flow-generator.h"
#include "ns3/flow-size-cdf.h"
#include "ns3/presto-input-error.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// A private temporary file path, removed at the end of the test.
class TempFile
{
  public:
    explicit TempFile(const std::string& suffix)
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_path = (std::filesystem::temp_directory_path() /
                  ("presto-flowfile-" + std::string(info->name()) + "-" + std::to_string(getpid()) +
                   suffix))
                     .string();
    }

    ~TempFile()
    {
        std::error_code ec;
        std::filesystem::remove(m_path, ec);
    }

    const std::string& Path() const
    {
        return m_path;
    }

    std::string Read() const
    {
        std::ifstream in(m_path);
        std::stringstream ss;
        ss << in.rdbuf();
        return ss.str();
    }

  private:
    std::string m_path;
};

std::vector<FlowSpec>
Parse(const std::string& text, uint32_t nHosts = 4)
{
    std::istringstream in(text);
    return ParseFlowFile(in, "flows.txt", nHosts);
}

std::string
ParseError(const std::string& text, const std::string& name, uint32_t nHosts)
{
    try
    {
        std::istringstream in(text);
        ParseFlowFile(in, name, nHosts);
    }
    catch (const PrestoInputError& e)
    {
        return e.what();
    }
    return "";
}

bool
SameFlow(const FlowSpec& a, const FlowSpec& b)
{
    return a.id == b.id && a.src == b.src && a.dst == b.dst && a.priority == b.priority &&
           a.dport == b.dport && a.sizeBytes == b.sizeBytes && a.startNs == b.startNs;
}

} // namespace

TEST(FlowFile, ParsesTheHpccFormat)
{
    // As written by HPCC's traffic_gen.py: count, then "src dst 3 dport size start_s".
    const auto flows = Parse("3\n"
                             "0 1 3 100 5000 2.000000100\n"
                             "2 3 3 100 1 2.000000050\n"
                             "# a comment\n"
                             "\n"
                             "3 0 7 80 123456789012 2.000000100\n");
    ASSERT_EQ(flows.size(), 3U);
    // Sorted by start time (stable); ids are the file order.
    EXPECT_EQ(flows[0].id, 1U);
    EXPECT_EQ(flows[0].startNs, 2000000050);
    EXPECT_EQ(flows[1].id, 0U);
    EXPECT_EQ(flows[1].src, 0U);
    EXPECT_EQ(flows[1].dst, 1U);
    EXPECT_EQ(flows[1].priority, 3U);
    EXPECT_EQ(flows[1].dport, 100);
    EXPECT_EQ(flows[1].sizeBytes, 5000U);
    EXPECT_EQ(flows[1].startNs, 2000000100);
    EXPECT_EQ(flows[2].id, 2U);
    EXPECT_EQ(flows[2].priority, 7U);
    EXPECT_EQ(flows[2].dport, 80);
    EXPECT_EQ(flows[2].sizeBytes, 123456789012U);
}

TEST(FlowFile, StartTimesInOtherNotations)
{
    const auto flows = Parse("5\n"
                             "0 1 3 100 10 0\n"
                             "0 1 3 100 10 1.5\n"
                             "0 1 3 100 10 .25\n"
                             "0 1 3 100 10 1e-3\n"
                             "0 1 3 100 10 0.0000000016\n");
    ASSERT_EQ(flows.size(), 5U);
    EXPECT_EQ(flows[0].startNs, 0);
    EXPECT_EQ(flows[1].startNs, 2);          // 1.6 ns rounds to 2
    EXPECT_EQ(flows[2].startNs, 1000000);    // 1e-3 s
    EXPECT_EQ(flows[3].startNs, 250000000);  // .25 s
    EXPECT_EQ(flows[4].startNs, 1500000000); // 1.5 s
}

TEST(FlowFile, RoundTripIsExact)
{
    RngSeedManager::SetSeed(77);
    RngSeedManager::SetRun(1);
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(4);
    FlowGeneratorConfig c;
    c.nHosts = 32;
    c.load = 0.6;
    c.hostRateBps = 25e9;
    c.startNs = 2000000000; // HPCC's traffic_gen starts at 2 s
    c.durationNs = 50000000;
    c.pattern = TrafficPattern::INCAST;
    c.dport = 8080;
    auto flows = GenerateFlows(c, FlowSizeCdf::Load("hadoop"), u);
    ASSERT_GT(flows.size(), 1000U);
    // Values at the edges of the fields' ranges, and odd nanoseconds.
    FlowSpec edge;
    edge.id = static_cast<uint32_t>(flows.size());
    edge.src = 31;
    edge.dst = 0;
    edge.priority = 4000000000U;
    edge.dport = 65535;
    edge.sizeBytes = MAX_FLOW_BYTES;
    // the latest start a flow file may give, with all nine decimals
    edge.startNs = int64_t(FLOW_FILE_MAX_START_SECONDS) * 1000000000 - 1;
    flows.push_back(edge);

    TempFile file(".txt");
    WriteFlowFile(file.Path(), flows);
    const auto back = ReadFlowFile(file.Path(), c.nHosts);
    ASSERT_EQ(back.size(), flows.size());
    for (size_t i = 0; i < flows.size(); ++i)
    {
        EXPECT_TRUE(SameFlow(back[i], flows[i])) << "flow " << i;
    }
    // The text itself: count line, then 6 fields with 9 decimals.
    std::istringstream text(file.Read());
    std::string line;
    std::getline(text, line);
    EXPECT_EQ(line, std::to_string(flows.size()));
    std::getline(text, line);
    std::ostringstream first;
    first << flows[0].src << ' ' << flows[0].dst << " 3 8080 " << flows[0].sizeBytes << ' '
          << flows[0].startNs / 1000000000 << '.';
    EXPECT_EQ(line.rfind(first.str(), 0), 0U) << line;
    EXPECT_EQ(line.size() - line.rfind('.') - 1, 9U) << line;
}

TEST(FlowFile, WriteErrors)
{
    EXPECT_THROW(WriteFlowFile("/nonexistent-dir/out.txt", {}), PrestoInputError);
    FlowSpec f;
    f.src = 0;
    f.dst = 1;
    f.sizeBytes = 10;
    f.startNs = -1;
    TempFile file(".txt");
    EXPECT_THROW(WriteFlowFile(file.Path(), {f}), PrestoInputError);
    f.startNs = int64_t(FLOW_FILE_MAX_START_SECONDS) * 1000000000 + 1; // the reader refuses it
    EXPECT_THROW(WriteFlowFile(file.Path(), {f}), PrestoInputError);
}

TEST(FlowFile, MissingFileNamesThePath)
{
    try
    {
        ReadFlowFile("/nonexistent-dir/flows.txt", 4);
        FAIL() << "no PrestoInputError";
    }
    catch (const PrestoInputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/flows.txt"), std::string::npos);
    }
}

TEST(FlowFile, MalformedFilesNameFileAndLine)
{
    struct Case
    {
        const char* what;
        const char* text;
        int line;
    };

    const Case cases[] = {
        {"empty file", "", 1},
        {"only comments", "# nothing\n\n", 2},
        {"count not a number", "three\n0 1 3 100 10 0\n", 1},
        {"negative count", "-1\n", 1},
        {"garbage after count", "1 flows\n0 1 3 100 10 0\n", 1},
        {"fewer flows than count", "3\n0 1 3 100 10 0\n1 2 3 100 10 0\n", 3},
        {"more flows than count", "1\n0 1 3 100 10 0\n1 2 3 100 10 0\n", 3},
        {"missing field", "2\n0 1 3 100 10 0\n0 1 3 100 10\n", 3},
        {"trailing garbage", "1\n0 1 3 100 10 0.5 extra\n", 2},
        {"src not a number", "1\nx 1 3 100 10 0\n", 2},
        {"negative src", "1\n-1 1 3 100 10 0\n", 2},
        {"fractional dst", "1\n0 1.5 3 100 10 0\n", 2},
        {"priority not a number", "1\n0 1 high 100 10 0\n", 2},
        {"dport too large", "1\n0 1 3 70000 10 0\n", 2},
        {"size not a number", "1\n0 1 3 100 10KB 0\n", 2},
        {"start not a number", "2\n0 1 3 100 10 0\n0 1 3 100 10 soon\n", 3},
        {"src out of range", "1\n4 1 3 100 10 0\n", 2},
        {"dst out of range", "1\n0 9 3 100 10 0\n", 2},
        {"src equals dst", "2\n# c\n0 1 3 100 10 0\n2 2 3 100 10 0\n", 4},
        {"size 0", "1\n0 1 3 100 0 0\n", 2},
        {"negative start", "1\n0 1 3 100 10 -0.5\n", 2},
        {"negative start in exponent form", "1\n0 1 3 100 10 -1e-3\n", 2},
    };
    for (const auto& c : cases)
    {
        const std::string msg = ParseError(c.text, "bad-flows.txt", 4);
        ASSERT_FALSE(msg.empty()) << c.what << ": no PrestoInputError";
        EXPECT_NE(msg.find("bad-flows.txt"), std::string::npos) << c.what << ": " << msg;
        EXPECT_NE(msg.find("line " + std::to_string(c.line) + ":"), std::string::npos)
            << c.what << ": " << msg;
    }
}

TEST(FlowFile, MalformedFileOnDiskNamesItsPath)
{
    TempFile file(".txt");
    {
        std::ofstream out(file.Path());
        out << "2\n0 1 3 100 10 0.1\n0 1 3 100 10 0.2 0.3\n";
    }
    try
    {
        ReadFlowFile(file.Path(), 2);
        FAIL() << "no PrestoInputError";
    }
    catch (const PrestoInputError& e)
    {
        EXPECT_NE(std::string(e.what()).find(file.Path()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("line 3:"), std::string::npos) << e.what();
    }
}

TEST(FlowFile, HugeCountIsAClaimNotAnAllocation)
{
    // The count line says 4294967295; the file holds two flows. Reading used to reserve
    // room for the count first (std::bad_alloc, ~160 GB); now memory follows the lines read
    // and the mismatch is an error naming the file and the line.
    const std::string msg =
        ParseError("4294967295\n0 1 3 100 10 0\n1 2 3 100 10 0\n", "big.txt", 4);
    EXPECT_NE(
        msg.find("big.txt', line 3: file ends after 2 flows, but line 1 announces 4294967295"),
        std::string::npos)
        << msg;
    // one more than the largest id cannot even be announced
    const std::string over = ParseError("4294967296\n0 1 3 100 10 0\n", "over.txt", 4);
    EXPECT_NE(over.find("over.txt', line 1: cannot parse flow count '4294967296'"),
              std::string::npos)
        << over;
}

TEST(FlowFile, SizeAboveTheLargestFlowIsRefusedWithItsLine)
{
    // 2^53 is accepted; 2^53 + 1 and 1.15e19 (beyond what the ideal FCT can express in
    // int64 ns at 10 Gbit/s) are refused where they are read, with file and line.
    EXPECT_EQ(Parse("1\n0 1 3 100 9007199254740992 0\n")[0].sizeBytes, MAX_FLOW_BYTES);
    for (const char* size : {"9007199254740993", "11500000000000000000", "18446744073709551616"})
    {
        const std::string msg =
            ParseError(std::string("2\n0 1 3 100 10 0\n0 1 3 100 ") + size + " 0\n", "f.txt", 4);
        EXPECT_NE(msg.find("f.txt', line 3: cannot parse size"), std::string::npos) << msg;
        EXPECT_NE(msg.find("9007199254740992"), std::string::npos) << msg;
    }
}

TEST(FlowFile, MessagesQuoteAShortExcerpt)
{
    // A 2 MB line used to be quoted whole; a line longer than 4096 characters is refused
    // before it is stored, and bad tokens are quoted up to 80 characters.
    const std::string longLine(2000000, 'x');
    const std::string msg = ParseError("1\n" + longLine + "\n", "long.txt", 4);
    EXPECT_NE(msg.find("long.txt:2: line longer than 4096 characters, starting 'xxxx"),
              std::string::npos)
        << msg.substr(0, 200);
    EXPECT_LT(msg.size(), 250U);
    const std::string token(3000, '7');
    const std::string bad = ParseError("1\n0 1 3 100 10 " + token + "x\n", "tok.txt", 4);
    EXPECT_NE(bad.find("tok.txt', line 2: cannot parse start time"), std::string::npos) << bad;
    EXPECT_NE(bad.find("(3001 characters)"), std::string::npos) << bad;
    EXPECT_LT(bad.size(), 300U); // the excerpt and why it was refused
    // bytes that are not printable come out escaped
    const std::string bin = ParseError("1\n0 1 3 100 1\x01\xff 0\n", "bin.txt", 4);
    EXPECT_NE(bin.find("'1\\x01\\xff'"), std::string::npos) << bin;
}

TEST(FlowFile, AMillionFlowsStayProportional)
{
    // 1,000,000 flows: read in time and memory proportional to the flows (a FlowSpec is 40
    // bytes); the text goes through a stream, not into one string.
    std::ostringstream text;
    text << "1000000\n";
    for (uint32_t i = 0; i < 1000000; ++i)
    {
        text << (i % 16) << ' ' << ((i + 1) % 16) << " 3 100 " << (1000 + i) << ' ' << i / 1000
             << '.' << (i % 1000) << "\n";
    }
    std::istringstream in(text.str());
    const auto flows = ParseFlowFile(in, "million.txt", 16);
    ASSERT_EQ(flows.size(), 1000000U);
    EXPECT_EQ(flows.capacity(), flows.size());
    EXPECT_EQ(flows.back().sizeBytes, 1000U + 999999U);
}

TEST(FlowFile, PipeIsReadOnce)
{
    // A flow file that is not a regular file (here a FIFO, as /dev/stdin from a pipe) can be
    // read only once; its text is kept, so a second read of the path gives the same flows.
    TempFile fifo(".fifo");
    ASSERT_EQ(mkfifo(fifo.Path().c_str(), 0600), 0);
    std::thread writer([&fifo] {
        std::ofstream out(fifo.Path());
        out << "2\n0 1 3 100 10 0.5\n1 0 3 100 20 0.25\n";
    });
    const auto first = ReadFlowFile(fifo.Path(), 2);
    writer.join();
    // a second open of the FIFO would wait for a writer: give it 5 s, then unblock it
    auto again = std::async(std::launch::async, [&fifo] {
        try
        {
            return ReadFlowFile(fifo.Path(), 2);
        }
        catch (const PrestoInputError&)
        {
            return std::vector<FlowSpec>{};
        }
    });
    if (again.wait_for(std::chrono::seconds(5)) != std::future_status::ready)
    {
        std::ofstream unblock(fifo.Path());
    }
    const auto second = again.get();
    ASSERT_EQ(first.size(), 2U);
    ASSERT_EQ(second.size(), 2U);
    for (size_t i = 0; i < 2; ++i)
    {
        EXPECT_TRUE(SameFlow(first[i], second[i]));
    }
}
