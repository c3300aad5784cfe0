/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-tx-program.h"

#include "ns3/offload-reassembly.h"
#include "ns3/offload-seq.h"

#include <algorithm>
#include <string>

// The stages of the send program (PrestoTxProgram), one function each, in pipeline order:
// the program's table-by-table listing. Built once at set-up; the action bodies are what
// every ACK, send pass, doorbell and timer-scan visit runs. Pure logic, no NS_LOG (as
// presto-tx-program.cc).

namespace ns3
{

namespace
{

constexpr uint32_t MAX_BUFFER = ReassemblyTracker::MAX_WINDOW; //!< the data path's window cap

/**
 * The retransmission timeout, OffloadTcpConnection::GetRtoNs with shifts: the backoff
 * doublings are one shift (by a value below 2^5, a small table in hardware) and a cap.
 */
uint64_t
Rto(const PrestoTxProgram::Params& p, bool hasRtt, uint64_t srtt, uint64_t rttvar, uint64_t backoff)
{
    uint64_t base = hasRtt ? std::max(p.minRtoNs, srtt + (rttvar << 2)) : p.initialRtoNs;
    base = std::min(base, p.maxRtoNs);
    return std::min(base << backoff, p.maxRtoNs);
}

/**
 * The sender's segment choice (OffloadTcpConnection::ChooseSegment) in the operations one
 * stage's ALUs have: adds, compare-and-select (min), no division. Written apart from the data
 * path's on purpose: the differential tests compare the two.
 * \return the sequence space the segment takes (payload + FIN); 0: nothing to send
 */
uint32_t
Choose(uint32_t nxt,
       uint32_t max,
       uint32_t una,
       uint32_t peerEdge,
       uint32_t bufEnd,
       bool closed,
       uint32_t cwnd,
       uint32_t mss,
       uint32_t& len,
       bool& fin)
{
    const uint32_t cwndEdge = una + std::min(cwnd, MAX_BUFFER);
    const uint32_t edge = seq::Lt(cwndEdge, peerEdge) ? cwndEdge : peerEdge;
    const uint32_t usable = seq::Lt(nxt, edge) ? edge - nxt : 0;
    const bool resend = seq::Lt(nxt, max);
    uint32_t avail = seq::Lt(nxt, bufEnd) ? bufEnd - nxt : 0;
    if (resend && seq::Lt(max - nxt, avail))
    {
        avail = max - nxt; // a re-sent segment stops at snd_max
    }
    len = std::min({mss, avail, usable});
    if (len > 0 && len < mss && len < avail && nxt != una)
    {
        len = 0; // silly-window avoidance
    }
    fin =
        closed && nxt + len == bufEnd && (resend ? seq::Lt(nxt + len, max) : !seq::Lt(bufEnd, max));
    return len + (fin ? 1 : 0);
}

/// tx.snd's one cell: snd_max (high 32 bits), snd_nxt (low).
uint64_t
Pack(uint32_t nxt, uint32_t max)
{
    return (uint64_t{max} << 32) | nxt;
}

} // namespace

bool
PrestoTxProgram::Processed(const Fields& f, const RmtActionContext& c)
{
    return c.Get(f.op) == OP_ACK && c.Get(f.cls) == ACK_PROCESSED;
}

void
PrestoTxProgram::Unpack(const Fields& f, RmtActionContext& c, uint64_t cell)
{
    c.Set(f.nxt, cell & LOW32);
    c.Set(f.max, cell >> 32);
    c.Set(f.maxOld, cell >> 32);
}

RmtTable&
PrestoTxProgram::OpTable(RmtStage& st, const std::string& name) const
{
    return st.AddTable(name, {{m_f.op, RmtMatchKind::EXACT}}, 8);
}

void
PrestoTxProgram::BuildStages()
{
    BuildSndStage();
    BuildUnaStage();
    BuildPeerStage();
    BuildDupStage();
    BuildRecoveryStage();
    BuildChooseStage();
    BuildRttSeqStage();
    BuildRttStartStage();
    BuildRttStage();
    BuildRtoStage();
}

void
PrestoTxProgram::BuildSndStage()
{
    // tx.snd: snd_nxt and snd_max in one register. Every operation reads them first: an ACK
    // is acceptable only up to snd_max. A send pass cannot know its segment here (the windows
    // and the send buffer come later), so it writes optimistically: a full segment from
    // snd_nxt. tx.choose checks the guess; a wrong one is mended by a second pass.
    const Fields f = m_f;
    const uint32_t n = m_maxConnections;
    RmtStage& st = m_pipeline->AddStage("tx.snd");
    RmtRegisterArray* snd = m_snd = &st.AddRegister("tx.snd", 64, n);
    RmtTable& t = OpTable(st, "tx.snd");
    t.AddAction("read",
                [f, snd](RmtActionContext& c) { Unpack(f, c, c.Read(*snd, c.Get(f.conn))); });
    t.AddAction("speculate", [f, snd](RmtActionContext& c) {
        c.Update(*snd, c.Get(f.conn), [&](uint64_t& cell) {
            Unpack(f, c, cell);
            const auto nxt = static_cast<uint32_t>(cell & LOW32);
            const auto max = static_cast<uint32_t>(cell >> 32);
            auto guess = static_cast<uint32_t>(c.Get(f.mss));
            if (c.Get(f.posted))
            {
                // a doorbell's own send pass carries the stream's new end
                const auto end = static_cast<uint32_t>(c.Get(f.postedEnd));
                guess = std::min(guess, seq::Lt(nxt, end) ? end - nxt : 0u);
            }
            c.Set(f.guess, guess);
            const uint32_t end = nxt + guess;
            cell = Pack(end, seq::Lt(max, end) ? end : max);
        });
    });
    t.AddAction("mend", [f, snd](RmtActionContext& c) {
        // pass 2 of a wrong guess: the segment tx.choose found (maybe none)
        const auto nxt = static_cast<uint32_t>(c.Get(f.nxt));
        const auto maxOld = static_cast<uint32_t>(c.Get(f.maxOld));
        const uint32_t end = nxt + static_cast<uint32_t>(c.Get(f.seqLen));
        const uint32_t max = seq::Lt(maxOld, end) ? end : maxOld;
        c.Write(*snd, c.Get(f.conn), Pack(end, max));
        c.Set(f.max, max);
        c.Set(f.commit, c.Get(f.seqLen) > 0 ? 1 : 0);
    });
    t.AddAction("rewind", [f, snd](RmtActionContext& c) {
        // pass 2 of a timeout, a go-back-N or an ACK beyond snd_nxt: snd_nxt = snd_una
        c.Update(*snd, c.Get(f.conn), [&](uint64_t& cell) {
            const auto max = static_cast<uint32_t>(cell >> 32);
            cell = Pack(static_cast<uint32_t>(c.Get(f.una)), max);
            c.Set(f.nxt, c.Get(f.una));
            c.Set(f.max, max);
        });
    });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_SEND)}, "speculate");
    t.AddEntry({RmtMatch::Exact(OP_SCAN)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_POST)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_SEND_FIX)}, "mend");
    t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "rewind");
    t.AddEntry({RmtMatch::Exact(OP_ACK_FIX)}, "rewind");
}

