/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadWireHeader writes the same bytes as ns-3's Ipv4Header and TcpHeader for the same
// fields (checksums on and off, no payload, zero-filled and real payload, every option
// combination the NIC sends), ParseWire reads the fields back, and ns-3's own headers are
// used while packet metadata is on.

#include "ns3/ipv4-header.h"
#include "ns3/offload-wire-header.h"
#include "ns3/packet.h"
#include "ns3/tcp-header.h"

#include <gtest/gtest.h>
#include <random>
#include <vector>

using namespace ns3;

namespace
{

/// Random header fields as the NIC sends them (options of a SYN, or SACK blocks, or none).
WireSegmentOut
RandomFields(std::mt19937& rng)
{
    std::uniform_int_distribution<uint32_t> u32;
    WireSegmentOut w;
    w.src = u32(rng);
    w.dst = u32(rng);
    w.ipId = static_cast<uint16_t>(u32(rng));
    w.ect = u32(rng) % 2;
    w.srcPort = static_cast<uint16_t>(u32(rng));
    w.dstPort = static_cast<uint16_t>(u32(rng));
    w.seq = u32(rng);
    w.ack = u32(rng);
    w.flags = static_cast<uint8_t>(u32(rng));
    w.window = static_cast<uint16_t>(u32(rng));
    switch (u32(rng) % 3)
    {
    case 0: // a SYN's options, each present or not
        w.windowScale = u32(rng) % 2;
        w.shift = static_cast<uint8_t>(u32(rng) % 15);
        w.sackPermitted = u32(rng) % 2;
        break;
    case 1: // SACK blocks
        w.sackBlocks = static_cast<uint8_t>(1 + u32(rng) % 4);
        for (auto& block : w.sack)
        {
            block[0] = u32(rng);
            block[1] = u32(rng);
        }
        break;
    default:
        break;
    }
    return w;
}

/// A payload of n bytes: virtual (zero-filled) or real random bytes.
Ptr<Packet>
Payload(std::mt19937& rng, uint32_t n, bool real)
{
    if (!real)
    {
        return Create<Packet>(n);
    }
    std::vector<uint8_t> bytes(n);
    for (auto& b : bytes)
    {
        b = static_cast<uint8_t>(rng());
    }
    return Create<Packet>(bytes.data(), n);
}

std::vector<uint8_t>
Bytes(Ptr<const Packet> p)
{
    std::vector<uint8_t> out(p->GetSize());
    p->CopyData(out.data(), out.size());
    return out;
}

} // namespace

TEST(OffloadWireHeader, SameBytesAsNs3HeadersForRandomSegments)
{
    std::mt19937 rng(7);
    for (int i = 0; i < 5000; ++i)
    {
        WireSegmentOut w = RandomFields(rng);
        const uint32_t sizes[] = {0, 1, 7, 536, 1448};
        const uint32_t n = sizes[rng() % 5];
        const bool real = rng() % 2;
        const bool checksums = rng() % 2;
        Ptr<Packet> payload = Payload(rng, n, real);
        w.payloadLen = n;
        Ptr<Packet> ours = payload->Copy();
        ours->AddHeader(OffloadWireHeader(w, checksums));
        Ptr<Packet> ns3 = payload->Copy();
        AddNs3WireHeaders(ns3, w, checksums);
        ASSERT_EQ(Bytes(ours), Bytes(ns3))
            << "case " << i << ": payload " << n << (real ? " real" : " zero") << ", checksums "
            << checksums << ", sack blocks " << int(w.sackBlocks) << ", window scale "
            << w.windowScale << ", sack permitted " << w.sackPermitted;
    }
}

