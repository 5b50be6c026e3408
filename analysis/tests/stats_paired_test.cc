// The Wilcoxon signed-rank test and the Hodges-Lehmann shift against published critical-value
// tables (two-sided; e.g. Siegel & Castellan, Table H), against brute-force enumeration of every
// sign assignment (ties and zeros included), and against values worked out by hand.
#include "analysis/stats_paired.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace flashscope::reports {
namespace {

// Every one of the 2^n sign assignments of the non-zero |d|'s mid-ranks, equally likely: the
// exact two-sided p-value of the observed W+, computed the slow and obvious way.
double BruteForceP(const std::vector<double>& d) {
  std::vector<double> nz;
  for (double x : d) {
    if (x != 0) nz.push_back(x);
  }
  const size_t n = nz.size();
  std::vector<double> rank(n);
  for (size_t i = 0; i < n; ++i) {
    double below = 0, equal = 0;
    for (size_t j = 0; j < n; ++j) {
      below += std::fabs(nz[j]) < std::fabs(nz[i]);
      equal += std::fabs(nz[j]) == std::fabs(nz[i]);
    }
    rank[i] = below + (equal + 1) / 2;  // mid-rank
  }
  double w = 0;
  for (size_t i = 0; i < n; ++i) w += nz[i] > 0 ? rank[i] : 0;
  double le = 0, ge = 0;
  const double total = std::ldexp(1.0, static_cast<int>(n));
  for (uint64_t mask = 0; mask < (uint64_t{1} << n); ++mask) {
    double s = 0;
    for (size_t i = 0; i < n; ++i) s += (mask >> i & 1) ? rank[i] : 0;
    le += s <= w + 1e-9;
    ge += s >= w - 1e-9;
  }
  return std::min(1.0, 2 * std::min(le, ge) / total);
}

TEST(SignedRank, CriticalValuesMatchPublishedTables) {
  // Two-sided critical values T (the largest W+ with p <= alpha): n = 10: 8 at .05, 3 at .01;
  // n = 20: 52 at .05, 37 at .01; n = 8: 0 at .01 (8 pairs is the least that can reject).
  struct Row {
    int n;
    double alpha;
    int crit;
  };
  for (Row r : {Row{10, 0.05, 8}, Row{10, 0.01, 3}, Row{20, 0.05, 52}, Row{20, 0.01, 37},
                Row{8, 0.01, 0}}) {
    SCOPED_TRACE(testing::Message() << "n=" << r.n << " alpha=" << r.alpha);
    EXPECT_LE(2 * SignedRankExactCdf(r.n, r.crit), r.alpha);
    EXPECT_GT(2 * SignedRankExactCdf(r.n, r.crit + 1), r.alpha);
  }
  EXPECT_NEAR(SignedRankExactCdf(5, 0), 1.0 / 32, 1e-15);
  EXPECT_NEAR(SignedRankExactCdf(3, 1), 2.0 / 8, 1e-15);  // {} and {1}
  EXPECT_NEAR(SignedRankExactCdf(4, 100), 1.0, 1e-15);
}

TEST(SignedRank, AllOfOneSignGivesTheSmallestP) {
  std::vector<double> up = {0.1, 0.3, 0.2, 0.5, 0.4, 0.7, 0.6, 0.9, 0.8, 1.0};
  SignedRankResult r = WilcoxonSignedRank(up);
  EXPECT_EQ(r.n, 10);
  EXPECT_EQ(r.w_plus, 55);
  EXPECT_TRUE(r.exact);
  EXPECT_FALSE(r.ties);
  EXPECT_NEAR(r.p_value, 2.0 / 1024, 1e-15);
  EXPECT_NEAR(r.p_value, SignedRankMinP(10), 1e-15);
  EXPECT_EQ(r.Method(), "exact (10 pairs)");
  for (double& x : up) x = -x;  // the direction does not matter (two-sided)
  EXPECT_NEAR(WilcoxonSignedRank(up).p_value, 2.0 / 1024, 1e-15);
  EXPECT_GE(SignedRankMinP(7), 0.01);
  EXPECT_LT(SignedRankMinP(8), 0.01);
  EXPECT_EQ(SignedRankMinP(0), 1.0);
}

TEST(SignedRank, ByHandWithOneNegative) {
  // d = {1, 2, -3, 4, 5}: ranks 1..5, W+ = 1 + 2 + 4 + 5 = 12 (W- = 3). P(W+ >= 12) =
  // P(W+ <= 3) = #{}, {1}, {2}, {3}, {1,2} / 32 = 5/32, so p = 10/32.
  SignedRankResult r = WilcoxonSignedRank({1, 2, -3, 4, 5});
  EXPECT_EQ(r.w_plus, 12);
  EXPECT_NEAR(r.p_value, 10.0 / 32, 1e-15);
}

TEST(SignedRank, ZerosAreDroppedAndTiesUseMidRanks) {
  // {0, 0, 1, -1, 2, 2, 3}: zeros dropped (n = 5); |d| = 1,1,2,2,3 -> mid-ranks 1.5,1.5,3.5,3.5,5;
  // W+ = 1.5 + 3.5 + 3.5 + 5 = 13.5.
  SignedRankResult r = WilcoxonSignedRank({0, 0, 1, -1, 2, 2, 3});
  EXPECT_EQ(r.zeros, 2);
  EXPECT_EQ(r.n, 5);
  EXPECT_TRUE(r.ties);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.w_plus, 13.5);
  EXPECT_NEAR(r.p_value, BruteForceP({1, -1, 2, 2, 3}), 1e-12);
  EXPECT_EQ(WilcoxonSignedRank({0, 0, std::nan("")}).p_value, 1.0);
  EXPECT_EQ(WilcoxonSignedRank({}).n, 0);
}

