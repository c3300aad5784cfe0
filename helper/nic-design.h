/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_NIC_DESIGN_H
#define PRESTO_NIC_DESIGN_H

#include "ns3/type-id.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The NIC designs an experiment can put on its hosts, found by TypeId.
 *
 * A design is any registered, constructible subclass of ns3::OffloadNetDevice, as a
 * congestion control of ns-3's TCP is any TcpCongestionOps: a new design registers its
 * TypeId (NS_OBJECT_ENSURE_REGISTERED) in a file linked into the program and is selectable
 * at once, with no list to edit. Its name in options and reports is a short alias for the
 * designs that ship with the module (presto, flextoe, cora) and otherwise the TypeId name
 * without "ns3::" (ns3::FixedLatencyNetDevice is FixedLatencyNetDevice). "host-tcp" is the
 * baseline: ns-3's own TCP on the host, no offload NIC.
 */
class NicDesign
{
  public:
    /** The name of the baseline: ns-3's TCP, no offload NIC. */
    static const char* const HOST_TCP;

    /**
     * \return every design name: host-tcp, the shipped designs, then the other registered
     * OffloadNetDevice subclasses in name order
     */
    static std::vector<std::string> Names();

    /**
     * \brief The canonical name of a design given by name or by TypeId name.
     * \param nameOrTypeId e.g. "presto", "ns3::PrestoNetDevice", "FixedLatencyNetDevice"
     * \param option the option or field it came from, for the message
     * \return the name as Names() lists it; throws PrestoInputError (listing the valid names)
     * for anything else, e.g. a TypeId that is not an OffloadNetDevice
     */
    static std::string Canonical(const std::string& nameOrTypeId, const std::string& option);

    /**
     * \param name a name of Names() other than host-tcp (or a TypeId name)
     * \return the design's OffloadNetDevice TypeId; throws PrestoInputError otherwise
     */
    static TypeId GetTypeId(const std::string& name);
};

} // namespace ns3

#endif // PRESTO_NIC_DESIGN_H
