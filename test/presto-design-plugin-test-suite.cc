/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// A NIC design defined here, in the test, outside the module: the experiment finds it by
// TypeId, runs it, reports it under its own name, and its options never override attributes
// the user set. A design that decides nothing is refused. A congestion control defined here
// is one class, chosen by TypeId.

#include "experiment-checks.h"

#include "ns3/config.h"
#include "ns3/nic-design.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-nic-helper.h"
#include "ns3/offload-reassembly.h"
#include "ns3/offload-window-congestion.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-ns3-compat.h"
#include "ns3/spray-experiment.h"
#include "ns3/string.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <type_traits>

using namespace ns3;

namespace ns3
{

/**
 * \ingroup presto-tests
 * \brief A design that exists only in this test: full reassembly, 2 us per received
 * segment, and a count of the segments it saw.
 */
class PluginTestNetDevice : public OffloadNetDevice
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::PluginTestNetDevice")
                                .SetParent<OffloadNetDevice>()
                                .SetGroupName("Presto")
                                .AddConstructor<PluginTestNetDevice>();
        return tid;
    }

    void AddCounters(nlohmann::json& nic) const override
    {
        OffloadNetDevice::AddCounters(nic);
        nic["plugin_segments"] = nic.value("plugin_segments", uint64_t(0)) + m_segments;
    }

  protected:
    void ConfigureConnection(OffloadTcpConfig& cfg, Ipv4Address, uint16_t, uint16_t, bool) override
    {
        cfg.fidelity = ReassemblyTracker::UNBOUNDED;
    }

    Time ProcessReceived(uint32_t, const OffloadSegment&, const OffloadRxDecision&) override
    {
        ++m_segments;
        return MicroSeconds(2);
    }

    Time ProcessTransmit(uint32_t, const OffloadSegment&, bool&) override
    {
        return Time(0); // decided: no transmit latency
    }

  private:
    uint64_t m_segments{0}; //!< segments received
};

NS_OBJECT_ENSURE_REGISTERED(PluginTestNetDevice);

/**
 * \ingroup presto-tests
 * \brief A congestion control that exists only in this test, written as one class: a fixed
 * window of Segments segments. Its copies record what they saw, so that the test can tell that
 * every connection got its own copy of the configured object and that the sender obeyed it.
 */
class FixedWindowTestCongestion : public OffloadCongestionControl
{
  public:
    /** \return the TypeId */
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("ns3::FixedWindowTestCongestion")
                .SetParent<OffloadCongestionControl>()
                .SetGroupName("Presto")
                .AddConstructor<FixedWindowTestCongestion>()
                .AddAttribute("Segments",
                              "The window, segments",
                              UintegerValue(8),
                              MakeUintegerAccessor(&FixedWindowTestCongestion::m_segments),
                              MakeUintegerChecker<uint32_t>(1, 1000));
        return tid;
    }

    Ptr<OffloadCongestionControl> Fork(const OffloadCongestionContext& ctx) const override
    {
        Ptr<FixedWindowTestCongestion> c = CopyObject<FixedWindowTestCongestion>(this);
        c->m_window = m_segments * ctx.mss;
        ++s_forks;
        s_window = c->m_window;
        return c;
    }

    std::string GetShortName() const override
    {
        return "fixed-window";
    }

    const char* GetName() const override
    {
        return "fixed window (test)";
    }

    void Init(uint32_t) override
    {
    }

    bool OnAck(uint32_t ackedBytes, bool, uint32_t sndUna, uint32_t sndNxt) override
    {
        // what was in flight when this ACK left the receiver: at most the window
        s_maxFlight = std::max<uint64_t>(s_maxFlight, uint32_t(sndNxt - sndUna) + ackedBytes);
        return false;
    }

    void OnLoss(uint32_t, uint32_t) override
    {
    }

    void OnTimeout(uint32_t, uint32_t) override
    {
    }

    uint32_t GetCwnd() const override
    {
        return m_window;
    }

    uint32_t GetSsThresh() const override
    {
        return m_window;
    }

    static inline uint64_t s_forks{0};     //!< copies made for connections (and checks)
    static inline uint64_t s_maxFlight{0}; //!< largest flight seen by any copy, bytes
    static inline uint32_t s_window{0};    //!< the window of the last copy, bytes

  private:
    uint32_t m_segments{8}; //!< the window, segments (attribute)
    uint32_t m_window{0};   //!< a copy's window, bytes
};

