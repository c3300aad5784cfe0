/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "host-cpu.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HostCpu");
NS_OBJECT_ENSURE_REGISTERED(HostCpu);

TypeId
HostCpu::GetTypeId()
{
    const HostCpuCosts d = HostCpuCosts::Merged();
    static TypeId tid =
        TypeId("ns3::HostCpu")
            .SetParent<Object>()
            .SetGroupName("Presto")
            .AddConstructor<HostCpu>()
            .AddAttribute("Cores",
                          "Host cores that serve the host's work in simulated time, cores. 0: "
                          "unlimited, work is counted and takes no time (the accounting-only "
                          "model of earlier versions)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&HostCpu::m_cores),
                          MakeUintegerChecker<uint32_t>(0, 4096))
            .AddAttribute("Clock",
                          "Clock of every host core, Hz",
                          DoubleValue(2.5e9),
                          MakeDoubleAccessor(&HostCpu::m_clockHz),
                          MakeDoubleChecker<double>(1e6, 1e11))
            .AddAttribute("MaxBacklog",
                          "Received packets a core holds (waiting and in service) before it "
                          "drops more, as Linux's netdev_max_backlog (default 1000), packets; "
                          "0: no limit",
                          UintegerValue(1000),
                          MakeUintegerAccessor(&HostCpu::m_maxBacklog),
                          MakeUintegerChecker<uint32_t>(0, 100000000))
            .AddAttribute("PacketSentCycles",
                          "ns-3's TCP/IP on the host: per data packet sent, cycles (assumed, "
                          "doc/presto.rst \"Host CPU\")",
                          DoubleValue(d.packetSent),
                          MakeDoubleAccessor(&HostCpu::m_packetSentCycles),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("PacketReceivedCycles",
                          "ns-3's TCP/IP on the host: per data packet received, cycles "
                          "(assumed)",
                          DoubleValue(d.packetReceived),
                          MakeDoubleAccessor(&HostCpu::m_packetReceivedCycles),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("AckCycles",
                          "ns-3's TCP/IP on the host: per segment without payload sent or "
                          "received (ACK, SYN, FIN), cycles (assumed)",
                          DoubleValue(d.ack),
                          MakeDoubleAccessor(&HostCpu::m_ackCycles),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("ByteCopiedCycles",
                          "Per payload byte copied between the application and the socket or "
                          "the NIC's host buffers, cycles (assumed)",
                          DoubleValue(d.byteCopied),
                          MakeDoubleAccessor(&HostCpu::m_byteCopiedCycles),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("ConnectionSetupCycles",
                          "ns-3's TCP on the host: per connection set up at one end (served "
                          "with its SYN or SYN-ACK), cycles (assumed)",
                          DoubleValue(d.connectionSetup),
                          MakeDoubleAccessor(&HostCpu::m_connectionSetupCycles),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("ConnectionTeardownCycles",
                          "ns-3's TCP on the host: per connection torn down at one end (served "
                          "with its FIN), cycles (assumed)",
                          DoubleValue(d.connectionTeardown),
                          MakeDoubleAccessor(&HostCpu::m_connectionTeardownCycles),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("ControlPlaneEventCycles",
                          "Offload NIC: per event of the host control plane (handshake step, "
                          "teardown), cycles (assumed)",
                          DoubleValue(d.controlPlaneEvent),
                          MakeDoubleAccessor(&HostCpu::m_controlPlaneEventCycles),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("ControlIntervalCycles",
                          "Offload NIC: per connection per run of the host control loop "
                          "(rate-based congestion control, timeouts), cycles (assumed)",
                          DoubleValue(d.controlInterval),
                          MakeDoubleAccessor(&HostCpu::m_controlIntervalCycles),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("NotificationCycles",
                          "Offload NIC: per notification the application takes from its "
                          "context queue, cycles (assumed)",
                          DoubleValue(d.appNotification),
                          MakeDoubleAccessor(&HostCpu::m_appNotificationCycles),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("DmaDescriptorCycles",
                          "Offload NIC: per DMA descriptor the host posts or reaps, cycles "
                          "(assumed)",
                          DoubleValue(d.dmaDescriptor),
                          MakeDoubleAccessor(&HostCpu::m_dmaDescriptorCycles),
                          MakeDoubleChecker<double>(0))
            .AddTraceSource("Drop",
                            "A received packet refused by its core's full backlog "
                            "(MaxBacklog): the work kind and the flow key",
                            MakeTraceSourceAccessor(&HostCpu::m_dropTrace),
                            "ns3::HostCpu::DropTracedCallback");
    return tid;
}

HostCpu::HostCpu()
    : m_costs(HostCpuCosts::Merged())
{
    // the attributes' initial values come through the TypeId; these only mirror them
    CostsToMembers();
    NS_LOG_FUNCTION(this);
}

HostCpu::~HostCpu() = default;

void
HostCpu::DoInitialize()
{
    Build();
    Object::DoInitialize();
}

void
HostCpu::DoDispose()
{
    m_queue.reset();
    Object::DoDispose();
}

void
HostCpu::CostsToMembers()
{
    m_packetSentCycles = m_costs.packetSent;
    m_packetReceivedCycles = m_costs.packetReceived;
    m_ackCycles = m_costs.ack;
    m_byteCopiedCycles = m_costs.byteCopied;
    m_connectionSetupCycles = m_costs.connectionSetup;
    m_connectionTeardownCycles = m_costs.connectionTeardown;
    m_controlPlaneEventCycles = m_costs.controlPlaneEvent;
    m_controlIntervalCycles = m_costs.controlInterval;
    m_appNotificationCycles = m_costs.appNotification;
    m_dmaDescriptorCycles = m_costs.dmaDescriptor;
}

void
HostCpu::Build()
{
    m_costs = GetCosts();
    m_costs.Validate("ns3::HostCpu");
    if (m_queue || m_cores == 0)
    {
        return;
    }
    m_queue = std::make_unique<HostCoreQueue>(m_cores, m_clockHz, m_maxBacklog);
}

bool
HostCpu::IsTimed() const
{
    return m_cores > 0;
}

uint32_t
HostCpu::GetCores() const
{
    return m_cores;
}

double
HostCpu::GetClockHz() const
{
    return m_clockHz;
}

HostCpuCosts
HostCpu::GetCosts() const
{
    HostCpuCosts c;
    c.packetSent = m_packetSentCycles;
    c.packetReceived = m_packetReceivedCycles;
    c.ack = m_ackCycles;
    c.byteCopied = m_byteCopiedCycles;
    c.connectionSetup = m_connectionSetupCycles;
    c.connectionTeardown = m_connectionTeardownCycles;
    c.controlPlaneEvent = m_controlPlaneEventCycles;
    c.controlInterval = m_controlIntervalCycles;
    c.appNotification = m_appNotificationCycles;
    c.dmaDescriptor = m_dmaDescriptorCycles;
    return c;
}

HostCoreQueue::Slot
HostCpu::Place(Work work, uint64_t key, double cycles, HostCoreSteering steering, bool bounded)
{
    if (!m_queue)
    {
        Build(); // first use before initialisation
    }
    return m_queue->Submit(key, cycles, FastSimulator::NowNs(), steering, bounded);
}

void
HostCpu::Submit(Work work,
                uint64_t key,
                double cycles,
                std::function<void()> then,
                HostCoreSteering steering)
{
    if (!IsTimed())
    {
        then();
        return;
    }
    const HostCoreQueue::Slot s = Place(work, key, cycles, steering, false);
    Served(work, cycles, s, FastSimulator::NowNs());
    compat::Schedule(NanoSeconds(s.doneNs) - FastSimulator::Now(), std::move(then));
}

bool
HostCpu::SubmitBounded(Work work, uint64_t key, double cycles, std::function<void()> then)
{
    if (!IsTimed())
    {
        then();
        return true;
    }
    const HostCoreQueue::Slot s = Place(work, key, cycles, HOST_CORE_FLOW_HASH, true);
    if (!s.accepted)
    {
        ++m_refused;
        NS_LOG_LOGIC("core backlog full: " << WorkName(work) << " work of flow " << key
                                           << " dropped");
        m_dropTrace(work, key);
        return false;
    }
    Served(work, cycles, s, FastSimulator::NowNs());
    compat::Schedule(NanoSeconds(s.doneNs) - FastSimulator::Now(), std::move(then));
    return true;
}

Time
HostCpu::Reserve(Work work, uint64_t key, double cycles, HostCoreSteering steering)
{
    if (!IsTimed())
    {
        return FastSimulator::Now();
    }
    const HostCoreQueue::Slot s = Place(work, key, cycles, steering, false);
    Served(work, cycles, s, FastSimulator::NowNs());
    return NanoSeconds(s.doneNs);
}

void
HostCpu::Served(Work work, double cycles, const HostCoreQueue::Slot& s, int64_t arrivalNs)
{
    m_cycles[work] += cycles;
    ++m_jobs[work];
    m_waitNs[work] += s.startNs - arrivalNs;
}

const std::array<uint64_t, HostCpu::WORK_KINDS>&
HostCpu::GetJobsByWork() const
{
    return m_jobs;
}

const std::array<int64_t, HostCpu::WORK_KINDS>&
HostCpu::GetWaitNsByWork() const
{
    return m_waitNs;
}

HostCoreQueue::Slot
HostCpu::ReserveSlot(Work work, uint64_t key, double cycles, HostCoreSteering steering)
{
    if (!IsTimed())
    {
        HostCoreQueue::Slot s;
        s.accepted = true;
        s.startNs = s.doneNs = FastSimulator::NowNs();
        return s;
    }
    const HostCoreQueue::Slot s = Place(work, key, cycles, steering, false);
    Served(work, cycles, s, FastSimulator::NowNs());
    return s;
}

HostCoreQueue::Slot
HostCpu::ReserveAt(Work work, uint64_t key, double cycles, int64_t arrivalNs, bool bounded)
{
    HostCoreQueue::Slot s;
    if (!IsTimed())
    {
        s.accepted = true;
        s.startNs = s.doneNs = arrivalNs;
        return s;
    }
    if (!m_queue)
    {
        Build();
    }
    s = m_queue->Submit(key, cycles, arrivalNs, HOST_CORE_FLOW_HASH, bounded);
    if (!s.accepted)
    {
        ++m_refused;
        m_dropTrace(work, key);
        return s;
    }
    Served(work, cycles, s, arrivalNs);
    return s;
}

const char*
HostCpu::WorkName(Work work)
{
    static const char* names[WORK_KINDS] =
        {"stack", "nic_host", "control", "application", "nic_program", "dispatch"};
    return work < WORK_KINDS ? names[work] : "unknown";
}

const std::array<double, HostCpu::WORK_KINDS>&
HostCpu::GetCyclesByWork() const
{
    return m_cycles;
}

const HostCoreQueue*
HostCpu::GetQueue() const
{
    return m_queue.get();
}

nlohmann::json
HostCpu::Report(double seconds) const
{
    nlohmann::json j = {{"cores", m_cores}, {"clock_hz", m_clockHz}};
    if (!m_queue || !(seconds > 0))
    {
        j["utilisation"] = 0.0;
        return j;
    }
    // utilisation within [0, seconds]: work reserved beyond it (a backlog at the end) is not
    // time the cores were busy in the run
    const double capacityNs = seconds * 1e9;
    const int64_t until = static_cast<int64_t>(capacityNs);
    double busiest = 0;
    double busy = 0;
    for (uint32_t k = 0; k < m_queue->GetCores(); ++k)
    {
        const double b = static_cast<double>(m_queue->GetBusyNsUntil(k, until));
        busy += b;
        busiest = std::max(busiest, b / capacityNs);
    }
    j["utilisation"] = busy / (capacityNs * m_cores);
    j["busiest_core_utilisation"] = busiest;
    j["cycles"] = m_queue->GetCycles();
    j["jobs"] = m_queue->GetAccepted();
    j["refused"] = m_refused;
    j["wait_ns_total"] = m_queue->GetTotalWaitNs();
    j["wait_ns_max"] = m_queue->GetMaxWaitNs();
    nlohmann::json byWork = nlohmann::json::object();
    for (int w = 0; w < WORK_KINDS; ++w)
    {
        if (m_jobs[w] > 0)
        {
            byWork[WorkName(static_cast<Work>(w))] = {{"cycles", m_cycles[w]},
                                                      {"jobs", m_jobs[w]},
                                                      {"wait_ns_total", m_waitNs[w]}};
        }
    }
    j["by_work"] = byWork;
    return j;
}

} // namespace ns3
