/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-socket.h"

#include "offload-net-device.h"

#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/presto-input-error.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("OffloadSocket");
NS_OBJECT_ENSURE_REGISTERED(OffloadSocket);
NS_OBJECT_ENSURE_REGISTERED(OffloadSocketFactory);

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
                          MakeUintegerChecker<uint32_t>());
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
    if (!m_device->Connect(this, m_localPort, m_peer, m_peerPort))
    {
        m_errno = ERROR_AGAIN; // connection table full: refused, counted by the device
        m_localPort = 0;       // the device released the port
        return -1;
    }
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
    m_listening = true;
    m_device->Listen(m_localPort, this);
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
    }
    else if (m_conn != NO_CONN)
    {
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
    NotifyConnectionSucceeded();
    NotifySend(GetTxAvailable());
}

void
OffloadSocket::Failed()
{
    m_conn = NO_CONN;
    m_localPort = 0; // the device released the port with the slot; a new Connect binds again
    NotifyConnectionFailed();
}

void
OffloadSocket::Accepted(Ptr<OffloadSocket> socket, const Address& from)
{
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
    NotifyNormalClose();
}

void
OffloadSocket::Finished()
{
    m_conn = NO_CONN;
}

void
OffloadSocket::Reset()
{
    m_conn = NO_CONN;
    m_errno = ERROR_SHUTDOWN; // later Send/Recv calls fail, as on a reset ns-3 socket
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

// TcpSocket attributes: kept so that applications configure the socket as usual. The NIC
// applies the buffer sizes, MSS and initial window; timers are the NIC's own.
void
OffloadSocket::SetSndBufSize(uint32_t size)
{
    m_sndBuf = size;
}

uint32_t
OffloadSocket::GetSndBufSize() const
{
    return m_sndBuf;
}

void
OffloadSocket::SetRcvBufSize(uint32_t size)
{
    m_rcvBuf = size;
}

uint32_t
OffloadSocket::GetRcvBufSize() const
{
    return m_rcvBuf;
}

void
OffloadSocket::SetSegSize(uint32_t size)
{
    m_segSize = size;
}

uint32_t
OffloadSocket::GetSegSize() const
{
    return m_segSize;
}

void
OffloadSocket::SetInitialSSThresh(uint32_t threshold)
{
    m_ssThresh = threshold;
}

uint32_t
OffloadSocket::GetInitialSSThresh() const
{
    return m_ssThresh;
}

void
OffloadSocket::SetInitialCwnd(uint32_t cwnd)
{
    m_initialCwnd = cwnd;
}

uint32_t
OffloadSocket::GetInitialCwnd() const
{
    return m_initialCwnd;
}

void
OffloadSocket::SetConnTimeout(Time timeout)
{
    m_connTimeout = timeout;
}

Time
OffloadSocket::GetConnTimeout() const
{
    return m_connTimeout;
}

void
OffloadSocket::SetSynRetries(uint32_t count)
{
    m_synRetries = count;
}

uint32_t
OffloadSocket::GetSynRetries() const
{
    return m_synRetries;
}

void
OffloadSocket::SetDataRetries(uint32_t retries)
{
    m_dataRetries = retries;
}

uint32_t
OffloadSocket::GetDataRetries() const
{
    return m_dataRetries;
}

void
OffloadSocket::SetDelAckTimeout(Time timeout)
{
    m_delAckTimeout = timeout;
}

Time
OffloadSocket::GetDelAckTimeout() const
{
    return m_delAckTimeout;
}

void
OffloadSocket::SetDelAckMaxCount(uint32_t count)
{
    m_delAckCount = count;
}

uint32_t
OffloadSocket::GetDelAckMaxCount() const
{
    return m_delAckCount;
}

void
OffloadSocket::SetTcpNoDelay(bool noDelay)
{
    m_noDelay = noDelay;
}

bool
OffloadSocket::GetTcpNoDelay() const
{
    return m_noDelay;
}

void
OffloadSocket::SetPersistTimeout(Time timeout)
{
    m_persistTimeout = timeout;
}

Time
OffloadSocket::GetPersistTimeout() const
{
    return m_persistTimeout;
}

TypeId
OffloadSocketFactory::GetTypeId()
{
    static TypeId tid = TypeId("ns3::OffloadSocketFactory")
                            .SetParent<SocketFactory>()
                            .SetGroupName("Presto")
                            .AddConstructor<OffloadSocketFactory>();
    return tid;
}

std::string
OffloadSocketFactory::MissingNic(Ptr<Node> node)
{
    Ptr<OffloadSocketFactory> f = node ? node->GetObject<OffloadSocketFactory>() : nullptr;
    if (f && f->HasDevice())
    {
        return "";
    }
    return "OffloadSocketFactory: node " +
           (node ? std::to_string(node->GetId()) : std::string("?")) +
           " has no offload NIC; install one (OffloadNetDevice or a design derived from it, "
           "e.g. with FabricHelper or OffloadNicHelper) or ask for ns3::TcpSocketFactory on "
           "this node";
}

void
OffloadSocketFactory::RequireNic(Ptr<Node> node)
{
    const std::string problem = MissingNic(node);
    if (!problem.empty())
    {
        throw PrestoInputError(problem);
    }
}

Ptr<Socket>
OffloadSocketFactory::CreateSocket()
{
    if (!m_device)
    {
        NS_FATAL_ERROR(MissingNic(GetObject<Node>()));
    }
    Ptr<OffloadSocket> s = CreateObject<OffloadSocket>();
    s->SetDevice(m_device->GetNode(), m_device);
    return s;
}

void
OffloadSocketFactory::SetDevice(Ptr<OffloadNetDevice> device)
{
    m_device = device;
}

bool
OffloadSocketFactory::HasDevice() const
{
    return m_device != nullptr;
}

void
OffloadSocketFactory::GuardNodesWithoutNic()
{
    static EventId guard;
    if (guard.IsExpired())
    {
        guard = Simulator::ScheduleNow(&OffloadSocketFactory::GuardNow);
    }
}

void
OffloadSocketFactory::GuardNow()
{
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        if (!(*it)->GetObject<OffloadSocketFactory>())
        {
            (*it)->AggregateObject(CreateObject<OffloadSocketFactory>());
        }
    }
}

void
OffloadSocketFactory::DoDispose()
{
    m_device = nullptr;
    SocketFactory::DoDispose();
}

} // namespace ns3
