/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "experiment-options.h"

#include "ns3/collective-endpoint.h"
#include "ns3/presto-main.h"
#include "ns3/spray-experiment.h"

#include <iostream>

namespace ns3
{

using namespace experiment;

void
SprayExperiment::ReportCollectiveRun(const FabricHelper& fabric,
                                     Ptr<CollectiveEndpoint> collective,
                                     Ptr<TcpSocketEndpoint> transport)
{
    m_report = nlohmann::json::object();
    AddRunContext();
    m_report["speed"] = SpeedToJson(m_speed);
    collective->AddReport(m_report);
    m_report["collective"]["placement"] = m_config.placement;
    nlohmann::json tcp;
    transport->AddReport(tcp);
    if (tcp.contains("tcp"))
    {
        m_report["tcp"] = tcp["tcp"];
    }
    AddNetworkReport(fabric);
}

void
SprayExperiment::PrintCollectiveRun() const
{
    const auto& c = m_config;
    const auto& r = m_report["collective"];
    std::cout << (c.label.empty() ? c.device : c.label) << " " << c.workload << ": " << r["ranks"]
              << " ranks x " << r["bytes"] << " bytes, " << r["iterations"] << " iteration(s), JCT "
              << r["jct_ns"].get<int64_t>() / 1e3 << " us, step p50 "
              << r["step_p50_ns"].get<double>() / 1e3 << " us, p99 "
              << r["step_p99_ns"].get<double>() / 1e3 << " us, slowest rank " << r["slowest_rank"]
              << " (host " << r["slowest_rank_host"] << ")"
              << (r["finished"].get<bool>() ? "" : ", NOT FINISHED") << "\n"
              << "delivery: " << r["bytes_delivered"] << " bytes, corrupt " << r["corrupt_bytes"]
              << ", excess " << r["excess_bytes"] << "\n"
              << "fabric:   " << m_report["fabric"].dump() << "\n"
              << (m_report.contains("nic") ? "nic:      " + m_report["nic"].dump() + "\n"
                                           : std::string())
              << "outputs:  " << PublishedFolder().string() << "/{collective.csv,summary.json}"
              << std::endl;
}

} // namespace ns3
