// attention_fwd rung 3: tensor cores through WMMA fragments for Q·Kᵀ and P·V.
//
// Intent: move the two matrix products onto the tensor cores. A block of 4 warps takes 64 query
// rows (16 per warp) and walks the keys in tiles of 64. Per tile each warp computes its 16×64
// slice of S = Q·Kᵀ with nvcuda::wmma 16×16×16 fragments (fp16/bf16 in, fp32 accumulate) and
// stores it to shared memory; the online softmax then runs row by row (a warp per row, two columns
// per lane, shuffle reductions), writes P in the input dtype and rescales the FP32 output rows in
// shared memory; finally P·V goes through WMMA again, accumulating into the output rows loaded
// from and stored back to shared memory.
// Changed vs a02: tensor-core WMMA for both products instead of FP32 FMAs; S, P and the output
// accumulator pass through shared memory because a WMMA accumulator's element layout is opaque, so
// the per-row softmax cannot touch it in registers (a05 fixes this with mma.sync). Element loads
// into shared memory are still 2 bytes per thread (a04 widens them).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include <string>
#include <vector>

#include "kernels/attention/attention_common.cuh"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

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
  static_assert(kK % 32 == 0 && kV % 32 == 0 && kS % 32 == 0 && kP % 32 == 0 && kO % 32 == 0,
                "WMMA needs 32-byte aligned fragment pointers");
};

// Copies `rows` × D elements (row stride D in global) into a tile with row stride `ld`,
// zero-filling rows past `valid_rows` so that padded keys contribute nothing (and V never feeds
// garbage or NaN into P·V).
template <typename T, int D>
__device__ void LoadTile(T* dst, int ld, const T* src, int rows, int valid_rows) {
  const T zero = FromFloat<T>(0.f);
  for (int idx = threadIdx.x; idx < rows * D; idx += kThreads) {
    const int r = idx / D;
    const int c = idx % D;
    dst[r * ld + c] = r < valid_rows ? src[static_cast<long long>(r) * D + c] : zero;
  }
}

