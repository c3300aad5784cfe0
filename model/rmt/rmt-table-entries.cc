/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rmt-table.h"

#include "ns3/presto-input-error.h"

#include <string>

// The control plane's side of a table: key components, and the checks and encoding of an
// entry as AddEntry installs it (the packet path, Match and Apply, is in rmt-table.cc).

namespace ns3
{

namespace
{

/// Throw unless v fits the key field (its width mask fmask); comp names the key component.
void
Fits(const std::string& comp, uint64_t fmask, uint64_t v, const char* what)
{
    if ((v & ~fmask) != 0)
    {
        throw PrestoInputError(comp + ": " + what + " " + std::to_string(v) +
                               " does not fit the field width");
    }
}

} // namespace

RmtMatch
RmtMatch::Exact(uint64_t v)
{
    RmtMatch m;
    m.kind = RmtMatchKind::EXACT;
    m.value = v;
    return m;
}

RmtMatch
RmtMatch::Ternary(uint64_t v, uint64_t mask)
{
    RmtMatch m;
    m.kind = RmtMatchKind::TERNARY;
    m.value = v;
    m.mask = mask;
    return m;
}

RmtMatch
RmtMatch::Lpm(uint64_t v, uint32_t prefixLen)
{
    RmtMatch m;
    m.kind = RmtMatchKind::LPM;
    m.value = v;
    m.prefixLen = prefixLen;
    return m;
}

RmtMatch
RmtMatch::Range(uint64_t lo, uint64_t hi)
{
    RmtMatch m;
    m.kind = RmtMatchKind::RANGE;
    m.value = lo;
    m.hi = hi;
    return m;
}

RmtMatch
RmtMatch::Any()
{
    RmtMatch m;
    m.any = true;
    return m;
}

// ---------------------------------------------------------------------------------------
// RmtActionContext

RmtEntryHandle
RmtTable::AddEntry(const std::vector<RmtMatch>& key,
                   const std::string& actionName,
                   std::vector<uint64_t> params,
                   int32_t priority)
{
    return AddEntry(key, GetAction(actionName), std::move(params), priority);
}

RmtEntryHandle
RmtTable::AddEntry(const std::vector<RmtMatch>& key,
                   RmtActionId action,
                   std::vector<uint64_t> params,
                   int32_t priority)
{
    if (m_keys.empty())
    {
        throw PrestoInputError(Where() + " has no key fields and takes no entries");
    }
    if (m_count >= m_capacity)
    {
        throw PrestoInputError(Where() + " is full: capacity " + std::to_string(m_capacity) +
                               " entries");
    }
    if (key.size() != m_keys.size())
    {
        throw PrestoInputError(Where() + ": an entry needs " + std::to_string(m_keys.size()) +
                               " key components, got " + std::to_string(key.size()));
    }
    CheckAction(action, params.size());

    Entry e;
    e.a.resize(key.size());
    e.b.resize(key.size());
    for (size_t k = 0; k < key.size(); ++k)
    {
        EncodeKey(k, key[k], e);
    }
    e.priority = m_allExact ? 0 : priority;
    e.params = std::move(params);
    e.action = action;
    e.seq = m_seq++;
    e.valid = true;

    if (m_allExact)
    {
        e.hash = HashKey(e.a.data(), e.a.size());
    }
    CheckNoDuplicate(e);
    return Install(std::move(e));
}

void
RmtTable::EncodeKey(size_t k, const RmtMatch& m, Entry& e) const
{
    const RmtMatchKind fk = m_keys[k].kind;
    const uint64_t fmask = m_keyMasks[k];
    const uint32_t width = m_layout->GetWidth(m_keys[k].field);
    const std::string comp = Where() + " key " + std::to_string(k) + " (field '" +
                             m_layout->GetName(m_keys[k].field) + "', " + RmtMatchKindName(fk) +
                             ", " + std::to_string(width) + " bits)";
    if (m.any)
    {
        switch (fk)
        {
        case RmtMatchKind::EXACT:
            throw PrestoInputError(comp + ": an exact key cannot be a wildcard");
        case RmtMatchKind::TERNARY:
        case RmtMatchKind::LPM:
            e.a[k] = 0;
            e.b[k] = 0;
            break;
        case RmtMatchKind::RANGE:
            e.a[k] = 0;
            e.b[k] = fmask;
            break;
        }
        return;
    }
    if (m.kind == RmtMatchKind::EXACT)
    {
        Fits(comp, fmask, m.value, "value");
        e.a[k] = m.value;
        e.b[k] = fk == RmtMatchKind::RANGE ? m.value : fmask;
        if (fk == RmtMatchKind::LPM)
        {
            e.prefixTotal += width;
        }
        return;
    }
    if (m.kind != fk)
    {
        throw PrestoInputError(comp + ": got a " + RmtMatchKindName(m.kind) +
                               " component; this key takes " + RmtMatchKindName(fk) +
                               ", exact or (unless exact) any");
    }
    EncodeTyped(k, m, comp, e);
}

void
RmtTable::EncodeTyped(size_t k, const RmtMatch& m, const std::string& comp, Entry& e) const
{
    const RmtMatchKind fk = m_keys[k].kind;
    const uint64_t fmask = m_keyMasks[k];
    const uint32_t width = m_layout->GetWidth(m_keys[k].field);
    switch (fk)
    {
    case RmtMatchKind::TERNARY:
        Fits(comp, fmask, m.value, "value");
        Fits(comp, fmask, m.mask, "mask");
        if ((m.value & ~m.mask) != 0)
        {
            throw PrestoInputError(comp + ": value " + std::to_string(m.value) +
                                   " has bits outside mask " + std::to_string(m.mask));
        }
        e.a[k] = m.value;
        e.b[k] = m.mask;
        break;
    case RmtMatchKind::LPM: {
        if (m.prefixLen > width)
        {
            throw PrestoInputError(comp + ": prefix length " + std::to_string(m.prefixLen) +
                                   " exceeds the field width");
        }
        Fits(comp, fmask, m.value, "value");
        const uint32_t host = width - m.prefixLen;
        const uint64_t hostMask = host >= 64 ? ~uint64_t{0} : ((uint64_t{1} << host) - 1);
        const uint64_t mask = fmask & ~hostMask;
        if ((m.value & ~mask) != 0)
        {
            throw PrestoInputError(comp + ": value " + std::to_string(m.value) +
                                   " has bits set beyond its /" + std::to_string(m.prefixLen) +
                                   " prefix");
        }
        e.a[k] = m.value;
        e.b[k] = mask;
        e.prefixTotal += m.prefixLen;
        break;
    }
    case RmtMatchKind::RANGE:
        Fits(comp, fmask, m.hi, "range high end");
        if (m.value > m.hi)
        {
            throw PrestoInputError(comp + ": range [" + std::to_string(m.value) + ", " +
                                   std::to_string(m.hi) + "] is empty");
        }
        e.a[k] = m.value;
        e.b[k] = m.hi;
        break;
    case RmtMatchKind::EXACT:
        break; // handled above
    }
}

void
RmtTable::CheckNoDuplicate(const Entry& e) const
{
    if (m_allExact)
    {
        const int64_t dup = FindExact(e.a.data(), e.hash);
        if (dup >= 0)
        {
            throw PrestoInputError(Where() + ": an entry with the same key exists (handle " +
                                   std::to_string(dup) + ")");
        }
    }
    else
    {
        for (uint32_t idx : m_order)
        {
            const Entry& o = m_entries[idx];
            if (o.priority == e.priority && o.a == e.a && o.b == e.b)
            {
                throw PrestoInputError(Where() + ": an entry with the same key and priority " +
                                       std::to_string(e.priority) + " exists (handle " +
                                       std::to_string(idx) + ")");
            }
        }
    }
}

RmtEntryHandle
RmtTable::Install(Entry&& e)
{
    RmtEntryHandle h;
    if (!m_free.empty())
    {
        h = m_free.back();
        m_free.pop_back();
        m_entries[h] = std::move(e);
    }
    else
    {
        h = static_cast<RmtEntryHandle>(m_entries.size());
        m_entries.push_back(std::move(e));
    }
    ++m_count;
    if (m_allExact)
    {
        IndexInsert(h);
    }
    else
    {
        m_order.push_back(h);
        SortOrder();
    }
    return h;
}

} // namespace ns3
