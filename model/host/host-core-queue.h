/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_HOST_CORE_QUEUE_H
#define PRESTO_HOST_CORE_QUEUE_H

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief How a piece of host work chooses its core.
 */
enum HostCoreSteering
{
    /**
     * The core a hash of the work's key selects (key modulo cores), as a NIC's receive-side
     * scaling (RSS) spreads flows and as an application thread pinned per connection serves
     * it: the work of one flow stays on one core, in order.
     */
    HOST_CORE_FLOW_HASH,
    /**
     * The core that frees first (ties: the lowest index): balanced, as a scheduler that
     * migrates work to an idle core; order between two pieces of one flow is not kept.
     */
    HOST_CORE_EARLIEST_FREE,
};

/**
 * \ingroup presto
 * \brief Host cores that serve work first come, first served: each core runs one piece of
 * work at a time for its cycles at the clock, without preemption, in the order the pieces
 * were submitted to it. Pure logic (times in ns, no Simulator): HostCpu uses it in
 * simulated time.
 *
 * Submissions must come in non-decreasing time. A piece that finds its core busy waits
 * (its wait is recorded); with a backlog limit, a bounded piece (a received packet) that
 * finds that many bounded pieces waiting or in service on its core is refused (the caller
 * drops and counts it), as a full backlog queue of received packets does.
 */
class HostCoreQueue
{
  public:
    /// Where and when a piece of work is served.
    struct Slot
    {
        bool accepted{false}; //!< false: the core's backlog was full, nothing reserved
        uint32_t core{0};     //!< the core that serves it
        int64_t startNs{0};   //!< service starts
        int64_t doneNs{0};    //!< service ends: what depends on it may go on
    };

    /**
     * \param cores cores (>= 1)
     * \param clockHz clock of every core, Hz (> 0)
     * \param maxBacklog bounded pieces a core holds (waiting and in service) before it
     *        refuses more of them (0: no limit)
     * Throws PrestoInputError for 0 cores or a bad clock.
     */
    HostCoreQueue(uint32_t cores, double clockHz, uint32_t maxBacklog = 0);

    /**
     * \brief Reserve a core for `cycles` of work arriving at `nowNs`.
     * \param key the work's flow key (HOST_CORE_FLOW_HASH: it selects the core)
     * \param cycles the work, cycles (>= 0)
     * \param nowNs when it arrives, ns (non-decreasing between calls)
     * \param steering how the core is chosen
     * \param bounded refuse the work if its core's backlog is at the limit
     * \return its core and service interval (accepted false: refused, nothing reserved)
     */
    Slot Submit(uint64_t key,
                double cycles,
                int64_t nowNs,
                HostCoreSteering steering = HOST_CORE_FLOW_HASH,
                bool bounded = false);

    /// \return the number of cores
    uint32_t GetCores() const;
    /// \return the core clock, Hz
    double GetClockHz() const;
    /// \return time core `core` has been busy, ns, counting work reserved into the future
    int64_t GetBusyNs(uint32_t core) const;
    /**
     * \param core a core
     * \param untilNs a time, ns
     * \return time the core was busy before untilNs, ns (its work is contiguous from its
     * last idle time to GetFreeAtNs, so what it reserved beyond untilNs is the excess)
     */
    int64_t GetBusyNsUntil(uint32_t core, int64_t untilNs) const;
    /// \return busy time summed over the cores, ns
    int64_t GetTotalBusyNs() const;
    /// \return cycles served, summed over the cores (the cycles of every accepted piece)
    double GetCycles() const;
    /// \return pieces accepted
    uint64_t GetAccepted() const;
    /// \return pieces refused because their core's backlog was full
    uint64_t GetRefused() const;
    /// \return sum of the waits of accepted pieces before their service began, ns
    int64_t GetTotalWaitNs() const;
    /// \return the longest wait of an accepted piece, ns
    int64_t GetMaxWaitNs() const;
    /// \return when core `core` finishes the work it has, ns
    int64_t GetFreeAtNs(uint32_t core) const;

  private:
    /// \return the core for this key and policy
    uint32_t Choose(uint64_t key, HostCoreSteering steering) const;

    double m_clockHz;                      //!< Hz
    double m_nsPerCycle;                   //!< 1e9 / clock
    uint32_t m_maxBacklog;                 //!< per core, 0: none
    std::vector<int64_t> m_freeAt;         //!< by core: when its queue is done
    std::vector<int64_t> m_busyNs;         //!< by core: service time reserved so far
    std::vector<std::deque<int64_t>> m_in; //!< by core (with a limit): done times not yet past
    double m_cycles{0};                    //!< cycles served
    uint64_t m_accepted{0};                //!< pieces reserved
    uint64_t m_refused{0};                 //!< pieces refused
    int64_t m_waitNs{0};                   //!< total wait
    int64_t m_maxWaitNs{0};                //!< longest wait
};

} // namespace ns3

#endif // PRESTO_HOST_CORE_QUEUE_H
