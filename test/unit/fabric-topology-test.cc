/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/fabric-topology.h"
#include "ns3/presto-input-error.h"

#include <gtest/gtest.h>
#include <set>

using namespace ns3;

namespace
{

/** \return the neighbour reached through port p of node n */
uint32_t
Neighbour(const FabricTopology& t, uint32_t n, uint32_t p)
{
    const auto& link = t.GetLinks()[t.GetPorts(n)[p]];
    return link.a == n ? link.b : link.a;
}

/** \return the switch a host hangs off */
uint32_t
HostSwitch(const FabricTopology& t, uint32_t host)
{
    return Neighbour(t, t.HostNode(host), 0);
}

} // namespace

TEST(FabricTopology, LeafSpineShape)
{
    auto t = FabricTopology::LeafSpine(4, 3, 8, 10e9, 40e9, 1000);
    EXPECT_EQ(t.GetNHosts(), 32u);
    EXPECT_EQ(t.GetNNodes(), 32u + 4 + 3);
    EXPECT_EQ(t.GetLinks().size(), 32u + 4 * 3);
    uint32_t leaves = 0;
    uint32_t spines = 0;
    for (uint32_t n = 0; n < t.GetNNodes(); ++n)
    {
        if (t.IsHost(n))
        {
            EXPECT_EQ(t.GetPorts(n).size(), 1u);
            EXPECT_EQ(t.HostNode(t.HostIndex(n)), n);
            continue;
        }
        if (t.GetTier(n) == 0)
        {
            ++leaves;
            EXPECT_EQ(t.GetPorts(n).size(), 8u + 3);
        }
        else
        {
            ++spines;
            EXPECT_EQ(t.GetPorts(n).size(), 4u);
        }
    }
    EXPECT_EQ(leaves, 4u);
    EXPECT_EQ(spines, 3u);
    EXPECT_NE(t.Describe().find("leaf-spine"), std::string::npos);
    EXPECT_NE(t.Describe().find("32 hosts"), std::string::npos);
}

TEST(FabricTopology, LeafSpineRouteCounts)
{
    const uint32_t spines = 4;
    auto t = FabricTopology::LeafSpine(3, spines, 2, 10e9, 40e9, 1000);
    auto routes = t.ComputeRoutes();
    ASSERT_EQ(routes.size(), t.GetNNodes());
    for (uint32_t n = 0; n < t.GetNNodes(); ++n)
    {
        for (uint32_t h = 0; h < t.GetNHosts(); ++h)
        {
            const auto& ports = routes[n][h];
            if (t.IsHost(n))
            {
                EXPECT_TRUE(ports.empty());
                continue;
            }
            if (t.GetTier(n) == 0)
            {
                if (HostSwitch(t, h) == n)
                {
                    // local host: exactly the port facing it
                    ASSERT_EQ(ports.size(), 1u);
                    EXPECT_EQ(Neighbour(t, n, ports[0]), t.HostNode(h));
                }
                else
                {
                    // remote host: every spine
                    ASSERT_EQ(ports.size(), spines);
                    for (uint32_t p : ports)
                    {
                        uint32_t m = Neighbour(t, n, p);
                        EXPECT_FALSE(t.IsHost(m));
                        EXPECT_EQ(t.GetTier(m), 1u);
                    }
                }
            }
            else
            {
                // spine: the one port to the host's leaf
                ASSERT_EQ(ports.size(), 1u);
                EXPECT_EQ(Neighbour(t, n, ports[0]), HostSwitch(t, h));
            }
        }
    }
}

