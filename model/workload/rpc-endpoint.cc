/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rpc-endpoint.h"

#include "payload-pattern.h"

#include "ns3/enum.h"
#include "ns3/host-cpu.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RpcEndpoint");
NS_OBJECT_ENSURE_REGISTERED(RpcEndpoint);

namespace
{
/// Largest chunk written to a socket at once, bytes.
constexpr uint64_t WRITE_CHUNK = 65536;

/// The payload stream of a connection's direction (requests: 0, responses: 1).
uint32_t
Stream(uint64_t conn, bool response)
{
    return static_cast<uint32_t>(conn * 2 + (response ? 1 : 0));
}
} // namespace

TypeId
RpcEndpoint::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::RpcEndpoint")
            .SetParent<Object>()
            .SetGroupName("Presto")
            .AddConstructor<RpcEndpoint>()
            .AddAttribute("Port",
                          "TCP port every host's RPC server listens on",
                          UintegerValue(7000),
                          MakeUintegerAccessor(&RpcEndpoint::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("ServerCores",
                          "Worker cores of each server host that serve requests, each a "
                          "ServiceTime long, in order per core (0: no server model, a response "
                          "is written as soon as its request is read), cores",
                          UintegerValue(0),
                          MakeUintegerAccessor(&RpcEndpoint::m_serverCores),
                          MakeUintegerChecker<uint32_t>(0, 4096))
            .AddAttribute("ServiceTime",
                          "Time a worker core spends on one request: on ServerCores worker "
                          "cores, or (ServerCores=0) on the server host's own cores of a timed "
                          "ns3::HostCpu, as ServiceTime x its Clock cycles beside the stack's work",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&RpcEndpoint::m_serviceTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Steering",
                          "Which core serves a request: Affinity (the connection's core, a "
                          "hash of the connection), HostDispatch (a dispatcher core hands each "
                          "request to the core that frees first, DispatchTime each), Nic (the "
                          "NIC's RPC stage does that, no host work; needs a NIC with an RPC "
                          "stage, PrestoHybridNetDevice::RpcSteering)",
                          EnumValue(RPC_AFFINITY),
                          compat::MakeEnumAccessor<RpcSteering>(&RpcEndpoint::m_steering),
                          MakeEnumChecker(RPC_AFFINITY,
                                          "Affinity",
                                          RPC_HOST_DISPATCH,
                                          "HostDispatch",
                                          RPC_NIC,
                                          "Nic"))
            .AddAttribute("DispatchTime",
                          "Host dispatcher time per request with Steering=HostDispatch (assumed "
                          "value: 200 ns, 500 cycles at 2.5 GHz, the order of a hand-over "
                          "through a shared-memory queue)",
                          TimeValue(NanoSeconds(200)),
                          MakeTimeAccessor(&RpcEndpoint::m_dispatchTime),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("AppWrite",
                            "An application wrote bytes into its socket",
                            MakeTraceSourceAccessor(&RpcEndpoint::m_writeTrace),
                            "ns3::RpcEndpoint::HostBytesTracedCallback")
            .AddTraceSource("AppRead",
                            "An application read bytes from its socket",
                            MakeTraceSourceAccessor(&RpcEndpoint::m_readTrace),
                            "ns3::RpcEndpoint::HostBytesTracedCallback")
            .AddTraceSource("Connection",
                            "A connection end was set up at a host (client on "
                            "connect, server on accept)",
                            MakeTraceSourceAccessor(&RpcEndpoint::m_connectionTrace),
                            "ns3::RpcEndpoint::HostTracedCallback");
    return tid;
}

RpcEndpoint::RpcEndpoint()
    : m_buf(WRITE_CHUNK)
{
    NS_LOG_FUNCTION(this);
}

RpcEndpoint::~RpcEndpoint()
{
    NS_LOG_FUNCTION(this);
}

void
RpcEndpoint::DoDispose()
{
    for (auto* v : {&m_clients, &m_servers})
    {
        for (auto& e : *v)
        {
            if (e)
            {
                e->owner = nullptr;
                e->socket = nullptr;
            }
        }
        v->clear();
    }
    m_listeners.clear();
    m_transport = nullptr;
    Object::DoDispose();
}

void
RpcEndpoint::Install(Ptr<TcpSocketEndpoint> transport,
                     const NodeContainer& hosts,
                     const std::vector<Ipv4Address>& addresses,
                     const RpcWorkloadConfig& config,
                     const RpcSizes& request,
                     const RpcSizes& response)
{
    NS_LOG_FUNCTION(this << hosts.GetN());
    config.Validate();
    m_transport = transport;
    m_hosts = hosts;
    m_addresses = addresses;
    m_config = config;
    m_request = request;
    m_response = response;
    m_clients.assign(config.Connections(), nullptr);
    for (uint32_t h = 0; h < hosts.GetN(); ++h)
    {
        Ptr<Socket> l = Socket::CreateSocket(hosts.Get(h), transport->FactoryFor(h));
        transport->ConfigureSocket(l); // accepted sockets inherit it
        NS_ABORT_MSG_IF(l->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0,
                        "RPC server cannot listen on host " << h << " port " << m_port);
        l->Listen();
        l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                             MakeCallback(&RpcEndpoint::Accept, this));
        m_listeners.push_back(l);
    }
}

void
RpcEndpoint::Start(Time openWindow, Time measureFrom, Time stop)
{
    m_measureFrom = measureFrom;
    m_stop = stop;
    m_cores.clear();
    if (m_serverCores > 0)
    {
        for (uint32_t h = 0; h < m_hosts.GetN(); ++h)
        {
            m_cores.emplace_back(m_serverCores,
                                 m_serviceTime.GetNanoSeconds(),
                                 m_steering,
                                 m_dispatchTime.GetNanoSeconds());
        }
    }
    const uint64_t n = m_config.Connections();
    for (uint64_t conn = 0; conn < n; ++conn)
    {
        // evenly spread, in connection order (a SYN storm at one instant is not the point)
        const Time at = NanoSeconds(static_cast<int64_t>(
            static_cast<double>(openWindow.GetNanoSeconds()) * conn / static_cast<double>(n)));
        Simulator::Schedule(at, &RpcEndpoint::Open, this, conn);
    }
}

void
RpcEndpoint::Open(uint64_t conn)
{
    const uint32_t client = m_config.ClientOf(conn);
    const uint32_t server = m_config.ServerOf(conn);
    Ptr<Socket> s = Socket::CreateSocket(m_hosts.Get(client), m_transport->FactoryFor(client));
    m_transport->ConfigureSocket(s);
    if (s->Bind() != 0)
    {
        ++m_failed;
        NS_LOG_WARN("host " << client << ": no free port for RPC connection " << conn);
        return;
    }
    m_pending.Expect(s, m_addresses[client], m_addresses[server], conn);
    Ptr<End> e = Create<End>();
    e->owner = this;
    e->conn = conn;
    e->host = client;
    e->client = true;
    e->socket = s;
    m_clients[conn] = e;
    s->SetConnectCallback(MakeCallback(&End::Connected, PeekPointer(e)),
                          MakeCallback(&End::Failed, PeekPointer(e)));
    s->SetSendCallback(MakeCallback(&End::Space, PeekPointer(e)));
    s->SetRecvCallback(MakeCallback(&End::Read, PeekPointer(e)));
    m_connectionTrace(client);
    if (s->Connect(InetSocketAddress(m_addresses[server], m_port)) != 0)
    {
        e->Failed(s); // refused at once (e.g. the NIC's connection table is full)
    }
}

void
RpcEndpoint::Accept(Ptr<Socket> socket, const Address& from)
{
    const uint64_t conn = m_pending.Take(socket, from, "RPC server");
    Ptr<End> e = Create<End>();
    e->owner = this;
    e->conn = conn;
    e->host = m_config.ServerOf(e->conn);
    e->client = false;
    e->socket = socket;
    e->connected = true;
    e->rxRemaining = e->Sizes(0).first;
    m_servers.push_back(e);
    socket->SetSendCallback(MakeCallback(&End::Space, PeekPointer(e)));
    socket->SetRecvCallback(MakeCallback(&End::Read, PeekPointer(e)));
    socket->SetCloseCallbacks(MakeCallback(&End::Closed, PeekPointer(e)),
                              MakeCallback(&End::Closed, PeekPointer(e)));
    m_connectionTrace(e->host);
    e->Read(socket); // a request may have come with the handshake's last ACK
}

std::pair<uint64_t, uint64_t>
RpcEndpoint::End::Sizes(uint64_t k) const
{
    if (owner->m_kv)
    {
        return owner->m_kv->Sizes(owner->m_config.seed, conn, k).first;
    }
    return RpcMessageSizes(owner->m_config.seed, conn, k, owner->m_request, owner->m_response);
}

void
RpcEndpoint::SetKvMix(const RpcKvMix& kv)
{
    m_kv = std::make_unique<RpcKvMix>(kv);
}

void
RpcEndpoint::End::Connected(Ptr<Socket>)
{
    if (!owner)
    {
        return;
    }
    connected = true;
    ++owner->m_established;
    rxRemaining = Sizes(0).second;
    if (owner->m_config.ratePerHost > 0)
    {
        ScheduleArrival();
        return;
    }
    Issue();
}

void
RpcEndpoint::End::ScheduleArrival()
{
    const double meanNs = 1e9 * owner->m_config.connectionsPerHost / owner->m_config.ratePerHost;
    const int64_t gap = RpcArrivalGapNs(owner->m_config.seed, conn, arrivals, meanNs);
    if (Simulator::Now() + NanoSeconds(gap) < owner->m_stop)
    {
        Simulator::Schedule(NanoSeconds(gap), &End::Arrive, Ptr<End>(this));
    }
}

void
RpcEndpoint::End::Arrive()
{
    if (!owner || !connected)
    {
        return;
    }
    ++arrivals;
    const bool measured = Simulator::Now() >= owner->m_measureFrom;
    owner->m_offered += measured ? 1 : 0;
    if (issued.size() >= owner->m_config.backlog)
    {
        ++owner->m_refused; // the application sheds what its connection cannot hold
    }
    else
    {
        txBacklog += Sizes(next).first;
        issued.push_back(Simulator::Now().GetNanoSeconds());
        owner->m_backlogMax = std::max(owner->m_backlogMax, issued.size());
        ++next;
        ++owner->m_written;
        Pump();
    }
    ScheduleArrival();
}

void
RpcEndpoint::End::Failed(Ptr<Socket>)
{
    if (owner)
    {
        ++owner->m_failed;
        NS_LOG_WARN("RPC connection " << conn << " failed");
    }
}

void
RpcEndpoint::End::Space(Ptr<Socket>, uint32_t)
{
    Pump();
}

void
RpcEndpoint::End::Closed(Ptr<Socket> s)
{
    Read(s);
}

void
RpcEndpoint::End::Issue()
{
    // keep `outstanding` requests in flight until the stop time (closed loop only)
    while (owner && connected && owner->m_config.ratePerHost == 0 &&
           issued.size() < owner->m_config.outstanding && Simulator::Now() < owner->m_stop)
    {
        txBacklog += Sizes(next).first;
        issued.push_back(Simulator::Now().GetNanoSeconds());
        ++next;
        ++owner->m_written;
    }
    Pump();
}

void
RpcEndpoint::End::Pump()
{
    while (owner && socket && txBacklog > 0)
    {
        const uint32_t room = socket->GetTxAvailable();
        if (room == 0)
        {
            return; // the send callback resumes
        }
        const auto n = static_cast<uint32_t>(std::min<uint64_t>({room, txBacklog, WRITE_CHUNK}));
        uint8_t* buf = owner->m_buf.data();
        FillPayload(Stream(conn, !client), txOffset, buf, n);
        const int sent = socket->Send(Create<Packet>(buf, n));
        if (sent <= 0)
        {
            return;
        }
        txOffset += static_cast<uint64_t>(sent);
        txBacklog -= static_cast<uint64_t>(sent);
        owner->m_writeTrace(host, static_cast<uint64_t>(sent));
    }
}

void
RpcEndpoint::End::Read(Ptr<Socket> s)
{
    while (owner)
    {
        Ptr<Packet> p = s->Recv();
        if (!p || p->GetSize() == 0)
        {
            break;
        }
        uint32_t left = p->GetSize();
        owner->m_readTrace(host, left);
        owner->m_bytesRead += left;
        // check the bytes against this direction's stream, in order
        std::vector<uint8_t> got(left);
        p->CopyData(got.data(), left);
        std::vector<uint8_t> want(left);
        FillPayload(Stream(conn, client), rxOffset, want.data(), left);
        for (uint32_t i = 0; i < left; ++i)
        {
            owner->m_corrupt += got[i] != want[i] ? 1 : 0;
        }
        rxOffset += left;
        // walk the message boundaries
        while (left > 0 && owner)
        {
            const uint64_t take = std::min<uint64_t>(left, rxRemaining);
            rxRemaining -= take;
            left -= static_cast<uint32_t>(take);
            if (rxRemaining > 0)
            {
                break;
            }
            if (client)
            {
                // response `answered` is complete
                const int64_t now = Simulator::Now().GetNanoSeconds();
                const int64_t t0 = issued.empty() ? now : issued.front();
                if (!issued.empty())
                {
                    issued.pop_front();
                }
                ++owner->m_answered;
                if (t0 >= owner->m_measureFrom.GetNanoSeconds() && Simulator::Now() < owner->m_stop)
                {
                    ++owner->m_measured;
                    owner->m_latencies.push_back(static_cast<uint64_t>(now - t0));
                }
                ++answered;
                rxRemaining = Sizes(answered).second;
                if (left > 0 && issued.empty())
                {
                    ++owner->m_corrupt; // bytes of a response never requested
                }
                Issue();
            }
            else
            {
                // request `next` is complete: its response goes out, at once or when a
                // worker core has served it (responses leave in request order)
                const uint64_t bytes = Sizes(next).second;
                ++next;
                ++answered;
                rxRemaining = Sizes(next).first;
                Ptr<HostCpu> cpu = owner->m_hosts.Get(host)->GetObject<HostCpu>();
                if (owner->m_cores.empty() && cpu && cpu->IsTimed())
                {
                    // the request is served on the host's own cores, beside the stack's
                    // work (ServiceTime at the host clock); responses leave in order
                    const HostCoreSteering steer = owner->m_steering == RPC_NIC
                                                       ? HOST_CORE_EARLIEST_FREE
                                                       : HOST_CORE_FLOW_HASH;
                    const int64_t now = Simulator::Now().GetNanoSeconds();
                    const double cycles = owner->m_serviceTime.GetSeconds() * cpu->GetClockHz();
                    const Time done = cpu->Reserve(HostCpu::WORK_APPLICATION, conn, cycles, steer);
                    respondAtNs = std::max(respondAtNs, done.GetNanoSeconds());
                    Simulator::Schedule(NanoSeconds(respondAtNs - now),
                                        &End::Respond,
                                        Ptr<End>(this),
                                        bytes);
                }
                else if (owner->m_cores.empty())
                {
                    txBacklog += bytes;
                    Pump();
                }
                else
                {
                    const int64_t now = Simulator::Now().GetNanoSeconds();
                    const RpcServerCores::Slot slot = owner->m_cores[host].Assign(conn, now);
                    respondAtNs = std::max(respondAtNs, slot.doneNs);
                    Simulator::Schedule(NanoSeconds(respondAtNs - now),
                                        &End::Respond,
                                        Ptr<End>(this),
                                        bytes);
                }
            }
        }
    }
}

void
RpcEndpoint::End::Respond(uint64_t bytes)
{
    txBacklog += bytes;
    Pump();
}

int64_t
RpcEndpoint::GetDispatchNs(uint32_t host) const
{
    return host < m_cores.size() ? m_cores[host].GetDispatchNs() : 0;
}

uint64_t
RpcEndpoint::GetMeasuredRequests() const
{
    return m_measured;
}

std::vector<uint64_t>
RpcEndpoint::GetLatencies() const
{
    return m_latencies;
}

uint64_t
RpcEndpoint::GetCorruptBytes() const
{
    return m_corrupt;
}

void
RpcEndpoint::AddReport(nlohmann::json& doc) const
{
    std::vector<uint64_t> lat = m_latencies;
    const RpcLatencySummary s = RpcLatencySummary::Of(lat);
    const double window = (m_stop - m_measureFrom).GetSeconds();
    doc["rpc"] = {{"connections_per_host", m_config.connectionsPerHost},
                  {"connections", m_config.Connections()},
                  {"outstanding", m_config.outstanding},
                  {"request", m_request.GetSpec()},
                  {"response", m_response.GetSpec()},
                  {"request_mean_bytes", m_request.MeanBytes()},
                  {"response_mean_bytes", m_response.MeanBytes()},
                  {"connections_established", m_established},
                  {"connections_failed", m_failed},
                  {"requests_written", m_written},
                  {"responses_read", m_answered},
                  {"requests_measured", m_measured},
                  {"measure_window_s", window},
                  {"requests_per_s", window > 0 ? m_measured / window : 0.0},
                  {"latency_mean_us", s.meanNs / 1e3},
                  {"latency_p50_us", s.p50Ns / 1e3},
                  {"latency_p99_us", s.p99Ns / 1e3},
                  {"latency_p9999_us", s.p9999Ns / 1e3},
                  {"latency_max_us", s.maxNs / 1e3},
                  {"bytes_read", m_bytesRead},
                  {"corrupt_bytes", m_corrupt}};
    if (m_kv)
    {
        const auto mean = m_kv->MeanBytes();
        doc["rpc"]["request"] = "kv";
        doc["rpc"]["response"] = "kv";
        doc["rpc"]["request_mean_bytes"] = mean.first;
        doc["rpc"]["response_mean_bytes"] = mean.second;
        doc["rpc"]["kv"] = {{"get_fraction", m_kv->getFraction},
                            {"keys", m_kv->keys.GetSpec()},
                            {"values", m_kv->values.GetSpec()},
                            {"key_mean_bytes", m_kv->keys.MeanBytes()},
                            {"value_mean_bytes", m_kv->values.MeanBytes()}};
    }
    doc["rpc"]["arrival"] = m_config.ratePerHost > 0 ? "poisson" : "closed";
    if (m_config.ratePerHost > 0)
    {
        // offered: the arrivals of the measurement window, answered or not
        const double clients = m_config.hosts - m_config.servers;
        doc["rpc"]["offered_per_host_per_s"] = m_config.ratePerHost;
        doc["rpc"]["offered_per_s"] = m_config.ratePerHost * clients;
        doc["rpc"]["requests_arrived_measured"] = m_offered;
        doc["rpc"]["requests_refused"] = m_refused;
        doc["rpc"]["backlog"] = m_config.backlog;
        doc["rpc"]["backlog_max"] = m_backlogMax;
        doc["rpc"]["answered_fraction"] =
            m_offered > 0 ? static_cast<double>(m_measured) / static_cast<double>(m_offered) : 0.0;
    }
    if (m_config.servers > 0)
    {
        doc["rpc"]["servers"] = m_config.servers;
    }
    if (!m_cores.empty())
    {
        uint64_t dispatched = 0;
        int64_t maxWait = 0;
        for (const RpcServerCores& c : m_cores)
        {
            dispatched += c.GetDispatched();
            maxWait = std::max(maxWait, c.GetMaxWaitNs());
        }
        const char* steering[] = {"affinity", "host-dispatch", "nic"};
        doc["rpc"]["server_cores"] = m_serverCores;
        doc["rpc"]["service_ns"] = m_serviceTime.GetNanoSeconds();
        doc["rpc"]["steering"] = steering[static_cast<int>(m_steering)];
        doc["rpc"]["requests_dispatched_by_host"] = dispatched;
        doc["rpc"]["core_wait_max_us"] = maxWait / 1e3;
    }
}

} // namespace ns3
