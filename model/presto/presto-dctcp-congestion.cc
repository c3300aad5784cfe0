/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-dctcp-congestion.h"

#include "presto-dctcp-arithmetic.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PrestoDctcpCongestion");
NS_OBJECT_ENSURE_REGISTERED(PrestoDctcpCongestion);

TypeId
PrestoDctcpCongestion::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PrestoDctcpCongestion")
            .SetParent<OffloadCongestionControl>()
            .SetGroupName("Presto")
            .AddConstructor<PrestoDctcpCongestion>()
            .AddAttribute("Gain",
                          "EWMA gain g of alpha: a power of two 2^-s, s in [0, 20] (the pipeline "
                          "multiplies by a shift; RFC 8257: 1/16)",
                          DoubleValue(1.0 / 16),
                          MakeDoubleAccessor(&PrestoDctcpCongestion::m_gain),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("AlphaInit",
                          "Initial alpha, in [0, 1], kept to 2^-20 (Linux and ns-3's TcpDctcp: 1)",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&PrestoDctcpCongestion::m_alphaInit),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("MantissaBits",
                          "Leading bits B kept by the lookup tables that replace the division "
                          "(F = ece / acked) and the multiplication (cwnd alpha / 2), bits, 3..8: "
                          "tables of about 2^(2B-1) and 2^(2B) entries, errors below 2^-(B-1) "
                          "(assumed: 6, i.e. 2,079 and 4,160 entries)",
                          UintegerValue(6),
                          MakeUintegerAccessor(&PrestoDctcpCongestion::m_bits),
                          MakeUintegerChecker<uint32_t>(1, 16));
    return tid;
}

PrestoDctcpProgram::Params
PrestoDctcpCongestion::Params() const
{
    PrestoDctcpProgram::Params p;
    p.gain = m_gain;
    p.alphaInit = m_alphaInit;
    p.mantissaBits = m_bits;
    return p;
}

void
PrestoDctcpCongestion::BindPipeline(const RmtPipelineConfig& config, uint32_t maxConnections)
{
    m_program = std::make_shared<PrestoDctcpProgram>(maxConnections, Params(), config);
    m_bound = true;
}

const PrestoDctcpProgram*
PrestoDctcpCongestion::GetProgram() const
{
    return m_program.get();
}

Ptr<OffloadCongestionControl>
PrestoDctcpCongestion::Fork(const OffloadCongestionContext& ctx) const
{
    if (!m_program || (!m_bound && m_program->GetMaxConnections() < ctx.maxConnections))
    {
        // not on a Presto pipeline (a check, or another design): a default pipeline as large
        // as the NIC's connection table; connections made before keep the smaller one
        m_program =
            std::make_shared<PrestoDctcpProgram>(ctx.maxConnections, Params(), RmtPipelineConfig());
    }
    if (ctx.connId >= m_program->GetMaxConnections())
    {
        throw PrestoInputError("PrestoDctcpCongestion: connection slot " +
                               std::to_string(ctx.connId) + " is beyond the program's " +
                               std::to_string(m_program->GetMaxConnections()) + " connections");
    }
    Ptr<PrestoDctcpCongestion> c = CopyObject<PrestoDctcpCongestion>(this);
    c->m_conn = ctx.connId;
    c->m_mss = ctx.mss;
    c->m_initialCwnd = ctx.initialCwndSegments;
    c->Init(0); // check the connection's parameters now; the connection calls Init again
    return c;
}

const char*
PrestoDctcpCongestion::GetName() const
{
    return "DCTCP (Presto pipeline)";
}

void
PrestoDctcpCongestion::Init(uint32_t sndNxt)
{
    m_program->Init(m_conn, m_mss, m_initialCwnd, sndNxt);
}

bool
PrestoDctcpCongestion::OnAck(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt)
{
    return m_program->OnAck(m_conn, ackedBytes, ece, sndUna, sndNxt);
}

void
PrestoDctcpCongestion::OnLoss(uint32_t bytesInFlight, uint32_t sndNxt)
{
    m_program->OnLoss(m_conn, bytesInFlight, sndNxt);
}

void
PrestoDctcpCongestion::OnTimeout(uint32_t bytesInFlight, uint32_t sndNxt)
{
    m_program->OnTimeout(m_conn, bytesInFlight, sndNxt);
}

uint32_t
PrestoDctcpCongestion::GetCwnd() const
{
    return m_program->GetCwnd(m_conn);
}

uint32_t
PrestoDctcpCongestion::GetSsThresh() const
{
    return m_program->GetSsThresh(m_conn);
}

std::string
PrestoDctcpCongestion::GetShortName() const
{
    return "dctcp-pipeline";
}

} // namespace ns3
