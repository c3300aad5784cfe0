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
    OffloadTcpCounters t = m_finished;
    for (uint32_t id : m_active)
    {
        const Conn& c = m_slots[id];
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
    return m_refused;
}

uint64_t
OffloadNetDevice::GetNicTxDrops() const
{
    return m_nicTxDrops + m_wireDrops;
}

uint64_t
OffloadNetDevice::GetControlPlaneCycles() const
{
    return m_cpCycles;
}

OffloadHostWork
OffloadNetDevice::GetHostWork() const
{
    OffloadHostWork w;
    w.controlPlaneEvents = m_cpEvents;
    w.controlLoopRuns = m_controlLoops;
    w.appNotifications = m_notifications;
    w.dmaTransfers = m_dmaTransfers;
    return w;
}

void
OffloadNetDevice::AddCounters(nlohmann::json& nic) const
{
    OffloadTcpCounters t = GetTotals();
    auto add = [&nic](const char* key, uint64_t v) { nic[key] = nic.value(key, uint64_t(0)) + v; };
    add("segments_received", t.segmentsReceived);
    add("in_order", t.inOrder);
    add("out_of_order_placed", t.outOfOrderPlaced);
    add("fidelity_drops", t.fidelityDrops);
    add("window_drops", t.windowDrops);
    add("duplicates", t.duplicates);
    add("dup_acks", t.dupAcks);
    add("go_back_n", t.goBackN);
    add("retx_segments", t.retransmittedSegments);
    add("retx_bytes", t.retransmittedBytes);
    add("timeouts", t.timeouts);
    add("ce_received", t.ceReceived);
    add("ece_received", t.eceReceived);
    add("connections_established", m_established);
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
    add("resets", m_resets);
    add("rst_challenged", t.rstChallenged);
    add("rst_ignored", t.rstIgnored + m_handshakeRstIgnored);
    add("handshake_drops", m_handshakeDrops);
    add("no_host_stack_drops", m_noHostStackDrops);
    add("syn_challenged", t.synChallenged);
    add("invalid_acks", t.invalidAcks);
    add("ack_too_old", t.ackTooOld);
    add("no_ack_drops", t.noAckDrops);
    add("challenge_acks", t.challengeAcks);
    add("challenge_acks_suppressed", t.challengeAcksSuppressed);
    add("connections_refused", m_refused);
    add("handshake_failures", m_handshakeFailures);
    add("control_plane_cycles", m_cpCycles);
    add("control_loop_runs", m_controlLoops);
    add("dma_transfers", m_dmaTransfers);
    add("fin_before_data", m_finBeforeData);
    add("nic_rx_drops", m_nicRxDrops);
    add("nic_tx_drops", m_nicTxDrops);
    add("nic_tx_queue_drops", m_wireDrops);
    uint64_t malformed = 0;
    for (size_t e = 0; e < m_malformed.size(); ++e)
    {
        if (m_malformed[e] > 0)
        {
            const char* name = WireErrorName(static_cast<WireError>(e));
            nlohmann::json& byReason = nic["malformed"];
            if (!byReason.is_object())
            {
                byReason = nlohmann::json::object(); // value() on the new null would throw
            }
            byReason[name] = byReason.value(name, uint64_t(0)) + m_malformed[e];
            malformed += m_malformed[e];
        }
    }
    add("malformed_drops", malformed);
    nic["nic_tx_backlog_max"] =
        std::max(nic.value("nic_tx_backlog_max", uint64_t(0)), m_txBacklogMax);
    add("app_notifications", m_notifications);
}

} // namespace ns3
