#include "satnet-config.h"

#include "helper/tcp-flavor-helper.h"
#include "model/aal5.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <set>
#include <sstream>

namespace satnet
{

namespace
{

/// What a `--link` sets for the network; its TCP parameters come from TcpParameters.
struct LinkPreset
{
    double delay;
    std::map<std::string, uint32_t> bufferCells; //!< per bufferRtt level
    ns3::TcpParameters (*tcp)(ns3::TcpFlavor);
};

const std::map<std::string, LinkPreset>&
LinkPresets()
{
    // WAN's 2 RTT buffer is 2300 cells: one full 23-cell frame for each of 100 VCs.
    static const std::map<std::string, LinkPreset> presets{
        {"wan", {0.005, {{"0.5", 531}, {"1", 1062}, {"2", 2300}}, &ns3::TcpParameters::Wan}},
        {"meo", {0.100, {{"0.5", 10615}, {"1", 21230}, {"2", 42460}}, &ns3::TcpParameters::Meo}},
        {"geo", {0.275, {{"0.5", 29190}, {"1", 58380}, {"2", 116760}}, &ns3::TcpParameters::Geo}},
    };
    return presets;
}

std::string
Join(const std::vector<std::string>& values)
{
    std::string joined;
    for (const auto& value : values)
    {
        joined += (joined.empty() ? "" : ", ") + value;
    }
    return joined;
}

[[noreturn]] void
Fail(const std::string& flag, const std::string& value, const std::string& allowed)
{
    throw UsageError("--" + flag + "=" + value + ": " + allowed);
}

std::string
Choice(const std::string& flag, const std::string& value, const std::vector<std::string>& allowed)
{
    for (const auto& option : allowed)
    {
        if (value == option)
        {
            return value;
        }
    }
    Fail(flag, value, "allowed: " + Join(allowed));
}

double
Number(const std::string& flag, const std::string& value, double low, bool lowOpen, double high)
{
    double number = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
    const bool parsed = ec == std::errc() && end == value.data() + value.size();
    if (!parsed || !std::isfinite(number) || number < low || (lowOpen && number == low) ||
        number > high)
    {
        std::ostringstream allowed;
        allowed << "allowed: a number " << (lowOpen ? "> " : ">= ") << low;
        if (std::isfinite(high))
        {
            allowed << " and <= " << high;
        }
        Fail(flag, value, allowed.str());
    }
    return number;
}

uint32_t
Count(const std::string& flag, const std::string& value, uint32_t low)
{
    uint64_t number = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (ec != std::errc() || end != value.data() + value.size() || number < low ||
        number > UINT32_MAX)
    {
        Fail(flag, value, "allowed: an integer >= " + std::to_string(low));
    }
    return static_cast<uint32_t>(number);
}

/// A duration in seconds: a plain number, or with a unit s, ms or us.
double
Duration(const std::string& flag, const std::string& value, bool allowZero)
{
    static const std::vector<std::pair<std::string, double>> units{{"us", 1e-6},
                                                                   {"ms", 1e-3},
                                                                   {"s", 1.0}};
    for (const auto& [unit, scale] : units)
    {
        if (value.size() > unit.size() && value.ends_with(unit))
        {
            return scale * Number(flag, value.substr(0, value.size() - unit.size()), 0, !allowZero,
                                  INFINITY);
        }
    }
    return Number(flag, value, 0, !allowZero, INFINITY);
}

/// A rate in bit/s: a plain number, or with a unit bps, kbps, Mbps or Gbps.
double
Rate(const std::string& flag, const std::string& value)
{
    static const std::vector<std::pair<std::string, double>> units{{"Gbps", 1e9},
                                                                   {"Mbps", 1e6},
                                                                   {"kbps", 1e3},
                                                                   {"bps", 1.0}};
    for (const auto& [unit, scale] : units)
    {
        if (value.size() > unit.size() && value.ends_with(unit))
        {
            return scale *
                   Number(flag, value.substr(0, value.size() - unit.size()), 0, true, INFINITY);
        }
    }
    return Number(flag, value, 0, true, INFINITY);
}

struct Flag
{
    std::string help;
    std::function<void(Config&, const std::string&)> apply;
};

const std::map<std::string, Flag>&
Flags()
{
    static const std::map<std::string, Flag> flags{
        {"link",
         {"wan|meo|geo: trunk delay 5/100/275 ms with the study's MSS, window, ssthresh, buffers",
          [](Config& c, const std::string& v) { c.link = Choice("link", v, {"wan", "meo", "geo"}); }}},
        {"flavor",
         {"vanilla|reno|newreno|sack: the TCP flavor of every connection",
          [](Config& c, const std::string& v) {
              c.flavor = Choice("flavor", v, {"vanilla", "reno", "newreno", "sack"});
          }}},
        {"drop",
         {"epd|sd|tail: drop policy of the trunk ports",
          [](Config& c, const std::string& v) { c.drop = Choice("drop", v, {"epd", "sd", "tail"}); }}},
        {"workload",
         {"www|bulk: modified SPECweb96 pages, or one endless transfer per pair",
          [](Config& c, const std::string& v) { c.workload = Choice("workload", v, {"www", "bulk"}); }}},
        {"bufferRtt",
         {"0.5|1|2: trunk buffer in RTT x bandwidth, resolved to the study's cells for the link",
          [](Config& c, const std::string& v) {
              c.bufferRtt = std::stod(Choice("bufferRtt", v, {"0.5", "1", "2"}));
          }}},
        {"bufferCells",
         {"K: trunk buffer in cells (instead of --bufferRtt)",
          [](Config& c, const std::string& v) { c.bufferCells = Count("bufferCells", v, 1); }}},
        {"clients",
         {"N: client/server pairs, one VC each (default 100)",
          [](Config& c, const std::string& v) { c.clients = Count("clients", v, 1); }}},
        {"simTime",
         {"seconds simulated (default 100)",
          [](Config& c, const std::string& v) { c.simTime = Duration("simTime", v, false); }}},
        {"run",
         {"R: ns-3 RngRun, the replication's independent random stream (default 1)",
          [](Config& c, const std::string& v) { c.run = Count("run", v, 1); }}},
        {"seed",
         {"ns-3 RngSeed (default 1)",
          [](Config& c, const std::string& v) { c.seed = Count("seed", v, 1); }}},
        {"epdThreshold",
         {"R/K, the EPD and SD threshold (default 0.8)",
          [](Config& c, const std::string& v) {
              c.epdThreshold = Number("epdThreshold", v, 0, true, 1);
          }}},
        {"sdZ",
         {"Z of Selective Drop (default 0.8)",
          [](Config& c, const std::string& v) { c.sdZ = Number("sdZ", v, 0, true, INFINITY); }}},
        {"delay",
         {"one-way trunk delay, e.g. 5ms (overrides the link's)",
          [](Config& c, const std::string& v) { c.delay = Duration("delay", v, true); }}},
        {"bottleneckRate",
         {"trunk cell rate, e.g. 45Mbps",
          [](Config& c, const std::string& v) { c.bottleneckRate = Rate("bottleneckRate", v); }}},
        {"accessRate",
         {"host link cell rate, e.g. 149.76Mbps",
          [](Config& c, const std::string& v) { c.accessRate = Rate("accessRate", v); }}},
        {"accessDelay",
         {"host link one-way delay, e.g. 5us",
          [](Config& c, const std::string& v) { c.accessDelay = Duration("accessDelay", v, true); }}},
        {"mss",
         {"TCP segment payload in bytes (overrides the link's)",
          [](Config& c, const std::string& v) { c.mss = Count("mss", v, 1); }}},
        {"window",
         {"TCP receive window in bytes; the window scale follows from it",
          [](Config& c, const std::string& v) { c.window = Count("window", v, 1); }}},
        {"ssthresh",
         {"initial slow-start threshold in bytes (overrides the link's)",
          [](Config& c, const std::string& v) { c.ssthresh = Count("ssthresh", v, 1); }}},
        {"tick",
         {"TCP timer granularity, e.g. 100ms",
          [](Config& c, const std::string& v) { c.tick = Duration("tick", v, false); }}},
        {"minRto",
         {"lowest retransmission timeout, e.g. 200ms",
          [](Config& c, const std::string& v) { c.minRto = Duration("minRto", v, false); }}},
        {"out",
         {"FILE.json: where the result goes (written atomically); default standard output",
          [](Config& c, const std::string& v) {
              if (v.empty())
              {
                  Fail("out", v, "allowed: a file path");
              }
              c.out = v;
          }}},
    };
    return flags;
}

std::string
FormatLevel(double value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

} // namespace

double
PipeCells(const Config& config)
{
    return config.bottleneckRate * 2 * config.delay / (8.0 * ns3::aal5::kCellBytes);
}

std::string
Usage()
{
    std::string text = "usage: satnet [--name=value ...]\n\n";
    for (const auto& [name, flag] : Flags())
    {
        text += "  --" + name + "\n      " + flag.help + "\n";
    }
    return text;
}

Config
ParseCommandLine(const std::vector<std::string>& args)
{
    std::map<std::string, std::string> given;
    for (const auto& arg : args)
    {
        const auto eq = arg.find('=');
        if (!arg.starts_with("--") || eq == std::string::npos)
        {
            throw UsageError(arg + ": flags take the form --name=value (see --help)");
        }
        const std::string name = arg.substr(2, eq - 2);
        if (!Flags().contains(name))
        {
            std::vector<std::string> names;
            for (const auto& [known, flag] : Flags())
            {
                names.push_back("--" + known);
            }
            throw UsageError("--" + name + ": unknown flag; allowed: " + Join(names));
        }
        if (given.contains(name))
        {
            throw UsageError("--" + name + ": given twice");
        }
        given[name] = arg.substr(eq + 1);
    }
    if (given.contains("bufferRtt") && given.contains("bufferCells"))
    {
        throw UsageError("--bufferCells: give either --bufferRtt or --bufferCells, not both");
    }

    Config config;
    // The link sets the defaults every other flag may override.
    if (given.contains("link"))
    {
        Flags().at("link").apply(config, given.at("link"));
    }
    const LinkPreset& preset = LinkPresets().at(config.link);
    const ns3::TcpParameters tcp = preset.tcp(ns3::TcpFlavor::SACK);
    config.delay = preset.delay;
    config.mss = tcp.mss;
    config.window = tcp.windowBytes;
    config.ssthresh = tcp.initialSsthreshBytes;
    config.tick = tcp.tick.GetSeconds();
    config.minRto = tcp.minRto.GetSeconds();
    for (const auto& [name, value] : given)
    {
        Flags().at(name).apply(config, value);
    }

    if (given.contains("bufferCells"))
    {
        config.bufferRtt = 0;
    }
    else if (!given.contains("delay") && !given.contains("bottleneckRate"))
    {
        config.bufferCells = preset.bufferCells.at(FormatLevel(config.bufferRtt));
    }
    else
    {
        // Off the study's links the level resolves by the formula.
        config.bufferCells =
            std::max<uint32_t>(1, static_cast<uint32_t>(std::lround(config.bufferRtt * PipeCells(config))));
    }
    return config;
}

} // namespace satnet
