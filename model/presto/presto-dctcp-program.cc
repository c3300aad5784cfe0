/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-dctcp-program.h"

#include "presto-dctcp-arithmetic.h"

#include "ns3/offload-seq.h"
#include "ns3/presto-input-error.h"
#include "ns3/rmt-program-checks.h"

#include <algorithm>
#include <string>

// Pure logic with no ns-3 dependency (no NS_LOG): the Presto NIC runs every ACK of a
// connection with --cc=dctcp-pipeline through it, and the unit tests compile it alone.

namespace ns3
{

namespace
{

constexpr uint64_t IN_REDUCTION = uint64_t{1} << 33; //!< cc.reduction: a reduction is open
constexpr uint64_t FROZEN = uint64_t{1} << 32;       //!< cc.reduction: no growth until it ends
constexpr uint32_t MAX_CWND = OffloadNewRenoCongestion::MAX_CWND;

const char* WHO = "Presto DCTCP pipeline program";

} // namespace

PrestoDctcpProgram::PrestoDctcpProgram(uint32_t maxConnections,
                                       const Params& params,
                                       const RmtPipelineConfig& config)
    : m_maxConnections(maxConnections),
      m_params(params),
      m_bits(params.mantissaBits)
{
    m_gainShift = PrestoDctcpArithmetic::Check(params.mantissaBits, params.gain, params.alphaInit);
    RmtProgramChecks::Connections(WHO, maxConnections);
    RmtProgramChecks::Stages(WHO, STAGES, config);
    RmtProgramChecks::OneRecirculation(WHO,
                                       config,
                                       "an ACK that cuts the window recirculates once");
    try
    {
        RmtPipelineConfig cfg = config;
        cfg.name = config.name + ".cc";
        m_pipeline = std::make_unique<RmtPipeline>(cfg);
        DeclareFields();
        BuildAckStage();
        BuildBytesStage();
        BuildFractionStages();
        BuildAlphaStage();
        BuildSsThreshStage();
        BuildWindowStage();
        BuildCutStages();
        m_pipeline->Finalize();
    }
    catch (const PrestoInputError& err)
    {
        throw PrestoInputError(std::string(WHO) + " for " + std::to_string(maxConnections) +
                               " connections with B=" + std::to_string(m_bits) +
                               " mantissa bits does not fit: " + err.what());
    }
    m_phv = std::make_unique<RmtPhv>(m_pipeline->NewPhv());
    m_exec.hits.reserve(2 * STAGES + 2);
}

PrestoDctcpProgram::~PrestoDctcpProgram() = default;

void
PrestoDctcpProgram::DeclareFields()
{
    RmtPipeline& p = *m_pipeline;
    const uint32_t b = m_bits;
    m_f.conn = p.AddField("hdr.conn_id", RmtProgramChecks::BitsFor(m_maxConnections));
    m_f.op = p.AddField("meta.op", 3);
    m_f.acked = p.AddField("meta.acked", 32);
    m_f.ece = p.AddField("hdr.ece", 1);
    m_f.sndUna = p.AddField("meta.snd_una", 32);
    m_f.sndNxt = p.AddField("meta.snd_nxt", 32);
    m_f.flight = p.AddField("meta.flight", 32);
    m_f.mss = p.AddField("meta.mss", 16);
    m_f.cut = p.AddField("meta.cut", 1);
    m_f.grow = p.AddField("meta.grow", 1);
    m_f.newWin = p.AddField("meta.new_window", 1);
    m_f.total = p.AddField("meta.total", 32);
    m_f.eceTotal = p.AddField("meta.ece_total", 32);
    m_f.ackedM = p.AddField("meta.acked_m", b);
    m_f.eceM = p.AddField("meta.ece_m", b);
    m_f.frac = p.AddField("meta.frac", PrestoDctcpArithmetic::ALPHA_BITS + 1);
    m_f.alpha = p.AddField("meta.alpha", PrestoDctcpArithmetic::ALPHA_BITS + 1);
    m_f.ssthresh = p.AddField("meta.ssthresh", 32);
    m_f.cwnd = p.AddField("meta.cwnd", 32);
    m_f.cwndM = p.AddField("meta.cwnd_m", b);
    m_f.cwndS = p.AddField("meta.cwnd_s", 5);
    m_f.alphaI = p.AddField("meta.alpha_i", b + 1);
    m_f.newSs = p.AddField("meta.new_ssthresh", 32);
}

void
PrestoDctcpProgram::BuildAckStage()
{
    // Stage 0: the reduction state (NewReno's once-per-window rule), the MSS and the end of
    // DCTCP's observation window. The three arrays are independent: one access each.
    RmtStage& st = m_pipeline->AddStage("cc.ack");
    m_reduction = &st.AddRegister("cc.reduction", 34, m_maxConnections);
    m_mss = &st.AddRegister("cc.mss", 16, m_maxConnections);
    m_windowEnd = &st.AddRegister("cc.window_end", 32, m_maxConnections);
    RmtTable& t = st.AddTable("cc.ack", {{m_f.op, RmtMatchKind::EXACT}}, 3);
    const Fields f = m_f;
    RmtRegisterArray* red = m_reduction;
    RmtRegisterArray* mss = m_mss;
    RmtRegisterArray* wend = m_windowEnd;
    t.AddAction("ack", [f, red, mss, wend](RmtActionContext& c) {
        const uint64_t conn = c.Get(f.conn);
        const auto una = static_cast<uint32_t>(c.Get(f.sndUna));
        const auto nxt = static_cast<uint32_t>(c.Get(f.sndNxt));
        const bool ece = c.Get(f.ece) != 0;
        bool cut = false;
        bool grow = false;
        c.Update(*red, conn, [&](uint64_t& cell) {
            if ((cell & IN_REDUCTION) && seq::Geq(una, static_cast<uint32_t>(cell)))
            {
                cell = static_cast<uint32_t>(cell); // the reduction window closed
            }
            cut = ece && !(cell & IN_REDUCTION);
            if (cut)
            {
                cell = IN_REDUCTION | FROZEN | nxt; // react once per window of data
            }
            grow = !cut && !(cell & FROZEN);
        });
        c.Set(f.cut, cut);
        c.Set(f.grow, grow);
        c.Set(f.mss, c.Read(*mss, conn));
        c.Update(*wend, conn, [&](uint64_t& cell) {
            if (seq::Geq(una, static_cast<uint32_t>(cell)))
            {
                c.Set(f.newWin, 1); // one window of data acknowledged: alpha is updated
                cell = nxt;
            }
        });
    });
    auto reduce = [f, red, mss](RmtActionContext& c, uint64_t flags) {
        const uint64_t conn = c.Get(f.conn);
        c.Write(*red, conn, flags | static_cast<uint32_t>(c.Get(f.sndNxt)));
        c.Set(f.mss, c.Read(*mss, conn));
    };
    t.AddAction("loss", [reduce](RmtActionContext& c) { reduce(c, IN_REDUCTION | FROZEN); });
    t.AddAction("timeout", [reduce](RmtActionContext& c) { reduce(c, IN_REDUCTION); });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
    t.AddEntry({RmtMatch::Exact(OP_LOSS)}, "loss");
    t.AddEntry({RmtMatch::Exact(OP_TIMEOUT)}, "timeout");
}

void
PrestoDctcpProgram::BuildBytesStage()
{
    // Stage 1: the bytes of the observation window. When it ended (stage 0), the totals go
    // into the PHV and the counters restart.
    RmtStage& st = m_pipeline->AddStage("cc.bytes");
    m_acked = &st.AddRegister("cc.acked", 32, m_maxConnections);
    m_ece = &st.AddRegister("cc.ece", 32, m_maxConnections);
    RmtTable& t = st.AddTable("cc.bytes", {}, 0);
    const Fields f = m_f;
    RmtRegisterArray* acked = m_acked;
    RmtRegisterArray* ece = m_ece;
    t.AddAction("count", [f, acked, ece](RmtActionContext& c) {
        const uint64_t conn = c.Get(f.conn);
        const bool end = c.Get(f.newWin) != 0;
        const uint64_t bytes = c.Get(f.acked);
        const uint64_t marked = c.Get(f.ece) ? bytes : 0;
        uint64_t total = 0;
        c.Update(*acked, conn, [&](uint64_t& cell) {
            total = (cell + bytes) & 0xffffffffu;
            cell = end ? 0 : total;
        });
        uint64_t eceTotal = 0;
        c.Update(*ece, conn, [&](uint64_t& cell) {
            eceTotal = (cell + marked) & 0xffffffffu;
            cell = end ? 0 : eceTotal;
        });
        c.Set(f.total, total);
        c.Set(f.eceTotal, eceTotal);
    });
    t.SetDefaultAction("count");
    t.SetGate([f](const RmtPhv& phv) { return phv.Get(f.op) == OP_ACK; });
}

void
PrestoDctcpProgram::AddNormEntries(RmtTable& t, const char* action)
{
    // The leading one of a 32-bit value at bit p >= B: shift by p - (B - 1). Values below 2^B
    // are kept whole (shift 0). Ternary entries with disjoint masks: no priorities needed.
    const uint32_t b = m_bits;
    for (uint32_t p = b; p < 32; ++p)
    {
        const uint64_t mask = 0xffffffffull & ~((uint64_t{1} << p) - 1);
        t.AddEntry({RmtMatch::Ternary(uint64_t{1} << p, mask)}, action, {p - (b - 1)});
    }
    t.AddEntry({RmtMatch::Ternary(0, 0xffffffffull & ~((uint64_t{1} << b) - 1))}, action, {0});
}

void
PrestoDctcpProgram::BuildFractionStages()
{
    // F = ece / acked without a divider: normalise both by acked's leading-one shift, then
    // look the pair of mantissas up (PrestoDctcpArithmetic::FractionEntry).
    const Fields f = m_f;
    auto needed = [f](const RmtPhv& phv) {
        return phv.Get(f.op) == OP_ACK && phv.Get(f.newWin) != 0 && phv.Get(f.total) != 0;
    };
    RmtStage& norm = m_pipeline->AddStage("cc.frac_norm");
    RmtTable& n = norm.AddTable("cc.frac_norm", {{m_f.total, RmtMatchKind::TERNARY}}, 33 - m_bits);
    n.AddAction(
        "shift",
        [f](RmtActionContext& c) {
            const uint64_t s = c.Param(0);
            c.Set(f.ackedM, c.Get(f.total) >> s);
            c.Set(f.eceM, c.Get(f.eceTotal) >> s);
        },
        1);
    AddNormEntries(n, "shift");
    n.SetGate(needed);

    RmtStage& st = m_pipeline->AddStage("cc.frac");
    const uint32_t entries = PrestoDctcpArithmetic::FractionEntries(m_bits);
    RmtTable& t = st.AddTable("cc.frac",
                              {{m_f.eceM, RmtMatchKind::EXACT}, {m_f.ackedM, RmtMatchKind::EXACT}},
                              entries);
    t.AddAction(
        "fraction",
        [f](RmtActionContext& c) { c.Set(f.frac, c.Param(0)); },
        1);
    for (uint32_t a = 1; a < (1u << m_bits); ++a)
    {
        for (uint32_t e = 0; e <= a; ++e)
        {
            t.AddEntry({RmtMatch::Exact(e), RmtMatch::Exact(a)},
                       "fraction",
                       {PrestoDctcpArithmetic::FractionEntry(e, a)});
        }
    }
    t.SetGate(needed);
}

void
PrestoDctcpProgram::BuildAlphaStage()
{
    // alpha = (1 - g) alpha + g F with g = 2^-s: two shifts and two adds in one stateful ALU.
    RmtStage& st = m_pipeline->AddStage("cc.alpha");
    m_alpha = &st.AddRegister("cc.alpha", PrestoDctcpArithmetic::ALPHA_BITS + 1, m_maxConnections);
    RmtTable& t = st.AddTable("cc.alpha", {}, 0);
    const Fields f = m_f;
    RmtRegisterArray* alpha = m_alpha;
    const uint32_t gs = m_gainShift;
    t.AddAction("alpha", [f, alpha, gs](RmtActionContext& c) {
        const bool update = c.Get(f.newWin) != 0 && c.Get(f.total) != 0;
        const auto frac = static_cast<uint32_t>(c.Get(f.frac));
        uint64_t now = 0;
        c.Update(*alpha, c.Get(f.conn), [&](uint64_t& cell) {
            if (update)
            {
                cell = PrestoDctcpArithmetic::NextAlpha(static_cast<uint32_t>(cell), frac, gs);
            }
            now = cell;
        });
        c.Set(f.alpha, now);
    });
    t.SetDefaultAction("alpha");
    t.SetGate([f](const RmtPhv& phv) { return phv.Get(f.op) == OP_ACK; });
}

void
PrestoDctcpProgram::BuildSsThreshStage()
{
    RmtStage& st = m_pipeline->AddStage("cc.ssthresh");
    m_ssthresh = &st.AddRegister("cc.ssthresh", 32, m_maxConnections);
    RmtTable& t = st.AddTable("cc.ssthresh", {{m_f.op, RmtMatchKind::EXACT}}, 4);
    const Fields f = m_f;
    RmtRegisterArray* ss = m_ssthresh;
    t.AddAction("read",
                [f, ss](RmtActionContext& c) { c.Set(f.ssthresh, c.Read(*ss, c.Get(f.conn))); });
    t.AddAction("halve", [f, ss](RmtActionContext& c) {
        // max(flight / 2, 2 MSS): a shift and a max
        const uint64_t v = std::max(c.Get(f.flight) >> 1, c.Get(f.mss) << 1);
        c.Write(*ss, c.Get(f.conn), v);
        c.Set(f.ssthresh, v);
    });
    t.AddAction("commit_cut", [f, ss](RmtActionContext& c) {
        c.Write(*ss, c.Get(f.conn), c.Get(f.newSs)); // computed in pass 1
        c.Set(f.ssthresh, c.Get(f.newSs));
    });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "read");
    t.AddEntry({RmtMatch::Exact(OP_LOSS)}, "halve");
    t.AddEntry({RmtMatch::Exact(OP_TIMEOUT)}, "halve");
    t.AddEntry({RmtMatch::Exact(OP_CUT_COMMIT)}, "commit_cut");
}

