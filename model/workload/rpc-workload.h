/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RPC_WORKLOAD_H
#define PRESTO_RPC_WORKLOAD_H

#include "flow-size-cdf.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief A message size distribution of the RPC workload: a fixed size ("64") or a flow-size
 * CDF (a built-in name such as "googlerpc", or a CDF file). Pure logic.
 */
class RpcSizes
{
  public:
    /**
     * \param spec a whole number of bytes (>= 1) or a name/path FlowSizeCdf::Load accepts
     * \param where the option, for the message (e.g. "--rpcRequest")
     * \return the distribution; throws PrestoInputError naming where and what is valid
     */
    static RpcSizes FromSpec(const std::string& spec, const std::string& where);

    /**
     * \param u a uniform number in [0, 1)
     * \return a size, bytes (>= 1)
     */
    uint64_t Sample(double u) const;

    /** \return the mean size, bytes */
    double MeanBytes() const;

    /** \return the spec it was made from */
    const std::string& GetSpec() const;

  private:
    std::string m_spec;                 //!< as given
    uint64_t m_fixed{0};                //!< fixed size (0: use the CDF)
    std::shared_ptr<FlowSizeCdf> m_cdf; //!< the CDF (null for a fixed size)
};

/**
 * \ingroup presto
 * \brief The closed-loop RPC workload: persistent connections, `connectionsPerHost` opened
 * by every host to servers on the other hosts, each keeping `outstanding` requests in flight;
 * request and response sizes from two RpcSizes. Pure logic: who connects to whom, and every
 * connection's sequence of sizes, drawn from a per-connection SplitMix64 stream seeded from
 * the run, so that client and server know each message's size without a header and a run
 * repeats byte for byte on any standard library.
 */
struct RpcWorkloadConfig
{
    uint32_t hosts{2};              //!< hosts of the fabric (>= 2)
    uint32_t connectionsPerHost{1}; //!< client connections each host opens (>= 1)
    uint32_t outstanding{1};        //!< requests in flight per connection (>= 1)
    /// open loop: requests/s each client host offers, Poisson arrivals spread evenly over
    /// its connections, whatever has been answered; 0: the closed loop of `outstanding`
    double ratePerHost{0};
    /// open loop: requests a connection holds unanswered at most; an arrival beyond is
    /// refused at the client and counted (the application sheds load)
    uint32_t backlog{4096};
    uint64_t seed{1}; //!< the run's seed (sizes, servers)
    /// servers: hosts 0..servers-1 serve and the others are clients (each opens
    /// connectionsPerHost to the servers); 0: every host is both
    uint32_t servers{0};

    /**
     * \brief Check the numbers; throws PrestoInputError naming the option.
     */
    void Validate() const;

    /** \return connections in the fabric */
    uint64_t Connections() const;

    /** \param host a host index \return true if it serves requests */
    bool IsServer(uint32_t host) const;

    /**
     * \param conn connection id, 0..Connections()-1
     * \return the client host (conn / connectionsPerHost, after the servers with roles)
     */
    uint32_t ClientOf(uint64_t conn) const;

    /**
     * \param conn connection id
     * \return the server host: uniform among the other hosts (with roles: among the
     * servers), drawn from the connection's stream (so servers are loaded alike on average)
     */
    uint32_t ServerOf(uint64_t conn) const;
};

/**
 * \ingroup presto
 * \brief The sizes of one connection's k-th request and response. Pure logic.
 * \param seed the run's seed
 * \param conn the connection id
 * \param k the message index
 * \param request request sizes
 * \param response response sizes
 * \return {request bytes, response bytes}
 */
std::pair<uint64_t, uint64_t> RpcMessageSizes(uint64_t seed,
                                              uint64_t conn,
                                              uint64_t k,
                                              const RpcSizes& request,
                                              const RpcSizes& response);

/**
 * \ingroup presto
 * \brief The gap before one connection's k-th open-loop arrival. Pure logic.
 *
 * Exponential with the given mean, drawn from the connection's SplitMix64 stream (a draw
 * apart from the sizes'), so a run repeats byte for byte on any standard library.
 * \param seed the run's seed
 * \param conn the connection id
 * \param k the arrival index
 * \param meanNs mean gap, ns (> 0)
 * \return the gap, ns (>= 1)
 */
int64_t RpcArrivalGapNs(uint64_t seed, uint64_t conn, uint64_t k, double meanNs);

/**
 * \ingroup presto
 * \brief A key-value store's requests as the RPC workload's messages: GETs and SETs in a given
 * mix, keys and values from two size distributions, framed as memcached's binary protocol
 * (24-byte header; a SET carries 8 bytes of extras). GET: request header + key, response
 * header + value; SET: request header + extras + key + value, response header. Pure logic.
 */
struct RpcKvMix
{
    static constexpr uint32_t HEADER = 24;    //!< memcached binary protocol header, bytes
    static constexpr uint32_t SET_EXTRAS = 8; //!< a SET's flags and expiry, bytes
    double getFraction{30.0 / 31.0};          //!< GETs among requests (ETC: 30 GETs per SET)
    RpcSizes keys;                            //!< key sizes
    RpcSizes values;                          //!< value sizes

    /**
     * \param seed the run's seed
     * \param conn the connection id
     * \param k the request index
     * \return {request bytes, response bytes} and whether it is a GET
     */
    std::pair<std::pair<uint64_t, uint64_t>, bool> Sizes(uint64_t seed,
                                                         uint64_t conn,
                                                         uint64_t k) const;
    /** \return the mean request and response sizes, bytes */
    std::pair<double, double> MeanBytes() const;
};

/**
 * \ingroup presto
 * \brief Percentiles of RPC latencies (Percentile(): linear interpolation between the two
 * nearest ranks of the sorted samples).
 */
struct RpcLatencySummary
{
    uint64_t count{0}; //!< samples
    double meanNs{0};  //!< mean, ns
    double p50Ns{0};   //!< median, ns
    double p99Ns{0};   //!< 99th percentile, ns
    double p9999Ns{0}; //!< 99.99th percentile, ns
    double maxNs{0};   //!< largest, ns

    /**
     * \param samples latencies, ns (reordered)
     * \return the summary (zeros without samples)
     */
    static RpcLatencySummary Of(std::vector<uint64_t>& samples);
};

} // namespace ns3

#endif // PRESTO_RPC_WORKLOAD_H
