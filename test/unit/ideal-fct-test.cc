/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ideal-fct.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace ns3;

namespace
{

/// A wire model with round numbers so hand computations stay readable.
WireModel
PlainWire(uint32_t mss)
{
    WireModel w;
    w.mssBytes = mss;
    w.dataOverhead = 0;
    w.synBytes = 0; // no handshake
    w.synAckBytes = 0;
    return w;
}

/**
 * The definition, followed literally: every packet (SYN, SYN-ACK, each data segment) is
 * store-and-forwarded hop by hop; a link sends one packet at a time, in order. O(segments x
 * hops), independent of the closed form under test.
 */
long double
BruteForceNs(uint64_t size, const std::vector<PathHop>& path, const WireModel& w)
{
    auto tx = [](uint64_t bytes, double rate) {
        return static_cast<long double>(bytes) * 8.0L * 1e9L / static_cast<long double>(rate);
    };
    long double t = 0;
    if (w.synBytes > 0)
    {
        for (const PathHop& h : path)
        {
            t += tx(w.synBytes, h.rateBps) + h.delayNs;
        }
        for (auto it = path.rbegin(); it != path.rend(); ++it)
        {
            t += tx(w.synAckBytes, it->rateBps) + it->delayNs;
        }
    }
    std::vector<long double> linkFree(path.size(), t);
    long double done = t;
    for (uint64_t sent = 0; sent < size; sent += w.mssBytes)
    {
        const uint64_t payload = std::min<uint64_t>(w.mssBytes, size - sent);
        long double arrival = t; // at the sender: all data is ready at t
        for (std::size_t h = 0; h < path.size(); ++h)
        {
            const long double start = std::max(arrival, linkFree[h]);
            linkFree[h] = start + tx(payload + w.dataOverhead, path[h].rateBps);
            arrival = linkFree[h] + path[h].delayNs;
        }
        done = arrival;
    }
    return done;
}

std::vector<PathHop>
LeafSpine()
{
    // host -10G-> leaf -40G-> spine -40G-> leaf -10G-> host, 1 us per link
    return {{10e9, 1000}, {40e9, 1000}, {40e9, 1000}, {10e9, 1000}};
}

} // namespace

TEST(IdealFct, OneHopWithHandshake)
{
    // 10G, 1 us. SYN and SYN-ACK: 62 B = 49.6 ns each + 1000 ns -> 2099.2 ns.
    // One segment of 1000 + 54 B = 843.2 ns + 1000 ns. Total 3942.4 -> rounded up 3943.
    std::vector<PathHop> path{{10e9, 1000}};
    EXPECT_EQ(IdealFctNs(1000, path, WireModel{}), 3943);
}

TEST(IdealFct, LeafSpineOneSegment)
{
    // Handshake: each way 49.6 + 12.4 + 12.4 + 49.6 + 4000 = 4124 ns -> 8248.
    // 1448 B payload = 1502 B on the wire: 1201.6 + 300.4 + 300.4 + 1201.6 + 4000 = 7004.
    EXPECT_EQ(IdealFctNs(1448, LeafSpine(), WireModel{}), 8248 + 7004);
    // One byte is still one segment, 55 B: 44 + 11 + 11 + 44 + 4000 = 4110.
    EXPECT_EQ(IdealFctNs(1, LeafSpine(), WireModel{}), 8248 + 4110);
}

TEST(IdealFct, LeafSpineManySegments)
{
    // 100 full segments: the first takes 7004 ns, the other 99 follow spaced by the 10G
    // serialisation of 1502 B (1201.6 ns): 8248 + 7004 + 118958.4 = 134210.4 -> 134211.
    EXPECT_EQ(IdealFctNs(144800, LeafSpine(), WireModel{}), 134211);
}

TEST(IdealFct, BottleneckInTheMiddle)
{
    // 40G / 10G / 40G, 500 ns each, three 1000 B segments, no overhead, no handshake.
    // Link 1: 200 ns per segment, departures 200, 400, 600.
    // Link 2: 800 ns per segment: 1500, 2300, 3100 (queued behind each other).
    // Link 3: arrivals 2000, 2800, 3600 -> departures 2200, 3000, 3800; +500 = 4300.
    std::vector<PathHop> path{{40e9, 500}, {10e9, 500}, {40e9, 500}};
    EXPECT_EQ(IdealFctNs(3000, path, PlainWire(1000)), 4300);
}

