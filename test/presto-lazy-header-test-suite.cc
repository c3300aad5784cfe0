/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// A sink connected to any of the fabric's packet trace sources reads real header bytes, never
// the zero placeholder an offload NIC's lazy header (FabricLazyHeader) leaves in the frame:
// the trace sources are FabricFrameTrace, which write the header before any sink runs. The
// checker is itself shown to reject the placeholder, and each source is also the only reader
// in a run of its own: another reader (a sniffer, a switch hashing the 5-tuple) writes the
// header first and would hide a trace source that forgot to.

#include "ns3/boolean.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/error-model.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-link-net-device.h"
#include "ns3/fabric-switch.h"
#include "ns3/fabric-topology.h"
#include "ns3/inet-socket-address.h"
#include "ns3/node-list.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-wire-header.h"
#include "ns3/offload-wire.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/ppp-header.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
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

    /**
     * Read the frame's IPv4 and TCP headers as any trace reader would: from the bytes.
     * \param p the frame \param pppBytes bytes in front of the IPv4 header
     * \return whether they are a real IPv4 header of a TCP segment with nonzero addresses and
     * ports (the placeholder is all zeros)
     */
    static bool HasRealHeader(Ptr<const Packet> p, uint32_t pppBytes)
    {
        uint8_t b[2 + 60 + 20] = {}; // PPP, IPv4 with options, the TCP ports and more
        const uint32_t n = p->CopyData(b, sizeof(b));
        const uint8_t* ip = b + pppBytes;
        const uint32_t ihl = (ip[0] & 0x0f) * 4u;
        return n >= pppBytes + ihl + 20 && (ip[0] >> 4) == 4 && ihl >= 20 && ip[9] == 6 &&
               (ip[12] | ip[13] | ip[14] | ip[15]) != 0 &&
               (ip[16] | ip[17] | ip[18] | ip[19]) != 0 && (ip[ihl] | ip[ihl + 1]) != 0 &&
               (ip[ihl + 2] | ip[ihl + 3]) != 0;
    }

    /// Count the frame, and whether its header is real. \param source its trace source
    /// \param p the frame \param pppBytes bytes in front of the IPv4 header
    void Read(const std::string& source, Ptr<const Packet> p, uint32_t pppBytes)
    {
        ++frames[source];
        if (!HasRealHeader(p, pppBytes))
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
 * Offload NICs with lazy headers (the default; with virtual payload, CarryPayload false, on
 * data segments too, not only on ACKs) send an incast through a leaf-spine fabric with small
 * switch buffers, ECN marking and a lossy receiver link, so that every packet trace source of
 * the fabric fires; a sink on each checks the IPv4 and TCP header bytes it reads. With every
 * sink connected the sniffer writes each header on the first link; a run with one sink and
 * switches that do not hash the header (SprayRr) shows that source writing it itself (without
 * FabricFrameTrace's write Enqueue, Drop and Mark fail there; FastRxDrop and FastSniffer write
 * it in FabricLinkNetDevice).
 */
class LazyHeaderReadersTestCase : public TestCase
{
  public:
    /**
     * \param only the one trace source to connect a sink to (empty: all of them)
     * \param balancing the switches' LoadBalancing: with SprayRr no switch reads the header
     */
    LazyHeaderReadersTestCase(std::string only, std::string balancing)
        : TestCase(only.empty() ? "every fabric packet trace source hands its sinks the real "
                                  "header bytes"
                                : only +
                                      ", the only reader of the frames' bytes, reads the "
                                      "real header bytes (switches: " +
                                      balancing + ")"),
          m_only(std::move(only)),
          m_balancing(std::move(balancing))
    {
    }

  private:
    /// \param source a trace source \return whether a sink is connected to it in this run
    bool Connects(const std::string& source) const
    {
        return m_only.empty() || m_only == source;
    }

    /// Connect the reader to the trace sources of the run. \param f the fabric \param r it
    void ConnectSinks(FabricHelper& f, Reader& r) const
    {
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
                if (Connects("FastTxDrop"))
                {
                    link->TraceConnectWithoutContext("FastTxDrop",
                                                     MakeCallback(&Reader::TxDrop, &r));
                }
                if (Connects("FastRxDrop"))
                {
                    link->TraceConnectWithoutContext("FastRxDrop",
                                                     MakeCallback(&Reader::RxDrop, &r));
                }
                if (Connects("FastSniffer"))
                {
                    link->TraceConnectWithoutContext("FastSniffer",
                                                     MakeCallback(&Reader::Sniffer, &r));
                }
            }
        }
        for (const Ptr<FabricSwitch>& sw : f.GetSwitchObjects())
        {
            if (Connects("Enqueue"))
            {
                sw->TraceConnectWithoutContext("Enqueue", MakeCallback(&Reader::Enqueue, &r));
            }
            if (Connects("Drop"))
            {
                sw->TraceConnectWithoutContext("Drop", MakeCallback(&Reader::Drop, &r));
            }
            if (Connects("Mark"))
            {
                sw->TraceConnectWithoutContext("Mark", MakeCallback(&Reader::Mark, &r));
            }
        }
    }

    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(2, 2, 3, 10e9, 10e9, 1000);
        FabricHelper f;
        f.SetFastLinks(true); // lazy headers travel only on fast links
        f.SetSwitchAttribute("BufferBytes", UintegerValue(30000));
        f.SetSwitchAttribute("EcnThreshold", UintegerValue(6000));
        f.SetSwitchAttribute("LoadBalancing", StringValue(m_balancing));
        ObjectFactory devices;
        devices.SetTypeId("ns3::PrestoNetDevice");
        devices.Set("CarryPayload", BooleanValue(false)); // the data's headers lazy too
        f.SetHostDeviceFactory(devices);
        f.Install(topo);
        Reader r;
        ConnectSinks(f, r);
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
        uint64_t made0 = 0;
        uint64_t written0 = 0;
        OffloadLazyWireHeader::GetCounts(made0, written0);
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        Simulator::Destroy();
        uint64_t made = 0;
        uint64_t written = 0;
        OffloadLazyWireHeader::GetCounts(made, written);
        NS_TEST_EXPECT_MSG_GT(made - made0, 0u, "the NICs sent lazy headers");
        for (const char* source : {"FastRxDrop", "FastSniffer", "Enqueue", "Drop", "Mark"})
        {
            if (Connects(source))
            {
                NS_TEST_EXPECT_MSG_GT(r.frames[source], 0u, source << " fired in the scenario");
            }
        }
        for (const auto& [source, count] : r.frames)
        {
            NS_TEST_EXPECT_MSG_EQ(r.bad[source],
                                  0u,
                                  source << ": " << r.bad[source] << " of " << count
                                         << " frames had placeholder (zero) header bytes");
        }
    }

    std::string m_only;      //!< the one trace source connected, or empty: all
    std::string m_balancing; //!< the switches' LoadBalancing
};

