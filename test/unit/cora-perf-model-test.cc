/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/cora-perf-model.h"
#include "ns3/presto-input-error.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>

using namespace ns3;

namespace
{

const CoraAccessKind EMEM_READ{CoraMemoryType::EMEM, CoraMemoryOp::READ, CoraAccessMode::BULK, 4};
const CoraAccessKind EMEM_ATOMIC_READ{CoraMemoryType::EMEM,
                                      CoraMemoryOp::READ,
                                      CoraAccessMode::ATOMIC,
                                      4};
const CoraAccessKind IMEM_READ{CoraMemoryType::IMEM, CoraMemoryOp::READ, CoraAccessMode::BULK, 4};
const CoraAccessKind IMEM_WRITE{CoraMemoryType::IMEM, CoraMemoryOp::WRITE, CoraAccessMode::BULK, 4};
const CoraAccessKind IMEM_ATOMIC_READ{CoraMemoryType::IMEM,
                                      CoraMemoryOp::READ,
                                      CoraAccessMode::ATOMIC,
                                      4};

/// Relative error of x against the reference figure ref.
double
RelErr(double x, double ref)
{
    return std::fabs(x - ref) / ref;
}

CoraProgramLoad
Load(std::initializer_list<CoraAccessCount> acc, double stateless = 0)
{
    CoraProgramLoad l;
    l.statelessInstructions = stateless;
    l.accesses = acc;
    return l;
}

/// The lock calibration program: 2 lock-word accesses per packet, spread over `locks` locks.
CoraProgramLoad
LockLoad(uint32_t locks)
{
    CoraProgramLoad l;
    l.distinctLocks = locks;
    l.lockAccessesPerPacket = 2;
    return l;
}

/// A toy profile with b = 0 (pure roofline) so that rates have closed forms:
/// a = 0.1 us (10 Mpps); c = 0.1 us for reads, 0.3 us for writes and atomics.
CoraPerfProfile
ToyProfile()
{
    CoraPerfProfile p("toy");
    p.SetStatelessCurve({0.1, 0.0, 0.001});
    p.SetCurve(IMEM_READ, {0.1, 0.0, 0.1});
    p.SetCurve(IMEM_WRITE, {0.1, 0.0, 0.3});
    p.SetCurve(IMEM_ATOMIC_READ, {0.1, 0.0, 0.3});
    p.SetCurve(EMEM_READ, {0.1, 0.0, 0.1});
    p.SetCurve(EMEM_ATOMIC_READ, {0.1, 0.0, 0.3});
    return p;
}

} // namespace

TEST(CoraPerfModel, CurveLimits)
{
    CoraCurveParams p{0.05, 2.0, 0.01};
    EXPECT_DOUBLE_EQ(CoraPerfModel::CurveMpps(p, 0), 20.0);
    // Far above the knee the memory-op throughput i*T approaches the roof 1/c.
    EXPECT_LT(RelErr(1e6 * CoraPerfModel::CurveMpps(p, 1e6), 100.0), 1e-3);
    // Below the knee the queuing penalty hides most of the access cost.
    EXPECT_GT(CoraPerfModel::CurveMpps(p, 0.5), 1.0 / (0.05 + 0.01 * 0.5 * 0.02));
}

TEST(CoraPerfModel, NetronomeCalibrationFigures)
{
    CoraPerfModel m(CoraPerfProfile::Netronome());
    EXPECT_LT(RelErr(m.PredictPps(Load({})), 28e6), 0.05);
    EXPECT_LT(RelErr(m.PredictPps(Load({}, 400)), 20e6), 0.05);
    EXPECT_LT(RelErr(m.PredictPps(Load({{EMEM_READ, 10}})), 15e6), 0.05);
    EXPECT_LT(RelErr(m.PredictLockFreePps(LockLoad(1)), 23.33e6), 0.05);
    EXPECT_LT(RelErr(m.PredictPps(LockLoad(1)), 0.45e6), 0.05);
    EXPECT_LT(RelErr(m.PredictPerLockPps(LockLoad(1)), 0.45e6), 0.05);
}

TEST(CoraPerfModel, LockThroughputLinearUpToLockFreeBound)
{
    CoraPerfModel m(CoraPerfProfile::Netronome());
    const double one = m.PredictPps(LockLoad(1));
    const double bound = m.PredictLockFreePps(LockLoad(1));
    double prev = 0;
    bool reachedBound = false;
    for (uint32_t l = 1; l <= 200; ++l)
    {
        const double t = m.PredictPps(LockLoad(l));
        EXPECT_GE(t, prev);
        EXPECT_LE(t, bound * (1 + 1e-12));
        if (l * one < bound)
        {
            EXPECT_NEAR(t, l * one, 1e-6 * t) << l << " locks";
        }
        else
        {
            EXPECT_NEAR(t, bound, 1e-6 * bound) << l << " locks";
            reachedBound = true;
        }
        prev = t;
    }
    EXPECT_TRUE(reachedBound);
    // With 23.33/0.45 ~ 51.8 the 52nd lock is the first to hit the bound.
    EXPECT_LT(m.PredictPps(LockLoad(51)), bound);
    EXPECT_DOUBLE_EQ(m.PredictPps(LockLoad(52)), bound);
}

