/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The offload NIC's TCP control plane as pure logic: handshakes (active, passive,
// simultaneous), SYN retransmission, RSTs during the handshake, TIME-WAIT and the option
// negotiation against what ns-3's TcpSocketBase sends. No simulator.
#include "ns3/offload-control-plane.h"
#include "ns3/offload-tcp-connection.h"

#include <cstdint>
#include <gtest/gtest.h>

using namespace ns3;

namespace
{

// TCP flags: OffloadSegment's, the one definition of the wire's flag bits
constexpr uint8_t FIN = OffloadSegment::FIN;
constexpr uint8_t SYN = OffloadSegment::SYN;
constexpr uint8_t RST = OffloadSegment::RST;
constexpr uint8_t ACK = OffloadSegment::ACK;
constexpr uint8_t ECE = OffloadSegment::ECE;
constexpr uint8_t CWR = OffloadSegment::CWR;

/// ns-3's TcpSocket RcvBufSize default (src/internet/model/tcp-socket.cc:69, 131072).
constexpr uint32_t NS3_RCVBUF = 131072;

/// What a peer receives of a control segment, as the NIC's wire parser gives it.
WireSegment
Received(const OffloadControlSegment& s)
{
    WireSegment w;
    w.seq = s.seq;
    w.ack = s.ack;
    w.flags = s.flags;
    w.window = s.window;
    w.hasWindowScale = s.windowScale;
    w.windowScale = s.shift;
    w.sackPermitted = s.sackPermitted;
    return w;
}

/// A segment with the given fields.
WireSegment
Segment(uint8_t flags, uint32_t seq, uint32_t ack, uint16_t window = 1000)
{
    WireSegment w;
    w.flags = flags;
    w.seq = seq;
    w.ack = ack;
    w.window = window;
    return w;
}

/**
 * The SYN ns-3's TcpSocketBase sends with UseEcn On and default attributes: SYN|ECE|CWR
 * (tcp-socket-base.cc:1067 in DoConnect, :3743 on retransmission), window scale 2 from
 * CalculateWScale (:4228) of RcvBufSize 131072 with MaxWindowSize 65535 (:94-98),
 * SACK-permitted (Sack true by default, :114).
 */
WireSegment
Ns3Syn(uint32_t seq)
{
    WireSegment w = Segment(SYN | ECE | CWR, seq, 0, 65535);
    w.hasWindowScale = true;
    w.windowScale = 2;
    w.sackPermitted = true;
    return w;
}

OffloadControlPlane
Plane(uint32_t synRetries = 6, uint64_t synTimeoutNs = 2000000, uint64_t timeWaitNs = 10000000)
{
    OffloadControlPlane cp;
    OffloadControlPlane::Config cfg;
    cfg.synRetries = synRetries;
    cfg.synTimeoutNs = synTimeoutNs;
    cfg.timeWaitNs = timeWaitNs;
    cp.SetConfig(cfg);
    return cp;
}

} // namespace

// ---------------------------------------------------------------- option negotiation

TEST(OffloadControlPlane, WindowScaleIsTcpSocketBaseCalculateWScale)
{
    // ns-3 tcp-socket-base.cc:4228 (CalculateWScale): halve the receive buffer while it
    // exceeds MaxWindowSize (65535, :94-98), one shift per halving, at most 14.
    auto ns3Scale = [](uint32_t maxSpace) {
        uint8_t scale = 0;
        while (maxSpace > 65535)
        {
            maxSpace >>= 1;
            ++scale;
        }
        return scale > 14 ? uint8_t(14) : scale;
    };
    for (uint32_t buf : {1000u,
                         65535u,
                         65536u,
                         131071u,
                         NS3_RCVBUF,
                         200000u,
                         1u << 20,
                         4u << 20,
                         (1u << 30) - 1,
                         0xffffffffu})
    {
        EXPECT_EQ(OffloadControlPlane::ShiftFor(buf), ns3Scale(buf)) << buf;
    }
    // the values the tests below rely on, stated: ns-3's default RcvBufSize scales by 2
    EXPECT_EQ(OffloadControlPlane::ShiftFor(NS3_RCVBUF), 2);
    EXPECT_EQ(OffloadControlPlane::ShiftFor(65535), 0);
    EXPECT_EQ(OffloadControlPlane::ShiftFor(4u << 20), 7);
    EXPECT_EQ(OffloadControlPlane::ShiftFor(0xffffffffu), 14);
}

