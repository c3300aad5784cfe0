/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_EXECUTOR_H
#define PRESTO_CORA_EXECUTOR_H

#include "cora-allocator.h"
#include "cora-perf-model.h"
#include "cora-program.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/// Where a (block, aggregate) pair's state lives.
enum class CoraSide
{
    NIC, //!< in the SmartNIC's memory, processed by the NIC cores
    HOST //!< in host memory, processed by a host core
};

/// \param s side \return "nic" or "host"
std::string ToString(CoraSide s);

/**
 * \ingroup presto
 * \brief Resources and timing of the NIC + host system that runs a partitioned program.
 */
struct CoraExecutorConfig
{
    uint32_t hostCores{4};                //!< host cores running the host part
    double hostClockHz{3e9};              //!< host core clock, Hz
    double hostCyclesPerInstruction{1.0}; //!< host cycles per state-block instruction
    double hostPacketCycles{300};      //!< per packet that reaches the host (driver/poll), cycles
    uint32_t hostQueueCapacity{65536}; //!< packets per core queue (drop beyond)
    uint32_t nicQueueCapacity{512};    //!< packets waiting for the NIC (drop beyond)
    double nicRateScale{1.0};          //!< share of the modelled NIC rate given to this program
    int64_t nicLatencyNs{2000};        //!< NIC pipeline latency (no queueing), ns
    int64_t pcieLatencyNs{1000};       //!< one PCIe crossing, ns
    CoraNicLimits limits;              //!< memory (NIC table capacity), PCIe bandwidth
    CoraStrategy strategy{CoraStrategy::CORA}; //!< placement of new pairs + controller policy
    /**
     * NIC utilisation above which a new pair is placed on the host (CORA, FLOW strategies);
     * the controller's overload threshold.
     */
    double placementOverload{0.9};
    /**
     * With placementOverload: the NIC counts as overloaded for placement only if, over the
     * window, arrivals also found on average more than this share of nicQueueCapacity
     * waiting (the controller's queue signal); 0: utilisation alone (its idle signal)
     */
    double placementQueueShare{0.25};
    int64_t placementWindowNs{100000}; //!< "recent" NIC utilisation window for placement, ns
    int64_t utilBucketNs{10000};       //!< resolution of the NIC busy-time record, ns
    int64_t utilHistoryNs{100000000};  //!< how long the busy-time record is kept, ns
    /// \throws PrestoInputError naming the field on nonsense (zero cores, non-positive rates...)
    void Validate() const;
};

/**
 * \ingroup presto
 * \brief One packet offered to the executor.
 */
struct CoraPacket
{
    CoraFlow flow;        //!< its flow (branch, addresses, id)
    uint32_t bytes{1024}; //!< size, bytes (PCIe transfer time)
};

/// Why a packet was dropped.
enum class CoraDropReason
{
    NONE,           //!< not dropped
    NIC_OVERLOAD,   //!< the NIC queue was full
    HOST_OVERLOAD,  //!< the host core's queue was full
    LOCK_CONTENTION //!< the queue of a NIC lock was full
};

/// \param r reason \return "none", "nic_overload", "host_overload" or "lock_contention"
std::string ToString(CoraDropReason r);

/**
 * \ingroup presto
 * \brief What happened to one packet.
 */
struct CoraVerdict
{
    bool dropped{false};                         //!< the packet was dropped
    CoraDropReason reason{CoraDropReason::NONE}; //!< why
    int64_t departNs{0};                         //!< when processing ends (>= now), ns
    bool visitedHost{false};                     //!< some block ran on the host
    bool held{false};                            //!< arrived during a migration of one of its pairs
};

/**
 * \ingroup presto
 * \brief A completed migration of one pair.
 */
struct CoraMigrationEvent
{
    int64_t startNs{0};          //!< PREPARE (Migrate() call), ns
    int64_t commitNs{0};         //!< COMMIT: the destination owns the state, ns
    uint32_t block{0};           //!< block index
    uint64_t key{0};             //!< aggregate key
    CoraSide to{CoraSide::HOST}; //!< destination
    uint64_t heldPackets{0};     //!< packets that arrived during the migration
};

