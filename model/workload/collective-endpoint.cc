/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "collective-endpoint.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CollectiveEndpoint");
NS_OBJECT_ENSURE_REGISTERED(CollectiveEndpoint);

namespace
{
/// Largest chunk written to a socket at once, bytes.
constexpr uint64_t WRITE_CHUNK = 65536;
} // namespace

TypeId
CollectiveEndpoint::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CollectiveEndpoint")
            .SetParent<Object>()
            .SetGroupName("Presto")
            .AddConstructor<CollectiveEndpoint>()
            .AddAttribute("Port",
                          "TCP port every rank's host listens on for its peers' connections",
                          UintegerValue(7100),
                          MakeUintegerAccessor(&CollectiveEndpoint::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddTraceSource("AppWrite",
                            "A rank wrote bytes into its socket",
                            MakeTraceSourceAccessor(&CollectiveEndpoint::m_writeTrace),
                            "ns3::CollectiveEndpoint::HostBytesTracedCallback")
            .AddTraceSource("AppRead",
                            "A rank read bytes from its socket",
                            MakeTraceSourceAccessor(&CollectiveEndpoint::m_readTrace),
                            "ns3::CollectiveEndpoint::HostBytesTracedCallback")
            .AddTraceSource("Connection",
                            "A connection end was set up at a host (the sender's on connect, "
                            "the receiver's on accept)",
                            MakeTraceSourceAccessor(&CollectiveEndpoint::m_connectionTrace),
                            "ns3::CollectiveEndpoint::HostTracedCallback");
    return tid;
}

CollectiveEndpoint::CollectiveEndpoint()
    : m_buf(WRITE_CHUNK)
{
    NS_LOG_FUNCTION(this);
}

CollectiveEndpoint::~CollectiveEndpoint()
{
    NS_LOG_FUNCTION(this);
}

void
CollectiveEndpoint::DoDispose()
{
    for (auto& p : m_pairs)
    {
        p->owner = nullptr;
        p->tx = nullptr;
        p->rx = nullptr;
    }
    m_pairs.clear();
    m_listeners.clear();
    m_transport = nullptr;
    m_finished = MakeNullCallback<void>();
    Object::DoDispose();
}

void
CollectiveEndpoint::Install(Ptr<TcpSocketEndpoint> transport,
                            const NodeContainer& hosts,
                            const std::vector<Ipv4Address>& addresses,
                            const CollectiveSchedule& schedule,
                            const std::vector<uint32_t>& hostOfRank,
                            uint32_t iterations,
                            Time computeGap)
{
    NS_LOG_FUNCTION(this << hosts.GetN() << schedule.GetRanks());
    NS_ABORT_MSG_IF(hostOfRank.size() != schedule.GetRanks(), "one host per rank");
    NS_ABORT_MSG_IF(iterations == 0, "a collective runs at least once");
    m_transport = transport;
    BooleanValue verify;
    transport->GetAttribute("VerifyPayload", verify); // the flows' choice, FlowEndpoint's
    m_verify = verify.Get();
    m_hosts = hosts;
    m_addresses = addresses;
    m_schedule = std::make_unique<CollectiveSchedule>(schedule);
    m_iterations = iterations;
    m_computeGap = computeGap;
    const uint32_t steps = schedule.GetSteps();
    const uint64_t total = uint64_t{steps} * iterations;
    // the pairs, and what each carries per iteration, in step order
    for (const auto& [src, dst] : schedule.Pairs())
    {
        Ptr<Pair> p = Create<Pair>();
        p->owner = this;
        p->index = static_cast<uint32_t>(m_pairs.size());
        p->src = src;
        p->dst = dst;
        m_pairOf[{src, dst}] = p->index;
        m_pairs.push_back(p);
    }
    m_pairSteps.assign(m_pairs.size(), {});
    m_ranks.assign(schedule.GetRanks(), Rank{});
    for (uint32_t r = 0; r < schedule.GetRanks(); ++r)
    {
        m_ranks[r].host = hostOfRank[r];
        m_ranks[r].recvLeft.assign(total, 0);
        for (uint32_t k = 0; k < steps; ++k)
        {
            uint64_t expected = 0;
            for (const auto& t : schedule.Receives(k, r))
            {
                expected += t.bytes;
                m_pairSteps[m_pairOf.at({t.src, t.dst})].emplace_back(k, t.bytes);
            }
            for (uint32_t i = 0; i < iterations; ++i)
            {
                m_ranks[r].recvLeft[uint64_t{i} * steps + k] = expected;
            }
        }
    }
    for (auto& p : m_pairs)
    {
        uint64_t perIteration = 0;
        for (const auto& [k, bytes] : m_pairSteps[p->index])
        {
            perIteration += bytes;
        }
        p->verifier = std::make_unique<PayloadVerifier>(p->index, perIteration * iterations);
        p->rxRemaining = m_pairSteps[p->index].front().second;
    }
    m_records.assign(total * schedule.GetRanks(), CollectiveStepRecord{});
    for (uint64_t l = 0; l < total; ++l)
    {
        for (uint32_t r = 0; r < schedule.GetRanks(); ++r)
        {
            CollectiveStepRecord& rec = Record(r, l);
            rec.iteration = static_cast<uint32_t>(l / steps);
            rec.step = static_cast<uint32_t>(l % steps);
            rec.rank = r;
        }
    }
    // one listener per host of a rank; accepted sockets inherit the configuration
    m_listeners.assign(hosts.GetN(), nullptr);
    for (uint32_t h : hostOfRank)
    {
        Ptr<Socket> l = Socket::CreateSocket(hosts.Get(h), transport->FactoryFor(h));
        transport->ConfigureSocket(l);
        NS_ABORT_MSG_IF(l->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0,
                        "collective rank cannot listen on host " << h << " port " << m_port);
        l->Listen();
        l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                             MakeCallback(&CollectiveEndpoint::Accept, this));
        m_listeners[h] = l;
    }
}

