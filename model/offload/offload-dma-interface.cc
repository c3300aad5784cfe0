/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-dma-interface.h"

#include "ns3/fast-simulator.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"

namespace ns3
{

OffloadDmaInterface::OffloadDmaInterface(const OffloadDmaEngine::Config& config)
    : m_engine(config)
{
}

OffloadDmaInterface::~OffloadDmaInterface() = default;

void
OffloadDmaInterface::Cancel()
{
    Simulator::Cancel(m_crossing);
    m_done.clear();
}

void
OffloadDmaInterface::Submit(uint32_t channel, uint32_t bytes, std::function<void()> done)
{
    m_done[m_engine.Submit(channel, bytes)] = std::move(done);
    StartNext();
}

const OffloadDmaEngine&
OffloadDmaInterface::GetEngine() const
{
    return m_engine;
}

void
OffloadDmaInterface::StartNext()
{
    OffloadDmaEngine::Started s;
    const int64_t now = FastSimulator::NowNs();
    if (m_engine.StartNext(now, s))
    {
        const uint64_t ticket = s.ticket;
        const int64_t inPlace = s.inPlaceNs;
        m_crossing = compat::Schedule(NanoSeconds(s.endNs - now),
                                      [this, ticket, inPlace]() { Crossed(ticket, inPlace); });
    }
}

void
OffloadDmaInterface::Crossed(uint64_t ticket, int64_t inPlaceNs)
{
    m_engine.Finish();
    auto it = m_done.find(ticket);
    std::function<void()> done = std::move(it->second);
    m_done.erase(it);
    const int64_t now = FastSimulator::NowNs();
    if (inPlaceNs <= now)
    {
        done();
    }
    else
    {
        compat::Schedule(NanoSeconds(inPlaceNs - now), std::move(done));
    }
    StartNext();
}

} // namespace ns3
