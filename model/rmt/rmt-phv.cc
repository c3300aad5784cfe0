/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rmt-phv.h"

#include "ns3/presto-input-error.h"

#include <string>

namespace ns3
{

void
RmtPhv::ThrowUnknownField(RmtFieldId f) const
{
    throw PrestoInputError("RMT PHV: field handle " + std::to_string(f) + " is not in this PHV (" +
                           std::to_string(m_values.size()) +
                           " fields); build the PHV after declaring all fields");
}

} // namespace ns3
