// The attention reference (fp32 or fp64 accumulation) and the same-precision baseline.
//
// Both stream over keys: a block takes kWarps query rows of one head, one warp per row, and walks
// the keys in tiles of kKeyTile staged in shared memory (shared by the block's rows). Within a
// tile, lane t computes the score of key t; the warp then reduces the tile's max and sum and
// each lane accumulates P·V for its head dims (d = lane, lane+32, ...). Nothing of size Sq×Sk is
// ever stored, so any sequence length that fits Q, K, V and O works.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "common/element_convert.cuh"
#include "verify/element_dispatch.cuh"
#include "verify/gpu_reference.h"

namespace flashscope::verify {
namespace {

constexpr int kWarps = 8;
constexpr int kThreads = kWarps * 32;
constexpr int kKeyTile = 32;
constexpr int kDimsPerLane = kReferenceMaxHeadDim / 32;

struct AttnShape {
  int64_t row_blocks;  // ceil(seq_q / kWarps)
  int64_t seq_q, seq_k;
  int d;
  int k_ld;  // padded K row stride in elements: an odd number of 32-bit words, so that lanes
             // reading the same dim of 32 different keys hit 32 different banks
  bool causal;
  double scale;
};

__device__ __forceinline__ int64_t KeyEnd(const AttnShape& s, int64_t row) {
  if (!s.causal) return s.seq_k;
  const int64_t end = row + (s.seq_k - s.seq_q) + 1;
  return end < 0 ? 0 : (end > s.seq_k ? s.seq_k : end);
}

template <typename A>
__device__ __forceinline__ A WarpMax(A x) {
  for (int o = 16; o > 0; o >>= 1) x = fmax(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}

template <typename A>
__device__ __forceinline__ A WarpSum(A x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

__device__ __forceinline__ float Exp(float x) { return expf(x); }
__device__ __forceinline__ double Exp(double x) { return exp(x); }
__device__ __forceinline__ float Log(float x) { return logf(x); }
__device__ __forceinline__ double Log(double x) { return log(x); }

// Shared memory of one block: per-warp query row and tile probabilities in the accumulation type
// A, then the K and V tiles in the storage type T.
template <typename T, typename A>
struct Smem {
  A* q;  // [kWarps][d]
  A* p;  // [kWarps][kKeyTile]
  T* k;  // [kKeyTile][k_ld]
  T* v;  // [kKeyTile][d]
  __device__ Smem(unsigned char* base, const AttnShape& s) {
    q = reinterpret_cast<A*>(base);
    p = q + kWarps * s.d;
    k = reinterpret_cast<T*>(p + kWarps * kKeyTile);
    v = k + kKeyTile * s.k_ld;
  }
  static size_t Bytes(const AttnShape& s) {
    return sizeof(A) * (kWarps * s.d + kWarps * kKeyTile) +
           sizeof(T) * (kKeyTile * s.k_ld + kKeyTile * s.d);
  }
};

// Stages keys [start, start + kKeyTile) of head `bh` (zeros past seq_k).
template <typename T, typename A>
__device__ void LoadKvTile(const Smem<T, A>& sm, const AttnShape& s, const T* k, const T* v,
                           int64_t bh, int64_t start) {
  const T zero = FromFloat<T>(0.f);
  for (int i = threadIdx.x; i < kKeyTile * s.d; i += kThreads) {
    const int t = i / s.d, dd = i % s.d;
    const int64_t j = start + t;
    const bool in = j < s.seq_k;
    const int64_t g = (bh * s.seq_k + j) * s.d + dd;
    sm.k[t * s.k_ld + dd] = in ? k[g] : zero;
    sm.v[t * s.d + dd] = in ? v[g] : zero;
  }
}

// Q·K for key `t` of the staged tile, in A.
template <typename T, typename A>
__device__ __forceinline__ A Dot(const Smem<T, A>& sm, const AttnShape& s, int warp, int t) {
  const A* qrow = sm.q + warp * s.d;
  const T* krow = sm.k + t * s.k_ld;
  A dot = 0;
  for (int dd = 0; dd < s.d; ++dd) dot += qrow[dd] * static_cast<A>(ToFloat<T>(krow[dd]));
  return dot;
}

template <typename T, typename A>
__device__ void LoadQueryRows(const Smem<T, A>& sm, const AttnShape& s, const T* q, int64_t bh,
                              int64_t row0) {
  for (int i = threadIdx.x; i < kWarps * s.d; i += kThreads) {
    const int w = i / s.d, dd = i % s.d;
    const int64_t row = row0 + w;
    sm.q[i] = row < s.seq_q ? static_cast<A>(ToFloat<T>(q[(bh * s.seq_q + row) * s.d + dd])) : A(0);
  }
}

// This warp's query row: block blockIdx.x holds kWarps rows (row0...) of one (batch, head) bh, a
// warp each; `valid` (warp-uniform) when the row exists. block_end: the key end of the block's
// last row (key ends grow with the row); row_end: the row's own (0 when it does not exist).
struct WarpRow {
  int warp, lane;
  int64_t bh, row0, row;
  bool valid;
  int64_t block_end, row_end;
};

__device__ __forceinline__ WarpRow WarpRowOf(const AttnShape& s) {
  WarpRow w;
  w.warp = threadIdx.x / 32;
  w.lane = threadIdx.x % 32;
  w.bh = blockIdx.x / s.row_blocks;
  w.row0 = (blockIdx.x % s.row_blocks) * kWarps;
  w.row = w.row0 + w.warp;
  w.valid = w.row < s.seq_q;
  w.block_end = KeyEnd(s, min(w.row0 + kWarps, s.seq_q) - 1);
  w.row_end = w.valid ? KeyEnd(s, w.row) : 0;
  return w;
}

// O += P·V over the tile's first min(keys_left, kKeyTile) keys: P of the warp's row from sm.p,
// each lane its dims of V.
template <typename T, typename A>
__device__ __forceinline__ void AccumulateTilePV(const Smem<T, A>& sm, const AttnShape& s, int warp,
                                                 int lane, int64_t keys_left,
                                                 A (&acc)[kDimsPerLane]) {
  const int n = static_cast<int>(keys_left < kKeyTile ? keys_left : kKeyTile);
  for (int t = 0; t < n; ++t) {
    const A pt = sm.p[warp * kKeyTile + t];
    const T* vrow = sm.v + t * s.d;
#pragma unroll
    for (int c = 0; c < kDimsPerLane; ++c) {
      const int dd = lane + 32 * c;
      if (dd < s.d) acc[c] += pt * static_cast<A>(ToFloat<T>(vrow[dd]));
    }
  }
}

template <typename T, typename A>
__global__ void __launch_bounds__(kThreads)
    AttentionReferenceKernel(AttnShape s, const T* q, const T* k, const T* v, float* out,
                             float* lse) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Smem<T, A> sm(smem_raw, s);
  const auto [warp, lane, bh, row0, row, valid, block_end, row_end] = WarpRowOf(s);

  LoadQueryRows(sm, s, q, bh, row0);
  const A neg_inf = -INFINITY;
  A m = neg_inf, l = 0;
  A acc[kDimsPerLane];
#pragma unroll
  for (int c = 0; c < kDimsPerLane; ++c) acc[c] = 0;

  for (int64_t start = 0; start < block_end; start += kKeyTile) {
    __syncthreads();  // the previous tile (and the query rows, first time) are in place / done
    LoadKvTile(sm, s, k, v, bh, start);
    __syncthreads();
    if (!valid || start >= row_end) continue;
    const int64_t j = start + lane;
    const A score = j < row_end ? Dot(sm, s, warp, lane) * static_cast<A>(s.scale) : neg_inf;
    const A tile_max = WarpMax(score);  // finite: key `start` < row_end is in the tile
    const A m_new = fmax(m, tile_max);
    const A alpha = Exp(m - m_new);  // exp(-inf) = 0 on the first tile
    const A p = j < row_end ? Exp(score - m_new) : A(0);
    l = l * alpha + WarpSum(p);
    sm.p[warp * kKeyTile + lane] = p;
    __syncwarp();
#pragma unroll
    for (int c = 0; c < kDimsPerLane; ++c) acc[c] *= alpha;
    AccumulateTilePV(sm, s, warp, lane, row_end - start, acc);
    __syncwarp();
    m = m_new;
  }
  if (!valid) return;
  const int64_t o = (bh * s.seq_q + row) * s.d;
#pragma unroll
  for (int c = 0; c < kDimsPerLane; ++c) {
    const int dd = lane + 32 * c;
    if (dd < s.d) out[o + dd] = l > 0 ? static_cast<float>(acc[c] / l) : 0.f;
  }
  if (lse != nullptr && lane == 0) {
    lse[bh * s.seq_q + row] = l > 0 ? static_cast<float>(m + Log(l)) : -INFINITY;
  }
}

// Three passes over the keys, each score recomputed as the naive implementation stores it:
// S rounded to T; pass 0 its row max, pass 1 the fp32 sum of exp(S - max), pass 2 P rounded to
// T and O += P·V in fp32; O rounded to T at the end.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    AttentionBaselineKernel(AttnShape s, const T* q, const T* k, const T* v, float* out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Smem<T, float> sm(smem_raw, s);
  const auto [warp, lane, bh, row0, row, valid, block_end, row_end] = WarpRowOf(s);
  const float scale = static_cast<float>(s.scale);

  LoadQueryRows(sm, s, q, bh, row0);
  float m = -INFINITY, l = 0;
  float acc[kDimsPerLane];
#pragma unroll
  for (int c = 0; c < kDimsPerLane; ++c) acc[c] = 0;

  for (int pass = 0; pass < 3; ++pass) {
    for (int64_t start = 0; start < block_end; start += kKeyTile) {
      __syncthreads();
      LoadKvTile(sm, s, k, v, bh, start);
      __syncthreads();
      if (!valid || start >= row_end) continue;
      const int64_t j = start + lane;
      const bool in = j < row_end;
      const float score = in ? RoundTo<T>(Dot(sm, s, warp, lane) * scale) : -INFINITY;
      if (pass == 0) {
        m = fmaxf(m, WarpMax(score));
      } else if (pass == 1) {
        l += WarpSum(in ? expf(score - m) : 0.f);
      } else {
        sm.p[warp * kKeyTile + lane] = in ? RoundTo<T>(expf(score - m) / l) : 0.f;
        __syncwarp();
        AccumulateTilePV(sm, s, warp, lane, row_end - start, acc);
        __syncwarp();
      }
    }
  }
  if (!valid) return;
  const int64_t o = (bh * s.seq_q + row) * s.d;
#pragma unroll
  for (int c = 0; c < kDimsPerLane; ++c) {
    const int dd = lane + 32 * c;
    if (dd < s.d) out[o + dd] = row_end > 0 ? RoundTo<T>(acc[c]) : 0.f;
  }
}

cudaError_t MakeShape(const AttentionProblem& p, size_t elem_bytes, AttnShape* s) {
  if (p.batch <= 0 || p.heads <= 0 || p.seq_q <= 0 || p.seq_k <= 0 || p.head_dim <= 0 ||
      p.head_dim > kReferenceMaxHeadDim) {
    return cudaErrorInvalidValue;
  }
  s->row_blocks = (p.seq_q + kWarps - 1) / kWarps;
  s->seq_q = p.seq_q;
  s->seq_k = p.seq_k;
  s->d = static_cast<int>(p.head_dim);
  s->causal = p.causal;
  s->scale = 1.0 / std::sqrt(static_cast<double>(p.head_dim));
  // Pad K rows to an odd number of 32-bit words (see AttnShape::k_ld).
  int ld = s->d;
  if (elem_bytes == 2) {
    ld += ld % 2;
    if ((ld / 2) % 2 == 0) ld += 2;
  } else if (ld % 2 == 0) {
    ld += 1;
  }
  s->k_ld = ld;
  return cudaSuccess;
}

// Launches one of the kernels above, kernel(shape, args...), with a block per B·H·row block and
// `smem` bytes of dynamic shared memory (opted into above the 48 KB default).
template <typename Kernel, typename... Args>
cudaError_t LaunchOverRowBlocks(Kernel kernel, const AttentionProblem& p, const AttnShape& s,
                                size_t smem, cudaStream_t stream, Args... args) {
  if (smem > 48 * 1024) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(smem));
    if (e != cudaSuccess) return e;
  }
  const int64_t blocks = p.batch * p.heads * s.row_blocks;
  if (blocks > 0x7FFFFFFF) return cudaErrorInvalidConfiguration;
  kernel<<<static_cast<unsigned>(blocks), kThreads, smem, stream>>>(s, args...);
  return cudaGetLastError();
}

