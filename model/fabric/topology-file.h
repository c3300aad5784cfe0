/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_TOPOLOGY_FILE_H
#define PRESTO_TOPOLOGY_FILE_H

#include "fabric-topology.h"

#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Largest node count a topology file may declare (the fabric helper's host limit).
 */
constexpr uint32_t TOPOLOGY_FILE_MAX_NODES = (1u << 22) - 1;

/**
 * \ingroup presto
 * \brief Read a fabric from a topology file, in either of two formats (told apart by the
 * first word of the file).
 *
 * **HPCC's topology.txt** (the format of alibaba-edu/High-Precision-Congestion-Control's
 * `mix/topology.txt`, read there by `topof >> node_num >> switch_num >> link_num`):
 * \code
 * <nodes> <switches> <links>
 * <switch node id> ... (switches ids, white-space separated, may continue on more lines)
 * <src> <dst> <rate> <delay> <error rate>      (one line per link, <links> lines)
 * \endcode
 * Nodes are 0..nodes-1; the ids not listed as switches are hosts, numbered 0..N-1 in
 * increasing node id (the host index of flows and flow files: with HPCC's usual layout,
 * hosts first, a host's index is its node id). Rates and delays are ns-3 strings
 * ("100Gbps", "1000ns", "1us"; delays in ns, us, ms or s); the error rate, in [0, 1), is
 * the probability that a packet is lost on the link, in each direction. Nodes are named by
 * their id ("320") for --failLinks and the traces.
 *
 * **presto's simple format**, line by line, `#` starts a comment:
 * \code
 * presto-topology 1
 * switch <name> [<name> ...]
 * host <name> [<name> ...]
 * link <a> <b> <rate> <delay> [<loss rate>]
 * \endcode
 * Nodes get ids in the order they are declared (hosts their host index in that order), links
 * their ports in file order; a link names two declared nodes.
 *
 * In both, every host has exactly one link, a switch's tier is its distance to the nearest
 * host minus one (0: a leaf), and every host must reach every other. A file that breaks a
 * rule is refused with a PrestoInputError "<path>:<line>: <what>". A file equivalent to a
 * built-in fabric (same node order, same link order) builds the same FabricTopology.
 *
 * \param path the file
 * \return the topology, described as "topology file <path>"
 */
FabricTopology ReadTopologyFile(const std::string& path);

/**
 * \ingroup presto
 * \brief As ReadTopologyFile, from text already read.
 * \param text the file's content
 * \param source the name messages give for it
 * \return the topology
 */
FabricTopology ParseTopologyText(const std::string& text, const std::string& source);

} // namespace ns3

#endif // PRESTO_TOPOLOGY_FILE_H
