/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "experiment-options.h"

#include "ns3/attribute-default.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/input-file.h"
#include "ns3/nic-design.h"
#include "ns3/offload-net-device.h"
#include "ns3/offload-socket.h"
#include "ns3/offload-window-congestion.h"
#include "ns3/presto-dctcp-congestion.h"
#include "ns3/presto-input-error.h"
#include "ns3/presto-net-device.h"
#include "ns3/presto-rack-pipeline.h"
#include "ns3/spray-experiment.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-endpoint.h"
#include "ns3/uinteger.h"

#include <map>

namespace ns3
{

using namespace experiment;

namespace
{

/**
 * \brief An experiment option that stands for a device attribute: the option if given, else
 * the attribute's default; both given and different is an error (neither silently wins).
 * \param option the option name
 * \param value the option's value ("": not given)
 * \param tid the device TypeId
 * \param attribute the attribute name
 * \return the value to use
 */
std::string
ResolveOption(const std::string& option,
              const std::string& value,
              TypeId tid,
              const std::string& attribute)
{
    const auto [current, changed] = AttributeDefault(tid, attribute);
    if (value.empty())
    {
        return current;
    }
    if (changed && value != current)
    {
        throw PrestoInputError("--" + option + "=" + value + " and --" + tid.GetName() +
                               "::" + attribute + "=" + current + " disagree: give one of them");
    }
    return value;
}

/// An experiment option that stands for an attribute of the NIC designs that have it.
struct DesignOption
{
    const char* option;                        //!< the --option
    std::string SprayExperimentConfig::*field; //!< its value ("": not given)
    const char* attribute;                     //!< the device attribute it sets
};

/// \return whether \p tid (or a parent) has the attribute \p name
bool
HasAttribute(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info; // ns-3 <= 3.37 writes it unconditionally
    return tid.LookupAttributeByName(name, &info);
}

/// \return the experiment's design options: a design takes the ones whose attribute it has
const std::vector<DesignOption>&
DesignOptions()
{
    static const std::vector<DesignOption> options = {
        {"fidelity", &SprayExperimentConfig::fidelity, "ReassemblyFidelity"},
        {"classRules", &SprayExperimentConfig::classRules, "ClassifierRules"},
        {"coraStrategy", &SprayExperimentConfig::coraStrategy, "Strategy"},
        {"intervals", &SprayExperimentConfig::intervals, "IntervalPolicy"},
        {"prestoPlacement", &SprayExperimentConfig::prestoPlacement, "Placement"}};
    return options;
}

} // namespace

std::vector<std::string>
SprayExperiment::Devices()
{
    return NicDesign::Names();
}

std::vector<std::string>
SprayExperiment::CongestionControls()
{
    return {"dctcp", "dctcp-pipeline", "dctcp-rate", "dctcp-rate-tas", "newreno", "native"};
}

std::string
SprayExperiment::NativeCongestion(const std::string& device)
{
    // the baseline is ns-3's TcpDctcp; each design names its own (FlexTOE: rate-based DCTCP
    // from the host control loop, as TAS)
    if (device == NicDesign::HOST_TCP)
    {
        return "dctcp";
    }
    return DeviceFactory(device, OffloadDctcpCongestion::GetTypeId())
        .Create<OffloadNetDevice>()
        ->GetNativeCongestion();
}

TypeId
SprayExperiment::CongestionTypeId(const std::string& device, const std::string& cc)
{
    RequireOneOf("cc", cc, CongestionControls());
    const std::string name = cc == "native" ? NativeCongestion(device) : cc;
    if (device == NicDesign::HOST_TCP)
    {
        if (name == "dctcp")
        {
            return TypeId::LookupByName("ns3::TcpDctcp");
        }
        if (name == "newreno")
        {
            return TypeId::LookupByName("ns3::TcpNewReno");
        }
        throw PrestoInputError("--cc=" + cc +
                               " is not available for host-tcp: ns-3's TCP has no host control "
                               "loop for rate-based DCTCP (host-tcp runs dctcp or newreno)");
    }
    static const std::map<std::string, std::string> offload = {
        {"dctcp", "ns3::OffloadDctcpCongestion"},
        {"dctcp-pipeline", "ns3::PrestoDctcpCongestion"},
        {"dctcp-rate", "ns3::OffloadDctcpRateCongestion"},
        {"dctcp-rate-tas", "ns3::OffloadTasDctcpRateCongestion"},
        {"newreno", "ns3::OffloadNewRenoCongestion"}};
    const TypeId type = TypeId::LookupByName(offload.at(name));
    RequirePipelineFor(type, device, "--cc=" + name);
    return type;
}

void
SprayExperiment::RequirePipelineFor(TypeId cc, const std::string& device, const std::string& given)
{
    // DCTCP as a pipeline program runs on Presto's pipeline (and its subclasses') only
    const TypeId program = PrestoDctcpCongestion::GetTypeId();
    const TypeId presto = PrestoNetDevice::GetTypeId();
    const TypeId design = NicDesign::GetTypeId(device);
    if ((cc == program || cc.IsChildOf(program)) && design != presto && !design.IsChildOf(presto))
    {
        throw PrestoInputError(given +
                               " is DCTCP as a program on Presto's match-action pipeline; "
                               "--device=" +
                               device + " has no such pipeline (it runs dctcp)");
    }
}

TypeId
SprayExperiment::ResolveDevice(const std::string& device)
{
    const auto& c = m_config;
    // The congestion control: --cc, or else the attribute it stands for (never both).
    const bool host = device == NicDesign::HOST_TCP;
    const TypeId holder = host ? TcpSocketEndpoint::GetTypeId() : OffloadNetDevice::GetTypeId();
    const std::string ccAttr = host ? "ns3::TcpSocketEndpoint::CongestionControl"
                                    : "ns3::OffloadNetDevice::CongestionControl";
    const auto [ccDefault, ccChanged] = AttributeDefault(holder, "CongestionControl");
    if (!c.cc.empty() && ccChanged && CongestionTypeId(device, c.cc).GetName() != ccDefault)
    {
        throw PrestoInputError("--cc=" + c.cc + " and --" + ccAttr + "=" + ccDefault +
                               " disagree: give one of them");
    }
    const TypeId ccType = !c.cc.empty() || !ccChanged
                              ? CongestionTypeId(device, c.cc.empty() ? "dctcp" : c.cc)
                              : TypeId::LookupByName(ccDefault);
    if (host)
    {
        m_config.cc = ccType == TypeId::LookupByName("ns3::TcpNewReno") ? "newreno"
                      : ccType == TypeId::LookupByName("ns3::TcpDctcp") ? "dctcp"
                                                                        : ccType.GetName();
        return ccType;
    }
    if (!ccType.IsChildOf(OffloadCongestionControl::GetTypeId()))
    {
        throw PrestoInputError("--" + ccAttr + "=" + ccType.GetName() +
                               " is not a subclass of ns3::OffloadCongestionControl");
    }
    RequirePipelineFor(ccType, device, "--" + ccAttr + "=" + ccType.GetName());
    // The design's options: each stands for an attribute of the designs that have it and
    // takes the attribute's value when not given (ResolveOption: never both, never silently).
    const TypeId design = NicDesign::GetTypeId(device);
    std::string given;
    for (const auto& o : DesignOptions())
    {
        if (!HasAttribute(design, o.attribute))
        {
            continue;
        }
        std::string& value = m_config.*o.field;
        if (!value.empty())
        {
            given += std::string(given.empty() ? "" : ", ") + "--" + o.option + "=" + value +
                     " sets " + design.GetName() + "::" + o.attribute;
        }
        value = ResolveOption(o.option, value, design, o.attribute);
    }
    // Build one NIC as the run will and let it check itself (the congestion control, the
    // design's parameters: Presto's stage budget and classifier rules, Cora's program and
    // model), so that a bad configuration stops here, before anything runs or is written.
    try
    {
        Ptr<OffloadNetDevice> probe = NicFactory(device, ccType).Create<OffloadNetDevice>();
        std::map<uint32_t, Ptr<PrestoRackPipeline>> rack;
        JoinRack(probe, 0, rack); // a rack of its own, as ShareRackPipelines gives the hosts
        probe->Setup();
    }
    catch (const PrestoInputError& e)
    {
        throw PrestoInputError(std::string(e.what()) + (given.empty() ? "" : " (" + given + ")"));
    }
    Ptr<OffloadCongestionControl> cc =
        ObjectFactory(ccType.GetName()).Create<OffloadCongestionControl>();
    m_config.cc = cc->GetShortName();
    return ccType;
}

void
SprayExperiment::ResolveDesigns(const SprayExperimentConfig& given)
{
    const auto& c = m_config;
    if (c.mix.empty())
    {
        m_ccType = ResolveDevice(c.device);
    }
    else
    {
        if (c.device != SprayExperimentConfig().device)
        {
            throw PrestoInputError("--mix=" + InputExcerpt(c.mix) + " and --device=" + c.device +
                                   " exclude each other: the mix names every device");
        }
        RequireOneOf("mixBy", c.mixBy, {"host", "leaf"});
        m_mix = ParseDeviceMix(c.mix, Devices());
        const std::string cc = c.cc.empty() ? "dctcp" : c.cc;
        for (const auto& share : m_mix)
        {
            // one congestion control by name for every device of the mix
            m_config.cc = cc;
            m_mixCc.push_back(ResolveDevice(share.device));
        }
        m_config.cc = cc;
        m_ccType = m_mixCc[0];
    }
    {
        std::vector<std::string> devices;
        for (const auto& share : m_mix)
        {
            devices.push_back(share.device);
        }
        if (m_mix.empty())
        {
            devices.push_back(m_config.device);
        }
        CheckDesignOptions(given,
                           devices,
                           m_mix.empty() ? "--device=" + m_config.device : "--mix=" + c.mix);
    }
}

ObjectFactory
SprayExperiment::NicFactory(const std::string& device, TypeId cc) const
{
    ObjectFactory nic = DeviceFactory(device, cc);
    const TypeId design = nic.GetTypeId();
    for (const auto& o : DesignOptions())
    {
        const std::string& value = m_config.*o.field;
        if (!value.empty() && HasAttribute(design, o.attribute))
        {
            nic.Set(o.attribute, StringValue(value));
        }
    }
    // Flows carry payload bytes only when they are verified; the RPC workload always
    // verifies its own.
    nic.Set("CarryPayload", BooleanValue(m_config.verifyPayload || IsRpc()));
    return nic;
}

void
SprayExperiment::CheckDesignOptions(const SprayExperimentConfig& given,
                                    const std::vector<std::string>& devices,
                                    const std::string& where)
{
    for (const auto& o : DesignOptions())
    {
        const std::string& value = given.*o.field;
        if (value.empty())
        {
            continue;
        }
        bool used = false;
        for (const auto& d : devices)
        {
            used = used ||
                   (d != NicDesign::HOST_TCP && HasAttribute(NicDesign::GetTypeId(d), o.attribute));
        }
        if (used)
        {
            continue;
        }
        // name the designs the option is for
        std::string takers;
        for (const auto& d : NicDesign::Names())
        {
            if (d != NicDesign::HOST_TCP && HasAttribute(NicDesign::GetTypeId(d), o.attribute))
            {
                takers += (takers.empty() ? "" : ", ") + d;
            }
        }
        throw PrestoInputError("--" + std::string(o.option) + "=" + InputExcerpt(value) +
                               " sets the attribute " + o.attribute + " of " + takers +
                               "; no device of this run has it (" + where + ")");
    }
}

void
SprayExperiment::KeepOwnDesignOptions(SprayExperimentConfig& c)
{
    const bool host = NicDesign::Canonical(c.device, "--device") == NicDesign::HOST_TCP;
    for (const auto& o : DesignOptions())
    {
        if (host || !HasAttribute(NicDesign::GetTypeId(c.device), o.attribute))
        {
            (c.*o.field).clear();
        }
    }
}

void
SprayExperiment::AssignMix()
{
    const auto& c = m_config;
    m_hostDevice.clear();
    if (m_mix.empty())
    {
        return;
    }
    if (c.mixBy == "host")
    {
        m_hostDevice = AssignDeviceMix(m_mix, m_topology.GetNHosts(), "hosts");
        return;
    }
    // by leaf: the switches hosts hang off, in node order; each host gets its leaf's device
    std::map<uint32_t, uint32_t> leafIndex;
    std::vector<uint32_t> leafOfHost;
    for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
    {
        const uint32_t node = m_topology.HostNode(h);
        const auto& link = m_topology.GetLinks()[m_topology.GetPorts(node)[0]];
        leafOfHost.push_back(link.a == node ? link.b : link.a);
        leafIndex[leafOfHost.back()] = 0;
    }
    uint32_t next = 0;
    for (auto& [leaf, index] : leafIndex)
    {
        index = next++;
    }
    const std::vector<uint32_t> byLeaf =
        AssignDeviceMix(m_mix, static_cast<uint32_t>(leafIndex.size()), "leaves");
    for (uint32_t h = 0; h < m_topology.GetNHosts(); ++h)
    {
        m_hostDevice.push_back(byLeaf[leafIndex[leafOfHost[h]]]);
    }
}

void
SprayExperiment::ApplyParity(Ptr<TcpSocketEndpoint> endpoint) const
{
    if (m_config.hostParity)
    {
        // an ACK per segment, as the offload NICs send (RowParity::CheckUserSettings refused
        // a DelAckCount the user set otherwise)
        endpoint->SetAttribute("DelAckCount", UintegerValue(1));
    }
}

std::string
SprayExperiment::HostDevice(uint32_t host) const
{
    return m_mix.empty() ? m_config.device : m_mix[m_hostDevice.at(host)].device;
}

Ptr<TcpSocketEndpoint>
SprayExperiment::RunEndpoint() const
{
    if (m_mix.empty())
    {
        Ptr<TcpSocketEndpoint> e = MakeEndpoint(m_config.device, m_ccType);
        e->SetAttribute("VerifyPayload", BooleanValue(m_config.verifyPayload));
        ApplyParity(e);
        return e;
    }
    // the offload socket factory: hosts without an offload NIC keep ns-3's TCP
    // (TcpSocketEndpoint::FactoryFor), with the host-tcp share's congestion control
    Ptr<TcpSocketEndpoint> e = MakeEndpoint("presto", m_ccType);
    e->SetAttribute("Name", StringValue("mix"));
    e->SetAttribute("VerifyPayload", BooleanValue(m_config.verifyPayload));
    ApplyParity(e);
    for (std::size_t i = 0; i < m_mix.size(); ++i)
    {
        if (m_mix[i].device == "host-tcp")
        {
            e->SetAttribute("CongestionControl", TypeIdValue(m_mixCc[i]));
        }
    }
    return e;
}

ObjectFactory
SprayExperiment::DeviceFactory(const std::string& device, TypeId cc)
{
    ObjectFactory nic;
    nic.SetTypeId(NicDesign::GetTypeId(device)); // throws for host-tcp: it has no offload NIC
    nic.Set("CongestionControl", TypeIdValue(cc));
    return nic;
}

Ptr<TcpSocketEndpoint>
SprayExperiment::MakeEndpoint(const std::string& device, TypeId cc)
{
    // Devices() lists exactly the names handled here: every endpoint drives flows through
    // ns-3's socket API; the offload NICs bring their own socket factory.
    Ptr<TcpSocketEndpoint> e = CreateObject<TcpSocketEndpoint>();
    e->SetAttribute("Name", StringValue(device));
    if (device != NicDesign::HOST_TCP)
    {
        e->SetAttribute("SocketFactory", TypeIdValue(OffloadSocketFactory::GetTypeId()));
    }
    else
    {
        e->SetAttribute("CongestionControl", TypeIdValue(cc));
    }
    return e;
}

void
SprayExperiment::JoinRack(Ptr<NetDevice> device,
                          uint32_t tor,
                          std::map<uint32_t, Ptr<PrestoRackPipeline>>& racks)
{
    Ptr<PrestoNetDevice> presto = DynamicCast<PrestoNetDevice>(device);
    if (!presto)
    {
        return;
    }
    EnumValue placement;
    presto->GetAttribute("Placement", placement);
    if (placement.Get() != PrestoNetDevice::PLACE_TOR)
    {
        return;
    }
    auto& rack = racks[tor];
    if (!rack)
    {
        UintegerValue slots;
        presto->GetAttribute("MaxConnections", slots);
        rack = Create<PrestoRackPipeline>(static_cast<uint32_t>(slots.Get()));
    }
    presto->SetRackPipeline(rack);
}

void
SprayExperiment::ShareRackPipelines(const FabricHelper& fabric)
{
    // Presto hosts whose Placement is tor: one pipeline per rack switch (the switch each host
    // hangs off), shared by the rack's Presto hosts
    std::map<uint32_t, Ptr<PrestoRackPipeline>> racks;
    const NetDeviceContainer devices = fabric.GetHostDevices();
    for (uint32_t h = 0; h < devices.GetN(); ++h)
    {
        const uint32_t node = m_topology.HostNode(h);
        const auto& link = m_topology.GetLinks()[m_topology.GetPorts(node)[0]];
        JoinRack(devices.Get(h), link.a == node ? link.b : link.a, racks);
    }
}

} // namespace ns3
