/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "rpc-workload.h"

#include "ns3/percentile.h"
#include "ns3/presto-input-error.h"
#include "ns3/splitmix.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <cmath>
#include <sstream>

// Pure logic (no Simulator): RpcEndpoint and the experiment use it, the unit tests alone.

namespace ns3
{

namespace
{

/// Largest fixed message, bytes (1 GiB): sizes are counters in 64 bits, but a message
/// beyond this is certainly a typo.
constexpr uint64_t MAX_MESSAGE = uint64_t{1} << 30;

/// A uniform double in [0, 1) from 53 random bits.
double
Uniform(uint64_t bits)
{
    return static_cast<double>(bits >> 11) * (1.0 / 9007199254740992.0);
}

} // namespace

RpcSizes
RpcSizes::FromSpec(const std::string& spec, const std::string& where)
{
    RpcSizes s;
    s.m_spec = spec;
    if (!spec.empty() && spec.find_first_not_of("0123456789") == std::string::npos)
    {
        uint64_t n = 0;
        std::string why;
        if (!WholeToken::Parse(spec, MAX_MESSAGE, n, why) || n == 0)
        {
            throw PrestoInputError(where + "=" + spec + ": a fixed size must be 1.." +
                                   std::to_string(MAX_MESSAGE) + " bytes");
        }
        s.m_fixed = n;
        return s;
    }
    try
    {
        s.m_cdf = std::make_shared<FlowSizeCdf>(FlowSizeCdf::Load(spec));
    }
    catch (const PrestoInputError& e)
    {
        throw PrestoInputError(where + "=" + spec +
                               ": neither a size in bytes nor a size distribution: " + e.what());
    }
    return s;
}

uint64_t
RpcSizes::Sample(double u) const
{
    return m_cdf ? std::max<uint64_t>(1, m_cdf->Sample(u)) : m_fixed;
}

double
RpcSizes::MeanBytes() const
{
    return m_cdf ? m_cdf->MeanBytes() : static_cast<double>(m_fixed);
}

const std::string&
RpcSizes::GetSpec() const
{
    return m_spec;
}

void
RpcWorkloadConfig::Validate() const
{
    if (hosts < 2)
    {
        throw PrestoInputError("the RPC workload needs at least 2 hosts (got " +
                               std::to_string(hosts) + ")");
    }
    if (connectionsPerHost == 0 || connectionsPerHost > 1000000)
    {
        throw PrestoInputError("--rpcConnections=" + std::to_string(connectionsPerHost) +
                               " must be 1..1000000 connections per host");
    }
    if (servers >= hosts)
    {
        throw PrestoInputError("--rpcServers=" + std::to_string(servers) +
                               " leaves no client among " + std::to_string(hosts) +
                               " hosts: give 1.." + std::to_string(hosts - 1) +
                               " (0: every host is both)");
    }
    if (outstanding == 0 || outstanding > 1024)
    {
        throw PrestoInputError("--rpcOutstanding=" + std::to_string(outstanding) +
                               " must be 1..1024 requests per connection");
    }
    // an arrival per ns per host is far beyond any NIC; NaN fails both comparisons
    if (!(ratePerHost >= 0 && ratePerHost <= 1e9))
    {
        std::ostringstream v;
        v << ratePerHost;
        throw PrestoInputError("--rpcRate=" + v.str() +
                               " must be 0 (closed loop) or a rate up to 1e9 requests/s per "
                               "client host");
    }
    if (ratePerHost > 0 && outstanding != 1)
    {
        throw PrestoInputError("--rpcOutstanding=" + std::to_string(outstanding) +
                               " is the closed loop's window: with --rpcRate > 0 requests arrive "
                               "open-loop and --rpcBacklog bounds what a connection holds");
    }
    if (backlog == 0 || backlog > 1000000)
    {
        throw PrestoInputError("--rpcBacklog=" + std::to_string(backlog) +
                               " must be 1..1000000 requests per connection");
    }
}

uint64_t
RpcWorkloadConfig::Connections() const
{
    return static_cast<uint64_t>(hosts - servers) * connectionsPerHost;
}

bool
RpcWorkloadConfig::IsServer(uint32_t host) const
{
    return servers == 0 || host < servers;
}

uint32_t
RpcWorkloadConfig::ClientOf(uint64_t conn) const
{
    return servers + static_cast<uint32_t>(conn / connectionsPerHost);
}

uint32_t
RpcWorkloadConfig::ServerOf(uint64_t conn) const
{
    const uint64_t r = SplitMix64(SplitMix64(seed ^ 0x5e7e75ULL) ^ conn);
    if (servers > 0)
    {
        return static_cast<uint32_t>(r % servers); // clients are never servers
    }
    const uint32_t client = ClientOf(conn);
    const auto other = static_cast<uint32_t>(r % (hosts - 1));
    return other >= client ? other + 1 : other; // any host but the client
}

std::pair<std::pair<uint64_t, uint64_t>, bool>
RpcKvMix::Sizes(uint64_t seed, uint64_t conn, uint64_t k) const
{
    // the same per-connection stream as RpcMessageSizes, one more draw for the operation
    const uint64_t base = SplitMix64(SplitMix64(seed) ^ (conn * 0x9e3779b97f4a7c15ULL)) ^ k;
    const uint64_t key = keys.Sample(Uniform(SplitMix64(base * 3)));
    const bool get = Uniform(SplitMix64(base * 3 + 2)) < getFraction;
    if (get)
    {
        return {{HEADER + key, HEADER + values.Sample(Uniform(SplitMix64(base * 3 + 1)))}, true};
    }
    const uint64_t value = values.Sample(Uniform(SplitMix64(base * 3 + 1)));
    return {{HEADER + SET_EXTRAS + key + value, HEADER}, false};
}

std::pair<double, double>
RpcKvMix::MeanBytes() const
{
    const double g = getFraction;
    const double key = keys.MeanBytes();
    const double value = values.MeanBytes();
    return {HEADER + key + (1 - g) * (SET_EXTRAS + value), HEADER + g * value};
}

std::pair<uint64_t, uint64_t>
RpcMessageSizes(uint64_t seed,
                uint64_t conn,
                uint64_t k,
                const RpcSizes& request,
                const RpcSizes& response)
{
    const uint64_t base = SplitMix64(SplitMix64(seed) ^ (conn * 0x9e3779b97f4a7c15ULL)) ^ k;
    const uint64_t a = SplitMix64(base * 2);
    const uint64_t b = SplitMix64(base * 2 + 1);
    return {request.Sample(Uniform(a)), response.Sample(Uniform(b))};
}

int64_t
RpcArrivalGapNs(uint64_t seed, uint64_t conn, uint64_t k, double meanNs)
{
    // a stream apart from the sizes' (whose draws are base * 2 and base * 2 + 1)
    const uint64_t base =
        SplitMix64(SplitMix64(seed ^ 0xa771a1ULL) ^ (conn * 0x9e3779b97f4a7c15ULL)) ^ k;
    const double u = Uniform(SplitMix64(base)); // [0, 1): 1 - u in (0, 1]
    const double gap = -meanNs * std::log(1.0 - u);
    return std::max<int64_t>(1, static_cast<int64_t>(std::llround(gap)));
}

RpcLatencySummary
RpcLatencySummary::Of(std::vector<uint64_t>& samples)
{
    RpcLatencySummary s;
    s.count = samples.size();
    if (samples.empty())
    {
        return s;
    }
    std::sort(samples.begin(), samples.end());
    std::vector<double> v(samples.begin(), samples.end());
    double sum = 0;
    for (double x : v)
    {
        sum += x;
    }
    s.meanNs = sum / static_cast<double>(v.size());
    s.p50Ns = Percentile(v, 0.50);
    s.p99Ns = Percentile(v, 0.99);
    s.p9999Ns = Percentile(v, 0.9999);
    s.maxNs = v.back();
    return s;
}

} // namespace ns3
