/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_DMA_INTERFACE_H
#define PRESTO_OFFLOAD_DMA_INTERFACE_H

#include "offload-dma-engine.h"

#include "ns3/event-id.h"

#include <functional>
#include <unordered_map>

namespace ns3
{

/**
 * \ingroup presto
 * \brief OffloadDmaEngine in simulated time: the NIC's host interface shared by DMA channels.
 * A submitted transfer waits in its channel; one event per transfer marks the end of its
 * crossing (then the arbiter starts the next) and one runs the submitter's continuation when
 * the data is in place, after the latency. Used by OffloadNetDevice when DmaChannels > 0.
 */
class OffloadDmaInterface
{
  public:
    /**
     * \param config the interface (checked by OffloadDmaEngine: PrestoInputError)
     */
    explicit OffloadDmaInterface(const OffloadDmaEngine::Config& config);
    ~OffloadDmaInterface();

    OffloadDmaInterface(const OffloadDmaInterface&) = delete;
    OffloadDmaInterface& operator=(const OffloadDmaInterface&) = delete;

    /**
     * \brief Queue a transfer now.
     * \param channel its channel
     * \param bytes its size (0: keeps order only)
     * \param done runs when the data is in place at the other side
     */
    void Submit(uint32_t channel, uint32_t bytes, std::function<void()> done);

    /// \brief Drop what is queued and in service (the simulation ends).
    void Cancel();

    /// \return the engine (counters)
    const OffloadDmaEngine& GetEngine() const;

  private:
    /// Start the next transfer if the interface is free.
    void StartNext();
    /**
     * \brief The transfer in service has crossed the interface.
     * \param ticket its ticket \param inPlaceNs when its data is in place, ns
     */
    void Crossed(uint64_t ticket, int64_t inPlaceNs);

    OffloadDmaEngine m_engine;                                  //!< channels and arbiter
    std::unordered_map<uint64_t, std::function<void()>> m_done; //!< by ticket
    EventId m_crossing;                                         //!< end of the transfer in service
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_DMA_INTERFACE_H
