/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_PROGRAM_H
#define PRESTO_CORA_PROGRAM_H

#include "cora-perf-model.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief What selects the element of a state that a packet touches (Cora's FlowGroupID).
 *
 * Flows with the same key value always touch the same element, so Cora aggregates them.
 * GLOBAL is a state with one element or a random mapping (a count-min sketch): the whole
 * state is one non-partitionable element and all its traffic one aggregate.
 */
enum class CoraFlowKey
{
    FLOW,   //!< one element per flow (5-tuple): connection tables, NAT entries
    SRC_IP, //!< one element per source address
    DST_IP, //!< one element per destination address (e.g. a per-server load counter)
    GLOBAL  //!< one element for all traffic
};

/// \param k key \return "flow", "src_ip", "dst_ip" or "global"
std::string ToString(CoraFlowKey k);

/**
 * \ingroup presto
 * \brief Limits on a Cora program, checked as it is built (so a program file with an absurd
 * count is refused at its line instead of making the allocator or the executor allocate
 * without bound).
 */
struct CoraProgramLimits
{
    static constexpr std::size_t NAME_CHARS = 64;          //!< program, element, branch names
    static constexpr uint32_t ELEMENTS = 1024;             //!< state elements per program
    static constexpr uint32_t BRANCHES = 1024;             //!< branches per program
    static constexpr uint32_t DEPENDENCIES = 16384;        //!< dependencies per program
    static constexpr uint64_t ENTRIES = uint64_t{1} << 33; //!< entries of one element
    static constexpr uint32_t ENTRY_BYTES = 1u << 20;      //!< bytes of one entry
    /**
     * entries x entry bytes of one element: 8 GiB, the NIC memory CoraNicLimits plans with
     * by default (a table of 4294967295 entries of 128 bytes, 512 GiB, is refused)
     */
    static constexpr uint64_t STATE_BYTES = uint64_t{1} << 33;
    /// locks of the whole program (the allocator keeps one rate per lock)
    static constexpr uint32_t LOCKS = 1u << 20;
    static constexpr double INSTRUCTIONS = 1e7; //!< per packet: an element's, or stateless
    static constexpr double ACCESSES = 1e6;     //!< per packet: one access kind, lock accesses
};

/**
 * \ingroup presto
 * \brief A state element: a table or register array of the program.
 */
struct CoraStateElement
{
    std::string name;                      //!< unique name within the program
    CoraFlowKey key{CoraFlowKey::FLOW};    //!< what selects the element a packet touches
    uint64_t entries{1};                   //!< entries the state holds (>= 1)
    uint32_t entryBytes{4};                //!< bytes per entry (>= 1)
    double instructions{0};                //!< instructions per packet that touches it (>= 0)
    std::vector<CoraAccessCount> accesses; //!< NIC memory accesses per packet that touches it
    /**
     * Locks protecting the state: 0 = lock-free; otherwise packets hash to one of `locks`
     * locks (flows mapped to the same lock serialise, CoraPerfModel's lock model).
     */
    uint32_t locks{0};
    double lockAccessesPerPacket{0}; //!< lock-word accesses per packet (0 when locks is 0)
};

/**
 * \ingroup presto
 * \brief A read-after-write dependency: `reader` reads state that `writer`'s action writes
 * (or decides on a value read from `writer`). Cycles of these make a state block.
 */
struct CoraDependency
{
    std::string writer; //!< element written first
    std::string reader; //!< element whose processing depends on it
};

/**
 * \ingroup presto
 * \brief One path through the program: the elements a class of packets visits, in order.
 *
 * Packets of a branch run its stateless instructions (offloaded to the NIC whenever the NIC
 * supports them, as in Gallium and Cora) and touch each listed element once.
 */
struct CoraBranch
{
    std::string name;                  //!< unique name (traffic names its branch)
    double statelessInstructions{0};   //!< stateless instructions per packet (>= 0)
    std::vector<std::string> elements; //!< elements touched, in program order
};

/**
 * \ingroup presto
 * \brief A state block: a strongly connected component of the dependency graph. The unit of
 * placement: a (block, aggregate) pair runs on the NIC or on the host as a whole.
 */
struct CoraStateBlock
{
    std::vector<uint32_t> elements; //!< indices into CoraProgram::GetElements()
    /**
     * The block's key: its elements' key when they agree, FLOW if all are FLOW, otherwise
     * GLOBAL (a per-flow table in a cycle with a global register is placed as one unit).
     */
    CoraFlowKey key{CoraFlowKey::FLOW};
    double instructions{0};        //!< sum of its elements' instructions per packet
    uint64_t memoryBytes{0};       //!< sum of entries x entryBytes of its elements
    uint64_t bytesPerAggregate{0}; //!< NIC memory one aggregate takes (see Finalize())
    uint32_t topologicalOrder{0};  //!< position in a topological order of the block graph
};

/**
 * \ingroup presto
 * \brief Cora's state-flow representation of a stateful network program.
 *
 * Build it with AddElement / AddDependency / AddBranch, then call Finalize(), which checks
 * the program and computes the state blocks (strongly connected components of the
 * read-after-write graph, in topological order). Pure logic: no Simulator.
 */
