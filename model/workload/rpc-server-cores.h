/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RPC_SERVER_CORES_H
#define PRESTO_RPC_SERVER_CORES_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Which host core serves an RPC request, and who decides.
 */
enum RpcSteering
{
    /**
     * The core that owns the connection (a hash of the connection, as RSS spreads flows):
     * no dispatch work, but two busy connections on one core queue behind each other.
     */
    RPC_AFFINITY,
    /**
     * A dispatcher thread on its own host core hands each request to the worker core that
     * frees first (Shinjuku-style): balanced, at a dispatch cost per request on the host,
     * serialised on the dispatcher.
     */
    RPC_HOST_DISPATCH,
    /**
     * The NIC's RPC stage (PrestoHybridNetDevice's SmartNIC cores) places each request in
     * the queue of the worker core that frees first: balanced, no host dispatch work. The
     * choice uses each core's remaining work, more than a NIC that counts the requests it
     * queued and the responses posted can know: an upper bound on such a NIC.
     */
    RPC_NIC,
};

/**
 * \ingroup presto
 * \brief The worker cores of one RPC server host: each request takes a fixed service time
 * on one core, in arrival order per core. Pure logic (times in ns, no Simulator).
 */
class RpcServerCores
{
  public:
    /// Where and when a request is served.
    struct Slot
    {
        uint32_t core{0};       //!< worker core
        int64_t startNs{0};     //!< service starts
        int64_t doneNs{0};      //!< service ends: the response may be written
        bool dispatched{false}; //!< a host dispatcher handed it over (HOST_DISPATCH)
    };

    /**
     * \param cores worker cores (>= 1)
     * \param serviceNs service time per request, ns (>= 0)
     * \param steering the policy
     * \param dispatchNs the host dispatcher's time per request, ns (>= 0; HOST_DISPATCH)
     * Throws PrestoInputError for 0 cores or a negative time.
     */
    RpcServerCores(uint32_t cores, int64_t serviceNs, RpcSteering steering, int64_t dispatchNs);

    /**
     * \brief A whole request arrived.
     * \param conn its connection (AFFINITY hashes it onto a core)
     * \param nowNs when it is complete, ns (non-decreasing between calls)
     * \return its core and service interval
     */
    Slot Assign(uint64_t conn, int64_t nowNs);

    /// \return requests a host dispatcher handed over
    uint64_t GetDispatched() const;
    /// \return host dispatcher busy time, ns (GetDispatched() x dispatch time)
    int64_t GetDispatchNs() const;
    /// \return the longest wait of a request for its core once handed over, ns
    int64_t GetMaxWaitNs() const;

  private:
    int64_t m_serviceNs;           //!< per request
    RpcSteering m_steering;        //!< policy
    int64_t m_dispatchNs;          //!< per request on the dispatcher
    std::vector<int64_t> m_freeAt; //!< by core: when it finishes its queue
    int64_t m_dispatcherFreeAt{0}; //!< when the dispatcher finishes its queue
    uint64_t m_dispatched{0};      //!< requests dispatched by the host
    int64_t m_maxWaitNs{0};        //!< longest wait for a core
};

} // namespace ns3

#endif // PRESTO_RPC_SERVER_CORES_H
