/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/flow-generator.h"
#include "ns3/flow-size-cdf.h"
#include "ns3/presto-input-error.h"
#include "ns3/random-variable-stream.h"
#include "ns3/rng-seed-manager.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

Ptr<UniformRandomVariable>
Stream(int64_t stream, uint32_t seed = 4242)
{
    RngSeedManager::SetSeed(seed);
    RngSeedManager::SetRun(1);
    Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
    u->SetStream(stream);
    return u;
}

FlowGeneratorConfig
BaseConfig(TrafficPattern pattern)
{
    FlowGeneratorConfig c;
    c.nHosts = 16;
    c.load = 0.5;
    c.hostRateBps = 10e9;
    c.startNs = 0;
    c.durationNs = 1000000000; // 1 s
    c.pattern = pattern;
    c.incastSenders = 8;
    return c;
}

/// Duration (ns) in which the configuration is expected to produce about `flows` flows.
int64_t
DurationForFlows(const FlowGeneratorConfig& c, const FlowSizeCdf& cdf, double flows)
{
    const double lambda = c.load * c.nHosts * c.hostRateBps / (8 * cdf.MeanBytes());
    return static_cast<int64_t>(flows / lambda * 1e9);
}

/// KS statistic of continuous samples against an exponential with the given mean.
double
KsExponential(std::vector<double> x, double mean)
{
    std::sort(x.begin(), x.end());
    const double n = x.size();
    double d = 0;
    for (size_t i = 0; i < x.size(); ++i)
    {
        const double f = 1 - std::exp(-x[i] / mean);
        d = std::max({d, (i + 1) / n - f, f - i / n});
    }
    return d;
}

/// Gaps between the distinct start times of consecutive flows (events), ns.
std::vector<double>
EventGaps(const std::vector<FlowSpec>& flows, int64_t startNs)
{
    std::vector<double> gaps;
    int64_t last = startNs;
    for (size_t i = 0; i < flows.size(); ++i)
    {
        if (i > 0 && flows[i].startNs == flows[i - 1].startNs)
        {
            continue;
        }
        gaps.push_back(static_cast<double>(flows[i].startNs - last));
        last = flows[i].startNs;
    }
    return gaps;
}

