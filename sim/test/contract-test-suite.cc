// Tests of the engine contract library (contract/): JSON, parameter table, output schema, cost
// hint and the program driver.
#include "contract/cost-hint.h"
#include "contract/json.h"
#include "contract/output-schema.h"
#include "contract/parameter-table.h"
#include "contract/program-driver.h"
#include "contract/usage-error.h"

#include "ns3/rng-seed-manager.h"
#include "ns3/test.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;
using satsweep::CostHint;
using satsweep::Json;
using satsweep::OutputSchema;
using satsweep::ParameterTable;
using satsweep::UsageError;
using satsweep::ValueType;

namespace
{

/// @return the UsageError message @p call throws, or "" when it throws none
std::string
UsageErrorOf(const std::function<void()>& call)
{
    try
    {
        call();
    }
    catch (const UsageError& error)
    {
        return error.what();
    }
    return "";
}

/// @return the std::logic_error message @p call throws, or "" when it throws none
std::string
LogicErrorOf(const std::function<void()>& call)
{
    try
    {
        call();
    }
    catch (const std::logic_error& error)
    {
        return error.what();
    }
    return "";
}

/// A toy program's settings: one field of every kind.
struct ToyConfig
{
    std::string mode;
    uint32_t count = 0;
    int32_t offset = 0;
    uint64_t big = 0;
    double ratio = 0;
    double level = 0;
    double delay = 0;
    double rate = 0;
    bool verbose = false;
    double limit = 0; //!< default: from the preset of mode
    int32_t derived = 0; //!< set by the resolver: count + offset
};

/// The toy program's parameter table.
ParameterTable<ToyConfig>
ToyTable()
{
    ParameterTable<ToyConfig> table;
    table.Add("mode", &ToyConfig::mode)
        .SetDefault("fast")
        .SetChoices({"fast", "slow"})
        .SetHelp("How to go.");
    table.Add("count", &ToyConfig::count).SetDefault(3).SetMinimum(1).SetHelp("How many.");
    table.Add("offset", &ToyConfig::offset).SetDefault(0).SetHelp("Shift, may be negative.");
    table.Add("big", &ToyConfig::big).SetDefault(1).SetHelp("A 64-bit count.");
    table.Add("ratio", &ToyConfig::ratio)
        .SetDefault(0.5)
        .SetExclusiveMinimum(0)
        .SetMaximum(1)
        .SetHelp("A fraction.");
    table.Add("level", &ToyConfig::level)
        .SetDefault(1)
        .SetChoices({0.5, 1, 2})
        .SetUnit("RTT")
        .SetHelp("A level.");
    table.Add("delay", &ToyConfig::delay)
        .SetDefault(0.01)
        .SetMinimum(0)
        .SetUnit("s")
        .SetHelp("A delay.");
    table.Add("rate", &ToyConfig::rate)
        .SetDefault(1e6)
        .SetExclusiveMinimum(0)
        .SetExclusiveMaximum(1e12)
        .SetUnit("bit/s")
        .SetHelp("A rate.");
    table.Add("verbose", &ToyConfig::verbose).SetDefault(false).SetHelp("Talk more.");
    table.Add("limit", &ToyConfig::limit)
        .SetMinimum(0)
        .SetHelp("A limit. Default: 10 when fast, 20 when slow.");
    table.Add(
            satsweep::Parameter("derived", ValueType::INT),
            [](ToyConfig& c, const Json& value) {
                c.derived = static_cast<int32_t>(value.GetInt64());
            },
            [](const ToyConfig& c) { return Json(c.derived); })
        .SetHelp("count + offset unless given.");
    table.SetPreset("mode", [](ToyConfig& c) { c.limit = c.mode == "fast" ? 10 : 20; });
    table.SetResolver([](ToyConfig& c, const ParameterTable<ToyConfig>::Given& given) {
        if (given.contains("limit") && given.contains("verbose"))
        {
            throw UsageError("--limit: not with --verbose");
        }
        if (!given.contains("derived"))
        {
            c.derived = static_cast<int32_t>(c.count) + c.offset;
        }
    });
    return table;
}

/// The toy program's output schema.
OutputSchema
ToyOutputs()
{
    OutputSchema outputs;
    outputs.AddSummary("total", ValueType::INT, "items", "Items done.")
        .AddSummary("share", ValueType::FLOAT, "fraction", "Share done.")
        .AddSummary("label", ValueType::STRING, "", "A label.")
        .AddSummary("ok", ValueType::BOOL, "", "Whether it went well.")
        .AddColumn("rows", "id", ValueType::INT, "", "Row index.")
        .AddColumn("rows", "value", ValueType::FLOAT, "s", "A time, null if none.");
    return outputs;
}

/// A toy result that fits ToyOutputs().
Json
ToyResult(const ToyConfig& c)
{
    Json rows(Json::Array{});
    for (uint32_t i = 0; i < c.count; ++i)
    {
        rows.Push(Json(Json::Object{{"id", i}, {"value", i ? Json(c.delay * i) : Json()}}));
    }
    return Json(Json::Object{
        {"summary",
         Json(Json::Object{{"total", c.count}, {"share", 1}, {"label", c.mode}, {"ok", true}})},
        {"rows", rows}});
}

} // namespace

