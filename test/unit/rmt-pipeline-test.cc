/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/presto-input-error.h"
#include "ns3/rmt-phv.h"
#include "ns3/rmt-pipeline.h"
#include "ns3/rmt-register.h"
#include "ns3/rmt-table.h"

#include <chrono>
#include <cstdint>
#include <gtest/gtest.h>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

/// A dotted IPv4 address as a 32-bit value.
uint64_t
Ip(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return (uint64_t{a} << 24) | (b << 16) | (c << 8) | d;
}

/// Handles of a 5-tuple in a PHV.
struct FiveTuple
{
    RmtFieldId src;   //!< IPv4 source
    RmtFieldId dst;   //!< IPv4 destination
    RmtFieldId sport; //!< source port
    RmtFieldId dport; //!< destination port
    RmtFieldId proto; //!< IP protocol
};

/// Declare the 5-tuple fields.
FiveTuple
DeclareFiveTuple(RmtPipeline& p)
{
    return FiveTuple{p.AddField("ipv4.src", 32),
                     p.AddField("ipv4.dst", 32),
                     p.AddField("l4.sport", 16),
                     p.AddField("l4.dport", 16),
                     p.AddField("ipv4.proto", 8)};
}

/// Fill a PHV with a 5-tuple (other fields 0).
void
SetPacket(RmtPhv& phv,
          const FiveTuple& f,
          uint64_t src,
          uint64_t dst,
          uint64_t sport,
          uint64_t dport,
          uint64_t proto)
{
    phv.Clear();
    phv.Set(f.src, src);
    phv.Set(f.dst, dst);
    phv.Set(f.sport, sport);
    phv.Set(f.dport, dport);
    phv.Set(f.proto, proto);
}

RmtPipelineConfig
SmallConfig(const std::string& name)
{
    RmtPipelineConfig c;
    c.name = name;
    c.stageBudget = 12;
    c.clockHz = 1e9;
    c.pipes = 1;
    c.maxPasses = 4;
    c.stageLatencyCycles = 4;
    c.parserCycles = 10;
    c.deparserCycles = 6;
    c.recirculationCycles = 40;
    return c;
}

} // namespace

// ---------------------------------------------------------------------------------------
// PHV

TEST(RmtPhv, FieldsAreDeclaredOnceAndKeepTheirWidth)
{
    RmtPipeline p(SmallConfig("phv"));
    const RmtFieldId a = p.AddField("a", 8);
    const RmtFieldId b = p.AddField("b", 64);
    EXPECT_NE(a, b);
    EXPECT_EQ(p.GetField("b"), b);
    EXPECT_TRUE(Contains(ErrorOf([&] { p.AddField("a", 4); }), {"'a'", "declared twice"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.AddField("c", 65); }), {"'c'", "65", "1 to 64"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.AddField("z", 0); }), {"'z'"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.GetField("nope"); }), {"'nope'"}));
    EXPECT_EQ(p.GetPhvLayout().GetTotalBits(), 72u);
    p.AddStage("s");
    p.Finalize();
    RmtPhv phv = p.NewPhv();
    phv.Set(a, 0x1ff); // an 8-bit container keeps the low 8 bits
    EXPECT_EQ(phv.Get(a), 0xffu);
    phv.Set(b, ~uint64_t{0});
    EXPECT_EQ(phv.Get(b), ~uint64_t{0});
    EXPECT_FALSE(ErrorOf([&] { phv.Get(7); }).empty());
    phv.Clear();
    EXPECT_EQ(phv.Get(b), 0u);
    EXPECT_TRUE(Contains(ErrorOf([&] { p.AddField("late", 8); }), {"finalised"}));
}

TEST(RmtPhv, APhvOfAnotherProgramIsRefused)
{
    RmtPipeline p1(SmallConfig("one"));
    RmtPipeline p2(SmallConfig("two"));
    p1.AddField("x", 8);
    p2.AddField("x", 8);
    p1.AddStage("s");
    p2.AddStage("s");
    p1.Finalize();
    p2.Finalize();
    RmtPhv phv = p1.NewPhv();
    EXPECT_TRUE(Contains(ErrorOf([&] { p2.Execute(phv); }), {"'two'", "NewPhv"}));
    EXPECT_NO_THROW(p1.Execute(phv));
}

// ---------------------------------------------------------------------------------------
// Matching

TEST(RmtTable, ExactMatchRunsTheEntryActionWithItsDataAndCountsHitsAndMisses)
{
    RmtPipeline p(SmallConfig("exact"));
    const FiveTuple f = DeclareFiveTuple(p);
    const RmtFieldId port = p.AddField("meta.port", 9);
    RmtStage& s = p.AddStage("fwd");
    RmtTable& t = s.AddTable("fwd", {{f.dst, RmtMatchKind::EXACT}}, 4);
    const RmtActionId setPort = t.AddAction(
        "set_port",
        [port](RmtActionContext& c) { c.Set(port, c.Param(0)); },
        1);
    t.SetDefaultAction(setPort, {511}); // miss: to the CPU port
    t.AddEntry({RmtMatch::Exact(Ip(10, 0, 0, 1))}, setPort, {3});
    t.AddEntry({RmtMatch::Exact(Ip(10, 0, 0, 2))}, "set_port", {7});
    p.Finalize();
    RmtPhv phv = p.NewPhv();

    SetPacket(phv, f, Ip(1, 1, 1, 1), Ip(10, 0, 0, 2), 1, 2, 6);
    RmtExecution r = p.Execute(phv);
    EXPECT_EQ(phv.Get(port), 7u);
    EXPECT_TRUE(r.Hit(t));
    ASSERT_EQ(r.hits.size(), 1u);
    EXPECT_EQ(r.hits[0].action, setPort);

    SetPacket(phv, f, Ip(1, 1, 1, 1), Ip(10, 0, 0, 1), 1, 2, 6);
    p.Execute(phv);
    EXPECT_EQ(phv.Get(port), 3u);

    SetPacket(phv, f, Ip(1, 1, 1, 1), Ip(10, 0, 0, 3), 1, 2, 6);
    r = p.Execute(phv);
    EXPECT_EQ(phv.Get(port), 511u);
    EXPECT_FALSE(r.Hit(t));
    EXPECT_TRUE(r.hits.empty());
    EXPECT_EQ(r.tablesApplied, 1u);

    EXPECT_EQ(t.GetApplied(), 3u);
    EXPECT_EQ(t.GetHits(), 2u);
    EXPECT_EQ(t.GetMisses(), 1u);
}

