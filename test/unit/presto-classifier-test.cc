/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/presto-classifier.h"
#include "ns3/presto-input-error.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <future>
#include <gtest/gtest.h>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

/// A host-order IPv4 address.
uint32_t
Ip(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return (a << 24) | (b << 16) | (c << 8) | d;
}

/// A flow key.
PrestoFlowKey
Flow(uint32_t src, uint32_t dst, uint8_t proto, uint16_t sport, uint16_t dport, uint8_t dscp)
{
    PrestoFlowKey k;
    k.src = src;
    k.dst = dst;
    k.protocol = proto;
    k.srcPort = sport;
    k.dstPort = dport;
    k.dscp = dscp;
    return k;
}

/// Load rules from a string.
uint32_t
Load(PrestoClassifier& c, const std::string& text, const std::string& name = "rules.txt")
{
    std::istringstream in(text);
    return c.LoadRules(in, name);
}

/// The reference: scan every rule, the highest priority wins, the earliest among equals.
int64_t
BruteForce(const std::vector<PrestoClassRule>& rules, const PrestoFlowKey& k)
{
    int64_t best = -1;
    for (size_t i = 0; i < rules.size(); ++i)
    {
        const PrestoClassRule& r = rules[i];
        const bool match = (k.src & r.srcMask) == r.src && (k.dst & r.dstMask) == r.dst &&
                           (r.anyProtocol || k.protocol == r.protocol) &&
                           r.srcPortLo <= k.srcPort && k.srcPort <= r.srcPortHi &&
                           r.dstPortLo <= k.dstPort && k.dstPort <= r.dstPortHi &&
                           (r.anyDscp || k.dscp == r.dscp);
        if (match && (best < 0 || r.priority > rules[best].priority))
        {
            best = static_cast<int64_t>(i);
        }
    }
    return best;
}

} // namespace

TEST(PrestoClassifier, MatchesFields)
{
    PrestoClassifier c(4);
    EXPECT_EQ(Load(c,
                   "# latency-sensitive RPCs get the high-fidelity pipeline\n"
                   "100 2 src=10.0.0.0/8 dst=any sport=any dport=5000-5100 dscp=46\n"
                   "\n"
                   "50 1 proto=udp   # UDP never reorders much here\n"
                   "40 3 dst=192.168.1.7 proto=tcp sport=80\n"),
              3u);
    EXPECT_EQ(c.GetRuleCount(), 3u);
    int64_t rule = -2;
    EXPECT_EQ(c.Classify(Flow(Ip(10, 1, 2, 3), Ip(1, 1, 1, 1), 6, 1234, 5050, 46), rule), 2u);
    EXPECT_EQ(rule, 0);
    // Each field of rule 0 can make it miss.
    EXPECT_EQ(c.Classify(Flow(Ip(11, 1, 2, 3), Ip(1, 1, 1, 1), 6, 1234, 5050, 46)), 0u);
    EXPECT_EQ(c.Classify(Flow(Ip(10, 1, 2, 3), Ip(1, 1, 1, 1), 6, 1234, 5101, 46)), 0u);
    EXPECT_EQ(c.Classify(Flow(Ip(10, 1, 2, 3), Ip(1, 1, 1, 1), 6, 1234, 4999, 46)), 0u);
    EXPECT_EQ(c.Classify(Flow(Ip(10, 1, 2, 3), Ip(1, 1, 1, 1), 6, 1234, 5000, 45)), 0u);
    EXPECT_EQ(c.Classify(Flow(Ip(10, 255, 255, 255), Ip(0, 0, 0, 0), 17, 0, 5100, 46)), 2u);
    EXPECT_EQ(c.Classify(Flow(Ip(9, 0, 0, 0), Ip(0, 0, 0, 0), 17, 0, 0, 0), rule), 1u);
    EXPECT_EQ(rule, 1);
    EXPECT_EQ(c.Classify(Flow(Ip(9, 0, 0, 0), Ip(192, 168, 1, 7), 6, 80, 9, 0), rule), 3u);
    EXPECT_EQ(rule, 2);
    EXPECT_EQ(c.Classify(Flow(Ip(9, 0, 0, 0), Ip(192, 168, 1, 8), 6, 80, 9, 0), rule), 0u);
    EXPECT_EQ(rule, -1);
    EXPECT_EQ(c.Classify(Flow(Ip(9, 0, 0, 0), Ip(192, 168, 1, 7), 6, 81, 9, 0)), 0u);
    EXPECT_EQ(c.GetRuleHits(0), 2u);
    EXPECT_EQ(c.GetRuleHits(2), 1u);
    const RmtResourceReport rep = c.GetResourceReport();
    EXPECT_EQ(rep.stagesUsed, 1u);
    ASSERT_EQ(rep.tables.size(), 1u);
    EXPECT_EQ(rep.tables[0].entries, 3u);
    EXPECT_EQ(rep.tables[0].match, "ternary,ternary,ternary,range,range,ternary");
}

