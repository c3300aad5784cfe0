/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "ns3/index-random-variable.h"
#include "ns3/object.h"

#include <cstdint>
#include <gtest/gtest.h>

using namespace ns3;

// GetIndex(n) draws what ns-3's GetInteger(0, n - 1) draws from the same stream, on plain and
// antithetic streams, for port counts a switch has and a few others: the spray choices (and
// every result of a run) are the same as with UniformRandomVariable.
TEST(IndexRandomVariable, DrawsWhatGetIntegerDraws)
{
    for (bool antithetic : {false, true})
    {
        for (uint32_t n : {1u, 2u, 3u, 4u, 7u, 8u, 16u, 64u, 1000u})
        {
            Ptr<IndexRandomVariable> ours = CreateObject<IndexRandomVariable>();
            Ptr<UniformRandomVariable> theirs = CreateObject<UniformRandomVariable>();
            const int64_t stream = 17 + n;
            ours->SetStream(stream);
            theirs->SetStream(stream);
            ours->SetAntithetic(antithetic);
            theirs->SetAntithetic(antithetic);
            uint32_t seen = 0; // which indices came up (n <= 64), to know the draws vary
            for (int i = 0; i < 5000; ++i)
            {
                const uint32_t a = ours->GetIndex(n);
                const uint32_t b = theirs->GetInteger(0, n - 1);
                ASSERT_EQ(a, b) << "n " << n << " draw " << i << " antithetic " << antithetic;
                ASSERT_LT(a, n);
                if (n <= 32)
                {
                    seen |= 1u << a;
                }
            }
            if (n <= 32)
            {
                EXPECT_EQ(seen, n == 32 ? ~0u : (1u << n) - 1) << "every index drawn, n " << n;
            }
        }
    }
}