void
PrestoDctcpProgram::BuildWindowStage()
{
    // cwnd and the bytes acknowledged towards the next +1 MSS in congestion avoidance share
    // one 64-bit register (one access per pass reads and writes both).
    RmtStage& st = m_pipeline->AddStage("cc.window");
    m_window = &st.AddRegister("cc.window", 64, m_maxConnections);
    RmtTable& t = st.AddTable("cc.window", {{m_f.op, RmtMatchKind::EXACT}}, 4);
    const Fields f = m_f;
    RmtRegisterArray* w = m_window;
    auto pack = [](uint64_t cwnd, uint64_t ca) { return (ca << 32) | cwnd; };
    t.AddAction("ack", [f, w, pack](RmtActionContext& c) {
        const uint64_t acked = c.Get(f.acked);
        const uint64_t mss = c.Get(f.mss);
        const uint64_t ssthresh = c.Get(f.ssthresh);
        const bool grow = c.Get(f.grow) != 0 && acked > 0;
        uint64_t out = 0;
        c.Update(*w, c.Get(f.conn), [&](uint64_t& cell) {
            uint64_t cwnd = cell & 0xffffffffu;
            uint64_t ca = cell >> 32;
            if (grow)
            {
                if (cwnd < ssthresh)
                {
                    cwnd = std::min(cwnd + std::min(acked, 2 * mss), ssthresh); // ABC, L = 2
                }
                else
                {
                    ca = std::min(ca + acked, cwnd);
                    if (ca >= cwnd)
                    {
                        ca = 0;
                        cwnd += mss;
                    }
                }
                cwnd = std::min<uint64_t>(cwnd, MAX_CWND);
                cell = pack(cwnd, ca);
            }
            out = cwnd; // a cut reads it here and writes it in pass 2
        });
        c.Set(f.cwnd, out);
    });
    t.AddAction("loss", [f, w, pack](RmtActionContext& c) {
        uint64_t out = 0;
        c.Update(*w, c.Get(f.conn), [&](uint64_t& cell) {
            out = std::min(cell & 0xffffffffu, c.Get(f.ssthresh));
            cell = pack(out, 0);
        });
        c.Set(f.cwnd, out);
    });
    t.AddAction("timeout", [f, w, pack](RmtActionContext& c) {
        c.Write(*w, c.Get(f.conn), pack(c.Get(f.mss), 0)); // the loss window
        c.Set(f.cwnd, c.Get(f.mss));
    });
    t.AddAction("commit_cut", [f, w, pack](RmtActionContext& c) {
        uint64_t out = 0;
        c.Update(*w, c.Get(f.conn), [&](uint64_t& cell) {
            out = std::min(cell & 0xffffffffu, c.Get(f.newSs));
            cell = pack(out, 0);
        });
        c.Set(f.cwnd, out);
    });
    t.AddEntry({RmtMatch::Exact(OP_ACK)}, "ack");
    t.AddEntry({RmtMatch::Exact(OP_LOSS)}, "loss");
    t.AddEntry({RmtMatch::Exact(OP_TIMEOUT)}, "timeout");
    t.AddEntry({RmtMatch::Exact(OP_CUT_COMMIT)}, "commit_cut");
}

