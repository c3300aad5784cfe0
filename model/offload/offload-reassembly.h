/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_REASSEMBLY_H
#define PRESTO_OFFLOAD_REASSEMBLY_H

#include "offload-seq.h"

#include <array>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Receive-side reassembly bookkeeping of an offloaded TCP connection that keeps no
 * out-of-order payload in the NIC: it tracks the in-order point rcv_next and up to K
 * out-of-order intervals, and decides per segment what to write to the host receive buffer,
 * how far rcv_next advances and which cumulative ACK to send.
 *
 * K is the *reassembly fidelity*. The payload of an accepted segment is written straight to
 * its place in the host buffer (the write range in Result); the tracker only remembers which
 * byte ranges are there. All sequence arithmetic is modulo 2^32 (RFC 793 comparisons).
 *
 * **Window.** GetWindow() is the free host-buffer space counted from rcv_next (TAS's
 * rx_avail): the acceptable range is [rcv_next, rcv_next + window). Bytes that become in order
 * consume window (the right edge stays put); the host gives space back with OpenWindow() when
 * the application has read data, or sets it with SetWindow(). Shrinking the window so that
 * the right edge moves left forgets the out-of-order bytes beyond the new edge (they will be
 * retransmitted), so a tracked byte is always inside the window.
 *
 * **Rules common to every K** (steps in this order):
 * 1. len == 0: NO_PAYLOAD, nothing changes, no ACK is required (a pure ACK).
 * 2. The part below rcv_next is trimmed off; if nothing is left: DUPLICATE.
 * 3. The part at or beyond rcv_next + window is trimmed off; if nothing is left:
 *    DROPPED_WINDOW (nothing written).
 * 4. The trimmed segment T = [s, e) starts at rcv_next: IN_ORDER. T is written, rcv_next
 *    becomes e, then every tracked interval that starts at or before rcv_next is merged into
 *    the in-order part (rcv_next = max(rcv_next, its end)) and every interval entirely below
 *    rcv_next is discarded.
 * 5. Otherwise T is out of order and the K-specific rule below applies.
 * Every segment carrying payload asks for an ACK (also when dropped); the ACK is always
 * cumulative: rcv_next after processing.
 *
 * **K = 0:** an out-of-order T is DROPPED_FIDELITY.
 *
 * **K >= 1: up to K distinct intervals, TAS's overlap rule.** The held intervals are
 * disjoint and non-adjacent (intervals that touch are merged). For an out-of-order T, in
 * this order:
 * 1. some interval contains T: DUPLICATE;
 * 2. some interval overlaps T (partially, or T contains it): DROPPED_FIDELITY (TAS does not
 *    trim a segment against an interval);
 * 3. T touches intervals exactly (one ending at s, one starting at e: at most one on each
 *    side): they grow by T, and a T that bridges two joins them into one:
 *    OUT_OF_ORDER_PLACED;
 * 4. fewer than K intervals are held: T becomes a new interval: OUT_OF_ORDER_PLACED;
 * 5. otherwise DROPPED_FIDELITY.
 * With K = 1 this is exactly TAS / FlexTOE (tas/fast/fast_flows.c): create the interval,
 * DUPLICATE inside it, grow it at either end, drop anything else.
 *
 * **Slot layout (finite K).** The intervals live in K slots, the register pairs of the
 * pipeline program (PrestoRxProgram), which this tracker matches slot for slot. The live
 * intervals fill slots [0, n) in the order they were opened, not in sequence order; slots
 * n..K-1 are empty ({0, 0}). A new interval takes slot n; an interval that grows stays in its
 * slot; a bridge keeps the union in the lower of the two slots and removes the higher one;
 * removing intervals (merged into rcv_next, passed, or forgotten beyond a shrunken window)
 * moves the slots behind them down, in order, like erasing from a vector. So
 * GetLiveSlotCount() is the number of distinct intervals.
 *
 * Example (K = 2, single-byte units, rcv_next = 0): arrivals [2,3) [5,6) [0,2) [6,7) [9,10)
 * give slots {[2,3)} {[2,3),[5,6)} {[5,6)} (rcv_next 3) {[5,7)} {[5,7),[9,10)}: two
 * intervals, [9,10) kept. (A one-pass rule that lets an earlier free slot open T before a
 * later slot can absorb it ends with [6,7) and [5,7): one interval and [9,10) dropped.)
 *
 * **K = UNBOUNDED:** full reassembly (the reference): every in-window byte is kept, an
 * out-of-order T is OUT_OF_ORDER_PLACED unless all of it is already held (DUPLICATE); it is
 * never DROPPED_FIDELITY.
 *
 * Finite K uses fixed arrays and never allocates per segment; UNBOUNDED uses a std::map.
 */