TEST(OffloadControlPlane, ActiveOpenSendsTheSynTcpSocketBaseSends)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    cp.ActiveOpen(hs, 1000, NS3_RCVBUF);
    EXPECT_EQ(hs.state, OffloadCpState::SYN_SENT);
    EXPECT_TRUE(hs.activeOpen);
    OffloadHandshakeTx tx = cp.NextHandshake(hs);
    ASSERT_TRUE(tx.send);
    EXPECT_FALSE(tx.giveUp);
    // ECN-setup SYN: SYN|ECE|CWR, as TcpSocketBase with UseEcn On (tcp-socket-base.cc:1067)
    EXPECT_EQ(tx.segment.flags, SYN | ECE | CWR);
    EXPECT_EQ(tx.segment.seq, 1000u);
    EXPECT_EQ(tx.segment.window, 65535); // a SYN's window is never scaled
    // the same buffer gives the same shift as ns-3's (2 for 131072, CalculateWScale :4228)
    EXPECT_TRUE(tx.segment.windowScale);
    EXPECT_EQ(tx.segment.shift, 2);
    EXPECT_TRUE(tx.segment.sackPermitted);
    EXPECT_EQ(tx.timerNs, 2000000u);
}

TEST(OffloadControlPlane, PassiveOpenAnswersAnNs3SynLikeNs3)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    cp.PassiveOpen(hs, Ns3Syn(5000), 9000, NS3_RCVBUF);
    EXPECT_EQ(hs.state, OffloadCpState::SYN_RCVD);
    EXPECT_FALSE(hs.activeOpen);
    EXPECT_EQ(hs.irs, 5000u);
    EXPECT_TRUE(hs.ecn);
    EXPECT_TRUE(hs.sack);
    EXPECT_EQ(hs.peerShift, 2);
    EXPECT_EQ(hs.ourShift, 2);
    OffloadHandshakeTx tx = cp.NextHandshake(hs);
    ASSERT_TRUE(tx.send);
    // an ECN-setup SYN-ACK is SYN|ACK|ECE without CWR, as ns-3 answers an ECN SYN
    // (tcp-socket-base.cc:3009 in CompleteFork, :2423 in SYN_RCVD, :2303 in SYN_SENT)
    EXPECT_EQ(tx.segment.flags, SYN | ACK | ECE);
    EXPECT_EQ(tx.segment.seq, 9000u);
    EXPECT_EQ(tx.segment.ack, 5001u);
    EXPECT_TRUE(tx.segment.windowScale);
    EXPECT_EQ(tx.segment.shift, 2);
    EXPECT_TRUE(tx.segment.sackPermitted);
}

TEST(OffloadControlPlane, PassiveOpenWithoutOptionsNegotiatesNothing)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    // ns-3 with UseEcn Off (its default, :164) sends a plain SYN (tcp-socket-base.cc:1071);
    // WindowScaling and Sack false leave out the options
    cp.PassiveOpen(hs, Segment(SYN, 5000, 0, 65535), 9000, 4u << 20);
    EXPECT_FALSE(hs.ecn);
    EXPECT_FALSE(hs.sack);
    EXPECT_EQ(hs.ourShift, 0); // no scaling unless both SYNs carry the option (RFC 7323)
    OffloadHandshakeTx tx = cp.NextHandshake(hs);
    EXPECT_EQ(tx.segment.flags, SYN | ACK);
    EXPECT_FALSE(tx.segment.windowScale);
    EXPECT_FALSE(tx.segment.sackPermitted);
    // a SYN with only ECE (not an ECN-setup SYN) does not negotiate ECN either
    OffloadHandshake hs2;
    cp.PassiveOpen(hs2, Segment(SYN | ECE, 5000, 0), 9000, NS3_RCVBUF);
    EXPECT_FALSE(hs2.ecn);
}

