// The WMMA attention core of rungs a03 and a04: the block shape, the shared-memory layout and,
// per key tile, S = Q·Kᵀ on the tensor cores, the online softmax row by row through shared memory,
// and O += P·V. a04 is a03 with wider global loads and stores, so the two share everything but how
// tiles enter shared memory and how O leaves it, which each rung file keeps. Helpers only, every
// one force-inlined: the kernels themselves stay in the rung files.
#pragma once

#include <mma.h>

#include <cmath>
#include <cstddef>

#include "kernels/attention/attention_common.cuh"

namespace flashscope::kernels::attn_wmma {

namespace wmma = nvcuda::wmma;

constexpr int kBlockM = 64;  // query rows per block, 16 per warp
constexpr int kBlockN = 64;  // keys per tile
constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kFrag = 16;  // WMMA m = n = k

// Shared-memory layout; every stride is padded so that rows start on different banks, and every
// region and fragment start stays 32-byte aligned as load_matrix_sync requires.
template <typename T, int D>
struct Smem {
  static constexpr int kLdIn = D + 8;       // Q, K, V tiles (T)
  static constexpr int kLdS = kBlockN + 4;  // S (float)
  static constexpr int kLdP = kBlockN + 8;  // P (T)
  static constexpr int kLdO = D + 4;        // output accumulator (float)
  static constexpr size_t kQ = 0;
  static constexpr size_t kK = kQ + sizeof(T) * kBlockM * kLdIn;
  static constexpr size_t kV = kK + sizeof(T) * kBlockN * kLdIn;
  static constexpr size_t kS = kV + sizeof(T) * kBlockN * kLdIn;
  static constexpr size_t kP = kS + sizeof(float) * kBlockM * kLdS;
  static constexpr size_t kO = kP + sizeof(T) * kBlockM * kLdP;
  static constexpr size_t kRowMax = kO + sizeof(float) * kBlockM * kLdO;
  static constexpr size_t kRowSum = kRowMax + sizeof(float) * kBlockM;
  static constexpr size_t kBytes = kRowSum + sizeof(float) * kBlockM;
  static_assert(kLdIn * sizeof(T) % 16 == 0, "a04's uint4 stores into tile rows");
  static_assert(kK % 32 == 0 && kV % 32 == 0 && kS % 32 == 0 && kP % 32 == 0 && kO % 32 == 0,
                "WMMA needs 32-byte aligned fragment pointers");
};

// The regions of Smem<T, D> in a block's dynamic shared memory.
template <typename T, int D>
struct Tiles {
  using L = Smem<T, D>;
  T* q_s;
  T* k_s;
  T* v_s;
  float* s_s;  // S = Q·Kᵀ of the current key tile
  T* p_s;      // P in the input dtype, for P·V
  float* o_s;  // the output accumulator
  float* row_max;
  float* row_sum;

