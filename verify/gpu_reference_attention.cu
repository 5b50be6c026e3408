// The attention reference (fp32 or fp64 accumulation) and the same-precision baseline.
//
// Both stream over keys in tiles (gpu_reference_attention_tiles.cuh): a block of 256 threads
// takes kRows query rows of one head, stages them in shared memory, and walks the keys kKeys at a
// time, each thread computing a small register block of the scores, then P·V for its rows and a
// slice of the head dims. Nothing of size Sq×Sk is ever stored, so any sequence length that fits
// Q, K, V and O works. The grid strides over (batch·head, row block) work items, so any B·H·Sq
// fits one launch.
//
// Order of the sums (the contract is gpu_reference.h's): every dot product of Q·Kᵀ and
// every P·V element is summed in the order a row-at-a-time implementation uses (increasing head
// dim, increasing key), with fused multiply-adds; the softmax's row sums are summed per tile
// (16 lanes, a butterfly) and the tiles in order.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "common/element_convert.cuh"
#include "verify/baseline_rules.cuh"
#include "verify/element_dispatch.cuh"
#include "verify/gpu_reference.h"
#include "verify/gpu_reference_attention_tiles.cuh"

namespace flashscope::verify {
namespace {

using attn_tiles::AttnShape;
using attn_tiles::KeyEnd;
using attn_tiles::kSide;
using attn_tiles::kThreads;
using attn_tiles::RowBlock;
using attn_tiles::TileShape;
using attn_tiles::TileSmem;

__device__ __forceinline__ float Exp(float x) { return expf(x); }
__device__ __forceinline__ double Exp(double x) { return exp(x); }
__device__ __forceinline__ float Log(float x) { return logf(x); }
__device__ __forceinline__ double Log(double x) { return log(x); }

// This thread's rows (ty + 16·i) of a row block and each one's key end (0 past seq_q).
template <typename A>
struct ThreadRows {
  int64_t key_end[TileShape<A>::kRm];
  __device__ ThreadRows(const AttnShape& s, const RowBlock& b) {
#pragma unroll
    for (int i = 0; i < TileShape<A>::kRm; ++i) {
      key_end[i] = KeyEnd(s, b.row0 + threadIdx.x / kSide + kSide * i);
    }
  }
  // Whether key `start` + tx + 16·j is one row i sees.
  __device__ bool Sees(int i, int64_t start, int j) const {
    return start + threadIdx.x % kSide + kSide * j < key_end[i];
  }
};

// The online-softmax state of one thread's rows, and its P·V accumulators.
template <typename A, int kChunks>
struct OnlineRows {
  static constexpr int kRm = TileShape<A>::kRm, kRn = TileShape<A>::kRn;
  A m[kRm], l[kRm];
  A acc[kRm][4 * kChunks];
  __device__ OnlineRows() {
#pragma unroll
    for (int i = 0; i < kRm; ++i) {
      m[i] = -INFINITY;
      l[i] = 0;
#pragma unroll
      for (int e = 0; e < 4 * kChunks; ++e) acc[i][e] = 0;
    }
  }
  // Folds one tile's scores in: the new max, the rescale of l and acc (exp(m_old - m_new); a row
  // that has seen no key yet keeps m = -inf, l = 0 and acc = 0) and the tile's probabilities
  // exp(score - m_new) into sm.p, 0 for keys the row does not see.
  __device__ void FoldTile(const TileSmem<A>& sm, const ThreadRows<A>& rows, int64_t start, A scale,
                           const A (&dots)[kRm][kRn]) {
    const int ty = threadIdx.x / kSide, tx = threadIdx.x % kSide;
#pragma unroll
    for (int i = 0; i < kRm; ++i) {
      A score[kRn];
      A tile_max = -INFINITY;
#pragma unroll
      for (int j = 0; j < kRn; ++j) {
        score[j] = rows.Sees(i, start, j) ? dots[i][j] * scale : A(-INFINITY);
        tile_max = fmax(tile_max, score[j]);
      }
      const A m_new = fmax(m[i], attn_tiles::RowMax(tile_max));
      const bool none = m_new == A(-INFINITY);  // no key of this row so far
      const A alpha = none ? A(1) : Exp(m[i] - m_new);
      A sum = 0;
#pragma unroll
      for (int j = 0; j < kRn; ++j) {
        const A p = rows.Sees(i, start, j) ? Exp(score[j] - m_new) : A(0);
        sum += p;
        sm.p[(ty + kSide * i) * TileSmem<A>::kPLd + tx + kSide * j] = p;
      }
      l[i] = l[i] * alpha + attn_tiles::RowSum(sum);
      m[i] = m_new;
#pragma unroll
      for (int e = 0; e < 4 * kChunks; ++e) acc[i][e] *= alpha;
    }
  }
};

// One work item of the reference: rows [row0, row0 + kRows) of head bh.
template <typename T, typename A, int kChunks>
__device__ void ReferenceRowBlock(const TileSmem<A>& sm, const AttnShape& s, const RowBlock& b,
                                  const T* q, const T* k, const T* v, float* out, float* lse) {
  constexpr int kRm = TileShape<A>::kRm, kRn = TileShape<A>::kRn;
  const ThreadRows<A> rows(s, b);
  OnlineRows<A, kChunks> st;
  attn_tiles::StageRows<TileSmem<A>::kRows>(sm.q, s, q, b.bh, s.seq_q, b.row0);
  for (int64_t start = 0; start < b.key_end; start += TileSmem<A>::kKeys) {
    __syncthreads();  // Q staged (first tile); the previous tile's P·V is done with kv and p
    attn_tiles::StageRows<TileSmem<A>::kKeys>(sm.kv, s, k, b.bh, s.seq_k, start);
    __syncthreads();
    A dots[kRm][kRn];
    attn_tiles::TileDots(sm, s, dots);
    st.FoldTile(sm, rows, start, static_cast<A>(s.scale), dots);
    __syncthreads();  // every K read done, P complete
    attn_tiles::StageRows<TileSmem<A>::kKeys>(sm.kv, s, v, b.bh, s.seq_k, start);
    __syncthreads();
    attn_tiles::AccumulatePV<A, kChunks>(sm, s, st.acc);
  }
  attn_tiles::StoreRows<A, kChunks>(s, b, out, [&](int i, int e) {
    return st.l[i] > 0 ? static_cast<float>(st.acc[i][e] / st.l[i]) : 0.f;
  });
  if (lse == nullptr || threadIdx.x % kSide != 0) return;
#pragma unroll
  for (int i = 0; i < kRm; ++i) {
    const int64_t row = b.row0 + threadIdx.x / kSide + kSide * i;
    if (row < s.seq_q) {
      lse[b.bh * s.seq_q + row] =
          st.l[i] > 0 ? static_cast<float>(st.m[i] + Log(st.l[i])) : -INFINITY;
    }
  }
}

template <typename T, typename A, int kChunks>
__global__ void __launch_bounds__(kThreads)
    AttentionReferenceKernel(AttnShape s, const T* q, const T* k, const T* v, float* out,
                             float* lse) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const TileSmem<A> sm(smem_raw, s);
  for (int64_t w = blockIdx.x; w < s.work; w += gridDim.x) {
    __syncthreads();  // the previous work item is done with Q
    ReferenceRowBlock<T, A, kChunks>(sm, s, attn_tiles::RowBlockOf<A>(s, w), q, k, v, out, lse);
  }
}

// The baseline's scores as the naive implementation stores them: S = Q·Kᵀ·scale in fp32, rounded
// to T except for E4M3 (BaselineRules); -inf for keys the row does not see.
template <typename T>
struct BaselineTile {
  static constexpr int kRm = TileShape<float>::kRm, kRn = TileShape<float>::kRn;
  float score[kRm][kRn];
  __device__ BaselineTile(const TileSmem<float>& sm, const AttnShape& s,
                          const ThreadRows<float>& rows, int64_t start) {
    float dots[kRm][kRn];
    attn_tiles::TileDots(sm, s, dots);
    const float scale = static_cast<float>(s.scale);
#pragma unroll
    for (int i = 0; i < kRm; ++i) {
#pragma unroll
      for (int j = 0; j < kRn; ++j) {
        score[i][j] =
            rows.Sees(i, start, j) ? BaselineRules<T>::Score(dots[i][j] * scale) : -INFINITY;
      }
    }
  }
};

// One pass of the baseline over the keys of a row block: pass 0 the rows' max of S, pass 1 the
// fp32 sum of exp(S - max), pass 2 P as BaselineRules stores it (exp(S - max) / sum rounded to T;
// E4M3: exp(S - max) rounded to E4M3), and O += P·V in fp32.
template <typename T, int kChunks>
__device__ void BaselinePass(const TileSmem<float>& sm, const AttnShape& s, const RowBlock& b,
                             const ThreadRows<float>& rows, int pass, const T* k, const T* v,
                             OnlineRows<float, kChunks>& st) {
  constexpr int kRm = TileShape<float>::kRm, kRn = TileShape<float>::kRn;
  const int ty = threadIdx.x / kSide, tx = threadIdx.x % kSide;
  for (int64_t start = 0; start < b.key_end; start += TileSmem<float>::kKeys) {
    __syncthreads();  // Q staged; the previous tile is done with kv and p
    attn_tiles::StageRows<TileSmem<float>::kKeys>(sm.kv, s, k, b.bh, s.seq_k, start);
    __syncthreads();
    const BaselineTile<T> tile(sm, s, rows, start);
#pragma unroll
    for (int i = 0; i < kRm; ++i) {
      float x = pass == 0 ? -INFINITY : 0.f;
#pragma unroll
      for (int j = 0; j < kRn; ++j) {
        const bool in = rows.Sees(i, start, j);
        if (pass == 0) {
          x = fmaxf(x, tile.score[i][j]);
        } else if (pass == 1) {
          x += in ? expf(tile.score[i][j] - st.m[i]) : 0.f;
        } else {
          sm.p[(ty + kSide * i) * TileSmem<float>::kPLd + tx + kSide * j] =
              in ? BaselineRules<T>::P(expf(tile.score[i][j] - st.m[i]), st.l[i]) : 0.f;
        }
      }
      if (pass == 0) st.m[i] = fmaxf(st.m[i], attn_tiles::RowMax(x));
      if (pass == 1) st.l[i] += attn_tiles::RowSum(x);
    }
    if (pass < 2) continue;
    __syncthreads();  // every K read done, P complete
    attn_tiles::StageRows<TileSmem<float>::kKeys>(sm.kv, s, v, b.bh, s.seq_k, start);
    __syncthreads();
    attn_tiles::AccumulatePV<float, kChunks>(sm, s, st.acc);
  }
}

// Three passes over the keys, each score recomputed as the naive implementation stores it; O
// rounded to the output type at the end (BaselineRules::Output; zero for rows that see no key).
template <typename T, int kChunks>
__global__ void __launch_bounds__(kThreads)
    AttentionBaselineKernel(AttnShape s, const T* q, const T* k, const T* v, float* out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const TileSmem<float> sm(smem_raw, s);
  for (int64_t w = blockIdx.x; w < s.work; w += gridDim.x) {
    const RowBlock b = attn_tiles::RowBlockOf<float>(s, w);
    const ThreadRows<float> rows(s, b);
    OnlineRows<float, kChunks> st;
    __syncthreads();  // the previous work item is done with Q
    attn_tiles::StageRows<TileSmem<float>::kRows>(sm.q, s, q, b.bh, s.seq_q, b.row0);
    for (int pass = 0; pass < 3; ++pass) BaselinePass<T, kChunks>(sm, s, b, rows, pass, k, v, st);
    attn_tiles::StoreRows<float, kChunks>(s, b, out, [&](int i, int e) {
      return rows.key_end[i] > 0 ? BaselineRules<T>::Output(st.acc[i][e], st.l[i]) : 0.f;
    });
  }
}

template <typename A>
cudaError_t MakeShape(const AttentionProblem& p, AttnShape* s) {
  if (p.batch <= 0 || p.heads <= 0 || p.seq_q <= 0 || p.seq_k <= 0 || p.head_dim <= 0 ||
      p.head_dim > kReferenceMaxHeadDim) {
    return cudaErrorInvalidValue;
  }
  constexpr int kRows = TileSmem<A>::kRows;
  s->row_blocks = (p.seq_q + kRows - 1) / kRows;
  s->work = p.batch * p.heads * s->row_blocks;
  s->seq_q = p.seq_q;
  s->seq_k = p.seq_k;
  s->d = static_cast<int>(p.head_dim);
  s->d4 = (s->d + 3) / 4 * 4;
  s->ld = s->d4 % 8 == 4 ? s->d4 : s->d4 + 4;  // ≡ 4 (mod 8): see the tiles' header
  s->causal = p.causal;
  s->scale = 1.0 / std::sqrt(static_cast<double>(p.head_dim));
  return cudaSuccess;
}

// Launches kernel(shape, args...) over min(work items, one grid's x limit) blocks of kThreads with
// the tiles' dynamic shared memory (opted into above the 48 KiB default).
template <typename A, typename Kernel, typename... Args>
cudaError_t LaunchTiles(Kernel kernel, const AttnShape& s, cudaStream_t stream, Args... args) {
  const size_t smem = TileSmem<A>::Bytes(s);
  if (smem > 48 * 1024) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(smem));
    if (e != cudaSuccess) return e;
  }
  constexpr int64_t kMaxGridX = 0x7FFFFFFF;
  const int64_t blocks = s.work < kMaxGridX ? s.work : kMaxGridX;
  kernel<<<static_cast<unsigned>(blocks), kThreads, smem, stream>>>(s, args...);
  return cudaGetLastError();
}

