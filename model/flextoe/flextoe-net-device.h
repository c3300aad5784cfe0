/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FLEXTOE_NET_DEVICE_H
#define PRESTO_FLEXTOE_NET_DEVICE_H

#include "flextoe-extension-set.h"
#include "flextoe-pipeline.h"

#include "ns3/offload-net-device.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief FlexTOE: the shared TCP data path on a pipeline of wimpy SmartNIC cores.
 *
 * The execution model of OffloadNetDevice. Every segment of an offloaded connection, received
 * or sent, passes the core pipeline (FlexToePipeline: pre-processing, sequencer, protocol with
 * one core per flow group, post-processing, DMA) of the chosen hardware Profile; its queues
 * can overflow and drop the segment (the data path repairs the loss). Extension modules
 * (firewall, VLAN strip, TCP tracing) run at their pipeline points with their cycle cost.
 * Receive semantics are TAS's: one out-of-order interval (K = 1), go-back-N, timeouts from
 * the host control loop. Congestion control is the OffloadNetDevice's CongestionControl
 * attribute, window DCTCP by default like every offload NIC, so that designs are compared
 * under the same algorithm; FlexTOE's own (TAS's rate-based DCTCP: the host control loop sets
 * a rate every control interval, the NIC paces) is ns3::OffloadDctcpRateCongestion, or
 * ns3::OffloadTasDctcpRateCongestion rule for rule.
 */
class FlexToeNetDevice : public OffloadNetDevice
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    FlexToeNetDevice();
    ~FlexToeNetDevice() override;

    /** \brief Build the pipeline and extensions now (else at the first segment); throws
     * PrestoInputError for a bad profile or rule. */
    void Configure();

    /** \return the pipeline (configured on first use) */
    const FlexToePipeline& GetPipeline();

    /** \return the TCP tracing module, or null if TcpTrace is off */
    std::shared_ptr<FlexToeTcpTrace> GetTcpTrace() const;

    void AddCounters(nlohmann::json& nic) const override;
    /** \return dctcp-rate: TAS and FlexTOE run rate-based DCTCP from the host control loop */
    std::string GetNativeCongestion() const override;

  protected:
    /** Build the design's parts now (Configure): a bad parameter fails at initialisation. */
    void SetupModel() override;
    void ConfigureConnection(OffloadTcpConfig& cfg,
                             Ipv4Address peer,
                             uint16_t localPort,
                             uint16_t peerPort,
                             bool activeOpen) override;
    bool AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency) override;
    Time ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop) override;

  private:
    /** Run one packet through extensions and pipeline. \return its result */
    FlexToeResult Run(uint32_t conn, const OffloadSegment& seg, bool received);

    // attributes
    std::string m_profile;       //!< hardware profile name
    uint32_t m_flowGroups;       //!< flow groups (0: the profile's)
    uint32_t m_protocolCycles;   //!< protocol cycles per packet (0: the profile's)
    uint32_t m_queueCapacity;    //!< per-pool queue capacity (0: the profile's)
    std::string m_firewallRules; //!< firewall rules, ';'-separated ("" : no firewall)
    bool m_vlanStrip;            //!< VLAN stripping module
    bool m_tcpTrace;             //!< TCP tracing module

    std::unique_ptr<FlexToePipeline> m_pipeline; //!< the core pipeline
    FlexToeExtensionSet m_extensions;            //!< extension modules
    uint64_t m_extensionDrops{0};                //!< segments an extension dropped
    uint64_t m_queueDrops{0};                    //!< segments a full queue dropped
};

} // namespace ns3

#endif // PRESTO_FLEXTOE_NET_DEVICE_H
