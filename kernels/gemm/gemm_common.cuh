// Small helpers shared by the gemm rungs: the supports() checks they all start from and the
// dtype dispatch. No kernel bodies here, so each rung file still reads as one complete kernel.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>
#include <string>

#include "common/problem.h"
#include "kernels/attention/attention_common.cuh"  // ToFloat / FromFloat / ElementName

namespace flashscope::kernels {

// fp32 or fp16 inputs, positive sizes that fit the kernels' 32-bit indices per dimension, and a
// grid whose y dimension (row tiles of `block_m` rows) stays within CUDA's 65535.
inline std::string GemmBasicSupport(const GemmProblem& g, int block_m) {
  if (g.dtype != DType::kF32 && g.dtype != DType::kF16) {
    return "gemm rungs take fp32 or fp16 inputs, not " + std::string(DTypeName(g.dtype));
  }
  if (g.m < 1 || g.n < 1 || g.k < 1) return "M, N and K must all be >= 1";
  if (g.m > INT32_MAX || g.n > INT32_MAX || g.k > INT32_MAX) {
    return "M, N and K must each fit in 32 bits";
  }
  if ((g.m + block_m - 1) / block_m > 65535) {
    return "M = " + std::to_string(g.m) + " needs more than 65535 row tiles of " +
           std::to_string(block_m) + " (grid y limit)";
  }
  return "";
}

}  // namespace flashscope::kernels
