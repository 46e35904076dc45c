#include "satnet-scenario.h"

#include "helper/atm-dumbbell-helper.h"
#include "helper/tcp-flavor-helper.h"
#include "helper/www-helper.h"
#include "model/aal5.h"
#include "model/fairness-metrics.h"
#include "model/tcp-flavor-socket-factory.h"
#include "model/tcp-flavor-socket.h"
#include "model/www-client.h"
#include "model/www-server.h"

#include "ns3/application-container.h"
#include "ns3/bulk-send-application.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/inet-socket-address.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <chrono>
#include <functional>
#include <limits>
#include <sys/resource.h>

using namespace ns3;

namespace satnet
{

namespace
{

constexpr uint16_t kPort = 80;

/// One TCP connection (VC) as the result reports it.
struct Connection
{
    Ptr<Socket> sender;          //!< the server's socket, once it exists
    uint64_t bytesReceived = 0;  //!< highest in-order byte at the client
    uint64_t bytesRequested = 0; //!< bytes the server was asked for (bulk: unbounded)
    uint64_t requests = 0;
    Time firstDropTime = Seconds(-1);
    uint32_t cwndAtFirstDrop = 0; //!< sender's window in bytes when the trunk first dropped
};

AtmDropPolicy
DropPolicy(const std::string& name)
{
    if (name == "epd")
    {
        return AtmDropPolicy::EPD;
    }
    return name == "sd" ? AtmDropPolicy::SD : AtmDropPolicy::TAIL;
}

Ptr<TcpFlavorSocket>
AsFlavorSocket(Ptr<Socket> socket)
{
    return socket ? DynamicCast<TcpFlavorSocket>(socket) : nullptr;
}

/// Records when each VC first loses cells at the trunk, and its sender's window then.
struct FirstDropProbe
{
    std::vector<Connection>* connections;
    std::function<Ptr<Socket>(uint32_t)> senderOf;

