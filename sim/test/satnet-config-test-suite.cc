// Tests of satnet's parameters: the link presets, their overrides, the buffer's resolution, the
// echo and the declarations --describe shows.
#include "helper/link-preset.h"
#include "helper/tcp-flavor-helper.h"
#include "programs/satnet/satnet-config.h"
#include "programs/satnet/satnet-scenario.h"

#include "ns3/test.h"

#include <string>
#include <vector>

using namespace ns3;
using satnet::Config;
using satnet::Parameters;
using satsweep::Json;

namespace
{

/// @return the UsageError message of parsing @p args, or "" when there is none
std::string
UsageErrorOf(const std::vector<std::string>& args)
{
    try
    {
        Parameters().Parse(args);
    }
    catch (const satsweep::UsageError& error)
    {
        return error.what();
    }
    return "";
}

} // namespace

/// The one table of link presets, and TcpParameters built from it.
class LinkPresetTestCase : public TestCase
{
  public:
    LinkPresetTestCase()
        : TestCase("Link presets: the study's numbers, TcpParameters::ForLink")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(LinkPreset::GetAll().size(), 3u, "wan, meo, geo");
        NS_TEST_EXPECT_MSG_EQ((LinkPreset::Find("leo") == nullptr), true, "no leo");
        const LinkPreset& geo = LinkPreset::Get("geo");
        NS_TEST_EXPECT_MSG_EQ(geo.delayMilliseconds, 275u, "GEO delay");
        NS_TEST_EXPECT_MSG_EQ(geo.GetDelaySeconds(), MilliSeconds(275).GetSeconds(), "in seconds");
        NS_TEST_EXPECT_MSG_EQ(geo.GetBufferCells(0.5), 29190u, "GEO 0.5 RTT");
        NS_TEST_EXPECT_MSG_EQ(LinkPreset::Get("wan").GetBufferCells(2), 2300u, "WAN 2 RTT");
        NS_TEST_EXPECT_MSG_EQ(LinkPreset::Get("meo").GetBufferCells(1), 21230u, "MEO 1 RTT");

        const TcpParameters tcp = TcpParameters::ForLink(LinkPreset::Get("meo"), TcpFlavor::RENO);
        NS_TEST_EXPECT_MSG_EQ((tcp.flavor == TcpFlavor::RENO), true, "flavor");
        NS_TEST_EXPECT_MSG_EQ(tcp.mss, 9180u, "MEO MSS");
        NS_TEST_EXPECT_MSG_EQ(tcp.windowBytes, 2097120u, "MEO window");
        NS_TEST_EXPECT_MSG_EQ(tcp.initialSsthreshBytes, 1125000u, "MEO ssthresh");
        const TcpParameters defaults;
        NS_TEST_EXPECT_MSG_EQ(defaults.mss, LinkPreset::Get("wan").mss, "defaults are WAN's");
        NS_TEST_EXPECT_MSG_EQ(defaults.windowBytes, 65535u, "WAN window");
    }
};

/// satnet's flags: defaults, presets, overrides and the buffer.
class SatnetParametersTestCase : public TestCase
{
  public:
    SatnetParametersTestCase()
        : TestCase("satnet parameters: presets, overrides, buffer resolution")
    {
    }

