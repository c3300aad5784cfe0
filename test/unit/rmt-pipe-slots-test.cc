/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/presto-input-error.h"
#include "ns3/rmt-pipe-slots.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{
RmtPipeSlots::Config
Hardware(double clockHz, uint32_t pipes, uint32_t buffer = 1024)
{
    RmtPipeSlots::Config c;
    c.clockHz = clockHz;
    c.pipes = pipes;
    c.bufferPasses = buffer;
    return c;
}
} // namespace

// One pass per clock per pipe: a second packet at the same instant waits one cycle.
TEST(RmtPipeSlots, OnePassPerCyclePerPipe)
{
    RmtPipeSlots s(Hardware(1.25e9, 1)); // 800 ps cycle
    EXPECT_DOUBLE_EQ(s.GetCyclePs(), 800.0);
    EXPECT_EQ(s.Take(0, 1), 0);
    EXPECT_EQ(s.Take(0, 1), 800);
    EXPECT_EQ(s.Take(100, 1), 1500); // slot at 1,600 ps
    EXPECT_EQ(s.Take(10000, 1), 0);  // idle again
    EXPECT_EQ(s.GetCounters().packets, 4u);
    EXPECT_EQ(s.GetCounters().passes, 4u);
    EXPECT_EQ(s.GetCounters().waited, 2u);
    EXPECT_EQ(s.GetCounters().waitPsTotal, 2300);
    EXPECT_EQ(s.GetCounters().waitPsMax, 1500);
}

// P pipes start P packets in the same cycle; the next waits for the first pipe to free.
TEST(RmtPipeSlots, PipesWorkInParallel)
{
    RmtPipeSlots s(Hardware(1e9, 4)); // 1,000 ps cycle
    for (int i = 0; i < 4; ++i)
    {
        EXPECT_EQ(s.Take(0, 1), 0) << "pipe " << i;
    }
    EXPECT_EQ(s.Take(0, 1), 1000);
    EXPECT_DOUBLE_EQ(s.GetPassRate(), 4e9);
}

// A recirculating packet takes one slot per pass: the pipe is busy for all of them.
TEST(RmtPipeSlots, RecirculationTakesASlotPerPass)
{
    RmtPipeSlots s(Hardware(1e9, 1));
    EXPECT_EQ(s.Take(0, 2), 0);
    EXPECT_EQ(s.Take(0, 1), 2000);
    EXPECT_EQ(s.GetCounters().passes, 3u);
}

// Offered faster than the clock, the pipeline runs at exactly one pass per cycle: the n-th
// packet of a back-to-back burst starts at n cycles.
TEST(RmtPipeSlots, SaturatedPipeRunsAtTheClock)
{
    RmtPipeSlots s(Hardware(1e9, 1, 100000));
    const int n = 10000;
    int64_t lastStart = 0;
    for (int i = 0; i < n; ++i)
    {
        const int64_t now = i * 500; // twice the pipe's rate
        lastStart = now + s.Take(now, 1);
    }
    EXPECT_EQ(lastStart, int64_t(n - 1) * 1000);
    EXPECT_NEAR(s.Utilisation(int64_t(n) * 1000), 1.0, 1e-12);
    EXPECT_NEAR(s.Utilisation(int64_t(n) * 2000), 0.5, 1e-12);
    EXPECT_EQ(s.Utilisation(0), 0.0);
}

// The input buffer holds BufferPasses waiting passes; the next arrival is refused and counted.
TEST(RmtPipeSlots, FullBufferRefuses)
{
    RmtPipeSlots s(Hardware(1e9, 1, 2));
    for (int i = 0; i < 3; ++i)
    {
        ASSERT_TRUE(s.Admit(0)) << "packet " << i;
        s.Take(0, 1); // starts at once, then two wait
    }
    EXPECT_EQ(s.Backlog(0), 2u);
    EXPECT_FALSE(s.Admit(0));
    EXPECT_EQ(s.GetCounters().refused, 1u);
    EXPECT_EQ(s.GetCounters().backlogMax, 2u);
    // one cycle later one waiting pass has started: room again
    EXPECT_EQ(s.Backlog(1000), 1u);
    EXPECT_TRUE(s.Admit(1000));
}

