/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-rx-program.h"

#include "ns3/offload-seq.h"
#include "ns3/rmt-program-checks.h"

#include <string>

// The stages of the receive program (PrestoRxProgram), one function each (two per interval
// slot), in pipeline order: the program's table-by-table listing. Built once at set-up; the
// action bodies are what every data segment and window change runs. Pure logic, no NS_LOG
// (as presto-rx-program.cc).

namespace ns3
{

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
    BuildSlotStartStage(i);
    BuildSlotLenStage(i);
}

void
PrestoRxProgram::BuildSlotStartStage(uint32_t i)
{
    // ooo<i>.start: the half of the slot rule that needs only the start. Live slots are a
    // prefix of the K slots, every live slot starts after rcv_next and a free slot is all
    // zero, so the valid bit alone tells live from free.
    const std::string name = "ooo" + std::to_string(i);
    const Fields f = m_f;
    const uint32_t k = m_fidelity;
    const bool perPath = m_pathLabels > 0;
    // the owner, when kept, sits above the valid bit
    const uint32_t startBits =
        OWNER_SHIFT + (perPath ? RmtProgramChecks::BitsFor(m_pathLabels) : 0);
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

    ta.AddAction("place_start", PlaceStartAction(f, start, i, perPath));

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
}

RmtActionFn
PrestoRxProgram::PlaceStartAction(const Fields& f,
                                  RmtRegisterArray* start,
                                  uint32_t i,
                                  bool perPath)
{
    return [f, start, i, perPath](RmtActionContext& c) {
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
    };
}

void
PrestoRxProgram::BuildSlotLenStage(uint32_t i)
{
    // ooo<i>.len: completes the slot rule with the end (old start carried in the PHV) and
    // lists the slot for a fix-up pass. Keyed on the mode and on meta.rank, the number of
    // slots listed so far in a merge or trim: the entry's action data says which list entry
    // a kept slot fills (hardware: one action per list position).
    const std::string name = "ooo" + std::to_string(i);
    const Fields f = m_f;
    const uint32_t k = m_fidelity;
    const bool perPath = m_pathLabels > 0;
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

    tb.AddAction("place_len", PlaceLenAction(f, lenArr, i, perPath));

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

RmtActionFn
PrestoRxProgram::PlaceLenAction(const Fields& f, RmtRegisterArray* lenArr, uint32_t i, bool perPath)
{
    return [f, lenArr, i, perPath](RmtActionContext& c) {
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
    };
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

} // namespace ns3