  private:
    void DoRun() override
    {
        Parameters().Validate();
        const Config wan = Parameters().Parse({});
        NS_TEST_EXPECT_MSG_EQ(wan.link, "wan", "default link");
        NS_TEST_EXPECT_MSG_EQ(wan.flavor, "sack", "default flavor");
        NS_TEST_EXPECT_MSG_EQ(wan.clients, 100u, "default clients");
        NS_TEST_EXPECT_MSG_EQ(wan.delay, 0.005, "WAN delay");
        NS_TEST_EXPECT_MSG_EQ(wan.bufferCells, 1062u, "WAN 1 RTT");
        NS_TEST_EXPECT_MSG_EQ(wan.mss, 1024u, "WAN MSS");
        NS_TEST_EXPECT_MSG_EQ(wan.tick, 0.1, "tick");
        NS_TEST_EXPECT_MSG_EQ(wan.minRto, 0.2, "minRto");

        const Config geo = Parameters().Parse({"--bufferRtt=0.5", "--link=geo"});
        NS_TEST_EXPECT_MSG_EQ(geo.delay, 0.275, "GEO delay");
        NS_TEST_EXPECT_MSG_EQ(geo.mss, 9180u, "GEO MSS");
        NS_TEST_EXPECT_MSG_EQ(geo.window, 4194240u, "GEO window");
        NS_TEST_EXPECT_MSG_EQ(geo.ssthresh, 3093750u, "GEO ssthresh");
        NS_TEST_EXPECT_MSG_EQ(geo.bufferCells, 29190u, "GEO 0.5 RTT");

        const Config meo = Parameters().Parse({"--mss=1000", "--link=meo", "--window=5000"});
        NS_TEST_EXPECT_MSG_EQ(meo.mss, 1000u, "a flag overrides the preset, in any order");
        NS_TEST_EXPECT_MSG_EQ(meo.window, 5000u, "window override");
        NS_TEST_EXPECT_MSG_EQ(meo.ssthresh, 1125000u, "MEO ssthresh kept");
        NS_TEST_EXPECT_MSG_EQ(meo.bufferCells, 21230u, "MEO 1 RTT");

        const Config cells = Parameters().Parse({"--bufferCells=500", "--link=meo"});
        NS_TEST_EXPECT_MSG_EQ(cells.bufferCells, 500u, "cells given");
        NS_TEST_EXPECT_MSG_EQ(cells.bufferRtt, 0.0, "bufferRtt echoed as 0 with cells");

        // Off the study's links the level resolves by the formula:
        // 2 x 10 Mbit/s x 2 x 10 ms / 424 bit = 943.4 cells.
        const Config off = Parameters().Parse(
            {"--delay=10ms", "--bottleneckRate=10Mbps", "--bufferRtt=2"});
        NS_TEST_EXPECT_MSG_EQ(off.bufferCells, 943u, "formula");
        NS_TEST_EXPECT_MSG_EQ(satnet::PipeCells(off), 10e6 * 2 * 0.01 / 424, "pipe");
        NS_TEST_EXPECT_MSG_EQ(Parameters().Parse({"--delay=0"}).bufferCells, 1u, "at least 1");

        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--bufferRtt=1", "--bufferCells=5"}),
                              "--bufferCells: give either --bufferRtt or --bufferCells, not both",
                              "both buffers");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--link=leo"}),
                              "--link=leo: allowed: wan, meo, geo",
                              "link");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--bufferRtt=3"}),
                              "--bufferRtt=3: allowed: 0.5, 1, 2",
                              "bufferRtt");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=0"}),
                              "--clients=0: allowed: an integer >= 1 and <= 10000",
                              "clients");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--epdThreshold=1.5"}),
                              "--epdThreshold=1.5: allowed: a number > 0 and <= 1",
                              "epdThreshold");
        // The reset is the ns2 sender's: not with ns-3's.
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--connections=pageReset", "--tcpModel=ns3"}),
                              "--connections=pageReset: allowed with --tcpModel=ns2 only (here "
                              "--tcpModel=ns3); with ns3: run or page",
                              "pageReset with ns3");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--connections=page", "--tcpModel=ns3"}), "", "page");
        // Memory: each page's sockets are kept.
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--connections=page", "--simTime=2000"}), "", "2e5");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--connections=page", "--simTime=2001"}),
                              "--simTime=2001: allowed: clients x simTime <= 200000 s with "
                              "--connections=page (here 100 x 2001 s)",
                              "page: clients x simTime");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--partialFrames=all"}),
                              "--partialFrames=all: allowed: ppd, accept",
                              "partialFrames");
        // --bsdTimers sets the shared clock and the common phase, and refuses the others.
        const Config plain = Parameters().Parse({});
        NS_TEST_EXPECT_MSG_EQ(plain.timerClock + " " + plain.clientPhase,
                              "perConnection random",
                              "defaults");
        const Config bsd = Parameters().Parse({"--bsdTimers=true"});
        NS_TEST_EXPECT_MSG_EQ(bsd.timerClock + " " + bsd.clientPhase, "shared common", "bsd");
        NS_TEST_EXPECT_MSG_EQ(bsd.minRto, plain.minRto, "the floor kept");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--bsdTimers=true", "--timerClock=shared",
                                            "--clientPhase=common"}),
                              "",
                              "consistent values");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--timerClock=perConnection", "--bsdTimers=true"}),
                              "--timerClock=perConnection: allowed with --bsdTimers=true: shared",
                              "bsd against perConnection");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--bsdTimers=true", "--clientPhase=random"}),
                              "--clientPhase=random: allowed with --bsdTimers=true: common",
                              "bsd against random");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--cwndUnit=segments"}),
                              "--cwndUnit=segments: allowed: packets, bytes",
                              "cwndUnit");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--run=1"}).substr(0, 25),
                              "--run: unknown flag; allo",
                              "run is not a parameter");
    }
};

