/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Mixed fabrics: every NIC design and ns-3's own TCP on one leaf-spine, talking to each other.

#include "ns3/boolean.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-switch.h"
#include "ns3/fabric-topology.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-socket.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/spray-experiment.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-endpoint.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

using namespace ns3;

namespace
{

/// The designs of the mixed fabric: "host-tcp" is ns-3's TCP on a plain device.
const std::vector<std::string> DESIGNS = {"presto", "flextoe", "cora", "host-tcp"};

} // namespace

/**
 * All-to-all between every design and ns-3's TCP: 2 leaves x 4 hosts, each leaf with one host
 * of each design, so every ordered pair of designs (and each design with itself) exchanges
 * flows across the spines, sprayed. Each flow's payload is verified byte by byte by
 * FlowEndpoint (exactly once, in order, unaltered). This is the scenario in which an ns-3
 * (<= 3.40) sender talking to an offload receiver used to crash in
 * TcpRateLinux::SkbSent (a zero-length send at the receiver's window edge).
 */
class MixedAllToAllTestCase : public TestCase
{
  public:
    /**
     * \param flowBytes size of every flow
     * \param sack whether ns-3's TCP hosts use SACK (the NICs offer and grant it, their Sack
     *        attribute)
     * \param bufferBytes socket buffers of every endpoint (small: the ns-3 senders are
     *        limited by the receivers' windows, which is where the crash lived)
     */
    MixedAllToAllTestCase(uint64_t flowBytes, bool sack, uint32_t bufferBytes)
        : TestCase("mixed fabric, presto, flextoe, cora and ns-3 TCP all-to-all, " +
                   std::to_string(flowBytes) + "-byte flows, SACK " + (sack ? "on" : "off") +
                   ", buffers " + std::to_string(bufferBytes) + " B: every byte exactly once"),
          m_flowBytes(flowBytes),
          m_sack(sack),
          m_bufferBytes(bufferBytes)
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t perLeaf = DESIGNS.size();
        auto topo = FabricTopology::LeafSpine(2, 2, perLeaf, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetSwitchAttribute("LoadBalancing", StringValue("Spray"));
        for (uint32_t h = 0; h < 2 * perLeaf; ++h)
        {
            const std::string& d = DESIGNS[h % perLeaf];
            if (d != "host-tcp")
            {
                f.SetHostDeviceFactory(
                    h,
                    SprayExperiment::DeviceFactory(d,
                                                   SprayExperiment::CongestionTypeId(d, "dctcp")));
            }
        }
        f.Install(topo);
        std::vector<Ipv4Address> addresses;
        for (uint32_t h = 0; h < f.GetHosts().GetN(); ++h)
        {
            addresses.push_back(f.GetHostAddress(h));
        }
        Ptr<TcpSocketEndpoint> ep = CreateObject<TcpSocketEndpoint>();
        ep->SetAttribute("SocketFactory", TypeIdValue(OffloadSocketFactory::GetTypeId()));
        ep->SetAttribute("Name", StringValue("mixed"));
        ep->SetAttribute("Sack", BooleanValue(m_sack));
        ep->SetAttribute("BufferSize", UintegerValue(m_bufferBytes));
        ep->Install(f.GetHosts(), addresses);

        // every ordered pair of hosts: 56 flows, started 100 ns apart
        std::map<uint32_t, std::pair<uint32_t, uint32_t>> flows;
        uint32_t id = 0;
        for (uint32_t s = 0; s < 2 * perLeaf; ++s)
        {
            for (uint32_t d = 0; d < 2 * perLeaf; ++d)
            {
                if (s == d)
                {
                    continue;
                }
                FlowSpec spec;
                spec.id = id;
                spec.src = s;
                spec.dst = d;
                spec.sizeBytes = m_flowBytes;
                spec.dport = 100;
                flows[id] = {s, d};
                Simulator::Schedule(NanoSeconds(100 * id), &FlowEndpoint::StartFlow, ep, spec);
                ++id;
            }
        }
        std::set<uint32_t> finished;
        ep->TraceConnectWithoutContext(
            "FlowFinish",
            MakeCallback(+[](std::set<uint32_t>* done, uint32_t flowId, uint64_t) {
                done->insert(flowId);
            }).Bind(&finished));
        Simulator::Stop(Seconds(1));
        Simulator::Run();

        // every pair of designs, both directions
        std::map<std::string, uint32_t> done;
        for (uint32_t fid : finished)
        {
            const auto& [s, d] = flows[fid];
            ++done[DESIGNS[s % perLeaf] + "->" + DESIGNS[d % perLeaf]];
        }
        std::cout << "    finished " << finished.size() << " of " << id << " flows at "
                  << Simulator::Now().GetMicroSeconds() << " us;";
        for (const auto& [pair, n] : done)
        {
            std::cout << " " << pair << ":" << n;
        }
        std::cout << std::endl;
        for (const std::string& a : DESIGNS)
        {
            for (const std::string& b : DESIGNS)
            {
                // 2 hosts of each design: 4 flows per ordered pair of designs, 2 for a design
                // with itself (a host does not send to itself)
                const uint32_t want = a == b ? 2 : 4;
                NS_TEST_EXPECT_MSG_EQ(done[a + "->" + b], want, a << " -> " << b);
            }
        }
        NS_TEST_EXPECT_MSG_EQ(finished.size(), id, "every flow finishes");
        NS_TEST_EXPECT_MSG_EQ(ep->GetCorruptBytes(), 0, "no corrupt byte");
        NS_TEST_EXPECT_MSG_EQ(ep->GetExcessBytes(), 0, "no byte twice");
        NS_TEST_EXPECT_MSG_EQ(ep->GetDeliveredBytes(), id * m_flowBytes, "every byte");
        ep->Dispose();
        Simulator::Destroy();
    }

    uint64_t m_flowBytes;
    bool m_sack;
    uint32_t m_bufferBytes;
};

/** The presto-mixed suite. */
class PrestoMixedTestSuite : public TestSuite
{
  public:
    PrestoMixedTestSuite()
        : TestSuite("presto-mixed", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new MixedAllToAllTestCase(2000000, true, 262144), compat::TestDuration::QUICK);
        AddTestCase(new MixedAllToAllTestCase(2000000, false, 65536), compat::TestDuration::QUICK);
    }
};

/// Registers the suite.
static PrestoMixedTestSuite g_prestoMixedTestSuite;
