#include "profiler/sample_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "profiler/timing_policy.h"

namespace flashscope::profiler {

double Percentile(const std::vector<double>& sorted, double q) {
  if (sorted.size() == 1) return sorted[0];
  const double pos = q / 100.0 * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double MedianStandardError(const std::vector<double>& values) {
  if (values.size() < 2) return std::numeric_limits<double>::infinity();
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const double median = Percentile(sorted, 50);
  std::vector<double> dev(sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) dev[i] = std::fabs(sorted[i] - median);
  std::sort(dev.begin(), dev.end());
  constexpr double kMedianSeFactor = 1.2533141373155;  // sqrt(pi / 2)
  constexpr double kMadToSigma = 1.4826;
  return kMedianSeFactor * kMadToSigma * Percentile(dev, 50) /
         std::sqrt(static_cast<double>(values.size()));
}

SampleSummary Summarize(const std::vector<double>& samples) {
  SampleSummary s;
  s.n = static_cast<int>(samples.size());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  if (samples.empty()) {
    s.median = s.mean = s.min = s.max = s.stdev = s.p10 = s.p90 = nan;
    s.noise = inf;
    return s;
  }
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = Percentile(sorted, 50);
  s.p10 = Percentile(sorted, 10);
  s.p90 = Percentile(sorted, 90);
  double sum = 0;
  for (double x : sorted) sum += x;
  s.mean = sum / s.n;
  double ss = 0;
  for (double x : sorted) ss += (x - s.mean) * (x - s.mean);
  s.stdev = s.n > 1 ? std::sqrt(ss / (s.n - 1)) : 0.0;

  if (s.n < 2 || !(s.median > 0)) {
    s.noise = inf;
    return s;
  }
  s.noise = MedianStandardError(samples) / s.median;
  return s;
}

bool ShouldStop(const SampleSummary& summary, const TimingPolicy& policy, double elapsed_s,
                bool* converged, std::string* reason) {
  auto decide = [&](bool stop, bool conv, const char* why) {
    if (converged) *converged = conv;
    if (reason) *reason = stop ? why : "";
    return stop;
  };
  if (summary.n >= policy.min_samples && summary.noise <= policy.noise_target) {
    return decide(true, true, "noise_target");
  }
  if (summary.n >= policy.max_samples) return decide(true, false, "max_samples");
  if (elapsed_s >= policy.time_cap_s) return decide(true, false, "time_cap");
  return decide(false, false, "");
}

}  // namespace flashscope::profiler
