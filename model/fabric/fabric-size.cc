/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-size.h"

#include "fabric-topology.h"

#include <cstdio>
#include <limits>
#include <sstream>

namespace ns3
{

namespace
{

/// A count computed in double (shape parameters up to 2^32 cubed overflow 64 bits), kept
/// exact below 2^53 and saturated at the top of uint64_t.
uint64_t
Count(double n)
{
    return n >= 1.8e19 ? std::numeric_limits<uint64_t>::max() : static_cast<uint64_t>(n);
}

/// \return bytes as "12.3 GB"
std::string
Gigabytes(double bytes)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g GB", bytes / 1e9);
    return buf;
}

} // namespace

FabricSize
FabricSize::LeafSpine(uint64_t leaves, uint64_t spines, uint64_t hostsPerLeaf)
{
    const double l = leaves;
    const double s = spines;
    const double h = l * hostsPerLeaf;
    FabricSize size;
    size.hosts = Count(h);
    size.switches = Count(l + s);
    size.links = Count(h + l * s);
    // a leaf: one port to its own hosts, every spine to the others; a spine: one port
    size.routeEntries = Count(l * (hostsPerLeaf + (h - hostsPerLeaf) * s) + s * h);
    return size;
}

FabricSize
FabricSize::FatTree(uint64_t k)
{
    const double half = k / 2;
    const double pods = k;
    const double h = pods * half * half;
    FabricSize size;
    size.hosts = Count(h);
    size.switches = Count(2 * pods * half + half * half);
    size.links = Count(3 * h);
    // an edge switch: one port to each of its hosts, its half up-ports to the others; an
    // aggregation switch: one port to its pod's hosts, half up-ports to the others; a core:
    // one port
    const double edge = half + (h - half) * half;
    const double agg = half * half + (h - half * half) * half;
    size.routeEntries = Count(pods * half * (edge + agg) + half * half * h);
    return size;
}

FabricSize
FabricSize::Of(const FabricTopology& t)
{
    FabricSize size;
    size.hosts = t.GetNHosts();
    size.switches = t.GetNNodes() - t.GetNHosts();
    size.links = t.GetLinks().size();
    double entries = 0;
    const auto& links = t.GetLinks();
    for (uint32_t n = 0; n < t.GetNNodes(); ++n)
    {
        if (!t.IsHost(n))
        {
            // towards most hosts a switch spreads over its ports to higher tiers
            double up = 0;
            for (uint32_t link : t.GetPorts(n))
            {
                const uint32_t other = links[link].a == n ? links[link].b : links[link].a;
                up += !t.IsHost(other) && t.GetTier(other) > t.GetTier(n);
            }
            entries += static_cast<double>(size.hosts) * (up > 1 ? up : 1);
        }
    }
    size.routeEntries = Count(entries);
    return size;
}

std::string
FabricLimitProblem(const FabricSize& size)
{
    const struct
    {
        const char* what;
        uint64_t value;
        uint64_t max;
    } counts[] = {{"hosts", size.hosts, FABRIC_MAX_HOSTS},
                  {"switches", size.switches, FABRIC_MAX_SWITCHES},
                  {"links", size.links, FABRIC_MAX_LINKS}};

    for (const auto& c : counts)
    {
        if (c.value > c.max)
        {
            return std::to_string(c.value) + " " + c.what + ", more than the limit of " +
                   std::to_string(c.max);
        }
    }
    return "";
}

double
RunMemoryEstimate::Total() const
{
    return baseBytes + hostBytes + fabricBytes + connectionBytes + flowBytes;
}

std::string
RunMemoryEstimate::Describe() const
{
    // the parts that matter: 1% of the total or more
    const std::pair<const char*, double> parts[] = {{"program", baseBytes},
                                                    {"hosts", hostBytes},
                                                    {"switches and routes", fabricBytes},
                                                    {"connections", connectionBytes},
                                                    {"flows", flowBytes}};
    std::ostringstream os;
    os << Gigabytes(Total()) << " (";
    const char* sep = "";
    for (const auto& [what, bytes] : parts)
    {
        if (bytes >= 0.01 * Total())
        {
            os << sep << what << " " << Gigabytes(bytes);
            sep = ", ";
        }
    }
    os << ")";
    return os.str();
}

RunMemoryEstimate
RunMemoryEstimate::Of(const FabricSize& size,
                      double bytesPerHost,
                      uint64_t connections,
                      double bytesPerConnection,
                      uint64_t flows)
{
    RunMemoryEstimate e;
    const double hosts = size.hosts;
    const double switchLinks = size.links > size.hosts ? double(size.links - size.hosts) : 0.0;
    e.hostBytes = hosts * bytesPerHost;
    e.fabricBytes = double(size.switches) * BYTES_PER_SWITCH + switchLinks * BYTES_PER_LINK +
                    double(size.routeEntries) * BYTES_PER_ROUTE_ENTRY +
                    double(size.switches) * hosts * BYTES_PER_ROUTE;
    e.connectionBytes = double(connections) * bytesPerConnection;
    e.flowBytes = double(flows) * BYTES_PER_FLOW;
    return e;
}

} // namespace ns3
