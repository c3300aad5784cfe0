/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RMT_PIPELINE_H
#define PRESTO_RMT_PIPELINE_H

#include "rmt-phv.h"
#include "rmt-register.h"
#include "rmt-table.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RmtPipeline;

/**
 * \ingroup presto
 * \brief The hardware an RMT program runs on, and its limits.
 *
 * Defaults are plausible for a Tofino-class pipe (about 1.25 GHz, 12 stages); the cycle
 * counts are *unverified* round numbers chosen so that a 12-stage pass takes a few hundred
 * nanoseconds. A limit of 0 means "not limited".
 */
struct RmtPipelineConfig
{
    std::string name{"rmt"};          //!< program name, used in messages and reports
    uint32_t stageBudget{12};         //!< match-action stages the hardware has
    double clockHz{1.25e9};           //!< pipeline clock, Hz (one packet per clock per pipe)
    uint32_t pipes{1};                //!< parallel pipes running the same program
    uint32_t maxPasses{4};            //!< passes one packet may use (catches loops)
    uint32_t stageLatencyCycles{12};  //!< default latency of a stage, cycles
    uint32_t parserCycles{20};        //!< parser latency per pass, cycles
    uint32_t deparserCycles{20};      //!< deparser latency per pass, cycles
    uint32_t recirculationCycles{40}; //!< loop-back latency between passes, cycles
    uint32_t maxTablesPerStage{0};    //!< tables one stage may hold (0: no limit)
    uint64_t registerBitsPerStage{0}; //!< register memory of one stage, bits (0: no limit)
    uint64_t phvBits{0};              //!< PHV capacity, bits (0: no limit)
};

/**
 * \ingroup presto
 * \brief One match-action stage: tables applied in order, the register arrays it owns, and
 * its latency. Obtained from RmtPipeline::AddStage / InsertStageBefore / InsertStageAfter.
 */
class RmtStage
{
  public:
    RmtStage(const RmtStage&) = delete;
    RmtStage& operator=(const RmtStage&) = delete;

    /** \return the stage's name */
    const std::string& GetName() const;

    /** \return the stage's position in the pipeline, 0 first (changes when stages are
     * inserted before it) */
    uint32_t GetIndex() const;

    /**
     * \brief Add a table, applied after the tables already in the stage. Throws
     * PrestoInputError on a repeated table name, an unknown key field, or after finalising.
     * \param name the table name, unique in the pipeline
     * \param keys the key fields (none: a keyless table that always runs its default action)
     * \param capacity entries the table holds (0 for a keyless table)
     * \return the table
     */
    RmtTable& AddTable(const std::string& name, std::vector<RmtKeyField> keys, uint32_t capacity);

    /**
     * \brief Add a register array owned by this stage. Throws PrestoInputError on a repeated
     * name, a width outside [1, 64], a size outside [1, RmtRegisterArray::MAX_SIZE], or after
     * finalising.
     * \param name the array name, unique in the pipeline
     * \param widthBits element width, bits
     * \param size elements
     * \return the array
     */
    RmtRegisterArray& AddRegister(const std::string& name, uint32_t widthBits, uint32_t size);

    /** \param cycles the stage's latency, cycles (before finalising) */
    void SetLatencyCycles(uint32_t cycles);

    /** \return the stage's latency, cycles */
    uint32_t GetLatencyCycles() const;

    /** \return the tables, in application order */
    const std::vector<RmtTable*>& GetTables() const;

    /** \return the register arrays */
    const std::vector<RmtRegisterArray*>& GetRegisters() const;

    /** \return the register memory of the stage, bits */
    uint64_t GetRegisterBits() const;

    /** \return passes that went through the stage (every pass goes through every stage) */
    uint64_t GetPackets() const;

    /** \return passes in which at least one table of the stage was applied (gate true) */
    uint64_t GetActivePackets() const;

  private:
    friend class RmtPipeline;

    /**
     * \param pipeline the owner
     * \param name the name
     * \param latencyCycles the latency, cycles
     */
    RmtStage(RmtPipeline* pipeline, const std::string& name, uint32_t latencyCycles);