TEST(OffloadWireHeader, ParseWireReadsTheFieldsBackAndChecksumsVerify)
{
    std::mt19937 rng(11);
    for (int i = 0; i < 2000; ++i)
    {
        WireSegmentOut w = RandomFields(rng);
        w.flags &= ~0x02; // window scale is read back from SYNs only; keep the flags simple
        const uint32_t n = rng() % 1500;
        w.payloadLen = n;
        Ptr<Packet> p = Payload(rng, n, true);
        p->AddHeader(OffloadWireHeader(w, true));
        const std::vector<uint8_t> b = Bytes(p);
        WireSegment r;
        ASSERT_EQ(ParseWire(b.data(), b.size(), b.size(), true, r), WireError::NONE) << i;
        EXPECT_EQ(r.src, w.src);
        EXPECT_EQ(r.dst, w.dst);
        EXPECT_EQ(r.ecn, w.ect ? 2 : 0);
        EXPECT_EQ(r.srcPort, w.srcPort);
        EXPECT_EQ(r.dstPort, w.dstPort);
        EXPECT_EQ(r.seq, w.seq);
        EXPECT_EQ(r.ack, w.ack);
        EXPECT_EQ(r.flags, w.flags);
        EXPECT_EQ(r.window, w.window);
        EXPECT_EQ(r.sackPermitted, w.sackPermitted);
        EXPECT_EQ(r.payloadLen, n);
        EXPECT_EQ(r.payloadOffset + n, b.size());
    }
}

TEST(OffloadWireHeader, DeserializeTakesTheHeadersOff)
{
    std::mt19937 rng(3);
    for (int i = 0; i < 200; ++i)
    {
        WireSegmentOut w = RandomFields(rng);
        w.payloadLen = 100;
        Ptr<Packet> p = Create<Packet>(100);
        OffloadWireHeader h(w, false);
        p->AddHeader(h);
        OffloadWireHeader back;
        EXPECT_EQ(p->RemoveHeader(back), h.GetSerializedSize());
        EXPECT_EQ(p->GetSize(), 100u);
    }
}

TEST(OffloadWireHeader, DeserializeStaysWithinATruncatedFrame)
{
    // header lengths that claim more than the frame holds: what is there, nothing beyond
    for (const uint8_t first : {uint8_t(0x4f), uint8_t(0x45), uint8_t(0x41)})
    {
        for (uint32_t size : {0u, 10u, 25u, 33u, 40u, 70u})
        {
            std::vector<uint8_t> bytes(size, 0xff);
            if (size > 0)
            {
                bytes[0] = first;
            }
            Ptr<Packet> p = Create<Packet>(bytes.data(), size);
            OffloadWireHeader h;
            EXPECT_LE(p->PeekHeader(h), size) << "first byte " << int(first) << ", " << size;
        }
    }
}

TEST(OffloadWireHeader, Ns3HeadersWhilePacketMetadataIsOn)
{
    // Packet::EnableChecking cannot be undone, and ns-3 refuses it once a packet has had a
    // header without metadata (an asserts-enabled build stops): each in a child process
    EXPECT_EXIT(std::exit(PacketMetadataEnabled() ? 1 : 0), ::testing::ExitedWithCode(0), "");
    EXPECT_EXIT(
        {
            Packet::EnableChecking();
            const bool after = PacketMetadataEnabled();
            WireSegmentOut w;
            w.payloadLen = 10;
            w.flags = TcpHeader::ACK;
            Ptr<Packet> p = Create<Packet>(10);
            AddNs3WireHeaders(p, w, false);
            // what ns-3's stack does with it; checking would abort on a foreign header type
            Ipv4Header ih;
            TcpHeader th;
            p->RemoveHeader(ih);
            p->RemoveHeader(th);
            std::exit(after && p->GetSize() == 10 ? 0 : 1);
        },
        ::testing::ExitedWithCode(0),
        "");
}

