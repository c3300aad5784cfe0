/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/flextoe-pipeline.h"
#include "ns3/flextoe-profile.h"
#include "ns3/presto-input-error.h"

#include <cstdint>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

/// A stage description with the given pool.
FlexToeStageConfig
Stage(uint32_t cores, double clockHz, double cycles, uint32_t queue = 1024, uint32_t threads = 1)
{
    FlexToeStageConfig s;
    s.cores = cores;
    s.clockHz = clockHz;
    s.cyclesPerPacket = cycles;
    s.queueCapacity = queue;
    s.threadsPerCore = threads;
    return s;
}

/// A pipeline whose stages other than protocol are far from saturation.
FlexToePipelineConfig
FastConfig(uint32_t groups, double protocolCycles)
{
    FlexToePipelineConfig c;
    c.name = "test";
    c.flowGroups = groups;
    c.Stage(FlexToeStage::PRE) = Stage(32, 1e9, 50);
    c.Stage(FlexToeStage::SEQUENCER) = Stage(8, 1e9, 10, 4096);
    c.Stage(FlexToeStage::PROTOCOL) = Stage(1, 1e9, protocolCycles);
    c.Stage(FlexToeStage::POST) = Stage(32, 1e9, 50);
    c.Stage(FlexToeStage::DMA) = Stage(32, 1e9, 50);
    return c;
}

/// Measured delivery rate of a run.
struct OfferRun
{
    uint64_t delivered{0};
    uint64_t dropped{0};
    double pps{0}; //!< (delivered - 1) / (last departure - first departure)
};

/**
 * Offer n packets, one every intervalPs picoseconds (rounded to ns for the API: the interval
 * is a whole number of ns here), flow hash = flowOf(i), payload bytes.
 */
template <typename FlowOf>
OfferRun
Offer(FlexToePipeline& p, uint32_t n, uint64_t intervalNs, FlowOf flowOf, uint32_t payload = 0)
{
    OfferRun r;
    uint64_t first = UINT64_MAX;
    uint64_t last = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const FlexToeResult res = p.Process(i * intervalNs, flowOf(i), payload);
        if (res.dropped)
        {
            ++r.dropped;
            continue;
        }
        ++r.delivered;
        first = std::min(first, res.departPs);
        last = std::max(last, res.departPs);
    }
    if (r.delivered > 1)
    {
        r.pps = (r.delivered - 1) / ((last - first) * 1e-12);
    }
    return r;
}

} // namespace

// One flow is serialised on its group's protocol core: throughput = clock / cycles.
TEST(FlexToePipeline, SingleFlowCappedByProtocolCore)
{
    const double clock = 1e9;
    const double cycles = 800; // 1.25 Mpps
    FlexToePipeline p(FastConfig(4, cycles));
    // Offer at 2 Mpps (one per 500 ns), faster than the protocol core.
    const OfferRun r = Offer(p, 40000, 500, [](uint32_t) { return 7u; });
    EXPECT_NEAR(r.pps, clock / cycles, 0.05 * clock / cycles);
    EXPECT_GT(r.dropped, 0u);
    EXPECT_EQ(p.GetStats(FlexToeStage::PROTOCOL).drops, r.dropped);
    EXPECT_EQ(p.GetStats(FlexToeStage::PROTOCOL).maxQueue, 1024u);
    EXPECT_GT(p.GetUtilisation(FlexToeStage::PROTOCOL) * 4, 0.95); // one of 4 cores busy
    EXPECT_NEAR(p.GetCapacityPps(FlexToeStage::PROTOCOL, 0), clock / cycles, 1e-6);
}

// The same on the shipped Agilio profile (memory stall hidden by 8 threads).
TEST(FlexToePipeline, AgilioSingleFlowCap)
{
    const FlexToePipelineConfig cfg = FlexToeProfile::Get("agilio-cx40");
    const auto& proto = cfg.Stage(FlexToeStage::PROTOCOL);
    const double cap = proto.clockHz / proto.cyclesPerPacket;
    FlexToePipeline p(cfg);
    const auto interval = static_cast<uint64_t>(0.5e9 / cap); // offer at 2x the cap
    const OfferRun r = Offer(
        p,
        40000,
        interval,
        [](uint32_t) { return 12345u; },
        1448);
    EXPECT_NEAR(r.pps, cap, 0.05 * cap);
    EXPECT_GT(p.GetStats(FlexToeStage::PROTOCOL).drops, 0u);
    EXPECT_EQ(p.GetStats(FlexToeStage::PRE).drops, 0u);
}

