/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PRESTO_CLASSIFIER_H
#define PRESTO_PRESTO_CLASSIFIER_H

#include "ns3/rmt-phv.h"
#include "ns3/rmt-pipeline.h"

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The fields a PrestoClassifier looks at: the IPv4 5-tuple and the DSCP.
 *
 * Addresses are host-order 32-bit values (Ipv4Address::Get() gives them).
 */
struct PrestoFlowKey
{
    uint32_t src{0};     //!< IPv4 source address
    uint32_t dst{0};     //!< IPv4 destination address
    uint8_t protocol{0}; //!< IP protocol (6 = TCP, 17 = UDP)
    uint16_t srcPort{0}; //!< transport source port
    uint16_t dstPort{0}; //!< transport destination port
    uint8_t dscp{0};     //!< DSCP, 0..63
};

/**
 * \ingroup presto
 * \brief One classification rule: masked addresses, an optional protocol, port ranges, an
 * optional DSCP, a priority and the class it selects. The defaults match everything.
 */
struct PrestoClassRule
{
    int32_t priority{0};       //!< higher wins among overlapping rules
    uint32_t classIndex{0};    //!< the class (pipeline configuration) selected
    uint32_t src{0};           //!< source address (bits outside srcMask must be 0)
    uint32_t srcMask{0};       //!< source mask (0: any)
    uint32_t dst{0};           //!< destination address (bits outside dstMask must be 0)
    uint32_t dstMask{0};       //!< destination mask (0: any)
    bool anyProtocol{true};    //!< protocol is a wildcard
    uint8_t protocol{0};       //!< protocol, when not a wildcard
    uint16_t srcPortLo{0};     //!< source port range, low end
    uint16_t srcPortHi{65535}; //!< source port range, high end (inclusive)
    uint16_t dstPortLo{0};     //!< destination port range, low end
    uint16_t dstPortHi{65535}; //!< destination port range, high end (inclusive)
    bool anyDscp{true};        //!< DSCP is a wildcard
    uint8_t dscp{0};           //!< DSCP, when not a wildcard (0..63)
    std::string origin;        //!< where the rule came from ("file:line"), for messages
};

/**
 * \ingroup presto
 * \brief Maps a flow to a class index — which Presto pipeline configuration (reassembly
 * fidelity) serves it — with a ternary/range match-action table in front of the pipelines,
 * as the Presto authors suggest for per-class fidelity.
 *
 * The table (one stage of an RmtPipeline) has the keys src (ternary), dst (ternary), protocol
 * (ternary), sport (range), dport (range) and dscp (ternary); each rule is one entry whose
 * action writes its class; a miss runs the default action, which writes the default class.
 * The highest priority wins; among equal priorities the rule added first wins.
 *
 * **Rule text.** One rule per line; `#` starts a comment; blank lines are ignored:
 * \code
 *   # priority class key=value ...       (keys in any order, each at most once)
 *   100 2 src=10.0.0.0/8 dst=any proto=tcp sport=any dport=5000-5100 dscp=46
 *   10  1 dst=10.1.2.3
 *   default 0
 * \endcode
 * Keys: `src`, `dst` (`any`, `a.b.c.d` or `a.b.c.d/len`, no host bits beyond the prefix),
 * `proto` (`any`, `tcp`, `udp`, `icmp` or 0..255), `sport`, `dport` (`any`, `N` or `N-M`,
 * 0..65535), `dscp` (`any` or 0..63). A key left out matches anything. `default C` sets the
 * default class. Every error throws PrestoInputError naming the source and the line, quoting
 * at most 80 characters of the bad input; a line longer than INPUT_LINE_MAX (4096)
 * characters is refused. A rules file is read through ReadInputText (at most 16 MiB; read
 * once per InputFileScope, a pipe such as `/dev/stdin` once per process).
 *
 * Classification allocates nothing: one PHV and one execution record are reused.
 */
class PrestoClassifier
{
  public:
    /**
     * \param classCount number of classes (pipeline configurations); class indices are
     * 0..classCount-1 (>= 1)
     * \param defaultClass class of a flow no rule matches (< classCount)
     * \param capacity rules the table holds (>= 1)
     */
    PrestoClassifier(uint32_t classCount, uint32_t defaultClass = 0, uint32_t capacity = 256);
    ~PrestoClassifier();