/**
 * \ingroup presto
 * \brief Counters of an executor.
 */
struct CoraExecutorStats
{
    uint64_t packets{0};          //!< packets offered to Process()
    uint64_t nicPackets{0};       //!< processed packets that touched only the NIC
    uint64_t hostPackets{0};      //!< processed packets that visited the host
    uint64_t nicDrops{0};         //!< dropped: NIC queue full
    uint64_t hostDrops{0};        //!< dropped: host core queue full
    uint64_t lockDrops{0};        //!< dropped: a NIC lock's queue full
    uint64_t heldPackets{0};      //!< processed packets held by a migration
    uint64_t migrationsToHost{0}; //!< migrations started towards the host
    uint64_t migrationsToNic{0};  //!< migrations started towards the NIC
    double nicBusyNs{0};          //!< NIC server busy time, ns
    double hostBusyCycles{0};     //!< host cycles spent, all cores
    uint64_t nicPairs{0};         //!< pairs owned by the NIC
    uint64_t hostPairs{0};        //!< pairs owned by the host
    /// NIC memory in use: pairs owned by the NIC plus entries reserved by migrations to it, bytes
    uint64_t nicMemoryBytes{0};
};

/**
 * \ingroup presto
 * \brief Runs a partitioned Cora program on a modelled NIC + host, packet by packet, and
 * migrates (block, aggregate) pairs between them at run time. Pure logic: times are given
 * by the caller and departures are computed analytically.
 *
 * Path of a packet. Its branch visits its blocks (CoraProgram::GetBranchBlocks) in order;
 * each (block, CoraAggregateKey(block.key, flow)) pair is on the NIC or the host.
 * - The NIC is one FIFO server (stateless instructions always run there): service time
 *   1e9 / (nicRateScale x PredictLockFreePps(NicLoad(branch, NIC blocks of this packet)))
 *   ns, at most nicQueueCapacity packets in the system (beyond: NIC_OVERLOAD drop; the NIC
 *   has no backpressure, which is why state partition drops in the paper). NIC work of
 *   blocks after a host block (the return pass) is charged in this one service.
 * - A locked NIC block (its locks: the sum of its elements' locks) adds a FIFO per lock
 *   (CoraLockIndex, as the allocator: an aggregate's flows share a lock; a GLOBAL block
 *   hashes the flow id), serving at PredictPerLockPps(NicLoad(branch, only that block)),
 *   same capacity (LOCK_CONTENTION drop). The NIC stage ends when all are done, plus
 *   nicLatencyNs.
 * - If a block runs on the host: PCIe (pcieLatencyNs + bytes / PCIe bandwidth), then the
 *   flow's core (hash(flow id) mod hostCores, RSS keeps per-flow order), a FIFO of
 *   hostQueueCapacity packets (HOST_OVERLOAD drop), service (hostPacketCycles + sum of
 *   host blocks' instructions x hostCyclesPerInstruction) / hostClockHz. If a NIC block
 *   follows a host block, the packet crosses PCIe back and the NIC pipeline again.
 * - A dropped packet changes no state.
 *
 * Placement of a pair seen for the first time: on the NIC if the plan says so (its
 * nicPairs or wholeBlockOnNic); otherwise CORA: NIC if its entry fits in the free NIC memory
 * and the NIC was not overloaded over the last placementWindowNs (utilisation above
 * placementOverload and, with placementQueueShare > 0, a mean queue above that share of
 * nicQueueCapacity), else host; STATE_PARTITION: host; FLOW_PARTITION: the side of the flow's hash
 * group (CoraFlowGroup, as the allocator), fixed by the plan or else by the first placement in the
 * group by the CORA rule (a NIC group with the NIC memory full puts the pair on the host). Memory
 * is accounted per pair (bytesPerAggregate, the entries in use), also for wholeBlockOnNic blocks,
 * for which the allocator reserves the declared table instead.
 *
 * Three-step migration of one pair (Cora's Figure 11):
 * 1. PREPARE (Migrate()): the pair is marked migrating; its packets arriving from now on are
 *    held (counted) for the destination. NIC memory is reserved when moving to the NIC.
 * 2. DRAIN + COPY: a marker follows the last packet of the pair at the source; when it has
 *    left (the pair's last departure), the state entry (bytesPerAggregate) crosses PCIe:
 *    commit = max(now, last departure) + pcieLatencyNs + bytes / PCIe bandwidth.
 * 3. COMMIT: the destination owns the state (and its packet counter); held packets run
 *    there in arrival order, none before commit. Departures being analytic, a held packet is
 *    set aside and its work at the destination ends no earlier than commit + its service
 *    time (it does not block the destination's queue while it waits).
 * Commits are applied at the first call with a time >= commit (Process, Migrate, AdvanceTo);
 * the migration callback fires then. Every flow's departures are non-decreasing.
 */
