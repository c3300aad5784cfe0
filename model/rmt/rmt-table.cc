/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rmt-table.h"

#include "ns3/presto-input-error.h"

#include <algorithm>

namespace ns3
{

const char*
RmtMatchKindName(RmtMatchKind kind)
{
    switch (kind)
    {
    case RmtMatchKind::EXACT:
        return "exact";
    case RmtMatchKind::TERNARY:
        return "ternary";
    case RmtMatchKind::LPM:
        return "lpm";
    case RmtMatchKind::RANGE:
        return "range";
    }
    return "unknown";
}

uint64_t
RmtActionContext::Param(uint32_t i) const
{
    if (i >= m_params->size())
    {
        throw PrestoInputError(
            "RMT table '" + m_table->GetName() + "' in stage '" + m_table->GetStageName() +
            "': action '" + m_table->GetActionName(m_action) + "' reads parameter " +
            std::to_string(i) + " but has " + std::to_string(m_params->size()) + " parameters");
    }
    return (*m_params)[i];
}

void
RmtActionContext::Recirculate()
{
    m_phv->m_recirculate = true;
    m_recircTable = m_table;
    m_recircAction = m_action;
}

uint64_t&
RmtActionContext::Acquire(RmtRegisterArray& reg, uint64_t index, const char* what)
{
    // Checks are three compares on the packet path; the messages are built only on failure.
    if (reg.m_stage != m_stage || reg.m_lastPass == m_passStamp || index >= reg.m_cells.size())
    {
        const std::string who =
            "table '" + m_table->GetName() + "' action '" + m_table->GetActionName(m_action) + "'";
        if (reg.m_stage != m_stage)
        {
            throw PrestoInputError("RMT register array '" + reg.m_name + "' belongs to stage '" +
                                   reg.m_stageName + "' but " + who + " in stage '" +
                                   m_table->GetStageName() + "' tried a " + what +
                                   "; an action can only use the register arrays of its own "
                                   "stage");
        }
        if (reg.m_lastPass == m_passStamp)
        {
            std::string first = "an earlier action";
            if (reg.m_lastTable != nullptr)
            {
                first = "table '" + reg.m_lastTable->GetName() + "' action '" +
                        reg.m_lastTable->GetActionName(reg.m_lastAction) + "'";
            }
            throw PrestoInputError("RMT register array '" + reg.m_name + "' in stage '" +
                                   reg.m_stageName + "' accessed twice in one packet pass (pass " +
                                   std::to_string(m_phv->m_pass) + "): first by " + first +
                                   ", then a " + what + " by " + who +
                                   "; a register array allows one access (read, write or "
                                   "read-modify-write) per pass");
        }
        reg.CheckIndex(index, who + " " + what);
        reg.Touch(index); // within the declared size: stored from now on
    }
    reg.m_lastPass = m_passStamp;
    reg.m_lastTable = m_table;
    reg.m_lastAction = m_action;
    ++reg.m_accesses;
    return reg.m_cells[index];
}

// ---------------------------------------------------------------------------------------
// RmtTable

RmtTable::RmtTable(RmtTableId id,
                   const std::string& name,
                   const RmtStage* stage,
                   const std::string& stageName,
                   const RmtPhvLayout& layout,
                   std::vector<RmtKeyField> keys,
                   uint32_t capacity,
                   const bool* finalised)
    : m_id(id),
      m_name(name),
      m_stageName(stageName),
      m_stage(stage),
      m_layout(&layout),
      m_keys(std::move(keys)),
      m_capacity(capacity),
      m_finalised(finalised)
{
    if (name.empty())
    {
        throw PrestoInputError("RMT stage '" + stageName + "': a table needs a non-empty name");
    }
    for (size_t k = 0; k < m_keys.size(); ++k)
    {
        layout.CheckField(m_keys[k].field, Where() + " key " + std::to_string(k));
        m_keyMasks.push_back(layout.GetMask(m_keys[k].field));
        if (m_keys[k].kind != RmtMatchKind::EXACT)
        {
            m_allExact = false;
        }
    }
    if (m_keys.empty() && capacity != 0)
    {
        throw PrestoInputError(Where() + " has no key fields, so it can hold no entries; "
                                         "give it capacity 0 (it always runs its default action)");
    }
    m_actions.push_back(Action{NO_ACTION, RmtActionFn(), 0});
    m_actionIndex.emplace(NO_ACTION, 0);
    m_scratch.resize(m_keys.size());
    uint32_t keyBits = 0;
    for (const RmtKeyField& k : m_keys)
    {
        keyBits += layout.GetWidth(k.field);
    }
    if (m_allExact && !m_keys.empty() && keyBits <= DIRECT_KEY_BITS)
    {
        m_direct.assign(size_t{1} << keyBits, 0);
        m_directShift.resize(m_keys.size());
        uint32_t below = 0; // the last key field lowest
        for (size_t k = m_keys.size(); k-- > 0;)
        {
            m_directShift[k] = below;
            below += layout.GetWidth(m_keys[k].field);
        }
    }
}

std::string
RmtTable::Where() const
{
    return "RMT table '" + m_name + "' in stage '" + m_stageName + "'";
}

void
RmtTable::CheckConfigurable(const std::string& what) const
{
    if (*m_finalised)
    {
        throw PrestoInputError(Where() + ": cannot " + what +
                               " after the pipeline program is finalised");
    }
}

const std::string&
RmtTable::GetName() const
{
    return m_name;
}

RmtTableId
RmtTable::GetId() const
{
    return m_id;
}

const RmtStage&
RmtTable::GetStage() const
{
    return *m_stage;
}

const std::string&
RmtTable::GetStageName() const
{
    return m_stageName;
}

const std::vector<RmtKeyField>&
RmtTable::GetKeys() const
{
    return m_keys;
}

uint32_t
RmtTable::GetCapacity() const
{
    return m_capacity;
}

uint32_t
RmtTable::GetEntryCount() const
{
    return m_count;
}

RmtActionId
RmtTable::AddAction(const std::string& name, RmtActionFn fn, uint32_t paramCount)
{
    CheckConfigurable("add action '" + name + "'");
    if (name.empty())
    {
        throw PrestoInputError(Where() + ": an action needs a non-empty name");
    }
    if (!fn)
    {
        throw PrestoInputError(Where() + ": action '" + name + "' has an empty body");
    }
    if (m_actionIndex.count(name) != 0)
    {
        throw PrestoInputError(Where() + ": action '" + name + "' is declared twice");
    }
    const auto id = static_cast<RmtActionId>(m_actions.size());
    m_actions.push_back(Action{name, std::move(fn), paramCount});
    m_actionIndex.emplace(name, id);
    return id;
}

RmtActionId
RmtTable::GetAction(const std::string& name) const
{
    auto it = m_actionIndex.find(name);
    if (it == m_actionIndex.end())
    {
        std::string known;
        for (const auto& a : m_actions)
        {
            known += (known.empty() ? "" : ", ") + a.name;
        }
        throw PrestoInputError(Where() + " has no action '" + name + "' (actions: " + known + ")");
    }
    return it->second;
}

const std::string&
RmtTable::GetActionName(RmtActionId a) const
{
    if (a >= m_actions.size())
    {
        throw PrestoInputError(Where() + ": action handle " + std::to_string(a) +
                               " is not an action of this table");
    }
    return m_actions[a].name;
}

uint32_t
RmtTable::GetActionCount() const
{
    return static_cast<uint32_t>(m_actions.size());
}

void
RmtTable::CheckAction(RmtActionId a, size_t nParams) const
{
    if (a >= m_actions.size())
    {
        throw PrestoInputError(Where() + ": action handle " + std::to_string(a) +
                               " is not an action of this table (" +
                               std::to_string(m_actions.size()) + " actions)");
    }
    if (nParams != m_actions[a].paramCount)
    {
        throw PrestoInputError(Where() + ": action '" + m_actions[a].name + "' takes " +
                               std::to_string(m_actions[a].paramCount) + " parameters but " +
                               std::to_string(nParams) + " were given");
    }
}

void
RmtTable::SetDefaultAction(RmtActionId a, std::vector<uint64_t> params)
{
    CheckAction(a, params.size());
    m_defaultAction = a;
    m_defaultParams = std::move(params);
}

void
RmtTable::SetDefaultAction(const std::string& name, std::vector<uint64_t> params)
{
    SetDefaultAction(GetAction(name), std::move(params));
}

RmtActionId
RmtTable::GetDefaultAction() const
{
    return m_defaultAction;
}

void
RmtTable::SetGate(RmtGateFn gate)
{
    CheckConfigurable("set the gate");
    m_gate = std::move(gate);
}

bool
RmtTable::HasGate() const
{
    return static_cast<bool>(m_gate);
}

uint64_t
RmtTable::HashKey(const uint64_t* values, size_t n)
{
    // splitmix64 finaliser chained over the key words: deterministic, well mixed.
    uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < n; ++i)
    {
        uint64_t z = h ^ (values[i] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        h = z ^ (z >> 31);
    }
    return h;
}

void
RmtTable::SortOrder()
{
    std::stable_sort(m_order.begin(), m_order.end(), [this](uint32_t x, uint32_t y) {
        const Entry& a = m_entries[x];
        const Entry& b = m_entries[y];
        if (a.priority != b.priority)
        {
            return a.priority > b.priority;
        }
        if (a.prefixTotal != b.prefixTotal)
        {
            return a.prefixTotal > b.prefixTotal;
        }
        return a.seq < b.seq;
    });
}

int64_t
RmtTable::FindExact(const uint64_t* values, uint64_t hash) const
{
    if (m_slots.empty())
    {
        return -1;
    }
    const size_t n = m_keys.size();
    for (uint64_t i = hash & m_slotMask;; i = (i + 1) & m_slotMask)
    {
        const uint32_t s = m_slots[i];
        if (s == 0)
        {
            return -1;
        }
        const Entry& e = m_entries[s - 1];
        if (e.hash == hash)
        {
            // A plain loop: keys are one to a few words, too short for memcmp to pay off.
            const uint64_t* k = e.a.data();
            size_t m = 0;
            while (m < n && k[m] == values[m])
            {
                ++m;
            }
            if (m == n)
            {
                return s - 1;
            }
        }
    }
}

void
RmtTable::IndexInsert(uint32_t h)
{
    if ((uint64_t{m_count} + 1) * 2 > m_slots.size())
    {
        // Grow and re-place every installed entry (control plane only).
        const size_t size = std::max<size_t>(16, m_slots.size() * 2);
        m_slots.assign(size, 0);
        m_slotMask = size - 1;
        for (uint32_t i = 0; i < m_entries.size(); ++i)
        {
            if (m_entries[i].valid && i != h)
            {
                uint64_t j = m_entries[i].hash & m_slotMask;
                while (m_slots[j] != 0)
                {
                    j = (j + 1) & m_slotMask;
                }
                m_slots[j] = i + 1;
            }
        }
    }
    uint64_t j = m_entries[h].hash & m_slotMask;
    while (m_slots[j] != 0)
    {
        j = (j + 1) & m_slotMask;
    }
    m_slots[j] = h + 1;
    if (!m_direct.empty())
    {
        m_direct[DirectIndex(m_entries[h].a.data())] = h + 1;
    }
}

void
RmtTable::IndexErase(uint32_t h)
{
    uint64_t i = m_entries[h].hash & m_slotMask;
    while (m_slots[i] != h + 1)
    {
        i = (i + 1) & m_slotMask;
    }
    m_slots[i] = 0;
    if (!m_direct.empty())
    {
        m_direct[DirectIndex(m_entries[h].a.data())] = 0;
    }
    // Backward shift: move later members of the probe chain into the hole when their home
    // slot does not lie cyclically in (hole, their position].
    for (uint64_t j = (i + 1) & m_slotMask; m_slots[j] != 0; j = (j + 1) & m_slotMask)
    {
        const uint64_t home = m_entries[m_slots[j] - 1].hash & m_slotMask;
        const bool stays = (i < j) ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays)
        {
            m_slots[i] = m_slots[j];
            m_slots[j] = 0;
            i = j;
        }
    }
}

