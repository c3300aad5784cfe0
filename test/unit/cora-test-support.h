/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_TEST_CORA_TEST_SUPPORT_H
#define PRESTO_TEST_CORA_TEST_SUPPORT_H

// Programs and traffic shared by the Cora executor and controller unit tests.

#include "ns3/cora-allocator.h"
#include "ns3/cora-perf-model.h"
#include "ns3/cora-program.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{
namespace test
{
namespace cora
{

/// One 4-byte bulk EMEM read.
inline const CoraAccessKind EMEM_READ{CoraMemoryType::EMEM,
                                      CoraMemoryOp::READ,
                                      CoraAccessMode::BULK,
                                      4};

/// \return a state element doing `reads` EMEM reads per packet (lock-free)
inline CoraStateElement
Element(const std::string& name,
        CoraFlowKey key,
        uint64_t entries,
        uint32_t entryBytes,
        double instructions,
        double reads)
{
    CoraStateElement e;
    e.name = name;
    e.key = key;
    e.entries = entries;
    e.entryBytes = entryBytes;
    e.instructions = instructions;
    e.accesses = {{EMEM_READ, reads}};
    return e;
}

/**
 * A NAT-like program: a per-flow connection table "conn" (16 EMEM reads, 250 instructions,
 * 32 B per entry) feeding a per-destination counter "cnt" (1 read, 20 instructions, 8 B).
 * Two blocks; the counter block follows the table, so a flow whose table entry is on the host
 * comes back to the NIC for its counter.
 */
inline CoraProgram
ConnCounter()
{
    CoraProgram p("conn-counter");
    p.AddElement(Element("conn", CoraFlowKey::FLOW, 1 << 20, 32, 250, 16));
    p.AddElement(Element("cnt", CoraFlowKey::DST_IP, 256, 8, 20, 1));
    p.AddDependency({"conn", "cnt"});
    p.AddBranch({"pkt", 60, {"conn", "cnt"}});
    p.Finalize();
    return p;
}

/// \return the block holding the program's element `element`
inline uint32_t
BlockOf(const CoraProgram& p, const std::string& element)
{
    return p.GetBlockOf(p.GetElementIndex(element));
}

/// \return flow i: id 1000 + i, branch 0, source address i, destination i % 16
inline CoraFlow
Flow(uint32_t i)
{
    CoraFlow f;
    f.id = 1000 + i;
    f.branch = 0;
    f.srcIp = i;
    f.dstIp = i % 16;
    return f;
}

/// A packet arrival: time (ns) and flow index (for Flow()).
struct Arrival
{
    int64_t t;     //!< arrival time, ns
    uint32_t flow; //!< flow index
};

/// \return periodic arrivals of every flow i at pps[i] in [t0, t1) ns, merged in time order
inline std::vector<Arrival>
Periodic(const std::vector<double>& pps, int64_t t0, int64_t t1)
{
    std::vector<Arrival> out;
    for (uint32_t i = 0; i < pps.size(); ++i)
    {
        if (pps[i] <= 0)
        {
            continue;
        }
        const double period = 1e9 / pps[i];
        // Spread the phases so that flows do not arrive in lock step.
        for (double t = t0 + std::fmod(i * 7919.0, period); t < t1; t += period)
        {
            out.push_back({static_cast<int64_t>(t), i});
        }
    }
    std::stable_sort(out.begin(), out.end(), [](const Arrival& a, const Arrival& b) {
        return a.t < b.t;
    });
    return out;
}

/// \return Zipf(s) rates (pps) of n flows summing to total pps (flow 0 heaviest)
inline std::vector<double>
Zipf(uint32_t n, double s, double total)
{
    std::vector<double> w(n);
    double sum = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        w[i] = 1.0 / std::pow(i + 1.0, s);
        sum += w[i];
    }
    for (auto& x : w)
    {
        x *= total / sum;
    }
    return w;
}

/// \return a state-partition plan with every block of p wholly on the NIC
inline CoraPlan
AllOnNic(const CoraProgram& p)
{
    CoraPlan plan;
    plan.strategy = CoraStrategy::STATE_PARTITION;
    plan.wholeBlockOnNic.assign(p.GetBlocks().size(), true);
    return plan;
}

} // namespace cora
} // namespace test
} // namespace ns3

#endif // PRESTO_TEST_CORA_TEST_SUPPORT_H
