#include "sabt-web.h"

#include "sabt-pool-use.h"
#include "sabt-scenario.h"

#include "helper/parallel-paths-helper.h"
#include "model/http10-client.h"
#include "model/http10-server.h"
#include "model/lognormal-document-size.h"
#include "model/ns2-tcp-socket.h"
#include "model/send-buffer-manager.h"
#include "model/tcp-flavor-socket-factory.h"

#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <map>
#include <optional>
#include <vector>

using namespace ns3;
using satsweep::Json;
using satsweep::MeanOrNull;

namespace sabt
{

namespace
{

constexpr uint16_t kHttpPort = 80;
/**
 * The maximum segment lifetime, s: a closed connection waits 2 x MSL in TIME_WAIT (the server's:
 * it closes first) against late duplicates of its packets, and ns-3 looks every arriving
 * packet's socket up in a list of them all: with ns-3's 120 s, a 21 s run at a few hundred
 * connections a second took 7 CPU minutes. On a LAN of a millisecond nothing arrives that late,
 * and a client takes its ports in turn from 16,384: it comes back to one many seconds later.
 */
constexpr double kMaxSegmentLifetime = 0.1;
/// Bytes of a request: a WebStone GET with HTTP/1.0's headers, a hundred or two.
constexpr uint32_t kRequestBytes = 128;

/// A document the server sent.
struct Document
{
    uint64_t bytes = 0;         //!< its size
    bool smallFile = false;     //!< it took the small-file rule
    double buffer = 0;          //!< its send buffer when it started, bytes
    uint32_t managed = 0;       //!< its index in the SendBufferManager
    Ptr<Ns2TcpSocket> sender;   //!< its sender until it ended
    uint64_t timeouts = 0;      //!< its sender's timeouts when it ended
};

/// A client's request.
struct Request
{
    uint32_t client = 0;                //!< the client, from 0
    uint32_t index = 0;                 //!< its index on the client, from 0
    double start = 0;                   //!< its connection request, s
    std::optional<uint32_t> document;   //!< the server's document, once it read the request
    std::optional<double> response;     //!< its response time, once the document arrived, s
};

/// Follows the requests, the documents and the pool.
class WebRecorder
{
  public:
    WebRecorder(const Config& config, Ptr<SendBufferManager> manager, double baseRtt)
        : m_config(config),
          m_manager(manager),
          m_baseRtt(baseRtt),
          m_open(config.clients)
    {
    }

    /// Client @p client's host has address @p address.
    void AddClient(uint32_t client, Ipv4Address address)
    {
        m_clientAt[address.Get()] = client;
    }

    /// Client @p client opens request @p index's connection.
    void OnRequestStart(uint32_t client, uint32_t index)
    {
        m_open[client] = m_requests.size();
        m_requests.push_back(Request{client, index, Simulator::Now().GetSeconds(), {}, {}});
    }

    /// The server read a request on @p socket and drew its document: the pool takes it in.
    void OnDocumentStart(uint32_t document, uint64_t bytes, Ptr<Socket> socket)
    {
        Ptr<Ns2TcpSocket> sender = DynamicCast<Ns2TcpSocket>(socket);
        NS_ABORT_MSG_UNLESS(sender, "sabt: the server needs the ns2 sender");
        NS_ABORT_MSG_UNLESS(document == m_documents.size(), "sabt: documents out of order");
        const uint32_t id = m_manager->Add(sender, bytes, Seconds(m_baseRtt));
        const SendBufferManager::Connection& m = m_manager->GetConnections()[id];
        m_documents.push_back(Document{bytes, m.smallFile, m.assigned, id, sender});
        // A client has one request open at a time: the peer's address names it.
        Address peer;
        socket->GetPeerName(peer);
        const uint32_t client = m_clientAt.at(InetSocketAddress::ConvertFrom(peer).GetIpv4().Get());
        m_requests[m_open[client]].document = document;
    }

    /// The document's last byte was acknowledged: its buffer goes back to the pool.
    void OnDocumentEnd(uint32_t document)
    {
        Document& d = m_documents[document];
        m_manager->Remove(d.managed);
        d.timeouts = d.sender->GetTimeouts();
        d.sender = nullptr;
    }

