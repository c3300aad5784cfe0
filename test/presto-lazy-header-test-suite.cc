/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// A sink connected to any of the fabric's packet trace sources reads real header bytes, never
// the zero placeholder an offload NIC's lazy header (FabricLazyHeader) leaves in the frame:
// the trace sources are FabricFrameTrace, which write the header before any sink runs.

#include "ns3/bulk-send-helper.h"
#include "ns3/error-model.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-link-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/fabric-topology.h"
#include "ns3/inet-socket-address.h"
#include "ns3/node-list.h"
#include "ns3/offload-net-device.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <map>
#include <string>

using namespace ns3;

namespace
{

/// What the sinks saw, by trace source.
struct Reader
{
    std::map<std::string, uint32_t> frames; //!< frames seen, by trace source
    std::map<std::string, uint32_t> bad;    //!< of which without a real IPv4/TCP header
    std::string first;                      //!< the first bad frame's trace source

    /// Read the frame's IPv4 and TCP headers as any trace reader would: from the bytes.
    void Read(const std::string& source, Ptr<const Packet> p, uint32_t pppBytes)
    {
        ++frames[source];
        uint8_t b[64] = {};
        const uint32_t n = p->CopyData(b, sizeof(b));
        const uint8_t* ip = b + pppBytes;
        const uint32_t ihl = (ip[0] & 0x0f) * 4u;
        const bool ok = n >= pppBytes + 40 && (ip[0] >> 4) == 4 && ihl >= 20 && ip[9] == 6 &&
                        (ip[12] | ip[13] | ip[14] | ip[15]) != 0 &&
                        (ip[16] | ip[17] | ip[18] | ip[19]) != 0 && (ip[ihl] | ip[ihl + 1]) != 0 &&
                        (ip[ihl + 2] | ip[ihl + 3]) != 0;
        if (!ok)
        {
            if (bad[source]++ == 0 && first.empty())
            {
                first = source;
            }
        }
    }

    void TxDrop(Ptr<const Packet> p)
    {
        Read("FastTxDrop", p, 0);
    }

    void RxDrop(Ptr<const Packet> p)
    {
        Read("FastRxDrop", p, 0);
    }

    void Sniffer(Ptr<const Packet> p)
    {
        Read("FastSniffer", p, 2); // with the PPP header, as pcap sees it
    }

    void Enqueue(Ptr<const Packet> p, uint32_t)
    {
        Read("Enqueue", p, 0);
    }

    void Drop(Ptr<const Packet> p, uint32_t)
    {
        Read("Drop", p, 0);
    }

    void Mark(Ptr<const Packet> p, uint32_t)
    {
        Read("Mark", p, 0);
    }
};

/**
 * \ingroup presto-tests
 * Offload NICs with lazy headers (the default) send an incast through a leaf-spine fabric with
 * small switch buffers, ECN marking and a lossy receiver link, so that every packet trace
 * source of the fabric fires; a sink on each checks the IPv4 and TCP header bytes it reads.
 */
class LazyHeaderReadersTestCase : public TestCase
{
  public:
    LazyHeaderReadersTestCase()
        : TestCase("every fabric packet trace source hands its sinks the real header bytes")
    {
    }

