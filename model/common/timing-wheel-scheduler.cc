/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "timing-wheel-scheduler.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TimingWheelScheduler");
NS_OBJECT_ENSURE_REGISTERED(TimingWheelScheduler);

namespace
{
/// ns-3's order: time stamp, then id
bool
Before(const Scheduler::Event& a, const Scheduler::Event& b)
{
    return a.key < b.key;
}

/// Sort a slot's events in ns-3's order: insertion sort, as a slot holds a few events, mostly
/// inserted in order already (std::sort cost about 100 instructions on two or three)
void
SortSlot(std::vector<Scheduler::Event>& v)
{
    for (std::size_t i = 1; i < v.size(); ++i)
    {
        const Scheduler::Event e = v[i];
        std::size_t j = i;
        for (; j > 0 && Before(e, v[j - 1]); --j)
        {
            v[j] = v[j - 1];
        }
        v[j] = e;
    }
}

/// the heap's order (std heaps keep the greatest first): the earliest on top
bool
Later(const Scheduler::Event& a, const Scheduler::Event& b)
{
    return b.key < a.key;
}
} // namespace

TypeId
TimingWheelScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TimingWheelScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("Presto")
                            .AddConstructor<TimingWheelScheduler>();
    return tid;
}

TimingWheelScheduler::TimingWheelScheduler()
    : m_slots(kSlots),
      m_current(&m_slots[0])
{
    NS_LOG_FUNCTION(this);
    // room for a few events in every slot from the start (about 400 KB): growing 4,096 slots
    // one by one while the simulation runs cost about 50 instructions per event in the first
    // milliseconds of the reference scenario
    for (std::vector<Event>& slot : m_slots)
    {
        slot.reserve(kSlotRoom);
    }
}

void
TimingWheelScheduler::PlaceCurrent(const Event& ev) const
{
    std::vector<Event>& now = *m_current;
    if (m_head == now.size())
    {
        now.clear(); // every event of the current slot has left
        m_head = 0;
    }
    if (now.empty() || Before(now.back(), ev))
    {
        now.push_back(ev); // the usual case: later than the slot's others
        return;
    }
    now.insert(
        std::upper_bound(now.begin() + static_cast<std::ptrdiff_t>(m_head), now.end(), ev, Before),
        ev);
}

void
TimingWheelScheduler::Place(const Event& ev) const
{
    const uint64_t slot = SlotOf(ev);
    NS_ASSERT(slot >= m_cur);
    if (slot == m_cur)
    {
        PlaceCurrent(ev);
    }
    else if (slot - m_cur < kSlots)
    {
        PutInSlot(ev, slot);
    }
    else
    {
        m_far.push_back(ev);
        std::push_heap(m_far.begin(), m_far.end(), Later);
    }
}

void
TimingWheelScheduler::Advance() const
{
    m_current->clear();
    m_head = 0;
    // the next slot: the wheel's next non-empty one, or the heap's earliest if that is sooner
    uint64_t next = UINT64_MAX;
    if (m_inWheel > 0)
    {
        // the bitmap from the slot after the current one, around the wheel: the distance to
        // the first bit set is the distance in slots
        const uint64_t from = (m_cur + 1) & kMask;
        std::size_t w = from / 64;
        uint64_t bits = m_used[w] & (~uint64_t{0} << (from % 64));
        uint64_t base = w * 64;
        while (bits == 0)
        {
            w = (w + 1) % kWords;
            bits = m_used[w];
            base = w * 64;
        }
        const uint64_t index = base + static_cast<uint64_t>(__builtin_ctzll(bits));
        next = m_cur + 1 + ((index - from) & kMask);
    }
    if (!m_far.empty())
    {
        next = std::min(next, SlotOf(m_far.front()));
    }
    NS_ASSERT(next != UINT64_MAX);
    m_cur = next;
    const uint64_t i = m_cur & kMask;
    m_current = &m_slots[i];
    const uint64_t bit = uint64_t{1} << (i % 64);
    if (m_used[i / 64] & bit)
    {
        m_used[i / 64] &= ~bit;
        m_inWheel -= m_current->size();
    }
    // the events of the heap now within the horizon move into the wheel, once
    while (!m_far.empty() && SlotOf(m_far.front()) - m_cur < kSlots)
    {
        std::pop_heap(m_far.begin(), m_far.end(), Later);
        const Event ev = m_far.back();
        m_far.pop_back();
        if (SlotOf(ev) == m_cur)
        {
            m_current->push_back(ev); // sorted below
        }
        else
        {
            Place(ev);
        }
    }
    SortSlot(*m_current);
}

void
TimingWheelScheduler::Rebuild(uint64_t slot)
{
    NS_LOG_FUNCTION(this << slot);
    std::vector<Event> all;
    all.reserve(m_size);
    all.insert(all.end(),
               m_current->begin() + static_cast<std::ptrdiff_t>(m_head),
               m_current->end());
    m_current->clear();
    for (std::vector<Event>& s : m_slots)
    {
        all.insert(all.end(), s.begin(), s.end());
        s.clear();
    }
    all.insert(all.end(), m_far.begin(), m_far.end());
    m_far.clear();
    m_used.fill(0);
    m_inWheel = 0;
    m_head = 0;
    m_cur = slot;
    m_current = &m_slots[slot & kMask];
    for (const Event& e : all)
    {
        if (SlotOf(e) == m_cur)
        {
            m_current->push_back(e);
        }
        else
        {
            Place(e);
        }
    }
    SortSlot(*m_current);
}

void
TimingWheelScheduler::InsertElsewhere(const Event& ev)
{
    if (SlotOf(ev) < m_cur)
    {
        Rebuild(SlotOf(ev));
    }
    Place(ev);
    ++m_size;
}

Scheduler::Event
TimingWheelScheduler::PeekNext() const
{
    NS_ASSERT(m_size > 0);
    if (m_head == m_current->size())
    {
        Advance();
    }
    return (*m_current)[m_head];
}

void
TimingWheelScheduler::Remove(const Event& ev)
{
    NS_LOG_FUNCTION(this << ev.impl << ev.key.m_ts << ev.key.m_uid);
    const auto same = [&ev](const Event& e) { return e.key.m_uid == ev.key.m_uid; };
    const uint64_t slot = SlotOf(ev);
    if (slot == m_cur)
    {
        const auto it = std::find_if(m_current->begin() + static_cast<std::ptrdiff_t>(m_head),
                                     m_current->end(),
                                     same);
        if (it != m_current->end())
        {
            m_current->erase(it); // the current slot keeps its order
            --m_size;
            return;
        }
    }
    else if (slot > m_cur && slot - m_cur < kSlots)
    {
        const uint64_t i = slot & kMask;
        std::vector<Event>& s = m_slots[i];
        const auto it = std::find_if(s.begin(), s.end(), same);
        if (it != s.end())
        {
            *it = s.back(); // other slots are sorted when they become current
            s.pop_back();
            if (s.empty())
            {
                m_used[i / 64] &= ~(uint64_t{1} << (i % 64));
            }
            --m_inWheel;
            --m_size;
            return;
        }
    }
    else if (slot > m_cur)
    {
        const auto it = std::find_if(m_far.begin(), m_far.end(), same);
        if (it != m_far.end())
        {
            m_far.erase(it);
            std::make_heap(m_far.begin(), m_far.end(), Later);
            --m_size;
            return;
        }
    }
    NS_FATAL_ERROR("TimingWheelScheduler::Remove: event " << ev.key.m_uid << " at " << ev.key.m_ts
                                                          << " is not queued");
}

} // namespace ns3
