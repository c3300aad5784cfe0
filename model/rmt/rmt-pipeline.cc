/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rmt-pipeline.h"

#include "ns3/presto-input-error.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace
{

/// Bytes holding `bits` bits.
uint64_t
BitsToBytes(uint64_t bits)
{
    return (bits + 7) / 8;
}

} // namespace

// ---------------------------------------------------------------------------------------
// RmtStage

RmtStage::RmtStage(RmtPipeline* pipeline, const std::string& name, uint32_t latencyCycles)
    : m_pipeline(pipeline),
      m_name(name),
      m_latency(latencyCycles)
{
}

const std::string&
RmtStage::GetName() const
{
    return m_name;
}

uint32_t
RmtStage::GetIndex() const
{
    return m_index;
}

RmtTable&
RmtStage::AddTable(const std::string& name, std::vector<RmtKeyField> keys, uint32_t capacity)
{
    m_pipeline->CheckConfigurable("add table '" + name + "' to stage '" + m_name + "'");
    if (m_pipeline->m_tableIndex.count(name) != 0)
    {
        throw PrestoInputError("RMT stage '" + m_name + "': a table named '" + name +
                               "' already exists (in stage '" +
                               m_pipeline->m_tableIndex.at(name)->GetStageName() + "')");
    }
    const auto id = static_cast<RmtTableId>(m_pipeline->m_tables.size());
    std::unique_ptr<RmtTable> t(new RmtTable(id,
                                             name,
                                             this,
                                             m_name,
                                             m_pipeline->m_layout,
                                             std::move(keys),
                                             capacity,
                                             &m_pipeline->m_finalised));
    RmtTable* raw = t.get();
    m_pipeline->m_tables.push_back(std::move(t));
    m_pipeline->m_tableIndex.emplace(name, raw);
    m_tables.push_back(raw);
    return *raw;
}

RmtRegisterArray&
RmtStage::AddRegister(const std::string& name, uint32_t widthBits, uint32_t size)
{
    m_pipeline->CheckConfigurable("add register array '" + name + "' to stage '" + m_name + "'");
    if (m_pipeline->m_regIndex.count(name) != 0)
    {
        throw PrestoInputError("RMT stage '" + m_name + "': a register array named '" + name +
                               "' already exists (in stage '" +
                               m_pipeline->m_regIndex.at(name)->GetStageName() + "')");
    }
    std::unique_ptr<RmtRegisterArray> r(new RmtRegisterArray(name, widthBits, size, this, m_name));
    RmtRegisterArray* raw = r.get();
    m_pipeline->m_registers.push_back(std::move(r));
    m_pipeline->m_regIndex.emplace(name, raw);
    m_registers.push_back(raw);
    return *raw;
}

void
RmtStage::SetLatencyCycles(uint32_t cycles)
{
    m_pipeline->CheckConfigurable("set the latency of stage '" + m_name + "'");
    m_latency = cycles;
}

uint32_t
RmtStage::GetLatencyCycles() const
{
    return m_latency;
}

const std::vector<RmtTable*>&
RmtStage::GetTables() const
{
    return m_tables;
}

const std::vector<RmtRegisterArray*>&
RmtStage::GetRegisters() const
{
    return m_registers;
}

uint64_t
RmtStage::GetRegisterBits() const
{
    uint64_t bits = 0;
    for (const auto* r : m_registers)
    {
        bits += r->GetBits();
    }
    return bits;
}

uint64_t
RmtStage::GetPackets() const
{
    return m_packets;
}

uint64_t
RmtStage::GetActivePackets() const
{
    return m_active;
}

// ---------------------------------------------------------------------------------------
// RmtExecution

bool
RmtExecution::Hit(RmtTableId table) const
{
    for (const auto& h : hits)
    {
        if (h.table == table)
        {
            return true;
        }
    }
    return false;
}

bool
RmtExecution::Hit(const RmtTable& table) const
{
    return Hit(table.GetId());
}

// ---------------------------------------------------------------------------------------
// RmtPipeline

