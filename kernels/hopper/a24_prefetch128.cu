// a24_prefetch128 — intent: at head dim 128 the short sequences people serve (S = 256-1024 at
// 16k tokens) pay a fixed cost per CTA that cuDNN does not. Session 9's device call 1
// (suites/short_seq_d128.json, one H200, results/device/20261128-h200-session9/) timed a13, a14,
// a15, a17, a20 and cuDNN at S = 256, 512, 1024, 2048 (2,048 CTAs of 128 query rows, 16 rounds
// of 132 SMs, 2-16 key tiles each): per round, every one of our schedules costs 1.48-1.50 us per
// key tile (cuDNN 1.52-1.58) plus 4.3-4.5 us fixed (cuDNN 1.9). At S = 256 cuDNN moves its 256 MB
// (Q, K, V, O) at 3.2 TB/s, near the HBM rate: the short problems are memory-bound, and a CTA
// that loads its Q and first K/V only after the one before it on its SM has stored O leaves the
// memory idle under its compute and the tensor cores idle under its loads. a23 (a persistent grid
// with one Q buffer, session 8) did not help: its next Q still waited for the epilogue.
// Changed vs a21: head dim 128, where split-KV does not split, runs a20's persistent grid with the
// dynamic schedule and two Q buffers (two K/V stages instead of three, for room): the producer
// loads the next unit's Q as soon as the unit before it has released that buffer, and its first
// K/V tiles as stages free, under this unit's tiles and epilogue. a13's two free-running consumer
// warpgroups with conditional rescaling (a17's schedule spills 68 bytes in the persistent loop;
// its turns do repeat per unit, and a25 measured it: slower, docs/perf-notes.md). D = 64 and 256
// as a21.
// Prediction (written before its first device run): D = 128, 16k tokens, against a21: S = 256
// +10..+25 %, S = 512 +5..+15 %, S = 1024 0..+8 %, S >= 2048 -10..0 % (a13's tile schedule, 1.72
// us a key tile against a17's 1.50, and two stages instead of three); causal alike; query chunks
// unchanged (they split).
// Measured (one H200, session 9, results/device/20261128-h200-session9/; every case passed every
// trust check): call 3 ran a24 on the persistent grid for every unsplit problem: +28 % over a21 at
// S = 256 (369 against 289 TFLOPS; cuDNN 425), +14-15 % at S = 512 (+21 % causal), +4-5 % at
// S = 1024 (+13-15 % causal), -2 % at S = 2048 (+5 % causal), -5 % at S >= 4096 and -10 % on the
// 512-query chunks, which do not split at D = 128. Per round of 132 CTAs: 2.5 us fixed + 1.65 us a
// key tile, against a21's 4.3 + 1.50 (cuDNN 1.9 + 1.55). The short-sequence prediction held (S =
// 256 above it), the long one missed by a little; so the grid is chosen where the two lines cross:
// fewer than 12 key tiles a query tile on average (PreferPrefetchGrid), a21's path elsewhere.
// Call 4 (the whole shapes suite): D = 128 minimum 0.79 -> 0.90x cuDNN (S = 512), 14 of 22
// problems at or above it (13 before), geometric mean 1.205 -> 1.233 (bf16).
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA24Prefetch128() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a24_prefetch128";
  info.revision = 24;
  info.title =
      "a21 + D=128 on a persistent dynamic grid with two Q buffers: the next Q loads under this "
      "tile";
  info.changed =
      "D=128 without split-KV: a20's persistent dynamic schedule with two Q buffers and two K/V "
      "stages on a13's free-running warpgroups with conditional rescaling; D=64 and 256 as a21";
  constexpr unsigned kShort64 = kDirectRescale | kWarpSpec | kCondRescale | kSplitKV;
  constexpr unsigned kPersistent128 =
      kDirectRescale | kWarpSpec | kCondRescale | kPersistent | kDynamicSchedule;
  return MakeEntry<kA17Wide | kSplitKV, kA17Narrow | kPersistent | kDynamicSchedule,
                   kA17Narrow | kSplitKV, kShort64, kPersistent128>(std::move(info),
                                                                    kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
