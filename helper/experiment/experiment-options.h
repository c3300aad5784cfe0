/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_EXPERIMENT_OPTIONS_H
#define PRESTO_EXPERIMENT_OPTIONS_H

#include "ns3/presto-input-error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief How the FCT experiment (SprayExperiment) reads and checks its option values: every
 * refusal is a PrestoInputError that names the option as the user wrote it (--name=value).
 */
namespace experiment
{

/// Longest --simTime, --drainTime or --warmup, s. ns-3's Time counts int64 ns (+-9.2e9 s) but
/// the module's fast links and its simulator compute event times in int64 ps, which end at
/// 2^63 ps = 9.2e6 s ("EventPool: an event in the past" at 9243456 s): with 1e6 s each the
/// run (arrivals, then the drain) ends before 2e6 s.
constexpr double MAX_SECONDS = 1e6;

/** \param v words \return them separated by ", " */
std::string Join(const std::vector<std::string>& v);

/**
 * \brief Refuse a value that is not one of \p valid, listing them.
 * \param option its name \param value the value \param valid the valid values
 */
void RequireOneOf(const std::string& option,
                  const std::string& value,
                  const std::vector<std::string>& valid);

/**
 * \brief A data rate with its unit (10Gbps, 40Gb/s), a whole number of bit/s up to 1 Pbit/s.
 * \param option its name \param text the value \return the rate, bit/s
 */
double ParseRate(const std::string& option, const std::string& text);

/**
 * \brief A time with an explicit unit (s, ms, us, ns), at most 1e6 s; ns-3's own parser
 * aborts on bad input.
 * \param option its name \param text the value \return the time, ns
 */
int64_t ParseTimeNs(const std::string& option, const std::string& text);

/**
 * \brief Refuse a number of seconds that is not finite, negative (or 0 if \p positive) or
 * above MAX_SECONDS.
 * \param option its name \param value seconds \param positive whether 0 is refused
 */
void CheckSeconds(const std::string& option, double value, bool positive);

/**
 * \param text --buckets: increasing positive byte counts separated by commas
 * \return the bucket upper edges
 */
std::vector<uint64_t> ParseEdges(const std::string& text);

/**
 * \brief Read an input named by an option: an error of the reader that does not name the
 * option is given it in front (the user wrote --workload=X, not "CDF file X").
 * \param option the option \param read the reader \return what it read
 */
template <typename F>
auto
WithOption(const std::string& option, F&& read) -> decltype(read())
{
    try
    {
        return read();
    }
    catch (const PrestoInputError& e)
    {
        const std::string what = e.what();
        if (what.find("--" + option) != std::string::npos)
        {
            throw;
        }
        throw PrestoInputError("--" + option + ": " + what);
    }
}

} // namespace experiment
} // namespace ns3

#endif // PRESTO_EXPERIMENT_OPTIONS_H
