// Tests of the per-run metrics: max-min fair shares, fairness index, efficiency.
#include "model/fairness-metrics.h"

#include "ns3/test.h"

#include <numeric>
#include <string>
#include <vector>

using namespace ns3;

namespace
{
/// Tolerance of exact hand computations in floating point.
constexpr double kTol = 1e-12;
} // namespace

/// Max-min fair shares on hand-computed cases.
class MaxMinFairSharesTestCase : public TestCase
{
  public:
    MaxMinFairSharesTestCase()
        : TestCase("Max-min fair shares of hand-computed cases")
    {
    }

  private:
    void DoRun() override
    {
        // share 2.5: 1 and 2 leave; share (10 - 3) / 2 = 3.5 for both 8s.
        Check(10, {1, 2, 8, 8}, {1, 2, 3.5, 3.5}, "C=10, 1 2 8 8");
        // Order must not matter.
        Check(10, {8, 1, 8, 2}, {3.5, 1, 3.5, 2}, "C=10, 8 1 8 2");
        // Every demand above the equal share: equal split.
        Check(12, {5, 7, 100}, {4, 4, 4}, "all above");
        // Every demand fits: everyone gets its demand, capacity is left over.
        Check(100, {1, 2, 3}, {1, 2, 3}, "all fit");
        // Several rounds, and demands exactly at the share stay until a later round:
        // share 3 (1 leaves, 3 == share stays); share 11/3 (3 leaves); share 4 (4 == share stays).
        Check(12, {1, 3, 4, 10}, {1, 3, 4, 4}, "multi-round with ties");
        // Demands all exactly at the share.
        Check(9, {3, 3, 3}, {3, 3, 3}, "all at the share");
        // Zero demands get 0 and free their share.
        Check(10, {0, 0, 20, 20}, {0, 0, 5, 5}, "zero demands");
        // No capacity: nothing to share.
        Check(0, {1, 2}, {0, 0}, "zero capacity");
        Check(10, {}, {}, "empty");
        Check(10, {25}, {10}, "single server");

        // Whenever some demand is unmet the whole capacity is shared out.
        const std::vector<double> demands{0.5, 7, 1.25, 3, 9, 2};
        const std::vector<double> shares = MaxMinFairShares(15, demands);
        NS_TEST_EXPECT_MSG_EQ_TOL(std::accumulate(shares.begin(), shares.end(), 0.0),
                                  15.0,
                                  kTol,
                                  "capacity not fully shared");
        for (std::size_t i = 0; i < demands.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_LT_OR_EQ(shares[i], demands[i], "share above demand at " << i);
        }
    }

    /**
     * @param capacity link capacity
     * @param demands server demands
     * @param want expected fair shares
     * @param what name of the case
     */
    void Check(double capacity,
               const std::vector<double>& demands,
               const std::vector<double>& want,
               const std::string& what)
    {
        const std::vector<double> got = MaxMinFairShares(capacity, demands);
        NS_TEST_ASSERT_MSG_EQ(got.size(), want.size(), what << ": wrong number of shares");
        for (std::size_t i = 0; i < want.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(got[i], want[i], kTol, what << ": share " << i);
        }
    }
};

/// Fairness index on hand-computed cases.
class FairnessIndexTestCase : public TestCase
{
  public:
    FairnessIndexTestCase()
        : TestCase("Fairness index of hand-computed cases")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<double> share{1, 2, 3.5, 3.5};
        NS_TEST_EXPECT_MSG_EQ_TOL(FairnessIndex(share, share), 1.0, kTol, "x = e must give 1");
        // Everyone at the same fraction of its share is fair too.
        NS_TEST_EXPECT_MSG_EQ_TOL(FairnessIndex({0.5, 1, 1.75, 1.75}, share),
                                  1.0,
                                  kTol,
                                  "x = e / 2 must give 1");
        // Ratios 1, 0.5, 1, 0.5: (3)^2 / (4 x 2.5) = 0.9.
        NS_TEST_EXPECT_MSG_EQ_TOL(FairnessIndex({1, 1, 3.5, 1.75}, share),
                                  0.9,
                                  kTol,
                                  "unequal case");
        // Ratios 1, 0, 0, 0: 1 / (4 x 1) = 1/N, the least fair.
        NS_TEST_EXPECT_MSG_EQ_TOL(FairnessIndex({1, 0, 0, 0}, share),
                                  0.25,
                                  kTol,
                                  "one served");
        // Ratios above 1 count like any other: 2 and 1 give 9 / (2 x 5) = 0.9.
        NS_TEST_EXPECT_MSG_EQ_TOL(FairnessIndex({4, 2}, {2, 2}), 0.9, kTol, "ratio above 1");
        // e = 0 is left out, N = 2: ratios 1, 0.5 give 2.25 / (2 x 1.25) = 0.9.
        NS_TEST_EXPECT_MSG_EQ_TOL(FairnessIndex({5, 2, 1}, {0, 2, 2}),
                                  0.9,
                                  kTol,
                                  "zero share skipped");
        NS_TEST_EXPECT_MSG_EQ_TOL(FairnessIndex({0, 0, 0}, {1, 2, 3}), 1.0, kTol, "all-zero x");
        NS_TEST_EXPECT_MSG_EQ_TOL(FairnessIndex({1, 2}, {0, 0}), 1.0, kTol, "no demand at all");
        NS_TEST_EXPECT_MSG_EQ_TOL(FairnessIndex({}, {}), 1.0, kTol, "empty");
    }
};

/// Efficiency and the metrics chained as a scenario uses them.
class EfficiencyTestCase : public TestCase
{
  public:
    EfficiencyTestCase()
        : TestCase("Efficiency, and the metrics chained")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ_TOL(Efficiency({10, 5}, 20), 0.75, kTol, "E = 15 / 20");
        NS_TEST_EXPECT_MSG_EQ_TOL(Efficiency({}, 20), 0.0, kTol, "no connection");

        // C = 10, demands 1 2 8 8 -> e = 1 2 3.5 3.5; x = 1 1 3.5 1.75 -> E = 0.725, F = 0.9.
        const std::vector<double> x{1, 1, 3.5, 1.75};
        const std::vector<double> e = MaxMinFairShares(10, {1, 2, 8, 8});
        NS_TEST_EXPECT_MSG_EQ_TOL(Efficiency(x, 10), 0.725, kTol, "E");
        NS_TEST_EXPECT_MSG_EQ_TOL(FairnessIndex(x, e), 0.9, kTol, "F");
    }
};

/// Tests of the per-run metrics.
class FairnessMetricsTestSuite : public TestSuite
{
  public:
    FairnessMetricsTestSuite()
        : TestSuite("satnet-fairness-metrics", Type::UNIT)
    {
        AddTestCase(new MaxMinFairSharesTestCase, Duration::QUICK);
        AddTestCase(new FairnessIndexTestCase, Duration::QUICK);
        AddTestCase(new EfficiencyTestCase, Duration::QUICK);
    }
};

/// The suite's only instance.
static FairnessMetricsTestSuite g_fairnessMetricsTestSuite;
