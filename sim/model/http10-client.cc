#include "model/http10-client.h"

#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Http10Client");
NS_OBJECT_ENSURE_REGISTERED(Http10Client);

TypeId
Http10Client::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Http10Client")
            .SetParent<Application>()
            .SetGroupName("Satnet")
            .AddConstructor<Http10Client>()
            .AddAttribute("Remote",
                          "Address and port of the server.",
                          AddressValue(),
                          MakeAddressAccessor(&Http10Client::m_peer),
                          MakeAddressChecker())
            .AddAttribute("Protocol",
                          "TypeId of the socket factory of the connections.",
                          TypeIdValue(TcpSocketFactory::GetTypeId()),
                          MakeTypeIdAccessor(&Http10Client::m_tid),
                          MakeTypeIdChecker())
            .AddAttribute("RequestBytes",
                          "Bytes of one request.",
                          UintegerValue(128),
                          MakeUintegerAccessor(&Http10Client::m_requestBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MaxRequests",
                          "Requests to make; 0: until the application stops.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&Http10Client::m_maxRequests),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("RequestStart",
                            "A request's connection was opened.",
                            MakeTraceSourceAccessor(&Http10Client::m_startTrace),
                            "ns3::Http10Client::RequestStartTracedCallback")
            .AddTraceSource("Response",
                            "A request's document arrived whole.",
                            MakeTraceSourceAccessor(&Http10Client::m_responseTrace),
                            "ns3::Http10Client::ResponseTracedCallback");
    return tid;
}

Http10Client::Http10Client()
{
    NS_LOG_FUNCTION(this);
}

Http10Client::~Http10Client()
{
    NS_LOG_FUNCTION(this);
}

uint32_t
Http10Client::GetRequests() const
{
    return m_requests;
}

uint32_t
Http10Client::GetResponses() const
{
    return m_responses;
}

uint32_t
Http10Client::GetFailures() const
{
    return m_failures;
}

uint64_t
Http10Client::GetBytesReceived() const
{
    return m_bytesReceived;
}

void
Http10Client::DoDispose()
{
    m_socket = nullptr;
    Application::DoDispose();
}

void
Http10Client::StartApplication()
{
    m_running = true;
    StartRequest();
}

void
Http10Client::StopApplication()
{
    m_running = false; // the open request goes on; no next one
}

void
Http10Client::StartRequest()
{
    if (!m_running || (m_maxRequests > 0 && m_requests == m_maxRequests))
    {
        return;
    }
    m_socket = Socket::CreateSocket(GetNode(), m_tid);
    m_socket->Bind();
    m_socket->SetConnectCallback(MakeCallback(&Http10Client::OnConnected, this),
                                 MakeCallback(&Http10Client::OnFailure, this));
    m_socket->SetRecvCallback(MakeCallback(&Http10Client::HandleRead, this));
    m_socket->SetCloseCallbacks(MakeCallback(&Http10Client::OnServerClose, this),
                                MakeCallback(&Http10Client::OnFailure, this));
    m_start = Simulator::Now();
    m_documentBytes = 0;
    // Before Connect(): what is set on the socket from the trace holds from the SYN on.
    m_startTrace(m_requests++, m_socket);
    m_socket->Connect(m_peer);
}

void
Http10Client::OnConnected(Ptr<Socket> socket)
{
    socket->Send(Create<Packet>(m_requestBytes));
}

void
Http10Client::HandleRead(Ptr<Socket> socket)
{
    while (Ptr<Packet> packet = socket->Recv())
    {
        if (packet->GetSize() == 0)
        {
            break;
        }
        if (socket == m_socket)
        {
            m_documentBytes += packet->GetSize();
            m_bytesReceived += packet->GetSize();
            m_lastByte = Simulator::Now();
        }
    }
}

void
Http10Client::OnServerClose(Ptr<Socket> socket)
{
    if (socket != m_socket)
    {
        return;
    }
    ++m_responses;
    m_responseTrace(m_requests - 1, m_documentBytes, m_lastByte - m_start);
    Next();
}

void
Http10Client::OnFailure(Ptr<Socket> socket)
{
    if (socket != m_socket)
    {
        return;
    }
    NS_LOG_WARN("request " << m_requests - 1 << " failed at " << Simulator::Now().As(Time::S));
    ++m_failures;
    Next();
}

void
Http10Client::Next()
{
    // Closed and followed after the socket's callback has returned: it is still working.
    Ptr<Socket> done = m_socket;
    m_socket = nullptr;
    Simulator::ScheduleNow([this, done]() {
        done->Close();
        StartRequest();
    });
}

} // namespace ns3
