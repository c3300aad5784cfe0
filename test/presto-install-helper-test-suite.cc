/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNicHelper in a user's script: the dumbbell of examples/presto-dumbbell.cc (two
// offload hosts, two ns-3 TCP hosts, ns-3 routers, global routing) for every NIC design.

#include "ns3/boolean.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/config.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-nic-helper.h"
#include "ns3/offload-socket.h"
#include "ns3/on-off-helper.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/queue-size.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-endpoint.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <iostream>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

/// The NIC designs the helper installs.
const char* const DESIGNS[] = {"ns3::PrestoNetDevice",
                               "ns3::FlexToeNetDevice",
                               "ns3::CoraNetDevice"};

/**
 * examples/presto-dumbbell.cc's network: o0, o1 (offload NICs through OffloadNicHelper) on
 * router r0, t0, t1 (ns-3 TCP through PointToPointHelper) on router r1, r0 - r1 the
 * bottleneck; ns-3's Internet stack, addresses and global routing.
 */
struct Dumbbell
{
    NodeContainer hosts;                   //!< o0, o1, t0, t1
    NodeContainer routers;                 //!< r0, r1
    std::vector<Ipv4Address> address;      //!< of each host
    std::vector<NetDeviceContainer> links; //!< o0-r0, o1-r0, t0-r1, t1-r1, r0-r1

    /**
     * \param design the NIC design's TypeId name
     * \param bottleneckRate the router-router link rate
     */
    Dumbbell(const std::string& design, const std::string& bottleneckRate)
    {
        hosts.Create(4);
        routers.Create(2);
        OffloadNicHelper nic;
        nic.SetDeviceType(design);
        nic.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        nic.SetChannelAttribute("Delay", StringValue("5us"));
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        p2p.SetChannelAttribute("Delay", StringValue("5us"));
        PointToPointHelper bottleneck;
        bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
        bottleneck.SetChannelAttribute("Delay", StringValue("5us"));
        links.push_back(nic.Install(hosts.Get(0), routers.Get(0)));
        links.push_back(nic.Install(NodeContainer(hosts.Get(1), routers.Get(0))));
        links.push_back(p2p.Install(hosts.Get(2), routers.Get(1)));
        links.push_back(p2p.Install(hosts.Get(3), routers.Get(1)));
        links.push_back(bottleneck.Install(routers));
        InternetStackHelper stack;
        stack.Install(hosts);
        stack.Install(routers);
        Ipv4AddressHelper addresses("10.1.0.0", "255.255.255.0");
        for (uint32_t l = 0; l < links.size(); ++l)
        {
            Ipv4InterfaceContainer ifs = addresses.Assign(links[l]);
            addresses.NewNetwork();
            if (l < 4)
            {
                address.push_back(ifs.GetAddress(0));
            }
        }
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }

    /** \param i 0 or 1 \return the NIC of offload host i */
    Ptr<OffloadNetDevice> Nic(uint32_t i) const
    {
        return DynamicCast<OffloadNetDevice>(links[i].Get(0));
    }
};

/// ns-3's TCP as the example configures it (and back to the defaults afterwards).
void
ConfigureNs3Tcp()
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(50)));
}

} // namespace

/**
 * Byte-exact delivery through the helper's NICs, both directions against ns-3 TCP hosts
 * (and NIC to NIC through a router): the module's endpoint writes each flow's payload
 * pattern and checks every byte the receiving application reads (exactly once, in order,
 * unaltered), on offload hosts through ns3::OffloadSocketFactory, on the others through
 * ns-3's TCP.
 */
class InstallHelperDeliveryTestCase : public TestCase
{
  public:
    /** \param design the NIC design's TypeId name */
    explicit InstallHelperDeliveryTestCase(const std::string& design)
        : TestCase(design + " via OffloadNicHelper: byte-exact flows to and from ns-3 TCP "
                            "hosts across ns-3 routers"),
          m_design(design)
    {
    }

  private:
    void Finished(uint32_t flowId, uint64_t)
    {
        m_finished.insert(flowId);
    }

