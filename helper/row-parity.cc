/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "row-parity.h"

#include "ns3/attribute-default.h"
#include "ns3/fifo-queue-disc.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/offload-net-device.h"
#include "ns3/presto-input-error.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-endpoint.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RowParity");

namespace
{

/// a full-sized IP packet in the device queue: 1500 bytes and the 2-byte PPP header
constexpr uint64_t kFrameBytes = 1502;

/// \return the NICs' wire commitment, as a time and a segment count (current defaults)
std::pair<Time, uint64_t>
NicCommitment()
{
    const Time t(AttributeDefault(OffloadNetDevice::GetTypeId(), "TxQueueTime").first);
    const uint64_t packets =
        std::stoull(AttributeDefault(OffloadNetDevice::GetTypeId(), "TxQueuePackets").first);
    return {t, packets};
}

} // namespace

QueueSize
RowParity::DeviceQueue(double hostRateBps)
{
    // In packets, not bytes: ns-3's flow control stops the queue disc when one more MTU
    // (1500 bytes) would not fit, but the device enqueues 1502 bytes (PPP header), so a byte
    // limit can drop a frame it let through.
    const auto [time, packets] = NicCommitment();
    const auto frames = static_cast<uint64_t>(hostRateBps / 8 * time.GetSeconds() / kFrameBytes);
    return QueueSize(
        QueueSizeUnit::PACKETS,
        static_cast<uint32_t>(std::clamp<uint64_t>(frames, 2, std::max<uint64_t>(packets, 2))));
}

TrafficControlHelper
RowParity::QueueDiscs()
{
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc",
                         "Target",
                         StringValue(CODEL_OFF),
                         "Interval",
                         StringValue(CODEL_OFF));
    return tch;
}

void
RowParity::CheckUserSettings()
{
    const auto [count, changed] = AttributeDefault(TcpSocketEndpoint::GetTypeId(), "DelAckCount");
    if (changed && count != "1")
    {
        throw PrestoInputError("--ns3::TcpSocketEndpoint::DelAckCount=" + count +
                               " and --hostParity=1 disagree: parity ACKs every segment, as the "
                               "offload NICs do; give --hostParity=0 for delayed ACKs");
    }
    const TypeId fifo = FifoQueueDisc::GetTypeId();
    for (uint32_t i = 0; i < fifo.GetAttributeN(); ++i)
    {
        const std::string name = fifo.GetAttribute(i).name;
        if (AttributeDefault(fifo, name).second)
        {
            throw PrestoInputError("--ns3::FifoQueueDisc::" + name +
                                   " is set but --hostParity=1 replaces the hosts' FIFO with "
                                   "per-flow fair queueing; give --hostParity=0 to use the FIFO");
        }
    }
}

nlohmann::json
RowParity::Describe(const std::string& device, bool parity, double hostRateBps)
{
    const auto [time, packets] = NicCommitment();
    std::ostringstream nicEgress;
    nicEgress << "per-connection round robin, " << time.GetMicroSeconds() << " us / " << packets
              << " segments committed to the wire";
    const std::string nicTransport = "offload data path: go-back-N from snd_una, no timestamps";
    if (device == "mix")
    {
        return {{"egress", "mixed (see by_device)"}, {"ack", "mixed"}, {"transport", "mixed"}};
    }
    if (device != "host-tcp")
    {
        return {{"egress", nicEgress.str()}, {"ack", "every segment"}, {"transport", nicTransport}};
    }
    const std::string transport = "ns-3 TcpSocketBase: SACK recovery, PRR, timestamps";
    if (parity)
    {
        std::ostringstream egress;
        egress << "per-flow fair queueing (FqCoDel, CoDel off) over a "
               << DeviceQueue(hostRateBps).GetValue() << "-packet device queue";
        return {{"egress", egress.str()}, {"ack", "every segment"}, {"transport", transport}};
    }
    std::ostringstream ack;
    ack << "delayed: every "
        << AttributeDefault(TcpSocketEndpoint::GetTypeId(), "DelAckCount").first << " segments or "
        << Time(AttributeDefault(TcpSocketEndpoint::GetTypeId(), "DelAckTimeout").first)
               .GetMicroSeconds()
        << " us";
    const std::string fifo = "FIFO queue disc of " +
                             AttributeDefault(FifoQueueDisc::GetTypeId(), "MaxSize").first +
                             " over a 100-packet device queue";
    return {{"egress", fifo}, {"ack", ack.str()}, {"transport", transport}};
}

} // namespace ns3