TEST(RmtTable, ExactIndexSurvivesManyInsertionsAndRemovals)
{
    RmtPipeline p(SmallConfig("churn"));
    const RmtFieldId a = p.AddField("a", 32);
    const RmtFieldId b = p.AddField("b", 8);
    const RmtFieldId out = p.AddField("out", 16);
    RmtTable& t = p.AddStage("s").AddTable("conn",
                                           {{a, RmtMatchKind::EXACT}, {b, RmtMatchKind::EXACT}},
                                           5000);
    t.AddAction(
        "id",
        [out](RmtActionContext& c) { c.Set(out, c.Param(0)); },
        1);
    t.SetDefaultAction("id", {0xffff});
    p.Finalize();
    std::vector<RmtEntryHandle> h(3000);
    for (uint64_t i = 0; i < 3000; ++i)
    {
        h[i] = t.AddEntry({RmtMatch::Exact(i * 2654435761u % 4294967291u), RmtMatch::Exact(i % 7)},
                          "id",
                          {i});
    }
    for (uint64_t i = 0; i < 3000; i += 3)
    {
        t.RemoveEntry(h[i]);
    }
    for (uint64_t i = 3000; i < 3500; ++i) // reuse freed slots
    {
        t.AddEntry({RmtMatch::Exact(i * 2654435761u % 4294967291u), RmtMatch::Exact(i % 7)},
                   "id",
                   {i});
    }
    EXPECT_EQ(t.GetEntryCount(), 3000u - 1000u + 500u);
    RmtPhv phv = p.NewPhv();
    for (uint64_t i = 0; i < 3500; ++i)
    {
        phv.Clear();
        phv.Set(a, i * 2654435761u % 4294967291u);
        phv.Set(b, i % 7);
        p.Execute(phv);
        const uint64_t expect = (i < 3000 && i % 3 == 0) ? 0xffff : i;
        ASSERT_EQ(phv.Get(out), expect) << "key " << i;
    }
    phv.Set(b, 1); // right a, wrong b
    phv.Set(a, 5 * 2654435761u % 4294967291u);
    p.Execute(phv);
    EXPECT_EQ(phv.Get(out), 0xffffu);
    t.ClearEntries();
    EXPECT_EQ(t.GetEntryCount(), 0u);
    EXPECT_FALSE(t.Lookup(phv).has_value());
}

TEST(RmtTable, SmallKeyTableMatchesAsTheHashedOneThroughChurn)
{
    // A one-field exact key of at most 8 bits is looked up directly, a wider one by hash: the
    // same entries must give the same matches after adds, removals, reuse and a clear.
    RmtPipeline p(SmallConfig("direct"));
    const RmtFieldId small = p.AddField("small", 8);
    const RmtFieldId wide = p.AddField("wide", 9);
    RmtStage& st = p.AddStage("s");
    RmtTable& direct = st.AddTable("direct", {{small, RmtMatchKind::EXACT}}, 256);
    RmtTable& hashed = st.AddTable("hashed", {{wide, RmtMatchKind::EXACT}}, 256);
    for (RmtTable* t : {&direct, &hashed})
    {
        t->AddAction(
            "hit",
            [](RmtActionContext&) {},
            0);
    }
    p.Finalize();
    std::vector<RmtEntryHandle> hd(256);
    std::vector<RmtEntryHandle> hh(256);
    for (uint64_t v = 0; v < 256; v += 2)
    {
        hd[v] = direct.AddEntry({RmtMatch::Exact(v)}, "hit", {});
        hh[v] = hashed.AddEntry({RmtMatch::Exact(v)}, "hit", {});
    }
    for (uint64_t v = 0; v < 256; v += 6)
    {
        direct.RemoveEntry(hd[v]);
        hashed.RemoveEntry(hh[v]);
    }
    for (uint64_t v = 1; v < 256; v += 10) // reuses the freed handles
    {
        hd[v] = direct.AddEntry({RmtMatch::Exact(v)}, "hit", {});
        hh[v] = hashed.AddEntry({RmtMatch::Exact(v)}, "hit", {});
    }
    RmtPhv phv = p.NewPhv();
    uint32_t hits = 0;
    for (uint64_t v = 0; v < 256; ++v)
    {
        phv.Clear();
        phv.Set(small, v);
        phv.Set(wide, v);
        const auto d = direct.Lookup(phv);
        const auto h = hashed.Lookup(phv);
        ASSERT_EQ(d.has_value(), h.has_value()) << "key " << v;
        const bool expected = (v % 2 == 0 && v % 6 != 0) || v % 10 == 1;
        ASSERT_EQ(d.has_value(), expected) << "key " << v;
        if (d)
        {
            ASSERT_EQ(*d, hd[v]) << "key " << v;
            ASSERT_EQ(*h, hh[v]) << "key " << v;
            ++hits;
        }
    }
    EXPECT_EQ(hits, direct.GetEntryCount());
    EXPECT_TRUE(Contains(ErrorOf([&] { direct.AddEntry({RmtMatch::Exact(2)}, "hit", {}); }),
                         {"'direct'", "same key"}));
    direct.ClearEntries();
    phv.Set(small, 2);
    EXPECT_FALSE(direct.Lookup(phv).has_value());
    hd[2] = direct.AddEntry({RmtMatch::Exact(2)}, "hit", {});
    EXPECT_EQ(direct.Lookup(phv), std::optional<RmtEntryHandle>(hd[2]));

    // a PHV of another program, whose field at that handle is wider, is refused by name
    RmtPipeline other(SmallConfig("other"));
    const RmtFieldId otherWide = other.AddField("wide", 32);
    other.AddStage("s").AddTable("t", {{otherWide, RmtMatchKind::EXACT}}, 1);
    other.Finalize();
    RmtPhv foreign = other.NewPhv();
    foreign.Set(otherWide, 1000);
    EXPECT_TRUE(
        Contains(ErrorOf([&] { direct.Lookup(foreign); }), {"'direct'", "another program"}));
}

TEST(RmtTable, TwoFieldSmallKeyTableMatchesAsTheHashedOne)
{
    // Two exact key fields of 3 and 5 bits (8 together) are looked up directly, 3 and 6 bits
    // by hash: the same entries, every (a, b) pair, the same matches after churn; (1, 0) and
    // (0, 1), (0, 8) and (1, 0) are different keys.
    RmtPipeline p(SmallConfig("direct2"));
    const RmtFieldId a = p.AddField("a", 3);
    const RmtFieldId b = p.AddField("b", 5);
    const RmtFieldId b6 = p.AddField("b6", 6);
    RmtStage& st = p.AddStage("s");
    RmtTable& direct =
        st.AddTable("direct", {{a, RmtMatchKind::EXACT}, {b, RmtMatchKind::EXACT}}, 256);
    RmtTable& hashed =
        st.AddTable("hashed", {{a, RmtMatchKind::EXACT}, {b6, RmtMatchKind::EXACT}}, 256);
    for (RmtTable* t : {&direct, &hashed})
    {
        t->AddAction(
            "hit",
            [](RmtActionContext&) {},
            0);
    }
    p.Finalize();
    std::vector<RmtEntryHandle> hd(256);
    std::vector<RmtEntryHandle> hh(256);
    auto add = [&](uint64_t key) {
        hd[key] =
            direct.AddEntry({RmtMatch::Exact(key / 32), RmtMatch::Exact(key % 32)}, "hit", {});
        hh[key] =
            hashed.AddEntry({RmtMatch::Exact(key / 32), RmtMatch::Exact(key % 32)}, "hit", {});
    };
    for (uint64_t key = 0; key < 256; key += 3)
    {
        add(key);
    }
    for (uint64_t key = 0; key < 256; key += 9)
    {
        direct.RemoveEntry(hd[key]);
        hashed.RemoveEntry(hh[key]);
    }
    for (uint64_t key = 1; key < 256; key += 7) // some already there: the same key is refused
    {
        if (key % 3 != 0 || key % 9 == 0)
        {
            add(key);
        }
    }
    RmtPhv phv = p.NewPhv();
    uint32_t hits = 0;
    for (uint64_t key = 0; key < 256; ++key)
    {
        phv.Clear();
        phv.Set(a, key / 32);
        phv.Set(b, key % 32);
        phv.Set(b6, key % 32);
        const auto d = direct.Lookup(phv);
        const auto h = hashed.Lookup(phv);
        const bool expected = (key % 3 == 0 && key % 9 != 0) || key % 7 == 1;
        ASSERT_EQ(d.has_value(), expected) << "key " << key;
        ASSERT_EQ(h.has_value(), expected) << "key " << key;
        if (d)
        {
            ASSERT_EQ(*d, hd[key]) << "key " << key;
            ASSERT_EQ(*h, hh[key]) << "key " << key;
            ++hits;
        }
    }
    EXPECT_EQ(hits, direct.GetEntryCount());
    EXPECT_EQ(hits, hashed.GetEntryCount());
}