/// The JSON value: text, kinds, equality.
class JsonTestCase : public TestCase
{
  public:
    JsonTestCase()
        : TestCase("JSON values: text, kinds and equality")
    {
    }

  private:
    void DoRun() override
    {
        Json value(Json::Object{{"b", true},
                                {"i", -3},
                                {"u", std::numeric_limits<uint64_t>::max()},
                                {"d", 0.1},
                                {"n", std::nan("")},
                                {"s", "a\"b\n"},
                                {"a", Json(Json::Array{1, 2.5, "x"})},
                                {"o", Json(Json::Object{{"k", Json()}})}});
        NS_TEST_EXPECT_MSG_EQ(value.Dump(),
                              "{\"b\":true,\"i\":-3,\"u\":18446744073709551615,\"d\":0.1,"
                              "\"n\":null,\"s\":\"a\\\"b\\n\",\"a\":[1,2.5,\"x\"],"
                              "\"o\":{\"k\":null}}",
                              "compact text");
        NS_TEST_EXPECT_MSG_EQ(Json(Json::Object{{"a", Json(Json::Array{1, 2})},
                                                {"o", Json(Json::Array{Json(Json::Object{})})}})
                                  .Dump(1),
                              "{\n \"a\": [1, 2],\n \"o\": [\n  {}\n ]\n}",
                              "indented: scalar arrays on one line");
        NS_TEST_EXPECT_MSG_EQ(Json(45e6).Dump(), "4.5e+07", "shortest double text");
        NS_TEST_EXPECT_MSG_EQ(Json(1.0).Dump(), "1", "integral double");

        NS_TEST_EXPECT_MSG_EQ(value.Find("i")->IsInteger(), true, "int is integer");
        NS_TEST_EXPECT_MSG_EQ(value.Find("d")->IsInteger(), false, "double is not integer");
        NS_TEST_EXPECT_MSG_EQ(value.Find("d")->IsNumber(), true, "double is a number");
        NS_TEST_EXPECT_MSG_EQ(value.Find("n")->IsNull(), true, "NaN is null");
        NS_TEST_EXPECT_MSG_EQ(value.Find("u")->GetUint64(),
                              std::numeric_limits<uint64_t>::max(),
                              "uint64 exact");
        NS_TEST_EXPECT_MSG_EQ(value.Find("i")->GetInt64(), -3, "int64");
        NS_TEST_EXPECT_MSG_EQ((value.Find("missing") == nullptr), true, "absent key");
        NS_TEST_EXPECT_MSG_EQ(value.Find("a")->GetTypeName(), "array", "type name");
        NS_TEST_EXPECT_MSG_EQ((Json(2) == Json(2.0)), true, "2 == 2.0");
        NS_TEST_EXPECT_MSG_EQ((Json(uint64_t{2}) == Json(int64_t{2})), true, "signedness");
        NS_TEST_EXPECT_MSG_EQ((Json("2") == Json(2)), false, "string is not number");
        NS_TEST_EXPECT_MSG_EQ((Json(Json::Array{1, "a"}) == Json(Json::Array{1.0, "a"})),
                              true,
                              "arrays");
        NS_TEST_EXPECT_MSG_EQ(satsweep::MeanOrNull({}).IsNull(), true, "mean of none is null");
        NS_TEST_EXPECT_MSG_EQ(satsweep::MeanOrNull({1, 2, 4}).GetDouble(), 7.0 / 3, "mean");
    }
};

/// Parsing flags into a Config: defaults, values, units, choices and every error message.
class ParameterParseTestCase : public TestCase
{
  public:
    ParameterParseTestCase()
        : TestCase("Parameter table: defaults, values, unit suffixes and errors")
    {
    }

