/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Getting started: offload NICs in your own ns-3 script. Two hosts with an offload NIC
// (OffloadNicHelper) and two hosts with ns-3's own TCP (PointToPointHelper), a router on
// each side and a bottleneck link between the routers; InternetStackHelper, Ipv4AddressHelper
// and global routing as in any ns-3 script. Unmodified ns-3 applications run over the NICs
// through ns3::OffloadSocketFactory:
//
//   o0 ---+                        +--- t0      o0, o1: offload NIC (--design)
//         r0 ==== bottleneck ==== r1            t0, t1: ns-3 TCP
//   o1 ---+                        +--- t1
//
//   flow 0: o0 -> t0  BulkSend over the NIC           -> PacketSink on ns-3 TCP
//   flow 1: t1 -> o1  BulkSend on ns-3 TCP            -> PacketSink over the NIC
//   flow 2: o1 -> t1  OnOff over the NIC              -> PacketSink on ns-3 TCP
//   flow 3: t0 -> o0  OnOff on ns-3 TCP               -> PacketSink over the NIC
//
// It prints each flow's bytes and goodput and each NIC's counters; with --flowMonitor,
// ns-3's FlowMonitor over every flow, the offloaded ones included (OffloadFlowMonitorHelper).
//
//   presto-dumbbell --design=ns3::FlexToeNetDevice --bulkBytes=20000000
//   presto-dumbbell --ns3::PrestoNetDevice::ReassemblyFidelity=2 --pcap=1
//   presto-dumbbell --flowMonitor=flowmon.xml

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/experiment-options.h"
#include "ns3/flow-monitor-module.h"
#include "ns3/input-file.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/offload-flow-monitor-helper.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-nic-helper.h"
#include "ns3/point-to-point-module.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/spray-experiment-config.h"

#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <utility>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("PrestoDumbbell");

namespace
{

/// One flow: what the sink received and when the last byte came.
struct FlowRecord
{
    std::string name;     //!< "o0 -> t0 BulkSend"
    Ptr<PacketSink> sink; //!< its receiver
    uint64_t expected{0}; //!< bytes the sender sends
    Time start;           //!< the sender's start
    Time lastRx;          //!< time of the last byte

