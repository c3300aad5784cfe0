/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FLEXTOE_EXTENSION_H
#define PRESTO_FLEXTOE_EXTENSION_H

#include "flextoe-pipeline.h"
#include "flextoe-profile.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief Where an extension module runs in the FlexTOE pipeline (XDP-like hook points).
 */
enum class FlexToeHook : uint8_t
{
    INGRESS,     //!< before header validation; runs on (and is charged to) pre-processing
    AFTER_PRE,   //!< after flow lookup; charged to pre-processing
    PROTOCOL,    //!< inside the flow group's protocol core (serialised per flow group)
    BEFORE_POST, //!< before ACK/descriptor generation; charged to post-processing
};

/// \param h a hook \return the stage whose cores run modules at that hook
FlexToeStage FlexToeHookStage(FlexToeHook h);

/// \param h a hook \return its name ("ingress", "after-pre", "protocol", "before-post")
const char* FlexToeHookName(FlexToeHook h);

/// TCP flag bits, as in the TCP header.
namespace FlexToeTcpFlags
{
constexpr uint8_t FIN = 0x01; //!< FIN
constexpr uint8_t SYN = 0x02; //!< SYN
constexpr uint8_t RST = 0x04; //!< RST
constexpr uint8_t PSH = 0x08; //!< PSH
constexpr uint8_t ACK = 0x10; //!< ACK
constexpr uint8_t URG = 0x20; //!< URG
constexpr uint8_t ECE = 0x40; //!< ECE
constexpr uint8_t CWR = 0x80; //!< CWR
} // namespace FlexToeTcpFlags

/**
 * \ingroup presto
 * \brief The part of a packet an extension module sees (an XDP context, reduced).
 */
struct FlexToePacketView
{
    uint32_t srcIp{0};        //!< IPv4 source address (host order)
    uint32_t dstIp{0};        //!< IPv4 destination address (host order)
    uint16_t srcPort{0};      //!< source port
    uint16_t dstPort{0};      //!< destination port
    uint8_t protocol{6};      //!< IP protocol number (6 = TCP)
    bool vlanPresent{false};  //!< an 802.1Q tag is present
    uint16_t vlanId{0};       //!< its VLAN id (12 bits) if present
    uint8_t tcpFlags{0};      //!< TCP flags (FlexToeTcpFlags)
    uint32_t payloadBytes{0}; //!< TCP payload length
    uint32_t seq{0};          //!< TCP sequence number
    bool received{false};     //!< arriving from the wire (else leaving)
};

/**
 * \ingroup presto
 * \brief What an extension module decided about a packet.
 */
enum class FlexToeVerdict : uint8_t
{
    PASS,     //!< continue unchanged
    DROP,     //!< drop the packet here
    MODIFIED, //!< continue; the module changed the packet view
};

/**
 * \ingroup presto
 * \brief An extension module (a C or eBPF/XDP program in FlexTOE) at one hook point.
 *
 * A module has a name, a hook and a per-packet cost in cycles, charged to the stage that
 * runs the hook; Run() returns a verdict and may change the packet view.
 */
class FlexToeExtension
{
  public:
    /**
     * \param name module name (reports, messages)
     * \param hook where it runs
     * \param cyclesPerPacket cycles it costs per packet (>= 0)
     * \throw PrestoInputError if the cost is negative or not finite or the name empty
     */
    FlexToeExtension(std::string name, FlexToeHook hook, double cyclesPerPacket);
    virtual ~FlexToeExtension() = default;
    FlexToeExtension(const FlexToeExtension&) = delete;
    FlexToeExtension& operator=(const FlexToeExtension&) = delete;

    /**
     * \brief Inspect (and possibly change) one packet.
     * \param pkt the packet view
     * \return the verdict
     */
    virtual FlexToeVerdict Run(FlexToePacketView& pkt) = 0;

    /** \return the module's name */
    const std::string& GetName() const;
    /** \return its hook point */
    FlexToeHook GetHook() const;
    /** \return its cost per packet, cycles */
    double GetCyclesPerPacket() const;

    /**
     * \return cycles the last Run() cost beyond GetCyclesPerPacket() (data-dependent work,
     *         e.g. firewall rules scanned); 0 by default
     */
    virtual double GetLastExtraCycles() const
    {
        return 0;
    }

    /** \return packets it saw */
    uint64_t GetSeen() const;
    /** \return packets it dropped */
    uint64_t GetDropped() const;
    /** \return packets it modified */
    uint64_t GetModified() const;

  private:
    friend class FlexToeExtensionChain;
    std::string m_name;     //!< name
    FlexToeHook m_hook;     //!< hook point
    double m_cycles;        //!< cycles per packet
    uint64_t m_seen{0};     //!< packets seen
    uint64_t m_dropped{0};  //!< packets dropped
    uint64_t m_modified{0}; //!< packets modified
};

