/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-tx-program.h"

#include "ns3/offload-reassembly.h"
#include "ns3/offload-seq.h"
#include "ns3/presto-input-error.h"
#include "ns3/rmt-program-checks.h"

#include <algorithm>
#include <string>

// Pure logic with no ns-3 dependency (no NS_LOG): the Presto NIC runs every ACK, every
// transmitted segment and every timer-scan visit through it, and the unit tests compile it
// alone.

namespace ns3
{

namespace
{

constexpr uint32_t MAX_BUFFER = ReassemblyTracker::MAX_WINDOW; //!< the data path's window cap
constexpr uint64_t CLOSED = uint64_t{1} << 33;                 //!< tx.close: FIN requested
constexpr uint64_t FIN_ACKED = uint64_t{1} << 32;              //!< tx.close: FIN acknowledged
constexpr uint64_t IN_RECOVERY = uint64_t{1} << 32;            //!< tx.recovery
constexpr uint64_t HAS_RTT = uint64_t{1} << 33;                //!< tx.rtt_seq
constexpr uint64_t TIMING = uint64_t{1} << 32;                 //!< tx.rtt_seq
constexpr uint64_t ARMED = uint64_t{1} << 63;                  //!< tx.rto, tx.persist
constexpr uint64_t LOW32 = 0xffffffffull;
constexpr uint32_t PERSIST_SHIFT = 58;                                //!< tx.persist: the backoff
constexpr uint64_t PERSIST_TIME = (uint64_t{1} << PERSIST_SHIFT) - 1; //!< its deadline

const char* WHO = "Presto tx program";

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

} // namespace

PrestoTxProgram::PrestoTxProgram(uint32_t maxConnections,
                                 const Params& params,
                                 const RmtPipelineConfig& config)
    : m_maxConnections(maxConnections),
      m_params(params)
{
    RmtProgramChecks::Connections(WHO, maxConnections);
    if (params.dupAckThreshold == 0 || params.maxRtoNs > LOW32 ||
        params.minRtoNs > params.maxRtoNs || params.initialRtoNs > LOW32)
    {
        throw PrestoInputError(std::string(WHO) +
                               ": the duplicate-ACK threshold must be >= 1 and the RTO bounds "
                               "0 <= min <= max < 2^32 ns (the RTT registers hold 32 bits)");
    }
    RmtProgramChecks::Stages(WHO, STAGES, config);
    RmtProgramChecks::OneRecirculation(WHO,
                                       config,
                                       "an expired timer, a mispredicted segment and a "
                                       "go-back-N each take a second pass");
    try
    {
        RmtPipelineConfig cfg = config;
        cfg.name = config.name + ".tx";
        m_pipeline = std::make_unique<RmtPipeline>(cfg);
        DeclareFields();
        BuildStages();
        m_pipeline->Finalize();
    }
    catch (const PrestoInputError& err)
    {
        throw PrestoInputError(std::string(WHO) + " for " + std::to_string(maxConnections) +
                               " connections does not fit: " + err.what());
    }
    m_phv = std::make_unique<RmtPhv>(m_pipeline->NewPhv());
    m_exec.hits.reserve(2 * STAGES + 2);
}

PrestoTxProgram::~PrestoTxProgram() = default;

void
PrestoTxProgram::DeclareFields()
{
    RmtPipeline& p = *m_pipeline;
    m_f.conn = p.AddField("hdr.conn_id", RmtProgramChecks::BitsFor(m_maxConnections));
    m_f.op = p.AddField("meta.op", 3);
    m_f.now = p.AddField("meta.ingress_ns", 64);
    m_f.ack = p.AddField("hdr.ack", 32);
    m_f.window = p.AddField("hdr.window", 32);
    m_f.payload = p.AddField("hdr.payload_len", 32);
    m_f.fin = p.AddField("hdr.fin", 1);
    m_f.cwnd = p.AddField("meta.cwnd", 32);
    m_f.mss = p.AddField("meta.mss", 16);
    m_f.posted = p.AddField("meta.posted", 1);
    m_f.postedEnd = p.AddField("meta.posted_end", 32);
    m_f.guess = p.AddField("meta.guess", 32);
    m_f.seq = p.AddField("hdr.seq", 32);
    m_f.len = p.AddField("meta.len", 32);
    m_f.finOut = p.AddField("meta.fin_out", 1);
    m_f.seqLen = p.AddField("meta.seq_len", 32);
    m_f.commit = p.AddField("meta.commit", 1);
    m_f.mispredict = p.AddField("meta.mispredict", 1);
    m_f.nxt = p.AddField("meta.snd_nxt", 32);
    m_f.max = p.AddField("meta.snd_max", 32);
    m_f.maxOld = p.AddField("meta.snd_max_old", 32);
    m_f.una = p.AddField("meta.snd_una", 32);
    m_f.bufEnd = p.AddField("meta.buf_end", 32);
    m_f.closed = p.AddField("meta.closed", 1);
    m_f.edge = p.AddField("meta.peer_edge", 32);
    m_f.cls = p.AddField("meta.ack_class", 2);
    m_f.acked = p.AddField("meta.acked", 32);
    m_f.finInAck = p.AddField("meta.fin_in_ack", 1);
    m_f.finNew = p.AddField("meta.fin_new", 1);
    m_f.dupCond = p.AddField("meta.dup_ack", 1);
    m_f.dup = p.AddField("meta.dup_acks", 32);
    m_f.goBackN = p.AddField("meta.go_back_n", 1);
    m_f.fixNxt = p.AddField("meta.fix_nxt", 1);
    m_f.ready = p.AddField("meta.ready", 1);
    m_f.sample = p.AddField("meta.rtt_sample", 1);
    m_f.first = p.AddField("meta.rtt_first", 1);
    m_f.hasRtt = p.AddField("meta.has_rtt", 1);
    m_f.startTiming = p.AddField("meta.start_timing", 1);
    m_f.sampleNs = p.AddField("meta.sample_ns", 64);
    m_f.srtt = p.AddField("meta.srtt_ns", 32);
    m_f.rttvar = p.AddField("meta.rttvar_ns", 32);
    m_f.backoff = p.AddField("meta.backoff", 5);
    m_f.timeout = p.AddField("meta.timeout", 1);
    m_f.blocked = p.AddField("meta.blocked", 1);
    m_f.probe = p.AddField("meta.probe", 1);
}

void
PrestoTxProgram::BuildStages()
{
    RmtPipeline& p = *m_pipeline;
    const Fields f = m_f;
    const Params prm = m_params;
    const uint32_t n = m_maxConnections;
    auto processed = [f](const RmtActionContext& c) {
        return c.Get(f.op) == OP_ACK && c.Get(f.cls) == ACK_PROCESSED;
    };
    auto opTable = [f](RmtStage& st, const std::string& name) -> RmtTable& {
        return st.AddTable(name, {{f.op, RmtMatchKind::EXACT}}, 8);
    };
    auto unpack = [f](RmtActionContext& c, uint64_t cell) {
        c.Set(f.nxt, cell & LOW32);
        c.Set(f.max, cell >> 32);
        c.Set(f.maxOld, cell >> 32);
    };
    auto pack = [](uint32_t nxt, uint32_t max) { return (uint64_t{max} << 32) | nxt; };

    // tx.snd: snd_nxt and snd_max in one register. Every operation reads them first: an ACK
    // is acceptable only up to snd_max. A send pass cannot know its segment here (the windows
    // and the send buffer come later), so it writes optimistically: a full segment from
    // snd_nxt. tx.choose checks the guess; a wrong one is mended by a second pass.
    {
        RmtStage& st = p.AddStage("tx.snd");
        RmtRegisterArray* snd = m_snd = &st.AddRegister("tx.snd", 64, n);
        RmtTable& t = opTable(st, "tx.snd");
        t.AddAction("read", [f, snd, unpack](RmtActionContext& c) {
            unpack(c, c.Read(*snd, c.Get(f.conn)));
        });
        t.AddAction("speculate", [f, snd, unpack, pack](RmtActionContext& c) {
            c.Update(*snd, c.Get(f.conn), [&](uint64_t& cell) {
                unpack(c, cell);
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
                cell = pack(end, seq::Lt(max, end) ? end : max);
            });
        });
        t.AddAction("mend", [f, snd, pack](RmtActionContext& c) {
            // pass 2 of a wrong guess: the segment tx.choose found (maybe none)
            const auto nxt = static_cast<uint32_t>(c.Get(f.nxt));
            const auto maxOld = static_cast<uint32_t>(c.Get(f.maxOld));
            const uint32_t end = nxt + static_cast<uint32_t>(c.Get(f.seqLen));
            const uint32_t max = seq::Lt(maxOld, end) ? end : maxOld;
            c.Write(*snd, c.Get(f.conn), pack(end, max));
            c.Set(f.max, max);
            c.Set(f.commit, c.Get(f.seqLen) > 0 ? 1 : 0);
        });
        t.AddAction("rewind", [f, snd, pack](RmtActionContext& c) {
            // pass 2 of a timeout, a go-back-N or an ACK beyond snd_nxt: snd_nxt = snd_una
            c.Update(*snd, c.Get(f.conn), [&](uint64_t& cell) {
                const auto max = static_cast<uint32_t>(cell >> 32);
                cell = pack(static_cast<uint32_t>(c.Get(f.una)), max);
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

    // tx.una: classify the ACK, advance snd_una; what the host posted (the stream's end, and
    // whether a FIN follows it).
    {
        RmtStage& st = p.AddStage("tx.una");
        RmtRegisterArray* una = m_una = &st.AddRegister("tx.snd_una", 32, n);
        RmtRegisterArray* close = m_close = &st.AddRegister("tx.close", 34, n);
        RmtTable& t = opTable(st, "tx.una");
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
                const bool in = (cell & CLOSED) &&
                                seq::Lt(static_cast<uint32_t>(cell & LOW32), ack) &&
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

    // tx.peer: the peer's window and the duplicate-ACK condition.
    {
        RmtStage& st = p.AddStage("tx.peer");
        RmtRegisterArray* peer = m_peer = &st.AddRegister("tx.peer", 64, n);
        RmtRegisterArray* mpw = m_maxPeerWindow = &st.AddRegister("tx.max_peer_window", 32, n);
        RmtTable& t = opTable(st, "tx.peer");
        t.AddAction("window", [f, peer, mpw, processed](RmtActionContext& c) {
            const uint64_t conn = c.Get(f.conn);
            const auto ack = static_cast<uint32_t>(c.Get(f.ack));
            const auto window = static_cast<uint32_t>(c.Get(f.window));
            if (!processed(c))
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
                const bool dup = c.Get(f.acked) == 0 && c.Get(f.payload) == 0 &&
                                 c.Get(f.fin) == 0 && window == last &&
                                 seq::Lt(static_cast<uint32_t>(c.Get(f.una)),
                                         static_cast<uint32_t>(c.Get(f.max)));
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

    // tx.dup: consecutive duplicate ACKs.
    {
        RmtStage& st = p.AddStage("tx.dup");
        RmtRegisterArray* dup = m_dup = &st.AddRegister("tx.dup_acks", 32, n);
        RmtTable& t = opTable(st, "tx.dup");
        t.AddAction("count", [f, dup, processed](RmtActionContext& c) {
            if (!processed(c))
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

    // tx.recovery: the go-back-N trigger, once per window (RFC 6582's recovery point).
    {
        RmtStage& st = p.AddStage("tx.recovery");
        RmtRegisterArray* rec = m_recovery = &st.AddRegister("tx.recovery", 33, n);
        RmtTable& t = opTable(st, "tx.recovery");
        const uint32_t threshold = prm.dupAckThreshold;
        t.AddAction("ack", [f, rec, processed, threshold](RmtActionContext& c) {
            if (!processed(c))
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

    // tx.choose: no registers. What may be sent now (Choose), from what the stages in front
    // read: the send pass checks its guess; an ACK or a doorbell says whether a send pass is
    // due (meta.ready); a scan finds a sender blocked by a closed window (persist).
    {
        RmtStage& st = p.AddStage("tx.choose");
        RmtTable& t = opTable(st, "tx.choose");
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
        t.AddAction("ack", [f, processed, choose](RmtActionContext& c) {
            auto nxt = static_cast<uint32_t>(c.Get(f.nxt));
            const auto u = static_cast<uint32_t>(c.Get(f.una));
            if (processed(c) && (c.Get(f.goBackN) || (c.Get(f.acked) > 0 && seq::Lt(nxt, u))))
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

    // tx.rtt_seq: which segment is timed (Karn: none across a go-back-N).
    {
        RmtStage& st = p.AddStage("tx.rtt_seq");
        RmtRegisterArray* rs = m_rttSeq = &st.AddRegister("tx.rtt_seq", 34, n);
        RmtTable& t = opTable(st, "tx.rtt_seq");
        t.AddAction("ack", [f, rs, processed](RmtActionContext& c) {
            if (!processed(c))
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

    // tx.rtt_start: the timed segment's send time, and the sample.
    {
        RmtStage& st = p.AddStage("tx.rtt_start");
        RmtRegisterArray* start = m_rttStart = &st.AddRegister("tx.rtt_start", 64, n);
        RmtTable& t = opTable(st, "tx.rtt_start");
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

    // tx.rtt: SRTT and RTTVAR (RFC 6298, beta = 1/4 then alpha = 1/8: shifts and adds), and
    // the backoff.
    {
        RmtStage& st = p.AddStage("tx.rtt");
        RmtRegisterArray* rtt = m_rtt = &st.AddRegister("tx.rtt", 64, n);
        RmtRegisterArray* bo = m_backoff = &st.AddRegister("tx.backoff", 8, n);
        RmtTable& t = opTable(st, "tx.rtt");
        auto read = [f, rtt, bo](RmtActionContext& c) {
            const uint64_t v = c.Read(*rtt, c.Get(f.conn));
            c.Set(f.srtt, v & LOW32);
            c.Set(f.rttvar, v >> 32);
            c.Set(f.backoff, c.Read(*bo, c.Get(f.conn)));
        };
        t.AddAction("ack", [f, rtt, bo, processed, read](RmtActionContext& c) {
            if (!processed(c))
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

    // tx.rto: the retransmission timer and the persist timer (armed, backoff, deadline); a
    // scan packet past a deadline times out or asks for a probe. The last stage also sends
    // the packets that need a second pass back.
    {
        RmtStage& st = p.AddStage("tx.rto");
        RmtRegisterArray* rto = m_rto = &st.AddRegister("tx.rto", 64, n);
        RmtRegisterArray* persist = m_persist = &st.AddRegister("tx.persist", 64, n);
        RmtTable& t = opTable(st, "tx.rto");
        auto rtoNs = [f, prm](const RmtActionContext& c) {
            return Rto(prm, c.Get(f.hasRtt) != 0, c.Get(f.srtt), c.Get(f.rttvar), c.Get(f.backoff));
        };
        auto deadline = [f, rtoNs](const RmtActionContext& c) {
            return ARMED | ((c.Get(f.now) + rtoNs(c)) & ~ARMED);
        };
        t.AddAction("ack", [f, rto, processed, deadline](RmtActionContext& c) {
            if (processed(c) && c.Get(f.acked) > 0)
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
}

void
PrestoTxProgram::CheckConn(uint32_t conn, const char* where) const
{
    if (conn >= m_maxConnections)
    {
        throw PrestoInputError(std::string(WHO) + ": " + where + ": connection " +
                               std::to_string(conn) + " is not below " +
                               std::to_string(m_maxConnections));
    }
}

void
PrestoTxProgram::Start(uint32_t conn, uint8_t op, uint64_t nowNs)
{
    CheckConn(conn, "a packet");
    RmtPhv& phv = *m_phv;
    phv.Clear();
    phv.Set(m_f.conn, conn);
    phv.Set(m_f.op, op);
    phv.Set(m_f.now, nowNs);
    phv.Set(m_f.mss, conn < m_mss.size() ? m_mss[conn] : 0);
}

void
PrestoTxProgram::Run()
{
    m_pipeline->Execute(*m_phv, m_exec);
    m_recirculations += m_exec.passes - 1;
}

void
PrestoTxProgram::Init(uint32_t conn, const OffloadSendState& s, uint32_t mss)
{
    CheckConn(conn, "Init");
    if (mss == 0 || mss > 65535)
    {
        throw PrestoInputError(std::string(WHO) + ": Init: connection " + std::to_string(conn) +
                               ": the MSS must be 1 to 65535 bytes, not " + std::to_string(mss));
    }
    // the connection table's entry carries the MSS as action data (meta.mss); grown with the
    // slots in use, as the register arrays are, not allocated for MaxConnections up front
    if (conn >= m_mss.size())
    {
        m_mss.resize(
            std::min<size_t>(std::max<size_t>(conn + 1, 2 * m_mss.size()), m_maxConnections),
            0);
    }
    m_mss[conn] = static_cast<uint16_t>(mss);
    // connection setup is the host's: control-plane writes
    m_snd->ControlWrite(conn, (uint64_t{s.sndMax} << 32) | s.sndNxt);
    m_una->ControlWrite(conn, s.sndUna);
    m_close->ControlWrite(conn,
                          (s.closeRequested ? CLOSED : 0) | s.sndBufEnd |
                              (s.finAcked ? FIN_ACKED : 0));
    m_peer->ControlWrite(conn, (uint64_t{s.peerWindowLast} << 32) | s.peerRightEdge);
    m_maxPeerWindow->ControlWrite(conn, s.maxPeerWindow);
    m_dup->ControlWrite(conn, s.dupAcks);
    m_recovery->ControlWrite(conn, (s.inRecovery ? IN_RECOVERY : 0) | s.recover);
    m_rttSeq->ControlWrite(conn, (s.hasRtt ? HAS_RTT : 0) | (s.rttTiming ? TIMING : 0) | s.rttSeq);
    m_rttStart->ControlWrite(conn, s.rttStartNs);
    m_rtt->ControlWrite(conn,
                        (static_cast<uint64_t>(s.rttVarNs) << 32) |
                            (static_cast<uint64_t>(s.srttNs) & LOW32));
    m_backoff->ControlWrite(conn, s.backoff);
    m_rto->ControlWrite(conn, (s.rtoArmed ? ARMED : 0) | (s.rtoDeadlineNs & ~ARMED));
    m_persist->ControlWrite(conn,
                            (s.persistArmed ? ARMED : 0) |
                                (uint64_t{s.persistBackoff} << PERSIST_SHIFT) |
                                (s.persistDeadlineNs & PERSIST_TIME));
}

bool
PrestoTxProgram::Post(uint32_t conn, uint32_t sndBufEnd, bool closed, uint32_t cwnd, uint64_t nowNs)
{
    Start(conn, OP_POST, nowNs);
    m_phv->Set(m_f.bufEnd, sndBufEnd);
    m_phv->Set(m_f.closed, closed ? 1 : 0);
    m_phv->Set(m_f.cwnd, cwnd);
    Run();
    return m_phv->Get(m_f.ready) != 0;
}

PrestoTxProgram::AckResult
PrestoTxProgram::OnAck(uint32_t conn,
                       uint32_t ack,
                       uint32_t window,
                       uint32_t payloadLen,
                       bool fin,
                       uint32_t cwnd,
                       uint64_t nowNs)
{
    Start(conn, OP_ACK, nowNs);
    RmtPhv& phv = *m_phv;
    phv.Set(m_f.ack, ack);
    phv.Set(m_f.window, window);
    phv.Set(m_f.payload, payloadLen);
    phv.Set(m_f.fin, fin ? 1 : 0);
    phv.Set(m_f.cwnd, cwnd);
    Run();
    AckResult r;
    r.cls = static_cast<AckClass>(phv.Get(m_f.cls));
    r.ready = phv.Get(m_f.ready) != 0;
    if (r.cls == ACK_PROCESSED)
    {
        const uint64_t acked = phv.Get(m_f.acked);
        r.dataAcked = static_cast<uint32_t>(acked > 0 ? acked - phv.Get(m_f.finInAck) : 0);
        r.finAcked = phv.Get(m_f.finNew) != 0;
        r.goBackN = phv.Get(m_f.goBackN) != 0;
    }
    return r;
}

PrestoTxProgram::SendResult
PrestoTxProgram::Send(uint32_t conn,
                      uint32_t cwnd,
                      uint64_t nowNs,
                      std::optional<uint32_t> postedEnd)
{
    Start(conn, OP_SEND, nowNs);
    RmtPhv& phv = *m_phv;
    phv.Set(m_f.cwnd, cwnd);
    if (postedEnd)
    {
        phv.Set(m_f.posted, 1);
        phv.Set(m_f.postedEnd, *postedEnd);
    }
    Run();
    SendResult r;
    r.seqLen = static_cast<uint32_t>(phv.Get(m_f.seqLen));
    r.seq = static_cast<uint32_t>(phv.Get(m_f.seq));
    r.len = static_cast<uint32_t>(phv.Get(m_f.len));
    r.fin = phv.Get(m_f.finOut) != 0;
    r.retransmission = seq::Lt(r.seq, static_cast<uint32_t>(phv.Get(m_f.maxOld)));
    return r;
}

OffloadTimerDecision
PrestoTxProgram::OnTimerScan(uint32_t conn, uint64_t nowNs)
{
    Start(conn, OP_SCAN, nowNs);
    Run();
    OffloadTimerDecision d;
    d.timeout = m_phv->Get(m_f.timeout) != 0;
    d.probe = m_phv->Get(m_f.probe) != 0;
    return d;
}

OffloadSendState
PrestoTxProgram::GetState(uint32_t conn) const
{
    CheckConn(conn, "GetState");
    OffloadSendState s;
    const uint64_t snd = m_snd->ControlRead(conn);
    s.sndNxt = static_cast<uint32_t>(snd & LOW32);
    s.sndMax = static_cast<uint32_t>(snd >> 32);
    s.sndUna = static_cast<uint32_t>(m_una->ControlRead(conn));
    const uint64_t close = m_close->ControlRead(conn);
    s.closeRequested = (close & CLOSED) != 0;
    s.finAcked = (close & FIN_ACKED) != 0;
    s.sndBufEnd = static_cast<uint32_t>(close & LOW32);
    const uint64_t peer = m_peer->ControlRead(conn);
    s.peerRightEdge = static_cast<uint32_t>(peer & LOW32);
    s.peerWindowLast = static_cast<uint32_t>(peer >> 32);
    s.maxPeerWindow = static_cast<uint32_t>(m_maxPeerWindow->ControlRead(conn));
    s.dupAcks = static_cast<uint32_t>(m_dup->ControlRead(conn));
    const uint64_t rec = m_recovery->ControlRead(conn);
    s.inRecovery = (rec & IN_RECOVERY) != 0;
    s.recover = static_cast<uint32_t>(rec & LOW32);
    const uint64_t rs = m_rttSeq->ControlRead(conn);
    s.hasRtt = (rs & HAS_RTT) != 0;
    s.rttTiming = (rs & TIMING) != 0;
    s.rttSeq = static_cast<uint32_t>(rs & LOW32);
    s.rttStartNs = m_rttStart->ControlRead(conn);
    const uint64_t rtt = m_rtt->ControlRead(conn);
    s.srttNs = static_cast<int64_t>(rtt & LOW32);
    s.rttVarNs = static_cast<int64_t>(rtt >> 32);
    s.backoff = static_cast<uint32_t>(m_backoff->ControlRead(conn));
    const uint64_t rto = m_rto->ControlRead(conn);
    s.rtoArmed = (rto & ARMED) != 0;
    s.rtoDeadlineNs = rto & ~ARMED;
    const uint64_t persist = m_persist->ControlRead(conn);
    s.persistArmed = (persist & ARMED) != 0;
    s.persistBackoff = static_cast<uint32_t>((persist & ~ARMED) >> PERSIST_SHIFT);
    s.persistDeadlineNs = persist & PERSIST_TIME;
    return s;
}

uint64_t
PrestoTxProgram::GetRecirculations() const
{
    return m_recirculations;
}

const RmtExecution&
PrestoTxProgram::GetLastExecution() const
{
    return m_exec;
}

RmtResourceReport
PrestoTxProgram::GetResourceReport() const
{
    return m_pipeline->GetResourceReport();
}

uint32_t
PrestoTxProgram::GetMaxConnections() const
{
    return m_maxConnections;
}

uint32_t
PrestoTxProgram::GetMss(uint32_t conn) const
{
    CheckConn(conn, "GetMss");
    return conn < m_mss.size() ? m_mss[conn] : 0;
}

} // namespace ns3
