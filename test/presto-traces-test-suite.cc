/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The per-connection trace sources of an offloaded connection (OffloadSocket), reached by
// Config paths as ns-3 users reach TcpSocketBase's, on each NIC design; the TcpSocket
// attributes the NIC refuses; the data path's NS_LOG lines.

#include "ns3/bulk-send-helper.h"
#include "ns3/config.h"
#include "ns3/error-model.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-topology.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-socket.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-net-device.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/// \param node a host \return the Config path prefix of its offload sockets
std::string
SocketsOf(Ptr<Node> node)
{
    return "/NodeList/" + std::to_string(node->GetId()) +
           "/$ns3::OffloadSocketFactory/SocketList/*/";
}

/// What the trace sinks saw on the sender, checked against the data path at each call.
struct Probe
{
    Ptr<OffloadNetDevice> dev;                  //!< the sender's NIC
    uint32_t slot{0xffffffff};                  //!< its connection (Established trace)
    uint32_t cwndCalls{0};                      //!< CongestionWindow callbacks
    uint32_t cwndMismatch{0};                   //!< of which with a value unlike the data path's
    uint32_t lastCwnd{0};                       //!< the last traced window
    uint32_t rttCalls{0};                       //!< RTT callbacks
    uint32_t rttMismatch{0};                    //!< of which unlike the last sample
    Time lastRtt;                               //!< the last traced RTT
    int64_t srttAtLastRtt{0};                   //!< the connection's SRTT then
    uint32_t retx{0};                           //!< Retransmission callbacks
    uint32_t tx{0};                             //!< Tx callbacks
    uint32_t rx{0};                             //!< Rx callbacks
    std::vector<TcpSocket::TcpStates_t> states; //!< State's new values
    std::vector<std::string> contexts;          //!< Config contexts of the CongestionWindow calls

    void Established(uint32_t conn)
    {
        slot = conn;
    }

    const OffloadTcpConnection* Tcp() const
    {
        return slot == 0xffffffff ? nullptr : dev->FindConnection(slot);
    }

    void Cwnd(std::string context, uint32_t oldValue, uint32_t newValue)
    {
        ++cwndCalls;
        lastCwnd = newValue;
        if (contexts.empty())
        {
            contexts.push_back(context);
        }
        const OffloadTcpConnection* tcp = Tcp();
        if (!tcp || tcp->GetCwnd() != newValue || oldValue == newValue)
        {
            ++cwndMismatch;
        }
    }

    void Rtt(std::string, Time, Time newValue)
    {
        ++rttCalls;
        lastRtt = newValue;
        const OffloadTcpConnection* tcp = Tcp();
        if (!tcp || tcp->GetLastRttNs() != newValue.GetNanoSeconds())
        {
            ++rttMismatch;
        }
        srttAtLastRtt = tcp ? tcp->GetSrttNs() : 0;
    }

    void State(std::string, TcpSocket::TcpStates_t, TcpSocket::TcpStates_t newValue)
    {
        states.push_back(newValue);
    }

    void Retx(std::string, Ptr<const Packet>, const TcpHeader&, Ptr<const OffloadSocket>)
    {
        ++retx;
    }

    void Tx(std::string, Ptr<const Packet>, const TcpHeader&, Ptr<const OffloadSocket>)
    {
        ++tx;
    }

    void Rx(std::string, Ptr<const Packet>, const TcpHeader&, Ptr<const OffloadSocket>)
    {
        ++rx;
    }
};

/// Connect the probe's sinks to every socket of a node (scheduled once the socket exists).
void
ConnectProbe(Probe* probe, std::string prefix)
{
    Config::Connect(prefix + "CongestionWindow", MakeCallback(&Probe::Cwnd, probe));
    Config::Connect(prefix + "RTT", MakeCallback(&Probe::Rtt, probe));
    Config::Connect(prefix + "State", MakeCallback(&Probe::State, probe));
    Config::Connect(prefix + "Retransmission", MakeCallback(&Probe::Retx, probe));
    Config::Connect(prefix + "Tx", MakeCallback(&Probe::Tx, probe));
    Config::Connect(prefix + "Rx", MakeCallback(&Probe::Rx, probe));
}

/// \param app a PacketSink: close the sockets it accepted
void
CloseAccepted(Ptr<Application> app)
{
    for (Ptr<Socket> s : DynamicCast<PacketSink>(app)->GetAcceptedSockets())
    {
        s->Close();
    }
}

/**
 * One BulkSend -> PacketSink transfer over the NIC design, the trace sinks connected by
 * Config path to the sender's socket; optionally with 1% of the frames reaching the receiver
 * lost, and the data path's log captured.
 */
class SocketTracesTestCase : public TestCase
{
  public:
    /**
     * \param design the device TypeId name \param lossy drop 1% of the frames at the receiver
     * \param log capture OffloadTcpConnection's LOGIC lines and check the retransmissions
     */
    SocketTracesTestCase(const std::string& design, bool lossy, bool log)
        : TestCase("per-connection trace sources by Config path on " + design +
                   (lossy ? ", 1% loss" : "") + (log ? ", with the data path's log" : "")),
          m_design(design),
          m_lossy(lossy),
          m_log(log)
    {
    }

