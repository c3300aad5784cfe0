/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_ATTRIBUTE_DEFAULT_H
#define PRESTO_ATTRIBUTE_DEFAULT_H

#include "ns3/abort.h"
#include "ns3/type-id.h"

#include <string>
#include <utility>

namespace ns3
{

/**
 * \ingroup presto
 * \param tid a TypeId holding the attribute (or inheriting it)
 * \param name the attribute
 * \return its current default (after Config::SetDefault or --ns3::...) and whether the user
 * changed it from the original one
 */
inline std::pair<std::string, bool>
AttributeDefault(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_UNLESS(tid.LookupAttributeByName(name, &info),
                        tid.GetName() << " has no attribute " << name);
    const std::string now = info.initialValue->SerializeToString(info.checker);
    const std::string original = info.originalInitialValue->SerializeToString(info.checker);
    return {now, now != original};
}

} // namespace ns3

#endif // PRESTO_ATTRIBUTE_DEFAULT_H
