/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RUN_REPORT_H
#define PRESTO_RUN_REPORT_H

#include "ns3/fct-record.h"
#include "ns3/fct-statistics.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/** \ingroup presto How fast a run went; the "speed" object of summary.json. */
struct RunSpeed
{
    double wallS{0};          //!< wall-clock seconds of Simulator::Run
    double simS{0};           //!< simulated seconds
    uint64_t events{0};       //!< events executed by the simulator
    uint64_t packetHops{0};   //!< packet transmissions on links
    double packetHopsPerS{0}; //!< packetHops / wallS
    int64_t peakRssKb{0};     //!< peak resident memory of the process, KiB
    std::string scheduler;    //!< ns-3's event queue (SchedulerType), which sets no result
    std::string simulator;    //!< ns-3's SimulatorImplementationType, which sets no result
    double progressS{0};      //!< seconds of wall time between progress lines (0: none)
};

/**
 * \ingroup presto
 * \return peak resident memory of this process so far, KiB (getrusage ru_maxrss)
 */
int64_t PeakRssKb();

/**
 * \ingroup presto
 * \brief Write a text file through a temporary name in the same directory and a rename, so
 * that readers (and a run that dies half-way) never see a partial file.
 * \param path the file
 * \param content the bytes
 * \param what the file's kind for the message ("queue trace", ...)
 * \throws PrestoInputError "cannot write <what> '<path>' (...)"
 */
void WriteFileAtomically(const std::string& path,
                         const std::string& content,
                         const std::string& what);

/**
 * \ingroup presto
 * \brief Write fct.csv: header "id,src,dst,size_bytes,start_ns,finish_ns,fct_ns,ideal_fct_ns,
 * slowdown,retx_bytes,src_addr,dst_addr,src_port,dst_port,timeouts", one row per flow in id
 * order; unfinished flows have finish_ns, fct_ns and slowdown empty; retx_bytes, src_addr,
 * dst_addr (dotted quads), src_port and timeouts empty where unknown. The slowdown is written
 * in the shortest form that reads back as the same double. FlowSpec::priority is not a
 * column. The file is written to a temporary name and renamed, so a failed run leaves no
 * partial file. Throws PrestoInputError if the file cannot be written.
 * \param path the file
 * \param records one per flow
 */
void WriteFctCsv(const std::string& path, const std::vector<FctRecord>& records);

/**
 * \ingroup presto
 * \brief Write fct.txt in the format of HPCC's ns-3 simulator (alibaba-edu/
 * High-Precision-Congestion-Control, simulation/scratch/third.cc, qp_finish): one line per
 * finished flow, in the order they finished (ties by id), "sip dip sport dport size start fct
 * standalone_fct" with sip and dip as 8 lowercase hex digits (printf %08x of the IPv4
 * address), size in bytes and the times in ns; standalone_fct is the ideal FCT. Unfinished
 * flows have no line (HPCC writes one when a flow completes); a flow whose addresses or source
 * port are unknown has 0 there. Written to a temporary name and renamed; throws
 * PrestoInputError if the file cannot be written.
 * \param path the file
 * \param records one per flow
 */
void WriteHpccFct(const std::string& path, const std::vector<FctRecord>& records);

/**
 * \ingroup presto
 * \brief Read fct.csv back (for plotting and aggregation tools): the exact inverse of
 * WriteFctCsv for every field it writes (priority gets its default). A file with the
 * earlier header (up to retx_bytes, 10 fields) is read too: its rows have no addresses,
 * ports or timeouts (dport gets its default).
 *
 * Throws PrestoInputError naming file and line on malformed input: a different header, a
 * wrong number of fields, a field that is not a whole number in range or not an address,
 * finish_ns / fct_ns /
 * slowdown not all present or all empty, fct_ns != finish_ns - start_ns, a slowdown that
 * disagrees with fct_ns / ideal_fct_ns, a repeated id. Blank lines and CRLF line ends are
 * accepted.
 * \param path the file
 * \return the records, in file order
 */
std::vector<FctRecord> ReadFctCsv(const std::string& path);

/**
 * \ingroup presto
 * \brief Build the summary.json object: "flows", "finished", "unfinished", "warmup_ns",
 * "warmup_excluded", "buckets" (objects with "lo_bytes", "hi_bytes", "count", "fct_mean_ns",
 * "fct_p50_ns", "fct_p95_ns", "fct_p99_ns", "fct_p999_ns", "slowdown_mean", "slowdown_p50",
 * "slowdown_p95", "slowdown_p99", "slowdown_p999"), "overall" (same keys, no edges) and
 * "speed" ("wall_s", "sim_s", "events", "packet_hops", "packet_hops_per_s", "peak_rss_kb",
 * "scheduler", "simulator", "progress_s").
 * Device-specific sections ("config", "nic", "host_cpu", "delivery", ...) are added by the
 * caller on the returned object.
 * \param summary the FCT statistics
 * \param speed the run's speed
 * \return the JSON object
 */
nlohmann::json SummaryToJson(const FctSummary& summary, const RunSpeed& speed);

/**
 * \ingroup presto
 * \brief The "speed" object of summary.json.
 * \param speed the measurements
 * \return wall_s, sim_s, events, packet_hops, packet_hops_per_s, peak_rss_kb, scheduler,
 * simulator, progress_s
 */
nlohmann::json SpeedToJson(const RunSpeed& speed);

/**
 * \ingroup presto
 * \brief Write a JSON object to a file, pretty-printed with 2-space indent and keys in a
 * fixed order (nlohmann::json keeps keys sorted), with a trailing newline: byte-identical
 * for identical content. Written to a temporary name and renamed, so a failed run leaves no
 * partial file. Throws PrestoInputError on failure (cannot write, invalid UTF-8 string).
 * \param path the file
 * \param doc the object
 */
void WriteJson(const std::string& path, const nlohmann::json& doc);

/**
 * \ingroup presto
 * \brief Print the human-readable table: one row per bucket with count, FCT p50/p99 (us),
 * slowdown mean/p50/p95/p99/p99.9, then totals (flows, unfinished, warm-up excluded) and
 * the speed line "speed: X packet-hops/s (N hops in W s wall, S s simulated, E events,
 * R MB peak RSS)".
 * \param os the stream
 * \param label a title for the table (device name, run name)
 * \param summary the FCT statistics
 * \param speed the run's speed
 */
void PrintSummaryTable(std::ostream& os,
                       const std::string& label,
                       const FctSummary& summary,
                       const RunSpeed& speed);

} // namespace ns3

#endif // PRESTO_RUN_REPORT_H