class CoraExecutor
{
  public:
    /**
     * \param program a finalized program (must outlive the executor)
     * \param model NIC performance model (copied)
     * \param cfg configuration
     * \throws PrestoInputError if the program is not finalized or cfg is invalid
     */
    CoraExecutor(const CoraProgram& program, const CoraPerfModel& model, CoraExecutorConfig cfg);

    /**
     * \brief Initial placement: pairs seen from now on follow the plan (pairs already placed
     * keep their side).
     * \param plan a plan for this program
     * \throws PrestoInputError if wholeBlockOnNic is neither empty nor one flag per block
     */
    void SetPlan(const CoraPlan& plan);
    /**
     * \param nowNs arrival time, ns (non-decreasing across calls)
     * \param p the packet
     * \return its fate and departure time
     * \throws PrestoInputError on an unknown branch or a time going backwards
     */
    CoraVerdict Process(int64_t nowNs, const CoraPacket& p);
    /**
     * \brief Start the three-step migration of one pair.
     * \param nowNs time, ns (non-decreasing)
     * \param block block index
     * \param key aggregate key
     * \param to destination
     * \return false if not possible: unknown pair, already there or migrating, or (to NIC)
     *         no free NIC memory for its entry
     * \throws PrestoInputError if nowNs is before a time already seen
     */
    bool Migrate(int64_t nowNs, uint32_t block, uint64_t key, CoraSide to);
    /**
     * \brief Apply the commits due by nowNs (fires the migration callback).
     * \param nowNs time, ns (non-decreasing)
     * \throws PrestoInputError if nowNs is before a time already seen
     */
    void AdvanceTo(int64_t nowNs);
    /// \return the earliest pending commit time, ns, or -1 if no migration is in flight
    int64_t GetNextCommitNs() const;
    /**
     * \brief Resize the NIC table at run time. Nothing is evicted here: the controller
     * evicts the smallest pairs when the memory in use exceeds the new capacity.
     * \param bytes new NIC memory capacity, bytes
     */
    void SetNicMemoryBytes(uint64_t bytes);
    /// \return NIC memory capacity, bytes
    uint64_t GetNicMemoryCapacity() const;
    /// \return the counters
    const CoraExecutorStats& GetStats() const;
    /**
     * \param fromNs window start, ns \param toNs window end, ns (> fromNs)
     * \return fraction of the window the NIC server was busy, in [0, 1] (0 for an empty window)
     */
    double GetNicUtilisation(int64_t fromNs, int64_t toNs) const;
    /**
     * \param fromNs window start, ns \param toNs window end, ns
     * \return NIC work offered by the packets that arrived in the window, including dropped
     *         ones, as a fraction of the window (may exceed 1 under overload)
     */
    double GetNicOfferedLoad(int64_t fromNs, int64_t toNs) const;
    /**
     * \param fromNs window start, ns \param toNs window end, ns
     * \return packets a packet arriving in the window found in the NIC server (waiting or in
     *         service), on average (a dropped one found it full); 0 for no arrival
     */
    double GetNicMeanQueue(int64_t fromNs, int64_t toNs) const;
    /**
     * \param block block index \param key aggregate key
     * \return the side owning the pair's state (the source until a migration commits);
     *         HOST for an unknown pair
     */
    CoraSide GetSide(uint32_t block, uint64_t key) const;
    /// \param block block index \param key aggregate key \return true if the pair was seen
    bool HasPair(uint32_t block, uint64_t key) const;
    /// \param block block index \param key aggregate key \return true while it migrates
    bool IsMigrating(uint32_t block, uint64_t key) const;
    /**
     * \param block block index \param key aggregate key
     * \return packets the pair's state has counted (the counter moves with the state)
     */
    uint64_t GetStateCount(uint32_t block, uint64_t key) const;
    /**
     * \param block block index \param key aggregate key
     * \return NIC time one packet of the pair saves when the block leaves the NIC (or costs
     *         when it joins it), ns: service with the block alone on the NIC minus service
     *         with no block, for the pair's last branch
     */
    double GetPairNicCostNs(uint32_t block, uint64_t key) const;
    /// \param block block index \return NIC memory one aggregate of it takes, bytes
    uint64_t GetPairBytes(uint32_t block) const;
    /// \param cb called when a migration commits
    void SetMigrationCallback(std::function<void(const CoraMigrationEvent&)> cb);