void
PrestoTxProgram::BuildUnaStage()
{
    // tx.una: classify the ACK, advance snd_una; what the host posted (the stream's end, and
    // whether a FIN follows it).
    const Fields f = m_f;
    const uint32_t n = m_maxConnections;
    RmtStage& st = m_pipeline->AddStage("tx.una");
    RmtRegisterArray* una = m_una = &st.AddRegister("tx.snd_una", 32, n);
    RmtRegisterArray* close = m_close = &st.AddRegister("tx.close", 34, n);
    RmtTable& t = OpTable(st, "tx.una");
    auto posted = [f](RmtActionContext& c, uint64_t cell) {
        c.Set(f.bufEnd, cell & LOW32);
        c.Set(f.closed, (cell & CLOSED) ? 1 : 0);
    };
    t.AddAction("ack", [f, una, close, posted](RmtActionContext& c) {
        const uint64_t conn = c.Get(f.conn);
        const auto ack = static_cast<uint32_t>(c.Get(f.ack));
        const auto max = static_cast<uint32_t>(c.Get(f.max));
        c.Update(*una, conn, [&](uint64_t& cell) {
            const auto u = static_cast<uint32_t>(cell);
            if (seq::Lt(max, ack))
            {
                c.Set(f.cls, ACK_UNACCEPTABLE);
            }
            else if (seq::Lt(ack, u))
            {
                c.Set(f.cls, ACK_OLD); // or too old: the next stage knows the window
            }
            else
            {
                c.Set(f.cls, ACK_PROCESSED);
                c.Set(f.acked, ack - u);
                cell = ack;
            }
            c.Set(f.una, cell);
        });
        // An ack beyond the FIN (and not beyond snd_max) acknowledges it; when the FIN
        // was not acknowledged yet, snd_una is at most the FIN, so the ACK made progress.
        c.Update(*close, conn, [&](uint64_t& cell) {
            posted(c, cell);
            const bool in = (cell & CLOSED) && seq::Lt(static_cast<uint32_t>(cell & LOW32), ack) &&
                            !seq::Lt(max, ack);
            c.Set(f.finInAck, in);
            if (in && !(cell & FIN_ACKED))
            {
                cell |= FIN_ACKED;
                c.Set(f.finNew, 1);
            }
        });
    });
    t.AddAction("read", [f, una, close, posted](RmtActionContext& c) {
        c.Set(f.una, c.Read(*una, c.Get(f.conn)));
        posted(c, c.Read(*close, c.Get(f.conn)));
    });
    t.AddAction("post", [f, una, close, posted](RmtActionContext& c) {
        // the host's doorbell: the stream's new end, and the close
        c.Set(f.una, c.Read(*una, c.Get(f.conn)));
        c.Update(*close, c.Get(f.conn), [&](uint64_t& cell) {
            cell = (cell & (FIN_ACKED | CLOSED)) | (c.Get(f.closed) ? CLOSED : 0) |
                   (c.Get(f.bufEnd) & LOW32);
            posted(c, cell);
        });
    });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
    t.AddEntry({RmtMatch::Exact(OP_SEND)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_SCAN)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_POST)}, "post");
}

