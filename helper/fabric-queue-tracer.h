/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FABRIC_QUEUE_TRACER_H
#define PRESTO_FABRIC_QUEUE_TRACER_H

#include "ns3/fabric-helper.h"
#include "ns3/nstime.h"
#include "ns3/queue-report.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Queue-length time series and drop/mark events of every FabricSwitch port.
 *
 * Every interval (from time 0 until the simulation stops) it samples the bytes and packets
 * waiting in each switch port's device queue; a port's sample is kept when its queue is not
 * empty or was not empty at the previous sample (so a missing row means an empty queue and
 * the return to 0 is recorded). Drops (buffer full, no route) and ECN marks are recorded from
 * the switches' Drop and Mark trace sources as they happen. The samples are scheduled events
 * of their own: they do not change the order of the simulation's other events, so the run's
 * outcome is the same with and without the tracer.
 *
 * Keep the tracer alive until the simulation is destroyed (its sinks and events point to
 * it). Not for the ns-3 router reference fabric (no FabricSwitch).
 */
class FabricQueueTracer
{
  public:
    FabricQueueTracer() = default;
    FabricQueueTracer(const FabricQueueTracer&) = delete;
    FabricQueueTracer& operator=(const FabricQueueTracer&) = delete;

    /**
     * \brief Connect to every switch of an installed fabric and schedule the first sample.
     * \param fabric the fabric (FabricSwitch mode)
     * \param interval sampling interval (> 0)
     * \throws PrestoInputError for a non-positive interval or a fabric without FabricSwitches
     */
    void Install(const FabricHelper& fabric, Time interval);

    const std::vector<TracedPort>& GetPorts() const;    //!< \return the traced ports
    const std::vector<QueueSample>& GetSamples() const; //!< \return the kept samples
    const std::vector<SwitchEvent>& GetEvents() const;  //!< \return drops and marks

    /**
     * \brief Write queues.csv and switch-events.csv (QueueSamplesCsv, SwitchEventsCsv) into a
     * directory, and queues.png (QueuePlotScript) if \p plot.
     * \param dir the output directory
     * \param plot whether to draw queues.png (and queues.svg beside it)
     * \param caption the run configuration drawn along the plot's top (RunCaption; "": none)
     */
    void Write(const std::string& dir, bool plot, const std::string& caption = "") const;

  private:
    /** Take one sample of every port and schedule the next. */
    void Sample();
    /**
     * \brief Drop or Mark trace sink (a free function: ns-3 binds arguments to those).
     * \param self the tracer \param base the switch's first traced port \param drop drop or
     * mark \param packet the packet \param port the switch's port
     */
    static void OnEvent(FabricQueueTracer* self,
                        uint32_t base,
                        bool drop,
                        Ptr<const Packet> packet,
                        uint32_t port);

    Time m_interval;                       //!< sampling interval
    std::vector<TracedPort> m_ports;       //!< every switch port
    std::vector<FabricPortQueue> m_queues; //!< each port's queue occupancy
    std::vector<bool> m_wasBusy;           //!< queue not empty at the last sample
    std::vector<QueueSample> m_samples;    //!< kept samples
    std::vector<SwitchEvent> m_events;     //!< drops and marks
};

} // namespace ns3

#endif // PRESTO_FABRIC_QUEUE_TRACER_H