TEST(CoraPerfModel, HarmonicWithinOneEngine)
{
    CoraPerfModel m(ToyProfile());
    // IMEM bulk read + IMEM bulk write share the IMEM bulk engine:
    // 1 / (a + c1 i1 + c2 i2) = 1 / (0.1 + 0.1 + 0.3) = 2 Mpps.
    const double t = m.PredictPps(Load({{IMEM_READ, 1}, {IMEM_WRITE, 1}}));
    EXPECT_NEAR(t, 1e6 / (0.1 + 0.1 + 0.3), 1e-6);
    // It is slower than either access alone (a min would give 2.5 Mpps).
    EXPECT_LT(t, m.PredictPps(Load({{IMEM_WRITE, 1}})));
}

TEST(CoraPerfModel, MinAcrossImemEngines)
{
    CoraPerfModel m(ToyProfile());
    // Bulk and atomic IMEM are different engines: min(1/0.2, 1/0.4) = 2.5 Mpps.
    const double t = m.PredictPps(Load({{IMEM_READ, 1}, {IMEM_ATOMIC_READ, 1}}));
    EXPECT_NEAR(t, 1e6 * std::min(1 / 0.2, 1 / 0.4), 1e-6);
    EXPECT_DOUBLE_EQ(t, m.PredictPps(Load({{IMEM_ATOMIC_READ, 1}})));
}

TEST(CoraPerfModel, HarmonicAcrossEmemModes)
{
    CoraPerfModel m(ToyProfile());
    // Same pair of curves as the IMEM min case, but on EMEM: harmonic, 2 Mpps, not 2.5.
    const double t = m.PredictPps(Load({{EMEM_READ, 1}, {EMEM_ATOMIC_READ, 1}}));
    EXPECT_NEAR(t, 1e6 / (0.1 + 0.1 + 0.3), 1e-6);
}

TEST(CoraPerfModel, MinOfImemEmemAndStateless)
{
    CoraPerfModel m(ToyProfile());
    // IMEM read x1: 5 Mpps; EMEM read x2: 1/(0.1+0.2) = 3.33 Mpps; result is the min.
    const double t = m.PredictPps(Load({{IMEM_READ, 1}, {EMEM_READ, 2}}));
    EXPECT_NEAR(t, 1e6 / 0.3, 1e-6);
    // 100 stateless instructions: 1/(0.1+0.1) = 5 Mpps; alone they bound the rate, with the
    // EMEM reads the slower EMEM group wins.
    EXPECT_NEAR(m.PredictPps(Load({}, 100)), 5e6, 1e-6);
    EXPECT_NEAR(m.PredictPps(Load({{EMEM_READ, 2}}, 100)), 1e6 / 0.3, 1e-6);
    EXPECT_NEAR(m.PredictPps(Load({{EMEM_READ, 0.5}}, 400)), 1e6 / 0.5, 1e-6);
}

TEST(CoraPerfModel, RepeatedKindsAreSummed)
{
    CoraPerfModel m(CoraPerfProfile::Netronome());
    EXPECT_DOUBLE_EQ(m.PredictPps(Load({{EMEM_READ, 3}, {EMEM_READ, 4}})),
                     m.PredictPps(Load({{EMEM_READ, 7}})));
}

TEST(CoraPerfModel, MonotonicDecreaseWithMoreAccesses)
{
    for (const auto& prof : {CoraPerfProfile::Netronome(), CoraPerfProfile::BlueField()})
    {
        CoraPerfModel m(prof);
        for (auto mem :
             {CoraMemoryType::CLS, CoraMemoryType::CTM, CoraMemoryType::IMEM, CoraMemoryType::EMEM})
        {
            for (auto mode : {CoraAccessMode::BULK, CoraAccessMode::ATOMIC})
            {
                for (uint32_t w : {4u, 32u, 128u})
                {
                    CoraAccessKind k{mem, CoraMemoryOp::WRITE, mode, w};
                    double prev = m.PredictPps(Load({}));
                    for (double n = 0.5; n <= 64; n *= 2)
                    {
                        const double t = m.PredictPps(Load({{k, n}}));
                        EXPECT_LT(t, prev) << prof.GetName() << " " << k.ToString() << " " << n;
                        prev = t;
                    }
                    // Adding this access to an EMEM-bound program never speeds it up.
                    EXPECT_LE(m.PredictPps(Load({{EMEM_READ, 5}, {k, 1}})),
                              m.PredictPps(Load({{EMEM_READ, 5}})));
                }
            }
        }
        double prev = m.PredictPps(Load({}));
        for (double s = 50; s <= 3200; s *= 2)
        {
            const double t = m.PredictPps(Load({}, s));
            EXPECT_LT(t, prev) << prof.GetName() << " stateless " << s;
            prev = t;
        }
    }
}

