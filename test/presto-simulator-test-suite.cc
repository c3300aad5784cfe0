/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The experiments' simulator implementation (LeanSimulatorImpl, with TimingWheelScheduler)
// against ns-3's DefaultSimulatorImpl: one script of scheduling, cancelling, removing,
// stopping, events from another thread and destroy events gives the same log, event by
// event, ids, contexts and answers included. FastSimulator answers as Simulator does, on
// either implementation.

#include "ns3/event-id.h"
#include "ns3/fast-simulator.h"
#include "ns3/global-value.h"
#include "ns3/lean-simulator-impl.h"
#include "ns3/make-event.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/presto-main.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/timing-wheel-scheduler.h"

#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace ns3;

namespace
{

/// What the script saw, one line per observation.
std::vector<std::string> g_log;

/// Record \p what with the time, context and event count of the moment.
void
Note(const std::string& what)
{
    std::ostringstream line;
    line << Simulator::Now().GetNanoSeconds() << "ns ctx=" << Simulator::GetContext() << " "
         << what;
    g_log.push_back(line.str());
}

/// An event that only records its name.
void
Named(std::string name)
{
    Note(name);
}

/// Record an EventId's id and the simulator's answers about it.
void
Ask(const std::string& name, EventId id)
{
    std::ostringstream line;
    line << name << " uid=" << id.GetUid() << " ts=" << id.GetTs()
         << " expired=" << Simulator::IsExpired(id)
         << " left=" << Simulator::GetDelayLeft(id).GetNanoSeconds();
    Note(line.str());
}

EventId g_cancelled; //!< cancelled before it is due
EventId g_removed;   //!< removed before it is due
EventId g_self;      //!< the event that asks about itself
EventId g_doomed;    //!< a destroy event removed before Destroy
EventId g_far;       //!< removed while it waits beyond the event queue's horizon

/// Asks about itself while it runs (expired: it is the current event).
void
AskSelf()
{
    Ask("self", g_self);
}

/// Cancels one event and removes another, asking before and after.
void
CancelAndRemove()
{
    Ask("cancel-before", g_cancelled);
    Ask("remove-before", g_removed);
    Simulator::Cancel(g_cancelled);
    Simulator::Remove(g_removed);
    Ask("cancel-after", g_cancelled);
    Ask("remove-after", g_removed);
    Ask("doomed-before", g_doomed);
    Simulator::Remove(g_doomed);
    Ask("doomed-after", g_doomed);
    Ask("far-before", g_far);
    Simulator::Remove(g_far);
    Ask("far-after", g_far);
}

/// Runs beyond the timing wheel's horizon (262 us) and schedules near and far from there.
void
FarChain()
{
    Simulator::Schedule(NanoSeconds(1), &Named, std::string("far-next"));
    Simulator::Schedule(MicroSeconds(280), &Named, std::string("far-far"));
    Simulator::Schedule(MicroSeconds(100), &Named, std::string("far-wheel"));
}

/// Schedules from another thread, as an emulated device would; the event runs after this one.
void
FromAnotherThread()
{
    std::thread t(
        [] { Simulator::ScheduleWithContext(3, NanoSeconds(5), &Named, std::string("foreign")); });
    t.join();
    Note("thread joined");
}

/// Schedules at now, now + 0 with a context, and a chain of same-time events.
void
SameTime()
{
    Ask("now", Simulator::ScheduleNow(&Named, std::string("now-1")));
    Simulator::ScheduleWithContext(9, Time(0), &Named, std::string("ctx9-now"));
    Ask("now2", Simulator::Schedule(Time(0), &Named, std::string("now-2")));
}

/// The script, on the simulator implementation and scheduler now configured.
/// \return the log
std::vector<std::string>
RunScript()
{
    g_log.clear();
    Ask("a", Simulator::Schedule(NanoSeconds(10), &Named, std::string("a")));
    Ask("b", Simulator::Schedule(NanoSeconds(10), &Named, std::string("b")));
    Simulator::ScheduleWithContext(7, NanoSeconds(5), &Named, std::string("c-ctx7"));
    Simulator::ScheduleWithContext(7, NanoSeconds(10), &SameTime);
    Ask("d", Simulator::ScheduleNow(&Named, std::string("d")));
    g_self = Simulator::Schedule(NanoSeconds(12), &AskSelf);
    g_cancelled = Simulator::Schedule(NanoSeconds(20), &Named, std::string("cancelled"));
    g_removed = Simulator::Schedule(NanoSeconds(30), &Named, std::string("removed"));
    Simulator::Schedule(NanoSeconds(15), &CancelAndRemove);
    Simulator::Schedule(NanoSeconds(40), &FromAnotherThread);
    Simulator::Schedule(NanoSeconds(45), &Named, std::string("at-45"));
    // later slots, beyond the timing wheel's horizon (same time stamps in id order), a removal
    // there, and a chain that schedules near and far from beyond the horizon
    Simulator::Schedule(NanoSeconds(200), &Named, std::string("slot-3"));
    Simulator::Schedule(MicroSeconds(100), &Named, std::string("wheel"));
    Simulator::Schedule(MicroSeconds(300), &Named, std::string("beyond-1"));
    Simulator::Schedule(MicroSeconds(300), &FarChain);
    Simulator::Schedule(MicroSeconds(300), &Named, std::string("beyond-2"));
    g_far = Simulator::Schedule(MicroSeconds(400), &Named, std::string("far-removed"));
    Simulator::Schedule(MilliSeconds(2), &Named, std::string("after-stop"));
    Ask("x", Simulator::ScheduleDestroy(&Named, std::string("destroy-x")));
    g_doomed = Simulator::ScheduleDestroy(&Named, std::string("destroy-doomed"));
    Simulator::ScheduleDestroy(&Named, std::string("destroy-y"));
    Simulator::Stop(MilliSeconds(1));
    Simulator::Run();
    Note("stopped, finished=" + std::to_string(Simulator::IsFinished()));
    Simulator::Run();
    Note("ran out, finished=" + std::to_string(Simulator::IsFinished()) +
         " events=" + std::to_string(Simulator::GetEventCount()));
    Simulator::Destroy();
    return g_log;
}

/// The same script on DefaultSimulatorImpl + MapScheduler and on LeanSimulatorImpl +
/// TimingWheelScheduler.
class LeanMatchesDefaultTestCase : public TestCase
{
  public:
    LeanMatchesDefaultTestCase()
        : TestCase("LeanSimulatorImpl and TimingWheelScheduler log what ns-3's defaults log")
    {
    }