  private:
    void DoRun() override
    {
        const auto table = ToyTable();
        table.Validate();

        const ToyConfig defaults = table.Parse({});
        NS_TEST_EXPECT_MSG_EQ(defaults.mode, "fast", "string default");
        NS_TEST_EXPECT_MSG_EQ(defaults.count, 3u, "int default");
        NS_TEST_EXPECT_MSG_EQ(defaults.ratio, 0.5, "float default");
        NS_TEST_EXPECT_MSG_EQ(defaults.level, 1.0, "float choice default");
        NS_TEST_EXPECT_MSG_EQ(defaults.rate, 1e6, "rate default");
        NS_TEST_EXPECT_MSG_EQ(defaults.verbose, false, "bool default");

        const ToyConfig c = table.Parse({"--mode=slow",
                                         "--count=7",
                                         "--offset=-4",
                                         "--big=18446744073709551615",
                                         "--ratio=1",
                                         "--level=0.5",
                                         "--delay=5ms",
                                         "--rate=45Mbps",
                                         "--verbose=true"});
        NS_TEST_EXPECT_MSG_EQ(c.mode, "slow", "choice");
        NS_TEST_EXPECT_MSG_EQ(c.count, 7u, "int");
        NS_TEST_EXPECT_MSG_EQ(c.offset, -4, "negative int");
        NS_TEST_EXPECT_MSG_EQ(c.big, std::numeric_limits<uint64_t>::max(), "uint64 max");
        NS_TEST_EXPECT_MSG_EQ(c.ratio, 1.0, "inclusive maximum");
        NS_TEST_EXPECT_MSG_EQ(c.level, 0.5, "float choice");
        NS_TEST_EXPECT_MSG_EQ(c.delay, 0.005, "ms");
        NS_TEST_EXPECT_MSG_EQ(c.rate, 45e6, "Mbps");
        NS_TEST_EXPECT_MSG_EQ(c.verbose, true, "bool");

        // Unit suffixes: seconds and bit/s; plain numbers are in the unit.
        const std::vector<std::pair<std::string, double>> delays{
            {"0.25", 0.25}, {"2s", 2}, {"10ms", 0.01}, {"10us", 1e-5}, {"0", 0}, {"1e-3", 1e-3}};
        for (const auto& [text, seconds] : delays)
        {
            NS_TEST_EXPECT_MSG_EQ(table.Parse({"--delay=" + text}).delay, seconds, text);
        }
        const std::vector<std::pair<std::string, double>> rates{{"2e6", 2e6},
                                                                {"100bps", 100},
                                                                {"64kbps", 64e3},
                                                                {"149.76Mbps", 149.76e6},
                                                                {"1.5Gbps", 1.5e9}};
        for (const auto& [text, bps] : rates)
        {
            NS_TEST_EXPECT_MSG_EQ(table.Parse({"--rate=" + text}).rate, bps, text);
        }
        NS_TEST_EXPECT_MSG_EQ(table.Parse({"--level=2.0"}).level, 2.0, "2.0 is the choice 2");
        NS_TEST_EXPECT_MSG_EQ(table.Parse({"--verbose=1"}).verbose, true, "bool 1");
        NS_TEST_EXPECT_MSG_EQ(table.Parse({"--verbose=false"}).verbose, false, "bool false");

        // Errors: one message naming the flag and what is allowed.
        const std::vector<std::pair<std::vector<std::string>, std::string>> errors{
            {{"--count=0"}, "--count=0: allowed: an integer >= 1"},
            {{"--count=-2"}, "--count=-2: allowed: an integer >= 1"},
            {{"--count=1.5"}, "--count=1.5: allowed: an integer >= 1"},
            {{"--count="}, "--count=: allowed: an integer >= 1"},
            {{"--count=4294967296"},
             "--count=4294967296: allowed: an integer >= 1 (at most 4294967295)"},
            {{"--big=18446744073709551616"},
             "--big=18446744073709551616: allowed: an integer (at most 18446744073709551615)"},
            {{"--count=-99999999999999999999"},
             "--count=-99999999999999999999: allowed: an integer >= 1"},
            {{"--offset=2147483648"},
             "--offset=2147483648: allowed: an integer (at most 2147483647)"},
            {{"--offset=-2147483649"},
             "--offset=-2147483649: allowed: an integer (at least -2147483648)"},
            {{"--mode=medium"}, "--mode=medium: allowed: fast, slow"},
            {{"--level=3"}, "--level=3: allowed: 0.5, 1, 2"},
            {{"--level=x"}, "--level=x: allowed: 0.5, 1, 2"},
            {{"--ratio=0"}, "--ratio=0: allowed: a number > 0 and <= 1"},
            {{"--ratio=1.01"}, "--ratio=1.01: allowed: a number > 0 and <= 1"},
            {{"--ratio=nan"}, "--ratio=nan: allowed: a number > 0 and <= 1"},
            {{"--ratio=5ms"}, "--ratio=5ms: allowed: a number > 0 and <= 1"},
            {{"--delay=-1ms"},
             "--delay=-1ms: allowed: a number >= 0, in s or with a suffix s, ms, us"},
            {{"--delay=5xs"},
             "--delay=5xs: allowed: a number >= 0, in s or with a suffix s, ms, us"},
            {{"--delay=ms"}, "--delay=ms: allowed: a number >= 0, in s or with a suffix s, ms, us"},
            {{"--rate=0Mbps"},
             "--rate=0Mbps: allowed: a number > 0 and < 1e+12, in bit/s or with a "
             "suffix bps, kbps, Mbps, Gbps"},
            {{"--rate=1000Gbps"},
             "--rate=1000Gbps: allowed: a number > 0 and < 1e+12, in bit/s or with a "
             "suffix bps, kbps, Mbps, Gbps"},
            {{"--verbose=yes"}, "--verbose=yes: allowed: true, false, 1, 0"},
            {{"--nope=1"},
             "--nope: unknown flag; allowed: --big, --count, --delay, --derived, --level, "
             "--limit, --mode, --offset, --rate, --ratio, --verbose"},
            {{"--count=1", "--count=2"}, "--count: given twice"},
            {{"count=1"}, "count=1: flags take the form --name=value (see --help)"},
            {{"--count"}, "--count: flags take the form --name=value (see --help)"},
            {{"--limit=1", "--verbose=0"}, "--limit: not with --verbose"},
        };
        for (const auto& [args, message] : errors)
        {
            NS_TEST_EXPECT_MSG_EQ(UsageErrorOf([&] { table.Parse(args); }), message, args[0]);
        }
        // ParseFlags reports unknown and repeated names too (the driver checks them first).
        const std::vector<satsweep::Flag> twice{{"count", "1"}, {"count", "2"}};
        NS_TEST_EXPECT_MSG_EQ(UsageErrorOf([&] { table.ParseFlags(twice); }),
                              "--count: given twice",
                              "ParseFlags twice");
    }
};

