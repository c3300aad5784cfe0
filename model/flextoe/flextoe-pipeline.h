/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FLEXTOE_PIPELINE_H
#define PRESTO_FLEXTOE_PIPELINE_H

#include "flextoe-profile.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Why the FlexTOE pipeline dropped a packet.
 */
enum class FlexToeDropReason : uint8_t
{
    NONE,       //!< not dropped
    QUEUE_FULL, //!< the stage's queue (sequencer: reorder buffer) was full on arrival
    EXTENSION,  //!< an extension module returned a drop verdict at that stage
};

/// \param r a reason \return its name for reports ("none", "queue full", "extension")
const char* FlexToeDropReasonName(FlexToeDropReason r);

/// Extra compute cycles charged per stage (extension modules), indexed by FlexToeStage.
using FlexToeStageCycles = std::array<double, FLEXTOE_STAGES>;

/**
 * \ingroup presto
 * \brief What happened to one packet in the FlexTOE pipeline.
 */
struct FlexToeResult
{
    bool dropped{false};                               //!< true if the packet did not get through
    FlexToeStage dropStage{FlexToeStage::PRE};         //!< where it was dropped (if dropped)
    FlexToeDropReason reason{FlexToeDropReason::NONE}; //!< why (if dropped)
    uint32_t group{0};                                 //!< flow group (protocol core) it maps to
    uint64_t arrivePs{0};                              //!< pipeline entry time, ps
    uint64_t departPs{0}; //!< time it leaves the pipeline (or is dropped), ps

    /** \return departure time rounded up to whole ns (never earlier than the model says) */
    uint64_t DepartNs() const
    {
        return (departPs + 999) / 1000;
    }

    /** \return time spent in the pipeline, ps */
    uint64_t LatencyPs() const
    {
        return departPs - arrivePs;
    }
};

/**
 * \ingroup presto
 * \brief Counters of one stage.
 */
struct FlexToeStageStats
{
    uint64_t packets{0};        //!< packets served by the stage
    uint64_t drops{0};          //!< packets dropped because the queue was full
    uint64_t extensionDrops{0}; //!< packets an extension dropped at this stage
    uint64_t busyPs{0};         //!< summed compute time over the pool's cores, ps
    uint32_t maxQueue{0};       //!< largest queue occupancy seen (packets waiting)
    double extensionCycles{0};  //!< cycles charged by extension modules
};

/**
 * \ingroup presto
 * \brief FlexTOE's core-pipeline execution model: timing, drops and cost, no TCP semantics.
 *
 * A packet crosses pre-processing, sequencer, protocol, post-processing and DMA. Each stage
 * is a pool of identical cores (FlexToeStageConfig); the protocol pool has exactly one core
 * per flow group and a packet goes to group flowHash mod flowGroups, so one flow group's
 * packets are serialised on one core (FlexTOE's per-flow bottleneck).
 *
 * Service: deterministic FIFO in pipeline-entry order. On arrival at a stage the packet takes
 * the core that can start it earliest (protocol: its group's core). A core starts a packet
 * when its instruction stream is free *and* one of its threads is free; the packet then
 * holds the instruction stream for cycles / clock and its thread for cycles / clock +
 * memoryStallNs. Thus clock / cycles is a core's throughput, and threads hide the memory
 * stall (a core is compute-bound as long as threads >= 1 + stall x clock / cycles). Threads
 * are reused round-robin, which is exact when the per-packet latency is constant.
 *
 * Queues: a packet that cannot start on arrival waits in the stage's bounded queue (protocol:
 * one queue per flow-group core). If the queue already holds queueCapacity packets the packet
 * is dropped there. The sequencer releases a flow group's packets in the order they entered
 * the pipeline; its queueCapacity bounds all packets it holds (waiting, in service, or held
 * for order, i.e. its reorder buffer).
 *
 * Calls must come in non-decreasing nowNs (the device calls with the simulator clock); the
 * model computes the whole path at entry, so later stages also see packets in entry order.
 * Per packet the cost is O(cores of the widest pool); nothing is allocated after construction.
 */
class FlexToePipeline
{
  public:
    /**
     * \param cfg the hardware description (see FlexToeProfile)
     * \throw PrestoInputError if cfg is invalid
     */
    explicit FlexToePipeline(const FlexToePipelineConfig& cfg);

    FlexToePipeline(const FlexToePipeline&) = delete;
    FlexToePipeline& operator=(const FlexToePipeline&) = delete;

