/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FLOW_FILE_H
#define PRESTO_FLOW_FILE_H

#include "flow-spec.h"

#include <istream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Latest flow start a flow file may give, seconds: the limit of --simTime. The fast
 * links and the lean simulator count time in int64 picoseconds, which end at 9.2e6 s.
 */
constexpr uint64_t FLOW_FILE_MAX_START_SECONDS = 1000000;

/**
 * \ingroup presto
 * \brief Read a flow file in the HPCC format.
 *
 * First non-comment line: the flow count N. Then N lines "src dst priority dport size
 * start_seconds". Flow ids are assigned 0..N-1 in file order; the result is sorted by start
 * time (stable). Throws PrestoInputError naming file and line for: a count that does not
 * match, a field that does not parse, src or dst outside [0, nHosts), src == dst, size 0 or
 * above MAX_FLOW_BYTES (2^53), a negative start time or one after
 * FLOW_FILE_MAX_START_SECONDS (1e6 s), trailing garbage on a line, a line longer than
 * INPUT_LINE_MAX (4096) characters. Every field is read whole by WholeToken (no NUL byte,
 * no hex, nothing after the number): src, dst, priority, dport (<= 65535) and size are
 * unsigned decimal integers (no sign, fraction or exponent); start_seconds is a decimal
 * number, converted digit by digit without an exponent (exact to the ns, rounded half up
 * beyond 9 decimals), through a double with one (1e-3) (WholeToken::ParseSeconds). Blank lines and
 * lines starting with '#' are ignored; a missing file throws PrestoInputError naming the path.
 * Memory follows the lines actually read, whatever the count line claims; messages quote at most 80
 * characters of a bad line. A regular file is streamed; a pipe (`/dev/stdin`, up to 1 GiB)
 * is read once and its text kept, so that reading the same path again gives the same
 * flows.
 *
 * \param path the file
 * \param nHosts number of hosts in the fabric
 * \return the flows
 */
std::vector<FlowSpec> ReadFlowFile(const std::string& path, uint32_t nHosts);

/**
 * \brief Parse flow-file text (see ReadFlowFile).
 * \param in the text
 * \param sourceName name used in error messages
 * \param nHosts number of hosts in the fabric
 * \return the flows
 */
std::vector<FlowSpec> ParseFlowFile(std::istream& in,
                                    const std::string& sourceName,
                                    uint32_t nHosts);

/**
 * \brief Write flows in the HPCC format, start times in seconds with 9 decimals (exact ns).
 *
 * Flows are written in the given order, so ReadFlowFile gives back the same vector when the
 * flows are sorted by start time with ids 0..N-1 (as GenerateFlows returns them).
 *
 * \param path the file; throws PrestoInputError if it cannot be written or a flow starts
 * before 0 or after FLOW_FILE_MAX_START_SECONDS
 * \param flows the flows
 */
void WriteFlowFile(const std::string& path, const std::vector<FlowSpec>& flows);

} // namespace ns3

#endif // PRESTO_FLOW_FILE_H