void
PrestoDctcpProgram::BuildCutStages()
{
    // cwnd (1 - alpha / 2) without a multiplier: cwnd's leading bits times alpha's index from
    // a table, shifted back; then the 2-MSS floor, and pass 2 writes the result.
    const Fields f = m_f;
    const uint32_t b = m_bits;
    auto cutting = [f](const RmtPhv& phv) {
        return phv.Get(f.op) == OP_ACK && phv.Get(f.cut) != 0;
    };
    RmtStage& norm = m_pipeline->AddStage("cc.cut_norm");
    RmtTable& n = norm.AddTable("cc.cut_norm", {{m_f.cwnd, RmtMatchKind::TERNARY}}, 33 - b);
    n.AddAction(
        "shift",
        [f, b](RmtActionContext& c) {
            const uint64_t s = c.Param(0);
            c.Set(f.cwndM, c.Get(f.cwnd) >> s);
            c.Set(f.cwndS, s);
            c.Set(f.alphaI, c.Get(f.alpha) >> (PrestoDctcpArithmetic::ALPHA_BITS - b));
        },
        1);
    AddNormEntries(n, "shift");
    n.SetGate(cutting);

    RmtStage& st = m_pipeline->AddStage("cc.cut");
    RmtTable& t = st.AddTable("cc.cut",
                              {{m_f.cwndM, RmtMatchKind::EXACT}, {m_f.alphaI, RmtMatchKind::EXACT}},
                              PrestoDctcpArithmetic::ProductEntries(b));
    t.AddAction(
        "cut",
        [f, b](RmtActionContext& c) {
            const uint64_t cwnd = c.Get(f.cwnd);
            const uint64_t reduction = (c.Param(0) << c.Get(f.cwndS)) >> (b + 1);
            c.Set(f.newSs, std::max(cwnd - reduction, c.Get(f.mss) << 1));
            c.Set(f.op, OP_CUT_COMMIT);
            c.Recirculate();
        },
        1);
    for (uint32_t m = 0; m < (1u << b); ++m)
    {
        for (uint32_t a = 0; a <= (1u << b); ++a)
        {
            t.AddEntry({RmtMatch::Exact(m), RmtMatch::Exact(a)}, "cut", {uint64_t{m} * a});
        }
    }
    t.SetGate(cutting);
}

