// The device side of a29_fp8_split_kv (kernels/hopper/a29_fp8_split_kv.cu has the design and the
// host side): a19's split-KV on a27's FP8 body. n_splits neighbouring CTAs share a query tile of
// 128 rows, each taking a contiguous, balanced share of its visible key tiles (absolute key
// indices, so the bottom-right causal mask is a27's), running a27's producer and serial consumers
// (Fp8Consumer<D, false, true>: the key tiles start at the share's kt0) and writing its
// normalised partial O and log-sum-exp in fp32 to the workspace; attn_sm90_combine.cuh's
// SplitKvCombineKernel<__nv_bfloat16, D> merges the shares into the BF16 O and the lse. With
// n_splits == 1 the kernel writes O and lse itself (a27's epilogue), and the host launches a27's
// own kernel instead anyway.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/hopper/attn_sm90_fp8.cuh"

namespace flashscope::kernels::attn_fp8 {

// A share's O / l and log-sum-exp in fp32, straight from the registers (a quad writes 32
// contiguous bytes of a row per n8 block) to part_o [split][bh][seq_q][D] and part_lse
// [split][bh][seq_q]. Rows of the share that saw no key (a warpgroup past the causal diagonal of
// its share, or rows whose keys all lie in other shares) have l = 0: O = 0 and lse = -inf, which
// the combine weighs 0. Rows past seq_q are not written.
template <int D>
__device__ __forceinline__ void Fp8EpiloguePartial(Fp8Consumer<D, false, true>& c) {
  float lse[2];
  c.st.Finalize(nullptr, lse);
  const Params& p = c.p;
  const int64_t slab = (int64_t(c.split) * p.bh_count + c.bh) * p.seq_q;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = c.row_lo + c.g + 8 * h;
    if (row >= p.seq_q) continue;
    float* const dst = p.part_o + (slab + row) * D + 2 * c.t;
#pragma unroll
    for (int dt = 0; dt < D / 8; ++dt) {
      *reinterpret_cast<float2*>(dst + dt * 8) =
          make_float2(c.st.o[dt][2 * h], c.st.o[dt][2 * h + 1]);
    }
    if (c.t == 0) p.part_lse[slab + row] = lse[h];
  }
}

// a29_fp8_split_kv: the split kernel (Fp8KernelBody with kSplit; blockIdx.x = (bh · n_m_blocks +
// tile) · n_splits + split: a tile's shares are neighbours, their Q reads meet in L2).
template <int D>
__global__ void __launch_bounds__(Fp8Config<D>::kThreads, 1)
    AttnSm90Fp8SplitKernel(const __grid_constant__ CUtensorMap tm_q,
                           const __grid_constant__ CUtensorMap tm_k,
                           const __grid_constant__ CUtensorMap tm_vt, const Params p) {
  Fp8KernelBody<D, false, true>(tm_q, tm_k, tm_vt, p);
}

}  // namespace flashscope::kernels::attn_fp8
