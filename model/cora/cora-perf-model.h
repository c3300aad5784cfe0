/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_CORA_PERF_MODEL_H
#define PRESTO_CORA_PERF_MODEL_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Memory of a SoC SmartNIC that a state access can target.
 *
 * Names follow the Netronome NFP: CLS (cluster local scratch), CTM (cluster target memory),
 * IMEM (internal SRAM) and EMEM (external DRAM behind a cache). A profile for another NIC maps
 * its own memories onto these names (see CoraPerfProfile::BlueField()).
 */
enum class CoraMemoryType
{
    CLS,
    CTM,
    IMEM,
    EMEM
};

/// Read or write.
enum class CoraMemoryOp
{
    READ,
    WRITE
};

/// Atomic (engine-side read-modify-write) or bulk transfer.
enum class CoraAccessMode
{
    ATOMIC,
    BULK
};

/**
 * \ingroup presto
 * \brief One kind of state access: (memory type, operation, mode, width), the key of a curve.
 */
struct CoraAccessKind
{
    CoraMemoryType memory{CoraMemoryType::EMEM}; //!< targeted memory
    CoraMemoryOp op{CoraMemoryOp::READ};         //!< read or write
    CoraAccessMode mode{CoraAccessMode::BULK};   //!< atomic or bulk
    uint32_t widthBytes{4};                      //!< transfer size, bytes (4..128)

    /// \return a readable name such as "EMEM/read/bulk/4B", used in error messages
    std::string ToString() const;
    /// \param o other kind \return strict weak order, for use as a map key
    bool operator<(const CoraAccessKind& o) const;
    /// \param o other kind \return true when all four fields are equal
    bool operator==(const CoraAccessKind& o) const;
};

/// \param m memory type \return "CLS", "CTM", "IMEM" or "EMEM"
std::string ToString(CoraMemoryType m);

/**
 * \ingroup presto
 * \brief Parameters of the per-kind curve T(i) = 1 / (a + c * i * exp(-b / i)).
 *
 * T is the packet rate (Mpps) at intensity i (accesses per packet). a (us per packet) is the
 * fixed per-packet time, so 1/a is the rate with no access; c (us per access) is the inverse
 * of the peak access throughput, the slope of the bandwidth roof; b (accesses per packet) sets
 * where the queuing penalty exp(-b/i) lets the roof bite: below about b accesses per packet the
 * threads hide the latency, above it the engine queues.
 */
struct CoraCurveParams
{
    double a{0}; //!< fixed time per packet, microseconds (> 0)
    double b{0}; //!< queuing-penalty knee, accesses per packet (>= 0)
    double c{0}; //!< time per access at the roof, microseconds (>= 0)
};

/**
 * \ingroup presto
 * \brief A NIC's performance profile: one curve per access kind, stateless cost and locks.
 */
class CoraPerfProfile
{
  public:
    /// \param name profile name, used in error messages
    explicit CoraPerfProfile(std::string name = "custom");

    /**
     * \brief Set (or replace) the curve of one access kind.
     * \param kind the access kind (width must be 4..128 and a multiple of 4)
     * \param p curve parameters (a > 0, b >= 0, c >= 0, all finite)
     * \throws PrestoInputError on an invalid kind or parameters
     */
    void SetCurve(const CoraAccessKind& kind, const CoraCurveParams& p);
    /**
     * \param kind an access kind
     * \return its curve
     * \throws PrestoInputError if the profile has no curve for this kind
     */
    const CoraCurveParams& GetCurve(const CoraAccessKind& kind) const;
    /// \param kind an access kind \return true if the profile has a curve for it
    bool HasCurve(const CoraAccessKind& kind) const;

    /**
     * \brief Set the stateless-instruction curve (same form, i = instructions per packet).
     * \param p curve parameters
     * \throws PrestoInputError on invalid parameters
     */
    void SetStatelessCurve(const CoraCurveParams& p);
    /// \return the stateless-instruction curve
    const CoraCurveParams& GetStatelessCurve() const;

    /**
     * \brief Set the lock serialisation factor: lock-free rate / rate of one lock.
     *
     * A lock makes the threads that hold it run one at a time, so one lock gets the
     * single-threaded share of the lock-free rate (Cora's T_lock = T_lockfree / N_thread).
     * \param f factor (>= 1, finite)
     * \throws PrestoInputError if out of range
     */
    void SetLockSerialization(double f);
    /// \return the lock serialisation factor
    double GetLockSerialization() const;

    /// \return the profile name
    const std::string& GetName() const;

