/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRESTO_PENDING_CONNECTIONS_H
#define PRESTO_PENDING_CONNECTIONS_H

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/socket.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

namespace ns3
{

/**
 * \ingroup presto
 * \brief The connections a workload opened and its servers have not accepted yet, by
 * (client address, client port, server address): how an accepted socket finds which of the
 * workload's connections it is (the RPC and collective workloads; every server of theirs
 * listens on one port).
 *
 * \tparam Id what the workload calls a connection (a connection id, a pair index)
 */
template <typename Id>
class PendingConnections
{
  public:
    /**
     * \brief A client socket, bound, is about to connect to server.
     * \param bound the client's socket (its port is read from it)
     * \param client the client's address
     * \param server the server's address
     * \param id the connection
     */
    void Expect(Ptr<Socket> bound, Ipv4Address client, Ipv4Address server, Id id)
    {
        Address local;
        bound->GetSockName(local);
        m_pending[{client.Get(), InetSocketAddress::ConvertFrom(local).GetPort(), server.Get()}] =
            id;
    }

    /**
     * \brief A server accepted a connection: which one it is, forgotten here.
     * \param accepted the server's new socket
     * \param from the client's address, as the accept callback gives it
     * \param who the server, for the message when no client of the workload opened it (an
     *        internal error: the workload's servers listen on a port of their own)
     * \return the connection
     */
    Id Take(Ptr<Socket> accepted, const Address& from, const std::string& who)
    {
        const InetSocketAddress remote = InetSocketAddress::ConvertFrom(from);
        Address localAddr;
        accepted->GetSockName(localAddr);
        const uint32_t localIp = InetSocketAddress::ConvertFrom(localAddr).GetIpv4().Get();
        auto it = m_pending.find({remote.GetIpv4().Get(), remote.GetPort(), localIp});
        NS_ABORT_MSG_IF(it == m_pending.end(),
                        who << " accepted a connection from " << remote.GetIpv4() << ":"
                            << remote.GetPort() << " that the workload did not open");
        const Id id = it->second;
        m_pending.erase(it);
        return id;
    }

  private:
    /// (client address, client port, server address) -> the connection
    std::map<std::tuple<uint32_t, uint16_t, uint32_t>, Id> m_pending;
};

} // namespace ns3

#endif // PRESTO_PENDING_CONNECTIONS_H
