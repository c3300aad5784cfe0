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
constexpr uint64_t ARMED = uint64_t{1} << 63;                  //!< tx.rto
constexpr uint64_t LOW32 = 0xffffffffull;

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
    RmtProgramChecks::OneRecirculation(WHO, config, "an expired timer recirculates once");
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
    m_f.seq = p.AddField("hdr.seq", 32);
    m_f.seqLen = p.AddField("meta.seq_len", 32);
    m_f.max = p.AddField("meta.snd_max", 32);
    m_f.maxOld = p.AddField("meta.snd_max_old", 32);
    m_f.una = p.AddField("meta.snd_una", 32);
    m_f.cls = p.AddField("meta.ack_class", 2);
    m_f.acked = p.AddField("meta.acked", 32);
    m_f.finInAck = p.AddField("meta.fin_in_ack", 1);
    m_f.finNew = p.AddField("meta.fin_new", 1);
    m_f.dupCond = p.AddField("meta.dup_ack", 1);
    m_f.dup = p.AddField("meta.dup_acks", 32);
    m_f.goBackN = p.AddField("meta.go_back_n", 1);
    m_f.sample = p.AddField("meta.rtt_sample", 1);
    m_f.first = p.AddField("meta.rtt_first", 1);
    m_f.hasRtt = p.AddField("meta.has_rtt", 1);
    m_f.startTiming = p.AddField("meta.start_timing", 1);
    m_f.sampleNs = p.AddField("meta.sample_ns", 64);
    m_f.srtt = p.AddField("meta.srtt_ns", 32);
    m_f.rttvar = p.AddField("meta.rttvar_ns", 32);
    m_f.backoff = p.AddField("meta.backoff", 5);
    m_f.timeout = p.AddField("meta.timeout", 1);
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
        return st.AddTable(name, {{f.op, RmtMatchKind::EXACT}}, 4);
    };

    // tx.max: snd_max. Read by everything; a transmission raises it.
    {
        RmtStage& st = p.AddStage("tx.max");
        RmtRegisterArray* max = m_max = &st.AddRegister("tx.snd_max", 32, n);
        RmtTable& t = opTable(st, "tx.max");
        t.AddAction("read", [f, max](RmtActionContext& c) {
            const uint64_t v = c.Read(*max, c.Get(f.conn));
            c.Set(f.max, v);
            c.Set(f.maxOld, v);
        });
        t.AddAction("raise", [f, max](RmtActionContext& c) {
            const auto end = static_cast<uint32_t>(c.Get(f.seq) + c.Get(f.seqLen));
            c.Update(*max, c.Get(f.conn), [&](uint64_t& cell) {
                c.Set(f.maxOld, cell);
                if (seq::Lt(static_cast<uint32_t>(cell), end))
                {
                    cell = end;
                }
                c.Set(f.max, cell);
            });
        });
        t.AddEntry({RmtMatch::Exact(OP_ACK)}, "read");
        t.AddEntry({RmtMatch::Exact(OP_TX)}, "raise");
        t.AddEntry({RmtMatch::Exact(OP_SCAN)}, "read");
        t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "read");
    }

    // tx.una: classify the ACK, advance snd_una; the FIN's place in the stream.
    {
        RmtStage& st = p.AddStage("tx.una");
        RmtRegisterArray* una = m_una = &st.AddRegister("tx.snd_una", 32, n);
        RmtRegisterArray* close = m_close = &st.AddRegister("tx.close", 34, n);
        RmtTable& t = opTable(st, "tx.una");
        t.AddAction("ack", [f, una, close](RmtActionContext& c) {
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
        t.AddAction("read",
                    [f, una](RmtActionContext& c) { c.Set(f.una, c.Read(*una, c.Get(f.conn))); });
        t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
        t.AddEntry({RmtMatch::Exact(OP_SCAN)}, "read");
        t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "read");
    }

    // tx.peer: the peer's window and the duplicate-ACK condition.
    {
        RmtStage& st = p.AddStage("tx.peer");
        RmtRegisterArray* peer = m_peer = &st.AddRegister("tx.peer", 64, n);
        RmtRegisterArray* mpw = m_maxPeerWindow = &st.AddRegister("tx.max_peer_window", 32, n);
        RmtTable& t = st.AddTable("tx.peer", {}, 0);
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
                cell = (uint64_t{window} << 32) | edge;
            });
            c.Update(*mpw, conn, [&](uint64_t& cell) { cell = std::max<uint64_t>(cell, capped); });
        });
        t.SetDefaultAction("window");
        t.SetGate([f](const RmtPhv& phv) { return phv.Get(f.op) == OP_ACK; });
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

    // tx.nxt: snd_nxt.
    {
        RmtStage& st = p.AddStage("tx.nxt");
        RmtRegisterArray* nxt = m_nxt = &st.AddRegister("tx.snd_nxt", 32, n);
        RmtTable& t = opTable(st, "tx.nxt");
        t.AddAction("ack", [f, nxt, processed](RmtActionContext& c) {
            if (!processed(c))
            {
                return;
            }
            const auto u = static_cast<uint32_t>(c.Get(f.una));
            c.Update(*nxt, c.Get(f.conn), [&](uint64_t& cell) {
                if (c.Get(f.goBackN) ||
                    (c.Get(f.acked) > 0 && seq::Lt(static_cast<uint32_t>(cell), u)))
                {
                    cell = u;
                }
            });
        });
        t.AddAction("send", [f, nxt](RmtActionContext& c) {
            c.Write(*nxt, c.Get(f.conn), (c.Get(f.seq) + c.Get(f.seqLen)) & LOW32);
        });
        t.AddAction("rewind",
                    [f, nxt](RmtActionContext& c) { c.Write(*nxt, c.Get(f.conn), c.Get(f.una)); });
        t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
        t.AddEntry({RmtMatch::Exact(OP_TX)}, "send");
        t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "rewind");
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
        t.AddAction("timeout", [f, rs](RmtActionContext& c) {
            c.Update(*rs, c.Get(f.conn), [&](uint64_t& cell) {
                cell &= ~TIMING;
                c.Set(f.hasRtt, (cell & HAS_RTT) ? 1 : 0);
            });
        });
        t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
        t.AddEntry({RmtMatch::Exact(OP_TX)}, "send");
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
        t.AddEntry({RmtMatch::Exact(OP_TX)}, "send");
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
        t.AddEntry({RmtMatch::Exact(OP_TX)}, "read");
        t.AddEntry({RmtMatch::Exact(OP_TIMEOUT_COMMIT)}, "timeout");
    }

    // tx.rto: the retransmission timer; a scan packet past its deadline times out.
    {
        RmtStage& st = p.AddStage("tx.rto");
        RmtRegisterArray* rto = m_rto = &st.AddRegister("tx.rto", 64, n);
        RmtTable& t = opTable(st, "tx.rto");
        auto deadline = [f, prm](const RmtActionContext& c) {
            const uint64_t r =
                Rto(prm, c.Get(f.hasRtt) != 0, c.Get(f.srtt), c.Get(f.rttvar), c.Get(f.backoff));
            return ARMED | ((c.Get(f.now) + r) & ~ARMED);
        };
        t.AddAction("ack", [f, rto, processed, deadline](RmtActionContext& c) {
            if (!processed(c) || c.Get(f.acked) == 0)
            {
                return;
            }
            // RFC 6298 (5.2), (5.3): stop when all is acknowledged, else restart
            c.Update(*rto, c.Get(f.conn), [&](uint64_t& cell) {
                cell = c.Get(f.una) == c.Get(f.max) ? (cell & ~ARMED) : deadline(c);
            });
        });
        t.AddAction("send", [f, rto, deadline](RmtActionContext& c) {
            c.Update(*rto, c.Get(f.conn), [&](uint64_t& cell) {
                if (!(cell & ARMED))
                {
                    cell = deadline(c); // RFC 6298 (5.1)
                }
            });
        });
        t.AddAction("scan", [f, rto](RmtActionContext& c) {
            const auto u = static_cast<uint32_t>(c.Get(f.una));
            const auto m = static_cast<uint32_t>(c.Get(f.max));
            c.Update(*rto, c.Get(f.conn), [&](uint64_t& cell) {
                if ((cell & ARMED) && seq::Lt(u, m) && c.Get(f.now) >= (cell & ~ARMED))
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
        });
        t.AddAction("restart", [f, rto, deadline](RmtActionContext& c) {
            c.Write(*rto, c.Get(f.conn), deadline(c));
        });
        t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
        t.AddEntry({RmtMatch::Exact(OP_TX)}, "send");
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
PrestoTxProgram::Run()
{
    m_pipeline->Execute(*m_phv, m_exec);
    m_recirculations += m_exec.passes - 1;
}

void
PrestoTxProgram::Init(uint32_t conn, const OffloadSendState& s)
{
    CheckConn(conn, "Init");
    // connection setup is the host's: control-plane writes
    m_max->ControlWrite(conn, s.sndMax);
    m_una->ControlWrite(conn, s.sndUna);
    m_close->ControlWrite(conn,
                          (s.closeRequested ? CLOSED | s.sndBufEnd : 0) |
                              (s.finAcked ? FIN_ACKED : 0));
    m_peer->ControlWrite(conn, (uint64_t{s.peerWindowLast} << 32) | s.peerRightEdge);
    m_maxPeerWindow->ControlWrite(conn, s.maxPeerWindow);
    m_dup->ControlWrite(conn, s.dupAcks);
    m_recovery->ControlWrite(conn, (s.inRecovery ? IN_RECOVERY : 0) | s.recover);
    m_nxt->ControlWrite(conn, s.sndNxt);
    m_rttSeq->ControlWrite(conn, (s.hasRtt ? HAS_RTT : 0) | (s.rttTiming ? TIMING : 0) | s.rttSeq);
    m_rttStart->ControlWrite(conn, s.rttStartNs);
    m_rtt->ControlWrite(conn,
                        (static_cast<uint64_t>(s.rttVarNs) << 32) |
                            (static_cast<uint64_t>(s.srttNs) & LOW32));
    m_backoff->ControlWrite(conn, s.backoff);
    m_rto->ControlWrite(conn, (s.rtoArmed ? ARMED : 0) | (s.rtoDeadlineNs & ~ARMED));
}

void
PrestoTxProgram::Close(uint32_t conn, uint32_t sndBufEnd)
{
    CheckConn(conn, "Close");
    m_close->ControlWrite(conn, CLOSED | (m_close->ControlRead(conn) & FIN_ACKED) | sndBufEnd);
}

PrestoTxProgram::AckResult
PrestoTxProgram::OnAck(uint32_t conn,
                       uint32_t ack,
                       uint32_t window,
                       uint32_t payloadLen,
                       bool fin,
                       uint64_t nowNs)
{
    CheckConn(conn, "OnAck");
    RmtPhv& phv = *m_phv;
    phv.Clear();
    phv.Set(m_f.conn, conn);
    phv.Set(m_f.op, OP_ACK);
    phv.Set(m_f.now, nowNs);
    phv.Set(m_f.ack, ack);
    phv.Set(m_f.window, window);
    phv.Set(m_f.payload, payloadLen);
    phv.Set(m_f.fin, fin ? 1 : 0);
    Run();
    AckResult r;
    r.cls = static_cast<AckClass>(phv.Get(m_f.cls));
    if (r.cls == ACK_PROCESSED)
    {
        const uint64_t acked = phv.Get(m_f.acked);
        r.dataAcked = static_cast<uint32_t>(acked > 0 ? acked - phv.Get(m_f.finInAck) : 0);
        r.finAcked = phv.Get(m_f.finNew) != 0;
        r.goBackN = phv.Get(m_f.goBackN) != 0;
    }
    return r;
}

void
PrestoTxProgram::OnTransmit(uint32_t conn, uint32_t seq, uint32_t seqLen, uint64_t nowNs)
{
    CheckConn(conn, "OnTransmit");
    RmtPhv& phv = *m_phv;
    phv.Clear();
    phv.Set(m_f.conn, conn);
    phv.Set(m_f.op, OP_TX);
    phv.Set(m_f.now, nowNs);
    phv.Set(m_f.seq, seq);
    phv.Set(m_f.seqLen, seqLen);
    Run();
}

bool
PrestoTxProgram::OnTimerScan(uint32_t conn, uint64_t nowNs)
{
    CheckConn(conn, "OnTimerScan");
    RmtPhv& phv = *m_phv;
    phv.Clear();
    phv.Set(m_f.conn, conn);
    phv.Set(m_f.op, OP_SCAN);
    phv.Set(m_f.now, nowNs);
    Run();
    return phv.Get(m_f.timeout) != 0;
}

OffloadSendState
PrestoTxProgram::GetState(uint32_t conn) const
{
    CheckConn(conn, "GetState");
    OffloadSendState s;
    s.sndMax = static_cast<uint32_t>(m_max->ControlRead(conn));
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
    s.sndNxt = static_cast<uint32_t>(m_nxt->ControlRead(conn));
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

} // namespace ns3
