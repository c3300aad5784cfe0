/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_NET_DEVICE_H
#define PRESTO_OFFLOAD_NET_DEVICE_H

#include "offload-congestion-control.h"
#include "offload-connection-table.h"
#include "offload-control-plane.h"
#include "offload-device-event.h"
#include "offload-dma-interface.h"
#include "offload-nic-counters.h"
#include "offload-tcp-connection.h"
#include "offload-tx-scheduler.h"
#include "offload-wire-header.h"
#include "offload-wire.h"

#include "ns3/event-id.h"
#include "ns3/event-pool.h"
#include "ns3/fabric-link-net-device.h"
#include "ns3/fast-simulator.h"
#include "ns3/host-cpu.h"
#include "ns3/ipv4-address.h"
#include "ns3/mac48-address.h"
#include "ns3/nstime.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/tcp-header.h"
#include "ns3/traced-callback.h"

#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

namespace ns3
{

class OffloadSocket;

/**
 * \ingroup presto
 * \brief What every TCP offload NIC of the module shares: the wire format, the host interface
 * and the connection control plane, around the one TCP data path (OffloadTcpConnection).
 *
 * The device is the host's link to the fabric: a FabricLinkNetDevice, so on a fast fabric
 * link (both ends FabricLinkNetDevices on a FabricLinkChannel) it sends with one event per
 * frame, and on a PointToPointChannel it is a PointToPointNetDevice. Packets of offloaded
 * connections (and SYNs for ports an OffloadSocket listens on) are taken off the wire by the NIC;
 * everything else goes up the host's ns-3 stack untouched, so a host can run ns-3's TCP and
 * offloaded connections side by side, and an offloaded connection can talk to a host running ns-3's
 * own TCP.
 *
 * - Wire format: real IPv4 + TCP headers, the bytes ns-3's Ipv4Header and TcpHeader write
 *   (checksums when enabled, window scaling negotiated, ECN negotiated with ECE/CWR on the
 *   SYN and ECT(0) on data), so pcap traces decode in Wireshark/tshark; parsed by ParseWire,
 *   written as one OffloadWireHeader (ns-3's headers while packet metadata is on).
 * - Host interface: per connection a send and a receive buffer in host memory
 *   (OffloadByteRing) that the NIC reads and writes by DMA (OffloadDmaChannel: latency and
 *   bandwidth, a channel per connection), and notifications to the socket (OffloadSocket)
 *   when data is in place. With DmaChannels > 0 the connections instead share one host
 *   interface (OffloadDmaInterface): a channel per application (OffloadSocket::DmaChannel),
 *   FIFO inside, arbitrated between (DmaArbitration, DmaWeights); a channel's queued send
 *   payload is bounded by the NIC's commit bound in bytes, so one application's backlog does
 *   not hold back another's.
 * - Control plane: the handshake and teardown run on the host with a CPU cost per event;
 *   established connections are handed to the data path. Its decisions (ports, options,
 *   SYN retransmission, RSTs in the handshake, TIME-WAIT) are OffloadControlPlane's, plain
 *   logic; this class keeps the table, the timers and the wire around them.
 * - Connection table: a fixed table of MaxConnections slots holds their state; one more is
 *   refused and counted, never a crash.
 * - Timers: the data path has none; a periodic timer scan (TimerScanPeriod) looks for
 *   expired retransmission timeouts, as timer packets do in a match-action pipeline.
 *
 * Subclasses are the execution models (PrestoNetDevice, ...): they choose each connection's
 * data-path configuration and say what each processed segment costs in NIC time. The class is
 * abstract (ConfigureConnection and ProcessTransmit are pure) and its TypeId has no
 * constructor, so a design that decides nothing does not compile, and OffloadNicHelper and
 * the experiments refuse ns3::OffloadNetDevice itself by name.
 */
class OffloadNetDevice : public FabricLinkNetDevice, public FabricLinkSink
{
  public:
    /// How DMA channels share the host interface (attribute DmaArbitration).
    enum DmaArbitration
    {
        DMA_ROUND_ROBIN, //!< one transfer per backlogged channel per turn
        DMA_WEIGHTED,    //!< deficit round robin by DmaWeights
    };

    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    OffloadNetDevice();
    ~OffloadNetDevice() override;

    // NetDevice overrides
    void SetNode(Ptr<Node> node) override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;

