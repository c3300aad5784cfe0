/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-net-device.h"

#include "offload-socket.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fast-simulator.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <functional>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadNetDevice");
NS_OBJECT_ENSURE_REGISTERED(OffloadNetDevice);

const char*
OffloadDropReasonName(OffloadDropReason r)
{
    switch (r)
    {
    case OffloadDropReason::NIC_RX:
        return "nic_rx";
    case OffloadDropReason::NIC_TX:
        return "nic_tx";
    case OffloadDropReason::WIRE_QUEUE:
        return "wire_queue";
    case OffloadDropReason::MALFORMED:
        return "malformed";
    case OffloadDropReason::UNACCEPTABLE:
        return "unacceptable";
    case OffloadDropReason::HANDSHAKE:
        return "handshake";
    case OffloadDropReason::NO_HOST_STACK:
        return "no_host_stack";
    }
    return "unknown";
}

namespace
{
constexpr uint16_t IPV4 = 0x0800;
/// Bytes a segment takes in the device queue besides its payload: PPP 2, IPv4 20, TCP 20
/// (no options on data segments).
constexpr uint32_t WIRE_HEADER_BYTES = 42;
/// Bytes of a received frame the parser needs without checksums: the longest IPv4 header
/// (60) and the longest TCP header (60).
constexpr uint32_t HEADER_BYTES = 120;

} // namespace

