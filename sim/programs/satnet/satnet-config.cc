#include "satnet-config.h"

#include "helper/link-preset.h"
#include "helper/tcp-flavor-helper.h"
#include "model/aal5.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

using satsweep::Json;
using satsweep::UsageError;

namespace satnet
{

namespace
{

// The ranges, and the rules between parameters; sim/README.md ("satnet's parameters") says why.
constexpr uint32_t kMaxClients = 10000; //!< memory: ~65 KB per pair before any traffic
constexpr double kMinTime = 1e-9;       //!< s: ns-3's time step; below it a time is 0
constexpr double kMaxDelay = 1e8;       //!< s: events stay far below 2^63 ns
constexpr double kMaxTick = 1;          //!< s: ns-3 leaves each cancelled retransmission timer
constexpr double kMaxMinRto = 5;        //!< s: pending until due: ACKs per second x RTO of them
constexpr double kMinRate = 1;          //!< bit/s: ns-3's DataRate is whole bit/s
constexpr double kMaxTrunkRate = 1e9;   //!< bit/s: at most 2.4e6 ACKs/s (2-cell segments)
constexpr double kMaxAccessRate = 1e10; //!< bit/s: a cell is 42.4 ns, 1 ns steps still fine
constexpr uint32_t kMaxMss = 65447;     //!< AAL5's 16-bit length: 8 + 20 + 60 + mss <= 65535
constexpr uint32_t kMaxWindow = 65535U << 14; //!< largest window TCP can advertise (scale 14)
constexpr uint64_t kMaxWindowSegments = 1 << 20;      //!< clients x ceil(window / mss)
constexpr uint64_t kMaxWindowBytes = uint64_t{1} << 34; //!< clients x window (16 GiB)
constexpr uint64_t kMaxPairSeconds = 2000000;    //!< s: clients x simTime with the WWW load
constexpr double kMaxSimTime = kMaxPairSeconds;  //!< s: that rule for one pair
constexpr uint64_t kMaxPagePairSeconds = 200000; //!< s: that rule with a connection per page
constexpr uint64_t kMaxTimelineRows = kMaxPairSeconds; //!< simTime / timelineBin: 1 s bins

/// @return @p value as the messages show numbers (as in JSON)
std::string
Number(double value)
{
    return Json(value).Dump();
}

/// @return the first of @p names that was given, else the first of @p names
std::string
FirstGiven(const satsweep::ParameterTable<Config>::Given& given,
           const std::vector<std::string>& names)
{
    for (const auto& name : names)
    {
        if (given.contains(name))
        {
            return name;
        }
    }
    return names.front();
}

/// @return "wan 5 ms, meo 100 ms, geo 275 ms"-style text: @p show of each link preset
template <typename Show>
std::string
PerLink(Show show)
{
    std::ostringstream text;
    for (const auto& preset : ns3::LinkPreset::GetAll())
    {
        text << (&preset == &ns3::LinkPreset::GetAll().front() ? "" : ", ") << preset.name << " "
             << show(preset);
    }
    return text.str();
}

satsweep::ParameterTable<Config>
MakeParameters()
{
    using ns3::LinkPreset;
    satsweep::ParameterTable<Config> table;

    std::vector<Json> links;
    for (const auto& preset : LinkPreset::GetAll())
    {
        links.emplace_back(preset.name);
    }
    table.Add("link", &Config::link)
        .SetDefault("wan")
        .SetChoices(links)
        .SetHelp("Link preset: the trunk's one-way delay (" +
                 PerLink([](const LinkPreset& p) {
                     return std::to_string(p.delayMilliseconds) + " ms";
                 }) +
                 ") with the study's TCP MSS, receive window and initial ssthresh and the trunk "
                 "buffers of --bufferRtt for that link. --delay, --mss, --window, --ssthresh "
                 "and --bufferCells override them.");
    table.Add("flavor", &Config::flavor)
        .SetDefault("sack")
        .SetChoices({"vanilla", "reno", "newreno", "sack"})
        .SetHelp("TCP flavor of every connection: vanilla (no fast retransmit: a loss waits for "
                 "the timeout), reno (fast retransmit; the first new ACK ends recovery), newreno "
                 "(recovery through partial ACKs, RFC 6582), sack (SACK recovery, RFC 6675).");
    table.Add("drop", &Config::drop)
        .SetDefault("epd")
        .SetChoices({"epd", "sd", "tail"})
        .SetHelp("Drop policy of both trunk ports: epd (Early Packet Discard: a new frame is "
                 "refused whole when more than epdThreshold x bufferCells cells are buffered), "
                 "sd (Selective Drop: refused when above that threshold and its VC holds more "
                 "than sdZ x its share of the buffer), tail (plain cell loss when full).");
    table.Add("workload", &Config::workload)
        .SetDefault("www")
        .SetChoices({"www", "bulk"})
        .SetHelp("www: the study's modified SPECweb96 load, a WWW client/server pair per "
                 "connection (a page of 1-9 file requests every 10 s); bulk: one endless "
                 "transfer per pair.");

    std::vector<Json> levels(LinkPreset::kBufferRttLevels.begin(),
                             LinkPreset::kBufferRttLevels.end());
    table.Add("bufferRtt", &Config::bufferRtt)
        .SetDefault(1)
        .SetChoices(levels)
        .SetUnit("RTT x bandwidth")
        .SetHelp("Trunk buffer as a multiple of the trunk's round trip x cell rate, resolved to "
                 "the study's cells for the link (" +
                 PerLink([](const LinkPreset& p) {
                     return std::to_string(p.bufferCells[0]) + " / " +
                            std::to_string(p.bufferCells[1]) + " / " +
                            std::to_string(p.bufferCells[2]);
                 }) +
                 "); when --delay or --bottleneckRate is given, to round(level x bottleneckRate "
                 "x 2 x delay / 424) cells instead. Not with --bufferCells (params then shows "
                 "0).");
    table.Add("bufferCells", &Config::bufferCells)
        .SetMinimum(1)
        .SetMaximum(UINT32_MAX)
        .SetUnit("cells")
        .SetHelp("Trunk buffer K of each trunk port in 53-byte cells, instead of --bufferRtt. "
                 "Default: resolved from --bufferRtt and the link (at most 4294967295).");
    table.Add("clients", &Config::clients)
        .SetDefault(100)
        .SetMinimum(1)
        .SetMaximum(kMaxClients)
        .SetHelp("Client/server pairs, each with one TCP connection carried by its own ATM VC. "
                 "Memory also limits clients x ceil(window / mss) to " +
                 std::to_string(kMaxWindowSegments) + ", clients x window to " +
                 std::to_string(kMaxWindowBytes) + " bytes and, with --workload=www, clients x "
                 "simTime to " + std::to_string(kMaxPairSeconds) + " s.");
    table.Add("simTime", &Config::simTime)
        .SetDefault(100)
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxSimTime)
        .SetUnit("s")
        .SetHelp("Simulated time; throughputs are the bytes delivered over this time. With "
                 "--workload=www, clients x simTime is at most " + std::to_string(kMaxPairSeconds) +
                 " s (memory: requests queue up at the servers while the trunk is "
                 "overloaded).");
    table.Add("epdThreshold", &Config::epdThreshold)
        .SetDefault(0.8)
        .SetExclusiveMinimum(0)
        .SetMaximum(1)
        .SetHelp("R/K: the fraction of the buffer above which EPD and SD refuse new frames.");
    table.Add("sdZ", &Config::sdZ)
        .SetDefault(0.8)
        .SetExclusiveMinimum(0)
        .SetMaximum(kMaxClients)
        .SetHelp("Z of Selective Drop: above the threshold a VC's new frame is refused when it "
                 "holds more than Z x X / Na cells (X cells buffered, Na VCs with cells "
                 "buffered). Z >= Na refuses nothing, and Na <= clients.");
    table.Add("switchModel", &Config::switchModel)
        .SetDefault("cell")
        .SetChoices({"frame", "cell"})
        .SetHelp("Model of the trunk ports: frame (a frame enters the buffer whole, frames of "
                 "different VCs never interleave, so EPD's buffer never fills in mid-frame) or "
                 "cell (a frame's cells enter one access cell time apart and interleave with "
                 "those of frames arriving on other ports; EPD and SD judge a frame at its "
                 "first cell, and an admitted frame loses the cells, but its last, that find "
                 "the buffer full).");
    table.Add("delay", &Config::delay)
        .SetMinimum(0)
        .SetMaximum(kMaxDelay)
        .SetUnit("s")
        .SetHelp("Trunk one-way delay. Default: the link's (" +
                 PerLink([](const LinkPreset& p) { return Json(p.GetDelaySeconds()).Dump(); }) +
                 " s).");
    table.Add("bottleneckRate", &Config::bottleneckRate)
        .SetDefault(45e6)
        .SetMinimum(kMinRate)
        .SetMaximum(kMaxTrunkRate)
        .SetUnit("bit/s")
        .SetHelp("Cell rate of the trunk between the two switches, the bottleneck (a T3); the "
                 "link runs at the whole bit/s below it.");
    table.Add("accessRate", &Config::accessRate)
        .SetDefault(149.76e6)
        .SetMinimum(kMinRate)
        .SetMaximum(kMaxAccessRate)
        .SetUnit("bit/s")
        .SetHelp("Cell rate of each host's link to its switch (a 155.52 Mbit/s SONET link's "
                 "payload); the link runs at the whole bit/s below it.");
    table.Add("accessDelay", &Config::accessDelay)
        .SetDefault(5e-6)
        .SetMinimum(0)
        .SetMaximum(kMaxDelay)
        .SetUnit("s")
        .SetHelp("One-way delay of each host's link to its switch.");
    table.Add("mss", &Config::mss)
        .SetMinimum(1)
        .SetMaximum(kMaxMss)
        .SetUnit("bytes")
        .SetHelp("TCP segment payload; its AAL5 frame (8 B LLC/SNAP, 20 B IP, up to 60 B TCP) "
                 "stays within AAL5's 65535 bytes. Default: the link's (" +
                 PerLink([](const LinkPreset& p) { return std::to_string(p.mss); }) + ").");
    table.Add("window", &Config::window)
        .SetMinimum(1)
        .SetMaximum(kMaxWindow)
        .SetUnit("bytes")
        .SetHelp("TCP receive buffer = largest advertised window; the window scale follows from "
                 "it (at most 14: 65535 x 2^14 bytes). Memory limits clients x ceil(window / mss) "
                 "to " + std::to_string(kMaxWindowSegments) + " and clients x window to " +
                 std::to_string(kMaxWindowBytes) + " bytes. Default: the link's (" +
                 PerLink([](const LinkPreset& p) { return std::to_string(p.windowBytes); }) +
                 ").");
    table.Add("ssthresh", &Config::ssthresh)
        .SetMinimum(1)
        .SetMaximum(kMaxWindow)
        .SetUnit("bytes")
        .SetHelp("Initial slow-start threshold. Default: the link's (" +
                 PerLink([](const LinkPreset& p) {
                     return std::to_string(p.initialSsthreshBytes);
                 }) +
                 ").");
    const ns3::TcpParameters tcp;
    table.Add("tick", &Config::tick)
        .SetDefault(tcp.tick.GetSeconds())
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxTick)
        .SetUnit("s")
        .SetHelp("TCP timer granularity: RTT samples are rounded up to whole ticks and every "
                 "retransmission timeout is whole ticks (ns-2's coarse timer).");
    table.Add("minRto", &Config::minRto)
        .SetDefault(tcp.minRto.GetSeconds())
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxMinRto)
        .SetUnit("s")
        .SetHelp("Lowest retransmission timeout (ns-2's floor: two ticks).");
    table.Add("poissonBounds", &Config::poissonBounds)
        .SetDefault("clamp")
        .SetChoices({"redraw", "clamp"})
        .SetHelp("How the WWW load's \"Poisson(5) kept within 1..9\" (requests per page and "
                 "the file size index) keeps a value outside: redraw (the distribution "
                 "conditioned on 1..9: mean 4.846) or clamp (moved to the nearer bound: mean "
                 "4.953).");
    table.Add("tcpModel", &Config::tcpModel)
        .SetDefault("ns2")
        .SetChoices({"ns3", "ns2"})
        .SetHelp("TCP sender of every connection: ns3 (ns-3's TcpSocketBase with the flavors' "
                 "recovery: byte-counted windows, RTO recomputed on every new ACK) or ns2 (the "
                 "ns-2.1b3 agents the paper ran: windows in packets, Karn backoff kept until a "
                 "new segment is timed, one timed segment per RTT counted in tick boundaries, "
                 "ns-2's Reno/NewReno/Sack1 recovery).");
    table.Add("slowStartRestart", &Config::slowStartRestart)
        .SetDefault(true)
        .SetHelp("With --tcpModel=ns2: ns-2's slow_start_restart_ (true in ns-default.tcl): "
                 "the retransmission timer keeps running once everything is acknowledged and, "
                 "expiring with nothing outstanding, sets cwnd to 1 (ssthresh kept), so a "
                 "server idle for longer than the RTO sends its next file in slow start. "
                 "ns-3's sender has no such restart.");
    table.Add("pagePacing", &Config::pagePacing)
        .SetDefault("period")
        .SetChoices({"period", "afterBatch"})
        .SetHelp("With --workload=www, when a client's next page (its batch of requests) "
                 "starts: two readings of the study's 10 s lag, \"the time taken by the user to "
                 "request a new document\". period (the default, satnet's behaviour before the "
                 "choice existed): 10 s after the previous page started, whether or not its "
                 "documents have arrived (an open loop: requests pile up while the trunk is "
                 "overloaded). afterBatch: 10 s after the last document of the previous page "
                 "has fully arrived (a closed loop: slow answers lower the demand). Either way "
                 "the first page starts after a phase drawn in [0, 10 s).");
    table.Add("timerClock", &Config::timerClock)
        .SetDefault("perConnection")
        .SetChoices({"perConnection", "shared"})
        .SetHelp("Clock of the TCP retransmission timers, two readings of the study's 100 ms "
                 "timer granularity (--tick); the RTO is computed as before either way. "
                 "perConnection (the default, satnet's behaviour before the choice existed): each "
                 "timer expires exactly RTO after it was set (ns-2's timers). shared: one clock "
                 "for all connections, as the slow timer of BSD-derived TCPs (tcp_slowtimo) that "
                 "ticks for every connection at once: a timer expires on the first multiple of "
                 "--tick of the simulation clock at or after RTO from when it was set, so "
                 "connections that lose in one congestion episode time out on the same tick. "
                 "Either --tcpModel.");
    table.Add("fastRetransmitGuard", &Config::fastRetransmitGuard)
        .SetDefault(true)
        .SetHelp("With --tcpModel=ns2: ns-2's guard against repeated fast retransmits (bug_fix_, "
                 "true in ns-default.tcl): a 3rd duplicate ACK fast-retransmits only once the "
                 "ACKs have passed the highest segment sent at the last fast retransmit or "
                 "timeout (sack: and none after a timeout before new data is acknowledged). "
                 "false: the study's reading of its NewReno, \"without\" Floyd's guard: every "
                 "3rd duplicate ACK retransmits and halves the window again. ns-3's sender keeps "
                 "its own recovery.");
    table.Add("cwndUnit", &Config::cwndUnit)
        .SetDefault("packets")
        .SetChoices({"packets", "bytes"})
        .SetHelp("With --tcpModel=ns2, what the send window counts: packets (ns-2's window(): "
                 "whole segments, floor(cwnd)) or bytes (a BSD sender's: cwnd x MSS bytes, "
                 "growing by MSS^2/cwnd bytes per ACK in congestion avoidance, every byte it "
                 "allows sent at once with silly-window avoidance off, so a backlogged sender "
                 "sends a segment below one MSS after most ACKs). The cwnd arithmetic is the "
                 "same; ns-3's sender counts bytes already.");
    table.Add("clientPhase", &Config::clientPhase)
        .SetDefault("random")
        .SetChoices({"random", "common"})
        .SetHelp("With --workload=www, when each client's first page starts: random (a phase "
                 "drawn uniformly in [0, 10 s) per client) or common (all at 0: the clients' "
                 "10 s cycles in step). The phase is drawn either way, so the other draws of a "
                 "run stay the same.");
    table.Add("bsdTimers", &Config::bsdTimers)
        .SetDefault(false)
        .SetHelp("The timers of a BSD-derived TCP together: true sets --timerClock=shared (one "
                 "100 ms slow timer for every connection) and --clientPhase=common, with the "
                 "RTO floor of two ticks (--minRto, and the ns2 model's own two-tick floor) "
                 "kept, so the timeouts of one congestion episode fire on one tick. Given with "
                 "--timerClock=perConnection or --clientPhase=random it is an error. false "
                 "leaves those parameters as given.");
    table.Add("connections", &Config::connections)
        .SetDefault("run")
        .SetChoices({"run", "page", "pageReset"})
        .SetHelp("With --workload=www, a pair's TCP connections, readings of the study's \"all "
                 "components of a web page are fetched in one TCP connection\" and \"a new TCP "
                 "connection is not set up for each HTTP/1.1 request\": run (the default, "
                 "satnet's behaviour before the choice existed): one connection for the whole "
                 "run. page: each page opens a new connection (handshake, initial window, "
                 "ssthresh and RTO) and closes it after the page's last answer; a pair's "
                 "counters sum over its connections. pageReset (a stand-in for page, --tcpModel"
                 "=ns2 only): one connection, whose senders are put back to a new connection's "
                 "cwnd, ssthresh and RTO estimate when a page starts with nothing of theirs "
                 "outstanding. Memory: with page, clients x simTime is at most " +
                 std::to_string(kMaxPagePairSeconds) + " s (each page's sockets are kept to "
                 "the end, ~23 KB a page).");
    table.Add("partialFrames", &Config::partialFrames)
        .SetDefault("ppd")
        .SetChoices({"ppd", "accept"})
        .SetHelp("With --switchModel=cell and --drop=epd or sd, the later cells of a frame that "
                 "lost a cell for want of room, two readings of the study's \"partially "
                 "received packets are accepted if possible\": ppd (the default, satnet's "
                 "behaviour before the choice existed): dropped, but the last cell, kept when it "
                 "fits (partial packet discard). accept: each kept whenever the buffer has room "
                 "when it arrives. The frame is lost at reassembly either way; its kept cells "
                 "use link time. The frame model takes a frame whole, so no room frees up while "
                 "it enters: no difference there.");

    table.Add("timelineBin", &Config::timelineBin)
        .SetDefault(1)
        .SetMinimum(0)
        .SetMaximum(kMaxSimTime)
        .SetUnit("s")
        .SetHelp("Bin of the timeline table: one row per bin of this many simulated seconds "
                 "(the last bin ends at simTime and may be shorter) with the trunk's goodput "
                 "and efficiency in the bin; 0: no timeline rows. simTime / timelineBin is at "
                 "most " + std::to_string(kMaxTimelineRows) + " (the rows' size). Results are "
                 "the same with any bin.");

    // The link sets the defaults every other flag may override.
    table.SetPreset("link", [](Config& c) {
        const LinkPreset& preset = LinkPreset::Get(c.link);
        c.delay = preset.GetDelaySeconds();
        c.mss = preset.mss;
        c.window = preset.windowBytes;
        c.ssthresh = preset.initialSsthreshBytes;
    });
    table.SetResolver([](Config& c, const satsweep::ParameterTable<Config>::Given& given) {
        if (c.connections == "pageReset" && c.tcpModel != "ns2")
        {
            // The reset is written for the ns-2 sender's state only.
            throw UsageError("--connections=pageReset: allowed with --tcpModel=ns2 only (here "
                             "--tcpModel=" + c.tcpModel + "); with ns3: run or page");
        }
        if (c.bsdTimers)
        {
            // The combination, so that one factor of a design sets all of it.
            for (const auto& [name, value, bsd] :
                 {std::tuple{"timerClock", &c.timerClock, "shared"},
                  std::tuple{"clientPhase", &c.clientPhase, "common"}})
            {
                if (given.contains(name) && *value != bsd)
                {
                    throw UsageError(std::string("--") + name + "=" + *value +
                                     ": allowed with --bsdTimers=true: " + bsd);
                }
                *value = bsd;
            }
        }
        if (given.contains("bufferRtt") && given.contains("bufferCells"))
        {
            throw UsageError("--bufferCells: give either --bufferRtt or --bufferCells, not both");
        }
        if (given.contains("bufferCells"))
        {
            c.bufferRtt = 0;
        }
        else if (!given.contains("delay") && !given.contains("bottleneckRate"))
        {
            c.bufferCells = LinkPreset::Get(c.link).GetBufferCells(c.bufferRtt);
        }
        else
        {
            // Off the study's links the level resolves by the formula.
            const double cells = std::round(c.bufferRtt * PipeCells(c));
            c.bufferCells = static_cast<uint32_t>(std::clamp(cells, 1.0, double(UINT32_MAX)));
        }
        // Memory: every pair's windows (send buffer, data in flight, the receiver's out-of-order
        // data) are held as packets, each with its frame's cell padding in real bytes.
        const uint64_t segments = (uint64_t{c.window} + c.mss - 1) / c.mss;
        if (c.clients * segments > kMaxWindowSegments)
        {
            const std::string name = FirstGiven(given, {"window", "mss", "clients"});
            throw UsageError("--" + name + "=" + Parameters().Echo(c).Find(name)->Dump() +
                             ": allowed: clients x ceil(window / mss) <= " +
                             std::to_string(kMaxWindowSegments) + " (here " +
                             std::to_string(c.clients) + " x " + std::to_string(segments) + ")");
        }
        if (uint64_t{c.clients} * c.window > kMaxWindowBytes)
        {
            const std::string name = FirstGiven(given, {"window", "clients"});
            throw UsageError("--" + name + "=" + Parameters().Echo(c).Find(name)->Dump() +
                             ": allowed: clients x window <= " + std::to_string(kMaxWindowBytes) +
                             " bytes (here " + std::to_string(c.clients) + " x " +
                             std::to_string(c.window) + ")");
        }
        if (c.timelineBin > 0 && c.simTime / c.timelineBin > double(kMaxTimelineRows))
        {
            const std::string name = FirstGiven(given, {"timelineBin", "simTime"});
            throw UsageError("--" + name + "=" + Parameters().Echo(c).Find(name)->Dump() +
                             ": allowed: simTime / timelineBin <= " +
                             std::to_string(kMaxTimelineRows) +
                             " timeline rows, or --timelineBin=0 (here " + Number(c.simTime) +
                             " / " + Number(c.timelineBin) + ")");
        }
        // Memory: with the WWW load an overloaded trunk leaves requests queued at the servers.
        if (c.workload == "www" && c.clients * c.simTime > double(kMaxPairSeconds))
        {
            const std::string name = FirstGiven(given, {"simTime", "clients"});
            throw UsageError("--" + name + "=" + Parameters().Echo(c).Find(name)->Dump() +
                             ": allowed: clients x simTime <= " + std::to_string(kMaxPairSeconds) +
                             " s with --workload=www (here " + std::to_string(c.clients) + " x " +
                             Number(c.simTime) + " s)");
        }
        // Memory: every page's two sockets are kept to the end (their counters are read then).
        if (c.workload == "www" && c.connections == "page" &&
            c.clients * c.simTime > double(kMaxPagePairSeconds))
        {
            const std::string name = FirstGiven(given, {"simTime", "clients"});
            throw UsageError("--" + name + "=" + Parameters().Echo(c).Find(name)->Dump() +
                             ": allowed: clients x simTime <= " +
                             std::to_string(kMaxPagePairSeconds) + " s with --connections=page "
                             "(here " + std::to_string(c.clients) + " x " + Number(c.simTime) +
                             " s)");
        }
    });
    return table;
}

} // namespace

const satsweep::ParameterTable<Config>&
Parameters()
{
    static const satsweep::ParameterTable<Config> table = MakeParameters();
    return table;
}

satsweep::CostHint
Cost()
{
    std::vector<std::pair<std::string, double>> seconds;
    for (const auto& preset : ns3::LinkPreset::GetAll())
    {
        seconds.emplace_back(preset.name, preset.costSeconds);
    }
    return satsweep::CostHint({"clients", "simTime"}, "link", seconds);
}

double
PipeCells(const Config& config)
{
    return config.bottleneckRate * 2 * config.delay / (8.0 * ns3::aal5::kCellBytes);
}

} // namespace satnet
