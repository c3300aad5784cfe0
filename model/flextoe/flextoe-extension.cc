/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flextoe-extension.h"

#include "ns3/log.h"
#include "ns3/presto-input-error.h"
#include "ns3/whole-token.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlexToeExtension");

FlexToeStage
FlexToeHookStage(FlexToeHook h)
{
    switch (h)
    {
    case FlexToeHook::INGRESS:
    case FlexToeHook::AFTER_PRE:
        return FlexToeStage::PRE;
    case FlexToeHook::PROTOCOL:
        return FlexToeStage::PROTOCOL;
    case FlexToeHook::BEFORE_POST:
        return FlexToeStage::POST;
    }
    return FlexToeStage::PRE;
}

const char*
FlexToeHookName(FlexToeHook h)
{
    switch (h)
    {
    case FlexToeHook::INGRESS:
        return "ingress";
    case FlexToeHook::AFTER_PRE:
        return "after-pre";
    case FlexToeHook::PROTOCOL:
        return "protocol";
    case FlexToeHook::BEFORE_POST:
        return "before-post";
    }
    return "?";
}

// ---------------------------------------------------------------- FlexToeExtension

FlexToeExtension::FlexToeExtension(std::string name, FlexToeHook hook, double cyclesPerPacket)
    : m_name(std::move(name)),
      m_hook(hook),
      m_cycles(cyclesPerPacket)
{
    if (m_name.empty())
    {
        throw PrestoInputError("FlexTOE extension: the module name is empty");
    }
    if (!(cyclesPerPacket >= 0) || !std::isfinite(cyclesPerPacket))
    {
        throw PrestoInputError("FlexTOE extension '" + m_name +
                               "': cycles per packet must be >= 0 and finite");
    }
}

const std::string&
FlexToeExtension::GetName() const
{
    return m_name;
}

FlexToeHook
FlexToeExtension::GetHook() const
{
    return m_hook;
}

double
FlexToeExtension::GetCyclesPerPacket() const
{
    return m_cycles;
}

uint64_t
FlexToeExtension::GetSeen() const
{
    return m_seen;
}

uint64_t
FlexToeExtension::GetDropped() const
{
    return m_dropped;
}

uint64_t
FlexToeExtension::GetModified() const
{
    return m_modified;
}

// ---------------------------------------------------------------- FlexToeFirewall

FlexToeFirewall::FlexToeFirewall(FlexToeHook hook, double cyclesPerPacket, double cyclesPerRule)
    : FlexToeExtension("firewall", hook, cyclesPerPacket),
      m_cyclesPerRule(cyclesPerRule)
{
    if (!(cyclesPerRule >= 0) || !std::isfinite(cyclesPerRule))
    {
        throw PrestoInputError("FlexTOE firewall: cycles per rule must be >= 0 and finite");
    }
}

void
FlexToeFirewall::AddRule(const Rule& r)
{
    if (r.srcPortLo > r.srcPortHi || r.dstPortLo > r.dstPortHi)
    {
        throw PrestoInputError("FlexTOE firewall rule " + std::to_string(m_rules.size() + 1) +
                               ": port range low end above high end");
    }
    Rule n = r;
    // Keep only the masked bits so that matching is a single compare.
    n.srcIp &= n.srcMask;
    n.dstIp &= n.dstMask;
    m_rules.push_back(n);
}

