/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/presto-input-error.h"
#include "ns3/rpc-workload.h"

#include <cmath>
#include <gtest/gtest.h>
#include <set>
#include <vector>

using namespace ns3;

TEST(RpcWorkload, SizesAreFixedOrFromACdf)
{
    const RpcSizes fixed = RpcSizes::FromSpec("64", "--rpcRequest");
    EXPECT_EQ(fixed.Sample(0.0), 64u);
    EXPECT_EQ(fixed.Sample(0.999), 64u);
    EXPECT_DOUBLE_EQ(fixed.MeanBytes(), 64);
    const RpcSizes cdf = RpcSizes::FromSpec("googlerpc", "--rpcResponse");
    EXPECT_GT(cdf.MeanBytes(), 0);
    EXPECT_LE(cdf.Sample(0.0), cdf.Sample(0.5));
    EXPECT_LE(cdf.Sample(0.5), cdf.Sample(0.999));
    EXPECT_GE(cdf.Sample(0.0), 1u);
    for (const char* bad : {"0", "99999999999", "no-such-distribution"})
    {
        try
        {
            RpcSizes::FromSpec(bad, "--rpcRequest");
            ADD_FAILURE() << bad << " was accepted";
        }
        catch (const PrestoInputError& e)
        {
            EXPECT_NE(std::string(e.what()).find("--rpcRequest"), std::string::npos) << e.what();
        }
    }
}

TEST(RpcWorkload, EveryClientTalksToAnotherHostAndServersAreLoadedAlike)
{
    RpcWorkloadConfig c;
    c.hosts = 8;
    c.connectionsPerHost = 1000;
    c.seed = 42;
    c.Validate();
    ASSERT_EQ(c.Connections(), 8000u);
    std::vector<uint32_t> served(8, 0);
    for (uint64_t conn = 0; conn < c.Connections(); ++conn)
    {
        const uint32_t client = c.ClientOf(conn);
        EXPECT_EQ(client, conn / 1000);
        const uint32_t server = c.ServerOf(conn);
        ASSERT_LT(server, 8u);
        EXPECT_NE(server, client) << "connection " << conn;
        EXPECT_EQ(server, c.ServerOf(conn)) << "deterministic";
        ++served[server];
    }
    for (uint32_t h = 0; h < 8; ++h)
    {
        EXPECT_NEAR(served[h], 1000, 150) << "host " << h;
    }
    RpcWorkloadConfig other = c;
    other.seed = 43;
    uint32_t differ = 0;
    for (uint64_t conn = 0; conn < 100; ++conn)
    {
        differ += other.ServerOf(conn) != c.ServerOf(conn) ? 1 : 0;
    }
    EXPECT_GT(differ, 50u) << "another seed, other servers";
}

TEST(RpcWorkload, MessageSizesAreDeterministicPerConnectionAndFollowTheDistribution)
{
    const RpcSizes req = RpcSizes::FromSpec("googlerpc", "--rpcRequest");
    const RpcSizes resp = RpcSizes::FromSpec("100", "--rpcResponse");
    double sum = 0;
    const int n = 20000;
    std::set<uint64_t> seen;
    for (int k = 0; k < n; ++k)
    {
        const auto s = RpcMessageSizes(7, 3, k, req, resp);
        EXPECT_EQ(s, RpcMessageSizes(7, 3, k, req, resp));
        EXPECT_EQ(s.second, 100u);
        sum += static_cast<double>(s.first);
        seen.insert(s.first);
    }
    EXPECT_NEAR(sum / n, req.MeanBytes(), 0.1 * req.MeanBytes());
    EXPECT_GT(seen.size(), 10u);
    EXPECT_NE(RpcMessageSizes(7, 3, 0, req, resp), RpcMessageSizes(7, 4, 0, req, resp));
}

TEST(RpcWorkload, BadNumbersAreRefused)
{
    RpcWorkloadConfig c;
    c.hosts = 1;
    EXPECT_THROW(c.Validate(), PrestoInputError);
    c.hosts = 4;
    c.connectionsPerHost = 0;
    EXPECT_THROW(c.Validate(), PrestoInputError);
    c.connectionsPerHost = 1;
    c.outstanding = 0;
    EXPECT_THROW(c.Validate(), PrestoInputError);
    c.outstanding = 1;
    EXPECT_NO_THROW(c.Validate());
    for (double bad : {-1.0, 2e9, std::nan("")})
    {
        RpcWorkloadConfig r = c;
        r.ratePerHost = bad;
        EXPECT_TRUE(test::Contains(test::ErrorOf([&] { r.Validate(); }), {"--rpcRate="}));
    }
    RpcWorkloadConfig open = c;
    open.ratePerHost = 1e6;
    EXPECT_NO_THROW(open.Validate());
    open.outstanding = 4; // a closed-loop window beside an open loop: refused, not ignored
    EXPECT_TRUE(test::Contains(test::ErrorOf([&] { open.Validate(); }),
                               {"--rpcOutstanding=4", "--rpcRate"}));
    open.outstanding = 1;
    open.backlog = 0;
    EXPECT_TRUE(test::Contains(test::ErrorOf([&] { open.Validate(); }), {"--rpcBacklog=0"}));
}