    // Host interface, used by OffloadSocket
    /** \return a free local port (ephemeral range), 0 if none */
    uint16_t AllocatePort();
    /** \param port a port \return true if it was free and is now taken */
    bool ReservePort(uint16_t port);
    /** \param port a port to accept connections on \param listener the listening socket */
    void Listen(uint16_t port, Ptr<OffloadSocket> listener);
    /** \param port stop accepting on this port */
    void Unlisten(uint16_t port);
    /**
     * \brief Active open through the host control plane.
     * \param socket the socket \param localPort bound port
     * \param peer remote address \param peerPort remote port
     * \return false if the connection table is full (refused and counted)
     */
    bool Connect(Ptr<OffloadSocket> socket,
                 uint16_t localPort,
                 Ipv4Address peer,
                 uint16_t peerPort);
    /** \param conn slot \param p bytes to send \return bytes accepted */
    uint32_t Write(uint32_t conn, Ptr<Packet> p);
    /** \param conn slot \param maxBytes limit \return bytes read (null if none) */
    Ptr<Packet> Read(uint32_t conn, uint32_t maxBytes);
    /**
     * \brief Write as many zero bytes as a zero-filled packet of that size, without the
     * packet (OffloadSocket::SendBytes).
     * \param conn slot \param bytes to send \return bytes accepted
     */
    uint32_t WriteBytes(uint32_t conn, uint32_t bytes);
    /**
     * \brief Read without building a packet: the bytes are consumed as Read consumes them
     * (OffloadSocket::RecvBytes).
     * \param conn slot \param maxBytes limit \return bytes read
     */
    uint32_t ReadBytes(uint32_t conn, uint32_t maxBytes);
    /** \param conn slot \return free send buffer, bytes */
    uint32_t GetTxAvailable(uint32_t conn) const;
    /** \param conn slot \return readable bytes */
    uint32_t GetRxAvailable(uint32_t conn) const;
    /** \param conn slot: the application closed (FIN after the data) */
    void Close(uint32_t conn);
    /** \return the host's IPv4 address on this device */
    Ipv4Address GetLocalAddress() const;

    /**
     * \brief Add this NIC's counters to a JSON object (summed by the caller over hosts).
     * \param nic the "nic" object
     */
    virtual void AddCounters(nlohmann::json& nic) const;

    /** \return data-path counters summed over finished and live connections */
    OffloadTcpCounters GetTotals() const;
    /**
     * \brief Inspect one connection (tests, monitors).
     * \param conn slot, as in the Established trace
     * \return its data path, or nullptr when the slot holds no established connection
     */
    const OffloadTcpConnection* FindConnection(uint32_t conn) const;
    /**
     * \param conn slot \param peer set to the remote address
     * \param localPort set to the local port \param peerPort set to the remote port
     */
    void GetEndpoints(uint32_t conn,
                      Ipv4Address& peer,
                      uint16_t& localPort,
                      uint16_t& peerPort) const;
    /** \return connections refused because the table was full */
    uint64_t GetRefusedConnections() const;
    /**
     * \return segments this NIC produced and could not transmit: dropped by its execution
     * model or refused by the full device queue
     */
    uint64_t GetNicTxDrops() const;
    /** \return host CPU cycles spent by the control plane */
    uint64_t GetControlPlaneCycles() const;
    /**
     * \return the host CPU work this NIC caused so far; a design that runs part of its work
     * on host cores adds it (CoraNetDevice: programCycles)
     */
    virtual OffloadHostWork GetHostWork() const;
    /**
     * \brief The design's own congestion control, as its paper runs it: what --cc=native
     * selects in the experiments. The default is window-based DCTCP.
     * \return a --cc name (dctcp, dctcp-rate, dctcp-rate-tas, newreno)
     */
    virtual std::string GetNativeCongestion() const;

    /**
     * \brief Check the configuration and build the parts chosen by TypeId (the congestion
     * control); done by DoInitialize at the latest. Throws PrestoInputError naming the
     * attribute when it is invalid.
     */
    void Setup();

    /** \return the congestion control every connection of this NIC uses (after Setup) */
    Ptr<const OffloadCongestionControl> GetCongestionControl() const;

