/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_WHOLE_TOKEN_H
#define PRESTO_WHOLE_TOKEN_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The one number reader of the module's options (and of the input files that use it):
 * a value is the whole token or an error, never its leading part. Pure logic.
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
 * No token may hold a NUL byte or surrounding white space.
 */
struct WholeToken
{
    /**
     * \param text the token
     * \param[out] why set to the reason when it is refused
     * \param[out] value the value
     * \return true if the whole token is a value of the type
     */
    static bool Parse(const std::string& text, uint64_t& value, std::string& why);
    /// \copydoc Parse(const std::string&,uint64_t&,std::string&)
    static bool Parse(const std::string& text, uint32_t& value, std::string& why);
    /// \copydoc Parse(const std::string&,uint64_t&,std::string&)
    static bool Parse(const std::string& text, uint16_t& value, std::string& why);
    /// \copydoc Parse(const std::string&,uint64_t&,std::string&)
    static bool Parse(const std::string& text, int64_t& value, std::string& why);
    /// \copydoc Parse(const std::string&,uint64_t&,std::string&)
    static bool Parse(const std::string& text, int32_t& value, std::string& why);
    /// \copydoc Parse(const std::string&,uint64_t&,std::string&)
    static bool Parse(const std::string& text, double& value, std::string& why);
    /// \copydoc Parse(const std::string&,uint64_t&,std::string&)
    static bool Parse(const std::string& text, bool& value, std::string& why);
    /// \copydoc Parse(const std::string&,uint64_t&,std::string&)
    static bool Parse(const std::string& text, std::string& value, std::string& why);
};

} // namespace ns3

#endif // PRESTO_WHOLE_TOKEN_H
