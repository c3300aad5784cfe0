/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "host-cpu-model.h"

#include "ns3/presto-input-error.h"

#include <cmath>
#include <iomanip>
#include <sstream>

// Pure logic with no ns-3 dependency: it only multiplies counts by costs; the unit tests
// compile it alone.

namespace ns3
{

HostCpuCosts
HostCpuCosts::HostTcp()
{
    // Sources and caveats: doc/presto.rst, "Host CPU model". Orders of magnitude for Linux TCP
    // on a ~3 GHz server core; the per-packet figures are UNVERIFIED estimates.
    HostCpuCosts c;
    c.packetSent = 2000;
    c.packetReceived = 3000;
    c.ack = 1000;
    c.byteCopied = 0.5;
    c.connectionSetup = 30000;
    c.connectionTeardown = 15000;
    return c;
}

HostCpuCosts
HostCpuCosts::Merged()
{
    HostCpuCosts c = HostTcp();
    const HostCpuCosts o = Offload();
    c.controlPlaneEvent = o.controlPlaneEvent;
    c.controlInterval = o.controlInterval;
    c.appNotification = o.appNotification;
    c.dmaDescriptor = o.dmaDescriptor;
    return c;
}

HostCpuCosts
HostCpuCosts::KernelBypass()
{
    // ASSUMED: a quarter of the Linux-like per-packet and per-connection costs; mTCP
    // (NSDI'14) reports Linux spending more than 4x mTCP's cycles per transaction, IX
    // (OSDI'14) 3.6x memcached throughput; the application still copies every byte.
    HostCpuCosts c = HostTcp();
    c.packetSent /= 4;
    c.packetReceived /= 4;
    c.ack /= 4;
    c.connectionSetup /= 4;
    c.connectionTeardown /= 4;
    return c;
}

HostCpuCosts
HostCpuCosts::Offload()
{
    // The NIC runs the data path; the host keeps the copy into application buffers, the
    // control plane and the control loop (TAS/FlexTOE slow path). UNVERIFIED estimates.
    HostCpuCosts c;
    c.byteCopied = 0.5;
    c.controlPlaneEvent = 20000;
    c.controlInterval = 300;
    c.appNotification = 200;
    c.dmaDescriptor = 50;
    return c;
}

void
HostCpuCosts::Validate(const char* where) const
{
    const std::pair<const char*, double> fields[] = {
        {"packetSent", packetSent},
        {"packetReceived", packetReceived},
        {"ack", ack},
        {"byteCopied", byteCopied},
        {"connectionSetup", connectionSetup},
        {"connectionTeardown", connectionTeardown},
        {"controlPlaneEvent", controlPlaneEvent},
        {"controlInterval", controlInterval},
        {"appNotification", appNotification},
        {"dmaDescriptor", dmaDescriptor},
    };
    for (const auto& [name, v] : fields)
    {
        if (!std::isfinite(v) || v < 0)
        {
            std::ostringstream os;
            os << where << ": cost " << name << "=" << v << " cycles must be finite and >= 0";
            throw PrestoInputError(os.str());
        }
    }
}

std::string
HostCpuReport::ToJson() const
{
    std::ostringstream os;
    os << std::setprecision(12);
    os << "{\"model\": \"" << model << "\", \"clock_hz\": " << clockHz
       << ", \"sim_seconds\": " << simSeconds << ", \"cycles\": " << cycles
       << ", \"bytes_delivered\": " << bytesDelivered << ", \"packets\": " << packets
       << ", \"cycles_per_byte\": " << cyclesPerByte
       << ", \"cycles_per_packet\": " << cyclesPerPacket << ", \"cores_used\": " << coresUsed
       << "}";
    return os.str();
}

HostCpuModel::HostCpuModel(const std::string& label, const HostCpuCosts& costs, double clockHz)
    : m_label(label),
      m_costs(costs),
      m_clockHz(clockHz)
{
    costs.Validate(("host CPU model '" + label + "'").c_str());
    if (!std::isfinite(clockHz) || clockHz <= 0)
    {
        std::ostringstream os;
        os << "host CPU model '" << label << "': clock " << clockHz << " Hz must be > 0";
        throw PrestoInputError(os.str());
    }
    for (char ch : label)
    {
        if (ch == '"' || ch == '\\' || static_cast<unsigned char>(ch) < 0x20)
        {
            // The label goes into JSON unescaped: refuse what would break it.
            throw PrestoInputError("host CPU model: label '" + label +
                                   "' contains a quote, backslash or control character");
        }
    }
}

const HostCpuCounts&
HostCpuModel::GetCounts() const
{
    return m_counts;
}

HostCpuCounts&
HostCpuModel::Counts()
{
    return m_counts;
}

const HostCpuCosts&
HostCpuModel::GetCosts() const
{
    return m_costs;
}

double
HostCpuModel::GetCycles() const
{
    const HostCpuCounts& n = m_counts;
    const HostCpuCosts& c = m_costs;
    return n.packetsSent * c.packetSent + n.packetsReceived * c.packetReceived + n.acks * c.ack +
           n.bytesCopied * c.byteCopied + n.connectionsOpened * c.connectionSetup +
           n.connectionsClosed * c.connectionTeardown + n.controlPlaneEvents * c.controlPlaneEvent +
           n.controlIntervals * c.controlInterval + n.appNotifications * c.appNotification +
           n.dmaDescriptors * c.dmaDescriptor + static_cast<double>(n.programCycles) +
           static_cast<double>(n.requestDispatchCycles);
}

HostCpuReport
HostCpuModel::Report(double simSeconds) const
{
    if (!std::isfinite(simSeconds) || simSeconds <= 0)
    {
        std::ostringstream os;
        os << "host CPU model '" << m_label << "': simulated time " << simSeconds
           << " s must be > 0";
        throw PrestoInputError(os.str());
    }
    HostCpuReport r;
    r.model = m_label;
    r.clockHz = m_clockHz;
    r.simSeconds = simSeconds;
    r.cycles = GetCycles();
    r.bytesDelivered = m_counts.bytesDelivered;
    r.packets = m_counts.wirePackets;
    r.cyclesPerByte = r.bytesDelivered > 0 ? r.cycles / r.bytesDelivered : 0.0;
    r.cyclesPerPacket = r.packets > 0 ? r.cycles / r.packets : 0.0;
    r.coresUsed = r.cycles / (m_clockHz * simSeconds);
    return r;
}

} // namespace ns3