// Threads hide the memory stall: 1 thread gives 1 / (service + stall), enough threads give
// clock / cycles.
TEST(FlexToePipeline, ThreadsHideMemoryStall)
{
    for (uint32_t threads : {1u, 2u, 8u})
    {
        FlexToePipelineConfig c = FastConfig(1, 500); // 500 ns service
        c.Stage(FlexToeStage::PROTOCOL).threadsPerCore = threads;
        c.Stage(FlexToeStage::PROTOCOL).memoryStallNs = 500;
        FlexToePipeline p(c);
        const OfferRun r = Offer(p, 20000, 100, [](uint32_t) { return 0u; });
        const double expected = std::min(2e6, threads / 1e-6);
        EXPECT_NEAR(r.pps, expected, 0.05 * expected) << "threads " << threads;
    }
}

// Many flows over G groups: throughput G x per-group cap until post-processing saturates.
TEST(FlexToePipeline, AggregateScalesWithGroupsUntilPostSaturates)
{
    const double protoCycles = 1000; // 1 Mpps per group at 1 GHz
    const uint32_t postCores = 2;
    const double postCycles = 400; // 2 x 2.5 Mpps = 5 Mpps
    const double postCap = postCores * 1e9 / postCycles;
    double previous = 0;
    for (uint32_t g : {1u, 2u, 3u, 4u, 6u, 8u, 12u})
    {
        FlexToePipelineConfig c = FastConfig(g, protoCycles);
        c.Stage(FlexToeStage::POST) = Stage(postCores, 1e9, postCycles);
        FlexToePipeline p(c);
        // 20 Mpps offered (one per 50 ns) over 1000 flows with well-spread hashes.
        std::mt19937 rng(42);
        std::vector<uint32_t> flows(1000);
        for (auto& f : flows)
        {
            f = rng();
        }
        const OfferRun r = Offer(p, 200000, 50, [&flows](uint32_t i) { return flows[i % 1000]; });
        // Expected from the configuration, independent of the model's own capacity helper.
        // Flows are hashed, so the busiest group limits nothing: every group is saturated.
        const double expected = std::min(g * 1e9 / protoCycles, postCap);
        EXPECT_NEAR(r.pps, expected, 0.05 * expected) << "groups " << g;
        if (g * 1e9 / protoCycles < postCap)
        {
            EXPECT_GT(r.pps, previous * 1.1) << "throughput should grow with groups " << g;
            EXPECT_EQ(p.GetStats(FlexToeStage::POST).drops, 0u);
        }
        else
        {
            EXPECT_GT(p.GetStats(FlexToeStage::POST).drops, 0u) << "groups " << g;
            EXPECT_GT(p.GetUtilisation(FlexToeStage::POST), 0.95) << "groups " << g;
        }
        previous = r.pps;
    }
}

// DMA cost per payload byte saturates the pipeline for large segments.
TEST(FlexToePipeline, DmaBytesSaturate)
{
    FlexToePipelineConfig c = FastConfig(16, 100);
    c.Stage(FlexToeStage::DMA) = Stage(2, 1e9, 100);
    c.Stage(FlexToeStage::DMA).cyclesPerByte = 1.0;
    FlexToePipeline p(c);
    // 1400-byte payloads: 1500 cycles per packet on 2 cores = 1.333 Mpps.
    const OfferRun r = Offer(
        p,
        50000,
        100,
        [](uint32_t i) { return i; },
        1400);
    const double expected = 2 * 1e9 / 1500.0;
    EXPECT_NEAR(r.pps, expected, 0.05 * expected);
    EXPECT_GT(p.GetStats(FlexToeStage::DMA).drops, 0u);
    EXPECT_NEAR(p.GetCapacityPps(FlexToeStage::DMA, 1400), expected, 1e-6);
}

