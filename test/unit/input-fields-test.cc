/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Every field of every input file is read whole by WholeToken (issue 35): a NUL byte, hex,
// an exponent in an integer, a sign on an unsigned field or a huge value is refused with the
// file, the line and the field, instead of the leading part being used.

#include "input-error-matchers.h"

#include "ns3/cora-program-file.h"
#include "ns3/flow-file.h"
#include "ns3/flow-size-cdf.h"
#include "ns3/presto-classifier.h"
#include "ns3/topology-file.h"

#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::ErrorOf;

namespace
{

/// A text with a NUL byte where the marker "\\0" stands (a literal cannot hold one easily).
std::string
WithNul(std::string text)
{
    for (auto at = text.find("\\0"); at != std::string::npos; at = text.find("\\0"))
    {
        text.replace(at, 2, std::string(1, '\0'));
    }
    return text;
}

/// One refused input: its text and the pieces its message must hold.
struct Case
{
    std::string text;               //!< the input (\\0 marks a NUL byte)
    std::vector<std::string> parts; //!< expected in the message
};

/// Checks every case with parse (which throws), recording each message as a test property.
template <typename F>
void
ExpectRefused(const std::vector<Case>& cases, F&& parse)
{
    int n = 0;
    for (const auto& c : cases)
    {
        const std::string text = WithNul(c.text);
        const std::string msg = ErrorOf([&] { parse(text); });
        ASSERT_FALSE(msg.empty()) << "accepted: " << c.text;
        for (const auto& part : c.parts)
        {
            EXPECT_NE(msg.find(part), std::string::npos)
                << "input: " << c.text << "\nmessage: " << msg << "\nmissing: " << part;
        }
        EXPECT_LT(msg.size(), 400U) << msg;
        ::testing::Test::RecordProperty("message" + std::to_string(n++), msg);
    }
}

std::vector<FlowSpec>
Flows(const std::string& text)
{
    std::istringstream in(text);
    return ParseFlowFile(in, "f.txt", 4);
}

FlowSizeCdf
Cdf(const std::string& text)
{
    std::istringstream in(text);
    return FlowSizeCdf::Parse(in, "c.cdf");
}

CoraProgram
Cora(const std::string& text)
{
    std::istringstream in(text);
    return CoraParseProgram(in, "p.cora");
}

uint32_t
Rules(const std::string& text)
{
    PrestoClassifier c(4);
    std::istringstream in(text);
    return c.LoadRules(in, "r.rules");
}

FabricTopology
Topology(const std::string& text)
{
    return ParseTopologyText(text, "t.txt");
}

} // namespace

TEST(InputFields, FlowFile)
{
    const std::string one = "1\n0 1 3 100 ";
    ExpectRefused(
        {
            {one + "200\\01 0\n", {"f.txt', line 2: ", "size '200\\x001'", "holds a NUL byte"}},
            {one + "10 0.00\\00415046\n",
             {"f.txt', line 2: ", "start time '0.00\\x000415046'", "holds a NUL byte"}},
            {one + "10 0x10\n", {"line 2: ", "start time '0x10'", "not a decimal number"}},
            {"1e3\n0 1 3 100 10 0\n", {"line 1: ", "flow count '1e3'", "not a whole number"}},
            {one + "1e3 0\n", {"line 2: ", "size '1e3'", "not a whole number"}},
            {"1\n+0 1 3 100 10 0\n", {"line 2: ", "src '+0'", "has a sign"}},
            {"1\n0 1 3 0x50 10 0\n", {"line 2: ", "dport '0x50'", "not a whole number"}},
            {"99999999999999999999\n", {"line 1: ", "above the largest value, 4294967295"}},
            {one + "9007199254740993 0\n", {"line 2: ", "above the largest value"}},
            {one + "10 1000000.000000001\n", {"line 2: ", "beyond 1000000 s"}},
            {one + "10 1e7\n", {"line 2: ", "start time '1e7'", "beyond 1000000 s"}},
            {one + "10 nan\n", {"line 2: ", "start time 'nan'"}},
            {one + "10 0 \\0\n", {"line 2: ", "trailing garbage '\\x00'"}},
        },
        Flows);
    // still read: exact decimals, exponents, the limit itself
    const auto flows = Flows("3\n0 1 3 100 10 0.000415046\n0 1 3 100 10 1e-3\n"
                             "0 1 3 100 10 1000000\n");
    ASSERT_EQ(flows.size(), 3U);
    EXPECT_EQ(flows[0].startNs, 415046);
    EXPECT_EQ(flows[1].startNs, 1000000);
    EXPECT_EQ(flows[2].startNs, 1000000000000000);
}

TEST(InputFields, CdfFile)
{
    ExpectRefused(
        {
            {"100 0\n200\\01 1\n", {"c.cdf', line 2: ", "size '200\\x001'", "holds a NUL byte"}},
            {"100 0\n0x10 1\n", {"line 2: ", "size '0x10'", "not a decimal number"}},
            {"100 0\n200 0x1\n", {"line 2: ", "probability '0x1'", "not a decimal number"}},
            {"100 0\n200 1\\0\n", {"line 2: ", "probability '1\\x00'", "NUL"}},
            {"100 0\ninf 1\n", {"line 2: ", "size 'inf'"}},
            {"100 0\n1e999 1\n", {"line 2: ", "beyond the range of a double"}},
        },
        Cdf);
    EXPECT_NO_THROW(Cdf("1e2 0\n2.5e3 0.5\n1e4 1\n"));
}

