/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FABRIC_LINK_NET_DEVICE_H
#define PRESTO_FABRIC_LINK_NET_DEVICE_H

#include "fabric-lazy-header.h"
#include "fabric-link-queue.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/event-pool.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief A PointToPointChannel that lets two FabricLinkNetDevices take the fast path.
 *
 * It adds nothing to PointToPointChannel but the marker (and a public view of the delay): a
 * FabricLinkNetDevice at each end of it sends through FabricLinkQueue arithmetic with one
 * event per frame; any other device on it works as on a PointToPointChannel.
 */
class FabricLinkChannel : public PointToPointChannel
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /** \return the propagation delay (attribute "Delay") */
    Time GetLinkDelay() const;
};

/**
 * \ingroup presto
 * \brief The IPv4 header fields a fabric switch forwards by, carried beside a frame on the fast
 * path so that switches need not read the packet's bytes (a 40-byte copy out of the packet
 * buffer, about 85 instructions and a cache line per switch hop).
 *
 * The sender that wrote the header fills them in (OffloadNetDevice); a frame sent through
 * NetDevice::Send (ns-3's IPv4 stack, a test) has none, and the first switch reads them from
 * the bytes and passes them on. A switch that rewrites the header (an ECN mark) updates them.
 *
 * The sender may also leave the whole header out of the bytes (lazy, a FabricLazyHeader: the
 * frame then holds a zero placeholder of the header's length). Whoever may read the bytes
 * writes it first (EnsureBytes, with the TOS byte of the fields): a sniffer, an error model, a
 * promiscuous or receive callback, a drop trace, a point-to-point link, a switch policy that
 * hashes the header, a switch trace. Two choke points keep that rule: the fabric's packet
 * trace sources are FabricFrameTrace, which fire only with the fields and write the header
 * before any sink runs, and a frame goes to any other reader (an ns-3 device, a host stack)
 * as Bytes(packet). A switch marks an unwritten header in the fields alone; a receiver that
 * takes the fields (a FabricLinkSink) reads no bytes. The lazy header moves with the frame
 * from hop to hop without being touched (SendAt takes the fields by value).
 */
struct FabricFrameFields
{
    FabricFrameFields() = default;

    /**
     * \param d destination \param t TOS byte \param k known
     * \param l the header, if it is not in the bytes
     */
    FabricFrameFields(uint32_t d, uint8_t t, bool k, FabricLazyHeaderRef l = {})
        : destination(d),
          tos(t),
          known(k),
          lazy(std::move(l))
    {
    }

    uint32_t destination{0};  //!< IPv4 destination address
    uint8_t tos{0};           //!< IPv4 TOS byte (ECN in its low two bits)
    bool known{false};        //!< filled in; otherwise read the header from the bytes
    FabricLazyHeaderRef lazy; //!< a header not yet in the bytes, or none

    /** Put the header into the bytes if it is not there. \param p the frame */
    void EnsureBytes(Packet& p) const
    {
        if (lazy)
        {
            lazy.Get()->Write(p, tos);
        }
    }

    /**
     * The frame for a reader of its bytes (an ns-3 device, a host stack, an error model, a
     * sniffer): the header is written first. Hand a frame to such a reader only through this.
     * \param p the frame \return p, its header in its bytes
     */
    const Ptr<Packet>& Bytes(const Ptr<Packet>& p) const
    {
        EnsureBytes(*PeekPointer(p));
        return p;
    }
};

/**
 * \ingroup presto
 * \brief A fabric trace source of frames: TracedCallback<Ptr<const Packet>, Args...> that fires
 * only with the frame's fields, and writes a lazy header into the bytes before any sink runs.
 *
 * The fabric's packet trace sources (FabricLinkNetDevice's FastTxDrop and FastRxDrop,
 * FabricSwitch's Enqueue, Drop and Mark) are of this type: the plain operator() is deleted, so
 * firing one without the fields does not compile, and a sink connected to one never sees the
 * zero placeholder. No sink connected: one test, as TracedCallback's, and nothing written.
 */