    /**
     * TracedCallback signature for data-path decisions on received data segments.
     * \param conn connection slot
     * \param verdict ReassemblyTracker::Verdict as an integer
     * \param seq segment sequence number
     * \param len payload length
     */
    typedef void (*SegmentTracedCallback)(uint32_t conn,
                                          uint32_t verdict,
                                          uint32_t seq,
                                          uint32_t len);
    /**
     * TracedCallback signature for connection events.
     * \param conn connection slot
     */
    typedef void (*ConnectionTracedCallback)(uint32_t conn);

    /**
     * TracedCallback signature for segments the NIC dropped.
     * \param conn connection slot
     * \param seq sequence number of the segment
     * \param len payload length
     * \param reason why
     */
    typedef void (*DropTracedCallback)(uint32_t conn,
                                       uint32_t seq,
                                       uint32_t len,
                                       OffloadDropReason reason);

    /**
     * TracedCallback signature for the frames of offloaded connections at the NIC's wire
     * side: what Ipv4L3Protocol's SendOutgoing and LocalDeliver are for the host stack's
     * frames (those never pass Ipv4L3Protocol here). FlowMonitor's probe for offload NICs
     * (OffloadFlowMonitorHelper) listens to them.
     * \param frame the IPv4 datagram (its bytes may be a placeholder: headers as fields)
     * \param src IPv4 source address
     * \param dst IPv4 destination address
     * \param srcPort TCP source port
     * \param dstPort TCP destination port
     */
    typedef void (*WireTracedCallback)(Ptr<const Packet> frame,
                                       Ipv4Address src,
                                       Ipv4Address dst,
                                       uint16_t srcPort,
                                       uint16_t dstPort);

  protected:
    void DoInitialize() override;

    /**
     * \brief Execution model: check and build its own parts (called once by Setup, after the
     * shared ones). Throws PrestoInputError for an invalid configuration.
     */
    virtual void SetupModel();

    /** Release connections and sockets (at Simulator::Destroy). */
    virtual void Cleanup();

    // The two decisions every design makes are pure: a design that decided neither would
    // compile and run silently as "full reassembly, zero latency" (issue 37).

    /**
     * \brief Execution model, must decide: data-path configuration of a new connection (a
     * design that keeps the defaults says so by leaving cfg as it is).
     * \param cfg filled with the device defaults; adjust (fidelity, congestion control, ...)
     * \param peer remote address \param localPort local port \param peerPort remote port
     * \param activeOpen true if this host opened the connection (it is the client)
     */
    virtual void ConfigureConnection(OffloadTcpConfig& cfg,
                                     Ipv4Address peer,
                                     uint16_t localPort,
                                     uint16_t peerPort,
                                     bool activeOpen) = 0;

    /**
     * \brief Execution model: the NIC processed one received segment of a connection; how long
     * until its results (ACK, DMA) leave the NIC.
     * \param conn slot \param seg the segment \param decision what the data path decided
     * \return processing latency
     */
    virtual Time ProcessReceived(uint32_t conn,
                                 const OffloadSegment& seg,
                                 const OffloadRxDecision& decision);

    /**
     * \brief Execution model, must decide: the NIC produces one segment to transmit; how long
     * it takes (a design without transmit latency returns 0).
     * \param conn slot \param seg the segment
     * \param drop set to true if the NIC drops the segment (the data path repairs the loss)
     * \return processing latency before the segment reaches the wire queue
     */
    virtual Time ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop) = 0;

