/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_WHOLE_TOKEN_H
#define PRESTO_WHOLE_TOKEN_H

#include <cstdint>
#include <string>
#include <string_view>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The one number reader of the module's options and of every field of its input files
 * (flow file, CDF, topology, classifier rules, Cora program): a value is the whole token or
 * an error, never its leading part. Pure logic.
 *
 * ns-3's CommandLine reads a leading number and drops the rest (`--maxFlows=1e5` gives 1,
 * `--leaves=3.9` 3, `--seed=7abc` 7) and wraps a sign into an unsigned value (`-1` gives
 * 4294967295). Here:
 * - unsigned integers: decimal digits only (no sign, no space, no hex, no exponent), within
 *   the type's range;
 * - signed integers: an optional '-' then decimal digits, within the range;
 * - doubles: a decimal number with optional sign, fraction and exponent (`1e-3`), finite;
 *   no hex (`0x10`), no `nan` or `inf`, nothing after it (`10Gbps`, `1,2`);
 * - booleans: `true`, `false`, `1`, `0` (and the empty value of a bare `--flag`: true);
 * - strings: any text.
 * No token may hold a NUL byte or surrounding white space. The \p why of a refusal is a
 * predicate ("holds a NUL byte", "is not a whole number (...)", "is above the largest
 * value, N"), so a caller writes "<field> '<token>' " + why.
 */
struct WholeToken
{
    /**
     * \param text the token
     * \param[out] why set to the reason when it is refused
     * \param[out] value the value
     * \return true if the whole token is a value of the type
     */
    static bool Parse(std::string_view text, uint64_t& value, std::string& why);
    /// \copydoc Parse(std::string_view,uint64_t&,std::string&)
    static bool Parse(std::string_view text, uint32_t& value, std::string& why);
    /// \copydoc Parse(std::string_view,uint64_t&,std::string&)
    static bool Parse(std::string_view text, uint16_t& value, std::string& why);
    /// \copydoc Parse(std::string_view,uint64_t&,std::string&)
    static bool Parse(std::string_view text, int64_t& value, std::string& why);
    /// \copydoc Parse(std::string_view,uint64_t&,std::string&)
    static bool Parse(std::string_view text, int32_t& value, std::string& why);
    /// \copydoc Parse(std::string_view,uint64_t&,std::string&)
    static bool Parse(std::string_view text, double& value, std::string& why);
    /// \copydoc Parse(std::string_view,uint64_t&,std::string&)
    static bool Parse(std::string_view text, bool& value, std::string& why);
    /// \copydoc Parse(std::string_view,uint64_t&,std::string&)
    static bool Parse(std::string_view text, std::string& value, std::string& why);

    /**
     * \brief An unsigned decimal integer no larger than \p max (a field with its own bound).
     * \param text the token
     * \param max the largest accepted value
     * \param[out] value the value
     * \param[out] why set to the reason when it is refused
     * \return true if the whole token is a whole number in [0, max]
     */
    static bool Parse(std::string_view text, uint64_t max, uint64_t& value, std::string& why);

    /**
     * \brief A time in seconds (a decimal number as for a double, optional sign) as integer
     * nanoseconds, within [-maxSeconds, maxSeconds].
     *
     * Without an exponent the digits are converted one by one, without a double: exact to
     * the ns, rounded half up on the first digit beyond the 9th decimal, so "2.000000100" is
     * 2000000100 ns (a double would give 2000000099.999...). With an exponent (`1e-3`) the
     * value goes through a double, rounded to the nearest ns.
     *
     * \param text the token
     * \param maxSeconds the largest magnitude, seconds (at most 9223372035)
     * \param[out] ns the time, ns
     * \param[out] why set to the reason when it is refused
     * \return true if the whole token is a number of seconds within the bound
     */
    static bool ParseSeconds(std::string_view text,
                             uint64_t maxSeconds,
                             int64_t& ns,
                             std::string& why);

    /**
     * \brief A data rate: a decimal number (as for a double) followed by one of ns-3's
     * DataRate units (bps, kbps, Mbps, Gbps, Gb/s, GBps, Gib/s, ...), such as `10Gbps` or
     * `2.5e1Gbps`. ns-3's own parser reads `1.2.3Gbps` as 1.2 Gbit/s and a bare `5` as
     * 5 bit/s; here the number is the whole text before the unit and the unit is needed.
     * \param text the token
     * \param[out] bps the rate, bit/s, a whole number >= 1 below 2^64 (as DataRate holds it;
     * `3.9bps` is refused, not cut to 3)
     * \param[out] why set to the reason when it is refused
     * \return true if the whole token is such a rate
     */
    static bool ParseRate(std::string_view text, double& bps, std::string& why);

    /**
     * \brief A duration: a decimal number (as for a double) >= 0 followed by ns, us, ms or s,
     * such as `1us` or `0.001ms`, rounded to the nearest ns.
     * \param text the token
     * \param maxNs the largest accepted duration, ns
     * \param[out] ns the duration, ns
     * \param[out] why set to the reason when it is refused
     * \return true if the whole token is such a duration
     */
    static bool ParseDuration(std::string_view text, int64_t maxNs, int64_t& ns, std::string& why);
};

} // namespace ns3

#endif // PRESTO_WHOLE_TOKEN_H