TEST(PrestoClassifier, PriorityAndDefault)
{
    PrestoClassifier c(3, 1);
    const PrestoFlowKey f = Flow(Ip(10, 0, 0, 5), Ip(10, 0, 1, 9), 6, 40000, 443, 0);
    EXPECT_EQ(c.Classify(f), 1u); // no rules: the default class
    Load(c, "5 0 dst=10.0.0.0/16\n");
    EXPECT_EQ(c.Classify(f), 0u);
    Load(c, "9 2 dst=10.0.1.0/24 dport=443\n"); // added later, but higher priority
    EXPECT_EQ(c.Classify(f), 2u);
    Load(c, "9 0 src=10.0.0.0/24\n"); // same priority as the previous rule: the earlier wins
    EXPECT_EQ(c.Classify(f), 2u);
    Load(c, "-3 1 dport=443\n");
    EXPECT_EQ(c.Classify(f), 2u);
    EXPECT_EQ(c.Classify(Flow(Ip(1, 0, 0, 5), Ip(2, 0, 1, 9), 6, 1, 443, 0)), 1u);
    EXPECT_EQ(c.Classify(Flow(Ip(1, 0, 0, 5), Ip(2, 0, 1, 9), 6, 1, 444, 0)), 1u);
    Load(c, "default 2\n");
    EXPECT_EQ(c.GetDefaultClass(), 2u);
    EXPECT_EQ(c.Classify(Flow(Ip(1, 0, 0, 5), Ip(2, 0, 1, 9), 6, 1, 444, 0)), 2u);
    EXPECT_EQ(c.Classify(Flow(Ip(1, 0, 0, 5), Ip(2, 0, 1, 9), 6, 1, 443, 0)), 1u);
}

