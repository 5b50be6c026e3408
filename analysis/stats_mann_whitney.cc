#include "analysis/stats_mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace flashscope::reports {
namespace {

// Distribution of U for sizes (m, n) without ties, as probabilities: p[u] = P(U = u).
// Recurrence on the largest of all m + n values: it belongs to the first sample with probability
// m / (m + n) and then beats all n values of the second (U shifts by n), else it belongs to the
// second sample and beats nothing. Probabilities instead of counts keep doubles in range.
std::vector<double> ExactDistribution(int m, int n) {
  // table[i][j] is the distribution for sizes (i, j); only row i - 1 and row i are needed.
  std::vector<std::vector<double>> prev(n + 1), cur(n + 1);
  for (int j = 0; j <= n; ++j) prev[j] = {1.0};  // i = 0: U is always 0
  for (int i = 1; i <= m; ++i) {
    cur[0] = {1.0};  // j = 0: U is always 0
    for (int j = 1; j <= n; ++j) {
      std::vector<double> d(i * j + 1, 0.0);
      const double from_a = static_cast<double>(i) / (i + j);
      const double from_b = 1.0 - from_a;
      for (size_t u = 0; u < prev[j].size(); ++u) d[u + j] += from_a * prev[j][u];
      for (size_t u = 0; u < cur[j - 1].size(); ++u) d[u] += from_b * cur[j - 1][u];
      cur[j] = std::move(d);
    }
    std::swap(prev, cur);
  }
  return prev[n];
}

}  // namespace

std::string MannWhitneyResult::Method() const {
  if (exact) return absl::StrCat("exact (", n_a, " vs ", n_b, ")");
  return absl::StrCat("normal approx.", ties ? ", tie-corrected" : "", " (", n_a, " vs ", n_b, ")");
}

double MannWhitneyExactCdf(int n_a, int n_b, double u) {
  if (n_a <= 0 || n_b <= 0) return 1.0;
  std::vector<double> d = ExactDistribution(n_a, n_b);
  double sum = 0;
  for (size_t k = 0; k < d.size() && static_cast<double>(k) <= u + 1e-9; ++k) sum += d[k];
  return std::min(sum, 1.0);
}

double MannWhitneyMinP(int n_a, int n_b) {
  if (n_a <= 0 || n_b <= 0) return 1.0;
  // 1 / C(n_a + n_b, n_a) through logs: exact enough and never overflows.
  const double log_c =
      std::lgamma(n_a + n_b + 1.0) - std::lgamma(n_a + 1.0) - std::lgamma(n_b + 1.0);
  return std::min(1.0, 2.0 * std::exp(-log_c));
}

MannWhitneyResult MannWhitneyU(const std::vector<double>& a_in, const std::vector<double>& b_in) {
  MannWhitneyResult r;
  std::vector<std::pair<double, int>> all;  // value, 0 = a / 1 = b
  for (double x : a_in) {
    if (!std::isnan(x)) all.push_back({x, 0});
  }
  for (double x : b_in) {
    if (!std::isnan(x)) all.push_back({x, 1});
  }
  r.n_a = static_cast<int>(
      std::count_if(all.begin(), all.end(), [](auto& v) { return v.second == 0; }));
  r.n_b = static_cast<int>(all.size()) - r.n_a;
  if (r.n_a == 0 || r.n_b == 0) return r;  // nothing to compare: p = 1
  std::sort(all.begin(), all.end());

  // Mid-ranks (1-based); tie groups also feed the variance correction sum(t³ - t).
  const double n = static_cast<double>(all.size());
  double rank_sum_a = 0, tie_term = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k) {
      if (all[k].second == 0) rank_sum_a += mid_rank;
    }
    if (t > 1) {
      r.ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  const double na = r.n_a, nb = r.n_b;
  r.u = rank_sum_a - na * (na + 1) / 2;
  const double u_big = std::max(r.u, na * nb - r.u);  // the larger of U_a and U_b

  if (!r.ties && r.n_a <= kMannWhitneyExactMaxN && r.n_b <= kMannWhitneyExactMaxN) {
    r.exact = true;
    // Two-sided: 2 · P(U >= u_big) = 2 · P(U <= na·nb - u_big) by symmetry.
    r.p_value = std::min(1.0, 2.0 * MannWhitneyExactCdf(r.n_a, r.n_b, na * nb - u_big));
    return r;
  }
  const double mean = na * nb / 2;
  const double var = na * nb / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var <= 0) return r;  // every value tied: no evidence either way, p = 1
  // Continuity correction 0.5 toward the mean, then the two-sided normal tail.
  const double z = std::max(0.0, u_big - mean - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

}  // namespace flashscope::reports
