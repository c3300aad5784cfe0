/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "cora-perf-model.h"

#include "ns3/presto-input-error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <tuple>
#include <utility>

namespace ns3
{

namespace
{

/// \param x value \return true if x is finite and >= 0
bool
IsNonNegativeFinite(double x)
{
    return std::isfinite(x) && x >= 0;
}

/// \param what context for the message \param p curve \throws PrestoInputError if invalid
void
CheckCurve(const std::string& what, const CoraCurveParams& p)
{
    if (!std::isfinite(p.a) || p.a <= 0 || !IsNonNegativeFinite(p.b) || !IsNonNegativeFinite(p.c))
    {
        std::ostringstream os;
        os << "Cora performance profile: curve of " << what << " has a=" << p.a << " b=" << p.b
           << " c=" << p.c << "; need finite a > 0, b >= 0, c >= 0";
        throw PrestoInputError(os.str());
    }
}

/// \param kind kind \throws PrestoInputError if its width is not 4..128 in steps of 4
void
CheckWidth(const CoraAccessKind& kind)
{
    if (kind.widthBytes < 4 || kind.widthBytes > 128 || kind.widthBytes % 4 != 0)
    {
        throw PrestoInputError("Cora access kind " + kind.ToString() +
                               ": width must be a multiple of 4 bytes in [4, 128]");
    }
}

/**
 * Width scaling of the per-access time (assumed): a 4-byte access costs 1, each further 60
 * bytes add one more, so a 64-byte burst costs 2 and a 128-byte one about 3.1. Wide bulk
 * transfers pay for bus beats, but the command overhead dominates small ones.
 * \param width bytes \return factor
 */
double
WidthFactor(uint32_t width)
{
    return 1.0 + (static_cast<double>(width) - 4.0) / 60.0;
}

/// Atomic accesses are read-modify-write at the engine: assumed 3x a bulk access.
constexpr double ATOMIC_FACTOR = 3.0;

/**
 * Fill every (op, mode, width) of one memory type from its 4-byte bulk read curve.
 * \param prof profile \param mem memory type \param a fixed time \param b knee
 * \param cBulk4 time per 4-byte bulk access at the roof, microseconds
 */
void
FillMemory(CoraPerfProfile& prof, CoraMemoryType mem, double a, double b, double cBulk4)
{
    for (auto op : {CoraMemoryOp::READ, CoraMemoryOp::WRITE})
    {
        for (auto mode : {CoraAccessMode::BULK, CoraAccessMode::ATOMIC})
        {
            for (uint32_t w = 4; w <= 128; w += 4)
            {
                double c = cBulk4 * WidthFactor(w);
                if (mode == CoraAccessMode::ATOMIC)
                {
                    c *= ATOMIC_FACTOR;
                }
                prof.SetCurve(CoraAccessKind{mem, op, mode, w}, CoraCurveParams{a, b, c});
            }
        }
    }
}

/// \param rate packet rate, Mpps \param a fixed time, us \param i intensity \param b knee
/// \return the c that makes 1/(a + c i exp(-b/i)) equal rate
double
SolveC(double rate, double a, double i, double b)
{
    return (1.0 / rate - a) / (i * std::exp(-b / i));
}

} // namespace

std::string
ToString(CoraMemoryType m)
{
    switch (m)
    {
    case CoraMemoryType::CLS:
        return "CLS";
    case CoraMemoryType::CTM:
        return "CTM";
    case CoraMemoryType::IMEM:
        return "IMEM";
    case CoraMemoryType::EMEM:
        return "EMEM";
    }
    return "?";
}

std::string
CoraAccessKind::ToString() const
{
    std::ostringstream os;
    os << ns3::ToString(memory) << "/" << (op == CoraMemoryOp::READ ? "read" : "write") << "/"
       << (mode == CoraAccessMode::ATOMIC ? "atomic" : "bulk") << "/" << widthBytes << "B";
    return os.str();
}

bool
CoraAccessKind::operator<(const CoraAccessKind& o) const
{
    return std::make_tuple(memory, op, mode, widthBytes) <
           std::make_tuple(o.memory, o.op, o.mode, o.widthBytes);
}

bool
CoraAccessKind::operator==(const CoraAccessKind& o) const
{
    return memory == o.memory && op == o.op && mode == o.mode && widthBytes == o.widthBytes;
}

CoraPerfProfile::CoraPerfProfile(std::string name)
    : m_name(std::move(name))
{
}

void
CoraPerfProfile::SetCurve(const CoraAccessKind& kind, const CoraCurveParams& p)
{
    CheckWidth(kind);
    CheckCurve(m_name + " " + kind.ToString(), p);
    m_curves[kind] = p;
}

const CoraCurveParams&
CoraPerfProfile::GetCurve(const CoraAccessKind& kind) const
{
    auto it = m_curves.find(kind);
    if (it == m_curves.end())
    {
        throw PrestoInputError("Cora performance profile " + m_name + " has no curve for " +
                               kind.ToString());
    }
    return it->second;
}

bool
CoraPerfProfile::HasCurve(const CoraAccessKind& kind) const
{
    return m_curves.count(kind) != 0;
}

void
CoraPerfProfile::SetStatelessCurve(const CoraCurveParams& p)
{
    CheckCurve(m_name + " stateless instructions", p);
    m_stateless = p;
}

const CoraCurveParams&
CoraPerfProfile::GetStatelessCurve() const
{
    return m_stateless;
}

void
CoraPerfProfile::SetLockSerialization(double f)
{
    if (!std::isfinite(f) || f < 1.0)
    {
        std::ostringstream os;
        os << "Cora performance profile " << m_name << ": lock serialisation factor " << f
           << " must be finite and >= 1";
        throw PrestoInputError(os.str());
    }
    m_lockSerialization = f;
}

double
CoraPerfProfile::GetLockSerialization() const
{
    return m_lockSerialization;
}

const std::string&
CoraPerfProfile::GetName() const
{
    return m_name;
}

CoraPerfProfile
CoraPerfProfile::Netronome()
{
    CoraPerfProfile prof("Netronome");
    // Calibration figures of the Cora paper (Mpps).
    const double base = 28.0;      // forwarding, no work
    const double stateless = 20.0; // 400 stateless instructions per packet
    const double emem10 = 15.0;    // 10 EMEM reads per packet
    const double lockFree = 23.33; // lock program, lock-free version
    const double oneLock = 0.45;   // lock program, one flow (one lock)

    const double a = 1.0 / base;
    // Stateless instructions pipeline across cores with no queue at a shared engine: b = 0,
    // and c is solved from the single figure.
    prof.SetStatelessCurve({a, 0.0, SolveC(stateless, a, 400.0, 0.0)});

    // One figure per curve cannot fix both b and c: the knee b is assumed (1 access per
    // packet for IMEM and EMEM, where the ~8 threads per core stop hiding the latency) and c
    // is solved so that the curve passes through the figure exactly.
    const double bMem = 1.0;
    const double cEmem = SolveC(emem10, a, 10.0, bMem);
    FillMemory(prof, CoraMemoryType::EMEM, a, bMem, cEmem);

    // The lock program's lock-free version issues 2 lock-word accesses per packet (acquire and
    // release, IMEM/write/atomic/4B); solve that kind's c, then derive IMEM bulk from it.
    const double cImemAtomic = SolveC(lockFree, a, 2.0, bMem);
    const double cImemBulk = cImemAtomic / ATOMIC_FACTOR;
    FillMemory(prof, CoraMemoryType::IMEM, a, bMem, cImemBulk);
    // Assumed: CTM and CLS sit in the island, closer and less shared than IMEM.
    FillMemory(prof, CoraMemoryType::CTM, a, 2.0, cImemBulk * 0.5);
    FillMemory(prof, CoraMemoryType::CLS, a, 4.0, cImemBulk * 0.25);

    prof.SetLockSerialization(lockFree / oneLock);
    return prof;
}

CoraPerfProfile
CoraPerfProfile::ByName(const std::string& name, const std::string& where)
{
    if (name == "netronome")
    {
        return Netronome();
    }
    if (name == "bluefield")
    {
        return BlueField();
    }
    throw PrestoInputError(where + "=" + name + ": unknown profile (valid: netronome, bluefield)");
}

CoraPerfProfile
CoraPerfProfile::BlueField()
{
    // All assumed (no measurement): BlueField-2, 8 Arm A72 cores at 2.5 GHz, run-to-completion
    // DPDK. Memories mapped: EMEM = DDR4, IMEM = shared L3 (6 MB), CTM = L2, CLS = L1.
    CoraPerfProfile prof("BlueField");
    const double a = 1.0 / 15.0; // ~15 Mpps DPDK forwarding of small packets on the Arm cores
    // One instruction per cycle on each of 8 cores: 1 / (8 * 2500 MHz) us per instruction.
    prof.SetStatelessCurve({a, 0.0, 1.0 / (8.0 * 2500.0)});
    // DRAM miss ~90 ns, 8 cores x ~4 outstanding misses: ~2.8 ns per access at the roof; the
    // out-of-order cores hide less latency than NFP threads, so a lower knee (0.5).
    FillMemory(prof, CoraMemoryType::EMEM, a, 0.5, 0.090 / 32.0);
    FillMemory(prof, CoraMemoryType::IMEM, a, 0.5, 0.025 / 32.0);
    FillMemory(prof, CoraMemoryType::CTM, a, 1.0, 0.010 / 32.0);
    FillMemory(prof, CoraMemoryType::CLS, a, 2.0, 0.004 / 32.0);
    // One lock serialises the 8 cores (one thread each).
    prof.SetLockSerialization(8.0);
    return prof;
}

CoraPerfModel::CoraPerfModel(CoraPerfProfile profile)
    : m_profile(std::move(profile))
{
}

const CoraPerfProfile&
CoraPerfModel::GetProfile() const
{
    return m_profile;
}

double
CoraPerfModel::CurveMpps(const CoraCurveParams& p, double i)
{
    if (!IsNonNegativeFinite(i))
    {
        std::ostringstream os;
        os << "Cora performance model: intensity " << i << " must be finite and >= 0";
        throw PrestoInputError(os.str());
    }
    // exp(-b/i) -> 0 as i -> 0, and c*i -> 0: the rate at zero intensity is 1/a.
    const double penalty = (i > 0) ? p.c * i * std::exp(-p.b / i) : 0.0;
    return 1.0 / (p.a + penalty);
}

void
CoraPerfModel::Validate(const CoraProgramLoad& load) const
{
    if (!IsNonNegativeFinite(load.statelessInstructions))
    {
        std::ostringstream os;
        os << "Cora program load: statelessInstructions " << load.statelessInstructions
           << " must be finite and >= 0";
        throw PrestoInputError(os.str());
    }
    for (std::size_t k = 0; k < load.accesses.size(); ++k)
    {
        const auto& acc = load.accesses[k];
        if (!IsNonNegativeFinite(acc.perPacket))
        {
            std::ostringstream os;
            os << "Cora program load: access " << k << " (" << acc.kind.ToString() << ") count "
               << acc.perPacket << " must be finite and >= 0";
            throw PrestoInputError(os.str());
        }
        CheckWidth(acc.kind);
        m_profile.GetCurve(acc.kind); // throws if the profile lacks the kind
    }
    if (!IsNonNegativeFinite(load.lockAccessesPerPacket))
    {
        std::ostringstream os;
        os << "Cora program load: lockAccessesPerPacket " << load.lockAccessesPerPacket
           << " must be finite and >= 0";
        throw PrestoInputError(os.str());
    }
    if (load.distinctLocks == 0 && load.lockAccessesPerPacket > 0)
    {
        throw PrestoInputError("Cora program load: lockAccessesPerPacket > 0 but "
                               "distinctLocks is 0");
    }
}

double
CoraPerfModel::LockFreeMpps(const CoraProgramLoad& load) const
{
    // Sum the counts per kind (a load may list a kind twice), adding the lock-word accesses.
    std::map<CoraAccessKind, double> counts;
    for (const auto& acc : load.accesses)
    {
        counts[acc.kind] += acc.perPacket;
    }
    if (load.lockAccessesPerPacket > 0)
    {
        counts[CoraAccessKind{CoraMemoryType::IMEM,
                              CoraMemoryOp::WRITE,
                              CoraAccessMode::ATOMIC,
                              4}] += load.lockAccessesPerPacket;
    }

    // Bottleneck groups. Local memories: one engine per (type, mode); EMEM: one group.
    std::map<std::pair<CoraMemoryType, int>, std::vector<std::pair<CoraAccessKind, double>>> groups;
    for (const auto& kc : counts)
    {
        if (kc.second <= 0)
        {
            continue;
        }
        const auto& kind = kc.first;
        int engine = (kind.memory == CoraMemoryType::EMEM) ? 0 : static_cast<int>(kind.mode) + 1;
        groups[{kind.memory, engine}].push_back(kc);
    }

    // Stateless work runs on the cores, a resource no memory engine shares: min.
    double rate = CurveMpps(m_profile.GetStatelessCurve(), load.statelessInstructions);
    for (const auto& g : groups)
    {
        // Weighted harmonic mean of the kinds' rates at the group's total intensity I:
        // T = 1 / sum_k (i_k / I) / T_k(I). Evaluating every T_k at I (not at its own i_k)
        // counts the fixed per-packet time a once, and reduces to T_k(i_k) for one kind.
        double total = 0;
        for (const auto& kc : g.second)
        {
            total += kc.second;
        }
        double inv = 0;
        for (const auto& kc : g.second)
        {
            inv += (kc.second / total) / CurveMpps(m_profile.GetCurve(kc.first), total);
        }
        rate = std::min(rate, 1.0 / inv);
    }
    return rate;
}

double
CoraPerfModel::PredictLockFreePps(const CoraProgramLoad& load) const
{
    Validate(load);
    return LockFreeMpps(load) * 1e6;
}

double
CoraPerfModel::PredictPerLockPps(const CoraProgramLoad& load) const
{
    Validate(load);
    if (load.distinctLocks == 0)
    {
        throw PrestoInputError("Cora program load: PredictPerLockPps needs distinctLocks > 0");
    }
    return LockFreeMpps(load) / m_profile.GetLockSerialization() * 1e6;
}

double
CoraPerfModel::PredictPps(const CoraProgramLoad& load) const
{
    Validate(load);
    const double lockFree = LockFreeMpps(load);
    if (load.distinctLocks == 0)
    {
        return lockFree * 1e6;
    }
    // Distinct locks do not contend with one another: their rates add up, until the program's
    // lock-free rate bounds them.
    const double perLock = lockFree / m_profile.GetLockSerialization();
    return std::min(perLock * load.distinctLocks, lockFree) * 1e6;
}

} // namespace ns3
