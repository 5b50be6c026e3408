// One way to run a case: the inputs and reference of a problem (one workspace per problem), the
// buffers a kernel gets for it (with the softmax scale 1/sqrt(D)), and the launch closure that
// verification, timing and profiling all call. The runner (case_runner.h), flashscope-bench and
// the profiler's probe tool all bind kernels here, so every kernel, built-in or a plugin's, runs
// the same way in each of them.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/problem.h"
#include "flashscope/kernel_abi.h"
#include "plugins/kernel.h"
#include "verify/workspace.h"

namespace flashscope::runner {

struct WorkspaceSpec {
  verify::WorkspaceOptions options;
  // Host memory the runner will also need per problem (verify/host_memory.h).
  bool heatmaps = false;
  bool dumps = false;
};

// The current problem's workspace; a new problem frees the previous one first.
class ProblemWorkspaces {
 public:
  // ResourceExhausted when the problem does not fit in device or host memory (the case is then
  // skipped, not failed); another error when creating it failed. The answer is kept for every
  // kernel of the same problem.
  absl::StatusOr<verify::Workspace*> For(const Problem& problem, const WorkspaceSpec& spec,
                                         cudaStream_t stream);
  void Reset();
  // The workspace stays valid for the kernels still using it, but the next For() makes it
  // afresh, even for the same problem (a kernel wrote into its inputs, a reference or guards).
  void Invalidate() { key_.clear(); }
  // The current workspace, shared: a case parked until its work counters are collected
  // (runner/case_settle.cc) keeps its workspace alive past the next problem's For().
  std::shared_ptr<verify::Workspace> Share() const { return workspace_; }

 private:
  std::string key_;
  std::shared_ptr<verify::Workspace> workspace_;
  absl::Status status_;
};

// The buffers of `problem` in `ws`'s buffer slot `slot`, laid out as the plugin ABI says.
fs_buffers BuffersFor(const Problem& problem, verify::Workspace& ws, int slot);

// `kernel` bound to `problem`'s buffers in `ws`: every buffer slot's, laid out once here, and each
// launch given the slot the workspace names then (verify/workspace.h, UseSlot; the trust checks
// draw it per launch outside the timing events, runner/slot_rotation.h), at the cost of an index.
// `ws` must outlive the launch and its copies.
class BoundLaunch {
 public:
  BoundLaunch(const plugins::Kernel& kernel, const Problem& problem, verify::Workspace& ws);

  // Enqueues one launch on the current slot's buffers. A plugin's own failure
  // (FS_LAUNCH_PLUGIN_ERROR) returns cudaErrorUnknown and keeps the plugin's message for
  // Describe().
  cudaError_t operator()(cudaStream_t stream) const;
  // The kernel's prepare() (plugins/kernel.h) on slot 0's buffers (the verified launch's next);
  // cudaSuccess when it has none.
  // A plugin's own failure returns cudaErrorUnknown, described like a launch's.
  cudaError_t Prepare(cudaStream_t stream, std::string* note) const;
  bool prepares() const { return kernel_->prepares(); }
  std::function<cudaError_t(cudaStream_t)> AsFunction() const;
  // The error in words: the plugin's message when the plugin failed, else the CUDA error.
  std::string Describe(cudaError_t e) const;

 private:
  const plugins::Kernel* kernel_;
  fs_problem problem_;
  const verify::Workspace* ws_;
  std::vector<fs_buffers> slots_;              // per buffer slot
  std::shared_ptr<std::string> plugin_error_;  // shared by the copies AsFunction() makes
};

std::string CudaErrorText(cudaError_t e);

}  // namespace flashscope::runner
