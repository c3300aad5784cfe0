/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_ROW_PARITY_H
#define PRESTO_ROW_PARITY_H

#include "ns3/queue-size.h"
#include "ns3/traffic-control-helper.h"

#include <nlohmann/json.hpp>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief What a comparison holds equal between ns-3's TCP on the host (host-tcp) and the
 * offload NICs beyond the congestion control: the egress and the ACK policy.
 *
 * An offload NIC produces a segment per connection in round robin (OffloadTxScheduler) while
 * less than OffloadNetDevice::TxQueueTime of wire time, and at most TxQueuePackets segments,
 * are committed to the wire, and it ACKs every segment. ns-3's TCP on the host, left alone,
 * sends through one FifoQueueDisc of 1000 packets over a 100-packet device queue (a short
 * flow waits behind every packet a long one queued) and delays ACKs (DelAckCount 2). With
 * parity the host gets a per-flow fair queue disc (ns3::FqCoDelQueueDisc, deficit round
 * robin per flow hash, with CoDel off: its target and interval beyond any run) over a device
 * queue of the NICs' wire commitment, and ACKs every segment.
 */
class RowParity
{
  public:
    /// FqCoDel's CoDel target and interval with parity: longer than any run, so CoDel never
    /// drops or marks and only the per-flow round robin remains
    static constexpr const char* CODEL_OFF = "1000s";

    /**
     * \param hostRateBps the host link's rate, bit/s
     * \return the device queue of the NICs' wire commitment at that rate, in packets: the
     * full 1502-byte frames that fit OffloadNetDevice::TxQueueTime of wire time, at most
     * TxQueuePackets and at least two (the attributes' current defaults)
     */
    static QueueSize DeviceQueue(double hostRateBps);

    /** \return the queue discs of a host with parity (per-flow fair, CoDel off) */
    static TrafficControlHelper QueueDiscs();

    /**
     * \brief Refuse settings that parity would silently override or ignore, before the run:
     * ns3::TcpSocketEndpoint::DelAckCount given other than 1, a ns3::FifoQueueDisc attribute
     * (the FIFO is not there with parity).
     * \throws PrestoInputError naming the attribute and --hostParity
     */
    static void CheckUserSettings();

    /**
     * \brief summary.json's "policy": what a row's hosts do beyond the design.
     * \param device the run's device (host-tcp, an offload design, or "mix")
     * \param parity --hostParity
     * \param hostRateBps the host link's rate, bit/s
     * \return {"egress", "ack", "transport"}, each a short text
     */
    static nlohmann::json Describe(const std::string& device, bool parity, double hostRateBps);
};

} // namespace ns3

#endif // PRESTO_ROW_PARITY_H