TEST(OffloadControlPlane, SynAckOfNs3CompletesTheActiveOpen)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    cp.ActiveOpen(hs, 1000, 4u << 20);
    cp.NextHandshake(hs);
    // ns-3's SYN-ACK to an ECN SYN: SYN|ACK|ECE (tcp-socket-base.cc:3009); ns-3 takes it as
    // ECN only with ECE and no CWR (:2333), and so does the NIC
    WireSegment synAck = Segment(SYN | ACK | ECE, 7000, 1001, 65535);
    synAck.hasWindowScale = true;
    synAck.windowScale = 2;
    synAck.sackPermitted = true;
    synAck.hasMss = true;
    synAck.mss = 1400;
    OffloadHandshakeRx rx = cp.OnSegment(hs, synAck);
    EXPECT_EQ(rx.verdict, OffloadHandshakeVerdict::ESTABLISHED);
    EXPECT_TRUE(rx.sendAck);
    EXPECT_FALSE(rx.dataFollows);
    EXPECT_EQ(rx.peerWindowBytes, 65535u); // a SYN-ACK's window is not scaled
    EXPECT_EQ(hs.state, OffloadCpState::ESTABLISHED);
    EXPECT_EQ(hs.irs, 7000u);
    EXPECT_TRUE(hs.ecn);
    EXPECT_TRUE(hs.sack);
    EXPECT_EQ(hs.peerShift, 2);
    EXPECT_EQ(hs.ourShift, 7);
    EXPECT_EQ(hs.peerMss, 1400);
    // a stale timer after the handshake does nothing
    OffloadHandshakeTx tx = cp.NextHandshake(hs);
    EXPECT_FALSE(tx.send);
    EXPECT_FALSE(tx.giveUp);
}

TEST(OffloadControlPlane, SynAckWithoutEcnOrScalingTurnsThemOff)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    cp.ActiveOpen(hs, 1000, 4u << 20);
    // ECE|CWR on a SYN-ACK is not an ECN-setup SYN-ACK (RFC 3168 6.1.1; ns-3 :2333)
    OffloadHandshakeRx rx = cp.OnSegment(hs, Segment(SYN | ACK | ECE | CWR, 7000, 1001));
    EXPECT_EQ(rx.verdict, OffloadHandshakeVerdict::ESTABLISHED);
    EXPECT_FALSE(hs.ecn);
    EXPECT_FALSE(hs.sack);
    EXPECT_EQ(hs.ourShift, 0); // the peer does not scale: neither do we
    EXPECT_EQ(hs.peerShift, 0);
}

TEST(OffloadControlPlane, SackIsNeitherOfferedNorGrantedWhenOff)
{
    OffloadControlPlane cp;
    OffloadControlPlane::Config cfg;
    cfg.sack = false;
    cp.SetConfig(cfg);
    OffloadHandshake hs;
    cp.ActiveOpen(hs, 1000, NS3_RCVBUF);
    EXPECT_FALSE(cp.NextHandshake(hs).segment.sackPermitted);
    OffloadHandshake passive;
    cp.PassiveOpen(passive, Ns3Syn(5000), 9000, NS3_RCVBUF);
    EXPECT_FALSE(passive.sack);
    EXPECT_FALSE(cp.NextHandshake(passive).segment.sackPermitted);
}

// ---------------------------------------------------------------- simultaneous open