TypeId
OffloadNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OffloadNetDevice")
            .SetParent<FabricLinkNetDevice>()
            .SetGroupName("Presto")
            .AddConstructor<OffloadNetDevice>()
            .AddAttribute("MaxConnections",
                          "Connection table size (fixed state arrays), connections; one more "
                          "is refused and counted",
                          UintegerValue(32768),
                          MakeUintegerAccessor(&OffloadNetDevice::m_maxConnections),
                          MakeUintegerChecker<uint32_t>(1, 1u << 22))
            .AddAttribute("TimerScanPeriod",
                          "Period of the timer scan that finds expired retransmission timeouts",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&OffloadNetDevice::m_timerScanPeriod),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("DmaLatency",
                          "Latency of one DMA transfer between NIC and host memory (PCIe or "
                          "RDMA queue pair)",
                          TimeValue(NanoSeconds(1000)),
                          MakeTimeAccessor(&OffloadNetDevice::m_dmaLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("DmaBandwidth",
                          "Bandwidth of a connection's DMA channel (DmaChannels=0), or of the "
                          "host interface the DMA channels share (DmaChannels > 0), bit/s",
                          DoubleValue(100e9),
                          MakeDoubleAccessor(&OffloadNetDevice::m_dmaBandwidthBps),
                          MakeDoubleChecker<double>(1e6))
            .AddAttribute("DmaChannels",
                          "DMA channels sharing the NIC's host interface, one per application "
                          "(OffloadSocket::DmaChannel; RDMA queue pairs): transfers of one "
                          "channel are served in order, channels by DmaArbitration, one "
                          "transfer at a time at DmaBandwidth. 0: every connection has a "
                          "channel of its own at DmaBandwidth and nothing is shared",
                          UintegerValue(0),
                          MakeUintegerAccessor(&OffloadNetDevice::m_dmaChannels),
                          MakeUintegerChecker<uint32_t>(0, 4096))
            .AddAttribute(
                "DmaArbitration",
                "How DMA channels share the host interface (DmaChannels > 0): "
                "RoundRobin (one transfer per waiting channel per turn) or Weighted "
                "(deficit round robin by DmaWeights)",
                EnumValue(OffloadNetDevice::DMA_ROUND_ROBIN),
                compat::MakeEnumAccessor<DmaArbitration>(&OffloadNetDevice::m_dmaArbitration),
                MakeEnumChecker(OffloadNetDevice::DMA_ROUND_ROBIN,
                                "RoundRobin",
                                OffloadNetDevice::DMA_WEIGHTED,
                                "Weighted"))
            .AddAttribute("DmaWeights",
                          "Weighted arbitration: one integer weight >= 1 per DMA channel, "
                          "\"w0,w1,...\" (\"\": all 1); channel i gets w_i / (sum of the "
                          "waiting channels' weights) of the interface",
                          StringValue(""),
                          MakeStringAccessor(&OffloadNetDevice::m_dmaWeights),
                          MakeStringChecker())
            .AddAttribute("DmaQuantum",
                          "Weighted arbitration: bytes a channel may send per weight per turn "
                          "(assumed: 4 KB, a page), bytes",
                          UintegerValue(DEFAULT_DMA_QUANTUM),
                          MakeUintegerAccessor(&OffloadNetDevice::m_dmaQuantum),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("SynTimeout",
                          "Handshake retransmission timeout of the host control plane",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&OffloadNetDevice::m_synTimeout),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("SynRetries",
                          "SYN or SYN-ACK transmissions before the control plane gives up",
                          UintegerValue(6),
                          MakeUintegerAccessor(&OffloadNetDevice::m_synRetries),
                          MakeUintegerChecker<uint32_t>(1, 100))
            .AddAttribute("ControlPlaneCycles",
                          "Host CPU cycles per control-plane event (handshake step, teardown), "
                          "cycles",
                          UintegerValue(5000),
                          MakeUintegerAccessor(&OffloadNetDevice::m_controlCycles),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("HostClock",
                          "Host core clock, Hz (turns control-plane cycles into time)",
                          DoubleValue(2.5e9),
                          MakeDoubleAccessor(&OffloadNetDevice::m_hostClockHz),
                          MakeDoubleChecker<double>(1e6))
            .AddAttribute("TxQueueTime",
                          "Wire time the NIC keeps committed towards the wire, in flight "
                          "inside it or in the device queue, at the device's DataRate: it "
                          "produces the next segment when less is committed. Must cover the "
                          "NIC's per-segment latency; bounds the wire queue's delay",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&OffloadNetDevice::m_txQueueTime),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("TxQueuePackets",
                          "Segments the NIC keeps committed towards the wire, in flight inside "
                          "it or in the device queue, at most (small segments: the wire time "
                          "alone would commit many); must fit the device queue (checked at "
                          "initialisation), packets",
                          UintegerValue(64),
                          MakeUintegerAccessor(&OffloadNetDevice::m_txQueuePackets),
                          MakeUintegerChecker<uint32_t>(1, 10000))
            .AddAttribute("TxBacklogPackets",
                          "Segments that may wait in the NIC for room in a full device queue "
                          "(ACKs, handshakes sent beside the data); beyond, a segment is "
                          "dropped and counted, packets",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&OffloadNetDevice::m_txBacklogPackets),
                          MakeUintegerChecker<uint32_t>(0, 100000000))
            .AddAttribute("TxPipelineDepth",
                          "Segments the NIC may have in flight inside it (payload DMA, "
                          "pipeline) before they reach the wire queue, packets",
                          UintegerValue(64),
                          MakeUintegerAccessor(&OffloadNetDevice::m_txPipelineDepth),
                          MakeUintegerChecker<uint32_t>(1, 100000))
            .AddAttribute("MinRto",
                          "Minimum retransmission timeout of the data path",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&OffloadNetDevice::m_minRto),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("Sack",
                          "Offer and grant SACK-permitted (RFC 2018): ACKs then carry the "
                          "out-of-order intervals the NIC holds as SACK blocks, and ns-3's TCP "
                          "senders use their SACK scoreboard instead of guessing from "
                          "duplicate ACKs. The NIC's own sender ignores SACK blocks "
                          "(go-back-N)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&OffloadNetDevice::m_sack),
                          MakeBooleanChecker())
            .AddAttribute("CarryPayload",
                          "Carry the payload bytes through the NIC (host send and receive rings, "
                          "DMA'd bytes on the wire). False: segments carry zero-filled virtual "
                          "payload of the right size and no per-connection ring is kept; "
                          "timing, DMA and every TCP decision are the same. presto-spray sets "
                          "it from --verifyPayload",
                          BooleanValue(true),
                          MakeBooleanAccessor(&OffloadNetDevice::m_carryPayload),
                          MakeBooleanChecker())
            .AddAttribute("HeadersAsFields",
                          "With virtual payload (CarryPayload false), checksums and packet "
                          "metadata off, on a fast link: a segment's IPv4/TCP headers travel "
                          "beside the frame as fields to the receiving NIC, and the frame "
                          "holds a zero placeholder of their length, written with the real "
                          "header bytes the moment anything reads them (a pcap or packet "
                          "trace, an error model, a switch policy that hashes the header, a "
                          "host stack, a point-to-point link). False: the bytes are written "
                          "at every send and parsed at every receive",
                          BooleanValue(true),
                          MakeBooleanAccessor(&OffloadNetDevice::m_lazyHeaders),
                          MakeBooleanChecker())
            .AddAttribute("RxBufferMultiple",
                          "Host receive memory per connection in multiples of the socket's "
                          "RcvBufSize; the window announced is at most RcvBufSize. With 2 (as "
                          "Linux doubles SO_RCVBUF), data DMA'd but not yet read does not "
                          "shrink the window, and a peer whose send buffer is no larger than "
                          "our RcvBufSize is never limited by our window (see the doc: ns-3 "
                          "issue #991)",
                          UintegerValue(2),
                          MakeUintegerAccessor(&OffloadNetDevice::m_rxBufferMultiple),
                          MakeUintegerChecker<uint32_t>(1, 16))
            .AddAttribute("ChallengeAckInterval",
                          "Least time between two challenge ACKs of one connection (RFC "
                          "5961 section 7): answers to blind RSTs, SYNs and bogus ACKs "
                          "beyond this rate are counted and dropped",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&OffloadNetDevice::m_challengeAckInterval),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("CongestionControl",
                          "Congestion control of every connection: a subclass of "
                          "ns3::OffloadCongestionControl (ns3::OffloadDctcpCongestion, "
                          "ns3::OffloadNewRenoCongestion, ns3::OffloadDctcpRateCongestion, "
                          "ns3::OffloadTasDctcpRateCongestion); its parameters are its own "
                          "attributes",
                          TypeIdValue(OffloadDctcpCongestion::GetTypeId()),
                          MakeTypeIdAccessor(&OffloadNetDevice::m_congestionType),
                          MakeTypeIdChecker())
            .AddAttribute("PathLabels",
                          "Paths the sender spreads each connection over (sender-side "
                          "spraying): every segment's IPv4 identification carries a path "
                          "label, the label of the cell of PathCellBytes bytes of the stream it "
                          "belongs to, (connection slot + cell) modulo PathLabels; switches "
                          "with LoadBalancing=Label route by it. 0: the identification counts "
                          "up per packet, no path label",
                          UintegerValue(0),
                          MakeUintegerAccessor(&OffloadNetDevice::m_pathLabels),
                          MakeUintegerChecker<uint32_t>(0, 65535))
            .AddAttribute("PathCellBytes",
                          "Bytes of a connection's stream sent on one path before the next "
                          "(PathLabels > 0), bytes (assumed: 64 KB, the flowcell size of "
                          "edge-based load balancing)",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&OffloadNetDevice::m_pathCellBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("TimeWait",
                          "How long the NIC remembers a torn-down connection (TCP's TIME-WAIT, "
                          "2 MSL, shortened to data-center time scales): its late segments are "
                          "absorbed and a re-sent FIN is ACKed again, instead of reaching the "
                          "host stack, which would answer with RST",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&OffloadNetDevice::m_timeWait),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Segment",
                            "Data-path decision for a received segment with payload",
                            MakeTraceSourceAccessor(&OffloadNetDevice::m_segmentTrace),
                            "ns3::OffloadNetDevice::SegmentTracedCallback")
            .AddTraceSource("Established",
                            "A connection completed its handshake",
                            MakeTraceSourceAccessor(&OffloadNetDevice::m_establishedTrace),
                            "ns3::OffloadNetDevice::ConnectionTracedCallback")
            .AddTraceSource("Closed",
                            "A connection was torn down",
                            MakeTraceSourceAccessor(&OffloadNetDevice::m_closedTrace),
                            "ns3::OffloadNetDevice::ConnectionTracedCallback")
            .AddTraceSource("Drop",
                            "A segment the NIC dropped: refused on receive or dropped on "
                            "transmit by the execution model, refused by the full device "
                            "queue (where MacTxDrop fires as well), malformed, unacceptable, "
                            "or a frame for the host on a NIC without a host stack",
                            MakeTraceSourceAccessor(&OffloadNetDevice::m_dropTrace),
                            "ns3::OffloadNetDevice::DropTracedCallback")
            .AddTraceSource("Refused",
                            "A connection was refused: the connection table is full",
                            MakeTraceSourceAccessor(&OffloadNetDevice::m_refusedTrace),
                            "ns3::OffloadNetDevice::ConnectionTracedCallback")
            .AddTraceSource("WireTx",
                            "A frame of an offloaded connection (or the NIC's control plane) "
                            "handed to the wire side, before the device queue: the NIC's "
                            "counterpart of Ipv4L3Protocol's SendOutgoing",
                            MakeTraceSourceAccessor(&OffloadNetDevice::m_wireTxTrace),
                            "ns3::OffloadNetDevice::WireTracedCallback")
            .AddTraceSource("WireRx",
                            "A frame from the wire taken by an offloaded connection, a "
                            "listener or TIME-WAIT (not passed to the host stack): the NIC's "
                            "counterpart of Ipv4L3Protocol's LocalDeliver",
                            MakeTraceSourceAccessor(&OffloadNetDevice::m_wireRxTrace),
                            "ns3::OffloadNetDevice::WireTracedCallback")
            .AddTraceSource("WireTxDrop",
                            "A frame WireTx reported that the full device queue and transmit "
                            "backlog refused (also in Drop, as WIRE_QUEUE)",
                            MakeTraceSourceAccessor(&OffloadNetDevice::m_wireTxDropTrace),
                            "ns3::OffloadNetDevice::WireTracedCallback");
    return tid;
}

OffloadNetDevice::OffloadNetDevice()
    : m_checksums(Node::ChecksumEnabled())
{
    NS_LOG_FUNCTION(this);
    // PointToPointNetDevice::DoDispose is private, so this device cannot extend it: release
    // the connection table (it holds sockets, which hold this device) when the simulator ends
    // (the event holds a reference: nodes and their devices are disposed by an earlier
    // destroy event, and this one must still find the object)
    Simulator::ScheduleDestroy(&OffloadNetDevice::Cleanup, Ptr<OffloadNetDevice>(this));
}

OffloadNetDevice::~OffloadNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
OffloadNetDevice::DoInitialize()
{
    Setup();
    FabricLinkNetDevice::DoInitialize();
}

void
OffloadNetDevice::Setup()
{
    if (m_congestion)
    {
        return;
    }
    m_checksums = Node::ChecksumEnabled();
    const std::string where = GetInstanceTypeId().GetName() + "::CongestionControl";
    if (!m_congestionType.IsChildOf(OffloadCongestionControl::GetTypeId()))
    {
        throw PrestoInputError(where + "=" + m_congestionType.GetName() +
                               " is not a subclass of ns3::OffloadCongestionControl; valid: "
                               "ns3::OffloadDctcpCongestion, ns3::OffloadNewRenoCongestion, "
                               "ns3::OffloadDctcpRateCongestion, "
                               "ns3::OffloadTasDctcpRateCongestion");
    }
    // the TcpSocket attributes the NIC does not honour, as Config::SetDefault left them
    CreateObject<OffloadSocket>()->CheckAttributes("ns3::OffloadSocket");
    ObjectFactory factory(m_congestionType.GetName());
    Ptr<OffloadCongestionControl> cc = factory.Create<OffloadCongestionControl>();
    cc->Validate(where);
    // The NIC must be able to keep TxQueuePackets segments in its device queue.
    Ptr<Queue<Packet>> queue = GetQueue();
    if (queue && queue->GetMaxSize().GetUnit() == QueueSizeUnit::PACKETS &&
        queue->GetMaxSize().GetValue() < m_txQueuePackets)
    {
        throw PrestoInputError(
            GetInstanceTypeId().GetName() + "::TxQueuePackets=" + std::to_string(m_txQueuePackets) +
            " exceeds the device queue of " + std::to_string(queue->GetMaxSize().GetValue()) +
            " packets: the NIC would overflow its own queue; lower "
            "TxQueuePackets or enlarge the queue");
    }
    // A byte limit below one full frame would keep every full-sized segment waiting behind
    // the queue for ever (the backlog never drains): refuse it before the run.
    if (queue && queue->GetMaxSize().GetUnit() == QueueSizeUnit::BYTES &&
        queue->GetMaxSize().GetValue() < GetMtu() + GetFramingOverhead())
    {
        throw PrestoInputError(
            GetInstanceTypeId().GetName() + ": the device queue of " +
            std::to_string(queue->GetMaxSize().GetValue()) + " bytes cannot hold one frame of " +
            std::to_string(GetMtu() + GetFramingOverhead()) + " bytes (Mtu " +
            std::to_string(GetMtu()) + " + " + std::to_string(GetFramingOverhead()) +
            " framing): full-sized segments would never leave; enlarge the queue or lower the Mtu");
    }
    DataRateValue rate;
    GetAttribute("DataRate", rate);
    m_lineRateBytesPerS = rate.Get().GetBitRate() / 8;
    // at least one full segment, so that a slow link still sends
    m_txQueueBytes =
        std::max<uint64_t>(static_cast<uint64_t>(m_lineRateBytesPerS * m_txQueueTime.GetSeconds()),
                           1500);
    OffloadTxScheduler::Limits limits;
    limits.pipelineDepth = m_txPipelineDepth;
    limits.queuePackets = m_txQueuePackets;
    limits.queueBytes = m_txQueueBytes;
    m_txScheduler.SetLimits(limits);
    SetupDma();
    m_congestion = cc; // the model may bind the congestion control to its hardware
    try
    {
        SetupModel();
    }
    catch (...)
    {
        m_congestion = nullptr; // not set up
        throw;
    }
}

void
OffloadNetDevice::SetupModel()
{
}

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
    Conn& c = m_slots[id];
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
    auto inPlace = [this, id, dir, gen = m_generation[id], done = std::move(done)]() {
        const bool alive = m_generation[id] == gen;
        if (alive)
        {
            --m_slots[id].dmaPending[dir];
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

Ptr<const OffloadCongestionControl>
OffloadNetDevice::GetCongestionControl() const
{
    return m_congestion;
}

void
OffloadNetDevice::Cleanup()
{
    m_txBacklog.clear();
    m_slots.clear();
    m_listeners.clear();
    m_hostRx =
        MakeNullCallback<bool, Ptr<NetDevice>, Ptr<const Packet>, uint16_t, const Address&>();
    Simulator::Cancel(m_scanEvent);
    for (auto& dma : m_dma)
    {
        if (dma)
        {
            dma->Cancel(); // its continuations hold packets and this device
        }
    }
    m_scanPending = false;
    m_refillPending = false;
}

void
OffloadNetDevice::SetNode(Ptr<Node> node)
{
    FabricLinkNetDevice::SetNode(node);
    // the node's applications find the NIC through the socket factory
    Ptr<OffloadSocketFactory> f = node->GetObject<OffloadSocketFactory>();
    if (!f)
    {
        f = CreateObject<OffloadSocketFactory>();
        node->AggregateObject(f);
    }
    if (!f->HasDevice())
    {
        f->SetDevice(this);
    }
    OffloadSocketFactory::GuardNodesWithoutNic();
    TraceConnectWithoutContext("PhyTxEnd", MakeCallback(&OffloadNetDevice::TxDone, this));
}

void
OffloadNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_hostRx = cb;
    FabricLinkNetDevice::SetReceiveCallback(MakeCallback(&OffloadNetDevice::FromWire, this));
    // the fast path's frames come with their fields (ReceiveFromLink)
    SetLinkSink(this, 0);
}

Ipv4Address
OffloadNetDevice::GetLocalAddress() const
{
    if (m_local == Ipv4Address())
    {
        Ptr<Ipv4> ipv4 = GetNode()->GetObject<Ipv4>();
        NS_ABORT_MSG_IF(!ipv4, "offload NIC on a node without IPv4");
        int32_t i = ipv4->GetInterfaceForDevice(this);
        NS_ABORT_MSG_IF(i < 0, "offload NIC has no IPv4 address");
        m_local = ipv4->GetAddress(i, 0).GetLocal();
        m_localBits = m_local.Get();
    }
    return m_local;
}

uint32_t
OffloadNetDevice::LocalAddressBits() const
{
    if (m_localBits == 0)
    {
        GetLocalAddress(); // known from then on (a host is never 0.0.0.0)
    }
    return m_localBits;
}

uint64_t
OffloadNetDevice::Key(Ipv4Address peer, uint16_t peerPort, uint16_t localPort)
{
    return OffloadControlPlane::Key(peer.Get(), peerPort, localPort);
}

OffloadControlPlane&
OffloadNetDevice::ControlPlane()
{
    // from the attributes at every use: they may be set after the device was created
    OffloadControlPlane::Config cfg;
    cfg.synTimeoutNs = m_synTimeout.GetNanoSeconds();
    cfg.synRetries = m_synRetries;
    cfg.sack = m_sack;
    cfg.timeWaitNs = m_timeWait.IsStrictlyPositive() ? m_timeWait.GetNanoSeconds() : 0;
    m_cp.SetConfig(cfg);
    return m_cp;
}

// ------------------------------------------------------------------ host interface

uint16_t
OffloadNetDevice::AllocatePort()
{
    return m_cp.AllocatePort();
}

bool
OffloadNetDevice::ReservePort(uint16_t port)
{
    return m_cp.ReservePort(port);
}

void
OffloadNetDevice::Listen(uint16_t port, Ptr<OffloadSocket> listener)
{
    CheckDmaChannel(listener->GetDmaChannel(), "Listen");
    m_listeners[port] = listener;
}

void
OffloadNetDevice::Unlisten(uint16_t port)
{
    m_listeners.erase(port);
    m_cp.ReleasePort(port);
}

uint32_t
OffloadNetDevice::AllocateSlot()
{
    const bool ownTableFull = m_freeSlots.empty() && m_slots.size() >= m_maxConnections;
    if (ownTableFull || !ReserveConnectionSlot())
    {
        ++m_refused;
        m_refusedTrace(NO_SLOT);
        return NO_SLOT;
    }
    if (m_freeSlots.empty() && m_slots.size() < m_maxConnections)
    {
        // The table models fixed NIC state arrays of MaxConnections entries; memory is only
        // taken for slots in use (std::deque keeps references to existing slots valid).
        m_freeSlots.push_back(static_cast<uint32_t>(m_slots.size()));
        m_slots.emplace_back();
        m_generation.push_back(0);
    }
    uint32_t id = m_freeSlots.back();
    m_freeSlots.pop_back();
    m_slots[id].activeIndex = static_cast<uint32_t>(m_active.size());
    m_active.push_back(id);
    return id;
}

void
OffloadNetDevice::FreeSlot(uint32_t id)
{
    Conn& c = m_slots[id];
    NS_LOG_FUNCTION(this << id);
    if (c.tcp)
    {
        m_finished += c.tcp->GetCounters(); // fold into the device totals
        OnConnectionClosed(id);
    }
    const uint64_t key = Key(c.peer, c.peerPort, c.localPort);
    m_lookup.erase(key);
    Simulator::Cancel(c.synTimer);
    if (c.tcp)
    {
        // only a connection that was established has a last ACK the peer may be missing
        ControlPlane().EnterTimeWait(key,
                                     FastSimulator::NowNs(),
                                     c.tcp->GetSndMax(),
                                     c.tcp->GetRcvNext(),
                                     c.localPort,
                                     c.peerPort);
    }
    if (c.ownsPort)
    {
        // the client's (ephemeral) port returns to the pool: without this a host runs out of
        // ports after 16384 connections it opened
        m_cp.ReleasePort(c.localPort);
    }
    if (c.socket)
    {
        c.socket->Finished();
    }
    RemoveTimed(id);
    uint32_t pos = c.activeIndex;
    m_active[pos] = m_active.back();
    m_slots[m_active[pos]].activeIndex = pos;
    m_active.pop_back();
    c = Conn();
    ++m_generation[id];
    m_freeSlots.push_back(id);
    ReleaseConnectionSlot();
    m_cpCycles += m_controlCycles; // teardown on the host control plane
    ++m_cpEvents;
    ControlPlaneDelay(id); // nothing waits for it, but it occupies a host core
    m_closedTrace(id);
}

bool
OffloadNetDevice::Connect(Ptr<OffloadSocket> socket,
                          uint16_t localPort,
                          Ipv4Address peer,
                          uint16_t peerPort)
{
    NS_LOG_FUNCTION(this << localPort << peer << peerPort);
    CheckDmaChannel(socket->GetDmaChannel(), "Connect");
    uint32_t id = AllocateSlot();
    if (id == NO_SLOT)
    {
        m_cp.ReleasePort(localPort); // refused: the socket's port is free again
        return false;
    }
    Conn& c = m_slots[id];
    c.ownsPort = true;
    c.peer = peer;
    c.peerBits = peer.Get();
    c.localPort = localPort;
    c.peerPort = peerPort;
    c.socket = socket;
    c.dmaChannel = socket->GetDmaChannel();
    c.mss = socket->GetMss();
    c.sndBuf = socket->GetSndBufSize();
    c.rcvBuf = socket->GetRcvBufSize();
    c.initialCwnd = socket->GetInitialCwndSegments();
    ControlPlane().ActiveOpen(c.hs,
                              OffloadControlPlane::InitialSequence(GetLocalAddress().Get(),
                                                                   peer.Get(),
                                                                   localPort,
                                                                   peerPort),
                              c.rcvBuf);
    c.dma = OffloadDmaChannel(m_dmaLatency.GetNanoSeconds(), m_dmaBandwidthBps);
    m_lookup[Key(peer, peerPort, localPort)] = id;
    socket->Attach(id, localPort, peer, peerPort);
    // the SYN leaves after the control plane's work on the host
    m_cpCycles += m_controlCycles;
    ++m_cpEvents;
    Simulator::Schedule(ControlPlaneDelay(id),
                        &OffloadNetDevice::SendHandshake,
                        this,
                        id,
                        m_generation[id]);
    return true;
}

uint32_t
OffloadNetDevice::Write(uint32_t id, Ptr<Packet> p)
{
    return WriteFrom(id, p->GetSize(), PeekPointer(p));
}

uint32_t
OffloadNetDevice::WriteBytes(uint32_t id, uint32_t bytes)
{
    return WriteFrom(id, bytes, nullptr);
}

uint32_t
OffloadNetDevice::WriteFrom(uint32_t id, uint32_t bytes, const Packet* p)
{
    Conn& c = m_slots[id];
    if (c.hs.state != OffloadCpState::ESTABLISHED || !c.tcp)
    {
        return 0;
    }
    HostCpu* cpu = TimedHostCpu();
    // with a timed HostCpu the bytes reach the data path once a host core has posted them
    uint32_t n = cpu ? std::min(bytes, c.tcp->GetTxFree() - c.txPosting) : c.tcp->AppSend(bytes);
    if (n == 0)
    {
        return 0;
    }
    if (c.txRing)
    {
        std::vector<uint8_t> buf(n); // zeros without a packet, as a zero-filled packet's
        if (p)
        {
            p->CopyData(buf.data(), n);
        }
        bool ok = c.txRing->Write(c.txTail, buf.data(), n);
        NS_ASSERT_MSG(ok, "send ring overflow");
    }
    c.txTail += n;
    if (cpu)
    {
        QueueHostWrite(id, n);
        return n;
    }
    OnApplicationPosted(id);
    Ready(id);
    return n;
}

Ptr<Packet>
OffloadNetDevice::Read(uint32_t id, uint32_t maxBytes)
{
    Conn& c = m_slots[id];
    uint32_t n = std::min(maxBytes, c.rxReadable);
    if (n == 0 || !c.tcp)
    {
        return nullptr;
    }
    Ptr<Packet> data;
    if (c.rxRing)
    {
        std::vector<uint8_t> buf(n);
        c.rxRing->Read(c.rxRing->GetHead(), buf.data(), n);
        data = Create<Packet>(buf.data(), n);
    }
    else
    {
        data = Create<Packet>(n); // virtual payload: zero-filled, nothing stored
    }
    Consume(id, n);
    return data;
}

uint32_t
OffloadNetDevice::ReadBytes(uint32_t id, uint32_t maxBytes)
{
    Conn& c = m_slots[id];
    const uint32_t n = std::min(maxBytes, c.rxReadable);
    if (n == 0 || !c.tcp)
    {
        return 0;
    }
    Consume(id, n);
    return n;
}

void
OffloadNetDevice::Consume(uint32_t id, uint32_t n)
{
    Conn& c = m_slots[id];
    if (c.rxRing)
    {
        c.rxRing->Advance(n);
    }
    c.rxReadable -= n;
    OnApplicationRead(id, n);
    if (auto update = c.tcp->AppRead(n))
    {
        SendSegment(id, *update, nullptr);
    }
}

uint32_t
OffloadNetDevice::GetTxAvailable(uint32_t id) const
{
    const Conn& c = m_slots[id];
    return c.tcp ? c.tcp->GetTxFree() - c.txPosting : 0;
}

uint32_t
OffloadNetDevice::GetRxAvailable(uint32_t id) const
{
    return m_slots[id].rxReadable;
}

void
OffloadNetDevice::Close(uint32_t id)
{
    Conn& c = m_slots[id];
    if (c.appClosed)
    {
        return;
    }
    c.appClosed = true;
    if (c.tcp)
    {
        if (HostCpu* cpu = TimedHostCpu())
        {
            // behind the application's writes on its core
            DeviceEvent e;
            e.kind = DeviceEventKind::HOST_CLOSE;
            e.id = id;
            e.generation = m_generation[id];
            ScheduleDeviceEvent(
                cpu->Reserve(HostCpu::WORK_NIC_HOST, id, m_hostCosts.dmaDescriptor) -
                    FastSimulator::Now(),
                std::move(e));
            return;
        }
        c.tcp->AppClose();
        OnApplicationPosted(id);
        Ready(id);
    }
}

// ------------------------------------------------------------------ control plane

void
OffloadNetDevice::SendHandshake(uint32_t id, uint32_t generation)
{
    if (m_generation[id] != generation)
    {
        // the first transmission's event of a connection that is gone (reset or refused
        // within the control plane's delay): the slot may hold a new connection by now,
        // whose own handshake runs its own timer
        return;
    }
    Conn& c = m_slots[id];
    const OffloadHandshakeTx tx = ControlPlane().NextHandshake(c.hs);
    if (tx.giveUp)
    {
        ++m_handshakeFailures;
        Ptr<OffloadSocket> s = c.socket;
        c.socket = nullptr;
        FreeSlot(id);
        if (s)
        {
            s->Failed();
        }
        return;
    }
    if (!tx.send)
    {
        return;
    }
    SendControl(id, c.peer, tx.segment);
    c.synTimer = Simulator::Schedule(NanoSeconds(tx.timerNs),
                                     &OffloadNetDevice::SendHandshake,
                                     this,
                                     id,
                                     generation);
}

void
OffloadNetDevice::PassiveOpen(Ipv4Address peer, const WireSegment& th, Ptr<OffloadSocket> listener)
{
    CheckDmaChannel(listener->GetDmaChannel(), "accepting a connection");
    uint32_t id = AllocateSlot();
    if (id == NO_SLOT)
    {
        return; // refused and counted; the peer's SYN times out
    }
    Conn& c = m_slots[id];
    c.peer = peer;
    c.peerBits = peer.Get();
    c.localPort = th.dstPort;
    c.peerPort = th.srcPort;
    c.listener = listener;
    c.dmaChannel = listener->GetDmaChannel(); // the listening application's channel
    c.mss = listener->GetMss();
    c.sndBuf = listener->GetSndBufSize();
    c.rcvBuf = listener->GetRcvBufSize();
    c.initialCwnd = listener->GetInitialCwndSegments();
    c.dma = OffloadDmaChannel(m_dmaLatency.GetNanoSeconds(), m_dmaBandwidthBps);
    ControlPlane().PassiveOpen(c.hs,
                               th,
                               OffloadControlPlane::InitialSequence(GetLocalAddress().Get(),
                                                                    peer.Get(),
                                                                    c.localPort,
                                                                    c.peerPort),
                               c.rcvBuf);
    m_lookup[Key(peer, c.peerPort, c.localPort)] = id;
    m_cpCycles += m_controlCycles;
    ++m_cpEvents;
    Simulator::Schedule(ControlPlaneDelay(id),
                        &OffloadNetDevice::SendHandshake,
                        this,
                        id,
                        m_generation[id]);
}

void
OffloadNetDevice::Establish(uint32_t id, uint32_t peerWindowBytes)
{
    Conn& c = m_slots[id];
    Simulator::Cancel(c.synTimer);
    OffloadTcpConfig cfg;
    cfg.mss = c.mss;
    // Host memory for RxBufferMultiple x RcvBufSize, at most RcvBufSize announced: data not
    // yet read by the application does not shrink the window below what the peer's
    // (equal-sized) send buffer can fill, as Linux doubles SO_RCVBUF.
    cfg.rxWindowLimit = c.rcvBuf;
    cfg.rxBufferSize = static_cast<uint32_t>(
        std::min<uint64_t>(uint64_t(c.rcvBuf) * m_rxBufferMultiple, ReassemblyTracker::MAX_WINDOW));
    cfg.txBufferSize = c.sndBuf;
    cfg.initialCwndSegments = c.initialCwnd;
    cfg.minRtoNs = m_minRto.GetNanoSeconds();
    cfg.initialRtoNs = std::max<uint64_t>(cfg.minRtoNs, cfg.initialRtoNs);
    cfg.challengeAckIntervalNs = m_challengeAckInterval.GetNanoSeconds();
    cfg.windowShift = c.hs.ourShift;
    cfg.sack = c.hs.sack;
    ConfigureConnection(cfg, c.peer, c.localPort, c.peerPort, c.hs.activeOpen);
    Setup();
    OffloadCongestionContext ctx;
    ctx.mss = cfg.mss;
    ctx.initialCwndSegments = cfg.initialCwndSegments;
    ctx.rttInitNs = cfg.controlRttInitNs;
    ctx.lineRateBytesPerS = m_lineRateBytesPerS;
    ctx.connId = id;
    ctx.maxConnections = m_maxConnections;
    c.tcp = std::make_unique<OffloadTcpConnection>(cfg,
                                                   c.hs.iss,
                                                   c.hs.irs,
                                                   peerWindowBytes,
                                                   m_congestion->Create(ctx));
    if (m_carryPayload)
    {
        c.txRing = std::make_unique<OffloadByteRing>(c.sndBuf, c.hs.iss + 1);
        c.rxRing = std::make_unique<OffloadByteRing>(cfg.rxBufferSize, c.hs.irs + 1);
    }
    c.txTail = c.hs.iss + 1;
    ++m_established;
    OnEstablished(id, *c.tcp);
    m_establishedTrace(id);
}

// ------------------------------------------------------------------ wire

bool
OffloadNetDevice::FromWire(Ptr<NetDevice> device,
                           Ptr<const Packet> packet,
                           uint16_t protocol,
                           const Address& from)
{
    if (protocol == IPV4)
    {
        // The NIC parses the wire itself, bounds-checked: a malformed frame is dropped and
        // counted here, never handed to a parser that could throw, assert or allocate.
        const bool checksums = m_checksums;
        const uint32_t size = packet->GetSize();
        const uint32_t want = checksums ? size : std::min<uint32_t>(size, HEADER_BYTES);
        if (m_rxScratch.size() < want)
        {
            m_rxScratch.resize(want);
        }
        const uint32_t got = packet->CopyData(m_rxScratch.data(), want);
        WireSegment w;
        const WireError e = ParseWire(m_rxScratch.data(), got, size, checksums, w);
        if (e == WireError::NONE && TakeSegment(w, packet))
        {
            TraceWire(m_wireRxTrace, packet, w.src, w.dst, w.srcPort, w.dstPort);
            return true;
        }
        if (e != WireError::NONE && e != WireError::NOT_TCP && e != WireError::FRAGMENT)
        {
            // not a well-formed segment: a real NIC drops it and counts why
            ++m_malformed[static_cast<size_t>(e)];
            m_dropTrace(NO_SLOT, w.seq, w.payloadLen, OffloadDropReason::MALFORMED);
            return true;
        }
    }
    return ToHostStack(packet, protocol);
}

bool
OffloadNetDevice::ToHostStack(Ptr<const Packet> packet, uint16_t protocol)
{
    if (m_hostIp < 0)
    {
        // looked up once, at the first such frame: stacks are installed before the run
        m_hostIp = GetNode() && GetNode()->GetObject<Ipv4>() ? 1 : 0;
    }
    if (m_hostRx.IsNull() || m_hostIp == 0)
    {
        // a NIC whose host has no IP stack (a script may install only the NIC): ns-3's Node
        // would discard the frame without a trace
        ++m_noHostStackDrops;
        m_dropTrace(NO_SLOT, 0, packet->GetSize(), OffloadDropReason::NO_HOST_STACK);
        return false;
    }
    return m_hostRx(this, packet, protocol, GetPeerAddress());
}

void
OffloadNetDevice::ReceiveFromLink(uint32_t,
                                  const Ptr<Packet>& packet,
                                  uint16_t protocol,
                                  const Time&,
                                  FabricFrameFields& fields)
{
    if (fields.lazy && protocol == IPV4)
    {
        // headers as fields: what ParseWire would read from the bytes, without them (only
        // offload NICs make lazy headers, all of this type)
        const auto* h = static_cast<const OffloadLazyWireHeader*>(fields.lazy.Get());
        WireSegment w;
        WireFieldsAsParsed(h->GetFields(), fields.tos, w);
        if (TakeSegment(w, packet))
        {
            TraceWire(m_wireRxTrace, packet, w.src, w.dst, w.srcPort, w.dstPort);
        }
        else
        {
            fields.EnsureBytes(*PeekPointer(packet)); // the host stack reads the bytes
            ToHostStack(packet, protocol);
        }
        return;
    }
    FromWire(this, packet, protocol, GetPeerAddress());
}

bool
OffloadNetDevice::TakeSegment(const WireSegment& w, Ptr<const Packet> packet)
{
    if (w.dst == LocalAddressBits())
    {
        // addresses as bits: Ipv4Address's constructor and Get are not inline
        const uint64_t key = OffloadControlPlane::Key(w.src, w.srcPort, w.dstPort);
        auto it = m_lookup.find(key);
        if (it != m_lookup.end())
        {
            HandleSegment(it->second, w, packet);
            return true;
        }
        auto l = m_listeners.find(w.dstPort);
        if (!(w.flags & TcpHeader::SYN))
        {
            OffloadControlSegment reAck;
            const OffloadTimeWaitVerdict tw =
                ControlPlane().OnTimeWaitSegment(key, w.flags, FastSimulator::NowNs(), reAck);
            if (tw == OffloadTimeWaitVerdict::RE_ACK)
            {
                SendControl(NO_SLOT, Ipv4Address(w.src), reAck);
            }
            if (tw != OffloadTimeWaitVerdict::NONE)
            {
                return true; // a late segment of a connection the NIC tore down
            }
        }
        if (l != m_listeners.end() && (w.flags & TcpHeader::SYN) && !(w.flags & TcpHeader::ACK))
        {
            PassiveOpen(Ipv4Address(w.src), w, l->second);
            return true;
        }
    }
    return false;
}

void
OffloadNetDevice::HandleSegment(uint32_t id, const WireSegment& th, Ptr<const Packet> frame)
{
    NS_LOG_FUNCTION(this << id << th.seq << th.ack << th.payloadLen << unsigned(th.flags));
    Conn& c = m_slots[id];
    // an established connection's segments need no configuration: skip rebuilding it (three
    // Time conversions) on the per-segment path
    const OffloadHandshakeRx rx = c.hs.state == OffloadCpState::ESTABLISHED
                                      ? m_cp.OnSegment(c.hs, th)
                                      : ControlPlane().OnSegment(c.hs, th);
    switch (rx.verdict)
    {
    case OffloadHandshakeVerdict::DATA_PATH:
        break;
    case OffloadHandshakeVerdict::DROP:
        HandshakeDrop(id, th);
        return;
    case OffloadHandshakeVerdict::RST_IGNORED:
        ++m_handshakeRstIgnored;
        m_dropTrace(id, th.seq, 0, OffloadDropReason::UNACCEPTABLE);
        return;
    case OffloadHandshakeVerdict::RESET:
        HandshakeReset(id);
        return;
    case OffloadHandshakeVerdict::SEND_SYN_ACK:
        // simultaneous open: the SYN-ACK leaves after the control plane's work on the host,
        // as for a passive open, and then runs its own retransmission timer. If our SYN has
        // not left yet (no timer armed), its pending first transmission sends the SYN-ACK.
        if (compat::IsPending(c.synTimer))
        {
            Simulator::Cancel(c.synTimer);
            m_cpCycles += m_controlCycles;
            ++m_cpEvents;
            c.synTimer = Simulator::Schedule(ControlPlaneDelay(id),
                                             &OffloadNetDevice::SendHandshake,
                                             this,
                                             id,
                                             m_generation[id]);
        }
        return;
    case OffloadHandshakeVerdict::ESTABLISHED:
        if (!CompleteHandshake(id, rx))
        {
            return;
        }
        break; // data on the handshake's last segment: on to the data path
    }
    const uint8_t flags = th.flags;
    const bool ce = th.ecn == Ipv4Header::ECN_CE;
    OffloadSegment seg;
    seg.seq = th.seq;
    seg.ack = th.ack;
    seg.window = uint32_t(th.window) << c.hs.peerShift;
    seg.payloadLen = th.payloadLen;
    seg.flags = flags;
    seg.ce = ce;
    // sender-side spraying: the path label the sender wrote into the identification
    seg.pathLabel = m_pathLabels > 0 ? static_cast<uint16_t>(th.ipId % m_pathLabels) : 0;
    Time admitted(0);
    if (!AdmitReceived(id, seg, admitted))
    {
        ++m_nicRxDrops; // e.g. a full NIC queue: the peer's retransmission repairs it
        NS_LOG_LOGIC(this << " connection " << id << ": NIC refused segment " << seg.seq);
        m_dropTrace(id, seg.seq, seg.payloadLen, OffloadDropReason::NIC_RX);
        return;
    }
    OffloadRxDecision d = c.tcp->OnSegment(seg, FastSimulator::NowNs());
    if (c.socket && c.socket->IsTraced())
    {
        // the socket's trace sources, only once one has a sink (OffloadSocket::IsTraced)
        c.socket->TraceRx(seg, th.window);
        c.socket->SyncTraces(*c.tcp);
    }
    if (d.unacceptable)
    {
        // counted by the data path under its rule (rst_ignored, invalid_acks, ...)
        m_dropTrace(id, seg.seq, seg.payloadLen, OffloadDropReason::UNACCEPTABLE);
    }
    else if (seg.payloadLen > 0)
    {
        m_segmentTrace(id, d.verdict, seg.seq, seg.payloadLen);
    }
    Time latency = admitted + ProcessReceived(id, seg, d);
    ApplyDecision(id, d, frame, th.payloadOffset, seg, latency);
}

bool
OffloadNetDevice::CompleteHandshake(uint32_t id, const OffloadHandshakeRx& rx)
{
    Conn& c = m_slots[id];
    Establish(id, rx.peerWindowBytes);
    if (rx.sendAck)
    {
        SendSegment(id, c.tcp->MakeAck(false), nullptr); // the handshake's third segment
    }
    if (!c.listener)
    {
        // an active open (the SYN-ACK of our SYN, or a simultaneous open)
        if (c.appClosed)
        {
            // the application closed during the handshake: Close() found no data path
            // yet, so the FIN is queued now (else the slot would never be freed)
            c.tcp->AppClose();
            OnApplicationPosted(id);
            Ready(id);
        }
        m_cpCycles += m_controlCycles;
        ++m_cpEvents;
        Ptr<OffloadSocket> s = c.socket;
        Simulator::Schedule(ControlPlaneDelay(id), &OffloadSocket::Established, s);
        return rx.dataFollows;
    }
    // a passive open: the listener accepts a new socket
    Ptr<OffloadSocket> s = CreateObject<OffloadSocket>();
    s->SetDevice(GetNode(), this);
    s->SetAttribute("SndBufSize", UintegerValue(c.sndBuf));
    s->SetAttribute("RcvBufSize", UintegerValue(c.rcvBuf));
    s->SetAttribute("SegmentSize", UintegerValue(c.mss));
    s->SetAttribute("DmaChannel", UintegerValue(c.dmaChannel));
    s->Attach(id, c.localPort, c.peer, c.peerPort);
    c.socket = s;
    c.listener->Accepted(s, InetSocketAddress(c.peer, c.peerPort));
    c.listener = nullptr;
    return rx.dataFollows;
}

void
OffloadNetDevice::HandshakeDrop(uint32_t id, const WireSegment& th)
{
    ++m_handshakeDrops;
    m_dropTrace(id, th.seq, th.payloadLen, OffloadDropReason::HANDSHAKE);
}

void
OffloadNetDevice::HandshakeReset(uint32_t id)
{
    Conn& c = m_slots[id];
    ++m_resets;
    ++m_handshakeFailures;
    // an active open (SYN-SENT, or SYN-RECEIVED after a simultaneous open) was refused; a
    // passive one has no socket yet
    Ptr<OffloadSocket> s = c.socket;
    FreeSlot(id);
    if (s)
    {
        s->Failed(); // connection refused
    }
}

void
OffloadNetDevice::ApplyDecision(uint32_t id,
                                const OffloadRxDecision& d,
                                Ptr<const Packet> frame,
                                uint32_t payloadOffset,
                                const OffloadSegment& seg,
                                Time latency)
{
    Conn& c = m_slots[id];
    const Time clock = FastSimulator::Now();
    int64_t now = FastSimulator::ToNs(clock + latency);
    int64_t inPlace = now;
    if (d.writeLen > 0)
    {
        // payload straight to its place in the host receive buffer (also out of order)
        if (c.rxRing)
        {
            std::vector<uint8_t> buf(d.writeLen);
            Ptr<Packet> part =
                frame->CreateFragment(payloadOffset + (d.writeSeq - seg.seq), d.writeLen);
            part->CopyData(buf.data(), d.writeLen);
            bool ok = c.rxRing->Write(d.writeSeq, buf.data(), d.writeLen);
            NS_ASSERT_MSG(ok, "receive ring overflow: the data path accepted beyond the window");
        }
        if (!m_dma[DMA_RX])
        {
            inPlace = c.dma.Transfer(now, d.writeLen);
        }
        ++m_dmaTransfers;
    }
    // the host hears of bytes (or the FIN) only once everything before is in place: a
    // segment without payload needs no DMA, but must not overtake the data before it
    inPlace = std::max(inPlace, c.rxInPlaceNs);
    c.rxInPlaceNs = inPlace;
    const bool notify = d.delivered > 0 || d.peerClosed;
    const bool viaChannel =
        m_dma[DMA_RX] && (d.writeLen > 0 || (notify && c.dmaPending[DMA_RX] > 0));
    if (viaChannel)
    {
        // the payload crosses the shared interface in its application's channel; the host
        // hears of in-order bytes (or the FIN) when they are in place, behind earlier ones
        const uint32_t delivered = d.delivered;
        const bool peerClosed = d.peerClosed;
        c.notifying += notify ? 1 : 0;
        SubmitDma(id,
                  DMA_RX,
                  d.writeLen,
                  latency,
                  [this, id, notify, delivered, peerClosed](bool alive) {
                      if (alive && notify)
                      {
                          MakeReadable(id, delivered, peerClosed, m_generation[id]);
                      }
                  });
    }
    if (d.sendAck)
    {
        if (latency.IsZero())
        {
            SendSegment(id, d.ackSegment, nullptr);
        }
        else
        {
            DeviceEvent e;
            e.kind = DeviceEventKind::SEND_SEGMENT;
            e.id = id;
            e.generation = m_generation[id];
            e.seg = d.ackSegment;
            ScheduleDeviceEvent(latency, std::move(e));
        }
    }
    if (d.ackedBytes > 0)
    {
        if (c.txRing)
        {
            c.txRing->Advance(d.ackedBytes);
        }
        if (c.socket)
        {
            c.socket->SpaceFreed(c.tcp->GetTxFree() - c.txPosting);
        }
    }
    if (notify && !viaChannel)
    {
        ++c.notifying;
        DeviceEvent e;
        e.kind = DeviceEventKind::MAKE_READABLE;
        e.id = id;
        e.generation = m_generation[id];
        e.bytes = d.delivered;
        e.flag = d.peerClosed;
        ScheduleDeviceEvent(FastSimulator::FromNs(inPlace) - clock, std::move(e));
    }
    if (d.reset)
    {
        ++m_resets;
        Ptr<OffloadSocket> s = c.socket;
        FreeSlot(id);
        if (s)
        {
            s->Reset();
        }
        return;
    }
    Ready(id); // ACKs may have opened the window, go-back-N may have rewound
    if (d.finAcked)
    {
        MaybeFinish(id);
    }
}

void
OffloadNetDevice::DeliverReadable(uint32_t id, uint32_t bytes, bool peerClosed, uint32_t generation)
{
    if (m_generation[id] != generation)
    {
        return; // the connection is gone
    }
    Conn& c = m_slots[id];
    --c.notifying;
    if (peerClosed && c.notifying > 0)
    {
        ++m_finBeforeData; // the host hears of the FIN before bytes ahead of it (a bug)
    }
    c.rxReadable += bytes;
    if (c.socket && bytes > 0)
    {
        c.socket->DataArrived();
        ++m_notifications;
    }
    if (peerClosed && m_generation[id] == generation && !c.peerClosedSeen)
    {
        c.peerClosedSeen = true;
        if (c.socket)
        {
            c.socket->PeerClosed();
        }
        MaybeFinish(id);
    }
}

void
OffloadNetDevice::MaybeFinish(uint32_t id)
{
    Conn& c = m_slots[id];
    if (c.tcp && OffloadControlPlane::ShouldTearDown(c.hs, c.tcp->IsFinAcked(), c.peerClosedSeen))
    {
        FreeSlot(id);
    }
}

void
OffloadNetDevice::AddTimed(uint32_t id)
{
    Conn& c = m_slots[id];
    if (!c.timed)
    {
        c.timed = true;
        c.timedIndex = static_cast<uint32_t>(m_timed.size());
        m_timed.push_back(id);
    }
    if (!m_scanPending)
    {
        m_scanEvent = Simulator::Schedule(m_timerScanPeriod, &OffloadNetDevice::TimerScan, this);
        m_scanPending = true;
    }
}

void
OffloadNetDevice::RemoveTimed(uint32_t id)
{
    Conn& c = m_slots[id];
    if (!c.timed)
    {
        return;
    }
    const uint32_t pos = c.timedIndex;
    m_timed[pos] = m_timed.back();
    m_slots[m_timed[pos]].timedIndex = pos;
    m_timed.pop_back();
    c.timed = false;
}

void
OffloadNetDevice::Ready(uint32_t id)
{
    Conn& c = m_slots[id];
    if (c.tcp && c.tcp->NeedsTimers())
    {
        AddTimed(id); // something to send or in flight: the timer scan watches it
    }
    if (c.tcp)
    {
        m_txScheduler.MarkReady(id);
    }
    PumpTx();
}

void
OffloadNetDevice::PumpTx()
{
    if (!m_txScheduler.HasReady())
    {
        // nothing to send (most calls: every ACK and event that may have made a connection
        // ready ends here): the loop below would stop at its first test
        ArmRefill();
        return;
    }
    const Time clock = FastSimulator::Now(); // read once: the loop runs per segment
    const uint64_t now = FastSimulator::NowNs();
    // Segments still inside the NIC (fetching payload, crossing the execution model's
    // pipeline) are bounded separately from those queued at the wire, so that a pipeline
    // with latency can be kept full without letting the wire queue grow.
    // What the NIC has committed towards the wire (in flight inside it, or in the device
    // queue) is bounded in wire time, so that it covers the NIC's latency at line rate
    // without queueing more than that in front of the wire, and in packets, so that small
    // segments never overflow the device queue.
    size_t passedOver = 0; // ready connections in a row whose DMA channel is full
    for (;;)
    {
        const auto [queuedPackets, queuedBytes] = GetQueued(clock);
        if (!m_txScheduler.MayCommit(queuedPackets, queuedBytes))
        {
            break;
        }
        uint32_t id = m_txScheduler.Current();
        Conn& c = m_slots[id];
        if (m_dma[DMA_TX] && DmaChannelFull(c.dmaChannel))
        {
            // its application's channel holds its share of the NIC: the other applications
            // go on (the channel's next segment leaving the NIC calls PumpTx again)
            if (++passedOver >= m_txScheduler.GetReadyCount())
            {
                break;
            }
            m_txScheduler.Advance();
            continue;
        }
        passedOver = 0;
        std::optional<OffloadTxSegment> tx;
        if (c.tcp)
        {
            tx = c.tcp->NextSegment(now);
        }
        if (!tx && c.tcp && c.tcp->GetNextSendTimeNs() > now && !compat::IsPending(c.paceWake))
        {
            // paced: nothing may leave before the next send time; come back then
            c.paceWake = Simulator::Schedule(NanoSeconds(c.tcp->GetNextSendTimeNs() - now),
                                             &OffloadNetDevice::Ready,
                                             this,
                                             id);
        }
        if (!tx)
        {
            m_txScheduler.DropCurrent();
            continue;
        }
        if (c.socket && c.socket->IsTraced())
        {
            // the socket's trace sources, only once one has a sink (OffloadSocket::IsTraced)
            if (tx->retransmission)
            {
                c.socket->TraceRetransmission(tx->seg);
            }
            c.socket->SyncTraces(*c.tcp);
        }
        Ptr<Packet> payload;
        const OffloadSegment& seg = tx->seg;
        int64_t wire = now;
        if (seg.payloadLen > 0)
        {
            if (c.txRing)
            {
                std::vector<uint8_t> buf(seg.payloadLen);
                bool ok = c.txRing->Read(seg.seq, buf.data(), seg.payloadLen);
                NS_ASSERT_MSG(ok, "data path asked for bytes outside the send buffer");
                payload = Create<Packet>(buf.data(), seg.payloadLen);
            }
            // else a virtual payload: no packet until the segment is sent (SendIpv4 makes it
            // with its headers, from seg.payloadLen)
            if (!m_dma[DMA_TX])
            {
                wire = c.dma.Transfer(now, seg.payloadLen); // payload fetched from host memory
            }
            ++m_dmaTransfers;
        }
        bool nicDrop = false;
        Time delay = FastSimulator::FromNs(wire - int64_t(now)) + ProcessTransmit(id, seg, nicDrop);
        if (nicDrop)
        {
            ++m_nicTxDrops; // lost inside the NIC: the data path's recovery resends it
            NS_LOG_LOGIC(this << " connection " << id << ": NIC dropped segment " << seg.seq);
            m_dropTrace(id, seg.seq, seg.payloadLen, OffloadDropReason::NIC_TX);
            m_txScheduler.Advance();
            continue;
        }
        if (m_dma[DMA_TX] && (seg.payloadLen > 0 || c.dmaPending[DMA_TX] > 0))
        {
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
            const uint32_t gen = m_generation[id];
            SubmitDma(id,
                      DMA_TX,
                      seg.payloadLen,
                      Time(0),
                      [this, id, gen, seg, payload, delay, channel, wireBytes](bool alive) {
                          const Time now = FastSimulator::Now();
                          Time at = now + delay;
                          if (alive)
                          {
                              Conn& conn = m_slots[id];
                              at = std::max(at, conn.txLast); // the connection's order
                              conn.txLast = at;
                          }
                          compat::Schedule(at - now,
                                           [this, id, gen, seg, payload, channel, wireBytes]() {
                                               m_txScheduler.LeaveNic(wireBytes);
                                               m_dmaTxBytes[channel] -= wireBytes;
                                               if (m_dmaTxBytes[channel] == 0)
                                               {
                                                   m_dmaTxBusyWeight -= m_dmaTxWeight[channel];
                                               }
                                               if (m_generation[id] == gen)
                                               {
                                                   SendSegment(id, seg, payload);
                                               }
                                               PumpTx();
                                           });
                      });
        }
        else
        {
            SendInOrder(id, seg, payload, clock, delay);
        }
        m_txScheduler.Advance(); // round robin among connections
    }
    ArmRefill();
}

Ptr<Packet>
OffloadNetDevice::Take(Ptr<Packet>& holder)
{
    Ptr<Packet> p = holder;
    holder = nullptr;
    return p;
}

void
OffloadNetDevice::SendInOrder(uint32_t id,
                              const OffloadSegment& seg,
                              Ptr<Packet>& payload,
                              Time clock,
                              Time delay)
{
    // A segment without payload (a lone FIN, a window probe) needs no DMA and would
    // otherwise overtake the connection's data segments still waiting for theirs: the
    // peer would see the FIN before the last data, ignore it and wait for our RTO.
    // Segments of one connection reach the wire in the order the data path produced them.
    Conn& c = m_slots[id];
    const Time at = std::max(clock + delay, c.txLast);
    c.txLast = at;
    delay = at - clock;
    if (delay.IsZero())
    {
        SendSegment(id, seg, Take(payload));
        return;
    }
    const uint32_t wireBytes = seg.payloadLen + WIRE_HEADER_BYTES;
    m_txScheduler.EnterNic(wireBytes);
    DeviceEvent e;
    e.kind = DeviceEventKind::LEAVE_NIC;
    e.id = id;
    e.generation = m_generation[id];
    e.bytes = wireBytes;
    e.seg = seg;
    e.payload = Take(payload);
    ScheduleDeviceEvent(delay, std::move(e));
}

void
OffloadNetDevice::RunDeviceEvent(DeviceEvent& e)
{
    switch (e.kind)
    {
    case DeviceEventKind::SEND_SEGMENT:
        if (m_generation[e.id] == e.generation)
        {
            // an ACK of a connection torn down during the NIC's latency is not sent: its slot
            // no longer holds its ports and peer (TIME-WAIT answers a re-sent FIN)
            SendSegment(e.id, e.seg, Take(e.payload));
        }
        return;
    case DeviceEventKind::LEAVE_NIC:
        m_txScheduler.LeaveNic(e.bytes);
        if (m_generation[e.id] == e.generation)
        {
            SendSegment(e.id, e.seg, Take(e.payload));
        }
        PumpTx();
        return;
    case DeviceEventKind::MAKE_READABLE:
        MakeReadable(e.id, e.bytes, e.flag, e.generation);
        return;
    case DeviceEventKind::REFILL:
        Refill();
        return;
    case DeviceEventKind::HOST_READABLE:
        DeliverReadable(e.id, e.bytes, e.flag, e.generation);
        return;
    case DeviceEventKind::HOST_POSTED:
        if (m_generation[e.id] == e.generation)
        {
            PostWrite(e.id, e.bytes);
        }
        return;
    case DeviceEventKind::HOST_CLOSE:
        if (m_generation[e.id] == e.generation)
        {
            PostClose(e.id);
        }
        return;
    }
}

void
OffloadNetDevice::ArmRefill()
{
    Time delay;
    if ((!m_txBacklog.empty() || m_txScheduler.HasReady()) && !m_refillPending &&
        GetNextDeparture(delay))
    {
        ScheduleDeviceEvent(delay, DeviceEvent{});
        m_refillPending = true;
    }
}

void
OffloadNetDevice::TxDone(Ptr<const Packet>)
{
    // PhyTxEnd fires inside PointToPointNetDevice::TransmitComplete, which then starts the
    // next queued frame itself: a frame sent from here would start a second transmission on
    // the busy wire (ns-3 with asserts stops: "Must be READY to transmit"). Refill after it
    // returned, at the same time, as ns-3's NetDeviceQueue defers its wake-up.
    if ((!m_txBacklog.empty() || m_txScheduler.HasReady()) && !m_refillPending)
    {
        ScheduleDeviceEvent(Time(0), DeviceEvent{}); // a refill, as ScheduleNow
        m_refillPending = true;
    }
}

void
OffloadNetDevice::Refill()
{
    m_refillPending = false;
    DrainBacklog();
    if (m_txScheduler.HasReady())
    {
        PumpTx();
    }
    ArmRefill();
}

void
OffloadNetDevice::SendSegment(uint32_t id, const OffloadSegment& seg, Ptr<Packet> payload)
{
    NS_LOG_FUNCTION(this << id << seg.seq << seg.ack << seg.payloadLen << unsigned(seg.flags));
    const Conn& c = m_slots[id];
    // A payload nobody else holds gets the headers in place; a shared one (an event or
    // closure still holding it) is copied, so that no holder sees the headers appear.
    Ptr<Packet> p = !payload                            ? nullptr // headers only
                    : payload->GetReferenceCount() == 1 ? payload
                                                        : payload->Copy();
    WireSegmentOut w;
    w.srcPort = c.localPort;
    w.dstPort = c.peerPort;
    w.seq = seg.seq;
    w.ack = seg.ack;
    w.flags = seg.flags;
    w.window = static_cast<uint16_t>(std::min<uint32_t>(seg.window >> c.hs.ourShift, 65535));
    w.sackBlocks = seg.sackBlocks;
    for (uint32_t i = 0; i < seg.sackBlocks && i < OffloadSegment::MAX_SACK_BLOCKS; ++i)
    {
        w.sack[i][0] = seg.sack[i].first;
        w.sack[i][1] = seg.sack[i].second;
    }
    // ECT(0) on data only (RFC 3168 6.1.4: not on pure ACKs or retransmitted SYNs)
    w.ect = c.hs.ecn && seg.payloadLen > 0;
    w.payloadLen = seg.payloadLen; // the payload's bytes when p is null: virtual
    if (c.socket && c.socket->IsTraced())
    {
        // the socket's Tx trace, only once it has a sink; a copy: the headers go into p
        c.socket->TraceTx(seg, w.window, p ? p->Copy() : nullptr);
    }
    SendIpv4(p, w, c.peerBits, id);
}

void
OffloadNetDevice::SendControl(uint32_t id, Ipv4Address peer, const OffloadControlSegment& seg)
{
    WireSegmentOut w;
    w.srcPort = id != NO_SLOT ? m_slots[id].localPort : seg.localPort;
    w.dstPort = id != NO_SLOT ? m_slots[id].peerPort : seg.peerPort;
    w.seq = seg.seq;
    w.ack = seg.ack;
    w.flags = seg.flags;
    w.window = seg.window;
    w.windowScale = seg.windowScale;
    w.shift = seg.shift;
    w.sackPermitted = seg.sackPermitted;
    SendIpv4(nullptr, w, peer.Get(), id);
}

void
OffloadNetDevice::SendIpv4(Ptr<Packet> p, WireSegmentOut& w, uint32_t peer, uint32_t id)
{
    w.src = LocalAddressBits();
    w.dst = peer;
    if (m_pathLabels > 0 && id != NO_SLOT)
    {
        // sender-side spraying: the path of the stream's cell this segment belongs to (the
        // handshake, before the stream, is cell 0)
        const uint32_t offset = w.seq - (m_slots[id].hs.iss + 1);
        const uint32_t cell = offset < (1u << 31) ? offset / m_pathCellBytes : 0;
        w.ipId = static_cast<uint16_t>((id + cell) % m_pathLabels);
    }
    else
    {
        w.ipId = m_ipId++;
    }
    if (p)
    {
        w.payloadLen = p->GetSize();
    }
    if (!m_metadataKnown)
    {
        m_metadata = PacketMetadataEnabled();
        m_metadataKnown = true;
    }
    if (!p && !m_metadata && !m_checksums && m_lazyHeaders && IsFast())
    {
        // headers as fields: the frame is a zero placeholder of the right size, its header
        // written only if someone reads the bytes (a trace, a switch policy, a host stack).
        // Not on a point-to-point link, which would write every one at once.
        p = Create<Packet>(WireHeaderLength(w) + w.payloadLen);
        FabricFrameFields fields{w.dst, WireTos(w), true};
        fields.lazy = FabricLazyHeaderRef(new OffloadLazyWireHeader(w));
        ToWire(p, id, w, std::move(fields));
        return;
    }
    if (!p && w.payloadLen == 0 && !m_metadata && !m_checksums)
    {
        // a segment without payload is its headers: the packet is made from their bytes at
        // once (the bytes AddHeader would write, without an empty packet and a header object
        // first)
        uint8_t bytes[WIRE_MAX_HEADER_BYTES];
        p = Create<Packet>(bytes, BuildWire(w, bytes));
    }
    else
    {
        if (!p)
        {
            p = Create<Packet>(w.payloadLen); // a virtual payload: zero-filled, nothing stored
        }
        if (m_metadata)
        {
            AddNs3WireHeaders(p, w, m_checksums);
        }
        else
        {
            p->AddHeader(OffloadWireHeader(w, m_checksums));
        }
    }
    ToWire(p, id, w, FabricFrameFields{w.dst, WireTos(w), true});
}

void
OffloadNetDevice::ToWire(Ptr<Packet> p,
                         uint32_t id,
                         const WireSegmentOut& w,
                         FabricFrameFields fields)
{
    TraceWire(m_wireTxTrace, p, w.src, w.dst, w.srcPort, w.dstPort);
    // A segment waits behind those already waiting (the NIC never reorders its output), and
    // waits when the device queue is full: ACKs and handshake segments are sent beside the
    // data the transmit admission bounds, and a burst of handshakes (thousands of
    // connections opening) would otherwise be lost to the host's own queue.
    if (m_txBacklog.empty() && QueueHasRoom(p))
    {
        FabricLinkNetDevice::SendAt(p, m_wireDest, IPV4, FastSimulator::Now(), std::move(fields));
        return;
    }
    if (!IsLinkUp() || m_txBacklog.size() >= m_txBacklogPackets)
    {
        ++m_wireDrops;
        m_dropTrace(id, w.seq, w.payloadLen, OffloadDropReason::WIRE_QUEUE);
        TraceWire(m_wireTxDropTrace, p, w.src, w.dst, w.srcPort, w.dstPort);
        return;
    }
    m_txBacklog.emplace_back(p, std::move(fields));
    m_txBacklogMax = std::max<uint64_t>(m_txBacklogMax, m_txBacklog.size());
    ArmRefill();
}

bool
OffloadNetDevice::QueueHasRoom(Ptr<const Packet> p)
{
    return HasRoomFor(p->GetSize(), FastSimulator::Now());
}

void
OffloadNetDevice::DrainBacklog()
{
    while (!m_txBacklog.empty() && QueueHasRoom(m_txBacklog.front().first))
    {
        auto& [p, fields] = m_txBacklog.front();
        FabricLinkNetDevice::SendAt(p, m_wireDest, IPV4, FastSimulator::Now(), std::move(fields));
        m_txBacklog.pop_front();
    }
}

void
OffloadNetDevice::TimerScan()
{
    m_scanPending = false;
    uint64_t now = FastSimulator::NowNs();
    const bool timers = TimersDue(now);
    // Only the connections with something in flight or to send: an idle one has no timer
    // that can expire and nothing for the control loop to judge (TAS's loop would carry its
    // zero counts over), so thousands of idle persistent connections cost nothing here.
    for (size_t i = m_timed.size(); i-- > 0;)
    {
        const uint32_t id = m_timed[i];
        Conn& c = m_slots[id];
        if (c.tcp && c.tcp->UsesControlLoop() && now >= c.nextControlNs)
        {
            // the host control loop (rate-based CC, TAS-style timeouts), every interval
            bool timedOut = c.tcp->OnControlInterval(now);
            c.nextControlNs = now + c.tcp->GetControlIntervalNs();
            ++m_controlLoops;
            ChargeControlLoop(id);
            if (timedOut)
            {
                m_txScheduler.MarkReady(id);
            }
        }
        if (timers && c.tcp)
        {
            const OffloadTimerDecision t = c.tcp->OnTimerScan(now);
            if (t.timeout)
            {
                NS_LOG_LOGIC(this << " connection " << id << ": retransmission timeout");
            }
            OnTimersExamined(id, *c.tcp, t, now);
            if (t.WantsSend())
            {
                m_txScheduler.MarkReady(id);
            }
        }
        if (c.tcp && c.socket && c.socket->IsTraced())
        {
            c.socket->SyncTraces(*c.tcp); // a timeout's window and RTO, once traced
        }
        if (c.tcp && !c.tcp->NeedsTimers() && !m_txScheduler.IsReady(id))
        {
            RemoveTimed(id);
        }
    }
    PumpTx();
    if (!m_timed.empty() && !m_scanPending)
    {
        m_scanEvent = Simulator::Schedule(m_timerScanPeriod, &OffloadNetDevice::TimerScan, this);
        m_scanPending = true;
    }
}

// ------------------------------------------------------------------ execution model defaults

void
OffloadNetDevice::OnTimersExamined(uint32_t conn,
                                   const OffloadTcpConnection& tcp,
                                   const OffloadTimerDecision& decision,
                                   uint64_t nowNs)
{
}

void
OffloadNetDevice::ConfigureConnection(OffloadTcpConfig& cfg,
                                      Ipv4Address peer,
                                      uint16_t localPort,
                                      uint16_t peerPort,
                                      bool activeOpen)
{
}

Time
OffloadNetDevice::ProcessReceived(uint32_t conn,
                                  const OffloadSegment& seg,
                                  const OffloadRxDecision& decision)
{
    return Time(0);
}

Time
OffloadNetDevice::ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop)
{
    return Time(0);
}

bool
OffloadNetDevice::AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency)
{
    return true;
}

bool
OffloadNetDevice::TimersDue(uint64_t nowNs)
{
    return true;
}

bool
OffloadNetDevice::ReserveConnectionSlot()
{
    return true;
}

void
OffloadNetDevice::ReleaseConnectionSlot()
{
}

void
OffloadNetDevice::OnConnectionClosed(uint32_t conn)
{
}

void
OffloadNetDevice::GetEndpoints(uint32_t conn,
                               Ipv4Address& peer,
                               uint16_t& localPort,
                               uint16_t& peerPort) const
{
    const Conn& c = m_slots[conn];
    peer = c.peer;
    localPort = c.localPort;
    peerPort = c.peerPort;
}

void
OffloadNetDevice::OnEstablished(uint32_t conn, const OffloadTcpConnection& tcp)
{
}

void
OffloadNetDevice::OnApplicationRead(uint32_t conn, uint32_t bytes)
{
}

void
OffloadNetDevice::OnApplicationPosted(uint32_t conn)
{
}

const OffloadTcpConnection&
OffloadNetDevice::GetConnection(uint32_t conn) const
{
    NS_ABORT_MSG_IF(!m_slots[conn].tcp, "connection " << conn << " is not established");
    return *m_slots[conn].tcp;
}

const OffloadTcpConnection*
OffloadNetDevice::FindConnection(uint32_t conn) const
{
    return conn < m_slots.size() ? m_slots[conn].tcp.get() : nullptr;
}

// ------------------------------------------------------------------ statistics

OffloadTcpCounters
OffloadNetDevice::GetTotals() const
{
    OffloadTcpCounters t = m_finished;
    for (uint32_t id : m_active)
    {
        const Conn& c = m_slots[id];
        if (!c.tcp)
        {
            continue;
        }
        t += c.tcp->GetCounters();
    }
    return t;
}

uint64_t
OffloadNetDevice::GetRefusedConnections() const
{
    return m_refused;
}

uint64_t
OffloadNetDevice::GetNicTxDrops() const
{
    return m_nicTxDrops + m_wireDrops;
}

uint64_t
OffloadNetDevice::GetControlPlaneCycles() const
{
    return m_cpCycles;
}

OffloadHostWork
OffloadNetDevice::GetHostWork() const
{
    OffloadHostWork w;
    w.controlPlaneEvents = m_cpEvents;
    w.controlLoopRuns = m_controlLoops;
    w.appNotifications = m_notifications;
    w.dmaTransfers = m_dmaTransfers;
    return w;
}

std::string
OffloadNetDevice::GetNativeCongestion() const
{
    return "dctcp";
}

void
OffloadNetDevice::AddCounters(nlohmann::json& nic) const
{
    OffloadTcpCounters t = GetTotals();
    auto add = [&nic](const char* key, uint64_t v) { nic[key] = nic.value(key, uint64_t(0)) + v; };
    add("segments_received", t.segmentsReceived);
    add("in_order", t.inOrder);
    add("out_of_order_placed", t.outOfOrderPlaced);
    add("fidelity_drops", t.fidelityDrops);
    add("window_drops", t.windowDrops);
    add("duplicates", t.duplicates);
    add("dup_acks", t.dupAcks);
    add("go_back_n", t.goBackN);
    add("retx_segments", t.retransmittedSegments);
    add("retx_bytes", t.retransmittedBytes);
    add("timeouts", t.timeouts);
    add("ce_received", t.ceReceived);
    add("ece_received", t.eceReceived);
    add("connections_established", m_established);
    if (m_dma[DMA_TX])
    {
        // the shared host interface, per direction and channel: bytes summed over the NICs,
        // the largest backlog any NIC had (NICs may have different channel counts)
        nlohmann::json& d = nic["dma_channels"];
        if (d.is_null())
        {
            d = nlohmann::json::object();
        }
        d["channels"] = std::max<uint32_t>(d.value("channels", 0u), m_dmaChannels);
        for (int dir = DMA_RX; dir <= DMA_TX; ++dir)
        {
            const OffloadDmaEngine& e = m_dma[dir]->GetEngine();
            const std::string name = dir == DMA_RX ? "rx" : "tx";
            nlohmann::json& bytes = d[name + "_bytes"];
            nlohmann::json& backlog = d[name + "_backlog_max_bytes"];
            for (uint32_t i = 0; i < e.GetChannels(); ++i)
            {
                if (bytes.size() <= i)
                {
                    bytes.push_back(0);
                    backlog.push_back(0);
                }
                bytes[i] = bytes[i].get<uint64_t>() + e.GetChannelBytes()[i];
                backlog[i] = std::max(backlog[i].get<uint64_t>(), e.GetChannelBacklogMax()[i]);
            }
        }
    }
    add("resets", m_resets);
    add("rst_challenged", t.rstChallenged);
    add("rst_ignored", t.rstIgnored + m_handshakeRstIgnored);
    add("handshake_drops", m_handshakeDrops);
    add("no_host_stack_drops", m_noHostStackDrops);
    add("syn_challenged", t.synChallenged);
    add("invalid_acks", t.invalidAcks);
    add("ack_too_old", t.ackTooOld);
    add("no_ack_drops", t.noAckDrops);
    add("challenge_acks", t.challengeAcks);
    add("challenge_acks_suppressed", t.challengeAcksSuppressed);
    add("connections_refused", m_refused);
    add("handshake_failures", m_handshakeFailures);
    add("control_plane_cycles", m_cpCycles);
    add("control_loop_runs", m_controlLoops);
    add("dma_transfers", m_dmaTransfers);
    add("fin_before_data", m_finBeforeData);
    add("nic_rx_drops", m_nicRxDrops);
    add("nic_tx_drops", m_nicTxDrops);
    add("nic_tx_queue_drops", m_wireDrops);
    uint64_t malformed = 0;
    for (size_t e = 0; e < m_malformed.size(); ++e)
    {
        if (m_malformed[e] > 0)
        {
            const char* name = WireErrorName(static_cast<WireError>(e));
            nlohmann::json& byReason = nic["malformed"];
            if (!byReason.is_object())
            {
                byReason = nlohmann::json::object(); // value() on the new null would throw
            }
            byReason[name] = byReason.value(name, uint64_t(0)) + m_malformed[e];
            malformed += m_malformed[e];
        }
    }
    add("malformed_drops", malformed);
    nic["nic_tx_backlog_max"] =
        std::max(nic.value("nic_tx_backlog_max", uint64_t(0)), m_txBacklogMax);
    add("app_notifications", m_notifications);
}

} // namespace ns3