  private:
    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(2, 2, 3, 10e9, 10e9, 1000);
        FabricHelper f;
        f.SetFastLinks(true); // lazy headers travel only on fast links
        f.SetSwitchAttribute("BufferBytes", UintegerValue(30000));
        f.SetSwitchAttribute("EcnThreshold", UintegerValue(6000));
        ObjectFactory devices;
        devices.SetTypeId("ns3::PrestoNetDevice");
        f.SetHostDeviceFactory(devices);
        f.Install(topo);
        Reader r;
        for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
        {
            Ptr<Node> node = NodeList::GetNode(n);
            for (uint32_t d = 0; d < node->GetNDevices(); ++d)
            {
                Ptr<FabricLinkNetDevice> link =
                    DynamicCast<FabricLinkNetDevice>(node->GetDevice(d));
                if (!link)
                {
                    continue;
                }
                link->TraceConnectWithoutContext("FastTxDrop", MakeCallback(&Reader::TxDrop, &r));
                link->TraceConnectWithoutContext("FastRxDrop", MakeCallback(&Reader::RxDrop, &r));
                link->TraceConnectWithoutContext("FastSniffer", MakeCallback(&Reader::Sniffer, &r));
            }
        }
        for (const Ptr<FabricSwitch>& sw : f.GetSwitchObjects())
        {
            sw->TraceConnectWithoutContext("Enqueue", MakeCallback(&Reader::Enqueue, &r));
            sw->TraceConnectWithoutContext("Drop", MakeCallback(&Reader::Drop, &r));
            sw->TraceConnectWithoutContext("Mark", MakeCallback(&Reader::Mark, &r));
        }
        // the receiver's link end loses some frames (FastRxDrop)
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(0.01);
        em->AssignStreams(3);
        DynamicCast<FabricLinkNetDevice>(f.GetHostDevices().Get(0))->SetLinkReceiveErrorModel(em);
        // an incast of five senders on host 0, two of them in its rack
        PacketSinkHelper sinkHelper("ns3::OffloadSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), 5000));
        ApplicationContainer sink = sinkHelper.Install(f.GetHosts().Get(0));
        for (uint32_t h = 1; h < 6; ++h)
        {
            BulkSendHelper send("ns3::OffloadSocketFactory",
                                InetSocketAddress(f.GetHostAddress(0), 5000));
            send.SetAttribute("MaxBytes", UintegerValue(300000));
            send.Install(f.GetHosts().Get(h)).Start(MicroSeconds(10 + h));
        }
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        Simulator::Destroy();
        for (const char* source : {"FastRxDrop", "FastSniffer", "Enqueue", "Drop", "Mark"})
        {
            NS_TEST_EXPECT_MSG_GT(r.frames[source], 0u, source << " fired in the scenario");
        }
        for (const auto& [source, count] : r.frames)
        {
            NS_TEST_EXPECT_MSG_EQ(r.bad[source],
                                  0u,
                                  source << ": " << r.bad[source] << " of " << count
                                         << " frames had placeholder (zero) header bytes");
        }
    }
};

/// A lazy header that writes a fixed byte pattern over its placeholder.
class PatternHeader : public FabricLazyHeader
{
  private:
    void DoWrite(Packet& packet, uint8_t tos) override
    {
        packet.RemoveAtStart(sizeof(PATTERN));
        Packet written(PATTERN, sizeof(PATTERN));
        written.AddAtEnd(packet.Copy());
        packet = written;
        m_tos = tos;
    }

  public:
    static constexpr uint8_t PATTERN[4] = {0x45, 0x11, 0x22, 0x33}; //!< the header's bytes
    uint8_t m_tos{0};                                               //!< TOS it was written with
};

/**
 * \ingroup presto-tests
 * FabricFrameTrace itself: a sink reads the written header; without a sink nothing is
 * written (the hot path's cost is one test).
 */
class FrameTraceTestCase : public TestCase
{
  public:
    FrameTraceTestCase()
        : TestCase("FabricFrameTrace writes a lazy header before its sinks, only for them")
    {
    }

  private:
    void DoRun() override
    {
        FabricFrameTrace<uint32_t> trace;
        auto* header = new PatternHeader;
        FabricFrameFields fields{0x0a000001, 0x03, true, FabricLazyHeaderRef(header)};
        Ptr<Packet> frame = Create<Packet>(100); // a zero placeholder
        trace(fields, frame, 7);
        NS_TEST_EXPECT_MSG_EQ(header->IsWritten(), false, "no sink: nothing written");
        uint8_t seen[4] = {};
        uint32_t port = 0;
        trace.ConnectWithoutContext(
            Callback<void, Ptr<const Packet>, uint32_t>([&](Ptr<const Packet> p, uint32_t q) {
                p->CopyData(seen, sizeof(seen));
                port = q;
            }));
        trace(fields, frame, 7);
        NS_TEST_EXPECT_MSG_EQ(header->IsWritten(), true, "written for the sink");
        NS_TEST_EXPECT_MSG_EQ(header->m_tos, 0x03, "with the fields' TOS byte");
        NS_TEST_EXPECT_MSG_EQ(port, 7u, "the other arguments pass through");
        for (size_t i = 0; i < sizeof(seen); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(uint32_t(seen[i]),
                                  uint32_t(PatternHeader::PATTERN[i]),
                                  "the sink read the header, not the placeholder, byte " << i);
        }
        NS_TEST_EXPECT_MSG_EQ(frame->GetSize(), 100u, "the frame keeps its size");
    }
};

/// \ingroup presto-tests The suite.
class PrestoLazyHeaderTestSuite : public TestSuite
{
  public:
    PrestoLazyHeaderTestSuite()
        : TestSuite("presto-lazy-header", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new FrameTraceTestCase(), compat::TestDuration::QUICK);
        AddTestCase(new LazyHeaderReadersTestCase(), compat::TestDuration::QUICK);
    }
};

PrestoLazyHeaderTestSuite g_prestoLazyHeaderTestSuite; //!< registered

} // namespace
