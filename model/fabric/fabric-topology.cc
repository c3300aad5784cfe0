/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "fabric-topology.h"

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <sstream>

namespace ns3
{

namespace
{

constexpr uint32_t UNREACHED = std::numeric_limits<uint32_t>::max();

/** \return "10 Gbps" style text for a rate in bit/s */
std::string
RateText(double bps)
{
    std::ostringstream os;
    if (bps >= 1e9)
    {
        os << bps / 1e9 << " Gbps";
    }
    else if (bps >= 1e6)
    {
        os << bps / 1e6 << " Mbps";
    }
    else
    {
        os << bps << " bps";
    }
    return os.str();
}

void
CheckRate(double bps, const char* what, const char* where)
{
    if (!(bps > 0) || !std::isfinite(bps))
    {
        std::ostringstream os;
        os << where << ": " << what << " must be a positive, finite rate in bit/s (got " << bps
           << ")";
        throw PrestoInputError(os.str());
    }
}

void
CheckDelay(int64_t ns, const char* where)
{
    if (ns < 0)
    {
        std::ostringstream os;
        os << where << ": link delay must be >= 0 ns (got " << ns << ")";
        throw PrestoInputError(os.str());
    }
}

} // namespace

FabricTopology
FabricTopology::LeafSpine(uint32_t leaves,
                          uint32_t spines,
                          uint32_t hostsPerLeaf,
                          double hostRateBps,
                          double coreRateBps,
                          int64_t linkDelayNs)
{
    const char* where = "FabricTopology::LeafSpine";
    if (leaves == 0 || spines == 0 || hostsPerLeaf == 0)
    {
        std::ostringstream os;
        os << where << ": leaves, spines and hosts per leaf must be >= 1 (got " << leaves << ", "
           << spines << ", " << hostsPerLeaf << ")";
        throw PrestoInputError(os.str());
    }
    CheckRate(hostRateBps, "host link rate", where);
    CheckRate(coreRateBps, "core link rate", where);
    CheckDelay(linkDelayNs, where);

    FabricTopology t;
    std::vector<uint32_t> leaf(leaves);
    std::vector<uint32_t> spine(spines);
    for (uint32_t l = 0; l < leaves; ++l)
    {
        leaf[l] = t.AddSwitch(0);
        t.SetNodeName(leaf[l], "leaf" + std::to_string(l));
    }
    for (uint32_t s = 0; s < spines; ++s)
    {
        spine[s] = t.AddSwitch(1);
        t.SetNodeName(spine[s], "spine" + std::to_string(s));
    }
    // Host links first, so that on every leaf ports 0..hostsPerLeaf-1 face the hosts and the
    // uplinks follow in spine order.
    for (uint32_t l = 0; l < leaves; ++l)
    {
        for (uint32_t h = 0; h < hostsPerLeaf; ++h)
        {
            uint32_t host = t.AddHost();
            t.AddLink(host, leaf[l], hostRateBps, linkDelayNs);
        }
    }
    for (uint32_t l = 0; l < leaves; ++l)
    {
        for (uint32_t s = 0; s < spines; ++s)
        {
            t.AddLink(leaf[l], spine[s], coreRateBps, linkDelayNs);
        }
    }
    std::ostringstream os;
    os << "leaf-spine " << leaves << " leaves x " << spines << " spines, " << leaves * hostsPerLeaf
       << " hosts, " << RateText(hostRateBps) << " host links, " << RateText(coreRateBps)
       << " core links, " << linkDelayNs << " ns delay, oversubscription "
       << (hostsPerLeaf * hostRateBps) / (spines * coreRateBps) << ":1";
    t.m_description = os.str();
    return t;
}

FabricTopology
FabricTopology::Dumbbell(uint32_t pairs,
                         double accessRateBps,
                         double bottleneckRateBps,
                         int64_t linkDelayNs)
{
    const char* where = "FabricTopology::Dumbbell";
    if (pairs == 0)
    {
        throw PrestoInputError(std::string(where) + ": need at least 1 sender/receiver pair");
    }
    CheckRate(accessRateBps, "access link rate", where);
    CheckRate(bottleneckRateBps, "bottleneck link rate", where);
    CheckDelay(linkDelayNs, where);
    FabricTopology t;
    const uint32_t left = t.AddSwitch(0);
    const uint32_t right = t.AddSwitch(0);
    for (uint32_t side : {left, right})
    {
        for (uint32_t i = 0; i < pairs; ++i)
        {
            t.AddLink(t.AddHost(), side, accessRateBps, linkDelayNs);
        }
    }
    t.AddLink(left, right, bottleneckRateBps, linkDelayNs);
    std::ostringstream os;
    os << "dumbbell, " << pairs << " pairs, " << RateText(accessRateBps) << " access links, "
       << RateText(bottleneckRateBps) << " bottleneck, " << linkDelayNs << " ns delay";
    t.m_description = os.str();
    return t;
}

FabricTopology
FabricTopology::FatTree(uint32_t k, double hostRateBps, double coreRateBps, int64_t linkDelayNs)
{
    const char* where = "FabricTopology::FatTree";
    if (k < 2 || k % 2 != 0)
    {
        std::ostringstream os;
        os << where << ": k must be even and >= 2 (got " << k << ")";
        throw PrestoInputError(os.str());
    }
    CheckRate(hostRateBps, "host link rate", where);
    CheckRate(coreRateBps, "core link rate", where);
    CheckDelay(linkDelayNs, where);

    const uint32_t half = k / 2;
    FabricTopology t;
    std::vector<std::vector<uint32_t>> edge(k, std::vector<uint32_t>(half));
    std::vector<std::vector<uint32_t>> agg(k, std::vector<uint32_t>(half));
    std::vector<uint32_t> core(half * half);
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            edge[p][e] = t.AddSwitch(0);
            t.SetNodeName(edge[p][e], "edge" + std::to_string(p * half + e));
        }
        for (uint32_t a = 0; a < half; ++a)
        {
            agg[p][a] = t.AddSwitch(1);
            t.SetNodeName(agg[p][a], "agg" + std::to_string(p * half + a));
        }
    }
    for (uint32_t c = 0; c < core.size(); ++c)
    {
        core[c] = t.AddSwitch(2);
        t.SetNodeName(core[c], "core" + std::to_string(c));
    }
    // Hosts first (edge ports 0..k/2-1), then edge-aggregation, then aggregation-core links.
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            for (uint32_t h = 0; h < half; ++h)
            {
                uint32_t host = t.AddHost();
                t.AddLink(host, edge[p][e], hostRateBps, linkDelayNs);
            }
        }
    }
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            for (uint32_t a = 0; a < half; ++a)
            {
                t.AddLink(edge[p][e], agg[p][a], coreRateBps, linkDelayNs);
            }
        }
    }
    // Aggregation switch a of every pod connects to core switches a*k/2 .. a*k/2 + k/2 - 1.
    for (uint32_t p = 0; p < k; ++p)
    {
        for (uint32_t a = 0; a < half; ++a)
        {
            for (uint32_t c = 0; c < half; ++c)
            {
                t.AddLink(agg[p][a], core[a * half + c], coreRateBps, linkDelayNs);
            }
        }
    }
    std::ostringstream os;
    os << "fat-tree k=" << k << ", " << k * k * k / 4 << " hosts, " << RateText(hostRateBps)
       << " host links, " << RateText(coreRateBps) << " core links, " << linkDelayNs << " ns delay";
    t.m_description = os.str();
    return t;
}

