/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/cora-program-file.h"
#include "ns3/cora-program.h"

#include <chrono>
#include <cstdlib>
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

namespace ns3
{
namespace
{

using test::Contains;
using test::ErrorOf;

/// \return the program parsed from text, named "t.cora" in messages
CoraProgram
Parse(const std::string& text)
{
    std::istringstream in(text);
    return CoraParseProgram(in, "t.cora");
}

/// \return the error message of parsing text ("" if it parsed)
std::string
ParseError(const std::string& text)
{
    return ErrorOf([&text] { Parse(text); });
}

/// \return "" if a and b agree in every element, dependency, branch, block and load,
/// otherwise a description of the first difference
std::string
ProgramDifference(const CoraProgram& a, const CoraProgram& b)
{
    std::ostringstream d;
    auto differ = [&d](const std::string& what) {
        d << what;
        return d.str();
    };
    if (a.GetName() != b.GetName())
    {
        return differ("name");
    }
    if (a.GetElements().size() != b.GetElements().size())
    {
        return differ("element count");
    }
    for (std::size_t i = 0; i < a.GetElements().size(); ++i)
    {
        const auto& x = a.GetElements()[i];
        const auto& y = b.GetElements()[i];
        if (x.name != y.name || x.key != y.key || x.entries != y.entries ||
            x.entryBytes != y.entryBytes || x.instructions != y.instructions ||
            x.locks != y.locks || x.lockAccessesPerPacket != y.lockAccessesPerPacket ||
            x.accesses.size() != y.accesses.size())
        {
            return differ("element " + x.name);
        }
        for (std::size_t k = 0; k < x.accesses.size(); ++k)
        {
            if (!(x.accesses[k].kind == y.accesses[k].kind) ||
                x.accesses[k].perPacket != y.accesses[k].perPacket)
            {
                return differ("access " + std::to_string(k) + " of element " + x.name);
            }
        }
    }
    if (a.GetDependencies().size() != b.GetDependencies().size())
    {
        return differ("dependency count");
    }
    for (std::size_t i = 0; i < a.GetDependencies().size(); ++i)
    {
        if (a.GetDependencies()[i].writer != b.GetDependencies()[i].writer ||
            a.GetDependencies()[i].reader != b.GetDependencies()[i].reader)
        {
            return differ("dependency " + std::to_string(i));
        }
    }
    if (a.GetBranches().size() != b.GetBranches().size())
    {
        return differ("branch count");
    }
    for (uint32_t i = 0; i < a.GetBranches().size(); ++i)
    {
        const auto& x = a.GetBranches()[i];
        const auto& y = b.GetBranches()[i];
        if (x.name != y.name || x.statelessInstructions != y.statelessInstructions ||
            x.elements != y.elements || a.GetBranchBlocks(i) != b.GetBranchBlocks(i))
        {
            return differ("branch " + x.name);
        }
    }
    if (a.GetBlocks().size() != b.GetBlocks().size())
    {
        return differ("block count");
    }
    for (std::size_t i = 0; i < a.GetBlocks().size(); ++i)
    {
        const auto& x = a.GetBlocks()[i];
        const auto& y = b.GetBlocks()[i];
        if (x.elements != y.elements || x.key != y.key || x.instructions != y.instructions ||
            x.memoryBytes != y.memoryBytes || x.bytesPerAggregate != y.bytesPerAggregate ||
            x.topologicalOrder != y.topologicalOrder)
        {
            return differ("block " + std::to_string(i));
        }
    }
    // Loads for every branch and every placement of the blocks (programs have <= 3 blocks).
    const std::size_t n = a.GetBlocks().size();
    for (uint32_t br = 0; br < a.GetBranches().size(); ++br)
    {
        for (uint32_t mask = 0; mask < (1U << n); ++mask)
        {
            std::vector<bool> nic(n);
            for (std::size_t k = 0; k < n; ++k)
            {
                nic[k] = ((mask >> k) & 1U) != 0;
            }
            const auto la = a.NicLoad(br, nic);
            const auto lb = b.NicLoad(br, nic);
            bool same = la.statelessInstructions == lb.statelessInstructions &&
                        la.distinctLocks == lb.distinctLocks &&
                        la.lockAccessesPerPacket == lb.lockAccessesPerPacket &&
                        la.accesses.size() == lb.accesses.size();
            for (std::size_t k = 0; same && k < la.accesses.size(); ++k)
            {
                same = la.accesses[k].kind == lb.accesses[k].kind &&
                       la.accesses[k].perPacket == lb.accesses[k].perPacket;
            }
            if (!same)
            {
                return differ("load of branch " + std::to_string(br) + " placement " +
                              std::to_string(mask));
            }
        }
    }
    return "";
}

const char* kValid = R"(# a comment line

program demo   # trailing comment
element Conn key=flow entries=1000 entry_bytes=16 instructions=300 access=EMEM/read/bulk/16:1
element Cnt key=dst_ip entries=8 entry_bytes=8 instructions=60 access=IMEM/write/atomic/8B:1.5 access=CLS/read/bulk/4:0.25
element Sketch key=global entries=1024 entry_bytes=4 instructions=200 locks=16 lock_accesses=2
depends Conn -> Cnt
branch main stateless=80 Conn Cnt
branch count stateless=10.5 Sketch
)";

TEST(CoraProgramFile, ParsesEveryField)
{
    const auto p = Parse(kValid);
    EXPECT_EQ(p.GetName(), "demo");
    ASSERT_TRUE(p.IsFinalized());
    ASSERT_EQ(p.GetElements().size(), 3U);
    const auto& cnt = p.GetElements()[1];
    EXPECT_EQ(cnt.name, "Cnt");
    EXPECT_EQ(cnt.key, CoraFlowKey::DST_IP);
    EXPECT_EQ(cnt.entries, 8U);
    EXPECT_EQ(cnt.entryBytes, 8U);
    EXPECT_DOUBLE_EQ(cnt.instructions, 60);
    ASSERT_EQ(cnt.accesses.size(), 2U);
    EXPECT_EQ(
        cnt.accesses[0].kind,
        (CoraAccessKind{CoraMemoryType::IMEM, CoraMemoryOp::WRITE, CoraAccessMode::ATOMIC, 8}));
    EXPECT_DOUBLE_EQ(cnt.accesses[0].perPacket, 1.5);
    EXPECT_EQ(cnt.accesses[1].kind,
              (CoraAccessKind{CoraMemoryType::CLS, CoraMemoryOp::READ, CoraAccessMode::BULK, 4}));
    EXPECT_DOUBLE_EQ(cnt.accesses[1].perPacket, 0.25);
    const auto& sketch = p.GetElements()[2];
    EXPECT_EQ(sketch.key, CoraFlowKey::GLOBAL);
    EXPECT_EQ(sketch.locks, 16U);
    EXPECT_DOUBLE_EQ(sketch.lockAccessesPerPacket, 2);
    EXPECT_EQ(p.GetElements()[0].locks, 0U);
    ASSERT_EQ(p.GetDependencies().size(), 1U);
    EXPECT_EQ(p.GetDependencies()[0].writer, "Conn");
    EXPECT_EQ(p.GetDependencies()[0].reader, "Cnt");
    ASSERT_EQ(p.GetBranches().size(), 2U);
    EXPECT_DOUBLE_EQ(p.GetBranches()[1].statelessInstructions, 10.5);
    EXPECT_EQ(p.GetBranches()[0].elements, (std::vector<std::string>{"Conn", "Cnt"}));
    EXPECT_EQ(p.GetBlocks().size(), 3U);
}

TEST(CoraProgramFile, LineErrorsNameFileAndLine)
{
    const std::string head = "program p\n"; // line 1
    const std::string elem = "element a key=flow entries=1 entry_bytes=4 instructions=1\n"; // 2

    struct Case
    {
        std::string text;
        std::vector<const char*> parts;
    };

    const std::vector<Case> cases{
        {"# c\n\nelemnt a\n", {"t.cora:3:", "unknown directive 'elemnt'"}},
        {"element a key=flow\n", {"t.cora:1:", "before the 'program' line"}},
        {head + "program q\n", {"t.cora:2:", "duplicate 'program'"}},
        {"program\n", {"t.cora:1:", "program <name>"}},
        {head + "element a key=flow entries=1 entry_bytes=4\n",
         {"t.cora:2:", "'a'", "missing field 'instructions'"}},
        {head + "element a key=flow key=flow entries=1 entry_bytes=4 instructions=1\n",
         {"t.cora:2:", "duplicate field 'key'"}},
        {head + "element a colour=red key=flow entries=1 entry_bytes=4 instructions=1\n",
         {"t.cora:2:", "unknown field 'colour'"}},
        {head + "element a key=flow entries\n", {"t.cora:2:", "key=value", "'entries'"}},
        {head + "element key=flow entries=1\n", {"t.cora:2:", "needs a name"}},
        {head + "element a key=port entries=1 entry_bytes=4 instructions=1\n",
         {"t.cora:2:", "unknown key 'port'", "src_ip"}},
        {head + "element a key=flow entries=1k entry_bytes=4 instructions=1\n",
         {"t.cora:2:", "entries '1k'"}},
        {head + "element a key=flow entries=-1 entry_bytes=4 instructions=1\n",
         {"t.cora:2:", "entries '-1'"}},
        {head + "element a key=flow entries=0 entry_bytes=4 instructions=1\n",
         {"t.cora:2:", "entries must be >= 1"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=nan\n",
         {"t.cora:2:", "instructions 'nan'"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 "
                "access=DRAM/read/bulk/4:1\n",
         {"t.cora:2:", "unknown memory type 'DRAM'", "EMEM"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 "
                "access=EMEM/read/bulk/6:1\n",
         {"t.cora:2:", "width 6", "multiple of 4"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 "
                "access=EMEM/read/bulk/132:1\n",
         {"t.cora:2:", "width 132"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 "
                "access=EMEM/load/bulk/4:1\n",
         {"t.cora:2:", "unknown operation 'load'"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 "
                "access=EMEM/read/burst/4:1\n",
         {"t.cora:2:", "unknown mode 'burst'"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 "
                "access=EMEM/read/bulk/4\n",
         {"t.cora:2:", "access 'EMEM/read/bulk/4'"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 "
                "access=EMEM/read/bulk/4:x\n",
         {"t.cora:2:", "access count 'x'"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 locks=4\n",
         {"t.cora:2:", "locks and lock_accesses"}},
        {head + elem + elem, {"t.cora:3:", "'a'", "duplicate element"}},
        {head + elem + "depends a -> b\n", {"t.cora:3:", "unknown element 'b'"}},
        {head + elem + "depends a b\n", {"t.cora:3:", "depends <writer> -> <reader>"}},
        {head + elem + "branch x stateless=1 a b\n",
         {"t.cora:3:", "branch 'x'", "unknown element 'b'"}},
        {head + elem + "branch x a\n", {"t.cora:3:", "missing field 'stateless'"}},
        {head + elem + "branch x stateless=1\n", {"t.cora:3:", "lists no element"}},
        {head + elem + "branch x stateless=-2 a\n", {"t.cora:3:", "stateless '-2'"}},
        {head + elem + "branch x stateless=1 speed=2 a\n", {"t.cora:3:", "unknown field 'speed'"}},
        {head + elem + "branch x stateless=1 a\nbranch x stateless=1 a\n",
         {"t.cora:4:", "branch 'x'", "duplicate"}},
    };
    for (const auto& c : cases)
    {
        const auto msg = ParseError(c.text);
        bool all = !msg.empty();
        for (const char* part : c.parts)
        {
            all = all && msg.find(part) != std::string::npos;
        }
        EXPECT_TRUE(all) << "input:\n" << c.text << "message: " << msg;
    }
}

TEST(CoraProgramFile, WholeProgramErrorsNameTheFile)
{
    EXPECT_EQ(ParseError("# nothing\n"), "t.cora: no 'program <name>' line");
    const auto noBranch =
        ParseError("program p\nelement a key=flow entries=1 entry_bytes=4 instructions=1\n");
    EXPECT_TRUE(Contains(noBranch, {"t.cora: ", "'p'", "no branch"})) << noBranch;
    EXPECT_EQ(noBranch.find("t.cora:3"), std::string::npos) << noBranch;
    const auto noElement = ParseError("program p\n");
    EXPECT_TRUE(Contains(noElement, {"t.cora: ", "no state element"})) << noElement;
}

TEST(CoraProgramFile, MissingFileIsNamed)
{
    const auto msg = ErrorOf([] { CoraLoadProgramFile("/nonexistent/dir/x.cora"); });
    EXPECT_TRUE(Contains(msg, {"/nonexistent/dir/x.cora"})) << msg;
}

TEST(CoraProgramFile, LoadsFromDiskWithPathInMessages)
{
    const auto dir = std::filesystem::temp_directory_path() /
                     ("cora-program-file-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto good = (dir / "good.cora").string();
    std::ofstream(good) << kValid;
    EXPECT_EQ(CoraLoadProgramFile(good).GetName(), "demo");
    const auto bad = (dir / "bad.cora").string();
    std::ofstream(bad)
        << "program p\n\n\nelement a key=flow entries=x entry_bytes=4 instructions=1\n";
    const auto msg = ErrorOf([&bad] { CoraLoadProgramFile(bad); });
    EXPECT_TRUE(Contains(msg, {(bad + ":4:").c_str(), "entries"})) << msg;
    std::filesystem::remove_all(dir);
}

TEST(CoraProgramFile, DataPathFollowsTheEnvironment)
{
    const char* old = std::getenv("PRESTO_DATA_DIR");
    const std::string saved = old ? old : "";
    setenv("PRESTO_DATA_DIR", "/some/dir", 1);
    EXPECT_EQ(CoraProgramDataPath("nat"), "/some/dir/cora/nat.cora");
    if (old)
    {
        setenv("PRESTO_DATA_DIR", saved.c_str(), 1);
    }
    else
    {
        unsetenv("PRESTO_DATA_DIR");
    }
}

TEST(CoraProgramFile, ShippedFilesEqualTheBuiltInPrograms)
{
    for (const char* name : {"tcp", "l4lb-http", "l4lb", "count-min", "nat"})
    {
        const auto path = CoraProgramDataPath(name);
        ASSERT_TRUE(std::filesystem::exists(path)) << path << " (set PRESTO_DATA_DIR)";
        EXPECT_EQ(ProgramDifference(CoraLoadProgramFile(path), CoraPrograms::ByName(name)), "")
            << path;
    }
}

TEST(CoraProgramFile, EqualityCheckSeesADifference)
{
    // The comparison above must be able to fail: one changed count is caught.
    std::string text = kValid;
    const auto a = Parse(text);
    text.replace(text.find("stateless=80"), 12, "stateless=81");
    const auto b = Parse(text);
    EXPECT_EQ(ProgramDifference(a, a), "");
    EXPECT_EQ(ProgramDifference(a, b), "branch main");
    // A count that changes only a load (not a block) is caught too.
    std::string t2 = kValid;
    t2.replace(t2.find("CLS/read/bulk/4:0.25"), 20, "CLS/read/bulk/4:0.50");
    EXPECT_EQ(ProgramDifference(a, Parse(t2)), "access 1 of element Cnt");
}

TEST(CoraProgramFile, AbsurdCountsAreRefusedAtTheirLine)
{
    // locks=2147483648 made the allocator keep one rate per lock (17 GB); stateless=1e12
    // made the executor's busy-time record grow by one entry per 10 us bucket. Every count
    // is now checked against CoraProgramLimits where it is read.
    const std::string head = "program p\n";
    const std::string elem = "element a key=flow entries=1 entry_bytes=4 instructions=1\n";

    struct Case
    {
        std::string text;
        std::vector<const char*> parts;
    };

    const std::vector<Case> cases{
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 locks=2147483648 "
                "lock_accesses=1\n",
         {"t.cora:2:", "'a'", "2147483648 locks, more than 1048576"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 locks=600000 "
                "lock_accesses=1\n"
                "element b key=flow entries=1 entry_bytes=4 instructions=1 locks=600000 "
                "lock_accesses=1\n",
         {"t.cora:3:", "'b'", "1200000 locks"}},
        {head + elem + "branch x stateless=1e12 a\n",
         {"t.cora:3:", "'x'", "stateless instructions", "1e+07", "1e+12"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1e300\n",
         {"t.cora:2:", "instructions must be finite and in [0, 1e+07]"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 "
                "access=EMEM/read/bulk/4:1e9\n",
         {"t.cora:2:", "count 1e+09 must be finite and in [0, 1e+06]"}},
        {head + "element a key=flow entries=1 entry_bytes=4 instructions=1 locks=1 "
                "lock_accesses=1e7\n",
         {"t.cora:2:", "lock accesses per packet"}},
        {head + "element a key=flow entries=9999999999999999999 entry_bytes=4 instructions=1\n",
         {"t.cora:2:", "entries must be >= 1 and <= 2^33"}},
        {head + "element a key=flow entries=4294967295 entry_bytes=128 instructions=1\n",
         {"t.cora:2:", "4294967295 x 128 = 549755813760 bytes, more than 2^33 (8 GiB"}},
        {head + "element a key=flow entries=8589934593 entry_bytes=1 instructions=1\n",
         {"t.cora:2:", "entries must be >= 1 and <= 2^33"}},
        {head + "element a key=flow entries=1 entry_bytes=4294967295 instructions=1\n",
         {"t.cora:2:", "entry bytes must be >= 1 and <= 2^20"}},
        {"program " + std::string(65, 'n') + "\n", {"t.cora:1:", "1 to 64 characters"}},
        {"program caf\xe9\n", {"t.cora:1:", "caf\\xe9", "UTF-8"}},
        {head + "element " + std::string(3000, 'e') + " key=flow\n",
         {"t.cora:2:", "(3000 characters)"}},
        {head + std::string(5000, ' ') + "x\n",
         {"t.cora:2: line longer than 4096 characters, starting '    "}},
    };
    for (const auto& c : cases)
    {
        const auto msg = ParseError(c.text);
        bool all = !msg.empty();
        for (const char* part : c.parts)
        {
            all = all && msg.find(part) != std::string::npos;
        }
        EXPECT_TRUE(all) << "input:\n" << c.text.substr(0, 200) << "message: " << msg;
        EXPECT_LT(msg.size(), 300U) << msg;
    }
    // the limits themselves are accepted
    EXPECT_NO_THROW(Parse(head + "element a key=flow entries=8388608 entry_bytes=1024 "
                                 "instructions=1e7 access=EMEM/read/bulk/4:1e6 locks=1048576 "
                                 "lock_accesses=1e6\nbranch x stateless=1e7 a\n"));
}

TEST(CoraProgramFile, PipeIsReadOnce)
{
    // every CoraNetDevice loads its Program; a pipe gives its text to all of them
    const auto dir = std::filesystem::temp_directory_path() /
                     ("cora-program-pipe-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string fifo = (dir / "p.cora").string();
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&fifo] {
        std::ofstream out(fifo);
        out << kValid;
    });
    const auto first = CoraLoadProgramFile(fifo);
    writer.join();
    auto again = std::async(std::launch::async, [&fifo] { return CoraLoadProgramFile(fifo); });
    if (again.wait_for(std::chrono::seconds(5)) != std::future_status::ready)
    {
        std::ofstream unblock(fifo);
    }
    EXPECT_EQ(ProgramDifference(first, again.get()), "");
    std::filesystem::remove_all(dir);
}

} // namespace
} // namespace ns3
