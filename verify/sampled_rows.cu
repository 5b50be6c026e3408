// The sampled-row and sampled-entry checks (sampled_rows.h). Attention: one block per sampled
// row; the block walks the row's keys in tiles staged in shared memory with coalesced loads
// (thread t scores key j0 + t), keeps an online softmax in fp64, and thread d accumulates P·V for
// head dim d; where the row crossed the verified bound, the same row of the same-precision
// baseline follows, whose error sets this draw's bound (sampled_verdict.h). Gemm: one warp per
// sampled entry, lanes splitting k, lane 0 the baseline where needed. Each block adds its counts
// with atomics.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>

#include "common/element_convert.cuh"
#include "verify/baseline_rules.cuh"
#include "verify/element_bits.cuh"
#include "verify/element_dispatch.cuh"
#include "verify/gpu_reference.h"
#include "verify/sampled_rows.h"

namespace flashscope::verify {
namespace {

constexpr int kThreads = 256;  // >= kReferenceMaxHeadDim: one thread per head dim
static_assert(kThreads >= kReferenceMaxHeadDim, "one thread per head dim");
constexpr int kGemmWarps = 8;

// One output element against its reference: 1 when bad. Updates the per-thread tallies.
template <typename T>
__device__ int JudgeElement(const T* out, int64_t index, double ref, const SampledBound& b,
                            unsigned long long* never, unsigned long long* nonfinite,
                            float* max_abs) {
  const typename ElementBits<T>::Type bits =
      reinterpret_cast<const typename ElementBits<T>::Type*>(out)[index];
  if (bits == ElementBits<T>::kPoison) {
    ++*never;
    return 1;
  }
  const double v = ToFloat<T>(out[index]);
  if (!isfinite(v)) {
    ++*nonfinite;
    return 1;
  }
  const double err = fabs(v - ref);
  *max_abs = fmaxf(*max_abs, static_cast<float>(err));
  const double limit = b.absolute ? b.max_abs : b.atol + b.rtol * fabs(ref);
  return err > limit ? 1 : 0;
}

// The kernel's lse of one row against the row's reference lse: 1 when bad.
__device__ int JudgeLse(const float* lse, int64_t index, double ref, const SampledBound& b) {
  const unsigned int bits = reinterpret_cast<const unsigned int*>(lse)[index];
  if (bits == 0xFFFFFFFFu) return 1;  // never written
  const double l = lse[index];
  if (!isfinite(l) || !isfinite(ref)) return (isinf(l) && l == ref) ? 0 : 1;
  return fabs(l - ref) > b.lse_atol + b.lse_rtol * fabs(ref) ? 1 : 0;
}

__device__ void AddCounts(SampledCheckCounts* c, unsigned long long elements,
                          unsigned long long bad, unsigned long long never,
                          unsigned long long nonfinite, unsigned long long lse_bad, bool row_bad,
                          float max_abs, float baseline_max) {
  atomicAdd(&c->rows, 1ull);
  atomicAdd(&c->elements, elements);
  if (bad) atomicAdd(&c->bad, bad);
  if (never) atomicAdd(&c->never_written, never);
  if (nonfinite) atomicAdd(&c->nonfinite, nonfinite);
  if (lse_bad) atomicAdd(&c->lse_bad, lse_bad);
  if (row_bad) atomicAdd(&c->bad_rows, 1ull);
  atomicMax(&c->max_abs_bits, __float_as_uint(max_abs));  // both >= 0: bits order
  atomicMax(&c->baseline_max_bits, __float_as_uint(baseline_max));
}

struct RowShape {
  int64_t rows;  // B·H·Sq
  int64_t seq_q, seq_k;
  int d;
  bool causal;
  double scale;
  int k_ld;  // staged K row stride: an odd number of 32-bit words, so that the threads scoring
             // different keys read different shared-memory banks
  int keys_per_tile;  // keys staged at a time: min(kThreads, kTileBytes / (elements · k_ld))
};

// Shared memory for one tile of K (keys contiguous in K: staged with coalesced loads).
constexpr int kTileBytes = 32768;

// Stages keys [j0, j0 + n) of head `bh` into `tile` (row stride s.k_ld).
template <typename T>
__device__ void StageKeys(T* tile, const RowShape& s, const T* k, int64_t bh, int64_t j0, int n) {
  __syncthreads();  // the previous tile is consumed
  const T* src = k + (bh * s.seq_k + j0) * s.d;
  for (int idx = threadIdx.x; idx < n * s.d; idx += kThreads) {
    tile[(idx / s.d) * s.k_ld + idx % s.d] = src[idx];
  }
  __syncthreads();
}

// Block-wide max or sum of `x` over the block's threads, through `red` (kThreads doubles).
__device__ double BlockReduce(double* red, double x, bool max) {
  const int t = threadIdx.x;
  __syncthreads();  // red is free
  red[t] = x;
  __syncthreads();
  for (int o = kThreads / 2; o > 0; o /= 2) {
    if (t < o) red[t] = max ? fmax(red[t], red[t + o]) : red[t] + red[t + o];
    __syncthreads();
  }
  return red[0];
}

// Thread d's element of the row's reference, in fp64 with an online softmax over tiles of
// keys staged in shared memory (thread t scores key j0 + t); `*lse` its log-sum-exp (-inf
// without keys).
template <typename T>
__device__ double ReferenceRowElement(const RowShape& s, const double* qrow, const T* k, const T* v,
                                      int64_t bh, int64_t key_end, T* tile, double* red, double* p,
                                      double* lse) {
  const int t = threadIdx.x;
  double m = -INFINITY, l = 0, acc = 0;
  for (int64_t j0 = 0; j0 < key_end; j0 += s.keys_per_tile) {
    const int n = static_cast<int>(key_end - j0 < s.keys_per_tile ? key_end - j0 : s.keys_per_tile);
    StageKeys(tile, s, k, bh, j0, n);
    double score = -INFINITY;
    if (t < n) {
      const T* krow = tile + t * s.k_ld;
      double dot = 0;
      for (int dd = 0; dd < s.d; ++dd) dot += qrow[dd] * static_cast<double>(ToFloat<T>(krow[dd]));
      score = dot * s.scale;
    }
    const double m_new = fmax(m, BlockReduce(red, score, true));  // finite: key j0 is in
    const double alpha = exp(m - m_new);                          // exp(-inf) = 0 at first
    __syncthreads();                                              // p is free
    p[t] = t < n ? exp(score - m_new) : 0.0;
    __syncthreads();
    double psum = 0, pv = 0;
    for (int u = 0; u < n; ++u) {
      psum += p[u];
      if (t < s.d) {
        pv += p[u] * static_cast<double>(ToFloat<T>(v[(bh * s.seq_k + j0 + u) * s.d + t]));
      }
    }
    l = l * alpha + psum;
    acc = acc * alpha + pv;
    m = m_new;
  }
  *lse = l > 0 ? m + log(l) : -INFINITY;
  return l > 0 ? acc / l : 0.0;
}

// Thread d's element of the row's same-precision baseline (gpu_reference.h,
// AttentionSamePrecisionBaselineGpu; what is rounded where: BaselineRules<T>): S = Q·Kᵀ·scale
// accumulated in fp32, its max, the fp32 sum of exp(S - max), P as stored, O = P·V in fp32
// rounded to the output type. Three passes over the row's keys, each score recomputed as the
// naive implementation stores it.
template <typename T>
__device__ float BaselineRowElement(const RowShape& s, const float* qf, const T* k, const T* v,
                                    int64_t bh, int64_t key_end, T* tile, double* red, double* p) {
  const int t = threadIdx.x;
  float m = -INFINITY, l = 0.f, acc = 0.f;
  for (int pass = 0; pass < 3; ++pass) {
    for (int64_t j0 = 0; j0 < key_end; j0 += s.keys_per_tile) {
      const int n =
          static_cast<int>(key_end - j0 < s.keys_per_tile ? key_end - j0 : s.keys_per_tile);
      StageKeys(tile, s, k, bh, j0, n);
      const bool in = t < n;
      float score = -INFINITY;
      if (in) {
        const T* krow = tile + t * s.k_ld;
        float dot = 0.f;
        for (int dd = 0; dd < s.d; ++dd) dot += qf[dd] * ToFloat<T>(krow[dd]);
        score = BaselineRules<T>::Score(dot * static_cast<float>(s.scale));
      }
      if (pass == 0) {
        m = fmaxf(m, static_cast<float>(BlockReduce(red, score, true)));
      } else if (pass == 1) {
        l += static_cast<float>(BlockReduce(red, in ? expf(score - m) : 0.f, false));
      } else {
        __syncthreads();  // p is free
        p[t] = in ? BaselineRules<T>::P(expf(score - m), l) : 0.f;
        __syncthreads();
        if (t < s.d) {
          for (int u = 0; u < n; ++u) {
            acc += static_cast<float>(p[u]) * ToFloat<T>(v[(bh * s.seq_k + j0 + u) * s.d + t]);
          }
        }
      }
    }
  }
  return key_end > 0 ? BaselineRules<T>::Output(acc, l) : 0.f;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    AttentionRowCheckKernel(RowShape s, const T* q, const T* k, const T* v,
                            const typename BaselineRules<T>::Out* out, const float* lse,
                            uint64_t seed, SampledBound bound, SampledCheckCounts* counts) {
  __shared__ double qrow[kThreads];
  __shared__ float qf[kThreads];
  __shared__ double p[kThreads];
  __shared__ double red[kThreads];
  __shared__ unsigned long long tally[4];  // bad, never, nonfinite, lse_bad
  __shared__ unsigned int max_abs_bits, baseline_max_bits;
  __shared__ __align__(16) unsigned char tile_raw[kTileBytes];
  T* tile = reinterpret_cast<T*>(tile_raw);
  const int t = threadIdx.x;
  const int64_t row = static_cast<int64_t>(SampledIndex(seed, blockIdx.x, s.rows));
  const int64_t bh = row / s.seq_q, i = row % s.seq_q;
  int64_t key_end = s.seq_k;
  if (s.causal) {
    key_end = i + (s.seq_k - s.seq_q) + 1;
    key_end = key_end < 0 ? 0 : (key_end > s.seq_k ? s.seq_k : key_end);
  }
  if (t < s.d) qrow[t] = qf[t] = ToFloat<T>(q[row * s.d + t]);
  if (t < 4) tally[t] = 0;
  if (t == 0) max_abs_bits = baseline_max_bits = 0;
  __syncthreads();
  double ref_lse = 0;
  const double ref = ReferenceRowElement<T>(s, qrow, k, v, bh, key_end, tile, red, p, &ref_lse);
  if (t < s.d) {
    unsigned long long never = 0, nonfinite = 0;
    float max_abs = 0.f;
    if (JudgeElement(out, row * s.d + t, ref, bound, &never, &nonfinite, &max_abs)) {
      atomicAdd(&tally[0], 1ull);
    }
    if (never) atomicAdd(&tally[1], never);
    if (nonfinite) atomicAdd(&tally[2], nonfinite);
    atomicMax(&max_abs_bits, __float_as_uint(max_abs));
  }
  __syncthreads();
  // The row's baseline is needed only where the verified launch's bound was crossed by finite,
  // written elements (sampled_verdict.h); elsewhere that bound already passed the row.
  if (tally[0] > 0 && tally[1] == 0 && tally[2] == 0) {  // block-uniform
    const float base = BaselineRowElement<T>(s, qf, k, v, bh, key_end, tile, red, p);
    if (t < s.d) {
      const float base_err = static_cast<float>(fabs(static_cast<double>(base) - ref));
      atomicMax(&baseline_max_bits, __float_as_uint(base_err));
    }
  }
  if (t == 0 && lse != nullptr && JudgeLse(lse, row, ref_lse, bound)) atomicAdd(&tally[3], 1ull);
  __syncthreads();
  if (t == 0) {
    AddCounts(counts, static_cast<unsigned long long>(s.d), tally[0], tally[1], tally[2], tally[3],
              tally[0] + tally[3] > 0, __uint_as_float(max_abs_bits),
              __uint_as_float(baseline_max_bits));
  }
}

// The entry's gemm baseline (gpu_reference.h), serially over k: for fp32 inputs the in-order
// fp32 sum; for fp16/bf16/e4m3 a tensor core's accumulation (BaselineRules<T>: each chunk of
// kChunk consecutive k summed exactly in fp64, added to the accumulator with truncation).
template <typename T>
__device__ float GemmBaselineEntry(const T* a, const T* b, int64_t kdim, int64_t n, int64_t r,
                                   int64_t col) {
  float acc = 0.f;
  if constexpr (sizeof(T) == 4) {
#pragma unroll 8
    for (int64_t kk = 0; kk < kdim; ++kk) {
      acc += ToFloat<T>(a[r * kdim + kk]) * ToFloat<T>(b[kk * n + col]);
    }
  } else {
    constexpr int kChunk = BaselineRules<T>::kChunk;
    for (int64_t k0 = 0; k0 < kdim; k0 += kChunk) {
      double chunk = 0;
#pragma unroll
      for (int64_t kk = k0; kk < k0 + kChunk && kk < kdim; ++kk) {
        chunk =
            __dadd_rn(chunk, __dmul_rn(ToFloat<T>(a[r * kdim + kk]), ToFloat<T>(b[kk * n + col])));
      }
      acc = BaselineRules<T>::Accumulate(acc, chunk);
    }
  }
  return acc;
}

template <typename T>
__global__ void __launch_bounds__(kGemmWarps * 32)
    GemmEntryCheckKernel(int64_t m, int64_t n, int64_t kdim, const T* a, const T* b, const float* c,
                         int entries, uint64_t seed, SampledBound bound,
                         SampledCheckCounts* counts) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int sample = blockIdx.x * kGemmWarps + warp;
  if (sample >= entries) return;  // warp-uniform
  const int64_t entry = static_cast<int64_t>(SampledIndex(seed, sample, m * n));
  const int64_t r = entry / n, col = entry % n;
  double sum = 0;
  for (int64_t kk = lane; kk < kdim; kk += 32) {
    sum += static_cast<double>(ToFloat<T>(a[r * kdim + kk])) *
           static_cast<double>(ToFloat<T>(b[kk * n + col]));
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  if (lane != 0) return;
  unsigned long long never = 0, nonfinite = 0;
  float max_abs = 0.f;
  const int bad = JudgeElement(c, entry, sum, bound, &never, &nonfinite, &max_abs);
  // The entry's baseline only where the verified launch's bound was crossed (sampled_verdict.h).
  float base_err = 0.f;
  if (bad && never == 0 && nonfinite == 0) {
    base_err = static_cast<float>(
        fabs(static_cast<double>(GemmBaselineEntry(a, b, kdim, n, r, col)) - sum));
  }
  AddCounts(counts, 1, bad, never, nonfinite, 0, bad != 0, max_abs, base_err);
}

template <typename T>
cudaError_t LaunchRows(const AttentionProblem& p, const void* q, const void* k, const void* v,
                       const void* out, const float* lse, int rows, uint64_t seed,
                       const SampledBound& bound, SampledCheckCounts* counts, cudaStream_t stream) {
  RowShape s{p.batch * p.heads * p.seq_q,
             p.seq_q,
             p.seq_k,
             static_cast<int>(p.head_dim),
             p.causal,
             1.0 / std::sqrt(static_cast<double>(p.head_dim)),
             0,
             0};
  constexpr int kPerWord = 4 / static_cast<int>(sizeof(T));  // elements per 32-bit word
  int words = (s.d + kPerWord - 1) / kPerWord;
  if (words % 2 == 0) ++words;
  s.k_ld = words * kPerWord;
  const int fit = kTileBytes / static_cast<int>(sizeof(T)) / s.k_ld;
  s.keys_per_tile = fit < kThreads ? fit : kThreads;
  AttentionRowCheckKernel<T><<<rows, kThreads, 0, stream>>>(
      s, static_cast<const T*>(q), static_cast<const T*>(k), static_cast<const T*>(v),
      static_cast<const typename BaselineRules<T>::Out*>(out), lse, seed, bound, counts);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchEntries(const GemmProblem& p, const void* a, const void* b, const float* c,
                          int entries, uint64_t seed, const SampledBound& bound,
                          SampledCheckCounts* counts, cudaStream_t stream) {
  const int blocks = (entries + kGemmWarps - 1) / kGemmWarps;
  GemmEntryCheckKernel<T><<<blocks, kGemmWarps * 32, 0, stream>>>(
      p.m, p.n, p.k, static_cast<const T*>(a), static_cast<const T*>(b), c, entries, seed, bound,
      counts);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchAttentionRowCheck(const AttentionProblem& p, const void* q, const void* k,
                                    const void* v, const void* out, const float* lse, int rows,
                                    uint64_t seed, const SampledBound& bound,
                                    SampledCheckCounts* counts, cudaStream_t stream) {
  if (rows < 1 || p.head_dim < 1 || p.head_dim > kReferenceMaxHeadDim || p.batch < 1 ||
      p.heads < 1 || p.seq_q < 1 || p.seq_k < 1) {
    return cudaErrorInvalidValue;
  }
  if (cudaError_t e = cudaMemsetAsync(counts, 0, sizeof(SampledCheckCounts), stream);
      e != cudaSuccess) {
    return e;
  }
  return WithElementType(p.dtype, [&](auto element) {
    return LaunchRows<decltype(element)>(p, q, k, v, out, lse, rows, seed, bound, counts, stream);
  });
}

cudaError_t LaunchGemmEntryCheck(const GemmProblem& p, const void* a, const void* b, const float* c,
                                 int entries, uint64_t seed, const SampledBound& bound,
                                 SampledCheckCounts* counts, cudaStream_t stream) {
  if (entries < 1 || p.m < 1 || p.n < 1 || p.k < 1) return cudaErrorInvalidValue;
  if (cudaError_t e = cudaMemsetAsync(counts, 0, sizeof(SampledCheckCounts), stream);
      e != cudaSuccess) {
    return e;
  }
  return WithElementType(p.dtype, [&](auto element) {
    return LaunchEntries<decltype(element)>(p, a, b, c, entries, seed, bound, counts, stream);
  });
}

}  // namespace flashscope::verify
