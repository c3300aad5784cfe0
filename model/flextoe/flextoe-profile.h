/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FLEXTOE_PROFILE_H
#define PRESTO_FLEXTOE_PROFILE_H

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The stages of the FlexTOE core pipeline, in the order a packet crosses them.
 */
enum class FlexToeStage : uint8_t
{
    PRE = 0,   //!< pre-processing: header validation, flow lookup, flow-group choice
    SEQUENCER, //!< sequencer / reorder: restores per-flow-group arrival order
    PROTOCOL,  //!< protocol: one core per flow group, the only per-flow state mutation
    POST,      //!< post-processing: ACK/TCP header build, congestion counters, descriptors
    DMA,       //!< DMA: payload to host buffers, context-queue notifications
};

/// Number of FlexToeStage values.
constexpr std::size_t FLEXTOE_STAGES = 5;

/// \param s a stage \return its short name ("pre", "sequencer", "protocol", "post", "dma")
const char* FlexToeStageName(FlexToeStage s);

/**
 * \ingroup presto
 * \brief One pool of identical cores serving one stage.
 *
 * Service model (see FlexToePipeline): a packet occupies a core's instruction stream for
 * cycles / clockHz seconds (cycles = cyclesPerPacket + cyclesPerByte x payload + extension
 * cycles), then waits memoryStallNs without using the core (memory/atomic latency); a core
 * has threadsPerCore hardware threads, so at most that many packets are in service on it at
 * once. Throughput of a core is min(clockHz / cycles, threads / (cycles / clockHz + stall)).
 */
struct FlexToeStageConfig
{
    uint32_t cores{1};           //!< cores in the pool (protocol: forced to the flow groups)
    double clockHz{800e6};       //!< core clock, Hz
    uint32_t threadsPerCore{1};  //!< hardware threads per core (packets in service per core)
    double cyclesPerPacket{0};   //!< compute cycles per packet
    double cyclesPerByte{0};     //!< extra compute cycles per payload byte (DMA: copy cost)
    double memoryStallNs{0};     //!< per-packet latency hidden by threads, ns
    uint32_t queueCapacity{256}; //!< waiting packets the pool's queue holds (protocol: per core)
};

/**
 * \ingroup presto
 * \brief A complete FlexTOE pipeline description: a hardware profile.
 */
struct FlexToePipelineConfig
{
    std::string name{"custom"};                            //!< profile name (reports, messages)
    std::string description;                               //!< one line: the hardware it models
    uint32_t flowGroups{4};                                //!< flow groups (protocol cores)
    std::array<FlexToeStageConfig, FLEXTOE_STAGES> stages; //!< indexed by FlexToeStage

    //! \param s a stage \return its configuration
    FlexToeStageConfig& Stage(FlexToeStage s)
    {
        return stages[static_cast<std::size_t>(s)];
    }

    //! \param s a stage \return its configuration
    const FlexToeStageConfig& Stage(FlexToeStage s) const
    {
        return stages[static_cast<std::size_t>(s)];
    }
};

/**
 * \ingroup presto
 * \brief Named hardware profiles for the FlexTOE execution model.
 *
 * "agilio-cx40" (default): Netronome Agilio CX40 NFP-4000 flow-processing cores, laid out as
 * the FlexTOE artifact's firmware places them (16 pre, 1 sequencer, 4 protocol, 16 post, 8 DMA
 * cores; 8 threads each; 4 flow groups); its clock and every cycle cost are assumptions.
 * "bluefield": Mellanox BlueField-2 ARM A72 cores; "x86": a few host-class cores: everything
 * but the A72 core count is assumed. flextoe-profile.cc and doc/presto.rst say which number
 * is which.
 */
class FlexToeProfile
{
  public:
    /// Name of the default profile.
    static constexpr const char* DEFAULT = "agilio-cx40";

    /**
     * \param name a profile name (case-sensitive)
     * \return the profile
     * \throw PrestoInputError if the name is unknown (the message lists the valid names)
     */
    static FlexToePipelineConfig Get(const std::string& name);

    /** \return the valid profile names, default first */
    static std::vector<std::string> Names();

    /**
     * \brief Check a configuration: positive cores, clocks, threads, cycles, groups.
     * \param cfg the configuration
     * \throw PrestoInputError naming the profile, stage and field that is wrong
     */
    static void Validate(const FlexToePipelineConfig& cfg);
};

} // namespace ns3

#endif // PRESTO_FLEXTOE_PROFILE_H
