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
 * runs through it (`--cc=dctcp-pipeline`). The rules are OffloadDctcpCongestion's; the arithmetic
 * is the pipeline's (PrestoDctcpArithmetic: alpha in Q20, g a power of two, F and the reduced
 * window from lookup tables with MantissaBits bits).
 *
 * PrestoNetDevice binds the program to its pipeline (clock, stage budget, register memory per
 * stage, MaxConnections) before the run, so a program that does not fit is refused then, and
 * charges the program's recirculations to its pipeline slots. On its own (as in Validate) the
 * program runs on a default RmtPipelineConfig. The configuration object holds the program;
 * each connection's copy (Fork) shares it and holds the connection's slot.
 */
class PrestoDctcpCongestion : public OffloadCongestionControl
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();

    Ptr<OffloadCongestionControl> Fork(const OffloadCongestionContext& ctx) const override;
    std::string GetShortName() const override;
    const char* GetName() const override;
    void Init(uint32_t sndNxt) override;
    bool OnAck(uint32_t ackedBytes, bool ece, uint32_t sndUna, uint32_t sndNxt) override;
    void OnLoss(uint32_t bytesInFlight, uint32_t sndNxt) override;
    void OnTimeout(uint32_t bytesInFlight, uint32_t sndNxt) override;
    uint32_t GetCwnd() const override;
    uint32_t GetSsThresh() const override;

    /**
     * \brief Build the program on the NIC's pipeline (before any connection). Throws
     * PrestoInputError when it does not fit.
     * \param config the NIC's pipeline
     * \param maxConnections the NIC's connection table size
     */
    void BindPipeline(const RmtPipelineConfig& config, uint32_t maxConnections);

    /// \return the program (null before BindPipeline or the first Fork)
    const PrestoDctcpProgram* GetProgram() const;

  private:
    /// \return the parameters from the attributes
    PrestoDctcpProgram::Params Params() const;

    double m_gain;      //!< EWMA gain, a power of two
    double m_alphaInit; //!< initial alpha
    uint32_t m_bits;    //!< mantissa bits B
    /// the program, shared by the configuration and every connection's copy (built on first
    /// use when unbound)
    mutable std::shared_ptr<PrestoDctcpProgram> m_program;
    bool m_bound{false}; //!< BindPipeline built the program
    // A connection's copy: its slot in the program's register arrays.
    uint32_t m_conn{0};        //!< the connection's slot
    uint32_t m_mss{0};         //!< its MSS
    uint32_t m_initialCwnd{0}; //!< its initial window, segments
};

} // namespace ns3

#endif // PRESTO_PRESTO_DCTCP_CONGESTION_H