void
PrestoTxProgram::BuildPeerStage()
{
    // tx.peer: the peer's window and the duplicate-ACK condition.
    const Fields f = m_f;
    const uint32_t n = m_maxConnections;
    RmtStage& st = m_pipeline->AddStage("tx.peer");
    RmtRegisterArray* peer = m_peer = &st.AddRegister("tx.peer", 64, n);
    RmtRegisterArray* mpw = m_maxPeerWindow = &st.AddRegister("tx.max_peer_window", 32, n);
    RmtTable& t = OpTable(st, "tx.peer");
    t.AddAction("window", [f, peer, mpw](RmtActionContext& c) {
        const uint64_t conn = c.Get(f.conn);
        const auto ack = static_cast<uint32_t>(c.Get(f.ack));
        const auto window = static_cast<uint32_t>(c.Get(f.window));
        if (!Processed(f, c))
        {
            if (c.Get(f.cls) == ACK_OLD)
            {
                const auto u = static_cast<uint32_t>(c.Get(f.una));
                const auto m = static_cast<uint32_t>(c.Read(*mpw, conn));
                if (seq::Lt(ack, u - m))
                {
                    c.Set(f.cls, ACK_TOO_OLD); // further back than any window offered
                }
            }
            c.Set(f.edge, c.Read(*peer, conn) & LOW32);
            return;
        }
        const uint32_t capped = std::min(window, MAX_BUFFER);
        c.Update(*peer, conn, [&](uint64_t& cell) {
            auto edge = static_cast<uint32_t>(cell & LOW32);
            const auto last = static_cast<uint32_t>(cell >> 32);
            const bool dup =
                c.Get(f.acked) == 0 && c.Get(f.payload) == 0 && c.Get(f.fin) == 0 &&
                window == last &&
                seq::Lt(static_cast<uint32_t>(c.Get(f.una)), static_cast<uint32_t>(c.Get(f.max)));
            c.Set(f.dupCond, dup);
            const uint32_t newEdge = ack + capped;
            if (seq::Lt(edge, newEdge))
            {
                edge = newEdge; // the right edge never moves left
            }
            c.Set(f.edge, edge);
            cell = (uint64_t{window} << 32) | edge;
        });
        c.Update(*mpw, conn, [&](uint64_t& cell) { cell = std::max<uint64_t>(cell, capped); });
    });
    t.AddAction("read", [f, peer](RmtActionContext& c) {
        c.Set(f.edge, c.Read(*peer, c.Get(f.conn)) & LOW32);
    });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "window");
    t.AddEntry({RmtMatch::Exact(OP_SEND)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_SCAN)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_POST)}, "read");
}