/// The preset parameter, overrides in any order, and the resolver.
class ParameterPresetTestCase : public TestCase
{
  public:
    ParameterPresetTestCase()
        : TestCase("Parameter table: preset first, overrides in any order, resolver last")
    {
    }

  private:
    void DoRun() override
    {
        const auto table = ToyTable();
        NS_TEST_EXPECT_MSG_EQ(table.Parse({}).limit, 10, "preset of the default mode");
        NS_TEST_EXPECT_MSG_EQ(table.Parse({"--mode=slow"}).limit, 20, "preset of slow");
        NS_TEST_EXPECT_MSG_EQ(table.Parse({"--limit=7", "--mode=slow"}).limit,
                              7,
                              "a flag before the preset still overrides it");
        NS_TEST_EXPECT_MSG_EQ(table.Parse({"--mode=slow", "--limit=7"}).limit, 7, "after");
        NS_TEST_EXPECT_MSG_EQ(table.Parse({"--count=5", "--offset=-1"}).derived,
                              4,
                              "resolver derives");
        NS_TEST_EXPECT_MSG_EQ(table.Parse({"--count=5", "--derived=9"}).derived,
                              9,
                              "resolver sees what was given");
    }
};

/// --describe's parameters, --help and the params echo.
class ParameterDescribeTestCase : public TestCase
{
  public:
    ParameterDescribeTestCase()
        : TestCase("Parameter table: describe, help and echo")
    {
    }

  private:
    void DoRun() override
    {
        const auto table = ToyTable();
        const Json described = table.Describe();
        NS_TEST_ASSERT_MSG_EQ(described.GetArray().size(), 11u, "one entry per parameter");
        NS_TEST_EXPECT_MSG_EQ(described.GetArray()[0].Dump(),
                              "{\"name\":\"mode\",\"type\":\"string\",\"default\":\"fast\","
                              "\"choices\":[\"fast\",\"slow\"],\"help\":\"How to go.\"}",
                              "string with choices");
        NS_TEST_EXPECT_MSG_EQ(described.GetArray()[4].Dump(),
                              "{\"name\":\"ratio\",\"type\":\"float\",\"default\":0.5,"
                              "\"maximum\":1,\"exclusiveMinimum\":0,\"help\":\"A fraction.\"}",
                              "float with a range");
        NS_TEST_EXPECT_MSG_EQ(described.GetArray()[5].Dump(),
                              "{\"name\":\"level\",\"type\":\"float\",\"default\":1,"
                              "\"choices\":[0.5,1,2],\"unit\":\"RTT\",\"help\":\"A level.\"}",
                              "float with choices and unit");
        NS_TEST_EXPECT_MSG_EQ(described.GetArray()[8].Dump(),
                              "{\"name\":\"verbose\",\"type\":\"bool\",\"default\":false,"
                              "\"help\":\"Talk more.\"}",
                              "bool");
        NS_TEST_EXPECT_MSG_EQ(described.GetArray()[9].Find("default")->IsNull(),
                              true,
                              "default depending on other parameters is null");
        NS_TEST_EXPECT_MSG_EQ(described.GetArray()[1].Find("minimum")->Dump(), "1", "minimum");

        const std::string help = table.GetHelp();
        for (const std::string& part : {std::string("  --mode=fast|slow\n      How to go.\n"
                                                    "      string; default fast\n"),
                                        std::string("  --count=INT\n      How many.\n"
                                                    "      int >= 1; default 3\n"),
                                        std::string("      float >= 0, in s (suffixes s, ms, "
                                                    "us); default 0.01\n"),
                                        std::string("      float >= 0; no fixed default\n")})
        {
            NS_TEST_EXPECT_MSG_NE(help.find(part), std::string::npos, "help has " << part);
        }

        const Json echo = table.Echo(table.Parse({"--mode=slow", "--delay=2ms", "--count=2"}));
        NS_TEST_EXPECT_MSG_EQ(echo.Dump(),
                              "{\"mode\":\"slow\",\"count\":2,\"offset\":0,\"big\":1,"
                              "\"ratio\":0.5,\"level\":1,\"delay\":0.002,\"rate\":1e+06,"
                              "\"verbose\":false,\"limit\":20,\"derived\":2}",
                              "echo: every parameter in order, effective values");

        // A getter giving the wrong type is a program bug.
        ParameterTable<ToyConfig> bad;
        bad.Add(satsweep::Parameter("x", ValueType::INT),
                [](ToyConfig&, const Json&) {},
                [](const ToyConfig&) { return Json("text"); })
            .SetHelp("x");
        NS_TEST_EXPECT_MSG_EQ(LogicErrorOf([&] { bad.Echo(ToyConfig{}); }),
                              "params.x: string, declared int",
                              "echo type check");
    }
};

/// Inconsistent declarations are program bugs.
class ParameterValidateTestCase : public TestCase
{
  public:
    ParameterValidateTestCase()
        : TestCase("Parameter table: inconsistent declarations are refused")
    {
    }