/**
 * \ingroup presto-tests
 * The negative control of the checker: a frame as an offload NIC sends it with a lazy header,
 * a zero placeholder, is rejected; the same frame once its header is written is accepted.
 */
class CheckerTestCase : public TestCase
{
  public:
    CheckerTestCase()
        : TestCase("the checker rejects a lazy header's placeholder, accepts it written")
    {
    }

  private:
    void DoRun() override
    {
        WireSegmentOut w;
        w.src = 0x0a000102;
        w.dst = 0x0a000001;
        w.srcPort = 49153;
        w.dstPort = 5000;
        w.seq = 1;
        w.ack = 1;
        w.flags = 0x10; // ACK
        w.window = 65535;
        w.payloadLen = 1000;
        // made as OffloadNetDevice makes it (offload-net-device-tx.cc)
        Ptr<Packet> frame = Create<Packet>(WireHeaderLength(w) + w.payloadLen);
        FabricFrameFields fields{w.dst, WireTos(w), true};
        fields.lazy = FabricLazyHeaderRef(new OffloadLazyWireHeader(w));
        NS_TEST_EXPECT_MSG_EQ(Reader::HasRealHeader(frame, 0), false, "the placeholder");
        Ptr<Packet> ppp = frame->Copy();
        ppp->AddHeader(PppHeader());
        NS_TEST_EXPECT_MSG_EQ(Reader::HasRealHeader(ppp, 2), false, "the placeholder, PPP");
        fields.EnsureBytes(*PeekPointer(frame));
        NS_TEST_EXPECT_MSG_EQ(Reader::HasRealHeader(frame, 0), true, "the written header");
        ppp = frame->Copy();
        ppp->AddHeader(PppHeader());
        NS_TEST_EXPECT_MSG_EQ(Reader::HasRealHeader(ppp, 2), true, "the written header, PPP");
        NS_TEST_EXPECT_MSG_EQ(frame->GetSize(),
                              WireHeaderLength(w) + w.payloadLen,
                              "the frame keeps its size");
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
        AddTestCase(new CheckerTestCase(), compat::TestDuration::QUICK);
        AddTestCase(new FrameTraceTestCase(), compat::TestDuration::QUICK);
        AddTestCase(new LazyHeaderReadersTestCase("", "Ecmp"), compat::TestDuration::QUICK);
        for (const char* source : {"FastRxDrop", "FastSniffer", "Enqueue", "Drop", "Mark"})
        {
            AddTestCase(new LazyHeaderReadersTestCase(source, "SprayRr"),
                        compat::TestDuration::QUICK);
        }
    }
};

PrestoLazyHeaderTestSuite g_prestoLazyHeaderTestSuite; //!< registered

} // namespace
