/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

// DMA channels per application (issue 12 item 5): a short flow behind a long one on the same
// host, in the same application (one channel: head-of-line blocking) and in another one (its
// own channel, round robin or weighted).

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/fabric-helper.h"
#include "ns3/fabric-topology.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-socket.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-net-device.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-endpoint.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <functional>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

using namespace ns3;

namespace
{

/// One run of the scenario: how the NIC's host interface is shared, and which application
/// sends the short flow.
struct DmaSetup
{
    std::string name;             //!< for the log
    uint32_t channels{0};         //!< DmaChannels
    std::string arbitration;      //!< DmaArbitration ("": the default)
    std::string weights;          //!< DmaWeights
    uint32_t shortApp{0};         //!< application of the second flow (the long one is app 0)
    uint64_t shortBytes{64000};   //!< the second flow's size
    int64_t shortStartNs{300000}; //!< its start (by then the long flow is in full swing)
    double linkBps{100e9};        //!< host links
    double dmaBps{25e9};          //!< DmaBandwidth
    bool reverse{false};          //!< the second flow goes from host 1 to host 0
};

/// What the run produced.
struct DmaResult
{
    int64_t shortFctNs{-1};     //!< the short flow's completion time (-1: unfinished)
    int64_t longFctNs{-1};      //!< the long flow's
    uint64_t delivered{0};      //!< bytes the receiving application got
    uint64_t bad{0};            //!< corrupt or excess bytes
    nlohmann::json nic;         //!< the sender NIC's counters
    nlohmann::json receiverNic; //!< the receiver NIC's counters
};

/// When each flow finished, by flow id.
struct FinishTimes
{
    std::map<uint32_t, int64_t> at; //!< ns

    /// FlowFinish trace sink \param id flow \param size bytes
    void Finish(uint32_t id, uint64_t size)
    {
        at[id] = Simulator::Now().GetNanoSeconds();
    }
};

constexpr uint64_t LONG_BYTES = 4000000;

/**
 * Two hosts under one switch, 100 Gbit/s links, a host interface of 25 Gbit/s (assumed: slower
 * than the wire, so that the DMA queue is where the flows meet). Host 0 sends a long flow
 * (application 0) and, shortStartNs later, a second one (application shortApp) to host 1.
 */
DmaResult
RunSetup(const DmaSetup& s)
{
    auto topo = FabricTopology::LeafSpine(1, 1, 2, s.linkBps, s.linkBps, 1000);
    FabricHelper f;
    ObjectFactory nic;
    nic.SetTypeId(PrestoNetDevice::GetTypeId());
    nic.Set("DmaBandwidth", DoubleValue(s.dmaBps));
    nic.Set("DmaChannels", UintegerValue(s.channels));
    if (!s.arbitration.empty())
    {
        nic.Set("DmaArbitration", StringValue(s.arbitration));
    }
    if (!s.weights.empty())
    {
        nic.Set("DmaWeights", StringValue(s.weights));
    }
    f.SetHostDeviceFactory(nic);
    f.Install(topo);
    Ptr<TcpSocketEndpoint> ep = CreateObject<TcpSocketEndpoint>();
    ep->SetAttribute("SocketFactory", TypeIdValue(OffloadSocketFactory::GetTypeId()));
    ep->SetAttribute("VerifyPayload", BooleanValue(true));
    std::vector<Ipv4Address> addresses{f.GetHostAddress(0), f.GetHostAddress(1)};
    ep->Install(f.GetHosts(), addresses);
    DmaResult r;
    std::map<uint32_t, int64_t> start{{0, 0}, {1, s.shortStartNs}};
    FinishTimes done;
    ep->TraceConnectWithoutContext("FlowFinish", MakeCallback(&FinishTimes::Finish, &done));
    FlowSpec longFlow;
    longFlow.id = 0;
    longFlow.src = 0;
    longFlow.dst = 1;
    longFlow.sizeBytes = LONG_BYTES;
    FlowSpec shortFlow = longFlow;
    shortFlow.id = 1;
    shortFlow.sizeBytes = s.shortBytes;
    shortFlow.app = s.shortApp;
    if (s.reverse)
    {
        std::swap(shortFlow.src, shortFlow.dst);
    }
    Simulator::Schedule(Seconds(0), &FlowEndpoint::StartFlow, ep, longFlow);
    Simulator::Schedule(NanoSeconds(s.shortStartNs), &FlowEndpoint::StartFlow, ep, shortFlow);
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();
    r.longFctNs = done.at.count(0) ? done.at[0] - start[0] : -1;
    r.shortFctNs = done.at.count(1) ? done.at[1] - start[1] : -1;
    r.delivered = ep->GetDeliveredBytes();
    r.bad = ep->GetCorruptBytes() + ep->GetExcessBytes();
    r.nic = nlohmann::json::object();
    DynamicCast<OffloadNetDevice>(f.GetHostDevices().Get(0))->AddCounters(r.nic);
    r.receiverNic = nlohmann::json::object();
    DynamicCast<OffloadNetDevice>(f.GetHostDevices().Get(1))->AddCounters(r.receiverNic);
    ep->Dispose();
    Simulator::Destroy();
    return r;
}

/// Log a run and check what every setup must give. \return "" or what went wrong
std::string
Check(const DmaSetup& s, const DmaResult& x)
{
    std::cout << "    " << s.name << ": flow 1 " << x.shortFctNs / 1000.0 << " us, flow 0 "
              << x.longFctNs / 1000.0 << " us";
    if (x.nic.contains("dma_channels"))
    {
        std::cout << ", channel bytes " << x.nic["dma_channels"]["tx_bytes"]
                  << ", backlog max per channel " << x.nic["dma_channels"]["tx_backlog_max_bytes"];
    }
    std::cout << std::endl;
    if (x.shortFctNs == -1 || x.longFctNs == -1)
    {
        return s.name + ": a flow did not finish";
    }
    if (x.delivered != LONG_BYTES + s.shortBytes)
    {
        return s.name + ": " + std::to_string(x.delivered) + " bytes delivered";
    }
    if (x.bad != 0)
    {
        return s.name + ": bytes out of order, altered or twice";
    }
    if (x.nic["fin_before_data"].get<uint64_t>() +
            x.receiverNic["fin_before_data"].get<uint64_t>() !=
        0)
    {
        return s.name + ": a host heard a FIN before data ahead of it";
    }
    if (s.channels > 0 && x.receiverNic["dma_channels"]["rx_bytes"][0].get<uint64_t>() !=
                              LONG_BYTES + (s.reverse ? 0 : s.shortBytes))
    {
        return s.name + ": the receiver's channel 0 did not carry every received byte";
    }
    return "";
}

} // namespace

