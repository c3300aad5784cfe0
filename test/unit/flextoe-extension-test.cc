/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/flextoe-extension.h"
#include "ns3/flextoe-pipeline.h"
#include "ns3/flextoe-profile.h"
#include "ns3/presto-input-error.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

/// A dotted IPv4 address as a 32-bit value.
uint32_t
Ip(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return (a << 24) | (b << 16) | (c << 8) | d;
}

/// A random TCP/UDP packet drawn from a few address and port pools, so that rules match often.
FlexToePacketView
RandomPacket(std::mt19937& rng)
{
    FlexToePacketView v;
    const uint32_t srcs[] = {Ip(10, 1, 2, 3), Ip(10, 1, 9, 9), Ip(10, 2, 0, 1), Ip(172, 16, 0, 5)};
    const uint32_t dsts[] = {Ip(192, 168, 1, 7), Ip(192, 168, 1, 8), Ip(10, 0, 0, 1)};
    v.srcIp = srcs[rng() % 4];
    v.dstIp = dsts[rng() % 3];
    v.srcPort = static_cast<uint16_t>(1024 + rng() % 100);
    v.dstPort = static_cast<uint16_t>(75 + rng() % 20); // 75..94
    v.protocol = (rng() % 4 == 0) ? 17 : 6;
    v.payloadBytes = rng() % 1500;
    return v;
}

/// Records the order in which modules run.
class Recorder : public FlexToeExtension
{
  public:
    Recorder(std::string name,
             FlexToeHook hook,
             double cycles,
             std::vector<std::string>& log,
             bool drop = false)
        : FlexToeExtension(std::move(name), hook, cycles),
          m_log(log),
          m_drop(drop)
    {
    }

    FlexToeVerdict Run(FlexToePacketView&) override
    {
        m_log.push_back(GetName());
        return m_drop ? FlexToeVerdict::DROP : FlexToeVerdict::PASS;
    }

  private:
    std::vector<std::string>& m_log;
    bool m_drop;
};

} // namespace

// Rules: allow tcp 10.1.2.0/24 (exception), drop tcp 10.1.0.0/16 dport 80-90,
// drop any protocol to 192.168.1.7. Every packet's verdict is checked against a direct
// evaluation of the same policy.
TEST(FlexToeFirewall, DropsExactlyMatchingPackets)
{
    FlexToeFirewall fw;
    fw.AddRule("allow tcp src 10.1.2.0/24");
    fw.AddRule("drop tcp src 10.1.0.0/16 dport 80-90");
    FlexToeFirewall::Rule r;
    r.dstIp = Ip(192, 168, 1, 7);
    r.dstMask = 0xffffffff;
    fw.AddRule(r);
    ASSERT_EQ(fw.GetRules().size(), 3u);

    std::mt19937 rng(11);
    uint32_t expectedDrops = 0;
    uint32_t passes = 0;
    for (int i = 0; i < 5000; ++i)
    {
        FlexToePacketView v = RandomPacket(rng);
        const bool tcp = v.protocol == 6;
        bool drop = false;
        if (tcp && (v.srcIp >> 8) == (Ip(10, 1, 2, 0) >> 8))
        {
            drop = false;
        }
        else if (tcp && (v.srcIp >> 16) == (Ip(10, 1, 0, 0) >> 16) && v.dstPort >= 80 &&
                 v.dstPort <= 90)
        {
            drop = true;
        }
        else if (v.dstIp == Ip(192, 168, 1, 7))
        {
            drop = true;
        }
        expectedDrops += drop ? 1 : 0;
        passes += drop ? 0 : 1;
        const FlexToePacketView before = v;
        EXPECT_EQ(fw.Run(v), drop ? FlexToeVerdict::DROP : FlexToeVerdict::PASS) << i;
        EXPECT_EQ(v.srcIp, before.srcIp); // a filter does not modify
    }
    EXPECT_GT(expectedDrops, 500u); // the random mix exercises both outcomes
    EXPECT_GT(passes, 500u);

    // Through a chain the module's counters agree.
    FlexToeExtensionChain chain;
    auto fw2 = std::make_shared<FlexToeFirewall>();
    fw2->AddRule("drop udp");
    chain.Add(fw2);
    uint32_t udp = 0;
    for (int i = 0; i < 1000; ++i)
    {
        FlexToePacketView v = RandomPacket(rng);
        udp += v.protocol == 17 ? 1 : 0;
        chain.Run(v);
    }
    EXPECT_EQ(fw2->GetDropped(), udp);
    EXPECT_EQ(fw2->GetSeen(), 1000u);
}

