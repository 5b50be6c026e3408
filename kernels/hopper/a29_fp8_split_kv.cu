// a29_fp8_split_kv — intent: a27_fp8 launches one CTA per 128-row query tile, so a short query
// chunk against a long KV cache runs on a few CTAs: B=2, Sq=128, Sk=16384 is B·H = 64 (D = 64),
// 32 (D = 128) or 16 (D = 256) CTAs on 132 SMs, and each walks all 128 key tiles serially
// (measured on an H200, E4M3, non-causal: 152 / 137 / 109 TFLOP/s against a24 bf16's 353 / 426 /
// 432, which splits the keys).
// Changed vs a27 (one idea, a19's split-KV on a27's FP8 body): when the query tiles do not fill
// whole waves, each tile's visible key tiles are dealt to n_splits neighbouring CTAs in
// contiguous, balanced shares, n_splits from a19's SplitCount (the fewest shares whose wave
// efficiency is within 15 % of the best, >= 4 key tiles a share, <= 16). Each CTA runs a27's
// producer and serial consumers over its share (Fp8Consumer's compile-time kSplit: key tiles from
// the share's first, absolute key indices so that the bottom-right causal mask is a27's) and
// writes its normalised partial O and lse in fp32 to a19's SplitWorkspace; a19's combine kernel
// (SplitKvCombineKernel<__nv_bfloat16, D>) merges the shares into the BF16 O and the lse (a share
// that saw no key weighs 0; a row no share saw gets O = 0 and lse -inf). When SplitCount gives 1
// (every 16k-token problem: >= 1,024 query tiles) the launch is a27's, kernel for kernel (the
// V^T pre-pass, then AttnSm90Fp8Kernel<D>). The pre-pass still transposes all of V.
// Prediction (written before any measurement; H200, E4M3, B = 2, H·D = 2048, counting the
// pre-pass and the combine). At Sq = 128 the problem is memory-bound in FP8 (intensity 2·Sq = 256
// FLOP/byte against ~410 for the GPU), and the pre-pass makes it move as many bytes as bf16 (K,
// V, V^T written and read: 4 bytes per key and column, as bf16's K and V): Sk = 16384 moves ~270
// MB, the pre-pass (~45 us) and the main kernel (~50 us once 128 CTAs stream K / V^T) in series,
// so the split cannot reach a24 bf16 there:
//   Sq = 128, Sk = 16384: D = 128 (32 -> 128 CTAs, 4 shares) 300-380 TFLOP/s (2.2-2.8x a27,
//     0.7-0.9x a24); D = 256 (16 -> 112 CTAs, 7 shares) 290-380 (2.7-3.5x a27, 0.65-0.9x a24);
//     D = 64 (64 -> 128 CTAs, 2 shares: each CTA still walks 64 key tiles serially) 220-290
//     (1.45-1.9x a27, 0.6-0.8x a24);
//   Sq = 256, Sk = 16384, D = 128 (64 -> 128 CTAs): 400-480 (1.5-1.75x a27's 272, 0.7-0.85x a24);
//     D = 256 (32 -> 128 CTAs): 1.6-2.0x a27; D = 64 (128 tiles): no split, a27's rate;
//   Sq = 512, Sk = 16384: D = 64 and 128 (256 / 128 tiles) do not split: a27's rate within 2 %
//     (541 at D = 128); D = 256 (64 -> 128 CTAs): 1.3-1.6x a27;
//   Sk = 4096: the same CTA counts with a quarter of the key tiles (Sq = 128: 8 / 16 / 5 key tiles
//     a share at D = 128 / 64 / 256): 2-3x a27 at Sq = 128, the pre-pass (~12 us) and the launch
//     of a second kernel a larger share of a short run;
//   causal: at Sq <= 512 against Sk = 16384 the bottom-right mask hides almost nothing, so the
//     same ratios within 5 %;
//   16k-token shapes (S = 512..8192): one share, a27's time within 1 % (the host picks a27's
//     kernel; only SplitCount's arithmetic is added).
#include "kernels/hopper/attn_fp8_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA29Fp8SplitKv() {
  KernelInfo info;
  info.id = "attn.a29_fp8_split_kv";
  info.revision = 29;
  info.title =
      "FP8 (E4M3) split-KV: when the query tiles do not fill whole waves, each tile's keys are "
      "shared by several CTAs of a27's FP8 body and a19's combine merges the partial (O, lse) "
      "into BF16 O";
  info.changed =
      "a27 + a19's split of the key tiles (SplitCount's shares, fp32 partials in SplitWorkspace, "
      "SplitKvCombineKernel<bf16>); a27's launch when SplitCount gives one share";
  return attn_fp8::MakeEntry</*kOverlap=*/false, /*kSplit=*/true>(std::move(info));
}

}  // namespace flashscope::kernels
