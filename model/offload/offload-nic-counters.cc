/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-nic-counters.h"

#include "offload-wire.h"

#include <algorithm>

namespace ns3
{

const char*
OffloadDropReasonName(OffloadDropReason r)
{
    switch (r)
    {
    case OffloadDropReason::NIC_RX:
        return "nic_rx";
    case OffloadDropReason::NIC_TX:
        return "nic_tx";
    case OffloadDropReason::WIRE_QUEUE:
        return "wire_queue";
    case OffloadDropReason::MALFORMED:
        return "malformed";
    case OffloadDropReason::UNACCEPTABLE:
        return "unacceptable";
    case OffloadDropReason::HANDSHAKE:
        return "handshake";
    case OffloadDropReason::NO_HOST_STACK:
        return "no_host_stack";
    }
    return "unknown";
}

void
OffloadNicCounters::AddTo(nlohmann::json& nic, const OffloadTcpCounters& t) const
{
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
    add("connections_established", established);
    add("resets", resets);
    add("rst_challenged", t.rstChallenged);
    add("rst_ignored", t.rstIgnored + handshakeRstIgnored);
    add("handshake_drops", handshakeDrops);
    add("no_host_stack_drops", noHostStackDrops);
    add("syn_challenged", t.synChallenged);
    add("invalid_acks", t.invalidAcks);
    add("ack_too_old", t.ackTooOld);
    add("no_ack_drops", t.noAckDrops);
    add("challenge_acks", t.challengeAcks);
    add("challenge_acks_suppressed", t.challengeAcksSuppressed);
    add("connections_refused", refused);
    add("handshake_failures", handshakeFailures);
    add("control_plane_cycles", cpCycles);
    add("control_loop_runs", controlLoops);
    add("dma_transfers", dmaTransfers);
    add("fin_before_data", finBeforeData);
    add("nic_rx_drops", nicRxDrops);
    add("nic_tx_drops", nicTxDrops);
    add("nic_tx_queue_drops", wireDrops);
    uint64_t malformedTotal = 0;
    for (size_t e = 0; e < malformed.size(); ++e)
    {
        if (malformed[e] > 0)
        {
            const char* name = WireErrorName(static_cast<WireError>(e));
            nlohmann::json& byReason = nic["malformed"];
            if (!byReason.is_object())
            {
                byReason = nlohmann::json::object(); // value() on the new null would throw
            }
            byReason[name] = byReason.value(name, uint64_t(0)) + malformed[e];
            malformedTotal += malformed[e];
        }
    }
    add("malformed_drops", malformedTotal);
    nic["nic_tx_backlog_max"] =
        std::max(nic.value("nic_tx_backlog_max", uint64_t(0)), txBacklogMax);
    add("app_notifications", notifications);
}

} // namespace ns3