uint32_t
FabricTopology::AddHost()
{
    uint32_t id = GetNNodes();
    m_isHost.push_back(true);
    m_tier.push_back(0);
    m_hostIndex.push_back(static_cast<uint32_t>(m_hostNode.size()));
    m_hostNode.push_back(id);
    m_ports.emplace_back();
    m_names.emplace_back();
    return id;
}

uint32_t
FabricTopology::AddSwitch(uint32_t tier)
{
    uint32_t id = GetNNodes();
    m_isHost.push_back(false);
    m_tier.push_back(tier);
    m_hostIndex.push_back(UNREACHED);
    m_ports.emplace_back();
    m_names.emplace_back();
    return id;
}

uint32_t
FabricTopology::AddLink(uint32_t a, uint32_t b, double rateBps, int64_t delayNs)
{
    const char* where = "FabricTopology::AddLink";
    if (a >= GetNNodes() || b >= GetNNodes() || a == b)
    {
        std::ostringstream os;
        os << where << ": a link needs two different existing nodes (got " << a << " and " << b
           << ", " << GetNNodes() << " nodes)";
        throw PrestoInputError(os.str());
    }
    CheckRate(rateBps, "link rate", where);
    CheckDelay(delayNs, where);
    uint32_t id = static_cast<uint32_t>(m_links.size());
    m_links.push_back(Link{a, b, rateBps, delayNs, true, 0.0});
    m_ports[a].push_back(id);
    m_ports[b].push_back(id);
    return id;
}

