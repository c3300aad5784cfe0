/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_DCTCP_ARITHMETIC_H
#define PRESTO_PRESTO_DCTCP_ARITHMETIC_H

#include "ns3/offload-window-congestion.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup presto
 * \brief DCTCP's two non-pipeline operations, the marked fraction F = ece / acked (a
 * division) and the reduced window cwnd (1 - alpha / 2) (a multiplication), done as a
 * match-action pipeline does them: a shift found by a ternary "leading one" table, then an
 * exact-match lookup table on the shifted (mantissa) values, then shifts.
 *
 * alpha is fixed point with ALPHA_BITS fractional bits (Q20: 1.0 = 2^20); the EWMA gain is a
 * power of two, g = 2^-gainShift, so the update is alpha - (alpha >> s) + (F >> s).
 *
 * With B mantissa bits, a value v >= 2^B is cut to its B leading bits, v >> NormShift(v, B),
 * which loses less than 2^-(B-1) of it. Hence (bounds checked by the unit tests):
 * - F: |F_pipeline - F| < 2^-(B-1) + 2^-21 (both operands are cut by the same shift, the
 *   table entry is rounded to Q20);
 * - the reduced window is never below the exact one and exceeds it by less than
 *   cwnd (2^-(B-1) alpha / 2 + 2^-(B+1)) + 2 bytes: the product uses cwnd's B leading bits
 *   and alpha to 2^-B (alpha's index 0..2^B).
 * The lookup tables hold one entry per (mantissa, mantissa) pair: FractionEntries(B) and
 * ProductEntries(B); PrestoDctcpProgram installs exactly these values.
 *
 * Pure functions, no state: the pipeline program and its C++ reference
 * (OffloadDctcpPipelineArithmetic) both use them, so they agree by construction on the
 * arithmetic and the differential tests check the rest (stages, registers, passes).
 */
struct PrestoDctcpArithmetic
{
    static constexpr uint32_t ALPHA_BITS = 20;              //!< alpha's fractional bits
    static constexpr uint32_t ALPHA_ONE = 1u << ALPHA_BITS; //!< alpha = 1.0
    static constexpr uint32_t MIN_MANTISSA_BITS = 3;        //!< smallest B accepted
    static constexpr uint32_t MAX_MANTISSA_BITS = 8;        //!< largest B accepted
    static constexpr uint32_t MAX_GAIN_SHIFT = ALPHA_BITS;  //!< g >= 2^-20

    /**
     * \param v a value
     * \param bits B
     * \return the right shift that leaves v's B leading bits: max(0, msb(v) - (B - 1)); 0 for
     * v < 2^B
     */
    static uint32_t NormShift(uint64_t v, uint32_t bits);

    /**
     * \brief The lookup-table entry of the fraction table.
     * \param eceM ece's mantissa (<= ackedM)
     * \param ackedM acked's mantissa (> 0)
     * \return round(2^20 eceM / ackedM)
     */
    static uint32_t FractionEntry(uint32_t eceM, uint32_t ackedM);

    /**
     * \param ece bytes acknowledged with ECE in the window (<= acked)
     * \param acked bytes acknowledged in the window (> 0)
     * \param bits B
     * \return F in Q20 as the pipeline computes it
     */
    static uint32_t Fraction(uint64_t ece, uint64_t acked, uint32_t bits);

    /**
     * \param alpha alpha before, Q20
     * \param fraction F, Q20
     * \param gainShift g = 2^-gainShift
     * \return alpha - (alpha >> gainShift) + (F >> gainShift), at most ALPHA_ONE
     */
    static uint32_t NextAlpha(uint32_t alpha, uint32_t fraction, uint32_t gainShift);

    /**
     * \param alpha alpha, Q20
     * \param bits B
     * \return alpha's index in the product table: alpha >> (ALPHA_BITS - B), 0..2^B
     */
    static uint32_t AlphaIndex(uint32_t alpha, uint32_t bits);

    /**
     * \param cwnd the window, bytes
     * \param alpha alpha, Q20
     * \param bits B
     * \return the window after an ECE, cwnd - ((cwndM alphaIndex) << shift) >> (B + 1), as
     * the pipeline computes it (before the 2-MSS floor)
     */
    static uint32_t ReducedWindow(uint32_t cwnd, uint32_t alpha, uint32_t bits);

    /// \param bits B \return entries of the fraction table: pairs 0 <= eceM <= ackedM < 2^B
    static uint32_t FractionEntries(uint32_t bits);
    /// \param bits B \return entries of the product table: 2^B x (2^B + 1)
    static uint32_t ProductEntries(uint32_t bits);

    /**
     * \brief Check B and the gain; throws PrestoInputError naming the parameter.
     * \param bits B
     * \param gain g, which must be a power of two 2^-s with s in [0, MAX_GAIN_SHIFT]
     * \param alphaInit initial alpha in [0, 1]
     * \return s
     */
    static uint32_t Check(uint32_t bits, double gain, double alphaInit);

    /// \param alpha a value in [0, 1] \return it in Q20, rounded
    static uint32_t ToQ20(double alpha);
};

/**
 * \ingroup presto
 * \brief The C++ reference of Presto's DCTCP pipeline program (PrestoDctcpProgram):
 * OffloadDctcpCongestion with the pipeline's arithmetic (PrestoDctcpArithmetic) for alpha and the
 * reduced window, everything else (the window, the reductions, losses, timeouts) unchanged. The
 * differential tests hold the program to this class event for event; the difference between this
 * class and OffloadDctcpCongestion is the stated approximation. It has no TypeId of its own (it is
 * a test reference, not chosen by name); Fork() copies it with its arithmetic.
 */
class OffloadDctcpPipelineArithmetic : public OffloadDctcpCongestion
{
  public:
    /**
     * \param mss maximum segment size, bytes
     * \param initialCwndSegments initial window, segments
     * \param gain g, a power of two
     * \param alphaInit initial alpha (rounded to Q20)
     * \param mantissaBits B
     */
    OffloadDctcpPipelineArithmetic(uint32_t mss,
                                   uint32_t initialCwndSegments,
                                   double gain,
                                   double alphaInit,
                                   uint32_t mantissaBits);

    Ptr<OffloadCongestionControl> Fork(const OffloadCongestionContext& ctx) const override;
    const char* GetName() const override;

    /// \return alpha in Q20
    uint32_t GetAlphaQ20() const;

  protected:
    double NextAlpha(double alpha, uint64_t ackedBytes, uint64_t eceBytes) const override;
    uint32_t EceReducedWindow() const override;

  private:
    uint32_t m_bits;      //!< B
    uint32_t m_gainShift; //!< g = 2^-m_gainShift
};

} // namespace ns3

#endif // PRESTO_PRESTO_DCTCP_ARITHMETIC_H
