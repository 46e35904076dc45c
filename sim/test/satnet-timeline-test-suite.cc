/*
 * satnet's timeline table: its bins add up to the run's totals, and it changes no result.
 */
#include "programs/satnet/satnet-config.h"
#include "programs/satnet/satnet-scenario.h"

#include "ns3/rng-seed-manager.h"
#include "ns3/test.h"

#include <cmath>

using namespace ns3;
using satsweep::Json;

namespace
{

/// One run of @p flags with ns-3's run number 3.
Json
RunWith(const std::vector<std::string>& flags)
{
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(3);
    return satnet::RunScenario(satnet::Parameters().Parse(flags));
}

/**
 * @ingroup satnet-tests
 * The bins' bytes add up to the connections' bytes_received, their goodput x duration to the
 * summary's goodput x simTime (so their time-weighted efficiency is the summary's), the bins
 * tile [0, simTime] (the last one shorter), and a run without the timeline (timelineBin 0)
 * has the same summary, events included.
 */
class TimelineTotalsTestCase : public TestCase
{
  public:
    TimelineTotalsTestCase()
        : TestCase("satnet timeline: bins add up to the run's totals; no result changes")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string workload : {"www", "bulk"})
        {
            const std::vector<std::string> common{"--link=wan",
                                                  "--clients=10",
                                                  "--simTime=7.5",
                                                  "--workload=" + workload};
            std::vector<std::string> binned = common;
            binned.emplace_back("--timelineBin=2");
            const Json with = RunWith(binned);
            std::vector<std::string> none = common;
            none.emplace_back("--timelineBin=0");
            const Json without = RunWith(none);

            const auto& rows = with.Find("timeline")->GetArray();
            NS_TEST_ASSERT_MSG_EQ(rows.size(), 4u, workload + ": bins 0-2-4-6-7.5");
            NS_TEST_EXPECT_MSG_EQ(without.Find("timeline")->GetArray().size(), 0u, "none");
            uint64_t bytes = 0;
            double bits = 0;
            double efficiencyTime = 0;
            double end = 0;
            for (const auto& row : rows)
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(row.Find("time")->GetDouble(), end, 1e-12, "tiled");
                const double duration = row.Find("duration")->GetDouble();
                end += duration;
                bytes += row.Find("bytes")->GetUint64();
                bits += row.Find("goodput_bps")->GetDouble() * duration;
                efficiencyTime += row.Find("efficiency")->GetDouble() * duration;
                NS_TEST_EXPECT_MSG_EQ(row.Find("backlog_bytes")->IsNull(), (workload == "bulk"),
                                      "backlog only with the WWW load");
            }
            NS_TEST_EXPECT_MSG_EQ_TOL(end, 7.5, 1e-12, "the last bin ends at simTime");
            NS_TEST_EXPECT_MSG_EQ_TOL(rows.back().Find("duration")->GetDouble(), 1.5, 1e-12,
                                      "the last bin is shorter");
            uint64_t received = 0;
            for (const auto& connection : with.Find("connections")->GetArray())
            {
                received += connection.Find("bytes_received")->GetUint64();
            }
            NS_TEST_EXPECT_MSG_GT(received, 0u, workload + ": traffic");
            NS_TEST_EXPECT_MSG_EQ(bytes, received, workload + ": bytes add up");
            const auto* summary = with.Find("summary");
            const double goodput = summary->Find("goodput_bps")->GetDouble();
            NS_TEST_EXPECT_MSG_EQ_TOL(bits / 7.5, goodput, goodput * 1e-12, "goodput adds up");
            NS_TEST_EXPECT_MSG_EQ_TOL(efficiencyTime / 7.5,
                                      summary->Find("efficiency")->GetDouble(),
                                      1e-12,
                                      "efficiency is the bins' time average");
            for (const std::string field : {"efficiency", "goodput_bps", "events", "timeouts"})
            {
                NS_TEST_EXPECT_MSG_EQ(summary->Find(field)->Dump(),
                                      without.Find("summary")->Find(field)->Dump(),
                                      workload + ": " + field + " without the timeline");
            }
        }
    }
};

/**
 * @ingroup satnet-tests
 * The timeline's size is bounded: simTime / timelineBin at most 2e6 rows, 0 turns it off.
 */
class TimelineRowsTestCase : public TestCase
{
  public:
    TimelineRowsTestCase()
        : TestCase("satnet timeline: at most 2e6 rows; 0 turns it off")
    {
    }

  private:
    void DoRun() override
    {
        std::string said;
        try
        {
            satnet::Parameters().Parse({"--simTime=100", "--timelineBin=1e-5"});
        }
        catch (const satsweep::UsageError& e)
        {
            said = e.what();
        }
        NS_TEST_EXPECT_MSG_EQ(said,
                              "--timelineBin=1e-05: allowed: simTime / timelineBin <= 2000000 "
                              "timeline rows, or --timelineBin=0 (here 100 / 1e-05)",
                              "too many rows");
        const auto longest = satnet::Parameters().Parse({"--simTime=2e6", "--clients=1"});
        NS_TEST_EXPECT_MSG_EQ(longest.timelineBin, 1, "the default takes the longest run");
        const auto none = satnet::Parameters().Parse({"--simTime=1", "--timelineBin=0"});
        NS_TEST_EXPECT_MSG_EQ(none.timelineBin, 0, "0: no timeline");
    }
};

class SatnetTimelineTestSuite : public TestSuite
{
  public:
    SatnetTimelineTestSuite()
        : TestSuite("satnet-timeline", Type::UNIT)
    {
        AddTestCase(new TimelineTotalsTestCase, Duration::QUICK);
        AddTestCase(new TimelineRowsTestCase, Duration::QUICK);
    }
};

static SatnetTimelineTestSuite g_satnetTimelineTestSuite;

} // namespace