void
PrestoTxProgram::BuildDupStage()
{
    // tx.dup: consecutive duplicate ACKs.
    const Fields f = m_f;
    const uint32_t n = m_maxConnections;
    RmtStage& st = m_pipeline->AddStage("tx.dup");
    RmtRegisterArray* dup = m_dup = &st.AddRegister("tx.dup_acks", 32, n);
    RmtTable& t = OpTable(st, "tx.dup");
    t.AddAction("count", [f, dup](RmtActionContext& c) {
        if (!Processed(f, c))
        {
            return;
        }
        c.Update(*dup, c.Get(f.conn), [&](uint64_t& cell) {
            if (c.Get(f.acked) > 0)
            {
                cell = 0;
            }
            else if (c.Get(f.dupCond))
            {
                ++cell;
            }
            c.Set(f.dup, cell);
        });
    });
    t.AddAction("clear", [f, dup](RmtActionContext& c) { c.Write(*dup, c.Get(f.conn), 0); });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "count");
    t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "clear");
}

void
PrestoTxProgram::BuildRecoveryStage()
{
    // tx.recovery: the go-back-N trigger, once per window (RFC 6582's recovery point).
    const Fields f = m_f;
    const uint32_t n = m_maxConnections;
    RmtStage& st = m_pipeline->AddStage("tx.recovery");
    RmtRegisterArray* rec = m_recovery = &st.AddRegister("tx.recovery", 33, n);
    RmtTable& t = OpTable(st, "tx.recovery");
    const uint32_t threshold = m_params.dupAckThreshold;
    t.AddAction("ack", [f, rec, threshold](RmtActionContext& c) {
        if (!Processed(f, c))
        {
            return;
        }
        const auto u = static_cast<uint32_t>(c.Get(f.una));
        c.Update(*rec, c.Get(f.conn), [&](uint64_t& cell) {
            if (c.Get(f.acked) > 0 && (cell & IN_RECOVERY) &&
                seq::Lt(static_cast<uint32_t>(cell & LOW32), u))
            {
                cell &= LOW32; // snd_una passed the recovery point
            }
            if (c.Get(f.dupCond) && c.Get(f.dup) == threshold && !(cell & IN_RECOVERY))
            {
                c.Set(f.goBackN, 1);
                cell = IN_RECOVERY | c.Get(f.max);
            }
        });
    });
    t.AddAction("timeout", [f, rec](RmtActionContext& c) {
        c.Write(*rec, c.Get(f.conn), IN_RECOVERY | c.Get(f.max));
    });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
    t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "timeout");
}