TEST(OffloadControlPlane, SimultaneousOpenCompletesOnBothSides)
{
    OffloadControlPlane a = Plane();
    OffloadControlPlane b = Plane();
    OffloadHandshake ha;
    OffloadHandshake hb;
    a.ActiveOpen(ha, 1000, NS3_RCVBUF);
    b.ActiveOpen(hb, 7000, NS3_RCVBUF);
    const OffloadHandshakeTx synA = a.NextHandshake(ha);
    const OffloadHandshakeTx synB = b.NextHandshake(hb);
    // the SYNs cross: each side is in SYN-SENT and gets a SYN without ACK (RFC 9293 3.5)
    OffloadHandshakeRx ra = a.OnSegment(ha, Received(synB.segment));
    OffloadHandshakeRx rb = b.OnSegment(hb, Received(synA.segment));
    EXPECT_EQ(ra.verdict, OffloadHandshakeVerdict::SEND_SYN_ACK);
    EXPECT_EQ(rb.verdict, OffloadHandshakeVerdict::SEND_SYN_ACK);
    EXPECT_EQ(ha.state, OffloadCpState::SYN_RCVD);
    EXPECT_TRUE(ha.activeOpen);
    EXPECT_EQ(ha.irs, 7000u);
    EXPECT_EQ(ha.synTries, 0u); // the SYN-ACK gets its own retries
    // both SYNs were ECN-setup SYNs with window scale and SACK-permitted
    EXPECT_TRUE(ha.ecn);
    EXPECT_TRUE(ha.sack);
    EXPECT_EQ(ha.peerShift, 2);
    EXPECT_EQ(ha.ourShift, 2);
    // each answers with a SYN-ACK of its ISS
    const OffloadHandshakeTx synAckA = a.NextHandshake(ha);
    const OffloadHandshakeTx synAckB = b.NextHandshake(hb);
    ASSERT_TRUE(synAckA.send);
    EXPECT_EQ(synAckA.segment.flags, SYN | ACK | ECE);
    EXPECT_EQ(synAckA.segment.seq, 1000u);
    EXPECT_EQ(synAckA.segment.ack, 7001u);
    EXPECT_EQ(synAckA.timerNs, 2000000u);
    EXPECT_TRUE(synAckA.segment.windowScale);
    EXPECT_EQ(synAckA.segment.shift, 2);
    // each SYN-ACK completes the other side's handshake; no third segment is needed
    ra = a.OnSegment(ha, Received(synAckB.segment));
    rb = b.OnSegment(hb, Received(synAckA.segment));
    EXPECT_EQ(ra.verdict, OffloadHandshakeVerdict::ESTABLISHED);
    EXPECT_EQ(rb.verdict, OffloadHandshakeVerdict::ESTABLISHED);
    EXPECT_FALSE(ra.sendAck);
    EXPECT_EQ(ra.peerWindowBytes, 65535u); // unscaled in a SYN-ACK
    EXPECT_EQ(ha.state, OffloadCpState::ESTABLISHED);
    EXPECT_EQ(hb.state, OffloadCpState::ESTABLISHED);
    EXPECT_EQ(ha.iss, 1000u);
    EXPECT_EQ(ha.irs, 7000u);
    EXPECT_EQ(hb.irs, 1000u);
}

TEST(OffloadControlPlane, SimultaneousOpenAlsoCompletesOnAPlainAck)
{
    // the peer got our SYN-ACK first and answers with an ACK (as a passive side would)
    OffloadControlPlane a = Plane();
    OffloadHandshake ha;
    a.ActiveOpen(ha, 1000, NS3_RCVBUF);
    a.NextHandshake(ha);
    ASSERT_EQ(a.OnSegment(ha, Ns3Syn(7000)).verdict, OffloadHandshakeVerdict::SEND_SYN_ACK);
    a.NextHandshake(ha);
    const OffloadHandshakeRx rx = a.OnSegment(ha, Segment(ACK, 7001, 1001, 1000));
    EXPECT_EQ(rx.verdict, OffloadHandshakeVerdict::ESTABLISHED);
    EXPECT_EQ(rx.peerWindowBytes, 1000u << 2); // scaled by the peer's shift
    EXPECT_TRUE(ha.activeOpen);                // the device tells the socket, no accept
}

