// a26_trim_warpgroups — intent: a consumer warpgroup computes only what its own 64 query rows
// need. Every free-running rung so far (a13's two warpgroups, a17's three at D = 64, a20, a24)
// runs all of a CTA's key tiles on all of its warpgroups: a warpgroup whose rows lie past seq_q
// (the last query tile's padding) computes S and P·V for rows nobody reads, and on the causal
// diagonal the tile's first warpgroup computes key tiles its rows see no key of, which the mask
// then zeroes. At D = 64 with 192-row tiles (a20) that is 1 of 9 warpgroup-tiles at S = 512, 2 of
// 18 at S = 1024; causal, the diagonal adds more: 27 warpgroup-key-tiles per head where 20 are
// needed at S = 512 (96 where 72 at S = 1024). Session 9 (docs/ladder.md) measured a20 at
// D = 64: 1.9 us fixed + 1.55 us a key tile per round of 132 CTAs, its misses at S = 512-1024
// (0.84-0.92x cuDNN) the 192-row tiles' padding and the causal diagonal, not the fixed cost.
// Changed vs a20 (D = 64) and a24 (its D = 128 persistent grid): each warpgroup counts the key
// tiles its own rows see (none past seq_q; causal, up to its own last row) and computes those;
// for the CTA's other key tiles it only waits for the stage to land and releases it, so the
// producer's ring and the other warpgroups go on as before while the tensor cores and the exp
// unit serve the warpgroups that have work. Results are bit-identical: a skipped tile is one the
// mask zeroes whole for every row of the warpgroup. The ping-pong paths (D = 128 long sequences,
// D = 256: a17's schedule) pair their warpgroups' turns and are a24's, unchanged. D = 64 always
// takes 192-row tiles (a20's persistent grid, or a19's split where that splits): with the padding
// trimmed to 64 rows, a21's 128-row tiles are not chosen, so a26 against a20 measures the trim
// alone, and against a21 whether trimmed 192-row tiles beat 128-row ones.
// Prediction (written before its first device run; bf16 and fp16 alike, against a20 at D = 64
// and a24 at D = 128): 16k tokens S = 512 +4..+9 %, S = 1024 +3..+7 %, S >= 2048 0..+2 %
// (one padded warpgroup in a long tile); causal S = 512 and 1024 +8..+18 % (a freed warpgroup's
// share goes to the others only in part: two warpgroups run at ~0.92 of three's rate, a13 against
// a17), causal S >= 2048 +1..+5 %; 512-query chunks (split, the third tile two warpgroups) +5..+9 %
// over a20, level with a21's 128-row tiles (0..+5 %); 256-query chunks below a21 (the second tile
// one warpgroup of three); D = 128 within +-2 % except causal S <= 1024 (+2..+6 %).
// Measured (one H200, session 10, results/device/20261128-h200-session10/; every case passed every
// trust check): with the skip test inside the computing loop (call 1) -9..-12 % at S >= 2048, where
// nothing is skipped: the count, computed from the warpgroup index, was not provably warp-uniform,
// and the loop's stage and phase left the uniform registers; a loop of its own for the skipped
// tiles and a __shfl_sync from lane 0 gave the loop a20's SASS back. Call 3 (the whole shapes
// suite, results/runs/20261128-223714-shapes.json.xz), against a20: S = 512 +5 %, S = 1024 +5-6 %,
// S >= 2048 +1-2 %; causal S = 512 and 1024 +18 % (0.98-0.99x cuDNN, 0.84 before), causal S = 2048
// +7.5 % (1.07x); 128-query chunks +16-29 %, 256- and 512-query chunks -2..+4 % (a21's 128-row
// tiles stay 10-25 % ahead there); D = 128 as a24 within 1 %. D = 64's geometric mean 0.961 ->
// 0.989x.
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA26TrimWarpgroups() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a26_trim_warpgroups";
  info.revision = 26;
  info.title =
      "a20/a24 with each consumer warpgroup computing only the key tiles its own rows see (none "
      "past Sq, fewer above the causal diagonal)";
  info.changed =
      "free-running warpgroups skip the key tiles their 64 rows do not see (they only wait and "
      "release the stage); D=64 always 192-row tiles (a20's grid or a19's split), D=128 as a24";
  constexpr unsigned kPersistent128 =
      kDirectRescale | kWarpSpec | kCondRescale | kPersistent | kDynamicSchedule;
  return MakeEntry<kA17Wide | kSplitKV,
                   kA17Narrow | kPersistent | kDynamicSchedule | kTrimWarpgroups,
                   kA17Narrow | kSplitKV | kTrimWarpgroups, 0, kPersistent128 | kTrimWarpgroups>(
      std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
