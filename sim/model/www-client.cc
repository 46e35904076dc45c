#include "www-client.h"

#include "ns2-tcp-socket.h"
#include "truncated-poisson-random-variable.h"
#include "www-server.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/inet6-socket-address.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WwwClient");

NS_OBJECT_ENSURE_REGISTERED(WwwClient);

TypeId
WwwClient::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WwwClient")
            .SetParent<Application>()
            .SetGroupName("Satnet")
            .AddConstructor<WwwClient>()
            .AddAttribute("Remote",
                          "Address and port of the server.",
                          AddressValue(),
                          MakeAddressAccessor(&WwwClient::m_peer),
                          MakeAddressChecker())
            .AddAttribute("Protocol",
                          "TypeId of the socket factory of the connection.",
                          TypeIdValue(TcpSocketFactory::GetTypeId()),
                          MakeTypeIdAccessor(&WwwClient::m_tid),
                          MakeTypeIdChecker())
            .AddAttribute("PagePeriod",
                          "Time between two pages: from the start of one to the start of the "
                          "next (PagePacing period), or from the arrival of one's last document "
                          "to the start of the next (afterBatch).",
                          TimeValue(Seconds(10)),
                          MakeTimeAccessor(&WwwClient::m_pagePeriod),
                          MakeTimeChecker(Time(1)))
            .AddAttribute("MeanRequestsPerPage",
                          "Mean of the Poisson distribution of the requests of a page, before "
                          "keeping it within [MinRequestsPerPage, MaxRequestsPerPage].",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&WwwClient::m_meanRequests),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("MinRequestsPerPage",
                          "Fewest requests of a page.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&WwwClient::m_minRequests),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MaxRequestsPerPage",
                          "Most requests of a page.",
                          UintegerValue(9),
                          MakeUintegerAccessor(&WwwClient::m_maxRequests),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("MinGap",
                          "Shortest gap between two requests of a page.",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&WwwClient::m_minGap),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxGap",
                          "Longest gap between two requests of a page.",
                          TimeValue(MilliSeconds(500)),
                          MakeTimeAccessor(&WwwClient::m_maxGap),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RequestBytes",
                          "Bytes of one request.",
                          UintegerValue(128),
                          MakeUintegerAccessor(&WwwClient::m_requestBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("RandomStartPhase",
                          "Start the first page after a phase drawn uniformly in "
                          "[0, PagePeriod) instead of at once.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&WwwClient::m_randomStartPhase),
                          MakeBooleanChecker())
            .AddAttribute("PagePacing",
                          "When the next page starts: period (PagePeriod after the previous "
                          "page started, whether or not its documents have arrived: an open "
                          "loop) or afterBatch (PagePeriod after the last document of the "
                          "previous page has fully arrived: a closed loop, \"the time taken by "
                          "the user to request a new document\"). afterBatch needs "
                          "SetResponseSource().",
                          EnumValue(PagePacing::PERIOD),
                          MakeEnumAccessor<PagePacing>(&WwwClient::m_pagePacing),
                          MakeEnumChecker(PagePacing::PERIOD,
                                          "period",
                                          PagePacing::AFTER_BATCH,
                                          "afterBatch"))
            .AddAttribute("Connections",
                          "How pages use TCP connections: run (one connection for the whole "
                          "run, opened at start), page (a new connection per page, closed "
                          "after the page's last answer) or pageReset (one connection whose "
                          "sender is reset to a new connection's state when a page starts on "
                          "it idle; needs the ns2 TCP sender). The server's must match.",
                          EnumValue(WwwConnections::RUN),
                          MakeEnumAccessor<WwwConnections>(&WwwClient::m_connectionsMode),
                          MakeEnumChecker(WwwConnections::RUN,
                                          "run",
                                          WwwConnections::PAGE,
                                          "page",
                                          WwwConnections::PAGE_RESET,
                                          "pageReset"))
            .AddTraceSource("PageStart",
                            "A page started; the argument is its number of requests.",
                            MakeTraceSourceAccessor(&WwwClient::m_pageTrace),
                            "ns3::WwwClient::PageTracedCallback")
            .AddTraceSource("PageDone",
                            "With afterBatch: the last document of the open page arrived; the "
                            "argument is the page's duration (from its start).",
                            MakeTraceSourceAccessor(&WwwClient::m_pageDoneTrace),
                            "ns3::Time::TracedCallback")
            .AddTraceSource("Request",
                            "A request was issued; the argument is its size in bytes.",
                            MakeTraceSourceAccessor(&WwwClient::m_requestTrace),
                            "ns3::WwwClient::RequestTracedCallback")
            .AddTraceSource("Rx",
                            "Bytes from the server were read.",
                            MakeTraceSourceAccessor(&WwwClient::m_rxTrace),
                            "ns3::Packet::TracedCallback");
    return tid;
}

WwwClient::WwwClient()
    : m_phaseRv(CreateObject<UniformRandomVariable>()),
      m_requestsRv(CreateObject<TruncatedPoissonRandomVariable>()),
      m_gapRv(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

WwwClient::~WwwClient()
{
    NS_LOG_FUNCTION(this);
}

uint64_t
WwwClient::GetBytesReceived() const
{
    return m_bytesReceived;
}

uint64_t
WwwClient::GetRequestsSent() const
{
    return m_requestsSent;
}

uint64_t
WwwClient::GetPages() const
{
    return m_pages;
}

Time
WwwClient::GetStartPhase() const
{
    return m_startPhase;
}

Ptr<Socket>
WwwClient::GetSocket() const
{
    return m_socket;
}

std::vector<Ptr<Socket>>
WwwClient::GetSockets() const
{
    std::vector<Ptr<Socket>> sockets;
    for (const auto& connection : m_connections)
    {
        sockets.push_back(connection.socket);
    }
    return sockets;
}

uint64_t
WwwClient::GetSenderResets() const
{
    return m_senderResets;
}

uint64_t
WwwClient::GetPagesDone() const
{
    return m_pagesDone;
}

void
WwwClient::SetResponseSource(Ptr<WwwServer> server)
{
    NS_LOG_FUNCTION(this << server);
    NS_ABORT_MSG_IF(m_hasResponseSource, "WwwClient: a second response source");
    // The server reads the requests in order, and draws one file for each (its Request trace):
    // the k-th file is the answer to the k-th request. Only counters change with PERIOD.
    server->TraceConnectWithoutContext("Request", MakeCallback(&WwwClient::NoteResponse, this));
    m_hasResponseSource = true;
}

int64_t
WwwClient::AssignStreams(int64_t stream)
{
    NS_LOG_FUNCTION(this << stream);
    m_phaseRv->SetStream(stream);
    m_requestsRv->SetStream(stream + 1);
    m_gapRv->SetStream(stream + 2);
    return 3;
}

void
WwwClient::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_pageEvent.Cancel();
    m_requestEvent.Cancel();
    for (auto& connection : m_connections)
    {
        connection.socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
    m_connections.clear();
    m_socket = nullptr;
    m_phaseRv = nullptr;
    m_requestsRv = nullptr;
    m_gapRv = nullptr;
    Application::DoDispose();
}

void
WwwClient::StartApplication()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_minRequests > m_maxRequests,
                    "MinRequestsPerPage " << m_minRequests << " > MaxRequestsPerPage "
                                          << m_maxRequests);
    NS_ABORT_MSG_IF(m_minGap > m_maxGap, "MinGap " << m_minGap << " > MaxGap " << m_maxGap);
    NS_ABORT_MSG_IF(m_pagePacing == PagePacing::PERIOD &&
                        (m_maxRequests - 1) * m_maxGap >= m_pagePeriod,
                    "a page of " << m_maxRequests << " requests " << m_maxGap
                                 << " apart could overrun the next page " << m_pagePeriod
                                 << " later");
    NS_ABORT_MSG_IF(m_pagePacing == PagePacing::AFTER_BATCH && !m_hasResponseSource,
                    "WwwClient: PagePacing afterBatch needs SetResponseSource(), to know when a "
                    "page's documents have arrived");
    m_running = true;
    if (!m_socket && m_connectionsMode != WwwConnections::PAGE)
    {
        Connect();
    }
    // One draw whatever RandomStartPhase says keeps the later draws of the run aligned.
    const Time phase = m_pagePeriod * m_phaseRv->GetValue(0, 1);
    m_startPhase = m_randomStartPhase ? phase : Time(0);
    NS_LOG_INFO("first page in " << m_startPhase.As(Time::S));
    m_pageEvent = Simulator::Schedule(m_startPhase, &WwwClient::StartPage, this);
}