class ReassemblyTracker
{
  public:
    /// Fidelity value meaning full reassembly (no limit on intervals).
    static constexpr uint32_t UNBOUNDED = std::numeric_limits<uint32_t>::max();
    /// Largest finite fidelity.
    static constexpr uint32_t MAX_FIDELITY = 16;
    /// Largest window and segment length, bytes (the TCP window-scale limit, 2^30), which
    /// keeps every tracked sequence number within 2^31 of rcv_next.
    static constexpr uint32_t MAX_WINDOW = 1u << 30;

    /// What happened to a segment.
    enum Verdict : uint8_t
    {
        IN_ORDER,            //!< starts at rcv_next after trimming; rcv_next advanced
        OUT_OF_ORDER_PLACED, //!< in window, beyond rcv_next, tracked in an interval
        DUPLICATE,           //!< nothing new: every byte below rcv_next or already held
        DROPPED_FIDELITY,    //!< in window but not trackable with K intervals; ACKed
        DROPPED_WINDOW,      //!< new bytes but none inside the window; ACKed
        NO_PAYLOAD,          //!< zero-length segment (pure ACK); nothing changes
    };

    /// A byte range [start, start + len) in sequence space; len == 0 means empty.
    struct Interval
    {
        uint32_t start{0}; //!< first sequence number
        uint32_t len{0};   //!< length, bytes

        /// \return the sequence number after the last byte
        uint32_t End() const
        {
            return start + len;
        }

        /**
         * \param o the other interval
         * \return true when both have the same start and length
         */
        bool operator==(const Interval& o) const
        {
            return start == o.start && len == o.len;
        }
    };

    /**
     * Which out-of-order segment may open an interval when a slot is free (finite K).
     * ARRIVAL_ORDER: any (the first K runs to arrive hold the slots). PER_PATH: a segment
     * whose path label already owns a live interval opens no second one (it is dropped, as
     * with no free slot), so one path cannot take the slots another path's run needs; with
     * sender-side spraying a path's packets arrive in order, so its run grows at the end of
     * the interval it owns. Growing and bridging by adjacency, containment and overlap are
     * the same in both policies; an interval keeps the owner it was opened by (a bridge
     * keeps the lower slot's).
     */
    enum class Policy : uint8_t
    {
        ARRIVAL_ORDER, //!< intervals by arrival order (TAS's rule for K slots)
        PER_PATH,      //!< at most one interval per path label
    };

    /// The decision for one segment.
    struct Result
    {
        Verdict verdict{NO_PAYLOAD}; //!< what happened
        uint32_t writeSeq{0};        //!< first sequence number to write to the host buffer
        uint32_t writeLen{0};        //!< bytes to write (0: write nothing)
        uint32_t delivered{0};       //!< bytes that became deliverable in order
        uint32_t ack{0};             //!< cumulative ACK to send: rcv_next after processing
        bool ackRequired{false};     //!< true for every segment carrying payload
    };

    /**
     * \param fidelity K: 0..MAX_FIDELITY or UNBOUNDED
     * \param rcvNext the initial in-order point (the peer's ISN + 1)
     * \param window the initial receive window, bytes (<= MAX_WINDOW)
     *
     * Throws PrestoInputError for an out-of-range fidelity or window.
     */
    ReassemblyTracker(uint32_t fidelity, uint32_t rcvNext, uint32_t window);

    /**
     * \brief Process the payload of one arriving segment.
     * \param seq its sequence number
     * \param len its payload length, bytes (<= MAX_WINDOW; throws PrestoInputError if larger)
     * \return the decision
     */
    Result OnSegment(uint32_t seq, uint32_t len);

