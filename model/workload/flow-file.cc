/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-file.h"

#include "ns3/input-file.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
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

/**
 * \brief One flow line of a flow file: 'src dst priority dport size start_s'.
 * \param tokens the line's tokens (not a comment, not the count line)
 * \param line the whole line, quoted when it has too few tokens
 * \param sourceName the file, for messages
 * \param lineNo the line's number, for messages
 * \param nHosts hosts of the fabric (src and dst must be below)
 * \param id the flow's id (its place in the file)
 * \return the flow; throws PrestoInputError naming the line and the field
 */
FlowSpec
ParseFlowLine(const std::vector<std::string_view>& tokens,
              const std::string& line,
              const std::string& sourceName,
              uint64_t lineNo,
              uint32_t nHosts,
              uint32_t id)
{
    std::string why;
    if (tokens.size() < 6)
    {
        throw PrestoInputError(Where(sourceName, lineNo) +
                               "expected 'src dst priority dport size start_s', got " +
                               Quote(line));
    }
    if (tokens.size() > 6)
    {
        throw PrestoInputError(Where(sourceName, lineNo) + "trailing garbage " + Quote(tokens[6]) +
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
        if (!WholeToken::Parse(tokens[i], limits[i], v[i], why))
        {
            std::ostringstream os;
            os << Where(sourceName, lineNo) << "cannot parse " << names[i] << " "
               << Quote(tokens[i]) << " as an integer in [0, " << limits[i] << "]: it " << why;
            if (i == 4)
            {
                os << " (2^53 bytes: the largest flow, exact as a double)";
            }
            throw PrestoInputError(os.str());
        }
    }
    int64_t startNs = 0;
    if (!WholeToken::ParseSeconds(tokens[5], FLOW_FILE_MAX_START_SECONDS, startNs, why))
    {
        throw PrestoInputError(Where(sourceName, lineNo) + "cannot parse start time " +
                               Quote(tokens[5]) + " as seconds: it " + why);
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
    f.id = id;
    f.src = static_cast<uint32_t>(v[0]);
    f.dst = static_cast<uint32_t>(v[1]);
    f.priority = static_cast<uint32_t>(v[2]);
    f.dport = static_cast<uint16_t>(v[3]);
    f.sizeBytes = v[4];
    f.startNs = startNs;
    return f;
}

} // namespace

std::vector<FlowSpec>
ParseFlowFile(std::istream& in, const std::string& sourceName, uint32_t nHosts)
{
    NS_LOG_FUNCTION(sourceName << nHosts);
    std::vector<FlowSpec> flows;
    std::string line;
    std::vector<std::string_view> tokens;
    InputLineReader lines(in, sourceName);
    uint64_t countLine = 0;
    uint64_t count = 0;
    std::string why;
    while (lines.Next(line))
    {
        const uint64_t lineNo = lines.LineNumber();
        Tokens(line, tokens);
        if (tokens.empty() || tokens[0][0] == '#')
        {
            continue;
        }
        if (countLine == 0)
        {
            if (!WholeToken::Parse(tokens[0], std::numeric_limits<uint32_t>::max(), count, why))
            {
                throw PrestoInputError(Where(sourceName, lineNo) + "cannot parse flow count " +
                                       Quote(tokens[0]) + ": it " + why +
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
        flows.push_back(ParseFlowLine(tokens,
                                      line,
                                      sourceName,
                                      lineNo,
                                      nHosts,
                                      static_cast<uint32_t>(flows.size())));
    }
    if (in.bad())
    {
        throw PrestoInputError(Where(sourceName, lines.LineNumber()) + "read error");
    }
    if (countLine == 0)
    {
        throw PrestoInputError(Where(sourceName, std::max<uint64_t>(lines.LineNumber(), 1)) +
                               "no flow count (the file is empty)");
    }
    if (flows.size() != count)
    {
        std::ostringstream os;
        os << Where(sourceName, lines.LineNumber()) << "file ends after " << flows.size()
           << " flows, but line " << countLine << " announces " << count;
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
        if (f.startNs < 0 ||
            f.startNs > static_cast<int64_t>(FLOW_FILE_MAX_START_SECONDS) * NS_PER_S)
        {
            std::ostringstream os;
            os << "cannot write flow file '" << path << "': flow " << f.id << " has a start time "
               << f.startNs << " ns outside [0, " << FLOW_FILE_MAX_START_SECONDS
               << " s] (the reader's range)";
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
