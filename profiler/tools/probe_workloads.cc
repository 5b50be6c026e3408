#include "profiler/tools/probe_workloads.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "profiler/calibration_kernels.h"
#include "runner/case_binding.h"
#include "runner/kernel_loading.h"

namespace flashscope::profiler {
namespace {

// Sizes of profiler/tests/calibration_gpu_test.cc, whose ranges those workloads are known to
// reach on an H200: blocks per SM and loop iterations per thread.
constexpr int kMmaBlocksPerSm = 4, kMmaIters = 256;
constexpr int kSharedBlocksPerSm = 6, kSharedIters = 2048;
constexpr int kExpBlocksPerSm = 8, kExpIters = 2048;
constexpr int kCopyBlocksPerSm = 16;
// 1 GiB each way: far larger than L2, long enough that launch and tail effects stay small.
constexpr size_t kCopyBytes = size_t{1} << 30;

}  // namespace

const std::vector<std::string>& CalibrationWorkloadNames() {
  static const std::vector<std::string> kNames = {"calib.mma_loop", "calib.shared_loop",
                                                  "calib.copy", "calib.exp_loop"};
  return kNames;
}

const std::vector<std::string>& DefaultWorkloadNames() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> v = CalibrationWorkloadNames();
    for (const char* k : {"attn.a05_mma_ldmatrix", "attn.a09_swizzle", "attn.a10_fa2"}) {
      v.push_back(k);
    }
    return v;
  }();
  return kNames;
}