    /**
     * \brief Process the payload of one arriving segment that came over path \p path.
     * \param seq its sequence number
     * \param len its payload length, bytes
     * \param path its path label (the PER_PATH policy uses it)
     * \return the decision
     */
    Result OnSegment(uint32_t seq, uint32_t len, uint16_t path);

    /// \param policy how intervals are assigned (ARRIVAL_ORDER unless set)
    void SetPolicy(Policy policy);
    /// \return how intervals are assigned
    Policy GetPolicy() const;

    /**
     * \brief Start over for a new connection (all intervals forgotten).
     * \param rcvNext the new in-order point
     * \param window the new window, bytes (<= MAX_WINDOW)
     */
    void Reset(uint32_t rcvNext, uint32_t window);

    /**
     * \brief Set the free host-buffer space counted from rcv_next. Out-of-order bytes beyond
     * the new right edge are forgotten.
     * \param window bytes (<= MAX_WINDOW; throws PrestoInputError if larger)
     */
    void SetWindow(uint32_t window);

    /**
     * \brief Give back host-buffer space (the application read bytes).
     * \param bytes added to the window (the sum must stay <= MAX_WINDOW, else
     * PrestoInputError)
     */
    void OpenWindow(uint32_t bytes);

    /// \return the in-order point: the next expected sequence number
    uint32_t GetRcvNext() const;
    /// \return the receive window, bytes
    uint32_t GetWindow() const;
    /// \return the fidelity K (UNBOUNDED for full reassembly)
    uint32_t GetFidelity() const;

    /**
     * \return the byte ranges held beyond rcv_next, in sequence order, disjoint and
     * non-adjacent
     */
    std::vector<Interval> GetIntervals() const;

    /**
     * \return the number of intervals held (finite K: the live slots, a prefix of the K
     * slots)
     */
    uint32_t GetLiveSlotCount() const;

    /**
     * \brief The raw content of slot i (what the pipeline's register pair holds), for
     * differential tests. Slots [0, GetLiveSlotCount()) hold the intervals in the order they
     * were opened; a free slot is {0, 0}.
     * \param i slot index, < K (throws PrestoInputError otherwise, and for UNBOUNDED)
     * \return the slot
     */
    Interval GetSlot(uint32_t i) const;

    /**
     * \param i slot index, < K
     * \return the path label that opened slot i's interval (0 for a free slot)
     */
    uint16_t GetSlotOwner(uint32_t i) const;

    /**
     * \param v a verdict
     * \return its name, e.g. "DROPPED_FIDELITY"
     */
    static const char* VerdictName(Verdict v);

  private:
    /// Strict "a before b" in sequence space (valid for distances < 2^31).
    struct SeqLess
    {
        /**
         * \param a left
         * \param b right
         * \return true when a comes before b
         */
        bool operator()(uint32_t a, uint32_t b) const
        {
            return seq::Lt(a, b);
        }
    };

    /// Advance rcv_next to e after writing the in-order range, then merge intervals.
    void AdvanceInOrder(uint32_t e);
    /// Place the out-of-order range [s, e) with the finite-K rule.
    Verdict PlaceFinite(uint32_t s, uint32_t e, uint16_t path);
    /// Remove slot i; the slots behind it move down one.
    void RemoveSlot(uint32_t i);
    /// Place the out-of-order range [s, e) with full reassembly.
    Verdict PlaceUnbounded(uint32_t s, uint32_t e);
    /// Forget out-of-order bytes at or beyond rcv_next + window.
    void TrimToWindow();

    uint32_t m_fidelity;                            //!< K
    uint32_t m_rcvNext;                             //!< in-order point
    uint32_t m_window;                              //!< free space from rcv_next, bytes
    std::array<Interval, MAX_FIDELITY> m_slots{};   //!< finite K: the K slots
    uint32_t m_live{0};                             //!< finite K: slots [0, m_live) live
    std::array<uint16_t, MAX_FIDELITY> m_owner{};   //!< finite K: path that opened each slot
    Policy m_policy{Policy::ARRIVAL_ORDER};         //!< how intervals are assigned
    std::map<uint32_t, uint32_t, SeqLess> m_ranges; //!< UNBOUNDED: start -> end
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_REASSEMBLY_H