TEST(RmtTable, TernaryEntriesAreOrderedByPriorityThenInsertion)
{
    RmtPipeline p(SmallConfig("ternary"));
    const FiveTuple f = DeclareFiveTuple(p);
    const RmtFieldId cls = p.AddField("meta.class", 8);
    RmtTable& t = p.AddStage("s").AddTable("cls", {{f.dst, RmtMatchKind::TERNARY}}, 8);
    t.AddAction(
        "set",
        [cls](RmtActionContext& c) { c.Set(cls, c.Param(0)); },
        1);
    // 10.0.0.0/8 at priority 1, 10.1.0.0/16 at priority 5, 10.1.2.0/24 at priority 3.
    t.AddEntry({RmtMatch::Ternary(Ip(10, 0, 0, 0), 0xff000000)}, "set", {1}, 1);
    const RmtEntryHandle h16 =
        t.AddEntry({RmtMatch::Ternary(Ip(10, 1, 0, 0), 0xffff0000)}, "set", {2}, 5);
    t.AddEntry({RmtMatch::Ternary(Ip(10, 1, 2, 0), 0xffffff00)}, "set", {3}, 3);
    // Same key as the /8 but a lower priority, then an equal-priority overlap added later.
    t.AddEntry({RmtMatch::Ternary(Ip(10, 0, 0, 0), 0xff000000)}, "set", {4}, 0);
    t.AddEntry({RmtMatch::Ternary(Ip(10, 9, 0, 0), 0xffff0000)}, "set", {5}, 1);
    p.Finalize();
    RmtPhv phv = p.NewPhv();
    auto classOf = [&](uint64_t dst) {
        SetPacket(phv, f, 0, dst, 0, 0, 0);
        p.Execute(phv);
        return phv.Get(cls);
    };
    EXPECT_EQ(classOf(Ip(10, 1, 2, 3)), 2u); // priority 5 beats the more specific /24 (3)
    EXPECT_EQ(classOf(Ip(10, 7, 7, 7)), 1u); // only /8 (priority 1 beats priority 0)
    EXPECT_EQ(classOf(Ip(10, 9, 1, 1)), 1u); // /8 and 10.9/16 both priority 1: earlier wins
    EXPECT_EQ(classOf(Ip(11, 1, 2, 3)), 0u); // miss: NoAction leaves it 0
    SetPacket(phv, f, 0, Ip(10, 1, 2, 3), 0, 0, 0);
    EXPECT_EQ(t.Lookup(phv), std::optional<RmtEntryHandle>(h16));
    t.RemoveEntry(h16);
    EXPECT_EQ(t.GetEntryCount(), 4u);
    EXPECT_EQ(classOf(Ip(10, 1, 2, 3)), 3u); // now the /24 is the best match
    EXPECT_TRUE(Contains(ErrorOf([&] { t.RemoveEntry(h16); }), {"'cls'", "not installed"}));
    // Same key and priority twice is ambiguous and refused.
    EXPECT_TRUE(
        Contains(ErrorOf([&] {
                     t.AddEntry({RmtMatch::Ternary(Ip(10, 1, 2, 0), 0xffffff00)}, "set", {9}, 3);
                 }),
                 {"'cls'", "same key"}));
    // Value bits outside the mask are a control-plane mistake.
    EXPECT_TRUE(Contains(
        ErrorOf([&] { t.AddEntry({RmtMatch::Ternary(Ip(10, 1, 0, 1), 0xffff0000)}, "set", {9}); }),
        {"outside mask"}));
}

TEST(RmtTable, RangeMatchesPortRangesAndCombinesWithPriority)
{
    RmtPipeline p(SmallConfig("range"));
    const FiveTuple f = DeclareFiveTuple(p);
    const RmtFieldId cls = p.AddField("meta.class", 8);
    RmtTable& t =
        p.AddStage("s").AddTable("ports",
                                 {{f.proto, RmtMatchKind::EXACT}, {f.dport, RmtMatchKind::RANGE}},
                                 8);
    t.AddAction(
        "set",
        [cls](RmtActionContext& c) { c.Set(cls, c.Param(0)); },
        1);
    t.AddEntry({RmtMatch::Exact(6), RmtMatch::Range(0, 1023)}, "set", {1}, 1);     // well-known
    t.AddEntry({RmtMatch::Exact(6), RmtMatch::Range(1024, 65535)}, "set", {2}, 1); // ephemeral
    t.AddEntry({RmtMatch::Exact(6), RmtMatch::Exact(443)}, "set", {3}, 9);         // https
    t.AddEntry({RmtMatch::Exact(17), RmtMatch::Any()}, "set", {4}, 0);             // any UDP
    p.Finalize();
    RmtPhv phv = p.NewPhv();
    auto classOf = [&](uint64_t proto, uint64_t dport) {
        SetPacket(phv, f, 0, 0, 0, dport, proto);
        p.Execute(phv);
        return phv.Get(cls);
    };
    EXPECT_EQ(classOf(6, 0), 1u);
    EXPECT_EQ(classOf(6, 1023), 1u);
    EXPECT_EQ(classOf(6, 1024), 2u);
    EXPECT_EQ(classOf(6, 65535), 2u);
    EXPECT_EQ(classOf(6, 443), 3u);
    EXPECT_EQ(classOf(17, 53), 4u);
    EXPECT_EQ(classOf(1, 53), 0u);
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             t.AddEntry({RmtMatch::Exact(6), RmtMatch::Range(9, 8)}, "set", {1});
                         }),
                         {"'ports'", "key 1", "empty"}));
    EXPECT_TRUE(
        Contains(ErrorOf([&] {
                     t.AddEntry({RmtMatch::Exact(6), RmtMatch::Range(0, 70000)}, "set", {1});
                 }),
                 {"70000", "does not fit"}));
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             t.AddEntry({RmtMatch::Any(), RmtMatch::Range(0, 1)}, "set", {1});
                         }),
                         {"key 0", "exact key cannot be a wildcard"}));
}

TEST(RmtTable, LongestPrefixWins)
{
    RmtPipeline p(SmallConfig("lpm"));
    const FiveTuple f = DeclareFiveTuple(p);
    const RmtFieldId nh = p.AddField("meta.nexthop", 8);
    RmtTable& t = p.AddStage("s").AddTable("route", {{f.dst, RmtMatchKind::LPM}}, 8);
    t.AddAction(
        "nh",
        [nh](RmtActionContext& c) { c.Set(nh, c.Param(0)); },
        1);
    t.AddEntry({RmtMatch::Lpm(0, 0)}, "nh", {1});
    t.AddEntry({RmtMatch::Lpm(Ip(10, 0, 0, 0), 8)}, "nh", {2});
    t.AddEntry({RmtMatch::Lpm(Ip(10, 1, 2, 0), 24)}, "nh", {4}); // added before the /16
    t.AddEntry({RmtMatch::Lpm(Ip(10, 1, 0, 0), 16)}, "nh", {3});
    t.AddEntry({RmtMatch::Exact(Ip(10, 1, 2, 9))}, "nh", {5}); // a /32
    p.Finalize();
    RmtPhv phv = p.NewPhv();
    auto nhOf = [&](uint64_t dst) {
        SetPacket(phv, f, 0, dst, 0, 0, 0);
        p.Execute(phv);
        return phv.Get(nh);
    };
    EXPECT_EQ(nhOf(Ip(192, 168, 0, 1)), 1u);
    EXPECT_EQ(nhOf(Ip(10, 200, 0, 1)), 2u);
    EXPECT_EQ(nhOf(Ip(10, 1, 200, 1)), 3u);
    EXPECT_EQ(nhOf(Ip(10, 1, 2, 1)), 4u);
    EXPECT_EQ(nhOf(Ip(10, 1, 2, 9)), 5u);
    EXPECT_TRUE(
        Contains(ErrorOf([&] { t.AddEntry({RmtMatch::Lpm(Ip(10, 1, 2, 3), 24)}, "nh", {1}); }),
                 {"beyond its /24 prefix"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { t.AddEntry({RmtMatch::Lpm(0, 33)}, "nh", {1}); }),
                         {"prefix length 33"}));
}

