/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_WIRE_H
#define PRESTO_OFFLOAD_WIRE_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Why a received frame is not a well-formed IPv4/TCP segment.
 */
enum class WireError : uint8_t
{
    NONE,             //!< well formed
    NOT_TCP,          //!< a valid IPv4 packet of another protocol (not an error: for the host)
    TRUNCATED_IP,     //!< fewer bytes than an IPv4 header
    BAD_IP_VERSION,   //!< version field is not 4
    BAD_IP_HEADER,    //!< header length below 20 bytes or beyond the packet
    BAD_TOTAL_LENGTH, //!< total length below the header or beyond the bytes present
    FRAGMENT,         //!< a fragment (the NIC does not reassemble IP)
    BAD_IP_CHECKSUM,  //!< IPv4 header checksum mismatch (checked when enabled)
    TRUNCATED_TCP,    //!< fewer bytes than a TCP header
    BAD_DATA_OFFSET,  //!< TCP data offset below 5 words or beyond the segment
    BAD_OPTION,       //!< an option whose length is below 2, runs past the header, or whose
                      //!< length does not match its kind (MSS 4, window scale 3,
                      //!< SACK-permitted 2, timestamps 10)
    BAD_TCP_CHECKSUM, //!< TCP checksum mismatch (checked when enabled)
};

/**
 * \param e an error
 * \return its name as counted in reports, e.g. "bad_option"
 */
const char* WireErrorName(WireError e);

/**
 * \ingroup presto
 * \brief The fields of a received IPv4/TCP segment the offload NIC uses, parsed from the raw
 * bytes by ParseWire.
 */
struct WireSegment
{
    uint32_t src{0};                //!< IPv4 source address
    uint32_t dst{0};                //!< IPv4 destination address
    uint8_t ecn{0};                 //!< IPv4 ECN field (3: CE)
    uint16_t ipId{0};               //!< IPv4 identification (a path label, when one is sent)
    uint16_t srcPort{0};            //!< TCP source port
    uint16_t dstPort{0};            //!< TCP destination port
    uint32_t seq{0};                //!< sequence number
    uint32_t ack{0};                //!< acknowledgement number
    uint8_t flags{0};               //!< TCP flags (the OffloadSegment constants)
    uint16_t window{0};             //!< window field, unscaled
    bool hasMss{false};             //!< MSS option present
    uint16_t mss{0};                //!< its value
    bool hasWindowScale{false};     //!< window-scale option present
    uint8_t windowScale{0};         //!< its shift, clamped to 14 (RFC 7323 2.3)
    bool windowScaleClamped{false}; //!< the peer announced more than 14
    bool sackPermitted{false};      //!< SACK-permitted option present
    uint32_t payloadOffset{0};      //!< offset of the payload in the parsed bytes
    uint32_t payloadLen{0};         //!< payload bytes (from the IPv4 total length)
};

/**
 * \ingroup presto
 * \brief Parse and check one IPv4/TCP segment from its raw bytes (starting at the IPv4
 * header). Pure logic: bounds-checked, no allocation, no exception, for any input.
 *
 * Checks, in order: at least 20 bytes; version 4; header length >= 20 and within the bytes;
 * total length >= header and <= bytes present (trailing bytes beyond it are ignored, as
 * Ethernet padding); not a fragment (MF set or offset != 0); the IPv4 checksum (when
 * checksums are on); protocol TCP (else NOT_TCP); a 20-byte TCP header; data offset >= 5
 * words and within the segment; every option well formed (kinds 0 end, 1 no-op; any other
 * kind has a length byte >= 2 that stays within the header; MSS must be 4, window scale 3,
 * SACK-permitted 2, timestamps 10); the TCP checksum over the pseudo-header (when checksums
 * are on; then all bytes of the segment must be given).
 * \param data the bytes
 * \param len how many are given (may be just the headers when checksums are off)
 * \param totalLen bytes of the whole packet (>= len)
 * \param verifyChecksums check the IPv4 and TCP checksums
 * \param out the fields (valid when NONE is returned; partly filled otherwise)
 * \return NONE or the first problem found
 */