  private:
    /// Run the script with \p impl and \p scheduler.
    /// \param impl a SimulatorImpl TypeId name
    /// \param scheduler a Scheduler TypeId name
    /// \return the log
    std::vector<std::string> RunWith(const std::string& impl, const std::string& scheduler)
    {
        Simulator::Destroy();
        ObjectFactory implFactory(impl);
        ObjectFactory schedulerFactory(scheduler);
        Simulator::SetImplementation(implFactory.Create<SimulatorImpl>());
        Simulator::SetScheduler(schedulerFactory);
        NS_TEST_EXPECT_MSG_EQ(Simulator::GetImplementation()->GetInstanceTypeId().GetName(),
                              impl,
                              "the implementation under test runs");
        return RunScript();
    }

    void DoRun() override
    {
        const std::vector<std::string> ref =
            RunWith("ns3::DefaultSimulatorImpl", "ns3::MapScheduler");
        const std::vector<std::string> lean =
            RunWith("ns3::LeanSimulatorImpl", "ns3::TimingWheelScheduler");
        const std::vector<std::string> mixed =
            RunWith("ns3::DefaultSimulatorImpl", "ns3::TimingWheelScheduler");
        NS_TEST_ASSERT_MSG_EQ(ref.size(), lean.size(), "as many observations");
        NS_TEST_ASSERT_MSG_EQ(ref.size(), mixed.size(), "as many observations");
        for (size_t i = 0; i < ref.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ(lean[i], ref[i], "LeanSimulatorImpl, observation " << i);
            NS_TEST_EXPECT_MSG_EQ(mixed[i], ref[i], "TimingWheelScheduler, observation " << i);
        }
        // and the log is the one the script means, not two equal wrong ones
        const std::vector<std::string> expected = {
            "0ns ctx=4294967295 d",
            "5ns ctx=7 c-ctx7",
            "10ns ctx=4294967295 a",
            "10ns ctx=4294967295 b",
            "10ns ctx=7 now-1",
            "10ns ctx=9 ctx9-now",
            "10ns ctx=7 now-2",
            "15ns ctx=4294967295 cancel-after uid=10 ts=20 expired=1 left=0",
            "15ns ctx=4294967295 remove-after uid=11 ts=30 expired=1 left=0",
            "15ns ctx=4294967295 doomed-after uid=2 ts=0 expired=1 left=0",
            "15ns ctx=4294967295 far-after uid=20 ts=400000 expired=1 left=0",
            "40ns ctx=4294967295 thread joined",
            "45ns ctx=4294967295 at-45",
            "45ns ctx=3 foreign",
            "200ns ctx=4294967295 slot-3",
            "100000ns ctx=4294967295 wheel",
            "300000ns ctx=4294967295 beyond-1",
            "300000ns ctx=4294967295 beyond-2",
            "300001ns ctx=4294967295 far-next",
            "400000ns ctx=4294967295 far-wheel",
            "580000ns ctx=4294967295 far-far",
            "1000000ns ctx=4294967295 stopped, finished=1",
            "2000000ns ctx=4294967295 after-stop",
            "2000000ns ctx=4294967295 ran out, finished=1 events=24",
            "2000000ns ctx=4294967295 destroy-x",
            "2000000ns ctx=4294967295 destroy-y"};
        size_t next = 0;
        for (const std::string& line : ref)
        {
            if (next < expected.size() && line == expected[next])
            {
                ++next;
            }
            const bool asked = line.find("uid=") != std::string::npos;
            const bool cancelledRan = line.find("cancelled") != std::string::npos && !asked;
            const bool removedRan = line.find("removed") != std::string::npos && !asked;
            NS_TEST_EXPECT_MSG_EQ(cancelledRan, false, "a cancelled event does not run");
            NS_TEST_EXPECT_MSG_EQ(removedRan, false, "a removed event does not run");
            NS_TEST_EXPECT_MSG_EQ(line.find("destroy-doomed"),
                                  std::string::npos,
                                  "a removed destroy event does not run");
        }
        NS_TEST_EXPECT_MSG_EQ(next, expected.size(), "the script's events, in order");
        NS_TEST_EXPECT_MSG_EQ(ref[13],
                              "12ns ctx=4294967295 self uid=9 ts=12 expired=1 left=0",
                              "the running event is expired to itself");
    }
};

/// What FastSimulator answered in one event, against Simulator.
struct FastView
{
    bool running{false};    //!< a LeanSimulatorImpl was running
    int64_t nowStep{0};     //!< FastSimulator::Now(), time steps
    int64_t ns{0};          //!< FastSimulator::NowNs()
    int64_t ps{0};          //!< FastSimulator::NowPs()
    uint32_t context{0};    //!< FastSimulator::GetContext()
    bool fromNs{false};     //!< FromNs and ToNs convert as Time does, a few values
    int64_t refNs{0};       //!< Simulator::Now().GetNanoSeconds()
    int64_t refPs{0};       //!< Simulator::Now().GetPicoSeconds()
    uint32_t refContext{0}; //!< Simulator::GetContext()
};

std::vector<FastView> g_views; //!< one per Look

/// Record FastSimulator's answers and Simulator's.
void
Look()
{
    FastView v;
    v.running = LeanSimulatorImpl::GetRunning() != nullptr;
    v.nowStep = FastSimulator::Now().GetTimeStep();
    v.ns = FastSimulator::NowNs();
    v.ps = FastSimulator::NowPs();
    v.context = FastSimulator::GetContext();
    v.fromNs = true;
    for (int64_t x : {0, 1, 999, 1000, 123456789})
    {
        v.fromNs = v.fromNs && FastSimulator::FromNs(x) == NanoSeconds(x) &&
                   FastSimulator::ToNs(PicoSeconds(x)) == PicoSeconds(x).GetNanoSeconds();
    }
    v.refNs = Simulator::Now().GetNanoSeconds();
    v.refPs = Simulator::Now().GetPicoSeconds();
    v.refContext = Simulator::GetContext();
    g_views.push_back(v);
}

/// Schedules through FastSimulator, then looks.
void
LookAndScheduleFast()
{
    Look();
    FastSimulator::ScheduleWithContext(5, NanoSeconds(3), MakeEvent(&Look));
}

/// FastSimulator's clock, context and scheduling equal Simulator's, with LeanSimulatorImpl
/// (its fast path) and with DefaultSimulatorImpl (its fallback).
class FastSimulatorTestCase : public TestCase
{
  public:
    FastSimulatorTestCase()
        : TestCase("FastSimulator answers as Simulator, on either implementation")
    {
    }

