// How a case is timed: the one set of timing settings and their one set of defaults. The suite
// file's "timing" object (suites/suite.h), the profiler's stopping rule (profiler/timing.h) and the
// report's "timing_policy" record (reports/report.h) are this struct under their own names, so a
// default changed here changes everywhere at once (docs/suites.md lists the defaults).
#pragma once

namespace flashscope {

struct TimingPolicy {
  bool cold = true;  // flush L2 before every sample (NVBench's cold measurement)
  int warmup = 3;    // launches before the first sample, not recorded
  // Sampling stops at min_samples once the relative standard error of the median is at or under
  // noise_target, else at max_samples, else at time_cap_s. 200 samples at a 0.5 % noise target:
  // a kernel whose noise never falls under the target costs at most 200 launches or a second,
  // whichever comes first; a stable kernel stops after its first ten.
  int min_samples = 10;
  int max_samples = 200;
  double noise_target = 0.005;  // relative standard error of the median, profiler/sample_stats.h
  double time_cap_s = 1.0;      // host wall time for sampling, warm-up excluded
  // A sample whose SM clock is under ratio x the highest seen is rejected as throttled. Not a
  // suite setting (nor recorded in reports): the same rule for every run.
  double throttle_ratio = 0.90;
};

}  // namespace flashscope
