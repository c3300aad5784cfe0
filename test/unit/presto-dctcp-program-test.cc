/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/object.h"
#include "ns3/offload-window-congestion.h"
#include "ns3/presto-dctcp-arithmetic.h"
#include "ns3/presto-dctcp-congestion.h"
#include "ns3/presto-dctcp-program.h"
#include "ns3/presto-input-error.h"
#include "ns3/rmt-pipeline.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

using A = PrestoDctcpArithmetic;

constexpr uint32_t MSS = 1448;
constexpr uint32_t IW = 10;

/// The pipeline's F is within 2^-(B-1) + 2^-21 of ece / acked, for every B.
TEST(PrestoDctcpArithmetic, FractionWithinStatedBound)
{
    std::mt19937_64 rng(7);
    for (uint32_t b = A::MIN_MANTISSA_BITS; b <= A::MAX_MANTISSA_BITS; ++b)
    {
        const double bound = std::ldexp(1.0, -int(b - 1)) + std::ldexp(1.0, -21);
        double worst = 0;
        for (int i = 0; i < 200000; ++i)
        {
            const uint64_t acked = 1 + rng() % (i % 2 ? 100000 : 1u << 30);
            const uint64_t ece = rng() % (acked + 1);
            const double exact = double(ece) / double(acked);
            const double got = double(A::Fraction(ece, acked, b)) / A::ALPHA_ONE;
            worst = std::max(worst, std::abs(got - exact));
            ASSERT_LT(std::abs(got - exact), bound)
                << "B=" << b << " ece=" << ece << " acked=" << acked;
        }
        std::cout << "B=" << b << ": largest |F error| " << worst << " (bound " << bound << ")"
                  << std::endl;
    }
    // values below 2^B are exact but for the Q20 rounding
    EXPECT_EQ(A::Fraction(1, 3, 6), (A::ALPHA_ONE + 1) / 3);
    EXPECT_EQ(A::Fraction(5, 5, 6), A::ALPHA_ONE);
    EXPECT_EQ(A::Fraction(0, 5, 6), 0u);
}

/// The reduced window is never below the exact one, and above it by less than the bound.
TEST(PrestoDctcpArithmetic, ReducedWindowWithinStatedBound)
{
    std::mt19937_64 rng(11);
    for (uint32_t b = A::MIN_MANTISSA_BITS; b <= A::MAX_MANTISSA_BITS; ++b)
    {
        double worst = 0;
        for (int i = 0; i < 200000; ++i)
        {
            const auto cwnd = static_cast<uint32_t>(1 + rng() % (i % 2 ? 200000 : 1u << 30));
            const auto alpha = static_cast<uint32_t>(rng() % (A::ALPHA_ONE + 1));
            const double a = double(alpha) / A::ALPHA_ONE;
            const auto exact = static_cast<uint32_t>(std::floor(cwnd * (1.0 - a / 2.0)));
            const uint32_t got = A::ReducedWindow(cwnd, alpha, b);
            const double bound =
                cwnd * (std::ldexp(1.0, -int(b - 1)) * a / 2 + std::ldexp(1.0, -int(b + 1))) + 2;
            ASSERT_GE(got, exact) << "B=" << b << " cwnd=" << cwnd << " alpha=" << a;
            ASSERT_LT(double(got - exact), bound)
                << "B=" << b << " cwnd=" << cwnd << " alpha=" << a;
            if (cwnd >= MSS)
            {
                worst = std::max(worst, double(got - exact) / cwnd);
            }
        }
        std::cout << "B=" << b << ": reduced window above the exact one by at most " << worst
                  << " of cwnd (windows of at least one MSS)" << std::endl;
    }
    EXPECT_EQ(A::ReducedWindow(56 << 8, A::ALPHA_ONE, 6), 28u << 8)
        << "a window whose B leading bits are all it has halves exactly at alpha = 1";
    EXPECT_EQ(A::ReducedWindow(10 * MSS, A::ALPHA_ONE, 6), 10 * MSS - (56 << 7))
        << "14480 bytes keep 56 << 8 = 14336 of themselves in the product";
    EXPECT_EQ(A::ReducedWindow(12345, 0, 6), 12345u) << "alpha = 0 never reduces";
}

