/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-tx-scheduler.h"

#include "ns3/assert.h"

namespace ns3
{

void
OffloadTxScheduler::SetLimits(const Limits& limits)
{
    m_limits = limits;
}

const OffloadTxScheduler::Limits&
OffloadTxScheduler::GetLimits() const
{
    return m_limits;
}

void
OffloadTxScheduler::MarkReady(uint32_t id)
{
    if (id >= m_isReady.size())
    {
        m_isReady.resize(static_cast<size_t>(id) + 1, 0);
    }
    if (!m_isReady[id])
    {
        m_isReady[id] = 1;
        m_ready.push_back(id);
    }
}

bool
OffloadTxScheduler::IsReady(uint32_t id) const
{
    return id < m_isReady.size() && m_isReady[id];
}

size_t
OffloadTxScheduler::GetReadyCount() const
{
    return m_ready.size();
}

bool
OffloadTxScheduler::MayCommit(uint32_t queuedPackets, uint64_t queuedBytes) const
{
    return !m_ready.empty() && m_inNic < m_limits.pipelineDepth &&
           queuedPackets + m_inNic < m_limits.queuePackets &&
           queuedBytes + m_inNicBytes < m_limits.queueBytes;
}

uint32_t
OffloadTxScheduler::Current()
{
    NS_ASSERT_MSG(!m_ready.empty(), "no connection is ready");
    if (m_cursor >= m_ready.size())
    {
        m_cursor = 0;
    }
    return m_ready[m_cursor];
}

void
OffloadTxScheduler::DropCurrent()
{
    const uint32_t id = Current();
    m_isReady[id] = 0;
    // the last one takes its place: the list is a set, served in turn from the cursor
    m_ready[m_cursor] = m_ready.back();
    m_ready.pop_back();
}

void
OffloadTxScheduler::Advance()
{
    ++m_cursor;
}

void
OffloadTxScheduler::EnterNic(uint32_t wireBytes)
{
    ++m_inNic;
    m_inNicBytes += wireBytes;
}

void
OffloadTxScheduler::LeaveNic(uint32_t wireBytes)
{
    NS_ASSERT_MSG(m_inNic > 0 && m_inNicBytes >= wireBytes, "left the NIC without entering");
    --m_inNic;
    m_inNicBytes -= wireBytes;
}

uint32_t
OffloadTxScheduler::GetInNic() const
{
    return m_inNic;
}

uint64_t
OffloadTxScheduler::GetInNicBytes() const
{
    return m_inNicBytes;
}

} // namespace ns3
