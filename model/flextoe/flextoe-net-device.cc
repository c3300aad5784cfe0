/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flextoe-net-device.h"

#include "flextoe-profile.h"

#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlexToeNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FlexToeNetDevice);

TypeId
FlexToeNetDevice::GetTypeId()
{
    static TypeId tid = FlexToeExtensionSet::AddAttributes(
        TypeId("ns3::FlexToeNetDevice")
            .SetParent<OffloadNetDevice>()
            .SetGroupName("Presto")
            .AddConstructor<FlexToeNetDevice>()
            .AddAttribute("Profile",
                          "SmartNIC hardware profile: agilio-cx40, bluefield or x86",
                          StringValue("agilio-cx40"),
                          MakeStringAccessor(&FlexToeNetDevice::m_profile),
                          MakeStringChecker())
            .AddAttribute("FlowGroups",
                          "Flow groups, one protocol core each (0: the profile's), groups",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlexToeNetDevice::m_flowGroups),
                          MakeUintegerChecker<uint32_t>(0, 1024))
            .AddAttribute("ProtocolCycles",
                          "Protocol-stage cycles per packet (0: the profile's), cycles",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlexToeNetDevice::m_protocolCycles),
                          MakeUintegerChecker<uint32_t>(0, 1000000))
            .AddAttribute("QueueCapacity",
                          "Queue of every stage's core pool (0: the profile's), packets",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FlexToeNetDevice::m_queueCapacity),
                          MakeUintegerChecker<uint32_t>(0, 1000000)),
        &FlexToeNetDevice::m_firewallRules,
        &FlexToeNetDevice::m_vlanStrip,
        &FlexToeNetDevice::m_tcpTrace);
    return tid;
}

FlexToeNetDevice::FlexToeNetDevice()
{
    NS_LOG_FUNCTION(this);
}

FlexToeNetDevice::~FlexToeNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
FlexToeNetDevice::SetupModel()
{
    Configure();
}

void
FlexToeNetDevice::Configure()
{
    if (m_pipeline)
    {
        return;
    }
    FlexToePipelineConfig cfg = FlexToeProfile::Get(m_profile);
    if (m_flowGroups > 0)
    {
        cfg.flowGroups = m_flowGroups;
    }
    if (m_protocolCycles > 0)
    {
        cfg.Stage(FlexToeStage::PROTOCOL).cyclesPerPacket = m_protocolCycles;
    }
    if (m_queueCapacity > 0)
    {
        for (std::size_t s = 0; s < FLEXTOE_STAGES; ++s)
        {
            cfg.Stage(static_cast<FlexToeStage>(s)).queueCapacity = m_queueCapacity;
        }
    }
    FlexToeProfile::Validate(cfg);
    m_pipeline = std::make_unique<FlexToePipeline>(cfg);
    m_extensions.Build(m_vlanStrip, m_tcpTrace, m_firewallRules, "FlexToeNetDevice::FirewallRules");
}

const FlexToePipeline&
FlexToeNetDevice::GetPipeline()
{
    Configure();
    return *m_pipeline;
}

std::shared_ptr<FlexToeTcpTrace>
FlexToeNetDevice::GetTcpTrace() const
{
    return m_extensions.GetTcpTrace();
}

void
FlexToeNetDevice::ConfigureConnection(OffloadTcpConfig& cfg,
                                      Ipv4Address peer,
                                      uint16_t localPort,
                                      uint16_t peerPort,
                                      bool activeOpen)
{
    Configure();
    cfg.fidelity = 1;            // TAS/FlexTOE: one out-of-order interval
    cfg.hostLoopTimeouts = true; // and timeouts from the host control loop
}

FlexToeResult
FlexToeNetDevice::Run(uint32_t conn, const OffloadSegment& seg, bool received)
{
    Configure();
    Ipv4Address peer;
    FlexToeExtensionSet::Segment view;
    GetEndpoints(conn, peer, view.localPort, view.peerPort);
    view.localIp = GetLocalAddress().Get();
    view.peerIp = peer.Get();
    view.tcpFlags = seg.flags;
    view.payload = seg.payloadLen;
    view.seq = seg.seq;
    view.received = received;
    FlexToeResult r = m_extensions.Process(*m_pipeline, FastSimulator::NowNs(), view);
    if (r.dropped)
    {
        if (r.reason == FlexToeDropReason::QUEUE_FULL)
        {
            ++m_queueDrops;
        }
        else
        {
            ++m_extensionDrops;
        }
    }
    return r;
}

bool
FlexToeNetDevice::AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency)
{
    FlexToeResult r = Run(conn, seg, true);
    if (r.dropped)
    {
        return false;
    }
    latency = PicoSeconds(r.departPs) - FastSimulator::Now();
    return true;
}

Time
FlexToeNetDevice::ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop)
{
    FlexToeResult r = Run(conn, seg, false);
    drop = r.dropped;
    return r.dropped ? Time(0) : PicoSeconds(r.departPs) - FastSimulator::Now();
}

std::string
FlexToeNetDevice::GetNativeCongestion() const
{
    return "dctcp-rate";
}

void
FlexToeNetDevice::AddCounters(nlohmann::json& nic) const
{
    OffloadNetDevice::AddCounters(nic);
    auto add = [&nic](const char* key, uint64_t v) { nic[key] = nic.value(key, uint64_t(0)) + v; };
    add("queue_drops", m_queueDrops);
    add("extension_drops", m_extensionDrops);
    if (!m_pipeline)
    {
        return;
    }
    FlexToeExtensionSet::AddStageCounters(*m_pipeline, nic["flextoe_stages"]);
    nic["flextoe_profile"] = m_pipeline->GetConfig().name;
    nic["flow_groups"] = m_pipeline->GetConfig().flowGroups;
    m_extensions.AddCounters(nic);
}

} // namespace ns3
