/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_OFFLOAD_NIC_COUNTERS_H
#define PRESTO_OFFLOAD_NIC_COUNTERS_H

#include "offload-tcp-connection.h"

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace ns3
{

/**
 * \ingroup presto
 * \brief What an offload NIC asked of its host's CPU so far; the host CPU model prices each
 * count (HostCpuAccounting). Read directly, not through the report's JSON.
 */
struct OffloadHostWork
{
    uint64_t controlPlaneEvents{0}; //!< connection setups and teardowns on the host control plane
    uint64_t controlLoopRuns{0};    //!< host control-loop runs (rate-based congestion control)
    uint64_t appNotifications{0};   //!< data notifications to applications
    uint64_t dmaTransfers{0};       //!< DMA transfers between NIC and host memory (payload)
    uint64_t programCycles{0};      //!< host cycles of NIC-program work run on host cores (Cora)
};

/// Why the offload NIC dropped a segment (the Drop trace source's reason).
enum class OffloadDropReason : uint8_t
{
    NIC_RX,        //!< the execution model refused a received segment (e.g. a full NIC queue)
    NIC_TX,        //!< the execution model dropped a segment it produced
    WIRE_QUEUE,    //!< the device queue to the wire was full, beyond the backlog
    MALFORMED,     //!< a received frame that is not a well-formed IPv4/TCP segment
    UNACCEPTABLE,  //!< refused by an acceptability rule (RFC 5961) on a connection
    HANDSHAKE,     //!< a segment that does not fit the connection's handshake state
    NO_HOST_STACK, //!< a frame no connection takes, on a NIC without a host stack behind it
};

/**
 * \param r a reason
 * \return its name, e.g. "wire_queue"
 */
const char* OffloadDropReasonName(OffloadDropReason r);

/**
 * \ingroup presto
 * \brief The counters of an offload NIC (OffloadNetDevice) beyond its connections' own, and
 * how they appear in the report's "nic" object.
 */
struct OffloadNicCounters
{
    OffloadTcpCounters finished;          //!< counters of freed connections
    uint64_t refused{0};                  //!< connections refused (table full)
    uint64_t established{0};              //!< connections established
    uint64_t controlLoops{0};             //!< host control-loop runs (rate-based CC)
    uint64_t nicRxDrops{0};               //!< received segments the execution model dropped
    uint64_t nicTxDrops{0};               //!< transmitted segments the execution model dropped
    uint64_t wireDrops{0};                //!< segments the full device queue refused
    std::array<uint64_t, 16> malformed{}; //!< received frames dropped, by WireError
    uint64_t finBeforeData{0};            //!< FINs heard before data ahead of them
    uint64_t dmaTransfers{0};             //!< DMA transfers NIC <-> host memory (payload)
    uint64_t notifications{0};            //!< data notifications to applications
    uint64_t cpCycles{0};                 //!< control-plane host cycles
    uint64_t cpEvents{0};                 //!< control-plane events (each ControlPlaneCycles)
    uint64_t handshakeFailures{0};        //!< handshakes given up
    uint64_t resets{0};                   //!< connections torn down by an acceptable RST
    uint64_t handshakeRstIgnored{0};      //!< RSTs during the handshake that did not count
    uint64_t handshakeDrops{0};           //!< segments not fitting the handshake state
    uint64_t noHostStackDrops{0};         //!< frames for the host, with no host stack
    uint64_t txBacklogMax{0};             //!< longest transmit backlog seen

    /**
     * \brief Add these counters and the data path's to the report's "nic" object (summed
     * over NICs by the caller; maxima kept as maxima).
     * \param nic the "nic" object
     * \param t the data-path counters of every connection, finished and live
     */
    void AddTo(nlohmann::json& nic, const OffloadTcpCounters& t) const;
};

} // namespace ns3

#endif // PRESTO_OFFLOAD_NIC_COUNTERS_H
