/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-dma-engine.h"

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <string>

// Pure logic with no ns-3 dependency: the offload device drives it, the unit tests alone.

namespace ns3
{

OffloadDmaEngine::OffloadDmaEngine(const Config& config)
    : m_config(config)
{
    const std::string who = "OffloadNetDevice DMA channels: ";
    if (!(config.bandwidthBps > 0) || !std::isfinite(config.bandwidthBps))
    {
        throw PrestoInputError(who + "the bandwidth must be positive, not " +
                               std::to_string(config.bandwidthBps) + " bit/s");
    }
    if (config.latencyNs < 0)
    {
        throw PrestoInputError(who + "the latency must not be negative");
    }
    if (config.channels == 0)
    {
        throw PrestoInputError(who + "at least one channel is needed");
    }
    if (m_config.weights.empty())
    {
        m_config.weights.assign(config.channels, 1);
    }
    if (m_config.weights.size() != config.channels)
    {
        throw PrestoInputError(who + std::to_string(m_config.weights.size()) + " weights for " +
                               std::to_string(config.channels) +
                               " channels: give one weight per channel (DmaWeights)");
    }
    for (size_t i = 0; i < m_config.weights.size(); ++i)
    {
        if (m_config.weights[i] == 0)
        {
            throw PrestoInputError(who + "the weight of channel " + std::to_string(i) +
                                   " is 0; weights are at least 1 (DmaWeights)");
        }
    }
    if (config.quantumBytes == 0)
    {
        throw PrestoInputError(who + "the quantum must be at least 1 byte (DmaQuantum)");
    }
    m_nsPerByte = 8e9 / config.bandwidthBps;
    m_q.resize(config.channels);
    m_queuedBytes.assign(config.channels, 0);
    m_deficit.assign(config.channels, 0);
    m_credited.assign(config.channels, false);
    m_bytes.assign(config.channels, 0);
    m_backlogMax.assign(config.channels, 0);
}

uint64_t
OffloadDmaEngine::Submit(uint32_t channel, uint32_t bytes)
{
    if (channel >= m_q.size())
    {
        throw PrestoInputError("OffloadNetDevice DMA channels: channel " + std::to_string(channel) +
                               " does not exist; the NIC has " + std::to_string(m_q.size()) +
                               " (DmaChannels)");
    }
    if (m_q[channel].empty())
    {
        ++m_backlogged;
    }
    m_q[channel].push_back(Transfer{m_nextTicket, bytes});
    m_queuedBytes[channel] += bytes;
    m_backlogMax[channel] = std::max(m_backlogMax[channel], m_queuedBytes[channel]);
    return m_nextTicket++;
}

bool
OffloadDmaEngine::IsBusy() const
{
    return m_busy;
}

uint32_t
OffloadDmaEngine::Choose()
{
    const auto n = static_cast<uint32_t>(m_q.size());
    if (m_config.arbitration == Arbitration::ROUND_ROBIN)
    {
        while (m_q[m_next].empty())
        {
            m_next = (m_next + 1) % n;
        }
        const uint32_t ch = m_next;
        m_next = (m_next + 1) % n; // one transfer per turn
        return ch;
    }
    // deficit round robin: every visit to a backlogged channel without credit adds its
    // quantum, so the loop ends
    while (true)
    {
        const uint32_t ch = m_next;
        if (m_q[ch].empty())
        {
            m_deficit[ch] = 0;
            m_credited[ch] = false;
            m_next = (m_next + 1) % n;
            continue;
        }
        if (!m_credited[ch])
        {
            m_deficit[ch] += uint64_t{m_config.weights[ch]} * m_config.quantumBytes;
            m_credited[ch] = true;
        }
        if (m_q[ch].front().bytes <= m_deficit[ch])
        {
            return ch; // the turn goes on while the head fits
        }
        m_credited[ch] = false; // the turn ends; the deficit carries over
        m_next = (m_next + 1) % n;
    }
}

bool
OffloadDmaEngine::StartNext(int64_t nowNs, Started& out)
{
    if (m_busy || m_backlogged == 0)
    {
        return false;
    }
    const uint32_t ch = Choose();
    const Transfer t = m_q[ch].front();
    m_q[ch].pop_front();
    m_queuedBytes[ch] -= t.bytes;
    if (m_config.arbitration == Arbitration::WEIGHTED)
    {
        m_deficit[ch] -= t.bytes;
    }
    if (m_q[ch].empty())
    {
        --m_backlogged;
        if (m_config.arbitration == Arbitration::WEIGHTED)
        {
            // an idle channel keeps no credit (DRR), and its turn is over
            m_deficit[ch] = 0;
            m_credited[ch] = false;
            m_next = (ch + 1) % static_cast<uint32_t>(m_q.size());
        }
    }
    const double start = std::max(static_cast<double>(nowNs), m_freeAtNs);
    m_freeAtNs = start + t.bytes * m_nsPerByte;
    m_bytes[ch] += t.bytes;
    m_busy = true;
    out.ticket = t.ticket;
    out.channel = ch;
    out.bytes = t.bytes;
    out.endNs = static_cast<int64_t>(std::ceil(m_freeAtNs));
    out.inPlaceNs = out.endNs + m_config.latencyNs;
    return true;
}

void
OffloadDmaEngine::Finish()
{
    m_busy = false;
}

uint32_t
OffloadDmaEngine::GetQueued(uint32_t channel) const
{
    return channel < m_q.size() ? static_cast<uint32_t>(m_q[channel].size()) : 0;
}

const std::vector<uint64_t>&
OffloadDmaEngine::GetChannelBytes() const
{
    return m_bytes;
}

const std::vector<uint64_t>&
OffloadDmaEngine::GetChannelBacklogMax() const
{
    return m_backlogMax;
}

uint32_t
OffloadDmaEngine::GetChannels() const
{
    return static_cast<uint32_t>(m_q.size());
}

} // namespace ns3
