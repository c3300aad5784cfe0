/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/flow-size-cdf.h"
#include "ns3/flow-spec.h"
#include "ns3/presto-input-error.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

/// One-sample Kolmogorov-Smirnov statistic of integer samples against cdf.Cdf. The sampler
/// returns whole bytes, so the reference is Cdf at whole bytes: between two integers both
/// the empirical CDF and the reference are constant, and sup |Fn - F| is reached at a
/// sample value v (Fn(v) vs Cdf(v)) or just below it (Fn(v-) vs Cdf(v-1)).
double
KsStatistic(std::vector<uint64_t> samples, const FlowSizeCdf& cdf)
{
    std::sort(samples.begin(), samples.end());
    const double n = samples.size();
    double d = 0;
    size_t i = 0;
    while (i < samples.size())
    {
        size_t j = i;
        while (j < samples.size() && samples[j] == samples[i])
        {
            ++j;
        }
        const double v = static_cast<double>(samples[i]);
        d = std::max(d, std::fabs(j / n - cdf.Cdf(v)));
        d = std::max(d, std::fabs(i / n - cdf.Cdf(v - 1)));
        i = j;
    }
    return d;
}

std::vector<uint64_t>
Draw(const FlowSizeCdf& cdf, uint32_t n, int64_t stream)
{
    RngSeedManager::SetSeed(12345);
    RngSeedManager::SetRun(1);
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(stream);
    std::vector<uint64_t> s(n);
    for (auto& x : s)
    {
        x = cdf.Sample(u->GetValue());
    }
    return s;
}

FlowSizeCdf
FromText(const std::string& text, const std::string& name = "test.cdf")
{
    std::istringstream in(text);
    return FlowSizeCdf::Parse(in, name);
}

/// The message of the PrestoInputError thrown by Parse, or "" if none was thrown.
std::string
ParseError(const std::string& text, const std::string& name)
{
    try
    {
        FromText(text, name);
    }
    catch (const PrestoInputError& e)
    {
        return e.what();
    }
    return "";
}

/// A private temporary directory, removed at the end of the test.
class TempDir
{
  public:
    TempDir()
    {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_path = std::filesystem::temp_directory_path() /
                 ("presto-cdf-" + std::string(info->name()) + "-" + std::to_string(getpid()));
        std::filesystem::create_directories(m_path);
    }

    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(m_path, ec);
    }

    std::string Write(const std::string& name, const std::string& text) const
    {
        const auto p = (m_path / name).string();
        std::ofstream(p) << text;
        return p;
    }

    std::string Path() const
    {
        return m_path.string();
    }

  private:
    std::filesystem::path m_path;
};

/// Sets an environment variable for the scope and restores the previous value.
class ScopedEnv
{
  public:
    ScopedEnv(const char* name, const std::string& value)
        : m_name(name)
    {
        const char* old = std::getenv(name);
        m_had = old != nullptr;
        m_old = m_had ? old : "";
        setenv(name, value.c_str(), 1);
    }

    ~ScopedEnv()
    {
        if (m_had)
        {
            setenv(m_name, m_old.c_str(), 1);
        }
        else
        {
            unsetenv(m_name);
        }
    }

  private:
    const char* m_name;
    bool m_had;
    std::string m_old;
};

} // namespace

TEST(FlowSizeCdf, ShippedCdfsLoadAndAreValid)
{
    for (const auto& name : FlowSizeCdf::BuiltinNames())
    {
        const auto cdf = FlowSizeCdf::Load(name);
        EXPECT_EQ(cdf.GetName(), name);
        const auto& pts = cdf.GetPoints();
        ASSERT_GE(pts.size(), 2U) << name;
        EXPECT_DOUBLE_EQ(pts.back().second, 1.0) << name;
        for (size_t i = 1; i < pts.size(); ++i)
        {
            EXPECT_GE(pts[i].first, pts[i - 1].first) << name << " point " << i;
            EXPECT_GE(pts[i].second, pts[i - 1].second) << name << " point " << i;
        }
        EXPECT_GT(cdf.MeanBytes(), pts.front().first) << name;
        EXPECT_LT(cdf.MeanBytes(), pts.back().first) << name;
    }
}