    /**
     * Host cores outside the executor (a node's HostCpu, shared with the rest of the host's
     * work): given a flow, when its packet reaches the host (ns) and the cycles of its
     * host-resident part, return when that work is done (ns), or a negative value when the
     * host refuses the packet (a full backlog: dropped as HOST_OVERLOAD).
     */
    using HostServer = std::function<double(uint64_t flow, double arrivalNs, double cycles)>;
    /**
     * \brief Serve the host-resident part on these cores instead of the executor's own
     * hostCores FIFOs (set before the first packet).
     * \param server the host's cores
     */
    void SetHostServer(HostServer server);
    /// \param side a side \return the pairs it owns, sorted by (block, key)
    std::vector<std::pair<uint32_t, uint64_t>> GetPairs(CoraSide side) const;

    /// \param group flow group \return its side for new flows (FLOW_PARTITION)
    CoraSide GetGroupSide(uint32_t group) const;
    /// \param group flow group \param side side new flows of the group are placed on
    void SetGroupSide(uint32_t group, CoraSide side);
    /// \param group flow group \return pairs touched by the group's flows, sorted
    std::vector<std::pair<uint32_t, uint64_t>> GetGroupPairs(uint32_t group) const;
    /// \param block block \param key key \return bit g set if flows of group g touch the pair
    uint64_t GetPairGroups(uint32_t block, uint64_t key) const;
    /**
     * \brief Forget a pair whose flows have ended (a closed connection's table entry): its
     * NIC memory is freed. A pair that is migrating is released when its migration commits.
     * \param nowNs time (non-decreasing) \param block block \param key aggregate key
     * \return false if the pair is unknown
     */
    bool Release(int64_t nowNs, uint32_t block, uint64_t key);
    /// \param block block \param key aggregate key \return packets of it a full lock dropped
    uint64_t GetPairLockDrops(uint32_t block, uint64_t key) const;
    /**
     * \return entries of the NIC busy-time record: at most a few per packet in the system
     * and per bucket of history, however long a packet holds the NIC
     */
    std::size_t GetBusyRecordEntries() const;
    /// \return the configuration
    const CoraExecutorConfig& GetConfig() const;
    /// \return the program
    const CoraProgram& GetProgram() const;

  private:
    /// An analytic FIFO server: departures of the packets still in the system.
    struct Fifo
    {
        double busyUntil{0};        //!< when the last accepted packet leaves, ns
        std::deque<double> departs; //!< departures (non-decreasing) not yet before "now"
    };

