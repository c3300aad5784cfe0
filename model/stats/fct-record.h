/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FCT_RECORD_H
#define PRESTO_FCT_RECORD_H

#include "ns3/flow-spec.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief What became of one flow: the row of fct.csv.
 *
 * FCT runs from FlowSpec::startNs (the application hands the flow to its transport) to the
 * delivery of the last byte to the receiving application. Slowdown = fct / ideal, not
 * clamped: a value below 1 would reveal a wrong ideal, so it is reported as it is.
 */
struct FctRecord
{
    FlowSpec flow;         //!< the flow
    int64_t finishNs{-1};  //!< last byte delivered to the receiving application; -1: unfinished
    int64_t idealNs{0};    //!< the flow alone on the idle fabric (see IdealFctNs), ns
    int64_t retxBytes{-1}; //!< bytes retransmitted by the sender; -1 where unknown
    uint32_t srcAddr{0};   //!< sender's IPv4 address, host order; 0 where unknown
    uint32_t dstAddr{0};   //!< receiver's IPv4 address, host order; 0 where unknown
    int32_t srcPort{-1};   //!< sender's (ephemeral) port; -1 where unknown
    int64_t timeouts{-1};  //!< retransmission timeouts of the sender; -1 where unknown

    /** \return true if the last byte was delivered */
    bool Finished() const
    {
        return finishNs >= 0;
    }

    /** \return flow completion time, ns (only meaningful when Finished()) */
    int64_t FctNs() const
    {
        return finishNs - flow.startNs;
    }

    /** \return fct / ideal (only meaningful when Finished()) */
    double Slowdown() const
    {
        return idealNs > 0 ? static_cast<double>(FctNs()) / static_cast<double>(idealNs) : 0.0;
    }
};

} // namespace ns3

#endif // PRESTO_FCT_RECORD_H