TEST(FabricTopology, FatTreeRouteCounts)
{
    const uint32_t k = 4;
    auto t = FabricTopology::FatTree(k, 10e9, 10e9, 500);
    EXPECT_EQ(t.GetNHosts(), k * k * k / 4);
    EXPECT_EQ(t.GetNNodes(), k * k * k / 4 + k * k + k * k / 4);
    // every switch has k ports
    for (uint32_t n = 0; n < t.GetNNodes(); ++n)
    {
        if (!t.IsHost(n))
        {
            EXPECT_EQ(t.GetPorts(n).size(), k) << "switch " << n;
        }
    }
    auto routes = t.ComputeRoutes();
    // pod of a host: k/2 * k/2 hosts per pod, in creation order
    auto pod = [&](uint32_t host) { return host / (k / 2 * k / 2); };
    // pod of a switch: the pod of any host below it, found through an edge switch
    auto switchPod = [&](uint32_t s) -> int {
        uint32_t tier = t.GetTier(s);
        if (tier == 2)
        {
            return -1;
        }
        uint32_t edge = s;
        if (tier == 1)
        {
            for (uint32_t p = 0; p < t.GetPorts(s).size(); ++p)
            {
                uint32_t m = Neighbour(t, s, p);
                if (t.GetTier(m) == 0)
                {
                    edge = m;
                    break;
                }
            }
        }
        for (uint32_t p = 0; p < t.GetPorts(edge).size(); ++p)
        {
            uint32_t m = Neighbour(t, edge, p);
            if (t.IsHost(m))
            {
                return static_cast<int>(pod(t.HostIndex(m)));
            }
        }
        return -2;
    };
    uint32_t checked = 0;
    for (uint32_t s = 0; s < t.GetNNodes(); ++s)
    {
        if (t.IsHost(s))
        {
            continue;
        }
        for (uint32_t h = 0; h < t.GetNHosts(); ++h)
        {
            const auto& ports = routes[s][h];
            const uint32_t tier = t.GetTier(s);
            const bool samePod = switchPod(s) == static_cast<int>(pod(h));
            size_t expected = 0;
            if (tier == 0)
            {
                // edge: the host port if local, else k/2 uplinks
                expected = HostSwitch(t, h) == s ? 1 : k / 2;
            }
            else if (tier == 1)
            {
                // aggregation: 1 down to the host's edge in its pod, else k/2 up to the core
                expected = samePod ? 1 : k / 2;
            }
            else
            {
                // core: exactly one aggregation switch in the host's pod
                expected = 1;
            }
            ASSERT_EQ(ports.size(), expected)
                << "switch " << s << " tier " << tier << " host " << h;
            for (uint32_t p : ports)
            {
                uint32_t m = Neighbour(t, s, p);
                if (t.IsHost(m))
                {
                    EXPECT_EQ(m, t.HostNode(h));
                    continue;
                }
                if (tier == 0 && HostSwitch(t, h) != s)
                {
                    EXPECT_EQ(t.GetTier(m), 1u);
                }
                if (tier == 1 && !samePod)
                {
                    EXPECT_EQ(t.GetTier(m), 2u);
                }
                if (tier == 2)
                {
                    EXPECT_EQ(switchPod(m), static_cast<int>(pod(h)));
                }
            }
            ++checked;
        }
    }
    EXPECT_EQ(checked, (t.GetNNodes() - t.GetNHosts()) * t.GetNHosts());
}

TEST(FabricTopology, LinkFailureRemovesExactlyThatNextHop)
{
    auto t = FabricTopology::LeafSpine(2, 4, 2, 10e9, 40e9, 1000);
    auto before = t.ComputeRoutes();
    const uint32_t leaf0 = HostSwitch(t, 0);
    const uint32_t leaf1 = HostSwitch(t, 2);
    ASSERT_NE(leaf0, leaf1);
    // the port of leaf0 towards spine 1 (second uplink)
    uint32_t failedPort = before[leaf0][2][1];
    uint32_t spine = Neighbour(t, leaf0, failedPort);
    uint32_t link = t.FindLink(leaf0, spine);
    EXPECT_EQ(t.FindLink(spine, leaf0), link);
    t.SetLinkUp(link, false);
    auto after = t.ComputeRoutes();

    // leaf0 -> remote hosts: the same ports minus the failed one
    for (uint32_t h : {2u, 3u})
    {
        std::vector<uint32_t> expected;
        for (uint32_t p : before[leaf0][h])
        {
            if (p != failedPort)
            {
                expected.push_back(p);
            }
        }
        EXPECT_EQ(after[leaf0][h], expected);
        EXPECT_EQ(after[leaf0][h].size(), 3u);
    }
    // leaf1 -> hosts of leaf0: no longer through the spine that lost its link to leaf0
    uint32_t leaf1PortToSpine = 0;
    for (uint32_t p = 0; p < t.GetPorts(leaf1).size(); ++p)
    {
        if (Neighbour(t, leaf1, p) == spine)
        {
            leaf1PortToSpine = p;
        }
    }
    for (uint32_t h : {0u, 1u})
    {
        std::vector<uint32_t> expected;
        for (uint32_t p : before[leaf1][h])
        {
            if (p != leaf1PortToSpine)
            {
                expected.push_back(p);
            }
        }
        EXPECT_EQ(after[leaf1][h], expected);
    }
    // local routes are untouched
    EXPECT_EQ(after[leaf0][0], before[leaf0][0]);
    EXPECT_EQ(after[leaf1][3], before[leaf1][3]);
    // the isolated spine still reaches leaf0's hosts, the long way (through leaf1)
    ASSERT_EQ(after[spine][0].size(), 1u);
    EXPECT_EQ(Neighbour(t, spine, after[spine][0][0]), leaf1);
    EXPECT_NE(t.Describe().find("1 down"), std::string::npos);

    // repair restores the original table
    t.SetLinkUp(link, true);
    EXPECT_EQ(t.ComputeRoutes(), before);
}

