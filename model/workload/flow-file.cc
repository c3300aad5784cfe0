/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-file.h"

#include "ns3/input-file.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowFile");

namespace
{

constexpr int64_t NS_PER_S = 1000000000;

/// Most flows reserved from the count line before they are read.
constexpr uint64_t RESERVE_FLOWS_MAX = uint64_t{1} << 20;

/// Largest flow file read from a pipe, whose text is kept (a regular file is streamed).
constexpr uint64_t FLOW_FILE_PIPE_MAX_BYTES = uint64_t{1} << 30;

std::string
Where(const std::string& source, uint64_t line)
{
    std::ostringstream os;
    os << "flow file '" << source << "', line " << line << ": ";
    return os.str();
}

/// Whole token as an unsigned integer no larger than maxValue (digits only: no sign, no
/// fraction, so "1.5" or "-1" are refused instead of being silently truncated).
bool
ParseUnsigned(std::string_view token, uint64_t maxValue, uint64_t& value)
{
    if (token.empty())
    {
        return false;
    }
    value = 0;
    for (const char c : token)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
        const auto digit = static_cast<uint64_t>(c - '0');
        if (digit > maxValue || value > (maxValue - digit) / 10)
        {
            return false; // value * 10 + digit > maxValue, checked without overflow
        }
        value = value * 10 + digit;
    }
    return true;
}

/// Start time in seconds to ns. Plain decimals are converted digit by digit so that the
/// 9-decimal times WriteFlowFile produces come back exactly; other forms (exponents) go
/// through a double. Returns false if the token is not a number; negative values are
/// returned as such for the caller to report.
bool
ParseSeconds(std::string_view token, int64_t& ns)
{
    size_t pos = 0;
    bool negative = false;
    if (pos < token.size() && (token[pos] == '-' || token[pos] == '+'))
    {
        negative = token[pos] == '-';
        ++pos;
    }
    const size_t intBegin = pos;
    while (pos < token.size() && std::isdigit(static_cast<unsigned char>(token[pos])))
    {
        ++pos;
    }
    const std::string_view intPart = token.substr(intBegin, pos - intBegin);
    std::string_view fracPart;
    bool plain = true;
    if (pos < token.size() && token[pos] == '.')
    {
        ++pos;
        const size_t fracBegin = pos;
        while (pos < token.size() && std::isdigit(static_cast<unsigned char>(token[pos])))
        {
            ++pos;
        }
        fracPart = token.substr(fracBegin, pos - fracBegin);
    }
    if (pos != token.size() || (intPart.empty() && fracPart.empty()))
    {
        plain = false;
    }
    // Integer seconds that fit in int64 ns with room for rounding.
    const uint64_t maxSeconds = std::numeric_limits<int64_t>::max() / NS_PER_S - 1;
    if (plain)
    {
        uint64_t seconds = 0;
        if (!intPart.empty() && !ParseUnsigned(intPart, maxSeconds, seconds))
        {
            return false;
        }
        int64_t frac = 0;
        for (size_t i = 0; i < 9; ++i)
        {
            frac = frac * 10 + (i < fracPart.size() ? fracPart[i] - '0' : 0);
        }
        // Round half up on the first dropped digit.
        if (fracPart.size() > 9 && fracPart[9] >= '5')
        {
            ++frac;
        }
        ns = static_cast<int64_t>(seconds) * NS_PER_S + frac;
        ns = negative ? -ns : ns;
        return true;
    }
    const std::string copy(token); // strtod needs a terminated string
    const char* begin = copy.c_str();
    char* end = nullptr;
    errno = 0;
    const double s = std::strtod(begin, &end);
    if (end == begin || *end != '\0' || errno == ERANGE || !std::isfinite(s) ||
        std::fabs(s) > static_cast<double>(maxSeconds))
    {
        return false;
    }
    ns = std::llround(s * NS_PER_S);
    return true;
}