TEST(RmtTable, EntryValidationNamesTheTableAndTheLimit)
{
    RmtPipeline p(SmallConfig("valid"));
    const FiveTuple f = DeclareFiveTuple(p);
    RmtStage& s = p.AddStage("st");
    RmtTable& t = s.AddTable("small", {{f.sport, RmtMatchKind::EXACT}}, 2);
    t.AddAction(
        "a1",
        [](RmtActionContext&) {},
        1);
    EXPECT_TRUE(Contains(ErrorOf([&] { t.AddEntry({RmtMatch::Exact(1)}, "a1", {}); }),
                         {"'small'", "'st'", "'a1' takes 1 parameters but 0"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { t.AddEntry({RmtMatch::Exact(1)}, "nosuch", {}); }),
                         {"no action 'nosuch'", "a1"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { t.AddEntry({RmtMatch::Ternary(1, 1)}, "a1", {0}); }),
                         {"got a ternary component"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { t.AddEntry({RmtMatch::Exact(70000)}, "a1", {0}); }),
                         {"70000", "field 'l4.sport'", "16 bits"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { t.AddEntry({}, "a1", {0}); }), {"needs 1 key components"}));
    t.AddEntry({RmtMatch::Exact(1)}, "a1", {0});
    EXPECT_TRUE(
        Contains(ErrorOf([&] { t.AddEntry({RmtMatch::Exact(1)}, "a1", {0}); }), {"same key"}));
    t.AddEntry({RmtMatch::Exact(2)}, "a1", {0});
    EXPECT_TRUE(Contains(ErrorOf([&] { t.AddEntry({RmtMatch::Exact(3)}, "a1", {0}); }),
                         {"'small'", "'st'", "full", "capacity 2 entries"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { s.AddTable("small", {}, 0); }), {"'small'", "already"}));
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             s.AddTable("badkey", {{99, RmtMatchKind::EXACT}}, 1);
                         }),
                         {"'badkey'", "field handle 99"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { t.AddAction("a1", [](RmtActionContext&) {}); }),
                         {"'a1' is declared twice"}));
}

TEST(RmtTable, GatedTableAppliesOnlyWhenItsConditionHolds)
{
    RmtPipeline p(SmallConfig("gate"));
    const FiveTuple f = DeclareFiveTuple(p);
    const RmtFieldId seen = p.AddField("meta.seen", 8);
    RmtStage& s = p.AddStage("s");
    RmtTable& t = s.AddTable("tcp_only", {}, 0);
    t.AddAction("mark", [seen](RmtActionContext& c) { c.Set(seen, 1); });
    t.SetDefaultAction("mark");
    t.SetGate([proto = f.proto](const RmtPhv& phv) { return phv.Get(proto) == 6; });
    p.Finalize();
    EXPECT_TRUE(Contains(ErrorOf([&] { t.SetGate(nullptr); }), {"finalised"}));
    RmtPhv phv = p.NewPhv();
    SetPacket(phv, f, 0, 0, 0, 0, 17);
    RmtExecution r = p.Execute(phv);
    EXPECT_EQ(phv.Get(seen), 0u);
    EXPECT_EQ(r.tablesApplied, 0u);
    SetPacket(phv, f, 0, 0, 0, 0, 6);
    r = p.Execute(phv);
    EXPECT_EQ(phv.Get(seen), 1u);
    EXPECT_EQ(r.tablesApplied, 1u);
    EXPECT_EQ(t.GetApplied(), 1u);
    EXPECT_EQ(t.GetMisses(), 1u); // keyless: always the default action
    EXPECT_EQ(s.GetPackets(), 2u);
    EXPECT_EQ(s.GetActivePackets(), 1u);
}

// ---------------------------------------------------------------------------------------
// Registers

TEST(RmtRegister, ReadModifyWriteUpdatesOneElementAndWrapsAtItsWidth)
{
    RmtPipeline p(SmallConfig("rmw"));
    const RmtFieldId idx = p.AddField("meta.idx", 4);
    const RmtFieldId old = p.AddField("meta.old", 8);
    RmtStage& s = p.AddStage("count");
    RmtRegisterArray& reg = s.AddRegister("ctr", 8, 16);
    RmtTable& t = s.AddTable("count", {}, 0);
    t.AddAction("inc", [&reg, idx, old](RmtActionContext& c) {
        const uint64_t before = c.Update(reg, c.Get(idx), [](uint64_t& v) {
            const uint64_t o = v;
            v = v + 1;
            return o;
        });
        c.Set(old, before);
    });
    t.SetDefaultAction("inc");
    EXPECT_TRUE(Contains(ErrorOf([&] { s.AddRegister("wide", 65, 1); }), {"'wide'", "65"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { s.AddRegister("none", 8, 0); }), {"'none'", "size 0"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { s.AddRegister("ctr", 8, 1); }), {"'ctr'", "already"}));
    p.Finalize();
    RmtPhv phv = p.NewPhv();
    for (int i = 0; i < 300; ++i)
    {
        phv.Clear();
        phv.Set(idx, i % 2 == 0 ? 3 : 5);
        p.Execute(phv);
    }
    EXPECT_EQ(reg.ControlRead(3), 150u % 256);
    EXPECT_EQ(reg.ControlRead(5), 150u % 256);
    EXPECT_EQ(reg.ControlRead(4), 0u);
    EXPECT_EQ(phv.Get(old), 149u % 256); // the ALU output of the last packet
    EXPECT_EQ(reg.GetAccesses(), 300u);
    // 300 packets to the same 8-bit element wrap once past 255.
    reg.ControlFill(250);
    for (int i = 0; i < 10; ++i)
    {
        phv.Clear();
        phv.Set(idx, 0);
        p.Execute(phv);
    }
    EXPECT_EQ(reg.ControlRead(0), 4u);
    EXPECT_TRUE(Contains(ErrorOf([&] { reg.ControlWrite(16, 0); }), {"'ctr'", "16", "size 16"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { reg.ControlWrite(0, 256); }), {"'ctr'", "8 bits"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { s.AddRegister("late", 8, 1); }), {"'late'", "finalised"}));
}