void
PrestoTxProgram::BuildChooseStage()
{
    // tx.choose: no registers. What may be sent now (Choose), from what the stages in front
    // read: the send pass checks its guess; an ACK or a doorbell says whether a send pass is
    // due (meta.ready); a scan finds a sender blocked by a closed window (persist).
    const Fields f = m_f;
    RmtStage& st = m_pipeline->AddStage("tx.choose");
    RmtTable& t = OpTable(st, "tx.choose");
    auto choose = [f](RmtActionContext& c, uint32_t nxt, uint32_t& len, bool& fin) {
        return Choose(nxt,
                      static_cast<uint32_t>(c.Get(f.maxOld)),
                      static_cast<uint32_t>(c.Get(f.una)),
                      static_cast<uint32_t>(c.Get(f.edge)),
                      static_cast<uint32_t>(c.Get(f.bufEnd)),
                      c.Get(f.closed) != 0,
                      static_cast<uint32_t>(c.Get(f.cwnd)),
                      static_cast<uint32_t>(c.Get(f.mss)),
                      len,
                      fin);
    };
    t.AddAction("send", [f, choose](RmtActionContext& c) {
        uint32_t len = 0;
        bool fin = false;
        const uint32_t seqLen = choose(c, static_cast<uint32_t>(c.Get(f.nxt)), len, fin);
        c.Set(f.seq, c.Get(f.nxt));
        c.Set(f.len, len);
        c.Set(f.finOut, fin ? 1 : 0);
        c.Set(f.seqLen, seqLen);
        // tx.snd guessed a full segment (or, on a doorbell's pass, what was posted, up to
        // a full one); anything else (a short segment, a FIN, nothing) is mended by pass 2
        const bool right = seqLen == c.Get(f.guess);
        c.Set(f.commit, right && seqLen > 0 ? 1 : 0); // (a right guess of nothing: none)
        c.Set(f.mispredict, right ? 0 : 1);
    });
    t.AddAction("ack", [f, choose](RmtActionContext& c) {
        auto nxt = static_cast<uint32_t>(c.Get(f.nxt));
        const auto u = static_cast<uint32_t>(c.Get(f.una));
        if (Processed(f, c) && (c.Get(f.goBackN) || (c.Get(f.acked) > 0 && seq::Lt(nxt, u))))
        {
            c.Set(f.fixNxt, 1); // snd_nxt back (go-back-N) or up to snd_una: pass 2
            nxt = u;
        }
        uint32_t len = 0;
        bool fin = false;
        c.Set(f.ready, choose(c, nxt, len, fin) > 0 ? 1 : 0);
    });
    t.AddAction("post", [f, choose](RmtActionContext& c) {
        uint32_t len = 0;
        bool fin = false;
        c.Set(f.ready, choose(c, static_cast<uint32_t>(c.Get(f.nxt)), len, fin) > 0 ? 1 : 0);
    });
    t.AddAction("scan", [f](RmtActionContext& c) {
        const auto nxt = static_cast<uint32_t>(c.Get(f.nxt));
        c.Set(f.blocked,
              c.Get(f.una) == c.Get(f.max) &&
                      seq::Lt(nxt, static_cast<uint32_t>(c.Get(f.bufEnd))) &&
                      seq::Leq(static_cast<uint32_t>(c.Get(f.edge)), nxt)
                  ? 1
                  : 0);
    });
    t.AddEntry({RmtMatch::Exact(OP_SEND)}, "send");
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
    t.AddEntry({RmtMatch::Exact(OP_POST)}, "post");
    t.AddEntry({RmtMatch::Exact(OP_SCAN)}, "scan");
}