TEST(PrestoDctcpArithmetic, NormShiftAndTableSizes)
{
    EXPECT_EQ(A::NormShift(0, 6), 0u);
    EXPECT_EQ(A::NormShift(63, 6), 0u);
    EXPECT_EQ(A::NormShift(64, 6), 1u);
    EXPECT_EQ(A::NormShift(0xffffffffu, 6), 26u);
    EXPECT_EQ(A::FractionEntries(6), 2079u);
    EXPECT_EQ(A::ProductEntries(6), 4160u);
    EXPECT_EQ(A::NextAlpha(A::ALPHA_ONE, A::ALPHA_ONE, 4), A::ALPHA_ONE);
    EXPECT_EQ(A::NextAlpha(0, A::ALPHA_ONE, 4), A::ALPHA_ONE / 16);
}

TEST(PrestoDctcpArithmetic, RefusesWhatThePipelineCannotDo)
{
    EXPECT_TRUE(Contains(ErrorOf([] { A::Check(6, 0.1, 1.0); }), {"gain g=0.1", "power of two"}));
    EXPECT_TRUE(Contains(ErrorOf([] { A::Check(2, 0.0625, 1.0); }), {"mantissa bits B=2"}));
    EXPECT_TRUE(Contains(ErrorOf([] { A::Check(9, 0.0625, 1.0); }), {"B=9", "[3, 8]"}));
    EXPECT_TRUE(Contains(ErrorOf([] { A::Check(6, 0.0625, 1.5); }), {"initial alpha=1.5"}));
    EXPECT_EQ(A::Check(6, 0.0625, 1.0), 4u);
    EXPECT_EQ(A::Check(6, 1.0, 0.0), 0u);
    EXPECT_EQ(A::Check(6, std::ldexp(1.0, -20), 0.0), 20u);
    EXPECT_FALSE(ErrorOf([] { A::Check(6, std::ldexp(1.0, -21), 0.0); }).empty());
}

TEST(PrestoDctcpProgram, RefusesWhatDoesNotFit)
{
    RmtPipelineConfig small;
    small.stageBudget = 8;
    const std::string e = ErrorOf([&] { PrestoDctcpProgram(16, {}, small); });
    EXPECT_TRUE(Contains(e, {"needs 9 stages", "stage budget is 8"})) << e;
    RmtPipelineConfig onePass;
    onePass.maxPasses = 1;
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoDctcpProgram(16, {}, onePass); }),
                         {"recirculates once", "at least 2"}));
    RmtPipelineConfig tiny;
    tiny.registerBitsPerStage = 1024; // 34 + 16 + 32 bits x 32 connections do not fit
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoDctcpProgram(32, {}, tiny); }),
                         {"does not fit", "32 connections"}));
    PrestoDctcpProgram::Params badGain;
    badGain.gain = 0.1;
    EXPECT_TRUE(Contains(ErrorOf([&] { PrestoDctcpProgram(16, badGain, {}); }), {"power of two"}));
    PrestoDctcpProgram p(4, {}, {});
    EXPECT_TRUE(Contains(ErrorOf([&] { p.Init(4, MSS, IW, 1); }), {"connection 4", "below 4"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.Init(0, 0, IW, 1); }), {"MSS 0"}));
    EXPECT_TRUE(Contains(ErrorOf([&] { p.Init(0, MSS, 0, 1); }), {"initial window of 0"}));
}

