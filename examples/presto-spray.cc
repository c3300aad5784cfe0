/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// The main experiment: flows from a data-center workload cross a multipath fabric with
// packet spraying; every host runs the chosen endpoint; flow completion times are recorded.
//
//   presto-spray --device=host-tcp --lb=spray --workload=websearch --load=0.5 --out=results/x
//
// Writes fct.csv, summary.json, flows.txt and fct.png into --out and prints a table.
// Any ns-3 attribute can be set too, e.g. --ns3::FabricSwitch::EcnThreshold=30000.

#include "ns3/command-line.h"
#include "ns3/presto-input-error.h"
#include "ns3/spray-experiment.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    SprayExperimentConfig config;
    CommandLine cmd(__FILE__);
    config.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);
    try
    {
        SprayExperiment experiment(config);
        experiment.Run();
    }
    catch (const PrestoInputError& e)
    {
        std::cerr << "presto-spray: error: " << e.what() << std::endl;
        return 1;
    }
    return 0;
}
