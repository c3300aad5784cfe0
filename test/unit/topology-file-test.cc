/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/fabric-topology.h"
#include "ns3/topology-file.h"

#include <cstdlib>
#include <gtest/gtest.h>
#include <string>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

std::string
DataFile(const std::string& name)
{
    const char* dir = std::getenv("PRESTO_DATA_DIR");
    return std::string(dir && dir[0] ? dir : "data") + "/" + name;
}

/// Same nodes (kind, tier), same links (ends, rate, delay, loss) in the same order, same
/// routes: the fabric helper builds the same network from both.
void
ExpectSameFabric(const FabricTopology& a, const FabricTopology& b)
{
    ASSERT_EQ(a.GetNNodes(), b.GetNNodes());
    ASSERT_EQ(a.GetNHosts(), b.GetNHosts());
    for (uint32_t n = 0; n < a.GetNNodes(); ++n)
    {
        ASSERT_EQ(a.IsHost(n), b.IsHost(n)) << "node " << n;
        if (!a.IsHost(n))
        {
            EXPECT_EQ(a.GetTier(n), b.GetTier(n)) << "node " << n;
        }
        EXPECT_EQ(a.GetPorts(n), b.GetPorts(n)) << "node " << n;
    }
    ASSERT_EQ(a.GetLinks().size(), b.GetLinks().size());
    for (std::size_t l = 0; l < a.GetLinks().size(); ++l)
    {
        const auto& x = a.GetLinks()[l];
        const auto& y = b.GetLinks()[l];
        EXPECT_EQ(x.a, y.a) << "link " << l;
        EXPECT_EQ(x.b, y.b) << "link " << l;
        EXPECT_EQ(x.rateBps, y.rateBps) << "link " << l;
        EXPECT_EQ(x.delayNs, y.delayNs) << "link " << l;
        EXPECT_EQ(x.lossRate, y.lossRate) << "link " << l;
    }
    EXPECT_EQ(a.ComputeRoutes(), b.ComputeRoutes());
}

std::string
Error(const std::string& text)
{
    return ErrorOf([&] { ParseTopologyText(text, "t.txt"); });
}

} // namespace

// The shipped files are the built-in 4x4x8 leaf-spine, in HPCC's and in presto's format.
TEST(TopologyFile, ShippedFilesAreTheBuiltInLeafSpine)
{
    const auto builtIn = FabricTopology::LeafSpine(4, 4, 8, 10e9, 40e9, 1000);
    const auto hpcc = ReadTopologyFile(DataFile("topology/leaf-spine-4x4x8.txt"));
    const auto presto = ReadTopologyFile(DataFile("topology/leaf-spine-4x4x8.presto"));
    ExpectSameFabric(builtIn, hpcc);
    ExpectSameFabric(builtIn, presto);
    // names: HPCC nodes by id, presto's as declared (here those of the built-in)
    EXPECT_EQ(hpcc.GetNodeName(5), "5");
    for (uint32_t n = 0; n < builtIn.GetNNodes(); ++n)
    {
        EXPECT_EQ(presto.GetNodeName(n), builtIn.GetNodeName(n));
    }
    EXPECT_NE(hpcc.Describe().find("HPCC"), std::string::npos) << hpcc.Describe();
}

TEST(TopologyFile, HpccPerLinkRatesDelaysAndLoss)
{
    // hosts after the switches, switch ids on two lines, a lossy core link
    const auto t = ParseTopologyText("5 2 4\n3\n4\n0 3 25Gbps 2us 0\n1 3 10Gbps 500ns 0\n"
                                     "2 4 100Gbps 0.001ms 0.000000\n3 4 40Gbps 1000ns 0.01\n\n",
                                     "t.txt");
    EXPECT_EQ(t.GetNHosts(), 3u);
    EXPECT_EQ(t.HostNode(2), 2u);
    EXPECT_EQ(t.GetLinks()[0].rateBps, 25e9);
    EXPECT_EQ(t.GetLinks()[0].delayNs, 2000);
    EXPECT_EQ(t.GetLinks()[1].delayNs, 500);
    EXPECT_EQ(t.GetLinks()[2].delayNs, 1000);
    EXPECT_EQ(t.GetLinks()[3].lossRate, 0.01);
    EXPECT_EQ(t.GetTier(3), 0u);
    EXPECT_EQ(t.GetTier(4), 0u);
    EXPECT_EQ(t.BestPath(0, 2).size(), 3u);
}