void
PrestoTxProgram::BuildRttSeqStage()
{
    // tx.rtt_seq: which segment is timed (Karn: none across a go-back-N).
    const Fields f = m_f;
    const uint32_t n = m_maxConnections;
    RmtStage& st = m_pipeline->AddStage("tx.rtt_seq");
    RmtRegisterArray* rs = m_rttSeq = &st.AddRegister("tx.rtt_seq", 34, n);
    RmtTable& t = OpTable(st, "tx.rtt_seq");
    t.AddAction("ack", [f, rs](RmtActionContext& c) {
        if (!Processed(f, c))
        {
            return;
        }
        const auto ack = static_cast<uint32_t>(c.Get(f.ack));
        c.Update(*rs, c.Get(f.conn), [&](uint64_t& cell) {
            if (c.Get(f.acked) > 0 && (cell & TIMING) &&
                seq::Leq(static_cast<uint32_t>(cell & LOW32), ack))
            {
                c.Set(f.sample, 1);
                c.Set(f.first, (cell & HAS_RTT) ? 0 : 1);
                cell = (cell & ~TIMING) | HAS_RTT;
            }
            if (c.Get(f.goBackN))
            {
                cell &= ~TIMING;
            }
            c.Set(f.hasRtt, (cell & HAS_RTT) ? 1 : 0);
        });
    });
    t.AddAction("send", [f, rs](RmtActionContext& c) {
        if (!c.Get(f.commit))
        {
            return; // pass 1 of a wrong guess: pass 2 does it
        }
        const auto seq = static_cast<uint32_t>(c.Get(f.seq));
        const bool retransmission = seq::Lt(seq, static_cast<uint32_t>(c.Get(f.maxOld)));
        c.Update(*rs, c.Get(f.conn), [&](uint64_t& cell) {
            if (!retransmission && !(cell & TIMING))
            {
                c.Set(f.startTiming, 1);
                cell = (cell & HAS_RTT) | TIMING | ((seq + c.Get(f.seqLen)) & LOW32);
            }
            c.Set(f.hasRtt, (cell & HAS_RTT) ? 1 : 0);
        });
    });
    auto read = [f, rs](RmtActionContext& c) {
        c.Set(f.hasRtt, (c.Read(*rs, c.Get(f.conn)) & HAS_RTT) ? 1 : 0);
    };
    t.AddAction("read", read);
    t.AddAction("timeout", [f, rs](RmtActionContext& c) {
        c.Update(*rs, c.Get(f.conn), [&](uint64_t& cell) {
            cell &= ~TIMING;
            c.Set(f.hasRtt, (cell & HAS_RTT) ? 1 : 0);
        });
    });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
    t.AddEntry({RmtMatch::Exact(OP_SEND)}, "send");
    t.AddEntry({RmtMatch::Exact(OP_SEND_FIX)}, "send");
    t.AddEntry({RmtMatch::Exact(OP_SCAN)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "timeout");
}

void
PrestoTxProgram::BuildRttStartStage()
{
    // tx.rtt_start: the timed segment's send time, and the sample.
    const Fields f = m_f;
    const uint32_t n = m_maxConnections;
    RmtStage& st = m_pipeline->AddStage("tx.rtt_start");
    RmtRegisterArray* start = m_rttStart = &st.AddRegister("tx.rtt_start", 64, n);
    RmtTable& t = OpTable(st, "tx.rtt_start");
    t.AddAction("sample", [f, start](RmtActionContext& c) {
        if (!c.Get(f.sample))
        {
            return;
        }
        const uint64_t s = c.Read(*start, c.Get(f.conn));
        const uint64_t now = c.Get(f.now);
        c.Set(f.sampleNs, now >= s ? now - s : 0);
    });
    t.AddAction("send", [f, start](RmtActionContext& c) {
        if (c.Get(f.startTiming))
        {
            c.Write(*start, c.Get(f.conn), c.Get(f.now));
        }
    });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "sample");
    t.AddEntry({RmtMatch::Exact(OP_SEND)}, "send");
    t.AddEntry({RmtMatch::Exact(OP_SEND_FIX)}, "send");
}

