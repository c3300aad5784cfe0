/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-socket.h"

#include "offload-net-device.h"
#include "offload-socket-traces.h"
#include "offload-tcp-connection.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/object-vector.h"
#include "ns3/packet.h"
#include "ns3/presto-input-error.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadSocket");
NS_OBJECT_ENSURE_REGISTERED(OffloadSocket);

TypeId
OffloadSocket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OffloadSocket")
            .SetParent<TcpSocket>()
            .SetGroupName("Presto")
            .AddConstructor<OffloadSocket>()
            .AddAttribute("DmaChannel",
                          "The DMA channel (an RDMA queue pair to the NIC) of the application "
                          "that owns this socket, when the NIC shares its host interface among "
                          "channels (OffloadNetDevice::DmaChannels > 0): 0..DmaChannels-1. A "
                          "listening socket's accepted connections use its channel",
                          UintegerValue(0),
                          MakeUintegerAccessor(&OffloadSocket::m_dmaChannel),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("CongestionWindow",
                            "The connection's congestion window, bytes (as TcpSocketBase's)",
                            MakeEnablingTraceSourceAccessor<OffloadSocket>(&OffloadSocket::m_cWnd),
                            "ns3::TracedValueCallback::Uint32")
            .AddTraceSource(
                "SlowStartThreshold",
                "The connection's slow-start threshold, bytes (as TcpSocketBase's)",
                MakeEnablingTraceSourceAccessor<OffloadSocket>(&OffloadSocket::m_ssThreshTrace),
                "ns3::TracedValueCallback::Uint32")
            .AddTraceSource(
                "RTT",
                "The last RTT sample of the connection (as TcpSocketBase's)",
                MakeEnablingTraceSourceAccessor<OffloadSocket>(&OffloadSocket::m_lastRtt),
                "ns3::TracedValueCallback::Time")
            .AddTraceSource("RTO",
                            "The connection's retransmission timeout, with its backoff",
                            MakeEnablingTraceSourceAccessor<OffloadSocket>(&OffloadSocket::m_rto),
                            "ns3::TracedValueCallback::Time")
            .AddTraceSource(
                "BytesInFlight",
                "Bytes sent and not yet acknowledged (snd_max - snd_una), bytes",
                MakeEnablingTraceSourceAccessor<OffloadSocket>(&OffloadSocket::m_bytesInFlight),
                "ns3::TracedValueCallback::Uint32")
            .AddTraceSource(
                "OutOfOrderIntervals",
                "Out-of-order intervals the receive side holds (at most the fidelity K)",
                MakeEnablingTraceSourceAccessor<OffloadSocket>(&OffloadSocket::m_intervals),
                "ns3::TracedValueCallback::Uint32")
            .AddTraceSource("State",
                            "The connection's TCP state (as TcpSocketBase's)",
                            MakeTraceSourceAccessor(&OffloadSocket::m_state),
                            "ns3::TcpStatesTracedValueCallback")
            .AddTraceSource(
                "Tx",
                "A segment of the connection left the NIC's data path for the wire",
                MakeEnablingTraceSourceAccessor<OffloadSocket>(&OffloadSocket::m_txTrace),
                "ns3::OffloadSocket::TcpTxRxTracedCallback")
            .AddTraceSource(
                "Rx",
                "A segment of the connection reached the NIC's data path",
                MakeEnablingTraceSourceAccessor<OffloadSocket>(&OffloadSocket::m_rxTrace),
                "ns3::OffloadSocket::TcpTxRxTracedCallback")
            .AddTraceSource(
                "Retransmission",
                "The data path re-sends a segment (go-back-N after duplicate ACKs or a timeout)",
                MakeEnablingTraceSourceAccessor<OffloadSocket>(&OffloadSocket::m_retxTrace),
                "ns3::OffloadSocket::TcpTxRxTracedCallback");
    return tid;
}

OffloadSocket::OffloadSocket()
    : m_errno(ERROR_NOTERROR)
{
    NS_LOG_FUNCTION(this);
}