    void OnCellDrop(uint32_t vc, uint32_t cells, AtmDropReason reason)
    {
        Connection& connection = (*connections)[vc - 1];
        if (connection.firstDropTime.IsNegative())
        {
            connection.firstDropTime = Simulator::Now();
            if (auto socket = AsFlavorSocket(senderOf(vc - 1)))
            {
                connection.cwndAtFirstDrop = socket->GetCongestionWindow();
            }
        }
    }
};

} // namespace

Json
ParamsJson(const Config& c)
{
    return Json(Json::Object{
        {"link", c.link},
        {"flavor", c.flavor},
        {"drop", c.drop},
        {"workload", c.workload},
        {"bufferRtt", c.bufferRtt},
        {"bufferCells", c.bufferCells},
        {"clients", c.clients},
        {"simTime", c.simTime},
        {"run", c.run},
        {"seed", c.seed},
        {"epdThreshold", c.epdThreshold},
        {"sdZ", c.sdZ},
        {"delay", c.delay},
        {"bottleneckRate", c.bottleneckRate},
        {"accessRate", c.accessRate},
        {"accessDelay", c.accessDelay},
        {"mss", c.mss},
        {"window", c.window},
        {"ssthresh", c.ssthresh},
        {"tick", c.tick},
        {"minRto", c.minRto},
    });
}

Json
RunScenario(const Config& c)
{
    const auto wallStart = std::chrono::steady_clock::now();
    RngSeedManager::SetSeed(c.seed);
    RngSeedManager::SetRun(c.run);
    // Measured ~10% faster than the default map scheduler on this model.
    ObjectFactory scheduler;
    scheduler.SetTypeId("ns3::PriorityQueueScheduler");
    Simulator::SetScheduler(scheduler);

    AtmDumbbellParameters network;
    network.pairs = c.clients;
    network.accessRate = DataRate(static_cast<uint64_t>(c.accessRate));
    network.accessDelay = Seconds(c.accessDelay);
    network.bottleneckRate = DataRate(static_cast<uint64_t>(c.bottleneckRate));
    network.bottleneckDelay = Seconds(c.delay);
    network.bufferCells = c.bufferCells;
    network.dropPolicy = DropPolicy(c.drop);
    network.epdThreshold = c.epdThreshold;
    network.sdZ = c.sdZ;
    AtmDumbbellHelper atm(network);

    TcpParameters tcp;
    tcp.flavor = ParseTcpFlavor(c.flavor).value(); // validated by the command line
    tcp.mss = c.mss;
    tcp.windowBytes = c.window;
    tcp.initialSsthreshBytes = c.ssthresh;
    tcp.tick = Seconds(c.tick);
    tcp.minRto = Seconds(c.minRto);
    TcpFlavorHelper tcpHelper(tcp);
    tcpHelper.Install(atm.GetServers());
    tcpHelper.Install(atm.GetClients());
    const TypeId factory = TcpFlavorSocketFactory::GetTypeId();

    std::vector<Connection> connections(c.clients);
    std::vector<Ptr<WwwServer>> servers;
    std::vector<Ptr<WwwClient>> clients;
    std::vector<Ptr<BulkSendApplication>> bulkSenders;
    std::vector<Ptr<PacketSink>> sinks;
    int64_t stream = 1000;
    if (c.workload == "www")
    {
        WwwHelper www(factory, kPort);
        for (uint32_t i = 0; i < c.clients; ++i)
        {
            ApplicationContainer pair = www.Install(atm.GetServers().Get(i),
                                                    atm.GetClients().Get(i),
                                                    atm.GetServerAddress(i));
            servers.push_back(DynamicCast<WwwServer>(pair.Get(WwwHelper::kServer)));
            clients.push_back(DynamicCast<WwwClient>(pair.Get(WwwHelper::kClient)));
            stream += servers.back()->AssignStreams(stream);
            stream += clients.back()->AssignStreams(stream);
        }
    }
    else
    {
        for (uint32_t i = 0; i < c.clients; ++i)
        {
            PacketSinkHelper sink(factory.GetName(), InetSocketAddress(Ipv4Address::GetAny(), kPort));
            sinks.push_back(
                DynamicCast<PacketSink>(sink.Install(atm.GetClients().Get(i)).Get(0)));
            BulkSendHelper bulk(factory.GetName(), InetSocketAddress(atm.GetClientAddress(i), kPort));
            bulk.SetAttribute("SendSize", UintegerValue(c.mss));
            bulkSenders.push_back(
                DynamicCast<BulkSendApplication>(bulk.Install(atm.GetServers().Get(i)).Get(0)));
        }
    }

    auto sender = [&](uint32_t i) -> Ptr<Socket> {
        return servers.empty() ? bulkSenders[i]->GetSocket() : servers[i]->GetConnection();
    };
    // The sender's window when its VC first loses cells at the trunk: slow-start overflow.
    FirstDropProbe probe{&connections, sender};
    atm.GetBottleneckQueue()->TraceConnectWithoutContext(
        "CellDrop",
        MakeCallback(&FirstDropProbe::OnCellDrop, &probe));

    Simulator::Stop(Seconds(c.simTime));
    Simulator::Run();

    // Collect before Destroy: the sockets and applications die with the simulator.
    const double capacity = aal5::MaxTcpThroughput(c.bottleneckRate, c.mss);
    std::vector<double> throughput;
    std::vector<double> demand;
    uint64_t retransmissions = 0;
    uint64_t timeouts = 0;
    uint64_t fastRetransmits = 0;
    Json::Array connectionsJson;
    std::vector<Json::Object> rows;
    for (uint32_t i = 0; i < c.clients; ++i)
    {
        Connection& connection = connections[i];
        if (!servers.empty())
        {
            connection.bytesReceived = clients[i]->GetBytesReceived();
            connection.bytesRequested = servers[i]->GetBytesRequested();
            connection.requests = servers[i]->GetRequests();
        }
        else
        {
            connection.bytesReceived = sinks[i]->GetTotalRx();
        }
        throughput.push_back(8.0 * connection.bytesReceived / c.simTime);
        demand.push_back(servers.empty() ? std::numeric_limits<double>::infinity()
                                         : 8.0 * connection.bytesRequested / c.simTime);
        Json::Object row{{"id", i},
                         {"vc", AtmDumbbellHelper::GetVc(i)},
                         {"throughput_bps", throughput.back()},
                         {"scheduled_bps", demand.back()},
                         {"bytes_received", connection.bytesReceived},
                         {"bytes_requested", connection.bytesRequested},
                         {"requests", connection.requests}};
        uint64_t connRetx = 0;
        uint64_t connTimeouts = 0;
        uint64_t connFast = 0;
        // Both ends count: requests travel client to server and can be lost too.
        for (auto socket : {AsFlavorSocket(sender(i)),
                            AsFlavorSocket(servers.empty() ? nullptr : clients[i]->GetSocket())})
        {
            if (socket)
            {
                connRetx += socket->GetRetransmittedSegments();
                connTimeouts += socket->GetTimeouts();
                connFast += socket->GetFastRetransmits();
            }
        }
        retransmissions += connRetx;
        timeouts += connTimeouts;
        fastRetransmits += connFast;
        row.emplace_back("retransmissions", connRetx);
        row.emplace_back("timeouts", connTimeouts);
        row.emplace_back("fast_retransmits", connFast);
        const bool dropped = !connection.firstDropTime.IsNegative();
        row.emplace_back("first_drop_s", dropped ? Json(connection.firstDropTime.GetSeconds()) : Json());
        row.emplace_back("cwnd_at_first_drop_segments",
                         dropped ? Json(static_cast<double>(connection.cwndAtFirstDrop) / c.mss)
                                 : Json());
        rows.push_back(std::move(row));
    }
    const std::vector<double> fairShare = MaxMinFairShares(capacity, demand);
    for (uint32_t i = 0; i < c.clients; ++i)
    {
        rows[i].insert(rows[i].begin() + 4, {"fair_share_bps", fairShare[i]});
        connectionsJson.emplace_back(std::move(rows[i]));
    }

    double goodput = 0;
    double offered = 0;
    for (uint32_t i = 0; i < c.clients; ++i)
    {
        goodput += throughput[i];
        offered += demand[i];
    }
    Json summary(Json::Object{
        {"efficiency", Efficiency(throughput, capacity)},
        {"fairness", FairnessIndex(throughput, fairShare)},
        {"capacity_bps", capacity},
        {"goodput_bps", goodput},
        {"offered_bps", offered},
    });
    auto bottleneck = atm.GetBottleneckQueue();
    auto reverse = atm.GetReverseQueue();
    for (auto reason : {AtmDropReason::EPD_THRESHOLD,
                        AtmDropReason::SD_SHARE,
                        AtmDropReason::BUFFER_FULL,
                        AtmDropReason::PARTIAL,
                        AtmDropReason::TAIL_DROP})
    {
        summary.Set("frames_dropped_" + ToString(reason),
                    bottleneck->GetDroppedFrames(reason) + reverse->GetDroppedFrames(reason));
        summary.Set("cells_dropped_" + ToString(reason),
                    bottleneck->GetDroppedCells(reason) + reverse->GetDroppedCells(reason));
    }
    summary.Set("frames_lost_reassembly", atm.GetReassembly()->GetLostFrames());
    summary.Set("retransmissions", retransmissions);
    summary.Set("timeouts", timeouts);
    summary.Set("fast_retransmits", fastRetransmits);
    summary.Set("events", Simulator::GetEventCount());
    Simulator::Destroy();

    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wallStart;
    summary.Set("wall_seconds", wall.count());
    summary.Set("peak_rss_mb", usage.ru_maxrss / 1024.0);
    summary.Set("version", std::string("satnet ") + SATNET_VERSION + " (ns-3 " + NS3_VERSION + ")");

    return Json(Json::Object{{"params", ParamsJson(c)},
                             {"summary", summary},
                             {"connections", Json(std::move(connectionsJson))}});
}

} // namespace satnet
