// The epilogue of the Hopper GEMM rungs (g05-g07): one warpgroup's fp32 wgmma accumulators
// straight from registers to a row-major fp32 C (g07's split tail: added to it). Device-only,
// header-only.
#pragma once

#include <cstdint>

namespace flashscope::kernels::hopper {

// Accumulator layout of wgmma.m64nNk16 (PTX ISA, "wgmma ... register fragment D"): warp w of the
// warpgroup holds rows 16w..16w+15; for each n8 block j, the thread's d[4j..4j+3] are (r, c),
// (r, c+1), (r+8, c), (r+8, c+1) with r = 16w + lane/4, c = 8j + 2(lane%4). `warp_row0`: the C
// row of this warp's first accumulator row (the warpgroup's first row + 16w); `col0`: the C
// column of the block's first column. Rows and columns outside the M x N matrix are skipped.
// Pairs go out as float2 when that is 8-byte aligned: N even and C itself 8-byte aligned (a
// caller's C may start anywhere; cudaMalloc'd ones are 256-byte aligned).
// The caller computes warp_row0: computed in here from the warpgroup's row, ptxas serialised
// g05's wgmmas (C7515, "non wgmma instructions defining accumulator registers"), -7 %.
// kAccumulate (g07's split tail): C += the accumulators, C read through L2 (__ldcg: another SM
// wrote it last).
template <int kN, bool kAccumulate = false>
__device__ __forceinline__ void StoreWgmmaAccumulators(const float (&d)[kN / 2], float* C, int M,
                                                       int N, int warp_row0, int col0) {
  const int lane = threadIdx.x % 32;
  const int r = warp_row0 + lane / 4;
  const bool pairs = N % 2 == 0 && (reinterpret_cast<uintptr_t>(C) & 7) == 0;
#pragma unroll
  for (int j = 0; j < kN / 8; ++j) {
    const int col = col0 + j * 8 + 2 * (lane % 4);
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = r + 8 * h;
      if (row >= M) continue;
      float* dst = C + int64_t(row) * N + col;
      const float x = d[4 * j + 2 * h], y = d[4 * j + 2 * h + 1];
      if (pairs && col + 1 < N) {
        float2 v = make_float2(x, y);
        if constexpr (kAccumulate) {
          const float2 old = __ldcg(reinterpret_cast<const float2*>(dst));
          v.x += old.x;
          v.y += old.y;
        }
        *reinterpret_cast<float2*>(dst) = v;
      } else {
        if (col < N) dst[0] = kAccumulate ? __ldcg(dst) + x : x;
        if (col + 1 < N) dst[1] = kAccumulate ? __ldcg(dst + 1) + y : y;
      }
    }
  }
}

}  // namespace flashscope::kernels::hopper
