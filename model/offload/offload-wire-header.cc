/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-wire-header.h"

#include "ns3/ipv4-header.h"
#include "ns3/ppp-header.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-option-sack-permitted.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-option-winscale.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(OffloadWireHeader);

namespace
{

constexpr uint8_t PROTO_TCP = 6;

/**
 * The pseudo-header's partial sum as TcpHeader::CalculateHeaderChecksum leaves it (16-bit
 * words read in host order, as Buffer::Iterator::ReadU16 reads them, folded, not inverted).
 */
uint16_t
PseudoHeaderSum(const uint8_t* ip, uint32_t tcpLength)
{
    uint8_t b[12];
    for (int i = 0; i < 8; ++i)
    {
        b[i] = ip[12 + i]; // source and destination addresses, network order
    }
    b[8] = 0;
    b[9] = PROTO_TCP;
    b[10] = static_cast<uint8_t>(tcpLength >> 8);
    b[11] = static_cast<uint8_t>(tcpLength);
    uint32_t sum = 0;
    for (int i = 0; i < 12; i += 2)
    {
        sum += uint32_t(b[i]) | uint32_t(b[i + 1]) << 8;
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(sum);
}

} // namespace

TypeId
OffloadWireHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OffloadWireHeader")
                            .SetParent<Header>()
                            .SetGroupName("Presto")
                            .AddConstructor<OffloadWireHeader>();
    return tid;
}

TypeId
OffloadWireHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

OffloadWireHeader::OffloadWireHeader(const WireSegmentOut& s, bool checksums)
    : m_length(BuildWire(s, m_bytes.data())),
      m_checksums(checksums)
{
}

uint64_t OffloadLazyWireHeader::s_made = 0;
uint64_t OffloadLazyWireHeader::s_written = 0;

OffloadLazyWireHeader::OffloadLazyWireHeader(const WireSegmentOut& s)
    : m_fields(s)
{
    ++s_made;
}

void
OffloadLazyWireHeader::GetCounts(uint64_t& made, uint64_t& written)
{
    made = s_made;
    written = s_written;
}

void
OffloadLazyWireHeader::DoWrite(Packet& packet, uint8_t tos)
{
    ++s_written;
    OffloadWireHeader h(m_fields, false);
    h.SetTos(tos);
    packet.RemoveAtStart(h.GetSerializedSize());
    packet.AddHeader(h);
}

uint32_t
OffloadWireHeader::GetSerializedSize() const
{
    return m_length;
}

void
OffloadWireHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    i.Write(m_bytes.data(), m_length);
    if (!m_checksums)
    {
        return;
    }
    // As TcpHeader and Ipv4Header compute them, step for step: the TCP checksum over the
    // segment (header and the payload behind it in the buffer) from the pseudo-header's sum,
    // then the IPv4 header checksum; both written in host order by WriteU16.
    const uint32_t ipLength = (m_bytes[0] & 0x0f) * 4u;
    const uint32_t tcpLength = start.GetSize() - ipLength;
    i = start;
    i.Next(ipLength);
    const uint16_t tcpSum = i.CalculateIpChecksum(static_cast<uint16_t>(tcpLength),
                                                  PseudoHeaderSum(m_bytes.data(), tcpLength));
    i = start;
    i.Next(ipLength + 16);
    i.WriteU16(tcpSum);
    i = start;
    const uint16_t ipSum = i.CalculateIpChecksum(static_cast<uint16_t>(ipLength));
    i = start;
    i.Next(10);
    i.WriteU16(ipSum);
}

uint32_t
OffloadWireHeader::Deserialize(Buffer::Iterator start)
{
    // the IPv4 header length from its first byte, the TCP one from its data offset; never
    // more than the buffer holds (a foreign or truncated frame: what is there)
    m_checksums = false;
    const uint32_t avail = std::min<uint32_t>(start.GetRemainingSize(), m_bytes.size());
    Buffer::Iterator i = start;
    if (avail < 20)
    {
        m_length = avail;
        i.Read(m_bytes.data(), m_length);
        return m_length;
    }
    const uint8_t first = i.ReadU8();
    const uint32_t ipLength = std::max(20u, (first & 0x0f) * 4u);
    if (ipLength + 13 > avail)
    {
        m_length = avail;
        i = start;
        i.Read(m_bytes.data(), m_length);
        return m_length;
    }
    i = start;
    i.Read(m_bytes.data(), ipLength + 13);
    const uint32_t tcpLength = std::max(20u, (m_bytes[ipLength + 12] >> 4) * 4u);
    m_length = std::min(ipLength + tcpLength, avail);
    i = start;
    i.Read(m_bytes.data(), m_length);
    return m_length;
}

void
OffloadWireHeader::Print(std::ostream& os) const
{
    WireSegment w;
    const uint32_t total = uint32_t(m_bytes[2]) << 8 | m_bytes[3];
    ParseWire(m_bytes.data(), m_length, std::max(total, m_length), false, w);
    os << Ipv4Address(w.src) << ":" << w.srcPort << " > " << Ipv4Address(w.dst) << ":" << w.dstPort
       << " seq " << w.seq << " ack " << w.ack << " flags 0x" << std::hex << uint32_t(w.flags)
       << std::dec << " win " << w.window << " len " << w.payloadLen;
}

void
AddNs3WireHeaders(Ptr<Packet> packet, const WireSegmentOut& s, bool checksums)
{
    TcpHeader th;
    th.SetSourcePort(s.srcPort);
    th.SetDestinationPort(s.dstPort);
    th.SetSequenceNumber(SequenceNumber32(s.seq));
    th.SetAckNumber(SequenceNumber32(s.ack));
    th.SetFlags(s.flags);
    th.SetWindowSize(s.window);
    if (s.windowScale)
    {
        Ptr<TcpOptionWinScale> ws = CreateObject<TcpOptionWinScale>();
        ws->SetScale(s.shift);
        th.AppendOption(ws);
    }
    if (s.sackPermitted)
    {
        th.AppendOption(CreateObject<TcpOptionSackPermitted>());
    }
    const uint32_t blocks = s.sackBlocks < 4 ? s.sackBlocks : 4;
    if (blocks > 0)
    {
        Ptr<TcpOptionSack> sack = CreateObject<TcpOptionSack>();
        for (uint32_t b = 0; b < blocks; ++b)
        {
            sack->AddSackBlock({SequenceNumber32(s.sack[b][0]), SequenceNumber32(s.sack[b][1])});
        }
        th.AppendOption(sack);
    }
    const Ipv4Address src(s.src);
    const Ipv4Address dst(s.dst);
    if (checksums)
    {
        th.EnableChecksums();
        th.InitializeChecksum(src, dst, PROTO_TCP);
    }
    packet->AddHeader(th);
    Ipv4Header ih;
    ih.SetSource(src);
    ih.SetDestination(dst);
    ih.SetProtocol(PROTO_TCP);
    ih.SetTtl(64);
    ih.SetPayloadSize(packet->GetSize());
    ih.SetIdentification(s.ipId);
    ih.SetDontFragment();
    ih.SetEcn(s.ect ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_NotECT);
    if (checksums)
    {
        ih.EnableChecksum();
    }
    packet->AddHeader(ih);
}

bool
PacketMetadataEnabled()
{
    Ptr<Packet> probe = Create<Packet>();
    probe->AddHeader(PppHeader());
    return probe->BeginItem().HasNext();
}

} // namespace ns3
