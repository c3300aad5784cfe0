/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FLEXTOE_EXTENSION_SET_H
#define PRESTO_FLEXTOE_EXTENSION_SET_H

#include "flextoe-extension.h"
#include "flextoe-pipeline.h"

#include "ns3/boolean.h"
#include "ns3/string.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The extension modules a NIC's attributes ask for (VLAN strip, TCP tracing, firewall),
 * built once and run on SmartNIC cores: FlexTOE's, and the Presto co-design's
 * (PrestoHybridNetDevice), which share this code.
 */
class FlexToeExtensionSet
{
  public:
    /// A segment as the modules see it.
    struct Segment
    {
        uint32_t localIp{0};   //!< this host's address
        uint32_t peerIp{0};    //!< the peer's address
        uint16_t localPort{0}; //!< this end's port
        uint16_t peerPort{0};  //!< the peer's port
        uint8_t tcpFlags{0};   //!< TCP flags
        uint32_t payload{0};   //!< payload bytes
        uint32_t seq{0};       //!< sequence number
        bool received{false};  //!< arriving (else leaving)
    };

    /**
     * \brief Declare the attributes that ask for the modules, FirewallRules, VlanStrip and
     * TcpTrace in this order, on a device's TypeId: FlexToeNetDevice and
     * PrestoHybridNetDevice both declare them here, so that their help texts are one.
     * \tparam Device the device class
     * \param tid the device's TypeId
     * \param firewallRules the member FirewallRules sets (";"-separated rules, "": none)
     * \param vlanStrip the member VlanStrip sets
     * \param tcpTrace the member TcpTrace sets
     * \return \p tid, to go on adding attributes
     */
    template <class Device>
    static TypeId AddAttributes(TypeId tid,
                                std::string Device::*firewallRules,
                                bool Device::*vlanStrip,
                                bool Device::*tcpTrace)
    {
        return AddAttributes(tid,
                             MakeStringAccessor(firewallRules),
                             MakeBooleanAccessor(vlanStrip),
                             MakeBooleanAccessor(tcpTrace));
    }

    /**
     * \brief Build the modules, in the order tracing, firewall (VLAN strip first when on).
     * \param vlanStrip VLAN stripping
     * \param tcpTrace TCP tracing (a capture point: it sees what the firewall then drops)
     * \param firewallRules ';'-separated rules ("": no firewall)
     * \param who the attribute prefix for messages, e.g. "FlexToeNetDevice::FirewallRules"
     * Throws PrestoInputError for a bad rule, naming it.
     */
    void Build(bool vlanStrip,
               bool tcpTrace,
               const std::string& firewallRules,
               const std::string& who);

    /**
     * \brief Add the RPC-steering stage (FlexToeRpcSteer), after the modules Build added.
     * \param cyclesPerSegment its cost per arriving segment with payload, cycles
     */
    void AddRpcSteering(double cyclesPerSegment);

    /// \return true if no module is configured
    bool IsEmpty() const;

    /**
     * \brief Run a segment through the modules and the core pipeline with their cost; the
     * flow group comes from the connection, so both directions share a protocol core.
     * \param pipeline the cores
     * \param nowNs entry time, ns
     * \param seg the segment
     * \return the pipeline's result (dropped by a module or a full queue, or its departure)
     */
    FlexToeResult Process(FlexToePipeline& pipeline, uint64_t nowNs, const Segment& seg);

    /**
     * \brief Add the modules' counters to a NIC's report (firewall_drops, vlan_stripped,
     * traced_connections, traced_segments; summed over NICs).
     * \param nic the report's "nic" object
     */
    void AddCounters(nlohmann::json& nic) const;

    /**
     * \brief Add a pipeline's per-stage use (packets, drops, max_queue, max_utilisation,
     * summed or maximised over NICs) to an object keyed by stage name.
     * \param pipeline the cores
     * \param stages the report object
     */
    static void AddStageCounters(const FlexToePipeline& pipeline, nlohmann::json& stages);

    /// \return the TCP tracing module, or null
    std::shared_ptr<FlexToeTcpTrace> GetTcpTrace() const;

  private:
    /**
     * \brief AddAttributes with the accessors made (the help texts live in the .cc).
     * \param tid the device's TypeId
     * \param firewallRules accessor of a std::string member
     * \param vlanStrip accessor of a bool member
     * \param tcpTrace accessor of a bool member
     * \return \p tid
     */
    static TypeId AddAttributes(TypeId tid,
                                Ptr<const AttributeAccessor> firewallRules,
                                Ptr<const AttributeAccessor> vlanStrip,
                                Ptr<const AttributeAccessor> tcpTrace);

    FlexToeExtensionChain m_chain;               //!< the modules in order
    std::shared_ptr<FlexToeFirewall> m_firewall; //!< or null
    std::shared_ptr<FlexToeVlanStrip> m_vlan;    //!< or null
    std::shared_ptr<FlexToeTcpTrace> m_trace;    //!< or null
    std::shared_ptr<FlexToeRpcSteer> m_rpcSteer; //!< or null
};

} // namespace ns3

#endif // PRESTO_FLEXTOE_EXTENSION_SET_H