absl::Status ValidateWorkloadNames(const std::vector<std::string>& names) {
  if (names.empty()) return absl::InvalidArgumentError("no workloads named");
  const auto& calib = CalibrationWorkloadNames();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (std::find(names.begin(), names.begin() + i, name) != names.begin() + i) {
      return absl::InvalidArgumentError(absl::StrCat("workload ", name, " named twice"));
    }
    if (name.rfind("calib.", 0) == 0) {
      if (std::find(calib.begin(), calib.end(), name) == calib.end()) {
        return absl::InvalidArgumentError(absl::StrCat("unknown calibration workload '", name,
                                                       "'; known: ", absl::StrJoin(calib, ", ")));
      }
    } else if (runner::BuiltinKernels().Find(name) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown workload '", name, "': neither a calibration workload (",
                       absl::StrJoin(calib, ", "), ") nor a kernel id of `flashscope list`"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<WorkloadSet>> WorkloadSet::Create(
    const std::vector<std::string>& names, const ProbeProblems& problems, const DeviceInfo& device,
    cudaStream_t stream) {
  // Every name is checked before anything is allocated or launched.
  if (absl::Status s = ValidateWorkloadNames(names); !s.ok()) return s;
  std::unique_ptr<WorkloadSet> set(new WorkloadSet());
  const int max_blocks = device.sm_count * kExpBlocksPerSm;
  if (absl::Status s = set->out_.Allocate(
          static_cast<size_t>(max_blocks) * kCalibrationBlockThreads * sizeof(float),
          "calibration results");
      !s.ok()) {
    return s;
  }
  for (const std::string& name : names) {
    const bool calibration = name.rfind("calib.", 0) == 0;
    absl::Status s = calibration ? set->AddCalibration(name, device, stream)
                                 : set->AddKernel(name, problems, device, stream);
    if (!s.ok()) return s;
  }
  if (absl::Status s =
          verify::CudaStatus(cudaStreamSynchronize(stream), "cudaStreamSynchronize (set-up)");
      !s.ok()) {
    return s;
  }
  return set;
}

absl::Status WorkloadSet::AddCalibration(const std::string& name, const DeviceInfo& device,
                                         cudaStream_t /*stream*/) {
  float* out = out_.f32();
  const int sms = device.sm_count;
  Workload w;
  w.name = name;
  if (name == "calib.mma_loop") {
    const int blocks = sms * kMmaBlocksPerSm;
    w.description = absl::StrCat("mma.sync m16n8k16 loop, ", blocks, " blocks x ", kMmaIters,
                                 " iterations (tensor pipe busy)");
    w.launch = [out, blocks](cudaStream_t s) { return LaunchMmaLoop(out, blocks, kMmaIters, s); };
  } else if (name == "calib.shared_loop") {
    const int blocks = sms * kSharedBlocksPerSm;
    w.description = absl::StrCat("LDS.128 loop, ", blocks, " blocks x ", kSharedIters,
                                 " iterations (shared memory busy)");
    w.launch = [out, blocks](cudaStream_t s) {
      return LaunchSharedLoop(out, blocks, kSharedIters, s);
    };
  } else if (name == "calib.exp_loop") {
    const int blocks = sms * kExpBlocksPerSm;
    w.description = absl::StrCat("ex2.approx loop, ", blocks, " blocks x ", kExpIters,
                                 " iterations (XU pipe busy)");
    w.launch = [out, blocks](cudaStream_t s) { return LaunchExpLoop(out, blocks, kExpIters, s); };
  } else if (name == "calib.copy") {
    if (absl::Status s = copy_src_.Allocate(kCopyBytes, "copy source"); !s.ok()) return s;
    if (absl::Status s = copy_dst_.Allocate(kCopyBytes, "copy destination"); !s.ok()) return s;
    if (absl::Status s = verify::CudaStatus(cudaMemset(copy_src_.get(), 3, kCopyBytes),
                                            "cudaMemset (copy source)");
        !s.ok()) {
      return s;
    }
    const int blocks = sms * kCopyBlocksPerSm;
    void* dst = copy_dst_.get();
    const void* src = copy_src_.get();
    w.description = absl::StrCat("16-byte vector copy kernel of 1 GiB, ", blocks,
                                 " blocks (DRAM busy; the copy engine is not a kernel ncu sees)");
    w.launch = [dst, src, blocks](cudaStream_t s) {
      return LaunchCopy(dst, src, kCopyBytes, blocks, s);
    };
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown calibration workload '", name,
                     "'; known: ", absl::StrJoin(CalibrationWorkloadNames(), ", ")));
  }
  workloads_.push_back(std::move(w));
  return absl::OkStatus();
}

absl::Status WorkloadSet::AddKernel(const std::string& name, const ProbeProblems& problems,
                                    const DeviceInfo& device, cudaStream_t stream) {
  const plugins::Kernel* kernel = runner::BuiltinKernels().Find(name);
  if (kernel == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown workload '", name, "': neither a calibration workload (",
        absl::StrJoin(CalibrationWorkloadNames(), ", "), ") nor a kernel id of `flashscope list`"));
  }
  const Problem problem = kernel->info().family == Family::kAttentionFwd
                              ? Problem(problems.attention)
                              : Problem(problems.gemm);
  if (std::string why = kernel->Supports(problem, device.cc); !why.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " cannot run ", ProblemKey(problem), ": ", why));
  }
  const std::string key = ProblemKey(problem);
  auto it = workspaces_.find(key);
  if (it == workspaces_.end()) {
    verify::WorkspaceOptions wo;
    wo.seed = problems.seed;
    auto ws = verify::Workspace::Create(problem, wo, stream);
    if (!ws.ok()) {
      return absl::Status(ws.status().code(),
                          absl::StrCat("inputs for ", key, ": ", ws.status().message()));
    }
    it = workspaces_.emplace(key, *std::move(ws)).first;
  }
  Workload w;
  w.name = name;
  w.description = absl::StrCat(kernel->info().title, " on ", key);
  // Bound as the runner binds it (runner/case_binding.h): the same buffers and arguments.
  w.launch = runner::BoundLaunch(*kernel, problem, *it->second).AsFunction();
  workloads_.push_back(std::move(w));
  return absl::OkStatus();
}

}  // namespace flashscope::profiler
