/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-net-device.h"

#include "cora-program-file.h"

#include "ns3/double.h"
#include "ns3/fast-simulator.h"
#include "ns3/host-cpu.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/splitmix.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("CoraNetDevice");
NS_OBJECT_ENSURE_REGISTERED(CoraNetDevice);

namespace
{
/// IPv4 + TCP headers and the Ethernet-less point-to-point framing of one segment, bytes
constexpr uint32_t SEGMENT_OVERHEAD_BYTES = 20 + 20 + 2;
} // namespace

TypeId
CoraNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::CoraNetDevice")
            .SetParent<OffloadNetDevice>()
            .SetGroupName("Presto")
            .AddConstructor<CoraNetDevice>()
            .AddAttribute("Program",
                          "The NIC program: a shipped program name (tcp) or a .cora file; it "
                          "must have a branch named tcp (one flow per connection)",
                          StringValue("tcp"),
                          MakeStringAccessor(&CoraNetDevice::m_programName),
                          MakeStringChecker())
            .AddAttribute("Strategy",
                          "Partitioning strategy: cora (runtime controller, migrations), state "
                          "(Gallium-like static state partition) or flow (iPipe-like flow "
                          "groups with a runtime)",
                          StringValue("cora"),
                          MakeStringAccessor(&CoraNetDevice::m_strategy),
                          MakeStringChecker())
            .AddAttribute("Profile",
                          "NIC performance profile: netronome or bluefield",
                          StringValue("netronome"),
                          MakeStringAccessor(&CoraNetDevice::m_profile),
                          MakeStringChecker())
            .AddAttribute("HostCores",
                          "Host cores running the program's host part, cores",
                          UintegerValue(4),
                          MakeUintegerAccessor(&CoraNetDevice::m_hostCores),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("HostCyclesPerInstruction",
                          "Host cycles per program instruction, cycles",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&CoraNetDevice::m_cyclesPerInstruction),
                          MakeDoubleChecker<double>(0.01, 100))
            .AddAttribute("HostPacketCycles",
                          "Host cycles per packet that reaches the host part (driver, "
                          "polling), cycles",
                          UintegerValue(300),
                          MakeUintegerAccessor(&CoraNetDevice::m_hostPacketCycles),
                          MakeUintegerChecker<uint32_t>(0, 10000000))
            .AddAttribute("NicQueue",
                          "Packets waiting for the NIC's program before it drops, packets",
                          UintegerValue(512),
                          MakeUintegerAccessor(&CoraNetDevice::m_nicQueue),
                          MakeUintegerChecker<uint32_t>(1, 10000000))
            .AddAttribute("NicRateScale",
                          "Share of the modelled NIC packet rate this program gets (other "
                          "tenants use the rest), fraction",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&CoraNetDevice::m_nicRateScale),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("NicLatency",
                          "NIC pipeline latency of one packet without queueing, time",
                          TimeValue(MicroSeconds(2)),
                          MakeTimeAccessor(&CoraNetDevice::m_nicLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PcieLatency",
                          "Latency of one PCIe crossing between NIC and host, time",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&CoraNetDevice::m_pcieLatency),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("NicMemory",
                          "NIC memory for the program's state (the connection table), bytes",
                          UintegerValue(8 << 20),
                          MakeUintegerAccessor(&CoraNetDevice::m_nicMemory),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("ControllerInterval",
                          "Period of the runtime controller (load monitoring, migrations), "
                          "time",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&CoraNetDevice::m_controllerInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("OverloadThreshold",
                          "NIC utilisation above which the controller evicts state (with "
                          "OverloadSignal=queue only when packets also pile up), fraction",
                          DoubleValue(0.9),
                          MakeDoubleAccessor(&CoraNetDevice::m_overload),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("UnderloadThreshold",
                          "NIC utilisation below which the controller offloads state, fraction",
                          DoubleValue(0.6),
                          MakeDoubleAccessor(&CoraNetDevice::m_underload),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("OverloadSignal",
                          "What the controller takes as overload: queue (NIC utilisation above "
                          "OverloadThreshold and the packets pile up: a NIC drop in the "
                          "interval, or arrivals finding more than QueueOverload of the NIC "
                          "queue on average) or idle (utilisation above OverloadThreshold "
                          "alone, however short the queue)",
                          StringValue("queue"),
                          MakeStringAccessor(&CoraNetDevice::m_overloadSignal),
                          MakeStringChecker())
            .AddAttribute("QueueOverload",
                          "With OverloadSignal=queue: the mean NIC queue an arrival finds, as a "
                          "share of NicQueue, that counts as a pile-up, fraction",
                          DoubleValue(0.25),
                          MakeDoubleAccessor(&CoraNetDevice::m_queueOverload),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("MaxMigrationsPerInterval",
                          "Migrations the controller starts per interval, migrations",
                          UintegerValue(64),
                          MakeUintegerAccessor(&CoraNetDevice::m_maxMigrations),
                          MakeUintegerChecker<uint32_t>(1, 1000000))
            .AddAttribute("EvictionPolicy",
                          "Order of the controller's evictions when the NIC is overloaded: "
                          "heaviest (Cora's: the fewest migrations that shed the excess load), "
                          "lightest, or random (the paper's baseline; seeded from the ns-3 seed, "
                          "run number and node id, so a run repeats)",
                          StringValue("heaviest"),
                          MakeStringAccessor(&CoraNetDevice::m_evictionPolicy),
                          MakeStringChecker())
            .AddTraceSource("Migration",
                            "A state migration committed (three-step protocol done)",
                            MakeTraceSourceAccessor(&CoraNetDevice::m_migrationTrace),
                            "ns3::CoraNetDevice::MigrationTracedCallback");
    return tid;
}

CoraNetDevice::CoraNetDevice()
{
    NS_LOG_FUNCTION(this);
}

CoraNetDevice::~CoraNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
CoraNetDevice::Cleanup()
{
    m_commitEvent.Cancel();
    m_controller.reset();
    m_executor.reset();
    OffloadNetDevice::Cleanup();
}

void
CoraNetDevice::SetupModel()
{
    Configure();
}

void
CoraNetDevice::Configure()
{
    if (m_executor)
    {
        return;
    }
    const std::string where = "CoraNetDevice";
    CoraStrategy strategy = CoraStrategyFromString(m_strategy, where + "::Strategy");
    const CoraEvictionPolicy eviction =
        CoraEvictionPolicyFromString(m_evictionPolicy, where + "::EvictionPolicy");
    const CoraOverloadSignal signal =
        CoraOverloadSignalFromString(m_overloadSignal, where + "::OverloadSignal");
    if (m_queueOverload <= 0)
    {
        throw PrestoInputError(where + "::QueueOverload=0: a share of the NIC queue in (0, 1]");
    }
    if (m_programName.find(".cora") != std::string::npos)
    {
        m_program = std::make_unique<CoraProgram>(CoraLoadProgramFile(m_programName));
    }
    else
    {
        m_program = std::make_unique<CoraProgram>(CoraPrograms::ByName(m_programName));
    }
    try
    {
        m_branch = m_program->GetBranchIndex("tcp");
    }
    catch (const PrestoInputError& e)
    {
        throw PrestoInputError(where + "::Program=" + m_programName +
                               ": the program needs a branch named tcp (one flow per TCP "
                               "connection): " +
                               e.what());
    }
    m_model =
        std::make_unique<CoraPerfModel>(CoraPerfProfile::ByName(m_profile, where + "::Profile"));
    if (m_underload >= m_overload)
    {
        throw PrestoInputError(where + ": UnderloadThreshold (" + std::to_string(m_underload) +
                               ") must be below OverloadThreshold (" + std::to_string(m_overload) +
                               ")");
    }
    DoubleValue clock;
    GetAttribute("HostClock", clock);
    CoraExecutorConfig cfg;
    cfg.hostCores = m_hostCores;
    cfg.hostClockHz = clock.Get();
    cfg.hostCyclesPerInstruction = m_cyclesPerInstruction;
    cfg.hostPacketCycles = m_hostPacketCycles;
    cfg.nicQueueCapacity = m_nicQueue;
    cfg.nicRateScale = m_nicRateScale;
    cfg.nicLatencyNs = m_nicLatency.GetNanoSeconds();
    cfg.pcieLatencyNs = m_pcieLatency.GetNanoSeconds();
    cfg.limits.memoryBytes = m_nicMemory;
    cfg.strategy = strategy;
    cfg.placementOverload = m_overload; // new connections avoid a NIC the controller offloads
    cfg.placementQueueShare = signal == CoraOverloadSignal::QUEUE ? m_queueOverload : 0.0;
    cfg.Validate();
    // The initial plan knows no traffic yet: state partition places whole states by memory
    // alone (it is traffic-agnostic anyway); Cora and flow partition start empty and place
    // each new connection by their policy, then the controller adapts to what it measures.
    CoraAllocator allocator(*m_program, *m_model, cfg.limits);
    CoraPlan plan = allocator.Allocate(strategy, {});
    m_executor = std::make_unique<CoraExecutor>(*m_program, *m_model, cfg);
    m_executor->SetPlan(plan);
    m_executor->SetMigrationCallback([this](const CoraMigrationEvent& e) { m_migrationTrace(e); });
    // With a timed HostCpu on the node the program's host-resident part runs on the host's
    // own cores, beside its stack and applications, instead of HostCores cores of its own.
    Ptr<HostCpu> cpu = GetNode() ? GetNode()->GetObject<HostCpu>() : nullptr;
    if (cpu && cpu->IsTimed())
    {
        HostCpu* host = PeekPointer(cpu);
        m_executor->SetHostServer([host](uint64_t flow, double arrivalNs, double cycles) {
            const HostCoreQueue::Slot slot = host->ReserveAt(HostCpu::WORK_NIC_PROGRAM,
                                                             flow,
                                                             cycles,
                                                             static_cast<int64_t>(arrivalNs),
                                                             true);
            return slot.accepted ? static_cast<double>(slot.doneNs) : -1.0;
        });
    }
    if (strategy != CoraStrategy::STATE_PARTITION)
    {
        CoraController::Config cc;
        cc.intervalNs = m_controllerInterval.GetNanoSeconds();
        cc.overload = m_overload;
        cc.underload = m_underload;
        cc.maxMigrationsPerInterval = m_maxMigrations;
        cc.eviction = eviction;
        cc.signal = signal;
        cc.queueOverload = m_queueOverload;
        // The random policy's stream: the same --seed (run) and host, the same evictions; not
        // drawn from an ns-3 stream so that it does not shift the other streams' numbering.
        const Ptr<Node> node = GetNode();
        cc.seed =
            SplitMix64(SplitMix64(RngSeedManager::GetSeed() ^ (RngSeedManager::GetRun() << 32)) ^
                       (node ? node->GetId() : 0));
        cc.Validate();
        m_controller = std::make_unique<CoraController>(*m_executor, cc);
    }
}

const CoraExecutor&
CoraNetDevice::GetExecutor()
{
    Configure();
    return *m_executor;
}

const CoraController*
CoraNetDevice::GetController() const
{
    return m_controller.get();
}

void
CoraNetDevice::ConfigureConnection(OffloadTcpConfig& cfg,
                                   Ipv4Address peer,
                                   uint16_t localPort,
                                   uint16_t peerPort,
                                   bool activeOpen)
{
    Configure();
}

CoraFlow
CoraNetDevice::FlowOf(uint32_t conn) const
{
    Ipv4Address peer;
    uint16_t localPort;
    uint16_t peerPort;
    GetEndpoints(conn, peer, localPort, peerPort);
    CoraFlow f;
    // one flow per connection: both directions share its connection-table entry
    f.id = (uint64_t(peer.Get()) << 32) | (uint64_t(peerPort) << 16) | localPort;
    f.branch = m_branch;
    f.srcIp = peer.Get();
    f.dstIp = GetLocalAddress().Get();
    return f;
}

CoraVerdict
CoraNetDevice::Run(uint32_t conn, const OffloadSegment& seg, bool received)
{
    Configure();
    const int64_t now = FastSimulator::NowNs();
    if (m_firstNs < 0)
    {
        m_firstNs = now;
        m_nextTickNs = now + m_controllerInterval.GetNanoSeconds();
    }
    m_lastNs = now;
    // The controller runs on the segments' clock: a periodic event would keep an idle
    // simulation alive; ticking lazily at the next segment measures the same window.
    if (m_controller && now >= m_nextTickNs)
    {
        m_controller->Tick(now);
        m_nextTickNs = now + m_controllerInterval.GetNanoSeconds();
    }
    CoraPacket p;
    p.flow = FlowOf(conn);
    p.bytes = seg.payloadLen + SEGMENT_OVERHEAD_BYTES;
    if (m_controller)
    {
        m_controller->OnPacket(p);
    }
    CoraVerdict v = m_executor->Process(now, p);
    ScheduleCommit();
    return v;
}

void
CoraNetDevice::ScheduleCommit()
{
    // A migration commits when the executor's clock passes its commit time; on a link that
    // falls quiet no segment would move the clock, so an event does.
    int64_t next = m_executor->GetNextCommitNs();
    if (next < 0 || (compat::IsPending(m_commitEvent) && m_commitAtNs <= next))
    {
        return;
    }
    m_commitEvent.Cancel();
    m_commitAtNs = next;
    m_commitEvent = compat::Schedule(NanoSeconds(next) - FastSimulator::Now(), [this]() {
        if (m_executor)
        {
            m_executor->AdvanceTo(FastSimulator::NowNs());
            ScheduleCommit();
        }
    });
}

bool
CoraNetDevice::AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency)
{
    CoraVerdict v = Run(conn, seg, true);
    if (v.dropped)
    {
        return false;
    }
    latency = NanoSeconds(v.departNs) - FastSimulator::Now();
    return true;
}

Time
CoraNetDevice::ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop)
{
    CoraVerdict v = Run(conn, seg, false);
    drop = v.dropped;
    return v.dropped ? Time(0) : NanoSeconds(v.departNs) - FastSimulator::Now();
}

void
CoraNetDevice::OnConnectionClosed(uint32_t conn)
{
    if (!m_executor)
    {
        return;
    }
    // the connection-table entries of a closed connection free their memory
    CoraFlow f = FlowOf(conn);
    for (uint32_t b : m_program->GetBranchBlocks(m_branch))
    {
        m_executor->Release(FastSimulator::NowNs(),
                            b,
                            CoraAggregateKey(m_program->GetBlocks()[b].key, f));
    }
}

OffloadHostWork
CoraNetDevice::GetHostWork() const
{
    OffloadHostWork w = OffloadNetDevice::GetHostWork();
    if (m_executor)
    {
        w.programCycles += static_cast<uint64_t>(m_executor->GetStats().hostBusyCycles);
    }
    return w;
}

void
CoraNetDevice::AddCounters(nlohmann::json& nic) const
{
    OffloadNetDevice::AddCounters(nic);
    if (!m_executor)
    {
        return;
    }
    const CoraExecutorStats& s = m_executor->GetStats();
    auto add = [&nic](const char* key, uint64_t v) { nic[key] = nic.value(key, uint64_t(0)) + v; };
    add("cora_packets", s.packets);
    add("cora_nic_only_packets", s.nicPackets);
    add("cora_host_packets", s.hostPackets);
    add("nic_drops", s.nicDrops + s.lockDrops);
    add("nic_overload_drops", s.nicDrops);
    add("nic_lock_drops", s.lockDrops);
    add("host_drops", s.hostDrops);
    add("held_packets", s.heldPackets);
    add("migrations", s.migrationsToHost + s.migrationsToNic);
    add("migrations_to_host", s.migrationsToHost);
    add("migrations_to_nic", s.migrationsToNic);
    add("nic_pairs", s.nicPairs);
    add("host_pairs", s.hostPairs);
    add("nic_memory_bytes", s.nicMemoryBytes);
    add("host_program_cycles", static_cast<uint64_t>(s.hostBusyCycles));
    if (m_controller)
    {
        add("evictions", m_controller->GetEvictions());
        add("offloads", m_controller->GetOffloads());
        uint64_t overloaded = 0;
        for (const CoraControllerTick& t : m_controller->GetHistory())
        {
            overloaded += t.overloaded ? 1 : 0;
        }
        add("overload_intervals", overloaded);
        add("controller_intervals", m_controller->GetHistory().size());
    }
    // utilisation of the busiest host's NIC over the time segments flowed through it
    double util = m_lastNs > m_firstNs && m_firstNs >= 0
                      ? m_executor->GetNicUtilisation(m_firstNs, m_lastNs)
                      : 0.0;
    nic["nic_utilisation"] = std::max(nic.value("nic_utilisation", 0.0), util);
    nic["cora_strategy"] = m_strategy;
    nic["cora_program"] = m_program->GetName();
    nic["cora_profile"] = m_profile;
    nic["cora_eviction_policy"] = m_evictionPolicy;
    nic["cora_overload_signal"] = m_overloadSignal;
}

} // namespace ns3
