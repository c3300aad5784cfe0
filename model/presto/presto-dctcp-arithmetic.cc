/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "presto-dctcp-arithmetic.h"

#include "ns3/presto-input-error.h"

#include <cmath>
#include <string>

// Pure logic with no ns-3 dependency: the unit tests compile it alone.

namespace ns3
{

uint32_t
PrestoDctcpArithmetic::NormShift(uint64_t v, uint32_t bits)
{
    uint32_t msb = 0;
    while (msb < 63 && (v >> (msb + 1)) != 0)
    {
        ++msb;
    }
    return msb + 1 > bits ? msb + 1 - bits : 0;
}

uint32_t
PrestoDctcpArithmetic::FractionEntry(uint32_t eceM, uint32_t ackedM)
{
    return static_cast<uint32_t>((uint64_t{eceM} * ALPHA_ONE + ackedM / 2) / ackedM);
}

uint32_t
PrestoDctcpArithmetic::Fraction(uint64_t ece, uint64_t acked, uint32_t bits)
{
    const uint32_t s = NormShift(acked, bits);
    return FractionEntry(static_cast<uint32_t>(ece >> s), static_cast<uint32_t>(acked >> s));
}

uint32_t
PrestoDctcpArithmetic::NextAlpha(uint32_t alpha, uint32_t fraction, uint32_t gainShift)
{
    const uint32_t next = alpha - (alpha >> gainShift) + (fraction >> gainShift);
    return next < ALPHA_ONE ? next : ALPHA_ONE;
}

uint32_t
PrestoDctcpArithmetic::AlphaIndex(uint32_t alpha, uint32_t bits)
{
    return alpha >> (ALPHA_BITS - bits);
}

uint32_t
PrestoDctcpArithmetic::ReducedWindow(uint32_t cwnd, uint32_t alpha, uint32_t bits)
{
    const uint32_t s = NormShift(cwnd, bits);
    const uint64_t product = uint64_t{cwnd >> s} * AlphaIndex(alpha, bits); // the table entry
    return cwnd - static_cast<uint32_t>((product << s) >> (bits + 1));
}

uint32_t
PrestoDctcpArithmetic::FractionEntries(uint32_t bits)
{
    const uint32_t n = 1u << bits; // ackedM in 1..n-1, eceM in 0..ackedM
    return (n - 1) * (n + 2) / 2;
}

uint32_t
PrestoDctcpArithmetic::ProductEntries(uint32_t bits)
{
    return (1u << bits) * ((1u << bits) + 1);
}

uint32_t
PrestoDctcpArithmetic::Check(uint32_t bits, double gain, double alphaInit)
{
    if (bits < MIN_MANTISSA_BITS || bits > MAX_MANTISSA_BITS)
    {
        throw PrestoInputError(
            "DCTCP pipeline arithmetic: mantissa bits B=" + std::to_string(bits) + " must be in [" +
            std::to_string(MIN_MANTISSA_BITS) + ", " + std::to_string(MAX_MANTISSA_BITS) + "]");
    }
    int exponent = 0;
    const double m = std::frexp(gain, &exponent); // gain = m 2^exponent, m in [0.5, 1)
    const int shift = 1 - exponent;
    if (!(gain > 0.0) || m != 0.5 || shift < 0 || shift > static_cast<int>(MAX_GAIN_SHIFT))
    {
        throw PrestoInputError("DCTCP pipeline arithmetic: gain g=" + std::to_string(gain) +
                               " must be a power of two 2^-s with s in [0, " +
                               std::to_string(MAX_GAIN_SHIFT) +
                               "] (the pipeline multiplies by g with a shift), e.g. 0.0625");
    }
    if (!(alphaInit >= 0.0 && alphaInit <= 1.0))
    {
        throw PrestoInputError("DCTCP pipeline arithmetic: initial alpha=" +
                               std::to_string(alphaInit) + " must be in [0, 1]");
    }
    return static_cast<uint32_t>(shift);
}

uint32_t
PrestoDctcpArithmetic::ToQ20(double alpha)
{
    return static_cast<uint32_t>(std::lround(alpha * ALPHA_ONE));
}

OffloadDctcpPipelineArithmetic::OffloadDctcpPipelineArithmetic(uint32_t mss,
                                                               uint32_t initialCwndSegments,
                                                               double gain,
                                                               double alphaInit,
                                                               uint32_t mantissaBits)
    : OffloadDctcpCongestion(mss,
                             initialCwndSegments,
                             gain,
                             // alpha is kept in Q20: every value it takes is exact in a double
                             double(PrestoDctcpArithmetic::ToQ20(alphaInit)) /
                                 PrestoDctcpArithmetic::ALPHA_ONE),
      m_bits(mantissaBits),
      m_gainShift(PrestoDctcpArithmetic::Check(mantissaBits, gain, alphaInit))
{
}

Ptr<OffloadCongestionControl>
OffloadDctcpPipelineArithmetic::Fork(const OffloadCongestionContext& ctx) const
{
    Ptr<OffloadDctcpPipelineArithmetic> c = CopyObject<OffloadDctcpPipelineArithmetic>(this);
    c->Setup(ctx);
    return c;
}

const char*
OffloadDctcpPipelineArithmetic::GetName() const
{
    return "DCTCP (pipeline arithmetic)";
}

uint32_t
OffloadDctcpPipelineArithmetic::GetAlphaQ20() const
{
    return static_cast<uint32_t>(GetAlpha() * PrestoDctcpArithmetic::ALPHA_ONE);
}

double
OffloadDctcpPipelineArithmetic::NextAlpha(double alpha,
                                          uint64_t ackedBytes,
                                          uint64_t eceBytes) const
{
    using A = PrestoDctcpArithmetic;
    // the pipeline's byte counters are 32 bits wide
    const uint32_t f =
        A::Fraction(static_cast<uint32_t>(eceBytes), static_cast<uint32_t>(ackedBytes), m_bits);
    const auto q = static_cast<uint32_t>(alpha * A::ALPHA_ONE);
    return double(A::NextAlpha(q, f, m_gainShift)) / A::ALPHA_ONE;
}

uint32_t
OffloadDctcpPipelineArithmetic::EceReducedWindow() const
{
    return PrestoDctcpArithmetic::ReducedWindow(GetCwnd(), GetAlphaQ20(), m_bits);
}

} // namespace ns3