// A generator taking passes at a steady rate (the timer scan) leaves the rest to packets:
// half of a 1 GHz pipe reserved, packets get a slot every 2 ns.
TEST(RmtPipeSlots, ReservedPassesStretchTheCycle)
{
    RmtPipeSlots::Config c = Hardware(1e9, 2);
    c.reservedPassRate = 1e9;
    RmtPipeSlots s(c);
    EXPECT_DOUBLE_EQ(s.GetCyclePs(), 2000.0);
    EXPECT_DOUBLE_EQ(s.GetFreePassRate(), 1e9);
    EXPECT_EQ(s.Take(0, 1), 0);
    EXPECT_EQ(s.Take(0, 1), 0);
    EXPECT_EQ(s.Take(0, 1), 2000);
    // the reserved half counts as busy
    EXPECT_NEAR(s.Utilisation(3000), 3.0 / (2 * 3) + 0.5, 1e-12);
}

// A cycle that is no whole number of picoseconds (1.125 GHz left to packets) makes a pipe's
// free time a sum of fractions: a rounding error above a whole slot is no waiting pass, and a
// packet arriving then is admitted (the count once wrapped to 2^32 - 1 and refused it).
TEST(RmtPipeSlots, RoundingErrorIsNoBacklog)
{
    RmtPipeSlots::Config c = Hardware(1.25e9, 1, 4);
    c.reservedPassRate = 125e6;
    uint32_t refused = 0;
    for (int64_t start = 0; start < 5000000; start += 1000)
    {
        RmtPipeSlots s(c);
        for (int i = 0; i < 27; ++i)
        {
            s.Take(start, 1);
        }
        // every ns from the burst's first slot to well after it
        for (int64_t t = start + 1000; t < start + 40000; t += 1000)
        {
            EXPECT_LE(s.Backlog(t), 27u);
            if (s.Backlog(t) < 4 && !s.Admit(t))
            {
                ++refused;
            }
        }
        if (start > 200000)
        {
            break; // a few hundred bursts cover the fractional phases
        }
    }
    EXPECT_EQ(refused, 0u);
}

TEST(RmtPipeSlots, ImpossibleHardwareIsRefused)
{
    EXPECT_THROW(RmtPipeSlots(Hardware(0, 1)), PrestoInputError);
    EXPECT_THROW(RmtPipeSlots(Hardware(1e9, 0)), PrestoInputError);
    RmtPipeSlots::Config c = Hardware(1e9, 2);
    c.reservedPassRate = 2e9; // every slot
    EXPECT_THROW(RmtPipeSlots{c}, PrestoInputError);
    c.reservedPassRate = -1;
    EXPECT_THROW(RmtPipeSlots{c}, PrestoInputError);
}

// The busiest 100 us window: a pipe offered a pass every cycle for one window is 100% busy
// there, whatever the idle time around it (the run's mean is far lower); a window counts once
// it has ended, and a half-loaded window gives half.
TEST(RmtPipeSlots, PeakUtilisationIsTheBusiestWindow)
{
    RmtPipeSlots s(Hardware(1e9, 2)); // 1,000 ps cycle, 2 pipes: 2e9 passes/s
    const int64_t w = RmtPipeSlots::PEAK_WINDOW_PS;
    const int64_t slots = w / 1000;     // a pipe's slots per window
    for (int64_t i = 0; i < slots; ++i) // window 1: one pass per cycle per pipe
    {
        s.Take(w + i * 1000, 1);
        s.Take(w + i * 1000, 1);
    }
    EXPECT_DOUBLE_EQ(s.PeakUtilisation(), 0.0); // window 1 has not ended
    for (int64_t i = 0; i < slots; i += 2)      // window 3: one pipe's worth, every other cycle
    {
        s.Take(3 * w + i * 1000, 1);
        s.Take(3 * w + i * 1000, 1);
    }
    EXPECT_DOUBLE_EQ(s.PeakUtilisation(), 1.0);
    EXPECT_LT(s.Utilisation(4 * w), 0.5); // the mean over the run
    RmtPipeSlots half(Hardware(1e9, 2));
    for (int64_t i = 0; i < slots; ++i)
    {
        half.Take(i * 1000, 1);
    }
    half.Take(2 * w, 1);
    EXPECT_DOUBLE_EQ(half.PeakUtilisation(), 0.5);
}
