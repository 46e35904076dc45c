#include "www-helper.h"

#include "model/www-client.h"
#include "model/www-server.h"

#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WwwHelper");

WwwHelper::WwwHelper(TypeId protocol, uint16_t port)
    : m_port(port)
{
    m_server.SetTypeId(WwwServer::GetTypeId());
    m_client.SetTypeId(WwwClient::GetTypeId());
    m_server.Set("Protocol", TypeIdValue(protocol));
    m_client.Set("Protocol", TypeIdValue(protocol));
    m_server.Set("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), port)));
}

void
WwwHelper::SetServerAttribute(const std::string& name, const AttributeValue& value)
{
    m_server.Set(name, value);
}

void
WwwHelper::SetClientAttribute(const std::string& name, const AttributeValue& value)
{
    m_client.Set(name, value);
}

void
WwwHelper::SetConnections(WwwConnections connections)
{
    m_server.Set("Connections", EnumValue(connections));
    m_client.Set("Connections", EnumValue(connections));
}

ApplicationContainer
WwwHelper::Install(Ptr<Node> serverNode, Ptr<Node> clientNode, Ipv4Address serverAddress) const
{
    NS_LOG_FUNCTION(this << serverNode << clientNode << serverAddress);
    auto server = m_server.Create<WwwServer>();
    serverNode->AddApplication(server);
    auto client = m_client.Create<WwwClient>();
    client->SetAttribute("Remote", AddressValue(InetSocketAddress(serverAddress, m_port)));
    client->SetResponseSource(server); // the answers' lengths, for PagePacing afterBatch
    // Where each page starts, for Connections pageReset.
    client->TraceConnectWithoutContext("PageStart", MakeCallback(&WwwServer::NotePage, server));
    clientNode->AddApplication(client);
    ApplicationContainer pair;
    pair.Add(server);
    pair.Add(client);
    return pair;
}

} // namespace ns3
