// The launch helpers every rung shares, attention and GEMM alike. Kept free of Abseil (nvcc
// compiles it).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace flashscope::kernels {

// Opts a kernel into more than 48 KB of dynamic shared memory when it needs it (the default cap),
// then launches nothing; returns the attribute call's error.
inline cudaError_t AllowDynamicSmem(const void* func, size_t bytes) {
  if (bytes <= 48 * 1024) return cudaSuccess;
  return cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(bytes));
}

// The error a launch left behind: configuration errors show here at once; faults appear at the
// next synchronisation.
inline cudaError_t LaunchResult() { return cudaGetLastError(); }

}  // namespace flashscope::kernels
