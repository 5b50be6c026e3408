#include "profiler/cupti_profiler_passes.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace flashscope::profiler {

absl::StatusOr<int> ReplayUntilAllSubmitted(int config_passes, const ReplayPassSource& source) {
  int passes = 0;
  int bound = std::max(config_passes, 1);
  bool bound_derived = false;
  for (;;) {
    absl::StatusOr<bool> all_submitted = source.run_pass();
    if (!all_submitted.ok()) return all_submitted.status();
    ++passes;
    if (*all_submitted) return passes;
    if (passes < bound) continue;
    if (!bound_derived) {
      // CUPTI's count was not enough: how far a correct schedule can go.
      absl::StatusOr<int> one_at_a_time = source.one_at_a_time();
      if (!one_at_a_time.ok()) return one_at_a_time.status();
      bound = std::max(bound, *one_at_a_time);
      bound_derived = true;
      if (passes < bound) continue;
    }
    return absl::InternalError(absl::StrCat("CUPTI range profiler still wants passes after ",
                                            passes, " for ", source.kernels(), ": its config said ",
                                            config_passes,
                                            ", and collecting each of its metrics on its own "
                                            "takes ",
                                            bound, " (no schedule needs more); giving up"));
  }
}

}  // namespace flashscope::profiler