template <typename... Args>
class FabricFrameTrace : public TracedCallback<Ptr<const Packet>, Args...>
{
  public:
    /**
     * Write the frame's header if it is lazy, then call the sinks.
     * \param fields the frame's fields \param packet the frame \param args the rest
     */
    void operator()(const FabricFrameFields& fields, const Ptr<Packet>& packet, Args... args) const
    {
        if (this->IsEmpty())
        {
            return;
        }
        fields.EnsureBytes(*PeekPointer(packet));
        TracedCallback<Ptr<const Packet>, Args...>::operator()(packet, args...);
    }

    /// Firing without the frame's fields could hand a sink the placeholder.
    void operator()(Ptr<const Packet>, Args...) const = delete;
};

/**
 * \ingroup presto
 * \brief Takes frames from fast links directly, without NetDevice's receive callback
 * (FabricSwitch; the callback's dispatch costs about a tenth of a packet-hop).
 */
class FabricLinkSink
{
  public:
    virtual ~FabricLinkSink() = default;

    /**
     * A frame arrived on a fast link.
     * \param port the number the sink gave the link's device (FabricLinkNetDevice::SetLinkSink)
     * \param packet the packet (not shared with anyone: the sink may forward it as is)
     * \param protocol its protocol number
     * \param now the current time, Simulator::Now() (the arrival event's time stamp, known to
     * the link; Simulator::Now costs about 50 instructions a call)
     * \param fields its header fields as the sender gave them to SendAt (may be not known)
     */
    virtual void ReceiveFromLink(uint32_t port,
                                 const Ptr<Packet>& packet,
                                 uint16_t protocol,
                                 const Time& now,
                                 FabricFrameFields& fields) = 0;
};

/**
 * \ingroup presto
 * \brief A fabric link end: PointToPointNetDevice's model with one event per frame.
 *
 * When both ends of a FabricLinkChannel are FabricLinkNetDevices, Send does not queue the
 * packet: it computes the frame's transmission start (FabricLinkQueue: output-queued FIFO,
 * start = max(now, end of the previous frame)) and schedules the arrival at the peer at start +
 * transmission time + delay. The packet is not copied and carries no PPP header (its 2 bytes
 * still count, attribute FramingBytes, in the transmission time and the queue occupancy, as
 * with PointToPointNetDevice). Counters replace the per-frame traces. The limit of the waiting
 * frames is the device queue's MaxSize (GetQueue(), read at the first transmission and by
 * RefreshQueueLimit), so FabricSwitch's buffer and the host queue length apply unchanged; the
 * queue object itself stays empty.
 *
 * On any other channel, or with another device type at the far end, it behaves exactly as a
 * PointToPointNetDevice.
 *
 * The DataRate is read at the first transmission; change it afterwards with SetLinkRate.
 * With a NetDeviceQueueInterface aggregated (hosts), the transmit queue is stopped when
 * another MTU-sized frame would not fit and woken at the next transmission start (one event,
 * only under back-pressure).
 *
 * Pcap: the fast path's frames appear on the trace source "FastSniffer" as
 * PointToPointNetDevice's "PromiscSniffer" shows its own (with a PPP header, a sent frame at
 * its transmission start, a received one at its arrival), only while a sink is connected.
 * FabricLinkNetDevice::EnablePcap hooks both to one file.
 */
