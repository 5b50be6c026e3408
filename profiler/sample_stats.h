// Summary statistics of timing samples and the stopping rule of the timing loop.
#pragma once

#include <string>
#include <vector>

#include "common/timing_policy.h"

namespace flashscope::profiler {

using TimingPolicy = ::flashscope::TimingPolicy;

struct SampleSummary {
  int n = 0;
  double median = 0, mean = 0, min = 0, max = 0, stdev = 0, p10 = 0, p90 = 0;
  // Relative standard error of the median:
  //   noise = 1.2533 * sigma_hat / sqrt(n) / median,  sigma_hat = 1.4826 * MAD
  // 1.2533 = sqrt(pi/2) is the asymptotic factor of the median's standard error for a normal
  // distribution; 1.4826 * MAD (median absolute deviation) estimates sigma robustly, so one
  // outlier (a preempted sample) does not inflate the noise as a standard deviation would.
  // Infinity when n < 2 or the median is not positive (the noise is unknown then).
  double noise = 0;
};

// Percentile by linear interpolation between closest ranks (numpy's default), q in [0, 100].
// `sorted` must be sorted ascending and non-empty.
double Percentile(const std::vector<double>& sorted, double q);

// The standard error of the median of `values`, absolute: 1.2533 x 1.4826 x MAD / sqrt(n) (the
// factors are explained at SampleSummary::noise, which is this divided by the median); infinity
// when n < 2.
double MedianStandardError(const std::vector<double>& values);

// Summarizes the samples. With no samples: n = 0, every statistic NaN, noise infinity.
SampleSummary Summarize(const std::vector<double>& samples);

// The stopping rule: stop once at least `min_samples` are in and the noise is at or under
// `noise_target` (reason "noise_target", converged); or at `max_samples` (reason "max_samples");
// or when `elapsed_s` reached `time_cap_s` (reason "time_cap"), whichever comes first. The time
// cap applies even under min_samples so that a very slow kernel still ends. `converged` and
// `reason` may be null.
bool ShouldStop(const SampleSummary& summary, const TimingPolicy& policy, double elapsed_s,
                bool* converged, std::string* reason);

}  // namespace flashscope::profiler