    /**
     * \brief One packet enters the pipeline.
     * \param nowNs entry time, ns (non-decreasing over calls)
     * \param flowHash hash of the flow's 5-tuple (chooses the flow group)
     * \param payloadBytes TCP payload length (charged at cyclesPerByte)
     * \return drop (stage, reason) or the time the packet's results leave the NIC
     * \throw PrestoInputError if nowNs goes backwards
     */
    FlexToeResult Process(uint64_t nowNs, uint32_t flowHash, uint32_t payloadBytes);

    /**
     * \brief One packet enters the pipeline, with extension modules' cost and verdict.
     * \param nowNs entry time, ns (non-decreasing over calls)
     * \param flowHash hash of the flow's 5-tuple
     * \param payloadBytes TCP payload length
     * \param extraCycles cycles added at each stage (extension modules run there)
     * \param dropAtStage if < FLEXTOE_STAGES, an extension drops the packet at the end of that
     *        stage (it still consumed that stage and the earlier ones)
     * \return drop or departure, as for the other overload
     */
    FlexToeResult Process(uint64_t nowNs,
                          uint32_t flowHash,
                          uint32_t payloadBytes,
                          const FlexToeStageCycles& extraCycles,
                          std::size_t dropAtStage = FLEXTOE_STAGES);

    /** \param flowHash a flow hash \return its flow group (flowHash mod flowGroups) */
    uint32_t GroupOf(uint32_t flowHash) const;

    /** \param s a stage \return its counters */
    const FlexToeStageStats& GetStats(FlexToeStage s) const;

    /**
     * \param s a stage
     * \return busy time / (cores x observed span), span = first entry to last departure
     *         (0 before any packet). 1 means every core's instruction stream was always busy.
     */
    double GetUtilisation(FlexToeStage s) const;

    /**
     * \brief Analytic saturation throughput of a stage (the whole pool; protocol: one group).
     * \param s a stage \param payloadBytes payload per packet
     * \return packets per second: cores x min(clock / cycles, threads / (cycles / clock + stall))
     */
    double GetCapacityPps(FlexToeStage s, uint32_t payloadBytes) const;

    /** \return the configuration in use */
    const FlexToePipelineConfig& GetConfig() const;

    /** \return packets that left the pipeline */
    uint64_t GetDelivered() const;

    /** \return packets dropped anywhere (queues and extensions) */
    uint64_t GetDropped() const;

    /** \brief Forget all state and counters (cores idle, queues empty). */
    void Reset();

  private:
    /// A ring of the times at which queued packets leave a queue.
    struct Queue
    {
        std::vector<uint64_t> leavePs; //!< ring storage, size = capacity
        uint32_t head{0};              //!< oldest entry
        uint32_t count{0};             //!< entries in use
    };

    /// One stage's pool of cores and its queue(s).
    struct Pool
    {
        FlexToeStageConfig cfg;              //!< the stage description
        uint32_t cores{1};                   //!< cores in use
        double psPerCycle{0};                //!< 1e12 / clock
        uint64_t stallPs{0};                 //!< memory stall, ps
        std::vector<uint64_t> computeFreePs; //!< per core: instruction stream free at
        std::vector<uint64_t> threadFreePs;  //!< per core x thread: thread free at
        std::vector<uint32_t> nextThread;    //!< per core: round-robin thread index
        std::vector<Queue> queues;           //!< one, or one per core (protocol)
        FlexToeStageStats stats;             //!< counters
    };

    /**
     * \brief Run one packet on a core of a pool (the queue check is the caller's).
     * \param p the pool \param core fixed core or -1 (the one that can start earliest)
     * \param arrivePs arrival \param cycles compute cycles
     * \param[out] startPs when service starts
     * \return when the packet leaves the core (service + memory stall)
     */
    static uint64_t RunOnCore(Pool& p,
                              int core,
                              uint64_t arrivePs,
                              double cycles,
                              uint64_t& startPs);

    /// Pop entries that left the queue by tPs.
    static void Drain(Queue& q, uint64_t tPs);
    /// Append a leave time (caller checked there is room).
    static void Push(Queue& q, uint64_t leavePs);

    FlexToePipelineConfig m_cfg;              //!< configuration
    std::array<Pool, FLEXTOE_STAGES> m_pools; //!< stage pools, by FlexToeStage
    std::vector<uint64_t> m_seqLastReleasePs; //!< sequencer: last release per group
    uint64_t m_lastNowPs{0};                  //!< last entry time (monotonicity check)
    uint64_t m_firstPs{0};                    //!< first entry time
    uint64_t m_lastDepartPs{0};               //!< latest departure/drop time seen
    bool m_started{false};                    //!< any packet processed yet
    uint64_t m_delivered{0};                  //!< packets that left
    uint64_t m_dropped{0};                    //!< packets dropped
};

} // namespace ns3

#endif // PRESTO_FLEXTOE_PIPELINE_H