TEST(OffloadControlPlane, SimultaneousOpenWithoutPeerScalingTurnsOursOff)
{
    OffloadControlPlane a = Plane();
    OffloadHandshake ha;
    a.ActiveOpen(ha, 1000, NS3_RCVBUF);
    a.NextHandshake(ha);
    a.OnSegment(ha, Segment(SYN, 7000, 0, 65535));
    EXPECT_EQ(ha.ourShift, 0);
    EXPECT_FALSE(ha.ecn);
    const OffloadHandshakeTx tx = a.NextHandshake(ha);
    EXPECT_EQ(tx.segment.flags, SYN | ACK);
    EXPECT_FALSE(tx.segment.windowScale);
}

TEST(OffloadControlPlane, PassiveOpenDoesNotTakeASynAck)
{
    // a SYN-ACK to a passive open is no simultaneous open: dropped
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    cp.PassiveOpen(hs, Ns3Syn(5000), 9000, NS3_RCVBUF);
    EXPECT_EQ(cp.OnSegment(hs, Segment(SYN | ACK, 5000, 9001)).verdict,
              OffloadHandshakeVerdict::DROP);
    EXPECT_EQ(hs.state, OffloadCpState::SYN_RCVD);
}

// ---------------------------------------------------------------- retransmission

TEST(OffloadControlPlane, SynRetransmissionDoublesThenGivesUp)
{
    OffloadControlPlane cp = Plane(4, 1000000);
    OffloadHandshake hs;
    cp.ActiveOpen(hs, 1000, NS3_RCVBUF);
    const uint64_t expected[] = {1000000, 2000000, 4000000, 8000000};
    for (uint64_t timer : expected)
    {
        const OffloadHandshakeTx tx = cp.NextHandshake(hs);
        ASSERT_TRUE(tx.send);
        EXPECT_FALSE(tx.giveUp);
        EXPECT_EQ(tx.timerNs, timer);
        EXPECT_EQ(tx.segment.flags, SYN | ECE | CWR); // the same SYN each time
        EXPECT_EQ(tx.segment.seq, 1000u);
    }
    EXPECT_EQ(hs.synTries, 4u);
    const OffloadHandshakeTx last = cp.NextHandshake(hs);
    EXPECT_FALSE(last.send);
    EXPECT_TRUE(last.giveUp); // SynRetries transmissions, no answer: the device frees the slot
}

TEST(OffloadControlPlane, SynBackoffIsCappedAt1024Times)
{
    OffloadControlPlane cp = Plane(20, 1000);
    OffloadHandshake hs;
    cp.ActiveOpen(hs, 1000, NS3_RCVBUF);
    uint64_t timer = 0;
    for (int i = 0; i < 15; ++i)
    {
        timer = cp.NextHandshake(hs).timerNs;
    }
    EXPECT_EQ(timer, 1000u << 10);
}

TEST(OffloadControlPlane, SynAckRetransmissionCountsToo)
{
    OffloadControlPlane cp = Plane(2, 1000000);
    OffloadHandshake hs;
    cp.PassiveOpen(hs, Ns3Syn(5000), 9000, NS3_RCVBUF);
    EXPECT_EQ(cp.NextHandshake(hs).timerNs, 1000000u);
    // a retransmitted SYN is dropped: our SYN-ACK timer answers it
    EXPECT_EQ(cp.OnSegment(hs, Ns3Syn(5000)).verdict, OffloadHandshakeVerdict::DROP);
    const OffloadHandshakeTx second = cp.NextHandshake(hs);
    EXPECT_TRUE(second.send);
    EXPECT_EQ(second.timerNs, 2000000u);
    EXPECT_EQ(second.segment.flags, SYN | ACK | ECE);
    EXPECT_TRUE(cp.NextHandshake(hs).giveUp);
}

// ---------------------------------------------------------------- RST during the handshake