NS_OBJECT_ENSURE_REGISTERED(FixedWindowTestCongestion);

} // namespace ns3

namespace
{

SprayExperimentConfig
SmallRun(const std::string& out, const std::string& device)
{
    SprayExperimentConfig c;
    c.device = device;
    c.verifyPayload = true; // transport tests compare every byte
    c.leaves = 2;
    c.spines = 2;
    c.hostsPerLeaf = 4;
    c.simTime = 0.004;
    c.out = out;
    c.quiet = true;
    c.plot = false;
    return c;
}

/**
 * \ingroup presto-tests
 * \brief The test's own design, selected by TypeId name: listed by NicDesign, run by the
 * experiment with every byte delivered once and in order, reported under its short name with
 * its own counter.
 */
class PluginDesignRunsTestCase : public TestCase
{
  public:
    PluginDesignRunsTestCase()
        : TestCase("a design defined outside the module runs in the experiment by TypeId")
    {
    }

  private:
    void DoRun() override
    {
        const auto names = NicDesign::Names();
        NS_TEST_ASSERT_MSG_EQ(
            (std::find(names.begin(), names.end(), "PluginTestNetDevice") != names.end()),
            true,
            "NicDesign lists the registered subclass");
        NS_TEST_EXPECT_MSG_EQ(NicDesign::Canonical("ns3::PrestoNetDevice", "--device"),
                              "presto",
                              "a shipped design's TypeId name is its short name");
        const std::string dir = presto_test::FreshTempDir("presto-plugin", "run");
        SprayExperiment e(SmallRun(dir, "ns3::PluginTestNetDevice"));
        e.Run();
        const nlohmann::json& rep = e.GetReport();
        NS_TEST_EXPECT_MSG_EQ(rep["config"]["device"].get<std::string>(),
                              "PluginTestNetDevice",
                              "reported under its short name");
        NS_TEST_ASSERT_MSG_GT(e.GetSummary().flows, 5, "a workload worth checking");
        NS_TEST_EXPECT_MSG_EQ(e.GetSummary().unfinished, 0, "every flow finishes");
        uint64_t bytes = 0;
        for (const auto& f : e.GetFlows())
        {
            bytes += f.sizeBytes;
        }
        const nlohmann::json& d = rep["delivery"];
        NS_TEST_EXPECT_MSG_EQ(d["bytes_delivered"].get<uint64_t>(), bytes, "every byte");
        NS_TEST_EXPECT_MSG_EQ(d["corrupt_bytes"].get<uint64_t>(), 0, "in order, unchanged");
        NS_TEST_EXPECT_MSG_EQ(d["excess_bytes"].get<uint64_t>(), 0, "exactly once");
        NS_TEST_EXPECT_MSG_GT(rep["nic"]["plugin_segments"].get<uint64_t>(),
                              0,
                              "the design's own counter reaches the report");
        NS_TEST_EXPECT_MSG_EQ(rep["nic"]["fidelity_drops"].get<uint64_t>(),
                              0,
                              "its configuration hook ran: full reassembly");
        std::filesystem::remove_all(dir);
    }
};

/**
 * \ingroup presto-tests
 * \brief The test's own congestion control, one class chosen by TypeId through the NIC's
 * CongestionControl attribute with its own attribute set by Config: every connection runs a
 * copy carrying that attribute, the sender never has more in flight than its window, every
 * byte arrives once and in order, and the report names it by its short name.
 */
class PluginCongestionRunsTestCase : public TestCase
{
  public:
    PluginCongestionRunsTestCase()
        : TestCase("a congestion control defined outside the module is one class chosen by "
                   "TypeId")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t segments = 3;
        Config::SetDefault("ns3::OffloadNetDevice::CongestionControl",
                           TypeIdValue(FixedWindowTestCongestion::GetTypeId()));
        Config::SetDefault("ns3::FixedWindowTestCongestion::Segments", UintegerValue(segments));
        FixedWindowTestCongestion::s_forks = 0;
        FixedWindowTestCongestion::s_maxFlight = 0;
        const std::string dir = presto_test::FreshTempDir("presto-plugin", "cc");
        SprayExperiment e(SmallRun(dir, "flextoe"));
        e.Run();
        Config::SetDefault("ns3::OffloadNetDevice::CongestionControl",
                           TypeIdValue(OffloadDctcpCongestion::GetTypeId()));
        Config::SetDefault("ns3::FixedWindowTestCongestion::Segments", UintegerValue(8));
        const nlohmann::json& rep = e.GetReport();
        NS_TEST_EXPECT_MSG_EQ(rep["config"]["cc"].get<std::string>(),
                              "fixed-window",
                              "reported under its short name");
        NS_TEST_ASSERT_MSG_GT(e.GetSummary().flows, 5, "a workload worth checking");
        NS_TEST_EXPECT_MSG_EQ(e.GetSummary().unfinished, 0, "every flow finishes");
        NS_TEST_EXPECT_MSG_GT(FixedWindowTestCongestion::s_forks,
                              2 * e.GetSummary().flows,
                              "both ends of every flow fork their own copy");
        const uint32_t mss = FixedWindowTestCongestion::s_window / segments;
        NS_TEST_EXPECT_MSG_EQ(FixedWindowTestCongestion::s_window % segments, 0, "whole segments");
        NS_TEST_EXPECT_MSG_GT(mss, 500, "the copies got the attribute and the connection's MSS");
        NS_TEST_EXPECT_MSG_GT(FixedWindowTestCongestion::s_maxFlight,
                              uint64_t(segments - 1) * mss,
                              "the window was used");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(FixedWindowTestCongestion::s_maxFlight,
                                    uint64_t(segments) * mss,
                                    "never more in flight than the window");
        uint64_t bytes = 0;
        for (const auto& f : e.GetFlows())
        {
            bytes += f.sizeBytes;
        }
        const nlohmann::json& d = rep["delivery"];
        NS_TEST_EXPECT_MSG_EQ(d["bytes_delivered"].get<uint64_t>(), bytes, "every byte");
        NS_TEST_EXPECT_MSG_EQ(d["corrupt_bytes"].get<uint64_t>(), 0, "in order, unchanged");
        NS_TEST_EXPECT_MSG_EQ(d["excess_bytes"].get<uint64_t>(), 0, "exactly once");
        std::filesystem::remove_all(dir);
    }
};