/**
 * The short flow's FCT: in the long flow's channel it waits behind the long flow's queued
 * payload (head-of-line blocking); in a channel of its own it waits only for the arbiter's
 * turn. Every byte of both flows arrives exactly once and in order in every setup.
 */
class ShortBehindLongTestCase : public TestCase
{
  public:
    ShortBehindLongTestCase()
        : TestCase("a short flow behind a long one: one DMA channel vs one per application")
    {
    }

  private:
    void DoRun() override
    {
        const DmaSetup setups[] = {
            {"channel per connection (DmaChannels=0)", 0, "", "", 0},
            {"same application, 1 shared channel", 2, "", "", 0},
            {"own application, round robin", 2, "", "", 1},
            {"own application, weights 1:4", 2, "Weighted", "1,4", 1},
        };
        std::map<std::string, DmaResult> r;
        for (const auto& s : setups)
        {
            r[s.name] = RunSetup(s);
            NS_TEST_ASSERT_MSG_EQ(Check(s, r[s.name]), "", "every byte once, in order");
        }
        const int64_t same = r["same application, 1 shared channel"].shortFctNs;
        const int64_t rr = r["own application, round robin"].shortFctNs;
        NS_TEST_EXPECT_MSG_LT(3 * rr,
                              2 * same,
                              "a channel of its own ends the head-of-line blocking");
        // the shared channel's backlog is what the short flow waited behind
        const auto& shared = r["same application, 1 shared channel"].nic["dma_channels"];
        NS_TEST_EXPECT_MSG_GT(shared["tx_backlog_max_bytes"][0].get<uint64_t>(),
                              10 * 1448,
                              "the long flow keeps a queue in its channel");
        NS_TEST_EXPECT_MSG_EQ(shared["tx_bytes"][1].get<uint64_t>(), 0, "channel 1 unused");
        const auto& own = r["own application, round robin"].nic["dma_channels"];
        NS_TEST_EXPECT_MSG_GT_OR_EQ(own["tx_bytes"][1].get<uint64_t>(), 64000, "channel 1 used");
    }
};

