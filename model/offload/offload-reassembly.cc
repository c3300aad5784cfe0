/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-reassembly.h"

#include "offload-seq.h"

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <iterator>
#include <string>

// Pure logic with no ns-3 dependency (no NS_LOG): the receive path calls it once per
// segment, and the unit tests compile it alone.

namespace ns3
{

namespace
{

void
CheckWindow(uint64_t window, const char* where)
{
    if (window > ReassemblyTracker::MAX_WINDOW)
    {
        throw PrestoInputError(std::string("ReassemblyTracker::") + where + ": window " +
                               std::to_string(window) + " bytes exceeds the TCP limit of " +
                               std::to_string(ReassemblyTracker::MAX_WINDOW) + " bytes");
    }
}

} // namespace

ReassemblyTracker::ReassemblyTracker(uint32_t fidelity, uint32_t rcvNext, uint32_t window)
    : m_fidelity(fidelity),
      m_rcvNext(rcvNext),
      m_window(window)
{
    if (fidelity > MAX_FIDELITY && fidelity != UNBOUNDED)
    {
        throw PrestoInputError("ReassemblyTracker: fidelity K=" + std::to_string(fidelity) +
                               " is above the maximum of " + std::to_string(MAX_FIDELITY) +
                               " intervals (use UNBOUNDED for full reassembly)");
    }
    CheckWindow(window, "ReassemblyTracker");
}

void
ReassemblyTracker::Reset(uint32_t rcvNext, uint32_t window)
{
    CheckWindow(window, "Reset");
    m_rcvNext = rcvNext;
    m_window = window;
    m_slots.fill(Interval{});
    m_owner.fill(0);
    m_live = 0;
    m_ranges.clear();
}

void
ReassemblyTracker::SetWindow(uint32_t window)
{
    CheckWindow(window, "SetWindow");
    m_window = window;
    TrimToWindow();
}

void
ReassemblyTracker::OpenWindow(uint32_t bytes)
{
    CheckWindow(static_cast<uint64_t>(m_window) + bytes, "OpenWindow");
    m_window += bytes;
}

uint32_t
ReassemblyTracker::GetRcvNext() const
{
    return m_rcvNext;
}

uint32_t
ReassemblyTracker::GetWindow() const
{
    return m_window;
}

uint32_t
ReassemblyTracker::GetFidelity() const
{
    return m_fidelity;
}

void
ReassemblyTracker::SetPolicy(Policy policy)
{
    m_policy = policy;
}

ReassemblyTracker::Policy
ReassemblyTracker::GetPolicy() const
{
    return m_policy;
}

ReassemblyTracker::Result
ReassemblyTracker::OnSegment(uint32_t seq, uint32_t len)
{
    return OnSegment(seq, len, 0);
}

ReassemblyTracker::Result
ReassemblyTracker::OnSegment(uint32_t seq, uint32_t len, uint16_t path)
{
    Result r;
    r.ack = m_rcvNext;
    if (len == 0)
    {
        return r; // a pure ACK: the receive side has nothing to do
    }
    if (len > MAX_WINDOW)
    {
        throw PrestoInputError("ReassemblyTracker::OnSegment: segment at seq " +
                               std::to_string(seq) + " has " + std::to_string(len) +
                               " bytes, more than the " + std::to_string(MAX_WINDOW) +
                               "-byte limit");
    }
    // TAS ACKs every segment that carries payload, also the ones it discards: the sender
    // learns rcv_next again (duplicate ACKs drive its go-back-N).
    r.ackRequired = true;

    const uint32_t end = seq + len;
    if (seq::Leq(end, m_rcvNext))
    {
        r.verdict = DUPLICATE; // all of it was delivered already
        return r;
    }
    const uint32_t s = seq::Max(seq, m_rcvNext); // trim what was already delivered
    const uint32_t edge = m_rcvNext + m_window;
    if (!seq::Lt(s, edge))
    {
        r.verdict = DROPPED_WINDOW; // new bytes, but no room for any of them
        return r;
    }
    const uint32_t e = seq::Min(end, edge); // trim what does not fit

    if (s == m_rcvNext)
    {
        const uint32_t before = m_rcvNext;
        AdvanceInOrder(e);
        r.verdict = IN_ORDER;
        r.writeSeq = s;
        r.writeLen = e - s;
        r.delivered = m_rcvNext - before;
        r.ack = m_rcvNext;
        return r;
    }

    r.verdict = (m_fidelity == UNBOUNDED) ? PlaceUnbounded(s, e) : PlaceFinite(s, e, path);
    if (r.verdict == OUT_OF_ORDER_PLACED)
    {
        r.writeSeq = s;
        r.writeLen = e - s;
    }
    r.ack = m_rcvNext; // unchanged by an out-of-order segment
    return r;
}

void
ReassemblyTracker::AdvanceInOrder(uint32_t e)
{
    // The in-order bytes occupy host buffer: the right edge of the window stays where it is.
    m_window -= e - m_rcvNext;
    m_rcvNext = e;
    const uint32_t before = m_rcvNext;
    if (m_fidelity == UNBOUNDED)
    {
        // Intervals are sorted, disjoint and non-adjacent: merge from the lowest up.
        auto it = m_ranges.begin();
        while (it != m_ranges.end() && seq::Leq(it->first, m_rcvNext))
        {
            m_rcvNext = seq::Max(m_rcvNext, it->second);
            it = m_ranges.erase(it);
        }
    }
    else
    {
        // One walk in slot order, each interval compared with the running in-order point:
        // reached ones are merged, passed ones discarded, the others move down to stay a
        // prefix. Intervals are disjoint and non-adjacent, so an interval that rcv_next
        // reaches cannot reach another one: the walk is complete in any slot order.
        uint32_t kept = 0;
        for (uint32_t i = 0; i < m_live; ++i)
        {
            const Interval x = m_slots[i];
            if (seq::Leq(x.start, m_rcvNext))
            {
                m_rcvNext = seq::Max(m_rcvNext, x.End()); // reached (or passed): merge
            }
            else
            {
                m_owner[kept] = m_owner[i];
                m_slots[kept++] = x;
            }
        }
        std::fill(m_slots.begin() + kept, m_slots.begin() + m_live, Interval{});
        std::fill(m_owner.begin() + kept, m_owner.begin() + m_live, 0);
        m_live = kept;
    }
    m_window -= m_rcvNext - before; // merged bytes were already in the buffer
}

ReassemblyTracker::Verdict
ReassemblyTracker::PlaceFinite(uint32_t s, uint32_t e, uint16_t path)
{
    // The K-interval form of TAS's out-of-order rule. The live intervals are slots
    // [0, m_live), disjoint and non-adjacent.
    constexpr uint32_t NONE = MAX_FIDELITY;
    uint32_t left = NONE;  // the interval ending exactly at s
    uint32_t right = NONE; // the interval starting exactly at e
    for (uint32_t i = 0; i < m_live; ++i)
    {
        const Interval& x = m_slots[i];
        if (seq::Leq(x.start, s) && seq::Leq(e, x.End()))
        {
            return DUPLICATE; // 1. all of T is held already
        }
        if (seq::Lt(x.start, e) && seq::Lt(s, x.End()))
        {
            return DROPPED_FIDELITY; // 2. overlap: TAS does not trim T against an interval
        }
        left = (x.End() == s) ? i : left;
        right = (x.start == e) ? i : right;
    }
    // (1 and 2 need no order between intervals: one containing T excludes any other
    // overlapping it, the intervals being disjoint.)
    if (left != NONE && right != NONE)
    {
        // 3a. T bridges two intervals: the union stays in the lower slot.
        const uint32_t keep = std::min(left, right);
        const uint32_t gone = std::max(left, right);
        m_slots[keep] = Interval{m_slots[left].start, m_slots[right].End() - m_slots[left].start};
        RemoveSlot(gone);
        return OUT_OF_ORDER_PLACED;
    }
    if (left != NONE)
    {
        m_slots[left].len += e - s; // 3b. T extends an interval at its end
        return OUT_OF_ORDER_PLACED;
    }
    if (right != NONE)
    {
        m_slots[right] = Interval{s, m_slots[right].End() - s}; // 3c. ... or at its start
        return OUT_OF_ORDER_PLACED;
    }
    bool mayOpen = m_live < m_fidelity;
    if (mayOpen && m_policy == Policy::PER_PATH)
    {
        // 4'. per path: not a second interval for a path that holds one
        for (uint32_t i = 0; i < m_live; ++i)
        {
            mayOpen = mayOpen && m_owner[i] != path;
        }
    }
    if (mayOpen)
    {
        m_owner[m_live] = path;
        m_slots[m_live++] = Interval{s, e - s}; // 4. a free slot: T opens a new interval
        return OUT_OF_ORDER_PLACED;
    }
    return DROPPED_FIDELITY; // 5. K intervals held, none touching T (K = 0: no slot at all)
}

void
ReassemblyTracker::RemoveSlot(uint32_t i)
{
    std::copy(m_slots.begin() + i + 1, m_slots.begin() + m_live, m_slots.begin() + i);
    std::copy(m_owner.begin() + i + 1, m_owner.begin() + m_live, m_owner.begin() + i);
    m_owner[m_live - 1] = 0;
    m_slots[--m_live] = Interval{};
}

ReassemblyTracker::Verdict
ReassemblyTracker::PlaceUnbounded(uint32_t s, uint32_t e)
{
    // First range that could touch [s, e): the last one starting at or before s, if it
    // reaches s; otherwise the first starting after s.
    auto it = m_ranges.upper_bound(s);
    if (it != m_ranges.begin())
    {
        auto prev = std::prev(it);
        if (seq::Leq(s, prev->second))
        {
            if (seq::Leq(e, prev->second))
            {
                return DUPLICATE;
            }
            it = prev;
        }
    }
    uint32_t start = s;
    uint32_t end = e;
    while (it != m_ranges.end() && seq::Leq(it->first, end))
    {
        start = seq::Min(start, it->first);
        end = seq::Max(end, it->second);
        it = m_ranges.erase(it);
    }
    m_ranges.emplace(start, end);
    return OUT_OF_ORDER_PLACED;
}

void
ReassemblyTracker::TrimToWindow()
{
    const uint32_t edge = m_rcvNext + m_window;
    if (m_fidelity == UNBOUNDED)
    {
        for (auto it = m_ranges.begin(); it != m_ranges.end();)
        {
            if (!seq::Lt(it->first, edge))
            {
                it = m_ranges.erase(it);
            }
            else
            {
                it->second = seq::Min(it->second, edge);
                ++it;
            }
        }
        return;
    }
    // Forget intervals at or beyond the edge, cut the one crossing it; the others move down
    // to stay a prefix, in order.
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m_live; ++i)
    {
        Interval x = m_slots[i];
        if (seq::Lt(x.start, edge))
        {
            x.len = seq::Min(x.End(), edge) - x.start;
            m_owner[kept] = m_owner[i];
            m_slots[kept++] = x;
        }
    }
    std::fill(m_slots.begin() + kept, m_slots.begin() + m_live, Interval{});
    std::fill(m_owner.begin() + kept, m_owner.begin() + m_live, 0);
    m_live = kept;
}

