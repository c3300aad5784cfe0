/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RMT_PHV_H
#define PRESTO_RMT_PHV_H

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/// \ingroup presto Handle of a PHV field (index into the layout), resolved once from its name.
using RmtFieldId = uint32_t;

/**
 * \ingroup presto
 * \brief The field declarations of a packet header vector (PHV): names and bit widths.
 *
 * Fields are declared once, by name, at configuration time; the packet path then uses only
 * the integer handles AddField() returns, so that no string is looked up per packet. A field
 * is at most 64 bits wide (a header field or a metadata word; wider headers are split into
 * several fields, as PHV containers are on real RMT hardware).
 */
class RmtPhvLayout
{
  public:
    /// Widest field, bits.
    static constexpr uint32_t MAX_FIELD_BITS = 64;

    /**
     * \brief Declare a field. Throws PrestoInputError on an empty or repeated name or a width
     * outside [1, 64].
     * \param name the field name, e.g. "ipv4.src" or "meta.conn_id"
     * \param bits the width in bits
     * \return the field's handle
     */
    RmtFieldId AddField(const std::string& name, uint32_t bits)
    {
        if (name.empty())
        {
            throw PrestoInputError("RMT PHV: a field needs a non-empty name");
        }
        if (bits < 1 || bits > MAX_FIELD_BITS)
        {
            throw PrestoInputError("RMT PHV: field '" + name + "' has width " +
                                   std::to_string(bits) + " bits; a field must be 1 to " +
                                   std::to_string(MAX_FIELD_BITS) + " bits wide");
        }
        if (m_index.count(name) != 0)
        {
            throw PrestoInputError("RMT PHV: field '" + name + "' is declared twice");
        }
        const auto id = static_cast<RmtFieldId>(m_names.size());
        m_names.push_back(name);
        m_widths.push_back(bits);
        m_masks.push_back(bits == 64 ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1));
        m_index.emplace(name, id);
        m_totalBits += bits;
        return id;
    }

    /**
     * \param name a declared field name
     * \return its handle; throws PrestoInputError if the field is not declared
     */
    RmtFieldId GetField(const std::string& name) const
    {
        auto it = m_index.find(name);
        if (it == m_index.end())
        {
            throw PrestoInputError("RMT PHV: no field named '" + name + "' is declared");
        }
        return it->second;
    }

    /**
     * \param name a field name
     * \return true if the field is declared
     */
    bool HasField(const std::string& name) const
    {
        return m_index.count(name) != 0;
    }

    /**
     * \brief Throw PrestoInputError unless id is a declared field.
     * \param id a handle
     * \param where who uses it, for the message (e.g. "table 'acl' key 2")
     */
    void CheckField(RmtFieldId id, const std::string& where) const
    {
        if (id >= m_names.size())
        {
            throw PrestoInputError("RMT PHV: " + where + " uses field handle " +
                                   std::to_string(id) + " but only " +
                                   std::to_string(m_names.size()) + " fields are declared");
        }
    }

    /** \param id a declared field \return its width in bits */
    uint32_t GetWidth(RmtFieldId id) const
    {
        CheckField(id, "GetWidth");
        return m_widths[id];
    }

    /** \param id a declared field \return the mask of its width (low `width` bits set) */
    uint64_t GetMask(RmtFieldId id) const
    {
        CheckField(id, "GetMask");
        return m_masks[id];
    }

    /** \param id a declared field \return its name */
    const std::string& GetName(RmtFieldId id) const
    {
        CheckField(id, "GetName");
        return m_names[id];
    }

    /** \return the number of declared fields */
    uint32_t GetFieldCount() const
    {
        return static_cast<uint32_t>(m_names.size());
    }

    /** \return the sum of the declared widths, bits */
    uint64_t GetTotalBits() const
    {
        return m_totalBits;
    }

    /** \return the width masks, indexed by handle (used to build a PHV) */
    const std::vector<uint64_t>& GetMasks() const
    {
        return m_masks;
    }

  private:
    std::vector<std::string> m_names;                    //!< name by handle
    std::vector<uint32_t> m_widths;                      //!< width by handle, bits
    std::vector<uint64_t> m_masks;                       //!< width mask by handle
    std::unordered_map<std::string, RmtFieldId> m_index; //!< handle by name (config time)
    uint64_t m_totalBits{0};                             //!< sum of widths
};

