/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "radix-heap-scheduler.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RadixHeapScheduler");
NS_OBJECT_ENSURE_REGISTERED(RadixHeapScheduler);

namespace
{
/// Whether \p a runs before \p b: ns-3's order, time stamp then id.
bool
Before(const Scheduler::Event& a, const Scheduler::Event& b)
{
    return a.key < b.key;
}
} // namespace

TypeId
RadixHeapScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RadixHeapScheduler")
                            .SetParent<Scheduler>()
                            .SetGroupName("Presto")
                            .AddConstructor<RadixHeapScheduler>();
    return tid;
}

RadixHeapScheduler::RadixHeapScheduler()
{
    NS_LOG_FUNCTION(this);
}

void
RadixHeapScheduler::PlaceNow(const Event& ev) const
{
    std::vector<Event>& now = m_buckets[0];
    if (m_head == now.size())
    {
        now.clear(); // every event of the reference slot has left
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
RadixHeapScheduler::Settle() const
{
    if (m_head < m_buckets[0].size())
    {
        return;
    }
    m_buckets[0].clear();
    m_head = 0;
    NS_ASSERT(m_used != 0);
    const std::size_t b = 1 + static_cast<std::size_t>(__builtin_ctzll(m_used));
    std::vector<Event>& bucket = m_buckets[b];
    uint64_t earliest = bucket.front().key.m_ts;
    for (const Event& e : bucket)
    {
        earliest = std::min(earliest, e.key.m_ts);
    }
    m_reference = earliest;
    m_used &= ~(uint64_t{1} << (b - 1));
    // every event of bucket b now differs from the reference below bit b - 1 + kGrain: they
    // all go to lower buckets, so the loop never appends to the bucket it reads. Those in the
    // new reference slot go to bucket 0 in ns-3's order.
    for (const Event& e : bucket)
    {
        Place(e);
    }
    bucket.clear();
}

void
RadixHeapScheduler::Rebase(uint64_t ts)
{
    NS_LOG_FUNCTION(this << ts);
    std::vector<Event> all;
    all.reserve(m_size);
    all.insert(all.end(),
               m_buckets[0].begin() + static_cast<std::ptrdiff_t>(m_head),
               m_buckets[0].end());
    m_buckets[0].clear();
    m_head = 0;
    for (std::size_t b = 1; b < kBuckets; ++b)
    {
        all.insert(all.end(), m_buckets[b].begin(), m_buckets[b].end());
        m_buckets[b].clear();
    }
    m_used = 0;
    m_reference = ts;
    for (const Event& e : all)
    {
        Place(e);
    }
}

void
RadixHeapScheduler::Insert(const Event& ev)
{
    // no NS_LOG here nor in RemoveNext: they run once per event
    if (ev.key.m_ts < m_reference)
    {
        Rebase(ev.key.m_ts);
    }
    Place(ev);
    ++m_size;
}

bool
RadixHeapScheduler::IsEmpty() const
{
    return m_size == 0;
}

Scheduler::Event
RadixHeapScheduler::PeekNext() const
{
    NS_ASSERT(m_size > 0);
    Settle();
    return m_buckets[0][m_head];
}

Scheduler::Event
RadixHeapScheduler::RemoveNext()
{
    NS_ASSERT(m_size > 0);
    Settle();
    --m_size;
    return m_buckets[0][m_head++];
}

void
RadixHeapScheduler::Remove(const Event& ev)
{
    NS_LOG_FUNCTION(this << ev.impl << ev.key.m_ts << ev.key.m_uid);
    const auto same = [&ev](const Event& e) { return e.key.m_uid == ev.key.m_uid; };
    if (ev.key.m_ts >= m_reference)
    {
        const std::size_t b = BucketOf(ev.key.m_ts);
        std::vector<Event>& bucket = m_buckets[b];
        const auto from = bucket.begin() + static_cast<std::ptrdiff_t>(b == 0 ? m_head : 0);
        const auto it = std::find_if(from, bucket.end(), same);
        if (it != bucket.end())
        {
            if (b == 0)
            {
                bucket.erase(it); // bucket 0 keeps the order of ids
            }
            else
            {
                *it = bucket.back();
                bucket.pop_back();
                if (bucket.empty())
                {
                    m_used &= ~(uint64_t{1} << (b - 1));
                }
            }
            --m_size;
            return;
        }
    }
    NS_FATAL_ERROR("RadixHeapScheduler::Remove: event " << ev.key.m_uid << " at " << ev.key.m_ts
                                                        << " is not queued");
}

} // namespace ns3