/// Every numeric parameter's range: its bounds parse, one step beyond each is refused.
class SatnetRangesTestCase : public TestCase
{
  public:
    SatnetRangesTestCase()
        : TestCase("satnet ranges: every bound accepted, beyond it refused; memory rules")
    {
    }

  private:
    /// One parameter's extremes.
    struct Range
    {
        std::string name;                //!< the parameter
        std::vector<std::string> inside; //!< values at its bounds, accepted
        std::vector<std::string> beyond; //!< values just past them, refused
        std::string allowed;             //!< the message's "allowed:" text
        std::vector<std::string> others{}; //!< other flags, keeping the memory rules satisfied
    };

    void DoRun() override
    {
        const std::string seconds = ", in s or with a suffix s, ms, us";
        const std::string rate = ", in bit/s or with a suffix bps, kbps, Mbps, Gbps";
        const std::vector<Range> ranges{
            {"bufferCells",
             {"1", "4294967295"},
             {"0", "4294967296"},
             "an integer >= 1 and <= 4294967295"},
            {"clients", {"1", "10000"}, {"0", "10001", "10000000"}, "an integer >= 1 and <= 10000"},
            {"simTime",
             {"1e-9", "0.001us", "2e6"},
             {"0", "9e-10", "2000001", "1e12"},
             "a number >= 1e-09 and <= 2e+06" + seconds,
             {"--clients=1"}},
            {"epdThreshold", {"1e-300", "1"}, {"0", "1.0000001"}, "a number > 0 and <= 1"},
            {"sdZ", {"1e-300", "10000"}, {"0", "10000.01"}, "a number > 0 and <= 10000"},
            {"delay", {"0", "1e8"}, {"-1e-9", "100000001"}, "a number >= 0 and <= 1e+08" + seconds},
            {"bottleneckRate",
             {"1", "1bps", "1Gbps", "1e9"},
             {"0.999", "1e-9", "1.000001Gbps", "10Gbps"},
             "a number >= 1 and <= 1e+09" + rate},
            {"accessRate",
             {"1", "10Gbps"},
             {"0", "1e11"},
             "a number >= 1 and <= 1e+10" + rate},
            {"accessDelay",
             {"0", "1e8"},
             {"-1", "1.1e8"},
             "a number >= 0 and <= 1e+08" + seconds},
            {"mss",
             {"1", "65447"},
             {"0", "65448"},
             "an integer >= 1 and <= 65447",
             {"--window=1000"}},
            {"window",
             {"1", "1073725440"},
             {"0", "1073725441"},
             "an integer >= 1 and <= 1073725440",
             {"--clients=1", "--mss=65447"}},
            {"ssthresh",
             {"1", "1073725440"},
             {"0", "1073725441"},
             "an integer >= 1 and <= 1073725440"},
            {"tick",
             {"1e-9", "1", "1000ms"},
             {"0", "1e-10", "1.001", "1e8"},
             "a number >= 1e-09 and <= 1" + seconds},
            {"minRto",
             {"0.001us", "5"},
             {"0", "5.001", "1e8"},
             "a number >= 1e-09 and <= 5" + seconds},
        };
        for (const auto& range : ranges)
        {
            for (const auto& value : range.inside)
            {
                std::vector<std::string> args = range.others;
                args.push_back("--" + range.name + "=" + value);
                NS_TEST_EXPECT_MSG_EQ(UsageErrorOf(args), "", range.name << "=" << value);
            }
            for (const auto& value : range.beyond)
            {
                std::vector<std::string> args = range.others;
                args.push_back("--" + range.name + "=" + value);
                NS_TEST_EXPECT_MSG_EQ(UsageErrorOf(args),
                                      "--" + range.name + "=" + value + ": allowed: " +
                                          range.allowed,
                                      range.name << "=" << value);
            }
        }
        NS_TEST_EXPECT_MSG_EQ(Parameters().Parse({"--bottleneckRate=1bps"}).bottleneckRate,
                              1.0,
                              "1 bit/s");

        // --describe carries every range: each number has a lower and an upper bound.
        const Json described = Parameters().Describe();
        for (const auto& parameter : described.GetArray())
        {
            const std::string name = parameter.Find("name")->GetString();
            const std::string type = parameter.Find("type")->GetString();
            if (parameter.Find("choices") || type == "string" || type == "bool")
            {
                continue;
            }
            NS_TEST_EXPECT_MSG_EQ(
                (parameter.Find("minimum") || parameter.Find("exclusiveMinimum")) &&
                    (parameter.Find("maximum") || parameter.Find("exclusiveMaximum")),
                true,
                name << " has no range");
        }

        // Memory: the windows of all pairs, in segments.
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=10000"}), "", "WAN: 10000 x 64");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--link=geo", "--clients=2294"}), "", "2294 x 457");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--link=geo", "--clients=2295"}),
                              "--clients=2295: allowed: clients x ceil(window / mss) <= 1048576 "
                              "(here 2295 x 457)",
                              "GEO windows");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=2", "--window=1073725440"}),
                              "--window=1073725440: allowed: clients x ceil(window / mss) <= "
                              "1048576 (here 2 x 1048560)",
                              "the window named first");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=2", "--mss=1", "--window=524288"}),
                              "",
                              "2 x 524288 segments");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--mss=1", "--clients=2", "--window=524289"}),
                              "--window=524289: allowed: clients x ceil(window / mss) <= 1048576 "
                              "(here 2 x 524289)",
                              "ceil");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--mss=1"}),
                              "--mss=1: allowed: clients x ceil(window / mss) <= 1048576 (here "
                              "100 x 65535)",
                              "mss named when window is not given");

        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=16", "--mss=65447", "--window=1073725440"}),
                              "",
                              "16 x 1 GiB");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=17", "--mss=65447", "--window=1073725440"}),
                              "--window=1073725440: allowed: clients x window <= 17179869184 bytes "
                              "(here 17 x 1073725440)",
                              "the windows' bytes");

        // Memory: WWW requests queued at overloaded servers, in pair-seconds.
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=10000", "--simTime=200"}), "", "2e6");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=10000", "--simTime=200.5"}),
                              "--simTime=200.5: allowed: clients x simTime <= 2000000 s with "
                              "--workload=www (here 10000 x 200.5 s)",
                              "pair-seconds");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=10001", "--simTime=200.5"}),
                              "--clients=10001: allowed: an integer >= 1 and <= 10000",
                              "a range before a rule");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=21", "--simTime=1e5"}),
                              "--simTime=1e+05: allowed: clients x simTime <= 2000000 s with "
                              "--workload=www (here 21 x 1e+05 s)",
                              "simTime named first");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--clients=10000", "--simTime=2e6", "--workload=bulk"}),
                              "",
                              "no queues with bulk");
    }
};