TEST(RmtRegister, MemoryFollowsTheElementsTouchedNotTheDeclaredSize)
{
    // A 32,768-element array costs simulator memory only up to the highest element touched;
    // its declared size (the hardware's) is what the resource report counts.
    RmtPipeline p(SmallConfig("lazy"));
    const RmtFieldId idx = p.AddField("meta.idx", 16);
    RmtStage& s = p.AddStage("count");
    RmtRegisterArray& reg = s.AddRegister("ctr", 32, 32768);
    RmtTable& t = s.AddTable("count", {}, 0);
    t.AddAction("inc", [&reg, idx](RmtActionContext& c) {
        c.Update(reg, c.Get(idx), [](uint64_t& v) {
            v = v + 1;
            return v;
        });
    });
    t.SetDefaultAction("inc");
    p.Finalize();
    EXPECT_EQ(reg.GetSize(), 32768u);
    EXPECT_EQ(reg.GetBits(), 32u * 32768u);
    EXPECT_EQ(reg.GetStoredSize(), 0u);
    reg.ControlFill(7); // untouched elements read as the fill value
    RmtPhv phv = p.NewPhv();
    for (uint64_t i : {0u, 1u, 2u, 3u, 9u})
    {
        phv.Clear();
        phv.Set(idx, i);
        p.Execute(phv);
    }
    EXPECT_LE(reg.GetStoredSize(), 16u);
    EXPECT_EQ(reg.ControlRead(9), 8u);
    EXPECT_EQ(reg.ControlRead(4), 7u);
    EXPECT_EQ(reg.ControlRead(30000), 7u);
    EXPECT_LE(reg.GetStoredSize(), 16u); // reading does not store
    reg.ControlWrite(32767, 1);
    EXPECT_EQ(reg.GetStoredSize(), 32768u);
    EXPECT_EQ(reg.ControlRead(32767), 1u);
    EXPECT_EQ(reg.ControlRead(20000), 7u);
}

TEST(RmtRegister, SecondAccessInOnePassIsAnErrorNamingArrayAndStage)
{
    RmtPipeline p(SmallConfig("twice"));
    const RmtFieldId sel = p.AddField("meta.sel", 2);
    RmtStage& s = p.AddStage("state");
    RmtRegisterArray& reg = s.AddRegister("seq", 32, 4);
    RmtTable& t1 = s.AddTable("first", {{sel, RmtMatchKind::EXACT}}, 4);
    RmtTable& t2 = s.AddTable("second", {{sel, RmtMatchKind::EXACT}}, 4);
    // sel=1: one action reads then writes (two accesses). sel=2: two tables each access once.
    t1.AddAction("read_then_write", [&reg](RmtActionContext& c) {
        const uint64_t v = c.Read(reg, 0);
        c.Write(reg, 0, v + 1);
    });
    t1.AddAction("rmw",
                 [&reg](RmtActionContext& c) { c.Update(reg, 1, [](uint64_t& v) { ++v; }); });
    t2.AddAction("read", [&reg](RmtActionContext& c) { c.Read(reg, 2); });
    t1.AddEntry({RmtMatch::Exact(1)}, "read_then_write");
    t1.AddEntry({RmtMatch::Exact(2)}, "rmw");
    t1.AddEntry({RmtMatch::Exact(3)}, "rmw");
    t2.AddEntry({RmtMatch::Exact(2)}, "read");
    p.Finalize();
    RmtPhv phv = p.NewPhv();

    phv.Set(sel, 1);
    const std::string e1 = ErrorOf([&] { p.Execute(phv); });
    EXPECT_TRUE(
        Contains(e1, {"'seq'", "stage 'state'", "accessed twice", "'read_then_write'", "write"}))
        << e1;

    phv.Set(sel, 2);
    const std::string e2 = ErrorOf([&] { p.Execute(phv); });
    EXPECT_TRUE(Contains(
        e2,
        {"'seq'", "'state'", "table 'first' action 'rmw'", "table 'second' action 'read'"}))
        << e2;

    // One access per pass is fine, packet after packet.
    phv.Set(sel, 3);
    for (int i = 0; i < 5; ++i)
    {
        EXPECT_NO_THROW(p.Execute(phv));
    }
    EXPECT_EQ(reg.ControlRead(1), 6u); // 1 from the sel=2 packet (before its error) + 5
}

TEST(RmtRegister, AnActionCannotReachAnotherStagesArray)
{
    RmtPipeline p(SmallConfig("cross"));
    p.AddField("x", 8);
    RmtStage& s0 = p.AddStage("s0");
    RmtStage& s1 = p.AddStage("s1");
    RmtRegisterArray& reg = s0.AddRegister("r0", 16, 2);
    RmtTable& t = s1.AddTable("t1", {}, 0);
    t.AddAction("peek", [&reg](RmtActionContext& c) { c.Read(reg, 0); });
    t.SetDefaultAction("peek");
    p.Finalize();
    RmtPhv phv = p.NewPhv();
    EXPECT_TRUE(Contains(ErrorOf([&] { p.Execute(phv); }),
                         {"'r0'", "stage 's0'", "'t1'", "stage 's1'", "own stage"}));
}

// ---------------------------------------------------------------------------------------
// Budget, recirculation, accounting

TEST(RmtPipeline, OverBudgetProgramIsRefusedNamingBudgetAndDemand)
{
    RmtPipelineConfig cfg = SmallConfig("presto-k3");
    cfg.stageBudget = 12;
    RmtPipeline p(cfg);
    for (int i = 0; i < 13; ++i)
    {
        p.AddStage("s" + std::to_string(i));
    }
    const std::string e = ErrorOf([&] { p.Finalize(); });
    EXPECT_TRUE(Contains(e, {"'presto-k3'", "needs 13 stages", "stage budget is 12", "s12"})) << e;
    EXPECT_FALSE(p.IsFinalized());
    EXPECT_EQ(p.GetResourceReport().stagesUsed, 13u); // the report shows what was asked

    RmtPipeline ok(cfg);
    for (int i = 0; i < 12; ++i)
    {
        ok.AddStage("s" + std::to_string(i));
    }
    EXPECT_NO_THROW(ok.Finalize());
    EXPECT_TRUE(ok.IsFinalized());
    EXPECT_TRUE(Contains(ErrorOf([&] { ok.AddStage("s12"); }), {"finalised"}));

    RmtPipeline empty(cfg);
    EXPECT_TRUE(Contains(ErrorOf([&] { empty.Finalize(); }), {"no stages"}));

    RmtPipelineConfig lim = SmallConfig("limits");
    lim.registerBitsPerStage = 1000;
    lim.maxTablesPerStage = 1;
    RmtPipeline l1(lim);
    l1.AddStage("big").AddRegister("r", 32, 32); // 1024 bits
    EXPECT_TRUE(Contains(ErrorOf([&] { l1.Finalize(); }), {"'big'", "1024", "1000"}));
    RmtPipeline l2(lim);
    RmtStage& st = l2.AddStage("crowded");
    st.AddTable("a", {}, 0);
    st.AddTable("b", {}, 0);
    EXPECT_TRUE(Contains(ErrorOf([&] { l2.Finalize(); }), {"'crowded'", "2 tables", "at most 1"}));

    RmtPipelineConfig bad = SmallConfig("bad");
    bad.stageBudget = 0;
    EXPECT_TRUE(Contains(ErrorOf([&] { RmtPipeline x(bad); }), {"'bad'", "budget"}));
    bad = SmallConfig("bad");
    bad.clockHz = 0;
    EXPECT_TRUE(Contains(ErrorOf([&] { RmtPipeline x(bad); }), {"clock"}));
}