namespace
{

/// The fields of two parsed segments, one by one (WireSegment has no operator==).
void
ExpectSameParse(const WireSegment& a, const WireSegment& b, int i)
{
    EXPECT_EQ(a.src, b.src) << i;
    EXPECT_EQ(a.dst, b.dst) << i;
    EXPECT_EQ(a.ecn, b.ecn) << i;
    EXPECT_EQ(a.ipId, b.ipId) << i;
    EXPECT_EQ(a.srcPort, b.srcPort) << i;
    EXPECT_EQ(a.dstPort, b.dstPort) << i;
    EXPECT_EQ(a.seq, b.seq) << i;
    EXPECT_EQ(a.ack, b.ack) << i;
    EXPECT_EQ(a.flags, b.flags) << i;
    EXPECT_EQ(a.window, b.window) << i;
    EXPECT_EQ(a.hasMss, b.hasMss) << i;
    EXPECT_EQ(a.mss, b.mss) << i;
    EXPECT_EQ(a.hasWindowScale, b.hasWindowScale) << i;
    EXPECT_EQ(a.windowScale, b.windowScale) << i;
    EXPECT_EQ(a.windowScaleClamped, b.windowScaleClamped) << i;
    EXPECT_EQ(a.sackPermitted, b.sackPermitted) << i;
    EXPECT_EQ(a.payloadOffset, b.payloadOffset) << i;
    EXPECT_EQ(a.payloadLen, b.payloadLen) << i;
}

} // namespace

TEST(OffloadWireHeader, FieldsAsParsedAreWhatParseWireReadsFromTheBytes)
{
    // the receiving NIC of a header carried as fields must see exactly what it would parse:
    // every option combination, shifts beyond 14 (clamped), every ECN value a switch leaves
    std::mt19937 rng(13);
    for (int i = 0; i < 5000; ++i)
    {
        WireSegmentOut w = RandomFields(rng);
        if (w.windowScale && rng() % 4 == 0)
        {
            w.shift = static_cast<uint8_t>(15 + rng() % 241); // a peer's out-of-range shift
        }
        w.payloadLen = rng() % 1500;
        const uint8_t ecn = static_cast<uint8_t>(rng() % 4);
        uint8_t bytes[WIRE_MAX_HEADER_BYTES];
        const uint32_t len = BuildWire(w, bytes);
        ASSERT_EQ(WireHeaderLength(w), len) << i;
        bytes[1] = static_cast<uint8_t>((bytes[1] & 0xfc) | ecn);
        WireSegment parsed;
        ASSERT_EQ(ParseWire(bytes, len, len + w.payloadLen, false, parsed), WireError::NONE) << i;
        WireSegment fields;
        WireFieldsAsParsed(w, ecn, fields);
        ExpectSameParse(fields, parsed, i);
    }
}

TEST(OffloadWireHeader, LazyHeaderWritesOffloadWireHeadersBytesOnce)
{
    // a frame made of a zero placeholder and a virtual payload, its header written later with
    // the TOS byte of that moment, equals the frame written at once
    std::mt19937 rng(17);
    for (int i = 0; i < 2000; ++i)
    {
        WireSegmentOut w = RandomFields(rng);
        const uint32_t n = rng() % 1500;
        w.payloadLen = n;
        const uint8_t tos = static_cast<uint8_t>(WireTos(w) | (rng() % 2 ? 0x03 : 0x00));
        Ptr<Packet> eager = Create<Packet>(n);
        OffloadWireHeader h(w, false);
        h.SetTos(tos);
        eager->AddHeader(h);

        Ptr<Packet> lazy = Create<Packet>(WireHeaderLength(w) + n);
        ASSERT_EQ(lazy->GetSize(), eager->GetSize()) << i;
        Ptr<OffloadLazyWireHeader> header = Create<OffloadLazyWireHeader>(w);
        EXPECT_FALSE(header->IsWritten());
        header->Write(*lazy, tos);
        EXPECT_TRUE(header->IsWritten());
        ASSERT_EQ(Bytes(lazy), Bytes(eager)) << i;
        header->Write(*lazy, 0); // once only: a second reader finds the bytes as they are
        ASSERT_EQ(Bytes(lazy), Bytes(eager)) << i;
    }
}
