/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/ipv4-header.h"
#include "ns3/offload-wire.h"
#include "ns3/packet.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-option-sack-permitted.h"
#include "ns3/tcp-option-ts.h"
#include "ns3/tcp-option-winscale.h"

#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace ns3;

namespace
{

/// A real IPv4/TCP segment serialised by ns-3's headers, with checksums.
std::vector<uint8_t>
Segment(uint32_t payload, bool options, uint8_t flags = TcpHeader::ACK, uint8_t ecn = 0)
{
    Ptr<Packet> p = Create<Packet>(payload);
    TcpHeader th;
    th.SetSourcePort(40000);
    th.SetDestinationPort(5000);
    th.SetSequenceNumber(SequenceNumber32(123456789));
    th.SetAckNumber(SequenceNumber32(987654321));
    th.SetFlags(flags);
    th.SetWindowSize(4321);
    if (options)
    {
        Ptr<TcpOptionWinScale> ws = CreateObject<TcpOptionWinScale>();
        ws->SetScale(7);
        th.AppendOption(ws);
        th.AppendOption(CreateObject<TcpOptionSackPermitted>());
        th.AppendOption(CreateObject<TcpOptionTS>());
    }
    th.EnableChecksums();
    th.InitializeChecksum(Ipv4Address("10.0.0.1"), Ipv4Address("10.0.1.2"), 6);
    p->AddHeader(th);
    Ipv4Header ih;
    ih.SetSource(Ipv4Address("10.0.0.1"));
    ih.SetDestination(Ipv4Address("10.0.1.2"));
    ih.SetProtocol(6);
    ih.SetTtl(64);
    ih.SetPayloadSize(p->GetSize());
    ih.SetDontFragment();
    ih.SetIdentification(0xbeef); // a path label, with sender-side spraying
    ih.SetEcn(static_cast<Ipv4Header::EcnType>(ecn));
    ih.EnableChecksum();
    p->AddHeader(ih);
    std::vector<uint8_t> b(p->GetSize());
    p->CopyData(b.data(), b.size());
    return b;
}

WireError
Parse(const std::vector<uint8_t>& b, WireSegment& s, bool checksums = true)
{
    return ParseWire(b.data(),
                     static_cast<uint32_t>(b.size()),
                     static_cast<uint32_t>(b.size()),
                     checksums,
                     s);
}

} // namespace

TEST(OffloadWire, ParsesWhatNs3Serialises)
{
    for (bool options : {false, true})
    {
        for (uint32_t payload : {0u, 1u, 1448u})
        {
            const auto b = Segment(payload, options, TcpHeader::SYN | TcpHeader::ACK, 3);
            WireSegment s;
            ASSERT_EQ(Parse(b, s), WireError::NONE) << "payload " << payload;
            EXPECT_EQ(s.src, Ipv4Address("10.0.0.1").Get());
            EXPECT_EQ(s.dst, Ipv4Address("10.0.1.2").Get());
            EXPECT_EQ(s.ecn, 3);
            EXPECT_EQ(s.ipId, 0xbeef);
            EXPECT_EQ(s.srcPort, 40000);
            EXPECT_EQ(s.dstPort, 5000);
            EXPECT_EQ(s.seq, 123456789u);
            EXPECT_EQ(s.ack, 987654321u);
            EXPECT_EQ(s.flags, TcpHeader::SYN | TcpHeader::ACK);
            EXPECT_EQ(s.window, 4321);
            EXPECT_EQ(s.payloadLen, payload);
            EXPECT_EQ(s.payloadOffset + s.payloadLen, b.size());
            EXPECT_EQ(s.hasWindowScale, options);
            EXPECT_EQ(s.windowScale, options ? 7 : 0);
            EXPECT_EQ(s.sackPermitted, options);
        }
    }
}

TEST(OffloadWire, ChecksumsAreVerifiedWhenAsked)
{
    auto b = Segment(100, true);
    WireSegment s;
    b[b.size() - 1] ^= 0x01; // one payload bit
    EXPECT_EQ(Parse(b, s, true), WireError::BAD_TCP_CHECKSUM);
    EXPECT_EQ(Parse(b, s, false), WireError::NONE);
    b[b.size() - 1] ^= 0x01;
    b[8] ^= 0x01; // TTL: the IPv4 header checksum
    EXPECT_EQ(Parse(b, s, true), WireError::BAD_IP_CHECKSUM);
}

