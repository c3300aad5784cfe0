/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// FlowMonitor on a mixed fabric: ns-3's own probe for the host stacks, OffloadFlowProbe for
// the offload NICs and the fabric, one classifier, every flow in one set of statistics.

#include "ns3/error-model.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-link-net-device.h"
#include "ns3/fabric-topology.h"
#include "ns3/flow-monitor-helper.h"
#include "ns3/flow-monitor.h"
#include "ns3/ipv4-flow-classifier.h"
#include "ns3/offload-flow-monitor-helper.h"
#include "ns3/offload-socket.h"
#include "ns3/pointer.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/spray-experiment.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-endpoint.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <map>
#include <set>
#include <tuple>

using namespace ns3;

namespace
{

/// The designs of the fabric: "host-tcp" is ns-3's TCP on a plain device.
const std::vector<std::string> DESIGNS = {"presto", "flextoe", "cora", "host-tcp"};

/// Collects the finished flows.
void
FlowDone(std::set<uint32_t>* done, uint32_t flowId, uint64_t)
{
    done->insert(flowId);
}

} // namespace

/**
 * Two leaves of four hosts, one of each design per leaf; every ordered pair of hosts sends
 * one flow (56 flows). With ns-3's FlowMonitorHelper::InstallAll and
 * OffloadFlowMonitorHelper::Install, every flow (both directions: data and ACKs) is in the
 * monitor's statistics, whichever designs its ends run; its received bytes are the flow's
 * bytes plus 40 to 80 bytes of IPv4 + TCP headers per datagram (so a data segment missed or
 * counted twice shows; without loss); every datagram sent was received or counted dropped
 * (checked with a zero delay limit: no completed flow has a packet lost unexplained, and the
 * drops of the links' error models are exactly as many as the fabric counts); the mean delay
 * is at least the path's propagation delay.
 */
