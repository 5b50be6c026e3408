// Small helpers shared by the attention_fwd rungs: the checks every rung's supports() starts from,
// grid limits, the softmax scale and warp reductions (element conversions: common/
// element_convert.cuh; launch checks: kernels/launch_util.h). Kept free of Abseil (nvcc compiles
// it) and of any kernel body, so that each rung file still reads as one complete kernel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "common/element_convert.cuh"
#include "common/problem.h"
#include "kernels/launch_util.h"
#include "kernels/registry.h"

namespace flashscope::kernels {

// ---- problem checks ----

// Grid limits of the attention rungs: blockIdx.x runs over query tiles, y over heads, z over the
// batch; CUDA caps y and z at 65535.
inline constexpr int64_t kMaxGridYZ = 65535;

// The checks every rung of this ladder shares: fp16/bf16 inputs, head_dim 64 or 128, positive
// shapes within the grid limits. Returns "" when fine, else the reason naming the fix.
inline std::string AttentionBasicSupport(const AttentionProblem& p) {
  if (p.dtype != DType::kF16 && p.dtype != DType::kBF16) {
    return "attention rungs take fp16 or bf16 inputs, not " + std::string(DTypeName(p.dtype));
  }
  if (p.head_dim != 64 && p.head_dim != 128) {
    return "head_dim " + std::to_string(p.head_dim) +
           " is not supported: this kernel is compiled for head_dim 64 and 128";
  }
  if (p.batch < 1 || p.heads < 1 || p.seq_q < 1 || p.seq_k < 1) {
    return "batch, heads, seq_q and seq_k must all be >= 1";
  }
  if (p.heads > kMaxGridYZ || p.batch > kMaxGridYZ) {
    return "batch and heads must each be <= 65535 (grid y/z limit); got B=" +
           std::to_string(p.batch) + ", H=" + std::to_string(p.heads);
  }
  if (p.seq_q > INT32_MAX || p.seq_k > INT32_MAX) {
    return "seq_q and seq_k must fit in 32 bits";
  }
  return "";
}

// The scale the rungs apply to Q·Kᵀ: the caller's, or 1/sqrt(head_dim) when left at 0 (the
// AttentionArgs default), which is what every problem of this toolkit asks for.
inline float EffectiveSoftmaxScale(const AttentionProblem& p, const AttentionArgs& a) {
  return a.softmax_scale != 0.f ? a.softmax_scale
                                : 1.0f / std::sqrt(static_cast<float>(p.head_dim));
}

// Device-side form of AttentionProblem::CausalKeyEnd: the exclusive end of the keys query row `i`
// may see (bottom-right aligned), clamped to [0, seq_k].
__device__ __forceinline__ int CausalKeyEndDev(int i, int seq_q, int seq_k, bool causal) {
  if (!causal) return seq_k;
  const long long end = static_cast<long long>(i) + seq_k - seq_q + 1;
  return end < 0 ? 0 : (end > seq_k ? seq_k : static_cast<int>(end));
}

// The a01 scalar kernel over only the first `rows` of the B·H·Sq flattened query rows (all rows
// when rows >= B·H·Sq); defined in a01_scalar.cu. The test-only "half output" kernel uses it to
// write a correct first half of O and leave the rest untouched.
cudaError_t LaunchScalarAttentionRows(const AttentionProblem& p, const AttentionArgs& a,
                                      int64_t rows, cudaStream_t stream);

// Warp-wide reductions over all 32 lanes.
__device__ __forceinline__ float WarpMax(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float WarpSum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

}  // namespace flashscope::kernels