void
PrestoDctcpProgram::CheckConn(uint32_t conn, const char* where) const
{
    if (conn >= m_maxConnections)
    {
        throw PrestoInputError(std::string(WHO) + ": " + where + ": connection " +
                               std::to_string(conn) + " is not below " +
                               std::to_string(m_maxConnections));
    }
}

void
PrestoDctcpProgram::Run(uint32_t conn, Op op, uint32_t a, uint32_t b, uint32_t c, bool ece)
{
    RmtPhv& phv = *m_phv;
    phv.Clear();
    phv.Set(m_f.conn, conn);
    phv.Set(m_f.op, op);
    if (op == OP_ACK)
    {
        phv.Set(m_f.acked, a);
        phv.Set(m_f.sndUna, b);
        phv.Set(m_f.ece, ece ? 1 : 0);
    }
    else
    {
        phv.Set(m_f.flight, a);
    }
    phv.Set(m_f.sndNxt, c);
    m_pipeline->Execute(phv, m_exec);
    m_recirculations += m_exec.passes - 1;
}

void
PrestoDctcpProgram::Init(uint32_t conn, uint32_t mss, uint32_t initialCwndSegments, uint32_t sndNxt)
{
    CheckConn(conn, "Init");
    if (mss == 0 || mss > 0xffff)
    {
        throw PrestoInputError(std::string(WHO) + ": MSS " + std::to_string(mss) +
                               " of connection " + std::to_string(conn) + " is not in [1, 65535]");
    }
    const uint64_t initial = uint64_t{mss} * initialCwndSegments;
    if (initial == 0 || initial > MAX_CWND)
    {
        throw PrestoInputError(std::string(WHO) + ": initial window of " +
                               std::to_string(initialCwndSegments) + " segments (" +
                               std::to_string(initial) + " bytes) is not in [1, " +
                               std::to_string(MAX_CWND) + "] bytes");
    }
    // connection setup is the host's: control-plane writes
    m_reduction->ControlWrite(conn, sndNxt);
    m_mss->ControlWrite(conn, mss);
    m_windowEnd->ControlWrite(conn, sndNxt);
    m_acked->ControlWrite(conn, 0);
    m_ece->ControlWrite(conn, 0);
    m_alpha->ControlWrite(conn, PrestoDctcpArithmetic::ToQ20(m_params.alphaInit));
    m_ssthresh->ControlWrite(conn, MAX_CWND);
    m_window->ControlWrite(conn, initial);
}

