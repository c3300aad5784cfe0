/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-classifier.h"

#include "ns3/input-file.h"
#include "ns3/presto-input-error.h"
#include "ns3/whole-token.h"

#include <fstream>
#include <istream>
#include <sstream>

// Pure logic with no Simulator dependency (no NS_LOG).

namespace ns3
{

namespace
{

/// "origin: " when an origin is known, else "PrestoClassifier: ".
std::string
Where(const std::string& origin)
{
    return (origin.empty() ? std::string("PrestoClassifier") : origin) + ": ";
}

/// An unsigned decimal number read whole (WholeToken), at most max.
bool
ParseUnsigned(const std::string& s, uint64_t max, uint64_t& out)
{
    std::string why;
    return WholeToken::Parse(s, max, out, why);
}

/// Parse a dotted-quad IPv4 address.
bool
ParseIpv4(const std::string& s, uint32_t& out)
{
    uint32_t v = 0;
    size_t pos = 0;
    for (int i = 0; i < 4; ++i)
    {
        const size_t dot = (i < 3) ? s.find('.', pos) : s.size();
        if (dot == std::string::npos)
        {
            return false;
        }
        uint64_t octet = 0;
        if (!ParseUnsigned(s.substr(pos, dot - pos), 255, octet) || dot - pos > 3)
        {
            return false;
        }
        v = (v << 8) | static_cast<uint32_t>(octet);
        pos = dot + 1;
    }
    out = v;
    return true;
}

/// \return the dotted-quad form of a host-order address
std::string
Ipv4ToString(uint32_t a)
{
    return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." +
           std::to_string((a >> 8) & 255) + "." + std::to_string(a & 255);
}

/// \return the prefix length of a contiguous mask, or -1
int
MaskToPrefix(uint32_t mask)
{
    for (int len = 0; len <= 32; ++len)
    {
        const uint32_t m = len == 0 ? 0 : ~uint32_t{0} << (32 - len);
        if (m == mask)
        {
            return len;
        }
    }
    return -1;
}

/// Parse `any`, `a.b.c.d` or `a.b.c.d/len` into value and mask.
void
ParseAddress(const std::string& key,
             const std::string& v,
             const std::string& origin,
             uint32_t& addr,
             uint32_t& mask)
{
    if (v == "any")
    {
        addr = 0;
        mask = 0;
        return;
    }
    const size_t slash = v.find('/');
    uint64_t len = 32;
    if (slash != std::string::npos && !ParseUnsigned(v.substr(slash + 1), 32, len))
    {
        throw PrestoInputError(Where(origin) + key + "=" + InputExcerpt(v) +
                               ": the prefix length must be 0..32");
    }
    if (!ParseIpv4(v.substr(0, slash), addr))
    {
        throw PrestoInputError(Where(origin) + key + "=" + InputExcerpt(v) +
                               ": expected 'any', an IPv4 address a.b.c.d or a prefix "
                               "a.b.c.d/len");
    }
    mask = len == 0 ? 0 : ~uint32_t{0} << (32 - len);
    if ((addr & ~mask) != 0)
    {
        throw PrestoInputError(Where(origin) + key + "=" + InputExcerpt(v) +
                               ": the address has bits set beyond the /" + std::to_string(len) +
                               " prefix (did you mean " + Ipv4ToString(addr & mask) + "/" +
                               std::to_string(len) + "?)");
    }
}

/// Parse `any`, `N` or `N-M` (0..65535).
void
ParsePorts(const std::string& key,
           const std::string& v,
           const std::string& origin,
           uint16_t& lo,
           uint16_t& hi)
{
    if (v == "any")
    {
        lo = 0;
        hi = 65535;
        return;
    }
    const size_t dash = v.find('-');
    uint64_t a = 0;
    uint64_t b = 0;
    const bool ok = dash == std::string::npos ? ParseUnsigned(v, 65535, a)
                                              : ParseUnsigned(v.substr(0, dash), 65535, a) &&
                                                    ParseUnsigned(v.substr(dash + 1), 65535, b);
    if (!ok)
    {
        throw PrestoInputError(Where(origin) + key + "=" + InputExcerpt(v) +
                               ": expected 'any', a port N or a range N-M with ports 0..65535");
    }
    if (dash == std::string::npos)
    {
        b = a;
    }
    if (a > b)
    {
        throw PrestoInputError(Where(origin) + key + "=" + InputExcerpt(v) +
                               ": the range is reversed (" + std::to_string(a) + " > " +
                               std::to_string(b) + ")");
    }
    lo = static_cast<uint16_t>(a);
    hi = static_cast<uint16_t>(b);
}

/// Split on blanks.
std::vector<std::string>
Tokens(const std::string& line)
{
    std::vector<std::string> out;
    std::istringstream is(line);
    std::string t;
    while (is >> t)
    {
        out.push_back(t);
    }
    return out;
}

/// The line without its comment.
std::string
StripComment(const std::string& line)
{
    const size_t hash = line.find('#');
    return hash == std::string::npos ? line : line.substr(0, hash);
}

} // namespace

PrestoClassifier::PrestoClassifier(uint32_t classCount, uint32_t defaultClass, uint32_t capacity)
    : m_classCount(classCount),
      m_defaultClass(defaultClass)
{
    if (classCount == 0)
    {
        throw PrestoInputError("PrestoClassifier: at least one class is needed");
    }
    if (capacity == 0)
    {
        throw PrestoInputError("PrestoClassifier: the rule table needs a capacity of at least 1");
    }
    RmtPipelineConfig config;
    config.name = "presto-classifier";
    config.stageBudget = 1;
    config.maxPasses = 1;
    m_pipe = std::make_unique<RmtPipeline>(config);
    m_src = m_pipe->AddField("ipv4.src", 32);
    m_dst = m_pipe->AddField("ipv4.dst", 32);
    m_proto = m_pipe->AddField("ipv4.proto", 8);
    m_sport = m_pipe->AddField("l4.sport", 16);
    m_dport = m_pipe->AddField("l4.dport", 16);
    m_dscp = m_pipe->AddField("ipv4.dscp", 6);
    m_class = m_pipe->AddField("meta.class", 32);
    m_rule = m_pipe->AddField("meta.rule", 32);
    const RmtFieldId rule = m_rule;
    RmtStage& st = m_pipe->AddStage("classify");
    m_table = &st.AddTable("flow_class",
                           {{m_src, RmtMatchKind::TERNARY},
                            {m_dst, RmtMatchKind::TERNARY},
                            {m_proto, RmtMatchKind::TERNARY},
                            {m_sport, RmtMatchKind::RANGE},
                            {m_dport, RmtMatchKind::RANGE},
                            {m_dscp, RmtMatchKind::TERNARY}},
                           capacity);
    const RmtFieldId cls = m_class;
    // Action data: the class and the rule number + 1 (0 marks the default action).
    m_setClass = m_table->AddAction(
        "set_class",
        [cls, rule](RmtActionContext& c) {
            c.Set(cls, c.Param(0));
            c.Set(rule, c.Param(1));
        },
        2);
    m_pipe->Finalize();
    SetDefaultClass(defaultClass);
    m_phv = std::make_unique<RmtPhv>(m_pipe->NewPhv());
    m_exec.hits.reserve(4);
}

PrestoClassifier::~PrestoClassifier() = default;

void
PrestoClassifier::SetDefaultClass(uint32_t defaultClass)
{
    if (defaultClass >= m_classCount)
    {
        throw PrestoInputError("PrestoClassifier: default class " + std::to_string(defaultClass) +
                               " does not exist (classes 0.." + std::to_string(m_classCount - 1) +
                               ")");
    }
    m_defaultClass = defaultClass;
    m_table->SetDefaultAction(m_setClass, {defaultClass, 0});
}

uint32_t
PrestoClassifier::AddRule(const PrestoClassRule& r)
{
    const std::string where = Where(r.origin);
    if (r.classIndex >= m_classCount)
    {
        throw PrestoInputError(where + "class " + std::to_string(r.classIndex) +
                               " does not exist (classes 0.." + std::to_string(m_classCount - 1) +
                               ")");
    }
    if (r.srcPortLo > r.srcPortHi || r.dstPortLo > r.dstPortHi)
    {
        throw PrestoInputError(where + "a port range is reversed");
    }
    if (!r.anyDscp && r.dscp > 63)
    {
        throw PrestoInputError(where + "DSCP " + std::to_string(r.dscp) + " is above 63");
    }
    if (MaskToPrefix(r.srcMask) < 0 || MaskToPrefix(r.dstMask) < 0)
    {
        throw PrestoInputError(where + "an address mask is not a prefix (contiguous leading ones)");
    }
    if ((r.src & ~r.srcMask) != 0 || (r.dst & ~r.dstMask) != 0)
    {
        throw PrestoInputError(where + "an address has bits set outside its mask");
    }
    if (m_rules.size() >= m_table->GetCapacity())
    {
        throw PrestoInputError(where + "the classifier table is full (" +
                               std::to_string(m_table->GetCapacity()) + " rules)");
    }
    const auto index = static_cast<uint32_t>(m_rules.size());
    const std::vector<RmtMatch> key{
        RmtMatch::Ternary(r.src, r.srcMask),
        RmtMatch::Ternary(r.dst, r.dstMask),
        r.anyProtocol ? RmtMatch::Any() : RmtMatch::Exact(r.protocol),
        RmtMatch::Range(r.srcPortLo, r.srcPortHi),
        RmtMatch::Range(r.dstPortLo, r.dstPortHi),
        r.anyDscp ? RmtMatch::Any() : RmtMatch::Exact(r.dscp),
    };
    RmtEntryHandle h;
    try
    {
        h = m_table->AddEntry(key, m_setClass, {r.classIndex, uint64_t{index} + 1}, r.priority);
    }
    catch (const PrestoInputError& e)
    {
        throw PrestoInputError(where + "rule refused: " + e.what());
    }
    m_rules.push_back(r);
    m_handles.push_back(h);
    return index;
}

PrestoClassRule
PrestoClassifier::ParseRule(const std::string& line, const std::string& origin)
{
    const std::vector<std::string> t = Tokens(StripComment(line));
    if (t.size() < 2)
    {
        throw PrestoInputError(Where(origin) +
                               "expected 'priority class key=value ...', e.g. '100 1 "
                               "src=10.0.0.0/8 dport=5000-5100'");
    }
    PrestoClassRule r;
    r.origin = origin;
    std::string why;
    if (!WholeToken::Parse(t[0], r.priority, why))
    {
        throw PrestoInputError(Where(origin) + "priority '" + InputExcerpt(t[0]) +
                               "' is not an integer in -2147483648..2147483647: it " + why);
    }
    if (!WholeToken::Parse(t[1], r.classIndex, why))
    {
        throw PrestoInputError(Where(origin) + "class '" + InputExcerpt(t[1]) +
                               "' is not a non-negative integer: it " + why);
    }
    std::vector<std::string> seen;
    for (size_t i = 2; i < t.size(); ++i)
    {
        const size_t eq = t[i].find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == t[i].size())
        {
            throw PrestoInputError(Where(origin) + "'" + InputExcerpt(t[i]) +
                                   "' is not key=value (keys: src dst proto sport dport dscp)");
        }
        const std::string k = t[i].substr(0, eq);
        const std::string v = t[i].substr(eq + 1);
        for (const auto& s : seen)
        {
            if (s == k)
            {
                throw PrestoInputError(Where(origin) + "key '" + InputExcerpt(k) +
                                       "' is given twice");
            }
        }
        seen.push_back(k);
        if (k == "src")
        {
            ParseAddress(k, v, origin, r.src, r.srcMask);
        }
        else if (k == "dst")
        {
            ParseAddress(k, v, origin, r.dst, r.dstMask);
        }
        else if (k == "sport")
        {
            ParsePorts(k, v, origin, r.srcPortLo, r.srcPortHi);
        }
        else if (k == "dport")
        {
            ParsePorts(k, v, origin, r.dstPortLo, r.dstPortHi);
        }
        else if (k == "proto")
        {
            uint64_t n = 0;
            r.anyProtocol = v == "any";
            if (v == "tcp" || v == "TCP")
            {
                n = 6;
            }
            else if (v == "udp" || v == "UDP")
            {
                n = 17;
            }
            else if (v == "icmp" || v == "ICMP")
            {
                n = 1;
            }
            else if (!r.anyProtocol && !ParseUnsigned(v, 255, n))
            {
                throw PrestoInputError(Where(origin) + "proto=" + InputExcerpt(v) +
                                       ": expected any, tcp, udp, icmp or 0..255");
            }
            r.protocol = static_cast<uint8_t>(n);
        }
        else if (k == "dscp")
        {
            uint64_t n = 0;
            r.anyDscp = v == "any";
            if (!r.anyDscp && !ParseUnsigned(v, 63, n))
            {
                throw PrestoInputError(Where(origin) + "dscp=" + InputExcerpt(v) +
                                       ": expected any or 0..63");
            }
            r.dscp = static_cast<uint8_t>(n);
        }
        else
        {
            throw PrestoInputError(Where(origin) + "unknown key '" + InputExcerpt(k) +
                                   "' (keys: src dst proto sport dport dscp)");
        }
    }
    return r;
}

