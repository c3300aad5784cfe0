/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_HYBRID_NET_DEVICE_H
#define PRESTO_PRESTO_HYBRID_NET_DEVICE_H

#include "presto-net-device.h"

#include "ns3/flextoe-extension-set.h"
#include "ns3/flextoe-pipeline.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The co-design the Presto authors propose (`--device=presto-hybrid`): the transport on
 * Presto's match-action pipeline (everything PrestoNetDevice does), and the flexible functions
 * on SmartNIC cores in FlexTOE's style: the extension modules (FirewallRules, VlanStrip,
 * TcpTrace, as FlexToeNetDevice's) run on a pool of cores of ExtensionProfile whose TCP work
 * is zero (the pipeline does it), so a packet pays only its modules' cycles there, and waits
 * when the cores are busy (a full queue drops it, counted).
 *
 * A received segment meets the modules first (a firewall drop never reaches the transport's
 * state), then the pipeline; a transmitted one the pipeline, then the modules. Without any
 * module the cores are not used and the device behaves exactly as PrestoNetDevice.
 */
class PrestoHybridNetDevice : public PrestoNetDevice
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    PrestoHybridNetDevice();
    ~PrestoHybridNetDevice() override;

    void AddCounters(nlohmann::json& nic) const override;

    /** \return the TCP tracing module, or null if TcpTrace is off */
    std::shared_ptr<FlexToeTcpTrace> GetTcpTrace() const;

  protected:
    void SetupModel() override;
    bool AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency) override;
    Time ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop) override;

  private:
    /**
     * \brief Run a segment through the modules on the cores.
     * \param conn slot \param seg the segment \param received arriving
     * \param latency set to the time spent on the cores
     * \return false if a module or a full queue dropped it
     */
    bool RunModules(uint32_t conn, const OffloadSegment& seg, bool received, Time& latency);

    // attributes
    std::string m_profile;       //!< ExtensionProfile
    std::string m_firewallRules; //!< FirewallRules
    bool m_vlanStrip;            //!< VlanStrip
    bool m_tcpTrace;             //!< TcpTrace
    bool m_rpcSteering;          //!< RpcSteering
    double m_rpcSteerCycles;     //!< RpcSteerCycles

    std::unique_ptr<FlexToePipeline> m_cores; //!< the SmartNIC cores (null: no module)
    FlexToeExtensionSet m_extensions;         //!< the modules
    uint64_t m_extensionDrops{0};             //!< segments a module dropped
    uint64_t m_queueDrops{0};                 //!< segments a full core queue dropped
};

} // namespace ns3

#endif // PRESTO_PRESTO_HYBRID_NET_DEVICE_H
