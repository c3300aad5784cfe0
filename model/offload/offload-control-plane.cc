/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-control-plane.h"

#include "offload-tcp-connection.h"

#include <algorithm>

namespace ns3
{

namespace
{
constexpr uint16_t EPHEMERAL_FIRST = 49152;
// TCP flags: OffloadSegment's, the one definition of the wire's flag bits
constexpr uint8_t FIN = OffloadSegment::FIN;
constexpr uint8_t SYN = OffloadSegment::SYN;
constexpr uint8_t RST = OffloadSegment::RST;
constexpr uint8_t ACK = OffloadSegment::ACK;
constexpr uint8_t ECE = OffloadSegment::ECE;
constexpr uint8_t CWR = OffloadSegment::CWR;
} // namespace

OffloadControlPlane::OffloadControlPlane()
    : m_portUsed(65536, false),
      m_nextEphemeral(EPHEMERAL_FIRST)
{
}

void
OffloadControlPlane::SetConfig(const Config& config)
{
    m_config = config;
}

const OffloadControlPlane::Config&
OffloadControlPlane::GetConfig() const
{
    return m_config;
}

// ------------------------------------------------------------------ ports

uint16_t
OffloadControlPlane::AllocatePort()
{
    for (uint32_t tries = 0; tries < 65536 - EPHEMERAL_FIRST; ++tries)
    {
        uint16_t p = m_nextEphemeral;
        m_nextEphemeral = p == 65535 ? EPHEMERAL_FIRST : p + 1;
        if (!m_portUsed[p])
        {
            m_portUsed[p] = true;
            return p;
        }
    }
    return 0;
}

bool
OffloadControlPlane::ReservePort(uint16_t port)
{
    if (m_portUsed[port])
    {
        return false;
    }
    m_portUsed[port] = true;
    return true;
}

void
OffloadControlPlane::ReleasePort(uint16_t port)
{
    m_portUsed[port] = false;
}

// ------------------------------------------------------------------ handshake

uint8_t
OffloadControlPlane::ShiftFor(uint32_t buffer)
{
    uint8_t s = 0;
    while (s < 14 && (buffer >> s) > 65535)
    {
        ++s;
    }
    return s;
}

// It is kept below 2^30 for interoperability with ns-3's TcpSocketBase (3.37): that starts its
// "last CE sequence" at 0 and compares modulo 2^32 (m_ecnCESeq < seq), so it ignores CE on
// every segment whose sequence number lies in [2^31, 2^32) and never echoes ECE to a peer
// whose ISN is there. Below 2^30, the first GB of every connection is echoed correctly.
uint32_t
OffloadControlPlane::InitialSequence(uint32_t local, uint32_t peer, uint16_t lport, uint16_t pport)
{
    uint64_t z =
        (uint64_t(local) << 32 | peer) ^ (uint64_t(lport) << 16 | pport) ^ 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<uint32_t>(z ^ (z >> 31)) & 0x3fffffffu;
}

void
OffloadControlPlane::ActiveOpen(OffloadHandshake& hs, uint32_t iss, uint32_t rcvBuf) const
{
    hs = OffloadHandshake();
    hs.state = OffloadCpState::SYN_SENT;
    hs.activeOpen = true;
    hs.iss = iss;
    hs.rcvBuf = rcvBuf;
    // offered in our SYN; reset to 0 if the peer's SYN-ACK has no window-scale option
    hs.ourShift = ShiftFor(rcvBuf);
}

void
OffloadControlPlane::PassiveOpen(OffloadHandshake& hs,
                                 const WireSegment& syn,
                                 uint32_t iss,
                                 uint32_t rcvBuf) const
{
    hs = OffloadHandshake();
    hs.state = OffloadCpState::SYN_RCVD;
    hs.iss = iss;
    hs.irs = syn.seq;
    hs.rcvBuf = rcvBuf;
    // an ECN-setup SYN carries ECE and CWR (RFC 3168 6.1.1)
    hs.ecn = (syn.flags & ECE) && (syn.flags & CWR);
    hs.sack = m_config.sack && syn.sackPermitted; // granted in our SYN-ACK
    hs.peerMss = syn.hasMss ? syn.mss : 0;
    if (syn.hasWindowScale)
    {
        // scaling only when both SYNs carry the option (RFC 7323 2.2); else both stay 0
        hs.peerShift = syn.windowScale; // clamped to 14 by the parser (RFC 7323)
        hs.ourShift = ShiftFor(rcvBuf);
    }
}

OffloadHandshakeTx
OffloadControlPlane::NextHandshake(OffloadHandshake& hs) const
{
    OffloadHandshakeTx tx;
    if (hs.state != OffloadCpState::SYN_SENT && hs.state != OffloadCpState::SYN_RCVD)
    {
        return tx; // established or freed meanwhile: a stale timer
    }
    if (hs.synTries >= m_config.synRetries)
    {
        tx.giveUp = true;
        return tx;
    }
    ++hs.synTries;
    tx.send = true;
    OffloadControlSegment& s = tx.segment;
    s.seq = hs.iss;
    // the window of a SYN is never scaled (RFC 7323)
    s.window = static_cast<uint16_t>(std::min<uint32_t>(hs.rcvBuf, 65535));
    const bool synSent = hs.state == OffloadCpState::SYN_SENT;
    if (synSent)
    {
        // an ECN-setup SYN (RFC 3168 6.1.1), as ns-3's TcpSocketBase sends with UseEcn On
        s.flags = SYN | ECE | CWR;
    }
    else
    {
        s.flags = SYN | ACK;
        s.flags |= hs.ecn ? ECE : 0; // an ECN-setup SYN-ACK: ECE without CWR
        s.ack = hs.irs + 1;
    }
    // offered in a SYN; in a SYN-ACK only when the peer's SYN carried it (then ourShift or
    // peerShift is set; with both 0 leaving it out changes nothing)
    s.windowScale = synSent || hs.peerShift || hs.ourShift;
    s.shift = hs.ourShift;
    s.sackPermitted = synSent ? m_config.sack : hs.sack; // offered, or granted
    // exponential backoff, capped at 2^10 times the first timeout
    tx.timerNs = m_config.synTimeoutNs << std::min<uint32_t>(hs.synTries - 1, 10);
    return tx;
}

OffloadHandshakeRx
OffloadControlPlane::OnSegment(OffloadHandshake& hs, const WireSegment& seg) const
{
    OffloadHandshakeRx rx;
    const uint8_t flags = seg.flags;
    if (hs.state == OffloadCpState::ESTABLISHED)
    {
        rx.verdict = OffloadHandshakeVerdict::DATA_PATH; // RSTs included: RFC 5961 there
        return rx;
    }
    if (flags & RST)
    {
        // RFC 9293 3.10.7.3/4: in SYN-SENT an RST counts only if it acknowledges our SYN (the
        // peer refused the connection); in SYN-RECEIVED only if it sits exactly at the peer's
        // next sequence number (RFC 5961 3.2). Anything else is a blind guess.
        const bool acceptable = hs.state == OffloadCpState::SYN_SENT
                                    ? (flags & ACK) && seg.ack == hs.iss + 1
                                    : seg.seq == hs.irs + 1;
        rx.verdict =
            acceptable ? OffloadHandshakeVerdict::RESET : OffloadHandshakeVerdict::RST_IGNORED;
        return rx;
    }
    if (hs.state == OffloadCpState::SYN_SENT)
    {
        if ((flags & SYN) && (flags & ACK) && seg.ack == hs.iss + 1)
        {
            hs.irs = seg.seq;
            // an ECN-setup SYN-ACK: ECE without CWR (RFC 3168 6.1.1)
            hs.ecn = (flags & ECE) && !(flags & CWR);
            hs.sack = m_config.sack && seg.sackPermitted; // we offered it; the peer granted it
            hs.peerMss = seg.hasMss ? seg.mss : 0;
            if (seg.hasWindowScale)
            {
                hs.peerShift = seg.windowScale; // clamped to 14 by the parser (RFC 7323)
            }
            else
            {
                hs.ourShift = 0; // the peer does not scale: neither do we
            }
            hs.state = OffloadCpState::ESTABLISHED;
            rx.verdict = OffloadHandshakeVerdict::ESTABLISHED;
            rx.peerWindowBytes = seg.window; // unscaled in a SYN-ACK
            rx.sendAck = true;
            return rx;
        }
        if ((flags & SYN) && !(flags & ACK))
        {
            // Simultaneous open (RFC 9293 3.5, figure 8): the peer's SYN crossed ours. Go to
            // SYN-RECEIVED and answer with a SYN-ACK of our ISS; the peer's SYN-ACK (or ACK)
            // completes the handshake. Options as for a passive open: both SYNs are out.
            hs.state = OffloadCpState::SYN_RCVD;
            hs.irs = seg.seq;
            hs.ecn = (flags & ECE) && (flags & CWR); // both sent an ECN-setup SYN
            hs.sack = m_config.sack && seg.sackPermitted;
            hs.peerMss = seg.hasMss ? seg.mss : 0;
            if (seg.hasWindowScale)
            {
                hs.peerShift = seg.windowScale;
            }
            else
            {
                hs.ourShift = 0;
            }
            hs.synTries = 0; // the SYN-ACK gets its own SynRetries transmissions, as ns-3's
            rx.verdict = OffloadHandshakeVerdict::SEND_SYN_ACK;
            return rx;
        }
        rx.verdict = OffloadHandshakeVerdict::DROP; // not the SYN-ACK of our SYN
        return rx;
    }
    // SYN-RECEIVED
    if (hs.activeOpen && (flags & SYN) && (flags & ACK) && seg.seq == hs.irs &&
        seg.ack == hs.iss + 1)
    {
        // simultaneous open: the peer's SYN-ACK acknowledges our SYN (Linux accepts it in
        // SYN_RECV the same way: seq + 1 == rcv_nxt, ack == snd_nxt). Our SYN-ACK is the
        // peer's ACK, so none is sent.
        hs.state = OffloadCpState::ESTABLISHED;
        rx.verdict = OffloadHandshakeVerdict::ESTABLISHED;
        rx.peerWindowBytes = seg.window; // unscaled in a SYN-ACK
        return rx;
    }
    // a retransmitted SYN (our SYN-ACK timer answers it), or no ACK of our SYN-ACK
    if ((flags & SYN) || !(flags & ACK) || seg.ack != hs.iss + 1)
    {
        rx.verdict = OffloadHandshakeVerdict::DROP;
        return rx;
    }
    // ourShift is already 0 if the peer's SYN had no window-scale option (PassiveOpen).
    // It must not be reset when the peer announced shift 0: our SYN-ACK announced
    // ourShift, and the peer scales every later window of ours by it (RFC 7323).
    hs.state = OffloadCpState::ESTABLISHED;
    rx.verdict = OffloadHandshakeVerdict::ESTABLISHED;
    rx.peerWindowBytes = uint32_t(seg.window) << hs.peerShift;
    // data on the handshake's last segment goes on to the data path
    rx.dataFollows = seg.payloadLen > 0 || (flags & FIN);
    return rx;
}

bool
OffloadControlPlane::ShouldTearDown(const OffloadHandshake& hs, bool finAcked, bool peerClosed)
{
    return hs.state == OffloadCpState::ESTABLISHED && finAcked && peerClosed;
}

// ------------------------------------------------------------------ TIME-WAIT

uint64_t
OffloadControlPlane::Key(uint32_t peer, uint16_t peerPort, uint16_t localPort)
{
    return uint64_t(peer) << 32 | uint64_t(peerPort) << 16 | localPort;
}

void
OffloadControlPlane::EnterTimeWait(uint64_t key,
                                   uint64_t nowNs,
                                   uint32_t seq,
                                   uint32_t ack,
                                   uint16_t localPort,
                                   uint16_t peerPort)
{
    if (m_config.timeWaitNs == 0)
    {
        return;
    }
    // TIME-WAIT: the peer's last segments (a late ACK, a re-sent FIN) can still arrive;
    // without this they would go up to the host stack, which answers RST.
    ExpireTimeWait(nowNs); // bounds the table to the connections closed within TimeWait
    TimeWaitEntry& tw = m_timeWaitTable[key];
    tw.expiryNs = nowNs + m_config.timeWaitNs;
    tw.seq = seq;
    tw.ack = ack;
    tw.localPort = localPort;
    tw.peerPort = peerPort;
    m_timeWaitOrder.emplace_back(tw.expiryNs, key);
}

void
OffloadControlPlane::ExpireTimeWait(uint64_t nowNs)
{
    while (!m_timeWaitOrder.empty() && m_timeWaitOrder.front().first <= nowNs)
    {
        // forget expired entries (a 4-tuple torn down again meanwhile has a later expiry)
        auto old = m_timeWaitTable.find(m_timeWaitOrder.front().second);
        if (old != m_timeWaitTable.end() && old->second.expiryNs <= nowNs)
        {
            m_timeWaitTable.erase(old);
        }
        m_timeWaitOrder.pop_front();
    }
}

OffloadTimeWaitVerdict
OffloadControlPlane::OnTimeWaitSegment(uint64_t key,
                                       uint8_t flags,
                                       uint64_t nowNs,
                                       OffloadControlSegment& reAck)
{
    ExpireTimeWait(nowNs);
    auto it = m_timeWaitTable.find(key);
    if (it == m_timeWaitTable.end())
    {
        return OffloadTimeWaitVerdict::NONE;
    }
    if (!(flags & FIN))
    {
        return OffloadTimeWaitVerdict::ABSORB;
    }
    // the peer did not get our ACK of its FIN: ACK it again (RFC 9293 TIME-WAIT)
    const TimeWaitEntry& tw = it->second;
    reAck = OffloadControlSegment();
    reAck.localPort = tw.localPort;
    reAck.peerPort = tw.peerPort;
    reAck.seq = tw.seq;
    reAck.ack = tw.ack;
    reAck.flags = ACK;
    reAck.window = 0;
    return OffloadTimeWaitVerdict::RE_ACK;
}

size_t
OffloadControlPlane::GetTimeWaitSize() const
{
    return m_timeWaitTable.size();
}

} // namespace ns3
