#include "sabt-scenario.h"

#include "sabt-pool-use.h"
#include "sabt-web.h"

#include "helper/parallel-paths-helper.h"
#include "helper/tcp-flavor-helper.h"
#include "model/fairness-metrics.h"
#include "model/file-transfer-source.h"
#include "model/ns2-tcp-socket.h"
#include "model/tcp-flavor-socket-factory.h"

#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/inet-socket-address.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <memory>
#include <optional>
#include <vector>

using namespace ns3;
using satsweep::Json;
using satsweep::ValueType;

namespace sabt
{

namespace
{

constexpr uint16_t kPort = 5001;
/// Receive buffer of every receiver, bytes: far above any pool, so the send buffer is the cap.
constexpr uint32_t kWindowBytes = 1U << 30;

/// One connection as the result reports it.
struct Connection
{
    uint32_t path = 0;            //!< its path, from 0
    double start = 0;             //!< when its sender opens the connection, s
    double ideal = 0;             //!< its path's rate / the path's connections, bit/s
    double baseRtt = 0;           //!< its path's round trip without queueing, s
    Ptr<Ns2TcpSocket> sender;     //!< its sender, once started
    uint32_t managed = 0;         //!< its index in the SendBufferManager
    uint64_t received = 0;        //!< bytes its receiver got
    uint64_t atTick = 0;          //!< received at the last reassignment
    uint64_t atMeasure = 0;       //!< received when the measurement began
    std::optional<double> end;    //!< its file's last byte acknowledged, s
    std::vector<double> buffers;  //!< its buffer at every reassignment measured, bytes
    std::vector<double> demands;  //!< its demand then, bytes (abt, sabt)
};

/// TCP/IP headers of a segment and of an ACK, bytes (ns-2's 40).
constexpr double kHeaderBytes = 40;

/// Mean and (population) standard deviation of @p values; (0, 0) for none.
std::pair<double, double>
MeanAndStd(const std::vector<double>& values)
{
    if (values.empty())
    {
        return {0, 0};
    }
    double sum = 0;
    for (double v : values)
    {
        sum += v;
    }
    const double mean = sum / values.size();
    double squares = 0;
    for (double v : values)
    {
        squares += (v - mean) * (v - mean);
    }
    return {mean, std::sqrt(squares / values.size())};
}

/// Follows the connections: their bytes, buffers and demands at every reassignment.
class Recorder
{
  public:
    Recorder(const Config& config, Ptr<SendBufferManager> manager)
        : m_config(config),
          m_manager(manager),
          m_measureStart(config.simTime - config.measureTime)
    {
    }

    std::vector<Connection>& Connections()
    {
        return m_connections;
    }

    /// Connection @p i's sender opened its connection (before Connect()).
    void OnStart(uint32_t i, uint64_t bytes, Ptr<Socket> socket)
    {
        Connection& c = m_connections[i];
        c.sender = DynamicCast<Ns2TcpSocket>(socket);
        NS_ABORT_MSG_UNLESS(c.sender, "sabt: the senders need the ns2 sender");
        c.managed = m_manager->Add(c.sender, bytes, Seconds(c.baseRtt));
    }

    /// Connection @p i's file was acknowledged whole.
    void OnEnd(uint32_t i)
    {
        m_connections[i].end = Simulator::Now().GetSeconds();
        m_manager->Remove(m_connections[i].managed);
    }

    /// Snapshot of the bytes received when the measurement begins.
    void OnMeasureStart()
    {
        for (Connection& c : m_connections)
        {
            c.atMeasure = c.received;
        }
    }

    /// After every periodic reassignment: a timeline row per running connection.
    void OnReassigned()
    {
        const double now = Simulator::Now().GetSeconds();
        const bool measured = now >= m_measureStart - 1e-9 && now < m_config.simTime;
        const auto& managed = m_manager->GetConnections();
        double assigned = 0;
        for (uint32_t i = 0; i < m_connections.size(); ++i)
        {
            Connection& c = m_connections[i];
            if (!c.sender || !managed[c.managed].active)
            {
                continue;
            }
            const SendBufferManager::Connection& m = managed[c.managed];
            assigned += m.assigned;
            const double mbps = (c.received - c.atTick) * 8.0 / m_config.interval / 1e6;
            c.atTick = c.received;
            m_rows.emplace_back(
                Json::Object{{"time", now},
                             {"connection", i + 1},
                             {"buffer", m.assigned},
                             {"demand", m.demand ? Json(*m.demand) : Json()},
                             {"throughput", mbps},
                             {"cwnd", c.sender->GetCwndPackets()},
                             {"lossRate", m.lossRate}});
            if (measured)
            {
                c.buffers.push_back(m.assigned);
                if (m.demand)
                {
                    c.demands.push_back(*m.demand);
                }
            }
        }
        if (measured)
        {
            m_poolUse.Sample(assigned, *m_manager);
        }
    }

