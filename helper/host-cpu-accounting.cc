/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "host-cpu-accounting.h"

#include "ns3/fabric-link-net-device.h"
#include "ns3/host-cpu.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/log.h"
#include "ns3/offload-net-device.h"
#include "ns3/presto-input-error.h"
#include "ns3/uinteger.h"

#include <array>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostCpuAccounting");

namespace
{

constexpr uint8_t IP_PROTO_TCP = 6;

/// Adds b's counts to a.
void
Add(HostCpuCounts& a, const HostCpuCounts& b)
{
    a.packetsSent += b.packetsSent;
    a.packetsReceived += b.packetsReceived;
    a.acks += b.acks;
    a.bytesCopied += b.bytesCopied;
    a.connectionsOpened += b.connectionsOpened;
    a.connectionsClosed += b.connectionsClosed;
    a.controlPlaneEvents += b.controlPlaneEvents;
    a.controlIntervals += b.controlIntervals;
    a.appNotifications += b.appNotifications;
    a.dmaDescriptors += b.dmaDescriptors;
    a.programCycles += b.programCycles;
    a.requestDispatchCycles += b.requestDispatchCycles;
    a.bytesDelivered += b.bytesDelivered;
    a.wirePackets += b.wirePackets;
}

nlohmann::json
CountsToJson(const HostCpuCounts& n)
{
    return {{"packets_sent", n.packetsSent},
            {"packets_received", n.packetsReceived},
            {"acks", n.acks},
            {"bytes_copied", n.bytesCopied},
            {"connections_opened", n.connectionsOpened},
            {"connections_closed", n.connectionsClosed},
            {"control_plane_events", n.controlPlaneEvents},
            {"control_intervals", n.controlIntervals},
            {"app_notifications", n.appNotifications},
            {"dma_descriptors", n.dmaDescriptors},
            {"program_cycles", n.programCycles},
            {"request_dispatch_cycles", n.requestDispatchCycles},
            {"bytes_delivered", n.bytesDelivered},
            {"wire_packets", n.wirePackets}};
}

} // namespace

HostCpuAccounting::HostCpuAccounting()
    : m_costs(Merged())
{
}

HostCpuAccounting::~HostCpuAccounting() = default;

HostCpuCosts
HostCpuAccounting::Merged()
{
    // Each host pays the host-stack costs for what goes through its IPv4 stack and the
    // offload costs for what its NIC reports: one table serves host-tcp, offload and mixed
    // fabrics alike.
    return HostCpuCosts::Merged();
}

void
HostCpuAccounting::SetCosts(const HostCpuCosts& costs)
{
    costs.Validate("HostCpuAccounting::SetCosts");
    m_costs = costs;
}

void
HostCpuAccounting::SetClockHz(double hz)
{
    if (!std::isfinite(hz) || hz <= 0)
    {
        std::ostringstream os;
        os << "HostCpuAccounting::SetClockHz: clock " << hz << " Hz must be > 0";
        throw PrestoInputError(os.str());
    }
    m_clockHz = hz;
}

void
HostCpuAccounting::Install(const NodeContainer& hosts,
                           const NetDeviceContainer& devices,
                           Ptr<RpcEndpoint> rpc)
{
    InstallHosts(hosts, devices);
    m_rpc = rpc;
    rpc->TraceConnectWithoutContext("AppWrite", MakeCallback(&HostCpuAccounting::AppWrite, this));
    rpc->TraceConnectWithoutContext("AppRead", MakeCallback(&HostCpuAccounting::AppRead, this));
    rpc->TraceConnectWithoutContext("Connection",
                                    MakeCallback(&HostCpuAccounting::ConnectionOpened, this));
}

void
HostCpuAccounting::Install(const NodeContainer& hosts,
                           const NetDeviceContainer& devices,
                           Ptr<CollectiveEndpoint> collective)
{
    InstallHosts(hosts, devices);
    m_collective = true;
    for (const char* bytes : {"AppWrite", "AppRead"})
    {
        const bool read = std::string(bytes) == "AppRead";
        collective->TraceConnectWithoutContext(
            bytes,
            MakeCallback(read ? &HostCpuAccounting::AppRead : &HostCpuAccounting::AppWrite, this));
    }
    collective->TraceConnectWithoutContext(
        "Connection",
        MakeCallback(&HostCpuAccounting::ConnectionOpened, this));
}

