/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-rx-program.h"

#include "ns3/offload-seq.h"
#include "ns3/presto-input-error.h"
#include "ns3/rmt-program-checks.h"

#include <string>

// Pure logic with no ns-3 dependency (no NS_LOG): the Presto device runs every data segment
// through it, and the unit tests compile it alone.

namespace ns3
{

namespace
{

/// Valid bit of a start register (bit 32, above the 32-bit sequence number).
constexpr uint64_t SLOT_VALID = uint64_t{1} << 32;
/// First bit of the owner (per path) in a start register, above the valid bit.
constexpr uint32_t OWNER_SHIFT = 33;

/// \return the owner held in a start register
uint16_t
OwnerOf(uint64_t cell)
{
    return static_cast<uint16_t>(cell >> OWNER_SHIFT);
}

/// \return a live start register holding start and owner
uint64_t
LiveSlot(uint32_t start, uint64_t owner)
{
    return (owner << OWNER_SHIFT) | SLOT_VALID | start;
}

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
PrestoRxProgram::BuildEdgeStage()
{
    // Stage 0 holds the right edge of the window (rcv_next + window). Segments only read it;
    // the host moves it (OpenWindow) or sets it in the recirculated pass of SetWindow from the
    // value pass 1 computed with rcv_next.
    RmtStage& st = m_pipeline->AddStage("rx.edge");
    m_edge = &st.AddRegister("rx.edge", 32, m_maxConnections);
    RmtTable& t = st.AddTable("rx.edge", {{m_f.op, RmtMatchKind::EXACT}}, 4);
    const Fields f = m_f;
    RmtRegisterArray* edge = m_edge;
    t.AddAction("read_edge",
                [f, edge](RmtActionContext& c) { c.Set(f.edge, c.Read(*edge, c.Get(f.conn))); });
    t.AddAction("open_window", [f, edge](RmtActionContext& c) {
        const uint64_t bytes = c.Get(f.arg);
        uint64_t now = 0;
        c.Update(*edge, c.Get(f.conn), [bytes, &now](uint64_t& cell) {
            cell += bytes;
            now = cell;
        });
        c.Set(f.edge, now); // the value wraps at 32 bits when the pipeline stores it
    });
    t.AddAction("write_edge", [f, edge](RmtActionContext& c) {
        c.Write(*edge, c.Get(f.conn), c.Get(f.edge)); // computed in pass 1
    });
    t.AddEntry({RmtMatch::Exact(OP_SEGMENT)}, "read_edge");
    t.AddEntry({RmtMatch::Exact(OP_OPEN_WINDOW)}, "open_window");
    t.AddEntry({RmtMatch::Exact(OP_SET_WINDOW_COMMIT)}, "write_edge");
}

void
PrestoRxProgram::BuildRcvNextStage()
{
    // Stage 1 holds rcv_next. One read-modify-write trims the segment against rcv_next and
    // the edge read in stage 0, classifies it, and advances rcv_next to the end of an
    // in-order segment. That write is optimistic: the interval stages behind may find that
    // the new rcv_next reaches an interval; the verdict stage then recirculates the packet
    // and pass 2 commits the merged value (commit_merge).
    RmtStage& st = m_pipeline->AddStage("rx.rcv_next");
    m_rcvNext = &st.AddRegister("rx.rcv_next", 32, m_maxConnections);
    RmtTable& t = st.AddTable("rx.rcv_next", {{m_f.op, RmtMatchKind::EXACT}}, 5);
    const Fields f = m_f;
    RmtRegisterArray* rcvNext = m_rcvNext;
    t.AddAction("classify", [f, rcvNext](RmtActionContext& c) {
        const auto seq = static_cast<uint32_t>(c.Get(f.seq));
        const auto len = static_cast<uint32_t>(c.Get(f.len));
        const auto edge = static_cast<uint32_t>(c.Get(f.edge));
        uint32_t r = 0;
        uint8_t cls = CLS_NO_PAYLOAD;
        uint32_t s = 0;
        uint32_t e = 0;
        c.Update(*rcvNext, c.Get(f.conn), [&](uint64_t& cell) {
            r = static_cast<uint32_t>(cell);
            if (len == 0)
            {
                return; // a pure ACK: nothing to track
            }
            const uint32_t end = seq + len;
            if (seq::Leq(end, r))
            {
                cls = CLS_DUPLICATE; // all of it was delivered already
                return;
            }
            s = seq::Max(seq, r); // trim what was already delivered
            if (!seq::Lt(s, edge))
            {
                cls = CLS_OUT_OF_WINDOW; // no room for any new byte
                return;
            }
            e = seq::Min(end, edge); // trim what does not fit
            if (s == r)
            {
                cls = CLS_IN_ORDER;
                cell = e; // optimistic: a merge found later is committed in pass 2
            }
            else
            {
                cls = CLS_OUT_OF_ORDER;
            }
        });
        c.Set(f.rcv, r);
        c.Set(f.cls, cls);
        c.Set(f.s, s);
        c.Set(f.e, e);
        if (cls == CLS_IN_ORDER)
        {
            c.Set(f.run, e);
            c.Set(f.mode, MODE_MERGE);
        }
        else if (cls == CLS_OUT_OF_ORDER)
        {
            c.Set(f.run, r);
            c.Set(f.mode, MODE_PLACE);
        }
        else
        {
            c.Set(f.run, r);
        }
    });
    t.AddAction("read_rcv_next", [f, rcvNext](RmtActionContext& c) {
        c.Set(f.rcv, c.Read(*rcvNext, c.Get(f.conn)));
    });
    t.AddAction("set_window", [f, rcvNext](RmtActionContext& c) {
        // Pass 1 of SetWindow: the new edge is rcv_next + window; the slot stages behind trim
        // to it now, pass 2 writes it into rx.edge (in front of this stage).
        const uint64_t rcv = c.Read(*rcvNext, c.Get(f.conn));
        c.Set(f.rcv, rcv);
        c.Set(f.edge, rcv + c.Get(f.arg));
        c.Set(f.mode, MODE_TRIM);
    });
    t.AddAction("commit_merge", [f, rcvNext](RmtActionContext& c) {
        c.Write(*rcvNext, c.Get(f.conn), c.Get(f.run));
    });
    t.AddEntry({RmtMatch::Exact(OP_SEGMENT)}, "classify");
    t.AddEntry({RmtMatch::Exact(OP_SET_WINDOW)}, "set_window");
    t.AddEntry({RmtMatch::Exact(OP_OPEN_WINDOW)}, "read_rcv_next");
    t.AddEntry({RmtMatch::Exact(OP_MERGE_COMMIT)}, "commit_merge");
}

void
PrestoRxProgram::BuildSlotStages(uint32_t i)
{
    const std::string name = "ooo" + std::to_string(i);
    const Fields f = m_f;
    const uint32_t k = m_fidelity;
    const bool perPath = m_pathLabels > 0;
    // the owner, when kept, sits above the valid bit
    const uint32_t startBits =
        OWNER_SHIFT + (perPath ? RmtProgramChecks::BitsFor(m_pathLabels) : 0);

    // ---- Start stage: the half of the slot rule that needs only the start. Live slots are a
    // prefix of the K slots, every live slot starts after rcv_next and a free slot is all
    // zero, so the valid bit alone tells live from free.
    RmtStage& sa = m_pipeline->AddStage(name + ".start");
    RmtRegisterArray* start = &sa.AddRegister(name + ".start", startBits, m_maxConnections);
    m_slotStart.push_back(start);
    RmtTable& ta = sa.AddTable(name + ".start", {{m_f.mode, RmtMatchKind::EXACT}}, 4);

    ta.AddAction("merge_start", [f, start, perPath](RmtActionContext& c) {
        // In-order: a slot starting at or before the running rcv_next is merged (or was
        // passed); it is cleared and the length stage extends rcv_next. Others are kept.
        const auto run = static_cast<uint32_t>(c.Get(f.run));
        uint8_t act = ACT_NONE;
        uint32_t old = 0;
        uint16_t owner = 0;
        c.Update(*start, c.Get(f.conn), [&](uint64_t& cell) {
            old = static_cast<uint32_t>(cell);
            owner = OwnerOf(cell);
            if ((cell & SLOT_VALID) == 0)
            {
                return; // free
            }
            if (seq::Leq(old, run))
            {
                act = ACT_CLEARED;
                cell = 0;
            }
            else
            {
                act = ACT_KEEP;
            }
        });
        c.Set(f.slotStart, old);
        c.Set(f.slotAct, act);
        if (perPath)
        {
            c.Set(f.slotOwner, owner);
        }
    });

    ta.AddAction("place_start", [f, start, i, perPath](RmtActionContext& c) {
        // Out of order. Every live slot is read (its old value goes to the list a fix-up pass
        // rewrites the slots from); only the segment's own placement writes.
        const auto s = static_cast<uint32_t>(c.Get(f.s));
        const auto e = static_cast<uint32_t>(c.Get(f.e));
        const bool open = c.Get(f.placed) == 0 && c.Get(f.stop) == STOP_NONE;
        const uint64_t path = perPath ? c.Get(f.path) : 0;
        // per path: a path that owns a live slot (seen in front) opens no second interval
        const bool mayOpen = open && !(perPath && c.Get(f.ownSeen) != 0);
        uint8_t act = ACT_NONE;
        uint32_t old = 0;
        uint16_t owner = 0;
        c.Update(*start, c.Get(f.conn), [&](uint64_t& cell) {
            old = static_cast<uint32_t>(cell);
            owner = OwnerOf(cell);
            if ((cell & SLOT_VALID) == 0)
            {
                if (mayOpen)
                {
                    // The first free slot comes after every live one: all were examined, none
                    // holds, overlaps or touches T. A new interval, in this pass.
                    cell = LiveSlot(s, path);
                    act = ACT_TAKE;
                }
                return;
            }
            act = ACT_LIVE;
            if (open && e == old)
            {
                // T ends where the slot starts: it grows at the front (optimistically: a
                // later slot may still overlap T, then pass 2 restores this one). The slot
                // keeps its owner.
                cell = LiveSlot(s, owner);
            }
        });
        c.Set(f.slotStart, old);
        c.Set(f.slotAct, act);
        if (perPath)
        {
            c.Set(f.slotOwner, owner);
            if (act == ACT_LIVE && owner == path)
            {
                c.Set(f.ownSeen, 1);
            }
        }
        if (act == ACT_TAKE)
        {
            c.Set(f.placed, 1);
            c.Set(f.pSlot, i);
        }
    });

    ta.AddAction("trim_start", [f, start, perPath](RmtActionContext& c) {
        // New window (pass 1 of SetWindow, the new edge computed in rx.rcv_next): forget a
        // slot at or beyond the edge.
        const auto edge = static_cast<uint32_t>(c.Get(f.edge));
        uint8_t act = ACT_NONE;
        uint32_t old = 0;
        uint16_t owner = 0;
        c.Update(*start, c.Get(f.conn), [&](uint64_t& cell) {
            old = static_cast<uint32_t>(cell);
            owner = OwnerOf(cell);
            if ((cell & SLOT_VALID) == 0)
            {
                return;
            }
            if (seq::Lt(old, edge))
            {
                act = ACT_KEEP;
            }
            else
            {
                cell = 0;
                act = ACT_CLEARED;
            }
        });
        c.Set(f.slotStart, old);
        c.Set(f.slotAct, act);
        if (perPath)
        {
            c.Set(f.slotOwner, owner);
        }
    });

    ta.AddAction("compact_start", [f, start, i, k, perPath](RmtActionContext& c) {
        uint32_t len = 0;
        c.Write(*start, c.Get(f.conn), CompactSource(c, f, i, k, perPath, len));
    });

    ta.AddEntry({RmtMatch::Exact(MODE_MERGE)}, "merge_start");
    ta.AddEntry({RmtMatch::Exact(MODE_PLACE)}, "place_start");
    ta.AddEntry({RmtMatch::Exact(MODE_TRIM)}, "trim_start");
    ta.AddEntry({RmtMatch::Exact(MODE_COMPACT)}, "compact_start");

    // ---- Length stage: completes the slot rule with the end (old start carried in the PHV)
    // and lists the slot for a fix-up pass. Keyed on the mode and on meta.rank, the number
    // of slots listed so far in a merge or trim: the entry's action data says which list
    // entry a kept slot fills (hardware: one action per list position).
    RmtStage& sb = m_pipeline->AddStage(name + ".len");
    RmtRegisterArray* lenArr = &sb.AddRegister(name + ".len", 31, m_maxConnections);
    m_slotLen.push_back(lenArr);
    RmtTable& tb = sb.AddTable(name + ".len",
                               {{m_f.mode, RmtMatchKind::EXACT}, {m_f.rank, RmtMatchKind::EXACT}},
                               2 * (i + 1) + 2);

    // A kept slot of a merge or trim: list it at position rank, note whether it moves down.
    auto list = [f, perPath](RmtActionContext& c, uint32_t oldStart, uint32_t len) {
        const auto rank = static_cast<uint32_t>(c.Param(0));
        c.Set(f.listStart[rank], oldStart);
        c.Set(f.listLen[rank], len);
        if (perPath)
        {
            c.Set(f.listOwner[rank], c.Get(f.slotOwner));
        }
        c.Set(f.rank, rank + 1);
        if (c.Get(f.hole) != 0)
        {
            c.Set(f.shifted, 1);
        }
    };

    tb.AddAction(
        "merge_len",
        [f, lenArr, list](RmtActionContext& c) {
            const auto act = c.Get(f.slotAct);
            const auto old = static_cast<uint32_t>(c.Get(f.slotStart));
            if (act == ACT_CLEARED)
            {
                uint32_t end = 0;
                c.Update(*lenArr, c.Get(f.conn), [&](uint64_t& cell) {
                    end = old + static_cast<uint32_t>(cell);
                    cell = 0;
                });
                // A merged slot carries rcv_next to its end; a passed one changes nothing.
                c.Set(f.run, seq::Max(static_cast<uint32_t>(c.Get(f.run)), end));
                c.Set(f.hole, 1);
            }
            else if (act == ACT_KEEP)
            {
                list(c, old, static_cast<uint32_t>(c.Read(*lenArr, c.Get(f.conn))));
            }
        },
        1);

    tb.AddAction(
        "trim_len",
        [f, lenArr, list](RmtActionContext& c) {
            const auto act = c.Get(f.slotAct);
            if (act == ACT_CLEARED)
            {
                c.Write(*lenArr, c.Get(f.conn), 0);
                c.Set(f.hole, 1);
            }
            else if (act == ACT_KEEP)
            {
                const auto old = static_cast<uint32_t>(c.Get(f.slotStart));
                const auto edge = static_cast<uint32_t>(c.Get(f.edge));
                uint32_t len = 0;
                c.Update(*lenArr, c.Get(f.conn), [&](uint64_t& cell) {
                    // cut at the new right edge
                    cell = seq::Min(old + static_cast<uint32_t>(cell), edge) - old;
                    len = static_cast<uint32_t>(cell);
                });
                list(c, old, len);
            }
        },
        1);

    tb.AddAction("place_len", [f, lenArr, i, perPath](RmtActionContext& c) {
        const auto act = static_cast<uint8_t>(c.Get(f.slotAct));
        const auto s = static_cast<uint32_t>(c.Get(f.s));
        const auto e = static_cast<uint32_t>(c.Get(f.e));
        const uint64_t conn = c.Get(f.conn);
        if (act == ACT_TAKE)
        {
            c.Write(*lenArr, conn, e - s); // 4. the new interval
            return;
        }
        if (act != ACT_LIVE)
        {
            return;
        }
        const auto old = static_cast<uint32_t>(c.Get(f.slotStart));
        const bool placed = c.Get(f.placed) != 0;
        const bool open = !placed && c.Get(f.stop) == STOP_NONE;
        if (perPath)
        {
            c.Set(f.listOwner[i], c.Get(f.slotOwner));
        }
        const bool after = placed && c.Get(f.stop) == STOP_NONE;
        uint32_t end = 0;
        c.Update(*lenArr, conn, [&](uint64_t& cell) {
            end = old + static_cast<uint32_t>(cell);
            c.Set(f.listStart[i], old); // the old value, for a fix-up pass
            c.Set(f.listLen[i], cell);
            if (!open)
            {
                return;
            }
            if (end == s)
            {
                cell = e - old; // T starts where the slot ends: it grows at the end
            }
            else if (e == old)
            {
                cell = end - s; // ... or at the front (the start stage wrote s)
            }
        });
        const bool overlap = seq::Lt(old, e) && seq::Lt(s, end);
        if (open)
        {
            if (seq::Leq(old, s) && seq::Leq(e, end))
            {
                c.Set(f.stop, STOP_DUPLICATE); // 1. held already; nothing written so far
            }
            else if (end == s || e == old)
            {
                c.Set(f.placed, 1); // 3. T touches the slot: grown above, optimistically
                c.Set(f.pSlot, i);
                c.Set(f.uStart, seq::Min(old, s));
                c.Set(f.uEnd, seq::Max(end, e));
            }
            else if (overlap)
            {
                c.Set(f.stop, STOP_OVERLAP); // 2. TAS does not trim T against an interval
            }
        }
        else if (after)
        {
            if (overlap)
            {
                // 2. after all: the growth of slot pSlot is undone in pass 2 (only a
                // misaligned T can touch one interval and overlap another).
                c.Set(f.stop, STOP_OVERLAP);
            }
            else if (end == s || e == old)
            {
                // 3. T bridges slot pSlot and this one: pass 2 keeps the union in pSlot
                // and removes this slot (the slots behind move down).
                c.Set(f.bridge, 1);
                c.Set(f.xSlot, i);
                c.Set(f.uStart, seq::Min(old, static_cast<uint32_t>(c.Get(f.uStart))));
                c.Set(f.uEnd, seq::Max(end, static_cast<uint32_t>(c.Get(f.uEnd))));
            }
        }
    });

    tb.AddAction("compact_len", [f, lenArr, i, k, perPath](RmtActionContext& c) {
        uint32_t len = 0;
        CompactSource(c, f, i, k, perPath, len);
        c.Write(*lenArr, c.Get(f.conn), len);
    });

    for (uint32_t r = 0; r <= i; ++r)
    {
        tb.AddEntry({RmtMatch::Exact(MODE_MERGE), RmtMatch::Exact(r)}, "merge_len", {r});
        tb.AddEntry({RmtMatch::Exact(MODE_TRIM), RmtMatch::Exact(r)}, "trim_len", {r});
    }
    tb.AddEntry({RmtMatch::Exact(MODE_PLACE), RmtMatch::Exact(0)}, "place_len");
    tb.AddEntry({RmtMatch::Exact(MODE_COMPACT), RmtMatch::Exact(0)}, "compact_len");
}

uint64_t
PrestoRxProgram::CompactSource(const RmtActionContext& c,
                               const Fields& f,
                               uint32_t i,
                               uint32_t k,
                               bool perPath,
                               uint32_t& len)
{
    // Pass 2 rewrites slot i from the list pass 1 built: list[i], or list[i + 1] behind the
    // slot a bridge removed, and the bridged union in the slot that keeps it (with the owner
    // it had: the bridge's lower slot).
    const bool bridge = c.Get(f.bridge) != 0;
    uint32_t j = i;
    uint32_t start = 0;
    len = 0;
    if (bridge && i == c.Get(f.pSlot))
    {
        start = static_cast<uint32_t>(c.Get(f.uStart));
        len = static_cast<uint32_t>(c.Get(f.uEnd)) - start;
    }
    else
    {
        j = (bridge && i >= c.Get(f.xSlot)) ? i + 1 : i;
        if (j >= k)
        {
            return 0;
        }
        start = static_cast<uint32_t>(c.Get(f.listStart[j]));
        len = static_cast<uint32_t>(c.Get(f.listLen[j]));
    }
    if (len == 0)
    {
        return 0;
    }
    return LiveSlot(start, perPath ? c.Get(f.listOwner[j]) : 0);
}

void
PrestoRxProgram::BuildVerdictStage()
{
    // The last stage turns the flags into the verdict, the write range and the ACK, and asks
    // for the second pass when pass 1 left work that needs the slots again (a merge's
    // rcv_next, a compaction, a bridge, an undo) or a window change needs rcv_next in the
    // edge stage.
    RmtStage& st = m_pipeline->AddStage("rx.verdict");
    RmtTable& t = st.AddTable("rx.verdict", {{m_f.op, RmtMatchKind::EXACT}}, 4);
    const Fields f = m_f;
    auto fixUp = [f](RmtActionContext& c, Op op) {
        c.Set(f.op, op);
        c.Set(f.mode, MODE_COMPACT);
        c.Set(f.rank, 0);
        c.Recirculate();
    };
    t.AddAction("finish_segment", [f, fixUp](RmtActionContext& c) {
        const auto cls = static_cast<uint8_t>(c.Get(f.cls));
        const uint64_t rcv = c.Get(f.rcv);
        uint8_t verdict = ReassemblyTracker::NO_PAYLOAD;
        bool write = false;
        c.Set(f.ack, rcv);
        c.Set(f.ackReq, cls == CLS_NO_PAYLOAD ? 0 : 1);
        switch (cls)
        {
        case CLS_NO_PAYLOAD:
            break;
        case CLS_DUPLICATE:
            verdict = ReassemblyTracker::DUPLICATE;
            break;
        case CLS_OUT_OF_WINDOW:
            verdict = ReassemblyTracker::DROPPED_WINDOW;
            break;
        case CLS_IN_ORDER: {
            verdict = ReassemblyTracker::IN_ORDER;
            write = true;
            const uint64_t run = c.Get(f.run);
            c.Set(f.delivered, run - rcv);
            c.Set(f.ack, run);
            if (run != c.Get(f.e) || c.Get(f.shifted) != 0)
            {
                // rcv_next holds the segment's end, or a kept slot sits behind a merged one:
                // pass 2 writes the merged rcv_next and moves the kept slots down.
                fixUp(c, OP_MERGE_COMMIT);
            }
            break;
        }
        default: {
            const uint64_t stop = c.Get(f.stop);
            const bool placed = c.Get(f.placed) != 0;
            if (stop == STOP_DUPLICATE)
            {
                verdict = ReassemblyTracker::DUPLICATE;
            }
            else if (stop == STOP_OVERLAP || !placed)
            {
                verdict = ReassemblyTracker::DROPPED_FIDELITY;
                if (placed)
                {
                    c.Set(f.bridge, 0); // undo: pass 2 restores every slot from the list
                    fixUp(c, OP_PLACE_COMMIT);
                }
            }
            else
            {
                verdict = ReassemblyTracker::OUT_OF_ORDER_PLACED;
                write = true;
                if (c.Get(f.bridge) != 0)
                {
                    fixUp(c, OP_PLACE_COMMIT); // pass 2 joins the two slots
                }
            }
            break;
        }
        }
        c.Set(f.verdict, verdict);
        if (write)
        {
            const uint64_t s = c.Get(f.s);
            c.Set(f.writeSeq, s);
            c.Set(f.writeLen, c.Get(f.e) - s);
        }
    });
    t.AddAction("commit_window", [fixUp](RmtActionContext& c) { fixUp(c, OP_SET_WINDOW_COMMIT); });
    t.AddEntry({RmtMatch::Exact(OP_SEGMENT)}, "finish_segment");
    t.AddEntry({RmtMatch::Exact(OP_SET_WINDOW)}, "commit_window");
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
