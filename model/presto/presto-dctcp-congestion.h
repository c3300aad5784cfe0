/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_DCTCP_CONGESTION_H
#define PRESTO_PRESTO_DCTCP_CONGESTION_H

#include "presto-dctcp-program.h"

#include "ns3/offload-congestion-control.h"

#include <memory>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Window DCTCP decided by Presto's pipeline: every connection's congestion state lives
 * in the register arrays of one PrestoDctcpProgram per NIC, and every ACK, loss and timeout
 * runs through it (`--cc=dctcp-pipeline`). The rules are OffloadDctcp's; the arithmetic is the
 * pipeline's (PrestoDctcpArithmetic: alpha in Q20, g a power of two, F and the reduced window
 * from lookup tables with MantissaBits bits).
 *
 * PrestoNetDevice binds the program to its pipeline (clock, stage budget, register memory per
 * stage, MaxConnections) before the run, so a program that does not fit is refused then, and
 * charges the program's recirculations to its pipeline slots. On its own (as in Validate) the
 * program runs on a default RmtPipelineConfig.
 */
class PrestoDctcpCongestion : public OffloadCongestionControl
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    std::unique_ptr<OffloadCongestionOps> Create(
        const OffloadCongestionContext& ctx) const override;
    std::string GetShortName() const override;

    /**
     * \brief Build the program on the NIC's pipeline (before any connection). Throws
     * PrestoInputError when it does not fit.
     * \param config the NIC's pipeline
     * \param maxConnections the NIC's connection table size
     */
    void BindPipeline(const RmtPipelineConfig& config, uint32_t maxConnections);

    /// \return the program (null before BindPipeline or the first Create)
    const PrestoDctcpProgram* GetProgram() const;

  private:
    /// \return the parameters from the attributes
    PrestoDctcpProgram::Params Params() const;

    double m_gain;      //!< EWMA gain, a power of two
    double m_alphaInit; //!< initial alpha
    uint32_t m_bits;    //!< mantissa bits B
    /// the program, shared with the per-connection objects (built on first use when unbound)
    mutable std::shared_ptr<PrestoDctcpProgram> m_program;
    bool m_bound{false}; //!< BindPipeline built the program
};

} // namespace ns3

#endif // PRESTO_PRESTO_DCTCP_CONGESTION_H
