/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_EXPERIMENT_RANDOM_H
#define PRESTO_EXPERIMENT_RANDOM_H

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

class RngStream;

/**
 * \ingroup presto
 * \brief Random numbers for the module's pure logic (bootstrap, Cora traffic and replay,
 * incast bursts) under ns-3's seed, run and stream numbers.
 *
 * It draws from ns-3's own generator, the MRG32k3a RngStream behind every
 * RandomVariableStream, at the fixed stream number \p stream exactly as
 * RandomVariableStream::SetStream(stream) does (stream 2^63 + stream, substream = run), so
 * that its draws are those of a UniformRandomVariable with that stream number. Unlike
 * creating a RandomVariableStream it takes no automatic stream index, so it does not shift
 * the streams of objects created after it. Integers and exponential gaps are mapped from
 * the U(0,1) draws by the formulas below, not by <random>'s distributions, whose output
 * differs between standard libraries: the same seed, run and stream give the same numbers
 * everywhere.
 */
class ExperimentRandom
{
  public:
    /**
     * \brief A stream under RngSeedManager's current seed and run.
     * \param stream the fixed stream number (>= 0)
     */
    explicit ExperimentRandom(int64_t stream);
    /**
     * \param stream the fixed stream number (>= 0)
     * \param seed ns-3 seed (RngSeedManager::GetSeed)
     * \param run ns-3 run number (RngSeedManager::GetRun)
     */
    ExperimentRandom(int64_t stream, uint32_t seed, uint64_t run);
    ~ExperimentRandom();
    ExperimentRandom(ExperimentRandom&&) noexcept;
    ExperimentRandom& operator=(ExperimentRandom&&) noexcept;
    ExperimentRandom(const ExperimentRandom&) = delete;
    ExperimentRandom& operator=(const ExperimentRandom&) = delete;

    /** \return the next U(0,1) draw (open interval), RngStream::RandU01 */
    double Uniform();
    /**
     * \param n the number of choices (>= 1)
     * \return floor(u * n) for the next draw u, at most n - 1: uniform in [0, n)
     */
    uint64_t Index(uint64_t n);
    /**
     * \param mean the mean (> 0)
     * \return -mean * log(u) for the next draw u: exponential with that mean
     */
    double Exponential(double mean);
    /**
     * \param cumulative increasing cumulative weights (last = total > 0)
     * \return the first i with u * total < cumulative[i] for the next draw u: index i
     * with probability proportional to its weight
     */
    std::size_t Pick(const std::vector<double>& cumulative);

    int64_t GetStream() const; //!< \return the stream number
    uint32_t GetSeed() const;  //!< \return the ns-3 seed
    uint64_t GetRun() const;   //!< \return the ns-3 run number

  private:
    std::unique_ptr<RngStream> m_rng; //!< ns-3's generator
    int64_t m_stream;                 //!< stream number
    uint32_t m_seed;                  //!< seed
    uint64_t m_run;                   //!< run
};

} // namespace ns3

#endif // PRESTO_EXPERIMENT_RANDOM_H