WireError ParseWire(const uint8_t* data,
                    uint32_t len,
                    uint32_t totalLen,
                    bool verifyChecksums,
                    WireSegment& out);

/**
 * \ingroup presto
 * \brief The header fields of an IPv4/TCP segment the offload NIC sends, written by BuildWire.
 */
struct WireSegmentOut
{
    uint32_t src{0};           //!< IPv4 source address
    uint32_t dst{0};           //!< IPv4 destination address
    uint16_t ipId{0};          //!< IPv4 identification
    bool ect{false};           //!< ECN field ECT(0), else Not-ECT
    uint16_t srcPort{0};       //!< TCP source port
    uint16_t dstPort{0};       //!< TCP destination port
    uint32_t seq{0};           //!< sequence number
    uint32_t ack{0};           //!< acknowledgement number
    uint8_t flags{0};          //!< TCP flags (the OffloadSegment constants)
    uint16_t window{0};        //!< window field as sent (already scaled down)
    bool windowScale{false};   //!< carry a window-scale option (first)
    uint8_t shift{0};          //!< its shift
    bool sackPermitted{false}; //!< carry a SACK-permitted option (after window scale)
    uint8_t sackBlocks{0};     //!< SACK blocks to carry (0: no SACK option; at most 4)
    uint32_t payloadLen{0};    //!< payload bytes after the headers
    /// their [left, right) edges (last: a receiver of the fields as a lazy header reads all
    /// the members above, in the object's first cache line, and these only to write bytes)
    uint32_t sack[4][2]{};
};

/**
 * \ingroup presto
 * \brief The IPv4 TOS byte of a segment the offload NIC sends (DSCP 0). Pure logic.
 * \param s the fields
 * \return ECT(0) in the ECN bits if s.ect, else 0
 */
inline uint8_t
WireTos(const WireSegmentOut& s)
{
    return s.ect ? 0x02 : 0x00;
}

/// The longest header BuildWire writes: IPv4 without options and TCP with 40 option bytes.
constexpr uint32_t WIRE_MAX_HEADER_BYTES = 80;

/**
 * \ingroup presto
 * \brief Write the IPv4 and TCP headers of a segment as ns-3's Ipv4Header and TcpHeader
 * serialise them (DSCP 0, TTL 64, Don't Fragment, urgent pointer 0; options in the order
 * window scale, SACK-permitted, SACK, padded with END to a multiple of 4 bytes), both checksum
 * fields 0. Pure logic.
 * \param s the fields (sackBlocks above 4 counts as 4)
 * \param out at least WIRE_MAX_HEADER_BYTES bytes
 * \return the header length written (IPv4 + TCP)
 */
uint32_t BuildWire(const WireSegmentOut& s, uint8_t* out);

/**
 * \ingroup presto
 * \brief The header length BuildWire writes for s, without writing it. Pure logic.
 * \param s the fields
 * \return bytes of the IPv4 and TCP headers
 */
uint32_t WireHeaderLength(const WireSegmentOut& s);

/**
 * \ingroup presto
 * \brief What ParseWire returns for the bytes BuildWire writes for s (checksums off), without
 * the bytes: the receiving end of a header carried as fields. Pure logic.
 * \param s the fields as sent
 * \param ecn the ECN field on arrival (a switch may have marked it CE)
 * \param out the parsed fields
 */
void WireFieldsAsParsed(const WireSegmentOut& s, uint8_t ecn, WireSegment& out);

/**
 * \ingroup presto
 * \brief The Internet checksum (RFC 1071) of a byte range, continuing a partial sum.
 * \param data bytes \param len how many \param sum partial sum (0 to start)
 * \return the folded one's-complement sum (not inverted)
 */
uint16_t InternetChecksum(const uint8_t* data, uint32_t len, uint32_t sum = 0);

} // namespace ns3

#endif // PRESTO_OFFLOAD_WIRE_H