/// What --describe and the result say about satnet.
class SatnetDescribeTestCase : public TestCase
{
  public:
    SatnetDescribeTestCase()
        : TestCase("satnet describe: parameters, echo, outputs, cost")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<std::string> names{
            "link",           "flavor",     "drop",        "workload", "bufferRtt",
            "bufferCells",    "clients",    "simTime",     "epdThreshold", "sdZ",
            "switchModel",
            "delay",          "bottleneckRate", "accessRate", "accessDelay", "mss",
            "window",         "ssthresh",   "tick",        "minRto",   "poissonBounds",
            "tcpModel",       "slowStartRestart", "pagePacing", "timerClock",
            "fastRetransmitGuard", "cwndUnit", "clientPhase", "bsdTimers",
            "connections",    "partialFrames",
            "timelineBin"};
        NS_TEST_EXPECT_MSG_EQ((Parameters().GetNames() == names), true, "parameters in order");

        const Json echo = Parameters().Echo(Parameters().Parse({"--link=geo", "--clients=5"}));
        NS_TEST_ASSERT_MSG_EQ(echo.GetObject().size(), names.size(), "one value per parameter");
        NS_TEST_EXPECT_MSG_EQ(echo.Find("bufferCells")->Dump(), "58380", "resolved cells");
        NS_TEST_EXPECT_MSG_EQ(echo.Find("mss")->Dump(), "9180", "the link's MSS");
        NS_TEST_EXPECT_MSG_EQ(echo.Find("delay")->Dump(), "0.275", "the link's delay");
        NS_TEST_EXPECT_MSG_EQ(echo.Find("clients")->Dump(), "5", "clients");

