// What flashscope knows about a kernel besides its code: the facts a plan, a report and `flashscope
// list` show. Shared by the built-in registry (kernels/registry.h), which fills it, and the plugin
// host (plugins/), which reads it from a plugin's fs_kernel table, so that the runner sees one type
// whatever a kernel's origin.
#pragma once

#include <string>
#include <vector>

#include "common/problem.h"

namespace flashscope {

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
  // FS_KERNEL_ACCEPTS_FP8: the kernel may be asked about E4M3 problems at all (DTypeMismatch).
  bool accepts_fp8 = false;
  // SASS opcodes (base mnemonics, e.g. "UTMALDG") that the rung's technique must compile to; the
  // static audit (audit/audit_policy.h) fails the rung when one is missing from its functions, so
  // a rung cannot claim TMA or setmaxnreg that the compiler dropped or never emitted. Not part of
  // the plugin ABI: the audit reads the built-in registry.
  std::vector<std::string> required_sass;
};

// Empty when the kernel is of the problem's family; else the reason.
inline std::string FamilyMismatch(const KernelInfo& info, Family problem_family) {
  if (problem_family == info.family) return "";
  return "kernel is for " + std::string(FamilyName(info.family)) + " problems, not " +
         std::string(FamilyName(problem_family));
}

// Empty when the kernel may be asked about a problem of `dtype`; else the reason. E4M3 came after
// ABI 1: a kernel is asked about it only when it says it accepts FP8, so that a plugin written
// before the value existed never reads it as one of its own dtypes.
inline std::string DTypeMismatch(const KernelInfo& info, DType dtype) {
  if (dtype != DType::kE4M3 || info.accepts_fp8) return "";
  return "dtype e4m3 not offered: the kernel does not set FS_KERNEL_ACCEPTS_FP8 (a plugin "
         "declares it in fs_kernel.flags when its supports() and launch() handle FP8)";
}

// Empty when a GPU of compute capability `device_sm` (× 10) can run the kernel; else the reason.
// `device_sm` 0 means unknown (planning, `flashscope list`): no check.
inline std::string ArchitectureMismatch(const KernelInfo& info, int device_sm) {
  if (device_sm <= 0) return "";
  if (info.exact_sm > 0 && device_sm != info.exact_sm) {
    return "built for sm_" + std::to_string(info.exact_sm) +
           "a only (arch-specific instructions); this GPU is sm_" + std::to_string(device_sm);
  }
  if (device_sm < info.min_sm) {
    return "needs sm_" + std::to_string(info.min_sm) + " or newer; this GPU is sm_" +
           std::to_string(device_sm);
  }
  return "";
}

}  // namespace flashscope
