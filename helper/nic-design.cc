/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "nic-design.h"

#include "ns3/offload-net-device.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <utility>

namespace ns3
{

namespace
{

/// The shipped designs' short names, in the order reports list them.
const std::vector<std::pair<std::string, std::string>>&
Aliases()
{
    static const std::vector<std::pair<std::string, std::string>> aliases = {
        {"presto", "ns3::PrestoNetDevice"},
        {"presto-hybrid", "ns3::PrestoHybridNetDevice"},
        {"flextoe", "ns3::FlexToeNetDevice"},
        {"cora", "ns3::CoraNetDevice"}};
    return aliases;
}

/// \return the registered, constructible strict subclasses of OffloadNetDevice
std::vector<TypeId>
Registered()
{
    const TypeId base = OffloadNetDevice::GetTypeId();
    std::vector<TypeId> out;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        TypeId tid = TypeId::GetRegistered(i);
        if (tid != base && tid.IsChildOf(base) && tid.HasConstructor())
        {
            out.push_back(tid);
        }
    }
    std::sort(out.begin(), out.end(), [](TypeId a, TypeId b) { return a.GetName() < b.GetName(); });
    return out;
}

/// \return the short name of a registered design
std::string
ShortName(TypeId tid)
{
    for (const auto& [alias, type] : Aliases())
    {
        if (type == tid.GetName())
        {
            return alias;
        }
    }
    const std::string name = tid.GetName();
    return name.compare(0, 5, "ns3::") == 0 ? name.substr(5) : name;
}

std::string
JoinNames(const std::vector<std::string>& names)
{
    std::string out;
    for (const auto& n : names)
    {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

} // namespace

const char* const NicDesign::HOST_TCP = "host-tcp";

std::vector<std::string>
NicDesign::Names()
{
    std::vector<std::string> names = {HOST_TCP};
    for (const auto& [alias, type] : Aliases())
    {
        names.push_back(alias);
    }
    for (TypeId tid : Registered())
    {
        const std::string name = ShortName(tid);
        if (std::find(names.begin(), names.end(), name) == names.end())
        {
            names.push_back(name);
        }
    }
    return names;
}

std::string
NicDesign::Canonical(const std::string& nameOrTypeId, const std::string& option)
{
    if (nameOrTypeId == HOST_TCP)
    {
        return nameOrTypeId;
    }
    for (TypeId tid : Registered())
    {
        if (nameOrTypeId == tid.GetName() || nameOrTypeId == ShortName(tid))
        {
            return ShortName(tid);
        }
    }
    throw PrestoInputError(option + "=" + nameOrTypeId +
                           " is not a NIC design; valid: " + JoinNames(Names()) +
                           " (or the TypeId name of any registered, constructible strict "
                           "subclass of ns3::OffloadNetDevice)");
}

TypeId
NicDesign::GetTypeId(const std::string& name)
{
    for (TypeId tid : Registered())
    {
        if (name == tid.GetName() || name == ShortName(tid))
        {
            return tid;
        }
    }
    throw PrestoInputError("'" + name +
                           "' is not an offload NIC design; valid: " + JoinNames(Names()));
}

} // namespace ns3