TEST(CoraPerfModel, WiderAndAtomicAccessesCostMore)
{
    CoraPerfModel m(CoraPerfProfile::Netronome());
    CoraAccessKind narrow = EMEM_READ;
    CoraAccessKind wide = EMEM_READ;
    wide.widthBytes = 64;
    EXPECT_LT(m.PredictPps(Load({{wide, 10}})), m.PredictPps(Load({{narrow, 10}})));
    EXPECT_LT(m.PredictPps(Load({{EMEM_ATOMIC_READ, 10}})), m.PredictPps(Load({{narrow, 10}})));
}

TEST(CoraPerfModel, BlueFieldAssumedProfileIsSane)
{
    CoraPerfModel m(CoraPerfProfile::BlueField());
    EXPECT_NEAR(m.PredictPps(Load({})), 15e6, 1.0);
    CoraAccessKind imem = IMEM_READ;
    // DRAM is slower than the LLC it is mapped beside.
    EXPECT_LT(m.PredictPps(Load({{EMEM_READ, 10}})), m.PredictPps(Load({{imem, 10}})));
    // 8 locks saturate the 8 cores.
    EXPECT_NEAR(m.PredictPps(LockLoad(1)) * 8, m.PredictLockFreePps(LockLoad(1)), 1.0);
    EXPECT_DOUBLE_EQ(m.PredictPps(LockLoad(9)), m.PredictLockFreePps(LockLoad(9)));
}

TEST(CoraPerfModel, BadLoadsRejected)
{
    using test::Contains;
    using test::ErrorOf;
    CoraPerfModel m(CoraPerfProfile::Netronome());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();

    EXPECT_TRUE(Contains(ErrorOf([&] { m.PredictPps(Load({}, -1)); }), {"statelessInstructions"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { m.PredictPps(Load({}, nan)); }), {"statelessInstructions"}));
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             m.PredictPps(Load({{EMEM_READ, -2}}));
                         }),
                         {"EMEM/read/bulk/4B"}));
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             m.PredictPps(Load({{IMEM_READ, 1}, {EMEM_READ, inf}}));
                         }),
                         {"access 1", "EMEM/read/bulk/4B"}));
    CoraAccessKind odd = EMEM_READ;
    odd.widthBytes = 6;
    EXPECT_TRUE(Contains(ErrorOf([&] { m.PredictPps(Load({{odd, 1}})); }), {"6B", "width"}));
    odd.widthBytes = 256;
    EXPECT_TRUE(Contains(ErrorOf([&] { m.PredictPps(Load({{odd, 1}})); }), {"256B", "width"}));

    CoraProgramLoad noLock;
    noLock.lockAccessesPerPacket = 2;
    EXPECT_TRUE(Contains(ErrorOf([&] { m.PredictPps(noLock); }), {"distinctLocks"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { m.PredictPerLockPps(Load({})); }), {"distinctLocks"}));
    CoraProgramLoad negLock = LockLoad(1);
    negLock.lockAccessesPerPacket = -1;
    EXPECT_TRUE(Contains(ErrorOf([&] { m.PredictPps(negLock); }), {"lockAccessesPerPacket"}));

    // A kind the profile does not have.
    CoraPerfModel toy(ToyProfile());
    CoraAccessKind cls{CoraMemoryType::CLS, CoraMemoryOp::READ, CoraAccessMode::BULK, 4};
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             toy.PredictPps(Load({{cls, 1}}));
                         }),
                         {"toy", "no curve", "CLS/read/bulk/4B"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { CoraPerfModel::CurveMpps({1, 0, 0}, -1); }), {"intensity"}));
}

TEST(CoraPerfModel, BadProfilesRejected)
{
    using test::Contains;
    using test::ErrorOf;
    CoraPerfProfile p("mine");
    EXPECT_TRUE(Contains(ErrorOf([&] {
                             p.SetCurve(EMEM_READ, {0, 1, 1});
                         }),
                         {"mine", "EMEM/read/bulk/4B", "a > 0"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.SetCurve(EMEM_READ, {1, -1, 1}); }), {"b >= 0"}));
    EXPECT_TRUE(
        Contains(ErrorOf([&] {
                     p.SetCurve(EMEM_READ, {1, 1, std::numeric_limits<double>::quiet_NaN()});
                 }),
                 {"c >= 0"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.SetStatelessCurve({-1, 0, 0}); }), {"stateless"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.SetLockSerialization(0.5); }), {"lock serialisation"}));
    EXPECT_FALSE(p.HasCurve(EMEM_READ));
    p.SetCurve(EMEM_READ, {1, 1, 1});
    EXPECT_TRUE(p.HasCurve(EMEM_READ));
}
