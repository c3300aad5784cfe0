/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fixed-latency-net-device.h"

#include "ns3/log.h"
#include "ns3/offload-reassembly.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FixedLatencyNetDevice");
NS_OBJECT_ENSURE_REGISTERED(FixedLatencyNetDevice);

TypeId
FixedLatencyNetDevice::GetTypeId()
{
    // 1 us each way is assumed, not taken from a paper: the order of a SmartNIC's
    // per-packet processing at light load.
    static TypeId tid =
        TypeId("ns3::FixedLatencyNetDevice")
            .SetParent<OffloadNetDevice>()
            .SetGroupName("Presto")
            .AddConstructor<FixedLatencyNetDevice>()
            .AddAttribute("RxLatency",
                          "NIC processing time of every received segment (assumed)",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&FixedLatencyNetDevice::m_rxLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("TxLatency",
                          "NIC processing time of every transmitted segment (assumed)",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&FixedLatencyNetDevice::m_txLatency),
                          MakeTimeChecker(Time(0)));
    return tid;
}

void
FixedLatencyNetDevice::ConfigureConnection(OffloadTcpConfig& cfg,
                                           Ipv4Address /* peer */,
                                           uint16_t /* localPort */,
                                           uint16_t /* peerPort */,
                                           bool /* activeOpen */)
{
    cfg.fidelity = ReassemblyTracker::UNBOUNDED;
}

Time
FixedLatencyNetDevice::ProcessReceived(uint32_t /* conn */,
                                       const OffloadSegment& /* seg */,
                                       const OffloadRxDecision& /* decision */)
{
    ++m_rxSegments;
    return m_rxLatency;
}

Time
FixedLatencyNetDevice::ProcessTransmit(uint32_t /* conn */,
                                       const OffloadSegment& /* seg */,
                                       bool& drop)
{
    ++m_txSegments;
    drop = false;
    return m_txLatency;
}

void
FixedLatencyNetDevice::AddCounters(nlohmann::json& nic) const
{
    OffloadNetDevice::AddCounters(nic);
    auto add = [&nic](const char* key, uint64_t v) { nic[key] = nic.value(key, uint64_t(0)) + v; };
    add("fixed_latency_rx_segments", m_rxSegments);
    add("fixed_latency_tx_segments", m_txSegments);
}

} // namespace ns3