void
PrestoTxProgram::BuildRttStage()
{
    // tx.rtt: SRTT and RTTVAR (RFC 6298, beta = 1/4 then alpha = 1/8: shifts and adds), and
    // the backoff.
    const Fields f = m_f;
    const uint32_t n = m_maxConnections;
    RmtStage& st = m_pipeline->AddStage("tx.rtt");
    RmtRegisterArray* rtt = m_rtt = &st.AddRegister("tx.rtt", 64, n);
    RmtRegisterArray* bo = m_backoff = &st.AddRegister("tx.backoff", 8, n);
    RmtTable& t = OpTable(st, "tx.rtt");
    auto read = [f, rtt, bo](RmtActionContext& c) {
        const uint64_t v = c.Read(*rtt, c.Get(f.conn));
        c.Set(f.srtt, v & LOW32);
        c.Set(f.rttvar, v >> 32);
        c.Set(f.backoff, c.Read(*bo, c.Get(f.conn)));
    };
    t.AddAction("ack", [f, rtt, bo, read](RmtActionContext& c) {
        if (!Processed(f, c))
        {
            return;
        }
        if (!c.Get(f.sample))
        {
            read(c);
            return;
        }
        const uint64_t s = c.Get(f.sampleNs);
        c.Update(*rtt, c.Get(f.conn), [&](uint64_t& cell) {
            uint64_t srtt = cell & LOW32;
            uint64_t var = cell >> 32;
            if (c.Get(f.first))
            {
                srtt = s;
                var = s >> 1;
            }
            else
            {
                const uint64_t err = srtt > s ? srtt - s : s - srtt;
                var = ((var << 1) + var + err) >> 2;  // (3 RTTVAR + |err|) / 4
                srtt = ((srtt << 3) - srtt + s) >> 3; // (7 SRTT + sample) / 8
            }
            c.Set(f.srtt, srtt);
            c.Set(f.rttvar, var);
            cell = (var << 32) | (srtt & LOW32);
        });
        c.Write(*bo, c.Get(f.conn), 0); // Karn: a valid sample ends the backoff
        c.Set(f.backoff, 0);
    });
    t.AddAction("read", read);
    t.AddAction("timeout", [f, rtt, bo](RmtActionContext& c) {
        const uint64_t v = c.Read(*rtt, c.Get(f.conn));
        c.Set(f.srtt, v & LOW32);
        c.Set(f.rttvar, v >> 32);
        c.Update(*bo, c.Get(f.conn), [&](uint64_t& cell) {
            cell = std::min<uint64_t>(cell + 1, OffloadTcpConnection::MAX_BACKOFF);
            c.Set(f.backoff, cell);
        });
    });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
    t.AddEntry({RmtMatch::Exact(OP_SEND)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_SEND_FIX)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_SCAN)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "timeout");
}