/**
 * \ingroup presto-tests
 * \brief Bad design names are refused with the valid ones listed; an attribute set by the
 * user is not overridden by an option's default (Cora's Strategy), and option and attribute
 * given differently are refused.
 */
class DesignOptionsTestCase : public TestCase
{
  public:
    DesignOptionsTestCase()
        : TestCase("design names and options: refused clearly, never silently overridden")
    {
    }

  private:
    static std::string Error(const SprayExperimentConfig& c)
    {
        try
        {
            SprayExperiment e(c);
        }
        catch (const PrestoInputError& err)
        {
            return err.what();
        }
        return "";
    }

    void DoRun() override
    {
        const std::string dir = presto_test::FreshTempDir("presto-plugin", "options");
        std::string what = Error(SmallRun(dir + "/a", "ns3::TcpSocketBase"));
        NS_TEST_EXPECT_MSG_NE(what.find("is not a NIC design"), std::string::npos, what);
        NS_TEST_EXPECT_MSG_NE(what.find("PluginTestNetDevice"), std::string::npos, what);

        Config::SetDefault("ns3::CoraNetDevice::Strategy", StringValue("flow"));
        SprayExperimentConfig cora = SmallRun(dir + "/cora", "cora");
        cora.simTime = 0.001;
        {
            SprayExperiment e(cora);
            e.Run();
            NS_TEST_EXPECT_MSG_EQ(e.GetReport()["nic"]["cora_strategy"].get<std::string>(),
                                  "flow",
                                  "the attribute the user set is the one that runs");
        }
        cora.coraStrategy = "state";
        what = Error(cora);
        NS_TEST_EXPECT_MSG_NE(what.find("disagree"), std::string::npos, what);
        Config::SetDefault("ns3::CoraNetDevice::Strategy", StringValue("cora"));

        SprayExperimentConfig plugin = SmallRun(dir + "/plugin", "PluginTestNetDevice");
        plugin.fidelity = "2";
        what = Error(plugin);
        NS_TEST_EXPECT_MSG_NE(what.find("no device of this run has it"),
                              std::string::npos,
                              "an option for an attribute the design lacks is refused: " + what);

        SprayExperimentConfig presto = SmallRun(dir + "/presto", "presto");
        presto.fidelity = "17";
        what = Error(presto);
        NS_TEST_EXPECT_MSG_NE(what.find("--fidelity=17"), std::string::npos, what);
        std::filesystem::remove_all(dir);
    }
};

