/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RMT_PIPE_SLOTS_H
#define PRESTO_RMT_PIPE_SLOTS_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The packet rate of an RMT pipeline: every pipe starts one pass per clock cycle, so a
 * pipeline of P pipes at clock f executes at most f * P passes per second, and a packet that
 * recirculates takes one slot per pass. Pure logic: time is integer picoseconds.
 *
 * A packet takes its passes as consecutive slots on the pipe that frees first (packets are
 * not tied to a pipe by port; this is the most a pipeline of P pipes can do). A packet that
 * finds every pipe busy waits in the pipeline's input buffer; the buffer holds
 * BufferPasses passes, shared by the pipes, and a packet arriving when the passes already
 * waiting fill it is refused (the caller drops and counts it). Latency through the stages is
 * not modelled here (RmtExecution gives it); this adds the wait for a slot.
 */
class RmtPipeSlots
{
  public:
    /** The hardware. */
    struct Config
    {
        double clockHz{1.25e9};      //!< pipeline clock, Hz: one pass per cycle per pipe
        uint32_t pipes{1};           //!< pipes
        uint32_t bufferPasses{1024}; //!< whole passes that may wait in the input buffer
        /// passes per second a packet generator (the timer scan) takes at a steady rate; the
        /// packets share what is left, each pipe's cycle stretched accordingly
        double reservedPassRate{0};
    };

    /** What the pipeline did. */
    struct Counters
    {
        uint64_t packets{0};    //!< packets given slots
        uint64_t passes{0};     //!< slots taken
        uint64_t waited{0};     //!< packets that waited for a slot
        uint64_t refused{0};    //!< packets refused: input buffer full
        int64_t waitPsTotal{0}; //!< summed waits, ps
        int64_t waitPsMax{0};   //!< longest wait, ps
        uint32_t backlogMax{0}; //!< most passes waiting at an arrival
    };

    /// Length of the windows PeakUtilisation compares, ps (100 us).
    static constexpr int64_t PEAK_WINDOW_PS = 100000000;

    /**
     * \param config the hardware; throws PrestoInputError when the clock is not positive,
     * there is no pipe, or the reserved pass rate is negative or leaves no slot to packets
     */
    explicit RmtPipeSlots(const Config& config);

    /**
     * \brief Whether a packet arriving now may enter: a pipe is free, or fewer than
     * BufferPasses passes wait in the input buffer. A refusal is counted.
     * \param nowPs arrival time, ps (not before an earlier call's)
     * \return true if admitted
     */
    bool Admit(int64_t nowPs);

    /**
     * \brief Give a packet its passes: consecutive slots on the pipe that frees first.
     * \param nowPs arrival time, ps (not before an earlier call's)
     * \param passes passes the packet takes (>= 1)
     * \return the wait before its first slot, ps
     */
    int64_t Take(int64_t nowPs, uint32_t passes);

    /**
     * \param nowPs a time, ps
     * \return passes waiting (started no slot yet) at that time, over all pipes
     */
    uint32_t Backlog(int64_t nowPs) const;

    /**
     * \param elapsedPs time the pipeline has run, ps
     * \return busy slots / all slots over that time, the reserved ones counted busy (0 when
     * elapsedPs <= 0)
     */
    double Utilisation(int64_t elapsedPs) const;

    /**
     * \return the busiest complete PEAK_WINDOW_PS window's utilisation: slots that began in it
     * / all slots in it, the reserved ones counted busy, at most 1 (0 before a window ended).
     * A run's mean (Utilisation) includes connection setup and idle ends; a bound pipeline
     * shows here as 1.
     */
    double PeakUtilisation() const;

    /** \return the time between two slots of one pipe left to packets, ps */
    double GetCyclePs() const;
    /** \return the most passes per second the pipeline executes: clockHz * pipes */
    double GetPassRate() const;
    /** \return the passes per second left to packets: GetPassRate() - reservedPassRate */
    double GetFreePassRate() const;
    /** \return the counters */
    const Counters& GetCounters() const;

  private:
    Config m_config;  //!< the hardware
    double m_cyclePs; //!< a pipe's slot period left to packets: 1e12 / (clock - reserved/pipes)
    std::vector<double> m_freePs; //!< by pipe: when its next free slot begins, ps
    Counters m_counters;          //!< what happened
    int64_t m_window{0};          //!< the window being counted (start / PEAK_WINDOW_PS)
    double m_windowPasses{0};     //!< passes whose slots began in it
    double m_peak{0};             //!< busiest complete window's utilisation
};

} // namespace ns3

#endif // PRESTO_RMT_PIPE_SLOTS_H
