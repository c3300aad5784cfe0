/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_RACK_PIPELINE_H
#define PRESTO_PRESTO_RACK_PIPELINE_H

#include "ns3/rmt-pipe-slots.h"
#include "ns3/simple-ref-count.h"

#include <cstdint>
#include <memory>

namespace ns3
{

/**
 * \ingroup presto
 * \brief One Presto pipeline on a rack switch, shared by the rack's hosts.
 *
 * Presto's prototype ran the data path on one Tofino switch serving the hosts of a rack over
 * RDMA queue pairs, not on a NIC per host. With PrestoNetDevice::SetRackPipeline every host's
 * device of a rack uses this one pipeline's resources:
 * - its packet rate: one RmtPipeSlots (PipelineClock x Pipes passes per second, the input
 *   buffer, the timer scan's reserved slots) for every pass of every host;
 * - its connection arrays: MaxConnections slots for the rack's connections together (a
 *   connection refused beyond them, as on one NIC);
 * - its timer scan: one scan walks every host's slots in use, so a connection's timers are
 *   examined once per (the rack's slots) / TimerScanRate.
 * What it leaves per host: the DMA to the host's memory (RDMA over the host link in the
 * prototype, the device's DMA engine here), and where a packet is processed (at the host's
 * end of its link, so ACKs the pipeline makes still cross the host link).
 *
 * Pure bookkeeping, no Simulator calls; the devices give it the time.
 */
class PrestoRackPipeline : public SimpleRefCount<PrestoRackPipeline>
{
  public:
    /**
     * \param maxConnections connection slots of the rack's arrays
     */
    explicit PrestoRackPipeline(uint32_t maxConnections);

    /**
     * \brief A host's device joins with its pipeline's hardware: the first sets it, every
     * other must have the same.
     * \param config the device's pipeline (clock, pipes, buffer, timer scan)
     * \param maxConnections the device's MaxConnections
     * \param member the device (IsReporter: the first reports the shared counters)
     * \return the shared slots
     * \throws PrestoInputError when the hardware or the connection slots differ
     */
    RmtPipeSlots& Join(const RmtPipeSlots::Config& config,
                       uint32_t maxConnections,
                       const void* member);

    /**
     * \param member a device that joined
     * \return true for the first: the one that reports the pipeline's shared counters, so
     * that a sum over the rack's hosts counts them once
     */
    bool IsReporter(const void* member) const;

    /** \return true and a slot taken if one of the rack's connection slots is free */
    bool Reserve();
    /** \brief A connection's slot given back. */
    void Release();
    /** \param slots the slots a host's timer scan range grew by */
    void GrowScanRange(uint32_t slots);

    /** \return the hosts that joined */
    uint32_t GetMembers() const;
    /** \return connection slots in use now */
    uint32_t GetInUse() const;
    /** \return the most connection slots ever in use at once */
    uint32_t GetInUseMax() const;
    /** \return connections refused for lack of a slot */
    uint64_t GetRefused() const;
    /** \return the slots the timer scan walks: every host's range together */
    uint64_t GetScanRange() const;
    /** \return the rack's connection slots */
    uint32_t GetMaxConnections() const;
    /** \return the shared slots (null before the first Join) */
    const RmtPipeSlots* GetSlots() const;

  private:
    uint32_t m_maxConnections;             //!< the arrays' slots
    RmtPipeSlots::Config m_config;         //!< the first member's hardware
    std::unique_ptr<RmtPipeSlots> m_slots; //!< the packet rate
    uint32_t m_members{0};                 //!< hosts
    const void* m_reporter{};              //!< the first member
    uint32_t m_inUse{0};                   //!< connection slots in use
    uint32_t m_inUseMax{0};                //!< most in use
    uint64_t m_refused{0};                 //!< refused connections
    uint64_t m_scanRange{0};               //!< slots the scan walks
};

} // namespace ns3

#endif // PRESTO_PRESTO_RACK_PIPELINE_H