template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    A03WmmaKernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                  T* __restrict__ o, float* __restrict__ lse, int heads, int seq_q, int seq_k,
                  bool causal, float scale) {
  using L = Smem<T, D>;
  extern __shared__ __align__(128) unsigned char smem[];
  T* q_s = reinterpret_cast<T*>(smem + L::kQ);
  T* k_s = reinterpret_cast<T*>(smem + L::kK);
  T* v_s = reinterpret_cast<T*>(smem + L::kV);
  float* s_s = reinterpret_cast<float*>(smem + L::kS);
  T* p_s = reinterpret_cast<T*>(smem + L::kP);
  float* o_s = reinterpret_cast<float*>(smem + L::kO);
  float* row_max = reinterpret_cast<float*>(smem + L::kRowMax);
  float* row_sum = reinterpret_cast<float*>(smem + L::kRowSum);

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int m0 = blockIdx.x * kBlockM;
  const long long bh = static_cast<long long>(blockIdx.z) * heads + blockIdx.y;
  const T* k_head = k + bh * seq_k * D;
  const T* v_head = v + bh * seq_k * D;

  LoadTile<T, D>(q_s, L::kLdIn, q + (bh * seq_q + m0) * D, kBlockM, min(kBlockM, seq_q - m0));
  for (int idx = threadIdx.x; idx < kBlockM * D; idx += kThreads) {
    o_s[(idx / D) * L::kLdO + idx % D] = 0.f;
  }
  for (int r = threadIdx.x; r < kBlockM; r += kThreads) {
    row_max[r] = -INFINITY;
    row_sum[r] = 0.f;
  }
  const int last_row = min(m0 + kBlockM, seq_q) - 1;
  const int block_end = CausalKeyEndDev(last_row, seq_q, seq_k, causal);
  const int wr = warp * kFrag;  // this warp's first row in the block

  for (int n0 = 0; n0 < block_end; n0 += kBlockN) {
    __syncthreads();  // previous K/V tile consumed; Q and the accumulators initialised
    const int valid_keys = min(kBlockN, seq_k - n0);
    LoadTile<T, D>(k_s, L::kLdIn, k_head + static_cast<long long>(n0) * D, kBlockN, valid_keys);
    LoadTile<T, D>(v_s, L::kLdIn, v_head + static_cast<long long>(n0) * D, kBlockN, valid_keys);
    __syncthreads();

    // S[wr:wr+16, :] = Q[wr:wr+16, :] · K_tileᵀ. K is stored [key][d], i.e. Kᵀ column-major.
#pragma unroll
    for (int nb = 0; nb < kBlockN / kFrag; ++nb) {
      wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float> s_frag;
      wmma::fill_fragment(s_frag, 0.f);
#pragma unroll
      for (int kb = 0; kb < D / kFrag; ++kb) {
        wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, T, wmma::row_major> a_frag;
        wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, T, wmma::col_major> b_frag;
        wmma::load_matrix_sync(a_frag, q_s + wr * L::kLdIn + kb * kFrag, L::kLdIn);
        wmma::load_matrix_sync(b_frag, k_s + nb * kFrag * L::kLdIn + kb * kFrag, L::kLdIn);
        wmma::mma_sync(s_frag, a_frag, b_frag, s_frag);
      }
      wmma::store_matrix_sync(s_s + wr * L::kLdS + nb * kFrag, s_frag, L::kLdS,
                              wmma::mem_row_major);
    }
    __syncwarp();

    // Online softmax, one row at a time across the warp: lane owns columns lane and lane + 32.
    for (int rr = 0; rr < kFrag; ++rr) {
      const int r = wr + rr;
      const int i = m0 + r;
      const int row_end = i < seq_q ? CausalKeyEndDev(i, seq_q, seq_k, causal) : 0;
      const int c0 = lane, c1 = lane + 32;
      const float s0 = n0 + c0 < row_end ? s_s[r * L::kLdS + c0] * scale : -INFINITY;
      const float s1 = n0 + c1 < row_end ? s_s[r * L::kLdS + c1] * scale : -INFINITY;
      const float m_old = row_max[r];
      const float m_new = fmaxf(m_old, WarpMax(fmaxf(s0, s1)));
      float p0 = 0.f, p1 = 0.f, corr = 1.f;
      if (m_new != -INFINITY) {  // else no key seen yet: keep zeros, avoid e^(-inf - -inf)
        p0 = __expf(s0 - m_new);
        p1 = __expf(s1 - m_new);
        corr = __expf(m_old - m_new);
      }
      const float tile_sum = WarpSum(p0 + p1);
      p_s[r * L::kLdP + c0] = FromFloat<T>(p0);
      p_s[r * L::kLdP + c1] = FromFloat<T>(p1);
      for (int d = lane; d < D; d += 32) o_s[r * L::kLdO + d] *= corr;
      __syncwarp();  // every lane has read row_max[r] before lane 0 overwrites it
      if (lane == 0) {
        row_max[r] = m_new;
        row_sum[r] = row_sum[r] * corr + tile_sum;
      }
    }
    __syncwarp();

    // O[wr:wr+16, :] += P[wr:wr+16, :] · V_tile.
#pragma unroll
    for (int db = 0; db < D / kFrag; ++db) {
      wmma::fragment<wmma::accumulator, kFrag, kFrag, kFrag, float> o_frag;
      float* o_tile = o_s + wr * L::kLdO + db * kFrag;
      wmma::load_matrix_sync(o_frag, o_tile, L::kLdO, wmma::mem_row_major);
#pragma unroll
      for (int kb = 0; kb < kBlockN / kFrag; ++kb) {
        wmma::fragment<wmma::matrix_a, kFrag, kFrag, kFrag, T, wmma::row_major> a_frag;
        wmma::fragment<wmma::matrix_b, kFrag, kFrag, kFrag, T, wmma::row_major> b_frag;
        wmma::load_matrix_sync(a_frag, p_s + wr * L::kLdP + kb * kFrag, L::kLdP);
        wmma::load_matrix_sync(b_frag, v_s + kb * kFrag * L::kLdIn + db * kFrag, L::kLdIn);
        wmma::mma_sync(o_frag, a_frag, b_frag, o_frag);
      }
      wmma::store_matrix_sync(o_tile, o_frag, L::kLdO, wmma::mem_row_major);
    }
  }
  __syncthreads();  // also covers blocks that saw no key tile at all

  // Epilogue: O / l in the input dtype; rows that saw no key have l = 0 and write zeros, lse -inf.
  for (int idx = threadIdx.x; idx < kBlockM * D; idx += kThreads) {
    const int r = idx / D;
    const int c = idx % D;
    if (m0 + r >= seq_q) break;  // rows grow with idx
    const float l = row_sum[r];
    const float inv_l = l > 0.f ? 1.f / l : 0.f;
    o[(bh * seq_q + m0 + r) * D + c] = FromFloat<T>(o_s[r * L::kLdO + c] * inv_l);
  }
  if (lse != nullptr) {
    for (int r = threadIdx.x; r < kBlockM && m0 + r < seq_q; r += kThreads) {
      const float l = row_sum[r];
      lse[bh * seq_q + m0 + r] = l > 0.f ? row_max[r] + logf(l) : -INFINITY;
    }
  }
}