TEST(RmtPipeline, RecirculationCostsAPassAndLatencyAndThroughput)
{
    RmtPipelineConfig cfg = SmallConfig("recirc");
    cfg.pipes = 2;
    RmtPipeline p(cfg);
    const RmtFieldId again = p.AddField("meta.again", 1);
    const RmtFieldId loop = p.AddField("meta.loop", 1);
    RmtStage& s0 = p.AddStage("s0");
    RmtRegisterArray& reg = s0.AddRegister("visits", 32, 1);
    RmtTable& t = s0.AddTable("t", {}, 0);
    t.AddAction("visit", [&reg, again, loop](RmtActionContext& c) {
        c.Update(reg, 0, [](uint64_t& v) { ++v; }); // once per pass: allowed on every pass
        if (c.Get(loop) == 1 || (c.Get(again) == 1 && c.GetPass() == 0))
        {
            c.Recirculate();
        }
    });
    t.SetDefaultAction("visit");
    p.AddStage("s1");
    p.AddStage("s2").SetLatencyCycles(7);
    p.Finalize();
    // parser 10 + stages 4 + 4 + 7 + deparser 6
    EXPECT_EQ(p.GetPassCycles(), 31u);

    RmtPhv phv = p.NewPhv();
    RmtExecution r;
    p.Execute(phv, r);
    EXPECT_EQ(r.passes, 1u);
    EXPECT_EQ(r.stagesTraversed, 3u);
    EXPECT_EQ(r.latencyCycles, 31u);
    EXPECT_DOUBLE_EQ(r.latencyNs, 31.0);

    phv.Clear();
    phv.Set(again, 1);
    p.Execute(phv, r);
    EXPECT_EQ(r.passes, 2u);
    EXPECT_EQ(r.stagesTraversed, 6u);
    EXPECT_EQ(r.latencyCycles, 2u * 31 + 40);
    EXPECT_DOUBLE_EQ(r.latencyNs, 102.0);
    EXPECT_EQ(r.hits.size(), 0u);
    EXPECT_EQ(reg.ControlRead(0), 3u);

    phv.Clear();
    p.Execute(phv, r);
    EXPECT_EQ(p.GetPackets(), 3u);
    EXPECT_EQ(p.GetPasses(), 4u);
    EXPECT_EQ(p.GetRecirculations(), 1u);
    // 1 GHz x 2 pipes / (4 passes / 3 packets)
    EXPECT_DOUBLE_EQ(p.GetThroughputBoundPps(), 2e9 * 3.0 / 4.0);
    const RmtResourceReport rep = p.GetResourceReport();
    EXPECT_DOUBLE_EQ(rep.avgPassesPerPacket, 4.0 / 3.0);
    EXPECT_DOUBLE_EQ(rep.avgLatencyNs, (31.0 + 102.0 + 31.0) / 3.0);
    EXPECT_EQ(rep.stages[2].packets, 4u);

    // A loop hits the pass limit and is reported, not run forever.
    phv.Clear();
    phv.Set(loop, 1);
    const std::string e = ErrorOf([&] { p.Execute(phv, r); });
    EXPECT_TRUE(Contains(e, {"'recirc'", "table 't' action 'visit'", "pass 5", "pass limit is 4"}))
        << e;

    // A dropped packet is not looped back.
    RmtPipeline d(SmallConfig("drop"));
    RmtTable& dt = d.AddStage("s").AddTable("t", {}, 0);
    dt.AddAction("both", [](RmtActionContext& c) {
        c.Recirculate();
        c.Drop();
    });
    dt.SetDefaultAction("both");
    d.Finalize();
    RmtPhv dp = d.NewPhv();
    RmtExecution dr = d.Execute(dp);
    EXPECT_EQ(dr.passes, 1u);
    EXPECT_TRUE(dr.dropped);
    EXPECT_EQ(d.GetRecirculations(), 0u);
}

TEST(RmtPipeline, ResourceReportOfAKnownProgram)
{
    RmtPipelineConfig cfg = SmallConfig("known");
    cfg.stageBudget = 20;
    cfg.clockHz = 1.25e9;
    cfg.pipes = 4;
    RmtPipeline p(cfg);
    const RmtFieldId k = p.AddField("k", 16);
    const RmtFieldId flag = p.AddField("flag", 1);
    RmtStage& s0 = p.AddStage("classify");
    RmtTable& t0 = s0.AddTable("t0", {{k, RmtMatchKind::EXACT}}, 100);
    t0.AddAction("hit", [](RmtActionContext&) {});
    RmtStage& s1 = p.AddStage("state");
    s1.AddRegister("a", 32, 1024); // 32768 bits = 4096 bytes
    s1.AddRegister("b", 5, 3);     // 15 bits -> 2 bytes
    RmtTable& t1 = s1.AddTable("t1", {{k, RmtMatchKind::TERNARY}, {k, RmtMatchKind::RANGE}}, 10);
    t1.SetGate([flag](const RmtPhv& phv) { return phv.Get(flag) == 1; });
    p.AddStage("empty");
    for (uint64_t i = 0; i < 7; ++i)
    {
        t0.AddEntry({RmtMatch::Exact(i)}, "hit");
    }
    t1.AddEntry({RmtMatch::Any(), RmtMatch::Range(0, 9)}, RmtTable::NO_ACTION);
    p.Finalize();
    RmtPhv phv = p.NewPhv();
    for (uint64_t i = 0; i < 10; ++i) // keys 0..9: 7 hits in t0; flag on for i >= 6
    {
        phv.Clear();
        phv.Set(k, i);
        phv.Set(flag, i >= 6 ? 1 : 0);
        p.Execute(phv);
    }
    const RmtResourceReport r = p.GetResourceReport();
    EXPECT_TRUE(r.finalised);
    EXPECT_EQ(r.stagesUsed, 3u);
    EXPECT_EQ(r.stageBudget, 20u);
    EXPECT_EQ(r.passCycles, 10u + 3 * 4 + 6);
    EXPECT_EQ(r.phvFields, 2u);
    EXPECT_EQ(r.phvBits, 17u);
    EXPECT_EQ(r.registerBits, 32768u + 15u);
    EXPECT_EQ(r.registerBytes, (32768u + 15u + 7u) / 8u);
    ASSERT_EQ(r.stages.size(), 3u);
    EXPECT_EQ(r.stages[0].registerBits, 0u);
    EXPECT_EQ(r.stages[1].registerBits, 32783u);
    EXPECT_EQ(r.stages[1].registerBytes, 4098u);
    EXPECT_EQ(r.stages[2].name, "empty");
    ASSERT_EQ(r.registers.size(), 2u);
    EXPECT_EQ(r.registers[1].bytes, 2u);
    EXPECT_EQ(r.tableEntries, 8u);
    EXPECT_EQ(r.tableCapacity, 110u);
    ASSERT_EQ(r.tables.size(), 2u);
    EXPECT_EQ(r.tables[0].entries, 7u);
    EXPECT_EQ(r.tables[0].capacity, 100u);
    EXPECT_EQ(r.tables[0].hits, 7u);
    EXPECT_EQ(r.tables[0].misses, 3u);
    EXPECT_EQ(r.tables[1].match, "ternary,range");
    EXPECT_EQ(r.tables[1].applied, 4u);
    EXPECT_EQ(r.tables[1].hits, 4u);
    EXPECT_EQ(r.stages[0].packets, 10u);
    EXPECT_EQ(r.stages[0].activePackets, 10u);
    EXPECT_EQ(r.stages[1].activePackets, 4u);
    EXPECT_EQ(r.stages[2].packets, 10u);
    EXPECT_EQ(r.stages[2].activePackets, 0u);
    EXPECT_EQ(r.packets, 10u);
    EXPECT_EQ(r.passes, 10u);
    EXPECT_DOUBLE_EQ(r.throughputBoundPps, 1.25e9 * 4);

    const nlohmann::json j = r.ToJson();
    EXPECT_EQ(j["stages_used"], 3);
    EXPECT_EQ(j["register_bytes"], 4098);
    EXPECT_EQ(j["stages"][1]["register_bits"], 32783);
    EXPECT_EQ(j["tables"][0]["name"], "t0");
    EXPECT_EQ(j["registers"][0]["bits"], 32768);
    const std::string text = r.ToText();
    EXPECT_TRUE(Contains(text,
                         {"'known'",
                          "3 of 20 stages",
                          "4 pipe(s)",
                          "register a",
                          "table t1",
                          "7/100",
                          "throughput bound 5000 Mpps"}))
        << text;

    p.ResetCounters();
    EXPECT_EQ(p.GetResourceReport().packets, 0u);
    EXPECT_EQ(t0.GetHits(), 0u);
    EXPECT_EQ(p.GetResourceReport().registerBits, 32783u); // resources are not counters
}