    void DoRun() override
    {
        ConfigureNs3Tcp();
        Dumbbell net(m_design, "4Gbps");
        Ptr<TcpSocketEndpoint> ep = CreateObject<TcpSocketEndpoint>();
        ep->SetAttribute("SocketFactory", TypeIdValue(OffloadSocketFactory::GetTypeId()));
        ep->Install(net.hosts, net.address);
        NS_TEST_ASSERT_MSG_EQ(ep->FactoryFor(0), OffloadSocketFactory::GetTypeId(), "o0: NIC");
        NS_TEST_ASSERT_MSG_EQ(ep->FactoryFor(2), TcpSocketFactory::GetTypeId(), "t0: ns-3 TCP");
        ep->TraceConnectWithoutContext(
            "FlowFinish",
            MakeCallback(&InstallHelperDeliveryTestCase::Finished, this));

        // (id, src, dst, bytes): offload -> ns-3, ns-3 -> offload, NIC -> NIC
        const struct
        {
            uint32_t src;
            uint32_t dst;
            uint64_t bytes;
        } flows[] = {{0, 2, 3000000},
                     {3, 1, 3000000},
                     {1, 3, 1000000},
                     {2, 0, 1000000},
                     {0, 1, 500000}};

        uint64_t total = 0;
        for (uint32_t i = 0; i < 5; ++i)
        {
            FlowSpec f;
            f.id = i;
            f.src = flows[i].src;
            f.dst = flows[i].dst;
            f.sizeBytes = flows[i].bytes;
            f.dport = 100;
            f.startNs = 1000 * (i + 1);
            total += f.sizeBytes;
            Simulator::Schedule(NanoSeconds(f.startNs), &FlowEndpoint::StartFlow, ep, f);
        }
        Simulator::Stop(MilliSeconds(100));
        Simulator::Run();

        for (uint32_t i = 0; i < 5; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(m_finished.count(i),
                                  1,
                                  "flow " << i << " (" << flows[i].src << " -> " << flows[i].dst
                                          << ") delivered all its bytes");
        }
        NS_TEST_EXPECT_MSG_EQ(ep->GetCorruptBytes(), 0, "no byte altered or out of order");
        NS_TEST_EXPECT_MSG_EQ(ep->GetExcessBytes(), 0, "no byte twice");
        NS_TEST_EXPECT_MSG_EQ(ep->GetDeliveredBytes(), total, "every byte");
        for (uint32_t i = 0; i < 2; ++i)
        {
            const OffloadTcpCounters c = net.Nic(i)->GetTotals();
            std::cout << "    " << m_design << " o" << i << ": sent " << c.bytesSent
                      << " B, delivered " << c.bytesDelivered << " B, retransmitted "
                      << c.retransmittedSegments << " segments, timeouts " << c.timeouts
                      << std::endl;
            NS_TEST_EXPECT_MSG_GT(c.bytesSent, 0, "NIC " << i << " carried data");
            NS_TEST_EXPECT_MSG_GT(c.bytesDelivered, 0, "NIC " << i << " received data");
        }
        ep->Dispose();
        Simulator::Destroy();
        Config::Reset();
    }

    std::string m_design;          //!< the NIC design
    std::set<uint32_t> m_finished; //!< flows that delivered all their bytes
};

/**
 * The example's applications: BulkSend and OnOff over the NIC to PacketSinks on ns-3 TCP
 * hosts and back, every sink receiving exactly what its sender sent.
 */
class InstallHelperApplicationsTestCase : public TestCase
{
  public:
    /** \param design the NIC design's TypeId name */
    explicit InstallHelperApplicationsTestCase(const std::string& design)
        : TestCase(design + " via OffloadNicHelper: BulkSend, OnOff and PacketSink both ways"),
          m_design(design)
    {
    }

