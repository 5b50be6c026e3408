// a11_fa4_softmax — intent: test FlashAttention-4's two portable softmax ideas on a10's kernel.
// Changed vs a10 (same tiles, same pipeline): (1) conditional rescaling: the running max (and
// with it the O rescale, 2 FMUL per O element per row) is updated only when some row of the warp
// grows by more than tau = log2(256) = 8; otherwise the stale max is kept, P stays <= 256 (safe in
// fp16/bf16) and the final 1/l makes the result exact. (2) software exp2: every fourth n8 column
// block (25% of P) is computed by a degree-3 polynomial on the FMA pipe instead of MUFU.EX2.
// Also registered separately: attn.a11_fa4_cond_rescale (1 only), attn.a11_fa4_poly_exp (2 only).
// Prediction: on Hopper with mma.sync the MUFU is not the binding resource at D=64/128 (unlike
// Blackwell), so expect small effects: cond-rescale +1-4% (fewer FMULs on O, mostly at D=128),
// poly-exp within +-2% (trades MUFU for FMA/ALU issue slots), both together +0-5%.
#include "kernels/attention/attn_mma_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA11Fa4Softmax() {
  using namespace attn_mma;
  KernelInfo info;
  info.id = "attn.a11_fa4_softmax";
  info.revision = 11;
  info.title = "a10 + FA4 softmax: conditional rescaling and 25% polynomial exp2";
  info.changed =
      "both FA4 ideas: rescale O only when the row max grows > log2(256); every 4th column block's "
      "exp2 on the FMA pipe";
  return MakeEntry<kSInRegs | kDirectRescale | kCpAsync | kSwizzle | kCausalSkip | kCondRescale |
                       kPolyExp,
                   Tile<128, 64, 2, 2>, Tile<64, 64, 2>>(std::move(info));
}

KernelEntry MakeA11Fa4CondRescale() {
  using namespace attn_mma;
  KernelInfo info;
  info.id = "attn.a11_fa4_cond_rescale";
  info.revision = 11;
  info.title = "a10 + FA4 conditional rescaling only";
  info.changed =
      "rescale O only when a row max grows by more than log2(256); exp2 all on MUFU; D=128 "
      "non-causal on a 128x32 tile, two m16 tiles per warp (no spill here, unlike a10)";
  // D=128 non-causal: 128x32 with two m16 tiles per warp and Q re-read from shared memory; the
  // registers conditional rescaling frees keep it spill-free (a10 spills 28 B on it). Tile sweep
  // on an H200 (kernels/perf/results-20261122-h200-tile-sweep.txt): 354-365 TFLOPS non-causal vs
  // 329-341 on 64x64; causal stays on 64x64 (289-333 vs 289-329).
  return MakeEntry<kSInRegs | kDirectRescale | kCpAsync | kSwizzle | kCausalSkip | kCondRescale,
                   Tile<128, 64, 2, 2>, Tile<64, 64, 2>, Tile<128, 32, 2, 2, true>>(
      std::move(info));
}

KernelEntry MakeA11Fa4PolyExp() {
  using namespace attn_mma;
  KernelInfo info;
  info.id = "attn.a11_fa4_poly_exp";
  info.revision = 11;
  info.title = "a10 + FA4 polynomial exp2 only";
  info.changed = "every 4th column block's exp2 by a degree-3 polynomial on the FMA pipe";
  return MakeEntry<kSInRegs | kDirectRescale | kCpAsync | kSwizzle | kCausalSkip | kPolyExp,
                   Tile<128, 64, 2, 2>, Tile<64, 64, 2>>(std::move(info));
}

}  // namespace flashscope::kernels
