/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_HOST_CPU_MODEL_H
#define PRESTO_HOST_CPU_MODEL_H

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Per-event host CPU costs, in cycles. Two sets of defaults: HostTcp() for ns-3's TCP
 * running on the host CPU, Offload() for the host side of an offload NIC (TAS/FlexTOE-style
 * control plane and a library that talks to the NIC through queues).
 *
 * Every default is an order-of-magnitude figure, documented in doc/presto.rst with its source;
 * those marked UNVERIFIED there are our estimates, not measurements. Scenario scripts should
 * override them with numbers measured on the machine they model.
 */
struct HostCpuCosts
{
    // Host TCP stack (ns-3 TcpSocketBase standing in for Linux TCP)
    double packetSent{0};         //!< per data packet sent through the stack, cycles
    double packetReceived{0};     //!< per data packet received through the stack, cycles
    double ack{0};                //!< per pure ACK sent or received, cycles
    double byteCopied{0};         //!< per payload byte copied between app and socket, cycles
    double connectionSetup{0};    //!< per connection opened (handshake, state), cycles
    double connectionTeardown{0}; //!< per connection closed, cycles
    // Offload NIC, host side
    double controlPlaneEvent{0}; //!< per connection event handled by the host control plane
    double controlInterval{0};   //!< per connection per control-loop interval, cycles
    double appNotification{0};   //!< per notification to the application (context queue)
    double dmaDescriptor{0};     //!< per DMA descriptor the host posts or reaps, cycles

    /// \return the defaults for ns-3's TCP on the host (see the documentation for sources)
    static HostCpuCosts HostTcp();
    /// \return the defaults for the host side of an offload NIC
    static HostCpuCosts Offload();
    /**
     * \return a kernel-bypass host stack (TAS-like) in place of ns-3's TCP as Linux: the
     * HostTcp() per-packet and per-connection costs divided by 4, the copy unchanged
     * (assumed: mTCP reports Linux spending more than 4x its cycles per transaction; see the
     * documentation)
     */
    static HostCpuCosts KernelBypass();
    /**
     * \return one table for every host: HostTcp()'s host-stack costs and Offload()'s
     * host-side costs of an offload NIC (the two set disjoint fields; the copy is HostTcp()'s)
     */
    static HostCpuCosts Merged();

    /**
     * \brief Throws PrestoInputError when a cost is negative or not finite.
     * \param where prefix for the message
     */
    void Validate(const char* where = "HostCpuCosts") const;
};

/**
 * \ingroup presto
 * \brief Event counts one host accumulates (never reset).
 */
struct HostCpuCounts
{
    uint64_t packetsSent{0};        //!< data packets the host stack sent
    uint64_t packetsReceived{0};    //!< data packets the host stack received
    uint64_t acks{0};               //!< pure ACKs the host stack sent or received
    uint64_t bytesCopied{0};        //!< payload bytes copied between app and buffers
    uint64_t connectionsOpened{0};  //!< connections set up
    uint64_t connectionsClosed{0};  //!< connections torn down
    uint64_t controlPlaneEvents{0}; //!< control-plane events (offload)
    uint64_t controlIntervals{0};   //!< connection x control-loop intervals (offload)
    uint64_t appNotifications{0};   //!< application notifications (offload)
    uint64_t dmaDescriptors{0};     //!< DMA descriptors (offload)
    /**
     * Cycles host cores spent running the NIC program's host-resident part (Cora: state
     * blocks placed on the host), already in cycles (the device's own cost model).
     */
    uint64_t programCycles{0};
    /**
     * Cycles a host dispatcher core spent handing RPC requests to worker cores
     * (RpcEndpoint's Steering=HostDispatch), already in cycles.
     */
    uint64_t requestDispatchCycles{0};
    uint64_t bytesDelivered{0}; //!< application bytes delivered (the cost denominator)
    uint64_t wirePackets{0};    //!< packets this host's NIC sent or received
};

/**
 * \ingroup presto
 * \brief The summary a run reports (summary.json "host_cpu").
 */
struct HostCpuReport
{
    std::string model;          //!< "host-tcp" or "offload" (or a user label)
    double clockHz{0};          //!< host core clock, Hz
    double simSeconds{0};       //!< simulated time the cycles were spent in, s
    double cycles{0};           //!< total host cycles
    uint64_t bytesDelivered{0}; //!< application bytes delivered
    uint64_t packets{0};        //!< packets on the wire at this host (or hosts)
    double cyclesPerByte{0};    //!< cycles / bytesDelivered (0 when nothing was delivered)
    double cyclesPerPacket{0};  //!< cycles / packets (0 without packets)
    double coresUsed{0};        //!< cycles / (clockHz x simSeconds)

    /// \return the report as one JSON object (keys in snake case, as in summary.json)
    std::string ToJson() const;
};

/**
 * \ingroup presto
 * \brief Host CPU cost model: counts host events and turns them into cycles with a per-event
 * cost table. Pure logic, no Simulator; devices and sockets count, the run report asks for
 * Report() at the end.
 *
 * cycles = sum over event kinds of count x cost. cycles_per_byte divides by delivered
 * application bytes, cycles_per_packet by packets on the wire, cores_used by the cycles one
 * core offers in the simulated time (clockHz x simSeconds).
 */
class HostCpuModel
{
  public:
    /**
     * \param label name in the report ("host-tcp", "offload", ...)
     * \param costs per-event costs (validated)
     * \param clockHz host core clock, Hz (> 0)
     *
     * Throws PrestoInputError for a bad cost or clock.
     */
    HostCpuModel(const std::string& label, const HostCpuCosts& costs, double clockHz);

    /// \return the event counts so far (add to them through Counts())
    const HostCpuCounts& GetCounts() const;
    /// \return the event counts, for the owner to increment
    HostCpuCounts& Counts();
    /// \return the cost table
    const HostCpuCosts& GetCosts() const;

    /// \return total host cycles for the counts so far
    double GetCycles() const;

    /**
     * \param simSeconds simulated time the counts cover, s (> 0)
     * \return the summary (PrestoInputError for a non-positive or non-finite time)
     */
    HostCpuReport Report(double simSeconds) const;

  private:
    std::string m_label;    //!< report label
    HostCpuCosts m_costs;   //!< cycles per event
    double m_clockHz;       //!< core clock, Hz
    HostCpuCounts m_counts; //!< events so far
};

} // namespace ns3

#endif // PRESTO_HOST_CPU_MODEL_H
