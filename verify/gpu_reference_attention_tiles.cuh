// The tiled machinery shared by the attention reference and the same-precision baseline
// (gpu_reference_attention.cu): a block of 256 threads owns kRows query rows of one (batch, head)
// and walks the keys kKeys at a time, SGEMM-style.
//
// Thread (ty, tx) = (tid / 16, tid % 16) holds the scores of rows ty + 16·i (i < RM) and keys
// tx + 16·j (j < RN) of the tile in registers, each a dot product over the head dims summed in
// order d = 0, 1, ..., D-1 (the order of a row-at-a-time implementation); its P·V accumulators are
// the same rows, dims 4·tx + 64·c + e (c < kChunks, e < 4). A row's statistics (max, sum) are
// therefore held by the 16 lanes of one half-warp, reduced with shuffles inside that half.
//
// Shared memory holds Q's rows and one K or V tile, converted to the accumulation type A with
// zero-padded dims, plus the tile's P. Rows are kLd elements apart, kLd ≡ 4 (mod 8): the 16-byte
// loads of 8 lanes (one shared-memory wavefront) reading 8 different key rows then hit 8
// different bank groups.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "common/element_convert.cuh"

namespace flashscope::verify::attn_tiles {

constexpr int kThreads = 256;
constexpr int kSide = 16;  // threads per row group and per key group

// Register-tile shape per accumulation type: fp32 4×4 scores per thread (a 64×64 score block);
// fp64 2×2 (32×32), so that Q and a tile fit in shared memory at D = 256 in doubles too.
template <typename A>
struct TileShape;
template <>
struct TileShape<float> {
  static constexpr int kRm = 4, kRn = 4;
};
template <>
struct TileShape<double> {
  static constexpr int kRm = 2, kRn = 2;
};

struct AttnShape {
  int64_t row_blocks;  // ceil(seq_q / rows per block)
  int64_t work;        // batch · heads · row_blocks
  int64_t seq_q, seq_k;
  int d;   // head dim
  int d4;  // d rounded up to 4: the dims a dot product or a P·V chunk walks (zeros past d)
  int ld;  // row stride of the Q and K/V tiles in shared memory (≥ d4, ≡ 4 mod 8)
  bool causal;
  double scale;
};

template <typename A>
struct TileSmem {
  static constexpr int kRows = TileShape<A>::kRm * kSide;
  static constexpr int kKeys = TileShape<A>::kRn * kSide;
  // The P tile's row stride: 16 words past the tile width keeps the two half-warps' stores of
  // one row pair in different banks, and rows 16-byte aligned.
  static constexpr int kPLd = kKeys + 16;
  A* q;   // [kRows][ld]
  A* kv;  // [kKeys][ld]: the K tile, then the V tile
  A* p;   // [kRows][kPLd]
  __device__ TileSmem(unsigned char* base, const AttnShape& s) {
    q = reinterpret_cast<A*>(base);
    kv = q + kRows * s.ld;
    p = kv + kKeys * s.ld;
  }
  static size_t Bytes(const AttnShape& s) {
    return sizeof(A) * (static_cast<size_t>(kRows + kKeys) * s.ld + kRows * kPLd);
  }
};

__device__ __forceinline__ int64_t KeyEnd(const AttnShape& s, int64_t row) {
  if (row >= s.seq_q) return 0;
  if (!s.causal) return s.seq_k;
  const int64_t end = row + (s.seq_k - s.seq_q) + 1;
  return end < 0 ? 0 : (end > s.seq_k ? s.seq_k : end);
}

// Work item `w` of the grid: head bh and the first row of its row block. Causal blocks with more
// keys are handed out first (row blocks in reverse) so the grid's tail holds the short ones.
struct RowBlock {
  int64_t bh, row0;
  int64_t key_end;  // of the block's last row: key ends grow with the row
};

template <typename A>
__device__ __forceinline__ RowBlock RowBlockOf(const AttnShape& s, int64_t w) {
  RowBlock b;
  b.bh = w / s.row_blocks;
  int64_t rb = w % s.row_blocks;
  if (s.causal) rb = s.row_blocks - 1 - rb;
  b.row0 = rb * TileSmem<A>::kRows;
  const int64_t last = b.row0 + TileSmem<A>::kRows - 1;
  b.key_end = KeyEnd(s, last < s.seq_q ? last : s.seq_q - 1);
  return b;
}

// Stages kCount rows [first, first + kCount) of head bh of `src` ([.., seq, d] in T) into `dst`
// as A: rows past `seq` and dims in [d, d4) are zero, so they add exact zeros to dots and P·V.
// Warp w takes rows w, w + 8, ...; lane l dims l, l + 32, ... (coalesced). Each step issues its
// rows' loads before its shared stores, which the compiler could not move them past (source and
// destination might alias, for all it knows): a step waits for memory once, not once per row.
// (Two dims per step would halve the waits but cost 40 registers: one block per SM at D = 128.)
template <int kCount, typename T, typename A>
__device__ void StageRows(A* dst, const AttnShape& s, const T* src, int64_t bh, int64_t seq,
                          int64_t first) {
  constexpr int kWarps = kThreads / 32, kPerWarp = kCount / kWarps;
  static_assert(kCount % kWarps == 0, "whole rows per warp");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int dd = lane; dd < s.d4; dd += 32) {
    T x[kPerWarp];
#pragma unroll
    for (int r = 0; r < kPerWarp; ++r) {
      const int64_t row = first + warp + kWarps * r;
      if (row < seq && dd < s.d) x[r] = src[(bh * seq + row) * s.d + dd];
    }
#pragma unroll
    for (int r = 0; r < kPerWarp; ++r) {
      const bool in = first + warp + kWarps * r < seq && dd < s.d;
      dst[(warp + kWarps * r) * s.ld + dd] = in ? static_cast<A>(ToFloat<T>(x[r])) : A(0);
    }
  }
}