CollectiveStepRecord&
CollectiveEndpoint::Record(uint32_t r, uint64_t step)
{
    return m_records[step * m_ranks.size() + r];
}

void
CollectiveEndpoint::Start()
{
    for (auto& p : m_pairs)
    {
        const uint32_t client = m_ranks[p->src].host;
        const uint32_t server = m_ranks[p->dst].host;
        Ptr<Socket> s = Socket::CreateSocket(m_hosts.Get(client), m_transport->FactoryFor(client));
        m_transport->ConfigureSocket(s);
        if (s->Bind() != 0)
        {
            ++m_failed;
            NS_LOG_WARN("host " << client << ": no free port for collective pair " << p->index);
            continue;
        }
        m_pending.Expect(s, m_addresses[client], m_addresses[server], p->index);
        p->tx = s;
        p->txBytes = m_verify ? nullptr : PeekPointer(DynamicCast<OffloadSocket>(s));
        s->SetConnectCallback(MakeCallback(&Pair::Connected, PeekPointer(p)),
                              MakeCallback(&Pair::Failed, PeekPointer(p)));
        s->SetSendCallback(MakeCallback(&Pair::Space, PeekPointer(p)));
        m_connectionTrace(client);
        if (s->Connect(InetSocketAddress(m_addresses[server], m_port)) != 0)
        {
            p->Failed(s); // refused at once (e.g. the NIC's connection table is full)
        }
    }
}

void
CollectiveEndpoint::Accept(Ptr<Socket> socket, const Address& from)
{
    Ptr<Pair> p = m_pairs[m_pending.Take(socket, from, "collective rank")];
    p->rx = socket;
    p->rxBytes = m_verify ? nullptr : PeekPointer(DynamicCast<OffloadSocket>(socket));
    socket->SetRecvCallback(MakeCallback(&Pair::Read, PeekPointer(p)));
    m_connectionTrace(m_ranks[p->dst].host);
    p->Read(socket); // data may have come with the handshake's last ACK (or after its loss)
}

void
CollectiveEndpoint::EndReady()
{
    if (++m_ready < m_pairs.size())
    {
        return;
    }
    // every connection is established at its sender: every rank starts step 0 now. Not
    // waiting for the receivers' accepts: when the handshake's last ACK is lost, the
    // receiver's end is set up by the first data segment (the sender sends nothing else)
    m_startNs = Simulator::Now().GetNanoSeconds();
    for (uint32_t r = 0; r < m_ranks.size(); ++r)
    {
        StartStep(r, 0);
    }
    for (uint32_t r = 0; r < m_ranks.size(); ++r)
    {
        Advance(r);
    }
}

void
CollectiveEndpoint::StartStep(uint32_t rank, uint64_t step)
{
    Rank& r = m_ranks[rank];
    r.step = step;
    r.started = true;
    Record(rank, step).startNs = Simulator::Now().GetNanoSeconds();
    const auto k = static_cast<uint32_t>(step % m_schedule->GetSteps());
    const auto sends = m_schedule->Sends(k, rank);
    for (const auto& t : sends)
    {
        r.sendLeft += t.bytes;
        m_pairs[m_pairOf.at({t.src, t.dst})]->txBacklog += t.bytes;
    }
    for (const auto& t : sends)
    {
        m_pairs[m_pairOf.at({t.src, t.dst})]->Pump();
    }
}