TEST(IdealFct, SmallerLastSegment)
{
    // 2500 B with MSS 1000: segments 1000, 1000, 500; no overhead, no delay, no handshake.
    // Fast then slow (40G -> 10G): link 1 departs 200, 400, 500; link 2 is busy until
    // 1000 and 1800, so the last segment waits for it: 1800 + 400 = 2200.
    std::vector<PathHop> fastSlow{{40e9, 0}, {10e9, 0}};
    EXPECT_EQ(IdealFctNs(2500, fastSlow, PlainWire(1000)), 2200);
    // Slow then fast (10G -> 40G): link 1 departs 800, 1600, 2000; link 2 is idle when
    // each arrives: 1000, 1800, 2000 + 100 = 2100.
    std::vector<PathHop> slowFast{{10e9, 0}, {40e9, 0}};
    EXPECT_EQ(IdealFctNs(2500, slowFast, PlainWire(1000)), 2100);
    // Only a smaller segment (size < MSS): 500 B = 400 + 100 ns.
    EXPECT_EQ(IdealFctNs(500, slowFast, PlainWire(1000)), 500);
}

TEST(IdealFct, RoundsUpToNanoseconds)
{
    // 1 B at 3 Gbit/s = 8/3 ns = 2.67 -> 3; an exact 8 ns (1 B at 1G) stays 8.
    EXPECT_EQ(IdealFctNs(1, {{3e9, 0}}, PlainWire(1000)), 3);
    EXPECT_EQ(IdealFctNs(1, {{1e9, 0}}, PlainWire(1000)), 8);
}

TEST(IdealFct, LongerFlowsTakeLonger)
{
    int64_t previous = 0;
    for (uint64_t size : {1ULL, 1447ULL, 1448ULL, 1449ULL, 10000ULL, 1000000ULL, 100000000ULL})
    {
        const int64_t fct = IdealFctNs(size, LeafSpine(), WireModel{});
        EXPECT_GT(fct, previous) << "size " << size;
        previous = fct;
    }
}

TEST(IdealFct, RejectsBadInput)
{
    EXPECT_THROW(IdealFctNs(0, LeafSpine(), WireModel{}), PrestoInputError);
    EXPECT_THROW(IdealFctNs(1000, {}, WireModel{}), PrestoInputError);
    EXPECT_THROW(IdealFctNs(1000, {{10e9, 0}, {0, 0}}, WireModel{}), PrestoInputError);
    EXPECT_THROW(IdealFctNs(1000, {{-1e9, 0}}, WireModel{}), PrestoInputError);
    EXPECT_THROW(IdealFctNs(1000, {{std::nan(""), 0}}, WireModel{}), PrestoInputError);
    EXPECT_THROW(IdealFctNs(1000, {{10e9, -5}}, WireModel{}), PrestoInputError);
    WireModel noMss;
    noMss.mssBytes = 0;
    EXPECT_THROW(IdealFctNs(1000, LeafSpine(), noMss), PrestoInputError);
    try
    {
        IdealFctNs(1000, {{10e9, 0}, {0, 0}}, WireModel{});
        FAIL() << "no exception";
    }
    catch (const PrestoInputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("hop 1"), std::string::npos) << e.what();
    }
}

TEST(IdealFct, AgreesWithPerSegmentSimulation)
{
    std::mt19937_64 rng(20240611);
    const double rates[] = {1e9, 2.5e9, 10e9, 25e9, 40e9, 100e9, 3e9};
    std::uniform_int_distribution<int> hopsDist(1, 6);
    std::uniform_int_distribution<int> rateDist(0, 6);
    std::uniform_int_distribution<int64_t> delayDist(0, 5000);
    std::uniform_int_distribution<uint64_t> sizeDist(1, 300000);
    std::uniform_int_distribution<uint32_t> mssDist(100, 9000);
    std::uniform_int_distribution<uint32_t> overheadDist(0, 80);
    std::bernoulli_distribution handshake(0.7);
    for (int trial = 0; trial < 400; ++trial)
    {
        std::vector<PathHop> path(hopsDist(rng));
        for (PathHop& h : path)
        {
            h.rateBps = rates[rateDist(rng)];
            h.delayNs = delayDist(rng);
        }
        WireModel w;
        w.mssBytes = trial % 4 == 0 ? 1448 : mssDist(rng);
        w.dataOverhead = overheadDist(rng);
        w.synBytes = handshake(rng) ? 62 : 0;
        w.synAckBytes = 66;
        // Sometimes an exact multiple of the MSS, so the all-equal case is covered too.
        const uint64_t size = trial % 5 == 0 ? w.mssBytes * (1 + trial % 37) : sizeDist(rng);
        const long double expected = BruteForceNs(size, path, w);
        const int64_t got = IdealFctNs(size, path, w);
        EXPECT_LE(std::fabs(static_cast<long double>(got) - expected), 1.0L)
            << "trial " << trial << " size " << size << " hops " << path.size() << " mss "
            << w.mssBytes << ": closed form " << got << " ns, simulation " << expected;
        EXPECT_GE(static_cast<long double>(got), expected - 1e-6L) << "not rounded up";
    }
}
