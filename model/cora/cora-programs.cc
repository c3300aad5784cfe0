/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The programs shipped with the module. Every count below is an estimate for a plausible
// implementation on a Netronome-class SmartNIC (the seed gives none per element); each is
// explained next to it. data/cora/*.cora hold the same programs as files and a unit test
// checks that they stay equal.
#include "cora-program.h"

#include "ns3/presto-input-error.h"

namespace ns3
{

namespace
{

/**
 * \param mem memory \param op read or write \param mode atomic or bulk
 * \param width bytes per access \param perPacket accesses per packet
 * \return an access count of one kind
 */
CoraAccessCount
Access(CoraMemoryType mem, CoraMemoryOp op, CoraAccessMode mode, uint32_t width, double perPacket)
{
    return CoraAccessCount{CoraAccessKind{mem, op, mode, width}, perPacket};
}

/**
 * The L4 load balancer's per-connection table: <5-tuple hash -> DIP>. 1M connections; an
 * entry is a 12-byte key digest plus the 4-byte DIP (16 B). Per packet: one 16-byte bulk read
 * from EMEM (the table is far too large for IMEM); ~300 host instructions for hashing the
 * 5-tuple, the lookup and the compare (cuckoo-style lookup in DPDK's rte_hash costs a few
 * hundred cycles).
 * \return the element
 */
CoraStateElement
ConnTable()
{
    CoraStateElement e;
    e.name = "ConnTable";
    e.key = CoraFlowKey::FLOW;
    e.entries = 1u << 20;
    e.entryBytes = 16;
    e.instructions = 300;
    e.accesses = {Access(CoraMemoryType::EMEM, CoraMemoryOp::READ, CoraAccessMode::BULK, 16, 1)};
    return e;
}

/**
 * Per-DIP load counter: 64 back-end servers x 8-byte counter, keyed by the destination the
 * packet is sent to. Per packet: one 8-byte atomic add in IMEM (lock-free: the engine does
 * the read-modify-write); ~60 instructions.
 * \return the element
 */
CoraStateElement
LoadCntr()
{
    CoraStateElement e;
    e.name = "LoadCntr";
    e.key = CoraFlowKey::DST_IP;
    e.entries = 64;
    e.entryBytes = 8;
    e.instructions = 60;
    e.accesses = {Access(CoraMemoryType::IMEM, CoraMemoryOp::WRITE, CoraAccessMode::ATOMIC, 8, 1)};
    return e;
}

/**
 * The server with the minimum load (one 8-byte register: DIP and its load). Every packet
 * reads it to compare with the counter it just updated (8-byte bulk IMEM read); assumed one
 * packet in ten changes the minimum and writes it back atomically (0.1 per packet); ~60
 * instructions.
 * \return the element
 */
CoraStateElement
MinLoad()
{
    CoraStateElement e;
    e.name = "MinLoad";
    e.key = CoraFlowKey::GLOBAL;
    e.entries = 1;
    e.entryBytes = 8;
    e.instructions = 60;
    e.accesses = {
        Access(CoraMemoryType::IMEM, CoraMemoryOp::READ, CoraAccessMode::BULK, 8, 1),
        Access(CoraMemoryType::IMEM, CoraMemoryOp::WRITE, CoraAccessMode::ATOMIC, 8, 0.1)};
    return e;
}

/**
 * Count-min sketch of packets per sender: 4 rows x 65536 4-byte counters (1 MiB, fits the
 * NFP's 4 MB IMEM). The row index is a hash, a random mapping: GLOBAL. Per packet: one atomic
 * increment per row (4). As in the seed (Section 5), a thread takes a lock before updating the
 * array; 64 locks striped over the columns, acquire + release = 2 lock-word accesses. ~200
 * host instructions: four hashes and four increments.
 * \return the element
 */
CoraStateElement
CountMin()
{
    CoraStateElement e;
    e.name = "CountMin";
    e.key = CoraFlowKey::GLOBAL;
    e.entries = 4 * 65536;
    e.entryBytes = 4;
    e.instructions = 200;
    e.accesses = {Access(CoraMemoryType::IMEM, CoraMemoryOp::WRITE, CoraAccessMode::ATOMIC, 4, 4)};
    e.locks = 64;
    e.lockAccessesPerPacket = 2;
    return e;
}

/**
 * The balancer's elements and dependencies: ConnTable -> LoadCntr (the DIP found in ConnTable
 * selects the counter to update) and LoadCntr <-> MinLoad (the minimum is recomputed from the
 * counters, and the balancer's choice feeds the counters back): a cycle, one block. The
 * first packet of a connection also writes ConnTable with the DIP read from MinLoad; that is a
 * once-per-connection insert on the miss path, not a per-packet read-after-write, and like the
 * seed's Figure 2 (ConnTable partitioned apart from LoadCntr and MinLoad) it is left out:
 * with it the whole balancer would be one GLOBAL block and ConnTable could not be split.
 * \param p program to add to
 */
void
AddL4lb(CoraProgram& p)
{
    p.AddElement(ConnTable());
    p.AddElement(LoadCntr());
    p.AddElement(MinLoad());
    p.AddDependency({"ConnTable", "LoadCntr"});
    p.AddDependency({"LoadCntr", "MinLoad"});
    p.AddDependency({"MinLoad", "LoadCntr"});
}

/// Stateless work of the balancer: parse, VIP match, rewrite the destination, fix checksums.
constexpr double L4LB_STATELESS = 80;
/// Stateless work of the HTTP branch: parse up to L4 and classify the packet as HTTP.
constexpr double HTTP_STATELESS = 50;

} // namespace

CoraProgram
CoraPrograms::TcpConnTable()
{
    CoraProgram p("tcp");
    CoraStateElement e;
    e.name = "ConnTable";
    e.key = CoraFlowKey::FLOW;
    // 64K connections; TAS keeps about two cache lines of per-flow state (sequence and
    // window fields, buffer pointers, congestion-control state): 128 B.
    e.entries = 65536;
    e.entryBytes = 128;
    // Host cost of one segment on the data path, order of magnitude of Linux/TAS per-packet
    // TCP processing (an estimate, not a measurement).
    e.instructions = 1500;
    // The NIC reads both cache lines of the connection and writes back the one it changed
    // (sequence numbers, window): 2 x 64 B bulk reads + 1 x 64 B bulk write in EMEM.
    e.accesses = {Access(CoraMemoryType::EMEM, CoraMemoryOp::READ, CoraAccessMode::BULK, 64, 2),
                  Access(CoraMemoryType::EMEM, CoraMemoryOp::WRITE, CoraAccessMode::BULK, 64, 1)};
    // No lock: as in FlexTOE, a connection's segments are processed by one flow group in
    // order, so its state needs no lock.
    p.AddElement(e);
    // Header parsing, checksum and descriptor handling stay stateless (~100 instructions).
    p.AddBranch({"tcp", 100, {"ConnTable"}});
    p.Finalize();
    return p;
}

CoraProgram
CoraPrograms::L4lbHttp()
{
    CoraProgram p("l4lb-http");
    AddL4lb(p);
    p.AddElement(CountMin());
    p.AddBranch({"http", HTTP_STATELESS, {"CountMin"}});
    p.AddBranch({"l4lb", L4LB_STATELESS, {"ConnTable", "LoadCntr", "MinLoad"}});
    p.Finalize();
    return p;
}

CoraProgram
CoraPrograms::L4lb()
{
    CoraProgram p("l4lb");
    AddL4lb(p);
    p.AddBranch({"l4lb", L4LB_STATELESS, {"ConnTable", "LoadCntr", "MinLoad"}});
    p.Finalize();
    return p;
}

CoraProgram
CoraPrograms::CountMinSketch()
{
    CoraProgram p("count-min");
    p.AddElement(CountMin());
    p.AddBranch({"count", HTTP_STATELESS, {"CountMin"}});
    p.Finalize();
    return p;
}

CoraProgram
CoraPrograms::Nat()
{
    CoraProgram p("nat");
    // Translation table: 1M flows, 5-tuple digest + translated address and port + timestamp
    // (32 B). A DPVS-style hash-table lookup reads the bucket, the entry and on average one
    // more probe (three 32-byte bulk EMEM reads) and refreshes the entry's timestamp (one
    // 8-byte bulk write); ~250 instructions (hash, lookup, rewrite bookkeeping). With these
    // the Netronome profile runs the NAT at ~17 Mpps, near the ~15 Mpps the Cora paper's DPVS
    // saturated at.
    CoraStateElement nat;
    nat.name = "NatTable";
    nat.key = CoraFlowKey::FLOW;
    nat.entries = 1u << 20;
    nat.entryBytes = 32;
    nat.instructions = 250;
    nat.accesses = {Access(CoraMemoryType::EMEM, CoraMemoryOp::READ, CoraAccessMode::BULK, 32, 3),
                    Access(CoraMemoryType::EMEM, CoraMemoryOp::WRITE, CoraAccessMode::BULK, 8, 1)};
    p.AddElement(nat);
    // Port allocator: a next-port cursor per internal source address (4096 hosts x 8 B).
    // Only a connection's first packet allocates; assumed 1 packet in 16, so per packet on
    // average 1/16 atomic fetch-add in IMEM and 80 / 16 = 5 instructions.
    CoraStateElement port;
    port.name = "PortAlloc";
    port.key = CoraFlowKey::SRC_IP;
    port.entries = 4096;
    port.entryBytes = 8;
    port.instructions = 5;
    port.accesses = {
        Access(CoraMemoryType::IMEM, CoraMemoryOp::WRITE, CoraAccessMode::ATOMIC, 4, 0.0625)};
    p.AddElement(port);
    // The translation written into NatTable is the port read from PortAlloc. The reverse
    // (freeing the port when the entry expires) runs in the control plane's expiry timer
    // (DPVS expires connections from a timer, not from packets), so there is no per-packet
    // NatTable -> PortAlloc edge: two blocks, and NAT entries can be evicted one flow at a
    // time as in the seed's DPVS experiment.
    p.AddDependency({"PortAlloc", "NatTable"});
    // Rewrite source address and port, incremental checksum update.
    p.AddBranch({"nat", 60, {"NatTable", "PortAlloc"}});
    p.Finalize();
    return p;
}

CoraProgram
CoraPrograms::ByName(const std::string& name)
{
    if (name == "tcp")
    {
        return TcpConnTable();
    }
    if (name == "l4lb-http")
    {
        return L4lbHttp();
    }
    if (name == "l4lb")
    {
        return L4lb();
    }
    if (name == "count-min")
    {
        return CountMinSketch();
    }
    if (name == "nat")
    {
        return Nat();
    }
    throw PrestoInputError("unknown Cora program '" + name +
                           "' (valid: tcp, l4lb-http, l4lb, count-min, nat)");
}

} // namespace ns3
