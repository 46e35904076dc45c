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
        NS_TEST_EXPECT_MSG_EQ(geo.delay, MilliSeconds(275), "GEO delay");
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
                              "--clients=0: allowed: an integer >= 1",
                              "clients");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--epdThreshold=1.5"}),
                              "--epdThreshold=1.5: allowed: a number > 0 and <= 1",
                              "epdThreshold");
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf({"--run=1"}).substr(0, 25),
                              "--run: unknown flag; allo",
                              "run is not a parameter");
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
            "delay",          "bottleneckRate", "accessRate", "accessDelay", "mss",
            "window",         "ssthresh",   "tick",        "minRto"};
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
        NS_TEST_EXPECT_MSG_EQ(outputs.GetSummary().size(), 22u, "summary fields");
        NS_TEST_EXPECT_MSG_EQ(outputs.GetColumns("connections").size(), 13u, "connection columns");
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
        AddTestCase(new SatnetDescribeTestCase, Duration::QUICK);
    }
};

/// The suite's only instance.
static SatnetConfigTestSuite g_satnetConfigTestSuite;
