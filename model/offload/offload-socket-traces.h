/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_SOCKET_TRACES_H
#define PRESTO_OFFLOAD_SOCKET_TRACES_H

#include "ns3/ptr.h"
#include "ns3/tcp-header.h"
#include "ns3/trace-source-accessor.h"

#include <cstdint>

namespace ns3
{

struct OffloadSegment;

/**
 * \ingroup presto
 * \brief A trace source accessor that tells its object that a sink is connected.
 *
 * The per-connection trace sources of OffloadSocket (CongestionWindow, RTT, Tx, ...) are
 * kept up to date by the device only once someone listens: the data path then pays one
 * test of a bool per decision and nothing else while no trace is connected (ns-3's
 * TracedValue has no "is anyone connected" query in every release the module builds with).
 * This accessor wraps the usual one (MakeTraceSourceAccessor) and, on every Connect or
 * ConnectWithoutContext (Config::Connect ends there), calls T::EnableTraces on the object
 * first. Disconnecting leaves the object traced: it costs the updates, never a wrong value.
 *
 * \tparam T the object type (it has a public EnableTraces())
 */
template <typename T>
class EnablingTraceSourceAccessor : public TraceSourceAccessor
{
  public:
    /** \param inner the accessor that connects to the member */
    explicit EnablingTraceSourceAccessor(Ptr<const TraceSourceAccessor> inner)
        : m_inner(inner)
    {
    }

    bool ConnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        Enable(obj);
        return m_inner->ConnectWithoutContext(obj, cb);
    }

    bool Connect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        Enable(obj);
        return m_inner->Connect(obj, context, cb);
    }

    bool DisconnectWithoutContext(ObjectBase* obj, const CallbackBase& cb) const override
    {
        return m_inner->DisconnectWithoutContext(obj, cb);
    }

    bool Disconnect(ObjectBase* obj, std::string context, const CallbackBase& cb) const override
    {
        return m_inner->Disconnect(obj, context, cb);
    }

  private:
    /// \param obj the object whose trace source is being connected
    static void Enable(ObjectBase* obj)
    {
        T* t = dynamic_cast<T*>(obj);
        if (t)
        {
            t->EnableTraces();
        }
    }

    Ptr<const TraceSourceAccessor> m_inner; //!< the accessor of the member
};

/**
 * \brief MakeTraceSourceAccessor for an OffloadSocket-like object: the same, plus
 * EnablingTraceSourceAccessor's EnableTraces call.
 * \tparam T the object type
 * \tparam M the member pointer type
 * \param member the TracedValue or TracedCallback member
 * \return the accessor
 */
template <typename T, typename M>
Ptr<const TraceSourceAccessor>
MakeEnablingTraceSourceAccessor(M member)
{
    return Ptr<const TraceSourceAccessor>(
        new EnablingTraceSourceAccessor<T>(MakeTraceSourceAccessor(member)),
        false);
}

/**
 * \ingroup presto
 * \brief The TcpHeader of an offloaded connection's segment, for the Tx/Rx/Retransmission
 * trace sources (built only when one of them is connected).
 * \param seg the segment's fields
 * \param srcPort source port \param dstPort destination port
 * \param window the window field as on the wire (unscaled, 16 bits)
 * \return the header (no options)
 */
TcpHeader OffloadTraceHeader(const OffloadSegment& seg,
                             uint16_t srcPort,
                             uint16_t dstPort,
                             uint16_t window);

} // namespace ns3

#endif // PRESTO_OFFLOAD_SOCKET_TRACES_H
