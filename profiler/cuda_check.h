// CUDA error helpers for the profiler's .cc files (Abseil allowed here, never in .cu files).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace flashscope::profiler {

// "cudaErrorInvalidValue (invalid argument)"
inline std::string CudaErrorText(cudaError_t e) {
  return absl::StrCat(cudaGetErrorName(e), " (", cudaGetErrorString(e), ")");
}

inline absl::Status CudaStatus(cudaError_t e, const std::string& what) {
  if (e == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, " failed: ", CudaErrorText(e)));
}

}  // namespace flashscope::profiler

// Returns a Status naming the call and the CUDA error from the enclosing function.
#define FS_CUDA_RETURN_IF_ERROR(expr, what)                          \
  do {                                                               \
    const cudaError_t fs_cuda_err_ = (expr);                         \
    if (fs_cuda_err_ != cudaSuccess) {                               \
      return ::flashscope::profiler::CudaStatus(fs_cuda_err_, what); \
    }                                                                \
  } while (0)
