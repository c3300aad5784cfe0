/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_DEVICE_EVENT_H
#define PRESTO_OFFLOAD_DEVICE_EVENT_H

#include "offload-tcp-connection.h"

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

/// What one of an offload NIC's frequent events does, and with what (OffloadDeviceEvent).
enum class OffloadDeviceEventKind : uint8_t
{
    SEND_SEGMENT,  //!< SendSegment(id, seg, payload): an ACK after the NIC's latency
    LEAVE_NIC,     //!< a segment leaves the NIC for the wire (SendInOrder), then PumpTx
    MAKE_READABLE, //!< MakeReadable(id, bytes, flag, generation)
    REFILL,        //!< RefillWireQueue()
    HOST_READABLE, //!< a host core served a notification: DeliverReadable
    HOST_POSTED,   //!< a host core posted an application's bytes: PostWrite
    HOST_CLOSE,    //!< a host core posted the application's close: PostClose
};

/**
 * \ingroup presto
 * \brief One of an offload NIC's frequent events (the ACK after the NIC's latency, a segment
 * leaving the NIC, data made readable, the wire queue's refill, the host's work), run by
 * OffloadNetDevice::RunDeviceEvent from a reused EventPool instead of a Simulator event each.
 */
struct OffloadDeviceEvent
{
    OffloadDeviceEventKind kind{OffloadDeviceEventKind::REFILL}; //!< what it does
    uint32_t id{0};                                              //!< the connection
    uint32_t generation{0}; //!< the connection's generation then
    uint32_t bytes{0};      //!< wire bytes, or bytes delivered
    bool flag{false};       //!< MAKE_READABLE: the peer closed
    OffloadSegment seg;     //!< the segment to send
    Ptr<Packet> payload;    //!< its payload, or null
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_DEVICE_EVENT_H