        const Json described = Parameters().Describe();
        for (const auto& parameter : described.GetArray())
        {
            const std::string name = parameter.Find("name")->GetString();
            const bool derived = name == "bufferCells" || name == "delay" || name == "mss" ||
                                 name == "window" || name == "ssthresh";
            NS_TEST_EXPECT_MSG_EQ(parameter.Find("default")->IsNull(), derived, name);
        }
        NS_TEST_EXPECT_MSG_EQ(described.GetArray()[4].Dump(),
                              "{\"name\":\"bufferRtt\",\"type\":\"float\",\"default\":1,"
                              "\"choices\":[0.5,1,2],\"unit\":\"RTT x bandwidth\",\"help\":" +
                                  Json(Parameters().Get("bufferRtt").GetHelp()).Dump() + "}",
                              "bufferRtt");

        const satsweep::OutputSchema outputs = satnet::Outputs();
        outputs.Validate();
        NS_TEST_EXPECT_MSG_EQ(outputs.GetSummary().size(), 25u, "summary fields");
        NS_TEST_EXPECT_MSG_EQ(outputs.GetColumns("connections").size(), 13u, "connection columns");
        NS_TEST_EXPECT_MSG_EQ(outputs.GetColumns("timeline").size(), 6u, "timeline columns");
        for (const auto& field : outputs.GetSummary())
        {
            NS_TEST_EXPECT_MSG_NE(field.name, "version", "no version in the summary");
        }

        const satsweep::CostHint cost = satnet::Cost();
        cost.Validate(described);
        NS_TEST_EXPECT_MSG_EQ(cost.Describe().Dump(),
                              "{\"per\":[\"clients\",\"simTime\"],\"by\":\"link\","
                              "\"seconds\":{\"wan\":0.0014,\"meo\":0.00022,\"geo\":0.00022}}",
                              "cost hint");
        NS_TEST_EXPECT_MSG_EQ_TOL(cost.Estimate(Parameters().Echo(Parameters().Parse({}))),
                                  14.0,
                                  1e-9,
                                  "WAN, 100 pairs, 100 s");
    }
};

/// Tests of satnet's parameters.
class SatnetConfigTestSuite : public TestSuite
{
  public:
    SatnetConfigTestSuite()
        : TestSuite("satnet-config", Type::UNIT)
    {
        AddTestCase(new LinkPresetTestCase, Duration::QUICK);
        AddTestCase(new SatnetParametersTestCase, Duration::QUICK);
        AddTestCase(new SatnetRangesTestCase, Duration::QUICK);
        AddTestCase(new SatnetDescribeTestCase, Duration::QUICK);
    }
};

/// The suite's only instance.
static SatnetConfigTestSuite g_satnetConfigTestSuite;