    RmtPipeline* m_pipeline;                    //!< owner
    std::string m_name;                         //!< name
    uint32_t m_index{0};                        //!< position
    uint32_t m_latency;                         //!< latency, cycles
    std::vector<RmtTable*> m_tables;            //!< tables in application order
    std::vector<RmtRegisterArray*> m_registers; //!< owned register arrays
    uint64_t m_packets{0};                      //!< passes through the stage
    uint64_t m_active{0};                       //!< passes that applied a table
};

/// \ingroup presto One table hit of an execution.
struct RmtTableHit
{
    RmtTableId table;   //!< the table
    uint32_t pass;      //!< the pass it hit in, 0 first
    RmtActionId action; //!< the action that ran
};

/**
 * \ingroup presto
 * \brief What executing one packet cost and did. Reuse one record across packets
 * (RmtPipeline::Execute(phv, record)) so that the packet path does not allocate.
 */
struct RmtExecution
{
    uint32_t passes{0};            //!< passes used (1 + recirculations)
    uint32_t stagesTraversed{0};   //!< stage traversals over all passes
    uint32_t tablesApplied{0};     //!< table applications (gate true), hits and misses
    uint64_t latencyCycles{0};     //!< parser + stages + deparser per pass, + loop-backs
    double latencyNs{0};           //!< latencyCycles at the pipeline clock, ns
    bool dropped{false};           //!< an action marked the packet to drop
    std::vector<RmtTableHit> hits; //!< the tables that matched an entry, in order

    /** \param table a table handle \return true if it hit in any pass */
    bool Hit(RmtTableId table) const;
    /** \param table a table \return true if it hit in any pass */
    bool Hit(const RmtTable& table) const;
};

/// \ingroup presto Resources and counters of one table (part of RmtResourceReport).
struct RmtTableReport
{
    std::string name;    //!< table name
    std::string stage;   //!< stage name
    uint32_t stageIndex; //!< stage position
    std::string match;   //!< match kinds of the keys, e.g. "ternary,ternary,range"
    uint32_t entries;    //!< installed entries
    uint32_t capacity;   //!< capacity, entries
    uint64_t applied;    //!< applications
    uint64_t hits;       //!< hits
    uint64_t misses;     //!< misses
};

/// \ingroup presto Resources and counters of one register array (part of RmtResourceReport).
struct RmtRegisterReport
{
    std::string name;    //!< array name
    std::string stage;   //!< stage name
    uint32_t stageIndex; //!< stage position
    uint32_t widthBits;  //!< element width, bits
    uint32_t size;       //!< elements
    uint64_t bits;       //!< memory, bits
    uint64_t bytes;      //!< memory, bytes (bits rounded up)
    uint64_t accesses;   //!< packet accesses
};

/// \ingroup presto Resources and counters of one stage (part of RmtResourceReport).
struct RmtStageReport
{
    uint32_t index;         //!< position
    std::string name;       //!< name
    uint32_t latencyCycles; //!< latency, cycles
    uint32_t tables;        //!< tables
    uint32_t registers;     //!< register arrays
    uint64_t entries;       //!< installed entries over its tables
    uint64_t capacity;      //!< capacity over its tables, entries
    uint64_t registerBits;  //!< register memory, bits
    uint64_t registerBytes; //!< register memory, bytes (bits rounded up)
    uint64_t packets;       //!< passes through the stage
    uint64_t activePackets; //!< passes that applied one of its tables
};

/**
 * \ingroup presto
 * \brief Everything the pipeline uses and has done: read off the program description and the
 * counters. ToText() is for people, ToJson() for summary.json.
 */
