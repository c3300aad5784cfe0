/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_TX_SCHEDULER_H
#define PRESTO_OFFLOAD_TX_SCHEDULER_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The offload NIC's transmit scheduler: which connection sends next, and whether the
 * NIC may commit one more segment towards the wire. Plain C++, no simulator: the device
 * tells it what sits in its device queue and when segments enter and leave the NIC.
 *
 * Connections with something to send are in a ready list served round robin, one segment
 * per turn (as TAS's and FlexTOE's transmit schedulers, without their rate classes: pacing
 * is the congestion control's). What the NIC has committed towards the wire, inside it (the
 * execution model's pipeline, payload DMA) or in the device queue, is bounded three ways:
 * segments inside the NIC (PipelineDepth), segments in total (QueuePackets, so small
 * segments never overflow the device queue) and wire bytes in total (QueueBytes: the wire
 * time that covers the NIC's latency at line rate without queueing more in front of it).
 */
class OffloadTxScheduler
{
  public:
    /** The bounds on what the NIC commits towards the wire. */
    struct Limits
    {
        uint32_t pipelineDepth{8}; //!< segments inside the NIC, at most
        uint32_t queuePackets{8};  //!< segments inside the NIC plus in the device queue
        uint64_t queueBytes{1500}; //!< their wire bytes, at most
    };

    /** \param limits the bounds (taken as given; the device checks them against its queue) */
    void SetLimits(const Limits& limits);
    /** \return the bounds */
    const Limits& GetLimits() const;

    /**
     * \brief A connection may have something to send: put it in the ready list (once).
     * \param id the connection's slot
     */
    void MarkReady(uint32_t id);
    /** \param id a slot \return whether it is in the ready list */
    bool IsReady(uint32_t id) const;

    /** \return whether any connection is in the ready list */
    bool HasReady() const
    {
        return !m_ready.empty(); // inline: PumpTx asks on every call
    }

    /** \return how many connections are in the ready list */
    size_t GetReadyCount() const;

    /**
     * \param queuedPackets segments now in the device queue
     * \param queuedBytes their bytes
     * \return whether a connection is ready and one more segment may be committed
     */
    bool MayCommit(uint32_t queuedPackets, uint64_t queuedBytes) const;

    /** \return the connection whose turn it is (HasReady() must hold) */
    uint32_t Current();
    /** The current connection had nothing to send: it leaves the ready list. */
    void DropCurrent();
    /** The current connection produced a segment (or lost one in the NIC): the next's turn. */
    void Advance();

    /** \param wireBytes a committed segment entered the NIC (it reaches the queue later) */
    void EnterNic(uint32_t wireBytes);
    /** \param wireBytes a segment that EnterNic counted left the NIC */
    void LeaveNic(uint32_t wireBytes);
    /** \return segments inside the NIC */
    uint32_t GetInNic() const;
    /** \return their wire bytes */
    uint64_t GetInNicBytes() const;

  private:
    Limits m_limits;                //!< the bounds
    std::vector<uint32_t> m_ready;  //!< connections with something to send, unordered
    std::vector<uint8_t> m_isReady; //!< per slot: in m_ready
    size_t m_cursor{0};             //!< round robin position in m_ready
    uint32_t m_inNic{0};            //!< segments committed, not yet in the device queue
    uint64_t m_inNicBytes{0};       //!< their wire bytes
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_TX_SCHEDULER_H