std::vector<ReassemblyTracker::Interval>
ReassemblyTracker::GetIntervals() const
{
    std::vector<Interval> out;
    if (m_fidelity == UNBOUNDED)
    {
        for (const auto& [start, end] : m_ranges)
        {
            out.push_back(Interval{start, end - start});
        }
        return out;
    }
    out.assign(m_slots.begin(), m_slots.begin() + m_live);
    // Sort by distance from rcv_next (all live ranges are within the window beyond it).
    std::sort(out.begin(), out.end(), [this](const Interval& a, const Interval& b) {
        return a.start - m_rcvNext < b.start - m_rcvNext;
    });
    return out;
}

uint32_t
ReassemblyTracker::GetLiveSlotCount() const
{
    if (m_fidelity == UNBOUNDED)
    {
        return static_cast<uint32_t>(m_ranges.size());
    }
    return m_live;
}

ReassemblyTracker::Interval
ReassemblyTracker::GetSlot(uint32_t i) const
{
    if (m_fidelity == UNBOUNDED || i >= m_fidelity)
    {
        throw PrestoInputError(
            "ReassemblyTracker::GetSlot: slot " + std::to_string(i) + " does not exist (fidelity " +
            (m_fidelity == UNBOUNDED ? std::string("UNBOUNDED") : std::to_string(m_fidelity)) +
            ")");
    }
    return m_slots[i];
}

uint16_t
ReassemblyTracker::GetSlotOwner(uint32_t i) const
{
    GetSlot(i); // the same check
    return m_owner[i];
}

const char*
ReassemblyTracker::VerdictName(Verdict v)
{
    switch (v)
    {
    case IN_ORDER:
        return "IN_ORDER";
    case OUT_OF_ORDER_PLACED:
        return "OUT_OF_ORDER_PLACED";
    case DUPLICATE:
        return "DUPLICATE";
    case DROPPED_FIDELITY:
        return "DROPPED_FIDELITY";
    case DROPPED_WINDOW:
        return "DROPPED_WINDOW";
    case NO_PAYLOAD:
        return "NO_PAYLOAD";
    }
    return "UNKNOWN";
}

} // namespace ns3
