#include "analysis/stats_paired.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace flashscope::reports {
namespace {

// Distribution of the sum of the positive ranks when each rank's sign is a fair coin:
// p[s] = P(sum = s) for integer ranks `ranks` (the doubled mid-ranks when ties exist, so that
// they stay integers). One rank at a time: it adds to the sum or not, each with probability 1/2.
// Probabilities instead of counts keep doubles in range (2^300 would overflow).
std::vector<double> SignFlipDistribution(const std::vector<int>& ranks) {
  int total = 0;
  for (int r : ranks) total += r;
  std::vector<double> p(static_cast<size_t>(total) + 1, 0.0);
  p[0] = 1.0;
  int reach = 0;  // the largest sum reachable so far
  for (int r : ranks) {
    for (int s = reach; s >= 0; --s) {
      const double here = p[s];
      p[s] = 0.5 * here;
      p[s + r] += 0.5 * here;
    }
    reach += r;
  }
  return p;
}

double CdfAt(const std::vector<double>& p, double w) {
  double sum = 0;
  for (size_t s = 0; s < p.size() && static_cast<double>(s) <= w + 1e-9; ++s) sum += p[s];
  return std::min(sum, 1.0);
}

std::vector<int> OneToN(int n) {
  std::vector<int> ranks(static_cast<size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) ranks[i] = i + 1;
  return ranks;
}

}  // namespace

std::string SignedRankResult::Method() const {
  if (exact) return absl::StrCat("exact (", n, " pairs)");
  return absl::StrCat("normal approx.", ties ? ", tie-corrected" : "", " (", n, " pairs)");
}

double SignedRankMinP(int n) { return n <= 0 ? 1.0 : std::min(1.0, 2.0 * std::ldexp(1.0, -n)); }

double SignedRankExactCdf(int n, double w) {
  if (n <= 0) return 1.0;
  return CdfAt(SignFlipDistribution(OneToN(n)), w);
}

SignedRankResult WilcoxonSignedRank(const std::vector<double>& d) {
  SignedRankResult r;
  std::vector<double> nonzero;
  for (double x : d) {
    if (std::isnan(x)) continue;
    if (x == 0) {
      ++r.zeros;
    } else {
      nonzero.push_back(x);
    }
  }
  r.n = static_cast<int>(nonzero.size());
  if (r.n == 0) return r;
  std::sort(nonzero.begin(), nonzero.end(),
            [](double a, double b) { return std::fabs(a) < std::fabs(b); });
  // Doubled mid-ranks (2·(i+1+j)/2 = i+1+j for a tie group [i, j)): integers for the recurrence.
  std::vector<int> doubled(nonzero.size());
  double w2_plus = 0, sum_r2 = 0;  // in doubled units; sum of squared (undoubled) ranks
  for (size_t i = 0; i < nonzero.size();) {
    size_t j = i;
    while (j < nonzero.size() && std::fabs(nonzero[j]) == std::fabs(nonzero[i])) ++j;
    if (j - i > 1) r.ties = true;
    const int twice_rank = static_cast<int>(i + 1 + j);
    for (size_t k = i; k < j; ++k) {
      doubled[k] = twice_rank;
      if (nonzero[k] > 0) w2_plus += twice_rank;
      sum_r2 += 0.25 * twice_rank * twice_rank;
    }
    i = j;
  }
  r.w_plus = w2_plus / 2;
  double total2 = 0;
  for (int x : doubled) total2 += x;
  if (r.n <= kSignedRankExactMaxN) {
    r.exact = true;
    const std::vector<double> p = SignFlipDistribution(doubled);
    // Two-sided: twice the smaller tail; by symmetry P(W >= w) = P(W <= total - w).
    const double lower = CdfAt(p, w2_plus);
    const double upper = CdfAt(p, total2 - w2_plus);
    r.p_value = std::min(1.0, 2.0 * std::min(lower, upper));
    return r;
  }
  const double mean = total2 / 4;  // E[W+] = sum(ranks) / 2, here in undoubled units
  const double var = sum_r2 / 4;   // Var[W+] = sum(rank²) / 4, exact with mid-ranks
  const double z = std::max(0.0, std::fabs(r.w_plus - mean) - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

ShiftEstimate HodgesLehmann(const std::vector<double>& d_in, double alpha) {
  ShiftEstimate e;
  std::vector<double> d;
  for (double x : d_in) {
    if (!std::isnan(x)) d.push_back(x);
  }
  e.n = static_cast<int>(d.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (d.empty()) {
    e.estimate = e.low = e.high = nan;
    return e;
  }
  std::vector<double> walsh;
  walsh.reserve(d.size() * (d.size() + 1) / 2);
  for (size_t i = 0; i < d.size(); ++i) {
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  }
  std::sort(walsh.begin(), walsh.end());
  const size_t m = walsh.size();
  e.estimate = m % 2 == 1 ? walsh[m / 2] : (walsh[m / 2 - 1] + walsh[m / 2]) / 2;
  // c: the largest count with P(W+ <= c) <= alpha / 2; none when even c = 0 is too likely.
  const std::vector<double> p = SignFlipDistribution(OneToN(e.n));
  double cdf = 0;
  long c = -1;
  for (size_t s = 0; s < p.size(); ++s) {
    cdf += p[s];
    if (cdf > alpha / 2) break;
    c = static_cast<long>(s);
  }
  if (c < 0) {
    e.low = -std::numeric_limits<double>::infinity();
    e.high = std::numeric_limits<double>::infinity();
    return e;
  }
  e.low = walsh[static_cast<size_t>(c)];
  e.high = walsh[m - 1 - static_cast<size_t>(c)];
  return e;
}

}  // namespace flashscope::reports