OffloadSocket::~OffloadSocket()
{
    NS_LOG_FUNCTION(this);
}

void
OffloadSocket::SetDevice(Ptr<Node> node, Ptr<OffloadNetDevice> device)
{
    m_node = node;
    m_device = device;
}

enum Socket::SocketErrno
OffloadSocket::GetErrno() const
{
    return m_errno;
}

enum Socket::SocketType
OffloadSocket::GetSocketType() const
{
    return NS3_SOCK_STREAM;
}

Ptr<Node>
OffloadSocket::GetNode() const
{
    return m_node;
}

int
OffloadSocket::Bind()
{
    m_localPort = m_device->AllocatePort();
    if (m_localPort == 0)
    {
        m_errno = ERROR_ADDRNOTAVAIL;
        return -1;
    }
    return 0;
}

int
OffloadSocket::Bind6()
{
    m_errno = ERROR_AFNOSUPPORT;
    return -1;
}

int
OffloadSocket::Bind(const Address& address)
{
    if (!InetSocketAddress::IsMatchingType(address))
    {
        m_errno = ERROR_INVAL;
        return -1;
    }
    uint16_t port = InetSocketAddress::ConvertFrom(address).GetPort();
    if (port == 0)
    {
        return Bind();
    }
    if (!m_device->ReservePort(port))
    {
        m_errno = ERROR_ADDRINUSE;
        return -1;
    }
    m_localPort = port;
    return 0;
}

int
OffloadSocket::Connect(const Address& address)
{
    NS_LOG_FUNCTION(this << address);
    if (!InetSocketAddress::IsMatchingType(address) || m_conn != NO_CONN)
    {
        m_errno = ERROR_INVAL;
        return -1;
    }
    if (m_localPort == 0 && Bind() != 0)
    {
        return -1;
    }
    InetSocketAddress remote = InetSocketAddress::ConvertFrom(address);
    m_peer = remote.GetIpv4();
    m_peerPort = remote.GetPort();
    CheckAttributes("OffloadSocket::Connect");
    if (!m_device->Connect(this, m_localPort, m_peer, m_peerPort))
    {
        m_errno = ERROR_AGAIN; // connection table full: refused, counted by the device
        m_localPort = 0;       // the device released the port
        Forget();
        return -1;
    }
    SetState(SYN_SENT);
    return 0;
}

int
OffloadSocket::Listen()
{
    NS_LOG_FUNCTION(this);
    if (m_localPort == 0)
    {
        m_errno = ERROR_INVAL;
        return -1;
    }
    CheckAttributes("OffloadSocket::Listen");
    m_listening = true;
    m_device->Listen(m_localPort, this);
    SetState(LISTEN);
    return 0;
}

int
OffloadSocket::Close()
{
    NS_LOG_FUNCTION(this);
    if (m_closed)
    {
        return 0;
    }
    m_closed = true;
    if (m_listening)
    {
        m_device->Unlisten(m_localPort);
        SetState(CLOSED);
    }
    else if (m_conn != NO_CONN)
    {
        // our FIN follows the data: FIN_WAIT_1, or LAST_ACK after the peer's FIN
        SetState(m_state == CLOSE_WAIT ? LAST_ACK : FIN_WAIT_1);
        m_device->Close(m_conn);
    }
    return 0;
}

int
OffloadSocket::ShutdownSend()
{
    if (m_listening)
    {
        // A listening socket sends nothing: PacketSink calls ShutdownSend right after
        // Listen, which must not stop it from accepting connections.
        return 0;
    }
    return Close();
}

int
OffloadSocket::ShutdownRecv()
{
    return 0;
}

uint32_t
OffloadSocket::GetTxAvailable() const
{
    if (m_conn == NO_CONN || m_closed)
    {
        return 0;
    }
    return m_device->GetTxAvailable(m_conn);
}

int
OffloadSocket::Send(Ptr<Packet> p, uint32_t flags)
{
    if (!MaySend(p->GetSize()))
    {
        return -1;
    }
    return static_cast<int>(m_device->Write(m_conn, p));
}