void
CollectiveEndpoint::Written(uint32_t rank, uint64_t bytes)
{
    m_ranks[rank].sendLeft -= bytes;
    m_writeTrace(m_ranks[rank].host, bytes);
}

void
CollectiveEndpoint::Advance(uint32_t rank)
{
    Rank& r = m_ranks[rank];
    const uint32_t steps = m_schedule->GetSteps();
    const uint64_t total = uint64_t{steps} * m_iterations;
    // a loop, not recursion: a step whose bytes are all there completes as it starts
    while (r.started && !r.done && r.sendLeft == 0 && r.recvLeft[r.step] == 0)
    {
        Record(rank, r.step).endNs = Simulator::Now().GetNanoSeconds();
        r.started = false;
        const uint64_t next = r.step + 1;
        if (next == total)
        {
            r.done = true;
            if (++m_ranksDone == m_ranks.size() && !m_finished.IsNull())
            {
                m_finished();
            }
            return;
        }
        if (next % steps == 0 && m_computeGap.IsStrictlyPositive())
        {
            // the rank computes before its next iteration's collective
            r.step = next;
            Simulator::Schedule(m_computeGap, &CollectiveEndpoint::Resume, this, rank, next);
            return;
        }
        StartStep(rank, next);
    }
}

void
CollectiveEndpoint::Resume(uint32_t rank, uint64_t step)
{
    StartStep(rank, step);
    Advance(rank);
}

void
CollectiveEndpoint::Pair::Connected(Ptr<Socket>)
{
    if (owner)
    {
        connected = true;
        owner->EndReady();
    }
}

void
CollectiveEndpoint::Pair::Failed(Ptr<Socket>)
{
    if (owner)
    {
        ++owner->m_failed;
        NS_LOG_WARN("collective connection of pair " << index << " failed");
    }
}

void
CollectiveEndpoint::Pair::Space(Ptr<Socket>, uint32_t)
{
    if (owner && txBacklog > 0)
    {
        Pump();
        owner->Advance(src);
    }
}

void
CollectiveEndpoint::Pair::Pump()
{
    while (owner && tx && txBacklog > 0)
    {
        const uint32_t room = tx->GetTxAvailable();
        if (room == 0)
        {
            return; // the send callback resumes
        }
        const auto n = static_cast<uint32_t>(std::min<uint64_t>({room, txBacklog, WRITE_CHUNK}));
        int sent = 0;
        if (txBytes)
        {
            sent = txBytes->SendBytes(n) < 0 ? -1 : static_cast<int>(n);
        }
        else if (!owner->m_verify)
        {
            sent = tx->Send(Create<Packet>(n)); // virtual: zero-filled, no bytes stored
        }
        else
        {
            uint8_t* buf = owner->m_buf.data();
            FillPayload(index, txOffset, buf, n);
            sent = tx->Send(Create<Packet>(buf, n));
        }
        if (sent <= 0)
        {
            return;
        }
        txOffset += static_cast<uint64_t>(sent);
        txBacklog -= static_cast<uint64_t>(sent);
        owner->Written(src, static_cast<uint64_t>(sent));
    }
}

void
CollectiveEndpoint::Pair::Read(Ptr<Socket> s)
{
    CollectiveEndpoint* o = owner;
    if (!o)
    {
        return;
    }
    if (rxBytes)
    {
        while (uint32_t n = rxBytes->RecvBytes(std::numeric_limits<uint32_t>::max()))
        {
            verifier->Count(n);
            Take(n);
        }
        o->Advance(dst);
        return;
    }
    while (true)
    {
        Ptr<Packet> p = s->Recv();
        const uint32_t len = p ? p->GetSize() : 0;
        if (len == 0)
        {
            break;
        }
        if (o->m_verify)
        {
            std::vector<uint8_t>& buf = o->m_buf;
            buf.resize(std::max<size_t>(buf.size(), len));
            p->CopyData(buf.data(), len);
            verifier->Deliver(buf.data(), len);
        }
        else
        {
            verifier->Count(len);
        }
        Take(len);
    }
    o->Advance(dst);
}

