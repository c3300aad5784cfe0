/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/host-cpu-model.h"
#include "ns3/presto-input-error.h"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <string>

using namespace ns3;

TEST(HostCpuModel, HostTcpCyclesByHand)
{
    HostCpuCosts c; // all zero, then a hand-picked table
    c.packetSent = 2000;
    c.packetReceived = 3000;
    c.ack = 1000;
    c.byteCopied = 0.5;
    c.connectionSetup = 30000;
    c.connectionTeardown = 15000;
    HostCpuModel m("host-tcp", c, 2e9);
    auto& n = m.Counts();
    n.packetsSent = 100;     // 200 000
    n.packetsReceived = 10;  //  30 000
    n.acks = 60;             //  60 000
    n.bytesCopied = 144800;  //  72 400
    n.connectionsOpened = 2; //  60 000
    n.connectionsClosed = 2; //  30 000
    n.bytesDelivered = 144800;
    n.wirePackets = 170;
    // 200000 + 30000 + 60000 + 72400 + 60000 + 30000 = 452400
    EXPECT_DOUBLE_EQ(m.GetCycles(), 452400.0);
    const HostCpuReport r = m.Report(0.001);
    EXPECT_EQ(r.model, "host-tcp");
    EXPECT_DOUBLE_EQ(r.cycles, 452400.0);
    EXPECT_DOUBLE_EQ(r.cyclesPerByte, 452400.0 / 144800);
    EXPECT_DOUBLE_EQ(r.cyclesPerPacket, 452400.0 / 170);
    EXPECT_DOUBLE_EQ(r.coresUsed, 452400.0 / (2e9 * 0.001)); // 0.2262 cores
    EXPECT_EQ(r.bytesDelivered, 144800u);
    EXPECT_EQ(r.packets, 170u);
}

TEST(HostCpuModel, OffloadCyclesByHandAndOffloadIsCheaperPerByte)
{
    HostCpuModel off("offload", HostCpuCosts::Offload(), 3e9);
    const HostCpuCosts& c = off.GetCosts();
    auto& n = off.Counts();
    n.controlPlaneEvents = 4;
    n.controlIntervals = 1000;
    n.appNotifications = 100;
    n.dmaDescriptors = 200;
    n.bytesCopied = 1000000;
    n.bytesDelivered = 1000000;
    n.wirePackets = 1400;
    const double want = 4 * c.controlPlaneEvent + 1000 * c.controlInterval +
                        100 * c.appNotification + 200 * c.dmaDescriptor + 1000000 * c.byteCopied;
    EXPECT_DOUBLE_EQ(off.GetCycles(), want);
    // The offload defaults charge nothing per packet: the NIC runs the data path.
    EXPECT_EQ(c.packetSent + c.packetReceived + c.ack, 0.0);

    // Same traffic through the host stack: ~700 data packets each way of ACK clocking.
    HostCpuModel host("host-tcp", HostCpuCosts::HostTcp(), 3e9);
    auto& h = host.Counts();
    h.packetsReceived = 700;
    h.acks = 700;
    h.bytesCopied = 1000000;
    h.connectionsOpened = 1;
    h.connectionsClosed = 1;
    h.bytesDelivered = 1000000;
    h.wirePackets = 1400;
    EXPECT_GT(host.Report(0.01).cyclesPerByte, off.Report(0.01).cyclesPerByte);
}

TEST(HostCpuModel, EmptyRunAndJson)
{
    HostCpuModel m("host-tcp", HostCpuCosts::HostTcp(), 1e9);
    HostCpuReport r = m.Report(2.0);
    EXPECT_EQ(r.cycles, 0.0);
    EXPECT_EQ(r.cyclesPerByte, 0.0); // nothing delivered: 0, not NaN
    EXPECT_EQ(r.cyclesPerPacket, 0.0);
    m.Counts().acks = 4;
    m.Counts().wirePackets = 4;
    r = m.Report(2.0);
    const double ack = HostCpuCosts::HostTcp().ack;
    EXPECT_DOUBLE_EQ(r.coresUsed, 4 * ack / 2e9);
    const std::string j = r.ToJson();
    EXPECT_EQ(j.front(), '{');
    EXPECT_EQ(j.back(), '}');
    for (const char* key : {"\"model\": \"host-tcp\"",
                            "\"cycles_per_byte\": 0",
                            "\"cycles_per_packet\": 1000",
                            "\"cores_used\": 2e-06",
                            "\"clock_hz\": 1000000000",
                            "\"sim_seconds\": 2"})
    {
        EXPECT_NE(j.find(key), std::string::npos) << key << " not in " << j;
    }
}

TEST(HostCpuModel, BadInputIsRefused)
{
    HostCpuCosts c;
    c.ack = -1;
    EXPECT_THROW(HostCpuModel("x", c, 1e9), PrestoInputError);
    c.ack = std::numeric_limits<double>::quiet_NaN();
    try
    {
        HostCpuModel m("x", c, 1e9);
        ADD_FAILURE() << "a NaN cost was accepted";
    }
    catch (const PrestoInputError& e)
    {
        EXPECT_NE(std::string(e.what()).find("ack"), std::string::npos) << e.what();
    }
    EXPECT_THROW(HostCpuModel("x", HostCpuCosts(), 0), PrestoInputError);
    EXPECT_THROW(HostCpuModel("a\"b", HostCpuCosts(), 1e9), PrestoInputError);
    HostCpuModel m("x", HostCpuCosts(), 1e9);
    EXPECT_THROW(m.Report(0), PrestoInputError);
    EXPECT_THROW(m.Report(-1), PrestoInputError);
}
