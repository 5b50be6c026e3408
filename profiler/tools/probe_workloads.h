// The named workloads of flashscope-metric-probe: the four calibration kernels of
// profiler/calibration_kernels.h (sized as in profiler/tests/calibration_gpu_test.cc) and any
// built-in kernel (through the plugin host, bound by runner/case_binding.h like every case) on one
// attention or GEMM problem with seeded inputs from verify::Workspace. Each workload is a launch
// closure over buffers the set owns, so the same launch runs under our range profiler (--mode ours)
// and under Nsight Compute (--mode plain).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/problem.h"
#include "profiler/device_info.h"
#include "verify/device_buffer.h"
#include "verify/workspace.h"

namespace flashscope::profiler {

struct Workload {
  std::string name;         // "calib.mma_loop", "attn.a10_fa2"
  std::string description;  // what runs, with its size or problem key
  std::function<cudaError_t(cudaStream_t)> launch;
};

struct ProbeProblems {
  AttentionProblem attention;  // for attention kernels (attn.*, attention peers)
  GemmProblem gemm;            // for gemm kernels (gemm.*, gemm peers)
  uint64_t seed = 1;
};

// The calibration workload names, and the default list: calibration kernels then the three
// ladder rungs issue 3 cross-checks (a05, a09, a10).
const std::vector<std::string>& CalibrationWorkloadNames();
const std::vector<std::string>& DefaultWorkloadNames();

// Checks names without touching the GPU: each must be a calibration workload or a registered
// kernel id, and none may repeat. InvalidArgument names the first bad one and the valid kinds.
absl::Status ValidateWorkloadNames(const std::vector<std::string>& names);

class WorkloadSet {
 public:
  // Builds the named workloads in order: allocates buffers, generates inputs and the reference
  // (once per problem), and synchronises `stream`, so nothing of the set-up runs later beside a
  // workload. Errors: an unknown name (with the valid ones), a kernel that does not support its
  // problem or this GPU (with its reason), a CUDA error naming the call.
  static absl::StatusOr<std::unique_ptr<WorkloadSet>> Create(const std::vector<std::string>& names,
                                                             const ProbeProblems& problems,
                                                             const DeviceInfo& device,
                                                             cudaStream_t stream);
  WorkloadSet(const WorkloadSet&) = delete;
  WorkloadSet& operator=(const WorkloadSet&) = delete;

  const std::vector<Workload>& workloads() const { return workloads_; }

 private:
  WorkloadSet() = default;
  absl::Status AddCalibration(const std::string& name, const DeviceInfo& device,
                              cudaStream_t stream);
  absl::Status AddKernel(const std::string& name, const ProbeProblems& problems,
                         const DeviceInfo& device, cudaStream_t stream);

  std::vector<Workload> workloads_;
  verify::DeviceBuffer out_;  // per-thread results of the loop kernels (keeps them live)
  verify::DeviceBuffer copy_src_, copy_dst_;
  std::map<std::string, std::unique_ptr<verify::Workspace>> workspaces_;  // by problem key
};

}  // namespace flashscope::profiler
