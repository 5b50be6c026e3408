// attention_fwd rung 1: scalar FP32, one thread per query row, online softmax.
//
// Intent: the simplest correct flash-style forward pass, the baseline every later rung is
// measured against. Each thread owns one query row: it keeps the scaled row of Q (in shared
// memory, transposed so that a warp reads consecutive banks) and an FP32 output accumulator (in
// registers), streams the keys it may see one at a time straight from global memory, and keeps
// the running maximum m and sum l of the online softmax: for each key,
//   m' = max(m, s), o = o·e^(m−m') + e^(s−m')·v, l = l·e^(m−m') + e^(s−m').
// No tiling, no tensor cores: every K and V element is read from global memory (L1) once per
// query row. Changed vs previous: nothing, this is the first rung.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>
#include <utility>
#include <vector>

#include "kernels/attention/attention_common.cuh"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

constexpr int kThreads = 64;  // query rows per block

template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    A01ScalarKernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                    T* __restrict__ o, float* __restrict__ lse, int seq_q, int seq_k, bool causal,
                    float scale, long long rows) {
  // Transposed [D][kThreads]: at each d the warp reads 32 consecutive floats, no bank conflicts.
  __shared__ float q_s[D * kThreads];
  const int t = threadIdx.x;
  const long long r = static_cast<long long>(blockIdx.x) * kThreads + t;
  if (r >= rows) return;  // no block-wide synchronisation below: each thread uses its own column

  // Q and O are [B·H·Sq, D] when flattened, so the flattened row r is (b·H + h)·Sq + i.
  const long long bh = r / seq_q;
  const int i = static_cast<int>(r - bh * seq_q);
  const T* q_row = q + r * D;
  const T* k_head = k + bh * seq_k * D;
  const T* v_head = v + bh * seq_k * D;

  for (int d = 0; d < D; ++d) q_s[d * kThreads + t] = ToFloat(q_row[d]) * scale;

  float acc[D];
#pragma unroll
  for (int d = 0; d < D; ++d) acc[d] = 0.f;
  float m = -INFINITY;
  float l = 0.f;

  const int end = CausalKeyEndDev(i, seq_q, seq_k, causal);
  for (int j = 0; j < end; ++j) {
    const T* k_row = k_head + static_cast<long long>(j) * D;
    const T* v_row = v_head + static_cast<long long>(j) * D;
    float s = 0.f;
#pragma unroll
    for (int d = 0; d < D; ++d) s = fmaf(q_s[d * kThreads + t], ToFloat(k_row[d]), s);
    const float m_new = fmaxf(m, s);     // finite: s is finite
    const float corr = expf(m - m_new);  // e^(-inf) = 0 on the first key
    const float p = expf(s - m_new);
    l = l * corr + p;
#pragma unroll
    for (int d = 0; d < D; ++d) acc[d] = fmaf(p, ToFloat(v_row[d]), acc[d] * corr);
    m = m_new;
  }

  // A row that sees no key (causal, Sq > Sk) has l = 0: zeros and lse = -inf by contract.
  const float inv_l = l > 0.f ? 1.f / l : 0.f;
  T* o_row = o + r * D;
#pragma unroll
  for (int d = 0; d < D; ++d) o_row[d] = FromFloat<T>(acc[d] * inv_l);
  if (lse != nullptr) lse[r] = l > 0.f ? m + logf(l) : -INFINITY;
}

template <typename T, int D>
cudaError_t LaunchTyped(ElementAndHeadDim<T, D>, const AttentionProblem& p, const AttentionArgs& a,
                        long long rows, cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  const long long blocks = (rows + kThreads - 1) / kThreads;
  if (blocks > INT32_MAX) return cudaErrorInvalidConfiguration;
  A01ScalarKernel<T, D><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v),
      static_cast<T*>(a.o), p.want_lse ? a.lse : nullptr, static_cast<int>(p.seq_q),
      static_cast<int>(p.seq_k), p.causal, EffectiveSoftmaxScale(p, a), rows);
  return LaunchResult();
}

// The rung's hooks: every query row of the problem.
struct A01Rung {
  template <typename T, int D>
  static cudaError_t Launch(ElementAndHeadDim<T, D> instance, const AttentionProblem& p,
                            const AttentionArgs& a, cudaStream_t stream) {
    return LaunchTyped(instance, p, a, p.batch * p.heads * p.seq_q, stream);
  }
  template <typename T, int D>
  static DeviceFunction Describe(ElementAndHeadDim<T, D>) {
    return RungFunction<T, D>(&A01ScalarKernel<T, D>, "a01_scalar", kThreads, 0);
  }
};

}  // namespace

cudaError_t LaunchScalarAttentionRows(const AttentionProblem& p, const AttentionArgs& a,
                                      int64_t rows, cudaStream_t stream) {
  const long long all = p.batch * p.heads * p.seq_q;
  const long long n = rows < all ? rows : all;
  return WithElementAndHeadDim(
      p, [&](auto instance) { return LaunchTyped(instance, p, a, n, stream); });
}

KernelEntry MakeA01Scalar() {
  KernelInfo info;
  info.id = "attn.a01_scalar";
  info.revision = 1;
  info.title = "Scalar FP32, one thread per query row, online softmax";
  info.changed = "first rung: no tiling, no tensor cores; K/V read from global per query row";
  info.tile = TileShape{kThreads, 1, 1, kThreads};
  return BasicRungEntry<A01Rung>(std::move(info));
}

}  // namespace flashscope::kernels
