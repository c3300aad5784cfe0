/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-wire.h"

// Pure logic (no ns-3): the offload NIC parses every received frame with it, and the unit
// tests (including a fuzzer) call it alone.

namespace ns3
{

namespace
{

constexpr uint8_t PROTO_TCP = 6;
constexpr uint8_t MAX_WINDOW_SCALE = 14; // RFC 7323 2.3

uint16_t
Be16(const uint8_t* p)
{
    return static_cast<uint16_t>(p[0] << 8 | p[1]);
}

uint32_t
Be32(const uint8_t* p)
{
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

/// 32-bit accumulator of 16-bit big-endian words (an odd last byte padded with zero).
uint32_t
SumWords(const uint8_t* data, uint32_t len, uint32_t sum)
{
    uint32_t i = 0;
    for (; i + 1 < len; i += 2)
    {
        sum += Be16(data + i);
        if (sum & 0x80000000u)
        {
            sum = (sum & 0xffff) + (sum >> 16); // keep headroom for long inputs
        }
    }
    if (i < len)
    {
        sum += uint32_t(data[i]) << 8;
    }
    return sum;
}

uint16_t
Fold(uint32_t sum)
{
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(sum);
}

/// Parse the TCP options in [p, end): false when one is malformed.
bool
ParseOptions(const uint8_t* p, const uint8_t* end, WireSegment& out)
{
    while (p < end)
    {
        const uint8_t kind = p[0];
        if (kind == 0)
        {
            return true; // end of option list
        }
        if (kind == 1)
        {
            ++p; // no-op
            continue;
        }
        if (end - p < 2)
        {
            return false; // no room for the length byte
        }
        const uint8_t olen = p[1];
        if (olen < 2 || olen > end - p)
        {
            return false; // a zero length would never advance; beyond the header is garbage
        }
        switch (kind)
        {
        case 2: // MSS
            if (olen != 4)
            {
                return false;
            }
            out.hasMss = true;
            out.mss = Be16(p + 2);
            break;
        case 3: // window scale
            if (olen != 3)
            {
                return false;
            }
            out.hasWindowScale = true;
            out.windowScale = p[2];
            if (out.windowScale > MAX_WINDOW_SCALE)
            {
                out.windowScale = MAX_WINDOW_SCALE; // RFC 7323: use 14, log it
                out.windowScaleClamped = true;
            }
            break;
        case 4: // SACK permitted
            if (olen != 2)
            {
                return false;
            }
            out.sackPermitted = true;
            break;
        case 8: // timestamps
            if (olen != 10)
            {
                return false;
            }
            break;
        default:
            break; // unknown kinds are skipped by their length (RFC 9293 3.1)
        }
        p += olen;
    }
    return true;
}

} // namespace

const char*
WireErrorName(WireError e)
{
    switch (e)
    {
    case WireError::NONE:
        return "none";
    case WireError::NOT_TCP:
        return "not_tcp";
    case WireError::TRUNCATED_IP:
        return "truncated_ip";
    case WireError::BAD_IP_VERSION:
        return "bad_ip_version";
    case WireError::BAD_IP_HEADER:
        return "bad_ip_header";
    case WireError::BAD_TOTAL_LENGTH:
        return "bad_total_length";
    case WireError::FRAGMENT:
        return "fragment";
    case WireError::BAD_IP_CHECKSUM:
        return "bad_ip_checksum";
    case WireError::TRUNCATED_TCP:
        return "truncated_tcp";
    case WireError::BAD_DATA_OFFSET:
        return "bad_data_offset";
    case WireError::BAD_OPTION:
        return "bad_option";
    case WireError::BAD_TCP_CHECKSUM:
        return "bad_tcp_checksum";
    }
    return "unknown";
}

uint16_t
InternetChecksum(const uint8_t* data, uint32_t len, uint32_t sum)
{
    return Fold(SumWords(data, len, sum));
}

WireError
ParseWire(const uint8_t* data,
          uint32_t len,
          uint32_t totalLen,
          bool verifyChecksums,
          WireSegment& out)
{
    out = WireSegment();
    if (len > totalLen)
    {
        len = totalLen;
    }
    // IPv4 header
    if (len < 20)
    {
        return WireError::TRUNCATED_IP;
    }
    if ((data[0] >> 4) != 4)
    {
        return WireError::BAD_IP_VERSION;
    }
    const uint32_t ihl = (data[0] & 0x0f) * 4u;
    if (ihl < 20 || ihl > len)
    {
        return WireError::BAD_IP_HEADER;
    }
    const uint32_t total = Be16(data + 2);
    if (total < ihl || total > totalLen)
    {
        return WireError::BAD_TOTAL_LENGTH;
    }
    const uint16_t frag = Be16(data + 6);
    if ((frag & 0x2000) != 0 || (frag & 0x1fff) != 0)
    {
        return WireError::FRAGMENT; // MF set, or a later fragment
    }
    if (verifyChecksums && InternetChecksum(data, ihl) != 0xffff)
    {
        return WireError::BAD_IP_CHECKSUM;
    }
    out.ecn = data[1] & 0x03;
    out.ipId = Be16(data + 4);
    out.src = Be32(data + 12);
    out.dst = Be32(data + 16);
    if (data[9] != PROTO_TCP)
    {
        return WireError::NOT_TCP;
    }
    // TCP header
    const uint32_t tcpLen = total - ihl; // the segment, header and payload
    if (tcpLen < 20 || ihl + 20 > len)
    {
        return WireError::TRUNCATED_TCP;
    }
    const uint8_t* t = data + ihl;
    const uint32_t doff = (t[12] >> 4) * 4u;
    if (doff < 20 || doff > tcpLen || ihl + doff > len)
    {
        return WireError::BAD_DATA_OFFSET;
    }
    out.srcPort = Be16(t);
    out.dstPort = Be16(t + 2);
    out.seq = Be32(t + 4);
    out.ack = Be32(t + 8);
    out.flags = t[13];
    out.window = Be16(t + 14);
    if (!ParseOptions(t + 20, t + doff, out))
    {
        return WireError::BAD_OPTION;
    }
    out.payloadOffset = ihl + doff;
    out.payloadLen = tcpLen - doff;
    if (verifyChecksums)
    {
        if (ihl + tcpLen > len)
        {
            return WireError::TRUNCATED_TCP; // the caller must give the whole segment
        }
        // pseudo-header: source, destination, zero + protocol, TCP length
        uint8_t pseudo[12];
        for (int i = 0; i < 8; ++i)
        {
            pseudo[i] = data[12 + i];
        }
        pseudo[8] = 0;
        pseudo[9] = PROTO_TCP;
        pseudo[10] = static_cast<uint8_t>(tcpLen >> 8);
        pseudo[11] = static_cast<uint8_t>(tcpLen);
        const uint32_t sum = SumWords(pseudo, 12, 0);
        if (InternetChecksum(t, tcpLen, sum) != 0xffff)
        {
            return WireError::BAD_TCP_CHECKSUM;
        }
    }
    return WireError::NONE;
}

namespace
{

uint8_t*
PutBe16(uint8_t* p, uint16_t v)
{
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
    return p + 2;
}

uint8_t*
PutBe32(uint8_t* p, uint32_t v)
{
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
    return p + 4;
}

} // namespace

uint32_t
WireHeaderLength(const WireSegmentOut& s)
{
    const uint32_t blocks = s.sackBlocks < 4 ? s.sackBlocks : 4;
    const uint32_t options =
        (s.windowScale ? 3 : 0) + (s.sackPermitted ? 2 : 0) + (blocks > 0 ? 2 + 8 * blocks : 0);
    return 40 + (options + 3) / 4 * 4;
}

void
WireFieldsAsParsed(const WireSegmentOut& s, uint8_t ecn, WireSegment& out)
{
    out = WireSegment();
    out.src = s.src;
    out.dst = s.dst;
    out.ecn = ecn & 0x03;
    out.ipId = s.ipId;
    out.srcPort = s.srcPort;
    out.dstPort = s.dstPort;
    out.seq = s.seq;
    out.ack = s.ack;
    out.flags = s.flags;
    out.window = s.window;
    if (s.windowScale)
    {
        out.hasWindowScale = true;
        out.windowScale = s.shift > MAX_WINDOW_SCALE ? MAX_WINDOW_SCALE : s.shift;
        out.windowScaleClamped = s.shift > MAX_WINDOW_SCALE;
    }
    out.sackPermitted = s.sackPermitted;
    out.payloadOffset = WireHeaderLength(s);
    out.payloadLen = s.payloadLen;
}

uint32_t
BuildWire(const WireSegmentOut& s, uint8_t* out)
{
    // TCP options first: their length sets the data offset and the IPv4 total length
    uint8_t* const tcp = out + 20;
    uint8_t* o = tcp + 20;
    if (s.windowScale)
    {
        *o++ = 3; // kind: window scale
        *o++ = 3;
        *o++ = s.shift;
    }
    if (s.sackPermitted)
    {
        *o++ = 4; // kind: SACK permitted
        *o++ = 2;
    }
    const uint32_t blocks = s.sackBlocks < 4 ? s.sackBlocks : 4;
    if (blocks > 0)
    {
        *o++ = 5; // kind: SACK
        *o++ = static_cast<uint8_t>(2 + 8 * blocks);
        for (uint32_t b = 0; b < blocks; ++b)
        {
            o = PutBe32(o, s.sack[b][0]);
            o = PutBe32(o, s.sack[b][1]);
        }
    }
    while ((o - tcp) % 4 != 0)
    {
        *o++ = 0; // END, as ns-3 pads
    }
    const uint32_t tcpHeader = static_cast<uint32_t>(o - tcp);
    // IPv4
    uint8_t* p = out;
    *p++ = 0x45;       // version 4, 5 words
    *p++ = WireTos(s); // DSCP 0, ECN ECT(0) or Not-ECT
    p = PutBe16(p, static_cast<uint16_t>(20 + tcpHeader + s.payloadLen));
    p = PutBe16(p, s.ipId);
    *p++ = 0x40; // Don't Fragment, offset 0
    *p++ = 0;
    *p++ = 64; // TTL
    *p++ = PROTO_TCP;
    p = PutBe16(p, 0); // checksum: filled by the caller when checksums are on
    p = PutBe32(p, s.src);
    p = PutBe32(p, s.dst);
    // TCP
    p = PutBe16(p, s.srcPort);
    p = PutBe16(p, s.dstPort);
    p = PutBe32(p, s.seq);
    p = PutBe32(p, s.ack);
    p = PutBe16(p, static_cast<uint16_t>((tcpHeader / 4) << 12 | s.flags));
    p = PutBe16(p, s.window);
    p = PutBe16(p, 0); // checksum
    PutBe16(p, 0);     // urgent pointer
    return 20 + tcpHeader;
}

} // namespace ns3
