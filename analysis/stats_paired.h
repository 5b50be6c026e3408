// Statistics of paired samples (flashscope ab, docs/gating.md "flashscope ab"): the Wilcoxon
// signed-rank test on per-pair differences (ab feeds it the log-ratios ln(new / base) of the two
// sides' samples of one pair), the Hodges-Lehmann estimate of the shift and the distribution-free
// confidence interval that goes with it.
//
// Why this test fits interleaved samples: ab decides the order within each pair by a fair seeded
// coin. When the two sides are the same kernel, which side went first is then independent of
// everything else (clock drift, heat, another process), so the sign of each log-ratio is a fair
// coin independent of its magnitude. That is exactly the null distribution the signed-rank test
// uses (every assignment of signs to the ranks equally likely), so its p-value is exact whatever
// the drift does to the magnitudes, even when successive pairs are correlated.
#pragma once

#include <string>
#include <vector>

namespace flashscope::reports {

struct SignedRankResult {
  int n = 0;           // non-zero differences used (zeros carry no sign: dropped, as Wilcoxon did)
  int zeros = 0;       // differences equal to zero
  double w_plus = 0;   // sum of the ranks of |d| over the positive differences (mid-ranks for ties)
  double p_value = 1;  // two-sided; 1 when there is nothing to test (no non-zero difference)
  bool exact = false;  // the exact sign-flip distribution (ties included); else the normal approx.
  bool ties = false;   // some |d| shared a value (mid-ranks used)
  // "exact (30 pairs)" or "normal approx., tie-corrected (400 pairs)".
  std::string Method() const;
};

// Up to this many non-zero differences the p-value comes from the exact sign-flip distribution
// of W+ over the (mid-)ranks actually observed, computed by recurrence in O(n³); above it, from the
// normal approximation with the tie-corrected variance and a continuity correction.
inline constexpr int kSignedRankExactMaxN = 300;

// NaN differences are an error of the caller; they are dropped here.
SignedRankResult WilcoxonSignedRank(const std::vector<double>& d);

// The smallest two-sided p-value n non-zero differences can give (all of one sign): 2 / 2^n.
// Below 8 pairs it is above 0.01: such a test cannot reject at the default alpha.
double SignedRankMinP(int n);

// P(W+ <= w) for n differences without ties or zeros (exact).
double SignedRankExactCdf(int n, double w);

struct ShiftEstimate {
  double estimate = 0;  // Hodges-Lehmann: the median of the Walsh averages (d_i + d_j) / 2, i <= j
  // The distribution-free confidence interval of the shift at level 1 - alpha: the (c+1)-th
  // smallest and largest Walsh averages, c the largest count with P(W+ <= c) <= alpha / 2 (no-ties
  // distribution). -inf / +inf when n is too small for any interval at that level.
  double low = 0, high = 0;
  int n = 0;  // differences used (zeros included, NaN dropped)
};

// NaN estimate and bounds when `d` holds no number.
ShiftEstimate HodgesLehmann(const std::vector<double>& d, double alpha);

}  // namespace flashscope::reports