template <typename T, typename A>
cudaError_t LaunchReference(const AttentionProblem& p, const void* q, const void* k, const void* v,
                            float* out, float* lse, cudaStream_t stream) {
  AttnShape s;
  if (cudaError_t e = MakeShape(p, sizeof(T), &s); e != cudaSuccess) return e;
  return LaunchOverRowBlocks(AttentionReferenceKernel<T, A>, p, s, Smem<T, A>::Bytes(s), stream,
                             static_cast<const T*>(q), static_cast<const T*>(k),
                             static_cast<const T*>(v), out, lse);
}

template <typename T>
cudaError_t LaunchBaseline(const AttentionProblem& p, const void* q, const void* k, const void* v,
                           float* out, cudaStream_t stream) {
  AttnShape s;
  if (cudaError_t e = MakeShape(p, sizeof(T), &s); e != cudaSuccess) return e;
  return LaunchOverRowBlocks(AttentionBaselineKernel<T>, p, s, Smem<T, float>::Bytes(s), stream,
                             static_cast<const T*>(q), static_cast<const T*>(k),
                             static_cast<const T*>(v), out);
}

}  // namespace

cudaError_t AttentionReferenceGpu(const AttentionProblem& p, const void* q, const void* k,
                                  const void* v, ReferencePrecision precision, float* out,
                                  float* lse, cudaStream_t stream) {
  const bool f64 = precision == ReferencePrecision::kFp64;
  return WithElementType(p.dtype, [&](auto element) {
    using T = decltype(element);
    return f64 ? LaunchReference<T, double>(p, q, k, v, out, lse, stream)
               : LaunchReference<T, float>(p, q, k, v, out, lse, stream);
  });
}

cudaError_t AttentionSamePrecisionBaselineGpu(const AttentionProblem& p, const void* q,
                                              const void* k, const void* v, float* out,
                                              cudaStream_t stream) {
  return WithElementType(p.dtype, [&](auto element) {
    return LaunchBaseline<decltype(element)>(p, q, k, v, out, stream);
  });
}

}  // namespace flashscope::verify
