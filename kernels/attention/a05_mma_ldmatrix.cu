// a05_mma_ldmatrix — intent: the first PTX tensor-core rung. Q·Kᵀ and P·V on
// mma.sync.m16n8k16 (fp16/bf16 in, fp32 accumulate) with operands loaded by ldmatrix (K) and
// ldmatrix.trans (V), so every thread knows which elements it holds (kernels/ptx.cuh).
// Changed vs a04 (WMMA, vectorised loads): explicit PTX fragments. Still like a04 in every other
// way: 64 query rows / 4 warps, K/V tiles of 64 keys loaded synchronously with 16-byte loads into
// padded shared memory, S written to shared memory and the softmax done there (two lanes per row),
// P written back as 16-bit and reloaded by ldmatrix as the A operand; two-step rescaling
// (exp against the tile max, corrected by exp(tile_max - new_max)).
// Prediction: modestly faster than a04 (seed v7: +28% over v6) — fewer fragment shuffles, but the
// S/P shared-memory round trip and __syncthreads-bound loads keep the tensor pipe under ~20%.
#include "kernels/attention/attn_mma_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA05MmaLdmatrix() {
  using namespace attn_mma;
  KernelInfo info;
  info.id = "attn.a05_mma_ldmatrix";
  info.revision = 5;
  info.title = "PTX mma.sync m16n8k16 + ldmatrix(.trans), softmax through shared memory";
  info.changed =
      "WMMA replaced by PTX mma.sync with ldmatrix/ldmatrix.trans: fragment layouts known";
  return MakeEntry<0u, Tile<64, 64, 2>, Tile<64, 64, 1>>(std::move(info));
}

}  // namespace flashscope::kernels
