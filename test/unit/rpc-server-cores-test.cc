/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "input-error-matchers.h"

#include "ns3/rpc-server-cores.h"

#include <gtest/gtest.h>
#include <set>

using namespace ns3;
using ns3::test::Contains;
using ns3::test::ErrorOf;

namespace
{

TEST(RpcServerCores, RefusesBadConfigurations)
{
    EXPECT_TRUE(Contains(ErrorOf([] { RpcServerCores(0, 100, RPC_NIC, 0); }),
                         {"at least 1 core", "0 cores"}));
    EXPECT_TRUE(Contains(ErrorOf([] { RpcServerCores(2, -1, RPC_NIC, 0); }), {"-1 ns service"}));
}

TEST(RpcServerCores, AffinityQueuesAConnectionsRequestsOnItsCore)
{
    RpcServerCores c(4, 1000, RPC_AFFINITY, 500);
    // four requests of one connection at once: one core, one after the other
    const auto a = c.Assign(7, 0);
    for (int i = 1; i < 4; ++i)
    {
        const auto s = c.Assign(7, 0);
        EXPECT_EQ(s.core, a.core);
        EXPECT_EQ(s.startNs, 1000 * i);
        EXPECT_EQ(s.doneNs, 1000 * (i + 1));
        EXPECT_FALSE(s.dispatched);
    }
    EXPECT_EQ(c.GetDispatched(), 0u);
    EXPECT_EQ(c.GetMaxWaitNs(), 3000);
    // connections spread over the cores
    std::set<uint32_t> used;
    for (uint64_t conn = 0; conn < 64; ++conn)
    {
        used.insert(c.Assign(conn, 10000).core);
    }
    EXPECT_EQ(used.size(), 4u);
}

TEST(RpcServerCores, NicSteeringBalancesWithoutDispatchWork)
{
    RpcServerCores c(4, 1000, RPC_NIC, 500);
    std::set<uint32_t> used;
    for (int i = 0; i < 4; ++i)
    {
        const auto s = c.Assign(7, 0); // one connection, yet four cores
        used.insert(s.core);
        EXPECT_EQ(s.startNs, 0);
        EXPECT_EQ(s.doneNs, 1000);
    }
    EXPECT_EQ(used.size(), 4u);
    const auto fifth = c.Assign(7, 0);
    EXPECT_EQ(fifth.startNs, 1000) << "all busy: waits for the first to free";
    EXPECT_EQ(c.GetDispatched(), 0u);
    EXPECT_EQ(c.GetDispatchNs(), 0);
}

TEST(RpcServerCores, HostDispatchSerialisesOnTheDispatcher)
{
    RpcServerCores c(4, 1000, RPC_HOST_DISPATCH, 300);
    for (int i = 0; i < 4; ++i)
    {
        const auto s = c.Assign(7, 0);
        EXPECT_TRUE(s.dispatched);
        EXPECT_EQ(s.startNs, 300 * (i + 1)) << "the dispatcher hands them over one by one";
        EXPECT_EQ(s.doneNs, s.startNs + 1000);
    }
    EXPECT_EQ(c.GetDispatched(), 4u);
    EXPECT_EQ(c.GetDispatchNs(), 1200);
    // later, an idle dispatcher: only its own time is added
    const auto s = c.Assign(1, 100000);
    EXPECT_EQ(s.startNs, 100300);
}

} // namespace
