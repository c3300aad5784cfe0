/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-net-device.h"

#include "presto-dctcp-congestion.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/fast-simulator.h"
#include "ns3/log.h"
#include "ns3/offload-seq.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PrestoNetDevice");
NS_OBJECT_ENSURE_REGISTERED(PrestoNetDevice);

TypeId
PrestoNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::PrestoNetDevice")
            .SetParent<OffloadNetDevice>()
            .SetGroupName("Presto")
            .AddConstructor<PrestoNetDevice>()
            .AddAttribute("ReassemblyFidelity",
                          "Out-of-order intervals K per connection, one value per class: "
                          "\"K0,K1,...\", each 0..16 or full (unbounded reassembly, the "
                          "reference; not a pipeline program)",
                          StringValue("1"),
                          MakeStringAccessor(&PrestoNetDevice::m_fidelityText),
                          MakeStringChecker())
            .AddAttribute("ClassifierRules",
                          "File of classifier rules mapping connections to fidelity classes "
                          "(\"\": every connection in class 0); see PrestoClassifier",
                          StringValue(""),
                          MakeStringAccessor(&PrestoNetDevice::m_rulesFile),
                          MakeStringChecker())
            .AddAttribute("StageBudget",
                          "Match-action stages of the pipeline, stages",
                          UintegerValue(12),
                          MakeUintegerAccessor(&PrestoNetDevice::m_stageBudget),
                          MakeUintegerChecker<uint32_t>(1, 1000))
            .AddAttribute("PipelineClock",
                          "Pipeline clock, Hz (one packet per clock per pipe)",
                          DoubleValue(1.25e9),
                          MakeDoubleAccessor(&PrestoNetDevice::m_clockHz),
                          MakeDoubleChecker<double>(1e6))
            .AddAttribute("Pipes",
                          "Parallel pipes running the program, pipes",
                          UintegerValue(1),
                          MakeUintegerAccessor(&PrestoNetDevice::m_pipes),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("StageRegisterMemory",
                          "Register memory of one match-action stage; a program whose arrays "
                          "for MaxConnections slots need more in one stage is refused (assumed "
                          "value, the order of the per-stage SRAM of the RMT design; 0: no "
                          "limit), bytes",
                          UintegerValue(1536 * 1024),
                          MakeUintegerAccessor(&PrestoNetDevice::m_stageRegisterBytes),
                          MakeUintegerChecker<uint64_t>(0, uint64_t(1) << 40))
            .AddAttribute("PipelineBuffer",
                          "Passes that may wait for a pipeline slot in the input buffer; a "
                          "received segment arriving when it is full is dropped (assumed "
                          "value), passes",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&PrestoNetDevice::m_bufferPasses),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("TimerScanRate",
                          "Timer-scan packets the pipeline's packet generator sends per second, "
                          "each visiting one connection slot's timers; they take as many "
                          "pipeline slots (assumed value: a tenth of the default pipeline; 0: "
                          "not modelled), packets/s",
                          DoubleValue(125e6),
                          MakeDoubleAccessor(&PrestoNetDevice::m_scanRate),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("SendProgram",
                          "Run every ACK, send pass, doorbell and timer visit through the "
                          "send-side pipeline program (PrestoTxProgram) beside the data path "
                          "and count disagreements (tx_program_mismatches). The program is "
                          "exact: this checks it, and costs simulation time; its resources and "
                          "its second passes are charged either way",
                          BooleanValue(false),
                          MakeBooleanAccessor(&PrestoNetDevice::m_runTxProgram),
                          MakeBooleanChecker())
            .AddAttribute("TimerScanSlots",
                          "Connection slots one round of the timer scan walks (0: the slots in "
                          "use, 0 to the highest slot used; N: a fixed range, as a generator "
                          "configured once for a register array of N slots), slots",
                          UintegerValue(0),
                          MakeUintegerAccessor(&PrestoNetDevice::m_scanSlots),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute(
                "IntervalPolicy",
                "How a connection's K out-of-order intervals are assigned: "
                "ArrivalOrder (the first K runs to arrive hold them) or PerPath (at "
                "most one interval per path label; needs sender-side spraying, "
                "OffloadNetDevice::PathLabels > 0, and a finite ReassemblyFidelity)",
                EnumValue(PrestoNetDevice::ARRIVAL_ORDER),
                compat::MakeEnumAccessor<IntervalPolicy>(&PrestoNetDevice::m_intervalPolicy),
                MakeEnumChecker(PrestoNetDevice::ARRIVAL_ORDER,
                                "ArrivalOrder",
                                PrestoNetDevice::PER_PATH,
                                "PerPath"))
            .AddAttribute(
                "Placement",
                "Where the data path's pipeline is: host (a NIC per host, the default) or tor "
                "(the rack switch's one pipeline shared by the rack's hosts, as Presto's "
                "prototype ran: packet rate, MaxConnections connection slots and timer scan per "
                "rack; the rack is given by SetRackPipeline, which SprayExperiment calls with "
                "--prestoPlacement=tor)",
                EnumValue(PrestoNetDevice::PLACE_HOST),
                compat::MakeEnumAccessor<Placement>(&PrestoNetDevice::m_placement),
                MakeEnumChecker(PrestoNetDevice::PLACE_HOST,
                                "host",
                                PrestoNetDevice::PLACE_TOR,
                                "tor"))
            .AddAttribute("StageLatency",
                          "Latency of one match-action stage, cycles",
                          UintegerValue(12),
                          MakeUintegerAccessor(&PrestoNetDevice::m_stageCycles),
                          MakeUintegerChecker<uint32_t>(1, 10000));
    return tid;
}

PrestoNetDevice::PrestoNetDevice()
{
    NS_LOG_FUNCTION(this);
}

PrestoNetDevice::~PrestoNetDevice()
{
    NS_LOG_FUNCTION(this);
}

uint32_t
PrestoNetDevice::ParseFidelity(const std::string& text, const std::string& where)
{
    if (text == "full")
    {
        return ReassemblyTracker::UNBOUNDED;
    }
    uint64_t k = 0;
    std::string why;
    if (WholeToken::Parse(text, ReassemblyTracker::MAX_FIDELITY, k, why))
    {
        return static_cast<uint32_t>(k);
    }
    throw PrestoInputError(where + "=" + text + " is not valid; valid values: 0.." +
                           std::to_string(ReassemblyTracker::MAX_FIDELITY) +
                           " or full (one value per class, separated by commas)");
}

std::vector<uint32_t>
PrestoNetDevice::ParseFidelities(const std::string& text, const std::string& where)
{
    std::vector<uint32_t> ks;
    std::istringstream is(text);
    std::string item;
    while (std::getline(is, item, ','))
    {
        ks.push_back(ParseFidelity(item, where));
    }
    if (ks.empty())
    {
        throw PrestoInputError(where + " is empty; give K per class, e.g. 1 or 2,0,full");
    }
    return ks;
}

void
PrestoNetDevice::RequireClassRules(const std::vector<uint32_t>& ks,
                                   const std::string& fidelities,
                                   const std::string& rulesFile)
{
    if (ks.size() > 1 && rulesFile.empty())
    {
        // without rules every connection is in class 0: the other classes' K would be ignored
        throw PrestoInputError("PrestoNetDevice::ReassemblyFidelity=" + fidelities + " gives " +
                               std::to_string(ks.size()) +
                               " classes, but ClassifierRules is empty and puts every "
                               "connection in class 0: give the class rules (--classRules) "
                               "or one K");
    }
}

RmtPipelineConfig
PrestoNetDevice::PipelineConfig() const
{
    RmtPipelineConfig cfg;
    cfg.name = "presto-rx";
    cfg.stageBudget = m_stageBudget;
    cfg.clockHz = m_clockHz;
    cfg.pipes = m_pipes;
    cfg.stageLatencyCycles = m_stageCycles;
    cfg.registerBitsPerStage = m_stageRegisterBytes * 8;
    return cfg;
}

void
PrestoNetDevice::CheckConfiguration(const std::string& fidelities,
                                    uint32_t stageBudget,
                                    const std::string& rulesFile)
{
    std::vector<uint32_t> ks = ParseFidelities(fidelities, "ReassemblyFidelity");
    RequireClassRules(ks, fidelities, rulesFile);
    RmtPipelineConfig cfg;
    cfg.stageBudget = stageBudget;
    for (uint32_t k : ks)
    {
        if (k != ReassemblyTracker::UNBOUNDED)
        {
            PrestoRxProgram probe(k, 1, cfg); // throws when over the budget
        }
    }
    if (!rulesFile.empty())
    {
        PrestoClassifier classifier(static_cast<uint32_t>(ks.size()));
        classifier.LoadRulesFromFile(rulesFile);
    }
}

void
PrestoNetDevice::SetupModel()
{
    Configure();
    Ptr<const OffloadCongestionControl> cc = GetCongestionControl();
    if (Ptr<PrestoDctcpCongestion> p =
            DynamicCast<PrestoDctcpCongestion>(ConstCast<OffloadCongestionControl>(cc)))
    {
        UintegerValue maxConnections;
        GetAttribute("MaxConnections", maxConnections);
        try
        {
            // its inputs come from the send program's first stages: it starts behind them
            const uint32_t depth = PrestoTxProgram::ACK_INPUT_STAGES + PrestoDctcpProgram::STAGES;
            if (depth > m_stageBudget)
            {
                throw PrestoInputError(
                    "Presto DCTCP pipeline program needs " + std::to_string(depth) + " stages (" +
                    std::to_string(PrestoDctcpProgram::STAGES) + " behind the " +
                    std::to_string(PrestoTxProgram::ACK_INPUT_STAGES) +
                    " stages of the send program that find the acked bytes) but the stage "
                    "budget is " +
                    std::to_string(m_stageBudget) + " stages");
            }
            p->BindPipeline(PipelineConfig(), static_cast<uint32_t>(maxConnections.Get()));
        }
        catch (const PrestoInputError& e)
        {
            throw PrestoInputError("PrestoNetDevice::CongestionControl=ns3::PrestoDctcpCongestion "
                                   "on this pipeline (StageBudget=" +
                                   std::to_string(m_stageBudget) +
                                   ", StageRegisterMemory=" + std::to_string(m_stageRegisterBytes) +
                                   " bytes, MaxConnections=" +
                                   std::to_string(maxConnections.Get()) + "): " + e.what());
        }
        m_ccProgram = p->GetProgram();
        m_ccRecircCharged = 0;
    }
}

void
PrestoNetDevice::Configure()
{
    if (m_configured)
    {
        return;
    }
    m_fidelity = ParseFidelities(m_fidelityText, "PrestoNetDevice::ReassemblyFidelity");
    RequireClassRules(m_fidelity, m_fidelityText, m_rulesFile);
    UintegerValue maxConnections;
    GetAttribute("MaxConnections", maxConnections);
    ReadPathLabels();
    const uint32_t programLabels = m_intervalPolicy == PER_PATH ? m_pathLabels : 0;
    RmtPipelineConfig cfg = PipelineConfig();
    m_programs.clear();
    for (uint32_t k : m_fidelity)
    {
        m_programs.push_back(
            k == ReassemblyTracker::UNBOUNDED
                ? nullptr
                : std::make_unique<PrestoRxProgram>(k,
                                                    static_cast<uint32_t>(maxConnections.Get()),
                                                    cfg,
                                                    programLabels));
    }
    if (!m_rulesFile.empty())
    {
        m_classifier = std::make_unique<PrestoClassifier>(static_cast<uint32_t>(m_fidelity.size()));
        m_classifier->LoadRulesFromFile(m_rulesFile);
    }
    // the unbounded reference has no program: charge it one pass over the whole budget
    double cycles = cfg.parserCycles + double(m_stageBudget) * m_stageCycles + cfg.deparserCycles;
    m_fullPassLatency = NanoSeconds(static_cast<int64_t>(cycles * 1e9 / m_clockHz + 0.5));
    m_classConnections.assign(m_fidelity.size(), 0);
    SetupPipeSlots(static_cast<uint32_t>(maxConnections.Get()));
    BuildTxProgram(cfg, static_cast<uint32_t>(maxConnections.Get()));
    m_txPassLatency.clear();
    for (const auto& p : m_programs)
    {
        m_txPassLatency.push_back(
            p ? NanoSeconds(static_cast<int64_t>(p->GetResourceReport().passLatencyNs + 0.5))
              : m_fullPassLatency);
    }
    m_configured = true;
}

void
PrestoNetDevice::ReadPathLabels()
{
    UintegerValue pathLabels;
    GetAttribute("PathLabels", pathLabels);
    m_pathLabels = static_cast<uint32_t>(pathLabels.Get());
    if (m_intervalPolicy == PER_PATH)
    {
        if (m_pathLabels == 0)
        {
            throw PrestoInputError(
                "PrestoNetDevice::IntervalPolicy=PerPath needs path labels: set "
                "OffloadNetDevice::PathLabels to the paths the senders spread over (and "
                "FabricSwitch::LoadBalancing=Label, --lb=label, to route by them)");
        }
        if (std::find(m_fidelity.begin(), m_fidelity.end(), ReassemblyTracker::UNBOUNDED) !=
            m_fidelity.end())
        {
            throw PrestoInputError(
                "PrestoNetDevice::IntervalPolicy=PerPath with ReassemblyFidelity=" +
                m_fidelityText +
                ": full reassembly keeps every range, so there are no intervals to assign per "
                "path; choose a finite K");
        }
    }
}

void
PrestoNetDevice::SetupPipeSlots(uint32_t maxConnections)
{
    RmtPipeSlots::Config slots;
    slots.clockHz = m_clockHz;
    slots.pipes = m_pipes;
    slots.bufferPasses = m_bufferPasses;
    slots.reservedPassRate = m_scanRate; // the timer scan's packets
    if ((m_placement == PLACE_TOR) != bool(m_rack))
    {
        throw PrestoInputError(m_rack ? "PrestoNetDevice: a rack pipeline was given "
                                        "(SetRackPipeline) but Placement=host"
                                      : "PrestoNetDevice::Placement=tor needs the rack's "
                                        "pipeline: call SetRackPipeline on every host of the "
                                        "rack (SprayExperiment does with --prestoPlacement=tor)");
    }
    try
    {
        if (m_rack)
        {
            // the rack switch's one pipeline: every host's passes take its slots
            m_pipeSlots = &m_rack->Join(slots, maxConnections, this);
        }
        else
        {
            m_ownSlots = std::make_unique<RmtPipeSlots>(slots);
            m_pipeSlots = m_ownSlots.get();
        }
    }
    catch (const PrestoInputError& e)
    {
        std::ostringstream os;
        os << "PrestoNetDevice::TimerScanRate=" << m_scanRate << " with PipelineClock=" << m_clockHz
           << " and Pipes=" << m_pipes << ": " << e.what()
           << "; lower TimerScanRate (0: not modelled) or raise the clock or the pipes";
        throw PrestoInputError(os.str());
    }
}

void
PrestoNetDevice::BuildTxProgram(const RmtPipelineConfig& cfg, uint32_t maxConnections)
{
    // the send side's program, with the parameters every connection of this NIC gets
    // (OffloadNetDevice::Establish)
    const OffloadTcpConfig defaults;
    TimeValue minRto;
    GetAttribute("MinRto", minRto);
    PrestoTxProgram::Params tp;
    tp.dupAckThreshold = defaults.dupAckThreshold;
    tp.minRtoNs = minRto.Get().GetNanoSeconds();
    tp.initialRtoNs = std::max<uint64_t>(tp.minRtoNs, defaults.initialRtoNs);
    tp.maxRtoNs = defaults.maxRtoNs;
    try
    {
        m_txProgram = std::make_unique<PrestoTxProgram>(maxConnections, tp, cfg);
    }
    catch (const PrestoInputError& e)
    {
        throw PrestoInputError("PrestoNetDevice: the send side's program does not fit this "
                               "pipeline (StageBudget=" +
                               std::to_string(m_stageBudget) +
                               ", StageRegisterMemory=" + std::to_string(m_stageRegisterBytes) +
                               " bytes, MaxConnections=" + std::to_string(maxConnections) +
                               "): " + e.what());
    }
}

void
PrestoNetDevice::ConfigureConnection(OffloadTcpConfig& cfg,
                                     Ipv4Address peer,
                                     uint16_t localPort,
                                     uint16_t peerPort,
                                     bool activeOpen)
{
    Configure();
    uint32_t cls = 0;
    if (m_classifier)
    {
        // rules see the connection oriented client -> server, whichever end this host is
        PrestoFlowKey key;
        key.protocol = 6;
        uint32_t local = GetLocalAddress().Get();
        key.src = activeOpen ? local : peer.Get();
        key.dst = activeOpen ? peer.Get() : local;
        key.srcPort = activeOpen ? localPort : peerPort;
        key.dstPort = activeOpen ? peerPort : localPort;
        cls = m_classifier->Classify(key);
    }
    cfg.fidelity = m_fidelity[cls];
    cfg.intervalPolicy = m_intervalPolicy == PER_PATH ? ReassemblyTracker::Policy::PER_PATH
                                                      : ReassemblyTracker::Policy::ARRIVAL_ORDER;
    m_pendingClass = cls;
}

void
PrestoNetDevice::OnEstablished(uint32_t conn, const OffloadTcpConnection& tcp)
{
    if (m_classOf.size() <= conn)
    {
        m_classOf.resize(conn + 1, 0);
        m_finSeen.resize(conn + 1, false);
    }
    m_classOf[conn] = m_pendingClass;
    m_finSeen[conn] = false;
    if (m_doorbell.size() <= conn)
    {
        m_doorbell.resize(conn + 1, false);
        m_txMss.resize(conn + 1, 0);
    }
    m_doorbell[conn] = false; // a new connection in the slot
    m_txMss[conn] = tcp.GetConfig().mss;
    if (conn + 1 > m_scanRange)
    {
        // the scan walks the slots used so far (on a rack switch: every host's)
        if (m_rack)
        {
            m_rack->GrowScanRange(conn + 1 - m_scanRange);
        }
        m_scanRange = conn + 1;
    }
    ++m_classConnections[m_pendingClass];
    if (auto& program = m_programs[m_pendingClass])
    {
        // the program's registers for this slot start where the data path starts
        program->Reset(conn, tcp.GetRcvNext(), tcp.GetAdvertisedWindow());
    }
    if (m_runTxProgram)
    {
        m_txProgram->Init(conn, tcp.GetSendState(), tcp.GetConfig().mss);
    }
}

void
PrestoNetDevice::OnApplicationPosted(uint32_t conn)
{
    if (conn >= m_doorbell.size())
    {
        return; // not established yet: no data path to send from
    }
    // The host's doorbell is a packet: it writes the stream's end and the close, and goes on
    // as the connection's send pass when a segment is due (its pass is then charged as that
    // send's). One that finds nothing to send takes its pass alone.
    const OffloadTcpConnection& tcp = GetConnection(conn);
    const bool due = tcp.ChooseSegment().has_value();
    m_doorbell[conn] = due;
    if (!due)
    {
        TakeSlots(1);
        ++m_doorbellPasses;
    }
    if (!m_runTxProgram)
    {
        return;
    }
    const OffloadSendState data = tcp.GetSendState();
    const bool ready = m_txProgram->Post(conn,
                                         data.sndBufEnd,
                                         data.closeRequested,
                                         tcp.GetCwnd(),
                                         FastSimulator::NowNs());
    const bool agree = ready == due;
    if (!agree)
    {
        NS_LOG_WARN("conn " << conn << ": after the doorbell the send program says a segment is "
                            << (ready ? "" : "not ") << "due, the data path does not");
    }
    if (!CheckSendState(conn, "doorbell") || !agree)
    {
        ++m_txMismatches;
    }
}

bool
PrestoNetDevice::CheckSendState(uint32_t conn, const char* what)
{
    const OffloadTcpConnection& tcp = GetConnection(conn);
    const OffloadSendState data = tcp.GetSendState();
    const std::string diff = m_txProgram->GetState(conn).Diff(data);
    if (diff.empty())
    {
        return true;
    }
    NS_LOG_WARN("conn " << conn << " after " << what << ": send program vs data path: " << diff);
    // resynchronise, so that one difference is counted once
    m_txProgram->Init(conn, data, tcp.GetConfig().mss);
    return false;
}

void
PrestoNetDevice::OnTimersExamined(uint32_t conn,
                                  const OffloadTcpConnection& tcp,
                                  const OffloadTimerDecision& decision,
                                  uint64_t nowNs)
{
    if (decision.timeout)
    {
        // the scan packet that finds the timer expired recirculates (PrestoTxProgram): the
        // second pass takes a slot of its own, whether or not the program runs here
        TakeSlots(1);
        ++m_timeoutPasses;
    }
    if (!m_runTxProgram)
    {
        return;
    }
    const OffloadTimerDecision t = m_txProgram->OnTimerScan(conn, nowNs);
    const bool agree = t.timeout == decision.timeout && t.probe == decision.probe;
    if (!agree)
    {
        NS_LOG_WARN("conn " << conn
                            << ": send program and data path disagree on a timeout or probe");
    }
    if (!CheckSendState(conn, "timer scan") || !agree)
    {
        ++m_txMismatches;
    }
}

void
PrestoNetDevice::OnApplicationRead(uint32_t conn, uint32_t bytes)
{
    if (auto& program = m_programs[m_classOf[conn]])
    {
        program->OpenWindow(conn, bytes);
    }
    TakeSlots(1); // the pass that opens the window (and sends the update) uses a slot
}

Time
PrestoNetDevice::TakeSlots(uint32_t passes)
{
    const int64_t waitPs = m_pipeSlots->Take(FastSimulator::NowPs(), passes);
    return FastSimulator::FromNs((waitPs + 999) / 1000);
}

bool
PrestoNetDevice::TimersDue(uint64_t nowNs)
{
    if (m_scanRate <= 0)
    {
        return true; // not modelled: every scan of the shared device
    }
    if (nowNs < m_nextTimerVisitNs)
    {
        return false; // the scan packets have not come round to the slots yet
    }
    // one round of the scan over the slots in use; examined all at once at its end (the
    // slots' phases within a round are not modelled)
    const uint64_t range = m_rack ? m_rack->GetScanRange() : m_scanRange;
    const uint64_t slots = m_scanSlots > 0 ? m_scanSlots : std::max<uint64_t>(range, 1);
    const uint64_t roundNs = static_cast<uint64_t>(std::ceil(double(slots) / m_scanRate * 1e9));
    m_timerRoundMaxNs = std::max(m_timerRoundMaxNs, roundNs);
    m_nextTimerVisitNs = nowNs + roundNs;
    ++m_timerVisits;
    return true;
}

bool
PrestoNetDevice::ReserveConnectionSlot()
{
    return !m_rack || m_rack->Reserve();
}

void
PrestoNetDevice::ReleaseConnectionSlot()
{
    if (m_rack)
    {
        m_rack->Release();
    }
}

void
PrestoNetDevice::SetRackPipeline(Ptr<PrestoRackPipeline> rack)
{
    if (m_configured)
    {
        throw PrestoInputError("PrestoNetDevice::SetRackPipeline: the device is configured "
                               "already; call it before the run");
    }
    m_rack = rack;
}

bool
PrestoNetDevice::AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency)
{
    Configure();
    latency = Time(0);
    return m_pipeSlots->Admit(FastSimulator::NowPs()); // else: input buffer full
}

Time
PrestoNetDevice::ProcessReceived(uint32_t conn,
                                 const OffloadSegment& seg,
                                 const OffloadRxDecision& decision)
{
    auto& program = m_programs[m_classOf[conn]];
    Time latency = m_fullPassLatency;
    uint32_t passes = 1;
    if (program)
    {
        if (seg.payloadLen > 0 && !m_finSeen[conn])
        {
            // the segment runs through the class's pipeline program
            ReassemblyTracker::Result r =
                program->OnSegment(conn, seg.seq, seg.payloadLen, seg.pathLabel);
            const RmtExecution& x = program->GetLastExecution();
            passes = x.passes;
            latency = FastSimulator::FromNs(static_cast<int64_t>(x.latencyNs + 0.5));
            if (r.verdict != decision.verdict || r.writeSeq != decision.writeSeq ||
                r.writeLen != decision.writeLen || r.delivered != decision.delivered)
            {
                ++m_mismatches;
                NS_LOG_WARN("conn " << conn << " seq " << seg.seq << ": pipeline program says "
                                    << ReassemblyTracker::VerdictName(r.verdict)
                                    << ", data path says "
                                    << ReassemblyTracker::VerdictName(decision.verdict));
            }
        }
        else
        {
            latency = m_txPassLatency[m_classOf[conn]]; // one pass, no reassembly work
        }
    }
    if (decision.peerClosed)
    {
        m_finSeen[conn] = true;
    }
    // PrestoTxProgram: an ACK that moves snd_nxt (a go-back-N, or snd_una passing a rewound
    // snd_nxt) writes it in a second pass; charged whether or not the program runs here
    const uint32_t txExtra = decision.goBackN || decision.sndNxtRaised ? 1 : 0;
    if (m_runTxProgram && seg.Has(OffloadSegment::ACK) &&
        !seg.Has(OffloadSegment::RST | OffloadSegment::SYN) && !GetConnection(conn).IsReset())
    {
        const OffloadTcpConnection& tcp = GetConnection(conn);
        // the segment's ACK field in the send program, in the same pass
        const PrestoTxProgram::AckResult r = m_txProgram->OnAck(conn,
                                                                seg.ack,
                                                                seg.window,
                                                                seg.payloadLen,
                                                                seg.Has(OffloadSegment::FIN),
                                                                tcp.GetCwnd(),
                                                                FastSimulator::NowNs());
        const bool refused =
            r.cls == PrestoTxProgram::ACK_UNACCEPTABLE || r.cls == PrestoTxProgram::ACK_TOO_OLD;
        const bool agree = refused == decision.unacceptable && r.goBackN == decision.goBackN &&
                           r.dataAcked == decision.ackedBytes && r.finAcked == decision.finAcked &&
                           r.ready == tcp.ChooseSegment().has_value() &&
                           m_txProgram->GetLastExecution().passes == 1 + txExtra;
        if (!agree)
        {
            NS_LOG_WARN("conn " << conn << " ack " << seg.ack
                                << ": send program and data path decide differently");
        }
        if (!CheckSendState(conn, "ACK") || !agree)
        {
            ++m_txMismatches; // one packet, one count
        }
    }
    uint32_t ccExtra = 0;
    if (m_ccProgram)
    {
        // an ECE cut recirculates in the congestion program, and so does the loss reaction
        // of a duplicate ACK that goes back N: one more pass each
        const uint64_t recirculations = m_ccProgram->GetRecirculations();
        ccExtra = static_cast<uint32_t>(recirculations - m_ccRecircCharged);
        m_ccRecircCharged = recirculations;
    }
    // the send and congestion programs write disjoint arrays: one second pass serves both
    passes += std::max(ccExtra, txExtra);
    m_ackFixPasses += txExtra > ccExtra ? txExtra - ccExtra : 0;
    m_ackMoves += txExtra;
    ++m_rxPackets;
    m_rxPasses += passes;
    return TakeSlots(passes) + latency;
}

Time
PrestoNetDevice::ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop)
{
    uint32_t passes = 1;
    const bool fin = seg.Has(OffloadSegment::FIN);
    if (seg.payloadLen > 0 || fin)
    {
        // a send pass (PrestoTxProgram): its first stage guesses a full segment, or on a
        // doorbell's own pass what the host posted (up to a full segment); any other segment
        // takes a second pass, whether or not the program runs here
        const uint32_t seqLen = seg.payloadLen + (fin ? 1 : 0);
        std::optional<uint32_t> postedEnd;
        uint32_t guess = m_txMss[conn];
        if (m_doorbell[conn])
        {
            m_doorbell[conn] = false;
            postedEnd = GetConnection(conn).GetSndBufEnd();
            guess = std::min(guess, seq::Lt(seg.seq, *postedEnd) ? *postedEnd - seg.seq : 0u);
        }
        if (seqLen != guess)
        {
            passes = 2;
            ++m_sendFixPasses;
        }
        if (m_runTxProgram)
        {
            const OffloadTcpConnection& tcp = GetConnection(conn);
            const PrestoTxProgram::SendResult r =
                m_txProgram->Send(conn, tcp.GetCwnd(), FastSimulator::NowNs(), postedEnd);
            const bool agree = r.seq == seg.seq && r.len == seg.payloadLen && r.fin == fin &&
                               m_txProgram->GetLastExecution().passes == passes;
            if (!agree)
            {
                NS_LOG_WARN("conn " << conn << ": the send program chose seq " << r.seq << " len "
                                    << r.len << (r.fin ? " FIN" : "") << ", the data path seq "
                                    << seg.seq << " len " << seg.payloadLen << (fin ? " FIN" : ""));
            }
            if (!CheckSendState(conn, "transmit") || !agree)
            {
                ++m_txMismatches;
            }
        }
    }
    // the segment leaves after pass 1 (it is known there); a clone of it takes pass 2, so
    // the second pass costs a slot, not latency
    m_txPasses += passes;
    auto& program = m_programs[m_classOf[conn]];
    return TakeSlots(passes) + (program ? m_txPassLatency[m_classOf[conn]] : m_fullPassLatency);
}

std::string
PrestoNetDevice::GetNativeCongestion() const
{
    // the whole data path, congestion control included, is the pipeline's (issue 12)
    return "dctcp-pipeline";
}

} // namespace ns3
