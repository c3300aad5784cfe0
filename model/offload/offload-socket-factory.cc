/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
// OffloadSocketFactory: the node's factory of offloaded sockets (what applications name as
// "ns3::OffloadSocketFactory"), the list of its open sockets (their trace sources' Config
// path), and the guard that stops a run whose offload application sits on a node without an
// offload NIC.
#include "offload-net-device.h"
#include "offload-socket.h"

#include "ns3/node-list.h"
#include "ns3/node.h"
#include "ns3/object-vector.h"
#include "ns3/presto-input-error.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(OffloadSocketFactory);

TypeId
OffloadSocketFactory::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::OffloadSocketFactory")
            .SetParent<SocketFactory>()
            .SetGroupName("Presto")
            .AddConstructor<OffloadSocketFactory>()
            .AddAttribute("SocketList",
                          "The node's offload sockets that have a connection or are opening "
                          "or listening (as TcpL4Protocol's SocketList): their trace sources "
                          "are reached as .../$ns3::OffloadSocketFactory/SocketList/*/...",
                          ObjectVectorValue(),
                          MakeObjectVectorAccessor(&OffloadSocketFactory::m_sockets),
                          MakeObjectVectorChecker<OffloadSocket>());
    return tid;
}

std::string
OffloadSocketFactory::MissingNic(Ptr<Node> node)
{
    Ptr<OffloadSocketFactory> f = node ? node->GetObject<OffloadSocketFactory>() : nullptr;
    if (f && f->HasDevice())
    {
        return "";
    }
    return "OffloadSocketFactory: node " +
           (node ? std::to_string(node->GetId()) : std::string("?")) +
           " has no offload NIC; install one (OffloadNetDevice or a design derived from it, "
           "e.g. with FabricHelper or OffloadNicHelper) or ask for ns3::TcpSocketFactory on "
           "this node";
}

void
OffloadSocketFactory::RequireNic(Ptr<Node> node)
{
    const std::string problem = MissingNic(node);
    if (!problem.empty())
    {
        throw PrestoInputError(problem);
    }
}

Ptr<Socket>
OffloadSocketFactory::CreateSocket()
{
    if (!m_device)
    {
        NS_FATAL_ERROR(MissingNic(GetObject<Node>()));
    }
    Ptr<OffloadSocket> s = CreateObject<OffloadSocket>();
    s->SetDevice(m_device->GetNode(), m_device);
    AddSocket(s);
    return s;
}

void
OffloadSocketFactory::AddSocket(Ptr<OffloadSocket> socket)
{
    m_sockets.push_back(socket);
}

void
OffloadSocketFactory::RemoveSocket(Ptr<OffloadSocket> socket)
{
    auto it = std::find(m_sockets.begin(), m_sockets.end(), socket);
    if (it != m_sockets.end())
    {
        m_sockets.erase(it);
    }
}

void
OffloadSocketFactory::SetDevice(Ptr<OffloadNetDevice> device)
{
    m_device = device;
}

bool
OffloadSocketFactory::HasDevice() const
{
    return m_device != nullptr;
}

void
OffloadSocketFactory::GuardNodesWithoutNic()
{
    static EventId guard;
    if (guard.IsExpired())
    {
        guard = Simulator::ScheduleNow(&OffloadSocketFactory::GuardNow);
    }
}

void
OffloadSocketFactory::GuardNow()
{
    for (auto it = NodeList::Begin(); it != NodeList::End(); ++it)
    {
        if (!(*it)->GetObject<OffloadSocketFactory>())
        {
            (*it)->AggregateObject(CreateObject<OffloadSocketFactory>());
        }
    }
}

void
OffloadSocketFactory::DoDispose()
{
    m_device = nullptr;
    m_sockets.clear();
    SocketFactory::DoDispose();
}

} // namespace ns3
