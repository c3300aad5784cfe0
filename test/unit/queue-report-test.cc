/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/gnuplot-png.h"
#include "ns3/queue-report.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

const std::vector<TracedPort> kPorts = {{"leaf0", 0, "host0"}, {"leaf0", 2, "spine1"}};

} // namespace

TEST(QueueReport, CsvRowsNameSwitchPortAndNeighbour)
{
    EXPECT_EQ(QueueSamplesCsv(kPorts, {{1000, 1, 3000, 2}, {2000, 1, 0, 0}}),
              "time_ns,switch,port,neighbour,bytes,packets\n"
              "1000,leaf0,2,spine1,3000,2\n"
              "2000,leaf0,2,spine1,0,0\n");
    EXPECT_EQ(
        SwitchEventsCsv(kPorts,
                        {{5, 0, false, 1500}, {7, 1, true, 1500}, {9, NO_TRACED_PORT, true, 60}}),
        "time_ns,switch,port,neighbour,event,bytes\n"
        "5,leaf0,0,host0,mark,1500\n"
        "7,leaf0,2,spine1,drop,1500\n"
        "9,,,,drop_no_route,60\n");
}

TEST(QueueReport, PlotDrawsTheHighestPeaksAndSaysWhenEmpty)
{
    const std::string script = QueuePlotScript(kPorts,
                                               {{1000, 0, 500, 1}, {1000, 1, 9000, 6}},
                                               {{5, 0, false, 1500}},
                                               kGnuplotPngPlaceholder,
                                               1);
    EXPECT_NE(script.find("'leaf0:2>spine1'"), std::string::npos) << script; // peak 9000
    EXPECT_EQ(script.find("'leaf0:0>host0'"), std::string::npos) << "one line at most";
    EXPECT_NE(script.find("title 'ECN marks (1)'"), std::string::npos) << script;
    EXPECT_NE(script.find("title 'drops (0)'"), std::string::npos) << script;
    EXPECT_NE(script.find("set xrange [0:0.001]"), std::string::npos) << "both panels to 1 us";
    const std::string empty = QueuePlotScript(kPorts, {}, {}, "x.png");
    EXPECT_NE(empty.find("no queue held a byte"), std::string::npos);
    EXPECT_NE(empty.find("no drop and no ECN mark"), std::string::npos);
}
