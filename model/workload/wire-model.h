/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_WIRE_MODEL_H
#define PRESTO_WIRE_MODEL_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief How a transport puts a flow on the wire, for the ideal FCT.
 */
struct WireModel
{
    uint32_t mssBytes{1448};   //!< payload bytes per full data segment
    uint32_t dataOverhead{54}; //!< bytes on the wire per data segment besides payload
                               //!< (L2 framing + IPv4 + TCP with options)
    uint32_t synBytes{62};     //!< bytes on the wire of the SYN (0: no handshake)
    uint32_t synAckBytes{62};  //!< bytes on the wire of the SYN-ACK
};

} // namespace ns3

#endif // PRESTO_WIRE_MODEL_H