/**
 * \ingroup presto
 * \brief Packet filter / firewall: ordered 5-tuple rules with masks and port ranges; the
 * first matching rule decides (drop or allow); packets matching no rule get the default
 * action (allow unless SetDefaultDrop(true)).
 */
class FlexToeFirewall : public FlexToeExtension
{
  public:
    /// One rule. Zero masks and full port ranges match anything.
    struct Rule
    {
        uint32_t srcIp{0};         //!< source address (compared under srcMask)
        uint32_t srcMask{0};       //!< source mask (0: any)
        uint32_t dstIp{0};         //!< destination address (compared under dstMask)
        uint32_t dstMask{0};       //!< destination mask (0: any)
        uint16_t srcPortLo{0};     //!< lowest matching source port
        uint16_t srcPortHi{65535}; //!< highest matching source port
        uint16_t dstPortLo{0};     //!< lowest matching destination port
        uint16_t dstPortHi{65535}; //!< highest matching destination port
        uint8_t protocol{0};       //!< IP protocol (0: any)
        bool drop{true};           //!< action: drop (true) or allow (false)
    };

    /**
     * \param hook where it runs (default: right after pre-processing)
     * \param cyclesPerPacket base cost per packet
     * \param cyclesPerRule extra cost per rule evaluated (linear scan)
     */
    explicit FlexToeFirewall(FlexToeHook hook = FlexToeHook::AFTER_PRE,
                             double cyclesPerPacket = 20,
                             double cyclesPerRule = 4);

    /**
     * \param r a rule, appended after the existing ones
     * \throw PrestoInputError if a port range is inverted
     */
    void AddRule(const Rule& r);

    /**
     * \brief Add a rule from text, e.g. "drop tcp src 10.0.0.0/8 dst any sport any dport
     * 80-90". Fields: action (drop|allow), protocol (tcp|udp|any|number), then optional
     * "src A/len", "dst A/len" (or "any"), "sport P|P-Q|any", "dport ...".
     * \param text the rule \param where context for error messages (file:line, option)
     * \throw PrestoInputError naming where and the bad token
     */
    void AddRule(const std::string& text, const std::string& where = "firewall rule");

    /** \param drop true: packets matching no rule are dropped */
    void SetDefaultDrop(bool drop);

    /** \return the rules in order */
    const std::vector<Rule>& GetRules() const;

    /** \return rules evaluated by the last Run() x cycles per rule */
    double GetLastExtraCycles() const override;

    FlexToeVerdict Run(FlexToePacketView& pkt) override;

  private:
    std::vector<Rule> m_rules;  //!< rules, first match wins
    bool m_defaultDrop{false};  //!< action when nothing matches
    double m_cyclesPerRule;     //!< cost per rule evaluated
    double m_lastRuleCycles{0}; //!< rule cycles of the last packet
};

/**
 * \ingroup presto
 * \brief VLAN stripping: removes an 802.1Q tag if present and counts the stripped packets.
 */
class FlexToeVlanStrip : public FlexToeExtension
{
  public:
    /**
     * \param hook where it runs (default: ingress)
     * \param cyclesPerPacket cost per packet
     */
    explicit FlexToeVlanStrip(FlexToeHook hook = FlexToeHook::INGRESS, double cyclesPerPacket = 10);

    FlexToeVerdict Run(FlexToePacketView& pkt) override;

    /** \return packets whose tag was removed */
    uint64_t GetStripped() const;

  private:
    uint64_t m_stripped{0}; //!< tags removed
};

/**
 * \ingroup presto
 * \brief RPC steering, the co-design's RPC-processing stage: it stands for reading the RPC
 * framing of every arriving segment with payload and placing each request in a host worker
 * core's queue (RpcEndpoint's Steering=Nic makes that choice in the simulation). It charges
 * its cycles on those segments (clients' responses included); it never drops or modifies.
 */
class FlexToeRpcSteer : public FlexToeExtension
{
  public:
    /**
     * \param cyclesPerSegment cycles per arriving segment with payload (>= 0)
     * \param hook where it runs (default: before post-processing, after the transport)
     */
    explicit FlexToeRpcSteer(double cyclesPerSegment, FlexToeHook hook = FlexToeHook::BEFORE_POST);

    FlexToeVerdict Run(FlexToePacketView& pkt) override;
    /** \return the cost of the last Run(): cyclesPerSegment on a steered segment, else 0 */
    double GetLastExtraCycles() const override;

    /** \return segments steered */
    uint64_t GetSteered() const;

