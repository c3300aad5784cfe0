/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNetDevice's shared host interface (DmaChannels > 0): building it from the
// attributes, each application's channel and its share of what the NIC commits towards the
// wire, and submitting a connection's transfers in order.

#include "offload-net-device.h"

#include "ns3/fast-simulator.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace ns3
{

void
OffloadNetDevice::SetupDma()
{
    const std::string who = GetInstanceTypeId().GetName() + "::";
    if (m_dmaChannels == 0)
    {
        // the channel-per-connection model has nothing to arbitrate: say so, never ignore
        if (!m_dmaWeights.empty() || m_dmaArbitration != DMA_ROUND_ROBIN ||
            m_dmaQuantum != DEFAULT_DMA_QUANTUM)
        {
            throw PrestoInputError(who + "DmaWeights, DmaArbitration and DmaQuantum arbitrate "
                                         "between DMA channels, but DmaChannels=0 (a channel "
                                         "per connection): set DmaChannels");
        }
        m_dma[DMA_RX].reset();
        m_dma[DMA_TX].reset();
        return;
    }
    if (m_dmaArbitration != DMA_WEIGHTED && m_dmaQuantum != DEFAULT_DMA_QUANTUM)
    {
        throw PrestoInputError(who + "DmaQuantum=" + std::to_string(m_dmaQuantum) +
                               " needs DmaArbitration=Weighted (round robin sends one transfer "
                               "per turn)");
    }
    OffloadDmaEngine::Config cfg;
    cfg.bandwidthBps = m_dmaBandwidthBps;
    cfg.latencyNs = m_dmaLatency.GetNanoSeconds();
    cfg.channels = m_dmaChannels;
    cfg.arbitration = m_dmaArbitration == DMA_WEIGHTED ? OffloadDmaEngine::Arbitration::WEIGHTED
                                                       : OffloadDmaEngine::Arbitration::ROUND_ROBIN;
    cfg.quantumBytes = m_dmaQuantum;
    if (!m_dmaWeights.empty())
    {
        if (m_dmaArbitration != DMA_WEIGHTED)
        {
            throw PrestoInputError(who + "DmaWeights=\"" + m_dmaWeights +
                                   "\" needs DmaArbitration=Weighted (round robin has no "
                                   "weights)");
        }
        std::istringstream is(m_dmaWeights);
        for (std::string item; std::getline(is, item, ',');)
        {
            uint64_t w = 0;
            std::string why;
            if (!WholeToken::Parse(item, 1000000, w, why))
            {
                throw PrestoInputError(who + "DmaWeights=\"" + m_dmaWeights + "\": '" + item +
                                       "' is not a weight (an integer 1..1000000)");
            }
            cfg.weights.push_back(static_cast<uint32_t>(w));
        }
    }
    try
    {
        // PCIe is full duplex: received payload and payload to send each have a direction
        m_dma[DMA_RX] = std::make_unique<OffloadDmaInterface>(cfg);
        m_dma[DMA_TX] = std::make_unique<OffloadDmaInterface>(cfg);
        m_dmaTxBytes.assign(m_dmaChannels, 0);
        // the arbiter's weights (DmaWeights, or all 1) also share what the NIC commits
        // towards the wire among the channels using it (DmaChannelFull)
        m_dmaTxWeight = cfg.weights;
        if (m_dmaArbitration != DMA_WEIGHTED || m_dmaTxWeight.empty())
        {
            m_dmaTxWeight.assign(m_dmaChannels, 1);
        }
        m_dmaTxBusyWeight = 0;
    }
    catch (const PrestoInputError& e)
    {
        throw PrestoInputError(who + "DmaChannels=" + std::to_string(m_dmaChannels) + ": " +
                               e.what());
    }
}

bool
OffloadNetDevice::DmaChannelFull(uint32_t channel) const
{
    // Work-conserving: a channel alone may fill the bound; with others in the NIC it holds
    // its weight's part (at least one full frame), so that one application's backlog does
    // not take the room another's needs, and weights act on admission as on the interface.
    const uint64_t held = m_dmaTxBytes[channel];
    const uint64_t w = m_dmaTxWeight[channel];
    const uint64_t busy = m_dmaTxBusyWeight + (held == 0 ? w : 0);
    return held >= 1500 && held * busy >= m_txQueueBytes * w;
}

void
OffloadNetDevice::CheckDmaChannel(uint32_t channel, const char* where) const
{
    if (channel >= std::max(m_dmaChannels, 1u))
    {
        throw PrestoInputError(
            "OffloadSocket::DmaChannel=" + std::to_string(channel) + " (" + where + ") on " +
            GetInstanceTypeId().GetName() + " with DmaChannels=" + std::to_string(m_dmaChannels) +
            (m_dmaChannels == 0 ? " (a channel per connection, no shared channels)"
                                : " (channels 0.." + std::to_string(m_dmaChannels - 1) + ")"));
    }
}

void
OffloadNetDevice::SubmitDma(uint32_t id,
                            DmaDirection dir,
                            uint32_t bytes,
                            Time delay,
                            std::function<void(bool)> done)
{
    OffloadConnectionState& c = m_connections[id];
    ++c.dmaPending[dir];
    const uint32_t channel = c.dmaChannel;
    if (dir == DMA_RX)
    {
        // segments of a connection take different times through the execution model (a
        // recirculation, a module): they enter the channel in arrival order all the same,
        // so that a FIN's notification never passes the data before it
        const Time clock = FastSimulator::Now();
        const Time at = std::max(clock + delay, c.dmaRxSubmit);
        c.dmaRxSubmit = at;
        delay = at - clock;
    }
    auto inPlace = [this, id, dir, gen = m_connections.Generation(id), done = std::move(done)]() {
        const bool alive = m_connections.Generation(id) == gen;
        if (alive)
        {
            --m_connections[id].dmaPending[dir];
        }
        done(alive);
    };
    OffloadDmaInterface* dma = m_dma[dir].get();
    if (delay.IsZero())
    {
        dma->Submit(channel, bytes, std::move(inPlace));
        return;
    }
    compat::Schedule(delay, [dma, channel, bytes, inPlace = std::move(inPlace)]() mutable {
        dma->Submit(channel, bytes, std::move(inPlace));
    });
}

void
OffloadNetDevice::SendThroughDmaChannel(uint32_t id,
                                        const OffloadSegment& seg,
                                        const Ptr<Packet>& payload,
                                        Time delay)
{
    OffloadConnectionState& c = m_connections[id];
    // the payload crosses the shared interface in its application's channel (a
    // payload-less segment waits there behind the connection's data), then the
    // execution model's latency. From now until it reaches the device queue it is
    // inside the NIC, as in the channel-per-connection model, and in its channel's
    // share.
    const uint32_t channel = c.dmaChannel;
    const uint32_t wireBytes = seg.payloadLen + WIRE_HEADER_BYTES;
    m_txScheduler.EnterNic(wireBytes);
    if (m_dmaTxBytes[channel] == 0)
    {
        m_dmaTxBusyWeight += m_dmaTxWeight[channel];
    }
    m_dmaTxBytes[channel] += wireBytes;
    const uint32_t gen = m_connections.Generation(id);
    SubmitDma(id,
              DMA_TX,
              seg.payloadLen,
              Time(0),
              [this, id, gen, seg, payload, delay, channel, wireBytes](bool alive) {
                  const Time now = FastSimulator::Now();
                  Time at = now + delay;
                  if (alive)
                  {
                      OffloadConnectionState& conn = m_connections[id];
                      at = std::max(at, conn.txLast); // the connection's order
                      conn.txLast = at;
                  }
                  compat::Schedule(at - now, [this, id, gen, seg, payload, channel, wireBytes]() {
                      m_txScheduler.LeaveNic(wireBytes);
                      m_dmaTxBytes[channel] -= wireBytes;
                      if (m_dmaTxBytes[channel] == 0)
                      {
                          m_dmaTxBusyWeight -= m_dmaTxWeight[channel];
                      }
                      if (m_connections.Generation(id) == gen)
                      {
                          SendSegment(id, seg, payload);
                      }
                      PumpTx();
                  });
              });
}

} // namespace ns3