  private:
    void DoRun() override
    {
        ParameterTable<ToyConfig> table;
        table.Add("count", &ToyConfig::count).SetDefault(0).SetMinimum(1).SetHelp("n");
        NS_TEST_EXPECT_MSG_EQ(LogicErrorOf([&] { table.Validate(); }),
                              "parameter count: default 0 is not an allowed value (an integer "
                              ">= 1)",
                              "default out of range");
        NS_TEST_EXPECT_MSG_EQ(
            LogicErrorOf([&] { table.Add("count", &ToyConfig::count); }),
            "parameter count declared twice",
            "twice");

        ParameterTable<ToyConfig> choices;
        choices.Add("mode", &ToyConfig::mode).SetDefault("x").SetChoices({"a"}).SetHelp("m");
        NS_TEST_EXPECT_MSG_NE(LogicErrorOf([&] { choices.Validate(); }), "", "not a choice");

        ParameterTable<ToyConfig> types;
        types.Add("ratio", &ToyConfig::ratio).SetChoices({"a"}).SetHelp("r");
        NS_TEST_EXPECT_MSG_NE(LogicErrorOf([&] { types.Validate(); }), "", "choice of wrong type");

        ParameterTable<ToyConfig> noHelp;
        noHelp.Add("ratio", &ToyConfig::ratio);
        NS_TEST_EXPECT_MSG_EQ(LogicErrorOf([&] { noHelp.Validate(); }),
                              "parameter ratio: no help text",
                              "help required");

        ParameterTable<ToyConfig> badName;
        badName.Add("2x", &ToyConfig::ratio).SetHelp("r");
        NS_TEST_EXPECT_MSG_EQ(LogicErrorOf([&] { badName.Validate(); }),
                              "parameter 2x: a name is a letter followed by letters, digits or "
                              "'_'",
                              "name");

        ParameterTable<ToyConfig> preset;
        preset.SetPreset("nothing", [](ToyConfig&) {});
        NS_TEST_EXPECT_MSG_NE(LogicErrorOf([&] { preset.Validate(); }), "", "unknown preset");
    }
};

/// The output schema: --describe's summary and tables, and the check of results.
class OutputSchemaTestCase : public TestCase
{
  public:
    OutputSchemaTestCase()
        : TestCase("Output schema: describe and check")
    {
    }

  private:
    void DoRun() override
    {
        const OutputSchema outputs = ToyOutputs();
        outputs.Validate();
        NS_TEST_EXPECT_MSG_EQ(outputs.DescribeSummary().GetArray()[0].Dump(),
                              "{\"name\":\"total\",\"type\":\"int\",\"unit\":\"items\","
                              "\"help\":\"Items done.\"}",
                              "summary field");
        NS_TEST_EXPECT_MSG_EQ(outputs.DescribeTables().Dump(),
                              "{\"rows\":[{\"name\":\"id\",\"type\":\"int\",\"help\":\"Row "
                              "index.\"},{\"name\":\"value\",\"type\":\"float\",\"unit\":\"s\","
                              "\"help\":\"A time, null if none.\"}]}",
                              "tables");

        ToyConfig config;
        config.mode = "fast";
        config.count = 3;
        config.delay = 0.5;
        NS_TEST_EXPECT_MSG_EQ(LogicErrorOf([&] { outputs.Check(ToyResult(config)); }),
                              "",
                              "a result that fits (ints as floats, nulls)");

        auto withSummary = [](Json summary) {
            return Json(Json::Object{{"summary", summary}, {"rows", Json(Json::Array{})}});
        };
        const std::vector<std::pair<Json, std::string>> bad{
            {withSummary(Json(Json::Object{{"version", "1"}})),
             "summary.version: not declared in the output schema"},
            {withSummary(Json(Json::Object{{"total", 1.5}})),
             "summary.total: number 1.5, declared int"},
            {withSummary(Json(Json::Object{{"share", "x"}})),
             "summary.share: string \"x\", declared float"},
            {withSummary(Json(Json::Object{{"ok", 1}})), "summary.ok: integer 1, declared bool"},
            {withSummary(Json(Json::Array{})), "summary: array, not an object"},
            {Json(Json::Object{{"summary", Json(Json::Object{})}}),
             "result.rows: missing or not an array"},
            {Json(Json::Object{{"rows", Json(Json::Array{})}}), "result: no summary"},
            {Json(Json::Object{{"summary", Json(Json::Object{})},
                               {"rows",
                                Json(Json::Array{Json(Json::Object{{"id", 0}, {"x", 1}})})}}),
             "rows[0].x: not declared in the output schema"},
            {Json(Json::Object{{"summary", Json(Json::Object{})},
                               {"rows", Json(Json::Array{})},
                               {"extra", Json(Json::Array{})}}),
             "result.extra: not declared in the output schema"},
        };
        for (const auto& [result, message] : bad)
        {
            NS_TEST_EXPECT_MSG_EQ(LogicErrorOf([&] { outputs.Check(result); }), message, message);
        }

        OutputSchema twice;
        twice.AddSummary("a", ValueType::INT, "", "x").AddSummary("a", ValueType::INT, "", "y");
        NS_TEST_EXPECT_MSG_NE(LogicErrorOf([&] { twice.Validate(); }), "", "field twice");
        for (const std::string table : {"params", "summary", "runs"})
        {
            OutputSchema reserved;
            reserved.AddColumn(table, "a", ValueType::INT, "", "x");
            NS_TEST_EXPECT_MSG_NE(LogicErrorOf([&] { reserved.Validate(); }), "", table);
        }
        OutputSchema badName;
        badName.AddSummary("a-b", ValueType::INT, "", "x");
        NS_TEST_EXPECT_MSG_NE(LogicErrorOf([&] { badName.Validate(); }), "", "not a name");

        // Bounds: described, and a value past one is a program bug.
        OutputSchema bounded;
        bounded.AddSummary("index", ValueType::FLOAT, "", "x").SetSummaryBounds("index", 0, 1);
        NS_TEST_EXPECT_MSG_EQ(bounded.DescribeSummary().GetArray()[0].Dump(),
                              "{\"name\":\"index\",\"type\":\"float\",\"help\":\"x\","
                              "\"minimum\":0,\"maximum\":1}",
                              "bounds described");
        auto index = [](double value) {
            return Json(Json::Object{{"summary", Json(Json::Object{{"index", value}})}});
        };
        NS_TEST_EXPECT_MSG_EQ(LogicErrorOf([&] { bounded.Check(index(1)); }), "", "at a bound");
        NS_TEST_EXPECT_MSG_EQ(LogicErrorOf([&] { bounded.Check(index(1.25)); }),
                              "summary.index: 1.25 is outside its declared bounds",
                              "past a bound");
        NS_TEST_EXPECT_MSG_EQ(LogicErrorOf([&] { bounded.SetSummaryBounds("other", 0, 1); }),
                              "summary.other: bounds of a field not declared",
                              "bounds of nothing");

        // A measurement of the machine: described as not reproducible.
        OutputSchema machine;
        machine.AddSummary("wall", ValueType::FLOAT, "s", "x").SetSummaryNotReproducible("wall");
        NS_TEST_EXPECT_MSG_EQ(machine.DescribeSummary().GetArray()[0].Dump(),
                              "{\"name\":\"wall\",\"type\":\"float\",\"unit\":\"s\","
                              "\"help\":\"x\",\"reproducible\":false}",
                              "not reproducible described");
        NS_TEST_EXPECT_MSG_EQ(LogicErrorOf([&] { machine.SetSummaryNotReproducible("other"); }),
                              "summary.other: not reproducible, but not declared",
                              "not reproducible of nothing");
    }
};

