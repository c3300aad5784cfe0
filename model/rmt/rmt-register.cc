/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rmt-register.h"

#include "ns3/presto-input-error.h"

#include <algorithm>

namespace ns3
{

RmtRegisterArray::RmtRegisterArray(const std::string& name,
                                   uint32_t widthBits,
                                   uint32_t size,
                                   const RmtStage* stage,
                                   const std::string& stageName)
    : m_name(name),
      m_stageName(stageName),
      m_stage(stage),
      m_width(widthBits)
{
    const std::string where = "RMT register array '" + name + "' in stage '" + stageName + "'";
    if (name.empty())
    {
        throw PrestoInputError("RMT stage '" + stageName +
                               "': a register array needs a non-empty name");
    }
    if (widthBits < 1 || widthBits > 64)
    {
        throw PrestoInputError(where + ": element width " + std::to_string(widthBits) +
                               " bits is outside [1, 64]");
    }
    if (size < 1 || size > MAX_SIZE)
    {
        throw PrestoInputError(where + ": size " + std::to_string(size) +
                               " elements is outside [1, " + std::to_string(MAX_SIZE) + "]");
    }
    m_mask = widthBits == 64 ? ~uint64_t{0} : ((uint64_t{1} << widthBits) - 1);
    m_size = size;
}

const std::string&
RmtRegisterArray::GetName() const
{
    return m_name;
}

uint32_t
RmtRegisterArray::GetWidthBits() const
{
    return m_width;
}

uint32_t
RmtRegisterArray::GetSize() const
{
    return m_size;
}

uint32_t
RmtRegisterArray::GetStoredSize() const
{
    return static_cast<uint32_t>(m_cells.size());
}

uint64_t
RmtRegisterArray::GetBits() const
{
    return uint64_t{m_width} * m_size;
}

uint64_t
RmtRegisterArray::GetMask() const
{
    return m_mask;
}

const RmtStage&
RmtRegisterArray::GetStage() const
{
    return *m_stage;
}

const std::string&
RmtRegisterArray::GetStageName() const
{
    return m_stageName;
}

void
RmtRegisterArray::CheckIndex(uint64_t index, const std::string& who) const
{
    if (index >= m_size)
    {
        throw PrestoInputError("RMT register array '" + m_name + "' in stage '" + m_stageName +
                               "': " + who + " index " + std::to_string(index) +
                               " is out of range (size " + std::to_string(m_size) + ")");
    }
}

void
RmtRegisterArray::Touch(uint64_t index)
{
    if (index >= m_cells.size())
    {
        // double, so that filling slots one by one costs amortised constant time
        const uint64_t grown = std::max<uint64_t>(index + 1, 2 * m_cells.size());
        m_cells.resize(std::min<uint64_t>(grown, m_size), m_fill);
    }
}

uint64_t
RmtRegisterArray::ControlRead(uint32_t index) const
{
    CheckIndex(index, "control-plane read");
    return index < m_cells.size() ? m_cells[index] : m_fill;
}

void
RmtRegisterArray::ControlWrite(uint32_t index, uint64_t value)
{
    CheckIndex(index, "control-plane write");
    if ((value & ~m_mask) != 0)
    {
        throw PrestoInputError("RMT register array '" + m_name + "' in stage '" + m_stageName +
                               "': control-plane value " + std::to_string(value) +
                               " does not fit the element width of " + std::to_string(m_width) +
                               " bits");
    }
    Touch(index);
    m_cells[index] = value;
}

void
RmtRegisterArray::ControlFill(uint64_t value)
{
    if ((value & ~m_mask) != 0)
    {
        throw PrestoInputError("RMT register array '" + m_name + "' in stage '" + m_stageName +
                               "': fill value " + std::to_string(value) +
                               " does not fit the element width of " + std::to_string(m_width) +
                               " bits");
    }
    m_fill = value;
    std::fill(m_cells.begin(), m_cells.end(), value);
}

uint64_t
RmtRegisterArray::GetAccesses() const
{
    return m_accesses;
}

void
RmtRegisterArray::ResetCounters()
{
    m_accesses = 0;
}

} // namespace ns3