// ---------------------------------------------------------------------------------------
// User programs: an ACL in front of a program and a per-flow counter behind it.

namespace
{

/// A small "existing program": a flow table mapping 5-tuples to a flow index.
struct BaseProgram
{
    FiveTuple f;        //!< 5-tuple fields
    RmtFieldId flowIdx; //!< meta.flow_idx
    RmtFieldId known;   //!< meta.known
    RmtTable* flows;    //!< the flow table
};

BaseProgram
BuildBase(RmtPipeline& p)
{
    BaseProgram b;
    b.f = DeclareFiveTuple(p);
    b.flowIdx = p.AddField("meta.flow_idx", 10);
    b.known = p.AddField("meta.known", 1);
    RmtStage& s = p.AddStage("flow_lookup");
    b.flows = &s.AddTable("flows",
                          {{b.f.src, RmtMatchKind::EXACT},
                           {b.f.dst, RmtMatchKind::EXACT},
                           {b.f.sport, RmtMatchKind::EXACT},
                           {b.f.dport, RmtMatchKind::EXACT},
                           {b.f.proto, RmtMatchKind::EXACT}},
                          1024);
    b.flows->AddAction(
        "set_flow",
        [idx = b.flowIdx, known = b.known](RmtActionContext& c) {
            c.Set(idx, c.Param(0));
            c.Set(known, 1);
        },
        1);
    return b;
}

/// User extension 1: a 5-tuple ACL (ternary addresses, port ranges) in front of stage
/// `before`.
RmtTable&
AddAcl(RmtPipeline& p, const FiveTuple& f, const std::string& before)
{
    RmtStage& s = p.InsertStageBefore(before, "acl");
    RmtTable& acl = s.AddTable("acl",
                               {{f.src, RmtMatchKind::TERNARY},
                                {f.dst, RmtMatchKind::TERNARY},
                                {f.sport, RmtMatchKind::RANGE},
                                {f.dport, RmtMatchKind::RANGE},
                                {f.proto, RmtMatchKind::TERNARY}},
                               64);
    acl.AddAction("deny", [](RmtActionContext& c) { c.Drop(); });
    acl.AddAction("permit", [](RmtActionContext&) {});
    acl.SetDefaultAction("permit");
    return acl;
}

/// User extension 2: a per-flow packet counter (register array) behind stage `after`,
/// counting only packets of known flows that were not dropped.
RmtRegisterArray&
AddFlowCounter(RmtPipeline& p, const BaseProgram& b, const std::string& after)
{
    RmtStage& s = p.InsertStageAfter(after, "flow_count");
    RmtRegisterArray& pkts = s.AddRegister("flow_pkts", 32, 1024);
    RmtTable& t = s.AddTable("count", {}, 0);
    t.AddAction("count", [&pkts, idx = b.flowIdx](RmtActionContext& c) {
        c.Update(pkts, c.Get(idx), [](uint64_t& v) { ++v; });
    });
    t.SetDefaultAction("count");
    t.SetGate(
        [known = b.known](const RmtPhv& phv) { return phv.Get(known) == 1 && !phv.IsDropped(); });
    return pkts;
}

} // namespace

TEST(RmtUserPrograms, AclInFrontAndPerFlowCounterBehindAnExistingProgram)
{
    RmtPipeline p(SmallConfig("user-ext"));
    BaseProgram b = BuildBase(p);
    p.AddStage("egress"); // the existing program's last stage
    RmtTable& acl = AddAcl(p, b.f, "flow_lookup");
    RmtRegisterArray& pkts = AddFlowCounter(p, b, "flow_lookup");
    ASSERT_EQ(p.GetStageCount(), 4u);
    EXPECT_EQ(p.GetStage(0u).GetName(), "acl");
    EXPECT_EQ(p.GetStage(1u).GetName(), "flow_lookup");
    EXPECT_EQ(p.GetStage(2u).GetName(), "flow_count");
    EXPECT_EQ(p.GetStage(3u).GetName(), "egress");

    const uint64_t admin = Ip(10, 0, 0, 1);
    const uint64_t h2 = Ip(10, 0, 0, 2);
    const uint64_t srv = Ip(10, 0, 1, 10);
    // priority 20: the admin host may use ssh; priority 10: nobody else may;
    // priority 5: nothing reaches 10.0.9.0/24; priority 1: UDP to ports 6000-6999 denied.
    acl.AddEntry({RmtMatch::Exact(admin),
                  RmtMatch::Any(),
                  RmtMatch::Any(),
                  RmtMatch::Exact(22),
                  RmtMatch::Exact(6)},
                 "permit",
                 {},
                 20);
    acl.AddEntry({RmtMatch::Any(),
                  RmtMatch::Any(),
                  RmtMatch::Any(),
                  RmtMatch::Exact(22),
                  RmtMatch::Exact(6)},
                 "deny",
                 {},
                 10);
    acl.AddEntry({RmtMatch::Any(),
                  RmtMatch::Ternary(Ip(10, 0, 9, 0), 0xffffff00),
                  RmtMatch::Any(),
                  RmtMatch::Any(),
                  RmtMatch::Any()},
                 "deny",
                 {},
                 5);
    acl.AddEntry({RmtMatch::Any(),
                  RmtMatch::Any(),
                  RmtMatch::Any(),
                  RmtMatch::Range(6000, 6999),
                  RmtMatch::Exact(17)},
                 "deny",
                 {},
                 1);

    // Known flows and their counter slots.
    b.flows->AddEntry({RmtMatch::Exact(admin),
                       RmtMatch::Exact(srv),
                       RmtMatch::Exact(40000),
                       RmtMatch::Exact(22),
                       RmtMatch::Exact(6)},
                      "set_flow",
                      {1});
    b.flows->AddEntry({RmtMatch::Exact(h2),
                       RmtMatch::Exact(srv),
                       RmtMatch::Exact(40001),
                       RmtMatch::Exact(22),
                       RmtMatch::Exact(6)},
                      "set_flow",
                      {2});
    b.flows->AddEntry({RmtMatch::Exact(h2),
                       RmtMatch::Exact(srv),
                       RmtMatch::Exact(5000),
                       RmtMatch::Exact(80),
                       RmtMatch::Exact(6)},
                      "set_flow",
                      {3});
    b.flows->AddEntry({RmtMatch::Exact(h2),
                       RmtMatch::Exact(srv),
                       RmtMatch::Exact(5001),
                       RmtMatch::Exact(6500),
                       RmtMatch::Exact(17)},
                      "set_flow",
                      {4});
    b.flows->AddEntry({RmtMatch::Exact(h2),
                       RmtMatch::Exact(Ip(10, 0, 9, 7)),
                       RmtMatch::Exact(5002),
                       RmtMatch::Exact(80),
                       RmtMatch::Exact(6)},
                      "set_flow",
                      {5});
    p.Finalize();

    struct Pkt
    {
        uint64_t src, dst, sport, dport, proto;
        bool dropped;
    };

    const std::vector<Pkt> seq = {
        {admin, srv, 40000, 22, 6, false},        // admin ssh: permitted (20 beats 10)
        {h2, srv, 40001, 22, 6, true},            // other ssh: denied
        {h2, srv, 5000, 80, 6, false},            // web: permitted
        {h2, srv, 5001, 6500, 17, true},          // UDP in 6000-6999: denied
        {h2, srv, 5001, 7000, 17, false},         // just outside the range: permitted, unknown
        {h2, Ip(10, 0, 9, 7), 5002, 80, 6, true}, // to 10.0.9.0/24: denied
        {admin, srv, 40000, 22, 6, false},        // admin ssh again
        {h2, srv, 5000, 80, 6, false},            // web again
        {h2, srv, 5000, 80, 6, false},            // web again
        {admin, srv, 40000, 22, 17, false},       // UDP port 22: the ssh rules are TCP only
    };
    RmtPhv phv = p.NewPhv();
    RmtExecution r;
    uint64_t drops = 0;
    for (size_t i = 0; i < seq.size(); ++i)
    {
        const Pkt& k = seq[i];
        SetPacket(phv, b.f, k.src, k.dst, k.sport, k.dport, k.proto);
        p.Execute(phv, r);
        EXPECT_EQ(r.dropped, k.dropped) << "packet " << i;
        EXPECT_EQ(r.Hit(acl), k.dropped || (k.src == admin && k.dport == 22 && k.proto == 6))
            << "packet " << i;
        drops += k.dropped ? 1 : 0;
    }
    EXPECT_EQ(pkts.ControlRead(1), 2u); // admin ssh
    EXPECT_EQ(pkts.ControlRead(2), 0u); // denied ssh not counted
    EXPECT_EQ(pkts.ControlRead(3), 3u); // web
    EXPECT_EQ(pkts.ControlRead(4), 0u); // denied UDP not counted
    EXPECT_EQ(pkts.ControlRead(5), 0u); // denied subnet not counted
    EXPECT_EQ(pkts.ControlRead(0), 0u); // unknown flows are not counted anywhere
    const RmtResourceReport rep = p.GetResourceReport();
    EXPECT_EQ(rep.drops, drops);
    EXPECT_EQ(rep.stages[2].activePackets, 5u); // the counter ran for 5 packets
    EXPECT_EQ(acl.GetHits() + acl.GetMisses(), seq.size());
}