TEST(OffloadControlPlane, RstInSynSentMustAcknowledgeOurSyn)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    cp.ActiveOpen(hs, 1000, NS3_RCVBUF);
    cp.NextHandshake(hs);
    // RFC 9293 3.10.7.3: without ACK, or acknowledging anything but our SYN, it is ignored
    EXPECT_EQ(cp.OnSegment(hs, Segment(RST, 0, 0)).verdict, OffloadHandshakeVerdict::RST_IGNORED);
    EXPECT_EQ(cp.OnSegment(hs, Segment(RST | ACK, 0, 1000)).verdict,
              OffloadHandshakeVerdict::RST_IGNORED);
    EXPECT_EQ(cp.OnSegment(hs, Segment(RST | ACK, 0, 1002)).verdict,
              OffloadHandshakeVerdict::RST_IGNORED);
    EXPECT_EQ(hs.state, OffloadCpState::SYN_SENT);
    // ns-3 refusing a connection: RST|ACK acknowledging the SYN
    EXPECT_EQ(cp.OnSegment(hs, Segment(RST | ACK, 0, 1001)).verdict,
              OffloadHandshakeVerdict::RESET);
}

TEST(OffloadControlPlane, RstInSynReceivedMustSitAtTheExactSequence)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    cp.PassiveOpen(hs, Ns3Syn(5000), 9000, NS3_RCVBUF);
    cp.NextHandshake(hs);
    // RFC 9293 3.10.7.4 with RFC 5961 3.2: only at rcv_next (irs + 1) exactly
    for (uint32_t seq : {5000u, 5002u, 6000u, 4000u})
    {
        EXPECT_EQ(cp.OnSegment(hs, Segment(RST, seq, 0)).verdict,
                  OffloadHandshakeVerdict::RST_IGNORED)
            << seq;
    }
    EXPECT_EQ(hs.state, OffloadCpState::SYN_RCVD);
    EXPECT_EQ(cp.OnSegment(hs, Segment(RST | ACK, 5001, 9001)).verdict,
              OffloadHandshakeVerdict::RESET);
}

TEST(OffloadControlPlane, RstInSynReceivedAfterSimultaneousOpen)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    cp.ActiveOpen(hs, 1000, NS3_RCVBUF);
    cp.NextHandshake(hs);
    cp.OnSegment(hs, Ns3Syn(7000));
    ASSERT_EQ(hs.state, OffloadCpState::SYN_RCVD);
    EXPECT_EQ(cp.OnSegment(hs, Segment(RST | ACK, 7000, 1001)).verdict,
              OffloadHandshakeVerdict::RST_IGNORED);
    EXPECT_EQ(cp.OnSegment(hs, Segment(RST, 7001, 0)).verdict, OffloadHandshakeVerdict::RESET);
}

TEST(OffloadControlPlane, RstWhenEstablishedIsTheDataPaths)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    cp.ActiveOpen(hs, 1000, NS3_RCVBUF);
    cp.OnSegment(hs, Segment(SYN | ACK, 7000, 1001));
    ASSERT_EQ(hs.state, OffloadCpState::ESTABLISHED);
    // RFC 5961's acceptability of an RST on a synchronised connection is the data path's
    EXPECT_EQ(cp.OnSegment(hs, Segment(RST, 12345, 0)).verdict, OffloadHandshakeVerdict::DATA_PATH);
    EXPECT_EQ(cp.OnSegment(hs, Segment(ACK, 7001, 1001)).verdict,
              OffloadHandshakeVerdict::DATA_PATH);
}

// ---------------------------------------------------------------- other handshake segments

TEST(OffloadControlPlane, SegmentsNotFittingTheHandshakeAreDropped)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake active;
    cp.ActiveOpen(active, 1000, NS3_RCVBUF);
    EXPECT_EQ(cp.OnSegment(active, Segment(ACK, 7001, 1001)).verdict,
              OffloadHandshakeVerdict::DROP); // an ACK in SYN-SENT
    EXPECT_EQ(cp.OnSegment(active, Segment(SYN | ACK, 7000, 1000)).verdict,
              OffloadHandshakeVerdict::DROP); // a SYN-ACK of another SYN
    EXPECT_EQ(active.state, OffloadCpState::SYN_SENT);

    OffloadHandshake passive;
    cp.PassiveOpen(passive, Ns3Syn(5000), 9000, NS3_RCVBUF);
    EXPECT_EQ(cp.OnSegment(passive, Segment(0, 5001, 0)).verdict,
              OffloadHandshakeVerdict::DROP); // no ACK
    EXPECT_EQ(cp.OnSegment(passive, Segment(ACK, 5001, 9002)).verdict,
              OffloadHandshakeVerdict::DROP); // not the ACK of our SYN-ACK
    EXPECT_EQ(passive.state, OffloadCpState::SYN_RCVD);
}

