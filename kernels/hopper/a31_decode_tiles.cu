// a31_decode_tiles — intent: a query side of at most 64 rows (decoding a token, a speculative
// draft of a few, a short chunk) should not pay for a 128- or 192-row query tile. Every Hopper
// rung so far runs at least two consumer warpgroups of 64 rows: on 16 queries against 8192 keys
// (B = 8, H = 32, D = 128; session 14's held-out shapes, `suites/shapes_heldout.json`) the best
// rung reached 64 TFLOPS against cuDNN's 71 (0.90x) while executing eight times the useful MMA
// work (16 of 128 rows), with D = 128's second warpgroup (a15's batched schedule pairs the two and
// cannot trim) computing padding only. Split-KV (a19) already gives such problems enough CTAs;
// what is left is the tile.
// Changed vs a26: where seq_q <= 64, at every head dim, one consumer warpgroup of 64 rows beside
// the producer warpgroup (256 threads), a13's free-running loop with conditional rescaling, on
// a19's split-KV grid (the shares sized for 64-row tiles); a26 otherwise.
// Prediction (written before its first device run; bf16 and fp16 alike, against the best of
// a21/a24/a26 in the same run): Sq = 16 against Sk = 8192, D = 128: 1.3-1.6x (85-100 TFLOPS, above
// cuDNN's 71); Sq = 1-4 (decoding, K and V streamed once): 1.1-1.4x; Sq = 64: 1.2-1.5x; D = 64
// and 256 alike within the same ranges; problems with Sq > 64 unchanged (a26's kernels).

#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA31DecodeTiles() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a31_decode_tiles";
  info.revision = 31;
  info.title =
      "a26 with one consumer warpgroup (64-row query tiles) where Sq <= 64: decode and "
      "short chunks stop paying for padded rows";
  info.changed =
      "seq_q <= 64 at any head dim: one consumer warpgroup of 64 rows (256 threads), a13's "
      "free-running loop, a19's split-KV shares sized for 64-row tiles; a26 otherwise";
  constexpr unsigned kPersistent128 =
      kDirectRescale | kWarpSpec | kCondRescale | kPersistent | kDynamicSchedule | kTrimWarpgroups;
  constexpr unsigned kDecode = kDirectRescale | kWarpSpec | kCondRescale | kSplitKV | kOneWarpgroup;
  return MakeEntry<kA17Wide | kSplitKV,
                   kA17Narrow | kPersistent | kDynamicSchedule | kTrimWarpgroups,
                   kA17Narrow | kSplitKV | kTrimWarpgroups, 0, kPersistent128, kDecode>(
      std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