int
OffloadSocket::SendBytes(uint32_t bytes)
{
    if (!MaySend(bytes))
    {
        return -1;
    }
    return static_cast<int>(m_device->WriteBytes(m_conn, bytes));
}

bool
OffloadSocket::MaySend(uint32_t bytes)
{
    if (m_conn == NO_CONN || m_closed)
    {
        m_errno = ERROR_NOTCONN;
        return false;
    }
    if (bytes > GetTxAvailable())
    {
        m_errno = ERROR_MSGSIZE;
        return false;
    }
    return true;
}

int
OffloadSocket::SendTo(Ptr<Packet> p, uint32_t flags, const Address& toAddress)
{
    return Send(p, flags);
}

uint32_t
OffloadSocket::GetRxAvailable() const
{
    return m_conn == NO_CONN ? 0 : m_device->GetRxAvailable(m_conn);
}

Ptr<Packet>
OffloadSocket::Recv(uint32_t maxSize, uint32_t flags)
{
    if (m_conn == NO_CONN)
    {
        return nullptr;
    }
    return m_device->Read(m_conn, maxSize);
}

uint32_t
OffloadSocket::RecvBytes(uint32_t maxBytes)
{
    return m_conn == NO_CONN ? 0 : m_device->ReadBytes(m_conn, maxBytes);
}

Ptr<Packet>
OffloadSocket::RecvFrom(uint32_t maxSize, uint32_t flags, Address& fromAddress)
{
    Ptr<Packet> p = Recv(maxSize, flags);
    if (p)
    {
        fromAddress = InetSocketAddress(m_peer, m_peerPort);
    }
    return p;
}

int
OffloadSocket::GetSockName(Address& address) const
{
    address = InetSocketAddress(m_device ? m_device->GetLocalAddress() : Ipv4Address::GetAny(),
                                m_localPort);
    return 0;
}

int
OffloadSocket::GetPeerName(Address& address) const
{
    if (m_conn == NO_CONN)
    {
        m_errno = ERROR_NOTCONN;
        return -1;
    }
    address = InetSocketAddress(m_peer, m_peerPort);
    return 0;
}

bool
OffloadSocket::SetAllowBroadcast(bool allowBroadcast)
{
    return !allowBroadcast;
}

bool
OffloadSocket::GetAllowBroadcast() const
{
    return false;
}

void
OffloadSocket::Attach(uint32_t conn, uint16_t localPort, Ipv4Address peer, uint16_t peerPort)
{
    m_conn = conn;
    m_localPort = localPort;
    m_peer = peer;
    m_peerPort = peerPort;
}

void
OffloadSocket::Established()
{
    m_connected = true;
    if (m_state == SYN_SENT)
    {
        SetState(ESTABLISHED); // not when the application closed during the handshake
    }
    NotifyConnectionSucceeded();
    NotifySend(GetTxAvailable());
}

void
OffloadSocket::Failed()
{
    m_conn = NO_CONN;
    m_localPort = 0; // the device released the port with the slot; a new Connect binds again
    SetState(CLOSED);
    Forget();
    NotifyConnectionFailed();
}

void
OffloadSocket::Accepted(Ptr<OffloadSocket> socket, const Address& from)
{
    socket->SetState(ESTABLISHED); // the handshake is complete when it is created
    if (Ptr<OffloadSocketFactory> f = m_node->GetObject<OffloadSocketFactory>())
    {
        f->AddSocket(socket);
    }
    if (NotifyConnectionRequest(from))
    {
        NotifyNewConnectionCreated(socket, from);
    }
}

void
OffloadSocket::DataArrived()
{
    NotifyDataRecv();
}

void
OffloadSocket::SpaceFreed(uint32_t available)
{
    if (!m_closed)
    {
        NotifySend(available);
    }
}