TEST(FlexToeFirewall, DefaultDropAndRuleCost)
{
    FlexToeFirewall fw(FlexToeHook::AFTER_PRE, 20, 4);
    fw.SetDefaultDrop(true);
    fw.AddRule("allow tcp dport 80");
    fw.AddRule("allow tcp dport 443");
    FlexToePacketView v;
    v.dstPort = 443;
    EXPECT_EQ(fw.Run(v), FlexToeVerdict::PASS);
    EXPECT_DOUBLE_EQ(fw.GetLastExtraCycles(), 8.0); // two rules scanned
    v.dstPort = 22;
    EXPECT_EQ(fw.Run(v), FlexToeVerdict::DROP);
    v.dstPort = 80;
    EXPECT_EQ(fw.Run(v), FlexToeVerdict::PASS);
    EXPECT_DOUBLE_EQ(fw.GetLastExtraCycles(), 4.0);
}

TEST(FlexToeFirewall, BadRulesError)
{
    FlexToeFirewall fw;
    auto err = [&fw](const std::string& t) {
        return ErrorOf([&] { fw.AddRule(t, "rules.txt:3"); });
    };
    EXPECT_TRUE(Contains(err("reject tcp"), {"rules.txt:3", "reject"}));
    EXPECT_TRUE(Contains(err("drop sctp"), {"rules.txt:3", "sctp"}));
    EXPECT_TRUE(Contains(err("drop tcp src 10.0.0/8"), {"10.0.0/8", "src"}));
    EXPECT_TRUE(Contains(err("drop tcp src 10.0.0.0/33"), {"10.0.0.0/33"}));
    EXPECT_TRUE(Contains(err("drop tcp dport 90-80"), {"90-80", "dport"}));
    EXPECT_TRUE(Contains(err("drop tcp dport 70000"), {"70000"}));
    EXPECT_TRUE(Contains(err("drop tcp dport"), {"no value"}));
    EXPECT_TRUE(Contains(err("drop tcp vlan 5"), {"unknown field", "vlan"}));
    EXPECT_TRUE(Contains(err("drop"), {"rules.txt:3"}));
    FlexToeFirewall::Rule r;
    r.srcPortLo = 10;
    r.srcPortHi = 9;
    EXPECT_TRUE(Contains(ErrorOf([&] { fw.AddRule(r); }), {"port range"}));
    EXPECT_TRUE(fw.GetRules().empty());
}

TEST(FlexToeVlanStrip, RemovesTagsAndCounts)
{
    FlexToeExtensionChain chain;
    auto vlan = std::make_shared<FlexToeVlanStrip>();
    chain.Add(vlan);
    uint32_t tagged = 0;
    for (uint32_t i = 0; i < 100; ++i)
    {
        FlexToePacketView v;
        v.vlanPresent = (i % 3 == 0);
        v.vlanId = v.vlanPresent ? static_cast<uint16_t>(100 + i) : 0;
        tagged += v.vlanPresent ? 1 : 0;
        const auto o = chain.Run(v);
        EXPECT_FALSE(v.vlanPresent);
        EXPECT_EQ(v.vlanId, 0);
        EXPECT_EQ(o.verdict, (i % 3 == 0) ? FlexToeVerdict::MODIFIED : FlexToeVerdict::PASS);
    }
    EXPECT_EQ(vlan->GetStripped(), tagged);
    EXPECT_EQ(vlan->GetModified(), tagged);
    EXPECT_EQ(vlan->GetSeen(), 100u);
}