class FabricLinkNetDevice : public PointToPointNetDevice
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();
    FabricLinkNetDevice();
    ~FabricLinkNetDevice() override;

    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    /**
     * Send at a time the caller has already read from the clock (a switch reads it once for
     * the queue test and the send; Simulator::Now costs about 50 instructions a call). Send
     * is SendAt at Simulator::Now(); a subclass that overrides Send must override this too.
     * \param packet the packet \param dest its destination \param protocolNumber protocol
     * \param now the current simulation time (Simulator::Now())
     * \param fields the packet's IPv4 header fields, handed to a FabricLinkSink at the far end
     * (they must match the bytes; leave them not known if unsure)
     * \return as Send
     */
    bool SendAt(const Ptr<Packet>& packet,
                const Address& dest,
                uint16_t protocolNumber,
                const Time& now,
                FabricFrameFields fields = FabricFrameFields{});
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;

    /**
     * Set the data rate here and in PointToPointNetDevice (use this rather than the attribute
     * once the device has sent).
     * \param rate the new rate
     */
    void SetLinkRate(DataRate rate);

    /**
     * Deliver the fast path's frames to sink instead of the receive callback (which still
     * serves PointToPointNetDevice's path). The sink must outlive the simulation's events or
     * be removed.
     * \param sink the sink, or nullptr to use the receive callback again
     * \param port passed back to the sink with each frame
     */
    void SetLinkSink(FabricLinkSink* sink, uint32_t port);

    /**
     * Read the device queue's MaxSize again (it is read at the first transmission; call this
     * after changing it during a run; FabricSwitch::SetBufferBytes does).
     */
    void RefreshQueueLimit();

    /**
     * Receive error model of the fast path (and of PointToPointNetDevice's path).
     * \param em the model; a corrupt frame is dropped and counted (trace "FastRxDrop")
     */
    void SetLinkReceiveErrorModel(Ptr<ErrorModel> em);

    /**
     * Drop the frames waiting to be sent (the frame on the wire still arrives).
     * \return frames dropped
     */
    uint32_t FlushQueue();

    /** \return whether this end uses the fast path (both ends on a FabricLinkChannel) */
    bool IsFast();

    /**
     * \brief PointToPointNetDevice::SetMtu, remembering the value for the flow-control check
     * of every host send (GetMtu is a virtual call into ns-3 with a log check).
     * \param mtu the MTU, bytes
     * \return whether it was accepted
     */
    bool SetMtu(const uint16_t mtu) override;

    /**
     * Write the device's frames to a pcap file (DLT_PPP), on either path: as
     * PointToPointHelper::EnablePcap does (the same file name, prefix-node-device.pcap), with
     * the fast path's "FastSniffer" hooked to the same file. (PointToPointHelper::EnablePcap
     * alone hooks only "PromiscSniffer", which the fast path does not fire.)
     * \param prefix file name prefix
     * \param device the device
     */
    static void EnablePcap(const std::string& prefix, Ptr<PointToPointNetDevice> device);

    /** \return bytes waiting to be sent, with FramingBytes each (the frame on the wire not) */
    uint32_t GetQueuedBytes();
    /**
     * GetQueuedPackets and GetQueuedBytes with one reading of the clock.
     * \return frames and bytes waiting to be sent
     */
    std::pair<uint32_t, uint32_t> GetQueued();
    /**
     * GetQueued at a time the caller has already read from the clock (a transmit loop
     * asks once per segment; Simulator::Now costs about 50 instructions a call).
     * \param now the current simulation time
     * \return frames and bytes waiting to be sent
     */
    std::pair<uint32_t, uint32_t> GetQueued(const Time& now);
    /** \return frames waiting to be sent (the frame on the wire not) */
    uint32_t GetQueuedPackets();

    /**
     * Start loading the members SendAt reads beyond those GetQueued reads (a hint to the
     * processor; nothing changes in the simulation). A switch calls it as soon as it knows
     * the output port, so that in a large fabric, where a port's device has usually left the
     * cache, its lines load side by side instead of one after the other.
     */
    void PrefetchSend() const
    {
        __builtin_prefetch(&m_maxPackets);
        __builtin_prefetch(&m_arrivals);
    }

    /**
     * Whether Send would take a packet now, by the same limit it applies (the device queue's
     * MaxSize, read once the link is resolved on the fast path). A sender with its own backlog
     * asks before handing a packet over rather than having it dropped.
     * \param size the packet's size, bytes (without link-layer framing)
     * \param now the current simulation time
     * \return true if the queue has room for it
     */
    bool HasRoomFor(uint32_t size, const Time& now);

    /**
     * GetQueuedBytes without reading the clock: valid at the instant of the last Send (which
     * brought the count up to date), as right after it.
     * \return bytes waiting to be sent as of the last Send
     */
    uint32_t GetQueuedBytesAtSend() const
    {
        return m_fast ? static_cast<uint32_t>(m_fifo.GetBytes())
                      : (m_queue ? m_queue->GetNBytes() : 0);
    }

    uint64_t GetTxPackets() const; //!< \return frames sent on the fast path
    uint64_t GetRxPackets() const; //!< \return frames received on the fast path
    uint64_t GetTxDrops() const;   //!< \return frames refused by Send (queue full, link down)
    uint64_t GetRxDrops() const;   //!< \return frames dropped by the receive error model

    /** \return the most frames this end ever had in flight at once (arrival events queued) */
    std::size_t GetMostArrivalsPending() const
    {
        return m_arrivals.GetMostPending();
    }

    /**
     * \return arrival events that exist, all fast links of the process together (they are
     * reused from one free list: about the most frames ever in flight at once). Out of line,
     * so that it reads the library's list and not a copy in the caller's binary.
     */
    static std::size_t GetArrivalEventsMade();

  protected:
    /** \return the far end's address, the "from" of a frame received on the fast path */
    const Address& GetPeerAddress() const
    {
        return m_peerAddress;
    }

    /**
     * On the fast path, when the waiting frames shrink next: the start of the first waiting
     * frame's transmission (what PhyTxEnd tells on PointToPointNetDevice's path).
     * \param[out] delay time from now until then
     * \return false when no frame waits, or the fast path is not in use
     */
    bool GetNextDeparture(Time& delay);

    /**
     * \return link-layer bytes a frame occupies beyond its packet, in the transmission time
     * and the queue limit: FramingBytes on the fast path, the PPP header's 2 otherwise
     */
    uint32_t GetFramingOverhead();

  private:
    /** A frame in flight: what its arrival event carries (24 bytes, the fields unpacked). */
    struct Arrival
    {
        Ptr<Packet> packet;       //!< the frame
        FabricLazyHeaderRef lazy; //!< FabricFrameFields::lazy
        uint32_t destination{0};  //!< FabricFrameFields::destination
        uint16_t protocol{0};     //!< its protocol number
        uint8_t tos{0};           //!< FabricFrameFields::tos
        bool known{false};        //!< FabricFrameFields::known
    };

    /**
     * A frame's arrival event ran: hand it to the peer (the pool's handler).
     * \param arrival the frame
     */
    void DeliverToPeer(Arrival& arrival);

    /// the arrival events' pool type
    using ArrivalPool =
        EventPool<FabricLinkNetDevice, Arrival, &FabricLinkNetDevice::DeliverToPeer>;

    /**
     * The "FastSniffer" trace source: a TracedCallback that tells its device when a sink is
     * connected or disconnected (ReceiveStateChanged). The per-hop path then reads a flag
     * among the members it reads anyway (m_sniffing) instead of this list, and the far end
     * knows whether it may deliver here directly (m_peerSink).
     */
    class SnifferTrace : public TracedCallback<Ptr<const Packet>>
    {
      public:
        /// \param device the device whose trace source this is
        explicit SnifferTrace(FabricLinkNetDevice* device)
            : m_device(device)
        {
        }

        /// TracedCallback::ConnectWithoutContext, then tell the device \param cb the sink
        void ConnectWithoutContext(const CallbackBase& cb);
        /// TracedCallback::Connect, then tell the device \param cb the sink \param path context
        void Connect(const CallbackBase& cb, std::string path);
        /// TracedCallback::DisconnectWithoutContext, then tell the device \param cb the sink
        void DisconnectWithoutContext(const CallbackBase& cb);
        /// TracedCallback::Disconnect, then tell the device \param cb the sink \param path context
        void Disconnect(const CallbackBase& cb, std::string path);

      private:
        FabricLinkNetDevice* m_device; //!< told of every change
    };

    /**
     * Something that decides how a frame is received here changed (sink, error model,
     * promiscuous callback, sniffer): tell the far end (PushReceiveState).
     */
    void ReceiveStateChanged();

    /**
     * Tell the far end's device whether it may hand frames for this end straight to this end's
     * sink (m_peerSink): only when FastReceive would do nothing else, that is with a sink and
     * no error model, promiscuous callback or sniffer. Called on every change of those and
     * when the far end resolves its fast path.
     */
    void PushReceiveState();

    /** \return the device at the other end of the channel, if it is a FabricLinkNetDevice */
    FabricLinkNetDevice* FarEnd() const;

    /** Decide, once, whether the fast path applies, and cache what it needs. */
    void Resolve();

    /**
     * A frame arrives from the peer (the one event per frame).
     * \param packet the packet
     * \param protocol its protocol number
     * \param now the current time, Simulator::Now()
     * \param fields its header fields from the sender
     */
    void FastReceive(const Ptr<Packet>& packet,
                     uint16_t protocol,
                     const Time& now,
                     FabricFrameFields& fields);

    /**
     * \param bytes a frame's size
     * \return its transmission time, in time steps
     */
    int64_t TxSteps(uint32_t bytes)
    {
        const std::vector<int64_t>& table = *m_txSteps;
        const int64_t steps = bytes < table.size() ? table[bytes] : 0;
        return steps > 0 ? steps : TxStepsSlow(bytes);
    }

    /**
     * TxSteps for a size not computed yet (or a zero-time frame): compute and remember it.
     * \param bytes a frame's size
     * \return its transmission time, in time steps
     */
    int64_t TxStepsSlow(uint32_t bytes);

    /**
     * Show a frame to "FastSniffer" as PointToPointNetDevice's sniffer would: a copy with a
     * PPP header.
     * \param packet the packet \param protocol its protocol number (Ethernet numbering)
     */
    void Sniff(Ptr<const Packet> packet, uint16_t protocol);

    /**
     * A frame's transmission starts (scheduled by Send while a sniffer is connected): sniff it
     * unless FlushQueue dropped it meanwhile.
     * \param packet the packet \param protocol its protocol number
     * \param flushes FlushQueue calls when it was sent
     */
    void SniffStart(Ptr<const Packet> packet, uint16_t protocol, uint32_t flushes);

    /** Stop the transmit queue if another MTU-sized frame would not fit. */
    void MaybeStop();

    /**
     * Stop the transmit queue (m_txQueue, not null) and schedule WakeCheck at the next frame's
     * start, unless it is stopped already.
     */
    void StopUntilRoom();

    /** Wake the transmit queue if a frame fits again, else wait for the next start. */
    void WakeCheck();

    // The members a packet-hop reads come first, in the order it reads them, from a cache
    // line's start: the sender's (GetQueued, SendAt, then DeliverToPeer) in three lines.
    // Scattered over seven lines, they cost a 1,024-host fat-tree 5.4 more cache misses per
    // packet-hop (callgrind, 2 MB simulated last level: 17.0 against 11.6). The third line
    // also holds what the receiver's FastReceive would read, as its far end pushed it
    // (m_peerSink): a plain delivery reads none of the receiver's lines. The receiver's own
    // (the fourth) serve the other cases: an error model, a promiscuous callback, a sniffer,
    // no sink.

    // the sender's
    alignas(64) FabricLinkQueue m_fifo; //!< the waiting frames
    bool m_fast{false};                 //!< fast path in use
    bool m_resolved{false};             //!< Resolve done
    bool m_sniffing{false};             //!< a sink is connected to m_sniffer
    uint32_t m_framing;                 //!< attribute FramingBytes
    uint64_t m_maxBytes{0};             //!< queue limit in bytes (0: in packets)
    uint64_t m_maxPackets{0};           //!< queue limit in packets (0: in bytes)
    /// Transmission time by frame size (0: not yet), shared by every device of the same rate
    /// (a pure function of the rate and the time resolution): one 12 KB table per device was
    /// 74 MB in a 1,024-host fat-tree, two tables now.
    std::shared_ptr<std::vector<int64_t>> m_txSteps;
    int64_t m_gapSteps{0};              //!< interframe gap, time steps
    int64_t m_delaySteps{0};            //!< propagation delay, time steps
    uint32_t m_peerContext{0};          //!< node id of the far end (event context)
    NetDeviceQueue* m_txQueue{nullptr}; //!< flow control (hosts), or null
    uint64_t m_txPackets{0};            //!< counter
    /// the arrival events of the frames in flight, reused
    alignas(64) ArrivalPool m_arrivals{this};
    // Raw pointers: the channel holds both ends, and the device its aggregated queue
    // interface, for as long as events can run (PointToPointNetDevice::DoDispose is private,
    // so this class cannot release references there; two Ptrs to each other would leak).
    FabricLinkNetDevice* m_peer{nullptr}; //!< the far end (fast path)
    /// the far end's sink when it receives plainly (its PushReceiveState), else null
    FabricLinkSink* m_peerSink{nullptr};
    uint32_t m_peerSinkPort{0};    //!< the far end's number at m_peerSink
    uint64_t m_deliveredDirect{0}; //!< frames handed to m_peerSink (the far end's GetRxPackets)

    // the receiver's
    alignas(64) FabricLinkSink* m_sink{nullptr};   //!< direct receiver, or null
    uint32_t m_sinkPort{0};                        //!< m_sink's number for this device
    uint64_t m_rxPackets{0};                       //!< counter
    Ptr<ErrorModel> m_errorModel;                  //!< receive error model, or null
    NetDevice::PromiscReceiveCallback m_promiscCb; //!< captured promiscuous callback
    NetDevice::ReceiveCallback m_rxCb;             //!< captured receive callback

    // the rest
    uint16_t m_mtu;                   //!< the MTU as set (SetMtu)
    Address m_peerAddress;            //!< the far end's address (receive "from")
    DataRate m_rate;                  //!< the rate used for m_txSteps
    Ptr<Queue<Packet>> m_queue;       //!< the device queue (only its MaxSize is used)
    EventId m_wake;                   //!< pending wake of m_txQueue
    uint64_t m_txDrops{0};            //!< counter
    uint64_t m_rxDrops{0};            //!< counter
    uint32_t m_flushes{0};            //!< FlushQueue calls (pending sniffs of flushed frames skip)
    FabricFrameTrace<> m_txDropTrace; //!< refused by Send
    FabricFrameTrace<> m_rxDropTrace; //!< dropped by the error model
    SnifferTrace m_sniffer{this};     //!< frames with a PPP header (pcap)
};

