/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "topology-file.h"

#include "ns3/input-file.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/whole-token.h"

#include <deque>
#include <limits>
#include <map>
#include <sstream>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TopologyFile");

namespace
{

/// Longest line of a topology file: HPCC writes every switch id on one line.
constexpr std::size_t TOPOLOGY_LINE_MAX = std::size_t{1} << 20;

/// Longest link delay, ns (1e6 s, the limit of --simTime).
constexpr int64_t TOPOLOGY_DELAY_MAX_NS = 1000000000000000;

/// A link as read, before the topology is built.
struct LinkLine
{
    uint32_t a{0};      //!< node id
    uint32_t b{0};      //!< node id
    double rateBps{0};  //!< bit/s
    int64_t delayNs{0}; //!< ns
    double loss{0};     //!< loss probability
    uint64_t line{0};   //!< where it was read
};

/// Reads the file line by line, splitting tokens and naming file and line in errors.
class TopologyReader
{
  public:
    TopologyReader(const std::string& text, const std::string& source)
        : m_stream(std::make_shared<const std::string>(text)),
          m_lines(m_stream, source, TOPOLOGY_LINE_MAX),
          m_source(source)
    {
    }

    /// Next line with a token (comments removed when \p comments); false at the end.
    bool Next(std::vector<std::string>& tokens, bool comments)
    {
        std::string line;
        while (m_lines.Next(line))
        {
            if (comments)
            {
                line = line.substr(0, line.find('#'));
            }
            tokens.clear();
            std::istringstream is(line);
            std::string t;
            while (is >> t)
            {
                tokens.push_back(t);
            }
            if (!tokens.empty())
            {
                return true;
            }
        }
        return false;
    }

    [[noreturn]] void Fail(const std::string& what) const
    {
        FailAt(m_lines.LineNumber(), what);
    }

    [[noreturn]] void FailAt(uint64_t line, const std::string& what) const
    {
        std::ostringstream os;
        os << m_source;
        if (line > 0)
        {
            os << ":" << line;
        }
        os << ": " << what;
        throw PrestoInputError(os.str());
    }

    uint64_t Line() const
    {
        return m_lines.LineNumber();
    }

    const std::string& Source() const
    {
        return m_source;
    }

    /// A whole token (WholeToken) as an unsigned integer <= max.
    uint64_t Unsigned(const std::string& token, const char* what, uint64_t max) const
    {
        uint64_t v = 0;
        std::string why;
        if (!WholeToken::Parse(token, max, v, why))
        {
            Fail(std::string(what) + " '" + InputExcerpt(token) + "' " + why);
        }
        return v;
    }

    /// A whole token (WholeToken::ParseRate) as a rate, bit/s.
    double Rate(const std::string& token) const
    {
        double bps = 0;
        std::string why;
        if (!WholeToken::ParseRate(token, bps, why))
        {
            Fail("link rate '" + InputExcerpt(token) + "' " + why);
        }
        return bps;
    }

    /// A whole token (WholeToken::ParseDuration) as a delay, ns.
    int64_t Delay(const std::string& token) const
    {
        int64_t ns = 0;
        std::string why;
        if (!WholeToken::ParseDuration(token, TOPOLOGY_DELAY_MAX_NS, ns, why))
        {
            Fail("link delay '" + InputExcerpt(token) + "' " + why);
        }
        return ns;
    }

    /// A whole token (WholeToken) as a loss probability in [0, 1).
    double Loss(const std::string& token) const
    {
        double v = 0;
        std::string why;
        if (!WholeToken::Parse(token, v, why))
        {
            Fail("error rate '" + InputExcerpt(token) + "' " + why);
        }
        if (!(v >= 0 && v < 1))
        {
            Fail("error rate '" + InputExcerpt(token) + "' is not a number in [0, 1)");
        }
        return v;
    }

    /// A node name of the presto format: any text but a NUL byte or a comma.
    const std::string& Name(const std::string& token) const
    {
        std::string name;
        std::string why;
        if (!WholeToken::Parse(token, name, why))
        {
            Fail("node name '" + InputExcerpt(token) + "' " + why);
        }
        if (token.find(',') != std::string::npos)
        {
            Fail("node name '" + InputExcerpt(token) + "' has a comma");
        }
        return token;
    }