TEST(OffloadControlPlane, ThirdSegmentWithDataGoesOnToTheDataPath)
{
    OffloadControlPlane cp = Plane();
    OffloadHandshake hs;
    cp.PassiveOpen(hs, Ns3Syn(5000), 9000, NS3_RCVBUF);
    cp.NextHandshake(hs);
    WireSegment ack = Segment(ACK, 5001, 9001, 500);
    ack.payloadLen = 100;
    const OffloadHandshakeRx rx = cp.OnSegment(hs, ack);
    EXPECT_EQ(rx.verdict, OffloadHandshakeVerdict::ESTABLISHED);
    EXPECT_TRUE(rx.dataFollows);
    EXPECT_FALSE(rx.sendAck);
    EXPECT_EQ(rx.peerWindowBytes, 500u << 2); // scaled by the shift the peer's SYN announced

    OffloadHandshake bare;
    cp.PassiveOpen(bare, Ns3Syn(5000), 9000, NS3_RCVBUF);
    EXPECT_FALSE(cp.OnSegment(bare, Segment(ACK, 5001, 9001)).dataFollows);
    OffloadHandshake fin;
    cp.PassiveOpen(fin, Ns3Syn(5000), 9000, NS3_RCVBUF);
    EXPECT_TRUE(cp.OnSegment(fin, Segment(ACK | FIN, 5001, 9001)).dataFollows);
}

// ---------------------------------------------------------------- teardown and TIME-WAIT

TEST(OffloadControlPlane, TeardownNeedsBothDirectionsDone)
{
    OffloadHandshake hs;
    hs.state = OffloadCpState::ESTABLISHED;
    EXPECT_FALSE(OffloadControlPlane::ShouldTearDown(hs, true, false));
    EXPECT_FALSE(OffloadControlPlane::ShouldTearDown(hs, false, true));
    EXPECT_TRUE(OffloadControlPlane::ShouldTearDown(hs, true, true));
    hs.state = OffloadCpState::SYN_RCVD;
    EXPECT_FALSE(OffloadControlPlane::ShouldTearDown(hs, true, true));
}

TEST(OffloadControlPlane, TimeWaitReAcksARetransmittedFinAndExpires)
{
    OffloadControlPlane cp = Plane(6, 2000000, 10000000);
    const uint64_t key = OffloadControlPlane::Key(0x0a000002, 5000, 49152);
    const uint64_t t0 = 1000000000;
    cp.EnterTimeWait(key, t0, 777, 888, 49152, 5000);
    EXPECT_EQ(cp.GetTimeWaitSize(), 1u);
    OffloadControlSegment reAck;
    // a late ACK is absorbed silently (the host stack would answer RST)
    EXPECT_EQ(cp.OnTimeWaitSegment(key, ACK, t0 + 1000, reAck), OffloadTimeWaitVerdict::ABSORB);
    // the peer's FIN again: our ACK of it was lost, ACK it again
    EXPECT_EQ(cp.OnTimeWaitSegment(key, FIN | ACK, t0 + 2000, reAck),
              OffloadTimeWaitVerdict::RE_ACK);
    EXPECT_EQ(reAck.flags, ACK);
    EXPECT_EQ(reAck.seq, 777u);
    EXPECT_EQ(reAck.ack, 888u);
    EXPECT_EQ(reAck.localPort, 49152);
    EXPECT_EQ(reAck.peerPort, 5000);
    EXPECT_EQ(reAck.window, 0);
    EXPECT_FALSE(reAck.windowScale);
    EXPECT_FALSE(reAck.sackPermitted);
    // another 4-tuple is not in TIME-WAIT
    EXPECT_EQ(cp.OnTimeWaitSegment(key + 1, FIN, t0 + 2000, reAck), OffloadTimeWaitVerdict::NONE);
    // forgotten at exactly TimeWait after the teardown
    EXPECT_EQ(cp.OnTimeWaitSegment(key, FIN, t0 + 10000000 - 1, reAck),
              OffloadTimeWaitVerdict::RE_ACK);
    EXPECT_EQ(cp.OnTimeWaitSegment(key, FIN, t0 + 10000000, reAck), OffloadTimeWaitVerdict::NONE);
    EXPECT_EQ(cp.GetTimeWaitSize(), 0u);
}

