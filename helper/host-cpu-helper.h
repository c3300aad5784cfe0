/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_HOST_CPU_HELPER_H
#define PRESTO_HOST_CPU_HELPER_H

#include "ns3/host-cpu.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"

#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Gives hosts a CPU in simulated time: aggregates a HostCpu (or a subclass chosen by
 * TypeId) to each node and puts the node's ns-3 TCP/IP processing on it (HostStackGate).
 * An offload NIC on the node finds the HostCpu itself and serves its host side on it.
 *
 * Install after the nodes' IPv4 interfaces exist (InternetStackHelper, address assignment)
 * and before Simulator::Run. With Cores=0 (unlimited) the HostCpu only counts, and the
 * node's stack is left as it is.
 *
 * \code
 *   HostCpuHelper cpus;
 *   cpus.SetAttribute("Cores", UintegerValue(4));
 *   cpus.Install(hosts);
 * \endcode
 */
class HostCpuHelper
{
  public:
    HostCpuHelper();

    /**
     * \param type TypeId name of ns3::HostCpu or a subclass (another scheduling model)
     */
    void SetCpuType(const std::string& type);
    /**
     * \param name attribute of the HostCpu
     * \param value its value
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * \param nodes hosts (a node that has a HostCpu already keeps it)
     */
    void Install(const NodeContainer& nodes) const;
    /**
     * \param node a host
     * \return its HostCpu
     */
    Ptr<HostCpu> Install(Ptr<Node> node) const;

  private:
    ObjectFactory m_factory; //!< makes the HostCpu objects
};

} // namespace ns3

#endif // PRESTO_HOST_CPU_HELPER_H