RmtPipeline::RmtPipeline(const RmtPipelineConfig& config)
    : m_config(config)
{
    const std::string where = "RMT pipeline '" + config.name + "'";
    if (config.stageBudget < 1)
    {
        throw PrestoInputError(where + ": the stage budget must be at least 1 stage");
    }
    if (!(config.clockHz > 0) || !std::isfinite(config.clockHz))
    {
        throw PrestoInputError(where + ": the clock must be a positive rate in Hz");
    }
    if (config.pipes < 1)
    {
        throw PrestoInputError(where + ": the pipe count must be at least 1");
    }
    if (config.maxPasses < 1)
    {
        throw PrestoInputError(where + ": the pass limit must be at least 1 pass");
    }
}

RmtPipeline::~RmtPipeline() = default;

const RmtPipelineConfig&
RmtPipeline::GetConfig() const
{
    return m_config;
}

void
RmtPipeline::CheckConfigurable(const std::string& what) const
{
    if (m_finalised)
    {
        throw PrestoInputError("RMT pipeline '" + m_config.name + "': cannot " + what +
                               " after the program is finalised");
    }
}

RmtFieldId
RmtPipeline::AddField(const std::string& name, uint32_t bits)
{
    CheckConfigurable("declare field '" + name + "'");
    return m_layout.AddField(name, bits);
}

RmtFieldId
RmtPipeline::GetField(const std::string& name) const
{
    return m_layout.GetField(name);
}

const RmtPhvLayout&
RmtPipeline::GetPhvLayout() const
{
    return m_layout;
}

RmtStage&
RmtPipeline::InsertStageAt(size_t pos, const std::string& name)
{
    CheckConfigurable("add stage '" + name + "'");
    if (name.empty())
    {
        throw PrestoInputError("RMT pipeline '" + m_config.name +
                               "': a stage needs a non-empty name");
    }
    for (const auto& s : m_stages)
    {
        if (s->m_name == name)
        {
            throw PrestoInputError("RMT pipeline '" + m_config.name + "': a stage named '" + name +
                                   "' already exists");
        }
    }
    std::unique_ptr<RmtStage> s(new RmtStage(this, name, m_config.stageLatencyCycles));
    RmtStage* raw = s.get();
    m_stages.insert(m_stages.begin() + pos, std::move(s));
    Renumber();
    return *raw;
}

void
RmtPipeline::Renumber()
{
    for (size_t i = 0; i < m_stages.size(); ++i)
    {
        m_stages[i]->m_index = static_cast<uint32_t>(i);
    }
}

size_t
RmtPipeline::FindStage(const std::string& name) const
{
    for (size_t i = 0; i < m_stages.size(); ++i)
    {
        if (m_stages[i]->m_name == name)
        {
            return i;
        }
    }
    throw PrestoInputError("RMT pipeline '" + m_config.name + "' has no stage named '" + name +
                           "'");
}

RmtStage&
RmtPipeline::AddStage(const std::string& name)
{
    return InsertStageAt(m_stages.size(), name);
}

RmtStage&
RmtPipeline::InsertStageBefore(const std::string& before, const std::string& name)
{
    return InsertStageAt(FindStage(before), name);
}

RmtStage&
RmtPipeline::InsertStageAfter(const std::string& after, const std::string& name)
{
    return InsertStageAt(FindStage(after) + 1, name);
}

uint32_t
RmtPipeline::GetStageCount() const
{
    return static_cast<uint32_t>(m_stages.size());
}

RmtStage&
RmtPipeline::GetStage(uint32_t index)
{
    if (index >= m_stages.size())
    {
        throw PrestoInputError("RMT pipeline '" + m_config.name + "': stage index " +
                               std::to_string(index) + " is out of range (" +
                               std::to_string(m_stages.size()) + " stages)");
    }
    return *m_stages[index];
}

RmtStage&
RmtPipeline::GetStage(const std::string& name)
{
    return *m_stages[FindStage(name)];
}

uint32_t
RmtPipeline::GetTableCount() const
{
    return static_cast<uint32_t>(m_tables.size());
}

