/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-program.h"

#include "ns3/input-file.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <cctype>
#include <cmath>
#include <functional>
#include <queue>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace ns3
{

namespace
{

/// \param x value \return true if x is finite and >= 0
bool
IsNonNegativeFinite(double x)
{
    return std::isfinite(x) && x >= 0;
}

/// \param s a name \return true if it is non-empty, at most CoraProgramLimits::NAME_CHARS
/// characters of UTF-8 without white space, control characters or '#' (files and
/// summary.json can hold it)
bool
IsValidName(const std::string& s)
{
    if (s.empty() || s.size() > CoraProgramLimits::NAME_CHARS || !IsValidUtf8(s))
    {
        return false;
    }
    return std::none_of(s.begin(), s.end(), [](unsigned char c) {
        return std::isspace(c) != 0 || c < 0x20 || c == 0x7f || c == '#';
    });
}

/// The rule for names, for messages.
const char* const NAME_RULE = "name must be 1 to 64 characters of UTF-8, without spaces, "
                              "control characters or '#'";

/// \param s a name from the input \return it quoted as messages show it
std::string
Q(const std::string& s)
{
    return "'" + InputExcerpt(s) + "'";
}

/// Element-index edges writer -> reader of a program's read-after-write dependencies.
using EdgeList = std::vector<std::pair<uint32_t, uint32_t>>;

/**
 * \param n number of elements \param edges dependency edges
 * \param comp filled with each element's strongly connected component (Boost's numbering)
 * \return the number of components
 */
int
StrongComponents(uint32_t n, const EdgeList& edges, std::vector<int>& comp)
{
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    Graph g(n);
    for (const auto& e : edges)
    {
        boost::add_edge(e.first, e.second, g);
    }
    comp.assign(n, 0);
    return boost::strong_components(
        g,
        boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, g)));
}

/**
 * \brief Topological order of the condensation DAG.
 *
 * Boost numbers components in an order that depends on its traversal; ordering them ourselves
 * (Kahn, smallest element index first) makes the block order a documented function of the
 * program text alone.
 * \param comp component per element \param numComp number of components \param edges edges
 * \param blockOfComp filled with each component's position in the order (-1 if none)
 * \return the number of components ordered
 */
std::size_t
OrderComponents(const std::vector<int>& comp,
                int numComp,
                const EdgeList& edges,
                std::vector<int>& blockOfComp)
{
    const auto n = static_cast<uint32_t>(comp.size());
    std::vector<uint32_t> minElement(numComp, n);
    for (uint32_t v = 0; v < n; ++v)
    {
        minElement[comp[v]] = std::min(minElement[comp[v]], v);
    }
    std::vector<std::set<int>> succ(numComp);
    std::vector<uint32_t> indegree(numComp, 0);
    for (const auto& e : edges)
    {
        const int from = comp[e.first];
        const int to = comp[e.second];
        if (from != to && succ[from].insert(to).second)
        {
            ++indegree[to];
        }
    }
    using Item = std::pair<uint32_t, int>; // (smallest element index, component)
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> ready;
    for (int c = 0; c < numComp; ++c)
    {
        if (indegree[c] == 0)
        {
            ready.emplace(minElement[c], c);
        }
    }
    blockOfComp.assign(numComp, -1);
    std::vector<int> order;
    while (!ready.empty())
    {
        const int c = ready.top().second;
        ready.pop();
        blockOfComp[c] = static_cast<int>(order.size());
        order.push_back(c);
        for (int s : succ[c])
        {
            if (--indegree[s] == 0)
            {
                ready.emplace(minElement[s], s);
            }
        }
    }
    return order.size();
}

/**
 * \brief Fill a block's totals from its elements (block.elements already set).
 * \param block the block \param elements the program's elements
 */
void
SummariseBlock(CoraStateBlock& block, const std::vector<CoraStateElement>& elements)
{
    const CoraFlowKey first = elements[block.elements.front()].key;
    bool agree = true;
    uint64_t sumEntryBytes = 0;
    for (uint32_t v : block.elements)
    {
        const auto& e = elements[v];
        agree = agree && e.key == first;
        block.instructions += e.instructions;
        block.memoryBytes += e.entries * e.entryBytes;
        sumEntryBytes += e.entryBytes;
    }
    // Mixed keys: no single key value selects one element of every state in the block,
    // so the block cannot be split by aggregate and is placed as one unit.
    block.key = agree ? first : CoraFlowKey::GLOBAL;
    // A keyed block's aggregate owns one entry of each element; a GLOBAL block's single
    // aggregate owns all of its state.
    block.bytesPerAggregate = block.key == CoraFlowKey::GLOBAL ? block.memoryBytes : sumEntryBytes;
}

} // namespace

