/*
 * Installs WWW server/client pairs.
 */
#ifndef SATNET_WWW_HELPER_H
#define SATNET_WWW_HELPER_H

#include "model/www-connections.h"

#include "ns3/application-container.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"

#include <string>

namespace ns3
{

/**
 * @brief Installs a WwwServer and its WwwClient on two nodes, both with the same socket factory.
 *
 * @code
 *   WwwHelper www(TcpSocketFactory::GetTypeId(), 80);
 *   ApplicationContainer pair = www.Install(serverNode, clientNode, serverIp);
 *   auto server = DynamicCast<WwwServer>(pair.Get(WwwHelper::kServer));
 *   auto client = DynamicCast<WwwClient>(pair.Get(WwwHelper::kClient));
 * @endcode
 */
class WwwHelper
{
  public:
    /// Index of the server in the container Install returns.
    static constexpr uint32_t kServer = 0;
    /// Index of the client in the container Install returns.
    static constexpr uint32_t kClient = 1;

    /**
     * @param protocol TypeId of the socket factory both ends create their sockets with
     * @param port TCP port the server listens on
     */
    WwwHelper(TypeId protocol, uint16_t port = 80);

    /**
     * @brief Sets an attribute of the servers installed from now on.
     * @param name attribute name
     * @param value attribute value
     */
    void SetServerAttribute(const std::string& name, const AttributeValue& value);

    /**
     * @brief Sets an attribute of the clients installed from now on.
     * @param name attribute name
     * @param value attribute value
     */
    void SetClientAttribute(const std::string& name, const AttributeValue& value);

    /**
     * @brief Sets the Connections of the servers and clients installed from now on (the two
     * must match).
     * @param connections one connection per run, one per page, or one reset per page
     */
    void SetConnections(WwwConnections connections);

    /**
     * @brief Installs a server on @p serverNode and its client on @p clientNode; the client
     * learns the length of each answer from the server (WwwClient::SetResponseSource()), and
     * the server where each page starts (the client's PageStart trace to WwwServer::NotePage()).
     * @param serverNode node of the server
     * @param clientNode node of the client
     * @param serverAddress address of @p serverNode the client connects to
     * @return the server (index kServer) and the client (index kClient)
     */
    ApplicationContainer Install(Ptr<Node> serverNode,
                                 Ptr<Node> clientNode,
                                 Ipv4Address serverAddress) const;

  private:
    ObjectFactory m_server; //!< makes servers
    ObjectFactory m_client; //!< makes clients
    uint16_t m_port;        //!< server port
};

} // namespace ns3

#endif /* SATNET_WWW_HELPER_H */
