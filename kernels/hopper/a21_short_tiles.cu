// a21_short_tiles — intent: at head dim 64, query tiles whose height suits the problem. a17-a20
// give D = 64 three consumer warpgroups, 192 query rows per CTA, the fastest schedule per row
// there (a17 467.9 against a13's two warpgroups 429.5 TFLOPS, H200, S = 4096); but a problem whose
// query length is not near a multiple of 192 pays for the padding of its last tile: Sq = 128 runs
// 192 rows for 128 (a third wasted), Sq = 256 384 for 256, the 16k-token S = 512 576 for 512. The
// issue's B=8 H=32 Sq=256 Sk=8192 chunk ran at 0.68x cuDNN, behind a11's 64-row tiles.
// Changed: D = 64 takes 128-row tiles (two free-running consumer warpgroups, a13's schedule with
// conditional rescaling and a19's split-KV) whenever ceil(Sq/128)·128 rows at the two-warpgroup
// rate cost less than ceil(Sq/192)·192 at the three-warpgroup rate (PreferShortTiles: Sq <= 256,
// 385-1152 except near multiples of 192); a20 (persistent dynamic schedule, or a19's split) for
// the rest, and a19/a20 at D >= 128.
// Prediction (before measuring, bf16, D = 64): Sq = 128 and 256 chunks +25-35 % over a20 (the
// padding gone, at 0.92 of the rate); 16k tokens S = 512 and 1024 -3..+5 % (padding 11 % and 12 %
// saved, rate -8 %, and no persistent grid to hide the per-CTA cost); causal S = 1024 +0-8 % (a
// shorter diagonal tile wastes less).
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA21ShortTiles() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a21_short_tiles";
  info.revision = 21;
  info.title =
      "D=64 query-tile height per problem: 128-row tiles (two warpgroups) where 192-row ones "
      "would pad the last tile more than the faster schedule gains; a20 otherwise";
  info.changed =
      "a20 + D=64 128-row tiles (a13's free-running warpgroups, conditional rescale, split-KV) "
      "chosen by padding against rate";
  // D = 64 short tiles: a13's two free-running warpgroups, conditional rescaling, split-KV.
  constexpr unsigned kShort64 = kDirectRescale | kWarpSpec | kCondRescale | kSplitKV;
  return MakeEntry<kA17Wide | kSplitKV, kA17Narrow | kPersistent | kDynamicSchedule,
                   kA17Narrow | kSplitKV, kShort64>(std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