    /// PacketSink "Rx" trace sink
    void Received(Ptr<const Packet>, const Address&)
    {
        lastRx = Simulator::Now();
    }
};

/**
 * Refuse a bad option value before anything is built, naming the option: ns-3's DataRate and
 * Time parsers abort on bad text, Simulator::Stop asserts on a negative time, and a MaxBytes
 * of 0 means no limit to BulkSend and OnOff (the flow would never be complete).
 * \param rates the rate options, name and text \param delay --delay \param bytes the byte
 * options, name and value \param simTime --simTime \param flowMonitor --flowMonitor
 */
void
CheckOptions(const std::vector<std::pair<std::string, std::string>>& rates,
             const std::string& delay,
             const std::vector<std::pair<std::string, uint64_t>>& bytes,
             double simTime,
             const std::string& flowMonitor)
{
    for (const auto& [name, text] : rates)
    {
        experiment::ParseRate(name, text);
    }
    experiment::ParseTimeNs("delay", delay);
    for (const auto& [name, value] : bytes)
    {
        // OnOff's expected total rounds up to whole 1448-byte packets
        if (value == 0 || value > std::numeric_limits<uint64_t>::max() - 1448)
        {
            throw PrestoInputError("--" + name + "=" + std::to_string(value) +
                                   " must be a byte count in [1, 2^64 - 1449] (0 would "
                                   "mean no limit)");
        }
    }
    experiment::CheckSeconds("simTime", simTime, true);
    if (!flowMonitor.empty() && !std::ofstream(flowMonitor))
    {
        // found now, not by FlowMonitor's abort after the run
        throw PrestoInputError("--flowMonitor=" + InputExcerpt(flowMonitor) +
                               ": cannot write this file");
    }
}

} // namespace

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    std::string design = "ns3::PrestoNetDevice";
    std::string accessRate = "10Gbps";
    std::string bottleneckRate = "10Gbps";
    std::string delay = "5us";
    uint64_t bulkBytes = 10000000;
    uint64_t onOffBytes = 2000000;
    std::string onOffRate = "2Gbps";
    // the options presto-spray has too: its names and parsers, this program's defaults
    SprayExperimentConfig shared;
    shared.simTime = 0.1;
    shared.pcap = false;
    std::string flowMonitor;

    PrestoCommandLine cmd(__FILE__);
    cmd.AddValue("design",
                 "NIC design of o0 and o1: presto, flextoe, cora, or the TypeId name of "
                 "any offload NIC design (ns3::FlexToeNetDevice, ...)",
                 design);
    cmd.AddValue("accessRate", "Host link rate", accessRate);
    cmd.AddValue("bottleneckRate", "Router-router link rate", bottleneckRate);
    cmd.AddValue("delay", "Delay of every link", delay);
    cmd.AddValue("bulkBytes", "Bytes of each BulkSend flow", bulkBytes);
    cmd.AddValue("onOffBytes", "Bytes of each OnOff flow", onOffBytes);
    cmd.AddValue("onOffRate", "OnOff sending rate while on", onOffRate);
    shared.AddToCommandLine(
        cmd,
        {{"simTime", "Simulated time, s"},
         {"pcap", "Write pcap traces of the host links (presto-dumbbell-*.pcap)"}});
    cmd.AddValue("flowMonitor",
                 "Run ns-3's FlowMonitor on every node (offload NICs included), print its "
                 "per-flow statistics and write them to this XML file",
                 flowMonitor);
    ParseCommandLine(cmd, argc, argv);
    const double simTime = shared.simTime;
    const bool pcap = shared.pcap;
    CheckOptions(
        {{"accessRate", accessRate}, {"bottleneckRate", bottleneckRate}, {"onOffRate", onOffRate}},
        delay,
        {{"bulkBytes", bulkBytes}, {"onOffBytes", onOffBytes}},
        simTime,
        flowMonitor);

    // ns-3's TCP as a data-center host would run it: full-size segments, and a delayed ACK
    // shorter than the NICs' 1 ms minimum RTO (ns-3's default is 200 ms).
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(50)));

    NodeContainer offloadHosts;
    offloadHosts.Create(2);
    NodeContainer tcpHosts;
    tcpHosts.Create(2);
    NodeContainer routers;
    routers.Create(2);

    OffloadNicHelper nic;
    PointToPointHelper p2p;
    // an unknown design is refused naming the option (RunPrestoMain prints the error)
    experiment::WithOption("design", [&] { nic.SetDeviceType(design); });
    nic.SetDeviceAttribute("DataRate", StringValue(accessRate));
    nic.SetChannelAttribute("Delay", StringValue(delay));
    p2p.SetDeviceAttribute("DataRate", StringValue(accessRate));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(delay));

    std::vector<NetDeviceContainer> links;
    for (uint32_t i = 0; i < 2; ++i)
    {
        links.push_back(nic.Install(offloadHosts.Get(i), routers.Get(0))); // NIC first
    }
    for (uint32_t i = 0; i < 2; ++i)
    {
        links.push_back(p2p.Install(tcpHosts.Get(i), routers.Get(1)));
    }
    links.push_back(bottleneck.Install(routers));

    InternetStackHelper stack;
    stack.InstallAll();
    Ipv4AddressHelper address("10.1.0.0", "255.255.255.0");
    std::vector<Ipv4InterfaceContainer> interfaces;
    for (const auto& link : links)
    {
        interfaces.push_back(address.Assign(link));
        address.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    // host addresses: the first interface of each host link
    const Ipv4Address o[2] = {interfaces[0].GetAddress(0), interfaces[1].GetAddress(0)};
    const Ipv4Address t[2] = {interfaces[2].GetAddress(0), interfaces[3].GetAddress(0)};

    const std::string offload = "ns3::OffloadSocketFactory";
    const std::string ns3Tcp = "ns3::TcpSocketFactory";
    std::vector<FlowRecord> flows(4);
    uint16_t port = 5000;
    // sender node, its socket factory, receiver node, its factory and address, bulk or OnOff
    auto addFlow = [&](FlowRecord& f,
                       const std::string& name,
                       Ptr<Node> from,
                       const std::string& fromFactory,
                       Ptr<Node> to,
                       const std::string& toFactory,
                       Ipv4Address toAddress,
                       bool bulk) {
        PacketSinkHelper sinkHelper(toFactory, InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(to);
        f.sink = DynamicCast<PacketSink>(sinkApp.Get(0));
        f.sink->TraceConnectWithoutContext("Rx", MakeCallback(&FlowRecord::Received, &f));
        ApplicationContainer app;
        if (bulk)
        {
            BulkSendHelper send(fromFactory, InetSocketAddress(toAddress, port));
            send.SetAttribute("MaxBytes", UintegerValue(bulkBytes));
            app = send.Install(from);
            f.expected = bulkBytes;
        }
        else
        {
            OnOffHelper send(fromFactory, InetSocketAddress(toAddress, port));
            send.SetConstantRate(DataRate(onOffRate), 1448);
            send.SetAttribute("MaxBytes", UintegerValue(onOffBytes));
            app = send.Install(from);
            // OnOff sends whole packets until it has sent at least MaxBytes
            f.expected = (onOffBytes + 1447) / 1448 * 1448;
        }
        f.name = name;
        f.start = MicroSeconds(100);
        app.Start(f.start);
        ++port;
    };
    addFlow(flows[0],
            "o0 -> t0 BulkSend",
            offloadHosts.Get(0),
            offload,
            tcpHosts.Get(0),
            ns3Tcp,
            t[0],
            true);
    addFlow(flows[1],
            "t1 -> o1 BulkSend",
            tcpHosts.Get(1),
            ns3Tcp,
            offloadHosts.Get(1),
            offload,
            o[1],
            true);
    addFlow(flows[2],
            "o1 -> t1 OnOff",
            offloadHosts.Get(1),
            offload,
            tcpHosts.Get(1),
            ns3Tcp,
            t[1],
            false);
    addFlow(flows[3],
            "t0 -> o0 OnOff",
            tcpHosts.Get(0),
            ns3Tcp,
            offloadHosts.Get(0),
            offload,
            o[0],
            false);

    if (pcap)
    {
        nic.EnablePcap("presto-dumbbell", NodeContainer(offloadHosts));
        p2p.EnablePcap("presto-dumbbell", NodeContainer(tcpHosts));
    }
    FlowMonitorHelper flowmon;
    Ptr<FlowMonitor> monitor;
    if (!flowMonitor.empty())
    {
        monitor = flowmon.InstallAll();             // ns-3's probe: the IP stacks
        OffloadFlowMonitorHelper::Install(flowmon); // the offload NICs' frames
    }
    Simulator::Stop(Seconds(simTime));
    Simulator::Run();

    std::cout << "presto-dumbbell: " << design << " on o0, o1; ns-3 TCP on t0, t1; access "
              << accessRate << ", bottleneck " << bottleneckRate << ", delay " << delay << "\n";
    int status = 0;
    for (const auto& f : flows)
    {
        const uint64_t rx = f.sink->GetTotalRx();
        const double seconds = (f.lastRx - f.start).GetSeconds();
        std::cout << "  flow " << std::left << std::setw(20) << f.name << std::right << rx << " / "
                  << f.expected << " bytes";
        if (rx > 0 && seconds > 0)
        {
            std::cout << ", goodput " << std::fixed << std::setprecision(3)
                      << 8.0 * rx / seconds / 1e9 << " Gbit/s over " << seconds * 1e3 << " ms"
                      << std::defaultfloat;
        }
        std::cout << (rx == f.expected ? "" : "  (incomplete)") << "\n";
        status = rx == f.expected ? status : 1;
    }
    for (uint32_t i = 0; i < 2; ++i)
    {
        Ptr<OffloadNetDevice> dev = DynamicCast<OffloadNetDevice>(links[i].Get(0));
        const OffloadTcpCounters c = dev->GetTotals();
        std::cout << "  NIC of o" << i << " (" << dev->GetInstanceTypeId().GetName() << "): sent "
                  << c.bytesSent << " B in " << c.dataSegmentsSent << " segments, delivered "
                  << c.bytesDelivered << " B, retransmitted " << c.retransmittedSegments
                  << " segments, timeouts " << c.timeouts << ", out-of-order placed "
                  << c.outOfOrderPlaced << ", fidelity drops " << c.fidelityDrops
                  << ", ECE received " << c.eceReceived << "\n";
        nlohmann::json counters = nlohmann::json::object();
        dev->AddCounters(counters);
        // every counter of the design (summary.json's "nic" section), those not zero
        std::cout << "    counters:";
        for (const auto& [key, value] : counters.items())
        {
            if (value.is_primitive() && value != 0)
            {
                std::cout << " " << key << "=" << value.dump();
            }
        }
        std::cout << std::endl;
    }
    if (monitor)
    {
        monitor->CheckForLostPackets();
        Ptr<Ipv4FlowClassifier> classifier =
            DynamicCast<Ipv4FlowClassifier>(flowmon.GetClassifier());
        std::cout << "  FlowMonitor (" << flowMonitor << "):\n";
        for (const auto& [id, st] : monitor->GetFlowStats())
        {
            const Ipv4FlowClassifier::FiveTuple t = classifier->FindFlow(id);
            std::cout << "    flow " << id << " " << t.sourceAddress << ":" << t.sourcePort
                      << " -> " << t.destinationAddress << ":" << t.destinationPort << "  tx "
                      << st.txPackets << " pkts, rx " << st.rxPackets << " pkts " << st.rxBytes
                      << " B, lost " << st.lostPackets << ", mean delay "
                      << (st.rxPackets ? st.delaySum.GetMicroSeconds() / double(st.rxPackets) : 0)
                      << " us\n";
        }
        monitor->SerializeToXmlFile(flowMonitor, true, true);
    }
    Simulator::Destroy();
    return status;
}

int
main(int argc, char* argv[])
{
    return RunPrestoMain("presto-dumbbell", [argc, argv] { return Main(argc, argv); });
}
