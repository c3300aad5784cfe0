/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_COLLECTIVE_SCHEDULE_H
#define PRESTO_COLLECTIVE_SCHEDULE_H

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Which collective the ranks run.
 */
enum class CollectiveKind
{
    ALL_REDUCE, //!< ring all-reduce: reduce-scatter then all-gather, 2(N-1) steps
    ALL_TO_ALL, //!< every rank sends a block to every other rank, one step
};

/**
 * \ingroup presto
 * \brief How ranks are placed on hosts.
 */
enum class CollectivePlacement
{
    LINEAR, //!< rank i on host i
    SPREAD, //!< round-robin over the racks (ToRs): rank i on the next free host of rack i mod R
    RANDOM, //!< N distinct hosts drawn from the run's seed (a SplitMix64 shuffle)
};

/**
 * \ingroup presto
 * \brief A collective workload: what every rank sends to whom, step by step. Pure logic.
 *
 * Ring all-reduce of S bytes on N ranks (the reduce-scatter and all-gather of NCCL's ring):
 * the buffer is cut into N chunks, chunk c of floor(S/N) bytes, the last one (c = N-1)
 * carrying the remainder S mod N as well. In step k (0 <= k < 2(N-1)) rank r sends one
 * chunk to rank (r+1) mod N: chunk (r-k) mod N in the reduce-scatter steps k < N-1, chunk
 * (r+1-(k-N+1)) mod N in the all-gather steps (rank r owns the reduced chunk (r+1) mod N
 * after the reduce-scatter). So rank r receives in step k the chunk its predecessor sends.
 *
 * All-to-all of S bytes on N ranks: one step; rank r's buffer is cut into N blocks as the
 * ring's chunks (block N-1 carries the remainder), and block d goes to rank d (block r stays
 * local).
 *
 * Dependency model (what the simulation's driver enforces, CollectiveEndpoint): a rank
 * starts step k > 0 of an iteration once (a) all the bytes it expects in step k-1 arrived
 * (from its predecessor in the ring; from every other rank in the all-to-all) and (b) it
 * has handed all of its own step k-1 bytes to its sockets. The reduction itself takes no
 * time. A rank starts step 0 of iteration i > 0 a compute gap after it completed the last
 * step of iteration i-1 (no barrier among the ranks: each rank's compute follows its own
 * collective), and every rank starts step 0 of iteration 0 at the same instant.
 */
class CollectiveSchedule
{
  public:
    /** One transfer of a step: `bytes` from rank `src` to rank `dst`. */
    struct Transfer
    {
        uint32_t src{0};   //!< sending rank
        uint32_t dst{0};   //!< receiving rank
        uint64_t bytes{0}; //!< how many
    };

    /**
     * \param kind the collective
     * \param ranks N (>= 2)
     * \param bytes S, each rank's buffer (>= ranks, so that every chunk has a byte)
     * Throws PrestoInputError otherwise.
     */
    CollectiveSchedule(CollectiveKind kind, uint32_t ranks, uint64_t bytes);

    /** \return the collective */
    CollectiveKind GetKind() const;
    /** \return N */
    uint32_t GetRanks() const;
    /** \return S */
    uint64_t GetBytes() const;
    /** \return steps per iteration: 2(N-1) for the ring, 1 for the all-to-all */
    uint32_t GetSteps() const;

    /**
     * \param c a chunk (block) index, 0..N-1
     * \return its bytes: floor(S/N), the last one plus S mod N
     */
    uint64_t ChunkBytes(uint32_t c) const;

    /**
     * \param step 0..GetSteps()-1
     * \param rank 0..N-1
     * \return the ring's chunk index rank sends in step (all-reduce only)
     */
    uint32_t RingChunk(uint32_t step, uint32_t rank) const;

    /**
     * \param step 0..GetSteps()-1
     * \param rank 0..N-1
     * \return what rank sends in step, in the order it writes them
     */
    std::vector<Transfer> Sends(uint32_t step, uint32_t rank) const;

    /**
     * \param step 0..GetSteps()-1
     * \param rank 0..N-1
     * \return what rank receives in step (the step is complete at the rank when all arrived)
     */
    std::vector<Transfer> Receives(uint32_t step, uint32_t rank) const;

    /**
     * \return the ordered (src, dst) rank pairs that carry data, each once: the
     * connections the collective needs (N for the ring, N(N-1) for the all-to-all)
     */
    std::vector<std::pair<uint32_t, uint32_t>> Pairs() const;

    /** \return the bytes every rank sends per iteration (2(N-1)/N x S for the ring) */
    uint64_t BytesSentPerRank(uint32_t rank) const;

  private:
    CollectiveKind m_kind; //!< the collective
    uint32_t m_ranks;      //!< N
    uint64_t m_bytes;      //!< S
};

/**
 * \ingroup presto
 * \param name "allreduce" or "alltoall"
 * \return the kind; throws PrestoInputError naming --workload otherwise
 */
CollectiveKind CollectiveKindFromString(const std::string& name);

/**
 * \ingroup presto
 * \param name "linear", "spread" or "random"
 * \return the policy; throws PrestoInputError naming --placement otherwise
 */
CollectivePlacement CollectivePlacementFromString(const std::string& name);

/**
 * \ingroup presto
 * \brief Place N ranks on distinct hosts. Pure logic.
 * \param ranks N (1..hosts)
 * \param rackOfHost by host index, its rack (the ToR or edge switch it hangs off); any ids
 * \param policy the policy
 * \param seed the run's seed (RANDOM only)
 * \return by rank, its host index
 */
std::vector<uint32_t> PlaceRanks(uint32_t ranks,
                                 const std::vector<uint32_t>& rackOfHost,
                                 CollectivePlacement policy,
                                 uint64_t seed);

/**
 * \ingroup presto
 * \brief One step of one rank in one iteration, as the simulation measured it.
 */
struct CollectiveStepRecord
{
    uint32_t iteration{0}; //!< iteration
    uint32_t step{0};      //!< step within it
    uint32_t rank{0};      //!< rank
    int64_t startNs{-1};   //!< the rank started the step (its first byte written), ns
    /// the step completed at the rank: what it expects arrived and its own bytes were
    /// written (the later of the two; what the next step waits for), ns; -1: never
    int64_t endNs{-1};
};

/**
 * \ingroup presto
 * \brief What a collective run's records add up to. Pure logic.
 */
struct CollectiveSummary
{
    bool complete{false};                //!< every record has an end
    int64_t jctNs{0};                    //!< first start to last end, all iterations, ns
    std::vector<int64_t> iterationJctNs; //!< per iteration: its first start to its last end
    double stepP50Ns{0};                 //!< step durations (end - start), all records: median, ns
    double stepP99Ns{0};                 //!< 99th percentile, ns
    double stepMaxNs{0};                 //!< largest, ns
    /// by step index (within an iteration): {p50, p99} of that step's durations, ns
    std::vector<std::pair<double, double>> perStepNs;
    uint32_t slowestRank{0};     //!< the rank whose last step ended last
    int64_t slowestRankEndNs{0}; //!< when, ns

    /**
     * \param records every (iteration, step, rank) record
     * \return the summary (complete false when a record has no end)
     */
    static CollectiveSummary Of(const std::vector<CollectiveStepRecord>& records);
};

} // namespace ns3

#endif // PRESTO_COLLECTIVE_SCHEDULE_H
