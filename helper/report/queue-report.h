/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_QUEUE_REPORT_H
#define PRESTO_QUEUE_REPORT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** \ingroup presto One switch port of the queue traces. */
struct TracedPort
{
    std::string switchName;    //!< the switch (topology name)
    uint32_t port{0};          //!< port number on the switch
    std::string neighbourName; //!< the node at the other end of the port's link
};

/** \ingroup presto One sample of a port's queue. */
struct QueueSample
{
    int64_t timeNs{0};   //!< when
    uint32_t port{0};    //!< index into the traced ports
    uint32_t bytes{0};   //!< bytes waiting in the port's queue (not the frame on the wire)
    uint32_t packets{0}; //!< packets waiting
};

/** \ingroup presto A drop or an ECN mark at a switch port. */
struct SwitchEvent
{
    int64_t timeNs{0}; //!< when
    uint32_t port{0};  //!< index into the traced ports; NO_TRACED_PORT: dropped, no route
    bool drop{false};  //!< true: dropped; false: marked CE
    uint32_t bytes{0}; //!< the packet's size, bytes
};

/// \ingroup presto SwitchEvent::port of a drop that had no output port (no route).
constexpr uint32_t NO_TRACED_PORT = 0xffffffff;

/**
 * \ingroup presto
 * \brief queues.csv: header "time_ns,switch,port,neighbour,bytes,packets", one row per sample
 * in the order given (time, then port).
 * \param ports the traced ports \param samples the samples
 * \return the file's text
 */
std::string QueueSamplesCsv(const std::vector<TracedPort>& ports,
                            const std::vector<QueueSample>& samples);

/**
 * \ingroup presto
 * \brief switch-events.csv: header "time_ns,switch,port,neighbour,event,bytes", one row per
 * event in time order; event is "drop" (buffer full) or "mark" (ECN CE); a drop for lack of a
 * route has port and neighbour empty and event "drop_no_route".
 * \param ports the traced ports \param events the events
 * \return the file's text
 */
std::string SwitchEventsCsv(const std::vector<TracedPort>& ports,
                            const std::vector<SwitchEvent>& events);

/**
 * \ingroup presto
 * \brief A gnuplot script for queues.png: top, the queue (KB) over time (ms) of the
 * \p maxLines ports with the highest peak, one line each, labelled "switch:port>neighbour";
 * bottom, the cumulative drops and ECN marks of all ports over time. A panel with nothing to
 * draw says so.
 * \param ports the traced ports \param samples the samples \param events the events
 * \param pngPath the image (kGnuplotPngPlaceholder to render it with RenderGnuplotPng)
 * \param maxLines most ports drawn
 * \param caption the run configuration (RunCaption), one line along the top ("": none)
 * \return the script
 */
std::string QueuePlotScript(const std::vector<TracedPort>& ports,
                            const std::vector<QueueSample>& samples,
                            const std::vector<SwitchEvent>& events,
                            const std::string& pngPath,
                            uint32_t maxLines = 8,
                            const std::string& caption = "");

} // namespace ns3

#endif // PRESTO_QUEUE_REPORT_H
