// The kernel registry: every implementation under test, with what the runner needs to know to
// plan, launch and explain it. Each revision lives in its own file and contributes one
// `KernelEntry` through a `Make…()` function listed in registry.cc (an explicit list, not static
// initialisers, so that a static library never drops a kernel silently).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

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

// The work one thread block does; attention: block_m query rows × block_n keys per step;
// gemm: block_m × block_n of C with a k step of block_k. The verifier folds errors onto block_m.
struct TileShape {
  int block_m = 1;
  int block_n = 1;
  int block_k = 1;
  int threads = 1;
};

struct KernelInfo {
  std::string id;  // stable: "attn.a01_scalar", "gemm.g02_smem_tiled", "peer.cublas_gemm"
  Family family = Family::kAttentionFwd;
  int revision = 0;     // order within the family's ladder; peers use 1000+
  std::string title;    // "Scalar FP32, one thread per query row"
  std::string changed;  // one line: what this revision changed against the previous one
  int min_sm = 80;      // minimum compute capability × 10
  int exact_sm = 0;     // > 0: arch-specific code (sm_90a) that runs on this capability only
  TileShape tile;
  bool is_peer = false;    // a library implementation (cuBLAS, cuDNN), not one of our rungs
  bool idempotent = true;  // relaunching gives the same output and touches only its outputs
  bool test_only = false;  // deliberately faulty kernels for the runner's own tests
  // SASS opcodes (base mnemonics, e.g. "UTMALDG") that the rung's technique must compile to; the
  // static audit (audit/audit_policy.h) fails the rung when one is missing from its functions, so
  // a rung cannot claim TMA or setmaxnreg that the compiler dropped or never emitted.
  std::vector<std::string> required_sass;
};

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

// All kernels in revision order (attention ladder, gemm ladder, peers; test-only kernels last and
// only when `include_test_only`).
const std::vector<KernelEntry>& AllKernels(bool include_test_only = false);
const KernelEntry* FindKernel(std::string_view id);

}  // namespace flashscope::kernels