void
WwwClient::Connect()
{
    m_socket = Socket::CreateSocket(GetNode(), m_tid);
    const int bound =
        Inet6SocketAddress::IsMatchingType(m_peer) ? m_socket->Bind6() : m_socket->Bind();
    if (bound == -1 || m_socket->Connect(m_peer) == -1)
    {
        NS_FATAL_ERROR("WwwClient on node " << GetNode()->GetId() << " failed to connect to "
                                            << m_peer);
    }
    m_socket->SetRecvCallback(MakeCallback(&WwwClient::HandleRead, this));
    m_socket->SetSendCallback(MakeCallback(&WwwClient::HandleSend, this));
    m_socket->SetConnectCallback(MakeNullCallback<void, Ptr<Socket>>(),
                                 MakeCallback(&WwwClient::HandleConnectionFailed, this));
    m_connections.emplace_back().socket = m_socket;
}

WwwClient::Connection&
WwwClient::Find(Ptr<Socket> socket)
{
    // The open connections are the last ones opened: search from the end.
    for (auto it = m_connections.rbegin(); it != m_connections.rend(); ++it)
    {
        if (it->socket == socket)
        {
            return *it;
        }
    }
    NS_FATAL_ERROR("WwwClient: a socket it did not open");
}

void
WwwClient::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_running = false;
    m_pageEvent.Cancel();
    m_requestEvent.Cancel();
}