namespace
{

/// Parse an unsigned integer token in [0, maxValue], read whole (WholeToken).
bool
ParseUint(const std::string& s, uint32_t maxValue, uint32_t& out)
{
    uint64_t v = 0;
    std::string why;
    if (!WholeToken::Parse(s, maxValue, v, why))
    {
        return false;
    }
    out = static_cast<uint32_t>(v);
    return true;
}

/// Parse "a.b.c.d/len", "a.b.c.d" (= /32) or "any" into address and mask.
bool
ParsePrefix(const std::string& s, uint32_t& ip, uint32_t& mask)
{
    if (s == "any")
    {
        ip = 0;
        mask = 0;
        return true;
    }
    std::string addr = s;
    uint32_t len = 32;
    const auto slash = s.find('/');
    if (slash != std::string::npos)
    {
        addr = s.substr(0, slash);
        if (!ParseUint(s.substr(slash + 1), 32, len))
        {
            return false;
        }
    }
    // Four dot-separated octets, nothing else.
    uint32_t v = 0;
    std::size_t pos = 0;
    for (int i = 0; i < 4; ++i)
    {
        const auto dot = addr.find('.', pos);
        if ((i < 3) != (dot != std::string::npos))
        {
            return false;
        }
        const std::string part = i < 3 ? addr.substr(pos, dot - pos) : addr.substr(pos);
        uint32_t octet = 0;
        if (!ParseUint(part, 255, octet))
        {
            return false;
        }
        v = (v << 8) | octet;
        pos = dot + 1;
    }
    mask = len == 0 ? 0 : (0xffffffffu << (32 - len));
    ip = v & mask;
    return true;
}

/// Parse "P", "P-Q" or "any" into a port range.
bool
ParsePorts(const std::string& s, uint16_t& lo, uint16_t& hi)
{
    if (s == "any")
    {
        lo = 0;
        hi = 65535;
        return true;
    }
    uint32_t a = 0;
    uint32_t b = 0;
    const auto dash = s.find('-');
    if (dash == std::string::npos)
    {
        if (!ParseUint(s, 65535, a))
        {
            return false;
        }
        b = a;
    }
    else if (!ParseUint(s.substr(0, dash), 65535, a) || !ParseUint(s.substr(dash + 1), 65535, b))
    {
        return false;
    }
    if (a > b)
    {
        return false;
    }
    lo = static_cast<uint16_t>(a);
    hi = static_cast<uint16_t>(b);
    return true;
}

} // namespace

void
FlexToeFirewall::AddRule(const std::string& text, const std::string& where)
{
    std::istringstream is(text);
    std::vector<std::string> tok;
    for (std::string t; is >> t;)
    {
        tok.push_back(t);
    }
    auto bad = [&where, &text](const std::string& why) {
        throw PrestoInputError(where + ": bad firewall rule '" + text + "': " + why);
    };
    if (tok.size() < 2)
    {
        bad("expected '<drop|allow> <tcp|udp|any|number> [src P] [dst P] [sport R] [dport R]'");
    }
    Rule r;
    if (tok[0] == "drop")
    {
        r.drop = true;
    }
    else if (tok[0] == "allow")
    {
        r.drop = false;
    }
    else
    {
        bad("action '" + tok[0] + "' is not drop or allow");
    }
    uint32_t proto = 0;
    if (tok[1] == "tcp")
    {
        r.protocol = 6;
    }
    else if (tok[1] == "udp")
    {
        r.protocol = 17;
    }
    else if (tok[1] == "any")
    {
        r.protocol = 0;
    }
    else if (ParseUint(tok[1], 255, proto))
    {
        r.protocol = static_cast<uint8_t>(proto);
    }
    else
    {
        bad("protocol '" + tok[1] + "' is not tcp, udp, any or 0-255");
    }
    for (std::size_t i = 2; i < tok.size(); i += 2)
    {
        if (i + 1 >= tok.size())
        {
            bad("field '" + tok[i] + "' has no value");
        }
        const std::string& k = tok[i];
        const std::string& v = tok[i + 1];
        bool ok = false;
        if (k == "src")
        {
            ok = ParsePrefix(v, r.srcIp, r.srcMask);
        }
        else if (k == "dst")
        {
            ok = ParsePrefix(v, r.dstIp, r.dstMask);
        }
        else if (k == "sport")
        {
            ok = ParsePorts(v, r.srcPortLo, r.srcPortHi);
        }
        else if (k == "dport")
        {
            ok = ParsePorts(v, r.dstPortLo, r.dstPortHi);
        }
        else
        {
            bad("unknown field '" + k + "' (src, dst, sport, dport)");
        }
        if (!ok)
        {
            bad("bad value '" + v + "' for " + k);
        }
    }
    AddRule(r);
}

void
FlexToeFirewall::SetDefaultDrop(bool drop)
{
    m_defaultDrop = drop;
}