class FlowMonitorMixedTestCase : public TestCase
{
  public:
    /**
     * \param lossRate random loss on every switch-to-switch link (both directions): the
     *        datagrams lost there are FlowMonitor drops, as many as the fabric counts
     * \param fast fast links (the offload NICs send headers as fields) or point-to-point
     */
    FlowMonitorMixedTestCase(double lossRate, bool fast)
        : TestCase("FlowMonitor on a mixed fabric: every flow of presto, flextoe, cora and "
                   "ns-3 TCP, bytes as the sinks got them, none lost unexplained, core loss " +
                   std::string(lossRate > 0 ? "2%" : "none") +
                   (fast ? ", fast links" : ", point-to-point links")),
          m_lossRate(lossRate),
          m_fast(fast)
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t flowBytes = 20000;
        const uint32_t perLeaf = DESIGNS.size();
        auto topo = FabricTopology::LeafSpine(2, 2, perLeaf, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetFastLinks(m_fast);
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
        for (uint32_t l = 0; l < topo.GetLinks().size() && m_lossRate > 0; ++l)
        {
            const auto& link = topo.GetLinks()[l];
            if (topo.IsHost(link.a) || topo.IsHost(link.b))
            {
                continue;
            }
            const auto devices = f.GetLinkDevices(l);
            for (Ptr<NetDevice> d : {devices.first, devices.second})
            {
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                em->SetRate(m_lossRate);
                em->AssignStreams(100 + l);
                if (auto fast = DynamicCast<FabricLinkNetDevice>(d))
                {
                    fast->SetLinkReceiveErrorModel(em);
                }
                else
                {
                    d->SetAttribute("ReceiveErrorModel", PointerValue(em));
                }
            }
        }
        std::vector<Ipv4Address> addresses;
        for (uint32_t h = 0; h < f.GetHosts().GetN(); ++h)
        {
            addresses.push_back(f.GetHostAddress(h));
        }
        Ptr<TcpSocketEndpoint> ep = CreateObject<TcpSocketEndpoint>();
        ep->SetAttribute("SocketFactory", TypeIdValue(OffloadSocketFactory::GetTypeId()));
        ep->SetAttribute("Name", StringValue("flowmon"));
        ep->Install(f.GetHosts(), addresses);

        // the natural calls: ns-3's, then one for the offload NICs and the fabric
        FlowMonitorHelper flowmon;
        Ptr<FlowMonitor> monitor = flowmon.InstallAll();
        const uint32_t probes = OffloadFlowMonitorHelper::Install(flowmon);
        NS_TEST_ASSERT_MSG_GT(probes, 2 * perLeaf, "a probe per host and per switch");

        std::map<std::pair<uint32_t, uint32_t>, uint32_t> pairs; // (src, dst) host -> flow
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
                spec.sizeBytes = flowBytes;
                spec.dport = 100;
                pairs[{s, d}] = id;
                Simulator::Schedule(MicroSeconds(id), &FlowEndpoint::StartFlow, ep, spec);
                ++id;
            }
        }
        std::set<uint32_t> finished;
        ep->TraceConnectWithoutContext("FlowFinish", MakeBoundCallback(&FlowDone, &finished));
        Simulator::Stop(MilliSeconds(100));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(finished.size(), id, "every flow finishes");
        NS_TEST_ASSERT_MSG_EQ(ep->GetDeliveredBytes(), id * flowBytes, "every byte, once");

        // a zero delay limit: a datagram neither received nor counted dropped is lost
        monitor->CheckForLostPackets(Time(0));
        Ptr<Ipv4FlowClassifier> classifier =
            DynamicCast<Ipv4FlowClassifier>(flowmon.GetClassifier());
        std::map<Ipv4Address, uint32_t> hostOf;
        for (uint32_t h = 0; h < addresses.size(); ++h)
        {
            hostOf[addresses[h]] = h;
        }
        std::set<uint32_t> seenData;
        std::set<uint32_t> seenAcks;
        uint64_t lossDrops = 0; // FlowMonitor's, reason DROP_LINK_LOSS
        for (const auto& [flow, st] : monitor->GetFlowStats())
        {
            const Ipv4FlowClassifier::FiveTuple t = classifier->FindFlow(flow);
            const bool betweenHosts =
                hostOf.count(t.sourceAddress) > 0 && hostOf.count(t.destinationAddress) > 0;
            NS_TEST_ASSERT_MSG_EQ(betweenHosts, true, "a flow between hosts");
            const uint32_t s = hostOf[t.sourceAddress];
            const uint32_t d = hostOf[t.destinationAddress];
            const bool data = t.destinationPort == 100;
            const uint32_t fid = data ? pairs[{s, d}] : pairs[{d, s}];
            const std::string what = DESIGNS[s % perLeaf] + " -> " + DESIGNS[d % perLeaf] +
                                     (data ? " data" : " acks") + " (host " + std::to_string(s) +
                                     " to " + std::to_string(d) + ")";
            (data ? seenData : seenAcks).insert(fid);
            if (getenv("FLOWMON_DEBUG"))
            {
                std::cout << what << " " << t.sourcePort << ">" << t.destinationPort << " tx "
                          << st.txPackets << " rx " << st.rxPackets << " " << st.rxBytes << " lost "
                          << st.lostPackets << std::endl;
            }
            uint64_t dropped = 0;
            for (uint32_t n : st.packetsDropped)
            {
                dropped += n;
            }
            if (st.packetsDropped.size() > OffloadFlowProbe::DROP_LINK_LOSS)
            {
                lossDrops += st.packetsDropped[OffloadFlowProbe::DROP_LINK_LOSS];
            }
            // FlowMonitor counts a drop as lost too: lost without a drop is lost unexplained
            NS_TEST_EXPECT_MSG_EQ(st.lostPackets, dropped, what << ": none lost but dropped");
            NS_TEST_EXPECT_MSG_EQ(st.txPackets,
                                  st.rxPackets + dropped,
                                  what << ": every datagram received or counted dropped");
            NS_TEST_EXPECT_MSG_GT(st.rxPackets, 2, what << ": the handshake at least");
            // headers: 20 (IPv4) + 20 to 60 (TCP with its options) per datagram
            const uint64_t payload = data ? flowBytes : 0;
            NS_TEST_EXPECT_MSG_GT_OR_EQ(st.rxBytes, payload + 40 * st.rxPackets, what);
            if (m_lossRate == 0)
            {
                // (with loss, retransmissions are received bytes too)
                NS_TEST_EXPECT_MSG_LT_OR_EQ(st.rxBytes, payload + 80 * st.rxPackets, what);
            }
            // the path's propagation: 2 links within a leaf, 4 across the spines
            const double hops = s / perLeaf == d / perLeaf ? 2 : 4;
            const double meanDelayUs = st.delaySum.GetMicroSeconds() / double(st.rxPackets);
            NS_TEST_EXPECT_MSG_GT_OR_EQ(meanDelayUs, hops * 1.0, what << ": delay");
            NS_TEST_EXPECT_MSG_LT(meanDelayUs, 10000.0, what << ": delay");
        }
        NS_TEST_EXPECT_MSG_EQ(seenData.size(), id, "every flow's data in FlowMonitor");
        NS_TEST_EXPECT_MSG_EQ(seenAcks.size(), id, "every flow's ACKs in FlowMonitor");
        // every frame the links' error models dropped is a FlowMonitor drop of its flow
        NS_TEST_EXPECT_MSG_EQ(lossDrops, f.GetLinkDrops().randomLoss, "loss drops as counted");
        if (m_lossRate > 0)
        {
            NS_TEST_EXPECT_MSG_GT(lossDrops, 0, "the loss dropped datagrams");
        }
        ep->Dispose();
        Simulator::Destroy();
    }

    double m_lossRate; //!< on the switch-to-switch links
    bool m_fast;       //!< fast links
};

/**
 * Without OffloadFlowMonitorHelper, ns-3's probe alone sees only the flows both of whose
 * ends run ns-3's TCP (what a user found before the probe existed): the probe is what makes
 * the difference, and ns-3's own numbers for those flows are the same with it as without.
 */