void
CollectiveEndpoint::Pair::Take(uint32_t len)
{
    CollectiveEndpoint* o = owner;
    o->m_readTrace(o->m_ranks[dst].host, len);
    o->m_delivered += len;
    rxOffset += len;
    // walk the steps' chunk boundaries of this stream
    const auto& steps = o->m_pairSteps[index];
    const uint32_t perIteration = o->m_schedule->GetSteps();
    const uint64_t chunks = steps.size() * uint64_t{o->m_iterations};
    uint64_t left = len;
    while (left > 0 && rxCursor < chunks)
    {
        const uint64_t take = std::min<uint64_t>(left, rxRemaining);
        const uint64_t linear =
            uint64_t{rxCursor / steps.size()} * perIteration + steps[rxCursor % steps.size()].first;
        o->m_ranks[dst].recvLeft[linear] -= take;
        rxRemaining -= take;
        left -= take;
        if (rxRemaining == 0 && ++rxCursor < chunks)
        {
            rxRemaining = steps[rxCursor % steps.size()].second;
        }
    }
}

void
CollectiveEndpoint::SetFinishedCallback(Callback<void> cb)
{
    m_finished = cb;
}

bool
CollectiveEndpoint::IsFinished() const
{
    return !m_ranks.empty() && m_ranksDone == m_ranks.size();
}

const std::vector<CollectiveStepRecord>&
CollectiveEndpoint::GetRecords() const
{
    return m_records;
}

int64_t
CollectiveEndpoint::GetStartNs() const
{
    return m_startNs;
}

uint64_t
CollectiveEndpoint::GetCorruptBytes() const
{
    uint64_t sum = 0;
    for (const auto& p : m_pairs)
    {
        sum += p->verifier->GetCorrupt();
    }
    return sum;
}

uint64_t
CollectiveEndpoint::GetExcessBytes() const
{
    uint64_t sum = 0;
    for (const auto& p : m_pairs)
    {
        sum += p->verifier->GetExcess();
    }
    return sum;
}

uint64_t
CollectiveEndpoint::GetDeliveredBytes() const
{
    return m_delivered;
}

void
CollectiveEndpoint::AddReport(nlohmann::json& doc) const
{
    const CollectiveSummary s = CollectiveSummary::Of(m_records);
    nlohmann::json perStep = nlohmann::json::array();
    for (const auto& [p50, p99] : s.perStepNs)
    {
        perStep.push_back({{"p50_ns", p50}, {"p99_ns", p99}});
    }
    nlohmann::json hosts = nlohmann::json::array();
    for (const Rank& r : m_ranks)
    {
        hosts.push_back(r.host);
    }
    uint64_t complete = 0;
    for (const auto& p : m_pairs)
    {
        complete += p->verifier->IsComplete() ? 1 : 0;
    }
    const bool allReduce = m_schedule->GetKind() == CollectiveKind::ALL_REDUCE;
    doc["collective"] = {{"kind", allReduce ? "allreduce" : "alltoall"},
                         {"ranks", m_schedule->GetRanks()},
                         {"bytes", m_schedule->GetBytes()},
                         {"steps_per_iteration", m_schedule->GetSteps()},
                         {"iterations", m_iterations},
                         {"compute_gap_ns", m_computeGap.GetNanoSeconds()},
                         {"host_of_rank", hosts},
                         {"connections", m_pairs.size()},
                         {"connections_failed", m_failed},
                         {"start_ns", m_startNs},
                         {"finished", IsFinished()},
                         {"jct_ns", s.jctNs},
                         {"iteration_jct_ns", s.iterationJctNs},
                         {"step_p50_ns", s.stepP50Ns},
                         {"step_p99_ns", s.stepP99Ns},
                         {"step_max_ns", s.stepMaxNs},
                         {"per_step", perStep},
                         {"slowest_rank", s.slowestRank},
                         {"slowest_rank_host", m_ranks.empty() ? 0 : m_ranks[s.slowestRank].host},
                         {"slowest_rank_end_ns", s.slowestRankEndNs},
                         {"bytes_delivered", m_delivered},
                         {"streams_complete", complete},
                         {"corrupt_bytes", GetCorruptBytes()},
                         {"excess_bytes", GetExcessBytes()}};
}

void
CollectiveEndpoint::WriteCsv(std::ostream& os) const
{
    os << "iteration,step,rank,start_ns,end_ns\n";
    for (const CollectiveStepRecord& r : m_records)
    {
        os << r.iteration << ',' << r.step << ',' << r.rank << ',' << r.startNs << ',' << r.endNs
           << '\n';
    }
}

} // namespace ns3
