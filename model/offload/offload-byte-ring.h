/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_BYTE_RING_H
#define PRESTO_OFFLOAD_BYTE_RING_H

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief A host-memory socket buffer indexed by TCP sequence number, as TAS and FlexTOE lay
 * them out: the NIC writes payload straight to its place (also out of order) and reads
 * payload to (re)transmit from it; the application consumes or produces at one end.
 *
 * The ring holds the bytes in [head, head + capacity) of the sequence space, where head is
 * the first byte not yet consumed (receive) or not yet acknowledged (send). Pure logic.
 *
 * Memory follows use, not capacity: the bytes live in pages of PAGE_BYTES that are allocated
 * when first written and freed when the head passes them, so an idle connection holds no
 * buffer memory and a connection with one small RPC in flight holds one page (10,000
 * connections per host with 256 KiB buffers would otherwise take 5 GiB per host). A page
 * read before it was written reads as zeros.
 */
class OffloadByteRing
{
  public:
    /**
     * \param capacity bytes
     * \param headSeq sequence number of the first byte
     */
    OffloadByteRing(uint32_t capacity, uint32_t headSeq);

    /** \return capacity, bytes */
    uint32_t GetCapacity() const;
    /** \return sequence number of the first byte held */
    uint32_t GetHead() const;

    /**
     * \brief Copy bytes in at a sequence number (must lie in [head, head + capacity)).
     * \param seq sequence number of data[0]
     * \param data the bytes
     * \param len how many
     * \return false (and nothing written) if the range is not inside the window
     */
    bool Write(uint32_t seq, const uint8_t* data, uint32_t len);

    /**
     * \brief Copy bytes out from a sequence number.
     * \param seq sequence number of the first byte wanted
     * \param out destination
     * \param len how many
     * \return false (and nothing copied) if the range is not inside the window
     */
    bool Read(uint32_t seq, uint8_t* out, uint32_t len) const;

    /**
     * \brief Release bytes at the head (consumed by the application or acknowledged).
     * \param len bytes; at most the capacity
     */
    void Advance(uint32_t len);

    /** \return bytes of page memory allocated now */
    uint64_t GetAllocatedBytes() const;

    /// Size of one page of storage, bytes.
    static constexpr uint32_t PAGE_BYTES = 1024;

  private:
    /**
     * \brief Copy between the pages and a flat buffer.
     * \param offset bytes from the head
     * \param buf the flat buffer
     * \param len bytes
     * \param write true: buf -> pages (allocating), false: pages -> buf
     */
    void Copy(uint32_t offset, uint8_t* buf, uint32_t len, bool write);

    uint32_t m_capacity;                             //!< bytes
    uint32_t m_head;                                 //!< sequence number of the first byte
    uint32_t m_headInPage{0};                        //!< offset of the head in m_pages[0]
    std::vector<std::unique_ptr<uint8_t[]>> m_pages; //!< from the head's page on (null: unwritten)
};

/**
 * \ingroup presto
 * \brief A DMA channel between NIC and host memory (PCIe or an RDMA queue pair): transfers
 * are served in order at a bandwidth, each also paying a fixed latency. Pure logic.
 */
class OffloadDmaChannel
{
  public:
    /**
     * \param latencyNs per-transfer latency, ns
     * \param bandwidthBps bit/s (> 0)
     */
    OffloadDmaChannel(int64_t latencyNs = 0, double bandwidthBps = 1e12);

    /**
     * \brief Start a transfer now (or when the channel frees up).
     * \param nowNs the current time, ns
     * \param bytes transfer size
     * \return the time the data is in place at the other side, ns
     */
    int64_t Transfer(int64_t nowNs, uint32_t bytes);

    /** \return bytes moved so far */
    uint64_t GetBytes() const;
    /** \return transfers so far */
    uint64_t GetTransfers() const;

  private:
    int64_t m_latencyNs;  //!< fixed cost per transfer
    double m_nsPerByte;   //!< serialisation
    double m_busyUntilNs; //!< end of the last transfer's serialisation
    uint64_t m_bytes;     //!< counter
    uint64_t m_transfers; //!< counter
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_BYTE_RING_H