/**
 * \ingroup presto
 * \brief Queue occupancy of a port, for either link type.
 *
 * FabricSwitch and FabricQueueTracer read a port's waiting bytes and frames through this: the
 * device queue of a PointToPointNetDevice, or FabricLinkNetDevice's departures. Both count the
 * 2-byte PPP framing and exclude the frame on the wire.
 */
class FabricPortQueue
{
  public:
    /** \param device the port's device */
    explicit FabricPortQueue(Ptr<PointToPointNetDevice> device);

    /** \return bytes waiting */
    uint32_t GetBytes() const
    {
        return m_link ? PeekPointer(m_link)->GetQueuedBytes() : m_queue->GetNBytes();
    }

    /** \param now the current simulation time \return bytes waiting */
    uint32_t GetBytes(const Time& now) const
    {
        return m_link ? PeekPointer(m_link)->GetQueued(now).second : m_queue->GetNBytes();
    }

    /** \return the port's device when it is a FabricLinkNetDevice, else null */
    FabricLinkNetDevice* GetLink() const
    {
        return PeekPointer(m_link);
    }

    /** \return frames waiting */
    uint32_t GetPackets() const
    {
        return m_link ? PeekPointer(m_link)->GetQueuedPackets() : m_queue->GetNPackets();
    }

    /** \return bytes waiting, right after a Send on the port at the current time */
    uint32_t GetBytesAfterSend() const
    {
        return m_link ? PeekPointer(m_link)->GetQueuedBytesAtSend() : m_queue->GetNBytes();
    }

  private:
    Ptr<FabricLinkNetDevice> m_link; //!< the device, when it is a FabricLinkNetDevice
    Ptr<Queue<Packet>> m_queue;      //!< otherwise its queue
};

} // namespace ns3

#endif // PRESTO_FABRIC_LINK_NET_DEVICE_H
