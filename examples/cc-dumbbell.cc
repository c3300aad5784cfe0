/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// Congestion control on a dumbbell: N long flows through one bottleneck between two fabric
// switches (ECN marking at 65 packets), every host on one device with one congestion control.
// Prints the bottleneck's utilisation and mean queue after the warm-up, drops and marks.
//
//   cc-dumbbell --device=presto --cc=dctcp --flows=2
//   cc-dumbbell --device=host-tcp --cc=dctcp --flows=8      (ns-3's TcpDctcp, the reference)

#include "ns3/dumbbell-scenario.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"

#include <iostream>

using namespace ns3;

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    DumbbellConfig c;
    double durationMs = 60;
    double warmupMs = 10;
    PrestoCommandLine cmd(__FILE__);
    cmd.AddValue("device", "host-tcp, presto, flextoe or cora", c.device);
    cmd.AddValue("cc",
                 "dctcp, dctcp-pipeline (presto), dctcp-rate, dctcp-rate-tas, newreno or native",
                 c.cc);
    cmd.AddValue("flows", "Long flows (sender/receiver pairs)", c.flows);
    cmd.AddValue("accessRate", "Host link rate, bit/s", c.accessRateBps);
    cmd.AddValue("bottleneckRate", "Bottleneck link rate, bit/s", c.bottleneckRateBps);
    cmd.AddValue("flowBytes", "Bytes per flow (0: long-lived)", c.flowBytes);
    cmd.AddValue("duration", "Run length, ms", durationMs);
    cmd.AddValue("warmup", "Measurements start after this, ms", warmupMs);
    cmd.AddValue("seed", "ns-3 run number", c.seed);
    cmd.AddValue("lossRate", "Random loss of every packet on the bottleneck link", c.lossRate);
    ParseCommandLine(cmd, argc, argv);
    c.duration = MilliSeconds(durationMs);
    c.warmup = MilliSeconds(warmupMs);
    try
    {
        const DumbbellResult r = RunDumbbell(c);
        std::cout << c.device << " cc=" << c.cc << " flows=" << c.flows << ": utilisation "
                  << 100 * r.utilisation << "%, mean queue " << r.meanQueuePackets
                  << " packets (max " << r.maxQueuePackets << "), goodput " << r.goodputBps / 1e9
                  << " Gbps (" << 100 * r.goodputBps / r.payloadRateBps
                  << "% of the payload rate), window " << r.windowS * 1e3 << " ms, drops "
                  << r.switchDrops << ", marks " << r.switchMarks << ", retx segments "
                  << r.retxSegments << ", timeouts " << r.timeouts << ", NIC tx drops "
                  << r.nicTxDrops << ", bad bytes " << r.badBytes << std::endl;
    }
    catch (const PrestoInputError& e)
    {
        std::cerr << "cc-dumbbell: error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}

int
main(int argc, char* argv[])
{
    return RunPrestoMain("cc-dumbbell", [argc, argv] { return Main(argc, argv); });
}
