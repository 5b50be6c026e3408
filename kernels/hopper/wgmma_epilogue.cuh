// The epilogue of the Hopper GEMM rungs (g05-g12): one warpgroup's fp32 wgmma accumulators
// straight from registers to a row-major fp32 C (g07's split tail: added to it), or staged in
// shared memory for TMA stores (g12). Device-only, header-only.
#pragma once

#include <cstdint>

#include "kernels/hopper/hopper_ptx.cuh"

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
template <int kN>
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
        *reinterpret_cast<float2*>(dst) = make_float2(x, y);
      } else {
        if (col < N) dst[0] = x;
        if (col + 1 < N) dst[1] = y;
      }
    }
  }
}

// g12's staged C: the staging area of one warpgroup's part of its tile, kPartCols columns of its 64
// rows as kPartCols / 32 boxes of 64 rows x 32 fp32 (128-byte rows, 8 KiB), 128-byte swizzled as
// the C tensor map's TMA stores read them (16-byte chunk c of row r at c ^ (r % 8)).
constexpr int kStagedBoxCols = 32, kStagedBoxBytes = 64 * 128;
template <int kPartCols>
__host__ __device__ constexpr int StagedPartBytes() {
  static_assert(kPartCols % kStagedBoxCols == 0, "whole boxes of 32 columns");
  return kPartCols / kStagedBoxCols * kStagedBoxBytes;
}

// Writes columns [kPart·kPartCols, (kPart + 1)·kPartCols) of this warpgroup's accumulators (layout
// as in StoreWgmmaAccumulators) into `stage` (StagedPartBytes). A warp's float2 stores of one n8
// block cover 8 rows x 32 bytes whose swizzled chunks fall in distinct banks but for one pair: two
// wavefronts, the least for 256 bytes. kPart is a template argument so that the accumulators are
// indexed by constants (a run-time index would put them in local memory).
template <int kN, int kPartCols, int kPart>
__device__ __forceinline__ void StageAccumulatorPart(const float (&d)[kN / 2],
                                                     unsigned char* stage) {
  const int lane = threadIdx.x % 32;
  const int r0 = (threadIdx.x / 32 % 4) * 16 + lane / 4;  // row within the warpgroup's 64
#pragma unroll
  for (int jj = 0; jj < kPartCols / 8; ++jj) {
    const int j = kPart * (kPartCols / 8) + jj;  // the n8 block
    const int c = jj * 8 + 2 * (lane % 4);       // column within the part
    const int box = c / kStagedBoxCols, cb = c % kStagedBoxCols;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = r0 + 8 * h;
      const int off = box * kStagedBoxBytes + SwizzledChunk(r, cb / 4) + (cb % 4) * 4;
      *reinterpret_cast<float2*>(stage + off) = make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
    }
  }
}

// g07's split tail: C += the accumulators, same layout and bounds as StoreWgmmaAccumulators. C is
// read through L2 (__ldcg: another SM wrote it last) in batches of kBatch n8 blocks, all loads of
// a batch issued before its stores: element by element, each load would wait for the store
// before it (the compiler cannot prove they do not alias), one L2 round trip per element.
template <int kN>
__device__ __forceinline__ void AddWgmmaAccumulators(const float (&d)[kN / 2], float* C, int M,
                                                     int N, int warp_row0, int col0) {
  constexpr int kBatch = 8;
  static_assert((kN / 8) % kBatch == 0, "whole batches of n8 blocks");
  const int lane = threadIdx.x % 32;
  const int r = warp_row0 + lane / 4;
  const bool pairs = N % 2 == 0 && (reinterpret_cast<uintptr_t>(C) & 7) == 0;
#pragma unroll
  for (int j0 = 0; j0 < kN / 8; j0 += kBatch) {
    float2 old[kBatch][2];
#pragma unroll
    for (int jj = 0; jj < kBatch; ++jj) {
      const int col = col0 + (j0 + jj) * 8 + 2 * (lane % 4);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = r + 8 * h;
        const float* src = C + int64_t(row) * N + col;
        old[jj][h] = make_float2(0.f, 0.f);
        if (row >= M) continue;
        if (pairs && col + 1 < N) {
          old[jj][h] = __ldcg(reinterpret_cast<const float2*>(src));
        } else {
          if (col < N) old[jj][h].x = __ldcg(src);
          if (col + 1 < N) old[jj][h].y = __ldcg(src + 1);
        }
      }
    }
#pragma unroll
    for (int jj = 0; jj < kBatch; ++jj) {
      const int j = j0 + jj, col = col0 + j * 8 + 2 * (lane % 4);
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = r + 8 * h;
        if (row >= M) continue;
        float* dst = C + int64_t(row) * N + col;
        const float x = d[4 * j + 2 * h] + old[jj][h].x, y = d[4 * j + 2 * h + 1] + old[jj][h].y;
        if (pairs && col + 1 < N) {
          *reinterpret_cast<float2*>(dst) = make_float2(x, y);
        } else {
          if (col < N) dst[0] = x;
          if (col + 1 < N) dst[1] = y;
        }
      }
    }
  }
}

}  // namespace flashscope::kernels::hopper
