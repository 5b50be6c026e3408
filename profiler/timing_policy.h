// The timing policy and result, kept free of CUDA headers so that suite parsing and reports
// (CPU-only builds) can use them; the Timer that fills a TimingResult is in timing.h.
#pragma once

#include <string>
#include <vector>

#include "profiler/sample_stats.h"

namespace flashscope::profiler {

struct TimingPolicy {
  bool cold = true;  // flush L2 before every sample (NVBench's cold measurement)
  int warmup = 3;    // launches before the first sample, not recorded
  int min_samples = 10;
  int max_samples = 500;
  double noise_target = 0.005;   // relative standard error of the median, see sample_stats.h
  double time_cap_s = 2.0;       // host wall time for sampling, warm-up excluded
  double throttle_ratio = 0.90;  // reject a sample whose SM clock < ratio x the highest seen
};

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
