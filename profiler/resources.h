// Resource usage of one __global__ function: registers, shared and local memory, and the
// theoretical occupancy at a launch configuration. Read through the CUDA driver API from the
// function's CUfunction, so that a plugin's kernels (loaded by the plugin's own CUDA runtime)
// report theirs exactly as flashscope's own do.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "common/resource_usage.h"

namespace flashscope::profiler {

// common/resource_usage.h: one struct for what is read here and the report's records.
using ResourceUsage = ::flashscope::ResourceUsage;

// `cu_function` is a CUfunction (what a plugin's fs_device_function carries).
absl::StatusOr<ResourceUsage> QueryResources(void* cu_function, const std::string& name,
                                             int block_threads, size_t dynamic_smem);

// The CUfunction of a __global__ function of this program (its address, as passed to
// cudaLaunchKernel), through this program's CUDA runtime.
absl::StatusOr<void*> CuFunctionOf(const void* runtime_function);

}  // namespace flashscope::profiler