  private:
    void DoRun() override
    {
        auto topo = FabricTopology::LeafSpine(2, 2, 1, 10e9, 40e9, 1000);
        FabricHelper f;
        ObjectFactory devices;
        devices.SetTypeId(m_design);
        f.SetHostDeviceFactory(devices);
        f.Install(topo);
        Probe probe;
        probe.dev = DynamicCast<OffloadNetDevice>(f.GetHostDevices().Get(0));
        NS_TEST_ASSERT_MSG_NE(probe.dev, nullptr, "host 0 has an offload NIC");
        probe.dev->TraceConnectWithoutContext("Established",
                                              MakeCallback(&Probe::Established, &probe));
        if (m_lossy)
        {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(0.01);
            em->AssignStreams(7);
            DynamicCast<FabricLinkNetDevice>(f.GetHostDevices().Get(1))
                ->SetLinkReceiveErrorModel(em);
        }
        std::ostringstream captured;
        std::streambuf* old = nullptr;
        if (m_log)
        {
            old = std::clog.rdbuf(captured.rdbuf());
            LogComponentEnable("OffloadTcpConnection", LOG_LEVEL_LOGIC);
        }
        const uint64_t maxBytes = 2000000;
        PacketSinkHelper sinkHelper("ns3::OffloadSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), 5000));
        ApplicationContainer sink = sinkHelper.Install(f.GetHosts().Get(1));
        BulkSendHelper send("ns3::OffloadSocketFactory",
                            InetSocketAddress(f.GetHostAddress(1), 5000));
        send.SetAttribute("MaxBytes", UintegerValue(maxBytes));
        ApplicationContainer app = send.Install(f.GetHosts().Get(0));
        app.Start(MicroSeconds(10));
        // the sender's socket exists (and has sent its SYN) once the application started
        Simulator::Schedule(MicroSeconds(10) + NanoSeconds(1),
                            &ConnectProbe,
                            &probe,
                            SocketsOf(f.GetHosts().Get(0)));
        // the receiver closes once everything has arrived (PacketSink never does)
        Simulator::Schedule(MilliSeconds(m_lossy ? 150 : 20), &CloseAccepted, sink.Get(0));
        Simulator::Stop(MilliSeconds(m_lossy ? 200 : 30));
        Simulator::Run();
        if (m_log)
        {
            LogComponentDisable("OffloadTcpConnection", LOG_LEVEL_LOGIC);
            std::clog.rdbuf(old);
        }
        const uint64_t rx = DynamicCast<PacketSink>(sink.Get(0))->GetTotalRx();
        NS_TEST_EXPECT_MSG_EQ(rx, maxBytes, "PacketSink received exactly MaxBytes");
        NS_TEST_EXPECT_MSG_GT(probe.cwndCalls, 0, "CongestionWindow fired");
        NS_TEST_EXPECT_MSG_EQ(probe.cwndMismatch,
                              0,
                              "each CongestionWindow value is the data path's window then");
        NS_TEST_EXPECT_MSG_EQ(probe.contexts.empty() ? std::string()
                                                     : probe.contexts[0].substr(0, 10),
                              "/NodeList/",
                              "the context is the Config path");
        NS_TEST_EXPECT_MSG_GT(probe.rttCalls, 0, "RTT fired");
        NS_TEST_EXPECT_MSG_EQ(probe.rttMismatch, 0, "each RTT value is the data path's sample");
        // one flow on an idle fabric: the smoothed estimate sits near the samples
        const double srtt = static_cast<double>(probe.srttAtLastRtt);
        NS_TEST_EXPECT_MSG_GT(srtt, 0.0, "the connection has an RTT estimate");
        NS_TEST_EXPECT_MSG_LT(std::abs(probe.lastRtt.GetNanoSeconds() - srtt),
                              srtt,
                              "the last traced RTT within 100% of SRTT");
        NS_TEST_EXPECT_MSG_GT(probe.tx, maxBytes / 1448, "Tx fired for every data segment");
        NS_TEST_EXPECT_MSG_GT(probe.rx, 0, "Rx fired for the ACKs");
        // State: connected while SYN_SENT, so the first change is ESTABLISHED; the
        // application closes after its last byte (FIN_WAIT_1), the receiver later (TIME_WAIT,
        // our FIN acknowledged by then), and the connection ends CLOSED
        NS_TEST_ASSERT_MSG_EQ(probe.states.size(), 4, "State fired 4 times");
        NS_TEST_EXPECT_MSG_EQ(probe.states[2], TcpSocket::TIME_WAIT, "then TIME_WAIT");
        NS_TEST_EXPECT_MSG_EQ(probe.states.front(), TcpSocket::ESTABLISHED, "first ESTABLISHED");
        NS_TEST_EXPECT_MSG_EQ(probe.states[1], TcpSocket::FIN_WAIT_1, "then FIN_WAIT_1");
        NS_TEST_EXPECT_MSG_EQ(probe.states.back(), TcpSocket::CLOSED, "last CLOSED");
        const OffloadTcpCounters totals = probe.dev->GetTotals();
        NS_TEST_EXPECT_MSG_EQ(probe.retx,
                              totals.retransmittedSegments,
                              "Retransmission fired once per re-sent segment");
        if (m_lossy)
        {
            NS_TEST_EXPECT_MSG_GT(totals.retransmittedSegments, 0, "the loss caused re-sends");
        }
        if (m_log)
        {
            const std::string text = captured.str();
            uint64_t lines = 0;
            for (size_t at = text.find("retransmission: seq"); at != std::string::npos;
                 at = text.find("retransmission: seq", at + 1))
            {
                ++lines;
            }
            NS_TEST_EXPECT_MSG_EQ(lines,
                                  totals.retransmittedSegments,
                                  "one LOGIC line per re-sent segment");
            NS_TEST_EXPECT_MSG_NE(text.find("go-back-N at duplicate ACK"),
                                  std::string::npos,
                                  "the go-back-N is logged");
        }
        Simulator::Destroy();
    }

    std::string m_design; //!< device TypeId
    bool m_lossy;         //!< 1% loss at the receiver
    bool m_log;           //!< capture the log
};

/**
 * A TcpSocket attribute the NIC does not honour is refused with its message: by
 * Config::SetDefault before the run (the device's Setup), on one socket at Connect; the
 * honoured ones and the accepted values pass.
 */
class RefusedAttributesTestCase : public TestCase
{
  public:
    RefusedAttributesTestCase()
        : TestCase("TcpSocket attributes the NIC does not honour are refused")
    {
    }