void
HostCpuAccounting::AppWrite(uint32_t host, uint64_t bytes)
{
    m_hosts.at(host)->counts.bytesCopied += bytes;
}

void
HostCpuAccounting::AppRead(uint32_t host, uint64_t bytes)
{
    HostState& h = *m_hosts.at(host);
    h.counts.bytesCopied += bytes;
    h.counts.bytesDelivered += bytes;
}

void
HostCpuAccounting::ConnectionOpened(uint32_t host)
{
    HostState& h = *m_hosts.at(host);
    if (!h.offload)
    {
        ++h.counts.connectionsOpened; // persistent: set up once, never torn down in the run
    }
}

void
HostCpuAccounting::Install(const NodeContainer& hosts,
                           const NetDeviceContainer& devices,
                           const std::vector<FlowSpec>& flows,
                           Ptr<FlowEndpoint> endpoint)
{
    InstallHosts(hosts, devices);
    for (const auto& f : flows)
    {
        NS_ABORT_MSG_IF(f.src >= m_hosts.size() || f.dst >= m_hosts.size(),
                        "HostCpuAccounting: flow " << f.id << " names a host beyond "
                                                   << m_hosts.size());
        m_flowHosts[f.id] = {f.src, f.dst};
    }
    m_endpoint = endpoint;
    endpoint->TraceConnectWithoutContext("FlowStart",
                                         MakeCallback(&HostCpuAccounting::FlowStarted, this));
    endpoint->TraceConnectWithoutContext("FlowFinish",
                                         MakeCallback(&HostCpuAccounting::FlowFinished, this));
}

void
HostCpuAccounting::InstallHosts(const NodeContainer& hosts, const NetDeviceContainer& devices)
{
    NS_ABORT_MSG_IF(!m_hosts.empty(), "HostCpuAccounting::Install called twice");
    NS_ABORT_MSG_IF(hosts.GetN() != devices.GetN(),
                    "HostCpuAccounting::Install: " << hosts.GetN() << " hosts but "
                                                   << devices.GetN() << " devices");
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        auto h = std::make_unique<HostState>();
        h->device = devices.Get(i);
        h->offload = DynamicCast<OffloadNetDevice>(h->device) != nullptr;
        HostState* hp = h.get(); // stable: the unique_ptr owns it until we are destroyed
        if (Ptr<Ipv4L3Protocol> ip = hosts.Get(i)->GetObject<Ipv4L3Protocol>())
        {
            ip->TraceConnectWithoutContext("Tx", MakeBoundCallback(&HostCpuAccounting::IpTx, hp));
            ip->TraceConnectWithoutContext("Rx", MakeBoundCallback(&HostCpuAccounting::IpRx, hp));
        }
        // Not every device type has these; without them cycles_per_packet stays 0. A
        // FabricLinkNetDevice's fast path has counters instead (read in Report).
        h->device->TraceConnectWithoutContext("PhyTxEnd",
                                              MakeBoundCallback(&HostCpuAccounting::Wire, hp));
        h->device->TraceConnectWithoutContext("PhyRxEnd",
                                              MakeBoundCallback(&HostCpuAccounting::Wire, hp));
        m_hosts.push_back(std::move(h));
    }
}

bool
HostCpuAccounting::TcpPayload(Ptr<const Packet> p, uint32_t& payload)
{
    // Read the raw IPv4 header (and the TCP data-offset byte) instead of deserializing
    // header objects: this runs for every packet of every host.
    uint8_t b[64];
    uint32_t n = p->CopyData(b, sizeof(b));
    if (n < 20 || (b[0] >> 4) != 4 || b[9] != IP_PROTO_TCP)
    {
        return false;
    }
    uint32_t ihl = (b[0] & 0x0f) * 4u;
    uint32_t total = (uint32_t(b[2]) << 8) | b[3];
    if (n < ihl + 13)
    {
        payload = 0; // truncated: cannot tell, count as control segment
        return true;
    }
    uint32_t doff = (b[ihl + 12] >> 4) * 4u;
    payload = total > ihl + doff ? total - ihl - doff : 0;
    return true;
}

