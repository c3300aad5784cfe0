/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flextoe-profile.h"

#include "ns3/presto-input-error.h"

#include <cmath>
#include <sstream>

namespace ns3
{

const char*
FlexToeStageName(FlexToeStage s)
{
    switch (s)
    {
    case FlexToeStage::PRE:
        return "pre";
    case FlexToeStage::SEQUENCER:
        return "sequencer";
    case FlexToeStage::PROTOCOL:
        return "protocol";
    case FlexToeStage::POST:
        return "post";
    case FlexToeStage::DMA:
        return "dma";
    }
    return "?";
}

namespace
{

/// Shorthand for a stage description.
FlexToeStageConfig
Pool(uint32_t cores,
     double clockHz,
     uint32_t threads,
     double cyclesPerPacket,
     double cyclesPerByte,
     double stallNs,
     uint32_t queue)
{
    FlexToeStageConfig c;
    c.cores = cores;
    c.clockHz = clockHz;
    c.threadsPerCore = threads;
    c.cyclesPerPacket = cyclesPerPacket;
    c.cyclesPerByte = cyclesPerByte;
    c.memoryStallNs = stallNs;
    c.queueCapacity = queue;
    return c;
}

/*
 * Agilio CX40 (NFP-4000).
 *
 * From the FlexTOE artifact (github.com/tcp-acceleration-service/FlexTOE, firmware/Makefile's
 * fw.add_obj placement, firmware/config.h, firmware/Makefile.nfp.config):
 * - chip nfp-4xxx-b0 (NFP-4000);
 * - pre-processing on 16 cores (islands 32-35, ME 0-3);
 * - protocol on 4 cores (ME 11 of islands 32-35), one per flow group: NUM_FLOW_GROUPS = 4;
 * - post-processing on 16 cores (islands 32-35, ME 5-8);
 * - DMA on 8 cores (island 36: 1 ATX, 2 ARX, 2 TX, 2 RX, 1 RXTX engine);
 * - the sequencer: ONE core running the GRO block (island 48, GRO_NUM_BLOCKS = 1), which
 *   restores per-flow-group order for every flow group;
 * - 8 threads per core (nfcc -Qnctx_mode=8; the GRO core is microcode, assumed 8 as well).
 * The artifact places 5 more cores that this model does not charge (queue manager, ATX/ARX
 * context queues, slow-path interface, buffer list manager): 50 cores in all, the "about 50"
 * of the paper.
 *
 * Assumed (the artifact gives no clock and no cycle counts): the 800 MHz clock (a secondary-
 * source figure for the NFP-4000); per-packet costs of 400 cycles for pre, protocol and post,
 * 100 for the sequencer, 100 + 1 cycle/byte for DMA; a 300 ns memory stall per packet (DMA:
 * 500 ns, sequencer: 100 ns) hidden by the 8 threads; the queue capacities (the artifact's
 * GRO reorder queue holds 8192 packets per sequencer context, GRO_CTX_REORDERQ_SZ; the model's
 * sequencer bounds everything it holds by 512). The protocol stage at 400 cycles gives 2 Mpps
 * per flow group; a connection's data segments and the ACKs that come back for them share its
 * group's core, so one connection carries about 1 M data segments/s: 11.6 Gbit/s of
 * 1448-byte segments, at 40G and at 100G (measured; doc/presto.rst, "Hardware profiles"), the
 * paper's per-flow bottleneck. No published per-connection figure was found to hold it to.
 * The single sequencer core at 100 cycles serves 8 Mpps, the same as the four protocol
 * cores together. DMA at 1 cycle/byte over 8 cores caps near 6 GB/s, the order of a PCIe
 * Gen3 x8 link.
 */
FlexToePipelineConfig
Agilio()
{
    FlexToePipelineConfig c;
    c.name = "agilio-cx40";
    c.description = "Netronome Agilio CX40 (NFP-4000): the FlexTOE artifact's core layout, 8 "
                    "threads per core, clock (800 MHz) assumed";
    c.flowGroups = 4;       // artifact: NUM_FLOW_GROUPS
    const double f = 800e6; // assumed
    // Pool(cores, clock, threads, cycles/packet, cycles/byte, stall ns, queue): cores and
    // threads from the artifact, the rest assumed.
    c.Stage(FlexToeStage::PRE) = Pool(16, f, 8, 400, 0, 300, 256);
    c.Stage(FlexToeStage::SEQUENCER) = Pool(1, f, 8, 100, 0, 100, 512);
    c.Stage(FlexToeStage::PROTOCOL) = Pool(4, f, 8, 400, 0, 300, 256);
    c.Stage(FlexToeStage::POST) = Pool(16, f, 8, 400, 0, 300, 256);
    c.Stage(FlexToeStage::DMA) = Pool(8, f, 8, 100, 1.0, 500, 256);
    return c;
}

/*
 * BlueField-2. Nothing here comes from the FlexTOE artifact (its firmware targets the NFP
 * only). From the product: 8 ARM Cortex-A72 cores, no SMT. Assumed: the part and its 2.5 GHz
 * clock (BlueField-2 parts run 2.0-2.75 GHz; BlueField-1 parts have 16 A72 cores at lower
 * clocks); the split of the 8 cores, modelled on the artifact's NFP layout scaled down (one
 * sequencer core, as there): 2 pre, 1 sequencer, 2 protocol (flow groups), 2 post, 1 DMA;
 * every cycle count; the queue capacities. The A72's out-of-order execution and caches fold
 * the memory stall into the cycle counts (stall 0, 1 thread).
 */
FlexToePipelineConfig
BlueField()
{
    FlexToePipelineConfig c;
    c.name = "bluefield";
    c.description = "Mellanox BlueField-2: 8 ARM A72 cores, no SMT; clock (2.5 GHz) assumed";
    c.flowGroups = 2;
    const double f = 2.5e9;
    c.Stage(FlexToeStage::PRE) = Pool(2, f, 1, 300, 0, 0, 256);
    c.Stage(FlexToeStage::SEQUENCER) = Pool(1, f, 1, 60, 0, 0, 512);
    c.Stage(FlexToeStage::PROTOCOL) = Pool(2, f, 1, 400, 0, 0, 256);
    c.Stage(FlexToeStage::POST) = Pool(2, f, 1, 300, 0, 0, 256);
    c.Stage(FlexToeStage::DMA) = Pool(1, f, 1, 100, 0.25, 0, 256);
    return c;
}

/*
 * x86 host cores running the FlexTOE data path (the paper's portability experiment). Nothing
 * here comes from the FlexTOE artifact: the core count, the 3 GHz clock, 2-way SMT, the split
 * (as on BlueField, one sequencer core as in the artifact's NFP layout), the cycle counts (a
 * little below the A72's because of the wider core) and the queue capacities are assumptions.
 */
FlexToePipelineConfig
X86()
{
    FlexToePipelineConfig c;
    c.name = "x86";
    c.description = "x86 host cores (assumed: 3 GHz, 2-way SMT)";
    c.flowGroups = 2;
    const double f = 3.0e9;
    c.Stage(FlexToeStage::PRE) = Pool(2, f, 2, 250, 0, 0, 256);
    c.Stage(FlexToeStage::SEQUENCER) = Pool(1, f, 2, 50, 0, 0, 512);
    c.Stage(FlexToeStage::PROTOCOL) = Pool(2, f, 2, 350, 0, 0, 256);
    c.Stage(FlexToeStage::POST) = Pool(2, f, 2, 250, 0, 0, 256);
    c.Stage(FlexToeStage::DMA) = Pool(1, f, 2, 100, 0.2, 0, 256);
    return c;
}

} // namespace

std::vector<std::string>
FlexToeProfile::Names()
{
    return {"agilio-cx40", "bluefield", "x86"};
}

FlexToePipelineConfig
FlexToeProfile::Get(const std::string& name)
{
    FlexToePipelineConfig c;
    if (name == "agilio-cx40")
    {
        c = Agilio();
    }
    else if (name == "bluefield")
    {
        c = BlueField();
    }
    else if (name == "x86")
    {
        c = X86();
    }
    else
    {
        std::ostringstream os;
        os << "unknown FlexTOE profile '" << name << "'; valid profiles:";
        for (const auto& n : Names())
        {
            os << " " << n;
        }
        throw PrestoInputError(os.str());
    }
    Validate(c);
    return c;
}

void
FlexToeProfile::Validate(const FlexToePipelineConfig& cfg)
{
    auto fail = [&cfg](const std::string& where, const std::string& what) {
        throw PrestoInputError("FlexTOE profile '" + cfg.name + "', " + where + ": " + what);
    };
    if (cfg.flowGroups < 1 || cfg.flowGroups > 4096)
    {
        fail("flowGroups", "must be in [1, 4096], got " + std::to_string(cfg.flowGroups));
    }
    for (std::size_t i = 0; i < FLEXTOE_STAGES; ++i)
    {
        const auto& s = cfg.stages[i];
        const std::string where =
            std::string("stage ") + FlexToeStageName(static_cast<FlexToeStage>(i));
        const bool protocol = static_cast<FlexToeStage>(i) == FlexToeStage::PROTOCOL;
        // The protocol pool always has one core per flow group, so its core count is unused.
        if (!protocol && (s.cores < 1 || s.cores > 4096))
        {
            fail(where, "cores must be in [1, 4096], got " + std::to_string(s.cores));
        }
        if (!(s.clockHz > 0) || !std::isfinite(s.clockHz))
        {
            fail(where, "clockHz must be positive and finite");
        }
        if (s.threadsPerCore < 1 || s.threadsPerCore > 64)
        {
            fail(where,
                 "threadsPerCore must be in [1, 64], got " + std::to_string(s.threadsPerCore));
        }
        if (!(s.cyclesPerPacket >= 0) || !std::isfinite(s.cyclesPerPacket))
        {
            fail(where, "cyclesPerPacket must be >= 0 and finite");
        }
        if (!(s.cyclesPerByte >= 0) || !std::isfinite(s.cyclesPerByte))
        {
            fail(where, "cyclesPerByte must be >= 0 and finite");
        }
        if (!(s.memoryStallNs >= 0) || !std::isfinite(s.memoryStallNs))
        {
            fail(where, "memoryStallNs must be >= 0 and finite");
        }
        if (s.queueCapacity < 1)
        {
            fail(where, "queueCapacity must be >= 1");
        }
    }
}

} // namespace ns3