uint32_t
FabricTopology::GetNNodes() const
{
    return static_cast<uint32_t>(m_isHost.size());
}

uint32_t
FabricTopology::GetNHosts() const
{
    return static_cast<uint32_t>(m_hostNode.size());
}

bool
FabricTopology::IsHost(uint32_t node) const
{
    if (node >= GetNNodes())
    {
        throw PrestoInputError("FabricTopology::IsHost: no node " + std::to_string(node));
    }
    return m_isHost[node];
}

uint32_t
FabricTopology::GetTier(uint32_t node) const
{
    if (node >= GetNNodes() || m_isHost[node])
    {
        throw PrestoInputError("FabricTopology::GetTier: node " + std::to_string(node) +
                               " is not a switch");
    }
    return m_tier[node];
}

uint32_t
FabricTopology::HostNode(uint32_t host) const
{
    if (host >= GetNHosts())
    {
        throw PrestoInputError("FabricTopology::HostNode: no host " + std::to_string(host) + " (" +
                               std::to_string(GetNHosts()) + " hosts)");
    }
    return m_hostNode[host];
}

uint32_t
FabricTopology::HostIndex(uint32_t node) const
{
    if (node >= GetNNodes() || !m_isHost[node])
    {
        throw PrestoInputError("FabricTopology::HostIndex: node " + std::to_string(node) +
                               " is not a host");
    }
    return m_hostIndex[node];
}

const std::vector<FabricTopology::Link>&
FabricTopology::GetLinks() const
{
    return m_links;
}

const std::vector<uint32_t>&
FabricTopology::GetPorts(uint32_t node) const
{
    if (node >= GetNNodes())
    {
        throw PrestoInputError("FabricTopology::GetPorts: no node " + std::to_string(node));
    }
    return m_ports[node];
}

uint32_t
FabricTopology::FindLink(uint32_t a, uint32_t b) const
{
    if (a < GetNNodes())
    {
        for (uint32_t l : m_ports[a])
        {
            const Link& link = m_links[l];
            if ((link.a == a && link.b == b) || (link.a == b && link.b == a))
            {
                return l;
            }
        }
    }
    throw PrestoInputError("FabricTopology::FindLink: no link between nodes " + std::to_string(a) +
                           " and " + std::to_string(b));
}

void
FabricTopology::SetLinkUp(uint32_t link, bool up)
{
    if (link >= m_links.size())
    {
        throw PrestoInputError("FabricTopology::SetLinkUp: no link " + std::to_string(link) + " (" +
                               std::to_string(m_links.size()) + " links)");
    }
    m_links[link].up = up;
}

void
FabricTopology::SetLinkRate(uint32_t link, double rateBps)
{
    if (link >= m_links.size())
    {
        throw PrestoInputError("FabricTopology::SetLinkRate: no link " + std::to_string(link) +
                               " (" + std::to_string(m_links.size()) + " links)");
    }
    CheckRate(rateBps, "link rate", "FabricTopology::SetLinkRate");
    m_links[link].rateBps = rateBps;
}