TEST(PrestoClassifier, AgreesWithBruteForce)
{
    std::mt19937 rng(99);
    auto uni = [&rng](uint32_t lo, uint32_t hi) {
        return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
    };
    PrestoClassifier c(5, 4, 512);
    // Rules over a small address and port space so that they overlap a lot.
    for (int i = 0; i < 200; ++i)
    {
        PrestoClassRule r;
        r.priority = static_cast<int32_t>(uni(0, 20)) - 5;
        r.classIndex = uni(0, 4);
        const uint32_t sl = uni(0, 3) * 8;
        r.srcMask = sl == 0 ? 0 : ~0u << (32 - sl);
        r.src = Ip(10, uni(0, 3), uni(0, 3), uni(0, 3)) & r.srcMask;
        const uint32_t dl = uni(0, 32);
        r.dstMask = dl == 0 ? 0 : ~0u << (32 - dl);
        r.dst = Ip(10, uni(0, 1), uni(0, 3), uni(0, 7)) & r.dstMask;
        r.anyProtocol = uni(0, 1) == 0;
        r.protocol = uni(0, 1) ? 6 : 17;
        r.srcPortLo = static_cast<uint16_t>(uni(0, 100));
        r.srcPortHi = static_cast<uint16_t>(r.srcPortLo + uni(0, 100));
        if (uni(0, 2) == 0)
        {
            r.srcPortLo = 0;
            r.srcPortHi = 65535;
        }
        r.dstPortLo = static_cast<uint16_t>(uni(0, 100));
        r.dstPortHi = static_cast<uint16_t>(r.dstPortLo + uni(0, 100));
        r.anyDscp = uni(0, 1) == 0;
        r.dscp = static_cast<uint8_t>(uni(0, 3));
        // Through the text form: the round trip is part of what is tested.
        const std::string text = PrestoClassifier::RuleToString(r);
        const PrestoClassRule back = PrestoClassifier::ParseRule(text, "gen:" + std::to_string(i));
        EXPECT_EQ(PrestoClassifier::RuleToString(back), text);
        try
        {
            c.AddRule(back);
        }
        catch (const PrestoInputError& e)
        {
            // Only an identical key at the same priority may be refused.
            EXPECT_TRUE(Contains(e.what(), {"gen:"})) << e.what();
        }
    }
    std::vector<PrestoClassRule> rules;
    for (uint32_t i = 0; i < c.GetRuleCount(); ++i)
    {
        rules.push_back(c.GetRule(i));
    }
    ASSERT_GT(rules.size(), 150u);
    uint32_t matched = 0;
    for (int n = 0; n < 20000; ++n)
    {
        const PrestoFlowKey k = Flow(Ip(10, uni(0, 3), uni(0, 3), uni(0, 3)),
                                     Ip(10, uni(0, 1), uni(0, 3), uni(0, 7)),
                                     uni(0, 1) ? 6 : 17,
                                     static_cast<uint16_t>(uni(0, 250)),
                                     static_cast<uint16_t>(uni(0, 250)),
                                     static_cast<uint8_t>(uni(0, 3)));
        const int64_t want = BruteForce(rules, k);
        int64_t got = -2;
        const uint32_t cls = c.Classify(k, got);
        ASSERT_EQ(got, want) << "flow " << n;
        EXPECT_EQ(cls, want < 0 ? 4u : rules[want].classIndex);
        matched += want >= 0 ? 1 : 0;
    }
    EXPECT_GT(matched, 1000u); // both hits and misses were exercised
    EXPECT_LT(matched, 20000u);
}

TEST(PrestoClassifier, BadRulesNameTheLine)
{
    struct Case
    {
        const char* text;
        std::vector<const char*> parts; // (an initializer_list member would dangle)
    };

    const std::vector<Case> cases{
        {"100\n", {"r.txt:1", "priority class"}},
        {"\n# ok\nx 1\n", {"r.txt:3", "priority 'x'"}},
        {"1 -1\n", {"r.txt:1", "class '-1'"}},
        {"1 7\n", {"r.txt:1", "class 7 does not exist", "0..3"}},
        {"1 1 src=10.0.0.1/8\n", {"r.txt:1", "src=10.0.0.1/8", "beyond the /8", "10.0.0.0/8"}},
        {"1 1 dst=10.0.0/8\n", {"r.txt:1", "dst=10.0.0/8", "IPv4"}},
        {"1 1 dst=10.0.0.256\n", {"dst=10.0.0.256"}},
        {"1 1 dst=10.0.0.0/33\n", {"0..32"}},
        {"1 1 dport=5100-5000\n", {"r.txt:1", "reversed"}},
        {"1 1 dport=70000\n", {"dport=70000", "65535"}},
        {"1 1 sport=1-\n", {"sport=1-"}},
        {"1 1 dscp=64\n", {"dscp=64", "0..63"}},
        {"1 1 proto=sctpx\n", {"proto=sctpx"}},
        {"1 1 vlan=3\n", {"unknown key 'vlan'"}},
        {"1 1 dport\n", {"'dport' is not key=value"}},
        {"1 1 dport=1 dport=2\n", {"key 'dport' is given twice"}},
        {"default\n", {"r.txt:1", "default CLASS"}},
        {"default 9\n", {"r.txt:1", "default class 9"}},
        {"1 1 dport=80\n1 2 dport=80\n", {"r.txt:2", "refused"}},
        {"99999999999 1\n", {"priority"}},
    };
    for (const Case& tc : cases)
    {
        PrestoClassifier c(4);
        const std::string msg = ErrorOf([&] { Load(c, tc.text, "r.txt"); });
        bool all = !msg.empty();
        for (const char* p : tc.parts)
        {
            all = all && msg.find(p) != std::string::npos;
        }
        EXPECT_TRUE(all) << "input: " << tc.text << "message: " << msg;
    }
    // A full table and bad construction arguments.
    PrestoClassifier small(2, 0, 1);
    Load(small, "1 1 dport=1\n");
    EXPECT_TRUE(Contains(ErrorOf([&] { Load(small, "1 1 dport=2\n", "f"); }), {"f:1", "full"}));
    EXPECT_FALSE(ErrorOf([] { PrestoClassifier(0); }).empty());
    EXPECT_FALSE(ErrorOf([] { PrestoClassifier(2, 2); }).empty());
    EXPECT_FALSE(ErrorOf([] { PrestoClassifier(2, 0, 0); }).empty());
    PrestoClassRule nonPrefix;
    nonPrefix.srcMask = 0xff00ff00u;
    EXPECT_TRUE(Contains(ErrorOf([&] { small.AddRule(nonPrefix); }), {"prefix"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { small.LoadRulesFromFile("/nonexistent/rules.txt"); }),
                         {"/nonexistent/rules.txt", "cannot open"}));
}