    /// State of one (block, aggregate) pair.
    struct Pair
    {
        CoraSide side{CoraSide::HOST}; //!< owner
        uint64_t count{0};             //!< packets its state counted
        double lastDepartNs{0};        //!< latest departure of a packet that touched it
        bool migrating{false};         //!< between PREPARE and COMMIT
        CoraSide to{CoraSide::HOST};   //!< destination while migrating
        int64_t startNs{0};            //!< PREPARE time
        int64_t commitNs{0};           //!< COMMIT time
        uint64_t held{0};              //!< packets held by the current migration
        uint32_t lastBranch{0};        //!< branch of the last packet (cost estimate)
        uint64_t groups{0};            //!< flow groups of the flows touching it
        bool releaseOnCommit{false};   //!< released while migrating: erase at commit
        uint64_t lockDrops{0};         //!< packets its NIC lock queue dropped
    };

    /// Service times of one (branch, NIC block set).
    struct Rates
    {
        double nicServiceNs{0}; //!< NIC FIFO service, ns
    };

    using PairKey = std::pair<uint32_t, uint64_t>; //!< (block, aggregate key)

    /// One packet's walk through its branch: the pairs it touches and its stage holds.
    struct PacketPath
    {
        /// \param blocks blocks of the program \param branch blocks of the packet's branch
        PacketPath(const std::vector<CoraStateBlock>& blocks, const std::vector<uint32_t>& branch)
            : blocks(blocks),
              branch(branch),
              nicBlocks(blocks.size(), false)
        {
        }

        const std::vector<CoraStateBlock>& blocks; //!< blocks of the program
        const std::vector<uint32_t>& branch;       //!< blocks of the packet's branch, in order
        std::vector<Pair*> pairs;                  //!< per block of the branch: its pair
        std::vector<CoraSide> sides; //!< per block of the branch: its side for this packet
        std::vector<bool> nicBlocks; //!< per block of the program: on the NIC for this packet
        bool held{false};            //!< a pair of the path is migrating
        bool visitsHost{false};      //!< a block of the path is on the host
        bool returns{false};         //!< NIC blocks follow the first host block
        double holdNic{0};           //!< NIC first pass not before, ns (commit)
        double holdHost{0};          //!< host stage not before, ns
        double holdReturn{0};        //!< NIC return pass not before, ns
        double hostInstructions{0};  //!< host instructions of the host blocks
        std::vector<std::pair<Fifo*, double>> locks; //!< NIC lock servers, service time
    };

    /// The host stage of one packet.
    struct HostVisit
    {
        double arrivalNs{0}; //!< when it reaches the host, ns
        double cycles{0};    //!< host cycles it needs
        double doneNs{-1};   //!< with a host server: when it is served, ns
        Fifo* core{nullptr}; //!< without one: the executor's core FIFO it goes to
    };