TEST(PrestoDctcpProgram, ResourcesAndTables)
{
    PrestoDctcpProgram p(1024, {}, {});
    const RmtResourceReport r = p.GetResourceReport();
    EXPECT_EQ(r.stagesUsed, PrestoDctcpProgram::STAGES);
    // 34 + 16 + 32 + 32 + 32 + 21 + 32 + 64 bits per connection
    EXPECT_EQ(r.registerBits, uint64_t{263} * 1024);
    // two leading-one tables of 33 - B entries, the fraction and product tables, the op tables
    EXPECT_EQ(r.tableEntries,
              2 * (33 - 6) + A::FractionEntries(6) + A::ProductEntries(6) + 3 + 4 + 4);
}

/// Validate() creates a connection with a one-slot table; a NIC that never binds the program
/// (not a Presto pipeline) must still get room for all of its connections afterwards.
TEST(PrestoDctcpCongestion, UnboundProgramGrowsToTheConnectionTable)
{
    Ptr<PrestoDctcpCongestion> cc = CreateObject<PrestoDctcpCongestion>();
    cc->Validate("test");
    ASSERT_NE(cc->GetProgram(), nullptr);
    EXPECT_EQ(cc->GetProgram()->GetMaxConnections(), 1u);
    OffloadCongestionContext ctx;
    ctx.maxConnections = 64;
    std::vector<Ptr<OffloadCongestionControl>> conns;
    for (uint32_t id = 0; id < 3; ++id)
    {
        ctx.connId = id;
        conns.push_back(cc->Fork(ctx)); // threw for id 1 before the program grew
        conns.back()->Init(1000 * id);
    }
    EXPECT_EQ(cc->GetProgram()->GetMaxConnections(), 64u);
    EXPECT_TRUE(conns[2]->OnAck(0, true, 2000, 3000)) << "ECE on connection 2 cuts";
    EXPECT_EQ(conns[1]->GetCwnd(), 10u * 1448) << "connection 1 untouched";
    cc->BindPipeline(RmtPipelineConfig(), 8);
    ctx.maxConnections = 64;
    ctx.connId = 9;
    EXPECT_THROW(cc->Fork(ctx), PrestoInputError) << "a bound program keeps its size";
}

/// A connection's sender as the events see it.
struct Sender
{
    uint32_t una{0};
    uint32_t nxt{0};
    double markProb{0};
    Ptr<OffloadDctcpPipelineArithmetic> ref; //!< the C++ reference
    Ptr<OffloadDctcpCongestion> exact;       //!< exact arithmetic
};

/**
 * The differential test: random ACKs (new data, duplicates, ECE at changing rates, with
 * sequence numbers wrapping), losses, timeouts and connection restarts over 8 connections;
 * after every event the program and OffloadDctcpPipelineArithmetic agree on the cut, cwnd,
 * ssthresh and alpha, and the program took two passes exactly when it cut. Alongside, exact
 * OffloadDctcpCongestion sees the same events: its alpha stays within the stated approximation.
 */