/**
 * Weights share the interface: two equal long flows of two applications started together
 * finish together under round robin; with weights 1:4 the second application's flow gets
 * about four fifths of the interface while both send, so it finishes far sooner.
 */
class WeightsShareTheInterfaceTestCase : public TestCase
{
  public:
    WeightsShareTheInterfaceTestCase()
        : TestCase("two applications' long flows share the DMA interface by weight")
    {
    }

  private:
    void DoRun() override
    {
        DmaSetup rr{"two long flows, round robin", 2, "", "", 1, LONG_BYTES, 0};
        DmaSetup weighted{"two long flows, weights 1:4", 2, "Weighted", "1,4", 1, LONG_BYTES, 0};
        const DmaResult a = RunSetup(rr);
        NS_TEST_ASSERT_MSG_EQ(Check(rr, a), "", "every byte once, in order");
        const DmaResult b = RunSetup(weighted);
        NS_TEST_ASSERT_MSG_EQ(Check(weighted, b), "", "every byte once, in order");
        const double rrRatio = double(a.shortFctNs) / a.longFctNs;
        const double wRatio = double(b.shortFctNs) / b.longFctNs;
        NS_TEST_EXPECT_MSG_GT(rrRatio, 0.9, "round robin: together");
        NS_TEST_EXPECT_MSG_LT(rrRatio, 1.1, "round robin: together");
        // 4/5 of the interface until it ends: it finishes at 5/8 of the time both need
        NS_TEST_EXPECT_MSG_LT(wRatio, 0.75, "weight 4 finishes well before weight 1");
    }
};

/**
 * A host interface faster than the wire changes nothing: fetched payload still waits for the
 * NIC's commit bound towards the wire, so at 10 Gbit/s links and a 100 Gbit/s interface the
 * FCTs with shared channels are those of a channel per connection within 1%.
 */
class FastInterfaceTestCase : public TestCase
{
  public:
    FastInterfaceTestCase()
        : TestCase("a host interface faster than the wire: shared channels change no FCT, "
                   "idle ones cap nothing")
    {
    }

  private:
    void DoRun() override
    {
        DmaSetup own{"10G links, channel per connection", 0, "", "", 0, 64000, 300000, 10e9, 100e9};
        DmaSetup shared{"10G links, 2 shared channels", 2, "", "", 1, 64000, 300000, 10e9, 100e9};
        const DmaResult a = RunSetup(own);
        NS_TEST_ASSERT_MSG_EQ(Check(own, a), "", "every byte once, in order");
        const DmaResult b = RunSetup(shared);
        NS_TEST_ASSERT_MSG_EQ(Check(shared, b), "", "every byte once, in order");
        NS_TEST_EXPECT_MSG_EQ_TOL(double(b.longFctNs), double(a.longFctNs), 0.01 * a.longFctNs, "");
        NS_TEST_EXPECT_MSG_EQ_TOL(double(b.shortFctNs),
                                  double(a.shortFctNs),
                                  0.01 * a.shortFctNs,
                                  "the wire queue is as deep as before");
        // a NIC with many channels, two of them used, at 100 Gbit/s: the channels in use
        // share the whole bound (work-conserving), so nothing caps the lone long flow
        DmaSetup
            own100{"100G links, channel per connection", 0, "", "", 0, 64000, 300000, 100e9, 400e9};
        DmaSetup many{"100G links, 16 channels", 16, "", "", 1, 64000, 300000, 100e9, 400e9};
        const DmaResult c = RunSetup(own100);
        NS_TEST_ASSERT_MSG_EQ(Check(own100, c), "", "every byte once, in order");
        const DmaResult d = RunSetup(many);
        NS_TEST_ASSERT_MSG_EQ(Check(many, d), "", "every byte once, in order");
        NS_TEST_EXPECT_MSG_EQ_TOL(double(d.longFctNs),
                                  double(c.longFctNs),
                                  0.01 * c.longFctNs,
                                  "idle channels lend their share");
    }
};

/**
 * The interface is full duplex: two long flows in opposite directions (host 0's sending is
 * host 1's receiving) each get the whole interface, as one flow alone does; one engine for
 * both directions would halve them.
 */
class FullDuplexTestCase : public TestCase
{
  public:
    FullDuplexTestCase()
        : TestCase("the host interface is full duplex: opposite flows do not share it")
    {
    }

