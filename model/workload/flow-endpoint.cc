/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "flow-endpoint.h"

#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/presto-input-error.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowEndpoint");
NS_OBJECT_ENSURE_REGISTERED(FlowEndpoint);

TypeId
FlowEndpoint::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FlowEndpoint")
            .SetParent<Object>()
            .SetGroupName("Presto")
            .AddAttribute("VerifyPayload",
                          "Send every flow's bytes as a known pattern and compare each byte the "
                          "receiver reads (exactly once, in order, unaltered). False: packets "
                          "carry zero-filled virtual payload of the right size and delivery is "
                          "checked by counting (every byte once, nothing beyond the size)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&FlowEndpoint::m_verifyPayload),
                          MakeBooleanChecker())
            .AddTraceSource("FlowStart",
                            "A flow was handed to the transport",
                            MakeTraceSourceAccessor(&FlowEndpoint::m_flowStartTrace),
                            "ns3::FlowEndpoint::FlowTracedCallback")
            .AddTraceSource("FlowFinish",
                            "A flow's last byte reached the receiving application, verified",
                            MakeTraceSourceAccessor(&FlowEndpoint::m_flowFinishTrace),
                            "ns3::FlowEndpoint::FlowTracedCallback");
    return tid;
}

FlowEndpoint::FlowEndpoint()
{
    NS_LOG_FUNCTION(this);
}

FlowEndpoint::~FlowEndpoint()
{
    NS_LOG_FUNCTION(this);
}

void
FlowEndpoint::DoDispose()
{
    m_flows.clear();
    m_finishedCallback = MakeNullCallback<void, uint32_t>();
    Object::DoDispose();
}

void
FlowEndpoint::StartFlow(const FlowSpec& flow)
{
    NS_LOG_FUNCTION(this << flow.id << flow.src << flow.dst << flow.sizeBytes);
    auto inserted =
        m_flows.emplace(flow.id, FlowState{flow, PayloadVerifier(flow.id, flow.sizeBytes), false});
    if (!inserted.second)
    {
        throw PrestoInputError("flow id " + std::to_string(flow.id) + " started twice");
    }
    m_flowStartTrace(flow.id, flow.sizeBytes);
    DoStartFlow(flow);
}

void
FlowEndpoint::Deliver(uint32_t flowId, Ptr<const Packet> data)
{
    const uint32_t len = data->GetSize();
    if (!m_verifyPayload)
    {
        Take(flowId, len, nullptr);
        return;
    }
    if (m_scratch.size() < len)
    {
        m_scratch.resize(len);
    }
    data->CopyData(m_scratch.data(), len);
    Take(flowId, len, m_scratch.data());
}

void
FlowEndpoint::DeliverBytes(uint32_t flowId, uint32_t bytes)
{
    NS_ABORT_MSG_IF(m_verifyPayload,
                    "flow " << flowId << ": DeliverBytes while VerifyPayload is on (no bytes)");
    Take(flowId, bytes, nullptr);
}

void
FlowEndpoint::Take(uint32_t flowId, uint32_t len, const uint8_t* bytes)
{
    auto it = m_flows.find(flowId);
    NS_ABORT_MSG_IF(it == m_flows.end(), "delivery for unknown flow " << flowId);
    FlowState& st = it->second;
    uint64_t corruptBefore = st.verifier.GetCorrupt();
    uint64_t excessBefore = st.verifier.GetExcess();
    uint64_t deliveredBefore = st.verifier.GetDelivered();
    if (bytes)
    {
        st.verifier.Deliver(bytes, len);
    }
    else
    {
        st.verifier.Count(len);
    }
    m_corrupt += st.verifier.GetCorrupt() - corruptBefore;
    m_excess += st.verifier.GetExcess() - excessBefore;
    m_delivered += st.verifier.GetDelivered() - deliveredBefore;
    if (m_corrupt != 0 || m_excess != 0)
    {
        NS_LOG_WARN("flow " << flowId << ": corrupt or excess bytes delivered");
    }
    if (!st.finished && st.verifier.IsComplete())
    {
        st.finished = true;
        ++m_finishedCount;
        m_flowFinishTrace(flowId, st.spec.sizeBytes);
        if (!m_finishedCallback.IsNull())
        {
            m_finishedCallback(flowId);
        }
    }
}

const FlowSpec&
FlowEndpoint::GetFlow(uint32_t flowId) const
{
    auto it = m_flows.find(flowId);
    NS_ABORT_MSG_IF(it == m_flows.end(), "unknown flow " << flowId);
    return it->second.spec;
}

void
FlowEndpoint::AddReport(nlohmann::json& doc) const
{
    doc["delivery"] = {{"flows_started", m_flows.size()},
                       {"flows_finished", m_finishedCount},
                       {"bytes_delivered", m_delivered},
                       {"corrupt_bytes", m_corrupt},
                       {"excess_bytes", m_excess}};
}

int64_t
FlowEndpoint::GetRetxBytes(uint32_t flowId) const
{
    return -1;
}

int64_t
FlowEndpoint::GetTimeouts(uint32_t flowId) const
{
    return -1;
}

int32_t
FlowEndpoint::GetSourcePort(uint32_t flowId) const
{
    return -1;
}

void
FlowEndpoint::SetFlowFinishedCallback(Callback<void, uint32_t> cb)
{
    m_finishedCallback = cb;
}

uint64_t
FlowEndpoint::GetCorruptBytes() const
{
    return m_corrupt;
}

uint64_t
FlowEndpoint::GetExcessBytes() const
{
    return m_excess;
}

uint64_t
FlowEndpoint::GetDeliveredBytes() const
{
    return m_delivered;
}

uint64_t
FlowEndpoint::GetFlowsStarted() const
{
    return m_flows.size();
}

uint64_t
FlowEndpoint::GetFlowsFinished() const
{
    return m_finishedCount;
}

} // namespace ns3
