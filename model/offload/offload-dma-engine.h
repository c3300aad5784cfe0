/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_DMA_ENGINE_H
#define PRESTO_OFFLOAD_DMA_ENGINE_H

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The NIC's host interface shared by DMA channels, one per application (an RDMA
 * queue pair each): every channel is a FIFO of transfers, an arbiter chooses which channel's
 * head goes next, and one transfer at a time crosses the interface at its bandwidth, then
 * pays a fixed latency. Pure logic: the device asks it what to start and when it ends.
 *
 * Connections of one application share its channel, so a long transfer queue of one delays
 * the others (head-of-line blocking inside an application); applications on different
 * channels only wait for the transfer in service and for the arbiter's turns.
 *
 * Arbitration (attribute OffloadNetDevice::DmaArbitration):
 * - ROUND_ROBIN: one transfer per backlogged channel per turn, in channel order.
 * - WEIGHTED: deficit round robin (Shreedhar and Varghese, 1995): a backlogged channel's
 *   turn adds weight x quantum bytes to its deficit and sends head transfers while they fit,
 *   so over a busy period channel i gets weight_i / sum of the backlogged weights of the
 *   bytes. A channel that empties loses its deficit.
 *
 * Zero-byte transfers are allowed: they take no time on the interface and complete, with the
 * latency, in their channel's order (the device uses them to keep a FIN or a notification
 * behind the payload of its connection).
 */
class OffloadDmaEngine
{
  public:
    /// How the next channel is chosen.
    enum class Arbitration : uint8_t
    {
        ROUND_ROBIN, //!< one transfer per backlogged channel per turn
        WEIGHTED,    //!< deficit round robin with per-channel weights
    };

    /// The interface and its channels.
    struct Config
    {
        double bandwidthBps{100e9}; //!< interface bandwidth, bit/s (> 0)
        int64_t latencyNs{0};       //!< fixed latency per transfer, ns (>= 0)
        uint32_t channels{1};       //!< channels (>= 1)
        Arbitration arbitration{Arbitration::ROUND_ROBIN}; //!< the arbiter
        std::vector<uint32_t> weights; //!< WEIGHTED: one per channel, >= 1 (empty: all 1)
        uint32_t quantumBytes{4096};   //!< WEIGHTED: bytes per weight per turn (>= 1)
    };

    /// A transfer the engine started.
    struct Started
    {
        uint64_t ticket{0};   //!< what Submit returned for it
        uint32_t channel{0};  //!< its channel
        uint32_t bytes{0};    //!< its size
        int64_t endNs{0};     //!< when its last byte has crossed the interface, ns
        int64_t inPlaceNs{0}; //!< endNs + latency: the data is at the other side, ns
    };

    /**
     * \brief Check and take the configuration; throws PrestoInputError naming the bad value.
     * \param config the interface
     */
    explicit OffloadDmaEngine(const Config& config);

    /**
     * \brief Queue a transfer at the tail of a channel.
     * \param channel the channel (< channels; else PrestoInputError)
     * \param bytes its size (0: an ordering marker)
     * \return its ticket (consecutive from 0)
     */
    uint64_t Submit(uint32_t channel, uint32_t bytes);

    /// \return true while a transfer is crossing the interface (between StartNext and Finish)
    bool IsBusy() const;

    /**
     * \brief Start the transfer the arbiter chooses, if the interface is free and any waits.
     * \param nowNs the current time, ns
     * \param out the transfer started
     * \return false when busy or nothing waits
     */
    bool StartNext(int64_t nowNs, Started& out);

    /// \brief The transfer in service has crossed the interface (at its endNs).
    void Finish();

    /// \return transfers waiting in a channel (not the one in service)
    uint32_t GetQueued(uint32_t channel) const;
    /// \return bytes that crossed the interface per channel so far
    const std::vector<uint64_t>& GetChannelBytes() const;
    /// \return the largest backlog a channel had, bytes
    const std::vector<uint64_t>& GetChannelBacklogMax() const;
    /// \return the number of channels
    uint32_t GetChannels() const;

  private:
    /// One queued transfer.
    struct Transfer
    {
        uint64_t ticket; //!< its ticket
        uint32_t bytes;  //!< its size
    };

    /// \return the channel whose head goes next (a channel is backlogged)
    uint32_t Choose();

    Config m_config;                       //!< the interface
    double m_nsPerByte;                    //!< serialisation
    std::vector<std::deque<Transfer>> m_q; //!< per channel
    std::vector<uint64_t> m_queuedBytes;   //!< per channel, waiting
    std::vector<uint64_t> m_deficit;       //!< WEIGHTED: per channel
    std::vector<bool> m_credited;          //!< WEIGHTED: this turn's quantum added
    std::vector<uint64_t> m_bytes;         //!< per channel, served
    std::vector<uint64_t> m_backlogMax;    //!< per channel
    uint32_t m_next{0};                    //!< the channel whose turn it is
    uint32_t m_backlogged{0};              //!< channels with a waiting transfer
    uint64_t m_nextTicket{0};              //!< Submit's counter
    bool m_busy{false};                    //!< a transfer is in service
    double m_freeAtNs{0};                  //!< when the interface is free (fractional ns)
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_DMA_ENGINE_H