RmtTable&
RmtPipeline::GetTable(RmtTableId id)
{
    if (id >= m_tables.size())
    {
        throw PrestoInputError("RMT pipeline '" + m_config.name + "': table handle " +
                               std::to_string(id) + " is out of range (" +
                               std::to_string(m_tables.size()) + " tables)");
    }
    return *m_tables[id];
}

RmtTable&
RmtPipeline::GetTable(const std::string& name)
{
    auto it = m_tableIndex.find(name);
    if (it == m_tableIndex.end())
    {
        throw PrestoInputError("RMT pipeline '" + m_config.name + "' has no table named '" + name +
                               "'");
    }
    return *it->second;
}

RmtRegisterArray&
RmtPipeline::GetRegister(const std::string& name)
{
    auto it = m_regIndex.find(name);
    if (it == m_regIndex.end())
    {
        throw PrestoInputError("RMT pipeline '" + m_config.name +
                               "' has no register array named '" + name + "'");
    }
    return *it->second;
}

void
RmtPipeline::Finalize()
{
    if (m_finalised)
    {
        return;
    }
    const std::string where = "RMT program '" + m_config.name + "'";
    if (m_stages.empty())
    {
        throw PrestoInputError(where + " has no stages");
    }
    if (m_stages.size() > m_config.stageBudget)
    {
        std::string names;
        for (const auto& s : m_stages)
        {
            names += (names.empty() ? "" : ", ") + s->m_name;
        }
        throw PrestoInputError(where + " needs " + std::to_string(m_stages.size()) +
                               " stages but the pipeline's stage budget is " +
                               std::to_string(m_config.stageBudget) + " stages (stages: " + names +
                               ")");
    }
    for (const auto& s : m_stages)
    {
        if (m_config.maxTablesPerStage != 0 && s->m_tables.size() > m_config.maxTablesPerStage)
        {
            throw PrestoInputError(
                where + ": stage '" + s->m_name + "' holds " + std::to_string(s->m_tables.size()) +
                " tables but a stage holds at most " + std::to_string(m_config.maxTablesPerStage));
        }
        const uint64_t bits = s->GetRegisterBits();
        if (m_config.registerBitsPerStage != 0 && bits > m_config.registerBitsPerStage)
        {
            throw PrestoInputError(where + ": stage '" + s->m_name + "' needs " +
                                   std::to_string(bits) +
                                   " bits of register memory but a stage has " +
                                   std::to_string(m_config.registerBitsPerStage) + " bits");
        }
    }
    if (m_config.phvBits != 0 && m_layout.GetTotalBits() > m_config.phvBits)
    {
        throw PrestoInputError(
            where + ": the PHV fields need " + std::to_string(m_layout.GetTotalBits()) +
            " bits but the PHV holds " + std::to_string(m_config.phvBits) + " bits");
    }
    m_passCycles = uint64_t{m_config.parserCycles} + m_config.deparserCycles;
    for (const auto& s : m_stages)
    {
        m_passCycles += s->m_latency;
    }
    m_finalised = true;
}

bool
RmtPipeline::IsFinalized() const
{
    return m_finalised;
}

RmtPhv
RmtPipeline::NewPhv() const
{
    if (!m_finalised)
    {
        throw PrestoInputError("RMT pipeline '" + m_config.name +
                               "': finalise the program before building PHVs");
    }
    return RmtPhv(m_layout);
}

RmtExecution
RmtPipeline::Execute(RmtPhv& phv)
{
    RmtExecution out;
    Execute(phv, out);
    return out;
}