std::string
ToString(CoraFlowKey k)
{
    switch (k)
    {
    case CoraFlowKey::FLOW:
        return "flow";
    case CoraFlowKey::SRC_IP:
        return "src_ip";
    case CoraFlowKey::DST_IP:
        return "dst_ip";
    case CoraFlowKey::GLOBAL:
        return "global";
    }
    return "?";
}

CoraProgram::CoraProgram(std::string name)
    : m_name(std::move(name))
{
    if (!IsValidName(m_name))
    {
        throw PrestoInputError("Cora program " + Q(m_name) + ": " + NAME_RULE);
    }
}

void
CoraProgram::AddElement(const CoraStateElement& e)
{
    const std::string where = "Cora program '" + m_name + "': element " + Q(e.name) + ": ";
    if (m_finalized)
    {
        throw PrestoInputError(where + "cannot be added after Finalize()");
    }
    if (!IsValidName(e.name))
    {
        throw PrestoInputError(where + NAME_RULE);
    }
    if (m_elements.size() >= CoraProgramLimits::ELEMENTS)
    {
        throw PrestoInputError(where + "more than " + std::to_string(CoraProgramLimits::ELEMENTS) +
                               " elements");
    }
    for (const auto& other : m_elements)
    {
        if (other.name == e.name)
        {
            throw PrestoInputError(where + "duplicate element name");
        }
    }
    uint64_t programLocks = 0;
    for (const auto& other : m_elements)
    {
        programLocks += other.locks;
    }
    std::ostringstream os;
    if (e.entries < 1 || e.entries > CoraProgramLimits::ENTRIES)
    {
        os << "entries must be >= 1 and <= 2^33 (got " << e.entries << ")";
    }
    else if (e.entryBytes < 1 || e.entryBytes > CoraProgramLimits::ENTRY_BYTES)
    {
        os << "entry bytes must be >= 1 and <= 2^20 (got " << e.entryBytes << ")";
    }
    else if (e.entries > CoraProgramLimits::STATE_BYTES / e.entryBytes) // no overflow
    {
        os << "entries x entry bytes = " << e.entries << " x " << e.entryBytes << " = "
           << e.entries * e.entryBytes
           << " bytes, more than 2^33 (8 GiB, the NIC memory CoraNicLimits plans with)";
    }
    else if (!IsNonNegativeFinite(e.instructions) ||
             e.instructions > CoraProgramLimits::INSTRUCTIONS)
    {
        os << "instructions must be finite and in [0, " << CoraProgramLimits::INSTRUCTIONS
           << "] per packet (got " << e.instructions << ")";
    }
    else if (!IsNonNegativeFinite(e.lockAccessesPerPacket) ||
             e.lockAccessesPerPacket > CoraProgramLimits::ACCESSES)
    {
        os << "lock accesses per packet must be finite and in [0, " << CoraProgramLimits::ACCESSES
           << "] (got " << e.lockAccessesPerPacket << ")";
    }
    else if (e.locks == 0 && e.lockAccessesPerPacket > 0)
    {
        os << "lock accesses per packet " << e.lockAccessesPerPacket << " but no locks";
    }
    else if (programLocks + e.locks > CoraProgramLimits::LOCKS)
    {
        os << "locks " << e.locks << " bring the program to " << programLocks + e.locks
           << " locks, more than " << CoraProgramLimits::LOCKS
           << " (2^20; the allocator keeps a rate per lock)";
    }
    if (!os.str().empty())
    {
        throw PrestoInputError(where + os.str());
    }
    for (std::size_t k = 0; k < e.accesses.size(); ++k)
    {
        const auto& acc = e.accesses[k];
        const uint32_t w = acc.kind.widthBytes;
        if (w < 4 || w > 128 || w % 4 != 0)
        {
            throw PrestoInputError(where + "access " + acc.kind.ToString() +
                                   ": width must be a multiple of 4 bytes in [4, 128]");
        }
        if (!IsNonNegativeFinite(acc.perPacket) || acc.perPacket > CoraProgramLimits::ACCESSES)
        {
            std::ostringstream msg;
            msg << where << "access " << acc.kind.ToString() << ": count " << acc.perPacket
                << " must be finite and in [0, " << CoraProgramLimits::ACCESSES << "] per packet";
            throw PrestoInputError(msg.str());
        }
    }
    m_elements.push_back(e);
}