void
OffloadSocket::PeerClosed()
{
    if (m_state == ESTABLISHED)
    {
        SetState(CLOSE_WAIT);
    }
    else if (m_state == FIN_WAIT_1)
    {
        // both FINs sent: TIME_WAIT if ours was acknowledged already, else CLOSING (the
        // device keeps the 4-tuple in TIME-WAIT once the slot is freed)
        const OffloadTcpConnection* tcp =
            m_conn == NO_CONN ? nullptr : m_device->FindConnection(m_conn);
        SetState(tcp && tcp->IsFinAcked() ? TIME_WAIT : CLOSING);
    }
    NotifyNormalClose();
}

void
OffloadSocket::Finished()
{
    // the NIC calls this from FreeSlot, before it clears the slot
    if (const OffloadTcpConnection* tcp = m_device->FindConnection(m_conn))
    {
        m_lastCounters = tcp->GetCounters();
    }
    m_conn = NO_CONN;
    SetState(CLOSED);
    Forget();
}

OffloadTcpCounters
OffloadSocket::GetConnectionCounters() const
{
    if (m_conn != NO_CONN)
    {
        if (const OffloadTcpConnection* tcp = m_device->FindConnection(m_conn))
        {
            return tcp->GetCounters();
        }
    }
    return m_lastCounters;
}

void
OffloadSocket::Reset()
{
    m_conn = NO_CONN;
    m_errno = ERROR_SHUTDOWN; // later Send/Recv calls fail, as on a reset ns-3 socket
    SetState(CLOSED);
    Forget();
    NotifyErrorClose();
}

uint32_t
OffloadSocket::GetMss() const
{
    return m_segSize;
}

uint32_t
OffloadSocket::GetDmaChannel() const
{
    return m_dmaChannel;
}

uint32_t
OffloadSocket::GetInitialCwndSegments() const
{
    return m_initialCwnd;
}

void
OffloadSocket::SetState(TcpStates_t state)
{
    NS_LOG_LOGIC(this << " " << TcpStateName[m_state] << " -> " << TcpStateName[state]);
    m_state = state;
}

void
OffloadSocket::Forget()
{
    if (Ptr<OffloadSocketFactory> f = m_node ? m_node->GetObject<OffloadSocketFactory>() : nullptr)
    {
        f->RemoveSocket(this);
    }
}

// ------------------------------------------------------------------ trace sources

void
OffloadSocket::EnableTraces()
{
    NS_LOG_FUNCTION(this);
    m_traced = true;
}

void
OffloadSocket::SyncTraces(const OffloadTcpConnection& tcp)
{
    // a TracedValue calls its sinks only when the value changed
    m_cWnd = tcp.GetCwnd();
    m_ssThreshTrace = tcp.GetCongestion().GetSsThresh();
    m_bytesInFlight = tcp.GetSndMax() - tcp.GetSndUna();
    m_rto = NanoSeconds(static_cast<int64_t>(tcp.GetRtoNs()));
    if (tcp.GetCounters().rttSamples > 0)
    {
        m_lastRtt = NanoSeconds(tcp.GetLastRttNs());
    }
    m_intervals = tcp.GetReassembly().GetLiveSlotCount();
}

void
OffloadSocket::TraceTx(const OffloadSegment& seg, uint16_t window, Ptr<const Packet> payload)
{
    if (!m_txTrace.IsEmpty())
    {
        m_txTrace(payload ? payload : Ptr<const Packet>(Create<Packet>(seg.payloadLen)),
                  OffloadTraceHeader(seg, m_localPort, m_peerPort, window),
                  this);
    }
}

void
OffloadSocket::TraceRx(const OffloadSegment& seg, uint16_t window)
{
    if (!m_rxTrace.IsEmpty())
    {
        m_rxTrace(Create<Packet>(seg.payloadLen),
                  OffloadTraceHeader(seg, m_peerPort, m_localPort, window),
                  this);
    }
}

void
OffloadSocket::TraceRetransmission(const OffloadSegment& seg)
{
    NS_LOG_LOGIC(this << " retransmission seq " << seg.seq << " len " << seg.payloadLen);
    if (!m_retxTrace.IsEmpty())
    {
        m_retxTrace(Create<Packet>(seg.payloadLen),
                    OffloadTraceHeader(seg, m_localPort, m_peerPort, 0),
                    this);
    }
}

} // namespace ns3
