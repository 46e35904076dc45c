#include "satnet-scenario.h"

#include "helper/atm-dumbbell-helper.h"
#include "helper/tcp-flavor-helper.h"
#include "helper/www-helper.h"
#include "model/aal5.h"
#include "model/fairness-metrics.h"
#include "model/tcp-flavor-socket-factory.h"
#include "model/tcp-flavor-socket.h"
#include "model/truncated-poisson-random-variable.h"
#include "model/www-client.h"
#include "model/www-server.h"

#include "ns3/application-container.h"
#include "ns3/boolean.h"
#include "ns3/buffer.h"
#include "ns3/bulk-send-application.h"
#include "ns3/bulk-send-helper.h"
#include "ns3/config.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <tuple>
#include <sys/resource.h>

using namespace ns3;
using satsweep::Json;

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

/**
 * The timeline: the bytes the clients have read (and, with the WWW load, been asked for) at the
 * end of each bin of `timelineBin` seconds. A sample changes nothing in the model; its events are
 * not counted in the summary's `events`, which stays the model's.
 */
struct TimelineProbe
{
    double bin;                              //!< s
    double end;                              //!< s: simTime, where the last bin ends
    std::function<uint64_t()> received;      //!< bytes read by every client so far
    std::function<uint64_t()> requested;     //!< bytes asked of every server so far
    std::vector<std::pair<uint64_t, uint64_t>> samples; //!< (received, requested) per bin end
    uint64_t events = 0;                     //!< the samples' own events

    void Start()
    {
        if (bin > 0 && bin < end)
        {
            Simulator::Schedule(Seconds(bin), &TimelineProbe::Sample, this);
        }
    }

    void Sample()
    {
        ++events;
        samples.emplace_back(received(), requested());
        // The next bin's end from its index, not by adding bin: no drift over many bins.
        const double next = bin * static_cast<double>(samples.size() + 1);
        if (next < end)
        {
            Simulator::Schedule(Seconds(next) - Simulator::Now(), &TimelineProbe::Sample, this);
        }
    }

    /// @return the rows, the last bin closed by the run's own totals at simTime
    Json::Array Rows(double capacity, bool www)
    {
        Json::Array rows;
        if (bin <= 0)
        {
            return rows;
        }
        samples.emplace_back(received(), requested());
        uint64_t before = 0;
        for (size_t k = 0; k < samples.size(); ++k)
        {
            const double start = bin * static_cast<double>(k);
            const double duration = (k + 1 == samples.size() ? end : bin * (k + 1.0)) - start;
            const uint64_t bytes = samples[k].first - before;
            before = samples[k].first;
            const double goodput = 8.0 * static_cast<double>(bytes) / duration;
            const double backlog =
                static_cast<double>(samples[k].second) - static_cast<double>(samples[k].first);
            rows.emplace_back(Json::Object{{"time", start},
                                           {"duration", duration},
                                           {"bytes", bytes},
                                           {"goodput_bps", goodput},
                                           {"efficiency", goodput / capacity},
                                           {"backlog_bytes", www ? Json(backlog) : Json()}});
        }
        return rows;
    }
};

/**
 * ns-3 keeps a freed packet buffer (Buffer::Data) for reuse only when it is at least as large as
 * the largest one freed so far, and hands it to the next packet created, whatever that packet's
 * size. A segment joined from two application packets (a WWW file boundary) is copied into a
 * block of its full size, so every later long-lived packet (a queued request, a segment in a send
 * buffer) took a block of up to a whole segment: memory per packet grew with the MSS. One 1 MiB
 * block, held until the process ends, raises that mark above any frame's, so no buffer is kept:
 * each is allocated at its own size. Only memory changes, never a result.
 */
void
DisableBufferReuse()
{
    static const Buffer* held = nullptr;
    if (held)
    {
        return;
    }
    auto large = new Buffer();
    large->AddAtStart(1 << 20);
    delete large; // the 1 MiB block is now the largest freed, and the next to be reused
    held = new Buffer(); // takes it, and keeps it
}

} // namespace

