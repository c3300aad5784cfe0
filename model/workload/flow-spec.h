/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FLOW_SPEC_H
#define PRESTO_FLOW_SPEC_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Largest flow, bytes: 2^53 (9.0e15), the largest size a double holds exactly (the
 * statistics and the ideal FCT compute in floating point). Flow files and CDFs with a larger
 * size are refused when they are read.
 */
constexpr uint64_t MAX_FLOW_BYTES = uint64_t{1} << 53;

/**
 * \ingroup presto
 * \brief One flow of a workload: who sends how many bytes to whom, and when.
 *
 * The fields are those of the HPCC flow-file format (src dst priority dport size start),
 * so a workload moves between simulators unchanged. Hosts are numbered 0..N-1 in the
 * order the fabric helper creates them.
 */
struct FlowSpec
{
    uint32_t id{0};        //!< flow id, unique within a run (line order in a flow file)
    uint32_t src{0};       //!< sending host index
    uint32_t dst{0};       //!< receiving host index
    uint32_t priority{3};  //!< priority class (carried through, not used by the fabric)
    uint16_t dport{100};   //!< destination port written to flow files
    uint64_t sizeBytes{0}; //!< application bytes to transfer
    int64_t startNs{0};    //!< time the application hands the flow to its transport, ns
    /// the application on the sending host that owns the flow (an offload NIC with
    /// DmaChannels > 0 gives each application its own DMA channel: OffloadSocket::DmaChannel)
    uint32_t app{0};
};

} // namespace ns3

#endif // PRESTO_FLOW_SPEC_H