void
CoraProgram::AddDependency(const CoraDependency& d)
{
    const std::string where = "Cora program '" + m_name + "': dependency " +
                              InputExcerpt(d.writer) + " -> " + InputExcerpt(d.reader) + ": ";
    if (m_finalized)
    {
        throw PrestoInputError(where + "cannot be added after Finalize()");
    }
    if (m_dependencies.size() >= CoraProgramLimits::DEPENDENCIES)
    {
        throw PrestoInputError(where + "more than " +
                               std::to_string(CoraProgramLimits::DEPENDENCIES) + " dependencies");
    }
    for (const auto* name : {&d.writer, &d.reader})
    {
        bool found = false;
        for (const auto& e : m_elements)
        {
            found = found || e.name == *name;
        }
        if (!found)
        {
            throw PrestoInputError(where + "unknown element " + Q(*name));
        }
    }
    m_dependencies.push_back(d);
}

void
CoraProgram::AddBranch(const CoraBranch& b)
{
    const std::string where = "Cora program '" + m_name + "': branch " + Q(b.name) + ": ";
    if (m_finalized)
    {
        throw PrestoInputError(where + "cannot be added after Finalize()");
    }
    if (!IsValidName(b.name))
    {
        throw PrestoInputError(where + NAME_RULE);
    }
    if (m_branches.size() >= CoraProgramLimits::BRANCHES)
    {
        throw PrestoInputError(where + "more than " + std::to_string(CoraProgramLimits::BRANCHES) +
                               " branches");
    }
    for (const auto& other : m_branches)
    {
        if (other.name == b.name)
        {
            throw PrestoInputError(where + "duplicate branch name");
        }
    }
    if (!IsNonNegativeFinite(b.statelessInstructions) ||
        b.statelessInstructions > CoraProgramLimits::INSTRUCTIONS)
    {
        std::ostringstream os;
        os << where << "stateless instructions must be finite and in [0, "
           << CoraProgramLimits::INSTRUCTIONS << "] per packet (got " << b.statelessInstructions
           << ")";
        throw PrestoInputError(os.str());
    }
    std::set<std::string> seen;
    for (const auto& name : b.elements)
    {
        bool found = false;
        for (const auto& e : m_elements)
        {
            found = found || e.name == name;
        }
        if (!found)
        {
            throw PrestoInputError(where + "unknown element " + Q(name));
        }
        if (!seen.insert(name).second)
        {
            throw PrestoInputError(where + "element " + Q(name) + " listed twice");
        }
    }
    m_branches.push_back(b);
}

void
CoraProgram::Finalize()
{
    const std::string where = "Cora program '" + m_name + "': ";
    if (m_finalized)
    {
        return;
    }
    if (m_elements.empty())
    {
        throw PrestoInputError(where + "has no state element");
    }
    if (m_branches.empty())
    {
        throw PrestoInputError(where + "has no branch");
    }

    // Strongly connected components of the read-after-write graph (edge writer -> reader).
    const auto n = static_cast<uint32_t>(m_elements.size());
    EdgeList edges;
    for (const auto& d : m_dependencies)
    {
        edges.emplace_back(GetElementIndex(d.writer), GetElementIndex(d.reader));
    }
    std::vector<int> comp;
    const int numComp = StrongComponents(n, edges, comp);
    std::vector<int> blockOfComp;
    const std::size_t numBlocks = OrderComponents(comp, numComp, edges, blockOfComp);

    m_blocks.assign(numBlocks, CoraStateBlock{});
    m_blockOf.assign(n, 0);
    for (uint32_t v = 0; v < n; ++v)
    {
        const auto b = static_cast<uint32_t>(blockOfComp[comp[v]]);
        m_blockOf[v] = b;
        m_blocks[b].elements.push_back(v); // ascending: v increases
    }
    for (uint32_t b = 0; b < m_blocks.size(); ++b)
    {
        m_blocks[b].topologicalOrder = b;
        SummariseBlock(m_blocks[b], m_elements);
    }

    m_branchBlocks.assign(m_branches.size(), {});
    for (std::size_t br = 0; br < m_branches.size(); ++br)
    {
        std::set<uint32_t> blocks; // block indices are topological positions: sorted = ordered
        for (const auto& name : m_branches[br].elements)
        {
            blocks.insert(m_blockOf[GetElementIndex(name)]);
        }
        m_branchBlocks[br].assign(blocks.begin(), blocks.end());
    }
    m_finalized = true;
}

