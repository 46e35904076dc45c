#include "model/http10-server.h"

#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Http10Server");
NS_OBJECT_ENSURE_REGISTERED(Http10Server);

TypeId
Http10Server::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Http10Server")
            .SetParent<Application>()
            .SetGroupName("Satnet")
            .AddConstructor<Http10Server>()
            .AddAttribute("Local",
                          "Address and port to listen on.",
                          AddressValue(InetSocketAddress(Ipv4Address::GetAny(), 80)),
                          MakeAddressAccessor(&Http10Server::m_local),
                          MakeAddressChecker())
            .AddAttribute("Protocol",
                          "TypeId of the socket factory of the connections.",
                          TypeIdValue(TcpSocketFactory::GetTypeId()),
                          MakeTypeIdAccessor(&Http10Server::m_tid),
                          MakeTypeIdChecker())
            .AddAttribute("RequestBytes",
                          "Bytes of the request a connection carries.",
                          UintegerValue(128),
                          MakeUintegerAccessor(&Http10Server::m_requestBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DocumentSize",
                          "Bytes of each document, drawn when its request is read (rounded, at "
                          "least 1).",
                          StringValue("ns3::LognormalDocumentSize"),
                          MakePointerAccessor(&Http10Server::m_documentSize),
                          MakePointerChecker<RandomVariableStream>())
            .AddTraceSource("DocumentStart",
                            "A request was read and its document's size drawn.",
                            MakeTraceSourceAccessor(&Http10Server::m_startTrace),
                            "ns3::Http10Server::DocumentStartTracedCallback")
            .AddTraceSource("DocumentEnd",
                            "A document's last byte was acknowledged.",
                            MakeTraceSourceAccessor(&Http10Server::m_endTrace),
                            "ns3::Http10Server::DocumentEndTracedCallback");
    return tid;
}

Http10Server::Http10Server()
{
    NS_LOG_FUNCTION(this);
}

Http10Server::~Http10Server()
{
    NS_LOG_FUNCTION(this);
}

uint32_t
Http10Server::GetDocuments() const
{
    return m_documents;
}

int64_t
Http10Server::AssignStreams(int64_t stream)
{
    m_documentSize->SetStream(stream);
    return 1;
}

void
Http10Server::DoDispose()
{
    m_listener = nullptr;
    m_responses.clear();
    Application::DoDispose();
}

void
Http10Server::StartApplication()
{
    m_listener = Socket::CreateSocket(GetNode(), m_tid);
    NS_ABORT_MSG_IF(m_listener->Bind(m_local) == -1, "Http10Server: cannot bind " << m_local);
    m_listener->Listen();
    m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                  MakeCallback(&Http10Server::HandleAccept, this));
}

void
Http10Server::StopApplication()
{
    if (m_listener)
    {
        m_listener->Close();
    }
}

void
Http10Server::HandleAccept(Ptr<Socket> socket, const Address& from)
{
    NS_LOG_FUNCTION(this << socket << from);
    m_responses[PeekPointer(socket)] = Response{};
    socket->SetRecvCallback(MakeCallback(&Http10Server::HandleRead, this));
    socket->SetSendCallback(MakeCallback(&Http10Server::Push, this));
    socket->TraceConnectWithoutContext("Rx", MakeCallback(&Http10Server::OnAck, this));
    // A connection reset before its document ended: forget it.
    socket->SetCloseCallbacks(MakeNullCallback<void, Ptr<Socket>>(),
                              MakeCallback(+[](Http10Server* server, Ptr<Socket> s) {
                                  server->m_responses.erase(PeekPointer(s));
                              }).Bind(this));
}

void
Http10Server::HandleRead(Ptr<Socket> socket)
{
    // Read everything: a socket closed with unread data would reset the connection.
    uint32_t read = 0;
    while (Ptr<Packet> packet = socket->Recv())
    {
        if (packet->GetSize() == 0)
        {
            break;
        }
        read += packet->GetSize();
    }
    auto it = m_responses.find(PeekPointer(socket));
    if (it == m_responses.end() || it->second.started)
    {
        return;
    }
    Response& r = it->second;
    r.requestBytes += read;
    if (r.requestBytes < m_requestBytes)
    {
        return;
    }
    r.started = true;
    r.document = m_documents++;
    r.bytes = std::max<uint64_t>(1, m_documentSize->GetInteger());
    NS_LOG_INFO("document " << r.document << " of " << r.bytes << " B");
    m_startTrace(r.document, r.bytes, socket);
    Push(socket, socket->GetTxAvailable());
}

void
Http10Server::Push(Ptr<Socket> socket, uint32_t available)
{
    auto it = m_responses.find(PeekPointer(socket));
    if (it == m_responses.end() || !it->second.started || it->second.handed == it->second.bytes)
    {
        return;
    }
    Response& r = it->second;
    while (r.handed < r.bytes && socket->GetTxAvailable() > 0)
    {
        const uint64_t size = std::min<uint64_t>(r.bytes - r.handed, socket->GetTxAvailable());
        const int sent = socket->Send(Create<Packet>(static_cast<uint32_t>(size)));
        if (sent <= 0)
        {
            return;
        }
        r.handed += static_cast<uint64_t>(sent);
    }
    if (r.handed == r.bytes)
    {
        socket->Close(); // the FIN goes after the last byte
    }
}

void
Http10Server::OnAck(Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase> socket)
{
    // ns-3's initial sequence number is 0 and the SYN takes one: the document is bytes 1..bytes.
    auto it = m_responses.find(const_cast<TcpSocketBase*>(PeekPointer(socket)));
    if (it == m_responses.end() || !it->second.started || it->second.ended ||
        !(header.GetFlags() & TcpHeader::ACK) ||
        header.GetAckNumber() < SequenceNumber32(static_cast<uint32_t>(it->second.bytes + 1)))
    {
        return;
    }
    it->second.ended = true;
    m_endTrace(it->second.document);
    // Forgotten after this ACK: the socket is in the middle of handling it, and its traces too.
    Socket* key = it->first;
    Simulator::ScheduleNow([this, key]() { m_responses.erase(key); });
}

} // namespace ns3