  private:
    InputTextStream m_stream; //!< the text
    InputLineReader m_lines;  //!< its lines (declared after the stream it reads)
    std::string m_source;     //!< name in messages
};

/// What both formats produce before the topology is built.
struct ParsedTopology
{
    std::vector<bool> isSwitch;      //!< per node id
    std::vector<std::string> names;  //!< per node id
    std::vector<uint64_t> nodeLines; //!< where each node was declared (0: line 1 / 2)
    std::vector<LinkLine> links;     //!< in file order
    std::string format;              //!< "HPCC" or "presto"
};

void
ReadHpcc(TopologyReader& r, std::vector<std::string>& tokens, ParsedTopology& p)
{
    p.format = "HPCC topology.txt";
    if (tokens.size() != 3)
    {
        r.Fail("expected '<nodes> <switches> <links>' (HPCC topology.txt) or 'presto-topology "
               "1', got " +
               std::to_string(tokens.size()) + " words");
    }
    const auto nodes =
        static_cast<uint32_t>(r.Unsigned(tokens[0], "node count", TOPOLOGY_FILE_MAX_NODES));
    const auto switches = static_cast<uint32_t>(r.Unsigned(tokens[1], "switch count", nodes));
    const uint64_t links =
        r.Unsigned(tokens[2], "link count", std::numeric_limits<uint32_t>::max());
    if (nodes == 0)
    {
        r.Fail("node count is 0");
    }
    p.isSwitch.assign(nodes, false);
    p.nodeLines.assign(nodes, r.Line());
    uint32_t seen = 0;
    while (seen < switches)
    {
        if (!r.Next(tokens, false))
        {
            r.Fail("the file ends after " + std::to_string(seen) + " of " +
                   std::to_string(switches) + " switch ids");
        }
        for (const auto& t : tokens)
        {
            if (seen == switches)
            {
                r.Fail("more switch ids than the " + std::to_string(switches) + " declared");
            }
            const auto id = static_cast<uint32_t>(r.Unsigned(t, "switch id", nodes - 1));
            if (p.isSwitch[id])
            {
                r.Fail("switch id " + std::to_string(id) + " is listed twice");
            }
            p.isSwitch[id] = true;
            p.nodeLines[id] = r.Line();
            ++seen;
        }
    }
    for (uint32_t n = 0; n < nodes; ++n)
    {
        p.names.push_back(std::to_string(n));
    }
    for (uint64_t l = 0; l < links; ++l)
    {
        if (!r.Next(tokens, false))
        {
            r.Fail("the file ends after " + std::to_string(l) + " of " + std::to_string(links) +
                   " links");
        }
        if (tokens.size() != 5)
        {
            r.Fail("a link line is '<src> <dst> <rate> <delay> <error rate>', got " +
                   std::to_string(tokens.size()) + " words");
        }
        LinkLine link;
        link.a = static_cast<uint32_t>(r.Unsigned(tokens[0], "link end", nodes - 1));
        link.b = static_cast<uint32_t>(r.Unsigned(tokens[1], "link end", nodes - 1));
        link.rateBps = r.Rate(tokens[2]);
        link.delayNs = r.Delay(tokens[3]);
        link.loss = r.Loss(tokens[4]);
        link.line = r.Line();
        p.links.push_back(link);
    }
    if (r.Next(tokens, false))
    {
        r.Fail("text after the " + std::to_string(links) + " links the first line declares");
    }
}

void
ReadPresto(TopologyReader& r, std::vector<std::string>& tokens, ParsedTopology& p)
{
    p.format = "presto";
    for (std::size_t i = 0; i < tokens.size(); ++i)
    {
        if (tokens[i][0] == '#')
        {
            tokens.resize(i); // a comment after the version
            break;
        }
    }
    if (tokens.size() != 2 || tokens[1] != "1")
    {
        r.Fail("expected 'presto-topology 1' (format version 1)");
    }
    std::map<std::string, uint32_t> ids;
    while (r.Next(tokens, true))
    {
        const std::string& kind = tokens[0];
        if (kind == "switch" || kind == "host")
        {
            if (tokens.size() < 2)
            {
                r.Fail("'" + kind + "' needs at least one name");
            }
            for (std::size_t i = 1; i < tokens.size(); ++i)
            {
                const std::string& name = r.Name(tokens[i]);
                if (ids.count(name))
                {
                    r.Fail("node '" + InputExcerpt(name) + "' is declared twice");
                }
                if (p.isSwitch.size() >= TOPOLOGY_FILE_MAX_NODES)
                {
                    r.Fail("more than " + std::to_string(TOPOLOGY_FILE_MAX_NODES) + " nodes");
                }
                ids[name] = static_cast<uint32_t>(p.isSwitch.size());
                p.isSwitch.push_back(kind == "switch");
                p.names.push_back(name);
                p.nodeLines.push_back(r.Line());
            }
        }
        else if (kind == "link")
        {
            if (tokens.size() != 5 && tokens.size() != 6)
            {
                r.Fail("a link is 'link <a> <b> <rate> <delay> [<loss rate>]', got " +
                       std::to_string(tokens.size() - 1) + " words after 'link'");
            }
            LinkLine link;
            for (int end = 0; end < 2; ++end)
            {
                auto it = ids.find(tokens[1 + end]);
                if (it == ids.end())
                {
                    r.Fail("link end '" + InputExcerpt(tokens[1 + end]) +
                           "' is not a declared switch or host");
                }
                (end == 0 ? link.a : link.b) = it->second;
            }
            link.rateBps = r.Rate(tokens[3]);
            link.delayNs = r.Delay(tokens[4]);
            link.loss = tokens.size() == 6 ? r.Loss(tokens[5]) : 0.0;
            link.line = r.Line();
            p.links.push_back(link);
        }
        else
        {
            r.Fail("unknown keyword '" + InputExcerpt(kind) + "' (switch, host or link)");
        }
    }
    if (p.isSwitch.empty())
    {
        r.FailAt(0, "no nodes declared");
    }
}

/// The links of a parsed topology as a graph.
struct LinkGraph
{
    std::vector<uint32_t> degree;                //!< per node, its links
    std::vector<uint64_t> firstLink;             //!< per node, the line of its first link
    std::vector<std::vector<uint32_t>> adjacent; //!< per node, its neighbours in link order
};

/// Distance of a node no host reaches (HostDistances).
constexpr uint32_t UNREACHED = std::numeric_limits<uint32_t>::max();

/// The links as a graph, each checked: every host exactly one link, no link to itself, no
/// host-host link.
LinkGraph
CheckLinks(const TopologyReader& r, const ParsedTopology& p)
{
    const auto n = static_cast<uint32_t>(p.isSwitch.size());
    LinkGraph g;
    g.degree.assign(n, 0);
    g.firstLink.assign(n, 0);
    g.adjacent.resize(n);
    for (const LinkLine& l : p.links)
    {
        if (l.a == l.b)
        {
            r.FailAt(l.line, "link from node " + p.names[l.a] + " to itself");
        }
        if (!p.isSwitch[l.a] && !p.isSwitch[l.b])
        {
            r.FailAt(l.line,
                     "link between two hosts (" + p.names[l.a] + ", " + p.names[l.b] +
                         "): hosts attach to switches");
        }
        for (uint32_t end : {l.a, l.b})
        {
            if (!p.isSwitch[end] && g.degree[end] == 1)
            {
                r.FailAt(l.line,
                         "host " + p.names[end] + " has a second link (its first is on line " +
                             std::to_string(g.firstLink[end]) + "); every host has exactly one");
            }
            if (g.degree[end]++ == 0)
            {
                g.firstLink[end] = l.line;
            }
        }
        g.adjacent[l.a].push_back(l.b);
        g.adjacent[l.b].push_back(l.a);
    }
    return g;
}

/// The hosts in node order, each checked to have a link; at least 2 of them.
std::vector<uint32_t>
CheckHosts(const TopologyReader& r, const ParsedTopology& p, const LinkGraph& g)
{
    std::vector<uint32_t> hosts;
    for (uint32_t v = 0; v < p.isSwitch.size(); ++v)
    {
        if (!p.isSwitch[v])
        {
            if (g.degree[v] == 0)
            {
                r.FailAt(p.nodeLines[v], "host " + p.names[v] + " has no link");
            }
            hosts.push_back(v);
        }
    }
    if (hosts.size() < 2)
    {
        r.FailAt(0,
                 "needs at least 2 hosts (nodes that are not switches), has " +
                     std::to_string(hosts.size()));
    }
    return hosts;
}

/// Every node's distance to the nearest host (multi-source BFS): a switch's tier is its
/// distance - 1. UNREACHED for a node no host reaches.
std::vector<uint32_t>
HostDistances(const LinkGraph& g, const std::vector<uint32_t>& hosts)
{
    std::vector<uint32_t> dist(g.adjacent.size(), UNREACHED);
    std::deque<uint32_t> frontier;
    for (uint32_t h : hosts)
    {
        dist[h] = 0;
        frontier.push_back(h);
    }
    while (!frontier.empty())
    {
        const uint32_t v = frontier.front();
        frontier.pop_front();
        for (uint32_t w : g.adjacent[v])
        {
            if (dist[w] == UNREACHED)
            {
                dist[w] = dist[v] + 1;
                frontier.push_back(w);
            }
        }
    }
    return dist;
}

/// Every host reaches the first one (hosts have one link: paths run through switches).
void
CheckConnected(const TopologyReader& r,
               const ParsedTopology& p,
               const LinkGraph& g,
               const std::vector<uint32_t>& hosts)
{
    std::vector<bool> reach(g.adjacent.size(), false);
    std::deque<uint32_t> frontier;
    frontier.push_back(hosts[0]);
    reach[hosts[0]] = true;
    while (!frontier.empty())
    {
        const uint32_t v = frontier.front();
        frontier.pop_front();
        for (uint32_t w : g.adjacent[v])
        {
            if (!reach[w])
            {
                reach[w] = true;
                if (p.isSwitch[w])
                {
                    frontier.push_back(w);
                }
            }
        }
    }
    for (uint32_t h : hosts)
    {
        if (!reach[h])
        {
            r.FailAt(g.firstLink[h],
                     "host " + p.names[h] + " cannot reach host " + p.names[hosts[0]] +
                         " (the fabric is not connected)");
        }
    }
}

} // namespace