TEST(TopologyFile, PrestoFormatTiersFromTheHosts)
{
    // a three-tier chain: tor - agg - tor, named nodes, comments
    const auto t = ParseTopologyText("presto-topology 1 # version\n"
                                     "switch tor0 agg tor1\n"
                                     "host a b  # two hosts\n"
                                     "link a tor0 10Gbps 1us\n"
                                     "link b tor1 10Gbps 1us\n"
                                     "link tor0 agg 40Gbps 2us 0.5\n"
                                     "link agg tor1 40Gbps 2us\n",
                                     "t.presto");
    uint32_t agg = 0;
    ASSERT_TRUE(t.FindNode("agg", agg));
    EXPECT_EQ(t.GetTier(agg), 1u);
    EXPECT_EQ(t.GetTier(0), 0u);
    EXPECT_EQ(t.HostNode(1), 4u);
    EXPECT_EQ(t.GetLinks()[2].lossRate, 0.5);
}

TEST(TopologyFile, BadFilesNameFileAndLine)
{
    EXPECT_TRUE(Contains(Error(""), {"t.txt", "empty"}));
    EXPECT_TRUE(Contains(Error("4 1\n"), {"t.txt:1:", "'<nodes> <switches> <links>'"}));
    EXPECT_TRUE(Contains(Error("x 1 2\n"), {"t.txt:1:", "node count 'x'"}));
    EXPECT_TRUE(
        Contains(Error("3 4 1\n"), {"t.txt:1:", "switch count '4' is above the largest value, 3"}));
    EXPECT_TRUE(Contains(Error("3 2 2\n2 2\n"), {"t.txt:2:", "switch id 2 is listed twice"}));
    EXPECT_TRUE(
        Contains(Error("3 1 2\n7\n"), {"t.txt:2:", "switch id '7' is above the largest value, 2"}));
    EXPECT_TRUE(Contains(Error("3 1 2\n2\n0 2 10Gbps 1us 0\n"), {"t.txt:3:", "ends after 1 of 2"}));
    EXPECT_TRUE(Contains(Error("3 1 2\n2\n0 2 10Gbps 1us\n"), {"t.txt:3:", "got 4 words"}));
    EXPECT_TRUE(Contains(Error("3 1 2\n2\n0 2 fast 1us 0\n"), {"t.txt:3:", "link rate 'fast'"}));
    EXPECT_TRUE(Contains(Error("3 1 2\n2\n0 2 1Gbps 1 0\n"), {"t.txt:3:", "link delay '1'"}));
    EXPECT_TRUE(Contains(Error("3 1 2\n2\n0 2 1Gbps 1us 1\n"), {"t.txt:3:", "error rate '1'"}));
    EXPECT_TRUE(Contains(Error("3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n0 2 1Gbps 1us 0\n"),
                         {"t.txt:5:", "text after the 2 links"}));
    EXPECT_TRUE(Contains(Error("3 1 2\n2\n0 2 1Gbps 1us 0\n0 2 1Gbps 1us 0\n"),
                         {"t.txt:4:", "host 0 has a second link", "line 3"}));
    EXPECT_TRUE(Contains(Error("3 1 1\n2\n0 2 1Gbps 1us 0\n"), {"t.txt:1:", "host 1 has no link"}));
    EXPECT_TRUE(Contains(Error("3 1 1\n2\n0 1 1Gbps 1us 0\n"), {"t.txt:3:", "between two hosts"}));
    EXPECT_TRUE(Contains(Error("3 1 1\n2\n2 2 1Gbps 1us 0\n"), {"t.txt:3:", "to itself"}));
    EXPECT_TRUE(Contains(Error("4 2 2\n2 3\n0 2 1Gbps 1us 0\n1 3 1Gbps 1us 0\n"),
                         {"t.txt:4:", "host 1 cannot reach host 0"}));
    EXPECT_TRUE(Contains(Error("presto-topology 2\n"), {"t.txt:1:", "version 1"}));
    EXPECT_TRUE(Contains(Error("presto-topology 1\nswitch s\nhost s\n"),
                         {"t.txt:3:", "'s' is declared twice"}));
    EXPECT_TRUE(Contains(Error("presto-topology 1\nrouter r\n"), {"t.txt:2:", "unknown keyword"}));
    EXPECT_TRUE(Contains(Error("presto-topology 1\nswitch s\nhost a b\nlink a t 1Gbps 1us\n"),
                         {"t.txt:4:", "link end 't'"}));
    EXPECT_TRUE(Contains(Error("presto-topology 1\nswitch s\nhost a\nlink a s 1Gbps 1us\n"),
                         {"t.txt", "at least 2 hosts"}));
    // HPCC writes every switch id on one line: up to 2^20 characters are accepted
    EXPECT_TRUE(Contains(Error("3 1 2\n" + std::string(1 << 20, ' ') + "2\n"),
                         {"t.txt:2: line longer than 1048576 characters, starting '   "}));
    EXPECT_TRUE(Contains(ErrorOf([] { ReadTopologyFile("/nonexistent/topo.txt"); }),
                         {"/nonexistent/topo.txt"}));
}
