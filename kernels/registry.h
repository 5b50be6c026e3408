// The kernel registry: every built-in implementation under test, with what the runner needs to know
// to plan, launch and explain it. Each revision lives in its own file and contributes one
// `KernelEntry` through a `Make…()` function listed in kernel_list.h (an explicit list, not static
// initialisers, so that a static library never drops a kernel silently). The runner never sees a
// KernelEntry: kernels/abi_adapter.h offers them through the plugin C ABI, the one path by which
// every kernel, ours or a user's, reaches the runner.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/kernel_info.h"
#include "common/problem.h"

namespace flashscope::kernels {

// Buffers of one attention launch; layouts are those of AttentionProblem (common/problem.h).
struct AttentionArgs {
  const void* q = nullptr;
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  float* lse = nullptr;  // null unless problem.want_lse
  float softmax_scale = 0.f;
};

struct GemmArgs {
  const void* a = nullptr;
  const void* b = nullptr;
  float* c = nullptr;
};

// The facts of a kernel live in common/kernel_info.h, shared with the plugin host.
using ::flashscope::KernelInfo;
using ::flashscope::TileShape;

// Returns an empty string when the kernel supports the problem, else the reason it does not.
using AttentionSupports = std::function<std::string(const AttentionProblem&)>;
using GemmSupports = std::function<std::string(const GemmProblem&)>;
// Enqueues the work on `stream`; returns the launch error (cudaGetLastError after the launch).
using AttentionLaunch =
    std::function<cudaError_t(const AttentionProblem&, const AttentionArgs&, cudaStream_t)>;
using GemmLaunch = std::function<cudaError_t(const GemmProblem&, const GemmArgs&, cudaStream_t)>;

// One __global__ function an entry launches for a problem, with its launch configuration, so that
// the profiler can read its resource usage (cudaFuncGetAttributes) and theoretical occupancy.
struct DeviceFunction {
  const void* func = nullptr;
  std::string name;
  int block_threads = 0;
  size_t dynamic_smem_bytes = 0;
};

struct KernelEntry {
  KernelInfo info;
  AttentionSupports attention_supports;  // set when info.family == kAttentionFwd
  AttentionLaunch attention_launch;
  GemmSupports gemm_supports;  // set when info.family == kGemm
  GemmLaunch gemm_launch;
  // The kernels launched for a problem; empty for library peers whose kernels are not ours.
  std::function<std::vector<DeviceFunction>(const Problem&)> device_functions;

  // Empty when supported; else the reason (also a family mismatch or a too-old GPU when
  // `device_sm` > 0).
  std::string Supports(const Problem& p, int device_sm = 0) const;
};

// The built-in kernels (kernels/kernel_list.h) in revision order: attention ladder, gemm ladder,
// peers. The runner sees them through the built-in plugin (kernels/abi_adapter.h), like any other
// plugin's; test-only kernels live in the test plugin (kernels/testing/).
const std::vector<KernelEntry>& AllKernels();
const KernelEntry* FindKernel(std::string_view id);
// `entries` in that order (ladders family by family, peers after, test-only kernels last).
void SortInLadderOrder(std::vector<KernelEntry>* entries);

}  // namespace flashscope::kernels