  private:
    void DoRun() override
    {
        for (const char* impl : {"ns3::LeanSimulatorImpl", "ns3::DefaultSimulatorImpl"})
        {
            const bool lean = std::string(impl) == "ns3::LeanSimulatorImpl";
            Simulator::Destroy();
            ObjectFactory implFactory(impl);
            Simulator::SetImplementation(implFactory.Create<SimulatorImpl>());
            g_views.clear();
            Look(); // before Run: the fallback, whatever the implementation
            Simulator::ScheduleWithContext(2, NanoSeconds(7), &LookAndScheduleFast);
            Simulator::Schedule(MicroSeconds(1) + NanoSeconds(500), &Look);
            Simulator::Run();
            Look(); // after Run
            Simulator::Destroy();
            NS_TEST_ASSERT_MSG_EQ(g_views.size(), 5, impl << ": every event ran");
            const int64_t expectNs[] = {0, 7, 10, 1500, 1500};
            const uint32_t expectContext[] = {0xffffffff, 2, 5, 0xffffffff, 0xffffffff};
            for (size_t i = 0; i < g_views.size(); ++i)
            {
                const FastView& v = g_views[i];
                const bool inRun = i > 0 && i < 4;
                NS_TEST_EXPECT_MSG_EQ(v.running, lean && inRun, impl << ", look " << i);
                NS_TEST_EXPECT_MSG_EQ(v.ns, expectNs[i], impl << ", look " << i);
                NS_TEST_EXPECT_MSG_EQ(v.ns, v.refNs, impl << ", look " << i);
                NS_TEST_EXPECT_MSG_EQ(v.nowStep, NanoSeconds(v.refNs).GetTimeStep(), impl);
                NS_TEST_EXPECT_MSG_EQ(v.ps, v.refPs, impl << ", look " << i);
                NS_TEST_EXPECT_MSG_EQ(v.ps, expectNs[i] * 1000, impl << ", look " << i);
                NS_TEST_EXPECT_MSG_EQ(v.context, v.refContext, impl << ", look " << i);
                NS_TEST_EXPECT_MSG_EQ(v.context, expectContext[i], impl << ", look " << i);
                NS_TEST_EXPECT_MSG_EQ(v.fromNs, true, impl << ", look " << i);
            }
        }
    }
};

/// The module's simulator choice never replaces one the script bound or the user named.
class SimulatorChoiceTestCase : public TestCase
{
  public:
    SimulatorChoiceTestCase()
        : TestCase("PreferFastSimulator keeps a simulator or scheduler the script bound")
    {
    }