    /// \param branch branch \param nicBlocks NIC flags per block \return cached rates
    const Rates& GetRates(uint32_t branch, const std::vector<bool>& nicBlocks) const;
    /// \param branch branch \param block locked NIC block \return one lock's service time, ns
    double GetLockServiceNs(uint32_t branch, uint32_t block) const;
    /// \param flow flow \throws PrestoInputError if its branch is not in the program
    void CheckBranch(const CoraFlow& flow) const;
    /// \param k pair \param flow flow \param nowNs time \return the pair, placed if new
    Pair& FindOrPlace(const PairKey& k, const CoraFlow& flow, int64_t nowNs);
    /// \param nowNs time \param flow flow \param path filled: pairs, sides and stage holds
    void ResolvePath(int64_t nowNs, const CoraFlow& flow, PacketPath& path);
    /// \param flow flow \param now time \param path its path: the locks it takes are added
    /// \return false if a full lock queue drops the packet (counted)
    bool AdmitLocks(const CoraFlow& flow, double now, PacketPath& path);
    /// \param flowId flow \param now time \param host its host stage (core or doneNs set)
    /// \return false if the host refuses the packet
    bool AdmitHost(uint64_t flowId, double now, HostVisit& host);
    /// \param arrivalNs NIC arrival \param rates service \return NIC departure (busy counted)
    double ServeNic(double arrivalNs, const Rates& rates);
    /// \param path accepted packet's path \param departNs its departure: count it
    void CountAccepted(const PacketPath& path, int64_t departNs);
    /// \param k pair: remove it and its memory and group entries
    void Erase(const PairKey& k);
    /// \param k pair \param flow flow of the first packet \param now time \return its side
    CoraSide Place(const PairKey& k, const CoraFlow& flow, int64_t now);
    /// \param q fifo \param t arrival \return packets in the system at t
    static std::size_t Occupancy(const Fifo& q, double t);
    /// \param q fifo \param now time: forget departures before it
    static void Prune(Fifo& q, double now);
    /// \param q fifo \param t arrival \param s service \return departure
    static double Serve(Fifo& q, double t, double s);
    /// \param from start \param to end: add NIC busy time, ns
    void AddBusy(double from, double to);
    /// \param first first whole bucket \param end one past the last: add a run of busy buckets
    void AddBusyRun(int64_t first, int64_t end);
    /// \param rec record \param from window \param to window \return sum over the window
    double WindowSum(const std::map<int64_t, double>& rec, int64_t from, int64_t to) const;
    /// \param from window \param to window \return busy ns of the runs inside the window
    double BusyRunSum(int64_t from, int64_t to) const;
    /// \param now time: drop busy-time buckets older than the history
    void PruneHistory(int64_t now);
    /// \param bytes entry size \param now time \return true if the entry fits and the NIC is not
    /// overloaded
    bool NicAccepts(uint64_t bytes, int64_t now) const;

    const CoraProgram& m_program;                   //!< program
    CoraPerfModel m_model;                          //!< NIC performance model
    CoraExecutorConfig m_cfg;                       //!< configuration
    CoraPlan m_plan;                                //!< placement plan
    std::map<PairKey, Pair> m_pairs;                //!< every pair seen
    std::vector<std::vector<PairKey>> m_groupPairs; //!< flow group -> pairs of its flows
    std::vector<int> m_groupSide;                   //!< flow group -> -1 unset, 0 NIC, 1 HOST
    Fifo m_nic;                                     //!< NIC server
    std::map<std::pair<uint32_t, uint32_t>, Fifo> m_locks; //!< (block, lock) -> server
    std::vector<Fifo> m_cores;                             //!< host cores
    HostServer m_hostServer;                               //!< external host cores, if set
    mutable std::map<std::pair<uint32_t, std::vector<bool>>, Rates> m_rates; //!< rate cache
    std::map<int64_t, double> m_busy;          //!< bucket -> NIC busy ns (partly busy buckets)
    std::map<int64_t, int64_t> m_busyRuns;     //!< first bucket -> one past the last, all busy
    std::map<int64_t, double> m_offered;       //!< bucket -> NIC work offered, ns
    std::map<int64_t, double> m_queued;        //!< bucket -> NIC queue found by arrivals, sum
    std::map<int64_t, double> m_arrived;       //!< bucket -> packets offered to the NIC
    std::multimap<int64_t, PairKey> m_pending; //!< commit time -> migrating pair
    int64_t m_now{0};                          //!< latest time seen
    CoraExecutorStats m_stats;                 //!< counters
    std::function<void(const CoraMigrationEvent&)> m_onMigration; //!< commit callback
    std::vector<double> m_blockInstructions; //!< per block: host instructions per packet
    std::vector<uint32_t> m_blockLocks;      //!< per block: its locks (sum over its elements)
    mutable std::map<std::pair<uint32_t, uint32_t>, double> m_lockServiceNs; //!< (branch, block)
};

} // namespace ns3

#endif // PRESTO_CORA_EXECUTOR_H