/// The cost hint: description, validation against the parameters, estimate.
class CostHintTestCase : public TestCase
{
  public:
    CostHintTestCase()
        : TestCase("Cost hint: describe, validate, estimate")
    {
    }

  private:
    void DoRun() override
    {
        const auto table = ToyTable();
        const CostHint cost({"count", "delay"}, "mode", {{"fast", 0.5}, {"slow", 2}});
        NS_TEST_EXPECT_MSG_EQ(cost.Describe().Dump(),
                              "{\"per\":[\"count\",\"delay\"],\"by\":\"mode\","
                              "\"seconds\":{\"fast\":0.5,\"slow\":2}}",
                              "describe");
        cost.Validate(table.Describe());
        const Json params = table.Echo(table.Parse({"--mode=slow", "--count=4", "--delay=3"}));
        NS_TEST_EXPECT_MSG_EQ(cost.Estimate(params), 24.0, "2 x 4 x 3");
        // each choice's presets, from the program's echo of --mode=<choice>
        const std::string withDefaults =
            cost.Describe([](const std::string& choice) {
                    // an echo whose delay the choice presets
                    return Json(Json::Object{{"count", 3}, {"delay", choice == "slow" ? 9 : 1}});
                })
                .Dump();
        NS_TEST_EXPECT_MSG_EQ(withDefaults,
                              "{\"per\":[\"count\",\"delay\"],\"by\":\"mode\","
                              "\"seconds\":{\"fast\":0.5,\"slow\":2},\"defaults\":{"
                              "\"fast\":{\"count\":3,\"delay\":1},"
                              "\"slow\":{\"count\":3,\"delay\":9}}}",
                              "defaults by choice");
        NS_TEST_EXPECT_MSG_EQ(CostHint({"count"}, 1.5).Describe().Dump(),
                              "{\"per\":[\"count\"],\"seconds\":1.5}",
                              "without by");

        const Json parameters = table.Describe();
        NS_TEST_EXPECT_MSG_NE(LogicErrorOf([&] { CostHint({"nope"}, 1).Validate(parameters); }),
                              "",
                              "unknown per");
        NS_TEST_EXPECT_MSG_NE(LogicErrorOf([&] { CostHint({"mode"}, 1).Validate(parameters); }),
                              "",
                              "per not a number");
        NS_TEST_EXPECT_MSG_NE(LogicErrorOf([&] { CostHint({"limit"}, 1).Validate(parameters); }),
                              "",
                              "per without a default");
        NS_TEST_EXPECT_MSG_NE(
            LogicErrorOf([&] { CostHint({}, "mode", {{"fast", 1}}).Validate(parameters); }),
            "",
            "a rate missing");
        NS_TEST_EXPECT_MSG_NE(
            LogicErrorOf([&] { CostHint({}, "count", {{"1", 1}}).Validate(parameters); }),
            "",
            "by without choices");
    }
};