    /**
     * \brief Execution model: may the NIC take this received segment of an established
     * connection? Called before the data path sees it (a full NIC queue drops it there).
     * \param conn slot \param seg the segment
     * \param latency set to the NIC time spent before the data path's decision
     * \return false to drop the segment (counted as nic_drops)
     */
    virtual bool AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency);

    /**
     * \brief Execution model: a connection's data path was created (handshake done).
     * \param conn slot \param tcp its data path
     */
    virtual void OnEstablished(uint32_t conn, const OffloadTcpConnection& tcp);

    /**
     * \brief Execution model: the application read bytes (the receive window opens).
     * \param conn slot \param bytes bytes read
     */
    virtual void OnApplicationRead(uint32_t conn, uint32_t bytes);

    /**
     * \brief Execution model: the application posted bytes to send or closed (the host's
     * doorbell), before the device looks for segments to send.
     * \param conn slot
     */
    virtual void OnApplicationPosted(uint32_t conn);

    /**
     * \brief Execution model: an established connection is being released (closed, reset or
     * timed out); its slot and endpoints are still valid during the call.
     * \param conn slot
     */
    virtual void OnConnectionClosed(uint32_t conn);

    /**
     * \brief Execution model: whether this run of the timer scan (every TimerScanPeriod while
     * a connection has something in flight) examines the connections' retransmission and
     * persist timers. A design whose timers are found by a slower mechanism answers false in
     * between (Presto: scan packets walking the connection array).
     * \param nowNs the time, ns
     * \return true (the default): every run does
     */
    virtual bool TimersDue(uint64_t nowNs);

    /**
     * \brief Execution model: whether a new connection may take a slot of state arrays the
     * design shares beyond this device (Presto on a rack switch: the rack's arrays), called
     * before the device's own table is consulted; a refusal counts as a full table.
     * \return true (the default): only the device's own MaxConnections bounds it
     */
    virtual bool ReserveConnectionSlot();

    /** \brief Execution model: a slot ReserveConnectionSlot granted is given back. */
    virtual void ReleaseConnectionSlot();

    /**
     * \brief Execution model: the timer scan examined a connection's timers (after
     * OffloadTcpConnection::OnTimerScan; the default does nothing).
     * \param conn slot
     * \param tcp its data path
     * \param decision what the scan decided
     * \param nowNs the time, ns
     */
    virtual void OnTimersExamined(uint32_t conn,
                                  const OffloadTcpConnection& tcp,
                                  const OffloadTimerDecision& decision,
                                  uint64_t nowNs);

    /** \param conn slot \return the connection's data path (must be established) */
    const OffloadTcpConnection& GetConnection(uint32_t conn) const;

  private:
    /// The two directions of the host interface (PCIe is full duplex).
    enum DmaDirection : uint8_t
    {
        DMA_RX = 0, //!< NIC -> host memory: received payload
        DMA_TX = 1, //!< host memory -> NIC: payload to send
    };

    /**
     * \brief DmaChannels > 0: queue a transfer of a connection in its channel of one
     * direction after a delay (the NIC's processing); done(alive) runs when it is in place,
     * alive false when the connection is gone by then. A connection's transfers of one
     * direction enter the channel in the order they were submitted, whatever their delays.
     * \param id connection \param dir direction \param bytes size (0: order only)
     * \param delay until it enters the channel \param done the continuation
     */
    void SubmitDma(uint32_t id,
                   DmaDirection dir,
                   uint32_t bytes,
                   Time delay,
                   std::function<void(bool)> done);
    /**
     * \brief Throw unless an application's channel exists on this NIC.
     * \param channel OffloadSocket::DmaChannel \param where the socket call, for the message
     */
    void CheckDmaChannel(uint32_t channel, const char* where) const;
    /** Build the shared DMA interface (DmaChannels > 0) from the attributes, or refuse them. */
    void SetupDma();
    /**
     * \brief DmaChannels > 0: send a segment through its application's channel (its payload,
     * or its place behind the connection's data), then the NIC's processing, in its order.
     * \param id connection \param seg the segment \param payload its payload, or null
     * \param delay the NIC's processing
     */
    void SendThroughDmaChannel(uint32_t id,
                               const OffloadSegment& seg,
                               const Ptr<Packet>& payload,
                               Time delay);
    /**
     * \brief Send a segment whose payload is at the NIC after delay, behind the connection's
     * earlier segments. \param id connection \param seg the segment \param payload its payload
     * \param clock the current time \param delay the NIC's processing from now
     */
    void SendInOrder(uint32_t id,
                     const OffloadSegment& seg,
                     Ptr<Packet>& payload,
                     Time clock,
                     Time delay);

    /** Wire receive hook (installed as the base device's receive callback). */
    bool FromWire(Ptr<NetDevice> device,
                  Ptr<const Packet> packet,
                  uint16_t protocol,
                  const Address& from);
    /** The fast path's frames, with their fields (the device is its own link sink). */
    void ReceiveFromLink(uint32_t port,
                         const Ptr<Packet>& packet,
                         uint16_t protocol,
                         const Time& now,
                         FabricFrameFields& fields) override;
    /**
     * A well-formed segment addressed to this NIC: to its connection, the TIME-WAIT check or
     * a listener.
     * \param w its headers \param packet the frame
     * \return false if none of them takes it (it goes to the host stack)
     */
    bool TakeSegment(const WireSegment& w, Ptr<const Packet> packet);
    /**
     * A segment for an existing slot.
     * \param id connection \param th its parsed headers
     * \param frame the whole IPv4 packet (the payload is copied out of it only when the
     * connection keeps payload bytes, not per segment)
     */
    void HandleSegment(uint32_t id, const WireSegment& th, Ptr<const Packet> frame);
    /// A segment that does not fit the handshake state: counted and traced, then dropped.
    void HandshakeDrop(uint32_t id, const WireSegment& th);
    /// An acceptable RST before the connection is established: the connection is refused.
    void HandshakeReset(uint32_t id);
    /**
     * \brief The handshake completed (the control plane's ESTABLISHED verdict): create the
     * data path and tell the application.
     * \param id connection \param rx the control plane's decision
     * \return true if the segment also carries data or FIN for the data path
     */
    bool CompleteHandshake(uint32_t id, const OffloadHandshakeRx& rx);
    /** A SYN for a listening port. */
    void PassiveOpen(Ipv4Address peer, const WireSegment& th, Ptr<OffloadSocket> listener);
    /**
     * Hand a frame no connection takes to the host stack, or drop and count it when the NIC
     * has none (\p packet's bytes must be materialised).
     * \param packet the frame \param protocol its EtherType
     * \return false if dropped
     */
    bool ToHostStack(Ptr<const Packet> packet, uint16_t protocol);
    /** Allocate a connection table entry. \return its id or NO_CONNECTION (refused, counted) */
    uint32_t AllocateConnection();
    /** Release a connection (teardown). */
    void FreeConnection(uint32_t id);
    /** Create the data path of an established connection. */
    void Establish(uint32_t id, uint32_t peerWindowBytes);
    /**
     * Send the SYN or SYN-ACK of a connection (and arm its retransmission).
     * \param id connection \param generation the connection's generation when scheduled: an event
     * of a connection that is gone does nothing
     */
    void SendHandshake(uint32_t id, uint32_t generation);
    /**
     * Apply a data-path decision for a received segment.
     * \param id connection \param d the decision \param frame the received IPv4 packet
     * \param payloadOffset where its payload starts \param seg the segment
     * \param latency the NIC's processing time
     */
    void ApplyDecision(uint32_t id,
                       const OffloadRxDecision& d,
                       Ptr<const Packet> frame,
                       uint32_t payloadOffset,
                       const OffloadSegment& seg,
                       Time latency);
    /**
     * In-order data is in host memory: the host hears of it (on a host core when the node's
     * HostCpu is timed: the notification and the copy are served first), DeliverReadable.
     */
    void MakeReadable(uint32_t id, uint32_t bytes, bool peerClosed, uint32_t generation);
    /** The application hears of in-order data (or the FIN): it becomes readable. */
    void DeliverReadable(uint32_t id, uint32_t bytes, bool peerClosed, uint32_t generation);

    // The host side on the host's cores (offload-host-cpu.cc)
    /**
     * \return the node's HostCpu if it is timed (host work then takes simulated time on its
     * cores), else null: the host side then costs no simulated time beyond the fixed
     * control-plane delay, as in the accounting-only model
     */
    HostCpu* TimedHostCpu();
    /**
     * \brief A control-plane event of connection `id` on the host: with a timed HostCpu it is
     * served on a core (HostCpu::ControlPlaneEventCycles); otherwise it takes
     * ControlPlaneCycles at HostClock.
     * \param id connection
     * \return the delay until it is done
     */
    Time ControlPlaneDelay(uint32_t id);
    /**
     * \brief A timed HostCpu: an application's write of n bytes is copied into the send
     * buffer and posted by a host core before the NIC may send it (HOST_POSTED).
     * \param id connection \param n bytes accepted
     */
    void QueueHostWrite(uint32_t id, uint32_t n);
    /** HOST_POSTED: the bytes reach the data path. \param id connection \param n bytes */
    void PostWrite(uint32_t id, uint32_t n);
    /** HOST_CLOSE: the application's close reaches the data path. \param id connection */
    void PostClose(uint32_t id);
    /** The host control loop ran for a connection: its cycles on a timed HostCpu. */
    void ChargeControlLoop(uint32_t id);
    /// Write and WriteBytes: the bytes come from p, or are zeros when p is null
    uint32_t WriteFrom(uint32_t id, uint32_t bytes, const Packet* p);
    /// Read and ReadBytes after the copy: n readable bytes consumed, the window reopened
    void Consume(uint32_t id, uint32_t n);
    /** Queue a connection for transmission and pump. */
    void QueueForTransmit(uint32_t id);
    /** Emit segments while the wire queue has room. */
    void PumpTx();
    /**
     * On a fast link, schedule RefillWireQueue at the next frame departure when segments wait for
     * room in the wire queue (PointToPointNetDevice's path: TxDone at PhyTxEnd does it).
     */
    void ArmRefill();
    /** PhyTxEnd sink: room in the wire queue; refills it once the device is done. */
    void TxDone(Ptr<const Packet>);
    /** Fill the wire queue from the backlog and the ready connections. */
    void RefillWireQueue();
    /**
     * Build and send one data-path segment of a connection.
     * \param id connection \param seg the segment
     * \param payload its payload, or null; it gets the headers itself when this is its only
     * reference (see MovePacket), a copy otherwise
     */
    void SendSegment(uint32_t id, const OffloadSegment& seg, Ptr<Packet> payload);
    /**
     * Hand a packet on and leave its holder empty: ns-3's Ptr has no move, so a holder that
     * is done with the packet (a finished event, the transmit loop's local) lets go this way
     * and SendSegment can write the headers into it instead of copying it.
     * \param holder the holder, null afterwards \return what it held
     */
    static Ptr<Packet> MovePacket(Ptr<Packet>& holder);

    /**
     * Run one of m_events (EventPool's handler): the dispatch of the device's frequent events.
     * \param e the event
     */
    void RunDeviceEvent(OffloadDeviceEvent& e);

    /**
     * Schedule one of the device's frequent events, as Simulator::Schedule would.
     * \param delay from now \param e the event
     */
    void ScheduleDeviceEvent(const Time& delay, OffloadDeviceEvent&& e)
    {
        m_events.Schedule(FastSimulator::GetContext(), delay, std::move(e));
    }

    /** Build and send a control-plane segment (SYN, SYN-ACK, TIME-WAIT ACK) of slot id. */
    void SendControl(uint32_t id, Ipv4Address peer, const OffloadControlSegment& seg);
    /**
     * Put the IPv4 and TCP headers in front of a segment's payload and hand it to the wire:
     * one OffloadWireHeader, or ns-3's own headers while packet metadata is on (the same bytes).
     * \param p the payload, or null for none (the packet is then made from the header bytes)
     * \param w the header fields; the addresses and the IPv4 identification are filled here
     * \param peer the destination, Ipv4Address::Get() (which is not inline: the per-segment
     * path keeps the bits)
     * \param id the connection (for the drop trace), or NO_CONNECTION
     */
    void SendIpv4(Ptr<Packet> p, WireSegmentOut& w, uint32_t peer, uint32_t id);
    /**
     * Hand a packet to the wire; it waits in the backlog while the device queue is full.
     * \param p the packet (IPv4 header first) \param id the connection (for the drop trace)
     * \param w its header fields (for the traces)
     * \param fields its IPv4 header's fields, for the switches (FabricLinkNetDevice::SendAt)
     */
    void ToWire(Ptr<Packet> p, uint32_t id, const WireSegmentOut& w, FabricFrameFields fields);

    /**
     * Fire one of the wire-side frame traces, if anything is connected to it (the addresses
     * and the Ptr<const Packet> are made only then: nothing per frame otherwise).
     * \param trace WireTx, WireRx or WireTxDrop \param frame the frame
     * \param src source address bits \param dst destination address bits
     * \param srcPort source port \param dstPort destination port
     */
    template <class P>
    static void TraceWire(
        const TracedCallback<Ptr<const Packet>, Ipv4Address, Ipv4Address, uint16_t, uint16_t>&
            trace,
        const P& frame,
        uint32_t src,
        uint32_t dst,
        uint16_t srcPort,
        uint16_t dstPort)
    {
        if (!trace.IsEmpty())
        {
            trace(frame, Ipv4Address(src), Ipv4Address(dst), srcPort, dstPort);
        }
    }

    /** \return true if the device queue can take p now */
    bool QueueHasRoom(Ptr<const Packet> p);
    /** Move waiting segments into the device queue while it has room. */
    void DrainBacklog();
    /** Periodic timer scan. */
    void TimerScan();
    /** Put a connection on the timer scan's list (and start the scan if it is not running). */
    void AddTimed(uint32_t id);
    /** Teardown if both directions are done. */
    void MaybeFinish(uint32_t id);
    /** \return GetLocalAddress().Get(), kept (Ipv4Address::Get is not inline) */
    uint32_t LocalAddressBits() const;
    /** \return the connection table's key of a 4-tuple */
    static uint64_t ConnectionKey(Ipv4Address peer, uint16_t peerPort, uint16_t localPort);
    /** \return the control plane, configured from the current attributes */
    OffloadControlPlane& ControlPlane();

    static constexpr uint32_t NO_CONNECTION = OffloadConnectionTable::NONE; //!< no connection
    /// Bytes a segment takes in the device queue besides its payload: PPP 2, IPv4 20, TCP 20
    /// (no options on data segments).
    static constexpr uint32_t WIRE_HEADER_BYTES = 42;

    /// GetTypeId's attributes and trace sources, in groups (offload-net-device-attributes.cc)
    static void AddTableAndDmaAttributes(TypeId& tid);
    static void AddHostAndTransmitAttributes(TypeId& tid); //!< \copydoc AddTableAndDmaAttributes
    static void AddDataPathAttributes(TypeId& tid);        //!< \copydoc AddTableAndDmaAttributes
    static void AddTraceSources(TypeId& tid);              //!< \copydoc AddTableAndDmaAttributes

    // attributes
    uint32_t m_maxConnections;                        //!< connection table size
    Time m_timerScanPeriod;                           //!< timer scan period
    Time m_dmaLatency;                                //!< per-transfer DMA latency
    double m_dmaBandwidthBps;                         //!< DMA bandwidth, bit/s
    uint32_t m_dmaChannels{0};                        //!< DmaChannels (0: a channel per connection)
    DmaArbitration m_dmaArbitration{DMA_ROUND_ROBIN}; //!< DmaArbitration
    std::string m_dmaWeights;                         //!< DmaWeights
    static constexpr uint32_t DEFAULT_DMA_QUANTUM = 4096; //!< DmaQuantum's default, bytes
    uint32_t m_dmaQuantum{DEFAULT_DMA_QUANTUM};           //!< DmaQuantum, bytes
    /// DmaChannels > 0: the host interface, one engine per direction (null: a channel per
    /// connection)
    std::array<std::unique_ptr<OffloadDmaInterface>, 2> m_dma;
    /// DmaChannels > 0: wire bytes per channel inside the NIC (fetching, in the execution
    /// model), not yet in the device queue
    std::vector<uint64_t> m_dmaTxBytes;
    /// DmaChannels > 0: each channel's weight in the NIC's commit bound
    std::vector<uint32_t> m_dmaTxWeight;
    uint64_t m_dmaTxBusyWeight{0}; //!< the weights of the channels with bytes in the NIC
    /**
     * \param channel a channel \return whether it holds its share of the NIC's commit
     * bound: its weight's part among the channels with bytes in the NIC, itself included
     */
    bool DmaChannelFull(uint32_t channel) const;
    Time m_synTimeout;             //!< handshake retransmission timeout
    uint32_t m_synRetries;         //!< handshake transmissions before giving up
    uint64_t m_controlCycles;      //!< host cycles per control-plane event
    double m_hostClockHz;          //!< host core clock, Hz
    Ptr<HostCpu> m_hostCpu;        //!< the node's HostCpu, when timed
    bool m_hostCpuResolved{false}; //!< m_hostCpu looked up
    HostCpuCosts m_hostCosts;      //!< its cost table
    Time m_txQueueTime;            //!< wire time committed towards the wire, at most
    uint64_t m_txQueueBytes{1500}; //!< the same in bytes at the line rate (Setup)
    uint32_t m_txQueuePackets;     //!< segments committed towards the wire, at most
    uint32_t m_txPipelineDepth;    //!< segments in flight inside the NIC
    Time m_minRto;                 //!< data-path minimum RTO
    Time m_challengeAckInterval;   //!< least time between challenge ACKs (RFC 5961)
    bool m_sack{true};             //!< offer and grant SACK-permitted
    bool m_carryPayload{true};     //!< attribute CarryPayload
    /// Send destination: a point-to-point link ignores it; built once, not per segment
    /// (GetBroadcast parses "ff:ff:ff:ff:ff:ff" on every call)
    const Address m_wireDest{Mac48Address::GetBroadcast()};
    uint32_t m_rxBufferMultiple{2};  //!< host receive memory in multiples of RcvBufSize
    TypeId m_congestionType;         //!< congestion control (an OffloadCongestionControl)
    uint64_t m_lineRateBytesPerS{0}; //!< the DataRate attribute, bytes/s (set by Setup)
    Time m_timeWait;                 //!< how long a torn-down connection's 4-tuple is remembered

    Ptr<OffloadCongestionControl> m_congestion; //!< built from m_congestionType
    NetDevice::ReceiveCallback m_hostRx;        //!< to the host stack
    mutable Ipv4Address m_local;                //!< cached host address
    mutable uint32_t m_localBits{0};            //!< m_local.Get(), once m_local is known
    OffloadConnectionTable m_connections;       //!< the connection table, its lookup and lists
    std::map<uint16_t, Ptr<OffloadSocket>> m_listeners; //!< port -> listener
    OffloadControlPlane m_cp;                           //!< ports, handshake, TIME-WAIT
    OffloadTxScheduler m_txScheduler; //!< which connection sends next, and whether it may
    /// segments waiting for room in the device queue, with their header fields
    std::deque<std::pair<Ptr<Packet>, FabricFrameFields>> m_txBacklog;
    uint32_t m_txBacklogPackets; //!< attribute TxBacklogPackets
    EventId m_scanEvent;         //!< next timer scan
    /// the frequent events (ACK after latency, leaving the NIC, readable, refill), reused
    EventPool<OffloadNetDevice, OffloadDeviceEvent, &OffloadNetDevice::RunDeviceEvent> m_events{
        this};
    /// Whether m_scanEvent / the refill is still to run, kept here because
    /// EventId::IsPending asks the simulator (about 280 instructions in Debian's ns-3) and the
    /// transmit path asked once per segment. Set where the event is scheduled, cleared first
    /// thing in its handler, and by Cleanup. The refill (one of m_events) is never cancelled:
    /// Cleanup runs only at Simulator::Destroy, after which no event runs.
    bool m_scanPending{false};
    bool m_refillPending{false}; //!< see m_scanPending (the refill is one of m_events)
    uint16_t m_ipId{0};          //!< IPv4 identification
    uint32_t m_pathLabels{0};    //!< PathLabels (0: no sender-side spraying)
    uint32_t m_pathCellBytes{0}; //!< PathCellBytes
    /// Node::ChecksumEnabled, read at construction and Setup (a global-value lookup costs
    /// about 350 instructions, and it was read twice per segment sent)
    bool m_checksums{false};
    bool m_lazyHeaders{true}; //!< attribute HeadersAsFields
    /// PacketMetadataEnabled, probed at the first segment sent (not earlier: a probe packet
    /// made before the user enables printing would make ns-3 refuse to enable it)
    bool m_metadata{false};
    bool m_metadataKnown{false};      //!< m_metadata has been probed
    OffloadNicCounters m_counters;    //!< the NIC's own counters
    std::vector<uint8_t> m_rxScratch; //!< received frame bytes for the parser
    int8_t m_hostIp{-1}; //!< whether the node has an IPv4 stack: 1, 0, -1 not looked up yet

    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_segmentTrace;       //!< rx decisions
    TracedCallback<uint32_t> m_establishedTrace;                                 //!< handshake done
    TracedCallback<uint32_t> m_closedTrace;                                      //!< torn down
    TracedCallback<uint32_t> m_refusedTrace;                                     //!< table full
    TracedCallback<uint32_t, uint32_t, uint32_t, OffloadDropReason> m_dropTrace; //!< drops
    /// the wire-side frame traces (WireTx, WireRx, WireTxDrop); fired only when connected
    TracedCallback<Ptr<const Packet>, Ipv4Address, Ipv4Address, uint16_t, uint16_t> m_wireTxTrace,
        m_wireRxTrace, m_wireTxDropTrace;
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_NET_DEVICE_H