// A burst larger than the queue: the core takes one, the queue holds capacity, rest drop.
TEST(FlexToePipeline, FullQueueDropsAndCounts)
{
    FlexToePipelineConfig c = FastConfig(2, 1000);
    for (auto s :
         {FlexToeStage::PRE, FlexToeStage::SEQUENCER, FlexToeStage::POST, FlexToeStage::DMA})
    {
        c.Stage(s).cyclesPerPacket = 0; // everything reaches the protocol core at once
    }
    c.Stage(FlexToeStage::PROTOCOL).queueCapacity = 10;
    FlexToePipeline p(c);
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < 100; ++i)
    {
        const FlexToeResult r = p.Process(0, 0, 0);
        if (r.dropped)
        {
            ++dropped;
            EXPECT_EQ(r.dropStage, FlexToeStage::PROTOCOL);
            EXPECT_EQ(r.reason, FlexToeDropReason::QUEUE_FULL);
        }
    }
    EXPECT_EQ(dropped, 89u);
    EXPECT_EQ(p.GetStats(FlexToeStage::PROTOCOL).drops, 89u);
    EXPECT_EQ(p.GetStats(FlexToeStage::PROTOCOL).packets, 11u);
    EXPECT_EQ(p.GetStats(FlexToeStage::PROTOCOL).maxQueue, 10u);
    EXPECT_EQ(p.GetDropped(), 89u);
    EXPECT_EQ(p.GetDelivered(), 11u);
    // The other flow group has its own protocol core and queue.
    EXPECT_FALSE(p.Process(0, 1, 0).dropped);
    // At 1 us one packet has left service and one queued packet started: one slot is free.
    EXPECT_FALSE(p.Process(1000, 0, 0).dropped);
    EXPECT_TRUE(p.Process(1000, 0, 0).dropped);
    // After the backlog is served, packets get through again.
    const FlexToeResult later = p.Process(100000, 0, 0);
    EXPECT_FALSE(later.dropped);
    EXPECT_EQ(later.departPs, 100000ull * 1000 + 1000 * 1000);
}

// The sequencer holds a group's packets until the earlier ones of that group are released.
TEST(FlexToePipeline, SequencerRestoresOrderPerGroup)
{
    FlexToePipelineConfig c = FastConfig(2, 0);
    c.Stage(FlexToeStage::PRE) = Stage(2, 1e9, 100);
    c.Stage(FlexToeStage::PRE).cyclesPerByte = 1.0;
    for (auto s : {FlexToeStage::SEQUENCER, FlexToeStage::POST, FlexToeStage::DMA})
    {
        c.Stage(s).cyclesPerPacket = 0;
    }
    {
        FlexToePipeline p(c);
        const FlexToeResult big = p.Process(0, 0, 10000); // group 0, 10.1 us of pre
        const FlexToeResult small = p.Process(0, 2, 0);   // group 0, 0.1 us of pre
        EXPECT_EQ(big.departPs, 10100000u);
        EXPECT_EQ(small.departPs, big.departPs); // held for order
        EXPECT_GT(p.GetStats(FlexToeStage::SEQUENCER).maxQueue, 0u);
    }
    {
        FlexToePipeline p(c);
        const FlexToeResult big = p.Process(0, 0, 10000); // group 0
        const FlexToeResult other = p.Process(0, 1, 0);   // group 1: not held
        EXPECT_EQ(big.departPs, 10100000u);
        EXPECT_EQ(other.departPs, 100000u);
    }
    // Random sizes and groups: within each group departures follow entry order.
    FlexToePipeline p(FastConfig(4, 200));
    std::mt19937 rng(7);
    std::vector<uint64_t> lastDepart(4, 0);
    uint32_t checked = 0;
    for (uint32_t i = 0; i < 20000; ++i)
    {
        const uint32_t flow = rng();
        const FlexToeResult r = p.Process(i * 30, flow, rng() % 1500);
        if (!r.dropped)
        {
            EXPECT_GE(r.departPs, lastDepart[r.group]);
            lastDepart[r.group] = r.departPs;
            ++checked;
        }
    }
    EXPECT_GT(checked, 10000u);
}