    PrestoClassifier(const PrestoClassifier&) = delete;
    PrestoClassifier& operator=(const PrestoClassifier&) = delete;

    /**
     * \brief Install a rule. Throws PrestoInputError (naming rule.origin when set) on a class
     * out of range, a reversed port range, a DSCP above 63, a mask that is not a prefix,
     * address bits outside the mask, a full table, or a rule with the same key and priority as an
     * installed one. \param rule the rule \return the rule's index (order of installation)
     */
    uint32_t AddRule(const PrestoClassRule& rule);

    /**
     * \brief Parse one rule line (not `default`, blank or comment).
     * \param line the text
     * \param origin where it comes from, for messages (e.g. "rules.txt:3")
     * \return the rule
     */
    static PrestoClassRule ParseRule(const std::string& line, const std::string& origin);

    /**
     * \brief Install every rule of a text (and apply its `default` line).
     * \param in the text
     * \param sourceName its name in messages (a file name)
     * \return the number of rules installed
     */
    uint32_t LoadRules(std::istream& in, const std::string& sourceName);

    /**
     * \brief Install every rule of a file.
     * \param path the file; throws PrestoInputError if it cannot be read
     * \return the number of rules installed
     */
    uint32_t LoadRulesFromFile(const std::string& path);

    /**
     * \brief Classify a flow (one packet through the classifier's pipeline).
     * \param key the flow's fields
     * \return its class index
     */
    uint32_t Classify(const PrestoFlowKey& key);

    /**
     * \brief Classify and tell which rule decided.
     * \param key the flow's fields
     * \param rule set to the rule index, or -1 when the default class was used
     * \return its class index
     */
    uint32_t Classify(const PrestoFlowKey& key, int64_t& rule);

    /** \param defaultClass class of unmatched flows (< class count) */
    void SetDefaultClass(uint32_t defaultClass);
    /** \return the class of unmatched flows */
    uint32_t GetDefaultClass() const;
    /** \return the number of classes */
    uint32_t GetClassCount() const;
    /** \return the number of installed rules */
    uint32_t GetRuleCount() const;
    /** \param i a rule index \return the rule */
    const PrestoClassRule& GetRule(uint32_t i) const;
    /** \param i a rule index \return how many classified flows it matched */
    uint64_t GetRuleHits(uint32_t i) const;
    /** \return the resource report of the classifier's pipeline */
    RmtResourceReport GetResourceReport() const;

    /**
     * \param rule a rule
     * \return its text form, which ParseRule reads back to the same rule
     */
    static std::string RuleToString(const PrestoClassRule& rule);

  private:
    uint32_t m_classCount;                 //!< classes
    uint32_t m_defaultClass;               //!< class on a miss
    std::unique_ptr<RmtPipeline> m_pipe;   //!< one stage, one table
    RmtTable* m_table{};                   //!< the rule table
    RmtActionId m_setClass{0};             //!< action writing the class
    RmtFieldId m_src{};                    //!< PHV: ipv4.src
    RmtFieldId m_dst{};                    //!< PHV: ipv4.dst
    RmtFieldId m_proto{};                  //!< PHV: ipv4.proto
    RmtFieldId m_sport{};                  //!< PHV: l4.sport
    RmtFieldId m_dport{};                  //!< PHV: l4.dport
    RmtFieldId m_dscp{};                   //!< PHV: ipv4.dscp
    RmtFieldId m_class{};                  //!< PHV: meta.class (the result)
    RmtFieldId m_rule{};                   //!< PHV: meta.rule (matching rule + 1, 0: default)
    std::vector<PrestoClassRule> m_rules;  //!< installed rules
    std::vector<RmtEntryHandle> m_handles; //!< entry of each rule
    std::unique_ptr<RmtPhv> m_phv;         //!< reused PHV
    RmtExecution m_exec;                   //!< reused execution record
};

} // namespace ns3

#endif // PRESTO_PRESTO_CLASSIFIER_H
