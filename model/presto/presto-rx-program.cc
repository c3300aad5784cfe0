/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-rx-program.h"

#include "ns3/presto-input-error.h"
#include "ns3/rmt-program-checks.h"

#include <string>

// Pure logic with no ns-3 dependency (no NS_LOG): the Presto device runs every data segment
// through it, and the unit tests compile it alone. The stages themselves are built in
// presto-rx-stages.cc; here are the program's checks, its PHV fields and its control-plane
// and packet interface.

namespace ns3
{

namespace
{

/// Prefix of every message of this program.
std::string
Who(uint32_t fidelity)
{
    return "Presto rx program with reassembly fidelity K=" + std::to_string(fidelity);
}

} // namespace

uint32_t
PrestoRxProgram::StagesFor(uint32_t fidelity)
{
    return STAGES_BASE + STAGES_PER_INTERVAL * fidelity;
}

uint32_t
PrestoRxProgram::MaxFidelityFor(uint32_t stageBudget)
{
    if (stageBudget < STAGES_BASE)
    {
        throw PrestoInputError("Presto rx program: a stage budget of " +
                               std::to_string(stageBudget) +
                               " stages cannot hold even K=0, which "
                               "needs " +
                               std::to_string(STAGES_BASE) + " stages");
    }
    const uint32_t k = (stageBudget - STAGES_BASE) / STAGES_PER_INTERVAL;
    return k < MAX_FIDELITY ? k : MAX_FIDELITY;
}

PrestoRxProgram::PrestoRxProgram(uint32_t fidelity,
                                 uint32_t maxConnections,
                                 const RmtPipelineConfig& config,
                                 uint32_t pathLabels)
    : m_fidelity(fidelity),
      m_maxConnections(maxConnections),
      m_pathLabels(pathLabels)
{
    if (fidelity == ReassemblyTracker::UNBOUNDED)
    {
        throw PrestoInputError(
            "Presto rx program: reassembly fidelity K=UNBOUNDED (full reassembly) cannot be a "
            "pipeline program; the pipeline holds a fixed number of intervals in register "
            "arrays, two stages each: choose K in 0.." +
            std::to_string(MAX_FIDELITY));
    }
    if (fidelity > MAX_FIDELITY)
    {
        throw PrestoInputError(Who(fidelity) + ": K is above the maximum of " +
                               std::to_string(MAX_FIDELITY) + " intervals");
    }
    RmtProgramChecks::Connections(Who(fidelity), maxConnections);
    if (pathLabels > MAX_PATH_LABELS)
    {
        throw PrestoInputError(Who(fidelity) + ": " + std::to_string(pathLabels) +
                               " path labels, more than the " + std::to_string(MAX_PATH_LABELS) +
                               " a 16-bit IPv4 identification can carry");
    }
    const uint32_t needed = StagesFor(fidelity);
    std::string hint;
    if (config.stageBudget >= STAGES_BASE)
    {
        hint = "; the largest K that fits is " + std::to_string(MaxFidelityFor(config.stageBudget));
    }
    RmtProgramChecks::Stages(Who(fidelity),
                             needed,
                             config,
                             " (" + std::to_string(STAGES_BASE) + " + " +
                                 std::to_string(STAGES_PER_INTERVAL) + " per interval)",
                             hint);
    RmtProgramChecks::OneRecirculation(Who(fidelity),
                                       config,
                                       "an in-order segment that reaches an interval, a segment "
                                       "bridging two intervals and a window change recirculate "
                                       "once");
    try
    {
        m_pipeline = std::make_unique<RmtPipeline>(config);
        DeclareFields();
        BuildEdgeStage();
        BuildRcvNextStage();
        for (uint32_t i = 0; i < fidelity; ++i)
        {
            BuildSlotStages(i);
        }
        BuildVerdictStage();
        m_pipeline->Finalize();
    }
    catch (const PrestoInputError& err)
    {
        // Other hardware limits (tables or register memory per stage, PHV size) are found by
        // the engine; say which program asked.
        throw PrestoInputError(Who(fidelity) + " for " + std::to_string(maxConnections) +
                               " connections does not fit: " + err.what());
    }
    m_phv = std::make_unique<RmtPhv>(m_pipeline->NewPhv());
    m_exec.hits.reserve(2 * needed + 4);
}

PrestoRxProgram::~PrestoRxProgram() = default;

void
PrestoRxProgram::DeclareFields()
{
    RmtPipeline& p = *m_pipeline;
    m_f.conn = p.AddField("hdr.conn_id", RmtProgramChecks::BitsFor(m_maxConnections));
    m_f.seq = p.AddField("hdr.seq", 32);
    m_f.len = p.AddField("hdr.payload_len", 32);
    m_f.op = p.AddField("meta.op", 3);
    m_f.arg = p.AddField("meta.arg", 32);
    m_f.edge = p.AddField("meta.edge", 32);
    m_f.rcv = p.AddField("meta.rcv_next", 32);
    m_f.run = p.AddField("meta.run", 32);
    m_f.s = p.AddField("meta.s", 32);
    m_f.e = p.AddField("meta.e", 32);
    m_f.cls = p.AddField("meta.cls", 3);
    m_f.mode = p.AddField("meta.mode", 3);
    m_f.placed = p.AddField("meta.placed", 1);
    m_f.stop = p.AddField("meta.stop", 2);
    m_f.pSlot = p.AddField("meta.p_slot", 4);
    m_f.bridge = p.AddField("meta.bridge", 1);
    m_f.xSlot = p.AddField("meta.x_slot", 4);
    m_f.uStart = p.AddField("meta.u_start", 32);
    m_f.uEnd = p.AddField("meta.u_end", 32);
    m_f.slotStart = p.AddField("meta.slot_start", 32);
    m_f.slotAct = p.AddField("meta.slot_act", 3);
    m_f.rank = p.AddField("meta.rank", 5);
    m_f.hole = p.AddField("meta.hole", 1);
    m_f.shifted = p.AddField("meta.shifted", 1);
    for (uint32_t j = 0; j < m_fidelity; ++j)
    {
        m_f.listStart[j] = p.AddField("meta.list" + std::to_string(j) + "_start", 32);
        m_f.listLen[j] = p.AddField("meta.list" + std::to_string(j) + "_len", 31);
    }
    if (m_pathLabels > 0)
    {
        const uint32_t bits = RmtProgramChecks::BitsFor(m_pathLabels);
        m_f.path = p.AddField("hdr.path", bits);
        m_f.ownSeen = p.AddField("meta.own_seen", 1);
        m_f.slotOwner = p.AddField("meta.slot_owner", bits);
        for (uint32_t j = 0; j < m_fidelity; ++j)
        {
            m_f.listOwner[j] = p.AddField("meta.list" + std::to_string(j) + "_owner", bits);
        }
    }
    m_f.verdict = p.AddField("out.verdict", 3);
    m_f.writeSeq = p.AddField("out.write_seq", 32);
    m_f.writeLen = p.AddField("out.write_len", 32);
    m_f.delivered = p.AddField("out.delivered", 32);
    m_f.ack = p.AddField("out.ack", 32);
    m_f.ackReq = p.AddField("out.ack_required", 1);
}

void
PrestoRxProgram::CheckConn(uint32_t conn, const char* where) const
{
    if (conn >= m_maxConnections)
    {
        throw PrestoInputError(Who(m_fidelity) + ": " + where + " on connection id " +
                               std::to_string(conn) + " but the program holds " +
                               std::to_string(m_maxConnections) + " connections (ids 0.." +
                               std::to_string(m_maxConnections - 1) + ")");
    }
}

void
PrestoRxProgram::RunOp(uint32_t conn, Op op, uint32_t arg)
{
    RmtPhv& phv = *m_phv;
    phv.Clear();
    phv.Set(m_f.conn, conn);
    phv.Set(m_f.op, op);
    phv.Set(m_f.arg, arg);
    m_pipeline->Execute(phv, m_exec);
}

void
PrestoRxProgram::Reset(uint32_t conn, uint32_t rcvNext, uint32_t window)
{
    CheckConn(conn, "Reset");
    if (window > ReassemblyTracker::MAX_WINDOW)
    {
        throw PrestoInputError(Who(m_fidelity) + ": Reset of connection " + std::to_string(conn) +
                               " with a window of " + std::to_string(window) +
                               " bytes, above the TCP limit of " +
                               std::to_string(ReassemblyTracker::MAX_WINDOW) + " bytes");
    }
    // Connection setup is the host's job: control-plane writes, not packets.
    m_rcvNext->ControlWrite(conn, rcvNext);
    m_edge->ControlWrite(conn, static_cast<uint32_t>(rcvNext + window));
    for (uint32_t i = 0; i < m_fidelity; ++i)
    {
        m_slotStart[i]->ControlWrite(conn, 0);
        m_slotLen[i]->ControlWrite(conn, 0);
    }
}

void
PrestoRxProgram::SetWindow(uint32_t conn, uint32_t window)
{
    CheckConn(conn, "SetWindow");
    if (window > ReassemblyTracker::MAX_WINDOW)
    {
        throw PrestoInputError(Who(m_fidelity) + ": SetWindow of connection " +
                               std::to_string(conn) + " to " + std::to_string(window) +
                               " bytes, above the TCP limit of " +
                               std::to_string(ReassemblyTracker::MAX_WINDOW) + " bytes");
    }
    RunOp(conn, OP_SET_WINDOW, window);
}

void
PrestoRxProgram::OpenWindow(uint32_t conn, uint32_t bytes)
{
    CheckConn(conn, "OpenWindow");
    if (bytes > ReassemblyTracker::MAX_WINDOW)
    {
        throw PrestoInputError(Who(m_fidelity) + ": OpenWindow of connection " +
                               std::to_string(conn) + " by " + std::to_string(bytes) +
                               " bytes, above the TCP window limit of " +
                               std::to_string(ReassemblyTracker::MAX_WINDOW) + " bytes");
    }
    RunOp(conn, OP_OPEN_WINDOW, bytes);
    // The pass moved the edge and read rcv_next behind it; check the limit afterwards (no
    // control-plane read on the common path) and undo the move on the rare refusal.
    const auto edge = static_cast<uint32_t>(m_phv->Get(m_f.edge));
    const uint32_t window = edge - static_cast<uint32_t>(m_phv->Get(m_f.rcv));
    if (window > ReassemblyTracker::MAX_WINDOW)
    {
        m_edge->ControlWrite(conn, static_cast<uint32_t>(edge - bytes));
        throw PrestoInputError(Who(m_fidelity) + ": OpenWindow of connection " +
                               std::to_string(conn) + " by " + std::to_string(bytes) +
                               " bytes makes the window " + std::to_string(window) +
                               " bytes, above the TCP limit of " +
                               std::to_string(ReassemblyTracker::MAX_WINDOW) + " bytes");
    }
}

ReassemblyTracker::Result
PrestoRxProgram::OnSegment(uint32_t conn, uint32_t seq, uint32_t len, uint16_t path)
{
    CheckConn(conn, "OnSegment");
    if (len > ReassemblyTracker::MAX_WINDOW)
    {
        throw PrestoInputError(Who(m_fidelity) + ": segment at seq " + std::to_string(seq) +
                               " of connection " + std::to_string(conn) + " has " +
                               std::to_string(len) + " bytes, more than the " +
                               std::to_string(ReassemblyTracker::MAX_WINDOW) + "-byte limit");
    }
    RmtPhv& phv = *m_phv;
    phv.Clear();
    phv.Set(m_f.conn, conn);
    phv.Set(m_f.seq, seq);
    phv.Set(m_f.len, len);
    phv.Set(m_f.op, OP_SEGMENT);
    if (m_pathLabels > 0)
    {
        if (path >= m_pathLabels)
        {
            throw PrestoInputError(Who(m_fidelity) + ": segment at seq " + std::to_string(seq) +
                                   " of connection " + std::to_string(conn) + " has path label " +
                                   std::to_string(path) + " but the program knows " +
                                   std::to_string(m_pathLabels) + " labels (0.." +
                                   std::to_string(m_pathLabels - 1) + ")");
        }
        phv.Set(m_f.path, path);
    }
    m_pipeline->Execute(phv, m_exec);

    ReassemblyTracker::Result r;
    r.verdict = static_cast<ReassemblyTracker::Verdict>(phv.Get(m_f.verdict));
    r.writeSeq = static_cast<uint32_t>(phv.Get(m_f.writeSeq));
    r.writeLen = static_cast<uint32_t>(phv.Get(m_f.writeLen));
    r.delivered = static_cast<uint32_t>(phv.Get(m_f.delivered));
    r.ack = static_cast<uint32_t>(phv.Get(m_f.ack));
    r.ackRequired = phv.Get(m_f.ackReq) != 0;
    return r;
}

const RmtExecution&
PrestoRxProgram::GetLastExecution() const
{
    return m_exec;
}

RmtResourceReport
PrestoRxProgram::GetResourceReport() const
{
    return m_pipeline->GetResourceReport();
}

const RmtPipeline&
PrestoRxProgram::GetPipeline() const
{
    return *m_pipeline;
}

uint32_t
PrestoRxProgram::GetFidelity() const
{
    return m_fidelity;
}

uint32_t
PrestoRxProgram::GetMaxConnections() const
{
    return m_maxConnections;
}

uint32_t
PrestoRxProgram::GetStageCount() const
{
    return m_pipeline->GetStageCount();
}

uint32_t
PrestoRxProgram::GetRcvNext(uint32_t conn) const
{
    CheckConn(conn, "GetRcvNext");
    return static_cast<uint32_t>(m_rcvNext->ControlRead(conn));
}

uint32_t
PrestoRxProgram::GetWindow(uint32_t conn) const
{
    CheckConn(conn, "GetWindow");
    return static_cast<uint32_t>(m_edge->ControlRead(conn) - m_rcvNext->ControlRead(conn));
}

ReassemblyTracker::Interval
PrestoRxProgram::GetSlot(uint32_t conn, uint32_t i) const
{
    CheckConn(conn, "GetSlot");
    if (i >= m_fidelity)
    {
        throw PrestoInputError(Who(m_fidelity) + ": GetSlot: slot " + std::to_string(i) +
                               " does not exist");
    }
    ReassemblyTracker::Interval x;
    x.start = static_cast<uint32_t>(m_slotStart[i]->ControlRead(conn));
    x.len = static_cast<uint32_t>(m_slotLen[i]->ControlRead(conn));
    return x;
}

uint16_t
PrestoRxProgram::GetSlotOwner(uint32_t conn, uint32_t i) const
{
    GetSlot(conn, i); // the same checks
    return OwnerOf(m_slotStart[i]->ControlRead(conn));
}

uint32_t
PrestoRxProgram::GetPathLabels() const
{
    return m_pathLabels;
}

} // namespace ns3