TEST(FlowSizeCdf, PublishedMeansMatch)
{
    // Means quoted by the simulators these files come from: PIAS/HPCC use 1711250 bytes
    // for web search; PIAS uses 5117 packets of 1460 bytes for data mining (VL2).
    EXPECT_NEAR(FlowSizeCdf::Load("websearch").MeanBytes(), 1711250.0, 1.0);
    EXPECT_NEAR(FlowSizeCdf::Load("datamining").MeanBytes(), 5117.0 * 1460, 0.001 * 5117 * 1460);
}

TEST(FlowSizeCdf, KolmogorovSmirnovOfEveryShippedCdf)
{
    const uint32_t n = 20000;
    const double critical = 1.63 / std::sqrt(static_cast<double>(n)); // alpha = 0.01
    int64_t stream = 1;
    for (const auto& name : FlowSizeCdf::BuiltinNames())
    {
        const auto cdf = FlowSizeCdf::Load(name);
        const double d = KsStatistic(Draw(cdf, n, stream++), cdf);
        EXPECT_LT(d, critical) << name;
    }
}

TEST(FlowSizeCdf, KolmogorovSmirnovRejectsTheWrongDistribution)
{
    // The statistic above has power: websearch samples are far from the hadoop CDF.
    const uint32_t n = 20000;
    const auto websearch = FlowSizeCdf::Load("websearch");
    const auto hadoop = FlowSizeCdf::Load("hadoop");
    EXPECT_GT(KsStatistic(Draw(websearch, n, 7), hadoop), 1.63 / std::sqrt(double(n)));
}

TEST(FlowSizeCdf, SampleInvertsPiecewiseLinearCdf)
{
    const auto cdf = FromText("# a comment\n\n0 0\n100 0.5\n300 1\n");
    EXPECT_EQ(cdf.Sample(0.25), 50U);
    EXPECT_EQ(cdf.Sample(0.5), 100U);
    EXPECT_EQ(cdf.Sample(0.75), 200U);
    EXPECT_EQ(cdf.Sample(0.0), 1U); // at least one byte
    EXPECT_EQ(cdf.Sample(0.9999999), 300U);
    EXPECT_DOUBLE_EQ(cdf.Cdf(50), 0.25);
    EXPECT_DOUBLE_EQ(cdf.Cdf(200), 0.75);
    EXPECT_DOUBLE_EQ(cdf.Cdf(-1), 0.0);
    EXPECT_DOUBLE_EQ(cdf.Cdf(1e9), 1.0);
    // Analytic mean: uniform on [0,100] w.p. 0.5, uniform on [100,300] w.p. 0.5.
    EXPECT_DOUBLE_EQ(cdf.MeanBytes(), 0.5 * 50 + 0.5 * 200);
    // Sample(Cdf(x)) rounds x up to a whole byte.
    for (double x : {1.0, 17.3, 99.0, 150.5, 299.9})
    {
        EXPECT_EQ(cdf.Sample(cdf.Cdf(x)), static_cast<uint64_t>(std::ceil(x))) << x;
    }
}

TEST(FlowSizeCdf, RepeatedSizeIsAPointMass)
{
    const auto cdf = FromText("1460 0\n1460 0.5\n2920 1\n");
    EXPECT_DOUBLE_EQ(cdf.Cdf(1459.99), 0.0);
    EXPECT_DOUBLE_EQ(cdf.Cdf(1460), 0.5);
    EXPECT_EQ(cdf.Sample(0.0), 1460U);
    EXPECT_EQ(cdf.Sample(0.49), 1460U);
    EXPECT_EQ(cdf.Sample(0.75), 2190U);
    EXPECT_DOUBLE_EQ(cdf.MeanBytes(), 0.5 * 1460 + 0.5 * 2190);
    const auto s = Draw(cdf, 20000, 3);
    const double atMass = std::count(s.begin(), s.end(), 1460U) / 20000.0;
    EXPECT_NEAR(atMass, 0.5, 0.015);
}

TEST(FlowSizeCdf, SampleMeanConvergesToMeanBytes)
{
    const auto cdf = FlowSizeCdf::Load("hadoop");
    const auto s = Draw(cdf, 200000, 11);
    double sum = 0;
    double sumSq = 0;
    for (auto x : s)
    {
        sum += x;
        sumSq += double(x) * x;
    }
    const double mean = sum / s.size();
    const double sd = std::sqrt(sumSq / s.size() - mean * mean);
    // Four standard errors, plus the < 1 byte added by rounding up to whole bytes.
    EXPECT_NEAR(mean, cdf.MeanBytes(), 4 * sd / std::sqrt(double(s.size())) + 1);
}