FabricTopology
ParseTopologyText(const std::string& text, const std::string& source)
{
    NS_LOG_FUNCTION(source << text.size());
    const std::string where = "topology file " + InputExcerpt(source);
    TopologyReader r(text, where);
    std::vector<std::string> tokens;
    if (!r.Next(tokens, false))
    {
        r.FailAt(0, "empty (expected '<nodes> <switches> <links>' or 'presto-topology 1')");
    }
    ParsedTopology p;
    if (tokens[0] == "presto-topology")
    {
        ReadPresto(r, tokens, p);
    }
    else
    {
        ReadHpcc(r, tokens, p);
    }
    const LinkGraph graph = CheckLinks(r, p);
    const std::vector<uint32_t> hosts = CheckHosts(r, p, graph);
    const std::vector<uint32_t> dist = HostDistances(graph, hosts);
    CheckConnected(r, p, graph, hosts);

    FabricTopology t;
    for (uint32_t v = 0; v < p.isSwitch.size(); ++v)
    {
        const uint32_t id =
            p.isSwitch[v] ? t.AddSwitch(dist[v] == UNREACHED ? 0 : dist[v] - 1) : t.AddHost();
        t.SetNodeName(id, p.names[v]);
    }
    for (const LinkLine& l : p.links)
    {
        const uint32_t id = t.AddLink(l.a, l.b, l.rateBps, l.delayNs);
        if (l.loss > 0)
        {
            t.SetLinkLossRate(id, l.loss);
        }
    }
    t.SetDescription("topology file " + InputExcerpt(source) + " (" + p.format + "), " +
                     std::to_string(hosts.size()) + " hosts");
    return t;
}

FabricTopology
ReadTopologyFile(const std::string& path)
{
    NS_LOG_FUNCTION(path);
    return ParseTopologyText(*ReadInputText(path, "topology file"), path);
}

} // namespace ns3