  private:
    void DoRun() override
    {
        ConfigureNs3Tcp();
        Dumbbell net(m_design, "10Gbps");
        const std::string offload = "ns3::OffloadSocketFactory";
        const std::string tcp = "ns3::TcpSocketFactory";

        struct App
        {
            uint32_t src;
            std::string srcFactory;
            uint32_t dst;
            std::string dstFactory;
            bool bulk;
            uint64_t bytes;
        };

        const std::vector<App> apps = {{0, offload, 2, tcp, true, 4000000},
                                       {3, tcp, 1, offload, true, 4000000},
                                       {1, offload, 3, tcp, false, 1000000},
                                       {2, tcp, 0, offload, false, 1000000}};
        std::vector<Ptr<PacketSink>> sinks;
        uint16_t port = 5000;
        for (const auto& a : apps)
        {
            PacketSinkHelper sink(a.dstFactory, InetSocketAddress(Ipv4Address::GetAny(), port));
            sinks.push_back(DynamicCast<PacketSink>(sink.Install(net.hosts.Get(a.dst)).Get(0)));
            const InetSocketAddress to(net.address[a.dst], port);
            ApplicationContainer app;
            if (a.bulk)
            {
                BulkSendHelper send(a.srcFactory, to);
                send.SetAttribute("MaxBytes", UintegerValue(a.bytes));
                app = send.Install(net.hosts.Get(a.src));
            }
            else
            {
                OnOffHelper send(a.srcFactory, to);
                send.SetConstantRate(DataRate("2Gbps"), 1448);
                send.SetAttribute("MaxBytes", UintegerValue(a.bytes));
                app = send.Install(net.hosts.Get(a.src));
            }
            app.Start(MicroSeconds(100));
            ++port;
        }
        Simulator::Stop(MilliSeconds(100));
        Simulator::Run();
        for (uint32_t i = 0; i < apps.size(); ++i)
        {
            // OnOff sends whole 1448-byte packets until it has sent at least MaxBytes
            const uint64_t sent =
                apps[i].bulk ? apps[i].bytes : (apps[i].bytes + 1447) / 1448 * 1448;
            NS_TEST_EXPECT_MSG_EQ(sinks[i]->GetTotalRx(),
                                  sent,
                                  (apps[i].bulk ? "BulkSend " : "OnOff ")
                                      << apps[i].src << " -> " << apps[i].dst
                                      << ": the sink received exactly what was sent");
        }
        Simulator::Destroy();
        Config::Reset();
    }

    std::string m_design; //!< the NIC design
};

/**
 * What Install builds and what the setters refuse: the NIC on the host with the node's
 * OffloadSocketFactory, a PointToPointNetDevice on the peer, link attributes on both ends and
 * the design's only on the NIC, the queue and flow control on both ends; bad designs,
 * attributes and node counts are PrestoInputErrors that leave the helper as it was.
 */
class InstallHelperConfigurationTestCase : public TestCase
{
  public:
    InstallHelperConfigurationTestCase()
        : TestCase("OffloadNicHelper: what Install builds, what the setters refuse")
    {
    }

  private:
    /// \return true if f throws PrestoInputError
    template <typename F>
    static bool Throws(F f)
    {
        try
        {
            f();
        }
        catch (const PrestoInputError&)
        {
            return true;
        }
        return false;
    }

