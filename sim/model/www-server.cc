#include "www-server.h"

#include "specweb-file-size.h"

#include "ns3/address.h"
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
    if (m_connection)
    {
        m_connection->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
}

bool
WwwServer::HandleConnectionRequest(Ptr<Socket> socket, const Address& from)
{
    NS_LOG_FUNCTION(this << socket << from);
    return !m_connection;
}

void
WwwServer::HandleAccept(Ptr<Socket> socket, const Address& from)
{
    NS_LOG_FUNCTION(this << socket << from);
    if (m_connection)
    {
        // Two handshakes overlapped: the first client keeps the server.
        NS_LOG_WARN("WwwServer refuses a second connection from " << from);
        socket->Close();
        return;
    }
    m_connection = socket;
    m_sendBufferBytes = socket->GetTxAvailable();
    m_connection->SetRecvCallback(MakeCallback(&WwwServer::HandleRead, this));
    m_connection->SetSendCallback(MakeCallback(&WwwServer::HandleSend, this));
}

void
WwwServer::HandleRead(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    while (Ptr<Packet> packet = socket->Recv())
    {
        if (packet->GetSize() == 0)
        {
            break;
        }
        uint64_t bytes = m_partialRequestBytes + packet->GetSize();
        for (; bytes >= m_requestBytes; bytes -= m_requestBytes)
        {
            const uint32_t fileBytes = GetFileSize()->DrawSize();
            ++m_requests;
            m_bytesRequested += fileBytes;
            NS_LOG_INFO("request " << m_requests << " at " << Simulator::Now().As(Time::S)
                                   << ": file of " << fileBytes << " B");
            m_requestTrace(fileBytes);
        }
        m_partialRequestBytes = bytes;
    }
    Flush();
}

void
WwwServer::HandleSend(Ptr<Socket> socket, uint32_t available)
{
    NS_LOG_FUNCTION(this << socket << available);
    Flush();
}

void
WwwServer::Flush()
{
    // File contents do not matter: the backlog is a byte count, so order cannot be lost.
    while (GetBacklog() > 0)
    {
        const uint32_t room = m_connection->GetTxAvailable();
        const uint64_t least =
            std::min<uint64_t>({GetBacklog(), m_refillBytes, m_sendBufferBytes / 2});
        if (room == 0 || room < least)
        {
            return;
        }
        const auto bytes =
            static_cast<uint32_t>(std::min<uint64_t>({GetBacklog(), room, m_pieceBytes}));
        const int sent = m_connection->Send(Create<Packet>(bytes));
        if (sent <= 0)
        {
            NS_LOG_LOGIC("send of " << bytes << " B refused, errno " << m_connection->GetErrno());
            return;
        }
        m_bytesQueued += sent;
    }
}

} // namespace ns3
