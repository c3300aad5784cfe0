/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_NET_DEVICE_H
#define PRESTO_PRESTO_NET_DEVICE_H

#include "offload-net-device.h"

#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Presto: TCP's data path as a program on an RMT match-action pipeline that keeps no
 * out-of-order payload, only K out-of-order intervals per connection (reassembly fidelity).
 *
 * The execution model of OffloadNetDevice: every connection's data path runs with the
 * fidelity K of its class; each processed segment costs the pipeline's latency.
 */
class PrestoNetDevice : public OffloadNetDevice
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    PrestoNetDevice();
    ~PrestoNetDevice() override;

    /**
     * \brief Parse a fidelity value.
     * \param text "0".."16" or "full"
     * \param where the option or attribute, for the error message
     * \return K (ReassemblyTracker::UNBOUNDED for "full"); throws PrestoInputError
     */
    static uint32_t ParseFidelity(const std::string& text, const std::string& where);

    void AddCounters(nlohmann::json& nic) const override;

  protected:
    void ConfigureConnection(OffloadTcpConfig& cfg,
                             Ipv4Address peer,
                             uint16_t localPort,
                             uint16_t peerPort) override;
    Time ProcessReceived(uint32_t conn,
                         const OffloadSegment& seg,
                         const OffloadRxDecision& decision) override;
    Time ProcessTransmit(uint32_t conn, const OffloadSegment& seg) override;

  private:
    std::string m_fidelityText; //!< attribute ReassemblyFidelity
    Time m_passLatency;         //!< latency of one pipeline pass
    uint64_t m_passes{0};       //!< pipeline passes (received + transmitted segments)
};

} // namespace ns3

#endif // PRESTO_PRESTO_NET_DEVICE_H
