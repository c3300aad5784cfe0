/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-net-device.h"

#include "ns3/fast-simulator.h"

#include <algorithm>

// What a Presto NIC adds to summary.json: its programs' resources and use, the pipeline's
// packet rate, the timer scan and the per-class pipelines. Read once at the end of a run.

namespace ns3
{

std::vector<RmtResourceReport>
PrestoNetDevice::GetResourceReports() const
{
    std::vector<RmtResourceReport> reports;
    for (const auto& p : m_programs)
    {
        if (p)
        {
            reports.push_back(p->GetResourceReport());
        }
    }
    return reports;
}

void
PrestoNetDevice::AddCounters(nlohmann::json& nic) const
{
    OffloadNetDevice::AddCounters(nic);
    auto add = [&nic](const char* key, uint64_t v) { nic[key] = nic.value(key, uint64_t(0)) + v; };
    add("pipeline_passes_rx", m_rxPasses);
    add("pipeline_passes_tx", m_txPasses);
    add("program_mismatches", m_mismatches);
    add("tx_program_mismatches", m_txMismatches);
    uint64_t recirculations = 0;
    for (const auto& p : m_programs)
    {
        if (p)
        {
            recirculations += p->GetResourceReport().recirculations;
        }
    }
    add("pipeline_recirculations", recirculations);
    if (!m_configured)
    {
        return;
    }
    AddSlotCounters(nic);
    AddTxProgramCounters(nic);
    AddCcProgramCounters(nic);
    AddPipelineTotal(nic, recirculations);
    AddClassCounters(nic);
}

void
PrestoNetDevice::AddSlotCounters(nlohmann::json& nic) const
{
    auto add = [&nic](const char* key, uint64_t v) { nic[key] = nic.value(key, uint64_t(0)) + v; };
    // the packet rate: slots taken, waits for a slot, refusals at a full input buffer; a
    // rack's pipeline counts once, by the host that joined it first
    if (m_rack)
    {
        nic["placement"] = "tor";
        nic["hosts_per_pipeline"] = m_rack->GetMembers();
        nic["rack_connection_slots"] = m_rack->GetMaxConnections();
        nic["rack_connections_max"] =
            std::max<uint64_t>(nic.value("rack_connections_max", uint64_t(0)),
                               m_rack->GetInUseMax());
        nic["timer_scan_rack_range_max"] =
            std::max<uint64_t>(nic.value("timer_scan_rack_range_max", uint64_t(0)),
                               m_rack->GetScanRange());
    }
    else
    {
        nic["placement"] = "host";
    }
    const RmtPipeSlots::Counters none{};
    const bool countSlots = !m_rack || m_rack->IsReporter(this);
    const RmtPipeSlots::Counters& slots = countSlots ? m_pipeSlots->GetCounters() : none;
    add("pipeline_slot_passes", slots.passes);
    add("pipeline_slot_waits", slots.waited);
    add("pipeline_slot_wait_ps_total", static_cast<uint64_t>(slots.waitPsTotal));
    add("pipeline_buffer_drops", slots.refused);
    nic["pipeline_slot_wait_ps_max"] =
        std::max<uint64_t>(nic.value("pipeline_slot_wait_ps_max", uint64_t(0)),
                           static_cast<uint64_t>(slots.waitPsMax));
    nic["pipeline_backlog_max"] =
        std::max<uint64_t>(nic.value("pipeline_backlog_max", uint64_t(0)), slots.backlogMax);
    nic["pipeline_utilisation_max"] = std::max(nic.value("pipeline_utilisation_max", 0.0),
                                               m_pipeSlots->Utilisation(FastSimulator::NowPs()));
    nic["pipeline_utilisation_peak"] =
        std::max(nic.value("pipeline_utilisation_peak", 0.0), m_pipeSlots->PeakUtilisation());
    nic["pipeline_pass_rate_per_s"] = m_pipeSlots->GetPassRate();
    // the timer scan: its range and how often it reached the timers
    nic["timer_scan_rate_per_s"] = m_scanRate;
    nic["timer_scan_range_max"] =
        std::max<uint64_t>(nic.value("timer_scan_range_max", uint64_t(0)), m_scanRange);
    add("timer_scan_visits", m_timerVisits);
    nic["timer_scan_round_ns_max"] =
        std::max<uint64_t>(nic.value("timer_scan_round_ns_max", uint64_t(0)), m_timerRoundMaxNs);
}

void
PrestoNetDevice::AddTxProgramCounters(nlohmann::json& nic) const
{
    // the send program: its configuration (same on every host) and summed use
    const RmtResourceReport r = m_txProgram->GetResourceReport();
    nlohmann::json& j = nic["tx_program"];
    if (!j.contains("stages_used"))
    {
        j["run"] = m_runTxProgram;
        j["stages_used"] = r.stagesUsed;
        j["stage_budget"] = r.stageBudget;
        j["register_bytes"] = r.registerBytes;
        j["pass_latency_ns"] = r.passLatencyNs;
    }
    j["packets"] = j.value("packets", uint64_t(0)) + r.packets;
    // charged whether or not the program runs here: one per timeout, per send pass whose
    // guess was wrong, per ACK that moved snd_nxt (beyond a second pass the congestion
    // program takes anyway)
    j["recirculations"] =
        j.value("recirculations", uint64_t(0)) + m_timeoutPasses + m_sendFixPasses + m_ackFixPasses;
    j["timeout_passes"] = j.value("timeout_passes", uint64_t(0)) + m_timeoutPasses;
    j["send_second_passes"] = j.value("send_second_passes", uint64_t(0)) + m_sendFixPasses;
    j["ack_second_passes"] = j.value("ack_second_passes", uint64_t(0)) + m_ackFixPasses;
    j["ack_moves"] = j.value("ack_moves", uint64_t(0)) + m_ackMoves;
    j["doorbell_passes"] = j.value("doorbell_passes", uint64_t(0)) + m_doorbellPasses;
    // the program's own second passes, when it runs: the charged ones must explain them
    j["program_recirculations"] =
        j.value("program_recirculations", uint64_t(0)) + m_txProgram->GetRecirculations();
}

void
PrestoNetDevice::AddCcProgramCounters(nlohmann::json& nic) const
{
    if (!m_ccProgram)
    {
        return;
    }
    // the congestion program: its configuration (same on every host) and summed use
    const RmtResourceReport r = m_ccProgram->GetResourceReport();
    nlohmann::json& j = nic["cc_program"];
    if (!j.contains("stages_used"))
    {
        j["name"] = "dctcp-pipeline";
        j["stages_used"] = r.stagesUsed;
        j["stage_budget"] = r.stageBudget;
        j["register_bytes"] = r.registerBytes;
        j["table_entries"] = r.tableEntries;
        j["pass_latency_ns"] = r.passLatencyNs;
        j["mantissa_bits"] = m_ccProgram->GetParams().mantissaBits;
    }
    j["packets"] = j.value("packets", uint64_t(0)) + r.packets;
    j["recirculations"] = j.value("recirculations", uint64_t(0)) + m_ccProgram->GetRecirculations();
}

void
PrestoNetDevice::AddPipelineTotal(nlohmann::json& nic, uint64_t recirculations) const
{
    // the whole pipeline: every program on it (the rx program of each finite-K class, the
    // send program, the congestion program), per NIC; their stages run side by side (disjoint
    // arrays; the congestion program behind the send program's first stages), so the depth
    // is the largest, memory and entries add up; recirculations of all of them (the send
    // program's second passes included) per received packet, a ratio, not a per-packet
    // count; use summed over the NICs
    uint32_t programs = 0;
    uint32_t stages = 0;
    uint64_t registerBytes = 0;
    uint64_t entries = 0;
    auto count = [&](const RmtResourceReport& r) {
        ++programs;
        stages = std::max(stages, r.stagesUsed);
        registerBytes += r.registerBytes;
        entries += r.tableEntries;
    };
    for (const auto& p : m_programs)
    {
        if (p)
        {
            count(p->GetResourceReport());
        }
    }
    count(m_txProgram->GetResourceReport());
    uint64_t ccRecirculations = m_timeoutPasses + m_sendFixPasses + m_ackFixPasses;
    if (m_ccProgram)
    {
        RmtResourceReport cc = m_ccProgram->GetResourceReport();
        // its inputs come from the send program's first stages: it starts behind them
        cc.stagesUsed += PrestoTxProgram::ACK_INPUT_STAGES;
        count(cc);
        ccRecirculations += m_ccProgram->GetRecirculations();
    }
    nlohmann::json& t = nic["pipeline_total"];
    t["programs"] = programs;
    t["stages_used"] = stages;
    t["stage_budget"] = m_stageBudget;
    t["register_bytes_per_nic"] = registerBytes;
    t["table_entries_per_nic"] = entries;
    const uint64_t packets = t.value("rx_packets", uint64_t(0)) + m_rxPackets;
    const uint64_t recirc =
        t.value("recirculations", uint64_t(0)) + recirculations + ccRecirculations;
    t["rx_packets"] = packets;
    t["recirculations"] = recirc;
    t["recirculations_per_rx_packet"] = packets > 0 ? double(recirc) / packets : 0.0;
    t["timer_scan_packets_per_s"] = m_scanRate;
    t["utilisation_max"] = nic["pipeline_utilisation_max"];
    // full reassembly keeps out-of-order payload: no match-action program can, so a
    // class with it is a reference point, not a design an RMT pipeline runs
    t["rmt_realisable"] =
        std::find(m_fidelity.begin(), m_fidelity.end(), ReassemblyTracker::UNBOUNDED) ==
        m_fidelity.end();
}

void
PrestoNetDevice::AddClassCounters(nlohmann::json& nic) const
{
    // one entry per class: the configuration (same on every host) and summed use
    if (!nic.contains("pipeline"))
    {
        nic["pipeline"] = nlohmann::json::array();
    }
    nlohmann::json& classes = nic["pipeline"];
    for (size_t c = 0; c < m_fidelity.size(); ++c)
    {
        if (classes.size() <= c)
        {
            classes.push_back(nlohmann::json::object());
        }
        nlohmann::json& j = classes[c];
        j["connections"] = j.value("connections", uint64_t(0)) + m_classConnections[c];
        if (j.contains("class"))
        {
            if (m_programs[c])
            {
                RmtResourceReport r = m_programs[c]->GetResourceReport();
                for (size_t st = 0; st < r.stages.size(); ++st)
                {
                    j["stage_packets"][st] =
                        j["stage_packets"][st].get<uint64_t>() + r.stages[st].packets;
                }
            }
            continue;
        }
        j["class"] = c;
        j["fidelity"] = m_fidelity[c] == ReassemblyTracker::UNBOUNDED
                            ? nlohmann::json("full")
                            : nlohmann::json(m_fidelity[c]);
        if (m_programs[c])
        {
            RmtResourceReport r = m_programs[c]->GetResourceReport();
            j["stages_used"] = r.stagesUsed;
            j["stage_budget"] = r.stageBudget;
            j["register_bytes"] = r.registerBytes;
            j["table_entries"] = r.tableEntries;
            j["pass_latency_ns"] = r.passLatencyNs;
            j["throughput_bound_pps"] = r.clockHz * r.pipes;
            j["stage_packets"] = nlohmann::json::array();
            for (const auto& st : r.stages)
            {
                j["stage_packets"].push_back(st.packets); // per-stage occupancy
            }
        }
        else
        {
            j["stages_used"] = nullptr; // the unbounded reference is not a pipeline program
            j["stage_budget"] = m_stageBudget;
        }
    }
}

} // namespace ns3