TEST(OffloadWire, MalformedHeadersAreNamed)
{
    WireSegment s;
    const auto good = Segment(10, true);
    auto b = good;
    b[0] = 0x65; // version 6
    EXPECT_EQ(Parse(b, s, false), WireError::BAD_IP_VERSION);
    b = good;
    b[0] = 0x44; // IHL 16 bytes
    EXPECT_EQ(Parse(b, s, false), WireError::BAD_IP_HEADER);
    b = good;
    b[2] = 0xff; // total length beyond the bytes
    EXPECT_EQ(Parse(b, s, false), WireError::BAD_TOTAL_LENGTH);
    b = good;
    b[6] |= 0x20; // more fragments
    EXPECT_EQ(Parse(b, s, false), WireError::FRAGMENT);
    b = good;
    b[20 + 12] = 0x40; // data offset 4 words
    EXPECT_EQ(Parse(b, s, false), WireError::BAD_DATA_OFFSET);
    b = good;
    b[20 + 12] = 0xf0; // data offset 60 bytes, beyond the segment
    EXPECT_EQ(Parse(b, s, false), WireError::BAD_DATA_OFFSET);
    b = good;
    b[20 + 20 + 1] = 0; // the window-scale option's length: 0
    EXPECT_EQ(Parse(b, s, false), WireError::BAD_OPTION);
    b = good;
    b[20 + 20 + 1] = 4; // window scale with length 4
    EXPECT_EQ(Parse(b, s, false), WireError::BAD_OPTION);
    b = good;
    b[20 + 20 + 2] = 255; // window scale 255
    ASSERT_EQ(Parse(b, s, false), WireError::NONE);
    EXPECT_EQ(s.windowScale, 14) << "clamped (RFC 7323)";
    EXPECT_TRUE(s.windowScaleClamped);
    b = good;
    b.resize(30);
    EXPECT_EQ(ParseWire(b.data(), 30, 30, false, s), WireError::BAD_TOTAL_LENGTH);
    b = good;
    b[9] = 17; // UDP: not ours
    EXPECT_EQ(Parse(b, s, false), WireError::NOT_TCP);
    EXPECT_EQ(ParseWire(good.data(), 10, 10, false, s), WireError::TRUNCATED_IP);
}

TEST(OffloadWire, FuzzedFramesNeverEscapeTheirBounds)
{
    // 200,000 mutated and random frames: every one is parsed without reading past its end
    // (the parser gets a copy of exactly len bytes; ASan builds check it) and a segment it
    // accepts lies within the frame.
    std::mt19937 rng(20261202);
    uint64_t accepted = 0;
    for (int i = 0; i < 200000; ++i)
    {
        std::vector<uint8_t> b;
        if (i % 4 == 0)
        {
            b.resize(rng() % 120);
            for (auto& x : b)
            {
                x = static_cast<uint8_t>(rng());
            }
        }
        else
        {
            b = Segment(rng() % 200, rng() % 2 == 0);
            const int flips = 1 + rng() % 6;
            for (int f = 0; f < flips; ++f)
            {
                b[rng() % b.size()] = static_cast<uint8_t>(rng());
            }
            if (rng() % 5 == 0)
            {
                b.resize(rng() % (b.size() + 1));
            }
        }
        std::vector<uint8_t> exact(b); // heap block of exactly the frame's size
        WireSegment s;
        const WireError e = ParseWire(exact.data(),
                                      static_cast<uint32_t>(exact.size()),
                                      static_cast<uint32_t>(exact.size()),
                                      i % 2 == 0,
                                      s);
        if (e == WireError::NONE)
        {
            ++accepted;
            ASSERT_LE(uint64_t(s.payloadOffset) + s.payloadLen, exact.size()) << "frame " << i;
            ASSERT_LE(s.windowScale, 14);
        }
    }
    EXPECT_GT(accepted, 1000u) << "some mutations keep a valid segment";
}
