/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Speed of the switch path alone: packet-hops per wall second of presto's FabricSwitch fabric
// and, in the same run, of ns-3's own IP routers (Ipv4GlobalRouting, RandomEcmpRouting) on
// the same fabric with the same traffic.
//
// Traffic: every host sends one UDP flow at line rate to a partner (a seeded random
// permutation without fixed points). The sender builds its IPv4 + UDP packet once and hands
// a copy to its device every serialisation time, so no TCP or IP stack runs on the send
// path; receivers count at their device. Output, one line per variant:
//   fabric=presto hops=... wall_s=... hops_per_s=... sent=... delivered=... peak_rss_kb=...
//   scheduler=...
//   fabric=ns3 ...
//   ratio presto/ns3=...
//
//   ./fabric-benchmark --simTime=0.01 --variant=both

#include "ns3/application.h"
#include "ns3/core-module.h"
#include "ns3/experiment-random.h"
#include "ns3/fabric-helper.h"
#include "ns3/ipv4-header.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/udp-header.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sys/resource.h>

using namespace ns3;

namespace
{

/// ns-3 stream of the partner permutation (see the streams table in doc/presto.rst)
constexpr int64_t kPermutationStream = 400000;

/** Sends one pre-built IPv4/UDP packet (a copy each time) at a fixed rate on a device. */
class RawUdpSender : public Application
{
  public:
    /**
     * \param device the host's device
     * \param src source address
     * \param dst destination address
     * \param port UDP source and destination port
     * \param payload UDP payload bytes
     */
    void Setup(Ptr<NetDevice> device,
               Ipv4Address src,
               Ipv4Address dst,
               uint16_t port,
               uint32_t payload)
    {
        m_device = device;
        m_dest = device->GetBroadcast(); // built once: it parses a string
        m_packet = Create<Packet>(payload);
        UdpHeader udp;
        udp.SetSourcePort(port);
        udp.SetDestinationPort(port);
        m_packet->AddHeader(udp);
        Ipv4Header ip;
        ip.SetSource(src);
        ip.SetDestination(dst);
        ip.SetProtocol(17);
        ip.SetTtl(64);
        ip.SetPayloadSize(m_packet->GetSize());
        m_packet->AddHeader(ip);
        DataRateValue rate;
        device->GetAttribute("DataRate", rate);
        // one frame (with its 2-byte PPP header) per serialisation time: line rate
        m_interval = rate.Get().CalculateBytesTxTime(m_packet->GetSize() + 2);
    }

    uint64_t GetSent() const
    {
        return m_sent;
    }

  private:
    void StartApplication() override
    {
        SendOne();
    }

    void StopApplication() override
    {
        Simulator::Cancel(m_event);
    }

    void SendOne()
    {
        m_device->Send(m_packet->Copy(), m_dest, 0x0800);
        ++m_sent;
        m_event = Simulator::Schedule(m_interval, &RawUdpSender::SendOne, this);
    }

    Ptr<NetDevice> m_device;
    Address m_dest;
    Ptr<Packet> m_packet;
    Time m_interval;
    EventId m_event;
    uint64_t m_sent{0};
};

/** Counts packets handed up by a host device (replaces the host's IP stack on receive). */
struct DeliveryCounter
{
    uint64_t delivered{0};