TEST(SignedRank, ExactDistributionMatchesBruteForceOnRandomData) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> value(-6, 8);  // small integers: ties and zeros galore
  std::uniform_int_distribution<int> size(1, 14);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> d(static_cast<size_t>(size(rng)));
    for (double& x : d) x = value(rng) * 0.25;
    SCOPED_TRACE(testing::Message() << "trial " << trial);
    EXPECT_NEAR(WilcoxonSignedRank(d).p_value, BruteForceP(d), 1e-12);
  }
}

TEST(SignedRank, NormalApproximationAboveTheExactLimit) {
  // 400 differences ±i, negative for every multiple of 3: W+ = 80200 - 3·(1 + ... + 133) = 53467;
  // E = 400·401/4 = 40100, Var = 400·401·801/24 = 5353350; z = (53467 - 40100 - 0.5) / sqrt(Var).
  std::vector<double> d;
  for (int i = 1; i <= 400; ++i) d.push_back(i % 3 == 0 ? -i : i);
  SignedRankResult r = WilcoxonSignedRank(d);
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.w_plus, 53467);
  const double z = (53467 - 40100 - 0.5) / std::sqrt(5353350.0);
  EXPECT_NEAR(r.p_value / std::erfc(z / std::sqrt(2.0)), 1.0, 1e-9);
  EXPECT_LT(r.p_value, 1e-7);
  EXPECT_EQ(r.Method(), "normal approx. (400 pairs)");
}

TEST(HodgesLehmann, MedianOfWalshAveragesAndTheTabledInterval) {
  // d = 1..10: 55 Walsh averages; at alpha 0.05 c = 8 (the table above), so the interval is the
  // 9th smallest and the 9th largest average: 3 and 8; the estimate is the median, 5.5.
  std::vector<double> d;
  for (int i = 1; i <= 10; ++i) d.push_back(i);
  ShiftEstimate e = HodgesLehmann(d, 0.05);
  EXPECT_EQ(e.n, 10);
  EXPECT_DOUBLE_EQ(e.estimate, 5.5);
  EXPECT_DOUBLE_EQ(e.low, 3);
  EXPECT_DOUBLE_EQ(e.high, 8);
  // {1, 2, 3}: averages 1, 1.5, 2, 2, 2.5, 3 -> median 2; 3 pairs allow no interval at 0.05.
  ShiftEstimate small = HodgesLehmann({3, 1, 2}, 0.05);
  EXPECT_DOUBLE_EQ(small.estimate, 2);
  EXPECT_TRUE(std::isinf(small.low) && small.low < 0);
  EXPECT_TRUE(std::isinf(small.high) && small.high > 0);
  EXPECT_TRUE(std::isnan(HodgesLehmann({}, 0.05).estimate));
}

TEST(HodgesLehmann, MovesWithAShiftAndIgnoresAnOutlier) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0, 0.003);
  std::vector<double> d(40);
  for (double& x : d) x = noise(rng);
  const ShiftEstimate e = HodgesLehmann(d, 0.01);
  std::vector<double> shifted = d;
  for (double& x : shifted) x += 0.01;
  const ShiftEstimate s = HodgesLehmann(shifted, 0.01);
  EXPECT_NEAR(s.estimate - e.estimate, 0.01, 1e-12);
  EXPECT_NEAR(s.low - e.low, 0.01, 1e-12);
  EXPECT_NEAR(s.high - e.high, 0.01, 1e-12);
  EXPECT_LT(e.low, e.estimate);
  EXPECT_GT(e.high, e.estimate);
  shifted[0] = 5.0;  // one preempted sample: the estimate barely moves
  EXPECT_NEAR(HodgesLehmann(shifted, 0.01).estimate, s.estimate, 0.002);
}

}  // namespace
}  // namespace flashscope::reports
