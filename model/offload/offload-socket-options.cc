/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadSocket's TcpSocket attributes: the setters and getters that keep them, so that
// applications configure an offloaded socket as any TcpSocket, and the check that refuses
// those the NIC does not honour (CheckAttributes). The NIC applies the buffer sizes, MSS and
// initial window per connection; its timers are its own.
#include "offload-socket.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/nstime.h"
#include "ns3/presto-input-error.h"
#include "ns3/uinteger.h"

#include <sstream>
#include <string>

namespace ns3
{

namespace
{

/**
 * \tparam V the attribute's value type \param name a TcpSocket attribute
 * \return its original default (before any Config::SetDefault)
 */
template <typename V>
auto
TcpSocketDefault(const char* name)
{
    TypeId::AttributeInformation info;
    const bool found = TcpSocket::GetTypeId().LookupAttributeByName(name, &info);
    NS_ABORT_MSG_UNLESS(found, "TcpSocket has no attribute " << name);
    return DynamicCast<const V>(info.originalInitialValue)->Get();
}

/**
 * \param v an attribute value \param checker its checker
 * \return it as a user writes it (times in seconds: "1s", not "+1e+09ns")
 */
std::string
Show(const AttributeValue& v, Ptr<const AttributeChecker> checker)
{
    if (const auto* t = dynamic_cast<const TimeValue*>(&v))
    {
        std::ostringstream os;
        os << t->Get().As(Time::S);
        std::string out = os.str();
        return out[0] == '+' ? out.substr(1) : out;
    }
    return v.SerializeToString(checker);
}

} // namespace

void
OffloadSocket::NoteRefused(uint32_t bit, bool differs)
{
    m_refused = differs ? (m_refused | bit) : (m_refused & ~bit);
}

void
OffloadSocket::CheckAttributes(const std::string& where) const
{
    if (m_refused == 0)
    {
        return; // the setters found every refused attribute at an accepted value
    }

    // The TcpSocket attributes the NIC does not honour: each may keep its default (or, for
    // DelAckCount and TcpNoDelay, the value the NIC behaves as), nothing else.
    struct Refused
    {
        const char* name;    // the attribute
        const char* accepts; // a value the NIC behaves as, besides the default (or null)
        const char* why;     // what the NIC does instead
    };

    static const Refused refused[] = {
        {"ConnTimeout",
         nullptr,
         "the NIC's handshake retransmits after the device's SynTimeout (set "
         "ns3::OffloadNetDevice::SynTimeout)"},
        {"ConnCount",
         nullptr,
         "the NIC gives up a handshake after the device's SynRetries (set "
         "ns3::OffloadNetDevice::SynRetries)"},
        {"DataRetries", nullptr, "the NIC's data path retransmits without a retry limit"},
        {"DelAckCount", "1", "the NIC acknowledges every segment (DelAckCount=1)"},
        {"TcpNoDelay", "true", "the NIC sends without Nagle's delay (TcpNoDelay=true)"},
        {"PersistTimeout",
         nullptr,
         "the NIC's zero-window probes back off from its RTO (set "
         "ns3::OffloadNetDevice::MinRto)"},
        {"InitialSlowStartThreshold",
         nullptr,
         "the NIC's congestion control starts with an unbounded slow-start threshold"},
    };
    const TypeId tcp = TcpSocket::GetTypeId();
    for (const Refused& r : refused)
    {
        TypeId::AttributeInformation info;
        if (!tcp.LookupAttributeByName(r.name, &info))
        {
            continue; // not in this ns-3 release
        }
        Ptr<AttributeValue> value = info.checker->Create();
        GetAttribute(r.name, *value);
        const std::string now = Show(*value, info.checker);
        const std::string dflt = Show(*info.originalInitialValue, info.checker);
        if (now == dflt || (r.accepts && now == r.accepts))
        {
            continue;
        }
        throw PrestoInputError(where + ": ns3::TcpSocket::" + r.name + "=" + now +
                               " is not supported on an offloaded connection (" + r.why +
                               "); leave it at its default " + dflt);
    }
}

// TcpSocket attributes: kept so that applications configure the socket as usual. The NIC
// applies the buffer sizes, MSS and initial window; timers are the NIC's own.
void
OffloadSocket::SetSndBufSize(uint32_t size)
{
    m_sndBuf = size;
}

uint32_t
OffloadSocket::GetSndBufSize() const
{
    return m_sndBuf;
}

void
OffloadSocket::SetRcvBufSize(uint32_t size)
{
    m_rcvBuf = size;
}

uint32_t
OffloadSocket::GetRcvBufSize() const
{
    return m_rcvBuf;
}

void
OffloadSocket::SetSegSize(uint32_t size)
{
    m_segSize = size;
}

uint32_t
OffloadSocket::GetSegSize() const
{
    return m_segSize;
}

void
OffloadSocket::SetInitialSSThresh(uint32_t threshold)
{
    static const auto dflt = TcpSocketDefault<UintegerValue>("InitialSlowStartThreshold");
    NoteRefused(REFUSED_SSTHRESH, threshold != dflt);
    m_ssThresh = threshold;
}

uint32_t
OffloadSocket::GetInitialSSThresh() const
{
    return m_ssThresh;
}

void
OffloadSocket::SetInitialCwnd(uint32_t cwnd)
{
    m_initialCwnd = cwnd;
}

uint32_t
OffloadSocket::GetInitialCwnd() const
{
    return m_initialCwnd;
}

void
OffloadSocket::SetConnTimeout(Time timeout)
{
    static const auto dflt = TcpSocketDefault<TimeValue>("ConnTimeout");
    NoteRefused(REFUSED_CONN_TIMEOUT, timeout != dflt);
    m_connTimeout = timeout;
}

Time
OffloadSocket::GetConnTimeout() const
{
    return m_connTimeout;
}

void
OffloadSocket::SetSynRetries(uint32_t count)
{
    static const auto dflt = TcpSocketDefault<UintegerValue>("ConnCount");
    NoteRefused(REFUSED_CONN_COUNT, count != dflt);
    m_synRetries = count;
}

uint32_t
OffloadSocket::GetSynRetries() const
{
    return m_synRetries;
}

void
OffloadSocket::SetDataRetries(uint32_t retries)
{
    static const auto dflt = TcpSocketDefault<UintegerValue>("DataRetries");
    NoteRefused(REFUSED_DATA_RETRIES, retries != dflt);
    m_dataRetries = retries;
}

uint32_t
OffloadSocket::GetDataRetries() const
{
    return m_dataRetries;
}

void
OffloadSocket::SetDelAckTimeout(Time timeout)
{
    // accepted at any value: the NIC ACKs every segment, as ns-3's TCP does with
    // DelAckCount=1, which never waits for this timer either (doc/presto.rst)
    m_delAckTimeout = timeout;
}

Time
OffloadSocket::GetDelAckTimeout() const
{
    return m_delAckTimeout;
}

void
OffloadSocket::SetDelAckMaxCount(uint32_t count)
{
    static const auto dflt = TcpSocketDefault<UintegerValue>("DelAckCount");
    NoteRefused(REFUSED_DELACK_COUNT, count != dflt && count != 1);
    m_delAckCount = count;
}

uint32_t
OffloadSocket::GetDelAckMaxCount() const
{
    return m_delAckCount;
}

void
OffloadSocket::SetTcpNoDelay(bool noDelay)
{
    static const auto dflt = TcpSocketDefault<BooleanValue>("TcpNoDelay");
    NoteRefused(REFUSED_NO_DELAY, noDelay != dflt && !noDelay);
    m_noDelay = noDelay;
}

bool
OffloadSocket::GetTcpNoDelay() const
{
    return m_noDelay;
}

void
OffloadSocket::SetPersistTimeout(Time timeout)
{
    static const auto dflt = TcpSocketDefault<TimeValue>("PersistTimeout");
    NoteRefused(REFUSED_PERSIST, timeout != dflt);
    m_persistTimeout = timeout;
}

Time
OffloadSocket::GetPersistTimeout() const
{
    return m_persistTimeout;
}

} // namespace ns3
