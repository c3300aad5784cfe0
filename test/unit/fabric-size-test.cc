/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fabric-size.h"
#include "ns3/fabric-topology.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/// \return the route entries the topology's own route computation gives (switches only)
uint64_t
ComputedRouteEntries(const FabricTopology& t)
{
    uint64_t n = 0;
    const auto routes = t.ComputeRoutes();
    for (uint32_t node = 0; node < t.GetNNodes(); ++node)
    {
        if (!t.IsHost(node))
        {
            for (const auto& ports : routes[node])
            {
                n += ports.size();
            }
        }
    }
    return n;
}

} // namespace

TEST(FabricSize, LeafSpineCountsMatchTheBuiltTopology)
{
    for (auto [l, s, h] : {std::array<uint32_t, 3>{2, 2, 4}, {4, 3, 8}, {1, 1, 1}, {6, 4, 2}})
    {
        const FabricTopology t = FabricTopology::LeafSpine(l, s, h, 10e9, 40e9, 1000);
        const FabricSize size = FabricSize::LeafSpine(l, s, h);
        EXPECT_EQ(size.hosts, t.GetNHosts());
        EXPECT_EQ(size.switches, t.GetNNodes() - t.GetNHosts());
        EXPECT_EQ(size.links, t.GetLinks().size());
        EXPECT_EQ(size.routeEntries, ComputedRouteEntries(t)) << l << "x" << s << "x" << h;
    }
}

TEST(FabricSize, FatTreeCountsMatchTheBuiltTopology)
{
    for (uint32_t k : {2u, 4u, 6u, 8u})
    {
        const FabricTopology t = FabricTopology::FatTree(k, 10e9, 40e9, 1000);
        const FabricSize size = FabricSize::FatTree(k);
        EXPECT_EQ(size.hosts, t.GetNHosts());
        EXPECT_EQ(size.switches, t.GetNNodes() - t.GetNHosts());
        EXPECT_EQ(size.links, t.GetLinks().size());
        EXPECT_EQ(size.routeEntries, ComputedRouteEntries(t)) << "k=" << k;
    }
}

TEST(FabricSize, BuiltTopologyEstimatesItsRoutes)
{
    // exact on the shapes (every host beyond a switch's own reached over all its up-ports)
    // up to the few hosts directly below it
    for (const FabricTopology& t : {FabricTopology::FatTree(6, 10e9, 40e9, 1000),
                                    FabricTopology::LeafSpine(4, 3, 50, 10e9, 40e9, 1000)})
    {
        const FabricSize size = FabricSize::Of(t);
        EXPECT_EQ(size.hosts, t.GetNHosts());
        EXPECT_EQ(size.links, t.GetLinks().size());
        const double computed = ComputedRouteEntries(t);
        EXPECT_GE(double(size.routeEntries), computed);
        EXPECT_LE(double(size.routeEntries), 1.2 * computed);
    }
}

TEST(FabricSize, HugeShapesDoNotWrapAndAreRefused)
{
    const FabricSize wrapped = FabricSize::LeafSpine(2, 2, 4294967295u);
    EXPECT_EQ(wrapped.hosts, 2 * uint64_t{4294967295u});
    EXPECT_NE(FabricLimitProblem(wrapped).find("hosts, more than the limit of 1048576"),
              std::string::npos)
        << FabricLimitProblem(wrapped);
    const FabricSize k200 = FabricSize::FatTree(200);
    EXPECT_EQ(k200.hosts, 2000000u);
    EXPECT_NE(FabricLimitProblem(k200), "");
    const FabricSize top = FabricSize::FatTree(4294967294u); // k^3 beyond 64 bits: saturated
    EXPECT_EQ(top.hosts, std::numeric_limits<uint64_t>::max());
    EXPECT_NE(FabricLimitProblem(top), "");
    EXPECT_EQ(FabricLimitProblem(FabricSize::FatTree(64)), ""); // 65,536 hosts: within limits
}

TEST(FabricSize, MemoryEstimateGrowsWithRoutes)
{
    // k=64: 65,536 hosts, 5,120 switches, 32 ECMP ports: the routes alone are > 100 GB
    const RunMemoryEstimate k64 = RunMemoryEstimate::Of(FabricSize::FatTree(64), 131e3, 0, 0, 0);
    EXPECT_GT(k64.fabricBytes, 100e9);
    EXPECT_NEAR(k64.hostBytes, 65536 * 131e3, 1);
    const RunMemoryEstimate small =
        RunMemoryEstimate::Of(FabricSize::LeafSpine(2, 2, 4), 131e3, 100, 2700, 10);
    EXPECT_LT(small.Total() - RunMemoryEstimate::BASE_BYTES, 10e6);
    EXPECT_NEAR(small.connectionBytes, 270000, 1);
    EXPECT_NE(small.Describe().find("GB (program"), std::string::npos) << small.Describe();
}
