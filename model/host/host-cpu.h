/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_HOST_CPU_H
#define PRESTO_HOST_CPU_H

#include "ns3/host-core-queue.h"
#include "ns3/host-cpu-model.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

namespace ns3
{

/**
 * \ingroup presto
 * \brief A host's CPU in simulated time: a set of cores on which every piece of host work
 * (ns-3's TCP/IP per packet, an offload NIC's notifications, descriptors and control plane,
 * Cora's host-resident state, the application's own requests) is queued and served for its
 * cycles; what depends on the work waits until it is served.
 *
 * Aggregated to a Node (HostCpuHelper::Install). The cost table (cycles per event, the
 * attributes *Cycles) is HostCpuCosts, the one the cycle accounting (HostCpuAccounting) uses,
 * so the cycles this model serves and the cycles that accounting counts come from one
 * place. Cores=0 keeps the accounting-only model: work is counted, served at once, takes no
 * simulated time, and a run is the same as one without a HostCpu.
 *
 * Service is first come, first served per core, without preemption (HostCoreQueue): packet
 * processing, notifications and the application's requests queue behind each other on the
 * core their flow hashes to (assumed: no interrupt priority, no batching of interrupts).
 * Subclasses chosen by TypeId (HostCpuHelper::SetCpuType) can place work differently by
 * overriding Place().
 */
class HostCpu : public Object
{
  public:
    /// What a piece of host work is, for the report's split of cycles.
    enum Work
    {
        WORK_STACK,       //!< ns-3's TCP/IP on the host: packets, ACKs, copies, connections
        WORK_NIC_HOST,    //!< an offload NIC's host side: notifications, descriptors, copies
        WORK_CONTROL,     //!< an offload NIC's host control plane and control loop
        WORK_APPLICATION, //!< the application's own work (RPC request service)
        WORK_NIC_PROGRAM, //!< a NIC program's host-resident part (Cora's state blocks)
        WORK_DISPATCH,    //!< handing requests to worker cores on the host
        WORK_KINDS,       //!< (the number of kinds)
    };

    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    HostCpu();
    ~HostCpu() override;

    /// \return true if work takes simulated time on a finite set of cores (Cores > 0)
    bool IsTimed() const;
    /// \return the cores (0: not timed)
    uint32_t GetCores() const;
    /// \return the core clock, Hz
    double GetClockHz() const;
    /// \return cycles per event (the *Cycles attributes)
    HostCpuCosts GetCosts() const;

    /**
     * \brief Queue `cycles` of work on the core `key` selects and run `then` when it is
     * served; not timed: `then` runs at once, inside this call.
     * \param work what it is (the report's split)
     * \param key flow key (cores chosen by flow hash keep one flow on one core, in order)
     * \param cycles the work, cycles
     * \param then what waits for it
     * \param steering how the core is chosen (by flow hash: one flow's work in order)
     */
    void Submit(Work work,
                uint64_t key,
                double cycles,
                std::function<void()> then,
                HostCoreSteering steering = HOST_CORE_FLOW_HASH);

    /**
     * \brief The same for a received packet: refused (false, `then` never runs, the drop
     * counted and traced) when its core already holds MaxBacklog pieces of work, as a full
     * backlog queue drops.
     * \param work what it is
     * \param key flow key
     * \param cycles the work, cycles
     * \param then what waits for it
     * \return false if refused
     */
    bool SubmitBounded(Work work, uint64_t key, double cycles, std::function<void()> then);

    /**
     * \brief Reserve a core for `cycles` of work without a continuation (the caller folds
     * the returned time into what it schedules anyway, or nothing waits for the work).
     * \param work what it is
     * \param key flow key
     * \param cycles the work, cycles
     * \param steering how the core is chosen
     * \return when the work is done (now when not timed)
     */
    Time Reserve(Work work,
                 uint64_t key,
                 double cycles,
                 HostCoreSteering steering = HOST_CORE_FLOW_HASH);

    /**
     * \brief Reserve as Reserve() does, and tell when the work starts as well.
     * \param work what it is
     * \param key flow key
     * \param cycles the work, cycles
     * \param steering how the core is chosen
     * \return its core, start and end (start = end = now when not timed)
     */
    HostCoreQueue::Slot ReserveSlot(Work work,
                                    uint64_t key,
                                    double cycles,
                                    HostCoreSteering steering = HOST_CORE_FLOW_HASH);