uint32_t
PrestoClassifier::LoadRules(std::istream& in, const std::string& sourceName)
{
    std::string line;
    InputLineReader lines(in, sourceName);
    uint32_t added = 0;
    while (lines.Next(line))
    {
        const std::string origin = sourceName + ":" + std::to_string(lines.LineNumber());
        const std::vector<std::string> t = Tokens(StripComment(line));
        if (t.empty())
        {
            continue;
        }
        if (t[0] == "default")
        {
            uint32_t cls = 0;
            std::string why;
            if (t.size() != 2)
            {
                throw PrestoInputError(origin + ": expected 'default CLASS'");
            }
            if (!WholeToken::Parse(t[1], cls, why))
            {
                throw PrestoInputError(origin + ": expected 'default CLASS', class '" +
                                       InputExcerpt(t[1]) + "' " + why);
            }
            if (cls >= m_classCount)
            {
                throw PrestoInputError(origin + ": default class " + std::to_string(cls) +
                                       " does not exist (classes 0.." +
                                       std::to_string(m_classCount - 1) + ")");
            }
            SetDefaultClass(static_cast<uint32_t>(cls));
            continue;
        }
        AddRule(ParseRule(line, origin));
        ++added;
    }
    if (in.bad())
    {
        throw PrestoInputError(sourceName + ": read error after line " +
                               std::to_string(lines.LineNumber()));
    }
    return added;
}

