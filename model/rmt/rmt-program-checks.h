/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_RMT_PROGRAM_CHECKS_H
#define PRESTO_RMT_PROGRAM_CHECKS_H

#include "rmt-pipeline.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup presto
 * \brief What every program for the match-action engine checks before it builds, with the
 * same messages: the connection count its register arrays are indexed by, its stages against
 * the budget, and the passes it needs against the pass limit. Each throws PrestoInputError
 * starting with who (the program's name).
 */
struct RmtProgramChecks
{
    /// \param n values 0..n-1 \return bits a PHV field needs to hold them (at least 1)
    static uint32_t BitsFor(uint32_t n);

    /**
     * \param who the program, for the message
     * \param connections register array size: 1..RmtRegisterArray::MAX_SIZE
     */
    static void Connections(const std::string& who, uint32_t connections);

    /**
     * \param who the program
     * \param needed stages it needs
     * \param config the hardware
     * \param detail text after "needs N stages" (e.g. " (3 + 2 per interval)")
     * \param hint text after the budget (e.g. "; the largest K that fits is 4")
     */
    static void Stages(const std::string& who,
                       uint32_t needed,
                       const RmtPipelineConfig& config,
                       const std::string& detail = "",
                       const std::string& hint = "");

    /**
     * \brief The pass limit must allow one recirculation (or be 0: unlimited).
     * \param who the program
     * \param config the hardware
     * \param why what recirculates, e.g. "an expired timer recirculates once"
     */
    static void OneRecirculation(const std::string& who,
                                 const RmtPipelineConfig& config,
                                 const std::string& why);
};

} // namespace ns3

#endif // PRESTO_RMT_PROGRAM_CHECKS_H