void
FabricTopology::SetLinkLossRate(uint32_t link, double rate)
{
    if (link >= m_links.size())
    {
        throw PrestoInputError("FabricTopology::SetLinkLossRate: no link " + std::to_string(link) +
                               " (" + std::to_string(m_links.size()) + " links)");
    }
    if (!(rate >= 0 && rate < 1))
    {
        std::ostringstream os;
        os << "FabricTopology::SetLinkLossRate: link " << link << " loss rate " << rate
           << " is not in [0, 1)";
        throw PrestoInputError(os.str());
    }
    m_links[link].lossRate = rate;
}

void
FabricTopology::SetNodeName(uint32_t node, const std::string& name)
{
    if (node >= GetNNodes())
    {
        throw PrestoInputError("FabricTopology::SetNodeName: no node " + std::to_string(node));
    }
    if (name.empty() || name.find_first_of(" \t\r\n,") != std::string::npos)
    {
        throw PrestoInputError("FabricTopology::SetNodeName: node " + std::to_string(node) +
                               ": a name is not empty and has no blanks or commas");
    }
    auto it = m_byName.find(name);
    if (it != m_byName.end() && it->second != node)
    {
        throw PrestoInputError("FabricTopology::SetNodeName: name '" + name + "' is already node " +
                               std::to_string(it->second));
    }
    if (!m_names[node].empty())
    {
        m_byName.erase(m_names[node]);
    }
    m_names[node] = name;
    m_byName[name] = node;
}

std::string
FabricTopology::GetNodeName(uint32_t node) const
{
    if (node >= GetNNodes())
    {
        throw PrestoInputError("FabricTopology::GetNodeName: no node " + std::to_string(node));
    }
    if (!m_names[node].empty())
    {
        return m_names[node];
    }
    return m_isHost[node] ? "host" + std::to_string(m_hostIndex[node])
                          : "switch" + std::to_string(node);
}

bool
FabricTopology::FindNode(const std::string& name, uint32_t& node) const
{
    auto it = m_byName.find(name);
    if (it == m_byName.end())
    {
        return false;
    }
    node = it->second;
    return true;
}

void
FabricTopology::SetDescription(const std::string& text)
{
    m_description = text;
}

std::vector<uint32_t>
FabricTopology::HopsTo(uint32_t dstNode, double minRateBps) const
{
    // Breadth-first search from the destination over up links of at least minRateBps. Hosts
    // other than the destination get a distance but are not expanded: no path crosses a host.
    std::vector<uint32_t> dist(GetNNodes(), UNREACHED);
    std::deque<uint32_t> frontier;
    dist[dstNode] = 0;
    frontier.push_back(dstNode);
    while (!frontier.empty())
    {
        uint32_t n = frontier.front();
        frontier.pop_front();
        if (n != dstNode && m_isHost[n])
        {
            continue;
        }
        for (uint32_t l : m_ports[n])
        {
            const Link& link = m_links[l];
            if (!link.up || link.rateBps < minRateBps)
            {
                continue;
            }
            uint32_t m = link.a == n ? link.b : link.a;
            if (dist[m] == UNREACHED)
            {
                dist[m] = dist[n] + 1;
                frontier.push_back(m);
            }
        }
    }
    return dist;
}

std::vector<std::vector<std::vector<uint32_t>>>
FabricTopology::ComputeRoutes() const
{
    std::vector<std::vector<std::vector<uint32_t>>> routes(
        GetNNodes(),
        std::vector<std::vector<uint32_t>>(GetNHosts()));
    for (uint32_t h = 0; h < GetNHosts(); ++h)
    {
        const uint32_t dst = m_hostNode[h];
        std::vector<uint32_t> dist = HopsTo(dst, 0);
        for (uint32_t s = 0; s < GetNNodes(); ++s)
        {
            if (m_isHost[s] || dist[s] == UNREACHED)
            {
                continue;
            }
            for (uint32_t p = 0; p < m_ports[s].size(); ++p)
            {
                const Link& link = m_links[m_ports[s][p]];
                if (!link.up)
                {
                    continue;
                }
                uint32_t m = link.a == s ? link.b : link.a;
                // a neighbour one hop closer; a host only if it is the destination itself
                if (dist[m] != UNREACHED && dist[m] + 1 == dist[s] && (!m_isHost[m] || m == dst))
                {
                    routes[s][h].push_back(p);
                }
            }
        }
    }
    return routes;
}

