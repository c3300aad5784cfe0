/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RMT_REGISTER_H
#define PRESTO_RMT_REGISTER_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class RmtStage;
class RmtTable;

/**
 * \ingroup presto
 * \brief A register array of an RMT pipeline: `size` elements of `width` bits, owned by
 * exactly one stage.
 *
 * The packet path reaches it only through RmtActionContext (Read, Write or one
 * read-modify-write Update by a stateful action), from an action of a table of the same
 * stage, and at most once per packet pass: the stateful ALU next to the SRAM holding the
 * array serves one access per packet. A second access in the same pass, or an access from
 * another stage, throws PrestoInputError naming the array, its stage and both accessors.
 * Values wrap at the element width (a 32-bit counter wraps at 2^32), as the hardware does.
 *
 * The control plane (the device at connection setup, tests) uses ControlRead/ControlWrite,
 * which are not packet accesses and are not limited. Create arrays with RmtStage::AddRegister.
 */
class RmtRegisterArray
{
  public:
    /// Largest number of elements of one array (keeps a typo from allocating gigabytes).
    static constexpr uint32_t MAX_SIZE = 1u << 26;

    RmtRegisterArray(const RmtRegisterArray&) = delete;
    RmtRegisterArray& operator=(const RmtRegisterArray&) = delete;

    /** \return the array's name */
    const std::string& GetName() const;

    /** \return the element width, bits */
    uint32_t GetWidthBits() const;

    /** \return the number of elements */
    uint32_t GetSize() const;

    /** \return the memory the array occupies, bits (width x size) */
    uint64_t GetBits() const;

    /** \return the mask of the element width */
    uint64_t GetMask() const;

    /** \return the stage that owns the array */
    const RmtStage& GetStage() const;

    /** \return the name of the stage that owns the array */
    const std::string& GetStageName() const;

    /**
     * \brief Control-plane read (not a packet access). Throws PrestoInputError on an index
     * out of range.
     * \param index the element
     * \return its value
     */
    uint64_t ControlRead(uint32_t index) const;

    /**
     * \brief Control-plane write (not a packet access). Throws PrestoInputError on an index
     * out of range or a value wider than the element.
     * \param index the element
     * \param value the value
     */
    void ControlWrite(uint32_t index, uint64_t value);

    /**
     * \brief Set every element to value (control plane). Throws if value is too wide.
     * \param value the value, 0 by default
     */
    void ControlFill(uint64_t value = 0);

    /** \return elements held in simulator memory: the prefix touched so far, <= GetSize() */
    uint32_t GetStoredSize() const;

    /** \return the packet accesses made so far (reads, writes and updates) */
    uint64_t GetAccesses() const;

    /// Zero the access counter (not the contents).
    void ResetCounters();

  private:
    friend class RmtStage;
    friend class RmtActionContext;

    /**
     * \param name the array's name
     * \param widthBits element width, 1..64
     * \param size number of elements, 1..MAX_SIZE
     * \param stage the owning stage
     * \param stageName its name (for messages)
     */
    RmtRegisterArray(const std::string& name,
                     uint32_t widthBits,
                     uint32_t size,
                     const RmtStage* stage,
                     const std::string& stageName);

    /// Throw PrestoInputError unless index < size.
    void CheckIndex(uint64_t index, const std::string& who) const;
    /// Make element index (< size) stored: grow the stored prefix, new elements hold m_fill.
    void Touch(uint64_t index);

    std::string m_name;      //!< name
    std::string m_stageName; //!< owning stage's name
    const RmtStage* m_stage; //!< owning stage
    uint32_t m_width;        //!< element width, bits
    uint64_t m_mask;         //!< element width mask
    /// The elements actually stored: a prefix of the declared size, grown on first touch
    /// (a hardware array exists whole; a simulated one costs memory only for the slots in
    /// use, so a NIC of 32,768 connections with a few open does not hold 32,768 of each)
    std::vector<uint64_t> m_cells;
    uint32_t m_size;               //!< declared number of elements (the hardware's)
    uint64_t m_fill{0};            //!< value of every element not stored (ControlFill)
    uint64_t m_accesses{0};        //!< packet accesses so far
    uint64_t m_lastPass{0};        //!< pass stamp of the last packet access (0: none)
    const RmtTable* m_lastTable{}; //!< table of the last packet access (for messages)
    uint32_t m_lastAction{0};      //!< action of the last packet access (for messages)
};

} // namespace ns3

#endif // PRESTO_RMT_REGISTER_H
