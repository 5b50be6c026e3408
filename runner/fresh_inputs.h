// Fresh inputs for every launch of a case and the sampled check of every launch's output
// (docs/trust.md, "every launch answers for itself"). Before each launch — verified, warm-up,
// timed, traced, profiled — the inputs are generated again on the GPU from a seed the harness draws
// at that moment (runner/secret_seeds.h), outside the timing events and before the L2 flush; after
// it, rows (attention) or entries (gemm) drawn at that moment are checked against a reference
// computed for them alone (verify/sampled_rows.h). Each launch but the verified one is also given
// a buffer slot drawn then (runner/slot_rotation.h): the fresh inputs go into that slot, its output
// is poisoned and checked, and the launch reads and writes it. The checks' counts stay on the
// device and are
// copied back kPendingChecks at a time, so that a case pays one copy and one synchronisation per
// kPendingChecks launches.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "analysis/trust_checks.h"
#include "runner/secret_seeds.h"
#include "runner/slot_rotation.h"
#include "verify/device_buffer.h"
#include "verify/sampled_check_counts.h"
#include "verify/sampled_verdict.h"
#include "verify/workspace.h"

namespace flashscope::runner {

class FreshLaunches {
 public:
  // `samples`: rows (attention) or entries (gemm) per check (analysis/trust_checks.h).
  FreshLaunches(verify::Workspace& ws, SecretSeeds& seeds, cudaStream_t stream, int samples);

  // The verified launch, in slot 0: inputs no launch has read (a redraw, with a new full
  // reference, when a launch read the current ones). Synchronises `stream` when it redraws.
  absl::Status BeforeVerified();
  // Any other launch of `kind` ("warm-up", "timed", "traced", "profiled"), number `index` of
  // its kind: a slot drawn, fresh inputs generated into it on `stream`, and its output poisoned
  // first when `poison`.
  absl::Status Before(const char* kind, int index, bool poison);
  // The next Before gives its launch `slot` instead of drawing one (ab's pairs: both sides of a
  // pair read the slot the first side drew, so that a pair differs only in the code).
  void UseSlotNext(int slot) { forced_slot_ = slot; }
  // The slot the last launch announced was given.
  int last_slot() const { return ws_.slot(); }
  // After the launch announced by the last Before (or BeforeVerified): its sampled check,
  // under `bound` and `rule` (set by SetBound before the first check).
  absl::Status After();
  void SetBound(const verify::SampledBound& bound, const verify::SampledRule& rule) {
    bound_ = bound;
    rule_ = rule;
  }

  // Copies the pending checks' counts back (synchronises `stream`).
  absl::Status Collect();
  const std::vector<reports::LaunchOutputCheck>& checks() const { return checks_; }
  const reports::LaunchCounts& launches() const { return launches_; }
  int samples() const { return samples_; }
  int poisoned() const { return poisoned_; }
  // Launches given each buffer slot so far.
  const std::vector<int>& slot_launches() const { return rotation_.launches(); }
  // How the inputs and buffers varied, for the trust record.
  std::string Describe() const;

 private:
  struct Launch {
    std::string kind;
    int index = 0;
    bool poisoned = false;
    uint64_t input_seed = 0;
  };
  void Count(const std::string& kind);

  verify::Workspace& ws_;
  SecretSeeds& seeds_;
  cudaStream_t stream_;
  int samples_;
  verify::SampledBound bound_{};
  verify::SampledRule rule_;
  SlotRotation rotation_;
  verify::DeviceBuffer pending_counts_;  // kPendingChecks SampledCheckCounts
  Launch current_;
  std::vector<Launch> pending_;
  std::vector<reports::LaunchOutputCheck> checks_;
  reports::LaunchCounts launches_;
  int poisoned_ = 0;
  int redraws_ = 0;
  int forced_slot_ = -1;  // UseSlotNext's, for the next Before only
};

}  // namespace flashscope::runner