uint32_t
PrestoClassifier::LoadRulesFromFile(const std::string& path)
{
    // read once per InputFileScope: the experiment's check and every device share the text
    auto text = TryReadInputText(path, "classifier rule file");
    if (!text)
    {
        throw PrestoInputError(path + ": cannot open the classifier rule file");
    }
    InputTextStream in(text);
    return LoadRules(in, path);
}

uint32_t
PrestoClassifier::Classify(const PrestoFlowKey& key)
{
    int64_t rule = -1;
    return Classify(key, rule);
}

uint32_t
PrestoClassifier::Classify(const PrestoFlowKey& key, int64_t& rule)
{
    RmtPhv& phv = *m_phv;
    phv.Clear();
    phv.Set(m_src, key.src);
    phv.Set(m_dst, key.dst);
    phv.Set(m_proto, key.protocol);
    phv.Set(m_sport, key.srcPort);
    phv.Set(m_dport, key.dstPort);
    phv.Set(m_dscp, key.dscp);
    m_pipe->Execute(phv, m_exec);
    rule = static_cast<int64_t>(phv.Get(m_rule)) - 1;
    return static_cast<uint32_t>(phv.Get(m_class));
}

uint32_t
PrestoClassifier::GetDefaultClass() const
{
    return m_defaultClass;
}