/// White-space separated tokens of a line (as operator>> splits them), without copying
/// the characters.
void
Tokens(const std::string& line, std::vector<std::string_view>& tokens)
{
    tokens.clear();
    const char* s = line.data();
    const std::size_t n = line.size();
    std::size_t i = 0;
    while (i < n)
    {
        while (i < n && std::isspace(static_cast<unsigned char>(s[i])))
        {
            ++i;
        }
        const std::size_t begin = i;
        while (i < n && !std::isspace(static_cast<unsigned char>(s[i])))
        {
            ++i;
        }
        if (i > begin)
        {
            tokens.emplace_back(s + begin, i - begin);
        }
    }
}

/// \return a token as an error message quotes it: '...', at most INPUT_EXCERPT_MAX
/// characters
std::string
Quote(std::string_view token)
{
    return "'" + InputExcerpt(std::string(token)) + "'";
}

} // namespace

std::vector<FlowSpec>
ParseFlowFile(std::istream& in, const std::string& sourceName, uint32_t nHosts)
{
    NS_LOG_FUNCTION(sourceName << nHosts);
    std::vector<FlowSpec> flows;
    std::string line;
    std::vector<std::string_view> tokens;
    uint64_t lineNo = 0;
    uint64_t countLine = 0;
    uint64_t count = 0;
    while (true)
    {
        const InputLineStatus status = ReadInputLine(in, line);
        if (status == InputLineStatus::END)
        {
            break;
        }
        ++lineNo;
        if (status == InputLineStatus::TOO_LONG)
        {
            throw PrestoInputError(Where(sourceName, lineNo) + "line longer than " +
                                   std::to_string(INPUT_LINE_MAX) + " characters, starting " +
                                   Quote(line));
        }
        Tokens(line, tokens);
        if (tokens.empty() || tokens[0][0] == '#')
        {
            continue;
        }
        if (countLine == 0)
        {
            if (!ParseUnsigned(tokens[0], std::numeric_limits<uint32_t>::max(), count))
            {
                throw PrestoInputError(Where(sourceName, lineNo) + "cannot parse flow count " +
                                       Quote(tokens[0]) +
                                       " (the first line holds the number of flows, at most " +
                                       std::to_string(std::numeric_limits<uint32_t>::max()) + ")");
            }
            if (tokens.size() > 1)
            {
                throw PrestoInputError(Where(sourceName, lineNo) + "trailing garbage " +
                                       Quote(tokens[1]) + " after the flow count");
            }
            countLine = lineNo;
            // The count is a claim: reserve for at most 2^20 flows (40 MB of address space,
            // resident only as the flows are read), so a file announcing 4294967295 flows
            // and holding three costs three; a longer file grows the vector as it is read.
            flows.reserve(std::min<uint64_t>(count, RESERVE_FLOWS_MAX));
            continue;
        }
        if (flows.size() == count)
        {
            std::ostringstream os;
            os << Where(sourceName, lineNo) << "more flows than the count " << count
               << " given on line " << countLine;
            throw PrestoInputError(os.str());
        }
        if (tokens.size() < 6)
        {
            throw PrestoInputError(Where(sourceName, lineNo) +
                                   "expected 'src dst priority dport size start_s', got " +
                                   Quote(line));
        }
        if (tokens.size() > 6)
        {
            throw PrestoInputError(Where(sourceName, lineNo) + "trailing garbage " +
                                   Quote(tokens[6]) +
                                   " after 'src dst priority dport size start_s'");
        }
        static const char* const names[] = {"src", "dst", "priority", "dport", "size"};
        static const uint64_t limits[] = {std::numeric_limits<uint32_t>::max(),
                                          std::numeric_limits<uint32_t>::max(),
                                          std::numeric_limits<uint32_t>::max(),
                                          std::numeric_limits<uint16_t>::max(),
                                          MAX_FLOW_BYTES};
        uint64_t v[5];
        for (size_t i = 0; i < 5; ++i)
        {
            if (!ParseUnsigned(tokens[i], limits[i], v[i]))
            {
                std::ostringstream os;
                os << Where(sourceName, lineNo) << "cannot parse " << names[i] << " "
                   << Quote(tokens[i]) << " as an integer in [0, " << limits[i] << "]";
                if (i == 4)
                {
                    os << " (2^53 bytes: the largest flow, exact as a double)";
                }
                throw PrestoInputError(os.str());
            }
        }
        int64_t startNs = 0;
        if (!ParseSeconds(tokens[5], startNs))
        {
            throw PrestoInputError(Where(sourceName, lineNo) + "cannot parse start time " +
                                   Quote(tokens[5]) + " as seconds");
        }
        std::ostringstream err;
        if (v[0] >= nHosts)
        {
            err << "src " << v[0] << " outside [0, " << nHosts << ")";
        }
        else if (v[1] >= nHosts)
        {
            err << "dst " << v[1] << " outside [0, " << nHosts << ")";
        }
        else if (v[0] == v[1])
        {
            err << "src and dst are both " << v[0];
        }
        else if (v[4] == 0)
        {
            err << "size 0 (a flow must carry at least 1 byte)";
        }
        else if (startNs < 0)
        {
            err << "negative start time " << Quote(tokens[5]);
        }
        if (!err.str().empty())
        {
            throw PrestoInputError(Where(sourceName, lineNo) + err.str());
        }
        FlowSpec f;
        f.id = static_cast<uint32_t>(flows.size());
        f.src = static_cast<uint32_t>(v[0]);
        f.dst = static_cast<uint32_t>(v[1]);
        f.priority = static_cast<uint32_t>(v[2]);
        f.dport = static_cast<uint16_t>(v[3]);
        f.sizeBytes = v[4];
        f.startNs = startNs;
        flows.push_back(f);
    }
    if (in.bad())
    {
        throw PrestoInputError(Where(sourceName, lineNo) + "read error");
    }
    if (countLine == 0)
    {
        throw PrestoInputError(Where(sourceName, std::max<uint64_t>(lineNo, 1)) +
                               "no flow count (the file is empty)");
    }
    if (flows.size() != count)
    {
        std::ostringstream os;
        os << Where(sourceName, lineNo) << "file ends after " << flows.size() << " flows, but line "
           << countLine << " announces " << count;
        throw PrestoInputError(os.str());
    }
    if (flows.capacity() > flows.size() + flows.size() / 8)
    {
        flows.shrink_to_fit(); // grown past the reservation: give back the slack
    }
    std::stable_sort(flows.begin(), flows.end(), [](const FlowSpec& a, const FlowSpec& b) {
        return a.startNs < b.startNs;
    });
    NS_LOG_INFO("read " << flows.size() << " flows from " << sourceName);
    return flows;
}

