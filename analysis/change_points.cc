#include "analysis/change_points.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_format.h"
#include "analysis/stats_mann_whitney.h"

namespace flashscope::reports {
namespace {

// Relative noise of ln(median) from neighbouring differences: a difference of two independent
// revisions has sd σ·√2, and the median absolute deviation (×1.4826) estimates an sd while
// ignoring the few differences that straddle a step.
double RobustNoise(const std::vector<double>& x) {
  if (x.size() < 3) return 0;
  std::vector<double> d;
  for (size_t i = 1; i < x.size(); ++i) d.push_back(x[i] - x[i - 1]);
  const double center = MedianOf(d);
  for (double& v : d) v = std::fabs(v - center);
  return 1.4826 * MedianOf(d) / std::sqrt(2.0);
}

// The evidence for a change between the revisions [begin, split) and [split, end).
ChangePoint Judge(const std::vector<RevisionSamples>& series, int begin, int split, int end) {
  std::vector<double> medians_before, medians_after, before, after;
  for (int i = begin; i < end; ++i) {
    const RevisionSamples& r = series[i];
    const bool is_before = i < split;
    (is_before ? medians_before : medians_after).push_back(r.median_ms);
    std::vector<double>& pooled = is_before ? before : after;
    if (r.samples_ms.empty()) {
      pooled.push_back(r.median_ms);
    } else {
      pooled.insert(pooled.end(), r.samples_ms.begin(), r.samples_ms.end());
    }
  }
  ChangePoint c;
  c.index = split;
  c.before_median_ms = MedianOf(medians_before);
  c.after_median_ms = MedianOf(medians_after);
  c.change = c.after_median_ms / c.before_median_ms - 1;
  const MannWhitneyResult test = MannWhitneyU(before, after);
  c.p_value = test.p_value;
  c.test = test.Method();
  return c;
}

bool Confirmed(const ChangePoint& c, const ChangePointOptions& o) {
  return c.p_value < o.alpha && std::fabs(c.change) >= o.min_effect;
}

// Rule 3 of the header: moves single-revision excursions from `changes` to `outliers`.
void SeparateOutliers(const ChangePointOptions& o, ChangePointResult* r) {
  std::vector<ChangePoint> kept;
  const std::vector<ChangePoint>& c = r->changes;
  for (size_t j = 0; j < c.size(); ++j) {
    const bool spike =
        j + 1 < c.size() && c[j + 1].index == c[j].index + 1 &&
        (c[j].change > 0) != (c[j + 1].change > 0) &&
        std::fabs(c[j + 1].after_median_ms / c[j].before_median_ms - 1) < o.min_effect;
    if (spike) {
      r->outliers.push_back(c[j].index);
      ++j;
      continue;
    }
    kept.push_back(c[j]);
  }
  r->changes = std::move(kept);
}

}  // namespace

double MedianOf(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  return (*std::max_element(v.begin(), v.begin() + mid) + upper) / 2;
}

std::string ChangePointMethod(const ChangePointOptions& o) {
  return absl::StrFormat(
      "PELT on ln(median) per revision, penalty %g*ln(n) noise units; confirmed by Mann-Whitney "
      "U on the raw samples either side, p < %g and |change| >= %g%%",
      o.penalty_per_log_n, o.alpha, o.min_effect * 100);
}

std::vector<int> PeltMeanChanges(const std::vector<double>& x, double sigma, double beta) {
  const int n = static_cast<int>(x.size());
  if (n < 2 || !(sigma > 0)) return {};
  std::vector<double> s1(n + 1, 0), s2(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    const double v = x[i] / sigma;
    s1[i + 1] = s1[i] + v;
    s2[i + 1] = s2[i] + v * v;
  }
  // Cost of the segment [s, t): its squared deviations from its own mean, in noise units.
  auto cost = [&](int s, int t) {
    const double sum = s1[t] - s1[s];
    return std::max(0.0, (s2[t] - s2[s]) - sum * sum / (t - s));
  };
  std::vector<double> best(n + 1, 0);
  std::vector<int> previous(n + 1, 0);
  best[0] = -beta;
  std::vector<int> candidates = {0};
  for (int t = 1; t <= n; ++t) {
    best[t] = std::numeric_limits<double>::infinity();
    for (int s : candidates) {
      const double f = best[s] + cost(s, t) + beta;
      if (f < best[t]) {
        best[t] = f;
        previous[t] = s;
      }
    }
    // Pruning: a start that cannot beat the best even before paying for a change never will.
    std::vector<int> kept;
    for (int s : candidates) {
      if (best[s] + cost(s, t) <= best[t]) kept.push_back(s);
    }
    kept.push_back(t);
    candidates = std::move(kept);
  }
  std::vector<int> changes;
  for (int t = previous[n]; t > 0; t = previous[t]) changes.push_back(t);
  std::reverse(changes.begin(), changes.end());
  return changes;
}

ChangePointResult FindChangePoints(const std::vector<RevisionSamples>& series,
                                   const ChangePointOptions& options) {
  ChangePointResult result;
  const int n = static_cast<int>(series.size());
  if (n < 2) return result;
  std::vector<double> x;
  for (const RevisionSamples& r : series) x.push_back(std::log(r.median_ms));
  result.noise = std::max(RobustNoise(x), options.noise_floor);
  std::vector<int> splits = PeltMeanChanges(
      x, result.noise, options.penalty_per_log_n * std::log(static_cast<double>(n)));
  result.candidates = static_cast<int>(splits.size());
  while (true) {
    std::vector<ChangePoint> judged;
    int weakest = -1;
    for (size_t j = 0; j < splits.size(); ++j) {
      const int begin = j == 0 ? 0 : splits[j - 1];
      const int end = j + 1 == splits.size() ? n : splits[j + 1];
      judged.push_back(Judge(series, begin, splits[j], end));
      if (Confirmed(judged.back(), options)) continue;
      // The weakest: the smallest change, then the largest p-value.
      if (weakest < 0 ||
          std::make_pair(std::fabs(judged[j].change), -judged[j].p_value) <
              std::make_pair(std::fabs(judged[weakest].change), -judged[weakest].p_value)) {
        weakest = static_cast<int>(j);
      }
    }
    if (weakest < 0) {
      result.changes = std::move(judged);
      SeparateOutliers(options, &result);
      return result;
    }
    splits.erase(splits.begin() + weakest);
  }
}

}  // namespace flashscope::reports