struct RmtResourceReport
{
    std::string program;                      //!< program name
    bool finalised{false};                    //!< the program was accepted
    uint32_t stageBudget{0};                  //!< stages the hardware has
    uint32_t stagesUsed{0};                   //!< stages the program declares
    double clockHz{0};                        //!< clock, Hz
    uint32_t pipes{0};                        //!< pipes
    uint32_t maxPasses{0};                    //!< pass limit per packet
    uint64_t passCycles{0};                   //!< latency of one pass, cycles
    double passLatencyNs{0};                  //!< latency of one pass, ns
    uint32_t phvFields{0};                    //!< PHV fields declared
    uint64_t phvBits{0};                      //!< PHV bits declared
    uint64_t registerBits{0};                 //!< register memory, bits
    uint64_t registerBytes{0};                //!< register memory, bytes (bits rounded up)
    uint64_t tableEntries{0};                 //!< installed entries over all tables
    uint64_t tableCapacity{0};                //!< capacity over all tables, entries
    uint64_t packets{0};                      //!< packets executed
    uint64_t passes{0};                       //!< passes executed
    uint64_t recirculations{0};               //!< extra passes (passes - packets)
    uint64_t drops{0};                        //!< packets marked to drop
    double avgPassesPerPacket{0};             //!< passes / packets (1 before any packet)
    double avgLatencyNs{0};                   //!< mean packet latency, ns (0 before any packet)
    double throughputBoundPps{0};             //!< clockHz * pipes / avgPassesPerPacket, packets/s
    std::vector<RmtStageReport> stages;       //!< per stage, in order
    std::vector<RmtTableReport> tables;       //!< per table, in stage order
    std::vector<RmtRegisterReport> registers; //!< per register array, in stage order

    /** \return a multi-line human-readable rendering */
    std::string ToText() const;
    /** \return the machine-readable form (keys in snake_case, units in the names) */
    nlohmann::json ToJson() const;
};

/**
 * \ingroup presto
 * \brief A match-action (RMT) pipeline and the program it runs: a PHV layout, ordered
 * stages holding tables and register arrays, and the execution of packets with the RMT
 * rules and their accounting.
 *
 * Configuration: declare fields, add stages (in order, or inserted before/after an existing
 * stage so that users can put their own tables in front of or behind a program), tables,
 * actions and register arrays; then Finalize(), which refuses a program that needs more
 * stages than the budget (or breaks another configured limit) with a message naming the
 * budget and what was asked. After that the structure is frozen; entries and register
 * contents remain control plane.
 *
 * Execution of one packet: every pass goes through every stage in order; within a stage the
 * tables are applied in order (a gated table only when its gate holds). Stage tables are
 * applied sequentially here, so a later table of a stage sees the writes of an earlier one
 * (real hardware would need another stage for such a match dependency; programs that care
 * put dependent tables in different stages). A pass costs parser + sum of stage latencies +
 * deparser cycles. If an action asked for recirculation (and the packet is not dropped),
 * the packet loops back (recirculationCycles) and makes another pass, consuming another
 * pipeline slot; more than maxPasses passes throws PrestoInputError. The throughput bound is
 * clockHz * pipes / average passes per packet.
 */
class RmtPipeline
{
  public:
    /**
     * \param config the hardware and limits; throws PrestoInputError on a zero budget,
     * clock, pipe count or pass limit
     */
    explicit RmtPipeline(const RmtPipelineConfig& config);
    ~RmtPipeline();

    RmtPipeline(const RmtPipeline&) = delete;
    RmtPipeline& operator=(const RmtPipeline&) = delete;

    /** \return the configuration */
    const RmtPipelineConfig& GetConfig() const;

    /**
     * \brief Declare a PHV field (before finalising).
     * \param name the name
     * \param bits the width, 1..64
     * \return its handle
     */
    RmtFieldId AddField(const std::string& name, uint32_t bits);

    /** \param name a field name \return its handle; throws if not declared */
    RmtFieldId GetField(const std::string& name) const;

    /** \return the PHV layout */
    const RmtPhvLayout& GetPhvLayout() const;

    /**
     * \brief Append a stage (before finalising).
     * \param name unique stage name
     * \return the stage
     */
    RmtStage& AddStage(const std::string& name);

    /**
     * \brief Insert a stage in front of an existing one.
     * \param before the existing stage's name
     * \param name unique stage name
     * \return the stage
     */
    RmtStage& InsertStageBefore(const std::string& before, const std::string& name);

    /**
     * \brief Insert a stage behind an existing one.
     * \param after the existing stage's name
     * \param name unique stage name
     * \return the stage
     */
    RmtStage& InsertStageAfter(const std::string& after, const std::string& name);

