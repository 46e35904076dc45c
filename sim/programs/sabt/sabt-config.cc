#include "sabt-config.h"

#include "contract/json.h"

#include <string>

using satsweep::Json;
using satsweep::UsageError;

namespace sabt
{

namespace
{

// The ranges; sim/README.md ("The sabt program") says why.
constexpr double kMinTime = 1e-6;          //!< s
constexpr double kMaxTime = 1e6;           //!< s: a million simulated seconds
constexpr double kMinRate = 1000;          //!< bit/s
constexpr double kMaxRate = 1e10;          //!< bit/s: 1 ns steps still resolve a packet
constexpr uint64_t kMaxPool = 1ULL << 31;  //!< bytes: a socket buffer is a uint32_t
constexpr uint32_t kMaxSegment = 65000;    //!< an IPv4 packet with its headers
constexpr uint32_t kMaxRouterBuffer = 1000000; //!< packets
constexpr uint32_t kMaxReceivers = 250;    //!< ParallelPathsHelper: receivers a path
constexpr double kEthernetRate = 100e6;    //!< bit/s: the Ethernet of E2 and E3

/// @return @p value as the messages show numbers (as in JSON)
std::string
Number(double value)
{
    return Json(value).Dump();
}

satsweep::ParameterTable<Config>
MakeParameters()
{
    satsweep::ParameterTable<Config> table;
    table.Add("scenario", &Config::scenario)
        .SetDefault("fig")
        .SetChoices({"fig", "e1", "e2", "e3"})
        .SetHelp("fig (the paper's Figs. 2-3, Sec. 3): one sender, three disjoint 1.5 Mbit/s / "
                 "100 ms paths carrying connections 1, 2-3 and 4-7, connection i starting at "
                 "(i - 1) x 500 s, 4000 s; e1 (Sec. 4, Fig. 5): three connections over one "
                 "622 Mbit/s link with random loss lossRate x 1, 2, 4 (0.005, 0.01, 0.02) at "
                 "their receivers, starting 10 s apart, 40 s; e2 (Fig. 8): one connection "
                 "over a 622 Mbit/s path and --slowConnections over a 100 Mbit/s one, all "
                 "from 0 s, 10 s; e3 (Fig. 10): a web server whose --clients request "
                 "documents back to back, each on a new connection (HTTP/1.0, WebStone), over "
                 "a 100 Mbit/s LAN of 0.8 ms round trip, 11 s (table requests). The scenario "
                 "sets the defaults of the link, pool, timing and timer parameters (the "
                 "defaults shown are fig's).");
    table.Add("algorithm", &Config::algorithm)
        .SetDefault("sabt")
        .SetChoices({"eq", "abt", "sabt", "fixed"})
        .SetHelp("How the pool is reassigned every --interval: eq (pool / n each), abt "
                 "(demand --abtFactor x cwnd, max-min), sabt (demand rho x srtt from the "
                 "Padhye et al. throughput, proportional), fixed (--fixedBuffer each while the "
                 "pool lasts).");
    table.Add("pool", &Config::pool)
        .SetDefault(350000)
        .SetMinimum(1)
        .SetMaximum(kMaxPool)
        .SetUnit("bytes")
        .SetHelp("B_tot, the sender's send-buffer pool (fig: 350 packets of 1000 bytes, Fig. "
                 "2; Fig. 3 is 200000; e1, e2 and e3: 256 KB = 262144).");
    table.Add("fixedBuffer", &Config::fixedBuffer)
        .SetDefault(16384)
        .SetMinimum(0)
        .SetMaximum(kMaxPool)
        .SetUnit("bytes")
        .SetHelp("--algorithm=fixed: every connection's buffer, in start order while the pool "
                 "lasts (others get none): E2's 16 KB and 64 KB policies, E3's 16 KB (there "
                 "clients x fixedBuffer must fit the pool: every connection gets it).");
    table.Add("abtFactor", &Config::abtFactor)
        .SetDefault(2)
        .SetExclusiveMinimum(0)
        .SetMaximum(1000)
        .SetHelp("--algorithm=abt: a connection's demand in congestion windows (Semke, Mahdavi "
                 "and Mathis 1998 size the buffer to twice cwnd, room for fast recovery).");
    table.Add("leftover", &Config::leftover)
        .SetDefault("unassigned")
        .SetChoices({"unassigned", "proportional"})
        .SetHelp("abt and sabt, when every demand fits the pool: each connection gets its "
                 "demand and the rest stays unassigned, or the whole pool is handed out in "
                 "proportion to the demands.");
    table.Add("sabtRtt", &Config::sabtRtt)
        .SetDefault("smoothed")
        .SetChoices({"smoothed", "minimum", "base"})
        .SetHelp("--algorithm=sabt: the RTT of its demand rho x RTT and of the throughput "
                 "estimate: the connection's smoothed RTT (the paper's RTT, as TCP keeps it), "
                 "its smallest sample (whole ticks), or its path's base round trip (delays and "
                 "transmission, no queueing).");
    table.Add("lossWindow", &Config::lossWindow)
        .SetDefault(0)
        .SetMinimum(0)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("--algorithm=sabt: the loss rate p of the estimate counts the loss "
                 "indications and segments of this last span (at the reassignments); 0: since "
                 "the connection started (Padhye et al.'s p over a connection's life).");
    table.Add("interval", &Config::interval)
        .SetDefault(1)
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Time between reassignments (1 s for all three algorithms, Sec. 3).");
    table.Add("smallFileLimit", &Config::smallFileLimit)
        .SetDefault(kSmallFileBytes)
        .SetMinimum(0)
        .SetMaximum(kMaxPool)
        .SetUnit("bytes")
        .SetHelp("SABT's small-file rule (Sec. 2.2.2, 8 KB): a file below it gets its size as "
                 "send buffer and initial window, outside the reassignment, so it goes in one "
                 "round trip (0: no rule; it applies under every --algorithm).");
    table.Add("fileSize", &Config::fileSize)
        .SetDefault(0)
        .SetMinimum(0)
        .SetMaximum(kMaxPool)
        .SetUnit("bytes")
        .SetHelp("Each connection's file; 0 (the paper's): bulk senders that never end (not "
                 "with e3, whose documents are drawn: --documentMean).");
    table.Add("segmentSize", &Config::segmentSize)
        .SetDefault(1000)
        .SetMinimum(1)
        .SetMaximum(kMaxSegment)
        .SetUnit("bytes")
        .SetHelp("TCP payload per packet (ns-2's packetSize_ 1000; the pool in packets is "
                 "pool / segmentSize; e3: 1460, Ethernet's MTU of 1500 bytes less the TCP/IP "
                 "headers).");
    table.Add("routerBuffer", &Config::routerBuffer)
        .SetDefault(50)
        .SetMinimum(1)
        .SetMaximum(kMaxRouterBuffer)
        .SetUnit("packets")
        .SetHelp("Packets each drop-tail bottleneck holds waiting (ns-2's queue limit 50; e3: "
                 "the server's LAN interface, and 50 is also BSD's IFQ_MAXLEN).");
    table.Add("rate", &Config::rate)
        .SetDefault(1.5e6)
        .SetMinimum(kMinRate)
        .SetMaximum(kMaxRate)
        .SetUnit("bit/s")
        .SetHelp("Every bottleneck's rate (fig: 1.5 Mbit/s; e1, and e2's fast path: 622 "
                 "Mbit/s, MAPOS; e3: the LAN, 100 Mbit/s Ethernet).");
    table.Add("delay", &Config::delay)
        .SetDefault(0.1)
        .SetMinimum(0)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Every bottleneck's one-way delay (fig: 100 ms; e1 and e2: 0.5 ms, small, as "
                 "the host-bound round trips of the paper's back-to-back PCs; e3: 0.4 ms, the "
                 "paper's 'delay of about 0.8 ms' read as the LAN's round trip).");
    table.Add("slowRate", &Config::slowRate)
        .SetDefault(kEthernetRate)
        .SetMinimum(kMinRate)
        .SetMaximum(kMaxRate)
        .SetUnit("bit/s")
        .SetHelp("e2: the slow path's rate (100 Mbit/s Ethernet; docs/studies/sabt.md, the "
                 "implementation experiments).");
    table.Add("slowConnections", &Config::slowConnections)
        .SetDefault(4)
        .SetMinimum(1)
        .SetMaximum(kMaxReceivers)
        .SetHelp("e2: n, the connections over the slow path (connection 1 takes the fast one).");
    table.Add("clients", &Config::clients)
        .SetDefault(16)
        .SetMinimum(1)
        .SetMaximum(kMaxReceivers)
        .SetHelp("e3: WebStone's clients, one host each, every one with one request open at a "
                 "time (the paper does not give its number): 16 keep the LAN busy with 16 KB "
                 "each (93% of it) and are the most that a 256 KB pool gives 16 KB each.");
    table.Add("documentMean", &Config::documentMean)
        .SetDefault(10240)
        .SetMinimum(1)
        .SetMaximum(kMaxPool)
        .SetUnit("bytes")
        .SetHelp("e3: the mean of the lognormal document sizes before truncation (the paper's "
                 "ref. [4]: their mean is below 10 KB; truncated at documentMax the mean is "
                 "lower: 9501 bytes with the defaults).");
    table.Add("documentPercentile80", &Config::documentPercentile80)
        .SetDefault(static_cast<double>(kSmallFileBytes))
        .SetMinimum(1)
        .SetMaximum(kMaxPool)
        .SetUnit("bytes")
        .SetHelp("e3: the size four in five documents are smaller than, before truncation (ref. "
                 "[4]: 8 KB); below documentMean.");
    table.Add("documentMax", &Config::documentMax)
        .SetDefault(1 << 20)
        .SetMinimum(1)
        .SetMaximum(kMaxPool)
        .SetUnit("bytes")
        .SetHelp("e3: the largest document (the lognormal is truncated there: a larger draw is "
                 "drawn again); above documentPercentile80.");
    table.Add("accessRate", &Config::accessRate)
        .SetDefault(155e6)
        .SetMinimum(kMinRate)
        .SetMaximum(kMaxRate)
        .SetUnit("bit/s")
        .SetHelp("Sender -> router links (fig: 155 Mbit/s; e1, e2, e3: 10 Gbit/s, no limit).");
    table.Add("accessDelay", &Config::accessDelay)
        .SetDefault(0.001)
        .SetMinimum(0)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Their one-way delay (fig: 1 ms; e1, e2, e3: 0).");
    table.Add("egressRate", &Config::egressRate)
        .SetDefault(10e6)
        .SetMinimum(kMinRate)
        .SetMaximum(kMaxRate)
        .SetUnit("bit/s")
        .SetHelp("Router -> receiver links (fig: 10 Mbit/s; e1, e2, e3: 10 Gbit/s).");
    table.Add("egressDelay", &Config::egressDelay)
        .SetDefault(0.001)
        .SetMinimum(0)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Their one-way delay (fig: 1 ms; e1, e2, e3: 0).");
    table.Add("lossRate", &Config::lossRate)
        .SetDefault(0)
        .SetMinimum(0)
        .SetMaximum(0.25)
        .SetHelp("Probability that a receiver drops an arriving data packet (fig: 0, drop-tail "
                 "only, as published; > 0 the paper's unshown random-loss case; e1: 0.005, "
                 "connection i gets lossRate x 2^(i - 1); not with e3).");
    table.Add("startInterval", &Config::startInterval)
        .SetDefault(500)
        .SetMinimum(0)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Connection i starts at (i - 1) x startInterval (fig: 500 s; e1: 10 s, Fig. "
                 "6; e2: 0; e3: client i's first request, 0).");
    table.Add("simTime", &Config::simTime)
        .SetDefault(4000)
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Simulated time (fig: 4000 s; e1: 40 s; e2: 10 s; e3: 11 s).");
    table.Add("measureTime", &Config::measureTime)
        .SetDefault(1000)
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("The means of the connections table and the summary are over the last "
                 "measureTime s, when every connection runs (fig: 1000 s, [3000, 4000] s; e1: "
                 "20 s; e2: 5 s; e3: 10 s, the requests started then, after 1 s of warm-up).");
    table.Add("tick", &Config::tick)
        .SetDefault(0.1)
        .SetMinimum(kMinTime)
        .SetMaximum(1)
        .SetUnit("s")
        .SetHelp("TCP timer granularity (ns-2's tcpTick_ 0.1 s; e1, e2: 0.5 s, the slow "
                 "timer of the paper's FreeBSD 2.2.8, which timed round trips in its ticks; "
                 "e3 too).");
    table.Add("minRto", &Config::minRto)
        .SetDefault(0.2)
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Lowest retransmission timeout (0.2 s: ns-2's floor of two 0.1 s ticks; e1, "
                 "e2, e3: 1 s, FreeBSD's TCPTV_MIN).");
    table.Add("initialRto", &Config::initialRto)
        .SetDefault(6)
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Retransmission timeout before a connection's first RTT sample (ns-2's "
                 "rtxcur_init_ of 6 s; e3: 1.5 s, FreeBSD 2.2's RTO after the one-tick sample "
                 "its handshake takes on a LAN, 3 x the sample: the ns2 sender takes none from "
                 "the handshake, and e3's documents are mostly gone before a sample of data).");

