// Mann-Whitney U test (Wilcoxon rank-sum) on two independent samples, two-sided: the test that
// Google Benchmark's compare.py and asv apply to raw timing samples. It asks whether one sample
// tends to be larger than the other without assuming normality, which matters for GPU timings
// (skewed, with occasional outliers from clocks and the scheduler).
#pragma once

#include <string>
#include <vector>

namespace flashscope::reports {

struct MannWhitneyResult {
  double u = 0;        // U of the first sample: pairs (a, b) with a > b, ties counting 1/2
  double p_value = 1;  // two-sided; 1 when there is nothing to compare (an empty side, all tied)
  bool exact = false;  // true: exact distribution of U; false: normal approximation
  bool ties = false;   // any value shared between or within the samples
  int n_a = 0, n_b = 0;
  // How the p-value was obtained, for reports: "exact (5 vs 5)" or
  // "normal approx., tie-corrected (40 vs 38)".
  std::string Method() const;
};

// Sample sizes up to this (each) without ties use the exact distribution; larger ones or any tie
// use the normal approximation with tie correction and continuity correction (as SciPy's
// mannwhitneyu does). The exact count costs O(n_a² n_b²) operations: ~1.5M at 50 × 50.
inline constexpr int kMannWhitneyExactMaxN = 50;

// NaN samples are an error of the caller (reports never hold them); they are dropped here.
MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

// The smallest two-sided exact p-value samples of these sizes can reach (complete separation):
// 2 / C(n_a + n_b, n_a). With 3 vs 3 samples it is 0.1, so no significance level below that can
// ever call a change; renderers say so instead of printing a misleading "same".
double MannWhitneyMinP(int n_a, int n_b);

// P(U <= u) under the null hypothesis for samples of sizes n_a, n_b without ties (exact).
double MannWhitneyExactCdf(int n_a, int n_b, double u);

}  // namespace flashscope::reports
