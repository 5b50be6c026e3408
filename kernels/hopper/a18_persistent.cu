// a18_persistent — intent: stop paying a17's per-CTA fixed cost once per query tile. a17 launches
// one CTA per query tile; each starts cold (barrier set-up, Q load, K/V pipeline fill with the
// tensor cores idle) and ends with an epilogue nothing overlaps.
// Measured before this rung (H200, headline run 20261124-105451): a17's ratio to cuDNN climbs with
// S at D = 64 (0.86x at S = 2048 to 0.98x at 16384 non-causal); per key tile a CTA takes ~1.55 us,
// and a CTA at S = 2048 (16 key tiles) ~3.6 us more than 16 of them (docs/perf-notes.md).
// Changed: a persistent grid, one CTA per SM, walking a static schedule of query tiles (one tile
// per unit non-causal; causal, a head's k-th heaviest and k-th lightest tiles as one unit, so the
// static deal stays balanced). The producer runs ahead across tiles: the K/V ring carries on from
// one tile to the next and, at D = 64, Q is double-buffered (the epilogue stages O in the current
// tile's buffer while the next tile's Q lands in the other); at D >= 128 there is no room for a
// second Q buffer, so the next Q waits for the epilogue's reads but its first key tile does not.
// D = 64 only, where issue 15's gap is: at D = 128 and 256 the persistent loop around a17's
// ping-pong consumer spills under setmaxnreg 240 (ptxas: 168 and 800 bytes of stack; the audit
// forbids spills), so D >= 128 runs a17's one-tile-per-CTA kernel unchanged.
// Everything else is a17's (per-head-dim schedule, conditional rescale).
// Prediction (before measuring), bf16, 16k tokens: D = 64 non-causal S = 2048 441 -> 465-480
// TFLOPS (0.91-0.93x cuDNN), S = 4096 468 -> 480-490 (0.89-0.91x), S >= 8192 +0-2 %; causal
// S = 2048 336 -> 355-370, S = 4096 392 -> 405-420; D >= 128 as a17 (same code).
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA18Persistent() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a18_persistent";
  info.revision = 18;
  info.title =
      "D=64 persistent grid: one CTA per SM walks a static tile schedule; the next tile's Q and "
      "K/V load under this tile's last GEMMs and epilogue";
  info.changed =
      "D=64: a17 + persistent CTAs (static round-robin; causal tiles paired heaviest with "
      "lightest), K/V ring continuous across tiles, Q double-buffered; D>=128: a17";
  return MakeEntry<kA17Wide, kA17Narrow | kPersistent>(std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