TEST(FlowSizeCdf, BucketEdgesAreRoundAndCoverTheCdf)
{
    for (const auto& name : FlowSizeCdf::BuiltinNames())
    {
        const auto cdf = FlowSizeCdf::Load(name);
        const auto edges = cdf.DefaultBucketEdges();
        ASSERT_GE(edges.size(), 4U) << name;
        EXPECT_LE(edges.size(), 6U) << name;
        EXPECT_GE(double(edges.back()), cdf.GetPoints().back().first) << name;
        for (size_t i = 0; i < edges.size(); ++i)
        {
            if (i > 0)
            {
                EXPECT_GT(edges[i], edges[i - 1]) << name;
            }
            if (i + 1 < edges.size())
            {
                // Round numbers: 1 or 3 times a power of ten.
                uint64_t e = edges[i];
                while (e % 10 == 0)
                {
                    e /= 10;
                }
                EXPECT_TRUE(e == 1 || e == 3) << name << " edge " << edges[i];
                // Every bucket below the last edge holds some flows.
                const double lo = i == 0 ? -1.0 : double(edges[i - 1]);
                EXPECT_GT(cdf.Cdf(double(edges[i])) - cdf.Cdf(lo), 0.0) << name;
            }
        }
    }
    const std::vector<uint64_t> websearch{10000, 100000, 1000000, 10000000, 30000000};
    EXPECT_EQ(FlowSizeCdf::Load("websearch").DefaultBucketEdges(), websearch);
}

TEST(FlowSizeCdf, DataDirectoryComesFromTheEnvironment)
{
    TempDir dir;
    dir.Write("hadoop.cdf", "# replacement\n500 0\n500 1\n");
    ScopedEnv env("PRESTO_DATA_DIR", dir.Path());
    const auto cdf = FlowSizeCdf::Load("hadoop");
    EXPECT_EQ(cdf.GetName(), "hadoop");
    EXPECT_EQ(cdf.Sample(0.3), 500U);
}

TEST(FlowSizeCdf, LoadByPath)
{
    TempDir dir;
    const auto path = dir.Write("mine.cdf", "10 0\n20 1\n");
    const auto cdf = FlowSizeCdf::Load(path);
    EXPECT_EQ(cdf.GetName(), path);
    EXPECT_DOUBLE_EQ(cdf.MeanBytes(), 15.0);
}

TEST(FlowSizeCdf, MalformedFilesNameFileAndLine)
{
    struct Case
    {
        const char* what;
        const char* text;
        int line;
    };

    const Case cases[] = {
        {"unparsable size", "# h\n0 0\nabc 0.5\n100 1\n", 3},
        {"unparsable probability", "0 0\n100 half\n", 2},
        {"size with unit suffix", "0 0\n10KB 1\n", 2},
        {"trailing garbage", "0 0\n100 1 extra\n", 2},
        {"missing probability", "0 0\n\n100\n", 3},
        {"negative size", "-5 0\n100 1\n", 1},
        {"probability above 1", "0 0\n100 15\n200 100\n", 2},
        {"negative probability", "0 -0.1\n100 1\n", 1},
        {"non-finite size", "0 0\ninf 1\n", 2},
        {"decreasing size", "0 0\n200 0.5\n100 1\n", 3},
        {"decreasing probability", "0 0\n100 0.6\n200 0.5\n300 1\n", 3},
        {"last probability not 1", "0 0\n100 0.5\n\n200 0.99\n# end\n", 4},
        {"empty file", "", 1},
        {"only comments", "# a\n# b\n\n", 3},
    };
    for (const auto& c : cases)
    {
        const std::string msg = ParseError(c.text, "bad-input.cdf");
        ASSERT_FALSE(msg.empty()) << c.what << ": no PrestoInputError";
        EXPECT_NE(msg.find("bad-input.cdf"), std::string::npos) << c.what << ": " << msg;
        EXPECT_NE(msg.find("line " + std::to_string(c.line) + ":"), std::string::npos)
            << c.what << ": " << msg;
    }
    // Within tolerance, a last probability of 1 - 1e-12 is accepted and snapped to 1.
    EXPECT_DOUBLE_EQ(FromText("0 0\n100 0.999999999999\n").GetPoints().back().second, 1.0);
}