// Open-loop gaps: exponential with the mean asked for (mean and spread), the same for the
// same (seed, connection, index), different across connections.
TEST(RpcWorkload, ArrivalGapsArePoissonAndRepeat)
{
    const double mean = 5000;
    double sum = 0;
    double sq = 0;
    const int n = 200000;
    for (int k = 0; k < n; ++k)
    {
        const double g = static_cast<double>(RpcArrivalGapNs(3, 11, k, mean));
        EXPECT_GE(g, 1);
        sum += g;
        sq += g * g;
    }
    const double m = sum / n;
    const double sd = std::sqrt(sq / n - m * m);
    EXPECT_NEAR(m, mean, 0.01 * mean);
    EXPECT_NEAR(sd, mean, 0.02 * mean); // exponential: the deviation equals the mean
    EXPECT_EQ(RpcArrivalGapNs(3, 11, 5, mean), RpcArrivalGapNs(3, 11, 5, mean));
    int same = 0;
    for (int k = 0; k < 100; ++k)
    {
        same += RpcArrivalGapNs(3, 11, k, mean) == RpcArrivalGapNs(3, 12, k, mean) ? 1 : 0;
    }
    EXPECT_LT(same, 5);
}

TEST(RpcWorkload, LatencyPercentiles)
{
    std::vector<uint64_t> v;
    for (uint64_t i = 1; i <= 10001; ++i)
    {
        v.push_back((10002 - i) * 1000); // reversed: Of sorts
    }
    const RpcLatencySummary s = RpcLatencySummary::Of(v);
    EXPECT_EQ(s.count, 10001u);
    EXPECT_DOUBLE_EQ(s.p50Ns, 5001000);
    EXPECT_DOUBLE_EQ(s.p99Ns, 9901000);
    EXPECT_DOUBLE_EQ(s.p9999Ns, 10000000);
    EXPECT_DOUBLE_EQ(s.maxNs, 10001000);
    EXPECT_DOUBLE_EQ(s.meanNs, 5001000);
    std::vector<uint64_t> none;
    EXPECT_EQ(RpcLatencySummary::Of(none).count, 0u);
}

TEST(RpcWorkload, WithRolesClientsConnectOnlyToServers)
{
    RpcWorkloadConfig c;
    c.hosts = 8;
    c.servers = 2;
    c.connectionsPerHost = 10;
    c.seed = 7;
    c.Validate();
    EXPECT_EQ(c.Connections(), 60u); // six clients
    std::vector<uint32_t> perServer(2, 0);
    for (uint64_t conn = 0; conn < c.Connections(); ++conn)
    {
        const uint32_t client = c.ClientOf(conn);
        const uint32_t server = c.ServerOf(conn);
        EXPECT_GE(client, 2u);
        EXPECT_LT(client, 8u);
        EXPECT_FALSE(client < 2) << "a server opened a connection";
        ASSERT_LT(server, 2u);
        EXPECT_TRUE(c.IsServer(server));
        EXPECT_FALSE(c.IsServer(client));
        ++perServer[server];
    }
    EXPECT_GT(perServer[0], 15u);
    EXPECT_GT(perServer[1], 15u);
    c.servers = 8;
    EXPECT_THROW(c.Validate(), PrestoInputError); // no client left
}

TEST(RpcWorkload, KeyValueMixFramesGetsAndSetsAndFollowsTheMix)
{
    RpcKvMix kv;
    kv.getFraction = 0.75;
    kv.keys = RpcSizes::FromSpec("30", "--kvKeys");
    kv.values = RpcSizes::FromSpec("100", "--kvValues");
    uint64_t gets = 0;
    const uint64_t n = 40000;
    for (uint64_t k = 0; k < n; ++k)
    {
        const auto s = kv.Sizes(3, 5, k);
        if (s.second)
        {
            ++gets;
            EXPECT_EQ(s.first.first, RpcKvMix::HEADER + 30);
            EXPECT_EQ(s.first.second, RpcKvMix::HEADER + 100);
        }
        else
        {
            EXPECT_EQ(s.first.first, RpcKvMix::HEADER + RpcKvMix::SET_EXTRAS + 30 + 100);
            EXPECT_EQ(s.first.second, RpcKvMix::HEADER);
        }
        EXPECT_EQ(s, kv.Sizes(3, 5, k)); // deterministic per connection and index
    }
    EXPECT_NEAR(double(gets) / n, 0.75, 0.01);
    const auto mean = kv.MeanBytes();
    EXPECT_DOUBLE_EQ(mean.first, 24 + 30 + 0.25 * (8 + 100));
    EXPECT_DOUBLE_EQ(mean.second, 24 + 0.75 * 100);
}

TEST(RpcWorkload, EtcKeyAndValueSizesFollowTheFittedMeans)
{
    // the GEV key fit has mean ~36 bytes; the value table 44.2% of 0-14 bytes
    const RpcSizes keys = RpcSizes::FromSpec("etc-key", "--kvKeys");
    const RpcSizes values = RpcSizes::FromSpec("etc-value", "--kvValues");
    EXPECT_NEAR(keys.MeanBytes(), 36.2, 1.0);
    uint64_t small = 0;
    for (int i = 0; i < 10000; ++i)
    {
        small += values.Sample((i + 0.5) / 10000) <= 14 ? 1 : 0;
    }
    EXPECT_NEAR(small / 10000.0, 0.442, 0.005);
}