    /// Client @p client's open request was answered whole.
    void OnResponse(uint32_t client, Time responseTime)
    {
        m_requests[m_open[client]].response = responseTime.GetSeconds();
    }

    /// After every periodic reassignment: the pool's use, in the measured window.
    void OnReassigned()
    {
        if (Simulator::Now().GetSeconds() < MeasureStart() - 1e-9)
        {
            return;
        }
        double assigned = 0;
        for (const SendBufferManager::Connection& c : m_manager->GetConnections())
        {
            assigned += c.active ? c.assigned : 0;
        }
        m_poolUse.Sample(assigned, *m_manager);
    }

    /// @return when the measured window begins, s
    double MeasureStart() const
    {
        return m_config.simTime - m_config.measureTime;
    }

    const std::vector<Request>& Requests() const
    {
        return m_requests;
    }

    const std::vector<Document>& Documents() const
    {
        return m_documents;
    }

    const PoolUse& Pool() const
    {
        return m_poolUse;
    }

  private:
    const Config& m_config;
    Ptr<SendBufferManager> m_manager;
    double m_baseRtt;                        //!< the LAN's round trip without queueing, s
    std::map<uint32_t, uint32_t> m_clientAt; //!< client host address -> client
    std::vector<size_t> m_open;              //!< client -> its last request in m_requests
    std::vector<Request> m_requests;         //!< in start order
    std::vector<Document> m_documents;       //!< by the server's index
    PoolUse m_poolUse;                       //!< at each measured reassignment
};

/// @return the clients' bytes read so far
uint64_t
BytesReceived(const std::vector<Ptr<Http10Client>>& clients)
{
    uint64_t bytes = 0;
    for (const Ptr<Http10Client>& client : clients)
    {
        bytes += client->GetBytesReceived();
    }
    return bytes;
}

} // namespace

Json
RunWeb(const Config& c)
{
    ns3::Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime",
                            DoubleValue(kMaxSegmentLifetime));
    ParallelPathsHelper net;
    net.accessRate = DataRate(static_cast<uint64_t>(c.accessRate));
    net.accessDelay = Seconds(c.accessDelay);
    net.egressRate = DataRate(static_cast<uint64_t>(c.egressRate));
    net.egressDelay = Seconds(c.egressDelay);
    net.bufferPackets = c.routerBuffer;
    const PathPlan lan = Paths(c).front();
    net.Install({{DataRate(static_cast<uint64_t>(lan.rate)), Seconds(c.delay), lan.connections}});
    NodeContainer hosts(net.GetSender());
    hosts.Add(net.GetReceivers());
    InstallTcp(c, hosts);

    Ptr<SendBufferManager> manager = MakeManager(c);
    WebRecorder recorder(c, manager, BaseRtt(c, lan.rate));
    manager->TraceConnectWithoutContext("Reassigned",
                                        MakeCallback(&WebRecorder::OnReassigned, &recorder));

    Ptr<LognormalDocumentSize> sizes = CreateObject<LognormalDocumentSize>();
    sizes->SetAttribute("Mean", DoubleValue(c.documentMean));
    sizes->SetAttribute("Percentile80", DoubleValue(c.documentPercentile80));
    sizes->SetAttribute("Maximum", DoubleValue(c.documentMax));
    Ptr<Http10Server> server = CreateObject<Http10Server>();
    server->SetAttribute("Local",
                         AddressValue(InetSocketAddress(Ipv4Address::GetAny(), kHttpPort)));
    server->SetAttribute("Protocol", TypeIdValue(TcpFlavorSocketFactory::GetTypeId()));
    server->SetAttribute("RequestBytes", UintegerValue(kRequestBytes));
    server->SetAttribute("DocumentSize", PointerValue(sizes));
    // Its own stream: the k-th document drawn has the same size under every algorithm.
    server->AssignStreams(1);
    server->TraceConnectWithoutContext("DocumentStart",
                                       MakeCallback(&WebRecorder::OnDocumentStart, &recorder));
    server->TraceConnectWithoutContext("DocumentEnd",
                                       MakeCallback(&WebRecorder::OnDocumentEnd, &recorder));
    net.GetSender()->AddApplication(server);
    server->SetStartTime(Seconds(0));

