/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rpc-server-cores.h"

#include "ns3/presto-input-error.h"
#include "ns3/splitmix.h"

#include <algorithm>
#include <string>

namespace ns3
{

RpcServerCores::RpcServerCores(uint32_t cores,
                               int64_t serviceNs,
                               RpcSteering steering,
                               int64_t dispatchNs)
    : m_serviceNs(serviceNs),
      m_steering(steering),
      m_dispatchNs(dispatchNs)
{
    if (cores == 0 || serviceNs < 0 || dispatchNs < 0)
    {
        throw PrestoInputError("RPC server cores: need at least 1 core and non-negative "
                               "service and dispatch times (got " +
                               std::to_string(cores) + " cores, " + std::to_string(serviceNs) +
                               " ns service, " + std::to_string(dispatchNs) + " ns dispatch)");
    }
    m_freeAt.assign(cores, 0);
}

RpcServerCores::Slot
RpcServerCores::Assign(uint64_t conn, int64_t nowNs)
{
    Slot s;
    int64_t ready = nowNs;
    if (m_steering == RPC_AFFINITY)
    {
        // the connection's core, as a receive-side hash spreads connections
        s.core = static_cast<uint32_t>(SplitMix64(conn) % m_freeAt.size());
    }
    else
    {
        if (m_steering == RPC_HOST_DISPATCH)
        {
            // one dispatcher core hands requests over, one at a time
            const int64_t begin = std::max(nowNs, m_dispatcherFreeAt);
            m_dispatcherFreeAt = begin + m_dispatchNs;
            ready = m_dispatcherFreeAt;
            s.dispatched = true;
            ++m_dispatched;
        }
        // the core that frees first (with equal service times: the fewest waiting)
        s.core = static_cast<uint32_t>(std::min_element(m_freeAt.begin(), m_freeAt.end()) -
                                       m_freeAt.begin());
    }
    s.startNs = std::max(ready, m_freeAt[s.core]);
    s.doneNs = s.startNs + m_serviceNs;
    m_freeAt[s.core] = s.doneNs;
    m_maxWaitNs = std::max(m_maxWaitNs, s.startNs - ready); // the dispatcher's time apart
    return s;
}

uint64_t
RpcServerCores::GetDispatched() const
{
    return m_dispatched;
}

int64_t
RpcServerCores::GetDispatchNs() const
{
    return static_cast<int64_t>(m_dispatched) * m_dispatchNs;
}

int64_t
RpcServerCores::GetMaxWaitNs() const
{
    return m_maxWaitNs;
}

} // namespace ns3