std::vector<FlowSpec>
ReadFlowFile(const std::string& path, uint32_t nHosts)
{
    NS_LOG_FUNCTION(path << nHosts);
    if (!IsRegularInputFile(path))
    {
        // a pipe (/dev/stdin) can be read once: its text is kept for every later read
        auto text = TryReadInputText(path, "flow file", FLOW_FILE_PIPE_MAX_BYTES);
        if (text)
        {
            InputTextStream in(text);
            return ParseFlowFile(in, path, nHosts);
        }
    }
    std::ifstream in(path);
    if (!in)
    {
        throw PrestoInputError("cannot open flow file '" + path + "'");
    }
    return ParseFlowFile(in, path, nHosts);
}

void
WriteFlowFile(const std::string& path, const std::vector<FlowSpec>& flows)
{
    NS_LOG_FUNCTION(path << flows.size());
    for (const auto& f : flows)
    {
        if (f.startNs < 0)
        {
            std::ostringstream os;
            os << "cannot write flow file '" << path << "': flow " << f.id
               << " has a negative start time " << f.startNs << " ns";
            throw PrestoInputError(os.str());
        }
    }
    std::ofstream out(path);
    if (!out)
    {
        throw PrestoInputError("cannot write flow file '" + path + "'");
    }
    out << flows.size() << "\n";
    char start[32];
    for (const auto& f : flows)
    {
        // Integer arithmetic, not printf("%.9f") of a double: exact for any ns value.
        std::snprintf(start,
                      sizeof(start),
                      "%" PRId64 ".%09" PRId64,
                      f.startNs / NS_PER_S,
                      f.startNs % NS_PER_S);
        out << f.src << ' ' << f.dst << ' ' << f.priority << ' ' << f.dport << ' ' << f.sizeBytes
            << ' ' << start << '\n';
    }
    out.flush();
    if (!out)
    {
        throw PrestoInputError("cannot write flow file '" + path + "' (write failed)");
    }
}

} // namespace ns3