std::vector<PathHop>
FabricTopology::BestPath(uint32_t srcHost, uint32_t dstHost) const
{
    if (srcHost >= GetNHosts() || dstHost >= GetNHosts() || srcHost == dstHost)
    {
        throw PrestoInputError("FabricTopology::BestPath: need two different hosts below " +
                               std::to_string(GetNHosts()) + " (got " + std::to_string(srcHost) +
                               " and " + std::to_string(dstHost) + ")");
    }
    const uint32_t src = m_hostNode[srcHost];
    const uint32_t dst = m_hostNode[dstHost];
    const uint32_t hops = HopsTo(dst, 0)[src];
    if (hops == UNREACHED)
    {
        throw PrestoInputError("FabricTopology::BestPath: host " + std::to_string(dstHost) +
                               " is unreachable from host " + std::to_string(srcHost));
    }
    // The best bottleneck is the highest rate B such that a path of the minimum hop count
    // exists over links of rate >= B; among those paths take the lowest total delay. Trying
    // the distinct rates from the highest down keeps this exact (a max-min criterion does
    // not decompose hop by hop, so a plain dynamic program would not be).
    std::vector<double> rates;
    for (const Link& link : m_links)
    {
        if (link.up)
        {
            rates.push_back(link.rateBps);
        }
    }
    std::sort(rates.begin(), rates.end(), std::greater<double>());
    rates.erase(std::unique(rates.begin(), rates.end()), rates.end());
    for (double minRate : rates)
    {
        std::vector<uint32_t> dist = HopsTo(dst, minRate);
        if (dist[src] != hops)
        {
            continue;
        }
        // Lowest delay to dst over the shortest-path DAG (edges going one hop closer), nodes
        // processed in increasing distance.
        const int64_t inf = std::numeric_limits<int64_t>::max();
        std::vector<int64_t> delay(GetNNodes(), inf);
        std::vector<uint32_t> nextLink(GetNNodes(), UNREACHED);
        std::vector<std::vector<uint32_t>> byDist(hops + 1);
        for (uint32_t n = 0; n < GetNNodes(); ++n)
        {
            if (dist[n] <= hops)
            {
                byDist[dist[n]].push_back(n);
            }
        }
        delay[dst] = 0;
        for (uint32_t d = 1; d <= hops; ++d)
        {
            for (uint32_t n : byDist[d])
            {
                if (m_isHost[n] && n != src)
                {
                    continue;
                }
                for (uint32_t l : m_ports[n])
                {
                    const Link& link = m_links[l];
                    uint32_t m = link.a == n ? link.b : link.a;
                    if (!link.up || link.rateBps < minRate || dist[m] + 1 != d || delay[m] == inf ||
                        (m_isHost[m] && m != dst))
                    {
                        continue;
                    }
                    if (delay[m] + link.delayNs < delay[n])
                    {
                        delay[n] = delay[m] + link.delayNs;
                        nextLink[n] = l;
                    }
                }
            }
        }
        std::vector<PathHop> path;
        for (uint32_t n = src; n != dst;)
        {
            const Link& link = m_links[nextLink[n]];
            path.push_back(PathHop{link.rateBps, link.delayNs});
            n = link.a == n ? link.b : link.a;
        }
        return path;
    }
    // unreachable: the loop succeeds at least for the lowest rate
    throw PrestoInputError("FabricTopology::BestPath: internal error, no path found");
}

std::string
FabricTopology::Describe() const
{
    uint32_t down = 0;
    for (const Link& link : m_links)
    {
        down += link.up ? 0 : 1;
    }
    std::ostringstream os;
    if (m_description.empty())
    {
        os << "custom fabric, " << GetNHosts() << " hosts";
    }
    else
    {
        os << m_description;
    }
    os << ", " << GetNNodes() - GetNHosts() << " switches, " << m_links.size() << " links";
    if (down > 0)
    {
        os << " (" << down << " down)";
    }
    return os.str();
}

} // namespace ns3