TEST(PrestoClassifier, LoadsAFile)
{
    const std::string path = "/tmp/presto-classifier-test-" + std::to_string(::getpid()) + ".txt";
    {
        std::ofstream out(path);
        out << "default 1\n10 0 proto=tcp dport=80\n";
    }
    PrestoClassifier c(2);
    EXPECT_EQ(c.LoadRulesFromFile(path), 1u);
    std::remove(path.c_str());
    EXPECT_EQ(c.Classify(Flow(1, 2, 6, 3, 80, 0)), 0u);
    EXPECT_EQ(c.Classify(Flow(1, 2, 17, 3, 80, 0)), 1u);
    EXPECT_EQ(c.GetRule(0).origin, path + ":2");
}

TEST(PrestoClassifier, MessagesQuoteAShortExcerpt)
{
    PrestoClassifier c(3);
    const std::string longValue(5000, '9');
    const std::string line = ErrorOf([&] { Load(c, "1 1 dport=" + longValue + "\n", "r.txt"); });
    EXPECT_TRUE(
        Contains(line, {"r.txt:1: line longer than 4096 characters, starting '1 1 dport=9999"}))
        << line.substr(0, 300);
    EXPECT_LT(line.size(), 250U);
    const std::string value(3000, '9');
    const std::string msg = ErrorOf([&] { Load(c, "1 1 dport=" + value + "\n", "r.txt"); });
    EXPECT_TRUE(Contains(msg, {"r.txt:1:", "dport=9999", "(3000 characters)", "0..65535"}))
        << msg.substr(0, 300);
    EXPECT_LT(msg.size(), 250U);
    const std::string bin = ErrorOf([&] { Load(c, "1 1 proto=\x01\xfe\n", "r.txt"); });
    EXPECT_TRUE(Contains(bin, {"proto=\\x01\\xfe"})) << bin;
}

TEST(PrestoClassifier, RulesFromAPipeAreReadOnce)
{
    // --classRules=/dev/stdin: the experiment's check read the pipe, then every device read
    // it again and found it empty, silently running with no rules. The text is kept now.
    const std::string fifo = "/tmp/presto-classifier-fifo-" + std::to_string(::getpid());
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&fifo] {
        std::ofstream out(fifo);
        out << "default 1\n10 0 proto=tcp dport=80\n";
    });
    PrestoClassifier check(2);
    EXPECT_EQ(check.LoadRulesFromFile(fifo), 1u);
    writer.join();
    auto device = std::async(std::launch::async, [&fifo] {
        PrestoClassifier c(2);
        c.LoadRulesFromFile(fifo);
        return std::make_pair(c.GetRuleCount(), c.GetDefaultClass());
    });
    if (device.wait_for(std::chrono::seconds(5)) != std::future_status::ready)
    {
        std::ofstream unblock(fifo);
    }
    EXPECT_EQ(device.get(), std::make_pair(1u, 1u));
    std::remove(fifo.c_str());
}
