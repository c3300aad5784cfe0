/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Offload NICs against ns-3's own TCP as it is configured by default in users' scripts.

#include "ns3/config.h"
#include "ns3/fabric-helper.h"
#include "ns3/inet-socket-address.h"
#include "ns3/nstime.h"
#include "ns3/offload-net-device.h"
#include "ns3/on-off-helper.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/spray-experiment.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <iostream>

using namespace ns3;

/**
 * The delayed-ACK pitfall: ns-3's TCP delays the ACK of a lone segment up to DelAckTimeout
 * (200 ms by default), far beyond the offload NIC's 1 ms minimum RTO. An OnOff sender on an
 * offload NIC ends each burst with a segment the ns-3 receiver does not ACK at once, so the
 * NIC times out and goes back N: spurious timeouts, but the data still arrives, and 1 ms
 * later than with an RTO that waited for the delayed ACK. With the receiver's DelAckTimeout
 * at 50 us (what the module's experiments configure, TcpSocketEndpoint::DelAckTimeout) the
 * same run has none. The behaviour a user gets by default is the documented one: keep the
 * NIC's data-center RTO and give ns-3 hosts that talk to offload NICs a data-center delayed
 * ACK.
 */
class DelayedAckTestCase : public TestCase
{
  public:
    /**
     * \param device the offload design of the sender
     * \param delAck the ns-3 receiver's DelAckTimeout
     */
    DelayedAckTestCase(const std::string& device, Time delAck)
        : TestCase(device + " sender, ns-3 TCP receiver with DelAckTimeout " +
                   std::to_string(delAck.GetMicroSeconds()) +
                   " us: OnOff bursts arrive, spurious timeouts only with the long one"),
          m_device(device),
          m_delAck(delAck)
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(m_delAck));
        auto topo = FabricTopology::LeafSpine(2, 1, 1, 10e9, 40e9, 1000);
        FabricHelper f;
        f.SetHostDeviceFactory(
            0,
            SprayExperiment::DeviceFactory(m_device,
                                           SprayExperiment::CongestionTypeId(m_device, "dctcp")));
        f.Install(topo);
        Ptr<OffloadNetDevice> nic = DynamicCast<OffloadNetDevice>(f.GetHostDevices().Get(0));
        NS_TEST_ASSERT_MSG_NE(nic, nullptr, "host 0 has the offload NIC");
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), 5000));
        ApplicationContainer sink = sinkHelper.Install(f.GetHosts().Get(1));
        // bursts of 3 x 1000-byte packets (an odd number of segments) every 5 ms
        OnOffHelper onoff("ns3::OffloadSocketFactory",
                          InetSocketAddress(f.GetHostAddress(1), 5000));
        onoff.SetAttribute("PacketSize", UintegerValue(1000));
        onoff.SetAttribute("DataRate", StringValue("1Gbps"));
        onoff.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=0.000024]"));
        onoff.SetAttribute("OffTime",
                           StringValue("ns3::ConstantRandomVariable[Constant=0.004976]"));
        onoff.SetAttribute("MaxBytes", UintegerValue(180000));
        ApplicationContainer app = onoff.Install(f.GetHosts().Get(0));
        app.Start(MicroSeconds(10));
        Simulator::Stop(MilliSeconds(400));
        Simulator::Run();
        const uint64_t rx = DynamicCast<PacketSink>(sink.Get(0))->GetTotalRx();
        const OffloadTcpCounters t = nic->GetTotals();
        std::cout << "    " << m_device << ", DelAckTimeout " << m_delAck.GetMicroSeconds()
                  << " us: received " << rx << " bytes, NIC timeouts " << t.timeouts
                  << ", retransmitted segments " << t.retransmittedSegments << std::endl;
        NS_TEST_EXPECT_MSG_EQ(rx, 180000, "every byte arrives");
        if (m_delAck > MilliSeconds(1))
        {
            NS_TEST_EXPECT_MSG_GT(t.timeouts, 0, "the delayed ACK outlasts the NIC's RTO");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ(t.timeouts, 0, "no spurious timeout");
        }
        Simulator::Destroy();
        Config::Reset();
    }

    std::string m_device;
    Time m_delAck;
};

/** The presto-interop suite. */
class PrestoInteropTestSuite : public TestSuite
{
  public:
    PrestoInteropTestSuite()
        : TestSuite("presto-interop", TestSuite::Type::SYSTEM)
    {
        for (const char* device : {"presto", "flextoe", "cora"})
        {
            AddTestCase(new DelayedAckTestCase(device, MilliSeconds(200)),
                        compat::TestDuration::QUICK);
            AddTestCase(new DelayedAckTestCase(device, MicroSeconds(50)),
                        compat::TestDuration::QUICK);
        }
    }
};

/// Registers the suite.
static PrestoInteropTestSuite g_prestoInteropTestSuite;