    bool Receive(Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&)
    {
        ++delivered;
        return true;
    }
};

int64_t
PeakRssKb()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

struct Result
{
    uint64_t hops{0};
    double wallS{0};
};

Result
RunVariant(bool ns3Routers,
           bool fastLinks,
           const FabricTopology& topology,
           const std::string& lb,
           double simTime,
           uint32_t payload,
           const std::vector<uint32_t>& partner)
{
    FabricHelper fabric;
    fabric.SetSwitchAttribute("LoadBalancing", StringValue(lb));
    fabric.SetUseNs3Routers(ns3Routers);
    fabric.SetFastLinks(fastLinks);
    fabric.Install(topology);
    fabric.AssignStreams(1);

    const uint32_t n = topology.GetNHosts();
    NetDeviceContainer devices = fabric.GetHostDevices();
    DeliveryCounter counter;
    std::vector<Ptr<RawUdpSender>> senders;
    for (uint32_t h = 0; h < n; ++h)
    {
        devices.Get(h)->SetReceiveCallback(MakeCallback(&DeliveryCounter::Receive, &counter));
        Ptr<RawUdpSender> app = CreateObject<RawUdpSender>();
        app->Setup(devices.Get(h),
                   fabric.GetHostAddress(h),
                   fabric.GetHostAddress(partner[h]),
                   static_cast<uint16_t>(10000 + h),
                   payload);
        fabric.GetHosts().Get(h)->AddApplication(app);
        // stagger the starts by a few ns so that the hosts do not move in lockstep
        app->SetStartTime(NanoSeconds(7 * h));
        app->SetStopTime(Seconds(simTime));
        senders.push_back(app);
    }
    Simulator::Stop(Seconds(simTime));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();

    Result r;
    r.hops = fabric.GetPacketHops();
    r.wallS = std::chrono::duration<double>(t1 - t0).count();
    uint64_t sent = 0;
    for (auto& s : senders)
    {
        sent += s->GetSent();
    }
    std::cout << "fabric=" << (ns3Routers ? "ns3" : "presto")
              << " links=" << (fastLinks ? "fast" : "p2p") << " hops=" << r.hops
              << " wall_s=" << std::fixed << std::setprecision(3) << r.wallS
              << " hops_per_s=" << std::setprecision(0) << r.hops / r.wallS << " sent=" << sent
              << " delivered=" << counter.delivered << " sim_s=" << std::setprecision(4) << simTime
              << " peak_rss_kb=" << PeakRssKb() << " scheduler=" << SchedulerName()
              << " simulator=" << SimulatorImplName() << std::endl;
    Simulator::Destroy();
    return r;
}

} // namespace

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    double simTime = 0.01;
    std::string variant = "both";
    std::string lb = "Spray";
    uint32_t leaves = 4;
    uint32_t spines = 4;
    uint32_t hostsPerLeaf = 8;
    uint32_t payload = 1472;
    uint32_t seed = 1;
    std::string links = "p2p";

    PrestoCommandLine cmd(__FILE__);
    cmd.AddValue("simTime", "simulated time, s", simTime);
    cmd.AddValue("variant", "presto, ns3 or both", variant);
    cmd.AddValue("lb", "FabricSwitch LoadBalancing (Ecmp, Spray, SprayRr, Flowlet)", lb);
    cmd.AddValue("leaves", "leaf switches", leaves);
    cmd.AddValue("spines", "spine switches", spines);
    cmd.AddValue("hostsPerLeaf", "hosts under each leaf", hostsPerLeaf);
    cmd.AddValue("payload", "UDP payload bytes per packet (frame = payload + 30 B)", payload);
    cmd.AddValue("seed", "ns-3 run number: partner permutation, spraying", seed);
    cmd.AddValue("links",
                 "link model of the presto variant: p2p (PointToPointNetDevice) or fast "
                 "(FabricLinkNetDevice); the ns3 variant always uses p2p",
                 links);
    ParseCommandLine(cmd, argc, argv);

    try
    {
        if (!(simTime > 0))
        {
            throw PrestoInputError("--simTime must be > 0 s");
        }
        if (variant != "presto" && variant != "ns3" && variant != "both")
        {
            throw PrestoInputError("--variant must be presto, ns3 or both (got '" + variant + "')");
        }
        if (links != "p2p" && links != "fast")
        {
            throw PrestoInputError("--links must be p2p or fast (got '" + links + "')");
        }
        if (payload < 8 || payload > 1472)
        {
            throw PrestoInputError("--payload must be 8..1472 bytes (MTU 1500)");
        }
        FabricTopology topology =
            FabricTopology::LeafSpine(leaves, spines, hostsPerLeaf, 10e9, 40e9, 1000);
        const uint32_t n = topology.GetNHosts();
        if (n < 2)
        {
            throw PrestoInputError("need at least 2 hosts");
        }
        // a permutation without fixed points, from ns-3's generator at a fixed stream (a
        // Fisher-Yates shuffle on ExperimentRandom: std::shuffle's draws differ between
        // standard libraries); the run number also drives the switches' and routers' spraying
        RngSeedManager::SetRun(seed);
        ExperimentRandom rng(kPermutationStream);
        std::vector<uint32_t> partner(n);
        std::iota(partner.begin(), partner.end(), 0);
        bool fixedPoint = true;
        while (fixedPoint)
        {
            for (uint32_t i = n - 1; i > 0; --i)
            {
                std::swap(partner[i], partner[rng.Index(i + 1)]);
            }
            fixedPoint = false;
            for (uint32_t h = 0; h < n; ++h)
            {
                fixedPoint = fixedPoint || partner[h] == h;
            }
        }
        std::cout << "# " << topology.Describe() << ", load balancing " << lb
                  << ", one line-rate UDP flow per host (permutation)" << std::endl;

        Result presto;
        Result ns3;
        if (variant != "ns3")
        {
            presto = RunVariant(false, links == "fast", topology, lb, simTime, payload, partner);
        }
        if (variant != "presto")
        {
            ns3 = RunVariant(true, false, topology, lb, simTime, payload, partner);
        }
        if (variant == "both")
        {
            std::cout << "ratio presto/ns3=" << std::setprecision(2)
                      << (presto.hops / presto.wallS) / (ns3.hops / ns3.wallS) << std::endl;
        }
    }
    catch (const PrestoInputError& e)
    {
        std::cerr << "fabric-benchmark: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}

int
main(int argc, char* argv[])
{
    return RunPrestoMain("fabric-benchmark", [argc, argv] { return Main(argc, argv); });
}