    table.SetPreset("scenario", [](Config& c) {
        if (c.scenario == "fig")
        {
            return;
        }
        c.pool = 262144;
        c.rate = 622e6;
        c.delay = 0.0005;
        c.accessRate = 10e9;
        c.accessDelay = 0;
        c.egressRate = 10e9;
        c.egressDelay = 0;
        c.tick = 0.5;
        c.minRto = 1;
        if (c.scenario == "e1")
        {
            c.lossRate = 0.005;
            c.startInterval = 10;
            c.simTime = 40;
            c.measureTime = 20;
        }
        else if (c.scenario == "e2")
        {
            c.startInterval = 0;
            c.simTime = 10;
            c.measureTime = 5;
        }
        else
        {
            c.rate = kEthernetRate;
            c.delay = 0.0004;
            c.segmentSize = 1460;
            c.initialRto = 1.5;
            c.startInterval = 0;
            c.simTime = 11;
            c.measureTime = 10;
        }
    });
    table.SetResolver([](Config& c, const satsweep::ParameterTable<Config>::Given& given) {
        uint32_t connections = 0;
        for (const PathPlan& p : Paths(c))
        {
            connections += p.connections;
        }
        const double lastStart = (connections - 1) * c.startInterval;
        if (c.simTime - c.measureTime < lastStart)
        {
            throw UsageError("--" +
                             std::string(given.contains("measureTime") ? "measureTime"
                                                                       : "simTime") +
                             ": allowed: simTime - measureTime >= the last start, (connections - "
                             "1) x startInterval = " + Number(lastStart) + " s (here " +
                             Number(c.simTime) + " - " + Number(c.measureTime) + ")");
        }
        if (c.scenario == "e1" && c.lossRate * 4 >= 1)
        {
            throw UsageError("--lossRate=" + Number(c.lossRate) +
                             ": allowed: lossRate < 0.25 with --scenario=e1 (connection 3 gets "
                             "4 x lossRate)");
        }
        if (given.contains("slowConnections") && c.scenario != "e2")
        {
            throw UsageError("--slowConnections: allowed only with --scenario=e2");
        }
        for (const char* name :
             {"clients", "documentMean", "documentPercentile80", "documentMax"})
        {
            if (given.contains(name) && c.scenario != "e3")
            {
                throw UsageError("--" + std::string(name) + ": allowed only with --scenario=e3");
            }
        }
        if (c.scenario != "e3")
        {
            return;
        }
        if (c.fileSize > 0 || c.lossRate > 0)
        {
            throw UsageError(std::string(c.fileSize > 0 ? "--fileSize" : "--lossRate") +
                             ": allowed only with --scenario=fig, e1 or e2 (e3 draws its "
                             "documents and loses only at the LAN's queue)");
        }
        // A mean above the 80th percentile fixes one lognormal (right-skewed), a maximum above it
        // keeps that percentile drawn. The message names the flag given of the two, else the
        // percentile.
        for (const auto& [name, value] : {std::pair{"documentMean", c.documentMean},
                                          std::pair{"documentMax", c.documentMax}})
        {
            if (value > c.documentPercentile80)
            {
                continue;
            }
            const bool named = given.contains(name);
            throw UsageError("--" + std::string(named ? name : "documentPercentile80") + "=" +
                             Number(named ? value : c.documentPercentile80) + ": allowed: " +
                             name + " > documentPercentile80 (here " + Number(value) + " and " +
                             Number(c.documentPercentile80) + ")");
        }
        if (c.algorithm == "fixed" && c.clients * c.fixedBuffer > c.pool)
        {
            throw UsageError("--clients=" + std::to_string(c.clients) +
                             ": allowed: clients x fixedBuffer <= pool with --algorithm=fixed "
                             "in e3 (every connection gets its fixed buffer), here " +
                             std::to_string(c.clients * c.fixedBuffer) + " > " +
                             std::to_string(c.pool));
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
    // Core-seconds per simulated second, measured on 2026-11-25 (2 cores): fig 4.5 s for 400 s
    // (of which the last 200 with all seven connections), e1 9-13 s for 60 s, e2 with 8 slow
    // connections 19-34 s for 20 s; on 2026-11-27, e3 with 16 clients 12-30 s for 11 s (sabt
    // to fixed, whose LAN is busier).
    return satsweep::CostHint({"simTime"},
                              "scenario",
                              {{"fig", 0.012}, {"e1", 0.2}, {"e2", 1.7}, {"e3", 2.7}});
}

std::vector<PathPlan>
Paths(const Config& c)
{
    if (c.scenario == "fig")
    {
        return {{c.rate, 1}, {c.rate, 2}, {c.rate, 4}};
    }
    if (c.scenario == "e1")
    {
        return {{c.rate, 3}};
    }
    if (c.scenario == "e3")
    {
        return {{c.rate, c.clients}};
    }
    return {{c.rate, 1}, {c.slowRate, c.slowConnections}};
}

double
LossRate(const Config& c, uint32_t i)
{
    return c.scenario == "e1" ? c.lossRate * (1U << i) : c.lossRate;
}

} // namespace sabt