void
RmtPipeline::Execute(RmtPhv& phv, RmtExecution& out)
{
    if (!m_finalised)
    {
        throw PrestoInputError("RMT pipeline '" + m_config.name +
                               "': cannot execute packets before the program is finalised");
    }
    if (phv.m_layout != &m_layout || phv.m_values.size() != m_layout.GetFieldCount())
    {
        throw PrestoInputError("RMT pipeline '" + m_config.name +
                               "': the PHV was not built by this pipeline's NewPhv()");
    }
    out.passes = 0;
    out.stagesTraversed = 0;
    out.tablesApplied = 0;
    out.dropped = false;
    out.hits.clear();
    phv.m_drop = false;

    RmtActionContext ctx;
    ctx.m_phv = &phv;
    ++m_packets;
    const auto nStages = static_cast<uint32_t>(m_stages.size());
    for (uint32_t pass = 0;; ++pass)
    {
        phv.m_pass = pass;
        phv.m_recirculate = false;
        // A fresh stamp per pass resets every array's one-access budget without touching the
        // arrays.
        ctx.m_passStamp = ++m_passStamp;
        for (const auto& sp : m_stages)
        {
            RmtStage& s = *sp;
            ++s.m_packets;
            ctx.m_stage = &s;
            bool active = false;
            for (RmtTable* t : s.m_tables)
            {
                if (t->m_gate && !t->m_gate(phv))
                {
                    continue;
                }
                active = true;
                ++out.tablesApplied;
                if (t->Apply(ctx))
                {
                    out.hits.push_back(RmtTableHit{t->m_id, pass, ctx.m_action});
                }
            }
            if (active)
            {
                ++s.m_active;
            }
        }
        ++out.passes;
        out.stagesTraversed += nStages;
        ++m_passes;
        if (!phv.m_recirculate || phv.m_drop)
        {
            break; // a dropped packet is not looped back
        }
        if (out.passes >= m_config.maxPasses)
        {
            std::string who = "an action";
            if (ctx.m_recircTable != nullptr)
            {
                who = "table '" + ctx.m_recircTable->GetName() + "' action '" +
                      ctx.m_recircTable->GetActionName(ctx.m_recircAction) + "'";
            }
            throw PrestoInputError("RMT program '" + m_config.name + "': " + who +
                                   " asked for pass " + std::to_string(out.passes + 1) +
                                   " but the pass limit is " + std::to_string(m_config.maxPasses) +
                                   " passes per packet (recirculation loop?)");
        }
        ++m_recirculations;
    }
    out.latencyCycles = uint64_t{out.passes} * m_passCycles +
                        uint64_t{out.passes - 1} * m_config.recirculationCycles;
    out.latencyNs = CyclesToNs(out.latencyCycles);
    out.dropped = phv.m_drop;
    if (out.dropped)
    {
        ++m_drops;
    }
    m_latencyCycles += out.latencyCycles;
}

uint64_t
RmtPipeline::GetPassCycles() const
{
    if (m_finalised)
    {
        return m_passCycles;
    }
    uint64_t cycles = uint64_t{m_config.parserCycles} + m_config.deparserCycles;
    for (const auto& s : m_stages)
    {
        cycles += s->m_latency;
    }
    return cycles;
}

double
RmtPipeline::CyclesToNs(uint64_t cycles) const
{
    return static_cast<double>(cycles) * 1e9 / m_config.clockHz;
}

double
RmtPipeline::GetThroughputBoundPps() const
{
    const double avgPasses =
        m_packets == 0 ? 1.0 : static_cast<double>(m_passes) / static_cast<double>(m_packets);
    return m_config.clockHz * m_config.pipes / avgPasses;
}

uint64_t
RmtPipeline::GetPackets() const
{
    return m_packets;
}

uint64_t
RmtPipeline::GetPasses() const
{
    return m_passes;
}

uint64_t
RmtPipeline::GetRecirculations() const
{
    return m_recirculations;
}

void
RmtPipeline::ResetCounters()
{
    m_packets = 0;
    m_passes = 0;
    m_recirculations = 0;
    m_drops = 0;
    m_latencyCycles = 0;
    for (auto& s : m_stages)
    {
        s->m_packets = 0;
        s->m_active = 0;
    }
    for (auto& t : m_tables)
    {
        t->ResetCounters();
    }
    for (auto& r : m_registers)
    {
        r->ResetCounters();
    }
}