TEST(FabricTopology, RoutesNeverCrossHosts)
{
    // two switches joined only through a host: unreachable, not routed via the host
    FabricTopology t;
    uint32_t s0 = t.AddSwitch(0);
    uint32_t s1 = t.AddSwitch(0);
    uint32_t h0 = t.AddHost();
    uint32_t h1 = t.AddHost();
    uint32_t middle = t.AddHost();
    t.AddLink(h0, s0, 1e9, 10);
    t.AddLink(h1, s1, 1e9, 10);
    t.AddLink(s0, middle, 1e9, 10);
    t.AddLink(middle, s1, 1e9, 10);
    auto routes = t.ComputeRoutes();
    EXPECT_TRUE(routes[s0][t.HostIndex(h1)].empty());
    EXPECT_TRUE(routes[s1][t.HostIndex(h0)].empty());
    EXPECT_EQ(routes[s0][t.HostIndex(middle)].size(), 1u);
    EXPECT_THROW(t.BestPath(t.HostIndex(h0), t.HostIndex(h1)), PrestoInputError);
    EXPECT_NE(t.Describe().find("custom"), std::string::npos);
}

TEST(FabricTopology, BestPathFewestHopsThenRateThenDelay)
{
    auto t = FabricTopology::LeafSpine(2, 2, 1, 10e9, 40e9, 1000);
    // host 0 under leaf A, host 1 under leaf B; two spines
    auto path = t.BestPath(0, 1);
    ASSERT_EQ(path.size(), 4u);
    EXPECT_DOUBLE_EQ(path[0].rateBps, 10e9);
    EXPECT_DOUBLE_EQ(path[1].rateBps, 40e9);
    EXPECT_DOUBLE_EQ(path[2].rateBps, 40e9);
    EXPECT_DOUBLE_EQ(path[3].rateBps, 10e9);

    const uint32_t leafA = HostSwitch(t, 0);
    const uint32_t leafB = HostSwitch(t, 1);
    uint32_t spine0 = 0;
    uint32_t spine1 = 0;
    for (uint32_t n = 0; n < t.GetNNodes(); ++n)
    {
        if (!t.IsHost(n) && t.GetTier(n) == 1)
        {
            (spine0 == 0 ? spine0 : spine1) = n;
        }
    }
    // degrade the path via spine0: BestPath must pick spine1, whichever its delay
    t.SetLinkRate(t.FindLink(leafA, spine0), 5e9);
    t.AddLink(leafB, spine1, 40e9, 1000); // a parallel link must not confuse anything
    path = t.BestPath(0, 1);
    ASSERT_EQ(path.size(), 4u);
    EXPECT_DOUBLE_EQ(path[1].rateBps, 40e9);
    EXPECT_DOUBLE_EQ(path[2].rateBps, 40e9);
    // now degrade spine1's path worse: spine0's 5G bottleneck wins
    t.SetLinkRate(t.FindLink(spine1, leafA), 2e9);
    path = t.BestPath(0, 1);
    EXPECT_DOUBLE_EQ(path[1].rateBps, 5e9);

    // equal bottleneck: lower delay wins
    FabricTopology d;
    uint32_t a = d.AddSwitch(0);
    uint32_t b = d.AddSwitch(0);
    uint32_t slow = d.AddSwitch(1);
    uint32_t fast = d.AddSwitch(1);
    uint32_t h0 = d.AddHost();
    uint32_t h1 = d.AddHost();
    d.AddLink(h0, a, 10e9, 100);
    d.AddLink(h1, b, 10e9, 100);
    d.AddLink(a, slow, 10e9, 5000);
    d.AddLink(slow, b, 10e9, 5000);
    d.AddLink(a, fast, 10e9, 700);
    d.AddLink(fast, b, 10e9, 700);
    path = d.BestPath(0, 1);
    ASSERT_EQ(path.size(), 4u);
    EXPECT_EQ(path[1].delayNs, 700);
    EXPECT_EQ(path[2].delayNs, 700);
    // fewer hops beat a faster longer path
    uint32_t direct = d.AddLink(a, b, 1e9, 100000);
    path = d.BestPath(0, 1);
    ASSERT_EQ(path.size(), 3u);
    EXPECT_DOUBLE_EQ(path[1].rateBps, 1e9);
    d.SetLinkUp(direct, false);
    EXPECT_EQ(d.BestPath(1, 0).size(), 4u);
}