const std::vector<FlexToeFirewall::Rule>&
FlexToeFirewall::GetRules() const
{
    return m_rules;
}

double
FlexToeFirewall::GetLastExtraCycles() const
{
    return m_lastRuleCycles;
}

FlexToeVerdict
FlexToeFirewall::Run(FlexToePacketView& pkt)
{
    std::size_t evaluated = 0;
    bool drop = m_defaultDrop;
    for (const auto& r : m_rules)
    {
        ++evaluated;
        if ((pkt.srcIp & r.srcMask) == r.srcIp && (pkt.dstIp & r.dstMask) == r.dstIp &&
            pkt.srcPort >= r.srcPortLo && pkt.srcPort <= r.srcPortHi &&
            pkt.dstPort >= r.dstPortLo && pkt.dstPort <= r.dstPortHi &&
            (r.protocol == 0 || r.protocol == pkt.protocol))
        {
            drop = r.drop;
            break;
        }
    }
    m_lastRuleCycles = static_cast<double>(evaluated) * m_cyclesPerRule;
    return drop ? FlexToeVerdict::DROP : FlexToeVerdict::PASS;
}

// ---------------------------------------------------------------- FlexToeVlanStrip

FlexToeVlanStrip::FlexToeVlanStrip(FlexToeHook hook, double cyclesPerPacket)
    : FlexToeExtension("vlan-strip", hook, cyclesPerPacket)
{
}

FlexToeVerdict
FlexToeVlanStrip::Run(FlexToePacketView& pkt)
{
    if (!pkt.vlanPresent)
    {
        return FlexToeVerdict::PASS;
    }
    pkt.vlanPresent = false;
    pkt.vlanId = 0;
    ++m_stripped;
    return FlexToeVerdict::MODIFIED;
}

FlexToeRpcSteer::FlexToeRpcSteer(double cyclesPerSegment, FlexToeHook hook)
    : FlexToeExtension("rpc-steer", hook, 0),
      m_cyclesPerSegment(cyclesPerSegment)
{
    if (!(cyclesPerSegment >= 0) || !std::isfinite(cyclesPerSegment))
    {
        throw PrestoInputError("FlexTOE extension 'rpc-steer': cycles per segment must be "
                               "finite and >= 0, not " +
                               std::to_string(cyclesPerSegment));
    }
}

FlexToeVerdict
FlexToeRpcSteer::Run(FlexToePacketView& pkt)
{
    const bool steer = pkt.received && pkt.payloadBytes > 0;
    m_last = steer ? m_cyclesPerSegment : 0;
    m_steered += steer ? 1 : 0;
    return FlexToeVerdict::PASS;
}

double
FlexToeRpcSteer::GetLastExtraCycles() const
{
    return m_last;
}

uint64_t
FlexToeRpcSteer::GetSteered() const
{
    return m_steered;
}

uint64_t
FlexToeVlanStrip::GetStripped() const
{
    return m_stripped;
}

// ---------------------------------------------------------------- FlexToeTcpTrace

FlexToeTcpTrace::FlexToeTcpTrace(FlexToeHook hook,
                                 double cyclesPerPacket,
                                 std::size_t maxConnections)
    : FlexToeExtension("tcp-trace", hook, cyclesPerPacket),
      m_maxConnections(maxConnections)
{
    if (maxConnections == 0)
    {
        throw PrestoInputError("FlexTOE tcp-trace: maxConnections must be >= 1");
    }
}

std::size_t
FlexToeTcpTrace::KeyHash::operator()(const Key& k) const
{
    uint64_t h = (static_cast<uint64_t>(k.srcIp) << 32) | k.dstIp;
    h ^= (static_cast<uint64_t>(k.srcPort) << 16 | k.dstPort) * 0x9e3779b97f4a7c15ULL;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 32;
    return static_cast<std::size_t>(h);
}