std::string
ConfigError(const FlowGeneratorConfig& c)
{
    try
    {
        GenerateFlows(c, FlowSizeCdf::Load("websearch"), Stream(1));
    }
    catch (const PrestoInputError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(FlowGenerator, PatternNames)
{
    for (auto p : {TrafficPattern::ALL_TO_ALL, TrafficPattern::PERMUTATION, TrafficPattern::INCAST})
    {
        EXPECT_EQ(TrafficPatternFromString(ToString(p)), p);
    }
    try
    {
        TrafficPatternFromString("alltoall");
        FAIL() << "no PrestoInputError";
    }
    catch (const PrestoInputError& e)
    {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("alltoall"), std::string::npos) << msg;
        for (const char* name : {"all-to-all", "permutation", "incast"})
        {
            EXPECT_NE(msg.find(name), std::string::npos) << msg;
        }
    }
}

TEST(FlowGenerator, BadConfigNamesTheField)
{
    struct Case
    {
        const char* field;
        FlowGeneratorConfig config;
    };

    std::vector<Case> cases;
    auto add = [&cases](const char* field, auto change) {
        FlowGeneratorConfig c = BaseConfig(TrafficPattern::INCAST);
        change(c);
        cases.push_back({field, c});
    };
    add("nHosts", [](FlowGeneratorConfig& c) { c.nHosts = 1; });
    add("nHosts", [](FlowGeneratorConfig& c) { c.nHosts = 0; });
    add("load", [](FlowGeneratorConfig& c) { c.load = 0; });
    add("load", [](FlowGeneratorConfig& c) { c.load = 1.01; });
    add("load", [](FlowGeneratorConfig& c) { c.load = -0.5; });
    add("load", [](FlowGeneratorConfig& c) { c.load = std::nan(""); });
    add("hostRateBps", [](FlowGeneratorConfig& c) { c.hostRateBps = 0; });
    add("durationNs", [](FlowGeneratorConfig& c) { c.durationNs = 0; });
    add("durationNs", [](FlowGeneratorConfig& c) { c.durationNs = -5; });
    add("incastSenders", [](FlowGeneratorConfig& c) { c.incastSenders = 0; });
    add("incastSenders", [](FlowGeneratorConfig& c) { c.incastSenders = 16; });
    for (const auto& c : cases)
    {
        const std::string msg = ConfigError(c.config);
        ASSERT_FALSE(msg.empty()) << c.field << ": no PrestoInputError";
        EXPECT_NE(msg.find(c.field), std::string::npos) << msg;
    }
    // The boundary values are accepted.
    auto ok = BaseConfig(TrafficPattern::INCAST);
    ok.load = 1.0;
    ok.incastSenders = 15;
    ok.durationNs = 1000000;
    EXPECT_EQ(ConfigError(ok), "");
    ok.nHosts = 2;
    ok.incastSenders = 1;
    EXPECT_EQ(ConfigError(ok), "");
}

TEST(FlowGenerator, OfferedLoadMatchesTargetForEveryPattern)
{
    const auto cdf = FlowSizeCdf::Load("websearch");
    int64_t stream = 1;
    for (auto pattern :
         {TrafficPattern::ALL_TO_ALL, TrafficPattern::PERMUTATION, TrafficPattern::INCAST})
    {
        for (double load : {0.3, 0.8})
        {
            auto c = BaseConfig(pattern);
            c.load = load;
            c.startNs = 1000000;
            // About 300,000 flows: the sum of heavy-tailed sizes is then within ~0.6-1%
            // (one standard deviation) of its mean, so 3% is a 3+ sigma test.
            c.durationNs = DurationForFlows(c, cdf, 300000);
            const auto flows = GenerateFlows(c, cdf, Stream(stream++));
            double bytes = 0;
            for (const auto& f : flows)
            {
                bytes += f.sizeBytes;
            }
            const double target = load * c.hostRateBps * c.nHosts * (c.durationNs * 1e-9) / 8;
            RecordProperty(ToString(pattern) + "-" + std::to_string(load),
                           std::to_string(bytes / target));
            EXPECT_NEAR(bytes / target, 1.0, 0.03)
                << ToString(pattern) << " load " << load << ": " << flows.size() << " flows";
        }
    }
}

TEST(FlowGenerator, FlowsAreSortedNumberedAndInsideTheWindow)
{
    const auto cdf = FlowSizeCdf::Load("hadoop");
    for (auto pattern :
         {TrafficPattern::ALL_TO_ALL, TrafficPattern::PERMUTATION, TrafficPattern::INCAST})
    {
        auto c = BaseConfig(pattern);
        c.startNs = 7000000;
        c.durationNs = 20000000;
        c.dport = 4321;
        const auto flows = GenerateFlows(c, cdf, Stream(3));
        ASSERT_GT(flows.size(), 1000U) << ToString(pattern);
        for (size_t i = 0; i < flows.size(); ++i)
        {
            const auto& f = flows[i];
            EXPECT_EQ(f.id, i);
            EXPECT_GE(f.startNs, c.startNs);
            EXPECT_LT(f.startNs, c.startNs + c.durationNs);
            if (i > 0)
            {
                EXPECT_GE(f.startNs, flows[i - 1].startNs);
            }
            EXPECT_LT(f.src, c.nHosts);
            EXPECT_LT(f.dst, c.nHosts);
            EXPECT_NE(f.src, f.dst);
            EXPECT_GE(f.sizeBytes, 1U);
            EXPECT_EQ(f.dport, 4321);
        }
    }
}

TEST(FlowGenerator, InterArrivalsAreExponential)
{
    const auto cdf = FlowSizeCdf::Load("websearch");
    for (auto pattern : {TrafficPattern::ALL_TO_ALL, TrafficPattern::INCAST})
    {
        auto c = BaseConfig(pattern);
        const double flowsPerEvent = pattern == TrafficPattern::INCAST ? c.incastSenders : 1;
        c.durationNs = DurationForFlows(c, cdf, 20000 * flowsPerEvent);
        const auto flows = GenerateFlows(c, cdf, Stream(5));
        const auto gaps = EventGaps(flows, c.startNs);
        ASSERT_GE(gaps.size(), 15000U);
        // Mean from the load definition, not fitted to the data.
        const double lambda = c.load * c.nHosts * c.hostRateBps / (8 * cdf.MeanBytes());
        const double meanGapNs = 1e9 * flowsPerEvent / lambda;
        const double critical = 1.63 / std::sqrt(double(gaps.size()));
        EXPECT_LT(KsExponential(gaps, meanGapNs), critical) << ToString(pattern);
        // The test has power: a 15% wrong rate is rejected.
        EXPECT_GT(KsExponential(gaps, 1.15 * meanGapNs), critical) << ToString(pattern);
    }
}

TEST(FlowGenerator, AllToAllPairsAreUniform)
{
    const auto cdf = FlowSizeCdf::Load("hadoop");
    auto c = BaseConfig(TrafficPattern::ALL_TO_ALL);
    c.maxFlows = 48000;
    const auto flows = GenerateFlows(c, cdf, Stream(9));
    ASSERT_EQ(flows.size(), c.maxFlows);
    std::vector<double> src(c.nHosts, 0);
    std::vector<double> dst(c.nHosts, 0);
    for (const auto& f : flows)
    {
        src[f.src] += 1;
        dst[f.dst] += 1;
    }
    // Chi-square with 15 degrees of freedom; 37.70 is the 0.999 quantile.
    const double expected = double(flows.size()) / c.nHosts;
    double chiSrc = 0;
    double chiDst = 0;
    for (uint32_t h = 0; h < c.nHosts; ++h)
    {
        chiSrc += (src[h] - expected) * (src[h] - expected) / expected;
        chiDst += (dst[h] - expected) * (dst[h] - expected) / expected;
    }
    EXPECT_LT(chiSrc, 37.70);
    EXPECT_LT(chiDst, 37.70);
}

TEST(FlowGenerator, PermutationIsADerangementFixedForTheRun)
{
    const auto cdf = FlowSizeCdf::Load("hadoop");
    std::set<std::vector<uint32_t>> seen;
    for (uint32_t nHosts : {2U, 3U, 16U, 17U})
    {
        for (int64_t stream = 1; stream <= 5; ++stream)
        {
            auto c = BaseConfig(TrafficPattern::PERMUTATION);
            c.nHosts = nHosts;
            c.maxFlows = 200 * nHosts;
            const auto flows = GenerateFlows(c, cdf, Stream(stream));
            std::map<uint32_t, uint32_t> partner;
            for (const auto& f : flows)
            {
                auto it = partner.emplace(f.src, f.dst).first;
                EXPECT_EQ(it->second, f.dst) << "host " << f.src << " sends to two hosts";
                EXPECT_NE(f.src, f.dst);
            }
            // With 200 flows per host every host has sent; the map is a bijection.
            ASSERT_EQ(partner.size(), nHosts);
            std::set<uint32_t> receivers;
            std::vector<uint32_t> perm;
            for (const auto& [s, d] : partner)
            {
                receivers.insert(d);
                perm.push_back(d);
            }
            EXPECT_EQ(receivers.size(), nHosts);
            if (nHosts == 16)
            {
                seen.insert(perm);
            }
        }
    }
    // Different streams draw different derangements.
    EXPECT_GT(seen.size(), 1U);
}

TEST(FlowGenerator, IncastEventsHaveDistinctSendersToOneReceiver)
{
    const auto cdf = FlowSizeCdf::Load("websearch");
    for (uint32_t n : {1U, 8U, 15U})
    {
        auto c = BaseConfig(TrafficPattern::INCAST);
        c.incastSenders = n;
        c.durationNs = DurationForFlows(c, cdf, 2000 * n);
        const auto flows = GenerateFlows(c, cdf, Stream(13));
        ASSERT_GT(flows.size(), 0U);
        ASSERT_EQ(flows.size() % n, 0U) << "a partial incast event";
        uint32_t sameSizeEvents = 0;
        std::vector<uint32_t> receiverCount(c.nHosts, 0);
        for (size_t e = 0; e < flows.size(); e += n)
        {
            std::set<uint32_t> senders;
            std::set<uint64_t> sizes;
            for (size_t k = e; k < e + n; ++k)
            {
                EXPECT_EQ(flows[k].startNs, flows[e].startNs) << "event " << e / n;
                EXPECT_EQ(flows[k].dst, flows[e].dst) << "event " << e / n;
                senders.insert(flows[k].src);
                sizes.insert(flows[k].sizeBytes);
            }
            EXPECT_EQ(senders.size(), n) << "event " << e / n;
            sameSizeEvents += n > 1 && sizes.size() == 1 ? 1 : 0;
            EXPECT_EQ(senders.count(flows[e].dst), 0U);
            if (e + n < flows.size())
            {
                EXPECT_GT(flows[e + n].startNs, flows[e].startNs) << "events merged";
            }
            receiverCount[flows[e].dst]++;
        }
        // Sizes are drawn per flow, not once per event; every host gets to be a receiver.
        EXPECT_LT(sameSizeEvents, flows.size() / n / 100);
        for (uint32_t h = 0; h < c.nHosts; ++h)
        {
            EXPECT_GT(receiverCount[h], 0U) << "host " << h;
        }
    }
}

TEST(FlowGenerator, SameStreamSameFlows)
{
    const auto cdf = FlowSizeCdf::Load("websearch");
    auto fields = [](const std::vector<FlowSpec>& v) {
        std::ostringstream os;
        for (const auto& f : v)
        {
            os << f.id << ' ' << f.src << ' ' << f.dst << ' ' << f.priority << ' ' << f.dport << ' '
               << f.sizeBytes << ' ' << f.startNs << '\n';
        }
        return os.str();
    };
    for (auto pattern :
         {TrafficPattern::ALL_TO_ALL, TrafficPattern::PERMUTATION, TrafficPattern::INCAST})
    {
        const auto c = BaseConfig(pattern);
        const auto a = GenerateFlows(c, cdf, Stream(21));
        const auto b = GenerateFlows(c, cdf, Stream(21));
        ASSERT_GT(a.size(), 100U);
        EXPECT_EQ(fields(a), fields(b)) << ToString(pattern);
        EXPECT_NE(fields(a), fields(GenerateFlows(c, cdf, Stream(22)))) << ToString(pattern);
        EXPECT_NE(fields(a), fields(GenerateFlows(c, cdf, Stream(21, 99)))) << ToString(pattern);
    }
}

TEST(FlowGenerator, MaxFlowsStopsExactly)
{
    const auto cdf = FlowSizeCdf::Load("hadoop");
    for (auto pattern :
         {TrafficPattern::ALL_TO_ALL, TrafficPattern::PERMUTATION, TrafficPattern::INCAST})
    {
        auto c = BaseConfig(pattern);
        c.maxFlows = 1003; // not a multiple of the incast fan-in
        const auto limited = GenerateFlows(c, cdf, Stream(2));
        EXPECT_EQ(limited.size(), 1003U) << ToString(pattern);
        // The limited run is a prefix of the unlimited one.
        c.maxFlows = 0;
        const auto full = GenerateFlows(c, cdf, Stream(2));
        ASSERT_GT(full.size(), limited.size());
        for (size_t i = 0; i < limited.size(); ++i)
        {
            EXPECT_EQ(limited[i].startNs, full[i].startNs);
            EXPECT_EQ(limited[i].sizeBytes, full[i].sizeBytes);
        }
    }
}

TEST(FlowGenerator, TinyMeanIsAnErrorNotAnEndlessLoop)
{
    // "1e-300 1": the gap between arrivals is 0 ns and the loop never reached the end of the
    // window; "0 0 / 0 1": mean 0. Both are refused, naming the distribution.
    for (const char* text : {"1e-300 1\n", "0 0\n0 1\n", "0 0\n1 1\n"})
    {
        std::istringstream in(text);
        const auto cdf = FlowSizeCdf::Parse(in, "tiny.cdf");
        try
        {
            GenerateFlows(BaseConfig(TrafficPattern::ALL_TO_ALL), cdf, Stream(1));
            ADD_FAILURE() << text << ": no PrestoInputError";
        }
        catch (const PrestoInputError& e)
        {
            const std::string msg = e.what();
            EXPECT_NE(msg.find("'tiny.cdf' has mean"), std::string::npos) << msg;
            EXPECT_NE(msg.find("below 1 byte"), std::string::npos) << msg;
        }
    }
}

TEST(FlowGenerator, AbsurdFlowCountIsRefusedBeforeGenerating)
{
    // Every flow 1 byte at load 0.5 on 16 x 10 Gbit/s for 20 ms: 10^10 flows/s, 2*10^8
    // flows. Refused up front, with the count; maxFlows makes it a bounded prefix.
    std::istringstream in("1 1\n");
    const auto cdf = FlowSizeCdf::Parse(in, "one-byte.cdf");
    auto c = BaseConfig(TrafficPattern::ALL_TO_ALL);
    c.durationNs = 20000000;
    try
    {
        GenerateFlows(c, cdf, Stream(1));
        FAIL() << "no PrestoInputError";
    }
    catch (const PrestoInputError& e)
    {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("'one-byte.cdf' (mean 1 bytes) at load 0.5"), std::string::npos) << msg;
        EXPECT_NE(msg.find("needs about 200000000 flows, more than the limit of 10000000"),
                  std::string::npos)
            << msg;
    }
    c.maxFlows = 1000;
    EXPECT_EQ(GenerateFlows(c, cdf, Stream(1)).size(), 1000U);
    // the limit is a field: a smaller one refuses a smaller run
    c.maxFlows = 0;
    c.flowLimit = 100;
    c.durationNs = 1000000000; // websearch: about 6,000 flows in 1 s
    EXPECT_THROW(GenerateFlows(c, FlowSizeCdf::Load("websearch"), Stream(1)), PrestoInputError);
}