TEST(FlexToeTcpTrace, CountersEqualSegmentsFed)
{
    FlexToeTcpTrace trace(FlexToeHook::AFTER_PRE, 30, 3);
    std::mt19937 rng(5);

    struct Expect
    {
        uint64_t segs{0}, bytes{0}, syn{0}, fin{0}, ack{0}, psh{0};
        uint32_t lastSeq{0};
        uint32_t firstSeq{0};
    };

    std::map<int, Expect> exp;
    for (int i = 0; i < 3000; ++i)
    {
        const int c = static_cast<int>(rng() % 3);
        FlexToePacketView v;
        v.srcIp = Ip(10, 0, 0, 1 + c);
        v.dstIp = Ip(10, 0, 1, 1);
        v.srcPort = static_cast<uint16_t>(5000 + c);
        v.dstPort = 80;
        v.payloadBytes = rng() % 1449;
        v.seq = rng();
        v.tcpFlags = static_cast<uint8_t>(rng() & 0x1f);
        Expect& e = exp[c];
        if (e.segs == 0)
        {
            e.firstSeq = v.seq;
        }
        ++e.segs;
        e.bytes += v.payloadBytes;
        e.syn += (v.tcpFlags & FlexToeTcpFlags::SYN) ? 1 : 0;
        e.fin += (v.tcpFlags & FlexToeTcpFlags::FIN) ? 1 : 0;
        e.ack += (v.tcpFlags & FlexToeTcpFlags::ACK) ? 1 : 0;
        e.psh += (v.tcpFlags & FlexToeTcpFlags::PSH) ? 1 : 0;
        e.lastSeq = v.seq;
        EXPECT_EQ(trace.Run(v), FlexToeVerdict::PASS);
    }
    ASSERT_EQ(trace.GetConnectionCount(), 3u);
    for (const auto& [c, e] : exp)
    {
        const FlexToeTcpTrace::Key k{Ip(10, 0, 0, 1 + c),
                                     Ip(10, 0, 1, 1),
                                     static_cast<uint16_t>(5000 + c),
                                     80};
        const auto* got = trace.Get(k);
        ASSERT_NE(got, nullptr);
        EXPECT_EQ(got->segments, e.segs);
        EXPECT_EQ(got->bytes, e.bytes);
        EXPECT_EQ(got->syn, e.syn);
        EXPECT_EQ(got->fin, e.fin);
        EXPECT_EQ(got->ack, e.ack);
        EXPECT_EQ(got->psh, e.psh);
        EXPECT_EQ(got->firstSeq, e.firstSeq);
        EXPECT_EQ(got->lastSeq, e.lastSeq);
    }
    // The reverse direction is another connection; the table is full (3), so it is untracked.
    FlexToePacketView rev;
    rev.srcIp = Ip(10, 0, 1, 1);
    rev.dstIp = Ip(10, 0, 0, 1);
    rev.srcPort = 80;
    rev.dstPort = 5000;
    trace.Run(rev);
    EXPECT_EQ(trace.GetConnectionCount(), 3u);
    EXPECT_EQ(trace.GetUntracked(), 1u);
    // Non-TCP is ignored.
    FlexToePacketView udp = rev;
    udp.protocol = 17;
    trace.Run(udp);
    EXPECT_EQ(trace.GetUntracked(), 1u);
}

