// Mann-Whitney U against values computed by hand and against published critical-value tables
// (two-sided; e.g. Siegel & Castellan, Table J): the exact distribution, the normal
// approximation with tie and continuity corrections, and the edge cases.
#include "analysis/stats_mann_whitney.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace flashscope::reports {
namespace {

TEST(MannWhitney, CompleteSeparationOfThreeVsThree) {
  // Every a below every b: U_a = 0; the exact two-sided p is 2 / C(6,3) = 2/20.
  MannWhitneyResult r = MannWhitneyU({1, 2, 3}, {4, 5, 6});
  EXPECT_EQ(r.u, 0);
  EXPECT_TRUE(r.exact);
  EXPECT_FALSE(r.ties);
  EXPECT_NEAR(r.p_value, 0.1, 1e-12);
  EXPECT_EQ(r.Method(), "exact (3 vs 3)");
  // The direction does not matter (two-sided), U is that of the first sample.
  MannWhitneyResult s = MannWhitneyU({4, 5, 6}, {1, 2, 3});
  EXPECT_EQ(s.u, 9);
  EXPECT_NEAR(s.p_value, 0.1, 1e-12);
}

TEST(MannWhitney, OneInversionByHand) {
  // a = {1,2,4}, b = {3,5,6}: ranks of a are 1,2,4 -> R = 7, U = 7 - 6 = 1. For 3 vs 3 the
  // 20 arrangements have U = 0 once and U = 1 once, so p = 2 · 2/20 = 0.2.
  MannWhitneyResult r = MannWhitneyU({1, 2, 4}, {3, 5, 6});
  EXPECT_EQ(r.u, 1);
  EXPECT_NEAR(r.p_value, 0.2, 1e-12);
}

TEST(MannWhitney, ExactCdfMatchesCriticalValueTables) {
  // Two-sided critical values of U (the largest U with p <= alpha) from the standard tables:
  // n = 5,5 alpha .05: 2; n = 8,8 alpha .05: 13; n = 10,10 alpha .05: 23 and alpha .01: 16.
  struct Row {
    int n, crit;
    double alpha;
  };
  for (Row row : {Row{5, 2, 0.05}, Row{8, 13, 0.05}, Row{10, 23, 0.05}, Row{10, 16, 0.01}}) {
    SCOPED_TRACE(testing::Message() << "n=" << row.n << " crit=" << row.crit);
    EXPECT_LE(2 * MannWhitneyExactCdf(row.n, row.n, row.crit), row.alpha);
    EXPECT_GT(2 * MannWhitneyExactCdf(row.n, row.n, row.crit + 1), row.alpha);
  }
  // Hand-checkable exact values: P(U <= 2) for 5 vs 5 = (1 + 1 + 2) / 252.
  EXPECT_NEAR(MannWhitneyExactCdf(5, 5, 2), 4.0 / 252, 1e-12);
  EXPECT_NEAR(MannWhitneyExactCdf(10, 10, 16), 0.00893069778518695 / 2, 1e-12);
  EXPECT_NEAR(MannWhitneyExactCdf(4, 6, 100), 1.0, 1e-12);
  // Unequal sizes: P(U <= 3) for 4 vs 6 is 7/210 (partitions of 0..3 into <= 4 parts <= 6).
  EXPECT_NEAR(MannWhitneyExactCdf(4, 6, 3), 7.0 / 210, 1e-12);
}

TEST(MannWhitney, NormalApproximationWithTiesByHand) {
  // a = {1,2,2,3,3,3,4,5}, b = {3,4,4,5,6,6,7,8,9} (n = 17). Mid-ranks: 1 -> 1, 2 -> 2.5,
  // 3 -> 5.5, 4 -> 9, 5 -> 11.5; R_a = 1 + 2·2.5 + 3·5.5 + 9 + 11.5 = 43, U_a = 43 - 36 = 7.
  // Tie groups (2 twice, 3 four times, 4 three times, 5 and 6 twice each) give sum(t³ - t) =
  // 6 + 60 + 24 + 6 + 6 = 102. Var = 8·9/12 · (18 - 102/272) = 105.75. With U = max(7, 65) = 65 and
  // continuity correction: z = (65 - 36 - 0.5) / sqrt(105.75) = 2.77143, p = erfc(z/√2).
  MannWhitneyResult r = MannWhitneyU({1, 2, 2, 3, 3, 3, 4, 5}, {3, 4, 4, 5, 6, 6, 7, 8, 9});
  EXPECT_EQ(r.u, 7);
  EXPECT_TRUE(r.ties);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p_value, 0.005580984136839319, 1e-12);
  EXPECT_EQ(r.Method(), "normal approx., tie-corrected (8 vs 9)");
}

TEST(MannWhitney, LargeSamplesWithoutTiesUseTheNormalApproximation) {
  // 60 vs 60 interleaved perfectly (a = odd numbers, b = even): no evidence of a shift.
  std::vector<double> a, b;
  for (int i = 0; i < 60; ++i) {
    a.push_back(2 * i + 1);
    b.push_back(2 * i + 2);
  }
  MannWhitneyResult r = MannWhitneyU(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_FALSE(r.ties);
  // U_a = sum over a_i of the b below it = 0 + 1 + ... + 59 = 1770; mean 1800,
  // sd = sqrt(60·60·121/12) = 190.526; z = (1830 - 1800 - 0.5)/190.526 = 0.15483.
  EXPECT_EQ(r.u, 1770);
  EXPECT_NEAR(r.p_value, std::erfc(29.5 / std::sqrt(3600.0 * 121 / 12) / std::sqrt(2.0)), 1e-12);
  EXPECT_GT(r.p_value, 0.8);
}

TEST(MannWhitney, EdgeCases) {
  EXPECT_EQ(MannWhitneyU({}, {1, 2}).p_value, 1.0);
  EXPECT_EQ(MannWhitneyU({1, 1, 1}, {1, 1}).p_value, 1.0);  // all tied: no evidence
  const double nan = std::numeric_limits<double>::quiet_NaN();
  MannWhitneyResult r = MannWhitneyU({1, nan, 2, 3}, {4, 5, 6});
  EXPECT_EQ(r.n_a, 3);  // NaN dropped
  EXPECT_NEAR(r.p_value, 0.1, 1e-12);
  // Identical samples: p = 1 (the larger U equals the mean, z clamps at 0).
  EXPECT_NEAR(MannWhitneyU({1, 2, 3, 4}, {1, 2, 3, 4}).p_value, 1.0, 1e-12);
}

TEST(MannWhitney, MinimumReachablePValue) {
  EXPECT_NEAR(MannWhitneyMinP(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(MannWhitneyMinP(5, 5), 2.0 / 252, 1e-12);  // just below 0.01
  EXPECT_NEAR(MannWhitneyMinP(4, 6), 2.0 / 210, 1e-12);
  EXPECT_EQ(MannWhitneyMinP(0, 5), 1.0);
}

}  // namespace
}  // namespace flashscope::reports
