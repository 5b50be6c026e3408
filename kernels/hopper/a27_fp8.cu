// a27_fp8 — intent: issue 27's FP8 rung. Q, K, V in E4M3 (OCP FP8 E4M3FN, unscaled), fp32
// accumulation of both GEMMs and of the softmax, O written in BF16 and the log-sum-exp in fp32, at
// head dims 64, 128 and 256. wgmma on E4M3 operands (m64nNk32) issues twice the bf16 rate (about
// 1,980 dense TFLOP/s against 990 on an H100/H200), and FlashAttention-3's FP8 forward reaches
// ~1,000 TFLOP/s at D = 128 on an H100.
// Changed vs a26 (its bf16/fp16 D = 128 path: two free-running consumer warpgroups with
// conditional rescaling and trimmed warpgroups, a producer warpgroup issuing TMA): a dedicated FP8
// body (attn_sm90_fp8.cuh) rather than an element-type template of attn_sm90's Config/Consumer,
// because every byte count there assumes 2-byte elements (64-element swizzle blocks, the O staging
// in the Q buffer, MN-major V) and re-templating them would move every existing rung's SASS; the
// new body reuses attn_sm90's Params, KeyTiles, mbarrier/TMA wrappers and attn_mma's softmax and
// mask, and takes a13's simplest fast schedule (one CTA per 128-row query tile, a K/V ring of
// four stages, two stages at D = 256) without a20/a24's persistent grid. What FP8 forces:
//   - FP8 wgmma reads both operands K-major only, so P·V needs V with keys contiguous: a pre-pass
//     kernel on the same stream (part of every launch, timed with it) writes V^T [B·H, D, Sk
//     rounded up to 128] into per-device scratch (DeviceScratch), keys past Sk zero;
//   - the pre-pass also permutes the keys within each 32-key group (attn_fp8_layout.h has the
//     derivation from the PTX fragment layouts) so that P's fp32 accumulators convert pairwise
//     (cvt.rn.satfinite.e4m3x2.f32) straight into P·V's A fragment, with no shuffle;
//   - Q and K rows are D bytes: 128-byte swizzle at D >= 128, 64-byte swizzle at D = 64;
//   - P is rounded to E4M3 (unit roundoff 2^-4) against the running max, P <= 1 (no conditional
//     rescaling: a stale max leaves the row's largest P inexact, attn_sm90_fp8.cuh says why); the
//     row sums l add the unrounded fp32 P (as FlashAttention-3 does).
// Prediction (written before its first device run): D = 128, S = 4096, B·H = 64, non-causal, on
// one H200, counting the pre-pass: 750-900 TFLOP/s, i.e. 1.2-1.4x a24/a26 bf16 (~600-640 there)
// and 1.1-1.35x cuDNN bf16 (645-694); well under FA3's ~1,000 on an H100 because this schedule
// serialises each warpgroup's softmax with its own GEMMs (no intra-warpgroup overlap, no
// persistent grid) and the softmax's exponentials do not get faster with FP8 while the GEMMs
// halve; the pre-pass costs ~2-3 % at S = 4096 (it moves V twice at ~3 TB/s). D = 64: 1.0-1.2x
// a26 bf16; D = 256: 1.2-1.4x. Causal: 0.9-1.1x the non-causal rate (no heaviest-first persistent
// schedule).
#include "kernels/hopper/attn_fp8_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA27Fp8() {
  KernelInfo info;
  info.id = "attn.a27_fp8";
  info.revision = 27;
  info.title =
      "FP8 (E4M3) attention: wgmma k32 .e4m3 for Q·Kᵀ and P·V, fp32 accumulation, BF16 O; V "
      "transposed (and its keys permuted to P's register layout) by a pre-pass";
  info.changed =
      "E4M3 inputs: a13/a26's warp-specialised free-running schedule on a dedicated FP8 body; V^T "
      "from a same-stream pre-pass (FP8 wgmma is K-major only) with keys permuted within 32-key "
      "groups so that P converts in place into the A fragment; O in BF16";
  return attn_fp8::MakeEntry</*kOverlap=*/false, /*kSplit=*/false>(std::move(info));
}

}  // namespace flashscope::kernels
