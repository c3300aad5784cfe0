/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_RX_PROGRAM_H
#define PRESTO_PRESTO_RX_PROGRAM_H

#include "ns3/offload-reassembly.h"
#include "ns3/rmt-phv.h"
#include "ns3/rmt-pipeline.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Presto's TCP receive path as a program for the match-action engine (RmtPipeline):
 * the receive-side reassembly of ReassemblyTracker with K out-of-order intervals, for up to
 * N connections whose state lives in register arrays indexed by connection id.
 *
 * Every decision is taken by a table action from register arrays under the engine's rules
 * (one access per array per pass, an array reachable only from its own stage, stages in
 * order); the differential tests hold the result to ReassemblyTracker, bit for bit, including
 * the content of every interval slot.
 *
 * **Stages** (stages(K) = STAGES_BASE + STAGES_PER_INTERVAL * K = 3 + 2K):
 * | stage            | register arrays (per connection)  | what it decides                     |
 * |------------------|-----------------------------------|-------------------------------------|
 * | `rx.edge`        | `rx.edge` (32 bit)                | reads the window's right edge       |
 * | `rx.rcv_next`    | `rx.rcv_next` (32 bit)            | trims, classifies, advances in order|
 * | `ooo<i>.start`   | `ooo<i>.start` (33 bit: valid+seq) | slot i: the start half of the rule  |
 * | `ooo<i>.len`     | `ooo<i>.len` (31 bit)             | slot i: the length half of the rule |
 * | `rx.verdict`     | none                              | verdict, write range, ACK, recirc.  |
 *
 * The window is stored as its right edge (rcv_next + window): bytes becoming in order do not
 * move it, so the in-order advance touches one array only, and the edge can sit in a stage
 * of its own in front of rcv_next. Each interval costs two stages because its start and its
 * length live in different stages: the start stage decides everything that needs only the
 * start (free or live, start-adjacency) and carries the old start forward in the PHV; the
 * length stage, one stage later, completes the rule with the end (containment,
 * end-adjacency, overlap, the new length) and lists the slot for a second pass. A valid bit
 * in the start array tells the start stage a free slot without looking at the length.
 * K distinct intervals cost no extra stage; they cost PHV (the slot list, 63 bits per
 * interval) and the second passes below.
 *
 * **Intervals per path** (pathLabels > 0; ReassemblyTracker::Policy::PER_PATH). Each start
 * register also holds the label of the path whose segment opened the interval (the owner,
 * bits(pathLabels) wide, above the valid bit). A start stage under the placement rule that
 * reads a live slot owned by the segment's path (hdr.path) sets meta.own_seen; the first
 * free slot opens a new interval only when it is clear. Owners travel with their slots
 * through the slot list (meta.list<i>_owner), so merges, trims and bridges (which keep the
 * lower slot's owner) move them as ReassemblyTracker does. No stage is added: the cost is
 * the owner bits per interval per connection and their PHV.
 *
 * **Slots.** As in ReassemblyTracker (which this program matches slot for slot): the live
 * slots are a prefix [0, n), pairwise disjoint and non-adjacent, in the order they were
 * opened; the free slots are zero. A packet therefore reaches the first free slot only after
 * every live one, and can open a new interval there in the same pass.
 *
 * **Passes.** Pass 1 decides the verdict and writes what it can: a new interval, a slot grown
 * by the segment (optimistically), rcv_next advanced to an in-order segment's end
 * (optimistically), merged or passed slots cleared; it also lists the slots in PHV fields. It
 * recirculates once (pass 2 rewrites every slot from the list, MODE_COMPACT) when:
 * - an in-order segment reached an interval (pass 2 also writes the merged rcv_next, as the
 *   pseudo-segment OP_MERGE_COMMIT), or cleared a slot with a kept slot behind it (the kept
 *   slots move down);
 * - an out-of-order segment grew slot P and a later slot touches its other end: a bridge
 *   (pass 2 writes the union into P and removes the later slot);
 * - an out-of-order segment grew slot P and a later slot overlaps it (DROPPED_FIDELITY;
 *   pass 2 restores P; only a misaligned segment does this).
 * Every other segment takes one pass. SetWindow() takes two passes (pass 1 computes the new
 * edge from rcv_next and trims the slots, pass 2 writes the edge, which lives in front of
 * rcv_next, and compacts the slots); OpenWindow() takes one. Reset() is control plane
 * (connection setup is done by the host), as are the Get* inspection methods.
 *
 * The packet path allocates nothing and looks up no string: PHV field handles are resolved
 * when the program is built, and one PHV and one execution record are reused.
 */
class PrestoRxProgram
{
  public:
    /// Stages every configuration needs: rx.edge, rx.rcv_next, rx.verdict.
    static constexpr uint32_t STAGES_BASE = 3;
    /// Stages each out-of-order interval adds: its start stage and its length stage.
    static constexpr uint32_t STAGES_PER_INTERVAL = 2;
    /// Largest fidelity a pipeline program can have (ReassemblyTracker::MAX_FIDELITY).
    static constexpr uint32_t MAX_FIDELITY = ReassemblyTracker::MAX_FIDELITY;
    /// Most path labels (the 16-bit IPv4 identification carries them).
    static constexpr uint32_t MAX_PATH_LABELS = 65536;

    /**
     * \brief Build and finalise the program.
     *
     * Throws PrestoInputError when K is UNBOUNDED or above MAX_FIDELITY, maxConnections is 0
     * or above RmtRegisterArray::MAX_SIZE, the pass limit is below 2 (merges, bridges and
     * window changes recirculate once),
     * or the program does not fit the hardware: the message names K, the stages needed and
     * the budget, e.g. "Presto rx program with reassembly fidelity K=6 needs 15 stages but the
     * stage budget is 12 stages".
     * \param fidelity K, the number of out-of-order intervals per connection, 0..MAX_FIDELITY
     * \param maxConnections register array size: connection ids are 0..maxConnections-1
     * \param config the hardware (stage budget, clock, pipes, latencies); its name names the
     * program in reports
     * \param pathLabels 0: intervals by arrival order; N > 0: at most one interval per path
     * label, labels 0..N-1 (ReassemblyTracker::Policy::PER_PATH)
     */
    PrestoRxProgram(uint32_t fidelity,
                    uint32_t maxConnections,
                    const RmtPipelineConfig& config,
                    uint32_t pathLabels = 0);
    ~PrestoRxProgram();

    PrestoRxProgram(const PrestoRxProgram&) = delete;
    PrestoRxProgram& operator=(const PrestoRxProgram&) = delete;

    /**
     * \param fidelity K
     * \return the stages the program needs for K intervals: STAGES_BASE + STAGES_PER_INTERVAL*K
     */
    static uint32_t StagesFor(uint32_t fidelity);

    /**
     * \brief Largest K whose program fits a stage budget.
     * \param stageBudget stages the hardware has
     * \return the largest K (capped at MAX_FIDELITY); throws PrestoInputError if not even K=0
     * fits
     */
    static uint32_t MaxFidelityFor(uint32_t stageBudget);

    /**
     * \brief Start a connection (control plane): all intervals forgotten.
     * \param conn connection id (< maxConnections)
     * \param rcvNext the initial in-order point (the peer's ISN + 1)
     * \param window the receive window, bytes (<= ReassemblyTracker::MAX_WINDOW)
     */
    void Reset(uint32_t conn, uint32_t rcvNext, uint32_t window);

    /**
     * \brief Set the free host-buffer space counted from rcv_next (two pipeline passes).
     * Out-of-order bytes beyond the new right edge are forgotten.
     * \param conn connection id
     * \param window bytes (<= ReassemblyTracker::MAX_WINDOW)
     */
    void SetWindow(uint32_t conn, uint32_t window);

    /**
     * \brief Give back host-buffer space: one pipeline pass that moves the right edge and
     * reads rcv_next to check the limit (a refused call is undone and throws).
     * \param conn connection id
     * \param bytes added to the window (the window must stay <= MAX_WINDOW)
     */
    void OpenWindow(uint32_t conn, uint32_t bytes);

    /**
     * \brief Run the payload of one arriving segment through the pipeline.
     * \param conn connection id (< maxConnections)
     * \param seq its sequence number
     * \param len its payload length, bytes (<= ReassemblyTracker::MAX_WINDOW)
     * \param path the path label it arrived with (< pathLabels; ignored by arrival order)
     * \return the decision, the same as ReassemblyTracker::OnSegment
     */
    ReassemblyTracker::Result OnSegment(uint32_t conn,
                                        uint32_t seq,
                                        uint32_t len,
                                        uint16_t path = 0);

    /// \return the record of the last packet run (segment or window update): passes, latency
    const RmtExecution& GetLastExecution() const;

    /// \return the resource report of the pipeline (stages, arrays, memory, counters)
    RmtResourceReport GetResourceReport() const;

    /// \return the pipeline (read-only: its structure is frozen)
    const RmtPipeline& GetPipeline() const;

    /// \return K
    uint32_t GetFidelity() const;
    /// \return the number of connection ids
    uint32_t GetMaxConnections() const;
    /// \return the stages the program uses
    uint32_t GetStageCount() const;

    /**
     * \param conn connection id
     * \return its in-order point (control-plane read)
     */
    uint32_t GetRcvNext(uint32_t conn) const;

    /**
     * \param conn connection id
     * \return its window, bytes (right edge minus rcv_next; control-plane read)
     */
    uint32_t GetWindow(uint32_t conn) const;

    /**
     * \brief The raw content of slot i of a connection (control-plane read), comparable with
     * ReassemblyTracker::GetSlot.
     * \param conn connection id
     * \param i slot index (< K)
     * \return the slot
     */
    ReassemblyTracker::Interval GetSlot(uint32_t conn, uint32_t i) const;

    /**
     * \brief The path label that opened slot i (control-plane read), comparable with
     * ReassemblyTracker::GetSlotOwner.
     * \param conn connection id
     * \param i slot index (< K)
     * \return the owner (0 for a free slot, and always 0 under arrival order)
     */
    uint16_t GetSlotOwner(uint32_t conn, uint32_t i) const;

    /// \return the path labels (0: intervals by arrival order)
    uint32_t GetPathLabels() const;

  private:
    /// Operations carried in meta.op: what a packet (or a recirculated pass) does.
    enum Op : uint8_t
    {
        OP_NONE = 0,
        OP_SEGMENT = 1,           //!< a data segment
        OP_OPEN_WINDOW = 2,       //!< move the right edge by meta.arg
        OP_SET_WINDOW = 3,        //!< pass 1 of SetWindow: new edge from rcv_next, trim slots
        OP_SET_WINDOW_COMMIT = 4, //!< pass 2 of SetWindow: write the edge, compact the slots
        OP_MERGE_COMMIT = 5,      //!< pass 2 of a merging segment: rcv_next, compact the slots
        OP_PLACE_COMMIT = 6,      //!< pass 2 of a bridge or an undone growth: rewrite slots
    };

    /// What the interval stages do (meta.mode), chosen in stage rx.rcv_next (pass 1) or
    /// rx.verdict (pass 2).
    enum Mode : uint8_t
    {
        MODE_NONE = 0,    //!< nothing (duplicate, out of window, OpenWindow)
        MODE_MERGE = 1,   //!< in-order segment: merge reached intervals, list the others
        MODE_PLACE = 2,   //!< out-of-order segment: the K-interval rule, list old values
        MODE_TRIM = 3,    //!< new window: forget bytes beyond the right edge, list the others
        MODE_COMPACT = 4, //!< pass 2: rewrite every slot from the list
    };

    /// Segment class decided in stage rx.rcv_next (meta.cls).
    enum Class : uint8_t
    {
        CLS_NO_PAYLOAD = 0,
        CLS_DUPLICATE = 1,
        CLS_OUT_OF_WINDOW = 2,
        CLS_IN_ORDER = 3,
        CLS_OUT_OF_ORDER = 4,
    };

    /// What a start stage found (meta.slot_act), for the length stage of the same slot.
    enum SlotAct : uint8_t
    {
        ACT_NONE = 0,    //!< free slot, nothing to do
        ACT_CLEARED = 1, //!< start cleared (merged, passed or trimmed): clear the length
        ACT_TAKE = 2,    //!< the first free slot took the segment: write its length
        ACT_LIVE = 3,    //!< live slot under the placement rule: finish it with the end
        ACT_KEEP = 4,    //!< live slot kept by a merge or trim: list it
    };

    /// Why a placement stopped (meta.stop).
    enum Stop : uint8_t
    {
        STOP_NONE = 0,
        STOP_DUPLICATE = 1, //!< a live slot held the whole segment
        STOP_OVERLAP = 2,   //!< a live slot overlaps the segment (TAS rule)
    };

    /// PHV field handles, resolved once.
    struct Fields
    {
        RmtFieldId conn;      //!< connection id
        RmtFieldId seq;       //!< segment sequence number
        RmtFieldId len;       //!< segment payload length
        RmtFieldId op;        //!< Op
        RmtFieldId arg;       //!< window or bytes of a window update
        RmtFieldId edge;      //!< right edge (read in rx.edge, or the new one of SetWindow)
        RmtFieldId rcv;       //!< rcv_next read in rx.rcv_next
        RmtFieldId run;       //!< running in-order point during a merge
        RmtFieldId s;         //!< trimmed segment start
        RmtFieldId e;         //!< trimmed segment end
        RmtFieldId cls;       //!< Class
        RmtFieldId mode;      //!< Mode
        RmtFieldId placed;    //!< the segment grew a slot or took a free one
        RmtFieldId stop;      //!< Stop
        RmtFieldId pSlot;     //!< the slot the segment was placed in
        RmtFieldId bridge;    //!< a later slot touches the segment's other end
        RmtFieldId xSlot;     //!< that later slot (removed in pass 2)
        RmtFieldId uStart;    //!< start of the range the placed bytes belong to
        RmtFieldId uEnd;      //!< end of that range
        RmtFieldId slotStart; //!< old start of the slot, carried from start to length stage
        RmtFieldId slotAct;   //!< SlotAct
        RmtFieldId rank;      //!< slots listed so far by a merge or trim
        RmtFieldId hole;      //!< a merge or trim cleared a slot
        RmtFieldId shifted;   //!< a kept slot sits behind a cleared one (compaction needed)
        std::array<RmtFieldId, MAX_FIDELITY> listStart; //!< list for pass 2: starts
        std::array<RmtFieldId, MAX_FIDELITY> listLen;   //!< list for pass 2: lengths
        std::array<RmtFieldId, MAX_FIDELITY> listOwner; //!< list for pass 2: owners (per path)
        RmtFieldId path;                                //!< the segment's path label (per path)
        RmtFieldId ownSeen;   //!< a live slot is owned by the segment's path (per path)
        RmtFieldId slotOwner; //!< owner of the slot, carried from start to length stage
        RmtFieldId verdict;   //!< ReassemblyTracker::Verdict
        RmtFieldId writeSeq;  //!< write range start
        RmtFieldId writeLen;  //!< write range length
        RmtFieldId delivered; //!< bytes delivered in order
        RmtFieldId ack;       //!< cumulative ACK
        RmtFieldId ackReq;    //!< ACK required
    };

    /// Valid bit of a start register (bit 32, above the 32-bit sequence number).
    static constexpr uint64_t SLOT_VALID = uint64_t{1} << 32;
    /// First bit of the owner (per path) in a start register, above the valid bit.
    static constexpr uint32_t OWNER_SHIFT = 33;

    /// \param cell a start register \return the owner it holds
    static uint16_t OwnerOf(uint64_t cell)
    {
        return static_cast<uint16_t>(cell >> OWNER_SHIFT);
    }

    /// \param start the interval's start \param owner its owner \return a live start register
    static uint64_t LiveSlot(uint32_t start, uint64_t owner)
    {
        return (owner << OWNER_SHIFT) | SLOT_VALID | start;
    }

    /**
     * \brief What pass 2 writes into slot i: the bridged union into the slot keeping it, else
     * the list entry of the slot (the next one behind a slot a bridge removed).
     * \param c the action context (reads the PHV)
     * \param f the field handles
     * \param i the slot
     * \param k K
     * \param perPath the list carries owners
     * \return the start register's new content (0: free)
     */
    static uint64_t CompactSource(const RmtActionContext& c,
                                  const Fields& f,
                                  uint32_t i,
                                  uint32_t k,
                                  bool perPath,
                                  uint32_t& len);

    /// Declare the PHV fields.
    void DeclareFields();
    /// Build stage rx.edge.
    void BuildEdgeStage();
    /// Build stage rx.rcv_next.
    void BuildRcvNextStage();
    /// Build the two stages of interval slot i (presto-rx-stages.cc, as every stage).
    void BuildSlotStages(uint32_t i);
    /// Build stage ooo<i>.start: the slot rule's half that needs only the start.
    void BuildSlotStartStage(uint32_t i);
    /// Build stage ooo<i>.len: the rule's other half; lists kept slots for pass 2.
    void BuildSlotLenStage(uint32_t i);
    /**
     * \brief Action place_start of ooo<i>.start: an out-of-order segment against slot i's
     * start (reads it for the list; takes a free slot, grows a live one at the front).
     * \param f the field handles \param start the slot's start register \param i the slot
     * \param perPath the slots carry owners
     * \return the action body
     */
    static RmtActionFn PlaceStartAction(const Fields& f,
                                        RmtRegisterArray* start,
                                        uint32_t i,
                                        bool perPath);
    /**
     * \brief Action place_len of ooo<i>.len: the placement rule with slot i's end (held
     * already, overlap, growth at either end, a bridge to an earlier slot).
     * \param f the field handles \param lenArr the slot's length register \param i the slot
     * \param perPath the slots carry owners
     * \return the action body
     */
    static RmtActionFn PlaceLenAction(const Fields& f,
                                      RmtRegisterArray* lenArr,
                                      uint32_t i,
                                      bool perPath);
    /// Build stage rx.verdict.
    void BuildVerdictStage();
    /// Throw unless conn is a valid id.
    void CheckConn(uint32_t conn, const char* where) const;
    /// Run the PHV prepared for op through the pipeline.
    void RunOp(uint32_t conn, Op op, uint32_t arg);

    uint32_t m_fidelity;                        //!< K
    uint32_t m_maxConnections;                  //!< connection ids
    uint32_t m_pathLabels;                      //!< 0: arrival order; else per path
    std::unique_ptr<RmtPipeline> m_pipeline;    //!< the engine running the program
    Fields m_f{};                               //!< PHV handles
    RmtRegisterArray* m_edge{};                 //!< right edge per connection
    RmtRegisterArray* m_rcvNext{};              //!< rcv_next per connection
    std::vector<RmtRegisterArray*> m_slotStart; //!< per slot: valid bit + start
    std::vector<RmtRegisterArray*> m_slotLen;   //!< per slot: length
    std::unique_ptr<RmtPhv> m_phv;              //!< reused PHV
    RmtExecution m_exec;                        //!< reused execution record
};

} // namespace ns3

#endif // PRESTO_PRESTO_RX_PROGRAM_H