bool
PrestoDctcpProgram::OnAck(uint32_t conn,
                          uint32_t ackedBytes,
                          bool ece,
                          uint32_t sndUna,
                          uint32_t sndNxt)
{
    CheckConn(conn, "OnAck");
    Run(conn, OP_ACK, ackedBytes, sndUna, sndNxt, ece);
    return m_exec.passes > 1; // only a cut recirculates
}

void
PrestoDctcpProgram::OnLoss(uint32_t conn, uint32_t bytesInFlight, uint32_t sndNxt)
{
    CheckConn(conn, "OnLoss");
    Run(conn, OP_LOSS, bytesInFlight, 0, sndNxt, false);
    ++m_recirculations; // the duplicate ACK's second pass: go-back-N is known behind cc.window
}

void
PrestoDctcpProgram::OnTimeout(uint32_t conn, uint32_t bytesInFlight, uint32_t sndNxt)
{
    CheckConn(conn, "OnTimeout");
    Run(conn, OP_TIMEOUT, bytesInFlight, 0, sndNxt, false);
}

uint32_t
PrestoDctcpProgram::GetCwnd(uint32_t conn) const
{
    CheckConn(conn, "GetCwnd");
    return static_cast<uint32_t>(m_window->ControlRead(conn));
}

uint32_t
PrestoDctcpProgram::GetSsThresh(uint32_t conn) const
{
    CheckConn(conn, "GetSsThresh");
    return static_cast<uint32_t>(m_ssthresh->ControlRead(conn));
}

uint32_t
PrestoDctcpProgram::GetAlphaQ20(uint32_t conn) const
{
    CheckConn(conn, "GetAlphaQ20");
    return static_cast<uint32_t>(m_alpha->ControlRead(conn));
}

uint64_t
PrestoDctcpProgram::GetRecirculations() const
{
    return m_recirculations;
}

const RmtExecution&
PrestoDctcpProgram::GetLastExecution() const
{
    return m_exec;
}

RmtResourceReport
PrestoDctcpProgram::GetResourceReport() const
{
    return m_pipeline->GetResourceReport();
}

uint32_t
PrestoDctcpProgram::GetMaxConnections() const
{
    return m_maxConnections;
}

const PrestoDctcpProgram::Params&
PrestoDctcpProgram::GetParams() const
{
    return m_params;
}

} // namespace ns3