FlexToeVerdict
FlexToeTcpTrace::Run(FlexToePacketView& pkt)
{
    if (pkt.protocol != 6)
    {
        return FlexToeVerdict::PASS;
    }
    const Key k{pkt.srcIp, pkt.dstIp, pkt.srcPort, pkt.dstPort};
    auto it = m_conns.find(k);
    if (it == m_conns.end())
    {
        if (m_conns.size() >= m_maxConnections)
        {
            ++m_untracked;
            return FlexToeVerdict::PASS;
        }
        it = m_conns.emplace(k, Counters{}).first;
        it->second.firstSeq = pkt.seq;
    }
    Counters& c = it->second;
    ++c.segments;
    c.bytes += pkt.payloadBytes;
    const uint8_t f = pkt.tcpFlags;
    c.syn += (f & FlexToeTcpFlags::SYN) ? 1 : 0;
    c.fin += (f & FlexToeTcpFlags::FIN) ? 1 : 0;
    c.rst += (f & FlexToeTcpFlags::RST) ? 1 : 0;
    c.ack += (f & FlexToeTcpFlags::ACK) ? 1 : 0;
    c.psh += (f & FlexToeTcpFlags::PSH) ? 1 : 0;
    c.ece += (f & FlexToeTcpFlags::ECE) ? 1 : 0;
    c.cwr += (f & FlexToeTcpFlags::CWR) ? 1 : 0;
    c.flagsSeen |= f;
    c.lastSeq = pkt.seq;
    return FlexToeVerdict::PASS;
}

const FlexToeTcpTrace::Counters*
FlexToeTcpTrace::Get(const Key& k) const
{
    auto it = m_conns.find(k);
    return it == m_conns.end() ? nullptr : &it->second;
}

std::size_t
FlexToeTcpTrace::GetConnectionCount() const
{
    return m_conns.size();
}

uint64_t
FlexToeTcpTrace::GetUntracked() const
{
    return m_untracked;
}

uint64_t
FlexToeTcpTrace::GetTotalSegments() const
{
    uint64_t total = m_untracked;
    for (const auto& [key, counters] : m_conns)
    {
        total += counters.segments;
    }
    return total;
}

// ---------------------------------------------------------------- FlexToeExtensionChain

void
FlexToeExtensionChain::Add(std::shared_ptr<FlexToeExtension> ext)
{
    if (!ext)
    {
        throw PrestoInputError("FlexTOE extension chain: null module");
    }
    // Keep the list ordered by hook point; within a hook, in the order added.
    auto pos = std::upper_bound(
        m_modules.begin(),
        m_modules.end(),
        ext,
        [](const std::shared_ptr<FlexToeExtension>& a, const std::shared_ptr<FlexToeExtension>& b) {
            return a->GetHook() < b->GetHook();
        });
    m_modules.insert(pos, std::move(ext));
}

FlexToeExtensionChain::Outcome
FlexToeExtensionChain::Run(FlexToePacketView& pkt)
{
    Outcome o;
    for (const auto& m : m_modules)
    {
        const FlexToeVerdict v = m->Run(pkt);
        const auto stage = static_cast<std::size_t>(FlexToeHookStage(m->GetHook()));
        o.cycles[stage] += m->GetCyclesPerPacket() + m->GetLastExtraCycles();
        ++m->m_seen;
        if (v == FlexToeVerdict::DROP)
        {
            ++m->m_dropped;
            o.verdict = FlexToeVerdict::DROP;
            o.dropStage = stage;
            o.droppedBy = m.get();
            NS_LOG_LOGIC("dropped by " << m->GetName() << " at " << FlexToeHookName(m->GetHook()));
            return o;
        }
        if (v == FlexToeVerdict::MODIFIED)
        {
            ++m->m_modified;
            o.verdict = FlexToeVerdict::MODIFIED;
        }
    }
    return o;
}

FlexToeResult
FlexToeExtensionChain::Process(FlexToePipeline& pipeline,
                               uint64_t nowNs,
                               uint32_t flowHash,
                               FlexToePacketView& pkt)
{
    const Outcome o = Run(pkt);
    return pipeline.Process(nowNs, flowHash, pkt.payloadBytes, o.cycles, o.dropStage);
}

const std::vector<std::shared_ptr<FlexToeExtension>>&
FlexToeExtensionChain::GetModules() const
{
    return m_modules;
}

} // namespace ns3