    void DoRun() override
    {
        OffloadNicHelper nic;
        NS_TEST_EXPECT_MSG_EQ(nic.GetDeviceType().GetName(),
                              "ns3::PrestoNetDevice",
                              "Presto by default");
        NS_TEST_EXPECT_MSG_EQ(Throws([&] { nic.SetDeviceType("ns3::NoSuchDevice"); }),
                              true,
                              "unknown TypeId refused");
        NS_TEST_EXPECT_MSG_EQ(Throws([&] { nic.SetDeviceType("ns3::PointToPointNetDevice"); }),
                              true,
                              "a device that is not an offload NIC refused");
        NS_TEST_EXPECT_MSG_EQ(
            Throws([&] { nic.SetDeviceAttribute("NoSuchAttribute", UintegerValue(1)); }),
            true,
            "unknown attribute refused");
        NS_TEST_EXPECT_MSG_EQ(Throws([&] { nic.SetChannelAttribute("Delay", UintegerValue(1)); }),
                              true,
                              "a value of the wrong type refused");
        nic.SetDeviceAttribute("ReassemblyFidelity", StringValue("2"));
        NS_TEST_EXPECT_MSG_EQ(Throws([&] { nic.SetDeviceType("ns3::FlexToeNetDevice"); }),
                              true,
                              "a design without an attribute set before is refused");
        NS_TEST_EXPECT_MSG_EQ(nic.GetDeviceType().GetName(),
                              "ns3::PrestoNetDevice",
                              "and the design stays");
        nic.SetDeviceAttribute("DataRate", StringValue("25Gbps"));
        nic.SetChannelAttribute("Delay", StringValue("3us"));
        nic.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize("42p")));

        NodeContainer nodes(3);
        NS_TEST_EXPECT_MSG_EQ(Throws([&] { nic.Install(nodes); }), true, "three nodes refused");
        NetDeviceContainer d = nic.Install(nodes.Get(0), nodes.Get(1));
        NS_TEST_ASSERT_MSG_EQ(d.GetN(), 2, "two devices");
        Ptr<OffloadNetDevice> host = DynamicCast<OffloadNetDevice>(d.Get(0));
        Ptr<PointToPointNetDevice> peer = DynamicCast<PointToPointNetDevice>(d.Get(1));
        NS_TEST_ASSERT_MSG_NE(host, nullptr, "the NIC first");
        NS_TEST_EXPECT_MSG_EQ(host->GetInstanceTypeId().GetName(),
                              "ns3::PrestoNetDevice",
                              "of the design");
        NS_TEST_ASSERT_MSG_NE(peer, nullptr, "the peer's end");
        NS_TEST_EXPECT_MSG_EQ(DynamicCast<OffloadNetDevice>(peer), nullptr, "is a plain port");
        NS_TEST_EXPECT_MSG_NE(nodes.Get(0)->GetObject<OffloadSocketFactory>(),
                              nullptr,
                              "the host has the offload socket factory");
        NS_TEST_EXPECT_MSG_EQ(nodes.Get(1)->GetObject<OffloadSocketFactory>(),
                              nullptr,
                              "the peer has not");
        StringValue fidelity;
        host->GetAttribute("ReassemblyFidelity", fidelity);
        NS_TEST_EXPECT_MSG_EQ(fidelity.Get(), "2", "the design's attribute on the NIC");
        for (Ptr<PointToPointNetDevice> end : {Ptr<PointToPointNetDevice>(host), peer})
        {
            DataRateValue rate;
            end->GetAttribute("DataRate", rate);
            NS_TEST_EXPECT_MSG_EQ(rate.Get(), DataRate("25Gbps"), "DataRate on both ends");
            NS_TEST_EXPECT_MSG_EQ(end->GetQueue()->GetMaxSize(),
                                  QueueSize("42p"),
                                  "the queue on both ends");
            NS_TEST_EXPECT_MSG_NE(end->GetObject<NetDeviceQueueInterface>(),
                                  nullptr,
                                  "flow control on both ends");
        }
        TimeValue delay;
        host->GetChannel()->GetAttribute("Delay", delay);
        NS_TEST_EXPECT_MSG_EQ(delay.Get(), MicroSeconds(3), "the channel attribute");
        NS_TEST_EXPECT_MSG_EQ(host->GetChannel(), peer->GetChannel(), "one link");

        nic.DisableFlowControl();
        nic.SetDeviceType("ns3::PrestoNetDevice");
        NetDeviceContainer e = nic.Install(NodeContainer(nodes.Get(2), nodes.Get(1)));
        NS_TEST_EXPECT_MSG_EQ(e.Get(0)->GetObject<NetDeviceQueueInterface>(),
                              nullptr,
                              "no flow control after DisableFlowControl");
        NS_TEST_EXPECT_MSG_EQ(nodes.Get(1)->GetNDevices(), 2, "the peer has two ports now");

        // the experiments' design names work too
        OffloadNicHelper named;
        named.SetDeviceType("flextoe");
        NS_TEST_EXPECT_MSG_EQ(named.GetDeviceType().GetName(),
                              "ns3::FlexToeNetDevice",
                              "a design by its short name");
        NS_TEST_EXPECT_MSG_EQ(Throws([&] { named.SetDeviceType("host-tcp"); }),
                              true,
                              "host-tcp is no offload NIC");

        // A byte limit below one full frame (Mtu 1500 + 2 PPP bytes) would keep full-sized
        // segments waiting for ever: refused when the device initialises, before the run.
        for (const std::string size : {"1501B", "1502B"})
        {
            OffloadNicHelper small;
            small.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize(size)));
            NodeContainer pair(2);
            NetDeviceContainer s = small.Install(pair.Get(0), pair.Get(1));
            std::string what;
            try
            {
                s.Get(0)->Initialize();
            }
            catch (const PrestoInputError& e)
            {
                what = e.what();
            }
            if (size == "1501B")
            {
                NS_TEST_EXPECT_MSG_NE(
                    what.find("device queue of 1501 bytes cannot hold one frame of 1502 bytes"),
                    std::string::npos,
                    "a queue one byte short of a frame is refused, naming both: " << what);
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(what, "", "a queue of exactly one frame is accepted");
            }
        }

        // OffloadSocketFactory on a node without an offload NIC: a message naming the node,
        // before ns-3's Socket::CreateSocket could dereference a missing factory
        NodeContainer bare(1);
        std::string missing;
        try
        {
            OffloadSocketFactory::RequireNic(bare.Get(0));
        }
        catch (const PrestoInputError& e)
        {
            missing = e.what();
        }
        NS_TEST_EXPECT_MSG_EQ(missing,
                              OffloadSocketFactory::MissingNic(bare.Get(0)),
                              "RequireNic throws MissingNic's message");
        NS_TEST_EXPECT_MSG_NE(
            missing.find("node " + std::to_string(bare.Get(0)->GetId()) + " has no offload NIC"),
            std::string::npos,
            "the message names the node: " << missing);
        NS_TEST_EXPECT_MSG_EQ(OffloadSocketFactory::MissingNic(nullptr).find("node ?"),
                              std::string("OffloadSocketFactory: ").size(),
                              "no node at all is named '?'");
        // a node with one (the hosts above got theirs from Install) passes
        NS_TEST_EXPECT_MSG_EQ(Throws([&] { OffloadSocketFactory::RequireNic(nodes.Get(0)); }),
                              false,
                              "a node with an offload NIC can open offload sockets");
        NS_TEST_EXPECT_MSG_EQ(OffloadSocketFactory::MissingNic(nodes.Get(0)), "", "no problem");
        // the guard's device-less factory (a node without a NIC in a simulation with one)
        // does not count as a NIC
        bare.Get(0)->AggregateObject(CreateObject<OffloadSocketFactory>());
        NS_TEST_EXPECT_MSG_EQ(Throws([&] { OffloadSocketFactory::RequireNic(bare.Get(0)); }),
                              true,
                              "a device-less factory is no offload NIC");
        Simulator::Destroy();
    }
};

/** The presto-install-helper suite. */
class PrestoInstallHelperTestSuite : public TestSuite
{
  public:
    PrestoInstallHelperTestSuite()
        : TestSuite("presto-install-helper", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new InstallHelperConfigurationTestCase(), compat::TestDuration::QUICK);
        for (const char* design : DESIGNS)
        {
            AddTestCase(new InstallHelperDeliveryTestCase(design), compat::TestDuration::QUICK);
            AddTestCase(new InstallHelperApplicationsTestCase(design), compat::TestDuration::QUICK);
        }
    }
};

/// The suite's single instance.
static PrestoInstallHelperTestSuite g_prestoInstallHelperTestSuite;