TEST(InputFields, CoraProgram)
{
    const std::string head = "program p\nelement a key=flow ";
    const std::string rest = " instructions=1\nbranch b stateless=1 a\n";
    ExpectRefused(
        {
            {head + "entries=200\\01 entry_bytes=4" + rest,
             {"p.cora:2: ", "entries '200\\x001'", "holds a NUL byte"}},
            {head + "entries=4294967295 entry_bytes=128" + rest,
             {"p.cora:2: ", "'a'", "4294967295 x 128", "more than 2^33 (8 GiB"}},
            {head + "entries=8589934593 entry_bytes=1" + rest,
             {"p.cora:2: ", "entries must be >= 1 and <= 2^33"}},
            {head + "entries=1e3 entry_bytes=4" + rest,
             {"p.cora:2: ", "entries '1e3'", "not a whole number"}},
            {head + "entries=0x10 entry_bytes=4" + rest, {"p.cora:2: ", "entries '0x10'"}},
            {head + "entries=+1 entry_bytes=4" + rest, {"p.cora:2: ", "entries '+1'", "sign"}},
            {head + "entries=1 entry_bytes=99999999999" + rest,
             {"p.cora:2: ", "entry_bytes '99999999999'", "above the largest value"}},
            {head + "entries=1 entry_bytes=4 instructions=1 access=EMEM/read/bulk/64:0x10\n",
             {"p.cora:2: ", "access count '0x10'", "not a decimal number"}},
            {head + "entries=1 entry_bytes=4 instructions=1 access=EMEM/read/bulk/0x40:1\n",
             {"p.cora:2: ", "access width '0x40'", "not a whole number"}},
            {head + "entries=1 entry_bytes=4 instructions=1\\0 \n",
             {"p.cora:2: ", "instructions '1\\x00'", "NUL"}},
            {head + "entries=1 entry_bytes=4 instructions=1 locks=1e3 lock_accesses=1\n",
             {"p.cora:2: ", "locks '1e3'", "not a whole number"}},
            {head + "entries=1 entry_bytes=4 instructions=-0.5\n",
             {"p.cora:2: ", "instructions '-0.5'", "negative"}},
        },
        Cora);
    // per-packet counts are decimal numbers: a fraction or an exponent is the same value
    const CoraProgram p = Cora(head + "entries=8589934592 entry_bytes=1 instructions=1e3 " +
                               "access=EMEM/read/bulk/64:0.0625\nbranch b stateless=1 a\n");
    EXPECT_EQ(p.GetElements().at(0).instructions, 1000.0);
}

TEST(InputFields, ClassifierRules)
{
    ExpectRefused(
        {
            {"100 200\\01 dport=80\n", {"r.rules:1: ", "class '200\\x001'", "holds a NUL byte"}},
            {"0x10 1\n", {"r.rules:1: ", "priority '0x10'", "not a whole number"}},
            {"1e3 1\n", {"r.rules:1: ", "priority '1e3'"}},
            {"100 +1\n", {"r.rules:1: ", "class '+1'", "sign"}},
            {"# c\n100 1 dport=0x10\n", {"r.rules:2: ", "dport=0x10"}},
            {"100 1 dscp=1\\0\n", {"r.rules:1: ", "dscp=1\\x00"}},
            {"2147483648 1\n", {"r.rules:1: ", "above the largest value, 2147483647"}},
            {"default 99999999999\n", {"r.rules:1: ", "'default CLASS'", "above the largest"}},
        },
        Rules);
}

TEST(InputFields, TopologyFile)
{
    const std::string links = "0 2 10Gbps 1us 0\n1 2 10Gbps 1us 0\n";
    ExpectRefused(
        {
            {"3 1 2\n2\\01\n" + links, {"t.txt:2: ", "switch id '2\\x001'", "holds a NUL byte"}},
            {"1e3 1 2\n", {"t.txt:1: ", "node count '1e3'", "not a whole number"}},
            {"0x3 1 2\n", {"t.txt:1: ", "node count '0x3'"}},
            {"3 +1 2\n", {"t.txt:1: ", "switch count '+1'", "sign"}},
            {"3 1 99999999999999999999\n", {"t.txt:1: ", "link count", "above the largest"}},
            {"3 1 2\n2\n0 2 1.2.3Gbps 1us 0\n", {"t.txt:3: ", "link rate '1.2.3Gbps'"}},
            {"3 1 2\n2\n0 2 0x10Gbps 1us 0\n", {"t.txt:3: ", "link rate '0x10Gbps'"}},
            {"3 1 2\n2\n0 2 10 1us 0\n", {"t.txt:3: ", "link rate '10'", "unit"}},
            {"3 1 2\n2\n0 2 10Gbps 0x10us 0\n", {"t.txt:3: ", "link delay '0x10us'"}},
            {"3 1 2\n2\n0 2 10Gbps 2e9s 0\n", {"t.txt:3: ", "link delay '2e9s'", "beyond"}},
            {"3 1 2\n2\n0 2 10Gbps 1us 0x0\n", {"t.txt:3: ", "error rate '0x0'"}},
            {"presto-topology 1\nswitch s\\0x\n", {"t.txt:2: ", "node name 's\\x00x'", "NUL"}},
        },
        Topology);
    const auto t = Topology("3 1 2\n2\n0 2 2.5e1Gbps 1e3ns 0\n1 2 100Mb/s 0.001ms 1e-3\n");
    EXPECT_EQ(t.GetLinks()[0].rateBps, 25e9);
    EXPECT_EQ(t.GetLinks()[0].delayNs, 1000);
    EXPECT_EQ(t.GetLinks()[1].rateBps, 1e8);
    EXPECT_EQ(t.GetLinks()[1].delayNs, 1000);
}