// Four consecutive A from 16-byte-aligned shared memory.
__device__ __forceinline__ void Load4(const float* p, float (&v)[4]) {
  const float4 x = *reinterpret_cast<const float4*>(p);
  v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
}
__device__ __forceinline__ void Load4(const double* p, double (&v)[4]) {
  const double2 x = *reinterpret_cast<const double2*>(p);
  const double2 y = *reinterpret_cast<const double2*>(p + 2);
  v[0] = x.x, v[1] = x.y, v[2] = y.x, v[3] = y.y;
}

// Fused multiply-add, spelled out so that the order and the single rounding of each step are part
// of the code rather than of the compiler's contraction (the baseline's tests model them exactly).
__device__ __forceinline__ float Fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double Fma(double a, double b, double c) { return fma(a, b, c); }

// This thread's Q·Kᵀ block of the staged K tile: dots[i][j] = Σ_d q[ty+16i][d]·k[tx+16j][d],
// accumulated in A in increasing d (the zero-padded dims add exact zeros at the end).
template <typename A>
__device__ __forceinline__ void TileDots(const TileSmem<A>& sm, const AttnShape& s,
                                         A (&dots)[TileShape<A>::kRm][TileShape<A>::kRn]) {
  constexpr int kRm = TileShape<A>::kRm, kRn = TileShape<A>::kRn;
  const int ty = threadIdx.x / kSide, tx = threadIdx.x % kSide;
#pragma unroll
  for (int i = 0; i < kRm; ++i) {
#pragma unroll
    for (int j = 0; j < kRn; ++j) dots[i][j] = 0;
  }
  const A* qb = sm.q + ty * s.ld;
  const A* kb = sm.kv + tx * s.ld;
  for (int dd = 0; dd < s.d4; dd += 4) {
    A q[kRm][4], k[kRn][4];
#pragma unroll
    for (int i = 0; i < kRm; ++i) Load4(qb + i * kSide * s.ld + dd, q[i]);
#pragma unroll
    for (int j = 0; j < kRn; ++j) Load4(kb + j * kSide * s.ld + dd, k[j]);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
#pragma unroll
      for (int i = 0; i < kRm; ++i) {
#pragma unroll
        for (int j = 0; j < kRn; ++j) dots[i][j] = Fma(q[i][u], k[j][u], dots[i][j]);
      }
    }
  }
}

// Reductions over the 16 lanes of a half-warp (one row's key groups). XOR butterflies give every
// lane the same bits: each step adds the same two values in either order.
template <typename A>
__device__ __forceinline__ A RowMax(A x) {
  for (int o = kSide / 2; o > 0; o >>= 1) x = fmax(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}
template <typename A>
__device__ __forceinline__ A RowSum(A x) {
  for (int o = kSide / 2; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

// acc[i][4c + e] += Σ_t p[ty+16i][t] · v[t][4tx + 64c + e] over the staged V tile, t in
// increasing order (a row-at-a-time implementation's order). Keys past a row's end have p = 0
// and finite (or zero) v, adding exact zeros.
template <typename A, int kChunks>
__device__ __forceinline__ void AccumulatePV(const TileSmem<A>& sm, const AttnShape& s,
                                             A (&acc)[TileShape<A>::kRm][4 * kChunks]) {
  constexpr int kRm = TileShape<A>::kRm, kKeys = TileSmem<A>::kKeys;
  const int ty = threadIdx.x / kSide, tx = threadIdx.x % kSide;
  for (int t = 0; t < kKeys; t += 4) {
    A p[kRm][4];
#pragma unroll
    for (int i = 0; i < kRm; ++i) Load4(sm.p + (ty + kSide * i) * TileSmem<A>::kPLd + t, p[i]);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
#pragma unroll
      for (int c = 0; c < kChunks; ++c) {
        const int dim = 4 * tx + 64 * c;
        if (dim >= s.d4) continue;
        A v[4];
        Load4(sm.kv + (t + u) * s.ld + dim, v);
#pragma unroll
        for (int i = 0; i < kRm; ++i) {
#pragma unroll
          for (int e = 0; e < 4; ++e) acc[i][4 * c + e] = Fma(p[i][u], v[e], acc[i][4 * c + e]);
        }
      }
    }
  }
}

// Writes this thread's rows of O (value(i, element) for dims < d) as floats.
template <typename A, int kChunks, typename Value>
__device__ __forceinline__ void StoreRows(const AttnShape& s, const RowBlock& b, float* out,
                                          Value value) {
  constexpr int kRm = TileShape<A>::kRm;
  const int ty = threadIdx.x / kSide, tx = threadIdx.x % kSide;
#pragma unroll
  for (int i = 0; i < kRm; ++i) {
    const int64_t row = b.row0 + ty + kSide * i;
    if (row >= s.seq_q) continue;
    float* o = out + (b.bh * s.seq_q + row) * s.d;
#pragma unroll
    for (int c = 0; c < kChunks; ++c) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int dim = 4 * tx + 64 * c + e;
        if (dim < s.d) o[dim] = value(i, 4 * c + e);
      }
    }
  }
}

}  // namespace flashscope::verify::attn_tiles
