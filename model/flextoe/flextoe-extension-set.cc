/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flextoe-extension-set.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

TypeId
FlexToeExtensionSet::AddAttributes(TypeId tid,
                                   Ptr<const AttributeAccessor> firewallRules,
                                   Ptr<const AttributeAccessor> vlanStrip,
                                   Ptr<const AttributeAccessor> tcpTrace)
{
    return tid
        .AddAttribute("FirewallRules",
                      "Firewall module on the SmartNIC cores: rules separated by ';', in the "
                      "syntax of FlexToeFirewall::AddRule (\"\": no firewall)",
                      StringValue(""),
                      firewallRules,
                      MakeStringChecker())
        .AddAttribute("VlanStrip",
                      "Run the VLAN-stripping module on the SmartNIC cores",
                      BooleanValue(false),
                      vlanStrip,
                      MakeBooleanChecker())
        .AddAttribute("TcpTrace",
                      "Run the TCP tracing module on the SmartNIC cores (per-connection "
                      "counters)",
                      BooleanValue(false),
                      tcpTrace,
                      MakeBooleanChecker());
}

void
FlexToeExtensionSet::Build(bool vlanStrip,
                           bool tcpTrace,
                           const std::string& firewallRules,
                           const std::string& who)
{
    if (vlanStrip)
    {
        m_vlan = std::make_shared<FlexToeVlanStrip>();
        m_chain.Add(m_vlan);
    }
    // tracing first: like a capture point it sees what the firewall then drops
    if (tcpTrace)
    {
        m_trace = std::make_shared<FlexToeTcpTrace>();
        m_chain.Add(m_trace);
    }
    if (!firewallRules.empty())
    {
        m_firewall = std::make_shared<FlexToeFirewall>();
        std::istringstream is(firewallRules);
        std::string rule;
        for (uint32_t n = 1; std::getline(is, rule, ';'); ++n)
        {
            m_firewall->AddRule(rule, who + " rule " + std::to_string(n));
        }
        m_chain.Add(m_firewall);
    }
}

void
FlexToeExtensionSet::AddRpcSteering(double cyclesPerSegment)
{
    m_rpcSteer = std::make_shared<FlexToeRpcSteer>(cyclesPerSegment);
    m_chain.Add(m_rpcSteer);
}

bool
FlexToeExtensionSet::IsEmpty() const
{
    return m_chain.GetModules().empty();
}

FlexToeResult
FlexToeExtensionSet::Process(FlexToePipeline& pipeline, uint64_t nowNs, const Segment& seg)
{
    FlexToePacketView view;
    view.srcIp = seg.received ? seg.peerIp : seg.localIp;
    view.dstIp = seg.received ? seg.localIp : seg.peerIp;
    view.srcPort = seg.received ? seg.peerPort : seg.localPort;
    view.dstPort = seg.received ? seg.localPort : seg.peerPort;
    view.tcpFlags = seg.tcpFlags;
    view.payloadBytes = seg.payload;
    view.seq = seg.seq;
    view.received = seg.received;
    // the flow group comes from the connection (both directions on one protocol core)
    uint64_t z = (uint64_t(seg.peerIp) << 32) ^ (uint64_t(seg.peerPort) << 16) ^ seg.localPort;
    z = (z ^ (z >> 31)) * 0x9e3779b97f4a7c15ULL;
    const auto hash = static_cast<uint32_t>(z ^ (z >> 29));
    return m_chain.Process(pipeline, nowNs, hash, view);
}

void
FlexToeExtensionSet::AddCounters(nlohmann::json& nic) const
{
    auto add = [&nic](const char* key, uint64_t v) { nic[key] = nic.value(key, uint64_t(0)) + v; };
    if (m_firewall)
    {
        add("firewall_drops", m_firewall->GetDropped());
    }
    if (m_vlan)
    {
        add("vlan_stripped", m_vlan->GetStripped());
    }
    if (m_rpcSteer)
    {
        add("rpc_steered_segments", m_rpcSteer->GetSteered());
    }
    if (m_trace)
    {
        add("traced_connections", m_trace->GetConnectionCount());
        add("traced_segments", m_trace->GetTotalSegments());
    }
}

void
FlexToeExtensionSet::AddStageCounters(const FlexToePipeline& pipeline, nlohmann::json& stages)
{
    for (std::size_t s = 0; s < FLEXTOE_STAGES; ++s)
    {
        auto stage = static_cast<FlexToeStage>(s);
        const FlexToeStageStats& st = pipeline.GetStats(stage);
        nlohmann::json& j = stages[FlexToeStageName(stage)];
        if (j.is_null())
        {
            j = nlohmann::json::object(); // first host: value() needs an object
        }
        j["packets"] = j.value("packets", uint64_t(0)) + st.packets;
        j["drops"] = j.value("drops", uint64_t(0)) + st.drops;
        j["max_queue"] = std::max<uint64_t>(j.value("max_queue", uint64_t(0)), st.maxQueue);
        // utilisation of the busiest host's pool
        j["max_utilisation"] =
            std::max(j.value("max_utilisation", 0.0), pipeline.GetUtilisation(stage));
    }
}

std::shared_ptr<FlexToeTcpTrace>
FlexToeExtensionSet::GetTcpTrace() const
{
    return m_trace;
}

} // namespace ns3
