#include "barakat-config.h"

#include "contract/json.h"

#include <string>

using satsweep::Json;
using satsweep::UsageError;

namespace barakat
{

namespace
{

// The ranges; sim/README.md ("barakat's parameters") says why.
constexpr double kMinTime = 1e-9;             //!< s: ns-3's time step
constexpr double kMaxTime = 1e6;              //!< s: a million simulated seconds
constexpr double kMinRate = 1000;             //!< bit/s: a 552-byte packet in 4.4 s
constexpr double kMaxRate = 1e10;             //!< bit/s: 1 ns steps still resolve a packet
constexpr uint32_t kMaxBuffer = 1000000;      //!< packets held by the bottleneck's queue
constexpr uint32_t kMaxPackets = 1U << 21;    //!< packets of a window, threshold or file
constexpr double kMaxFileBytes = 1e9;         //!< a file within half the 32-bit sequence space
constexpr uint32_t kMaxSources = 253;         //!< BottleneckPathHelper: one /24 per host
constexpr uint32_t kMaxSegment = 65000;       //!< an IPv4 packet with its headers
constexpr uint32_t kMaxWindowBytes = 65535U << 14; //!< largest window TCP can advertise

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
        .SetDefault("s1")
        .SetChoices({"s1", "s2"})
        .SetHelp("s1 (the paper's Fig. 3): one transfer of --fileSize packets from one source "
                 "over a 1.5 Mbit/s bottleneck, ending with it; s2 (Fig. 9): --sources sources "
                 "over a 7.5 Mbit/s bottleneck, each sending files of U[--minFile, --maxFile] "
                 "bytes one after the other, each on a new connection, after gaps of U[0, "
                 "--maxGap] s, for --simTime = 50 s. The scenario sets the defaults of --rate, "
                 "--sources and --simTime (the defaults shown are s1's).");
    table.Add("rate", &Config::rate)
        .SetDefault(1.5e6)
        .SetMinimum(kMinRate)
        .SetMaximum(kMaxRate)
        .SetUnit("bit/s")
        .SetHelp("Bottleneck rate mu (docs/studies/barakat.md, scenarios S1 and S2: s1 1.5e6, "
                 "s2 7.5e6, so that muT is about 70 and 350 packets as the paper's text "
                 "implies).");
    table.Add("rtt", &Config::rtt)
        .SetDefault(0.206)
        .SetExclusiveMinimum(0)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("T: the round trip's propagation delay (access links included); the "
                 "bottleneck's one-way delay is T/2 - 2 x --accessDelay.");
    table.Add("buffer", &Config::buffer)
        .SetDefault(20)
        .SetMinimum(1)
        .SetMaximum(kMaxBuffer)
        .SetUnit("packets")
        .SetHelp("B: packets the drop-tail bottleneck holds waiting, the one being sent not "
                 "counted (ns-2's DropTail).");
    table.Add("accessRate", &Config::accessRate)
        .SetDefault(100e6)
        .SetMinimum(kMinRate)
        .SetMaximum(kMaxRate)
        .SetUnit("bit/s")
        .SetHelp("Rate of every host's access link (fast, so bursts reach the bottleneck).");
    table.Add("accessDelay", &Config::accessDelay)
        .SetDefault(0.001)
        .SetMinimum(0)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("One-way delay of every host's access link.");
    table.Add("segmentSize", &Config::segmentSize)
        .SetDefault(512)
        .SetMinimum(1)
        .SetMaximum(kMaxSegment)
        .SetUnit("bytes")
        .SetHelp("TCP payload per packet (ns-2's packetSize_ 512 in the paper).");
    table.Add("headerSize", &Config::headerSize)
        .SetDefault(40)
        .SetChoices({40})
        .SetUnit("bytes")
        .SetHelp("TCP and IP headers per packet: ns-3's TCP (no options after the handshake) "
                 "and IPv4 headers, 40 bytes as ns-2 adds; muT is counted in packets of "
                 "segmentSize + headerSize bytes. (ns-3's point-to-point link adds 2 bytes "
                 "of PPP per packet on the wire.)");
    table.Add("fileSize", &Config::fileSize)
        .SetDefault(200)
        .SetMinimum(1)
        .SetMaximum(kMaxPackets)
        .SetUnit("packets")
        .SetHelp("s1: the transfer's size S (200 packets = 100 KB of 512 bytes).");
    table.Add("minFile", &Config::minFile)
        .SetDefault(100 * 1024)
        .SetMinimum(1)
        .SetMaximum(kMaxFileBytes)
        .SetUnit("bytes")
        .SetHelp("s2: least file size (100 KB; sizes are whole bytes drawn from U[minFile, "
                 "maxFile]).");
    table.Add("maxFile", &Config::maxFile)
        .SetDefault(1024 * 1024)
        .SetMinimum(1)
        .SetMaximum(kMaxFileBytes)
        .SetUnit("bytes")
        .SetHelp("s2: largest file size (1 MB), at least --minFile.");
    table.Add("maxGap", &Config::maxGap)
        .SetDefault(5)
        .SetMinimum(0)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("s2: each source starts at U[0, maxGap] s and waits U[0, maxGap] s from the "
                 "end of one transfer to the start of the next.");
    table.Add("sources", &Config::sources)
        .SetDefault(1)
        .SetMinimum(1)
        .SetMaximum(kMaxSources)
        .SetHelp("Sender hosts, each on its own access link (s1: 1; s2: 5).");
    table.Add("ssthresh", &Config::ssthresh)
        .SetDefault(10000)
        .SetMinimum(2)
        .SetMaximum(kMaxPackets)
        .SetUnit("packets")
        .SetHelp("W_th: every connection's initial slow-start threshold; 10000 is the paper's "
                 "\"high W_th\" (only the buffer stops slow start).");
    table.Add("window", &Config::window)
        .SetDefault(10000)
        .SetMinimum(1)
        .SetMaximum(kMaxPackets)
        .SetUnit("packets")
        .SetHelp("The receiver's window (large, so W_th and the buffer govern); window x "
                 "segmentSize is at most 65535 x 2^14 bytes.");
    table.Add("delayedAck", &Config::delayedAck)
        .SetDefault(true)
        .SetHelp("The receiver ACKs every other in-order packet (or after --delAckTimeout); "
                 "out-of-order data is ACKed at once. With stcp this makes d = 2, without it "
                 "d = 1.");
    table.Add("delAckTimeout", &Config::delAckTimeout)
        .SetDefault(0.1)
        .SetExclusiveMinimum(0)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Delayed-ACK timer (ns-2's DelAckSink interval_, 100 ms).");
    table.Add("slowStart", &Config::slowStart)
        .SetDefault("stcp")
        .SetChoices({"stcp", "bc", "dbc"})
        .SetHelp("Increase in the first slow start: stcp (+1 packet per new ACK), bc (Byte "
                 "Counting: +min(k, bcLimit) for an ACK of k packets), dbc (Decreasing Byte "
                 "Counting: +min(k, bcLimit) / d(W), d(W) = 1 + (dbcMaxD - 1)(W - 1)/(W_th - "
                 "1)). After any loss, or a restart after idle, slow start is stcp.");
    table.Add("bcLimit", &Config::bcLimit)
        .SetDefault(2)
        .SetMinimum(1)
        .SetMaximum(kMaxPackets)
        .SetUnit("packets")
        .SetHelp("L of bc and dbc: most packets one ACK counts for (Allman 1998: 2).");
    table.Add("dbcMaxD", &Config::dbcMaxD)
        .SetDefault(2)
        .SetMinimum(1)
        .SetMaximum(kMaxPackets)
        .SetHelp("d_max of dbc: its d at W = W_th (the paper's 2).");
    table.Add("tick", &Config::tick)
        .SetDefault(0.1)
        .SetMinimum(kMinTime)
        .SetMaximum(1)
        .SetHelp("TCP timer granularity (ns-2's tcpTick_): RTT samples and timeouts in whole "
                 "ticks.")
        .SetUnit("s");
    table.Add("minRto", &Config::minRto)
        .SetDefault(1)
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Lowest retransmission timeout (ns-2's minrto_ of 1 s, RFC 2988).");
    table.Add("initialRto", &Config::initialRto)
        .SetDefault(3)
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Retransmission timeout before the first RTT sample (ns-2's rtxcur_init_ "
                 "of 3 s).");
    table.Add("simTime", &Config::simTime)
        .SetDefault(300)
        .SetMinimum(kMinTime)
        .SetMaximum(kMaxTime)
        .SetUnit("s")
        .SetHelp("Simulated time (s1: 300, a limit, the run ends with its transfer; s2: 50). "
                 "Transfers unfinished then are counted in `unfinished` and left out of the "
                 "means.");
    table.Add("cwndTrace", &Config::cwndTrace)
        .SetDefault(false)
        .SetHelp("Record every change of cwnd and ssthresh in the cwnd table (for plots of "
                 "cwnd(t)).");

    table.SetPreset("scenario", [](Config& c) {
        if (c.scenario == "s2")
        {
            c.rate = 7.5e6;
            c.sources = 5;
            c.simTime = 50;
        }
    });
    table.SetResolver([](Config& c, const satsweep::ParameterTable<Config>::Given& given) {
        if (c.scenario == "s1" && c.sources != 1)
        {
            throw UsageError("--sources=" + std::to_string(c.sources) +
                             ": allowed: 1 with --scenario=s1 (one transfer)");
        }
        if (c.minFile > c.maxFile)
        {
            throw UsageError("--" + std::string(given.contains("minFile") ? "minFile" : "maxFile") +
                             ": allowed: minFile <= maxFile (here " + Number(c.minFile) + " > " +
                             Number(c.maxFile) + ")");
        }
        if (c.rtt / 2 - 2 * c.accessDelay <= 0)
        {
            throw UsageError("--" + std::string(given.contains("rtt") ? "rtt" : "accessDelay") +
                             ": allowed: rtt > 4 x accessDelay (the bottleneck's one-way delay "
                             "rtt/2 - 2 x accessDelay is positive; here " + Number(c.rtt) +
                             " s and " + Number(c.accessDelay) + " s)");
        }
        if (double(c.fileSize) * c.segmentSize > kMaxFileBytes)
        {
            throw UsageError("--fileSize=" + std::to_string(c.fileSize) +
                             ": allowed: fileSize x segmentSize <= " + Number(kMaxFileBytes) +
                             " bytes");
        }
        if (uint64_t{c.window} * c.segmentSize > kMaxWindowBytes)
        {
            throw UsageError("--window=" + std::to_string(c.window) +
                             ": allowed: window x segmentSize <= " +
                             std::to_string(kMaxWindowBytes) + " bytes");
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
    // Core-seconds per source and simulated second, measured on 2026-11-25 (2 cores): an S2 run
    // of 5 sources x 50 s took 0.65-0.93 s; an S1 run ends with its transfer, 0.14 s for 2000
    // packets, so 300 s x 0.0005 is an upper bound.
    return satsweep::CostHint({"sources", "simTime"}, "scenario", {{"s1", 0.0005}, {"s2", 0.0035}});
}

double
BdpPackets(const Config& config)
{
    return config.rate * config.rtt / (8.0 * (config.segmentSize + config.headerSize));
}

} // namespace barakat