// A bounded reorder buffer: the sequencer drops when it holds queueCapacity packets.
TEST(FlexToePipeline, SequencerBufferBounded)
{
    FlexToePipelineConfig c = FastConfig(1, 0);
    c.Stage(FlexToeStage::PRE) = Stage(4, 1e9, 100);
    c.Stage(FlexToeStage::PRE).cyclesPerByte = 1.0;
    c.Stage(FlexToeStage::SEQUENCER) = Stage(1, 1e9, 0, 2);
    FlexToePipeline p(c);
    EXPECT_FALSE(p.Process(0, 0, 10000).dropped); // slow: holds the sequence
    EXPECT_FALSE(p.Process(0, 0, 0).dropped);     // held (1)
    EXPECT_FALSE(p.Process(0, 0, 0).dropped);     // held (2)
    const FlexToeResult r = p.Process(0, 0, 0);   // buffer holds 2 waiting for release
    EXPECT_TRUE(r.dropped);
    EXPECT_EQ(r.dropStage, FlexToeStage::SEQUENCER);
    EXPECT_EQ(p.GetStats(FlexToeStage::SEQUENCER).drops, 1u);
}

// Extension cycles are charged to the stage: a 1000-cycle module on the protocol core halves
// a flow's throughput; an extension drop stops the packet at that stage.
TEST(FlexToePipeline, ExtensionCyclesAndDrops)
{
    FlexToePipeline p(FastConfig(1, 1000));
    FlexToeStageCycles extra{};
    extra[static_cast<std::size_t>(FlexToeStage::PROTOCOL)] = 1000;
    uint64_t first = 0;
    uint64_t last = 0;
    const uint32_t n = 20000;
    for (uint32_t i = 0; i < n; ++i)
    {
        const FlexToeResult r = p.Process(i * 2000ull, 0, 0, extra);
        ASSERT_FALSE(r.dropped);
        (i == 0 ? first : last) = r.departPs;
    }
    EXPECT_NEAR((n - 1) / ((last - first) * 1e-12), 0.5e6, 0.025e6);
    EXPECT_DOUBLE_EQ(p.GetStats(FlexToeStage::PROTOCOL).extensionCycles, 1000.0 * n);

    const FlexToeResult d = p.Process(n * 2000ull,
                                      0,
                                      0,
                                      FlexToeStageCycles{},
                                      static_cast<std::size_t>(FlexToeStage::PRE));
    EXPECT_TRUE(d.dropped);
    EXPECT_EQ(d.reason, FlexToeDropReason::EXTENSION);
    EXPECT_EQ(d.dropStage, FlexToeStage::PRE);
    EXPECT_EQ(p.GetStats(FlexToeStage::PRE).extensionDrops, 1u);
    EXPECT_EQ(p.GetStats(FlexToeStage::SEQUENCER).packets, n); // never got there
}

TEST(FlexToePipeline, DeterministicAndReset)
{
    auto run = [](FlexToePipeline& p) {
        std::mt19937 rng(3);
        std::vector<uint64_t> out;
        for (uint32_t i = 0; i < 5000; ++i)
        {
            const FlexToeResult r = p.Process(i * 20, rng(), rng() % 1500);
            out.push_back(r.dropped ? 0 : r.departPs);
        }
        return out;
    };
    FlexToePipeline a(FlexToeProfile::Get("bluefield"));
    FlexToePipeline b(FlexToeProfile::Get("bluefield"));
    const auto ra = run(a);
    EXPECT_EQ(ra, run(b));
    a.Reset();
    EXPECT_EQ(a.GetDelivered(), 0u);
    EXPECT_EQ(ra, run(a));
}

TEST(FlexToePipeline, TimeMustNotGoBackwards)
{
    FlexToePipeline p(FlexToeProfile::Get("x86"));
    p.Process(1000, 1, 64);
    const std::string e = ErrorOf([&p] { p.Process(999, 1, 64); });
    EXPECT_TRUE(Contains(e, {"x86", "999 ns", "before"})) << e;
}