    /** \return the number of stages the program declares */
    uint32_t GetStageCount() const;
    /** \param index a position \return the stage there */
    RmtStage& GetStage(uint32_t index);
    /** \param name a stage name \return the stage; throws if unknown */
    RmtStage& GetStage(const std::string& name);

    /** \return the number of tables */
    uint32_t GetTableCount() const;
    /** \param id a table handle \return the table */
    RmtTable& GetTable(RmtTableId id);
    /** \param name a table name \return the table; throws if unknown */
    RmtTable& GetTable(const std::string& name);
    /** \param name a register array name \return the array; throws if unknown */
    RmtRegisterArray& GetRegister(const std::string& name);

    /**
     * \brief Check the program against the hardware and freeze it. Throws PrestoInputError
     * naming the limit and what was asked: no stages, more stages than the budget, a stage
     * with more tables or register bits than allowed, a PHV wider than allowed. Calling it
     * again is a no-op.
     */
    void Finalize();

    /** \return true once Finalize() succeeded */
    bool IsFinalized() const;

    /** \return a PHV for this program, all fields 0 (after finalising) */
    RmtPhv NewPhv() const;

    /**
     * \brief Run one packet (all its passes) through the program.
     *
     * Allocation-free once `out.hits` has grown to its working size. Throws PrestoInputError
     * if the program is not finalised, the PHV belongs to another program, an action breaks
     * the register access rule, or the packet exceeds the pass limit.
     * \param phv the packet's fields (updated by the actions); the drop flag and pass number
     * are reset at the start
     * \param out the execution record (overwritten)
     */
    void Execute(RmtPhv& phv, RmtExecution& out);

    /**
     * \brief Run one packet; convenience form returning a fresh record.
     * \param phv the packet's fields
     * \return the execution record
     */
    RmtExecution Execute(RmtPhv& phv);

    /** \return latency of one pass, cycles (parser + stages + deparser) */
    uint64_t GetPassCycles() const;

    /** \param cycles a number of cycles \return their duration at the clock, ns */
    double CyclesToNs(uint64_t cycles) const;

    /** \return clockHz * pipes / average passes per packet (1 before any packet), packets/s */
    double GetThroughputBoundPps() const;

    /** \return packets executed */
    uint64_t GetPackets() const;
    /** \return passes executed */
    uint64_t GetPasses() const;
    /** \return recirculations (extra passes) */
    uint64_t GetRecirculations() const;

    /** \return the resource report (works before finalising, to show what was asked) */
    RmtResourceReport GetResourceReport() const;

    /// Zero every counter (pipeline, stages, tables, registers); contents are kept.
    void ResetCounters();

  private:
    friend class RmtStage;

    /// Throw unless still configurable.
    void CheckConfigurable(const std::string& what) const;
    /// Create a stage at position pos.
    RmtStage& InsertStageAt(size_t pos, const std::string& name);
    /// Renumber stages after an insertion.
    void Renumber();
    /// Position of a stage by name (throws).
    size_t FindStage(const std::string& name) const;

    RmtPipelineConfig m_config;                                    //!< hardware and limits
    RmtPhvLayout m_layout;                                         //!< PHV fields
    std::vector<std::unique_ptr<RmtStage>> m_stages;               //!< stages in order
    std::vector<std::unique_ptr<RmtTable>> m_tables;               //!< tables by handle
    std::vector<std::unique_ptr<RmtRegisterArray>> m_registers;    //!< arrays, creation order
    std::unordered_map<std::string, RmtTable*> m_tableIndex;       //!< tables by name
    std::unordered_map<std::string, RmtRegisterArray*> m_regIndex; //!< arrays by name
    bool m_finalised{false};                                       //!< program frozen
    uint64_t m_passCycles{0};                                      //!< one pass, cycles
    uint64_t m_passStamp{0};                                       //!< unique number per pass
    uint64_t m_packets{0};                                         //!< packets executed
    uint64_t m_passes{0};                                          //!< passes executed
    uint64_t m_recirculations{0};                                  //!< extra passes
    uint64_t m_drops{0};                                           //!< packets dropped
    uint64_t m_latencyCycles{0};                                   //!< sum of packet latencies
};

} // namespace ns3

#endif // PRESTO_RMT_PIPELINE_H
