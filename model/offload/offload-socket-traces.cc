/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "offload-socket-traces.h"

#include "offload-tcp-connection.h"

namespace ns3
{

TcpHeader
OffloadTraceHeader(const OffloadSegment& seg, uint16_t srcPort, uint16_t dstPort, uint16_t window)
{
    TcpHeader h;
    h.SetSourcePort(srcPort);
    h.SetDestinationPort(dstPort);
    h.SetSequenceNumber(SequenceNumber32(seg.seq));
    h.SetAckNumber(SequenceNumber32(seg.ack));
    h.SetFlags(seg.flags);
    h.SetWindowSize(window);
    return h;
}

} // namespace ns3
