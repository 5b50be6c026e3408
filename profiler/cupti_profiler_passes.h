// The user-replay loop of the range profiler (profiler/cupti_profiler.h), free of CUPTI so that
// CPU tests drive it with a pass source of their own: passes run until CUPTI says every pass was
// submitted (cuptiRangeProfilerStop's isAllPassSubmitted), however many that takes, up to a bound
// no correct schedule can exceed.
//
// CUPTI's count for a config image (cuptiProfilerHostGetNumOfPasses) is what a session should
// need, but a session has wanted more: every attn.a01_scalar case of the 2 x H200 trust run
// (results/device/20261128-h200x2-trust) was still asked for passes after 11 with a config that
// said 7. So the count is where the loop first looks again, not where it stops. The bound: every
// pass collects at least one of the config's metrics, so no schedule of M metrics needs more
// passes than collecting them one at a time, the sum of each metric's own pass count
// (`one_at_a_time`, computed only when CUPTI's count was not enough: M host config images).
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"

namespace flashscope::profiler {

struct ReplayPassSource {
  // Runs one pass; true when CUPTI says every pass of the session has been submitted.
  std::function<absl::StatusOr<bool>()> run_pass;
  // The bound: the passes of the config's metrics collected one at a time.
  std::function<absl::StatusOr<int>()> one_at_a_time;
  // The kernels of the launch, for the message when the bound is reached.
  std::function<std::string()> kernels;
};

// Runs passes until every pass is submitted; returns how many ran. `config_passes` is CUPTI's
// count for the config; past it the bound is asked for once. An error of a pass or of the bound
// is returned as it is; reaching the bound is an InternalError naming the kernels, both counts
// and the bound.
absl::StatusOr<int> ReplayUntilAllSubmitted(int config_passes, const ReplayPassSource& source);

}  // namespace flashscope::profiler