const std::string&
CoraProgram::GetName() const
{
    return m_name;
}

const std::vector<CoraStateElement>&
CoraProgram::GetElements() const
{
    return m_elements;
}

const std::vector<CoraDependency>&
CoraProgram::GetDependencies() const
{
    return m_dependencies;
}

const std::vector<CoraBranch>&
CoraProgram::GetBranches() const
{
    return m_branches;
}

const std::vector<CoraStateBlock>&
CoraProgram::GetBlocks() const
{
    if (!m_finalized)
    {
        throw std::logic_error("Cora program '" + m_name + "': GetBlocks() before Finalize()");
    }
    return m_blocks;
}

uint32_t
CoraProgram::GetBlockOf(uint32_t element) const
{
    if (!m_finalized)
    {
        throw std::logic_error("Cora program '" + m_name + "': GetBlockOf() before Finalize()");
    }
    return m_blockOf.at(element);
}

uint32_t
CoraProgram::GetElementIndex(const std::string& name) const
{
    for (uint32_t i = 0; i < m_elements.size(); ++i)
    {
        if (m_elements[i].name == name)
        {
            return i;
        }
    }
    throw PrestoInputError("Cora program '" + m_name + "': no element " + Q(name));
}

uint32_t
CoraProgram::GetBranchIndex(const std::string& name) const
{
    std::string names;
    for (uint32_t i = 0; i < m_branches.size(); ++i)
    {
        if (m_branches[i].name == name)
        {
            return i;
        }
        if (i < 10)
        {
            names += (i == 0 ? "" : ", ") + m_branches[i].name;
        }
    }
    if (m_branches.size() > 10)
    {
        names += ", ... (" + std::to_string(m_branches.size()) + " branches)";
    }
    throw PrestoInputError("Cora program '" + m_name + "': no branch " + Q(name) +
                           " (branches: " + names + ")");
}

const std::vector<uint32_t>&
CoraProgram::GetBranchBlocks(uint32_t branch) const
{
    if (!m_finalized)
    {
        throw std::logic_error("Cora program '" + m_name +
                               "': GetBranchBlocks() before Finalize()");
    }
    return m_branchBlocks.at(branch);
}

CoraProgramLoad
CoraProgram::NicLoad(uint32_t branch, const std::vector<bool>& nicBlocks) const
{
    if (!m_finalized)
    {
        throw std::logic_error("Cora program '" + m_name + "': NicLoad() before Finalize()");
    }
    if (nicBlocks.size() != m_blocks.size())
    {
        std::ostringstream os;
        os << "Cora program '" << m_name << "': NicLoad() got " << nicBlocks.size()
           << " block flags, the program has " << m_blocks.size() << " blocks";
        throw std::invalid_argument(os.str());
    }
    const auto& br = m_branches.at(branch);
    CoraProgramLoad load;
    load.statelessInstructions = br.statelessInstructions;
    for (const auto& name : br.elements)
    {
        const uint32_t v = GetElementIndex(name);
        if (!nicBlocks[m_blockOf[v]])
        {
            continue;
        }
        const auto& e = m_elements[v];
        for (const auto& acc : e.accesses)
        {
            // One entry per kind, in first-seen order, so loads compare equal field by field.
            auto it = std::find_if(load.accesses.begin(),
                                   load.accesses.end(),
                                   [&acc](const CoraAccessCount& c) { return c.kind == acc.kind; });
            if (it == load.accesses.end())
            {
                load.accesses.push_back(acc);
            }
            else
            {
                it->perPacket += acc.perPacket;
            }
        }
        load.distinctLocks += e.locks;
        load.lockAccessesPerPacket += e.lockAccessesPerPacket;
    }
    return load;
}

bool
CoraProgram::IsFinalized() const
{
    return m_finalized;
}

} // namespace ns3
