/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_NET_DEVICE_H
#define PRESTO_PRESTO_NET_DEVICE_H

#include "presto-classifier.h"
#include "presto-dctcp-program.h"
#include "presto-rack-pipeline.h"
#include "presto-rx-program.h"
#include "presto-tx-program.h"

#include "ns3/offload-net-device.h"
#include "ns3/rmt-pipe-slots.h"
#include "ns3/rmt-pipeline.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Presto: TCP's data path on an RMT match-action pipeline that keeps no out-of-order
 * payload, only K out-of-order intervals per connection (reassembly fidelity).
 *
 * The execution model of OffloadNetDevice. A classifier in front (PrestoClassifier, rules
 * from ClassifierRules) maps each connection to a class; class i runs with fidelity K_i
 * (ReassemblyFidelity = "K_0,K_1,..."). Each finite-K class has its pipeline program
 * (PrestoRxProgram: state in register arrays indexed by connection slot, 3 + 2K stages), built
 * and checked against StageBudget when the device is configured: an over-budget configuration
 * is refused with a message naming the budget and what was asked. Every data segment runs
 * through its class's program; the program's passes give the segment's NIC latency, and its
 * decisions are compared with the shared data path's (counted as program_mismatches, which
 * the tests hold at zero). K = full is the unbounded reference: not a pipeline program; it
 * is charged the latency of one pass through a pipeline of StageBudget stages.
 *
 * **Packet rate.** Every pass (a received segment's passes, recirculations included; a
 * transmitted segment's one; the pass that opens the window when the application reads)
 * takes a slot of the pipeline (RmtPipeSlots): each of Pipes pipes starts one pass per cycle
 * of PipelineClock, shared by both directions. A packet that finds every pipe busy waits in
 * the input buffer (PipelineBuffer passes); a received segment arriving at a full buffer is
 * dropped there (nic_drops, trace Drop with reason nic_rx). A segment to transmit waits
 * instead (the host's posting is flow-controlled by the transmit admission). So the
 * pipeline's packet rate, (clock * pipes - TimerScanRate) / passes per packet, is a
 * throughput limit of the NIC.
 *
 * **Timers.** A pipeline has no timers: a packet generator sends TimerScanRate scan packets
 * per second through it, each visiting one connection slot's timers, over the slots in use
 * (0 to the highest slot ever used; or TimerScanSlots slots if set). A connection's
 * retransmission and persist timers are therefore examined once per
 * (slots scanned) / TimerScanRate, and never more often than the
 * shared device's TimerScanPeriod: the timeout granularity grows with the connections. The
 * scan packets take TimerScanRate of the pipeline's slots. TimerScanRate = 0: not modelled
 * (timers examined every TimerScanPeriod, no slots taken).
 *
 * **Congestion control on the pipeline.** With CongestionControl = ns3::PrestoDctcpCongestion
 * (`--cc=dctcp-pipeline`) every connection's DCTCP state lives in a PrestoDctcpProgram bound
 * to this pipeline at initialisation (same clock, stage budget, register memory per stage,
 * MaxConnections; refused before the run if it does not fit), and the program decides the
 * window. Its passes ride on the ACK's own pass (its register arrays are disjoint from the
 * rx program's), except the recirculation of an ECE cut, which takes a slot of its own.
 *
 * **Intervals per path.** With IntervalPolicy = PerPath (and sender-side spraying,
 * PathLabels > 0) a connection holds at most one out-of-order interval per path label (the
 * IPv4 identification modulo PathLabels): one path's runs cannot take the slots another
 * path's run needs (ReassemblyTracker::Policy::PER_PATH; the programs keep the owner in the
 * start registers).
 */
class PrestoNetDevice : public OffloadNetDevice
{
  public:
    /// How a connection's K intervals are assigned (attribute IntervalPolicy).
    enum IntervalPolicy
    {
        ARRIVAL_ORDER, //!< the first K runs to arrive hold the slots (TAS's rule, K slots)
        PER_PATH,      //!< at most one interval per path label (needs PathLabels)
    };

    /// Where the pipeline is (attribute Placement).
    enum Placement
    {
        PLACE_HOST, //!< a NIC per host
        PLACE_TOR,  //!< the rack switch's pipeline, shared by the rack (SetRackPipeline)
    };

    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    PrestoNetDevice();
    ~PrestoNetDevice() override;

    /**
     * \brief Parse one fidelity value.
     * \param text "0".."16" or "full"
     * \param where the option or attribute, for the error message
     * \return K (ReassemblyTracker::UNBOUNDED for "full"); throws PrestoInputError
     */
    static uint32_t ParseFidelity(const std::string& text, const std::string& where);

    /**
     * \brief Parse a per-class fidelity list "K0,K1,...".
     * \param text the list
     * \param where the option or attribute, for the error message
     * \return K per class; throws PrestoInputError
     */
    static std::vector<uint32_t> ParseFidelities(const std::string& text, const std::string& where);

    /**
     * \brief Refuse more than one class without classifier rules: every connection would be
     * in class 0 and the other classes' K ignored. Throws PrestoInputError.
     * \param ks K per class \param fidelities their text \param rulesFile "" or a path
     */
    static void RequireClassRules(const std::vector<uint32_t>& ks,
                                  const std::string& fidelities,
                                  const std::string& rulesFile);

    /**
     * \brief Check a configuration without building a device: every finite K fits the stage
     * budget, the classifier rules parse and name existing classes. Throws PrestoInputError.
     * \param fidelities "K0,K1,..." \param stageBudget stages \param rulesFile "" or a path
     */
    static void CheckConfiguration(const std::string& fidelities,
                                   uint32_t stageBudget,
                                   const std::string& rulesFile);

    /**
     * \brief Build the class programs now (else at the first connection). Throws
     * PrestoInputError for an impossible configuration.
     */
    void Configure();

    /**
     * \brief Run this host's data path on a pipeline its rack shares (Presto's prototype: one
     * switch serving the rack's hosts): its packet rate, its MaxConnections connection slots
     * and its timer scan are the rack's (PrestoRackPipeline). Every host of the rack must have
     * the same pipeline attributes. Call before the device is configured (before the run).
     * \param rack the rack's pipeline
     * \throws PrestoInputError once configured
     */
    void SetRackPipeline(Ptr<PrestoRackPipeline> rack);

    /** \return resource report of each class program (finite K only), by class */
    std::vector<RmtResourceReport> GetResourceReports() const;

    void AddCounters(nlohmann::json& nic) const override;
    /** \return dctcp-pipeline: Presto's congestion control runs on its pipeline */
    std::string GetNativeCongestion() const override;

  protected:
    /** Build the design's parts now (Configure): a bad parameter fails at initialisation. */
    void SetupModel() override;
    void ConfigureConnection(OffloadTcpConfig& cfg,
                             Ipv4Address peer,
                             uint16_t localPort,
                             uint16_t peerPort,
                             bool activeOpen) override;
    void OnEstablished(uint32_t conn, const OffloadTcpConnection& tcp) override;
    void OnApplicationRead(uint32_t conn, uint32_t bytes) override;
    void OnApplicationPosted(uint32_t conn) override;
    bool AdmitReceived(uint32_t conn, const OffloadSegment& seg, Time& latency) override;
    bool TimersDue(uint64_t nowNs) override;
    bool ReserveConnectionSlot() override;
    void ReleaseConnectionSlot() override;
    void OnTimersExamined(uint32_t conn,
                          const OffloadTcpConnection& tcp,
                          const OffloadTimerDecision& decision,
                          uint64_t nowNs) override;
    Time ProcessReceived(uint32_t conn,
                         const OffloadSegment& seg,
                         const OffloadRxDecision& decision) override;
    Time ProcessTransmit(uint32_t conn, const OffloadSegment& seg, bool& drop) override;

  private:
    /** \return the pipeline configuration from the attributes */
    RmtPipelineConfig PipelineConfig() const;

    // Configure's steps
    /// Read OffloadNetDevice::PathLabels; check that IntervalPolicy can use them.
    void ReadPathLabels();
    /// Own or join (Placement=tor) the pipeline's slots. \param maxConnections slots
    void SetupPipeSlots(uint32_t maxConnections);
    /// Build the send side's program. \param cfg the pipeline \param maxConnections slots
    void BuildTxProgram(const RmtPipelineConfig& cfg, uint32_t maxConnections);

    // AddCounters' parts (presto-net-device-counters.cc), once configured
    /// The pipeline's packet rate and the timer scan. \param nic the NIC's counters
    void AddSlotCounters(nlohmann::json& nic) const;
    /// The send program. \param nic the NIC's counters
    void AddTxProgramCounters(nlohmann::json& nic) const;
    /// The congestion program, if any. \param nic the NIC's counters
    void AddCcProgramCounters(nlohmann::json& nic) const;
    /// Every program on the pipeline together. \param nic the NIC's counters
    /// \param recirculations the class programs' recirculations
    void AddPipelineTotal(nlohmann::json& nic, uint64_t recirculations) const;
    /// One entry per class. \param nic the NIC's counters
    void AddClassCounters(nlohmann::json& nic) const;

    /**
     * \brief Give a packet's passes their pipeline slots now.
     * \param passes passes the packet takes
     * \return the wait for the first slot, rounded up to whole ns
     */
    Time TakeSlots(uint32_t passes);

    // attributes
    std::string m_fidelityText;                     //!< ReassemblyFidelity
    std::string m_rulesFile;                        //!< ClassifierRules
    uint32_t m_stageBudget;                         //!< StageBudget
    double m_clockHz;                               //!< PipelineClock
    uint32_t m_pipes;                               //!< Pipes
    uint32_t m_stageCycles;                         //!< StageLatency
    uint32_t m_bufferPasses;                        //!< PipelineBuffer
    uint64_t m_stageRegisterBytes;                  //!< StageRegisterMemory
    double m_scanRate;                              //!< TimerScanRate
    uint32_t m_scanSlots;                           //!< TimerScanSlots
    IntervalPolicy m_intervalPolicy{ARRIVAL_ORDER}; //!< IntervalPolicy
    Placement m_placement{PLACE_HOST};              //!< Placement
    uint32_t m_pathLabels{0}; //!< PathLabels of the device, read when configured

    bool m_configured{false};                                 //!< programs built
    std::vector<uint32_t> m_fidelity;                         //!< K by class
    std::vector<std::unique_ptr<PrestoRxProgram>> m_programs; //!< by class (null: full)
    std::unique_ptr<PrestoClassifier> m_classifier;           //!< null: one class
    std::vector<uint32_t> m_classOf;                          //!< class by connection slot
    std::vector<bool> m_finSeen;                              //!< by slot: peer FIN consumed
    Time m_fullPassLatency;                                   //!< latency charged to K = full
    std::vector<Time> m_txPassLatency;                        //!< one pass, by class
    uint32_t m_pendingClass{0};                               //!< class of the connection
                                                              //!< being established
    uint64_t m_rxPackets{0};                                  //!< packets, receive
    uint64_t m_rxPasses{0};                                   //!< pipeline passes, receive
    uint64_t m_txPasses{0};                                   //!< pipeline passes, transmit
    uint64_t m_mismatches{0};                                 //!< program != data path
    std::vector<uint64_t> m_classConnections;                 //!< connections by class
    std::unique_ptr<RmtPipeSlots> m_ownSlots; //!< this NIC's pipeline (host placement)
    RmtPipeSlots* m_pipeSlots{};              //!< the packet rate used: own or the rack's
    Ptr<PrestoRackPipeline> m_rack;           //!< the rack's pipeline (null: on this host)
    uint32_t m_scanRange{0};                  //!< slots the timer scan walks: highest slot used + 1
    uint64_t m_nextTimerVisitNs{0};           //!< when the scan next reaches the timers
    uint64_t m_timerVisits{0};                //!< timer scans that examined the timers
    uint64_t m_timerRoundMaxNs{0};            //!< longest round of the scan over the slots, ns
    /**
     * \brief Compare the send program's state of a connection with the data path's after a
     * packet; log a difference and resynchronise.
     * \param conn slot \param what the packet, for the log
     * \return true if they agree
     */
    bool CheckSendState(uint32_t conn, const char* what);

    bool m_runTxProgram{false};                   //!< SendProgram
    std::unique_ptr<PrestoTxProgram> m_txProgram; //!< the send side on the pipeline
    std::vector<bool> m_doorbell;  //!< by slot: the next send pass is a doorbell's packet
    std::vector<uint32_t> m_txMss; //!< by slot: the connection's MSS (its guess's full size)
    uint64_t m_txMismatches{0};    //!< send program != data path
    uint64_t m_timeoutPasses{0};   //!< second passes of expired timers
    uint64_t m_sendFixPasses{0};   //!< second passes of send passes (short segment or FIN)
    uint64_t m_ackMoves{0};        //!< ACKs that moved snd_nxt (second passes, shared or not)
    uint64_t m_doorbellPasses{0};  //!< doorbells that found nothing to send (a pass alone)
    uint64_t m_ackFixPasses{0};    //!< second passes of ACKs that moved snd_nxt (beyond cc's)
    const PrestoDctcpProgram* m_ccProgram{}; //!< congestion control on the pipeline, if any
    uint64_t m_ccRecircCharged{0};           //!< its recirculations already given slots
};

} // namespace ns3

#endif // PRESTO_PRESTO_NET_DEVICE_H
