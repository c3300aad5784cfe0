/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PAYLOAD_PATTERN_H
#define PRESTO_PAYLOAD_PATTERN_H

#include <cstddef>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Fill a buffer with the payload of a flow: byte o of flow f is a fixed pseudo-random
 * function of (f, o), so a receiver can check every byte it is given, wherever it sits in the
 * stream, without the sender's buffers.
 * \param flowId the flow
 * \param offset stream offset of buf[0]
 * \param buf the buffer
 * \param len bytes to fill
 */
void FillPayload(uint32_t flowId, uint64_t offset, uint8_t* buf, size_t len);

/**
 * \ingroup presto
 * \brief Checks that a flow's bytes reach the application exactly once, in order, unaltered.
 *
 * Feed it every chunk the receiving application reads, in the order read. Bytes are
 * compared with FillPayload's pattern at the offset they should have; bytes past the flow's
 * size are excess (a duplicate delivery or a wrong length).
 */
class PayloadVerifier
{
  public:
    /**
     * \param flowId the flow
     * \param sizeBytes the flow's size
     */
    PayloadVerifier(uint32_t flowId, uint64_t sizeBytes);

    /**
     * \param data the chunk read by the application
     * \param len its length
     */
    void Deliver(const uint8_t* data, size_t len);

    /**
     * \brief A chunk whose bytes are not compared (virtual payload): only counted, so the
     * flow completes when exactly its size arrived and anything beyond is excess.
     * \param len its length
     */
    void Count(size_t len);

    /** \return true once exactly sizeBytes correct bytes arrived and nothing else */
    bool IsComplete() const;
    /** \return bytes delivered so far (correct or not, within the size) */
    uint64_t GetDelivered() const;
    /** \return bytes that differed from the pattern */
    uint64_t GetCorrupt() const;
    /** \return bytes delivered beyond the flow's size */
    uint64_t GetExcess() const;

  private:
    uint32_t m_flowId;    //!< flow
    uint64_t m_size;      //!< expected bytes
    uint64_t m_delivered; //!< in-size bytes seen
    uint64_t m_corrupt;   //!< mismatches
    uint64_t m_excess;    //!< beyond size
};

} // namespace ns3

#endif // PRESTO_PAYLOAD_PATTERN_H