RmtResourceReport
RmtPipeline::GetResourceReport() const
{
    RmtResourceReport r;
    r.program = m_config.name;
    r.finalised = m_finalised;
    r.stageBudget = m_config.stageBudget;
    r.stagesUsed = static_cast<uint32_t>(m_stages.size());
    r.clockHz = m_config.clockHz;
    r.pipes = m_config.pipes;
    r.maxPasses = m_config.maxPasses;
    r.passCycles = GetPassCycles();
    r.passLatencyNs = CyclesToNs(r.passCycles);
    r.phvFields = m_layout.GetFieldCount();
    r.phvBits = m_layout.GetTotalBits();
    r.packets = m_packets;
    r.passes = m_passes;
    r.recirculations = m_recirculations;
    r.drops = m_drops;
    r.avgPassesPerPacket =
        m_packets == 0 ? 1.0 : static_cast<double>(m_passes) / static_cast<double>(m_packets);
    r.avgLatencyNs =
        m_packets == 0 ? 0.0 : CyclesToNs(m_latencyCycles) / static_cast<double>(m_packets);
    r.throughputBoundPps = GetThroughputBoundPps();
    for (const auto& sp : m_stages)
    {
        const RmtStage& s = *sp;
        RmtStageReport sr{};
        sr.index = s.m_index;
        sr.name = s.m_name;
        sr.latencyCycles = s.m_latency;
        sr.tables = static_cast<uint32_t>(s.m_tables.size());
        sr.registers = static_cast<uint32_t>(s.m_registers.size());
        sr.packets = s.m_packets;
        sr.activePackets = s.m_active;
        for (const RmtTable* t : s.m_tables)
        {
            RmtTableReport tr{};
            tr.name = t->GetName();
            tr.stage = s.m_name;
            tr.stageIndex = s.m_index;
            for (const auto& k : t->GetKeys())
            {
                tr.match += (tr.match.empty() ? "" : ",") + std::string(RmtMatchKindName(k.kind));
            }
            tr.entries = t->GetEntryCount();
            tr.capacity = t->GetCapacity();
            tr.applied = t->GetApplied();
            tr.hits = t->GetHits();
            tr.misses = t->GetMisses();
            sr.entries += tr.entries;
            sr.capacity += tr.capacity;
            r.tables.push_back(tr);
        }
        for (const RmtRegisterArray* a : s.m_registers)
        {
            RmtRegisterReport rr{};
            rr.name = a->GetName();
            rr.stage = s.m_name;
            rr.stageIndex = s.m_index;
            rr.widthBits = a->GetWidthBits();
            rr.size = a->GetSize();
            rr.bits = a->GetBits();
            rr.bytes = BitsToBytes(rr.bits);
            rr.accesses = a->GetAccesses();
            sr.registerBits += rr.bits;
            r.registers.push_back(rr);
        }
        sr.registerBytes = BitsToBytes(sr.registerBits);
        r.registerBits += sr.registerBits;
        r.tableEntries += sr.entries;
        r.tableCapacity += sr.capacity;
        r.stages.push_back(sr);
    }
    r.registerBytes = BitsToBytes(r.registerBits);
    return r;
}

// ---------------------------------------------------------------------------------------
// RmtResourceReport

