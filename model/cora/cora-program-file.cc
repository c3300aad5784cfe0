/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-program-file.h"

#include "ns3/input-file.h"
#include "ns3/presto-input-error.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <vector>

#ifndef PRESTO_DATA_DIR
#define PRESTO_DATA_DIR "data"
#endif

namespace ns3
{

namespace
{

/// Throws PrestoInputError with messages prefixed by "file:line: ".
class LineError
{
  public:
    /// \param file file name \param line 1-based line number
    LineError(const std::string& file, uint64_t line)
        : m_prefix(file + ":" + std::to_string(line) + ": ")
    {
    }

    /// \param msg message \throws PrestoInputError always
    [[noreturn]] void Throw(const std::string& msg) const
    {
        throw PrestoInputError(m_prefix + msg);
    }

  private:
    std::string m_prefix; //!< "file:line: "
};

/// \param s a piece of the input \return it quoted as messages show it (at most 80 characters)
std::string
Q(const std::string& s)
{
    return "'" + InputExcerpt(s) + "'";
}

/// \param text line without its comment \return its white-space separated tokens
std::vector<std::string>
Tokenize(const std::string& text)
{
    std::istringstream is(text);
    std::vector<std::string> tokens;
    std::string t;
    while (is >> t)
    {
        tokens.push_back(t);
    }
    return tokens;
}

/// \param err where \param what field name \param s token \param max largest value
/// \return its value, read whole (WholeToken: decimal digits only)
uint64_t
ParseUnsigned(const LineError& err, const std::string& what, const std::string& s, uint64_t max)
{
    uint64_t v = 0;
    std::string why;
    if (!WholeToken::Parse(s, max, v, why))
    {
        err.Throw(what + " " + Q(s) + " " + why);
    }
    return v;
}

/// \param err where \param what field name \param s token \return its value, a decimal
/// number read whole (WholeToken), finite and >= 0
double
ParseCount(const LineError& err, const std::string& what, const std::string& s)
{
    double v = 0;
    std::string why;
    if (!WholeToken::Parse(s, v, why))
    {
        err.Throw(what + " " + Q(s) + " " + why);
    }
    if (v < 0)
    {
        err.Throw(what + " " + Q(s) + " is negative: a count per packet is >= 0");
    }
    return v;
}

/// \param err where \param s token \return the flow key it names
CoraFlowKey
ParseKey(const LineError& err, const std::string& s)
{
    for (auto k :
         {CoraFlowKey::FLOW, CoraFlowKey::SRC_IP, CoraFlowKey::DST_IP, CoraFlowKey::GLOBAL})
    {
        if (ToString(k) == s)
        {
            return k;
        }
    }
    err.Throw("unknown key " + Q(s) + " (valid: flow, src_ip, dst_ip, global)");
}

/// \param err where \param s "<MEM>/<op>/<mode>/<width>:<per-packet>" \return the access
CoraAccessCount
ParseAccess(const LineError& err, const std::string& s)
{
    const auto colon = s.find(':');
    if (colon == std::string::npos)
    {
        err.Throw("access " + Q(s) + " must be <MEM>/<read|write>/<atomic|bulk>/<width>:<count>");
    }
    std::vector<std::string> parts;
    std::istringstream is(s.substr(0, colon));
    std::string part;
    while (std::getline(is, part, '/'))
    {
        parts.push_back(part);
    }
    if (parts.size() != 4)
    {
        err.Throw("access " + Q(s) + " must be <MEM>/<read|write>/<atomic|bulk>/<width>:<count>");
    }
    CoraAccessCount acc;
    const std::map<std::string, CoraMemoryType> mems{{"CLS", CoraMemoryType::CLS},
                                                     {"CTM", CoraMemoryType::CTM},
                                                     {"IMEM", CoraMemoryType::IMEM},
                                                     {"EMEM", CoraMemoryType::EMEM}};
    auto mem = mems.find(parts[0]);
    if (mem == mems.end())
    {
        err.Throw("access " + Q(s) + ": unknown memory type " + Q(parts[0]) +
                  " (valid: CLS, CTM, IMEM, EMEM)");
    }
    acc.kind.memory = mem->second;
    if (parts[1] == "read" || parts[1] == "write")
    {
        acc.kind.op = parts[1] == "read" ? CoraMemoryOp::READ : CoraMemoryOp::WRITE;
    }
    else
    {
        err.Throw("access " + Q(s) + ": unknown operation " + Q(parts[1]) +
                  " (valid: read, write)");
    }
    if (parts[2] == "atomic" || parts[2] == "bulk")
    {
        acc.kind.mode = parts[2] == "atomic" ? CoraAccessMode::ATOMIC : CoraAccessMode::BULK;
    }
    else
    {
        err.Throw("access " + Q(s) + ": unknown mode " + Q(parts[2]) + " (valid: atomic, bulk)");
    }
    std::string width = parts[3];
    if (!width.empty() && width.back() == 'B')
    {
        width.pop_back();
    }
    const uint64_t w = ParseUnsigned(err, "access width", width, UINT32_MAX);
    if (w < 4 || w > 128 || w % 4 != 0)
    {
        err.Throw("access " + Q(s) + ": width " + std::to_string(w) +
                  " must be a multiple of 4 bytes in [4, 128]");
    }
    acc.kind.widthBytes = static_cast<uint32_t>(w);
    acc.perPacket = ParseCount(err, "access count", s.substr(colon + 1));
    return acc;
}

/// \param err where \param tokens the element line \return the element
CoraStateElement
ParseElement(const LineError& err, const std::vector<std::string>& tokens)
{
    if (tokens.size() < 2 || tokens[1].find('=') != std::string::npos)
    {
        err.Throw("'element' needs a name before its key=value fields");
    }
    CoraStateElement e;
    e.name = tokens[1];
    std::map<std::string, std::string> fields;
    for (std::size_t i = 2; i < tokens.size(); ++i)
    {
        const auto eq = tokens[i].find('=');
        if (eq == std::string::npos || eq == 0)
        {
            err.Throw("element " + Q(e.name) + ": expected key=value, got " + Q(tokens[i]));
        }
        const std::string k = tokens[i].substr(0, eq);
        const std::string v = tokens[i].substr(eq + 1);
        if (k == "access")
        {
            e.accesses.push_back(ParseAccess(err, v));
            continue;
        }
        if (k != "key" && k != "entries" && k != "entry_bytes" && k != "instructions" &&
            k != "locks" && k != "lock_accesses")
        {
            err.Throw("element " + Q(e.name) + ": unknown field " + Q(k) +
                      " (valid: key, entries, entry_bytes, instructions, access, locks, "
                      "lock_accesses)");
        }
        if (!fields.emplace(k, v).second)
        {
            err.Throw("element " + Q(e.name) + ": duplicate field " + Q(k));
        }
    }
    for (const char* required : {"key", "entries", "entry_bytes", "instructions"})
    {
        if (fields.count(required) == 0)
        {
            err.Throw("element " + Q(e.name) + ": missing field '" + required + "'");
        }
    }
    if (fields.count("locks") != fields.count("lock_accesses"))
    {
        err.Throw("element " + Q(e.name) + ": locks and lock_accesses go together");
    }
    e.key = ParseKey(err, fields["key"]);
    // the types' ranges here; CoraProgram::AddElement checks CoraProgramLimits
    e.entries = ParseUnsigned(err, "entries", fields["entries"], UINT64_MAX);
    e.entryBytes =
        static_cast<uint32_t>(ParseUnsigned(err, "entry_bytes", fields["entry_bytes"], UINT32_MAX));
    e.instructions = ParseCount(err, "instructions", fields["instructions"]);
    if (fields.count("locks") != 0)
    {
        e.locks = static_cast<uint32_t>(ParseUnsigned(err, "locks", fields["locks"], UINT32_MAX));
        e.lockAccessesPerPacket = ParseCount(err, "lock_accesses", fields["lock_accesses"]);
    }
    return e;
}

/// \param err where \param tokens the branch line \return the branch
CoraBranch
ParseBranch(const LineError& err, const std::vector<std::string>& tokens)
{
    if (tokens.size() < 2 || tokens[1].find('=') != std::string::npos)
    {
        err.Throw("'branch' needs a name: branch <name> stateless=X <element>...");
    }
    CoraBranch b;
    b.name = tokens[1];
    bool haveStateless = false;
    for (std::size_t i = 2; i < tokens.size(); ++i)
    {
        const auto eq = tokens[i].find('=');
        if (eq == std::string::npos)
        {
            b.elements.push_back(tokens[i]);
            continue;
        }
        const std::string k = tokens[i].substr(0, eq);
        if (k != "stateless")
        {
            err.Throw("branch " + Q(b.name) + ": unknown field " + Q(k) + " (valid: stateless)");
        }
        if (haveStateless)
        {
            err.Throw("branch " + Q(b.name) + ": duplicate field 'stateless'");
        }
        haveStateless = true;
        b.statelessInstructions = ParseCount(err, "stateless", tokens[i].substr(eq + 1));
    }
    if (!haveStateless)
    {
        err.Throw("branch " + Q(b.name) + ": missing field 'stateless'");
    }
    if (b.elements.empty())
    {
        err.Throw("branch " + Q(b.name) + ": lists no element");
    }
    return b;
}

} // namespace

CoraProgram
CoraParseProgram(std::istream& in, const std::string& fileName)
{
    std::unique_ptr<CoraProgram> program;
    std::string line;
    InputLineReader lines(in, fileName);
    while (lines.Next(line))
    {
        const LineError err(fileName, lines.LineNumber());
        const auto hash = line.find('#');
        const auto tokens = Tokenize(hash == std::string::npos ? line : line.substr(0, hash));
        if (tokens.empty())
        {
            continue;
        }
        const std::string& directive = tokens[0];
        if (directive == "program")
        {
            if (program)
            {
                err.Throw("duplicate 'program' line");
            }
            if (tokens.size() != 2)
            {
                err.Throw("expected 'program <name>'");
            }
            try
            {
                program = std::make_unique<CoraProgram>(tokens[1]);
            }
            catch (const PrestoInputError& e)
            {
                err.Throw(e.what());
            }
            continue;
        }
        if (directive != "element" && directive != "depends" && directive != "branch")
        {
            err.Throw("unknown directive " + Q(directive) +
                      " (valid: program, element, depends, branch)");
        }
        if (!program)
        {
            err.Throw("'" + directive + "' before the 'program' line");
        }
        try
        {
            if (directive == "element")
            {
                program->AddElement(ParseElement(err, tokens));
            }
            else if (directive == "depends")
            {
                if (tokens.size() != 4 || tokens[2] != "->")
                {
                    err.Throw("expected 'depends <writer> -> <reader>'");
                }
                program->AddDependency({tokens[1], tokens[3]});
            }
            else
            {
                program->AddBranch(ParseBranch(err, tokens));
            }
        }
        catch (const PrestoInputError& e)
        {
            const std::string msg = e.what();
            const std::string prefix = fileName + ":" + std::to_string(lines.LineNumber()) + ": ";
            if (msg.compare(0, prefix.size(), prefix) == 0)
            {
                throw;
            }
            err.Throw(msg); // a CoraProgram check: add the place
        }
    }
    // problems of the program as a whole name the file (no line is to blame)
    if (in.bad())
    {
        throw PrestoInputError(fileName + ": read error after line " +
                               std::to_string(lines.LineNumber()));
    }
    if (!program)
    {
        throw PrestoInputError(fileName + ": no 'program <name>' line");
    }
    try
    {
        program->Finalize();
    }
    catch (const PrestoInputError& e)
    {
        throw PrestoInputError(fileName + ": " + e.what());
    }
    return *program;
}

CoraProgram
CoraLoadProgramFile(const std::string& path)
{
    // read once per InputFileScope: the experiment's check and every device share the text
    InputTextStream in(ReadInputText(path, "Cora program file"));
    return CoraParseProgram(in, path);
}

std::string
CoraProgramDataPath(const std::string& name)
{
    const char* env = std::getenv("PRESTO_DATA_DIR");
    const std::string dir = (env != nullptr && env[0] != '\0') ? env : PRESTO_DATA_DIR;
    return dir + "/cora/" + name + ".cora";
}

} // namespace ns3
