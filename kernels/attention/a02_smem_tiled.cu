// attention_fwd rung 2: K/V tiles in shared memory, a block of query rows shares them.
//
// Intent: the tiled-matmul idea applied to attention. In a01 every query row read every K and V
// element from global memory on its own. Here a block of kBlockM query rows (one thread each)
// loads a tile of kBlockN keys of K and V into shared memory once, cooperatively and coalesced,
// and all rows of the block reuse it: global traffic for K/V drops by a factor of kBlockM.
// Changed vs a01: K/V tiles in shared memory (converted to FP32 once at load); the online softmax
// is updated once per tile (tile max, one rescale of the accumulator per tile) instead of once per
// key; causal blocks stop at the last key their last row may see. Still FP32 CUDA-core math.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>
#include <utility>
#include <vector>

#include "kernels/attention/attention_common.cuh"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

constexpr int kBlockM = 64;  // query rows per block, one thread each
constexpr int kBlockN = 32;  // keys per shared-memory tile

template <int D>
constexpr size_t SmemBytes() {
  // q_s [D][kBlockM] + k_s [kBlockN][D] + v_s [kBlockN][D], all FP32.
  return sizeof(float) * (static_cast<size_t>(D) * kBlockM + 2 * kBlockN * D);
}

template <typename T, int D>
__global__ void __launch_bounds__(kBlockM)
    A02SmemTiledKernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                       T* __restrict__ o, float* __restrict__ lse, int heads, int seq_q, int seq_k,
                       bool causal, float scale) {
  extern __shared__ __align__(16) float smem[];
  float* q_s = smem;               // transposed [D][kBlockM]: conflict-free per-thread reads
  float* k_s = q_s + D * kBlockM;  // [kBlockN][D]: every thread reads the same element (broadcast)
  float* v_s = k_s + kBlockN * D;  // [kBlockN][D]

  const int t = threadIdx.x;
  const int m0 = blockIdx.x * kBlockM;
  const long long bh = static_cast<long long>(blockIdx.z) * heads + blockIdx.y;
  const int i = m0 + t;
  const bool row_valid = i < seq_q;
  const long long q_row = bh * seq_q + i;
  const T* k_head = k + bh * seq_k * D;
  const T* v_head = v + bh * seq_k * D;

  for (int d = 0; d < D; ++d) {
    q_s[d * kBlockM + t] = row_valid ? ToFloat(q[q_row * D + d]) * scale : 0.f;
  }
  const int row_end = row_valid ? CausalKeyEndDev(i, seq_q, seq_k, causal) : 0;
  // Key ends grow with the row, so the block's last valid row sees the most keys.
  const int last_row = min(m0 + kBlockM, seq_q) - 1;
  const int block_end = CausalKeyEndDev(last_row, seq_q, seq_k, causal);

  float acc[D];
#pragma unroll
  for (int d = 0; d < D; ++d) acc[d] = 0.f;
  float m = -INFINITY;
  float l = 0.f;

  for (int n0 = 0; n0 < block_end; n0 += kBlockN) {
    __syncthreads();  // every thread is done with the previous tile
    for (int idx = t; idx < kBlockN * D; idx += kBlockM) {
      const int key = n0 + idx / D;
      const int d = idx % D;
      const bool in = key < seq_k;
      k_s[idx] = in ? ToFloat(k_head[static_cast<long long>(key) * D + d]) : 0.f;
      v_s[idx] = in ? ToFloat(v_head[static_cast<long long>(key) * D + d]) : 0.f;
    }
    __syncthreads();

    float s[kBlockN];
#pragma unroll
    for (int j = 0; j < kBlockN; ++j) s[j] = 0.f;
    for (int d = 0; d < D; ++d) {
      const float qd = q_s[d * kBlockM + t];
#pragma unroll
      for (int j = 0; j < kBlockN; ++j) s[j] = fmaf(qd, k_s[j * D + d], s[j]);
    }
    float tile_max = -INFINITY;
#pragma unroll
    for (int j = 0; j < kBlockN; ++j) {
      if (n0 + j >= row_end) s[j] = -INFINITY;  // causal mask and keys past seq_k
      tile_max = fmaxf(tile_max, s[j]);
    }
    const float m_new = fmaxf(m, tile_max);
    if (m_new == -INFINITY) continue;  // this row has seen no key yet; e^(-inf - -inf) is NaN
    const float corr = expf(m - m_new);
    float tile_sum = 0.f;
#pragma unroll
    for (int j = 0; j < kBlockN; ++j) {
      s[j] = expf(s[j] - m_new);
      tile_sum += s[j];
    }
    l = l * corr + tile_sum;
#pragma unroll
    for (int d = 0; d < D; ++d) {
      float a = acc[d] * corr;
#pragma unroll
      for (int j = 0; j < kBlockN; ++j) a = fmaf(s[j], v_s[j * D + d], a);
      acc[d] = a;
    }
    m = m_new;
  }

  if (!row_valid) return;
  const float inv_l = l > 0.f ? 1.f / l : 0.f;
  T* o_row = o + q_row * D;
#pragma unroll
  for (int d = 0; d < D; ++d) o_row[d] = FromFloat<T>(acc[d] * inv_l);
  if (lse != nullptr) lse[q_row] = l > 0.f ? m + logf(l) : -INFINITY;
}

struct A02Rung {
  template <typename T, int D>
  static cudaError_t Launch(ElementAndHeadDim<T, D>, const AttentionProblem& p,
                            const AttentionArgs& a, cudaStream_t stream) {
    return LaunchTiledRung<T>(&A02SmemTiledKernel<T, D>, kBlockM, kBlockM, SmemBytes<D>(), p, a,
                              stream);
  }
  template <typename T, int D>
  static DeviceFunction Describe(ElementAndHeadDim<T, D>) {
    return RungFunction<T, D>(&A02SmemTiledKernel<T, D>, "a02_smem_tiled", kBlockM, SmemBytes<D>());
  }
};

}  // namespace

KernelEntry MakeA02SmemTiled() {
  KernelInfo info;
  info.id = "attn.a02_smem_tiled";
  info.revision = 2;
  info.title = "K/V tiles in shared memory, 64 query rows per block";
  info.changed =
      "K/V tiles loaded once per block into shared memory and reused by 64 rows; "
      "softmax rescale once per 32-key tile";
  info.tile = TileShape{kBlockM, kBlockN, 1, kBlockM};
  return BasicRungEntry<A02Rung>(std::move(info));
}

}  // namespace flashscope::kernels