uint32_t
PrestoClassifier::GetClassCount() const
{
    return m_classCount;
}

uint32_t
PrestoClassifier::GetRuleCount() const
{
    return static_cast<uint32_t>(m_rules.size());
}

const PrestoClassRule&
PrestoClassifier::GetRule(uint32_t i) const
{
    if (i >= m_rules.size())
    {
        throw PrestoInputError("PrestoClassifier: rule " + std::to_string(i) + " does not exist (" +
                               std::to_string(m_rules.size()) + " rules)");
    }
    return m_rules[i];
}

uint64_t
PrestoClassifier::GetRuleHits(uint32_t i) const
{
    GetRule(i);
    return m_table->GetEntryHits(m_handles[i]);
}

RmtResourceReport
PrestoClassifier::GetResourceReport() const
{
    return m_pipe->GetResourceReport();
}

std::string
PrestoClassifier::RuleToString(const PrestoClassRule& r)
{
    auto addr = [](uint32_t a, uint32_t m) {
        if (m == 0)
        {
            return std::string("any");
        }
        const int len = MaskToPrefix(m);
        return Ipv4ToString(a) + (len == 32 ? "" : "/" + std::to_string(len));
    };
    auto ports = [](uint16_t lo, uint16_t hi) {
        if (lo == 0 && hi == 65535)
        {
            return std::string("any");
        }
        return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
    };
    return std::to_string(r.priority) + " " + std::to_string(r.classIndex) +
           " src=" + addr(r.src, r.srcMask) + " dst=" + addr(r.dst, r.dstMask) +
           " proto=" + (r.anyProtocol ? std::string("any") : std::to_string(r.protocol)) +
           " sport=" + ports(r.srcPortLo, r.srcPortHi) +
           " dport=" + ports(r.dstPortLo, r.dstPortHi) +
           " dscp=" + (r.anyDscp ? std::string("any") : std::to_string(r.dscp));
}

} // namespace ns3
