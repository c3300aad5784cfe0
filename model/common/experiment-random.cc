/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "experiment-random.h"

#include "ns3/presto-input-error.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/rng-stream.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ns3
{

ExperimentRandom::ExperimentRandom(int64_t stream)
    : ExperimentRandom(stream, RngSeedManager::GetSeed(), RngSeedManager::GetRun())
{
}

ExperimentRandom::ExperimentRandom(int64_t stream, uint32_t seed, uint64_t run)
    : m_stream(stream),
      m_seed(seed),
      m_run(run)
{
    if (stream < 0)
    {
        throw PrestoInputError("ExperimentRandom: stream number " + std::to_string(stream) +
                               " must be >= 0");
    }
    // as RandomVariableStream::SetStream: the upper 2^63 streams are the fixed ones
    const uint64_t target = (uint64_t{1} << 63) + static_cast<uint64_t>(stream);
    m_rng = std::make_unique<RngStream>(seed, target, run);
}

ExperimentRandom::~ExperimentRandom() = default;
ExperimentRandom::ExperimentRandom(ExperimentRandom&&) noexcept = default;
ExperimentRandom& ExperimentRandom::operator=(ExperimentRandom&&) noexcept = default;

double
ExperimentRandom::Uniform()
{
    return m_rng->RandU01();
}

uint64_t
ExperimentRandom::Index(uint64_t n)
{
    if (n == 0)
    {
        throw PrestoInputError("ExperimentRandom::Index: no choices (n = 0)");
    }
    const auto i = static_cast<uint64_t>(Uniform() * static_cast<double>(n));
    return std::min(i, n - 1);
}

double
ExperimentRandom::Exponential(double mean)
{
    return -mean * std::log(Uniform());
}

std::size_t
ExperimentRandom::Pick(const std::vector<double>& cumulative)
{
    if (cumulative.empty() || !(cumulative.back() > 0))
    {
        throw PrestoInputError("ExperimentRandom::Pick: weights must sum to more than 0");
    }
    const double x = Uniform() * cumulative.back();
    const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), x);
    return std::min<std::size_t>(it - cumulative.begin(), cumulative.size() - 1);
}

int64_t
ExperimentRandom::GetStream() const
{
    return m_stream;
}

uint32_t
ExperimentRandom::GetSeed() const
{
    return m_seed;
}

uint64_t
ExperimentRandom::GetRun() const
{
    return m_run;
}

} // namespace ns3