class FlowMonitorWithoutProbeTestCase : public TestCase
{
  public:
    FlowMonitorWithoutProbeTestCase()
        : TestCase("FlowMonitor without the offload probe: ns-3's flows only, and the same "
                   "numbers for them as with it")
    {
    }

  private:
    /// ns-3 TCP flows' (tx packets, rx bytes, delay sum) by five-tuple, and the flow count
    static std::pair<std::map<std::string, std::tuple<uint32_t, uint64_t, int64_t>>, uint32_t> Run(
        bool withProbe)
    {
        auto topo = FabricTopology::LeafSpine(2, 2, 2, 10e9, 40e9, 1000);
        FabricHelper f;
        // hosts 0 and 2 offload (presto), 1 and 3 run ns-3's TCP
        for (uint32_t h : {0u, 2u})
        {
            f.SetHostDeviceFactory(h,
                                   SprayExperiment::DeviceFactory(
                                       "presto",
                                       SprayExperiment::CongestionTypeId("presto", "dctcp")));
        }
        f.Install(topo);
        std::vector<Ipv4Address> addresses;
        for (uint32_t h = 0; h < f.GetHosts().GetN(); ++h)
        {
            addresses.push_back(f.GetHostAddress(h));
        }
        Ptr<TcpSocketEndpoint> ep = CreateObject<TcpSocketEndpoint>();
        ep->SetAttribute("SocketFactory", TypeIdValue(OffloadSocketFactory::GetTypeId()));
        ep->Install(f.GetHosts(), addresses);
        FlowMonitorHelper flowmon;
        Ptr<FlowMonitor> monitor = flowmon.InstallAll();
        if (withProbe)
        {
            OffloadFlowMonitorHelper::Install(flowmon);
        }
        const std::vector<std::pair<uint32_t, uint32_t>> flows = {{0, 2}, {1, 3}, {3, 0}};
        for (uint32_t i = 0; i < flows.size(); ++i)
        {
            FlowSpec spec;
            spec.id = i;
            spec.src = flows[i].first;
            spec.dst = flows[i].second;
            spec.sizeBytes = 50000;
            spec.dport = 100;
            Simulator::Schedule(MicroSeconds(i), &FlowEndpoint::StartFlow, ep, spec);
        }
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();
        Ptr<Ipv4FlowClassifier> classifier =
            DynamicCast<Ipv4FlowClassifier>(flowmon.GetClassifier());
        std::map<std::string, std::tuple<uint32_t, uint64_t, int64_t>> ns3Flows;
        const auto stats = monitor->GetFlowStats();
        for (const auto& [flow, st] : stats)
        {
            const auto t = classifier->FindFlow(flow);
            std::ostringstream key;
            key << t.sourceAddress << ":" << t.sourcePort << ">" << t.destinationAddress << ":"
                << t.destinationPort;
            // ns-3's TCP on hosts 1 and 3 on both ends
            if (t.sourceAddress == addresses[1] || t.sourceAddress == addresses[3])
            {
                if (t.destinationAddress == addresses[1] || t.destinationAddress == addresses[3])
                {
                    ns3Flows[key.str()] = {st.txPackets, st.rxBytes, st.delaySum.GetTimeStep()};
                }
            }
        }
        ep->Dispose();
        Simulator::Destroy();
        return {ns3Flows, static_cast<uint32_t>(stats.size())};
    }

    void DoRun() override
    {
        const auto [without, nWithout] = Run(false);
        const auto [with, nWith] = Run(true);
        // without: 1 -> 3 both ways, and 3 -> 0 seen only at host 3's IP stack (sent data
        // and received ACKs, both under one probe's eyes): 0 -> 2 is invisible
        NS_TEST_EXPECT_MSG_EQ(nWith, 6u, "all three flows, both directions, with the probe");
        NS_TEST_EXPECT_MSG_LT(nWithout, nWith, "fewer without the probe");
        NS_TEST_EXPECT_MSG_EQ(without.size(), 2u, "ns-3's flow, both directions");
        NS_TEST_EXPECT_MSG_EQ((without == with), true, "ns-3's numbers unchanged by the probe");
    }
};

/** The presto-flowmonitor suite. */
class PrestoFlowMonitorTestSuite : public TestSuite
{
  public:
    PrestoFlowMonitorTestSuite()
        : TestSuite("presto-flowmonitor", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new FlowMonitorMixedTestCase(0, true), compat::TestDuration::QUICK);
        AddTestCase(new FlowMonitorMixedTestCase(0, false), compat::TestDuration::QUICK);
        // (the name says 2%)
        AddTestCase(new FlowMonitorMixedTestCase(0.02, true), compat::TestDuration::QUICK);
        AddTestCase(new FlowMonitorMixedTestCase(0.02, false), compat::TestDuration::QUICK);
        AddTestCase(new FlowMonitorWithoutProbeTestCase(), compat::TestDuration::QUICK);
    }
};

/// Registers the suite.
static PrestoFlowMonitorTestSuite g_prestoFlowMonitorTestSuite;