    // The server host's one interface besides the loopback.
    const Ipv4Address serverAddress =
        net.GetSender()->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
    std::vector<Ptr<Http10Client>> clients;
    for (uint32_t i = 0; i < c.clients; ++i)
    {
        recorder.AddClient(i, net.GetReceiverAddress(i));
        Ptr<Http10Client> client = CreateObject<Http10Client>();
        client->SetAttribute("Remote", AddressValue(InetSocketAddress(serverAddress, kHttpPort)));
        client->SetAttribute("Protocol", TypeIdValue(TcpFlavorSocketFactory::GetTypeId()));
        client->SetAttribute("RequestBytes", UintegerValue(kRequestBytes));
        client->TraceConnectWithoutContext(
            "RequestStart",
            MakeCallback(+[](std::pair<WebRecorder*, uint32_t> at, uint32_t index, Ptr<Socket>) {
                at.first->OnRequestStart(at.second, index);
            }).Bind(std::make_pair(&recorder, i)));
        client->TraceConnectWithoutContext(
            "Response",
            MakeCallback(+[](std::pair<WebRecorder*, uint32_t> at, uint32_t, uint64_t, Time t) {
                at.first->OnResponse(at.second, t);
            }).Bind(std::make_pair(&recorder, i)));
        net.GetReceivers().Get(i)->AddApplication(client);
        client->SetStartTime(Seconds(i * c.startInterval));
        clients.push_back(client);
    }

    Simulator::ScheduleNow(&SendBufferManager::Start, manager);
    uint64_t bytesAtMeasure = 0;
    Simulator::Schedule(Seconds(recorder.MeasureStart()),
                        [&bytesAtMeasure, &clients]() { bytesAtMeasure = BytesReceived(clients); });
    Simulator::Stop(Seconds(c.simTime));
    Simulator::Run();

    Json::Array rows;
    std::vector<double> all;
    std::vector<double> small;
    std::vector<double> large;
    uint64_t unfinished = 0;
    uint64_t timeouts = 0;
    for (const Document& d : recorder.Documents())
    {
        timeouts += d.sender ? d.sender->GetTimeouts() : d.timeouts;
    }
    for (const Request& r : recorder.Requests())
    {
        const Document* d = r.document ? &recorder.Documents()[*r.document] : nullptr;
        const bool measured = r.start >= recorder.MeasureStart() - 1e-9;
        if (measured && !r.response)
        {
            ++unfinished;
        }
        else if (measured)
        {
            all.push_back(*r.response);
            (d->bytes < kSmallFileBytes ? small : large).push_back(*r.response);
        }
        rows.emplace_back(Json::Object{
            {"client", r.client + 1},
            {"request", r.index + 1},
            {"bytes", d ? Json(d->bytes) : Json()},
            {"start", r.start},
            {"response", r.response ? Json(*r.response) : Json()},
            {"smallFile", d ? Json(d->smallFile) : Json()},
            {"buffer", d ? Json(d->buffer) : Json()},
            {"timeouts", d ? Json(d->sender ? d->sender->GetTimeouts() : d->timeouts) : Json()},
            {"measured", measured},
        });
    }
    const double bps = (BytesReceived(clients) - bytesAtMeasure) * 8.0 / c.measureTime;
    Json summary(Json::Object{
        {"throughput", bps / 1e6},
        {"throughput1", Json()},
        {"efficiency", bps / lan.rate},
        {"fairness", Json()},
        {"poolAssigned", MeanOrNull(recorder.Pool().Assigned())},
        {"poolUsed", MeanOrNull(recorder.Pool().Used())},
        {"bufferStd", Json()},
        {"meanLoss", Json()},
        {"timeouts", timeouts},
        {"finished", Json()},
        {"duration", Json()},
        {"requests", static_cast<uint64_t>(all.size())},
        {"unfinished", unfinished},
        {"responseTime", MeanOrNull(all)},
        {"responseSmall", MeanOrNull(small)},
        {"responseLarge", MeanOrNull(large)},
        {"events", Simulator::GetEventCount()},
    });
    Json result(Json::Object{{"summary", summary},
                             {"connections", Json(Json::Array{})},
                             {"timeline", Json(Json::Array{})},
                             {"requests", Json(std::move(rows))}});
    manager->Dispose();
    Simulator::Destroy();
    return result;
}

} // namespace sabt