TEST(FabricTopology, BadParametersThrow)
{
    EXPECT_THROW(FabricTopology::LeafSpine(0, 4, 8, 10e9, 40e9, 1000), PrestoInputError);
    EXPECT_THROW(FabricTopology::LeafSpine(4, 0, 8, 10e9, 40e9, 1000), PrestoInputError);
    EXPECT_THROW(FabricTopology::LeafSpine(4, 4, 0, 10e9, 40e9, 1000), PrestoInputError);
    EXPECT_THROW(FabricTopology::LeafSpine(4, 4, 8, 0, 40e9, 1000), PrestoInputError);
    EXPECT_THROW(FabricTopology::LeafSpine(4, 4, 8, 10e9, -1, 1000), PrestoInputError);
    EXPECT_THROW(FabricTopology::LeafSpine(4, 4, 8, 10e9, 40e9, -5), PrestoInputError);
    EXPECT_THROW(FabricTopology::FatTree(3, 10e9, 10e9, 0), PrestoInputError);
    EXPECT_THROW(FabricTopology::FatTree(0, 10e9, 10e9, 0), PrestoInputError);
    EXPECT_THROW(FabricTopology::FatTree(4, 10e9, 0, 0), PrestoInputError);
    EXPECT_NO_THROW(FabricTopology::FatTree(2, 10e9, 10e9, 0));

    FabricTopology t;
    uint32_t s = t.AddSwitch(0);
    uint32_t h = t.AddHost();
    EXPECT_THROW(t.AddLink(s, s, 1e9, 0), PrestoInputError);
    EXPECT_THROW(t.AddLink(s, 7, 1e9, 0), PrestoInputError);
    EXPECT_THROW(t.AddLink(s, h, 0, 0), PrestoInputError);
    EXPECT_THROW(t.AddLink(s, h, 1e9, -1), PrestoInputError);
    EXPECT_THROW(t.FindLink(s, h), PrestoInputError);
    uint32_t l = t.AddLink(s, h, 1e9, 0);
    EXPECT_EQ(t.FindLink(h, s), l);
    EXPECT_THROW(t.SetLinkUp(l + 1, false), PrestoInputError);
    EXPECT_THROW(t.SetLinkRate(l, 0), PrestoInputError);
    EXPECT_THROW(t.SetLinkRate(l + 1, 1e9), PrestoInputError);
    EXPECT_THROW(t.GetTier(h), PrestoInputError);
    EXPECT_THROW(t.HostIndex(s), PrestoInputError);
    EXPECT_THROW(t.HostNode(1), PrestoInputError);
    EXPECT_THROW(t.BestPath(0, 0), PrestoInputError);
    EXPECT_THROW(t.BestPath(0, 3), PrestoInputError);
    try
    {
        FabricTopology::FatTree(5, 10e9, 10e9, 0);
        FAIL() << "odd k accepted";
    }
    catch (const PrestoInputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("k"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("FatTree"), std::string::npos);
    }
}

TEST(FabricTopology, HostIndicesFollowCreationOrder)
{
    auto t = FabricTopology::FatTree(4, 10e9, 10e9, 0);
    std::set<uint32_t> nodes;
    for (uint32_t h = 0; h < t.GetNHosts(); ++h)
    {
        EXPECT_TRUE(t.IsHost(t.HostNode(h)));
        EXPECT_EQ(t.HostIndex(t.HostNode(h)), h);
        nodes.insert(t.HostNode(h));
        if (h > 0)
        {
            EXPECT_GT(t.HostNode(h), t.HostNode(h - 1));
        }
    }
    EXPECT_EQ(nodes.size(), t.GetNHosts());
    // hosts 0 and 1 share an edge switch, hosts 0 and 2 do not (k/2 = 2 per edge)
    EXPECT_EQ(HostSwitch(t, 0), HostSwitch(t, 1));
    EXPECT_NE(HostSwitch(t, 0), HostSwitch(t, 2));
    EXPECT_EQ(t.BestPath(0, 1).size(), 2u);
    EXPECT_EQ(t.BestPath(0, 2).size(), 4u);
    EXPECT_EQ(t.BestPath(0, 15).size(), 6u);
}
