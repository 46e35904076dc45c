#include "www-server.h"

#include "ns2-tcp-socket.h"
#include "specweb-file-size.h"

#include "ns3/address.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WwwServer");

NS_OBJECT_ENSURE_REGISTERED(WwwServer);

TypeId
WwwServer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WwwServer")
            .SetParent<Application>()
            .SetGroupName("Satnet")
            .AddConstructor<WwwServer>()
            .AddAttribute("Local",
                          "Address and port to listen on.",
                          AddressValue(InetSocketAddress(Ipv4Address::GetAny(), 80)),
                          MakeAddressAccessor(&WwwServer::m_local),
                          MakeAddressChecker())
            .AddAttribute("Protocol",
                          "TypeId of the socket factory of the connection.",
                          TypeIdValue(TcpSocketFactory::GetTypeId()),
                          MakeTypeIdAccessor(&WwwServer::m_tid),
                          MakeTypeIdChecker())
            .AddAttribute("RequestBytes",
                          "Bytes of one request: each complete one read serves one file.",
                          UintegerValue(128),
                          MakeUintegerAccessor(&WwwServer::m_requestBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RefillBytes",
                          "Least room, in bytes, a full send buffer takes part of the backlog "
                          "into (at most half the buffer; all of a smaller backlog goes as soon "
                          "as it fits). Each piece queued is one packet there, so topping the "
                          "buffer up with every ACK's worth would hold it as segment-sized "
                          "packets.",
                          UintegerValue(1 << 20),
                          MakeUintegerAccessor(&WwwServer::m_refillBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("PieceBytes",
                          "Largest packet handed to the send buffer at once: the backlog goes in "
                          "pieces of at most this size (TCP sees the same byte stream). When a "
                          "segment straddles two of them, ns-3's TcpTxBuffer copies the whole "
                          "next piece into real bytes, so memory per server grows with it.",
                          UintegerValue(1 << 16),
                          MakeUintegerAccessor(&WwwServer::m_pieceBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("FileSize",
                          "Distribution of the file sizes (a SpecwebFileSize with its defaults "
                          "when not set).",
                          PointerValue(),
                          MakePointerAccessor(&WwwServer::m_fileSize),
                          MakePointerChecker<SpecwebFileSize>())
            .AddAttribute("Connections",
                          "The client's connections: run (one for the whole run: a second is "
                          "refused), page (one per page, each served on its own and closed "
                          "after the client closed its side) or pageReset (one, whose sender is "
                          "reset to a new connection's state when a page's first request finds "
                          "it idle; see NotePage()).",
                          EnumValue(WwwConnections::RUN),
                          MakeEnumAccessor<WwwConnections>(&WwwServer::m_connectionsMode),
                          MakeEnumChecker(WwwConnections::RUN,
                                          "run",
                                          WwwConnections::PAGE,
                                          "page",
                                          WwwConnections::PAGE_RESET,
                                          "pageReset"))
            .AddTraceSource("Request",
                            "A complete request was read; the argument is the file size drawn.",
                            MakeTraceSourceAccessor(&WwwServer::m_requestTrace),
                            "ns3::WwwServer::RequestTracedCallback");
    return tid;
}

WwwServer::WwwServer()
{
    NS_LOG_FUNCTION(this);
}

WwwServer::~WwwServer()
{
    NS_LOG_FUNCTION(this);
}

uint64_t
WwwServer::GetBytesRequested() const
{
    return m_bytesRequested;
}

uint64_t
WwwServer::GetRequests() const
{
    return m_requests;
}

uint64_t
WwwServer::GetBytesQueued() const
{
    return m_bytesQueued;
}

uint64_t
WwwServer::GetBacklog() const
{
    return m_bytesRequested - m_bytesQueued;
}

Ptr<Socket>
WwwServer::GetConnection() const
{
    return m_connection;
}

std::vector<Ptr<Socket>>
WwwServer::GetConnections() const
{
    std::vector<Ptr<Socket>> sockets;
    for (const auto& connection : m_connections)
    {
        sockets.push_back(connection.socket);
    }
    return sockets;
}

uint64_t
WwwServer::GetSenderResets() const
{
    return m_senderResets;
}

void
WwwServer::NotePage(uint32_t requests)
{
    if (m_connectionsMode != WwwConnections::PAGE_RESET)
    {
        return;
    }
    m_pageFirstRequests.push_back(m_pageRequestsNoted + 1);
    m_pageRequestsNoted += requests;
}

Ptr<SpecwebFileSize>
WwwServer::GetFileSize()
{
    // Created on first use: an attribute default cannot hold a fresh object per server.
    if (!m_fileSize)
    {
        m_fileSize = CreateObject<SpecwebFileSize>();
    }
    return m_fileSize;
}

int64_t
WwwServer::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    return GetFileSize()->AssignStreams(stream);
}

void
WwwServer::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_listener = nullptr;
    m_connection = nullptr;
    m_connections.clear();
    m_fileSize = nullptr;
    Application::DoDispose();
}

void
WwwServer::StartApplication()
{
    NS_LOG_FUNCTION(this);
    if (m_listener)
    {
        return;
    }
    m_listener = Socket::CreateSocket(GetNode(), m_tid);
    if (m_listener->Bind(m_local) == -1)
    {
        NS_FATAL_ERROR("WwwServer on node " << GetNode()->GetId() << " failed to bind " << m_local);
    }
    m_listener->Listen();
    m_listener->SetAcceptCallback(MakeCallback(&WwwServer::HandleConnectionRequest, this),
                                  MakeCallback(&WwwServer::HandleAccept, this));
}

void
WwwServer::StopApplication()
{
    NS_LOG_FUNCTION(this);
    if (m_listener)
    {
        m_listener->Close();
    }
    for (auto& connection : m_connections)
    {
        connection.socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
}

WwwServer::Connection&
WwwServer::Find(Ptr<Socket> socket)
{
    // The open connections are the last ones accepted: search from the end.
    for (auto it = m_connections.rbegin(); it != m_connections.rend(); ++it)
    {
        if (it->socket == socket)
        {
            return *it;
        }
    }
    NS_FATAL_ERROR("WwwServer: a socket it did not accept");
}

bool
WwwServer::HandleConnectionRequest(Ptr<Socket> socket, const Address& from)
{
    NS_LOG_FUNCTION(this << socket << from);
    return m_connectionsMode == WwwConnections::PAGE || !m_connection;
}

void
WwwServer::HandleAccept(Ptr<Socket> socket, const Address& from)
{
    NS_LOG_FUNCTION(this << socket << from);
    if (m_connection && m_connectionsMode != WwwConnections::PAGE)
    {
        // Two handshakes overlapped: the first client keeps the server.
        NS_LOG_WARN("WwwServer refuses a second connection from " << from);
        socket->Close();
        return;
    }
    m_connection = socket;
    Connection& connection = m_connections.emplace_back();
    connection.socket = socket;
    connection.sendBufferBytes = socket->GetTxAvailable();
    m_connection->SetRecvCallback(MakeCallback(&WwwServer::HandleRead, this));
    m_connection->SetSendCallback(MakeCallback(&WwwServer::HandleSend, this));
    if (m_connectionsMode == WwwConnections::PAGE)
    {
        m_connection->SetCloseCallbacks(MakeCallback(&WwwServer::HandlePeerClose, this),
                                        MakeCallback(&WwwServer::HandlePeerClose, this));
    }
}

void
WwwServer::HandlePeerClose(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    Connection& connection = Find(socket);
    if (connection.closed)
    {
        return;
    }
    HandleRead(socket); // what the close followed
    connection.peerClosed = true;
    // Not from within TCP's own handling of the FIN: it acknowledges it after this callback.
    Simulator::ScheduleNow([this, socket]() { Flush(Find(socket)); });
}

void
WwwServer::HandleRead(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    Connection& connection = Find(socket);
    while (Ptr<Packet> packet = socket->Recv())
    {
        if (packet->GetSize() == 0)
        {
            break;
        }
        uint64_t bytes = connection.partialRequestBytes + packet->GetSize();
        for (; bytes >= m_requestBytes; bytes -= m_requestBytes)
        {
            ResetIfPageStarts(connection, m_requests + 1);
            const uint32_t fileBytes = GetFileSize()->DrawSize();
            ++m_requests;
            m_bytesRequested += fileBytes;
            connection.bytesRequested += fileBytes;
            NS_LOG_INFO("request " << m_requests << " at " << Simulator::Now().As(Time::S)
                                   << ": file of " << fileBytes << " B");
            m_requestTrace(fileBytes);
        }
        connection.partialRequestBytes = bytes;
    }
    Flush(connection);
}

void
WwwServer::ResetIfPageStarts(Connection& connection, uint64_t request)
{
    if (m_pageFirstRequests.empty() || m_pageFirstRequests.front() != request)
    {
        return;
    }
    m_pageFirstRequests.pop_front();
    auto sender = DynamicCast<Ns2TcpSocket>(connection.socket);
    NS_ABORT_MSG_IF(!sender, "WwwServer: Connections pageReset needs the ns2 TCP sender");
    if (connection.bytesQueued == connection.bytesRequested && sender->ResetSenderState())
    {
        ++m_senderResets;
        NS_LOG_INFO("request " << request << " starts a page: sender reset");
    }
}

void
WwwServer::HandleSend(Ptr<Socket> socket, uint32_t available)
{
    NS_LOG_FUNCTION(this << socket << available);
    Flush(Find(socket));
}

void
WwwServer::Flush(Connection& connection)
{
    // File contents do not matter: the backlog is a byte count, so order cannot be lost.
    Ptr<Socket> socket = connection.socket;
    while (connection.bytesRequested > connection.bytesQueued)
    {
        const uint64_t backlog = connection.bytesRequested - connection.bytesQueued;
        const uint32_t room = socket->GetTxAvailable();
        const uint64_t least =
            std::min<uint64_t>({backlog, m_refillBytes, connection.sendBufferBytes / 2});
        if (room == 0 || room < least)
        {
            return;
        }
        const auto bytes = static_cast<uint32_t>(std::min<uint64_t>({backlog, room, m_pieceBytes}));
        const int sent = socket->Send(Create<Packet>(bytes));
        if (sent <= 0)
        {
            NS_LOG_LOGIC("send of " << bytes << " B refused, errno " << socket->GetErrno());
            return;
        }
        connection.bytesQueued += sent;
        m_bytesQueued += sent;
    }
    if (connection.peerClosed && !connection.closed)
    {
        connection.closed = true;
        socket->Close(); // TCP sends the FIN after the bytes it holds
    }
}

} // namespace ns3
