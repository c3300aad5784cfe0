/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNetDevice's statistics: data-path counters summed over connections, the NIC's
// own counters and the host work it caused, as numbers and as the report's JSON.

#include "offload-net-device.h"

#include <algorithm>

namespace ns3
{

OffloadTcpCounters
OffloadNetDevice::GetTotals() const
{
    OffloadTcpCounters t = m_counters.finished;
    for (uint32_t id : m_connections.Active())
    {
        const OffloadConnectionState& c = m_connections[id];
        if (!c.tcp)
        {
            continue;
        }
        t += c.tcp->GetCounters();
    }
    return t;
}

uint64_t
OffloadNetDevice::GetRefusedConnections() const
{
    return m_counters.refused;
}

uint64_t
OffloadNetDevice::GetNicTxDrops() const
{
    return m_counters.nicTxDrops + m_counters.wireDrops;
}

uint64_t
OffloadNetDevice::GetControlPlaneCycles() const
{
    return m_counters.cpCycles;
}

OffloadHostWork
OffloadNetDevice::GetHostWork() const
{
    OffloadHostWork w;
    w.controlPlaneEvents = m_counters.cpEvents;
    w.controlLoopRuns = m_counters.controlLoops;
    w.appNotifications = m_counters.notifications;
    w.dmaTransfers = m_counters.dmaTransfers;
    return w;
}

void
OffloadNetDevice::AddCounters(nlohmann::json& nic) const
{
    m_counters.AddTo(nic, GetTotals());
    if (m_dma[DMA_TX])
    {
        // the shared host interface, per direction and channel: bytes summed over the NICs,
        // the largest backlog any NIC had (NICs may have different channel counts)
        nlohmann::json& d = nic["dma_channels"];
        if (d.is_null())
        {
            d = nlohmann::json::object();
        }
        d["channels"] = std::max<uint32_t>(d.value("channels", 0u), m_dmaChannels);
        for (int dir = DMA_RX; dir <= DMA_TX; ++dir)
        {
            const OffloadDmaEngine& e = m_dma[dir]->GetEngine();
            const std::string name = dir == DMA_RX ? "rx" : "tx";
            nlohmann::json& bytes = d[name + "_bytes"];
            nlohmann::json& backlog = d[name + "_backlog_max_bytes"];
            for (uint32_t i = 0; i < e.GetChannels(); ++i)
            {
                if (bytes.size() <= i)
                {
                    bytes.push_back(0);
                    backlog.push_back(0);
                }
                bytes[i] = bytes[i].get<uint64_t>() + e.GetChannelBytes()[i];
                backlog[i] = std::max(backlog[i].get<uint64_t>(), e.GetChannelBacklogMax()[i]);
            }
        }
    }
}

} // namespace ns3