TEST(FlexToeProfile, NamedProfilesLoad)
{
    const auto names = FlexToeProfile::Names();
    ASSERT_EQ(names.size(), 3u);
    EXPECT_EQ(names[0], FlexToeProfile::DEFAULT);
    for (const auto& n : names)
    {
        const FlexToePipelineConfig c = FlexToeProfile::Get(n);
        EXPECT_EQ(c.name, n);
        FlexToePipeline p(c);
        EXPECT_FALSE(p.Process(0, 1, 100).dropped) << n;
    }
    const FlexToePipelineConfig a = FlexToeProfile::Get("agilio-cx40");
    EXPECT_EQ(a.flowGroups, 4u);
    EXPECT_EQ(a.Stage(FlexToeStage::PRE).cores, 16u);
    EXPECT_EQ(a.Stage(FlexToeStage::POST).cores, 16u);
    EXPECT_DOUBLE_EQ(a.Stage(FlexToeStage::PROTOCOL).clockHz, 800e6);
    EXPECT_EQ(a.Stage(FlexToeStage::PROTOCOL).threadsPerCore, 8u);
    const FlexToePipelineConfig bf = FlexToeProfile::Get("bluefield");
    uint32_t cores = bf.flowGroups;
    for (auto s :
         {FlexToeStage::PRE, FlexToeStage::SEQUENCER, FlexToeStage::POST, FlexToeStage::DMA})
    {
        cores += bf.Stage(s).cores;
    }
    EXPECT_EQ(cores, 8u); // a BlueField-2 has 8 A72 cores
}

// The agilio-cx40 profile places cores as the FlexTOE artifact's firmware does (firmware/
// Makefile: 16 preprocess, 4 process, 16 postprocess, 8 DMA engines, 1 GRO; config.h: 4 flow
// groups; nfcc -Qnctx_mode=8). One GRO core orders every flow group: the sequencer is one
// server, with the capacity of one core.
TEST(FlexToeProfile, AgilioFollowsTheArtifactLayout)
{
    const FlexToePipelineConfig a = FlexToeProfile::Get("agilio-cx40");
    EXPECT_EQ(a.flowGroups, 4u);
    EXPECT_EQ(a.Stage(FlexToeStage::PRE).cores, 16u);
    EXPECT_EQ(a.Stage(FlexToeStage::SEQUENCER).cores, 1u);
    EXPECT_EQ(a.Stage(FlexToeStage::PROTOCOL).cores, 4u);
    EXPECT_EQ(a.Stage(FlexToeStage::POST).cores, 16u);
    EXPECT_EQ(a.Stage(FlexToeStage::DMA).cores, 8u);
    uint32_t cores = 0;
    for (const auto& s : a.stages)
    {
        EXPECT_EQ(s.threadsPerCore, 8u);
        cores += s.cores;
    }
    EXPECT_EQ(cores, 45u); // + queue manager, ATX, ARX, slow path, BLM = the artifact's 50
    const auto& seq = a.Stage(FlexToeStage::SEQUENCER);
    const FlexToePipeline p(a);
    EXPECT_NEAR(p.GetCapacityPps(FlexToeStage::SEQUENCER, 0), seq.clockHz / seq.cyclesPerPacket, 1);
}

TEST(FlexToeProfile, BadNameAndBadConfigError)
{
    const std::string e = ErrorOf([] { FlexToeProfile::Get("agilio"); });
    EXPECT_TRUE(Contains(e, {"'agilio'", "agilio-cx40", "bluefield", "x86"})) << e;
    FlexToePipelineConfig c = FastConfig(4, 100);
    c.name = "mine";
    c.Stage(FlexToeStage::POST).cores = 0;
    const std::string e2 = ErrorOf([&c] { FlexToePipeline p(c); });
    EXPECT_TRUE(Contains(e2, {"mine", "post", "cores"})) << e2;
    c = FastConfig(0, 100);
    EXPECT_TRUE(Contains(ErrorOf([&c] { FlexToeProfile::Validate(c); }), {"flowGroups"}));
    c = FastConfig(2, -1);
    EXPECT_TRUE(
        Contains(ErrorOf([&c] { FlexToeProfile::Validate(c); }), {"protocol", "cyclesPerPacket"}));
    c = FastConfig(2, 100);
    c.Stage(FlexToeStage::DMA).queueCapacity = 0;
    EXPECT_TRUE(Contains(ErrorOf([&c] { FlexToeProfile::Validate(c); }), {"dma", "queueCapacity"}));
}
