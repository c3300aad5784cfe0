/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FIXED_LATENCY_NET_DEVICE_H
#define PRESTO_FIXED_LATENCY_NET_DEVICE_H

#include "ns3/nstime.h"
#include "ns3/offload-net-device.h"

namespace ns3
{

/**
 * \ingroup presto
 * \brief A fourth NIC design, as small as a design can be: the shared TCP data path with full
 * reassembly (no limit on out-of-order intervals) and a fixed latency per segment in each
 * direction, independent of load. It models an idealised offload NIC: no reassembly limit, no
 * cores or pipeline to queue on.
 *
 * It is the worked example of doc/presto.rst "Adding a NIC design": this file pair and one line
 * in CMakeLists.txt (presto_example_designs) make it selectable in presto-spray and
 * presto-compare as --device=FixedLatencyNetDevice (or ns3::FixedLatencyNetDevice).
 */
class FixedLatencyNetDevice : public OffloadNetDevice
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();

    /** \param nic the "nic" object of the report: the base counters plus this design's own */
    void AddCounters(nlohmann::json& nic) const override;

  protected:
    /** Every connection keeps every in-window byte (K = unbounded). */
    void ConfigureConnection(OffloadTcpConfig& cfg,
                             Ipv4Address peer,
                             uint16_t localPort,
                             uint16_t peerPort,
                             bool activeOpen) override;
    /** \return RxLatency for every received segment */
    Time ProcessReceived(uint32_t conn,
                         const OffloadSegment& seg,
                         const OffloadRxDecision& decision) override;
    /** \return TxLatency for every transmitted segment (never dropped) */
    Time ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop) override;

  private:
    Time m_rxLatency;         //!< per received segment
    Time m_txLatency;         //!< per transmitted segment
    uint64_t m_rxSegments{0}; //!< segments the NIC processed on receive
    uint64_t m_txSegments{0}; //!< segments the NIC processed on transmit
};

} // namespace ns3

#endif // PRESTO_FIXED_LATENCY_NET_DEVICE_H