void
RunDifferential(uint32_t bits, double gain, double alphaInit, uint64_t seed, int events)
{
    const uint32_t conns = 8;
    PrestoDctcpProgram::Params params;
    params.gain = gain;
    params.alphaInit = alphaInit;
    params.mantissaBits = bits;
    PrestoDctcpProgram prog(conns, params, {});
    std::mt19937_64 rng(seed);
    std::vector<Sender> s(conns);
    auto start = [&](uint32_t c) {
        const uint32_t mss = (rng() % 4 == 0) ? 536 + rng() % 8500 : MSS;
        const uint32_t iw = 1 + rng() % 16;
        s[c].una = static_cast<uint32_t>(rng() % 3 == 0 ? 0xffffffffu - rng() % 200000 : rng());
        s[c].nxt = s[c].una;
        s[c].markProb = 0;
        s[c].ref = Create<OffloadDctcpPipelineArithmetic>(mss, iw, gain, alphaInit, bits);
        s[c].exact = Create<OffloadDctcpCongestion>(mss, iw, gain, alphaInit);
        s[c].ref->Init(s[c].nxt);
        s[c].exact->Init(s[c].nxt);
        prog.Init(c, mss, iw, s[c].nxt);
    };
    for (uint32_t c = 0; c < conns; ++c)
    {
        start(c);
    }
    const double alphaBound =
        std::ldexp(1.0, -int(bits - 1)) + std::ldexp(1.0, -21) + std::ldexp(1.0, -15);
    double worstAlpha = 0;
    uint64_t cuts = 0;
    uint64_t updates = 0;
    for (int i = 0; i < events; ++i)
    {
        const auto c = static_cast<uint32_t>(rng() % conns);
        Sender& x = s[c];
        const uint32_t roll = rng() % 1000;
        if (roll < 5)
        {
            start(c); // the slot gets a new connection
            continue;
        }
        if (roll < 30)
        {
            x.markProb = std::vector<double>{0.0, 0.05, 0.3, 1.0}[rng() % 4];
        }
        // the sender sends some new data
        x.nxt += static_cast<uint32_t>(rng() % 4) * MSS + (rng() % 8 == 0 ? rng() % MSS : 0);
        const uint32_t flight = x.nxt - x.una;
        if (roll < 60)
        {
            x.ref->OnLoss(flight, x.nxt);
            x.exact->OnLoss(flight, x.nxt);
            prog.OnLoss(c, flight, x.nxt);
            ASSERT_EQ(prog.GetLastExecution().passes, 1u);
        }
        else if (roll < 75)
        {
            x.ref->OnTimeout(flight, x.nxt);
            x.exact->OnTimeout(flight, x.nxt);
            prog.OnTimeout(c, flight, x.nxt);
            ASSERT_EQ(prog.GetLastExecution().passes, 1u);
        }
        else
        {
            const bool dup = rng() % 8 == 0 || flight == 0;
            const uint32_t acked = dup ? 0 : 1 + static_cast<uint32_t>(rng() % flight);
            x.una += acked;
            const bool ece = std::uniform_real_distribution<double>(0, 1)(rng) < x.markProb;
            const bool want = x.ref->OnAck(acked, ece, x.una, x.nxt);
            x.exact->OnAck(acked, ece, x.una, x.nxt);
            const bool got = prog.OnAck(c, acked, ece, x.una, x.nxt);
            ASSERT_EQ(got, want) << "event " << i << " conn " << c << ": the cut";
            ASSERT_EQ(prog.GetLastExecution().passes, want ? 2u : 1u) << "event " << i;
            cuts += want;
        }
        ASSERT_EQ(prog.GetCwnd(c), x.ref->GetCwnd()) << "event " << i << " conn " << c;
        ASSERT_EQ(prog.GetSsThresh(c), x.ref->GetSsThresh()) << "event " << i << " conn " << c;
        ASSERT_EQ(prog.GetAlphaQ20(c), x.ref->GetAlphaQ20()) << "event " << i << " conn " << c;
        const double da = std::abs(x.ref->GetAlpha() - x.exact->GetAlpha());
        worstAlpha = std::max(worstAlpha, da);
        ASSERT_LT(da, alphaBound) << "event " << i << ": alpha vs exact DCTCP";
        updates = std::max<uint64_t>(updates, x.ref->GetAlphaUpdates());
    }
    EXPECT_GT(cuts, uint64_t(events) / 100) << "the events must exercise the cut";
    EXPECT_GT(updates, 100u) << "and alpha updates";
    std::cout << "B=" << bits << " g=" << gain << ": " << events << " events, " << cuts
              << " cuts (2 passes each), largest |alpha - exact alpha| " << worstAlpha << " (bound "
              << alphaBound << ")" << std::endl;
}

TEST(PrestoDctcpProgram, DifferentialAgainstReferenceDefaults)
{
    RunDifferential(6, 1.0 / 16, 1.0, 1, 150000);
}

TEST(PrestoDctcpProgram, DifferentialAgainstReferenceOtherParameters)
{
    RunDifferential(3, 1.0 / 2, 0.0, 2, 100000);
    RunDifferential(8, 1.0 / 256, 0.37, 3, 100000);
    RunDifferential(5, 1.0, 1.0, 4, 100000);
}

} // namespace