const RmtTable::Entry&
RmtTable::GetEntry(RmtEntryHandle h) const
{
    if (h >= m_entries.size() || !m_entries[h].valid)
    {
        throw PrestoInputError(Where() + ": entry handle " + std::to_string(h) +
                               " is not installed");
    }
    return m_entries[h];
}

void
RmtTable::RemoveEntry(RmtEntryHandle h)
{
    GetEntry(h); // throws unless installed
    if (m_allExact)
    {
        IndexErase(h);
    }
    else
    {
        m_order.erase(std::find(m_order.begin(), m_order.end(), h));
    }
    m_entries[h] = Entry();
    m_free.push_back(h);
    --m_count;
}

void
RmtTable::SetEntryAction(RmtEntryHandle h, RmtActionId action, std::vector<uint64_t> params)
{
    GetEntry(h);
    CheckAction(action, params.size());
    m_entries[h].action = action;
    m_entries[h].params = std::move(params);
}

void
RmtTable::ClearEntries()
{
    m_entries.clear();
    m_free.clear();
    m_order.clear();
    m_slots.clear();
    m_slotMask = 0;
    std::fill(m_direct.begin(), m_direct.end(), 0);
    m_count = 0;
}

int64_t
RmtTable::Match(const RmtPhv& phv) const
{
    if (!m_direct.empty())
    {
        // A PHV of this program keeps each field within its width; the check also holds for
        // one of another program (Lookup refuses it; this stays a miss, not a stray read).
        if (m_directShift.size() == 1) // the usual table: one narrow key field
        {
            const uint64_t v = phv.Get(m_keys[0].field);
            return v < m_direct.size() ? static_cast<int64_t>(m_direct[v]) - 1 : -1;
        }
        uint64_t index = 0;
        for (size_t k = 0; k < m_directShift.size(); ++k)
        {
            const uint64_t v = phv.Get(m_keys[k].field);
            if ((v & ~m_keyMasks[k]) != 0)
            {
                return -1;
            }
            index |= v << m_directShift[k];
        }
        return static_cast<int64_t>(m_direct[index]) - 1;
    }
    const size_t n = m_keys.size();
    if (m_count == 0)
    {
        return -1;
    }
    uint64_t* v = m_scratch.data();
    for (size_t k = 0; k < n; ++k)
    {
        v[k] = phv.Get(m_keys[k].field);
    }
    if (m_allExact)
    {
        return FindExact(v, HashKey(v, n));
    }
    for (uint32_t idx : m_order)
    {
        const Entry& e = m_entries[idx];
        bool ok = true;
        for (size_t k = 0; k < n && ok; ++k)
        {
            switch (m_keys[k].kind)
            {
            case RmtMatchKind::EXACT:
                ok = v[k] == e.a[k];
                break;
            case RmtMatchKind::TERNARY:
            case RmtMatchKind::LPM:
                ok = (v[k] & e.b[k]) == e.a[k];
                break;
            case RmtMatchKind::RANGE:
                ok = e.a[k] <= v[k] && v[k] <= e.b[k];
                break;
            }
        }
        if (ok)
        {
            return idx;
        }
    }
    return -1;
}

