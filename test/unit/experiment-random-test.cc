/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/experiment-random.h"
#include "ns3/presto-input-error.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"

#include <gtest/gtest.h>
#include <vector>

using namespace ns3;

namespace
{

/// Restores ns-3's seed and run after a test that changes them.
class SeedGuard
{
  public:
    SeedGuard()
        : m_seed(RngSeedManager::GetSeed()),
          m_run(RngSeedManager::GetRun())
    {
    }

    ~SeedGuard()
    {
        RngSeedManager::SetSeed(m_seed);
        RngSeedManager::SetRun(m_run);
    }

  private:
    uint32_t m_seed;
    uint64_t m_run;
};

} // namespace

// The draws are those of an ns-3 UniformRandomVariable with the same stream number, seed and
// run: the module's pure logic is under ns-3's seed/run/stream scheme.
TEST(ExperimentRandom, DrawsAsAUniformRandomVariableWithThatStream)
{
    SeedGuard guard;
    for (uint64_t run : {1, 7})
    {
        RngSeedManager::SetSeed(3);
        RngSeedManager::SetRun(run);
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(42);
        ExperimentRandom r(42);
        EXPECT_EQ(r.GetSeed(), 3u);
        EXPECT_EQ(r.GetRun(), run);
        for (int i = 0; i < 1000; ++i)
        {
            ASSERT_EQ(r.Uniform(), u->GetValue()) << "draw " << i << " of run " << run;
        }
    }
}

// Pinned values: ns-3's MRG32k3a and the integer mapping floor(u * n) are fixed arithmetic,
// so these are the same with any standard library (std::uniform_int_distribution is not).
TEST(ExperimentRandom, IndicesArePinned)
{
    ExperimentRandom r(200000, 1, 1);
    std::vector<uint64_t> got;
    for (int i = 0; i < 8; ++i)
    {
        got.push_back(r.Index(1000));
    }
    const std::vector<uint64_t> pinned = {422, 370, 209, 135, 318, 239, 52, 925};
    EXPECT_EQ(got, pinned);
}

TEST(ExperimentRandom, RunAndStreamSelectTheSequence)
{
    ExperimentRandom a(5, 1, 1);
    ExperimentRandom b(5, 1, 1);
    ExperimentRandom otherRun(5, 1, 2);
    ExperimentRandom otherStream(6, 1, 1);
    const double x = a.Uniform();
    EXPECT_EQ(x, b.Uniform());
    EXPECT_NE(x, otherRun.Uniform());
    EXPECT_NE(x, otherStream.Uniform());
}

TEST(ExperimentRandom, MappingsStayInRange)
{
    ExperimentRandom r(9, 1, 1);
    std::vector<uint32_t> hits(3, 0);
    const std::vector<double> cumulative = {1.0, 1.0, 4.0}; // weights 1, 0, 3
    for (int i = 0; i < 4000; ++i)
    {
        EXPECT_LT(r.Index(7), 7u);
        EXPECT_GT(r.Exponential(2.0), 0.0);
        ++hits[r.Pick(cumulative)];
    }
    EXPECT_EQ(hits[1], 0u) << "a zero weight is never picked";
    EXPECT_NEAR(hits[2] / 4000.0, 0.75, 0.03);
    EXPECT_THROW(r.Index(0), PrestoInputError);
    EXPECT_THROW(r.Pick({}), PrestoInputError);
    EXPECT_THROW(ExperimentRandom(-1, 1, 1), PrestoInputError);
}
