// Isolation between cases (docs/trust.md, "isolation"): the device state that one case's kernel
// can change and every later case inherits — device limits (stack, malloc heap, printf FIFO,
// persisting-L2 set-aside, L2 fetch granularity, device-runtime limits), the cache preference,
// the launch stream's attributes (access-policy window, synchronisation policy), the current
// device — and the persisting L2 lines, which the harness's L2 flush does not evict. The state the
// worker starts with is read once; before every case it is put back and the persisting lines are
// reset; after a case's launches it is read again, and what differs fails the case that made it
// (runner/harness_checks.h). A state that cannot be put back (a heap size once malloc ran) makes
// the worker ask to be replaced: the next case runs in a fresh process.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "reports/trust_record.h"
#include "runner/harness_checks.h"

namespace flashscope::runner {

// Reads the shared device state as the process sees it now (`stream`: the launch stream).
DeviceState ReadDeviceState(int device, cudaStream_t stream);

class CaseIsolation {
 public:
  // Reads the starting state (before any kernel of the run).
  CaseIsolation(int device, cudaStream_t stream);

  // Before a case: puts every changed setting back and resets the persisting L2 lines. An error
  // names the setting that could not be restored.
  absl::Status Restore();
  // After a case's launches: the isolation check (what changed, old -> new, and `threads`, the
  // host threads the case left running), then the state put back for the next case.
  // `fresh_worker_needed()` is true when that failed or a thread of the case is still running.
  reports::TrustCheckRecord CheckAndRestore(const std::vector<LeftThread>& threads = {});
  bool fresh_worker_needed() const { return fresh_worker_needed_; }

 private:
  int device_;
  cudaStream_t stream_;
  DeviceState start_;
  cudaAccessPolicyWindow start_window_{};
  cudaSynchronizationPolicy start_sync_policy_ = cudaSyncPolicyAuto;
  bool persisting_l2_ = false;  // the GPU has a persisting-L2 set-aside to reset
  bool fresh_worker_needed_ = false;
};

}  // namespace flashscope::runner
