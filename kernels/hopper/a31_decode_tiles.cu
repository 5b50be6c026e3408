// a31_decode_tiles — intent: a query side of at most 64 rows (decoding a token, a speculative
// draft of a few, a short chunk) should not pay for a 128- or 192-row query tile. Every Hopper
// rung so far runs at least two consumer warpgroups of 64 rows: on 16 queries against 8192 keys
// (B = 8, H = 32, D = 128; session 14's held-out shapes, `suites/shapes_heldout.json`) the best
// rung reached 64 TFLOPS against cuDNN's 71 (0.90x) while executing eight times the useful MMA
// work (16 of 128 rows), with D = 128's second warpgroup (a15's batched schedule pairs the two and
// cannot trim) computing padding only. Split-KV (a19) already gives such problems enough CTAs;
// what is left is the tile.
// Changed vs a26 (first version, session 14 device call 3): where seq_q <= 64, at every head
// dim, one consumer warpgroup of 64 rows beside the producer warpgroup (256 threads), a13's
// free-running loop with conditional rescaling, on a19's split-KV grid; a26 otherwise.
// Prediction (written before that run): Sq = 16 against Sk = 8192, D = 128: 1.3-1.6x the best of
// a21/a24/a26 (85-100 TFLOPS); Sq = 1-4 1.1-1.4x; Sq = 64 1.2-1.5x.
// Measured (call 3, suites/decode.json, 150 cases, all passed): 0.97-1.05x the best of a21/a24/a26
// everywhere (Sq = 16, Sk = 8192, D = 128: 65.2 against 63.8 TFLOPS; cuDNN 69.6). Refuted: the
// padded rows cost nothing. Every one of these problems moves K and V at ~1 TB/s (cuDNN 1.1) of
// the H200's 4.2 measured: one CTA an SM walks its key tiles as a chain of Q·Kᵀ, wait, softmax,
// P·V, wait, ~2 us a 128-key tile at D = 128, and nothing else runs on the SM meanwhile.
// Changed in this version: the one-warpgroup CTA takes half an SM (64-key tiles; four K/V stages
// at D = 64, two at D = 128; 232 registers a consumer thread) so that two are resident and one's
// chain runs while the other's waits; split-KV deals shares for two CTAs an SM. D = 256 has no
// room for two (its O alone is 128 registers a thread and a K/V stage 64 KiB): a26 there.
// Prediction (written before its run; bf16 and fp16 alike, against the best of a21/a24/a26 in the
// same run): Sq = 1-16 at D = 64 and 128: 1.4-1.9x (K and V at 1.4-1.9 TB/s); Sq = 64: 1.2-1.6x;
// D = 256 and Sq > 64 unchanged (a26's kernels).

#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA31DecodeTiles() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a31_decode_tiles";
  info.revision = 31;
  info.title =
      "a26 with two one-warpgroup CTAs an SM (64-row query tiles) where Sq <= 64: decode and "
      "short chunks run two key-tile chains at once";
  info.changed =
      "seq_q <= 64 at D=64/128: one consumer warpgroup of 64 rows, 64-key tiles, two CTAs an SM, "
      "a13's free-running loop, a19's split-KV shares for two CTAs an SM; a26 otherwise";
  constexpr unsigned kPersistent128 =
      kDirectRescale | kWarpSpec | kCondRescale | kPersistent | kDynamicSchedule | kTrimWarpgroups;
  constexpr unsigned kDecode = kDirectRescale | kWarpSpec | kCondRescale | kSplitKV | kOneWarpgroup;
  return MakeEntry<kA17Wide | kSplitKV,
                   kA17Narrow | kPersistent | kDynamicSchedule | kTrimWarpgroups,
                   kA17Narrow | kSplitKV | kTrimWarpgroups, 0, kPersistent128, kDecode>(
      std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
