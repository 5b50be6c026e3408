// Resource usage of one __global__ function: registers, shared and local memory, and the
// theoretical occupancy at a launch configuration (CUDA occupancy API).
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"

namespace flashscope::profiler {

struct ResourceUsage {
  std::string function;
  int registers = 0;  // per thread
  int static_smem_bytes = 0;
  int dynamic_smem_bytes = 0;
  int local_bytes = 0;  // per thread: spills and stack arrays
  int block_threads = 0;
  double theoretical_occupancy = 0;  // resident warps / the SM's maximum warps, 0..1
};

// `func` is the __global__ function's address (as passed to cudaLaunchKernel).
absl::StatusOr<ResourceUsage> QueryResources(const void* func, const std::string& name,
                                             int block_threads, size_t dynamic_smem);

}  // namespace flashscope::profiler
