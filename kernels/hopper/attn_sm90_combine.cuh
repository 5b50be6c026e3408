// Split-KV's second kernel (a19): merges the n_splits partial results of every query row into O
// and the log-sum-exp. Share s of a row carries O_s = Σ_j∈s p_j v_j / l_s and lse_s = log l_s
// (natural log, scores already scaled); with M = max_s lse_s and w_s = exp(lse_s - M):
//   O = Σ_s w_s O_s / Σ_s w_s,   lse = M + log Σ_s w_s.
// A share that saw no key (lse_s = -inf) weighs 0; a row no share saw gets O = 0 and -inf, as the
// one-pass kernel writes it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/ptx.cuh"

namespace flashscope::kernels::attn_sm90 {

constexpr int kCombineWarps = 8;  // one warp per query row, 8 rows per block

// part_o [n_splits][rows][D] and part_lse [n_splits][rows] (rows = B·H·Sq, row-major like O);
// o [rows][D] in T; lse [rows] or null.
template <typename T, int D>
__global__ void __launch_bounds__(kCombineWarps * 32)
    SplitKvCombineKernel(const float* __restrict__ part_o, const float* __restrict__ part_lse,
                         T* __restrict__ o, float* __restrict__ lse, int64_t rows, int n_splits) {
  static_assert(D == 64 || D == 128 || D == 256, "head dims 64, 128 and 256");
  constexpr int kPer = D / 32;  // columns per lane: 2, 4 or 8 (8 to 32 contiguous bytes)
  const int64_t row = int64_t(blockIdx.x) * kCombineWarps + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float m = -INFINITY;
  for (int s = 0; s < n_splits; ++s) m = fmaxf(m, part_lse[s * rows + row]);
  float acc[kPer];
#pragma unroll
  for (int i = 0; i < kPer; ++i) acc[i] = 0.f;
  float sum = 0.f;
  if (m != -INFINITY) {
    for (int s = 0; s < n_splits; ++s) {
      const float w = expf(part_lse[s * rows + row] - m);
      if (w == 0.f) continue;  // a share that saw no key (its O is 0 anyway)
      sum += w;
      const float* src = part_o + (s * rows + row) * D + lane * kPer;
      if constexpr (kPer == 2) {
        const float2 x = *reinterpret_cast<const float2*>(src);
        acc[0] += w * x.x;
        acc[1] += w * x.y;
      } else {
#pragma unroll
        for (int v = 0; v < kPer / 4; ++v) {
          const float4 x = reinterpret_cast<const float4*>(src)[v];
          acc[4 * v] += w * x.x;
          acc[4 * v + 1] += w * x.y;
          acc[4 * v + 2] += w * x.z;
          acc[4 * v + 3] += w * x.w;
        }
      }
    }
  }
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
  uint32_t packed[kPer / 2];
#pragma unroll
  for (int i = 0; i < kPer / 2; ++i) {
    packed[i] = ptx::PackFloat2<T>(acc[2 * i] * inv, acc[2 * i + 1] * inv);
  }
  T* dst = o + row * D + lane * kPer;
  if constexpr (kPer == 2) {
    *reinterpret_cast<uint32_t*>(dst) = packed[0];
  } else if constexpr (kPer == 4) {
    *reinterpret_cast<uint2*>(dst) = make_uint2(packed[0], packed[1]);
  } else {
    *reinterpret_cast<uint4*>(dst) = make_uint4(packed[0], packed[1], packed[2], packed[3]);
  }
  if (lse != nullptr && lane == 0) lse[row] = sum > 0.f ? m + logf(sum) : -INFINITY;
}

}  // namespace flashscope::kernels::attn_sm90