/// The driver: --help, --describe, exit codes, the result file.
class ProgramDriverTestCase : public TestCase
{
  public:
    ProgramDriverTestCase()
        : TestCase("Program driver: help, describe, exit codes, atomic result")
    {
    }

  private:
    /// The outcome of one call of the toy program.
    struct Call
    {
        int code;        //!< exit code
        std::string out; //!< standard output
        std::string err; //!< error stream
    };

    /// @return the toy program's driver, whose run gives @p result (the toy result if null)
    static satsweep::ProgramDriver Driver(std::function<Json(const ToyConfig&)> run,
                                          std::shared_ptr<ToyConfig> config,
                                          const OutputSchema& outputs = ToyOutputs())
    {
        static const auto table = ToyTable();
        satsweep::ProgramDriver::Hooks hooks{
            .names = table.GetNames(),
            .validate = [] { table.Validate(); },
            .help = [] { return table.GetHelp(); },
            .describe = [] { return table.Describe(); },
            .parse =
                [config](const std::vector<satsweep::Flag>& flags) {
                    *config = table.ParseFlags(flags);
                    return table.Echo(*config);
                },
            .run = [config, run] { return run(*config); },
        };
        return satsweep::ProgramDriver("toy",
                                       "1.2.3",
                                       outputs,
                                       CostHint({"count"}, "mode", {{"fast", 1}, {"slow", 3}}),
                                       hooks);
    }

    /// @return the outcome of `toy ARGS`
    static Call Invoke(const std::vector<std::string>& args,
                    std::function<Json(const ToyConfig&)> run = &ToyResult)
    {
        auto config = std::make_shared<ToyConfig>();
        std::ostringstream out;
        std::ostringstream err;
        const int code = Driver(run, config).Main(args, out, err);
        return {code, out.str(), err.str()};
    }