TEST(OffloadControlPlane, TimeWaitRestartsWhenTheTupleIsTornDownAgain)
{
    OffloadControlPlane cp = Plane(6, 2000000, 10000000);
    const uint64_t key = OffloadControlPlane::Key(0x0a000002, 5000, 49152);
    OffloadControlSegment reAck;
    cp.EnterTimeWait(key, 0, 1, 2, 49152, 5000);
    cp.EnterTimeWait(key, 5000000, 3, 4, 49152, 5000);
    // the first expiry passes; the second entry lives on with its own numbers
    EXPECT_EQ(cp.OnTimeWaitSegment(key, FIN, 12000000, reAck), OffloadTimeWaitVerdict::RE_ACK);
    EXPECT_EQ(reAck.seq, 3u);
    EXPECT_EQ(reAck.ack, 4u);
    EXPECT_EQ(cp.OnTimeWaitSegment(key, FIN, 15000000, reAck), OffloadTimeWaitVerdict::NONE);
}

TEST(OffloadControlPlane, NoTimeWaitWhenItIsZero)
{
    OffloadControlPlane cp = Plane(6, 2000000, 0);
    const uint64_t key = OffloadControlPlane::Key(0x0a000002, 5000, 49152);
    cp.EnterTimeWait(key, 0, 1, 2, 49152, 5000);
    EXPECT_EQ(cp.GetTimeWaitSize(), 0u);
    OffloadControlSegment reAck;
    EXPECT_EQ(cp.OnTimeWaitSegment(key, FIN, 0, reAck), OffloadTimeWaitVerdict::NONE);
}

// ---------------------------------------------------------------- ports and ISNs

TEST(OffloadControlPlane, PortsComeFromTheEphemeralRangeAndReturn)
{
    OffloadControlPlane cp;
    EXPECT_EQ(cp.AllocatePort(), 49152);
    EXPECT_EQ(cp.AllocatePort(), 49153);
    EXPECT_FALSE(cp.ReservePort(49152));
    EXPECT_TRUE(cp.ReservePort(5000));
    EXPECT_FALSE(cp.ReservePort(5000));
    cp.ReleasePort(5000);
    EXPECT_TRUE(cp.ReservePort(5000));
    EXPECT_TRUE(cp.ReservePort(49154)); // taken by hand: the cursor skips it
    EXPECT_EQ(cp.AllocatePort(), 49155);
    // exhaust the range, then one returns
    uint32_t got = 0;
    while (cp.AllocatePort() != 0)
    {
        ++got;
    }
    EXPECT_EQ(got, 65536u - 49156u);
    cp.ReleasePort(50000);
    EXPECT_EQ(cp.AllocatePort(), 50000);
}

TEST(OffloadControlPlane, InitialSequenceIsDeterministicAndBelow2To30)
{
    const uint32_t a = OffloadControlPlane::InitialSequence(0x0a000001, 0x0a000002, 49152, 5000);
    EXPECT_EQ(a, OffloadControlPlane::InitialSequence(0x0a000001, 0x0a000002, 49152, 5000));
    EXPECT_NE(a, OffloadControlPlane::InitialSequence(0x0a000001, 0x0a000002, 49153, 5000));
    for (uint16_t p = 0; p < 1000; ++p)
    {
        EXPECT_LT(OffloadControlPlane::InitialSequence(0x0a000001, 0x0a000002, p, 5000), 1u << 30);
    }
}
