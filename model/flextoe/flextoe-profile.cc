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
 * Agilio CX40 (NFP-4000). Facts (REFERENCE.md, partly unverified): ~50 flow-processing cores
 * at 800 MHz with 8 threads each; 16 pre- and 16 post-processing cores; 4 flow groups.
 * Assumed: the remaining cores split between sequencer (4) and DMA issue (8); per-packet
 * cycle costs of a few hundred cycles per stage; a 300 ns memory stall per packet (off-island
 * memory), hidden by 8 threads. The protocol stage at 400 cycles gives 2 Mpps per flow group
 * (about 23 Gbit/s of 1448-byte segments): one connection can nearly fill the 40G port,
 * the order of magnitude FlexTOE reports for a single connection. DMA at 1 cycle/byte over
 * 8 cores caps near 6 GB/s, the order of a PCIe Gen3 x8 link.
 */
FlexToePipelineConfig
Agilio()
{
    FlexToePipelineConfig c;
    c.name = "agilio-cx40";
    c.description = "Netronome Agilio CX40: 800 MHz NFP flow-processing cores, 8 threads each";
    c.flowGroups = 4;
    const double f = 800e6;
    c.Stage(FlexToeStage::PRE) = Pool(16, f, 8, 400, 0, 300, 256);
    c.Stage(FlexToeStage::SEQUENCER) = Pool(4, f, 8, 100, 0, 100, 512);
    c.Stage(FlexToeStage::PROTOCOL) = Pool(4, f, 8, 400, 0, 300, 256);
    c.Stage(FlexToeStage::POST) = Pool(16, f, 8, 400, 0, 300, 256);
    c.Stage(FlexToeStage::DMA) = Pool(8, f, 8, 100, 1.0, 500, 256);
    return c;
}

/*
 * BlueField-2: 8 ARM Cortex-A72 cores at 2.5 GHz (assumed part; BlueField-1 parts have 16 A72
 * cores at lower clocks). A72 has no SMT (1 thread) but out-of-order execution and caches,
 * so the memory stall is folded into the cycle counts. The 8 cores are split as FlexTOE does
 * on x86/BlueField (fewer, faster cores, one pipeline replica per flow group): 2 pre, 1
 * sequencer, 2 protocol (flow groups), 2 post, 1 DMA. All cycle counts are assumptions.
 */
FlexToePipelineConfig
BlueField()
{
    FlexToePipelineConfig c;
    c.name = "bluefield";
    c.description = "Mellanox BlueField-2: 8 ARM A72 cores at 2.5 GHz, no SMT";
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
 * x86 host cores running the FlexTOE data path (the paper's portability experiment): a few
 * 3 GHz cores with 2-way SMT. Split as on BlueField. Cycle counts are assumptions, a little
 * below the A72's because of the wider core.
 */
FlexToePipelineConfig
X86()
{
    FlexToePipelineConfig c;
    c.name = "x86";
    c.description = "x86 host cores at 3 GHz with 2-way SMT";
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