    void DoRun() override
    {
        const uint32_t seed = RngSeedManager::GetSeed();
        const uint64_t run = RngSeedManager::GetRun();
        namespace fs = std::filesystem;
        const fs::path dir =
            fs::temp_directory_path() / ("satsweep-driver-" + std::to_string(getpid()));
        fs::create_directories(dir);
        const std::string out = (dir / "r.json").string();

        Call help = Invoke({"--count=0", "--help"});
        NS_TEST_EXPECT_MSG_EQ(help.code, 0, "--help wins over anything");
        NS_TEST_EXPECT_MSG_NE(help.out.find("  --count=INT\n"), std::string::npos, "params");
        NS_TEST_EXPECT_MSG_NE(help.out.find("  --run=INT\n"), std::string::npos, "run control");
        NS_TEST_EXPECT_MSG_NE(help.out.find("<= 4294944442"), std::string::npos, "seed limit");

        Call describe = Invoke({"--describe"});
        NS_TEST_EXPECT_MSG_EQ(describe.code, 0, "--describe");
        const std::string head = "{\n  \"name\": \"toy\",\n  \"version\": \"1.2.3\",\n"
                                 "  \"parameters\": [\n";
        NS_TEST_EXPECT_MSG_EQ(describe.out.substr(0, head.size()), head, "describe head");
        size_t last = 0;
        for (const char* key : {"\n  \"parameters\": ",
                                       "\n  \"summary\": ",
                                       "\n  \"tables\": ",
                                       "\n  \"cost\": "})
        {
            const size_t at = describe.out.find(key);
            NS_TEST_EXPECT_MSG_EQ((at != std::string::npos && at > last), true, "order of " << key);
            last = at;
        }
        NS_TEST_EXPECT_MSG_EQ(describe.out.find("\"run\""), std::string::npos, "run not listed");
        NS_TEST_EXPECT_MSG_EQ(describe.out.find("\"seed\""), std::string::npos, "seed not listed");

        // One run to a file: params first, then summary and tables; nothing else left behind.
        Call done = Invoke({"--count=2", "--run=18446744073709551615", "--seed=7", "--out=" + out});
        NS_TEST_EXPECT_MSG_EQ(done.code, 0, "run: " << done.err);
        NS_TEST_EXPECT_MSG_EQ(done.out + done.err, "", "silent");
        NS_TEST_EXPECT_MSG_EQ(RngSeedManager::GetRun(), UINT64_MAX, "run");
        NS_TEST_EXPECT_MSG_EQ(RngSeedManager::GetSeed(), 7u, "seed");
        std::ifstream file(out);
        std::stringstream text;
        text << file.rdbuf();
        NS_TEST_EXPECT_MSG_EQ(text.str(),
                              "{\n \"params\": {\n  \"mode\": \"fast\",\n  \"count\": 2,\n"
                              "  \"offset\": 0,\n  \"big\": 1,\n  \"ratio\": 0.5,\n"
                              "  \"level\": 1,\n  \"delay\": 0.01,\n  \"rate\": 1e+06,\n"
                              "  \"verbose\": false,\n  \"limit\": 10,\n  \"derived\": 2\n },\n"
                              " \"summary\": {\n  \"total\": 2,\n  \"share\": 1,\n"
                              "  \"label\": \"fast\",\n  \"ok\": true\n },\n \"rows\": [\n  {\n"
                              "   \"id\": 0,\n   \"value\": null\n  },\n  {\n   \"id\": 1,\n"
                              "   \"value\": 0.01\n  }\n ]\n}\n",
                              "result file");
        NS_TEST_EXPECT_MSG_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()),
                              1,
                              "no temporary file left");
        fs::remove(out);

        Call stdoutRun = Invoke({"--count=1"});
        NS_TEST_EXPECT_MSG_EQ(stdoutRun.code, 0, "run to stdout");
        NS_TEST_EXPECT_MSG_EQ(stdoutRun.out.substr(0, 13), "{\n \"params\": ", "stdout result");

        // Bad input: exit 2, one line, nothing written.
        const std::vector<std::pair<std::vector<std::string>, std::string>> bad{
            {{"--run=0"}, "toy: --run=0: allowed: an integer >= 1\n"},
            {{"--run=18446744073709551616"},
             "toy: --run=18446744073709551616: allowed: an integer >= 1 (at most "
             "18446744073709551615)\n"},
            {{"--seed=4294944443"}, "toy: --seed=4294944443: allowed: an integer >= 1 and <= "
                                    "4294944442\n"},
            {{"--out="}, "toy: --out=: allowed: a file path\n"},
            {{"--out=" + (dir / "missing" / "r.json").string()},
             "toy: --out=" + (dir / "missing" / "r.json").string() + ": directory " +
                 (dir / "missing").string() + " does not exist\n"},
            {{"--count=0"}, "toy: --count=0: allowed: an integer >= 1\n"},
            {{"--run=1", "--run=2"}, "toy: --run: given twice\n"},
            {{"--nope=1"},
             "toy: --nope: unknown flag; allowed: --big, --count, --delay, --derived, --level, "
             "--limit, --mode, --offset, --out, --rate, --ratio, --run, --seed, --verbose\n"},
            {{"--limit=1", "--verbose=1"}, "toy: --limit: not with --verbose\n"},
        };
        for (const auto& [args, message] : bad)
        {
            Call call = Invoke([&] {
                auto withOut = args;
                if (!args[0].starts_with("--out"))
                {
                    withOut.push_back("--out=" + out);
                }
                return withOut;
            }());
            NS_TEST_EXPECT_MSG_EQ(call.code, 2, args[0]);
            NS_TEST_EXPECT_MSG_EQ(call.err, message, args[0]);
            NS_TEST_EXPECT_MSG_EQ(fs::exists(out), false, "nothing written: " << args[0]);
        }

        // A result that breaks the schema is a program bug: exit 1, nothing written.
        Call broken = Invoke({"--out=" + out}, [](const ToyConfig& c) {
            Json result = ToyResult(c);
            return Json(Json::Object{
                {"summary", Json(Json::Object{{"total", 1}, {"version", "1.0"}})},
                {"rows", *result.Find("rows")}});
        });
        NS_TEST_EXPECT_MSG_EQ(broken.code, 1, "schema violation");
        NS_TEST_EXPECT_MSG_EQ(broken.err,
                              "toy: summary.version: not declared in the output schema\n",
                              "schema message");
        NS_TEST_EXPECT_MSG_EQ(fs::exists(out), false, "nothing written on a violation");

        Call failed =
            Invoke({}, [](const ToyConfig&) -> Json { throw std::runtime_error("boom"); });
        NS_TEST_EXPECT_MSG_EQ(failed.code, 1, "a failing run");
        NS_TEST_EXPECT_MSG_EQ(failed.err, "toy: boom\n", "its message");

        // An inconsistent declaration is a program bug: exit 1 even for --describe.
        OutputSchema clash = ToyOutputs();
        clash.AddSummary("count", ValueType::INT, "", "A summary named like a parameter.");
        std::ostringstream clashOut;
        std::ostringstream clashErr;
        NS_TEST_EXPECT_MSG_EQ(Driver(&ToyResult, std::make_shared<ToyConfig>(), clash)
                                  .Main({"--describe"}, clashOut, clashErr),
                              1,
                              "declaration bug");
        NS_TEST_EXPECT_MSG_EQ(clashErr.str(),
                              "toy: internal error: summary field count repeats a parameter's "
                              "name\n",
                              "its message");
        NS_TEST_EXPECT_MSG_EQ(clashOut.str(), "", "nothing described");

        fs::remove_all(dir);
        RngSeedManager::SetSeed(seed);
        RngSeedManager::SetRun(run);
    }
};

/// Tests of the engine contract library.
class ProgramTestSuite : public TestSuite
{
  public:
    ProgramTestSuite()
        : TestSuite("satsweep-contract", Type::UNIT)
    {
        AddTestCase(new JsonTestCase, Duration::QUICK);
        AddTestCase(new ParameterParseTestCase, Duration::QUICK);
        AddTestCase(new ParameterPresetTestCase, Duration::QUICK);
        AddTestCase(new ParameterDescribeTestCase, Duration::QUICK);
        AddTestCase(new ParameterValidateTestCase, Duration::QUICK);
        AddTestCase(new OutputSchemaTestCase, Duration::QUICK);
        AddTestCase(new CostHintTestCase, Duration::QUICK);
        AddTestCase(new ProgramDriverTestCase, Duration::QUICK);
    }
};

/// The suite's only instance.
static ProgramTestSuite g_programTestSuite;