template <typename T, int D>
cudaError_t LaunchTyped(const AttentionProblem& p, const AttentionArgs& a, cudaStream_t stream) {
  const void* func = reinterpret_cast<const void*>(&A03WmmaKernel<T, D>);
  if (cudaError_t err = AllowDynamicSmem(func, Smem<T, D>::kBytes); err != cudaSuccess) return err;
  const dim3 grid(static_cast<unsigned>((p.seq_q + kBlockM - 1) / kBlockM),
                  static_cast<unsigned>(p.heads), static_cast<unsigned>(p.batch));
  A03WmmaKernel<T, D><<<grid, kThreads, Smem<T, D>::kBytes, stream>>>(
      static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v),
      static_cast<T*>(a.o), p.want_lse ? a.lse : nullptr, static_cast<int>(p.heads),
      static_cast<int>(p.seq_q), static_cast<int>(p.seq_k), p.causal, EffectiveSoftmaxScale(p, a));
  return LaunchResult();
}

template <typename T, int D>
DeviceFunction Describe() {
  return {reinterpret_cast<const void*>(&A03WmmaKernel<T, D>),
          std::string("a03_wmma<") + ElementName<T>() + "," + std::to_string(D) + ">", kThreads,
          Smem<T, D>::kBytes};
}

}  // namespace

KernelEntry MakeA03Wmma() {
  KernelEntry e;
  e.info.id = "attn.a03_wmma";
  e.info.family = Family::kAttentionFwd;
  e.info.revision = 3;
  e.info.title = "WMMA tensor cores for QK^T and PV, softmax through shared memory";
  e.info.changed =
      "both products on tensor cores via nvcuda::wmma 16x16x16 (fp32 accumulate); "
      "S, P and O round-trip through shared memory";
  e.info.min_sm = 80;
  e.info.tile = TileShape{kBlockM, kBlockN, kFrag, kThreads};
  e.attention_supports = [](const AttentionProblem& p) { return AttentionBasicSupport(p); };
  e.attention_launch = [](const AttentionProblem& p, const AttentionArgs& a, cudaStream_t s) {
    const bool f16 = p.dtype == DType::kF16;
    if (p.head_dim == 64) {
      return f16 ? LaunchTyped<__half, 64>(p, a, s) : LaunchTyped<__nv_bfloat16, 64>(p, a, s);
    }
    return f16 ? LaunchTyped<__half, 128>(p, a, s) : LaunchTyped<__nv_bfloat16, 128>(p, a, s);
  };
  e.device_functions = [](const Problem& prob) -> std::vector<DeviceFunction> {
    const auto* p = std::get_if<AttentionProblem>(&prob);
    if (p == nullptr || !AttentionBasicSupport(*p).empty()) return {};
    const bool f16 = p->dtype == DType::kF16;
    if (p->head_dim == 64) return {f16 ? Describe<__half, 64>() : Describe<__nv_bfloat16, 64>()};
    return {f16 ? Describe<__half, 128>() : Describe<__nv_bfloat16, 128>()};
  };
  return e;
}

}  // namespace flashscope::kernels
