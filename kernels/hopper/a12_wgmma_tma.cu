// a12_wgmma_tma — intent: the attention ladder's first Hopper rung: both products on the
// warpgroup tensor-core instructions (wgmma, sm_90a) fed by the TMA copy engine.
// Changed vs a11 (mma.sync m16n8k16 on ldmatrix fragments, cp.async double buffer, 4-8 warps):
// a CTA of two warpgroups owns 128 query rows (64 per warpgroup). S = Q·Kᵀ is D/16
// wgmma.m64nBNk16 with both operands read by the tensor cores from shared memory (no ldmatrix,
// no per-warp fragments); O += P·V is BN/16 wgmma.m64nDk16 with P straight from the S registers
// (the A operand from registers) and V read MN-major from shared memory. Q, K and V arrive by
// cp.async.bulk.tensor (3-D tensor maps over [B·H, S, D], 128-byte swizzled, completing on
// mbarriers), K/V double-buffered; thread 0 issues the copies between its own tiles. The online
// softmax is a07+'s, in registers. BN = 128 (D = 64, 128) or 64 (D = 256, where O alone takes
// 128 registers per thread). B·H is on grid x (no 65,535 limit).
// Prediction (before measuring; H200, bf16, S = 4096, cold L2): wgmma takes the ldmatrix and
// mma.sync issue off the SMs, but each warpgroup still runs Q·Kᵀ, softmax and P·V back to back,
// so the tensor cores idle while both warpgroups do softmax (they drift apart only by chance).
// D = 128 non-causal 420-500 TFLOPS (a11: 361, cuDNN ~670), tensor pipe 55-65 %; D = 64 350-420
// (a11: 350; the softmax is twice the share of the work there); causal within 10 % below.
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA12WgmmaTma() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a12_wgmma_tma";
  info.revision = 12;
  info.title = "Hopper wgmma for Q·Kᵀ and P·V (P from registers), TMA loads on mbarriers";
  info.changed =
      "wgmma (sm_90a) from 128-byte swizzled smem instead of mma.sync + ldmatrix; Q/K/V by TMA "
      "completing on mbarriers; two warpgroups x 64 rows; B·H on grid x";
  return MakeEntry<kDirectRescale>(std::move(info), {"HGMMA", "UTMALDG", "SYNCS"});
}

}  // namespace flashscope::kernels
