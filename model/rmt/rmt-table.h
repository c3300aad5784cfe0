/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RMT_TABLE_H
#define PRESTO_RMT_TABLE_H

#include "rmt-phv.h"
#include "rmt-register.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace ns3
{

class RmtStage;
class RmtTable;

/// \ingroup presto How a key field of a table is matched.
enum class RmtMatchKind : uint8_t
{
    EXACT,   //!< value equals the entry's value
    TERNARY, //!< (value & mask) equals the entry's value & mask; priorities order overlaps
    LPM,     //!< longest prefix of the field's width (longer prefix wins at equal priority)
    RANGE,   //!< lo <= value <= hi (port ranges)
};

/**
 * \ingroup presto
 * \param kind a match kind
 * \return "exact", "ternary", "lpm" or "range"
 */
const char* RmtMatchKindName(RmtMatchKind kind);

/// \ingroup presto One key field of a table: which PHV field and how it is matched.
struct RmtKeyField
{
    RmtFieldId field;  //!< the PHV field
    RmtMatchKind kind; //!< the match kind
};

/**
 * \ingroup presto
 * \brief One key component of a table entry (the control plane's view).
 *
 * Use the factory functions. An Exact() component is accepted on any key field (ternary: full
 * mask, LPM: full-length prefix, range: [v, v]); Any() is accepted on ternary, LPM and range
 * fields (mask 0, prefix /0, full range). Other kinds must match the field's declared kind.
 */
struct RmtMatch
{
    RmtMatchKind kind{RmtMatchKind::EXACT}; //!< the kind of the component
    bool any{false};                        //!< wildcard
    uint64_t value{0};                      //!< exact/ternary/LPM value, range low end
    uint64_t mask{0};                       //!< ternary mask
    uint64_t hi{0};                         //!< range high end (inclusive)
    uint32_t prefixLen{0};                  //!< LPM prefix length, bits

    /** \param v the value \return an exact component */
    static RmtMatch Exact(uint64_t v);
    /** \param v the value \param mask the care bits \return a ternary component */
    static RmtMatch Ternary(uint64_t v, uint64_t mask);
    /** \param v the value \param prefixLen prefix bits \return an LPM component */
    static RmtMatch Lpm(uint64_t v, uint32_t prefixLen);
    /** \param lo low end \param hi high end (inclusive) \return a range component */
    static RmtMatch Range(uint64_t lo, uint64_t hi);
    /** \return a wildcard component */
    static RmtMatch Any();
};

/// \ingroup presto Handle of an action within its table (0 is the built-in "NoAction").
using RmtActionId = uint32_t;
/// \ingroup presto Handle of a table entry (stable until the entry is removed).
using RmtEntryHandle = uint32_t;
/// \ingroup presto Handle of a table in its pipeline (creation order).
using RmtTableId = uint32_t;

/**
 * \ingroup presto
 * \brief What an action sees while it runs: the PHV, the entry's action data, the register
 * arrays of its stage (one access each per pass), and the pass controls.
 *
 * Built by the pipeline on the stack for each packet; actions must not keep it.
 */
class RmtActionContext
{
  public:
    /** \return the packet's PHV */
    RmtPhv& Phv()
    {
        return *m_phv;
    }

    /** \param f a field \return its value */
    uint64_t Get(RmtFieldId f) const
    {
        return m_phv->Get(f);
    }

    /** \param f a field \param value the value (low `width` bits kept) */
    void Set(RmtFieldId f, uint64_t value)
    {
        m_phv->Set(f, value);
    }

    /**
     * \param i index of the action parameter (entry action data)
     * \return its value; throws PrestoInputError if the action has fewer parameters
     */
    uint64_t Param(uint32_t i) const;

    /** \return the number of action parameters of the running entry */
    uint32_t ParamCount() const
    {
        return static_cast<uint32_t>(m_params->size());
    }

    /** \return true if the action runs because an entry matched (false: default action) */
    bool IsHit() const
    {
        return m_hit;
    }

    /** \return the current pass, 0 for the first */
    uint32_t GetPass() const
    {
        return m_phv->m_pass;
    }

    /** \return the table whose action runs */
    const RmtTable& GetTable() const
    {
        return *m_table;
    }

    /** \return the running action */
    RmtActionId GetAction() const
    {
        return m_action;
    }

    /**
     * \brief Read one element (this pass's one access to reg).
     * \param reg a register array of the running table's stage
     * \param index the element
     * \return its value
     */
    uint64_t Read(RmtRegisterArray& reg, uint64_t index)
    {
        return Acquire(reg, index, "read");
    }

    /**
     * \brief Write one element (this pass's one access to reg); the value wraps at the
     * element width.
     * \param reg a register array of the running table's stage
     * \param index the element
     * \param value the value
     */
    void Write(RmtRegisterArray& reg, uint64_t index, uint64_t value)
    {
        Acquire(reg, index, "write") = value & reg.m_mask;
    }

    /**
     * \brief Read-modify-write one element with a stateful-ALU function (this pass's one access
     * to reg). alu receives a reference to the element, may change it, and may return an
     * output (e.g. the old value or a predicate) that Update returns; the element then wraps
     * at its width.
     * \param reg a register array of the running table's stage
     * \param index the element
     * \param alu callable taking uint64_t&
     * \return what alu returns
     */
    template <typename F>
    auto Update(RmtRegisterArray& reg, uint64_t index, F&& alu)
    {
        uint64_t& cell = Acquire(reg, index, "update");
        if constexpr (std::is_void_v<std::invoke_result_t<F, uint64_t&>>)
        {
            alu(cell);
            cell &= reg.m_mask;
        }
        else
        {
            auto out = alu(cell);
            cell &= reg.m_mask;
            return out;
        }
    }

    /// Ask for another pass through the pipeline (recirculation) after this one.
    void Recirculate();

    /// Mark the packet to be dropped (it still traverses the rest of this pass).
    void Drop()
    {
        m_phv->m_drop = true;
    }

  private:
    friend class RmtPipeline;
    friend class RmtTable;

    /// The access rule: same stage, first access in this pass, index in range.
    uint64_t& Acquire(RmtRegisterArray& reg, uint64_t index, const char* what);

    RmtPhv* m_phv{};                         //!< the packet
    const RmtStage* m_stage{};               //!< stage being executed
    const RmtTable* m_table{};               //!< table whose action runs
    RmtActionId m_action{0};                 //!< running action
    const std::vector<uint64_t>* m_params{}; //!< entry action data
    uint64_t m_passStamp{0};                 //!< unique number of this pass
    bool m_hit{false};                       //!< hit or default action
    const RmtTable* m_recircTable{};         //!< who asked for recirculation
    RmtActionId m_recircAction{0};           //!< which action asked
};

/// \ingroup presto An action body: changes the PHV and registers of its stage.
using RmtActionFn = std::function<void(RmtActionContext&)>;
/// \ingroup presto A table's gate: the table is applied only if it returns true (P4 `if`).
using RmtGateFn = std::function<bool(const RmtPhv&)>;

/**
 * \ingroup presto
 * \brief A match-action table: key fields with match kinds, named actions, entries with
 * priorities and action data, a default action, a capacity, and hit/miss counters.
 *
 * Lookup: tables whose keys are all exact use a hash index; others scan their entries in
 * priority order (higher priority first; at equal priority the longer total LPM prefix,
 * then the earlier-added entry) and take the first match. The capacity is the number of
 * entries the table's memory holds; adding beyond it throws. Create tables with
 * RmtStage::AddTable. Actions and the gate are configuration (before the pipeline is
 * finalised); entries and the default action are control plane (any time).
 */
class RmtTable
{
  public:
    /// Name of the built-in action 0, which does nothing.
    static constexpr const char* NO_ACTION = "NoAction";

    RmtTable(const RmtTable&) = delete;
    RmtTable& operator=(const RmtTable&) = delete;

    /** \return the table's name */
    const std::string& GetName() const;
    /** \return the table's handle in its pipeline */
    RmtTableId GetId() const;
    /** \return the stage that holds the table */
    const RmtStage& GetStage() const;
    /** \return the name of the stage that holds the table */
    const std::string& GetStageName() const;
    /** \return the key fields */
    const std::vector<RmtKeyField>& GetKeys() const;
    /** \return the capacity, entries */
    uint32_t GetCapacity() const;
    /** \return the entries installed */
    uint32_t GetEntryCount() const;

    /**
     * \brief Declare an action (configuration time). Throws on a repeated name or after the
     * pipeline is finalised.
     * \param name the action name, unique in the table
     * \param fn the body
     * \param paramCount how many action-data values each entry using it must supply
     * \return its handle
     */
    RmtActionId AddAction(const std::string& name, RmtActionFn fn, uint32_t paramCount = 0);

    /** \param name an action name \return its handle; throws if unknown */
    RmtActionId GetAction(const std::string& name) const;
    /** \param a an action handle \return its name */
    const std::string& GetActionName(RmtActionId a) const;
    /** \return the number of actions, NoAction included */
    uint32_t GetActionCount() const;

    /**
     * \brief Set the action run on a miss (NoAction unless set).
     * \param a the action
     * \param params its action data (as many values as the action declares)
     */
    void SetDefaultAction(RmtActionId a, std::vector<uint64_t> params = {});
    /** \param name the action's name \param params its action data */
    void SetDefaultAction(const std::string& name, std::vector<uint64_t> params = {});
    /** \return the default action */
    RmtActionId GetDefaultAction() const;

    /**
     * \brief Apply the table only when gate(phv) is true (configuration time); reads like a
     * P4 `if (...) { t.apply(); }`. A table skipped by its gate counts neither hit nor miss.
     * \param gate the condition
     */
    void SetGate(RmtGateFn gate);
    /** \return true if the table has a gate */
    bool HasGate() const;

    /**
     * \brief Install an entry. Throws PrestoInputError (naming table and stage) if the table
     * is full, the key has the wrong number of components, a component does not fit its
     * field or kind, the action is unknown, the number of action data values is wrong, or an
     * entry with the same key (and, for non-exact tables, the same priority) exists.
     * \param key one component per key field
     * \param action the action run on a hit
     * \param params its action data
     * \param priority higher wins among overlapping non-exact entries (ignored for exact tables)
     * \return the entry's handle
     */
    RmtEntryHandle AddEntry(const std::vector<RmtMatch>& key,
                            RmtActionId action,
                            std::vector<uint64_t> params = {},
                            int32_t priority = 0);
    /** \copydoc AddEntry \param actionName the action's name */
    RmtEntryHandle AddEntry(const std::vector<RmtMatch>& key,
                            const std::string& actionName,
                            std::vector<uint64_t> params = {},
                            int32_t priority = 0);

    /** \param h an installed entry; throws if it is not installed */
    void RemoveEntry(RmtEntryHandle h);

    /**
     * \brief Change an installed entry's action and action data.
     * \param h the entry
     * \param action the action
     * \param params its action data
     */
    void SetEntryAction(RmtEntryHandle h, RmtActionId action, std::vector<uint64_t> params = {});

    /// Remove every entry.
    void ClearEntries();

    /**
     * \brief Look the PHV up without running anything or counting (control plane, tests).
     * \param phv the packet
     * \return the matching entry, if any
     */
    std::optional<RmtEntryHandle> Lookup(const RmtPhv& phv) const;

    /** \return times the table was applied (gate true) */
    uint64_t GetApplied() const;
    /** \return applications that matched an entry */
    uint64_t GetHits() const;
    /** \return applications that ran the default action */
    uint64_t GetMisses() const;
    /** \param h an installed entry \return how many times it matched */
    uint64_t GetEntryHits(RmtEntryHandle h) const;
    /// Zero the counters (table and entries).
    void ResetCounters();

  private:
    friend class RmtStage;
    friend class RmtPipeline;

    /// One installed entry; a key component is (a, b): exact (v, -), ternary/LPM (v, mask),
    /// range (lo, hi).
    struct Entry
    {
        std::vector<uint64_t> a;      //!< first word per key component
        std::vector<uint64_t> b;      //!< second word per key component
        std::vector<uint64_t> params; //!< action data
        int32_t priority{0};          //!< entry priority
        uint32_t prefixTotal{0};      //!< sum of LPM prefix lengths
        uint64_t seq{0};              //!< insertion order (tie break)
        uint64_t hash{0};             //!< key hash (exact tables)
        uint64_t hits{0};             //!< match counter
        RmtActionId action{0};        //!< action run on a hit
        bool valid{false};            //!< installed
    };

    /// An action: name, body and the number of action data values.
    struct Action
    {
        std::string name;    //!< name
        RmtActionFn fn;      //!< body (empty for NoAction)
        uint32_t paramCount; //!< action data values per entry
    };

    /**
     * \param id the handle in the pipeline
     * \param name the name
     * \param stage the holding stage
     * \param stageName its name
     * \param layout the PHV layout (to check key fields)
     * \param keys the key fields
     * \param capacity entries
     * \param finalised flag of the pipeline (actions and gate are refused once set)
     */
    RmtTable(RmtTableId id,
             const std::string& name,
             const RmtStage* stage,
             const std::string& stageName,
             const RmtPhvLayout& layout,
             std::vector<RmtKeyField> keys,
             uint32_t capacity,
             const bool* finalised);

    /// "RMT table 'x' in stage 'y'" for messages.
    std::string Where() const;
    /// Throw unless the pipeline is still being configured.
    void CheckConfigurable(const std::string& what) const;
    /// Throw unless a is an action of the table.
    void CheckAction(RmtActionId a, size_t nParams) const;
    /// Throw unless h is an installed entry.
    const Entry& GetEntry(RmtEntryHandle h) const;
    /// AddEntry's steps: encode key component k of e from m (checked against the key field).
    void EncodeKey(size_t k, const RmtMatch& m, Entry& e) const;
    /// A ternary, LPM or range component of the field's own kind; comp names it in messages.
    void EncodeTyped(size_t k, const RmtMatch& m, const std::string& comp, Entry& e) const;
    /// Throw if an entry with e's key (and, for non-exact tables, priority) is installed.
    void CheckNoDuplicate(const Entry& e) const;
    /// Store e (a free slot first), index it; \return its handle.
    RmtEntryHandle Install(Entry&& e);
    /// Hash of the key values of an exact table.
    static uint64_t HashKey(const uint64_t* values, size_t n);
    /// Index of the matching entry, or -1.
    int64_t Match(const RmtPhv& phv) const;
    /// Apply to a packet: match, count, run the action; return true on a hit.
    bool Apply(RmtActionContext& ctx);
    /// Rebuild the priority order of a non-exact table.
    void SortOrder();
    /// Exact index: the entry with these key values and hash, or -1.
    int64_t FindExact(const uint64_t* values, uint64_t hash) const;
    /// Exact index: add entry h (grows the slot array to keep the load at most 1/2).
    void IndexInsert(uint32_t h);
    /// Exact index: remove entry h (backward-shift deletion keeps probe chains intact).
    void IndexErase(uint32_t h);

    /// Widest exact key (all key fields together) that gets a directly indexed lookup (2^8
    /// slots).
    static constexpr uint32_t DIRECT_KEY_BITS = 8;

    /// \param values key values within their fields' widths \return their direct index
    uint64_t DirectIndex(const uint64_t* values) const
    {
        uint64_t index = 0;
        for (size_t k = 0; k < m_directShift.size(); ++k)
        {
            index |= values[k] << m_directShift[k];
        }
        return index;
    }

    RmtTableId m_id;                                            //!< handle in the pipeline
    std::string m_name;                                         //!< name
    std::string m_stageName;                                    //!< holding stage's name
    const RmtStage* m_stage;                                    //!< holding stage
    const RmtPhvLayout* m_layout;                               //!< PHV layout
    std::vector<RmtKeyField> m_keys;                            //!< key fields
    std::vector<uint64_t> m_keyMasks;                           //!< width mask per key field
    uint32_t m_capacity;                                        //!< entries the table holds
    const bool* m_finalised;                                    //!< the pipeline's finalised flag
    bool m_allExact{true};                                      //!< all keys exact: hash lookup
    std::vector<Action> m_actions;                              //!< actions, 0 = NoAction
    std::unordered_map<std::string, RmtActionId> m_actionIndex; //!< by name (config time)
    RmtActionId m_defaultAction{0};                             //!< default action
    std::vector<uint64_t> m_defaultParams;                      //!< its action data
    RmtGateFn m_gate;                                           //!< optional gate
    std::vector<Entry> m_entries;                               //!< entry slots (handle = index)
    std::vector<uint32_t> m_free;                               //!< free slots
    std::vector<uint32_t> m_order; //!< valid entries in match order (non-exact)
    std::vector<uint32_t> m_slots; //!< exact index: open addressing, entry + 1 or 0
    /// Exact table whose key fields together have at most DIRECT_KEY_BITS bits: the entry for
    /// each key (entry + 1, or 0), at the key fields' values side by side (the first key
    /// field highest), found with one load instead of a hash probe. A P4 compiler maps such a
    /// table to a directly indexed memory; the matching rule is the same.
    std::vector<uint32_t> m_direct;
    std::vector<uint32_t> m_directShift;     //!< per key field: its position in the direct index
    uint64_t m_slotMask{0};                  //!< m_slots.size() - 1 (a power of two)
    uint32_t m_count{0};                     //!< installed entries
    uint64_t m_seq{0};                       //!< next insertion number
    mutable std::vector<uint64_t> m_scratch; //!< key values of the packet being matched
    uint64_t m_applied{0};                   //!< applications
    uint64_t m_hits{0};                      //!< hits
    uint64_t m_misses{0};                    //!< misses
};

} // namespace ns3

#endif // PRESTO_RMT_TABLE_H
