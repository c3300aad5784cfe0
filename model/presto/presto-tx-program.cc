/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-tx-program.h"

#include "ns3/offload-seq.h"
#include "ns3/presto-input-error.h"
#include "ns3/rmt-program-checks.h"

#include <algorithm>
#include <string>

// Pure logic with no ns-3 dependency (no NS_LOG): the Presto NIC runs every ACK, every
// transmitted segment and every timer-scan visit through it, and the unit tests compile it
// alone. The stages themselves are built in presto-tx-stages.cc; here are the program's
// checks, its PHV fields and its control-plane and packet interface.

namespace ns3
{

namespace
{

const char* WHO = "Presto tx program";

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