void
HostCpuAccounting::IpTx(HostState* h, Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
{
    uint32_t payload;
    if (TcpPayload(p, payload))
    {
        ++(payload > 0 ? h->counts.packetsSent : h->counts.acks);
    }
}

void
HostCpuAccounting::IpRx(HostState* h, Ptr<const Packet> p, Ptr<Ipv4>, uint32_t)
{
    uint32_t payload;
    if (TcpPayload(p, payload))
    {
        ++(payload > 0 ? h->counts.packetsReceived : h->counts.acks);
    }
}

void
HostCpuAccounting::Wire(HostState* h, Ptr<const Packet>)
{
    ++h->counts.wirePackets;
}

void
HostCpuAccounting::FlowStarted(uint32_t flowId, uint64_t sizeBytes)
{
    auto it = m_flowHosts.find(flowId);
    if (it == m_flowHosts.end())
    {
        NS_LOG_WARN("flow " << flowId << " not in the workload: not accounted");
        return;
    }
    HostState& src = *m_hosts[it->second.first];
    HostState& dst = *m_hosts[it->second.second];
    src.counts.bytesCopied += sizeBytes; // the application writes the flow into the stack
    for (HostState* h : {&src, &dst})
    {
        if (!h->offload)
        {
            ++h->counts.connectionsOpened;
        }
    }
}

void
HostCpuAccounting::FlowFinished(uint32_t flowId, uint64_t sizeBytes)
{
    auto it = m_flowHosts.find(flowId);
    if (it == m_flowHosts.end())
    {
        return;
    }
    HostState& src = *m_hosts[it->second.first];
    HostState& dst = *m_hosts[it->second.second];
    dst.counts.bytesDelivered += sizeBytes;
    dst.counts.bytesCopied += sizeBytes;
    m_finishedBytes += sizeBytes;
    for (HostState* h : {&src, &dst})
    {
        if (!h->offload)
        {
            ++h->counts.connectionsClosed;
        }
    }
}

void
HostCpuAccounting::AddNicCounts(const HostState& hs, HostCpuCounts& n) const
{
    Ptr<OffloadNetDevice> d = DynamicCast<OffloadNetDevice>(hs.device);
    if (!d)
    {
        return;
    }
    const OffloadHostWork w = d->GetHostWork();
    n.controlPlaneEvents += w.controlPlaneEvents;
    n.controlIntervals += w.controlLoopRuns;
    n.appNotifications += w.appNotifications;
    n.dmaDescriptors += w.dmaTransfers;
    // Cora: the host part of the NIC program, already costed in cycles by the device
    n.programCycles += w.programCycles;
}

nlohmann::json
HostCpuAccounting::Report(double simSeconds) const
{
    HostCpuCounts total;
    HostCpuCounts byKind[2]; // 0: host-tcp, 1: offload
    uint32_t hostsOfKind[2] = {0, 0};
    for (size_t i = 0; i < m_hosts.size(); ++i)
    {
        const auto& h = m_hosts[i];
        HostCpuCounts n = h->counts;
        if (m_rpc)
        {
            // a host dispatcher's hand-overs (RPC steering on the host), ns to cycles
            n.requestDispatchCycles += static_cast<uint64_t>(
                std::llround(m_rpc->GetDispatchNs(static_cast<uint32_t>(i)) * m_clockHz / 1e9));
        }
        if (auto link = DynamicCast<FabricLinkNetDevice>(h->device); link && link->IsFast())
        {
            // the fast path fires no PhyTxEnd/PhyRxEnd: its counters instead (a frame is
            // counted when the link accepts it, not when its transmission ends)
            n.wirePackets += link->GetTxPackets() + link->GetRxPackets();
        }
        AddNicCounts(*h, n);
        Add(byKind[h->offload], n);
        ++hostsOfKind[h->offload];
        Add(total, n);
    }
    // Bytes of flows still running at the end reached applications too; they are not
    // attributed to a host (only the fabric-wide totals include them). The RPC and collective
    // workloads count every byte read where it is read (AppRead): nothing is left over.
    if (m_endpoint && !m_collective)
    {
        const uint64_t delivered = m_endpoint->GetDeliveredBytes();
        if (delivered > m_finishedBytes)
        {
            total.bytesDelivered += delivered - m_finishedBytes;
            total.bytesCopied += delivered - m_finishedBytes;
        }
    }
    m_totals = total;

    const char* kinds[2] = {"host-tcp", "offload"};
    std::string label = hostsOfKind[0] && hostsOfKind[1] ? "mixed" : kinds[hostsOfKind[1] > 0];
    HostCpuModel model(label, m_costs, m_clockHz);
    model.Counts() = total;
    nlohmann::json j = nlohmann::json::parse(model.Report(simSeconds).ToJson());
    j["counts"] = CountsToJson(total);
    j["hosts"] = {{"host-tcp", hostsOfKind[0]}, {"offload", hostsOfKind[1]}};
    if (hostsOfKind[0] && hostsOfKind[1])
    {
        for (int k = 0; k < 2; ++k)
        {
            HostCpuModel m(kinds[k], m_costs, m_clockHz);
            m.Counts() = byKind[k];
            j["by_model"][kinds[k]] = nlohmann::json::parse(m.Report(simSeconds).ToJson());
        }
    }
    return j;
}

nlohmann::json
HostCpuAccounting::CoresReport(double seconds) const
{
    return CoresReport(seconds, std::vector<bool>(m_hosts.size(), true));
}

nlohmann::json
HostCpuAccounting::CoresReport(double seconds, const std::vector<bool>& hosts) const
{
    uint32_t timed = 0;
    uint32_t cores = 0;
    double clock = 0;
    double utilSum = 0;
    double utilMax = 0;
    double coreMax = 0;
    double cycles = 0;
    uint64_t jobs = 0;
    uint64_t refused = 0;
    int64_t waitNs = 0;
    int64_t waitMax = 0;
    std::array<double, HostCpu::WORK_KINDS> byWork{};
    std::array<uint64_t, HostCpu::WORK_KINDS> jobsByWork{};
    std::array<int64_t, HostCpu::WORK_KINDS> waitByWork{};
    for (size_t i = 0; i < m_hosts.size(); ++i)
    {
        if (i >= hosts.size() || !hosts[i])
        {
            continue;
        }
        Ptr<HostCpu> cpu = m_hosts[i]->device->GetNode()->GetObject<HostCpu>();
        if (!cpu || !cpu->IsTimed())
        {
            continue;
        }
        const nlohmann::json r = cpu->Report(seconds);
        ++timed;
        cores = cpu->GetCores();
        clock = cpu->GetClockHz();
        const double u = r.value("utilisation", 0.0);
        utilSum += u;
        utilMax = std::max(utilMax, u);
        coreMax = std::max(coreMax, r.value("busiest_core_utilisation", 0.0));
        cycles += r.value("cycles", 0.0);
        jobs += r.value("jobs", uint64_t(0));
        refused += r.value("refused", uint64_t(0));
        waitNs += r.value("wait_ns_total", int64_t(0));
        waitMax = std::max(waitMax, r.value("wait_ns_max", int64_t(0)));
        for (int w = 0; w < HostCpu::WORK_KINDS; ++w)
        {
            byWork[w] += cpu->GetCyclesByWork()[w];
            jobsByWork[w] += cpu->GetJobsByWork()[w];
            waitByWork[w] += cpu->GetWaitNsByWork()[w];
        }
    }
    if (timed == 0)
    {
        return nullptr;
    }
    nlohmann::json work = nlohmann::json::object();
    nlohmann::json wait = nlohmann::json::object();
    for (int w = 0; w < HostCpu::WORK_KINDS; ++w)
    {
        if (jobsByWork[w] > 0)
        {
            const char* name = HostCpu::WorkName(static_cast<HostCpu::Work>(w));
            work[name] = byWork[w];
            wait[name] = double(waitByWork[w]) / jobsByWork[w];
        }
    }
    return {{"per_host", cores},
            {"clock_hz", clock},
            {"hosts", timed},
            {"seconds", seconds},
            {"utilisation", utilSum / timed},
            {"max_host_utilisation", utilMax},
            {"busiest_core_utilisation", coreMax},
            {"cycles", cycles},
            {"cycles_by_work", work},
            {"jobs", jobs},
            {"wait_ns_total", waitNs},
            {"wait_ns_mean", jobs > 0 ? double(waitNs) / jobs : 0.0},
            {"wait_ns_max", waitMax},
            {"wait_ns_mean_by_work", wait},
            {"refused", refused}};
}

const HostCpuCounts&
HostCpuAccounting::GetTotals() const
{
    return m_totals;
}

} // namespace ns3
