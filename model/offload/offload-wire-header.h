/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_WIRE_HEADER_H
#define PRESTO_OFFLOAD_WIRE_HEADER_H

#include "offload-wire.h"

#include "ns3/fabric-lazy-header.h"
#include "ns3/header.h"
#include "ns3/packet.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The IPv4 and TCP headers of a segment the offload NIC sends, written in one step.
 *
 * The bytes are BuildWire's, the same ns-3's Ipv4Header and TcpHeader produce for the same
 * fields (checksums too, computed as they compute them), so an ns-3 TCP peer, a switch and a
 * pcap reader see no difference; one header write replaces two serialisers and the TCP option
 * objects. Packet metadata records this type, not Ipv4Header and TcpHeader: while metadata is
 * on (PacketMetadataEnabled), a sender uses AddNs3WireHeaders instead, so that printing shows
 * ns-3's headers and checking finds the ones ns-3's stack removes.
 */
class OffloadWireHeader : public Header
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    OffloadWireHeader() = default;
    /**
     * \param s the fields
     * \param checksums fill the IPv4 and TCP checksums (the TCP one over the payload that
     * follows in the packet)
     */
    OffloadWireHeader(const WireSegmentOut& s, bool checksums);

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /** \param tos the IPv4 TOS byte to write instead of the fields' (an ECN mark) */
    void SetTos(uint8_t tos)
    {
        m_bytes[1] = tos;
    }

  private:
    /// IPv4 with options (60) and TCP with options (60), what Deserialize may meet
    std::array<uint8_t, 120> m_bytes{};
    uint32_t m_length{0};    //!< header bytes in m_bytes
    bool m_checksums{false}; //!< fill the checksums in Serialize
};

/**
 * \ingroup presto
 * \brief A segment's headers carried beside its frame as fields (FabricFrameFields::lazy):
 * the frame holds a zero placeholder of their length, written with OffloadWireHeader's bytes
 * only when something reads them.
 */
class OffloadLazyWireHeader : public FabricLazyHeader
{
  public:
    /** \param s the fields */
    explicit OffloadLazyWireHeader(const WireSegmentOut& s);

    /** \return the fields as sent */
    const WireSegmentOut& GetFields() const
    {
        return m_fields;
    }

    /**
     * Process-wide counts since the start (tests and benchmarks read them). Out of line, so
     * that a caller reads the library's counts, not a copy in its own binary.
     * \param[out] made headers sent as fields
     * \param[out] written of those, the ones written into their frame's bytes
     */
    static void GetCounts(uint64_t& made, uint64_t& written);

  private:
    void DoWrite(Packet& packet, uint8_t tos) override;
    WireSegmentOut m_fields;   //!< the fields as sent
    static uint64_t s_made;    //!< headers made, all of the process
    static uint64_t s_written; //!< of those, written into bytes
};

/**
 * \ingroup presto
 * \brief Put ns-3's own Ipv4Header and TcpHeader for the fields in front of the payload: the
 * same bytes as OffloadWireHeader (the reference of its tests), with ns-3's metadata.
 * \param packet the payload
 * \param s the fields
 * \param checksums fill the IPv4 and TCP checksums
 */
void AddNs3WireHeaders(Ptr<Packet> packet, const WireSegmentOut& s, bool checksums);

/**
 * \ingroup presto
 * \return whether ns-3 records packet metadata (Packet::EnablePrinting or EnableChecking were
 * called); a probe packet tells, as ns-3 has no getter. Call it only once packets are being
 * made anyway (in the run): while metadata is off the probe's header makes ns-3 refuse to
 * enable it later, as any packet with a header does.
 */
bool PacketMetadataEnabled();

} // namespace ns3

#endif // PRESTO_OFFLOAD_WIRE_HEADER_H
