/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-tcp-connection.h"

#include "offload-seq.h"
#include "offload-window-congestion.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <string>

// Pure logic with no Simulator calls: every NIC design calls it per segment, per timer scan
// and per application event, and the unit tests drive it without a simulator. It logs
// through NS_LOG (component OffloadTcpConnection): LOGIC at each retransmission, timeout,
// go-back-N, fidelity drop and state change, FUNCTION on entry of the per-segment
// functions; each is one test of the component's level while logging is off, and the
// time prefix is printed only when a simulator has set the log's time printer.
//
// The class is in five files by concern: this one (configuration, counters, construction,
// accessors and the send-state snapshot), offload-tcp-receive.cc (an arriving segment and
// the ACKs we send), offload-tcp-ack.cc (what an acceptable ACK does to the send side),
// offload-tcp-send.cc (the send stream and the next segment) and offload-tcp-timers.cc
// (RTO, persist, the host control loop).

namespace ns3
{

/// The data path's log component, shared with the class's other .cc files (which refer to
/// it as their g_log): one NS_LOG name, OffloadTcpConnection, for the whole data path.
extern LogComponent g_offloadTcpConnectionLog;
LogComponent g_offloadTcpConnectionLog("OffloadTcpConnection", __FILE__);
static LogComponent& g_log [[maybe_unused]] = g_offloadTcpConnectionLog;

namespace
{

/// Largest buffer, bytes (OffloadTcpConnection::MAX_BUFFER).
constexpr uint32_t MAX_BUFFER = OffloadTcpConnection::MAX_BUFFER;

[[noreturn]] void
Bad(const char* where, const std::string& what)
{
    throw PrestoInputError(std::string(where) + ": " + what);
}

} // namespace

void
OffloadTcpConfig::Validate(const char* where) const
{
    if (mss == 0 || mss > MAX_BUFFER)
    {
        Bad(where,
            "mss=" + std::to_string(mss) + " bytes must be in [1, " + std::to_string(MAX_BUFFER) +
                "]");
    }
    if (fidelity > ReassemblyTracker::MAX_FIDELITY && fidelity != ReassemblyTracker::UNBOUNDED)
    {
        Bad(where,
            "fidelity K=" + std::to_string(fidelity) + " must be in [0, " +
                std::to_string(ReassemblyTracker::MAX_FIDELITY) + "] or UNBOUNDED");
    }
    if (rxBufferSize == 0 || rxBufferSize > MAX_BUFFER)
    {
        Bad(where,
            "rxBufferSize=" + std::to_string(rxBufferSize) + " bytes must be in [1, " +
                std::to_string(MAX_BUFFER) + "]");
    }
    if (txBufferSize == 0 || txBufferSize > MAX_BUFFER)
    {
        Bad(where,
            "txBufferSize=" + std::to_string(txBufferSize) + " bytes must be in [1, " +
                std::to_string(MAX_BUFFER) + "]");
    }
    if (initialCwndSegments == 0 ||
        static_cast<uint64_t>(initialCwndSegments) * mss > OffloadNewRenoCongestion::MAX_CWND)
    {
        Bad(where,
            "initialCwndSegments=" + std::to_string(initialCwndSegments) +
                " must be >= 1 and at most " + std::to_string(OffloadNewRenoCongestion::MAX_CWND) +
                " bytes in total");
    }
    if (minRtoNs == 0)
    {
        Bad(where, "minRtoNs must be > 0");
    }
    if (initialRtoNs == 0)
    {
        Bad(where, "initialRtoNs must be > 0");
    }
    if (maxRtoNs < minRtoNs || maxRtoNs < initialRtoNs)
    {
        Bad(where,
            "maxRtoNs=" + std::to_string(maxRtoNs) + " must be >= minRtoNs and >= initialRtoNs");
    }
    if (dupAckThreshold == 0)
    {
        Bad(where, "dupAckThreshold must be >= 1");
    }
    if (ackPolicy != OffloadAckPolicy::EVERY_SEGMENT)
    {
        Bad(where, "unknown ackPolicy " + std::to_string(static_cast<int>(ackPolicy)));
    }
    if (controlIntervalRtts == 0)
    {
        Bad(where, "controlIntervalRtts must be >= 1");
    }
    if (controlRttInitNs == 0)
    {
        Bad(where, "controlRttInitNs must be > 0");
    }
    if (rxWindowLimit == 0)
    {
        Bad(where, "rxWindowLimit must be > 0");
    }
    if (windowShift > 14)
    {
        Bad(where, "windowShift=" + std::to_string(windowShift) + " must be <= 14 (RFC 7323)");
    }
}

OffloadTcpCounters&
OffloadTcpCounters::operator+=(const OffloadTcpCounters& o)
{
    segmentsReceived += o.segmentsReceived;
    inOrder += o.inOrder;
    outOfOrderPlaced += o.outOfOrderPlaced;
    fidelityDrops += o.fidelityDrops;
    windowDrops += o.windowDrops;
    duplicates += o.duplicates;
    bytesDelivered += o.bytesDelivered;
    acksSent += o.acksSent;
    windowUpdates += o.windowUpdates;
    probesAnswered += o.probesAnswered;
    ceReceived += o.ceReceived;
    dataSegmentsSent += o.dataSegmentsSent;
    bytesSent += o.bytesSent;
    retransmittedSegments += o.retransmittedSegments;
    retransmittedBytes += o.retransmittedBytes;
    bytesAcked += o.bytesAcked;
    dupAcks += o.dupAcks;
    goBackN += o.goBackN;
    timeouts += o.timeouts;
    eceReceived += o.eceReceived;
    cwrSent += o.cwrSent;
    rttSamples += o.rttSamples;
    windowProbes += o.windowProbes;
    invalidAcks += o.invalidAcks;
    oldAcks += o.oldAcks;
    noAckDrops += o.noAckDrops;
    resets += o.resets;
    rstChallenged += o.rstChallenged;
    rstIgnored += o.rstIgnored;
    synChallenged += o.synChallenged;
    ackTooOld += o.ackTooOld;
    challengeAcks += o.challengeAcks;
    challengeAcksSuppressed += o.challengeAcksSuppressed;
    return *this;
}

namespace
{

/// Validate first, so that a bad configuration is reported before any member uses it.
const OffloadTcpConfig&
Checked(const OffloadTcpConfig& c)
{
    c.Validate("OffloadTcpConnection");
    return c;
}

} // namespace

OffloadTcpConnection::OffloadTcpConnection(const OffloadTcpConfig& config,
                                           uint32_t iss,
                                           uint32_t irs,
                                           uint32_t peerWindow,
                                           Ptr<OffloadCongestionControl> cc)
    : m_config(Checked(config)),
      m_cc(std::move(cc)),
      m_rx(config.fidelity, irs + 1, config.rxBufferSize),
      m_sndUna(iss + 1),
      m_sndNxt(iss + 1),
      m_sndMax(iss + 1),
      m_sndBufEnd(iss + 1),
      m_peerRightEdge(iss + 1 + std::min(peerWindow, MAX_BUFFER)),
      m_peerWindowLast(peerWindow),
      m_maxPeerWindow(std::min(peerWindow, MAX_BUFFER)),
      m_lastAdvWindow(std::min(config.rxBufferSize, config.rxWindowLimit))
{
    m_rx.SetPolicy(config.intervalPolicy);
    if (peerWindow > MAX_BUFFER)
    {
        Bad("OffloadTcpConnection",
            "peer window " + std::to_string(peerWindow) + " bytes exceeds the TCP limit of " +
                std::to_string(MAX_BUFFER));
    }
    if (!m_cc)
    {
        m_cc =
            Create<OffloadDctcpCongestion>(config.mss, config.initialCwndSegments, 1.0 / 16, 1.0);
    }
    Cc().Init(m_sndNxt);
}

// ---------------------------------------------------------------------------------------
// Accessors
// ---------------------------------------------------------------------------------------

uint32_t
OffloadTcpConnection::GetSndUna() const
{
    return m_sndUna;
}

uint32_t
OffloadTcpConnection::GetSndNxt() const
{
    return m_sndNxt;
}

uint32_t
OffloadTcpConnection::GetSndMax() const
{
    return m_sndMax;
}

uint32_t
OffloadTcpConnection::GetAdvertisedWindow() const
{
    return m_rx.GetWindow();
}

uint32_t
OffloadTcpConnection::GetPeerWindowEdge() const
{
    return m_peerRightEdge;
}

uint32_t
OffloadTcpConnection::GetCwnd() const
{
    return Cc().GetCwnd();
}

int64_t
OffloadTcpConnection::GetSrttNs() const
{
    return m_srttNs;
}

int64_t
OffloadTcpConnection::GetRttVarNs() const
{
    return m_rttVarNs;
}

int64_t
OffloadTcpConnection::GetLastRttNs() const
{
    return m_lastRttNs;
}

uint32_t
OffloadTcpConnection::GetBackoff() const
{
    return m_backoff;
}

bool
OffloadTcpConnection::IsRtoArmed() const
{
    return m_rtoArmed;
}

uint64_t
OffloadTcpConnection::GetRtoDeadlineNs() const
{
    return m_rtoDeadlineNs;
}

uint32_t
OffloadTcpConnection::GetSndBufEnd() const
{
    return m_sndBufEnd;
}

uint32_t
OffloadTcpConnection::GetTxBuffered() const
{
    return seq::Lt(m_sndUna, m_sndBufEnd) ? m_sndBufEnd - m_sndUna : 0;
}

uint32_t
OffloadTcpConnection::GetTxFree() const
{
    return m_config.txBufferSize - GetTxBuffered();
}

uint32_t
OffloadTcpConnection::GetRxUnread() const
{
    return m_rxUnread;
}

bool
OffloadTcpConnection::IsPeerClosed() const
{
    return m_peerFin;
}

bool
OffloadTcpConnection::IsFinAcked() const
{
    return m_finAcked;
}

bool
OffloadTcpConnection::IsReset() const
{
    return m_reset;
}

const OffloadTcpCounters&
OffloadTcpConnection::GetCounters() const
{
    return m_counters;
}

const OffloadTcpConfig&
OffloadTcpConnection::GetConfig() const
{
    return m_config;
}

const OffloadCongestionControl&
OffloadTcpConnection::GetCongestion() const
{
    return Cc();
}

const ReassemblyTracker&
OffloadTcpConnection::GetReassembly() const
{
    return m_rx;
}

OffloadSendState
OffloadTcpConnection::GetSendState() const
{
    OffloadSendState st;
    st.sndUna = m_sndUna;
    st.sndNxt = m_sndNxt;
    st.sndMax = m_sndMax;
    st.closeRequested = m_closeRequested;
    st.sndBufEnd = m_sndBufEnd;
    st.finAcked = m_finAcked;
    st.peerRightEdge = m_peerRightEdge;
    st.peerWindowLast = m_peerWindowLast;
    st.maxPeerWindow = m_maxPeerWindow;
    st.dupAcks = m_dupAcks;
    st.inRecovery = m_inRecovery;
    st.recover = m_recover;
    st.rttTiming = m_rttTiming;
    st.rttSeq = m_rttSeq;
    st.rttStartNs = m_rttStartNs;
    st.hasRtt = m_hasRtt;
    st.srttNs = m_srttNs;
    st.rttVarNs = m_rttVarNs;
    st.backoff = m_backoff;
    st.rtoArmed = m_rtoArmed;
    st.rtoDeadlineNs = m_rtoDeadlineNs;
    st.persistArmed = m_persistArmed;
    st.persistDeadlineNs = m_persistDeadlineNs;
    st.persistBackoff = m_persistBackoff;
    return st;
}

std::string
OffloadSendState::Diff(const OffloadSendState& o) const
{
    std::string out;
    auto field = [&out](const char* name, auto a, auto b) {
        if (a != b)
        {
            out += std::string(out.empty() ? "" : ", ") + name + " " + std::to_string(a) +
                   " != " + std::to_string(b);
        }
    };
    field("sndUna", sndUna, o.sndUna);
    field("sndNxt", sndNxt, o.sndNxt);
    field("sndMax", sndMax, o.sndMax);
    field("closeRequested", closeRequested, o.closeRequested);
    field("sndBufEnd", sndBufEnd, o.sndBufEnd);
    field("finAcked", finAcked, o.finAcked);
    field("peerRightEdge", peerRightEdge, o.peerRightEdge);
    field("peerWindowLast", peerWindowLast, o.peerWindowLast);
    field("maxPeerWindow", maxPeerWindow, o.maxPeerWindow);
    field("dupAcks", dupAcks, o.dupAcks);
    field("inRecovery", inRecovery, o.inRecovery);
    field("recover", recover, o.recover);
    field("rttTiming", rttTiming, o.rttTiming);
    field("rttSeq", rttSeq, o.rttSeq);
    field("rttStartNs", rttStartNs, o.rttStartNs);
    field("hasRtt", hasRtt, o.hasRtt);
    field("srttNs", srttNs, o.srttNs);
    field("rttVarNs", rttVarNs, o.rttVarNs);
    field("backoff", backoff, o.backoff);
    field("rtoArmed", rtoArmed, o.rtoArmed);
    field("rtoDeadlineNs", rtoDeadlineNs, o.rtoDeadlineNs);
    field("persistArmed", persistArmed, o.persistArmed);
    field("persistDeadlineNs", persistDeadlineNs, o.persistDeadlineNs);
    field("persistBackoff", persistBackoff, o.persistBackoff);
    return out;
}

} // namespace ns3