// Calls fn(std::integral_constant<int, kChunks>) with the fewest 64-dim chunks per thread that
// cover head dim d (1, 2 or 4), so small heads keep few accumulators.
template <class Fn>
cudaError_t WithDimChunks(int d, Fn&& fn) {
  if (d <= 64) return fn(std::integral_constant<int, 1>{});
  if (d <= 128) return fn(std::integral_constant<int, 2>{});
  return fn(std::integral_constant<int, 4>{});
}

template <typename T, typename A>
cudaError_t LaunchReference(const AttentionProblem& p, const void* q, const void* k, const void* v,
                            float* out, float* lse, cudaStream_t stream) {
  AttnShape s;
  if (cudaError_t e = MakeShape<A>(p, &s); e != cudaSuccess) return e;
  return WithDimChunks(s.d, [&](auto chunks) {
    return LaunchTiles<A>(AttentionReferenceKernel<T, A, decltype(chunks)::value>, s, stream,
                          static_cast<const T*>(q), static_cast<const T*>(k),
                          static_cast<const T*>(v), out, lse);
  });
}

template <typename T>
cudaError_t LaunchBaseline(const AttentionProblem& p, const void* q, const void* k, const void* v,
                           float* out, cudaStream_t stream) {
  AttnShape s;
  if (cudaError_t e = MakeShape<float>(p, &s); e != cudaSuccess) return e;
  return WithDimChunks(s.d, [&](auto chunks) {
    return LaunchTiles<float>(AttentionBaselineKernel<T, decltype(chunks)::value>, s, stream,
                              static_cast<const T*>(q), static_cast<const T*>(k),
                              static_cast<const T*>(v), out);
  });
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