    Json::Array TakeRows()
    {
        return std::move(m_rows);
    }

    const PoolUse& Pool() const
    {
        return m_poolUse;
    }

  private:
    const Config& m_config;
    Ptr<SendBufferManager> m_manager;
    double m_measureStart;               //!< s
    std::vector<Connection> m_connections;
    Json::Array m_rows;                  //!< the timeline table
    PoolUse m_poolUse;                   //!< at each measured reassignment
};

/// Listens at receiver @p i, ACKing every packet, and counts the bytes it gets.
Ptr<Socket>
Listen(Ptr<Node> receiver, Connection* connection)
{
    Ptr<Socket> listener = Socket::CreateSocket(receiver, TcpFlavorSocketFactory::GetTypeId());
    listener->SetAttribute("DelAckCount", UintegerValue(1)); // an accepted socket keeps it
    listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
    listener->Listen();
    listener->SetAcceptCallback(
        MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
        MakeCallback(+[](Connection* c, Ptr<Socket> s, const Address&) {
            s->SetRecvCallback(MakeCallback(+[](Connection* c, Ptr<Socket> r) {
                while (Ptr<Packet> p = r->Recv())
                {
                    c->received += p->GetSize();
                }
            }).Bind(c));
        }).Bind(connection));
    return listener;
}

} // namespace

void
InstallTcp(const Config& c, const NodeContainer& hosts)
{
    TcpParameters tcp;
    tcp.model = TcpModel::NS2;
    tcp.flavor = TcpFlavor::RENO;
    tcp.mss = c.segmentSize;
    tcp.windowBytes = kWindowBytes;
    tcp.initialSsthreshBytes = kWindowBytes; // no threshold until the first loss
    tcp.tick = Seconds(c.tick);
    tcp.minRto = Seconds(c.minRto);
    ns3::Config::SetDefault("ns3::Ns2TcpSocket::InitialRto", TimeValue(Seconds(c.initialRto)));
    TcpFlavorHelper(tcp).Install(hosts);
}

Ptr<SendBufferManager>
MakeManager(const Config& c)
{
    Ptr<SendBufferManager> manager = CreateObject<SendBufferManager>();
    manager->SetAttribute("Algorithm", StringValue(c.algorithm));
    manager->SetAttribute("Pool", UintegerValue(c.pool));
    manager->SetAttribute("Interval", TimeValue(Seconds(c.interval)));
    manager->SetAttribute("AbtWindowFactor", DoubleValue(c.abtFactor));
    manager->SetAttribute("FixedBuffer", UintegerValue(c.fixedBuffer));
    manager->SetAttribute("Leftover", StringValue(c.leftover));
    manager->SetAttribute("SmallFileLimit", UintegerValue(c.smallFileLimit));
    manager->SetAttribute("SabtRtt", StringValue(c.sabtRtt));
    manager->SetAttribute("LossWindow", TimeValue(Seconds(c.lossWindow)));
    return manager;
}

double
BaseRtt(const Config& c, double rate)
{
    const double perBit = 1 / c.accessRate + 1 / rate + 1 / c.egressRate;
    return 2 * (c.accessDelay + c.delay + c.egressDelay) +
           (c.segmentSize + 2 * kHeaderBytes) * 8 * perBit;
}

Json
RunScenario(const Config& c)
{
    if (c.scenario == "e3")
    {
        return RunWeb(c);
    }
    const std::vector<PathPlan> plans = Paths(c);
    ParallelPathsHelper net;
    net.accessRate = DataRate(static_cast<uint64_t>(c.accessRate));
    net.accessDelay = Seconds(c.accessDelay);
    net.egressRate = DataRate(static_cast<uint64_t>(c.egressRate));
    net.egressDelay = Seconds(c.egressDelay);
    net.bufferPackets = c.routerBuffer;
    std::vector<ParallelPathsHelper::Path> paths;
    for (const PathPlan& p : plans)
    {
        paths.push_back({DataRate(static_cast<uint64_t>(p.rate)), Seconds(c.delay), p.connections});
    }
    net.Install(paths);
    NodeContainer hosts(net.GetSender());
    hosts.Add(net.GetReceivers());
    InstallTcp(c, hosts);

    Ptr<SendBufferManager> manager = MakeManager(c);
    Recorder recorder(c, manager);
    manager->TraceConnectWithoutContext("Reassigned",
                                        MakeCallback(&Recorder::OnReassigned, &recorder));

    const uint32_t n = net.GetReceivers().GetN();
    std::vector<Connection>& connections = recorder.Connections();
    connections.resize(n); // no reallocation from here: the callbacks hold pointers
    std::vector<Ptr<Socket>> listeners;
    for (uint32_t i = 0; i < n; ++i)
    {
        Connection& conn = connections[i];
        conn.path = net.GetPathOf(i);
        conn.start = i * c.startInterval;
        conn.ideal = plans[conn.path].rate / plans[conn.path].connections;
        conn.baseRtt = BaseRtt(c, plans[conn.path].rate);
        listeners.push_back(Listen(net.GetReceivers().Get(i), &conn));
        if (const double p = LossRate(c, i); p > 0)
        {
            Ptr<RateErrorModel> loss = CreateObject<RateErrorModel>();
            loss->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
            loss->SetAttribute("ErrorRate", DoubleValue(p));
            loss->AssignStreams(1 + i);
            net.GetReceiverDevice(i)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
        }

        Ptr<FileTransferSource> source = CreateObject<FileTransferSource>();
        source->SetAttribute("Remote",
                             AddressValue(InetSocketAddress(net.GetReceiverAddress(i), kPort)));
        source->SetAttribute("Protocol", TypeIdValue(TcpFlavorSocketFactory::GetTypeId()));
        source->SetAttribute("FileSize",
                             StringValue("ns3::ConstantRandomVariable[Constant=" +
                                         std::to_string(c.fileSize) + "]"));
        source->SetAttribute("MaxTransfers", UintegerValue(1));
        source->TraceConnectWithoutContext(
            "TransferStart",
            MakeCallback(+[](std::pair<Recorder*, uint32_t> at,
                             uint32_t,
                             uint64_t bytes,
                             Ptr<Socket> socket) { at.first->OnStart(at.second, bytes, socket); })
                .Bind(std::make_pair(&recorder, i)));
        source->TraceConnectWithoutContext(
            "TransferEnd",
            MakeCallback(+[](std::pair<Recorder*, uint32_t> at, uint32_t) {
                at.first->OnEnd(at.second);
            }).Bind(std::make_pair(&recorder, i)));
        net.GetSender()->AddApplication(source);
        source->SetStartTime(Seconds(conn.start));
    }

    // The reassignments start with the first connection (they tick at whole intervals from 0).
    Simulator::ScheduleNow(&SendBufferManager::Start, manager);
    Simulator::Schedule(Seconds(c.simTime - c.measureTime), &Recorder::OnMeasureStart, &recorder);
    Simulator::Stop(Seconds(c.simTime));
    Simulator::Run();

    Json::Array rows;
    std::vector<double> throughput;
    std::vector<double> ideal;
    std::vector<double> bufferStd;
    std::vector<double> lossRates;
    std::vector<double> durations;
    uint64_t timeouts = 0;
    double total = 0;
    const auto& managed = manager->GetConnections();
    for (uint32_t i = 0; i < n; ++i)
    {
        const Connection& conn = connections[i];
        const double bps = (conn.received - conn.atMeasure) * 8.0 / c.measureTime;
        const auto [buffer, spread] = MeanAndStd(conn.buffers);
        const auto [demand, demandSpread] = MeanAndStd(conn.demands);
        const bool started = conn.sender != nullptr;
        const SendBufferManager::Connection* m = started ? &managed[conn.managed] : nullptr;
        throughput.push_back(bps);
        ideal.push_back(conn.ideal);
        bufferStd.push_back(spread);
        total += bps;
        if (m)
        {
            lossRates.push_back(m->lossRate);
            timeouts += conn.sender->GetTimeouts();
        }
        if (conn.end)
        {
            durations.push_back(*conn.end - conn.start);
        }
        rows.emplace_back(Json::Object{
            {"connection", i + 1},
            {"path", conn.path + 1},
            {"start", conn.start},
            {"throughput", bps / 1e6},
            {"ideal", conn.ideal / 1e6},
            {"ratio", bps / conn.ideal},
            {"buffer", conn.buffers.empty() ? Json() : Json(buffer)},
            {"bufferStd", conn.buffers.empty() ? Json() : Json(spread)},
            {"demand", conn.demands.empty() ? Json() : Json(demand)},
            {"lossRate", m ? Json(m->lossRate) : Json()},
            {"srtt", started ? Json(conn.sender->GetSmoothedRtt().GetSeconds()) : Json()},
            {"rto", started ? Json(conn.sender->GetRtoWithoutBackoff().GetSeconds()) : Json()},
            {"timeouts", started ? Json(conn.sender->GetTimeouts()) : Json()},
            {"fastRetransmits", started ? Json(conn.sender->GetFastRetransmits()) : Json()},
            {"smallFile", m && m->smallFile},
            {"duration", conn.end ? Json(*conn.end - conn.start) : Json()},
        });
    }
    double capacity = 0;
    for (const PathPlan& p : plans)
    {
        capacity += p.rate;
    }
    const auto [bufferSpread, unused] = MeanAndStd(bufferStd);
    Json summary(Json::Object{
        {"throughput", total / 1e6},
        {"throughput1", throughput[0] / 1e6},
        {"efficiency", Efficiency(throughput, capacity)},
        {"fairness", FairnessIndex(throughput, ideal)},
        {"poolAssigned", MeanAndStd(recorder.Pool().Assigned()).first},
        {"poolUsed", MeanAndStd(recorder.Pool().Used()).first},
        {"bufferStd", bufferSpread},
        {"meanLoss", MeanAndStd(lossRates).first},
        {"timeouts", timeouts},
        {"finished", static_cast<uint64_t>(durations.size())},
        {"duration", durations.empty() ? Json() : Json(MeanAndStd(durations).first)},
        {"requests", Json()},
        {"unfinished", Json()},
        {"responseTime", Json()},
        {"responseSmall", Json()},
        {"responseLarge", Json()},
        {"events", Simulator::GetEventCount()},
    });
    Json result(Json::Object{{"summary", summary},
                             {"connections", Json(std::move(rows))},
                             {"timeline", Json(recorder.TakeRows())},
                             {"requests", Json(Json::Array{})}});
    for (Ptr<Socket>& l : listeners)
    {
        l->Close();
    }
    manager->Dispose();
    Simulator::Destroy();
    return result;
}

satsweep::OutputSchema
Outputs()
{
    satsweep::OutputSchema o;
    o.AddSummary("throughput",
                 ValueType::FLOAT,
                 "Mbit/s",
                 "Total throughput (bytes the receivers got; e3: the clients) over the last "
                 "measureTime s.");
    o.AddSummary("throughput1",
                 ValueType::FLOAT,
                 "Mbit/s",
                 "Connection 1's throughput then (fig: the lone connection of path 1; e2: the "
                 "fast connection; e3: null).");
    o.AddSummary("efficiency",
                 ValueType::FLOAT,
                 "",
                 "Total throughput / the sum of the bottleneck rates (e3: the LAN's use).");
    o.AddSummary("fairness",
                 ValueType::FLOAT,
                 "",
                 "Jain's index of throughput / ideal over the connections, the ideal being "
                 "the path's rate / its connections (fig: 1.5, 0.75, 0.375 Mbit/s; e3: null).");
    o.SetSummaryBounds("fairness", 0, 1);
    o.AddSummary("poolAssigned",
                 ValueType::FLOAT,
                 "",
                 "Mean over the reassignments measured of the buffers assigned / pool.");
    o.AddSummary("poolUsed",
                 ValueType::FLOAT,
                 "",
                 "Mean over the reassignments measured of the bytes sent and not yet "
                 "acknowledged (the part of the buffers the windows use) / pool.");
    o.AddSummary("bufferStd",
                 ValueType::FLOAT,
                 "bytes",
                 "Stability: mean over the connections of the standard deviation of their "
                 "assigned buffer over the reassignments measured (e3: null).");
    o.AddSummary("meanLoss",
                 ValueType::FLOAT,
                 "",
                 "Mean over the connections of p: loss indications (fast retransmits and "
                 "timeouts) / data segments sent, as SABT estimates it (e3: null).");
    o.AddSummary("timeouts", ValueType::INT, "", "Retransmission timeouts, all connections (e3: "
                 "the server's, all requests).");
    o.AddSummary("finished",
                 ValueType::INT,
                 "",
                 "Connections whose file was acknowledged whole (0 with bulk senders; e3: "
                 "null, see requests).");
    o.AddSummary("duration",
                 ValueType::FLOAT,
                 "s",
                 "Mean time from a finished connection's start to the ACK of its last byte "
                 "(null with bulk senders and in e3).");
    o.AddSummary("requests",
                 ValueType::INT,
                 "",
                 "e3: requests started in the last measureTime s whose document arrived whole "
                 "(null in fig, e1, e2).");
    o.AddSummary("unfinished",
                 ValueType::INT,
                 "",
                 "e3: requests started then whose document had not arrived at the end (or "
                 "whose connection failed): counted, not in the means.");
    o.AddSummary("responseTime",
                 ValueType::FLOAT,
                 "s",
                 "e3: mean response time of those requests, from the connection request to the "
                 "document's last byte.");
    o.AddSummary("responseSmall",
                 ValueType::FLOAT,
                 "s",
                 "e3: the same over the documents under 8 KB (8192 bytes, the paper's limit, "
                 "whatever --smallFileLimit).");
    o.AddSummary("responseLarge",
                 ValueType::FLOAT,
                 "s",
                 "e3: the same over the documents of 8 KB or more.");
    o.AddSummary("events", ValueType::INT, "events", "ns-3 events executed.");

    const std::string t = "connections";
    o.AddColumn(t, "connection", ValueType::INT, "", "Connection, from 1 in start order (fig, e1, "
                                                     "e2; e3: no rows).");
    o.AddColumn(t, "path", ValueType::INT, "", "Its path, from 1.");
    o.AddColumn(t, "start", ValueType::FLOAT, "s", "When it opened its connection.");
    o.AddColumn(t, "throughput", ValueType::FLOAT, "Mbit/s", "Throughput over the last "
                                                           "measureTime s.");
    o.AddColumn(t, "ideal", ValueType::FLOAT, "Mbit/s", "Its path's rate / its connections.");
    o.AddColumn(t, "ratio", ValueType::FLOAT, "", "throughput / ideal.");
    o.AddColumn(t, "buffer", ValueType::FLOAT, "bytes", "Mean assigned buffer then.");
    o.AddColumn(t, "bufferStd", ValueType::FLOAT, "bytes", "Its standard deviation.");
    o.AddColumn(t, "demand", ValueType::FLOAT, "bytes", "Mean demand then (abt, sabt).");
    o.AddColumn(t, "lossRate", ValueType::FLOAT, "", "p at the end: loss indications / segments sent.");
    o.AddColumn(t, "srtt", ValueType::FLOAT, "s", "Smoothed RTT at the end.");
    o.AddColumn(t, "rto", ValueType::FLOAT, "s", "RTO without backoff at the end.");
    o.AddColumn(t, "timeouts", ValueType::INT, "", "Retransmission timeouts.");
    o.AddColumn(t, "fastRetransmits", ValueType::INT, "", "Fast retransmits.");
    o.AddColumn(t, "smallFile", ValueType::BOOL, "", "Its file took the small-file rule.");
    o.AddColumn(t, "duration", ValueType::FLOAT, "s", "Start to the ACK of its last byte.");

    const std::string l = "timeline";
    o.AddColumn(l, "time", ValueType::FLOAT, "s", "A reassignment (every interval from 0; fig, "
                                                  "e1, e2; e3: no rows).");
    o.AddColumn(l, "connection", ValueType::INT, "", "A running connection.");
    o.AddColumn(l, "buffer", ValueType::FLOAT, "bytes", "Its buffer from then on.");
    o.AddColumn(l, "demand", ValueType::FLOAT, "bytes", "Its demand (abt, sabt).");
    o.AddColumn(l, "throughput", ValueType::FLOAT, "Mbit/s", "Throughput over the last interval.");
    o.AddColumn(l, "cwnd", ValueType::FLOAT, "packets", "Its congestion window.");
    o.AddColumn(l, "lossRate", ValueType::FLOAT, "", "p so far.");

    const std::string r = "requests";
    o.AddColumn(r, "client", ValueType::INT, "", "e3: the client, from 1 (fig, e1, e2: no rows).");
    o.AddColumn(r, "request", ValueType::INT, "", "Its request, from 1 on that client.");
    o.AddColumn(r, "bytes", ValueType::INT, "bytes", "The document's size (null while the server "
                                                     "has not read the request).");
    o.AddColumn(r, "start", ValueType::FLOAT, "s", "Its connection request.");
    o.AddColumn(r, "response", ValueType::FLOAT, "s", "Response time: to the document's last byte "
                                                      "(null: unfinished at the end).");
    o.AddColumn(r, "smallFile", ValueType::BOOL, "", "The small-file rule applied to it.");
    o.AddColumn(r, "buffer", ValueType::FLOAT, "bytes", "Its send buffer when the document "
                                                        "started.");
    o.AddColumn(r, "timeouts", ValueType::INT, "", "Its sender's retransmission timeouts.");
    o.AddColumn(r, "measured", ValueType::BOOL, "", "Started in the last measureTime s: in the "
                                                    "summary's means.");
    return o;
}

} // namespace sabt