  private:
    void DoRun() override
    {
        DmaSetup alone{"one 4 MB flow, then a 64 KB one", 2, "", "", 1, 64000, 0, 100e9, 25e9};
        DmaSetup both{"4 MB each way", 2, "", "", 1, LONG_BYTES, 0, 100e9, 25e9, true};
        const DmaResult a = RunSetup(alone);
        NS_TEST_ASSERT_MSG_EQ(Check(alone, a), "", "every byte once, in order");
        const DmaResult b = RunSetup(both);
        NS_TEST_ASSERT_MSG_EQ(Check(both, b), "", "every byte once, in order");
        // the 4 MB flow alone takes about 4 MB / 25 Gbit/s = 1.28 ms; sharing one engine
        // both ways would take twice that
        NS_TEST_EXPECT_MSG_LT(double(b.longFctNs), 1.1 * a.longFctNs, "host 0 -> 1");
        NS_TEST_EXPECT_MSG_LT(double(b.shortFctNs), 1.1 * a.longFctNs, "host 1 -> 0");
    }
};

/// Impossible configurations are refused with what to change.
class DmaChannelConfigTestCase : public TestCase
{
  public:
    DmaChannelConfigTestCase()
        : TestCase("DMA channel configurations that cannot work are refused")
    {
    }

  private:
    void DoRun() override
    {
        auto error = [](const std::function<void()>& f) {
            try
            {
                f();
            }
            catch (const PrestoInputError& e)
            {
                return std::string(e.what());
            }
            return std::string();
        };
        auto setup = [](const std::string& attr, const std::string& value, uint32_t channels) {
            Ptr<PrestoNetDevice> d = CreateObject<PrestoNetDevice>();
            d->SetAttribute("DmaChannels", UintegerValue(channels));
            d->SetAttribute(attr, StringValue(value));
            d->Setup();
        };
        NS_TEST_EXPECT_MSG_NE(error([&] { setup("DmaWeights", "1,2", 0); }).find("DmaChannels=0"),
                              std::string::npos,
                              "weights without channels");
        NS_TEST_EXPECT_MSG_NE(
            error([&] { setup("DmaWeights", "1,2", 2); }).find("needs DmaArbitration=Weighted"),
            std::string::npos,
            "weights without weighted arbitration");
        auto weighted = [](uint32_t channels, const std::string& weights) {
            Ptr<PrestoNetDevice> d = CreateObject<PrestoNetDevice>();
            d->SetAttribute("DmaChannels", UintegerValue(channels));
            d->SetAttribute("DmaArbitration", StringValue("Weighted"));
            d->SetAttribute("DmaWeights", StringValue(weights));
            d->Setup();
        };
        NS_TEST_EXPECT_MSG_NE(error([&] { weighted(3, "1,2"); }).find("2 weights for 3 channels"),
                              std::string::npos,
                              "a weight per channel");
        NS_TEST_EXPECT_MSG_NE(error([&] { weighted(2, "1,x"); }).find("'x' is not a weight"),
                              std::string::npos,
                              "a weight that is not a number");
        NS_TEST_EXPECT_MSG_NE(error([&] { weighted(2, "0,1"); }).find("weight of channel 0 is 0"),
                              std::string::npos,
                              "a zero weight");
        NS_TEST_EXPECT_MSG_EQ(error([&] { weighted(2, "1,4"); }), "", "a good configuration");
        NS_TEST_EXPECT_MSG_NE(
            error([&] { setup("DmaQuantum", "1500", 2); }).find("needs DmaArbitration"),
            std::string::npos,
            "a quantum without weighted arbitration");
        Simulator::Destroy();
    }
};

/** DMA channels per application. */
class PrestoDmaChannelsTestSuite : public TestSuite
{
  public:
    PrestoDmaChannelsTestSuite()
        : TestSuite("presto-dma-channels", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new ShortBehindLongTestCase, compat::TestDuration::QUICK);
        AddTestCase(new WeightsShareTheInterfaceTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastInterfaceTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FullDuplexTestCase, compat::TestDuration::QUICK);
        AddTestCase(new DmaChannelConfigTestCase, compat::TestDuration::QUICK);
    }
};

/// Static instance that registers the suite.
static PrestoDmaChannelsTestSuite g_prestoDmaChannelsTestSuite;
