/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FLOW_SIZE_CDF_H
#define PRESTO_FLOW_SIZE_CDF_H

#include <cstdint>
#include <istream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief An empirical flow-size distribution read from a CDF file.
 *
 * File format (the one shipped in data/): one point per line, "size_bytes cumulative_prob",
 * whitespace separated, probabilities in [0,1], sizes and probabilities non-decreasing,
 * the last probability exactly 1. Blank lines and lines starting with '#' are ignored.
 * Sampling inverts the piecewise-linear CDF between points (the convention of the HPCC and
 * ConWeave simulators). Two points with the same size make a point mass there (the data
 * mining CDF puts half of its flows at exactly 1460 bytes); the first point's probability is
 * a point mass at the first size. Any violation throws PrestoInputError naming the file and
 * line, quoting at most 80 characters of the bad input: a size that is negative, not finite
 * or above MAX_FLOW_BYTES (2^53 bytes), a line longer than INPUT_LINE_MAX (4096)
 * characters. The last probability may differ from 1 by at most 1e-9 and is then stored
 * as 1. A file is read through ReadInputText (at most 16 MiB, read once per
 * InputFileScope, a pipe once per process).
 */
class FlowSizeCdf
{
  public:
    /**
     * \brief Load a built-in workload by name (see BuiltinNames()) or a CDF file by path.
     *
     * A built-in name reads <dir>/<name>.cdf, where <dir> is the environment variable
     * PRESTO_DATA_DIR if set and non-empty, else the directory compiled in (the module's
     * data/ folder). A missing file, or a bare word that is neither a built-in name nor a
     * file, throws PrestoInputError listing the built-in names.
     *
     * \param nameOrPath "websearch", "datamining", "hadoop", "alistorage", "googlerpc", or a
     * file path
     * \return the distribution; GetName() is the built-in name or the path
     */
    static FlowSizeCdf Load(const std::string& nameOrPath);

    /**
     * \brief Parse CDF text.
     * \param in the text
     * \param sourceName the file name used in error messages
     * \return the distribution
     */
    static FlowSizeCdf Parse(std::istream& in, const std::string& sourceName);

    /** \return the names accepted by Load() besides file paths */
    static std::vector<std::string> BuiltinNames();

    /**
     * \brief Inverse-CDF sampling, rounded up to whole bytes.
     *
     * Rounding up makes P(Sample(U) <= k) equal Cdf(k) at every whole byte k; the mean of
     * the samples exceeds MeanBytes() by less than one byte.
     *
     * \param u a uniform sample in [0,1) (values outside are clamped)
     * \return the flow size in bytes (at least 1)
     */
    uint64_t Sample(double u) const;

    /**
     * \param bytes a flow size
     * \return P(size <= bytes) of the piecewise-linear distribution
     */
    double Cdf(double bytes) const;

    /** \return the mean flow size of the piecewise-linear distribution, bytes */
    double MeanBytes() const;

    /** \return the name (built-in name or file path) */
    const std::string& GetName() const;

    /** \return the (size_bytes, cumulative probability) points */
    const std::vector<std::pair<double, double>>& GetPoints() const;

    /**
     * \brief Default flow-size bucket upper edges for reports: about six buckets from the
     * smallest to the largest size, at round numbers.
     *
     * Powers of ten inside the size range, dropping leading ones below which fewer than 5%
     * of flows fall; a narrow CDF gets 3*10^k edges in its heaviest buckets (at least four
     * edges below the largest size when possible), a wide one has its lightest neighbouring
     * buckets merged (at most five). The largest size closes the last bucket. For websearch:
     * 10K, 100K, 1M, 10M, 30M.
     *
     * \return increasing upper edges in bytes; the last one is >= the largest size
     */
    std::vector<uint64_t> DefaultBucketEdges() const;

  private:
    std::string m_name;                              //!< built-in name or path
    std::vector<std::pair<double, double>> m_points; //!< (bytes, cumulative probability)
};

} // namespace ns3

#endif // PRESTO_FLOW_SIZE_CDF_H