std::string
RmtResourceReport::ToText() const
{
    std::ostringstream os;
    os << "RMT program '" << program << "'" << (finalised ? "" : " (not finalised)") << ": "
       << stagesUsed << " of " << stageBudget << " stages, " << pipes << " pipe(s) at "
       << clockHz / 1e9 << " GHz, pass " << passCycles << " cycles (" << passLatencyNs
       << " ns), at most " << maxPasses << " passes per packet\n";
    os << "PHV: " << phvFields << " fields, " << phvBits << " bits; register memory "
       << registerBits << " bits (" << registerBytes << " bytes); table entries " << tableEntries
       << " of " << tableCapacity << "\n";
    os << std::left << std::setw(6) << "stage" << std::setw(20) << "name" << std::right
       << std::setw(8) << "cycles" << std::setw(8) << "tables" << std::setw(18)
       << "entries/capacity" << std::setw(6) << "regs" << std::setw(14) << "reg_bits"
       << std::setw(12) << "reg_bytes" << std::setw(12) << "packets" << std::setw(12) << "active"
       << "\n";
    for (const auto& s : stages)
    {
        os << std::left << std::setw(6) << s.index << std::setw(20) << s.name << std::right
           << std::setw(8) << s.latencyCycles << std::setw(8) << s.tables << std::setw(18)
           << (std::to_string(s.entries) + "/" + std::to_string(s.capacity)) << std::setw(6)
           << s.registers << std::setw(14) << s.registerBits << std::setw(12) << s.registerBytes
           << std::setw(12) << s.packets << std::setw(12) << s.activePackets << "\n";
    }
    for (const auto& t : tables)
    {
        os << "  table " << t.name << " (stage " << t.stageIndex << " " << t.stage << ", "
           << (t.match.empty() ? "keyless" : t.match) << "): " << t.entries << "/" << t.capacity
           << " entries, applied " << t.applied << ", hits " << t.hits << ", misses " << t.misses
           << "\n";
    }
    for (const auto& a : registers)
    {
        os << "  register " << a.name << " (stage " << a.stageIndex << " " << a.stage
           << "): " << a.size << " x " << a.widthBits << " bits = " << a.bits << " bits ("
           << a.bytes << " bytes), accesses " << a.accesses << "\n";
    }
    os << "packets " << packets << ", passes " << passes << ", recirculations " << recirculations
       << ", drops " << drops << ", avg passes/packet " << avgPassesPerPacket << ", avg latency "
       << avgLatencyNs << " ns, throughput bound " << throughputBoundPps / 1e6 << " Mpps\n";
    return os.str();
}

nlohmann::json
RmtResourceReport::ToJson() const
{
    nlohmann::json j;
    j["program"] = program;
    j["finalised"] = finalised;
    j["stage_budget"] = stageBudget;
    j["stages_used"] = stagesUsed;
    j["clock_hz"] = clockHz;
    j["pipes"] = pipes;
    j["max_passes"] = maxPasses;
    j["pass_cycles"] = passCycles;
    j["pass_latency_ns"] = passLatencyNs;
    j["phv_fields"] = phvFields;
    j["phv_bits"] = phvBits;
    j["register_bits"] = registerBits;
    j["register_bytes"] = registerBytes;
    j["table_entries"] = tableEntries;
    j["table_capacity"] = tableCapacity;
    j["packets"] = packets;
    j["passes"] = passes;
    j["recirculations"] = recirculations;
    j["drops"] = drops;
    j["avg_passes_per_packet"] = avgPassesPerPacket;
    j["avg_latency_ns"] = avgLatencyNs;
    j["throughput_bound_pps"] = throughputBoundPps;
    j["stages"] = nlohmann::json::array();
    for (const auto& s : stages)
    {
        j["stages"].push_back({{"index", s.index},
                               {"name", s.name},
                               {"latency_cycles", s.latencyCycles},
                               {"tables", s.tables},
                               {"registers", s.registers},
                               {"table_entries", s.entries},
                               {"table_capacity", s.capacity},
                               {"register_bits", s.registerBits},
                               {"register_bytes", s.registerBytes},
                               {"packets", s.packets},
                               {"active_packets", s.activePackets}});
    }
    j["tables"] = nlohmann::json::array();
    for (const auto& t : tables)
    {
        j["tables"].push_back({{"name", t.name},
                               {"stage", t.stage},
                               {"stage_index", t.stageIndex},
                               {"match", t.match},
                               {"entries", t.entries},
                               {"capacity", t.capacity},
                               {"applied", t.applied},
                               {"hits", t.hits},
                               {"misses", t.misses}});
    }
    j["registers"] = nlohmann::json::array();
    for (const auto& a : registers)
    {
        j["registers"].push_back({{"name", a.name},
                                  {"stage", a.stage},
                                  {"stage_index", a.stageIndex},
                                  {"width_bits", a.widthBits},
                                  {"size", a.size},
                                  {"bits", a.bits},
                                  {"bytes", a.bytes},
                                  {"accesses", a.accesses}});
    }
    return j;
}

} // namespace ns3
