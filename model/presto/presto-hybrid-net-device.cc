/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-hybrid-net-device.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/fast-simulator.h"
#include "ns3/flextoe-profile.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PrestoHybridNetDevice");
NS_OBJECT_ENSURE_REGISTERED(PrestoHybridNetDevice);

TypeId
PrestoHybridNetDevice::GetTypeId()
{
    static TypeId tid =
        FlexToeExtensionSet::AddAttributes(
            TypeId("ns3::PrestoHybridNetDevice")
                .SetParent<PrestoNetDevice>()
                .SetGroupName("Presto")
                .AddConstructor<PrestoHybridNetDevice>()
                .AddAttribute("ExtensionProfile",
                              "SmartNIC cores that run the extension modules: a FlexTOE "
                              "hardware profile (agilio-cx40, bluefield, x86) whose TCP work is "
                              "set to zero cycles, since the pipeline does the transport",
                              StringValue(FlexToeProfile::DEFAULT),
                              MakeStringAccessor(&PrestoHybridNetDevice::m_profile),
                              MakeStringChecker()),
            &PrestoHybridNetDevice::m_firewallRules,
            &PrestoHybridNetDevice::m_vlanStrip,
            &PrestoHybridNetDevice::m_tcpTrace)
            .AddAttribute("RpcSteering",
                          "Run the RPC-processing stage on the SmartNIC cores: it reads each "
                          "arriving request's framing and places the request in the queue of "
                          "the host worker core with the fewest waiting (RpcEndpoint "
                          "Steering=Nic), so that no host core dispatches requests",
                          BooleanValue(false),
                          MakeBooleanAccessor(&PrestoHybridNetDevice::m_rpcSteering),
                          MakeBooleanChecker())
            .AddAttribute("RpcSteerCycles",
                          "SmartNIC core cycles the RPC stage spends per arriving segment with "
                          "payload (assumed value: 200, a header parse and a queue choice), "
                          "cycles",
                          DoubleValue(200),
                          MakeDoubleAccessor(&PrestoHybridNetDevice::m_rpcSteerCycles),
                          MakeDoubleChecker<double>(0));
    return tid;
}

PrestoHybridNetDevice::PrestoHybridNetDevice()
{
    NS_LOG_FUNCTION(this);
}

PrestoHybridNetDevice::~PrestoHybridNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
PrestoHybridNetDevice::SetupModel()
{
    PrestoNetDevice::SetupModel();
    if (m_cores)
    {
        return;
    }
    m_extensions.Build(m_vlanStrip,
                       m_tcpTrace,
                       m_firewallRules,
                       "PrestoHybridNetDevice::FirewallRules");
    if (m_rpcSteering)
    {
        m_extensions.AddRpcSteering(m_rpcSteerCycles);
    }
    FlexToePipelineConfig cfg = FlexToeProfile::Get(m_profile);
    cfg.name += " (extensions only)";
    for (auto& stage : cfg.stages)
    {
        // the pipeline does the transport: the cores pay only their modules' cycles
        stage.cyclesPerPacket = 0;
        stage.cyclesPerByte = 0;
        stage.memoryStallNs = 0;
    }
    FlexToeProfile::Validate(cfg);
    if (!m_extensions.IsEmpty())
    {
        m_cores = std::make_unique<FlexToePipeline>(cfg);
    }
}

bool
PrestoHybridNetDevice::RunModules(uint32_t conn,
                                  const OffloadSegment& seg,
                                  bool received,
                                  Time& latency)
{
    latency = Time(0);
    if (!m_cores)
    {
        return true; // no module: the cores are not on the path
    }
    Ipv4Address peer;
    FlexToeExtensionSet::Segment view;
    GetEndpoints(conn, peer, view.localPort, view.peerPort);
    view.localIp = GetLocalAddress().Get();
    view.peerIp = peer.Get();
    view.tcpFlags = seg.flags;
    view.payload = seg.payloadLen;
    view.seq = seg.seq;
    view.received = received;
    const FlexToeResult r = m_extensions.Process(*m_cores, FastSimulator::NowNs(), view);
    if (r.dropped)
    {
        ++(r.reason == FlexToeDropReason::QUEUE_FULL ? m_queueDrops : m_extensionDrops);
        return false;
    }
    latency = PicoSeconds(r.departPs) - FastSimulator::Now();
    return true;
}

bool
PrestoHybridNetDevice::AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency)
{
    Time cores;
    if (!RunModules(conn, seg, true, cores))
    {
        return false;
    }
    const bool admitted = PrestoNetDevice::AdmitReceived(conn, seg, latency);
    latency += cores;
    return admitted;
}

Time
PrestoHybridNetDevice::ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop)
{
    const Time pipeline = PrestoNetDevice::ProcessTransmit(conn, seg, drop);
    Time cores;
    if (!drop && !RunModules(conn, seg, false, cores))
    {
        drop = true;
    }
    return pipeline + cores;
}

std::shared_ptr<FlexToeTcpTrace>
PrestoHybridNetDevice::GetTcpTrace() const
{
    return m_extensions.GetTcpTrace();
}

void
PrestoHybridNetDevice::AddCounters(nlohmann::json& nic) const
{
    PrestoNetDevice::AddCounters(nic);
    auto add = [&nic](const char* key, uint64_t v) { nic[key] = nic.value(key, uint64_t(0)) + v; };
    add("extension_drops", m_extensionDrops);
    add("extension_queue_drops", m_queueDrops);
    m_extensions.AddCounters(nic);
    if (m_cores)
    {
        FlexToeExtensionSet::AddStageCounters(*m_cores, nic["extension_cores"]);
        nic["extension_profile"] = m_cores->GetConfig().name;
    }
}

} // namespace ns3