TEST(RmtUserPrograms, SameInputsGiveIdenticalReports)
{
    auto run = [] {
        RmtPipeline p(SmallConfig("det"));
        BaseProgram b = BuildBase(p);
        RmtTable& acl = AddAcl(p, b.f, "flow_lookup");
        AddFlowCounter(p, b, "flow_lookup");
        acl.AddEntry({RmtMatch::Any(),
                      RmtMatch::Any(),
                      RmtMatch::Any(),
                      RmtMatch::Range(0, 99),
                      RmtMatch::Any()},
                     "deny");
        for (uint64_t i = 0; i < 50; ++i)
        {
            b.flows->AddEntry({RmtMatch::Exact(i),
                               RmtMatch::Exact(1),
                               RmtMatch::Exact(2),
                               RmtMatch::Exact(100 + i),
                               RmtMatch::Exact(6)},
                              "set_flow",
                              {i});
        }
        p.Finalize();
        RmtPhv phv = p.NewPhv();
        for (uint64_t i = 0; i < 500; ++i)
        {
            SetPacket(phv, b.f, (i * 7) % 60, 1, 2, 100 + (i * 7) % 60 - (i % 3 == 0 ? 60 : 0), 6);
            p.Execute(phv);
        }
        return p.GetResourceReport().ToJson().dump() +
               std::to_string(p.GetRegister("flow_pkts").ControlRead(13));
    };
    const std::string a = run();
    EXPECT_EQ(a, run());
    EXPECT_NE(a.find("\"drops\":"), std::string::npos);
}

// ---------------------------------------------------------------------------------------
// Speed of the packet path (printed, not asserted).

TEST(RmtPipelineSpeed, TenStageProgramExecutesPerSecond)
{
    RmtPipelineConfig cfg = SmallConfig("speed");
    cfg.stageBudget = 12;
    RmtPipeline p(cfg);
    const RmtFieldId conn = p.AddField("meta.conn", 16);
    const RmtFieldId seq = p.AddField("tcp.seq", 32);
    const RmtFieldId dport = p.AddField("l4.dport", 16);
    const RmtFieldId acc = p.AddField("meta.acc", 32);
    const uint32_t flows = 1024;
    std::vector<RmtRegisterArray*> regs;
    for (int s = 0; s < 10; ++s)
    {
        RmtStage& st = p.AddStage("s" + std::to_string(s));
        RmtRegisterArray& reg = st.AddRegister("r" + std::to_string(s), 32, flows);
        regs.push_back(&reg);
        if (s % 2 == 0)
        {
            RmtTable& t =
                st.AddTable("t" + std::to_string(s), {{conn, RmtMatchKind::EXACT}}, flows);
            t.AddAction(
                "upd",
                [&reg, seq, acc](RmtActionContext& c) {
                    const uint64_t v = c.Update(reg, c.Param(0), [&](uint64_t& x) {
                        x += c.Get(seq) & 0xff;
                        return x;
                    });
                    c.Set(acc, c.Get(acc) + v);
                },
                1);
            for (uint32_t i = 0; i < flows; ++i)
            {
                t.AddEntry({RmtMatch::Exact(i)}, "upd", {i});
            }
        }
        else
        {
            RmtTable& t = st.AddTable("t" + std::to_string(s),
                                      {{dport, RmtMatchKind::RANGE}, {seq, RmtMatchKind::TERNARY}},
                                      16);
            t.AddAction("cnt", [&reg, conn](RmtActionContext& c) {
                c.Update(reg, c.Get(conn), [](uint64_t& x) { ++x; });
            });
            t.AddEntry({RmtMatch::Range(0, 1023), RmtMatch::Ternary(0, 1)}, "cnt", {}, 2);
            t.AddEntry({RmtMatch::Range(1024, 65535), RmtMatch::Any()}, "cnt", {}, 1);
        }
    }
    p.Finalize();
    RmtPhv phv = p.NewPhv();
    RmtExecution r;
    const uint64_t n = 400000;
    const auto t0 = std::chrono::steady_clock::now();
    for (uint64_t i = 0; i < n; ++i)
    {
        phv.Clear();
        phv.Set(conn, i % flows);
        phv.Set(seq, i * 1460);
        phv.Set(dport, (i * 37) % 65536);
        p.Execute(phv, r);
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::cout << "[ RMT speed ] 10-stage program: " << n << " Execute() in " << wall
              << " s = " << static_cast<uint64_t>(n / wall) << " packets/s" << std::endl;
    // The work was really done: every packet hit the 5 exact tables and the odd-stage
    // counters add up to the packets that matched a range entry.
    EXPECT_EQ(p.GetTable("t0").GetHits(), n);
    EXPECT_EQ(p.GetTable("t8").GetHits(), n);
    uint64_t counted = 0;
    for (uint32_t i = 0; i < flows; ++i)
    {
        counted += regs[1]->ControlRead(i);
    }
    EXPECT_EQ(counted, p.GetTable("t1").GetHits());
    EXPECT_GT(counted, n / 2);
    EXPECT_EQ(p.GetPasses(), n);
}