std::optional<RmtEntryHandle>
RmtTable::Lookup(const RmtPhv& phv) const
{
    if (phv.GetLayout() != m_layout)
    {
        throw PrestoInputError(Where() + ": Lookup with a PHV of another program; build it "
                                         "with this table's pipeline's NewPhv()");
    }
    const int64_t i = Match(phv);
    if (i < 0)
    {
        return std::nullopt;
    }
    return static_cast<RmtEntryHandle>(i);
}

bool
RmtTable::Apply(RmtActionContext& ctx)
{
    ++m_applied;
    ctx.m_table = this;
    const int64_t i = Match(*ctx.m_phv);
    const Action* act;
    if (i >= 0)
    {
        Entry& e = m_entries[i];
        ++e.hits;
        ++m_hits;
        ctx.m_hit = true;
        ctx.m_action = e.action;
        ctx.m_params = &e.params;
        act = &m_actions[e.action];
    }
    else
    {
        ++m_misses;
        ctx.m_hit = false;
        ctx.m_action = m_defaultAction;
        ctx.m_params = &m_defaultParams;
        act = &m_actions[m_defaultAction];
    }
    if (act->fn)
    {
        act->fn(ctx);
    }
    return i >= 0;
}

uint64_t
RmtTable::GetApplied() const
{
    return m_applied;
}

uint64_t
RmtTable::GetHits() const
{
    return m_hits;
}

uint64_t
RmtTable::GetMisses() const
{
    return m_misses;
}

uint64_t
RmtTable::GetEntryHits(RmtEntryHandle h) const
{
    return GetEntry(h).hits;
}

void
RmtTable::ResetCounters()
{
    m_applied = 0;
    m_hits = 0;
    m_misses = 0;
    for (auto& e : m_entries)
    {
        e.hits = 0;
    }
}

} // namespace ns3