Json
RunScenario(const Config& c)
{
    DisableBufferReuse();
    const auto wallStart = std::chrono::steady_clock::now();
    // Every Poisson draw of the WWW load (WwwClient's requests, SpecwebFileSize's index).
    ns3::Config::SetDefault("ns3::TruncatedPoissonRandomVariable::Bounds",
                            EnumValue(c.poissonBounds == "clamp"
                                          ? TruncatedPoisson::CLAMP
                                          : TruncatedPoisson::REDRAW));
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
    network.switchModel = c.switchModel == "cell" ? AtmSwitchModel::CELL : AtmSwitchModel::FRAME;
    network.partialFrames =
        c.partialFrames == "accept" ? AtmPartialFrames::ACCEPT : AtmPartialFrames::PPD;
    AtmDumbbellHelper atm(network);

    TcpParameters tcp;
    tcp.flavor = ParseTcpFlavor(c.flavor).value(); // validated by the command line
    tcp.model = ParseTcpModel(c.tcpModel).value();
    tcp.mss = c.mss;
    tcp.windowBytes = c.window;
    tcp.initialSsthreshBytes = c.ssthresh;
    tcp.tick = Seconds(c.tick);
    tcp.minRto = Seconds(c.minRto);
    tcp.slowStartRestart = c.slowStartRestart;
    tcp.timerClock = ParseTimerClock(c.timerClock).value(); // validated by the command line
    tcp.fastRetransmitGuard = c.fastRetransmitGuard;
    tcp.byteWindow = c.cwndUnit == "bytes";
    if (c.workload == "bulk")
    {
        // A bulk sender keeps its send buffer full of segment-sized packets, and memory goes by
        // packet: 512 MiB of them is ~200 MB per pair at MSS 1024. Four windows (and segments)
        // are more than TCP ever has outstanding, so it never waits for data either way; the
        // smaller buffer keeps 512 MiB's remainder modulo the MSS, so the sender's last segment
        // fits or waits exactly as before (and the event count stays the same).
        const uint64_t full = tcp.sndBufBytes;
        const uint64_t needed = 4 * (uint64_t{c.window} + c.mss);
        if (needed < full)
        {
            tcp.sndBufBytes = static_cast<uint32_t>(full - (full - needed) / c.mss * c.mss);
        }
    }
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
        www.SetClientAttribute("PagePacing",
                               EnumValue(c.pagePacing == "afterBatch"
                                             ? WwwClient::PagePacing::AFTER_BATCH
                                             : WwwClient::PagePacing::PERIOD));
        www.SetConnections(c.connections == "page"        ? WwwConnections::PAGE
                           : c.connections == "pageReset" ? WwwConnections::PAGE_RESET
                                                          : WwwConnections::RUN);
        www.SetClientAttribute("RandomStartPhase", BooleanValue(c.clientPhase == "random"));
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
    atm.TraceBottleneckCellDrop(MakeCallback(&FirstDropProbe::OnCellDrop, &probe));

    TimelineProbe timeline{c.timelineBin, c.simTime};
    timeline.received = [&]() {
        uint64_t bytes = 0;
        for (uint32_t i = 0; i < c.clients; ++i)
        {
            bytes += servers.empty() ? sinks[i]->GetTotalRx() : clients[i]->GetBytesReceived();
        }
        return bytes;
    };
    timeline.requested = [&]() {
        uint64_t bytes = 0;
        for (const auto& server : servers)
        {
            bytes += server->GetBytesRequested();
        }
        return bytes;
    };
    timeline.Start();

    Simulator::Stop(Seconds(c.simTime));
    Simulator::Run();

    // Collect before Destroy: the sockets and applications die with the simulator.
    const double capacity = aal5::MaxTcpThroughput(c.bottleneckRate, c.mss);
    std::vector<double> throughput;
    std::vector<double> demand;
    uint64_t retransmissions = 0;
    uint64_t timeouts = 0;
    uint64_t fastRetransmits = 0;
    uint64_t idleRestarts = 0;
    uint64_t connectionsOpened = 0;
    uint64_t senderResets = 0;
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
        // Both ends of every connection of the pair count: requests travel client to server
        // and can be lost too.
        std::vector<Ptr<Socket>> sockets{sender(i)};
        if (!servers.empty())
        {
            sockets = servers[i]->GetConnections();
            const auto opened = clients[i]->GetSockets();
            sockets.insert(sockets.end(), opened.begin(), opened.end());
            connectionsOpened += opened.size();
            senderResets += servers[i]->GetSenderResets() + clients[i]->GetSenderResets();
        }
        else
        {
            ++connectionsOpened;
        }
        for (const auto& each : sockets)
        {
            if (auto socket = AsFlavorSocket(each))
            {
                connRetx += socket->GetRetransmittedSegments();
                connTimeouts += socket->GetTimeouts();
                connFast += socket->GetFastRetransmits();
                idleRestarts += socket->GetIdleRestarts();
            }
        }
        retransmissions += connRetx;
        timeouts += connTimeouts;
        fastRetransmits += connFast;
        row.emplace_back("retransmissions", connRetx);
        row.emplace_back("timeouts", connTimeouts);
        row.emplace_back("fast_retransmits", connFast);
        const bool dropped = !connection.firstDropTime.IsNegative();
        row.emplace_back("first_drop_s",
                         dropped ? Json(connection.firstDropTime.GetSeconds()) : Json());
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
    for (auto reason : {AtmDropReason::EPD_THRESHOLD,
                        AtmDropReason::SD_SHARE,
                        AtmDropReason::BUFFER_FULL,
                        AtmDropReason::PARTIAL,
                        AtmDropReason::TAIL_DROP})
    {
        summary.Set("frames_dropped_" + ToString(reason), atm.GetTrunkDroppedFrames(reason));
        summary.Set("cells_dropped_" + ToString(reason), atm.GetTrunkDroppedCells(reason));
    }
    summary.Set("frames_lost_reassembly", atm.GetReassembly()->GetLostFrames());
    summary.Set("retransmissions", retransmissions);
    summary.Set("timeouts", timeouts);
    summary.Set("fast_retransmits", fastRetransmits);
    summary.Set("idle_restarts", idleRestarts);
    summary.Set("connections_opened", connectionsOpened);
    summary.Set("sender_resets", senderResets);
    summary.Set("events", Simulator::GetEventCount() - timeline.events);
    Json::Array timelineJson = timeline.Rows(capacity, !servers.empty());
    Simulator::Destroy();

    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wallStart;
    summary.Set("wall_seconds", wall.count());
    summary.Set("peak_rss_mb", usage.ru_maxrss / 1024.0);

    return Json(Json::Object{{"summary", summary},
                             {"connections", Json(std::move(connectionsJson))},
                             {"timeline", Json(std::move(timelineJson))}});
}