class CoraProgram
{
  public:
    /**
     * \param name program name, used in messages and reports (a valid name: 1 to 64
     *        characters of UTF-8 without white space, control characters or '#')
     * \throws PrestoInputError on an invalid name
     */
    explicit CoraProgram(std::string name = "program");

    /**
     * \param e element (name valid and unique, counts finite, non-negative and within
     *          CoraProgramLimits: entries in [1, 2^33], entryBytes in [1, 2^20], their product
     *          at most 2^33 bytes (8 GiB), instructions at most 10^7 and accesses at most
     *          10^6 per packet, at most 2^20 locks in the program)
     * \throws PrestoInputError on an invalid or duplicate element, beyond the limits, or
     *         after Finalize()
     */
    void AddElement(const CoraStateElement& e);
    /**
     * \param d dependency between two elements already added
     * \throws PrestoInputError naming the unknown element, beyond 16384 dependencies, or after
     *         Finalize()
     */
    void AddDependency(const CoraDependency& d);
    /**
     * \param b branch (valid unique name, known elements, each at most once, stateless
     *          instructions at most 10^7 per packet)
     * \throws PrestoInputError naming the problem, beyond 1024 branches, or after Finalize()
     */
    void AddBranch(const CoraBranch& b);
    /**
     * \brief Check the program and compute its state blocks.
     * \throws PrestoInputError if the program has no element or no branch
     */
    void Finalize();

    /// \return the program name
    const std::string& GetName() const;
    /// \return the elements, in the order added
    const std::vector<CoraStateElement>& GetElements() const;
    /// \return the dependencies
    const std::vector<CoraDependency>& GetDependencies() const;
    /// \return the branches, in the order added
    const std::vector<CoraBranch>& GetBranches() const;
    /// \return the state blocks in topological order (Finalize() must have run)
    const std::vector<CoraStateBlock>& GetBlocks() const;
    /// \param element element index \return index of the block holding it
    uint32_t GetBlockOf(uint32_t element) const;
    /**
     * \param name element name
     * \return its index
     * \throws PrestoInputError if there is no such element
     */
    uint32_t GetElementIndex(const std::string& name) const;
    /**
     * \param name branch name
     * \return its index
     * \throws PrestoInputError if there is no such branch (the message lists the branches)
     */
    uint32_t GetBranchIndex(const std::string& name) const;
    /**
     * \param branch branch index
     * \return the blocks its packets visit, in topological order, each once
     */
    const std::vector<uint32_t>& GetBranchBlocks(uint32_t branch) const;
    /**
     * \brief NIC work of one packet of a branch when the given blocks run on the NIC.
     * \param branch branch index
     * \param nicBlocks for every block of the program, true when it runs on the NIC
     * \return stateless instructions of the branch plus the accesses (and locks) of the
     *         branch's elements in NIC blocks
     */
    CoraProgramLoad NicLoad(uint32_t branch, const std::vector<bool>& nicBlocks) const;
    /// \return true once Finalize() has run
    bool IsFinalized() const;

  private:
    std::string m_name;                                //!< program name
    std::vector<CoraStateElement> m_elements;          //!< elements
    std::vector<CoraDependency> m_dependencies;        //!< read-after-write edges
    std::vector<CoraBranch> m_branches;                //!< branches
    std::vector<CoraStateBlock> m_blocks;              //!< blocks (after Finalize)
    std::vector<uint32_t> m_blockOf;                   //!< element -> block
    std::vector<std::vector<uint32_t>> m_branchBlocks; //!< branch -> blocks
    bool m_finalized{false};                           //!< Finalize() ran
};

/**
 * \ingroup presto
 * \brief The programs shipped with the module (also as files in data/cora/).
 */
struct CoraPrograms
{
    /**
     * \brief The TCP data path's connection table: one FLOW-keyed block per connection (the
     * shared offload TCP data path's per-connection state), used by CoraNetDevice.
     * \return the program (finalized); branch "tcp"
     */
    static CoraProgram TcpConnTable();
    /**
     * \brief The seed's motivating application: an HTTP branch counting senders in a
     * count-min sketch and an L4 load balancer branch (ConnTable -> {LoadCntr, MinLoad}).
     * \return the program (finalized); branches "http" and "l4lb"
     */
    static CoraProgram L4lbHttp();
    /// \return the L4 load balancer alone (branch "l4lb")
    static CoraProgram L4lb();
    /// \return a count-min sketch (branch "count")
    static CoraProgram CountMinSketch();
    /// \return a NAT (FLOW-keyed translation table + per-address port allocator; "nat")
    static CoraProgram Nat();
    /**
     * \param name one of "tcp", "l4lb-http", "l4lb", "count-min", "nat"
     * \return the program
     * \throws PrestoInputError naming the valid names otherwise
     */
    static CoraProgram ByName(const std::string& name);
};

} // namespace ns3

#endif // PRESTO_CORA_PROGRAM_H
