// The host's view of one kernel a plugin offers: its facts (common/kernel_info.h), where it comes
// from, and C++ calls over the plugin's fs_kernel callbacks. The runner, the planner, `flashscope
// list` and every tool see kernels only through this class, whether the kernel is one of ours
// (the built-in plugin, kernels/abi_adapter.h) or a user's shared library.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/kernel_info.h"
#include "common/plugin_provenance.h"
#include "common/problem.h"
#include "flashscope/kernel_abi.h"

namespace flashscope::plugins {

// The two sides of a `flashscope ab` comparison: two builds of the same kernels. Only kernels of
// opposite sides may share an id (plugins/plugin_set.h).
enum class Side { kShared, kBase, kNew };
// "base", "new"; "" for kShared.
const char* SideName(Side side);

// Where a kernel comes from (common/plugin_provenance.h: what every case result records and every
// output shows), and the side of an ab comparison its file was loaded as.
struct Provenance : PluginProvenance {
  Side side = Side::kShared;
};

// One __global__ function a kernel launches for a problem: the driver's CUfunction and the launch
// configuration that resource usage and theoretical occupancy depend on.
struct DeviceFunction {
  void* cu_function = nullptr;  // CUfunction
  std::string name;
  int block_threads = 0;
  uint64_t dynamic_smem_bytes = 0;
};

// What a launch returned: 0 (cudaSuccess), a CUDA error code, or FS_LAUNCH_PLUGIN_ERROR with the
// plugin's own message.
struct LaunchOutcome {
  int32_t code = 0;
  std::string plugin_error;
  bool ok() const { return code == 0; }
};

class Kernel {
 public:
  // `abi` must have been validated (plugins/validate.h); `provenance` outlives the kernel.
  Kernel(const fs_kernel& abi, const Provenance* provenance);

  const KernelInfo& info() const { return info_; }
  const Provenance& provenance() const { return *provenance_; }

  // Empty when the kernel can run `problem` on a GPU of compute capability `device_sm` (× 10;
  // 0 = unknown, no check); else the reason: a family or architecture mismatch, or an E4M3
  // problem for a kernel without FS_KERNEL_ACCEPTS_FP8 (DTypeMismatch), all checked here without
  // calling the plugin; or what the plugin's supports() said.
  std::string Supports(const Problem& problem, int device_sm = 0) const;
  // Enqueues the kernel's work on `stream` (a cudaStream_t).
  LaunchOutcome Launch(const fs_problem& problem, const fs_buffers& buffers, void* stream) const;
  // False when the plugin has no prepare() callback (most C++ kernels; plugins built before it).
  bool prepares() const { return abi_.prepare != nullptr; }
  // The kernel's one-time work for a problem (JIT compilation, autotuning), before any launch
  // flashscope verifies or times; `*note` gets the line the plugin said about it, if any.
  LaunchOutcome Prepare(const fs_problem& problem, const fs_buffers& buffers, void* stream,
                        std::string* note) const;
  // False for kernels that report none (library peers).
  bool reports_device_functions() const { return abi_.device_functions != nullptr; }
  absl::StatusOr<std::vector<DeviceFunction>> DeviceFunctions(const Problem& problem) const;

 private:
  // A launch()/prepare() return value with the plugin's own message when it failed itself.
  LaunchOutcome Outcome(int32_t code) const;

  fs_kernel abi_;  // the plugin's entry, read up to its struct_size (later fields zero)
  KernelInfo info_;
  const Provenance* provenance_;
};

}  // namespace flashscope::plugins