void
PrestoTxProgram::BuildRtoStage()
{
    // tx.rto: the retransmission timer and the persist timer (armed, backoff, deadline); a
    // scan packet past a deadline times out or asks for a probe. The last stage also sends
    // the packets that need a second pass back.
    const Fields f = m_f;
    const uint32_t n = m_maxConnections;
    const Params prm = m_params;
    RmtStage& st = m_pipeline->AddStage("tx.rto");
    RmtRegisterArray* rto = m_rto = &st.AddRegister("tx.rto", 64, n);
    RmtRegisterArray* persist = m_persist = &st.AddRegister("tx.persist", 64, n);
    RmtTable& t = OpTable(st, "tx.rto");
    auto rtoNs = [f, prm](const RmtActionContext& c) {
        return Rto(prm, c.Get(f.hasRtt) != 0, c.Get(f.srtt), c.Get(f.rttvar), c.Get(f.backoff));
    };
    auto deadline = [f, rtoNs](const RmtActionContext& c) {
        return ARMED | ((c.Get(f.now) + rtoNs(c)) & ~ARMED);
    };
    t.AddAction("ack", [f, rto, deadline](RmtActionContext& c) {
        if (Processed(f, c) && c.Get(f.acked) > 0)
        {
            // RFC 6298 (5.2), (5.3): stop when all is acknowledged, else restart
            c.Update(*rto, c.Get(f.conn), [&](uint64_t& cell) {
                cell = c.Get(f.una) == c.Get(f.max) ? (cell & ~ARMED) : deadline(c);
            });
        }
        if (c.Get(f.fixNxt))
        {
            c.Set(f.op, OP_ACK_FIX);
            c.Recirculate();
        }
    });
    t.AddAction("send", [f, rto, persist, deadline](RmtActionContext& c) {
        if (c.Get(f.commit))
        {
            c.Update(*rto, c.Get(f.conn), [&](uint64_t& cell) {
                if (!(cell & ARMED))
                {
                    cell = deadline(c); // RFC 6298 (5.1)
                }
            });
            // data left: the peer's window is open, no probe is due
            c.Update(*persist, c.Get(f.conn), [](uint64_t& cell) { cell &= PERSIST_TIME; });
        }
        if (c.Get(f.op) == OP_SEND && c.Get(f.mispredict))
        {
            c.Set(f.op, OP_SEND_FIX);
            c.Recirculate();
        }
    });
    t.AddAction("scan", [f, rto, persist, prm, rtoNs](RmtActionContext& c) {
        const auto u = static_cast<uint32_t>(c.Get(f.una));
        const auto m = static_cast<uint32_t>(c.Get(f.max));
        const uint64_t now = c.Get(f.now);
        c.Update(*rto, c.Get(f.conn), [&](uint64_t& cell) {
            if ((cell & ARMED) && seq::Lt(u, m) && now >= (cell & ~ARMED))
            {
                // expired: pass 2 goes back N and restarts the timer with the new backoff
                c.Set(f.timeout, 1);
                c.Set(f.op, OP_TIMEOUT_COMMIT);
                c.Recirculate();
            }
            else if ((cell & ARMED) && u == m)
            {
                cell &= ~ARMED;
            }
        });
        // Persist: nothing in flight, data waiting, the peer's window closed. The probe
        // interval is the RTO shifted by the probe backoff (a shift, as the RTO's).
        c.Update(*persist, c.Get(f.conn), [&](uint64_t& cell) {
            const uint64_t time = cell & PERSIST_TIME;
            uint64_t backoff = (cell & ~ARMED) >> PERSIST_SHIFT;
            if (!c.Get(f.blocked))
            {
                cell = time; // disarmed, backoff 0
            }
            else if (!(cell & ARMED))
            {
                cell = ARMED | (backoff << PERSIST_SHIFT) | ((now + rtoNs(c)) & PERSIST_TIME);
            }
            else if (now >= time)
            {
                c.Set(f.probe, 1);
                backoff = std::min<uint64_t>(backoff + 1, OffloadTcpConnection::MAX_BACKOFF);
                const uint64_t interval = std::min(prm.maxRtoNs, rtoNs(c) << backoff);
                cell = ARMED | (backoff << PERSIST_SHIFT) | ((now + interval) & PERSIST_TIME);
            }
        });
    });
    t.AddAction("restart", [f, rto, deadline](RmtActionContext& c) {
        c.Write(*rto, c.Get(f.conn), deadline(c));
    });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
    t.AddEntry({RmtMatch::Exact(OP_SEND)}, "send");
    t.AddEntry({RmtMatch::Exact(OP_SEND_FIX)}, "send");
    t.AddEntry({RmtMatch::Exact(OP_SCAN)}, "scan");
    t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "restart");
}

} // namespace ns3
