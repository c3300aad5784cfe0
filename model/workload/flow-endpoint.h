/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_FLOW_ENDPOINT_H
#define PRESTO_FLOW_ENDPOINT_H

#include "flow-spec.h"
#include "payload-pattern.h"

#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"
#include "ns3/wire-model.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The transport seen by the experiment: start a flow, learn when its last byte reached
 * the receiving application.
 *
 * Every endpoint (ns-3's TCP on the host, the offload NICs) derives from this class, so the
 * experiment, the FCT recorder and the delivery check are the same for all. The subclass
 * moves the bytes; the base class owns the per-flow bookkeeping: it verifies every byte the
 * receiving application reads against the flow's payload pattern (exactly once, in order,
 * unaltered) and declares the flow finished when all of it arrived.
 */
class FlowEndpoint : public Object
{
  public:
    /** \brief Get the type ID. \return the object TypeId */
    static TypeId GetTypeId();
    FlowEndpoint();
    ~FlowEndpoint() override;

    /**
     * \brief Set the endpoint up on the fabric's hosts, before the first flow starts.
     * \param hosts host nodes by host index
     * \param addresses their IPv4 addresses, same order
     */
    virtual void Install(const NodeContainer& hosts, const std::vector<Ipv4Address>& addresses) = 0;

    /**
     * \brief Hand a flow to the transport now (the FCT clock starts here).
     * \param flow the flow; its id must be new
     */
    void StartFlow(const FlowSpec& flow);

    /** \return how this transport frames data on the wire (for the ideal FCT) */
    virtual WireModel GetWireModel() const = 0;

    /** \return a short name ("host-tcp", "presto", ...) */
    virtual std::string GetName() const = 0;

    /**
     * \brief Add this endpoint's sections to summary.json. The base adds "delivery"
     * ("flows_started", "flows_finished", "bytes_delivered", "corrupt_bytes", "excess_bytes");
     * subclasses add "nic", "host_cpu" and call the base.
     * \param doc the summary object
     */
    virtual void AddReport(nlohmann::json& doc) const;

    /**
     * \param flowId a started flow
     * \return bytes the sender retransmitted, or -1 where the transport does not know
     */
    virtual int64_t GetRetxBytes(uint32_t flowId) const;

    /**
     * \param flowId a started flow
     * \return retransmission timeouts of the flow's sender, or -1 where the transport does
     * not know
     */
    virtual int64_t GetTimeouts(uint32_t flowId) const;

    /**
     * \param flowId a started flow
     * \return the sender's local (source) port, or -1 where the transport does not know
     */
    virtual int32_t GetSourcePort(uint32_t flowId) const;

    /**
     * \brief Called when a flow's last byte reached the receiving application.
     * \param cb receives the flow id
     */
    void SetFlowFinishedCallback(Callback<void, uint32_t> cb);

    /** \return bytes that differed from the payload pattern, over all flows */
    uint64_t GetCorruptBytes() const;
    /** \return bytes delivered beyond flows' sizes, over all flows */
    uint64_t GetExcessBytes() const;
    /** \return bytes delivered to receiving applications, over all flows */
    uint64_t GetDeliveredBytes() const;
    /** \return flows started */
    uint64_t GetFlowsStarted() const;
    /** \return flows whose bytes all arrived, verified */
    uint64_t GetFlowsFinished() const;

    /**
     * TracedCallback signature for flow events.
     * \param flowId the flow
     * \param sizeBytes its size
     */
    typedef void (*FlowTracedCallback)(uint32_t flowId, uint64_t sizeBytes);

  protected:
    void DoDispose() override;

    /**
     * \brief Start moving a flow's bytes (StartFlow already recorded it).
     * \param flow the flow
     */
    virtual void DoStartFlow(const FlowSpec& flow) = 0;

    /**
     * \brief The receiving application read these bytes of a flow, in this order. Verifies
     * them and finishes the flow when complete.
     * \param flowId the flow
     * \param data the bytes read
     */
    void Deliver(uint32_t flowId, Ptr<const Packet> data);

    /**
     * \brief Deliver without a packet: the application read this many bytes of a flow, in
     * order. Only without VerifyPayload (there are no bytes to compare): counted as Deliver
     * counts a zero-filled packet's.
     * \param flowId the flow
     * \param bytes how many
     */
    void DeliverBytes(uint32_t flowId, uint32_t bytes);

    /**
     * \param flowId a started flow
     * \return its spec
     */
    const FlowSpec& GetFlow(uint32_t flowId) const;

    /** \return true when payload bytes are sent as a pattern and compared (VerifyPayload) */
    bool IsVerifyingPayload() const
    {
        return m_verifyPayload;
    }

  private:
    /** Per-flow bookkeeping. */
    struct FlowState
    {
        FlowSpec spec;            //!< the flow
        PayloadVerifier verifier; //!< checks the received bytes
        bool finished;            //!< all bytes arrived
    };

    /**
     * Deliver's and DeliverBytes' work: verify (or only count, when bytes is null) and
     * finish the flow when complete.
     * \param flowId the flow \param len how many bytes \param bytes them, or null
     */
    void Take(uint32_t flowId, uint32_t len, const uint8_t* bytes);

    std::unordered_map<uint32_t, FlowState> m_flows;      //!< by flow id
    Callback<void, uint32_t> m_finishedCallback;          //!< to the experiment
    uint64_t m_finishedCount{0};                          //!< flows finished
    uint64_t m_corrupt{0};                                //!< total corrupt bytes
    uint64_t m_excess{0};                                 //!< total excess bytes
    uint64_t m_delivered{0};                              //!< total delivered bytes
    std::vector<uint8_t> m_scratch;                       //!< copy buffer for Deliver
    bool m_verifyPayload{true};                           //!< attribute VerifyPayload
    TracedCallback<uint32_t, uint64_t> m_flowStartTrace;  //!< a flow was handed over
    TracedCallback<uint32_t, uint64_t> m_flowFinishTrace; //!< a flow's last byte arrived
};

} // namespace ns3

#endif // PRESTO_FLOW_ENDPOINT_H