  private:
    /// \return the message of Setup on a new Presto NIC ("" if it passed)
    static std::string SetupMessage()
    {
        Ptr<PrestoNetDevice> dev = CreateObject<PrestoNetDevice>();
        try
        {
            dev->Setup();
        }
        catch (const PrestoInputError& e)
        {
            return e.what();
        }
        return "";
    }

    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(SetupMessage(), "", "the defaults pass");
        Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(3));
        const std::string m = SetupMessage();
        Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(6));
        NS_TEST_EXPECT_MSG_NE(m.find("ns3::TcpSocket::DataRetries=3 is not supported on an "
                                     "offloaded connection"),
                              std::string::npos,
                              "DataRetries=3 refused: " << m);
        NS_TEST_EXPECT_MSG_NE(m.find("default 6"), std::string::npos, "names the default");
        NS_TEST_EXPECT_MSG_EQ(SetupMessage(), "", "the default again passes");

        // honoured or accepted: no message
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1000));
        Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
        NS_TEST_EXPECT_MSG_EQ(SetupMessage(), "", "SegmentSize and DelAckCount=1 pass");
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(536));
        Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));

        // one socket's own attribute, at Connect
        auto topo = FabricTopology::LeafSpine(2, 2, 1, 10e9, 40e9, 1000);
        FabricHelper f;
        ObjectFactory devices;
        devices.SetTypeId(PrestoNetDevice::GetTypeId());
        f.SetHostDeviceFactory(devices);
        f.Install(topo);
        Ptr<Socket> s = f.GetHosts().Get(0)->GetObject<OffloadSocketFactory>()->CreateSocket();
        s->SetAttribute("PersistTimeout", TimeValue(MilliSeconds(1)));
        std::string msg;
        try
        {
            s->Connect(InetSocketAddress(f.GetHostAddress(1), 5000));
        }
        catch (const PrestoInputError& e)
        {
            msg = e.what();
        }
        NS_TEST_EXPECT_MSG_NE(
            msg.find("OffloadSocket::Connect: ns3::TcpSocket::PersistTimeout=0.001s"
                     " is not supported"),
            std::string::npos,
            "the socket's PersistTimeout refused at Connect: " << msg);
        Simulator::Destroy();
    }
};

/// The suite.
class PrestoTracesTestSuite : public TestSuite
{
  public:
    PrestoTracesTestSuite()
        : TestSuite("presto-traces", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new SocketTracesTestCase("ns3::PrestoNetDevice", false, false),
                    compat::TestDuration::QUICK);
        AddTestCase(new SocketTracesTestCase("ns3::FlexToeNetDevice", false, false),
                    compat::TestDuration::QUICK);
        AddTestCase(new SocketTracesTestCase("ns3::CoraNetDevice", false, false),
                    compat::TestDuration::QUICK);
        AddTestCase(new SocketTracesTestCase("ns3::PrestoNetDevice", true, true),
                    compat::TestDuration::QUICK);
        AddTestCase(new RefusedAttributesTestCase, compat::TestDuration::QUICK);
    }
};

PrestoTracesTestSuite g_prestoTracesTestSuite; //!< registers the suite

} // namespace
