/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "host-cpu-helper.h"

#include "ns3/host-stack-gate.h"
#include "ns3/presto-input-error.h"

namespace ns3
{

HostCpuHelper::HostCpuHelper()
{
    m_factory.SetTypeId(HostCpu::GetTypeId());
}

void
HostCpuHelper::SetCpuType(const std::string& type)
{
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(type, &tid) || !tid.IsChildOf(HostCpu::GetTypeId()))
    {
        throw PrestoInputError("host CPU type " + type +
                               " is not ns3::HostCpu or a subclass of it");
    }
    m_factory.SetTypeId(tid);
}

void
HostCpuHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

void
HostCpuHelper::Install(const NodeContainer& nodes) const
{
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        Install(*it);
    }
}

Ptr<HostCpu>
HostCpuHelper::Install(Ptr<Node> node) const
{
    Ptr<HostCpu> cpu = node->GetObject<HostCpu>();
    if (!cpu)
    {
        cpu = m_factory.Create<HostCpu>();
        node->AggregateObject(cpu);
        HostStackGate::Install(node);
    }
    return cpu;
}

} // namespace ns3
