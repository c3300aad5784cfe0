/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FABRIC_LAZY_HEADER_H
#define PRESTO_FABRIC_LAZY_HEADER_H

#include "ns3/packet.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <utility>

namespace ns3
{

/**
 * \ingroup presto
 * \brief A frame's header kept out of its bytes until something reads them.
 *
 * The fabric carries it beside the frame (FabricFrameFields::lazy) and knows nothing of its
 * format: a sender that wants to skip serialising a header on every segment (OffloadNetDevice
 * with virtual payload) makes the frame with a zero placeholder of the header's length and one
 * of these; whoever may read the bytes calls Write first. Written at most once.
 */
class FabricLazyHeader : public SimpleRefCount<FabricLazyHeader>
{
  public:
    virtual ~FabricLazyHeader() = default;

    /**
     * Write the header over the packet's zero placeholder, once.
     * \param packet the frame \param tos its TOS byte now (a switch may have marked it)
     */
    void Write(Packet& packet, uint8_t tos)
    {
        if (!m_written)
        {
            m_written = true;
            DoWrite(packet, tos);
        }
    }

    /** \return whether Write ran */
    bool IsWritten() const
    {
        return m_written;
    }

  private:
    /** \copydoc Write */
    virtual void DoWrite(Packet& packet, uint8_t tos) = 0;
    bool m_written{false}; //!< Write ran
};

/**
 * \ingroup presto
 * \brief The owning reference to a FabricLazyHeader that a frame's fields carry.
 *
 * Like Ptr, but movable: a frame passes from an arrival event to a switch to the next arrival
 * event by moves, which leave the header's reference count, and so its cache line, untouched
 * (in a large fabric that line has usually left the cache between two hops). ns-3's Ptr has no
 * move constructor before ns-3.38.
 */
class FabricLazyHeaderRef
{
  public:
    FabricLazyHeaderRef() = default;

    /** \param header a header just made with new (its count, 1, is taken over) */
    explicit FabricLazyHeaderRef(FabricLazyHeader* header)
        : m_header(header)
    {
    }

    /** \param other shared: one more reference */
    FabricLazyHeaderRef(const FabricLazyHeaderRef& other)
        : m_header(other.m_header)
    {
        if (m_header)
        {
            m_header->Ref();
        }
    }

    /** \param other taken over, without touching the header (it stays as it is) */
    FabricLazyHeaderRef(FabricLazyHeaderRef&& other) noexcept
        : m_header(other.m_header)
    {
        other.m_header = nullptr;
    }

    /** \param other shared \return this */
    FabricLazyHeaderRef& operator=(const FabricLazyHeaderRef& other)
    {
        FabricLazyHeaderRef copy(other);
        std::swap(m_header, copy.m_header);
        return *this;
    }

    /** \param other taken over \return this */
    FabricLazyHeaderRef& operator=(FabricLazyHeaderRef&& other) noexcept
    {
        std::swap(m_header, other.m_header);
        return *this;
    }

    ~FabricLazyHeaderRef()
    {
        if (m_header)
        {
            m_header->Unref();
        }
    }

    /** \return the header, or nullptr */
    FabricLazyHeader* Get() const
    {
        return m_header;
    }

    /** \return whether a header is held */
    explicit operator bool() const
    {
        return m_header != nullptr;
    }

  private:
    FabricLazyHeader* m_header{nullptr}; //!< held header, or nullptr
};

} // namespace ns3

#endif // PRESTO_FABRIC_LAZY_HEADER_H
