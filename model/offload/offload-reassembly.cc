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

bool
ReassemblyTracker::IsLive(const Interval& x) const
{
    return x.len != 0 && seq::Lt(m_rcvNext, x.End());
}

ReassemblyTracker::Result
ReassemblyTracker::OnSegment(uint32_t seq, uint32_t len)
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

    r.verdict = (m_fidelity == UNBOUNDED) ? PlaceUnbounded(s, e) : PlaceFinite(s, e);
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
        // One pass in slot order, each slot compared with the running in-order point. The
        // slot invariant (earlier slot contained in a later one, or disjoint and
        // non-adjacent) guarantees nothing reachable is left behind: an interval skipped
        // here could only be reached through a later slot that contains it.
        for (uint32_t i = 0; i < m_fidelity; ++i)
        {
            Interval& x = m_slots[i];
            if (x.len == 0)
            {
                continue;
            }
            if (seq::Leq(x.End(), m_rcvNext))
            {
                x = Interval{}; // entirely delivered already (stale or dominated copy)
            }
            else if (seq::Leq(x.start, m_rcvNext))
            {
                m_rcvNext = x.End(); // the in-order point reached it: merge
                x = Interval{};
            }
        }
    }
    m_window -= m_rcvNext - before; // merged bytes were already in the buffer
}

ReassemblyTracker::Verdict
ReassemblyTracker::PlaceFinite(uint32_t s, uint32_t e)
{
    bool placed = false;
    Interval u{s, e - s}; // the range the new bytes belong to once placed
    bool covered = false; // some slot held all of [s, e) already
    for (uint32_t i = 0; i < m_fidelity; ++i)
    {
        Interval& x = m_slots[i];
        const bool live = IsLive(x);
        if (!placed)
        {
            if (!live)
            {
                x = u; // a free slot opens a new interval
                placed = true;
                continue;
            }
            if (seq::Leq(x.start, s) && seq::Leq(e, x.End()))
            {
                return DUPLICATE; // nothing new, and nothing written so far
            }
            if (x.End() == s || e == x.start)
            {
                // Exactly adjacent (the TAS extension at either end).
                const uint32_t start = seq::Min(x.start, s);
                x = Interval{start, seq::Max(x.End(), e) - start};
                u = x;
                placed = true;
                continue;
            }
            if (seq::Lt(x.start, e) && seq::Lt(s, x.End()))
            {
                return DROPPED_FIDELITY; // partial overlap: TAS does not trim against it
            }
            continue; // disjoint with a gap: look further
        }
        // Placed already: a later slot touching the placed range absorbs it, keeping the
        // invariant "earlier slot contained in the later one" (the earlier one becomes a
        // dominated copy, freed when rcv_next passes it).
        if (live && seq::Leq(x.start, u.End()) && seq::Leq(u.start, x.End()))
        {
            if (seq::Leq(x.start, s) && seq::Leq(e, x.End()))
            {
                covered = true;
            }
            const uint32_t start = seq::Min(x.start, u.start);
            x = Interval{start, seq::Max(x.End(), u.End()) - start};
            u = x;
        }
    }
    if (!placed)
    {
        return DROPPED_FIDELITY; // every slot live and none adjacent (K = 0: no slot at all)
    }
    return covered ? DUPLICATE : OUT_OF_ORDER_PLACED;
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
    for (uint32_t i = 0; i < m_fidelity; ++i)
    {
        Interval& x = m_slots[i];
        if (!IsLive(x))
        {
            x = Interval{};
        }
        else if (!seq::Lt(x.start, edge))
        {
            x = Interval{};
        }
        else if (seq::Lt(edge, x.End()))
        {
            x.len = edge - x.start;
        }
    }
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
    std::vector<Interval> live;
    for (uint32_t i = 0; i < m_fidelity; ++i)
    {
        if (IsLive(m_slots[i]))
        {
            live.push_back(m_slots[i]);
        }
    }
    // Sort by distance from rcv_next (all live ranges are within the window beyond it).
    std::sort(live.begin(), live.end(), [this](const Interval& a, const Interval& b) {
        return a.start - m_rcvNext < b.start - m_rcvNext;
    });
    for (const Interval& x : live)
    {
        if (!out.empty() && seq::Leq(x.start, out.back().End()))
        {
            Interval& last = out.back();
            last.len = seq::Max(last.End(), x.End()) - last.start;
        }
        else
        {
            out.push_back(x);
        }
    }
    return out;
}

uint32_t
ReassemblyTracker::GetLiveSlotCount() const
{
    if (m_fidelity == UNBOUNDED)
    {
        return static_cast<uint32_t>(m_ranges.size());
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < m_fidelity; ++i)
    {
        n += IsLive(m_slots[i]) ? 1 : 0;
    }
    return n;
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