// Modules run by hook point, then in the order added; a drop stops the chain; cycles are
// charged to the stage of each hook.
TEST(FlexToeExtensionChain, OrderCostAndDrop)
{
    std::vector<std::string> log;
    FlexToeExtensionChain chain;
    chain.Add(std::make_shared<Recorder>("post", FlexToeHook::BEFORE_POST, 7, log));
    chain.Add(std::make_shared<Recorder>("proto", FlexToeHook::PROTOCOL, 5, log));
    chain.Add(std::make_shared<Recorder>("ingress1", FlexToeHook::INGRESS, 3, log));
    chain.Add(std::make_shared<Recorder>("after-pre", FlexToeHook::AFTER_PRE, 2, log));
    chain.Add(std::make_shared<Recorder>("ingress2", FlexToeHook::INGRESS, 1, log));
    FlexToePacketView v;
    auto o = chain.Run(v);
    EXPECT_EQ(log,
              (std::vector<std::string>{"ingress1", "ingress2", "after-pre", "proto", "post"}));
    EXPECT_EQ(o.verdict, FlexToeVerdict::PASS);
    EXPECT_EQ(o.dropStage, FLEXTOE_STAGES);
    EXPECT_DOUBLE_EQ(o.cycles[static_cast<std::size_t>(FlexToeStage::PRE)], 6.0);
    EXPECT_DOUBLE_EQ(o.cycles[static_cast<std::size_t>(FlexToeStage::PROTOCOL)], 5.0);
    EXPECT_DOUBLE_EQ(o.cycles[static_cast<std::size_t>(FlexToeStage::POST)], 7.0);

    log.clear();
    auto dropper = std::make_shared<Recorder>("dropper", FlexToeHook::PROTOCOL, 11, log, true);
    chain.Add(dropper);
    o = chain.Run(v);
    EXPECT_EQ(log,
              (std::vector<std::string>{"ingress1", "ingress2", "after-pre", "proto", "dropper"}));
    EXPECT_EQ(o.verdict, FlexToeVerdict::DROP);
    EXPECT_EQ(o.dropStage, static_cast<std::size_t>(FlexToeStage::PROTOCOL));
    EXPECT_EQ(o.droppedBy, dropper.get());
    EXPECT_DOUBLE_EQ(o.cycles[static_cast<std::size_t>(FlexToeStage::PROTOCOL)], 16.0);
    EXPECT_DOUBLE_EQ(o.cycles[static_cast<std::size_t>(FlexToeStage::POST)], 0.0);

    EXPECT_TRUE(Contains(ErrorOf([&] { chain.Add(nullptr); }), {"null"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { Recorder bad("x", FlexToeHook::INGRESS, -1, log); }),
                         {"'x'", "cycles"}));
}

// End to end with the pipeline: firewall drops are counted at pre-processing, passing
// packets carry the modules' cycles.
TEST(FlexToeExtensionChain, ProcessThroughPipeline)
{
    FlexToePipeline p(FlexToeProfile::Get("agilio-cx40"));
    FlexToeExtensionChain chain;
    auto fw = std::make_shared<FlexToeFirewall>(FlexToeHook::AFTER_PRE, 20, 0);
    fw->AddRule("drop tcp dport 81");
    auto trace = std::make_shared<FlexToeTcpTrace>(FlexToeHook::BEFORE_POST, 30);
    chain.Add(fw);
    chain.Add(trace);
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < 1000; ++i)
    {
        FlexToePacketView v;
        v.dstPort = static_cast<uint16_t>(80 + i % 4);
        v.payloadBytes = 100;
        const FlexToeResult r = chain.Process(p, i * 1000ull, i, v);
        if (v.dstPort == 81)
        {
            ++dropped;
            EXPECT_TRUE(r.dropped);
            EXPECT_EQ(r.reason, FlexToeDropReason::EXTENSION);
            EXPECT_EQ(r.dropStage, FlexToeStage::PRE);
        }
        else
        {
            EXPECT_FALSE(r.dropped);
        }
    }
    EXPECT_EQ(p.GetStats(FlexToeStage::PRE).extensionDrops, dropped);
    EXPECT_EQ(p.GetStats(FlexToeStage::SEQUENCER).packets, 1000u - dropped);
    EXPECT_DOUBLE_EQ(p.GetStats(FlexToeStage::PRE).extensionCycles, 20.0 * 1000);
    EXPECT_DOUBLE_EQ(p.GetStats(FlexToeStage::POST).extensionCycles, 30.0 * (1000 - dropped));
    EXPECT_EQ(trace->GetSeen(), 1000u - dropped);
}
