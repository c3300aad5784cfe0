/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadNetDevice's attributes and trace sources (its TypeId), in groups by the part
// of the NIC they configure.

#include "offload-net-device.h"
#include "offload-window-congestion.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

TypeId
OffloadNetDevice::GetTypeId()
{
    static TypeId tid = [] {
        TypeId t = TypeId("ns3::OffloadNetDevice")
                       .SetParent<FabricLinkNetDevice>()
                       .SetGroupName("Presto"); // abstract: no constructor
        // in groups, in this order (the order of the attributes in the TypeId)
        AddTableAndDmaAttributes(t);
        AddHostAndTransmitAttributes(t);
        AddDataPathAttributes(t);
        AddTraceSources(t);
        return t;
    }();
    return tid;
}

void
OffloadNetDevice::AddTableAndDmaAttributes(TypeId& tid)
{
    // the connection table and the timer scan; DMA between NIC and host memory
    tid.AddAttribute("MaxConnections",
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
        .AddAttribute("DmaArbitration",
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
                      MakeUintegerChecker<uint32_t>(1));
}

void
OffloadNetDevice::AddHostAndTransmitAttributes(TypeId& tid)
{
    // the host control plane; what the NIC commits towards the wire
    tid.AddAttribute("SynTimeout",
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
                      MakeUintegerChecker<uint32_t>(1, 100000));
}

void
OffloadNetDevice::AddDataPathAttributes(TypeId& tid)
{
    // the data path of every connection; sender-side spraying; TIME-WAIT
    tid.AddAttribute("MinRto",
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
                      MakeTimeChecker(Time(0)));
}

void
OffloadNetDevice::AddTraceSources(TypeId& tid)
{
    // the trace sources
    tid.AddTraceSource("Segment",
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
}

} // namespace ns3
