/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_HOST_CPU_ACCOUNTING_H
#define PRESTO_HOST_CPU_ACCOUNTING_H

#include "ns3/collective-endpoint.h"
#include "ns3/flow-endpoint.h"
#include "ns3/flow-spec.h"
#include "ns3/host-cpu-model.h"
#include "ns3/ipv4.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/rpc-endpoint.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Counts the host-side events of a run for the host CPU cost model (HostCpuModel)
 * and reports summary.json's "host_cpu" object.
 *
 * Installed on the fabric's hosts before the run. Every host is classified by its device:
 * a host whose device is an OffloadNetDevice is an "offload" host, any other is a
 * "host-tcp" host; a fabric may mix both. On every host it counts:
 *
 * - TCP packets through the host's IPv4 stack (Ipv4L3Protocol "Tx"/"Rx"): data packets
 *   (payload > 0) sent and received, and segments without payload (pure ACKs, SYN, FIN) as
 *   ACKs. Offloaded connections bypass the host stack, so on an offload host these stay at
 *   (almost) zero unless ns-3's TCP also runs there.
 * - packets on the host's wire (device "PhyTxEnd"/"PhyRxEnd"), the cycles_per_packet
 *   denominator;
 * - payload bytes copied between application and socket or host buffers: every started
 *   flow's bytes at its source (the application writes them) plus the bytes delivered to
 *   receiving applications;
 * - on host-tcp hosts, one connection setup per flow start and one teardown per flow
 *   finish at each end (on offload hosts the NIC's control plane counts them);
 * - on offload hosts, after the run, the NIC's OffloadHostWork: control-plane events,
 *   control-loop runs, application notifications, DMA transfers (one descriptor each) and
 *   host cycles of NIC-program work.
 *
 * Each trace callback costs one counter increment (plus a peek at the IPv4 header and the
 * TCP data-offset byte for the IPv4 traces). Costs default to HostCpuCosts::HostTcp() for
 * the host-stack events and HostCpuCosts::Offload() for the offload events (Merged()).
 */
class HostCpuAccounting
{
  public:
    HostCpuAccounting();
    ~HostCpuAccounting();
    HostCpuAccounting(const HostCpuAccounting&) = delete;
    HostCpuAccounting& operator=(const HostCpuAccounting&) = delete;

    /**
     * \return HostCpuCosts::HostTcp() for the host-stack events and
     * HostCpuCosts::Offload() for the offload events (the byte copy cost from HostTcp())
     */
    static HostCpuCosts Merged();

    /**
     * \brief Replace the cost table (before Report()). PrestoInputError if invalid.
     * \param costs cycles per event
     */
    void SetCosts(const HostCpuCosts& costs);
    /**
     * \brief Set the host core clock (default 2.5e9 Hz, OffloadNetDevice's HostClock).
     * \param hz clock, Hz (> 0; PrestoInputError otherwise)
     */
    void SetClockHz(double hz);

    /**
     * \brief Connect to the hosts' traces and the endpoint's flow traces. Call once, before
     * Simulator::Run().
     * \param hosts host nodes by host index
     * \param devices their fabric devices, same order
     * \param flows the workload (flow ids to source and destination host indices)
     * \param endpoint the flow endpoint running the flows
     */
    void Install(const NodeContainer& hosts,
                 const NetDeviceContainer& devices,
                 const std::vector<FlowSpec>& flows,
                 Ptr<FlowEndpoint> endpoint);

    /**
     * \brief The same for the RPC workload: the application bytes written and read come from
     * the RPC endpoint's AppWrite/AppRead traces, and each persistent connection is set up
     * once at each end (host-tcp hosts; offload NICs count their own control plane).
     * \param hosts host nodes by host index
     * \param devices their fabric devices, same order
     * \param rpc the RPC endpoint
     */
    void Install(const NodeContainer& hosts,
                 const NetDeviceContainer& devices,
                 Ptr<RpcEndpoint> rpc);

    /**
     * \brief The same for a collective workload: the ranks' bytes written and read come from
     * the collective's AppWrite/AppRead traces, and each persistent connection is set up once
     * at each end (host-tcp hosts; offload NICs count their own control plane).
     * \param hosts host nodes by host index
     * \param devices their fabric devices, same order
     * \param collective the collective endpoint
     */
    void Install(const NodeContainer& hosts,
                 const NetDeviceContainer& devices,
                 Ptr<CollectiveEndpoint> collective);

    /**
     * \brief After the run: read the NICs' counters and the endpoint's delivered bytes and
     * build the report. Call before Simulator::Destroy().
     * \param simSeconds simulated time the run covered, s (> 0)
     * \return the "host_cpu" object: HostCpuReport's keys, "counts", "hosts" (per kind) and,
     * for a mixed fabric, "by_model" (one report per kind)
     */
    nlohmann::json Report(double simSeconds) const;

    /**
     * \brief The hosts' cores in simulated time (HostCpu timed), summed over the hosts.
     * \param seconds the time utilisation is over, s (> 0)
     * \return null when no host has timed cores; else the object "cores" of "host_cpu":
     * cores per host, clock, mean and highest host utilisation, the busiest core's, cycles
     * served (in all and per kind of work), pieces of work, their waits for a core (total,
     * mean, longest) and received packets refused by a full backlog
     */
    nlohmann::json CoresReport(double seconds) const;
    /**
     * \brief The same over some of the hosts only.
     * \param seconds the time utilisation is over, s (> 0)
     * \param hosts by host index: true for the hosts to include
     * \return as CoresReport(seconds), over those hosts
     */
    nlohmann::json CoresReport(double seconds, const std::vector<bool>& hosts) const;

    /** \return the summed counts Report() used (zero before Report()) */
    const HostCpuCounts& GetTotals() const;

  private:
    /** Per-host counters, incremented by the trace callbacks. */
    struct HostState
    {
        Ptr<NetDevice> device; //!< the host's fabric device
        bool offload{false};   //!< device is an OffloadNetDevice
        HostCpuCounts counts;  //!< events so far
    };

    /** Ipv4L3Protocol "Tx" on one host. */
    static void IpTx(HostState* h, Ptr<const Packet> p, Ptr<Ipv4> ipv4, uint32_t iface);
    /** Ipv4L3Protocol "Rx" on one host. */
    static void IpRx(HostState* h, Ptr<const Packet> p, Ptr<Ipv4> ipv4, uint32_t iface);
    /** Device "PhyTxEnd"/"PhyRxEnd" on one host. */
    static void Wire(HostState* h, Ptr<const Packet> p);
    /**
     * \param p an IPv4 packet with its header
     * \param payload set to the TCP payload length
     * \return true if p is TCP
     */
    static bool TcpPayload(Ptr<const Packet> p, uint32_t& payload);
    /** Endpoint "FlowStart". */
    void FlowStarted(uint32_t flowId, uint64_t sizeBytes);
    /** Connect to every host's traces. */
    void InstallHosts(const NodeContainer& hosts, const NetDeviceContainer& devices);
    /** RPC: an application wrote bytes. */
    void AppWrite(uint32_t host, uint64_t bytes);
    /** RPC: an application read bytes. */
    void AppRead(uint32_t host, uint64_t bytes);
    /** RPC: a connection end was set up. */
    void ConnectionOpened(uint32_t host);
    /** Endpoint "FlowFinish". */
    void FlowFinished(uint32_t flowId, uint64_t sizeBytes);
    /** \param hs hosts \return their counts with the NIC counters added (one host each) */
    void AddNicCounts(const HostState& hs, HostCpuCounts& n) const;

    HostCpuCosts m_costs;                                                    //!< cycles per event
    double m_clockHz{2.5e9};                                                 //!< core clock, Hz
    std::vector<std::unique_ptr<HostState>> m_hosts;                         //!< by host index
    std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> m_flowHosts; //!< id: src, dst
    Ptr<FlowEndpoint> m_endpoint; //!< for delivered bytes
    Ptr<RpcEndpoint> m_rpc;       //!< the RPC workload (host dispatch work), if any
    uint64_t m_finishedBytes{0};  //!< sizes of finished flows
    /// a collective: the hosts' AppRead counts hold every byte delivered (nothing unattributed)
    bool m_collective{false};
    mutable HostCpuCounts m_totals; //!< last Report()'s sums
};

} // namespace ns3

#endif // PRESTO_HOST_CPU_ACCOUNTING_H