void
WwwClient::StartPage()
{
    NS_LOG_FUNCTION(this);
    NS_ASSERT_MSG(!m_requestEvent.IsPending(), "the previous page overran this one");
    const uint32_t requests =
        m_requestsRv->GetInteger(m_meanRequests, m_minRequests, m_maxRequests);
    ++m_pages;
    NS_LOG_INFO("page " << m_pages << " at " << Simulator::Now().As(Time::S) << ": " << requests
                        << " requests");
    m_pageTrace(requests);
    if (m_connectionsMode == WwwConnections::PAGE)
    {
        Connect();
    }
    else if (m_connectionsMode == WwwConnections::PAGE_RESET && m_connections.back().backlog == 0)
    {
        auto sender = DynamicCast<Ns2TcpSocket>(m_socket);
        NS_ABORT_MSG_IF(!sender, "WwwClient: Connections pageReset needs the ns2 TCP sender");
        if (sender->ResetSenderState())
        {
            ++m_senderResets;
            NS_LOG_INFO("page " << m_pages << " starts on an idle connection: sender reset");
        }
    }
    if (m_pagePacing == PagePacing::PERIOD)
    {
        m_pageEvent = Simulator::Schedule(m_pagePeriod, &WwwClient::StartPage, this);
    }
    else
    {
        // The next page is scheduled by CheckPageDone() once this one's documents have arrived.
        m_pageOpen = true;
        m_pageStart = Simulator::Now();
        m_pageLastRequest = m_requestsSent + requests;
    }
    SendRequest(requests);
}

void
WwwClient::SendRequest(uint32_t remaining)
{
    NS_LOG_FUNCTION(this << remaining);
    ++m_requestsSent;
    // A page's requests all go on the connection current at its start (they are all sent
    // before the next page starts).
    Connection& connection = m_connections.back();
    connection.backlog += m_requestBytes;
    connection.closing = m_connectionsMode == WwwConnections::PAGE && remaining == 1;
    m_requestTrace(m_requestBytes);
    Flush(connection);
    if (remaining > 1)
    {
        const Time gap = Seconds(m_gapRv->GetValue(m_minGap.GetSeconds(), m_maxGap.GetSeconds()));
        m_requestEvent = Simulator::Schedule(gap, &WwwClient::SendRequest, this, remaining - 1);
    }
}

void
WwwClient::Flush(Connection& connection)
{
    // Requests carry no content: the backlog is a byte count, so order cannot be lost.
    Ptr<Socket> socket = connection.socket;
    while (connection.backlog > 0)
    {
        const uint32_t room = socket->GetTxAvailable();
        if (room == 0)
        {
            return;
        }
        const auto bytes = static_cast<uint32_t>(std::min<uint64_t>(connection.backlog, room));
        const int sent = socket->Send(Create<Packet>(bytes));
        if (sent <= 0)
        {
            NS_LOG_LOGIC("send of " << bytes << " B refused, errno " << socket->GetErrno());
            return;
        }
        connection.backlog -= sent;
    }
    if (connection.closing && !connection.closed)
    {
        connection.closed = true;
        socket->Close(); // the page's last request is in TCP: the FIN follows it
    }
}

void
WwwClient::HandleRead(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    while (Ptr<Packet> packet = socket->Recv())
    {
        if (packet->GetSize() == 0)
        {
            break;
        }
        m_bytesReceived += packet->GetSize();
        m_rxTrace(packet);
    }
    CheckPageDone();
}

void
WwwClient::NoteResponse(uint32_t fileBytes)
{
    ++m_responses;
    m_responseEnd += fileBytes;
    CheckPageDone(); // only its length was missing if its bytes were all read already
}

void
WwwClient::CheckPageDone()
{
    // With AFTER_BATCH no request follows the open page's last one until the page is done, so
    // once all its requests are answered m_responseEnd is where its last document ends.
    if (!m_pageOpen || m_responses < m_pageLastRequest || m_bytesReceived < m_responseEnd)
    {
        return;
    }
    m_pageOpen = false;
    ++m_pagesDone;
    NS_LOG_INFO("page " << m_pages << " done at " << Simulator::Now().As(Time::S) << " after "
                        << (Simulator::Now() - m_pageStart).As(Time::S));
    m_pageDoneTrace(Simulator::Now() - m_pageStart);
    if (m_running)
    {
        m_pageEvent = Simulator::Schedule(m_pagePeriod, &WwwClient::StartPage, this);
    }
}

void
WwwClient::HandleSend(Ptr<Socket> socket, uint32_t available)
{
    NS_LOG_FUNCTION(this << socket << available);
    Flush(Find(socket));
}

void
WwwClient::HandleConnectionFailed(Ptr<Socket> socket)
{
    NS_LOG_FUNCTION(this << socket);
    NS_LOG_WARN("WwwClient on node " << GetNode()->GetId() << " could not connect to " << m_peer);
}

} // namespace ns3
