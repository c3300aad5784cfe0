/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/cora-perf-model.h"
#include "ns3/cora-program.h"

#include <cmath>
#include <gtest/gtest.h>
#include <string>
#include <vector>

namespace ns3
{
namespace
{

using test::Contains;
using test::ErrorOf;

CoraStateElement
Element(const std::string& name,
        CoraFlowKey key,
        uint64_t entries = 10,
        uint32_t entryBytes = 4,
        double instructions = 10)
{
    CoraStateElement e;
    e.name = name;
    e.key = key;
    e.entries = entries;
    e.entryBytes = entryBytes;
    e.instructions = instructions;
    return e;
}

/// \return the element names of block b
std::vector<std::string>
BlockNames(const CoraProgram& p, uint32_t b)
{
    std::vector<std::string> names;
    for (uint32_t e : p.GetBlocks().at(b).elements)
    {
        names.push_back(p.GetElements()[e].name);
    }
    return names;
}

/// \return perPacket of kind in load (0 if absent); fails if the kind is listed twice
double
CountOf(const CoraProgramLoad& load, const CoraAccessKind& kind)
{
    double n = 0;
    int seen = 0;
    for (const auto& a : load.accesses)
    {
        if (a.kind == kind)
        {
            n += a.perPacket;
            ++seen;
        }
    }
    EXPECT_LE(seen, 1) << kind.ToString() << " listed twice";
    return n;
}

const CoraAccessKind kEmemRead16{CoraMemoryType::EMEM,
                                 CoraMemoryOp::READ,
                                 CoraAccessMode::BULK,
                                 16};
const CoraAccessKind kImemAtomic8{CoraMemoryType::IMEM,
                                  CoraMemoryOp::WRITE,
                                  CoraAccessMode::ATOMIC,
                                  8};
const CoraAccessKind kImemRead8{CoraMemoryType::IMEM, CoraMemoryOp::READ, CoraAccessMode::BULK, 8};
const CoraAccessKind kImemAtomic4{CoraMemoryType::IMEM,
                                  CoraMemoryOp::WRITE,
                                  CoraAccessMode::ATOMIC,
                                  4};

TEST(CoraProgram, FlowKeyNames)
{
    EXPECT_EQ(ToString(CoraFlowKey::FLOW), "flow");
    EXPECT_EQ(ToString(CoraFlowKey::SRC_IP), "src_ip");
    EXPECT_EQ(ToString(CoraFlowKey::DST_IP), "dst_ip");
    EXPECT_EQ(ToString(CoraFlowKey::GLOBAL), "global");
}

TEST(CoraProgram, CycleIsOneBlockAndChainStaysSeparate)
{
    // Declared in reverse of the dependency order: a <- b <- c, and d <-> e after a.
    CoraProgram p("t");
    for (const char* n : {"a", "b", "c", "d", "e"})
    {
        p.AddElement(Element(n, CoraFlowKey::FLOW));
    }
    p.AddDependency({"c", "b"});
    p.AddDependency({"b", "a"});
    p.AddDependency({"a", "d"});
    p.AddDependency({"d", "e"});
    p.AddDependency({"e", "d"});
    p.AddBranch({"all", 0, {"a", "b", "c", "d", "e"}});
    p.Finalize();
    ASSERT_EQ(p.GetBlocks().size(), 4U);
    EXPECT_EQ(BlockNames(p, 0), (std::vector<std::string>{"c"}));
    EXPECT_EQ(BlockNames(p, 1), (std::vector<std::string>{"b"}));
    EXPECT_EQ(BlockNames(p, 2), (std::vector<std::string>{"a"}));
    EXPECT_EQ(BlockNames(p, 3), (std::vector<std::string>{"d", "e"}));
    for (uint32_t b = 0; b < 4; ++b)
    {
        EXPECT_EQ(p.GetBlocks()[b].topologicalOrder, b);
    }
    EXPECT_EQ(p.GetBlockOf(p.GetElementIndex("e")), 3U);
    EXPECT_EQ(p.GetBranchBlocks(0), (std::vector<uint32_t>{0, 1, 2, 3}));
    // Every dependency goes forward (or stays inside a block).
    for (const auto& d : p.GetDependencies())
    {
        EXPECT_LE(p.GetBlockOf(p.GetElementIndex(d.writer)),
                  p.GetBlockOf(p.GetElementIndex(d.reader)));
    }
}

TEST(CoraProgram, IndependentBlocksOrderedBySmallestElementIndex)
{
    CoraProgram p("t");
    for (const char* n : {"x", "y", "z", "w"})
    {
        p.AddElement(Element(n, CoraFlowKey::FLOW));
    }
    p.AddDependency({"w", "y"}); // y after w; x, z free
    p.AddBranch({"b", 0, {"z", "y"}});
    p.Finalize();
    ASSERT_EQ(p.GetBlocks().size(), 4U);
    EXPECT_EQ(BlockNames(p, 0), (std::vector<std::string>{"x"}));
    EXPECT_EQ(BlockNames(p, 1), (std::vector<std::string>{"z"}));
    EXPECT_EQ(BlockNames(p, 2), (std::vector<std::string>{"w"}));
    EXPECT_EQ(BlockNames(p, 3), (std::vector<std::string>{"y"}));
    // Branch lists z then y: blocks in topological order, each once.
    EXPECT_EQ(p.GetBranchBlocks(0), (std::vector<uint32_t>{1, 3}));
}

TEST(CoraProgram, BlockKeysMemoryAndAggregates)
{
    CoraProgram p("t");
    p.AddElement(Element("f1", CoraFlowKey::FLOW, 100, 16, 5));
    p.AddElement(Element("f2", CoraFlowKey::FLOW, 100, 8, 7));
    p.AddElement(Element("d1", CoraFlowKey::DST_IP, 4, 8, 1));
    p.AddElement(Element("d2", CoraFlowKey::DST_IP, 4, 4, 2));
    p.AddElement(Element("m1", CoraFlowKey::FLOW, 1000, 32, 3));
    p.AddElement(Element("m2", CoraFlowKey::SRC_IP, 10, 4, 4));
    p.AddDependency({"f1", "f2"});
    p.AddDependency({"f2", "f1"});
    p.AddDependency({"d1", "d2"});
    p.AddDependency({"d2", "d1"});
    p.AddDependency({"m1", "m2"});
    p.AddDependency({"m2", "m1"});
    p.AddBranch({"b", 0, {"f1"}});
    p.Finalize();
    const auto& blocks = p.GetBlocks();
    ASSERT_EQ(blocks.size(), 3U);
    EXPECT_EQ(blocks[0].key, CoraFlowKey::FLOW);
    EXPECT_DOUBLE_EQ(blocks[0].instructions, 12);
    EXPECT_EQ(blocks[0].memoryBytes, 100U * 16 + 100U * 8);
    EXPECT_EQ(blocks[0].bytesPerAggregate, 24U); // one entry of each element
    EXPECT_EQ(blocks[1].key, CoraFlowKey::DST_IP);
    EXPECT_EQ(blocks[1].memoryBytes, 48U);
    EXPECT_EQ(blocks[1].bytesPerAggregate, 12U);
    // Mixed keys: placed as one unit, the whole state is one aggregate.
    EXPECT_EQ(blocks[2].key, CoraFlowKey::GLOBAL);
    EXPECT_EQ(blocks[2].memoryBytes, 32040U);
    EXPECT_EQ(blocks[2].bytesPerAggregate, 32040U);
}

TEST(CoraProgram, SeedL4lbHttpBlocks)
{
    const auto p = CoraPrograms::L4lbHttp();
    EXPECT_EQ(p.GetName(), "l4lb-http");
    ASSERT_TRUE(p.IsFinalized());
    const auto& blocks = p.GetBlocks();
    ASSERT_EQ(blocks.size(), 3U);
    EXPECT_EQ(BlockNames(p, 0), (std::vector<std::string>{"ConnTable"}));
    EXPECT_EQ(BlockNames(p, 1), (std::vector<std::string>{"LoadCntr", "MinLoad"}));
    EXPECT_EQ(BlockNames(p, 2), (std::vector<std::string>{"CountMin"}));
    EXPECT_EQ(blocks[0].key, CoraFlowKey::FLOW);
    EXPECT_EQ(blocks[1].key, CoraFlowKey::GLOBAL); // DST_IP counters + GLOBAL minimum
    EXPECT_EQ(blocks[2].key, CoraFlowKey::GLOBAL);
    EXPECT_EQ(blocks[0].memoryBytes, 16U << 20);
    EXPECT_EQ(blocks[0].bytesPerAggregate, 16U);
    EXPECT_EQ(blocks[1].memoryBytes, 64U * 8 + 8);
    EXPECT_EQ(blocks[1].bytesPerAggregate, 520U);
    EXPECT_EQ(blocks[2].memoryBytes, 1U << 20);
    EXPECT_DOUBLE_EQ(blocks[0].instructions, 300);
    EXPECT_DOUBLE_EQ(blocks[1].instructions, 120);
    EXPECT_DOUBLE_EQ(blocks[2].instructions, 200);
    EXPECT_EQ(p.GetBranchBlocks(p.GetBranchIndex("http")), (std::vector<uint32_t>{2}));
    EXPECT_EQ(p.GetBranchBlocks(p.GetBranchIndex("l4lb")), (std::vector<uint32_t>{0, 1}));
}

TEST(CoraProgram, NicLoadSumsTheBranchElementsOnTheNic)
{
    const auto p = CoraPrograms::L4lbHttp();
    const uint32_t l4lb = p.GetBranchIndex("l4lb");
    const uint32_t http = p.GetBranchIndex("http");

    auto all = p.NicLoad(l4lb, {true, true, true});
    EXPECT_DOUBLE_EQ(all.statelessInstructions, 80);
    EXPECT_EQ(all.accesses.size(), 3U); // IMEM atomic 8 B of both counters merged
    EXPECT_DOUBLE_EQ(CountOf(all, kEmemRead16), 1.0);
    EXPECT_DOUBLE_EQ(CountOf(all, kImemAtomic8), 1.1);
    EXPECT_DOUBLE_EQ(CountOf(all, kImemRead8), 1.0);
    EXPECT_EQ(all.distinctLocks, 0U);

    auto connOnly = p.NicLoad(l4lb, {true, false, true});
    EXPECT_EQ(connOnly.accesses.size(), 1U);
    EXPECT_DOUBLE_EQ(CountOf(connOnly, kEmemRead16), 1.0);

    auto none = p.NicLoad(l4lb, {false, false, false});
    EXPECT_DOUBLE_EQ(none.statelessInstructions, 80);
    EXPECT_TRUE(none.accesses.empty());

    auto sketch = p.NicLoad(http, {false, false, true});
    EXPECT_DOUBLE_EQ(sketch.statelessInstructions, 50);
    EXPECT_DOUBLE_EQ(CountOf(sketch, kImemAtomic4), 4.0);
    EXPECT_EQ(sketch.distinctLocks, 64U);
    EXPECT_DOUBLE_EQ(sketch.lockAccessesPerPacket, 2.0);
    // The other branch's blocks on the NIC do not matter.
    auto sketchOff = p.NicLoad(http, {true, true, false});
    EXPECT_TRUE(sketchOff.accesses.empty());
    EXPECT_EQ(sketchOff.distinctLocks, 0U);

    EXPECT_THROW(p.NicLoad(l4lb, {true}), std::invalid_argument);
}

TEST(CoraProgram, LocksOfSeveralElementsAdd)
{
    CoraProgram p("t");
    auto a = Element("a", CoraFlowKey::GLOBAL);
    a.locks = 4;
    a.lockAccessesPerPacket = 2;
    auto b = Element("b", CoraFlowKey::GLOBAL);
    b.locks = 8;
    b.lockAccessesPerPacket = 1;
    b.accesses = {{kImemAtomic4, 1.5}};
    a.accesses = {{kImemAtomic4, 0.5}};
    p.AddElement(a);
    p.AddElement(b);
    p.AddBranch({"x", 7, {"b", "a"}});
    p.Finalize();
    const auto load = p.NicLoad(0, {true, true});
    EXPECT_EQ(load.distinctLocks, 12U);
    EXPECT_DOUBLE_EQ(load.lockAccessesPerPacket, 3.0);
    EXPECT_DOUBLE_EQ(CountOf(load, kImemAtomic4), 2.0);
    EXPECT_DOUBLE_EQ(load.statelessInstructions, 7.0);
}

TEST(CoraProgram, ShippedProgramsShapes)
{
    const auto tcp = CoraPrograms::TcpConnTable();
    ASSERT_EQ(tcp.GetBlocks().size(), 1U);
    EXPECT_EQ(tcp.GetBlocks()[0].key, CoraFlowKey::FLOW);
    EXPECT_EQ(tcp.GetBlocks()[0].bytesPerAggregate, 128U);
    EXPECT_EQ(tcp.GetBlocks()[0].memoryBytes, 8U << 20);
    EXPECT_EQ(tcp.GetBranchIndex("tcp"), 0U);

    const auto nat = CoraPrograms::Nat();
    ASSERT_EQ(nat.GetBlocks().size(), 2U);
    // PortAlloc feeds NatTable: first in topological order though declared second.
    EXPECT_EQ(BlockNames(nat, 0), (std::vector<std::string>{"PortAlloc"}));
    EXPECT_EQ(nat.GetBlocks()[0].key, CoraFlowKey::SRC_IP);
    EXPECT_EQ(BlockNames(nat, 1), (std::vector<std::string>{"NatTable"}));
    EXPECT_EQ(nat.GetBlocks()[1].key, CoraFlowKey::FLOW);
    EXPECT_EQ(nat.GetBranchBlocks(nat.GetBranchIndex("nat")), (std::vector<uint32_t>{0, 1}));

    const auto l4lb = CoraPrograms::L4lb();
    ASSERT_EQ(l4lb.GetBlocks().size(), 2U);
    EXPECT_EQ(l4lb.GetBranches().size(), 1U);
    const auto cm = CoraPrograms::CountMinSketch();
    ASSERT_EQ(cm.GetBlocks().size(), 1U);
    EXPECT_EQ(cm.GetBranchIndex("count"), 0U);

    for (const char* name : {"tcp", "l4lb-http", "l4lb", "count-min", "nat"})
    {
        EXPECT_EQ(CoraPrograms::ByName(name).GetName(), name);
    }
    const auto msg = ErrorOf([] { CoraPrograms::ByName("lb"); });
    EXPECT_TRUE(Contains(msg, {"'lb'", "tcp", "l4lb-http", "l4lb", "count-min", "nat"})) << msg;
}

TEST(CoraProgram, ShippedProgramsRunOnBothProfiles)
{
    // Every access kind the programs use exists in both profiles, and offloading state never
    // makes the NIC faster than running the branch's stateless part alone.
    const CoraPerfModel models[] = {CoraPerfModel(CoraPerfProfile::Netronome()),
                                    CoraPerfModel(CoraPerfProfile::BlueField())};
    for (const char* name : {"tcp", "l4lb-http", "l4lb", "count-min", "nat"})
    {
        const auto p = CoraPrograms::ByName(name);
        const std::vector<bool> on(p.GetBlocks().size(), true);
        const std::vector<bool> off(p.GetBlocks().size(), false);
        for (uint32_t b = 0; b < p.GetBranches().size(); ++b)
        {
            for (const auto& m : models)
            {
                const double full = m.PredictPps(p.NicLoad(b, on));
                const double stateless = m.PredictPps(p.NicLoad(b, off));
                EXPECT_TRUE(std::isfinite(full) && full > 0) << name;
                EXPECT_LE(full, stateless * (1 + 1e-12)) << name << " " << m.GetProfile().GetName();
            }
        }
    }
    // Netronome, measured with this model. TCP's three 64-byte EMEM accesses: 19.8 Mpps
    // against 25.5 stateless-only. The count-min's 4 atomic increments + 2 lock words in IMEM:
    // 15.2 Mpps against 26.7 (its 64 locks sustain 64 x 15.2 / 51.8 > 15.2, so no lock bound).
    // The L4LB's ~3 light accesses per packet stay under the 80-instruction stateless bound
    // (25.9 Mpps): the model combines independent bottlenecks by min.
    const auto& nfp = models[0];
    const auto tcp = CoraPrograms::TcpConnTable();
    EXPECT_NEAR(nfp.PredictPps(tcp.NicLoad(0, {true})), 19.83e6, 0.05e6);
    EXPECT_NEAR(nfp.PredictPps(tcp.NicLoad(0, {false})), 25.45e6, 0.05e6);
    const auto p = CoraPrograms::L4lbHttp();
    EXPECT_NEAR(nfp.PredictPps(p.NicLoad(0, {true, true, true})), 15.23e6, 0.05e6);
    EXPECT_NEAR(nfp.PredictPps(p.NicLoad(1, {true, true, true})), 25.93e6, 0.05e6);
}

TEST(CoraProgram, ElementValidation)
{
    CoraProgram p("prog");
    p.AddElement(Element("a", CoraFlowKey::FLOW));
    auto err = [&p](CoraStateElement e) { return ErrorOf([&] { p.AddElement(e); }); };
    EXPECT_TRUE(Contains(err(Element("a", CoraFlowKey::FLOW)), {"'prog'", "'a'", "duplicate"}));
    EXPECT_TRUE(Contains(err(Element("", CoraFlowKey::FLOW)), {"'prog'", "name"}));
    EXPECT_TRUE(Contains(err(Element("has space", CoraFlowKey::FLOW)), {"'has space'", "name"}));
    EXPECT_TRUE(Contains(err(Element("z", CoraFlowKey::FLOW, 0)), {"'z'", "entries"}));
    EXPECT_TRUE(Contains(err(Element("z", CoraFlowKey::FLOW, 1, 0)), {"'z'", "entry bytes"}));
    EXPECT_TRUE(Contains(err(Element("z", CoraFlowKey::FLOW, 1, 1, -1)), {"'z'", "instructions"}));
    EXPECT_TRUE(Contains(err(Element("z", CoraFlowKey::FLOW, 1, 1, NAN)), {"'z'", "instructions"}));
    auto badWidth = Element("w", CoraFlowKey::FLOW);
    badWidth.accesses = {{{CoraMemoryType::EMEM, CoraMemoryOp::READ, CoraAccessMode::BULK, 6}, 1}};
    EXPECT_TRUE(Contains(err(badWidth), {"'w'", "EMEM/read/bulk/6B", "width"}));
    auto badCount = Element("c", CoraFlowKey::FLOW);
    badCount.accesses = {{kEmemRead16, -1}};
    EXPECT_TRUE(Contains(err(badCount), {"'c'", "count"}));
    auto lockless = Element("l", CoraFlowKey::FLOW);
    lockless.lockAccessesPerPacket = 2;
    EXPECT_TRUE(Contains(err(lockless), {"'l'", "no locks"}));
    EXPECT_EQ(p.GetElements().size(), 1U); // nothing invalid was added
}

TEST(CoraProgram, DependencyBranchAndFinalizeValidation)
{
    CoraProgram p("prog");
    p.AddElement(Element("a", CoraFlowKey::FLOW));
    p.AddElement(Element("b", CoraFlowKey::FLOW));
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             p.AddDependency({"a", "q"});
                         }),
                         {"'prog'", "a -> q", "unknown element 'q'"}));
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             p.AddBranch({"br", 0, {"a", "q"}});
                         }),
                         {"branch 'br'", "unknown element 'q'"}));
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             p.AddBranch({"br", 0, {"a", "b", "a"}});
                         }),
                         {"branch 'br'", "'a' listed twice"}));
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             p.AddBranch({"br", -3, {"a"}});
                         }),
                         {"branch 'br'", "stateless"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.Finalize(); }), {"'prog'", "no branch"}));
    p.AddBranch({"br", 0, {"a"}});
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             p.AddBranch({"br", 0, {"b"}});
                         }),
                         {"branch 'br'", "duplicate"}));
    p.AddBranch({"other", 0, {"b"}});
    p.Finalize();
    EXPECT_TRUE(Contains(ErrorOf([&] { p.AddElement(Element("c", CoraFlowKey::FLOW)); }),
                         {"'c'", "after Finalize"}));
    EXPECT_TRUE(
        Contains(ErrorOf([&] { p.GetBranchIndex("nope"); }), {"'prog'", "'nope'", "br, other"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.GetElementIndex("nope"); }), {"'prog'", "'nope'"}));

    CoraProgram empty("empty");
    EXPECT_TRUE(Contains(ErrorOf([&] { empty.Finalize(); }), {"'empty'", "no state element"}));
    EXPECT_THROW(empty.GetBlocks(), std::logic_error);
}

} // namespace
} // namespace ns3