  private:
    void DoRun() override
    {
        const std::string implBefore = SimulatorImplName();
        const std::string schedBefore = SchedulerName();
        char prog[] = "test";
        char* argv[] = {prog, nullptr};
        // a script's own choice (an MPI program binds ns3::DistributedSimulatorImpl so)
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::RealtimeSimulatorImpl"));
        GlobalValue::Bind("SchedulerType", StringValue("ns3::HeapScheduler"));
        PreferFastSimulator(1, argv);
        NS_TEST_EXPECT_MSG_EQ(SimulatorImplName(), "ns3::RealtimeSimulatorImpl", "kept");
        NS_TEST_EXPECT_MSG_EQ(SchedulerName(), "ns3::HeapScheduler", "kept");
        // ns-3's defaults: the module's faster parts
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
        GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
        PreferFastSimulator(1, argv);
        NS_TEST_EXPECT_MSG_EQ(SimulatorImplName(), "ns3::LeanSimulatorImpl", "preferred");
        NS_TEST_EXPECT_MSG_EQ(SchedulerName(), "ns3::TimingWheelScheduler", "preferred");
        // named on the command line: kept even when it is ns-3's default
        GlobalValue::Bind("SimulatorImplementationType", StringValue("ns3::DefaultSimulatorImpl"));
        GlobalValue::Bind("SchedulerType", StringValue("ns3::MapScheduler"));
        char impl[] = "--SimulatorImplementationType=ns3::DefaultSimulatorImpl";
        char sched[] = "--SchedulerType=ns3::MapScheduler";
        char* named[] = {prog, impl, sched, nullptr};
        PreferFastSimulator(3, named);
        NS_TEST_EXPECT_MSG_EQ(SimulatorImplName(), "ns3::DefaultSimulatorImpl", "named");
        NS_TEST_EXPECT_MSG_EQ(SchedulerName(), "ns3::MapScheduler", "named");
        GlobalValue::Bind("SimulatorImplementationType", StringValue(implBefore));
        GlobalValue::Bind("SchedulerType", StringValue(schedBefore));
    }
};

/// ns-3's simulator contract on the module's implementation.
class PrestoSimulatorTestSuite : public TestSuite
{
  public:
    PrestoSimulatorTestSuite()
        : TestSuite("presto-simulator", TestSuite::Type::UNIT)
    {
        AddTestCase(new LeanMatchesDefaultTestCase, compat::TestDuration::QUICK);
        AddTestCase(new FastSimulatorTestCase, compat::TestDuration::QUICK);
        AddTestCase(new SimulatorChoiceTestCase, compat::TestDuration::QUICK);
    }
};

/// Registers the suite.
static PrestoSimulatorTestSuite g_prestoSimulatorTestSuite;

} // namespace
