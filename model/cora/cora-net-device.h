/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_NET_DEVICE_H
#define PRESTO_CORA_NET_DEVICE_H

#include "cora-allocator.h"
#include "cora-controller.h"
#include "cora-executor.h"
#include "cora-program.h"

#include "ns3/event-id.h"
#include "ns3/offload-net-device.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Cora: a SmartNIC whose stateful program (here the TCP data path's connection table)
 * is split between the NIC and host cores, with a runtime controller that migrates state.
 *
 * The execution model of OffloadNetDevice. Every connection is one flow of the program
 * CoraPrograms::TcpConnTable(): its connection-table entry (a FLOW-keyed state block) lives
 * either on the NIC or on the host. Every segment of the connection, received or sent, is
 * run through a CoraExecutor: the NIC part at the packet rate CoraPerfModel predicts for the
 * program (a bounded queue: an overloaded NIC drops, and the data path repairs the loss), the
 * host part on HostCores cores with a per-instruction cost (queueing delay, cores used, in
 * summary.json "host_cpu" as program_cycles). Where a new connection goes is the Strategy's
 * policy; with `cora` (and `flow`) a CoraController runs every ControllerInterval while
 * segments flow: when the NIC is overloaded it evicts connections to the host in the order of
 * EvictionPolicy (default heaviest: the fewest migrations that shed the excess load, the
 * paper's rule; lightest; random, the paper's baseline, seeded from ns-3's seed, run and the
 * node id), offloads the heaviest back when it is underloaded, and evicts the smallest first
 * when the NIC table is too small, each through the three-step migration that loses no packet and
 * keeps per-connection order. `state` (Gallium-like) places statically and never migrates.
 *
 * The TCP data path itself is the shared OffloadTcpConnection (K = 1, TAS rules, DCTCP), as
 * for the other offload NICs: Cora decides where the work runs and what it costs, not what
 * TCP does.
 */
class CoraNetDevice : public OffloadNetDevice
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    CoraNetDevice();
    ~CoraNetDevice() override;

    /**
     * \brief Build the program, model, executor and controller now (else at the first
     * connection). \throws PrestoInputError for a bad program, profile, strategy or limit.
     */
    void Configure();

    /** \return the executor (configured on first use) */
    const CoraExecutor& GetExecutor();
    /** \return the runtime controller, or null for the static `state` strategy */
    const CoraController* GetController() const;

    void AddCounters(nlohmann::json& nic) const override;
    /** \return the base's host work plus the cycles of the program's host part */
    OffloadHostWork GetHostWork() const override;

    /**
     * TracedCallback signature for a migration.
     * \param event what moved, from when to when, and how many packets waited for it
     */
    typedef void (*MigrationTracedCallback)(const CoraMigrationEvent& event);

  protected:
    /** Build the design's parts now (Configure): a bad parameter fails at initialisation. */
    void SetupModel() override;
    void ConfigureConnection(OffloadTcpConfig& cfg,
                             Ipv4Address peer,
                             uint16_t localPort,
                             uint16_t peerPort,
                             bool activeOpen) override;
    bool AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency) override;
    Time ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop) override;
    void OnConnectionClosed(uint32_t conn) override;
    void Cleanup() override;

  private:
    /**
     * \brief Run one segment of a connection through the executor (and tick the controller).
     * \param conn slot \param seg segment \param received true for a received segment
     * \return the verdict
     */
    CoraVerdict Run(uint32_t conn, const OffloadSegment& seg, bool received);
    /** Keep an event at the executor's next migration commit. */
    void ScheduleCommit();
    /** \param conn slot \return the connection as a flow of the program */
    CoraFlow FlowOf(uint32_t conn) const;

    // attributes
    std::string m_programName;     //!< shipped program name or .cora file (must have branch tcp)
    std::string m_strategy;        //!< cora | state | flow
    std::string m_profile;         //!< netronome | bluefield
    uint32_t m_hostCores;          //!< host cores for the host part
    double m_cyclesPerInstruction; //!< host cycles per program instruction
    uint32_t m_hostPacketCycles;   //!< host cycles per packet reaching the host
    uint32_t m_nicQueue;           //!< NIC queue, packets
    double m_nicRateScale;         //!< share of the modelled NIC rate
    Time m_nicLatency;             //!< NIC pipeline latency
    Time m_pcieLatency;            //!< PCIe crossing latency
    uint64_t m_nicMemory;          //!< NIC memory for the program's state, bytes
    Time m_controllerInterval;     //!< controller period
    double m_overload;             //!< overload threshold (NIC utilisation)
    double m_underload;            //!< underload threshold
    uint32_t m_maxMigrations;      //!< migrations per controller interval
    std::string m_evictionPolicy;  //!< heaviest | lightest | random (overload evictions)
    std::string m_overloadSignal;  //!< queue | idle (what counts as overload)
    double m_queueOverload;        //!< queue signal: mean NIC queue share that is a pile-up

    std::unique_ptr<CoraProgram> m_program;       //!< the program
    std::unique_ptr<CoraPerfModel> m_model;       //!< NIC performance model
    std::unique_ptr<CoraExecutor> m_executor;     //!< NIC/host execution
    std::unique_ptr<CoraController> m_controller; //!< runtime (null for `state`)
    uint32_t m_branch{0};                         //!< the program's "tcp" branch
    int64_t m_nextTickNs{0};                      //!< next controller run
    int64_t m_firstNs{-1};                        //!< first segment (utilisation window)
    int64_t m_lastNs{0};                          //!< last segment
    EventId m_commitEvent;                        //!< next migration commit
    int64_t m_commitAtNs{0};                      //!< its time

    TracedCallback<const CoraMigrationEvent&> m_migrationTrace; //!< a migration committed
};

} // namespace ns3

#endif // PRESTO_CORA_NET_DEVICE_H