  private:
    double m_cyclesPerSegment; //!< per steered segment
    double m_last{0};          //!< cost of the last Run()
    uint64_t m_steered{0};     //!< segments steered
};

/**
 * \ingroup presto
 * \brief TCP tracing: per-connection counters (segments, payload bytes, flags seen,
 * first/last sequence number). Never drops or modifies.
 */
class FlexToeTcpTrace : public FlexToeExtension
{
  public:
    /// A connection as seen on the wire (direction matters).
    struct Key
    {
        uint32_t srcIp{0};   //!< source address
        uint32_t dstIp{0};   //!< destination address
        uint16_t srcPort{0}; //!< source port
        uint16_t dstPort{0}; //!< destination port

        /// \param o other key \return true if equal
        bool operator==(const Key& o) const
        {
            return srcIp == o.srcIp && dstIp == o.dstIp && srcPort == o.srcPort &&
                   dstPort == o.dstPort;
        }
    };

    /// Counters of one connection.
    struct Counters
    {
        uint64_t segments{0}; //!< TCP segments
        uint64_t bytes{0};    //!< payload bytes
        uint64_t syn{0};      //!< segments with SYN
        uint64_t fin{0};      //!< segments with FIN
        uint64_t rst{0};      //!< segments with RST
        uint64_t ack{0};      //!< segments with ACK
        uint64_t psh{0};      //!< segments with PSH
        uint64_t ece{0};      //!< segments with ECE
        uint64_t cwr{0};      //!< segments with CWR
        uint8_t flagsSeen{0}; //!< OR of all flags seen
        uint32_t firstSeq{0}; //!< sequence number of the first segment
        uint32_t lastSeq{0};  //!< sequence number of the latest segment
    };

    /**
     * \param hook where it runs (default: after pre-processing)
     * \param cyclesPerPacket cost per packet
     * \param maxConnections connections tracked; further new ones are counted as untracked
     */
    explicit FlexToeTcpTrace(FlexToeHook hook = FlexToeHook::AFTER_PRE,
                             double cyclesPerPacket = 30,
                             std::size_t maxConnections = 65536);

    FlexToeVerdict Run(FlexToePacketView& pkt) override;

    /**
     * \param k a connection
     * \return its counters, or nullptr if never seen
     */
    const Counters* Get(const Key& k) const;

    /** \return connections tracked */
    std::size_t GetConnectionCount() const;

    /** \return segments of connections that did not fit in the table */
    uint64_t GetUntracked() const;

    /** \return segments seen, tracked or not (the sum over all connections) */
    uint64_t GetTotalSegments() const;

  private:
    /// Hash of a Key.
    struct KeyHash
    {
        /// \param k key \return hash
        std::size_t operator()(const Key& k) const;
    };

    std::unordered_map<Key, Counters, KeyHash> m_conns; //!< per-connection counters
    std::size_t m_maxConnections;                       //!< table size
    uint64_t m_untracked{0};                            //!< segments not tracked
};

/**
 * \ingroup presto
 * \brief Extension modules in pipeline order: by hook point, then in the order added.
 */
class FlexToeExtensionChain
{
  public:
    /// What the chain decided for one packet.
    struct Outcome
    {
        FlexToeVerdict verdict{FlexToeVerdict::PASS}; //!< DROP, MODIFIED (any module) or PASS
        FlexToeStageCycles cycles{};                  //!< cycles charged per stage
        std::size_t dropStage{FLEXTOE_STAGES};      //!< stage index of the drop, or FLEXTOE_STAGES
        const FlexToeExtension* droppedBy{nullptr}; //!< module that dropped it
    };

    /**
     * \param ext a module, run after the modules already at its hook
     * \throw PrestoInputError if ext is null
     */
    void Add(std::shared_ptr<FlexToeExtension> ext);

    /**
     * \brief Run the modules on one packet in order; stop at the first drop.
     * \param pkt the packet view (modules may change it)
     * \return verdict, per-stage cycles and where it was dropped
     */
    Outcome Run(FlexToePacketView& pkt);

    /**
     * \brief Run the chain and then the packet through the pipeline with the chain's cost.
     * \param pipeline the execution model
     * \param nowNs entry time, ns \param flowHash flow hash \param pkt the packet view
     * \return the pipeline's result (reason EXTENSION if a module dropped it)
     */
    FlexToeResult Process(FlexToePipeline& pipeline,
                          uint64_t nowNs,
                          uint32_t flowHash,
                          FlexToePacketView& pkt);

    /** \return the modules in run order */
    const std::vector<std::shared_ptr<FlexToeExtension>>& GetModules() const;

  private:
    std::vector<std::shared_ptr<FlexToeExtension>> m_modules; //!< in run order
};

} // namespace ns3

#endif // PRESTO_FLEXTOE_EXTENSION_H
