// The timing policy and result, kept free of CUDA headers so that suite parsing and reports
// (CPU-only builds) can use them; the Timer that fills a TimingResult is in timing.h.
#pragma once

#include <string>
#include <vector>

#include "common/timing_policy.h"
#include "profiler/sample_stats.h"

namespace flashscope::profiler {

// The one timing policy (common/timing_policy.h) under the profiler's name.
using TimingPolicy = ::flashscope::TimingPolicy;

struct TimingResult {
  std::string mode;  // "cold" or "hot"
  int warmup_runs = 0;
  int rejected_throttled = 0;
  int launches = 0;         // timed launches, accepted and throttled (each ran the sample hooks)
  SampleSummary summary;    // over the accepted samples
  bool converged = false;   // noise <= target was reached
  std::string stop_reason;  // "noise_target", "max_samples" or "time_cap"
  double median_sm_clock_mhz = 0;  // measured by the probe kernel, accepted samples
  std::vector<double> samples_ms;  // accepted samples in the order they were taken
};

}  // namespace flashscope::profiler