/**
 * \ingroup presto
 * \brief The packet header vector of one packet: the values of the declared fields plus the
 * intrinsic metadata a pipeline pass needs (pass number, drop and recirculation flags).
 *
 * Built by RmtPipeline::NewPhv() once and reused for many packets (Clear() between them), so
 * the packet path allocates nothing. Field values persist across the passes of one packet,
 * as bridged metadata does across a recirculation. Set() keeps the low `width` bits of the
 * value, as a PHV container of that width would.
 */
class RmtPhv
{
  public:
    /**
     * \param layout the declared fields; the PHV remembers it so that a pipeline can refuse a
     * PHV built for another program
     */
    explicit RmtPhv(const RmtPhvLayout& layout)
        : m_layout(&layout),
          m_masks(layout.GetMasks()),
          m_values(layout.GetFieldCount(), 0)
    {
    }

    /**
     * \param f a field handle of this PHV's layout
     * \return the field's value
     */
    uint64_t Get(RmtFieldId f) const
    {
        Check(f);
        return m_values[f];
    }

    /**
     * \brief Store the low `width` bits of value in field f.
     * \param f a field handle of this PHV's layout
     * \param value the value
     */
    void Set(RmtFieldId f, uint64_t value)
    {
        Check(f);
        m_values[f] = value & m_masks[f];
    }

    /// Zero every field and the intrinsic metadata (reuse the PHV for the next packet).
    void Clear()
    {
        std::fill(m_values.begin(), m_values.end(), 0);
        m_pass = 0;
        m_drop = false;
        m_recirculate = false;
    }

    /// Mark the packet to be dropped at the end of the pipeline (P4 mark_to_drop).
    void MarkDrop()
    {
        m_drop = true;
    }

    /** \return true if an action marked the packet to be dropped */
    bool IsDropped() const
    {
        return m_drop;
    }

    /** \return true if an action of the current pass asked for another pass */
    bool IsRecirculationRequested() const
    {
        return m_recirculate;
    }

    /** \return the current pass of the packet, 0 for the first */
    uint32_t GetPass() const
    {
        return m_pass;
    }

    /** \return the layout this PHV was built for */
    const RmtPhvLayout* GetLayout() const
    {
        return m_layout;
    }

    /** \return the number of fields this PHV holds */
    uint32_t GetFieldCount() const
    {
        return static_cast<uint32_t>(m_values.size());
    }

  private:
    friend class RmtPipeline;
    friend class RmtActionContext;

    /// Throw on a handle this PHV does not hold (a handle of another layout, or a PHV built
    /// before the field was declared). One compare inline; the message is built out of line,
    /// so that every field access of every table on the packet path stays a load.
    void Check(RmtFieldId f) const
    {
        if (f >= m_values.size())
        {
            ThrowUnknownField(f);
        }
    }

    /// The failure of Check: a PrestoInputError naming the handle and the PHV's size.
    [[noreturn]] void ThrowUnknownField(RmtFieldId f) const;

    const RmtPhvLayout* m_layout;   //!< the layout it was built for
    std::vector<uint64_t> m_masks;  //!< width masks by handle
    std::vector<uint64_t> m_values; //!< field values by handle
    uint32_t m_pass{0};             //!< current pass, 0 for the first
    bool m_drop{false};             //!< marked to drop
    bool m_recirculate{false};      //!< another pass requested in this pass
};

} // namespace ns3

#endif // PRESTO_RMT_PHV_H