    /**
     * \brief Netronome Agilio (NFP-4000) profile calibrated to the figures of the Cora paper.
     *
     * Calibrated: a from 28 Mpps with no work; the stateless curve from 400 instructions ->
     * 20 Mpps; EMEM/read/bulk/4B from 10 accesses -> 15 Mpps; IMEM/write/atomic/4B (the lock
     * word) from the lock-free lock program -> 23.33 Mpps; the lock factor from one lock ->
     * 0.45 Mpps. Other kinds are scaled from these by stated (assumed) factors.
     * \return the profile
     */
    static CoraPerfProfile Netronome();
    /**
     * \brief NVIDIA BlueField-2 profile. All parameters are assumed, not measured.
     * \return the profile
     */
    static CoraPerfProfile BlueField();
    /**
     * \param name "netronome" or "bluefield"
     * \param where what is being set, for the message (an attribute or option name)
     * \return the profile
     * \throws PrestoInputError naming `where` and the valid names otherwise
     */
    static CoraPerfProfile ByName(const std::string& name, const std::string& where);

  private:
    std::string m_name;                                 //!< profile name
    std::map<CoraAccessKind, CoraCurveParams> m_curves; //!< per-kind curves
    CoraCurveParams m_stateless{1.0 / 28.0, 0.0, 0.0};  //!< stateless-instruction curve
    double m_lockSerialization{1.0};                    //!< lock-free / one-lock rate
};

/**
 * \ingroup presto
 * \brief Accesses of one kind in a program, per packet.
 */
struct CoraAccessCount
{
    CoraAccessKind kind; //!< access kind
    double perPacket{0}; //!< mean accesses per packet (>= 0; may be fractional)
};

/**
 * \ingroup presto
 * \brief What one packet of an offloaded program does on the NIC.
 */
struct CoraProgramLoad
{
    double statelessInstructions{0};       //!< stateless instructions per packet (>= 0)
    std::vector<CoraAccessCount> accesses; //!< state accesses per packet, by kind
    /**
     * Number of distinct locks the traffic spreads over (flows hashed to the same lock share
     * it). 0 means the program takes no lock.
     */
    uint32_t distinctLocks{0};
    /**
     * Lock-word accesses (acquire, release) per packet, counted as IMEM/write/atomic/4B
     * accesses in the lock-free rate. Must be 0 when distinctLocks is 0.
     */
    double lockAccessesPerPacket{0};
};

/**
 * \ingroup presto
 * \brief Cora's NIC performance model: attainable packet rate of an offloaded program.
 *
 * 1. Each access kind k with intensity i_k follows T_k(i) = 1 / (a + c i exp(-b/i)).
 * 2. Accesses that share a bottleneck (same memory engine = same memory type and mode; and all
 *    of EMEM, which sits behind one shared cache and bus) combine by the weighted harmonic mean
 *    of their rates, evaluated at the group's total intensity I: T = 1 / sum_k (i_k/I)/T_k(I).
 * 3. Groups with no shared bottleneck (distinct IMEM/CTM/CLS engines, the local memories versus
 *    EMEM, and the stateless cores versus the memories) combine by min.
 * 4. With L > 0 distinct locks, T = min(L * T_lockfree / F, T_lockfree), F the profile's lock
 *    serialisation factor.
 */
class CoraPerfModel
{
  public:
    /// \param profile the NIC profile (copied)
    explicit CoraPerfModel(CoraPerfProfile profile);

    /**
     * \param load per-packet program load
     * \return attainable packet rate, packets per second
     * \throws PrestoInputError on a negative or non-finite count, a kind missing from the
     *         profile, or lock accesses without locks
     */
    double PredictPps(const CoraProgramLoad& load) const;
    /**
     * \param load per-packet program load
     * \return attainable packet rate ignoring lock contention (the lock-free version), pps
     * \throws PrestoInputError as PredictPps
     */
    double PredictLockFreePps(const CoraProgramLoad& load) const;
    /**
     * \param load per-packet program load (distinctLocks > 0)
     * \return the rate one lock sustains (T_lock), pps; a flow aggregate mapped to one lock
     *         above this rate drops packets
     * \throws PrestoInputError as PredictPps, or if the load takes no lock
     */
    double PredictPerLockPps(const CoraProgramLoad& load) const;

    /**
     * \param p curve \param i intensity (>= 0) \return packet rate, Mpps (1/a at i = 0)
     */
    static double CurveMpps(const CoraCurveParams& p, double i);

    /// \return the profile
    const CoraPerfProfile& GetProfile() const;

  private:
    /// \param load load \return lock-free rate in Mpps, after validation
    double LockFreeMpps(const CoraProgramLoad& load) const;
    /// \param load load \throws PrestoInputError if invalid
    void Validate(const CoraProgramLoad& load) const;

    CoraPerfProfile m_profile; //!< NIC profile
};

} // namespace ns3

#endif // PRESTO_CORA_PERF_MODEL_H
