/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// FlexTOE's extension modules (the role XDP/eBPF plays in FlexTOE) on the FCT experiment:
// a firewall that blocks one host's connections, VLAN stripping and TCP tracing, each
// charged its cycles at its pipeline point. Prints what each module did and the pipeline's
// per-stage load.
//
//   flextoe-extensions --firewall=drop,tcp,src,10.0.0.1/32 --load=0.4   (blocks host 0)
//
// (commas stand for spaces in --firewall: ns-3's CommandLine reads one word per value;
// rules are separated by ';')
//
// Every presto-spray option is accepted.

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/presto-command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-main.h"
#include "ns3/spray-experiment.h"
#include "ns3/string.h"

#include <algorithm>
#include <iostream>

using namespace ns3;

/// The program; main() runs it with the module's error contract (RunPrestoMain).
int
Main(int argc, char* argv[])
{
    SprayExperimentConfig c;
    c.device = "flextoe";
    c.out = "results/flextoe-extensions";
    c.simTime = 0.01;
    // the firewall blocks flows on purpose: they never finish, and the run is still complete
    // (--allowUnfinished=0 refuses it like any other run)
    c.allowUnfinished = true;
    std::string firewall = "drop,tcp,src,10.0.0.1/32"; // host 0 sends nothing
    PrestoCommandLine cmd(__FILE__);
    c.AddToCommandLine(cmd);
    cmd.AddValue("firewall",
                 "Firewall rules separated by ';', words by ',' (FlexToeFirewall syntax)",
                 firewall);
    ParseCommandLine(cmd, argc, argv);
    std::replace(firewall.begin(), firewall.end(), ',', ' ');
    try
    {
        Config::SetDefault("ns3::FlexToeNetDevice::FirewallRules", StringValue(firewall));
        Config::SetDefault("ns3::FlexToeNetDevice::VlanStrip", BooleanValue(true));
        Config::SetDefault("ns3::FlexToeNetDevice::TcpTrace", BooleanValue(true));
        c.quiet = true;
        SprayExperiment e(c);
        e.Run();
        const auto& nic = e.GetReport()["nic"];
        std::cout << "FlexTOE extensions (" << nic["flextoe_profile"].get<std::string>() << ", "
                  << nic["flow_groups"].get<uint32_t>() << " flow groups)\n"
                  << "  firewall '" << firewall << "': " << nic.value("firewall_drops", uint64_t(0))
                  << " segments dropped\n"
                  << "  tcp trace: " << nic.value("traced_connections", uint64_t(0))
                  << " connection directions, " << nic.value("traced_segments", uint64_t(0))
                  << " segments\n"
                  << "  vlan strip: " << nic.value("vlan_stripped", uint64_t(0))
                  << " tags removed (the fabric sends untagged frames)\n"
                  << "  flows: " << e.GetReport()["flows"] << " total, "
                  << e.GetReport()["unfinished"] << " unfinished (blocked by the firewall or "
                  << "still running)\n  pipeline stages:\n";
        for (const auto& [stage, st] : nic["flextoe_stages"].items())
        {
            std::cout << "    " << stage << ": " << st["packets"] << " packets, " << st["drops"]
                      << " queue drops, peak utilisation " << st["max_utilisation"] << "\n";
        }
        std::cout << "outputs: " << c.out << "/" << std::endl;
    }
    catch (const PrestoInputError& err)
    {
        std::cerr << "flextoe-extensions: error: " << err.what() << std::endl;
        return 1;
    }
    return 0;
}

int
main(int argc, char* argv[])
{
    return RunPrestoMain("flextoe-extensions", [argc, argv] { return Main(argc, argv); });
}
