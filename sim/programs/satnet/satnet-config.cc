#include "satnet-config.h"

#include "helper/link-preset.h"
#include "helper/tcp-flavor-helper.h"
#include "model/aal5.h"

#include <algorithm>
#include <cmath>
#include <sstream>

using satsweep::Json;
using satsweep::UsageError;

namespace satnet
{

namespace
{

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
                     return std::to_string(p.delay.GetMilliSeconds()) + " ms";
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
        .SetUnit("cells")
        .SetHelp("Trunk buffer K of each trunk port in 53-byte cells, instead of --bufferRtt. "
                 "Default: resolved from --bufferRtt and the link.");
    table.Add("clients", &Config::clients)
        .SetDefault(100)
        .SetMinimum(1)
        .SetHelp("Client/server pairs, each with one TCP connection carried by its own ATM VC.");
    table.Add("simTime", &Config::simTime)
        .SetDefault(100)
        .SetExclusiveMinimum(0)
        .SetUnit("s")
        .SetHelp("Simulated time; throughputs are the bytes delivered over this time.");
    table.Add("epdThreshold", &Config::epdThreshold)
        .SetDefault(0.8)
        .SetExclusiveMinimum(0)
        .SetMaximum(1)
        .SetHelp("R/K: the fraction of the buffer above which EPD and SD refuse new frames.");
    table.Add("sdZ", &Config::sdZ)
        .SetDefault(0.8)
        .SetExclusiveMinimum(0)
        .SetHelp("Z of Selective Drop: above the threshold a VC's new frame is refused when it "
                 "holds more than Z x X / Na cells (X cells buffered, Na VCs with cells "
                 "buffered).");
    table.Add("delay", &Config::delay)
        .SetMinimum(0)
        .SetUnit("s")
        .SetHelp("Trunk one-way delay. Default: the link's (" +
                 PerLink([](const LinkPreset& p) { return Json(p.delay.GetSeconds()).Dump(); }) +
                 " s).");
    table.Add("bottleneckRate", &Config::bottleneckRate)
        .SetDefault(45e6)
        .SetExclusiveMinimum(0)
        .SetUnit("bit/s")
        .SetHelp("Cell rate of the trunk between the two switches, the bottleneck (a T3).");
    table.Add("accessRate", &Config::accessRate)
        .SetDefault(149.76e6)
        .SetExclusiveMinimum(0)
        .SetUnit("bit/s")
        .SetHelp("Cell rate of each host's link to its switch (a 155.52 Mbit/s SONET link's "
                 "payload).");
    table.Add("accessDelay", &Config::accessDelay)
        .SetDefault(5e-6)
        .SetMinimum(0)
        .SetUnit("s")
        .SetHelp("One-way delay of each host's link to its switch.");
    table.Add("mss", &Config::mss)
        .SetMinimum(1)
        .SetUnit("bytes")
        .SetHelp("TCP segment payload. Default: the link's (" +
                 PerLink([](const LinkPreset& p) { return std::to_string(p.mss); }) + ").");
    table.Add("window", &Config::window)
        .SetMinimum(1)
        .SetUnit("bytes")
        .SetHelp("TCP receive buffer = largest advertised window; the window scale follows from "
                 "it. Default: the link's (" +
                 PerLink([](const LinkPreset& p) { return std::to_string(p.windowBytes); }) +
                 ").");
    table.Add("ssthresh", &Config::ssthresh)
        .SetMinimum(1)
        .SetUnit("bytes")
        .SetHelp("Initial slow-start threshold. Default: the link's (" +
                 PerLink([](const LinkPreset& p) {
                     return std::to_string(p.initialSsthreshBytes);
                 }) +
                 ").");
    const ns3::TcpParameters tcp;
    table.Add("tick", &Config::tick)
        .SetDefault(tcp.tick.GetSeconds())
        .SetExclusiveMinimum(0)
        .SetUnit("s")
        .SetHelp("TCP timer granularity: RTT samples are rounded up to whole ticks and every "
                 "retransmission timeout is whole ticks (ns-2's coarse timer).");
    table.Add("minRto", &Config::minRto)
        .SetDefault(tcp.minRto.GetSeconds())
        .SetExclusiveMinimum(0)
        .SetUnit("s")
        .SetHelp("Lowest retransmission timeout (ns-2's floor: two ticks).");

    // The link sets the defaults every other flag may override.
    table.SetPreset("link", [](Config& c) {
        const LinkPreset& preset = LinkPreset::Get(c.link);
        c.delay = preset.delay.GetSeconds();
        c.mss = preset.mss;
        c.window = preset.windowBytes;
        c.ssthresh = preset.initialSsthreshBytes;
    });
    table.SetResolver([](Config& c, const satsweep::ParameterTable<Config>::Given& given) {
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
