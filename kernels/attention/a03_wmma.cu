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

#include <string>
#include <utility>
#include <vector>

#include "kernels/attention/attention_common.cuh"
#include "kernels/attention/attn_wmma_core.cuh"
#include "kernels/kernel_list.h"

namespace flashscope::kernels {
namespace {

using namespace attn_wmma;

template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    A03WmmaKernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v,
                  T* __restrict__ o, float* __restrict__ lse, int heads, int seq_q, int seq_k,
                  bool causal, float scale) {
  using L = Smem<T, D>;
  extern __shared__ __align__(128) unsigned char smem[];
  const Tiles<T, D> t(smem);

  const int m0 = blockIdx.x * kBlockM;
  const long long bh = static_cast<long long>(blockIdx.z) * heads + blockIdx.y;
  AttendAllKeyTiles(t, q, k, v, bh, m0, seq_q, seq_k, causal, scale,
                    [](T* dst, const T* src, int rows, int valid_rows) {
                      LoadTileElements<T, D>(dst, L::kLdIn, src, rows, valid_rows);
                    });

  // Epilogue: O / l in the input dtype; rows that saw no key have l = 0 and write zeros, lse -inf.
  for (int idx = threadIdx.x; idx < kBlockM * D; idx += kThreads) {
    const int r = idx / D;
    const int c = idx % D;
    if (m0 + r >= seq_q) break;  // rows grow with idx
    const float l = t.row_sum[r];
    const float inv_l = l > 0.f ? 1.f / l : 0.f;
    o[(bh * seq_q + m0 + r) * D + c] = FromFloat<T>(t.o_s[r * L::kLdO + c] * inv_l);
  }
  if (lse != nullptr) StoreLse(t, lse, bh, seq_q, m0);
}

struct A03Rung {
  template <typename T, int D>
  static cudaError_t Launch(ElementAndHeadDim<T, D>, const AttentionProblem& p,
                            const AttentionArgs& a, cudaStream_t stream) {
    return LaunchTiledRung<T>(&A03WmmaKernel<T, D>, kBlockM, kThreads, Smem<T, D>::kBytes, p, a,
                              stream);
  }
  template <typename T, int D>
  static DeviceFunction Describe(ElementAndHeadDim<T, D>) {
    return RungFunction<T, D>(&A03WmmaKernel<T, D>, "a03_wmma", kThreads, Smem<T, D>::kBytes);
  }
};

}  // namespace

KernelEntry MakeA03Wmma() {
  KernelInfo info;
  info.id = "attn.a03_wmma";
  info.revision = 3;
  info.title = "WMMA tensor cores for QK^T and PV, softmax through shared memory";
  info.changed =
      "both products on tensor cores via nvcuda::wmma 16x16x16 (fp32 accumulate); "
      "S, P and O round-trip through shared memory";
  info.tile = TileShape{kBlockM, kBlockN, kFrag, kThreads};
  return BasicRungEntry<A03Rung>(std::move(info));
}

}  // namespace flashscope::kernels