/// A design that overrides none of the hooks: it cannot be instantiated.
class UndecidedTestNetDevice : public OffloadNetDevice
{
};

/**
 * \ingroup presto-tests
 * \brief A design that decides nothing is refused (issue 37): it does not compile as a
 * concrete class, and the base itself cannot be created by name, so nothing runs silently as
 * "full reassembly, zero latency".
 */
class UndecidedDesignRefusedTestCase : public TestCase
{
  public:
    UndecidedDesignRefusedTestCase()
        : TestCase("a design that decides nothing is refused, not run with the defaults")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(std::is_abstract_v<UndecidedTestNetDevice>,
                              true,
                              "a subclass overriding no hook must not be instantiable");
        NS_TEST_ASSERT_MSG_EQ(std::is_abstract_v<OffloadNetDevice>,
                              true,
                              "the base must not be instantiable");
        NS_TEST_ASSERT_MSG_EQ(std::is_abstract_v<PluginTestNetDevice>,
                              false,
                              "a design that decides both hooks is instantiable");
        NS_TEST_ASSERT_MSG_EQ(OffloadNetDevice::GetTypeId().HasConstructor(),
                              false,
                              "ns3::OffloadNetDevice cannot be created by TypeId");

        std::string what;
        try
        {
            OffloadNicHelper nic;
            nic.SetDeviceType("ns3::OffloadNetDevice");
        }
        catch (const PrestoInputError& e)
        {
            what = e.what();
        }
        // refused as no strict subclass (the base is not a design), before its constructor
        NS_TEST_EXPECT_MSG_NE(what.find("ns3::OffloadNetDevice is not an offload NIC"),
                              std::string::npos,
                              "OffloadNicHelper refuses the base: " + what);

        const std::string dir = presto_test::FreshTempDir("presto-plugin", "undecided");
        what.clear();
        try
        {
            SprayExperiment e(SmallRun(dir + "/base", "ns3::OffloadNetDevice"));
        }
        catch (const PrestoInputError& err)
        {
            what = err.what();
        }
        NS_TEST_EXPECT_MSG_NE(what.find("is not a NIC design"),
                              std::string::npos,
                              "the experiment refuses the base: " + what);
        std::filesystem::remove_all(dir);
    }
};

/**
 * \ingroup presto-tests
 * \brief NIC designs found by TypeId.
 */
class DesignPluginTestSuite : public TestSuite
{
  public:
    DesignPluginTestSuite()
        : TestSuite("presto-design-plugin", TestSuite::Type::SYSTEM)
    {
        AddTestCase(new PluginDesignRunsTestCase, compat::TestDuration::QUICK);
        AddTestCase(new PluginCongestionRunsTestCase, compat::TestDuration::QUICK);
        AddTestCase(new DesignOptionsTestCase, compat::TestDuration::QUICK);
        AddTestCase(new UndecidedDesignRefusedTestCase, compat::TestDuration::QUICK);
    }
};

/// the suite's instance
DesignPluginTestSuite g_designPluginTestSuite;

} // namespace
