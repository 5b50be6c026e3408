#include "profiler/resources.h"

#include <cuda_runtime_api.h>

#include "absl/strings/str_cat.h"
#include "profiler/cuda_check.h"

namespace flashscope::profiler {

absl::StatusOr<ResourceUsage> QueryResources(const void* func, const std::string& name,
                                             int block_threads, size_t dynamic_smem) {
  if (func == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("QueryResources(", name, "): null function"));
  }
  if (block_threads <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("QueryResources(", name, "): block_threads must be > 0"));
  }
  const std::string what = absl::StrCat(" for ", name);
  cudaFuncAttributes attr{};
  FS_CUDA_RETURN_IF_ERROR(cudaFuncGetAttributes(&attr, func),
                          absl::StrCat("cudaFuncGetAttributes", what));
  ResourceUsage u;
  u.function = name;
  u.registers = attr.numRegs;
  u.static_smem_bytes = static_cast<int>(attr.sharedSizeBytes);
  u.dynamic_smem_bytes = static_cast<int>(dynamic_smem);
  u.local_bytes = static_cast<int>(attr.localSizeBytes);
  u.block_threads = block_threads;
  int device = 0;
  FS_CUDA_RETURN_IF_ERROR(cudaGetDevice(&device), "cudaGetDevice");
  int max_threads_per_sm = 0;
  FS_CUDA_RETURN_IF_ERROR(
      cudaDeviceGetAttribute(&max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device),
      "cudaDeviceGetAttribute(MaxThreadsPerMultiProcessor)");
  int blocks = 0;
  // A kernel that needs more than 48 KiB of dynamic shared memory must have opted in with
  // cudaFuncSetAttribute before this; otherwise the occupancy API reports 0 blocks.
  FS_CUDA_RETURN_IF_ERROR(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func, block_threads, dynamic_smem),
      absl::StrCat("cudaOccupancyMaxActiveBlocksPerMultiprocessor", what));
  const int warps_per_block = (block_threads + 31) / 32;
  const int max_warps = max_threads_per_sm / 32;
  u.theoretical_occupancy =
      max_warps > 0 ? static_cast<double>(blocks * warps_per_block) / max_warps : 0.0;
  return u;
}

}  // namespace flashscope::profiler