TEST(FlowSizeCdf, MalformedFileOnDiskNamesItsPath)
{
    TempDir dir;
    const auto path = dir.Write("broken.cdf", "0 0\n100 0.5\n");
    try
    {
        FlowSizeCdf::Load(path);
        FAIL() << "no PrestoInputError";
    }
    catch (const PrestoInputError& e)
    {
        EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("line 2:"), std::string::npos) << e.what();
    }
}

TEST(FlowSizeCdf, MissingFileAndUnknownNameListTheBuiltins)
{
    const std::string missing = "/nonexistent-dir/flows.cdf";
    for (const std::string& arg : {missing, std::string("websearh")})
    {
        try
        {
            FlowSizeCdf::Load(arg);
            FAIL() << arg << ": no PrestoInputError";
        }
        catch (const PrestoInputError& e)
        {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(arg), std::string::npos) << msg;
            for (const auto& name : FlowSizeCdf::BuiltinNames())
            {
                EXPECT_NE(msg.find(name), std::string::npos) << msg;
            }
        }
    }
}

TEST(FlowSizeCdf, MissingBuiltinFileNamesThePath)
{
    TempDir dir; // empty: no .cdf files
    ScopedEnv env("PRESTO_DATA_DIR", dir.Path());
    try
    {
        FlowSizeCdf::Load("websearch");
        FAIL() << "no PrestoInputError";
    }
    catch (const PrestoInputError& e)
    {
        EXPECT_NE(std::string(e.what()).find(dir.Path() + "/websearch.cdf"), std::string::npos)
            << e.what();
    }
}

TEST(FlowSizeCdf, SizesBeyondTheLargestFlowAreRefusedAtLoad)
{
    // A size above 2^64 used to overflow a float-to-integer cast (in Sample and
    // DefaultBucketEdges) and fail only after the run; every size above 2^53 bytes, and
    // every size that is not finite, is now refused with the file and the line.
    for (const char* size :
         {"1e20", "18446744073709551616", "9007199254740994", "1e400", "inf", "nan"})
    {
        const std::string msg =
            ParseError(std::string("0 0\n1000 0.5\n") + size + " 1\n", "huge.cdf");
        EXPECT_NE(msg.find("huge.cdf', line 3:"), std::string::npos) << size << ": " << msg;
        EXPECT_NE(msg.find(size), std::string::npos) << msg;
    }
    const auto edge = FromText("0 0\n9007199254740992 1\n");
    EXPECT_LE(edge.Sample(0.999999), MAX_FLOW_BYTES);
    EXPECT_EQ(edge.DefaultBucketEdges().back(), MAX_FLOW_BYTES);
}

TEST(FlowSizeCdf, MessagesQuoteAShortExcerpt)
{
    const std::string msg = ParseError("0 0\n" + std::string(1000000, '5') + "x 1\n", "l.cdf");
    EXPECT_NE(msg.find("l.cdf:2: line longer than 4096 characters, starting '5555"),
              std::string::npos)
        << msg.substr(0, 200);
    EXPECT_LT(msg.size(), 250U);
    const std::string token = ParseError("0 0\n" + std::string(3000, '5') + "x 1\n", "t.cdf");
    EXPECT_NE(token.find("t.cdf', line 2: cannot parse size '5555"), std::string::npos) << token;
    EXPECT_LT(token.size(), 300U); // the excerpt and why it was refused
}

TEST(FlowSizeCdf, PipeIsReadOnce)
{
    // --workload=/dev/stdin: the first Load reads the pipe, a later one gets the same text
    TempDir dir;
    const std::string fifo = dir.Path() + "/sizes.cdf";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    std::thread writer([&fifo] {
        std::ofstream out(fifo);
        out << "100 0\n300 1\n";
    });
    const auto first = FlowSizeCdf::Load(fifo);
    writer.join();
    auto again = std::async(std::launch::async, [&fifo] { return FlowSizeCdf::Load(fifo); });
    if (again.wait_for(std::chrono::seconds(5)) != std::future_status::ready)
    {
        std::ofstream unblock(fifo); // not kept: let the second read end (and fail)
    }
    EXPECT_DOUBLE_EQ(first.MeanBytes(), 200.0);
    EXPECT_DOUBLE_EQ(again.get().MeanBytes(), 200.0);
}