satsweep::OutputSchema
Outputs()
{
    using satsweep::ValueType;
    satsweep::OutputSchema o;
    o.AddSummary("efficiency",
                 ValueType::FLOAT,
                 "fraction of capacity",
                 "E = goodput_bps / capacity_bps: the share of the trunk's TCP capacity the "
                 "connections delivered.");
    o.AddSummary("fairness",
                 ValueType::FLOAT,
                 "index, 0 to 1",
                 "F = (sum r_i)^2 / (N sum r_i^2) with r_i = throughput_bps / fair_share_bps: "
                 "Jain's index over the max-min fair shares (connections without demand left "
                 "out); 1 when every connection got the same fraction of its share.")
        .SetSummaryBounds("fairness", 0, 1);
    o.AddSummary("capacity_bps",
                 ValueType::FLOAT,
                 "bit/s",
                 "C: the most TCP payload the trunk can carry, bottleneckRate x mss / wire bytes "
                 "of a full segment's AAL5 cells.");
    o.AddSummary("goodput_bps",
                 ValueType::FLOAT,
                 "bit/s",
                 "Sum of the connections' throughput_bps.");
    o.AddSummary("offered_bps",
                 ValueType::FLOAT,
                 "bit/s",
                 "Sum of the connections' scheduled_bps: the load the servers were asked for; "
                 "null for the bulk workload (unbounded).");
    // Per drop reason: what its frames and its cells count.
    const std::vector<std::tuple<std::string, std::string, std::string>> reasons{
        {"epd",
         "Frames refused whole by EPD (more than epdThreshold x bufferCells cells buffered)",
         "Cells of the frames EPD refused"},
        {"sd",
         "Frames refused whole by Selective Drop (above EPD's threshold and the VC above sdZ x "
         "its share)",
         "Cells of the frames Selective Drop refused"},
        {"full",
         "Frames refused whole because not one cell of them fitted",
         "Cells of the frames refused for want of room"},
        {"partial",
         "Frames accepted whose last cells no longer fitted (the receiving host's reassembly "
         "discards them)",
         "Cells lost from the frames accepted in part"},
        {"tail",
         "Frames that lost cells to plain tail drop (--drop=tail)",
         "Cells lost to plain tail drop"},
    };
    for (const auto& [reason, frames, cells] : reasons)
    {
        o.AddSummary("frames_dropped_" + reason,
                     ValueType::INT,
                     "frames",
                     frames + ", at both trunk ports.");
        o.AddSummary("cells_dropped_" + reason,
                     ValueType::INT,
                     "cells",
                     cells + ", at both trunk ports.");
    }
    o.AddSummary("frames_lost_reassembly",
                 ValueType::INT,
                 "frames",
                 "Frames that reached a host with cells missing and were discarded by its AAL5 "
                 "reassembly.");
    o.AddSummary("retransmissions",
                 ValueType::INT,
                 "segments",
                 "TCP data segments sent again (fast retransmit, recovery, after a timeout), both "
                 "ends of every connection.");
    o.AddSummary("timeouts",
                 ValueType::INT,
                 "timeouts",
                 "TCP retransmission timeouts that fired with data outstanding, both ends of "
                 "every connection.");
    o.AddSummary("fast_retransmits",
                 ValueType::INT,
                 "fast retransmits",
                 "TCP fast retransmits (entries into fast recovery), both ends of every "
                 "connection.");
    o.AddSummary("idle_restarts",
                 ValueType::INT,
                 "restarts",
                 "Retransmission timer expiries with nothing outstanding that set cwnd back to "
                 "1 (--slowStartRestart with --tcpModel=ns2), both ends of every connection.");
    o.AddSummary("connections_opened",
                 ValueType::INT,
                 "connections",
                 "TCP connections the clients opened (--connections=page: one per page; else "
                 "one per pair).");
    o.AddSummary("sender_resets",
                 ValueType::INT,
                 "resets",
                 "Senders put back to a new connection's state when a page started on an idle "
                 "connection (--connections=pageReset), clients and servers.");
    o.AddSummary("events", ValueType::INT, "events", "ns-3 events executed.");
    o.AddSummary("wall_seconds",
                 ValueType::FLOAT,
                 "s",
                 "Wall-clock time of the run (machine-dependent).");
    o.AddSummary("peak_rss_mb",
                 ValueType::FLOAT,
                 "MB",
                 "Peak resident memory of the process, MiB (machine-dependent).");
    o.SetSummaryNotReproducible("wall_seconds").SetSummaryNotReproducible("peak_rss_mb");

    const std::string t = "connections";
    o.AddColumn(t, "id", ValueType::INT, "", "Pair index, 0 to clients - 1.");
    o.AddColumn(t, "vc", ValueType::INT, "", "ATM VC carrying the pair's connection (id + 1).");
    o.AddColumn(t,
                "throughput_bps",
                ValueType::FLOAT,
                "bit/s",
                "x_i: bytes_received x 8 / simTime.");
    o.AddColumn(t,
                "scheduled_bps",
                ValueType::FLOAT,
                "bit/s",
                "S_i: bytes_requested x 8 / simTime; null for the bulk workload (unbounded).");
    o.AddColumn(t,
                "fair_share_bps",
                ValueType::FLOAT,
                "bit/s",
                "e_i: the connection's max-min fair share of capacity_bps given every S_i.");
    o.AddColumn(t,
                "bytes_received",
                ValueType::INT,
                "bytes",
                "Bytes the client read from the connection (TCP delivers in order).");
    o.AddColumn(t,
                "bytes_requested",
                ValueType::INT,
                "bytes",
                "Bytes the server was asked to send: the sizes of the files of every request it "
                "read (0 for bulk).");
    o.AddColumn(t,
                "requests",
                ValueType::INT,
                "requests",
                "File requests the server read (0 for bulk).");
    o.AddColumn(t,
                "retransmissions",
                ValueType::INT,
                "segments",
                "Data segments sent again, both ends of each of the pair's connections.");
    o.AddColumn(t,
                "timeouts",
                ValueType::INT,
                "timeouts",
                "Retransmission timeouts with data outstanding, both ends of each of the pair's "
                "connections.");
    o.AddColumn(t,
                "fast_retransmits",
                ValueType::INT,
                "fast retransmits",
                "Entries into fast recovery, both ends of each of the pair's connections.");
    o.AddColumn(t,
                "first_drop_s",
                ValueType::FLOAT,
                "s",
                "When the trunk first dropped cells of the connection's VC; null if it never "
                "did.");
    o.AddColumn(t,
                "cwnd_at_first_drop_segments",
                ValueType::FLOAT,
                "segments",
                "The server's congestion window at first_drop_s, in segments of mss; null if "
                "the trunk never dropped its cells.");

    const std::string l = "timeline";
    o.AddColumn(l, "time", ValueType::FLOAT, "s", "Start of the bin (k x timelineBin).");
    o.AddColumn(l,
                "duration",
                ValueType::FLOAT,
                "s",
                "Length of the bin: timelineBin, the last one up to simTime.");
    o.AddColumn(l,
                "bytes",
                ValueType::INT,
                "bytes",
                "Bytes the clients read in the bin, all connections: the bins add up to the "
                "connections' bytes_received.");
    o.AddColumn(l,
                "goodput_bps",
                ValueType::FLOAT,
                "bit/s",
                "bytes x 8 / duration: the summary's goodput_bps restricted to the bin.");
    o.AddColumn(l,
                "efficiency",
                ValueType::FLOAT,
                "fraction of capacity",
                "goodput_bps / capacity_bps: the summary's efficiency restricted to the bin.");
    o.AddColumn(l,
                "backlog_bytes",
                ValueType::FLOAT,
                "bytes",
                "At the bin's end, bytes the servers were asked for and the clients have not "
                "read yet (requests queued or in flight); null for the bulk workload.");
    return o;
}

} // namespace satnet