    /**
     * \brief Reserve a core for work that arrives later than now (a NIC hands a packet to the
     * host after its own latency). Approximate: work submitted after this call but arriving
     * earlier queues behind it on the same core.
     * \param work what it is
     * \param key flow key (the core by flow hash)
     * \param cycles the work, cycles
     * \param arrivalNs when it reaches the host, ns (>= now)
     * \param bounded refuse it, counted and traced, at a full backlog (MaxBacklog)
     * \return its slot (accepted false: refused); not timed: accepted, done at arrival
     */
    HostCoreQueue::Slot ReserveAt(Work work,
                                  uint64_t key,
                                  double cycles,
                                  int64_t arrivalNs,
                                  bool bounded);

    /**
     * \param seconds the time the utilisation is over, s (> 0)
     * \return this host's report: cores, clock, utilisation, cycles per kind of work, queue
     * waits, refused work
     */
    nlohmann::json Report(double seconds) const;

    /// \return cycles served per kind of work
    const std::array<double, WORK_KINDS>& GetCyclesByWork() const;
    /// \return pieces of work served per kind
    const std::array<uint64_t, WORK_KINDS>& GetJobsByWork() const;
    /// \return their waits for a core per kind, summed, ns
    const std::array<int64_t, WORK_KINDS>& GetWaitNsByWork() const;
    /// \return the core queue (null when not timed)
    const HostCoreQueue* GetQueue() const;
    /// \return the name of a kind of work in reports
    static const char* WorkName(Work work);

    /**
     * TracedCallback signature for refused work.
     * \param work the kind of work
     * \param key its flow key
     */
    typedef void (*DropTracedCallback)(uint32_t work, uint64_t key);

  protected:
    void DoInitialize() override;
    void DoDispose() override;

    /**
     * \brief Where and when a piece of work runs. The default: the first-come first-served
     * cores of HostCoreQueue.
     * \param work what it is
     * \param key flow key
     * \param cycles the work, cycles
     * \param steering how the caller asks the core to be chosen
     * \param bounded refuse at a full backlog
     * \return the slot (accepted false: refused)
     */
    virtual HostCoreQueue::Slot Place(Work work,
                                      uint64_t key,
                                      double cycles,
                                      HostCoreSteering steering,
                                      bool bounded);

  private:
    /// Takes the cost table from the attributes and builds the core queue (once timed).
    void Build();
    /// Counts a served piece of work that arrived at arrivalNs (its wait from there).
    void Served(Work work, double cycles, const HostCoreQueue::Slot& s, int64_t arrivalNs);
    /// Mirrors the cost table into the attribute members.
    void CostsToMembers();

    uint32_t m_cores{0};                            //!< attribute Cores
    double m_clockHz{2.5e9};                        //!< attribute Clock
    uint32_t m_maxBacklog{0};                       //!< attribute MaxBacklog
    HostCpuCosts m_costs;                           //!< the cost table, from the *Cycles attributes
    double m_packetSentCycles{0};                   //!< attribute PacketSentCycles
    double m_packetReceivedCycles{0};               //!< attribute PacketReceivedCycles
    double m_ackCycles{0};                          //!< attribute AckCycles
    double m_byteCopiedCycles{0};                   //!< attribute ByteCopiedCycles
    double m_connectionSetupCycles{0};              //!< attribute ConnectionSetupCycles
    double m_connectionTeardownCycles{0};           //!< attribute ConnectionTeardownCycles
    double m_controlPlaneEventCycles{0};            //!< attribute ControlPlaneEventCycles
    double m_controlIntervalCycles{0};              //!< attribute ControlIntervalCycles
    double m_appNotificationCycles{0};              //!< attribute NotificationCycles
    double m_dmaDescriptorCycles{0};                //!< attribute DmaDescriptorCycles
    std::unique_ptr<HostCoreQueue> m_queue;         //!< when timed
    std::array<double, WORK_KINDS> m_cycles{};      //!< served, by kind
    std::array<uint64_t, WORK_KINDS> m_jobs{};      //!< pieces served, by kind
    std::array<int64_t, WORK_KINDS> m_waitNs{};     //!< their waits, by kind, ns
    uint64_t m_refused{0};                          //!< pieces refused
    TracedCallback<uint32_t, uint64_t> m_dropTrace; //!< refused work
};

} // namespace ns3

#endif // PRESTO_HOST_CPU_H
