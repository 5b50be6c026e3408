// a16_fa4_softmax — intent: FlashAttention-4's two softmax ideas measured again, on the best
// Hopper rung (a15's schedule), where the tensor cores no longer wait for mma.sync issue.
// Changed vs a15 (same tiles, same pipeline): (1) conditional rescaling: the running max, and with
// it the O rescale, is updated only when some row of the warp grows by more than log2(256); P
// then stays <= 256, exact after the final 1/l. (2) software exp2: every fourth n8 column block
// (25 % of P) by a degree-3 polynomial on the FMA pipe instead of MUFU.EX2.
// Also registered separately: attn.a16_fa4_cond_rescale (1 only), attn.a16_fa4_poly_exp (2 only).
// Prediction (before measuring; H200, bf16, S = 4096): with ping-pong and intra-warpgroup overlap
// the softmax is mostly hidden, so the ideas act only on what still shows: cond-rescale +0-3 %
// (the O rescale is 64 FMUL per thread per tile at D = 128, and it sits after the P·V wait, on
// the critical path); poly-exp: at D = 64 the MUFU work (64 EX2 per thread per tile) equals the
// tensor time, so moving 25 % of it to the FMA pipe may pay +0-5 % there; at D = 128 -2..+2 %.
// a11 measured -5 % for poly-exp on mma.sync; here the FMA pipe is freer (no mma.sync issue).
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA16Fa4Softmax() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a16_fa4_softmax";
  info.revision = 16;
  info.title = "a15 + FA4 softmax: conditional rescaling and 25% polynomial exp2";
  info.changed =
      "both FA4 ideas on the Hopper schedule: rescale O only when a row max grows > log2(256); "
      "every 4th column block's exp2 on the FMA pipe";
  return MakeEntry<kA15Schedule | kCondRescale | kPolyExp>(std::move(info), kWarpSpecializedSass);
}

KernelEntry MakeA16Fa4CondRescale() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a16_fa4_cond_rescale";
  info.revision = 16;
  info.title = "a15 + FA4 conditional rescaling only";
  info.changed = "rescale O only when a row max grows by more than log2(256); exp2 all on MUFU";
  return MakeEntry<kA15Schedule | kCondRescale>(std::move(info), kWarpSpecializedSass);
}

KernelEntry MakeA16Fa4PolyExp() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a16_fa4_poly_exp";
  info.revision = 16;
  info.title = "a15 + FA4 polynomial exp2 only";
  info.changed = "every 4th column block's exp2 by a degree-3 polynomial on the FMA pipe";
  return MakeEntry<kA15Schedule | kPolyExp>(std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