  __device__ __forceinline__ explicit Tiles(unsigned char* smem)
      : q_s(reinterpret_cast<T*>(smem + L::kQ)),
        k_s(reinterpret_cast<T*>(smem + L::kK)),
        v_s(reinterpret_cast<T*>(smem + L::kV)),
        s_s(reinterpret_cast<float*>(smem + L::kS)),
        p_s(reinterpret_cast<T*>(smem + L::kP)),
        o_s(reinterpret_cast<float*>(smem + L::kO)),
        row_max(reinterpret_cast<float*>(smem + L::kRowMax)),
        row_sum(reinterpret_cast<float*>(smem + L::kRowSum)) {}
};

// Copies `rows` × D elements (row stride D in global) into a tile with row stride `ld`, one
// element per thread and step, zero-filling rows past `valid_rows` so that padded keys contribute
// nothing (and V never feeds garbage or NaN into P·V).
template <typename T, int D>
__device__ __forceinline__ void LoadTileElements(T* dst, int ld, const T* src, int rows,
                                                 int valid_rows) {
  const T zero = FromFloat<T>(0.f);
  for (int idx = threadIdx.x; idx < rows * D; idx += kThreads) {
    const int r = idx / D;
    const int c = idx % D;
    dst[r * ld + c] = r < valid_rows ? src[static_cast<long long>(r) * D + c] : zero;
  }
}

// Before the first key tile: O = 0, running max -inf, running sum 0 for every row of the block.
template <typename T, int D>
__device__ __forceinline__ void InitAccumulators(const Tiles<T, D>& t) {
  using L = Smem<T, D>;
  for (int idx = threadIdx.x; idx < kBlockM * D; idx += kThreads) {
    t.o_s[(idx / D) * L::kLdO + idx % D] = 0.f;
  }
  for (int r = threadIdx.x; r < kBlockM; r += kThreads) {
    t.row_max[r] = -INFINITY;
    t.row_sum[r] = 0.f;
  }
}

using Accumulator = wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float>;

// acc += A·B over kSteps fragments along the inner dimension: A row-major at `a` (leading
// dimension lda, kFrag columns a step), B laid out as BLayout at `b` (leading dimension ldb,
// b_step elements a step).
template <typename T, typename BLayout, int kSteps>
__device__ __forceinline__ void MmaAccumulate(Accumulator& acc, const T* a, int lda, const T* b,
                                              int ldb, int b_step) {
#pragma unroll
  for (int kb = 0; kb < kSteps; ++kb) {
    wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, T, wmma::row_major> a_frag;
    wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, T, BLayout> b_frag;
    wmma::load_matrix_sync(a_frag, a + kb * kFrag, lda);
    wmma::load_matrix_sync(b_frag, b + kb * b_step, ldb);
    wmma::mma_sync(acc, a_frag, b_frag, acc);
  }
}

// One key tile (keys n0 … n0 + kBlockN, already in k_s and v_s) for this warp's 16 rows starting
// at block row `wr`: scores, online softmax, and O += P·V, all through shared memory.
template <typename T, int D>
__device__ __forceinline__ void AttendKeyTile(const Tiles<T, D>& t, int wr, int lane, int m0,
                                              int n0, int seq_q, int seq_k, bool causal,
                                              float scale) {
  using L = Smem<T, D>;
  // S[wr:wr+16, :] = Q[wr:wr+16, :] · K_tileᵀ. K is stored [key][d], i.e. Kᵀ column-major.
#pragma unroll
  for (int nb = 0; nb < kBlockN / kFrag; ++nb) {
    Accumulator s_frag;
    wmma::fill_fragment(s_frag, 0.f);
    MmaAccumulate<T, wmma::col_major, D / kFrag>(s_frag, t.q_s + wr * L::kLdIn, L::kLdIn,
                                                 t.k_s + nb * kFrag * L::kLdIn, L::kLdIn, kFrag);
    wmma::store_matrix_sync(t.s_s + wr * L::kLdS + nb * kFrag, s_frag, L::kLdS,
                            wmma::mem_row_major);
  }
  __syncwarp();

  // Online softmax, one row at a time across the warp: lane owns columns lane and lane + 32.
  for (int rr = 0; rr < kFrag; ++rr) {
    const int r = wr + rr;
    const int i = m0 + r;
    const int row_end = i < seq_q ? CausalKeyEndDev(i, seq_q, seq_k, causal) : 0;
    const int c0 = lane, c1 = lane + 32;
    const float s0 = n0 + c0 < row_end ? t.s_s[r * L::kLdS + c0] * scale : -INFINITY;
    const float s1 = n0 + c1 < row_end ? t.s_s[r * L::kLdS + c1] * scale : -INFINITY;
    const float m_old = t.row_max[r];
    const float m_new = fmaxf(m_old, WarpMax(fmaxf(s0, s1)));
    float p0 = 0.f, p1 = 0.f, corr = 1.f;
    if (m_new != -INFINITY) {  // else no key seen yet: keep zeros, avoid e^(-inf - -inf)
      p0 = __expf(s0 - m_new);
      p1 = __expf(s1 - m_new);
      corr = __expf(m_old - m_new);
    }
    const float tile_sum = WarpSum(p0 + p1);
    t.p_s[r * L::kLdP + c0] = FromFloat<T>(p0);
    t.p_s[r * L::kLdP + c1] = FromFloat<T>(p1);
    for (int d = lane; d < D; d += 32) t.o_s[r * L::kLdO + d] *= corr;
    __syncwarp();  // every lane has read t.row_max[r] before lane 0 overwrites it
    if (lane == 0) {
      t.row_max[r] = m_new;
      t.row_sum[r] = t.row_sum[r] * corr + tile_sum;
    }
  }
  __syncwarp();

  // O[wr:wr+16, :] += P[wr:wr+16, :] · V_tile.
#pragma unroll
  for (int db = 0; db < D / kFrag; ++db) {
    Accumulator o_frag;
    float* o_tile = t.o_s + wr * L::kLdO + db * kFrag;
    wmma::load_matrix_sync(o_frag, o_tile, L::kLdO, wmma::mem_row_major);
    MmaAccumulate<T, wmma::row_major, kBlockN / kFrag>(
        o_frag, t.p_s + wr * L::kLdP, L::kLdP, t.v_s + db * kFrag, L::kLdIn, kFrag * L::kLdIn);
    wmma::store_matrix_sync(o_tile, o_frag, L::kLdO, wmma::mem_row_major);
  }
}

// The main loop of the WMMA rungs: this block's Q rows loaded and the accumulators set, then every
// key tile its rows may see loaded and attended. load(dst, src, rows, valid_rows) is the rung's
// copy of a tile into rows of kLdIn. Ends synchronised, with the block's O, row maxima and sums in
// shared memory for the rung's epilogue.
template <typename T, int D, class LoadFn>
__device__ __forceinline__ void AttendAllKeyTiles(const Tiles<T, D>& t, const T* __restrict__ q,
                                                  const T* __restrict__ k, const T* __restrict__ v,
                                                  long long bh, int m0, int seq_q, int seq_k,
                                                  bool causal, float scale, LoadFn load) {
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const T* k_head = k + bh * seq_k * D;
  const T* v_head = v + bh * seq_k * D;

  load(t.q_s, q + (bh * seq_q + m0) * D, kBlockM, min(kBlockM, seq_q - m0));
  InitAccumulators(t);
  const int last_row = min(m0 + kBlockM, seq_q) - 1;
  const int block_end = CausalKeyEndDev(last_row, seq_q, seq_k, causal);
  const int wr = warp * kFrag;  // this warp's first row in the block

  for (int n0 = 0; n0 < block_end; n0 += kBlockN) {
    __syncthreads();  // previous K/V tile consumed; Q and the accumulators initialised
    const int valid_keys = min(kBlockN, seq_k - n0);
    load(t.k_s, k_head + static_cast<long long>(n0) * D, kBlockN, valid_keys);
    load(t.v_s, v_head + static_cast<long long>(n0) * D, kBlockN, valid_keys);
    __syncthreads();

    AttendKeyTile(t, wr, lane, m0, n0, seq_q, seq_k, causal, scale);
  }
  __syncthreads();  // also covers blocks that saw no key tile at all
}

// After the last key tile: lse = m + log(l) per row, -inf for a row that saw no key.
template <typename T, int D>
__device__ __forceinline__ void StoreLse(const Tiles<T, D>& t, float* lse, long long bh, int seq_q,
                                         int m0) {
  for (int r = threadIdx.x; r < kBlockM && m0 + r < seq_q; r += kThreads) {
    const float l = t.row_sum[r];
    lse[bh * seq_q + m0 + r] = l > 0.f ? t.row_max[r] + logf(l) : -INFINITY;
  }
}

}  // namespace flashscope::kernels::attn_wmma
