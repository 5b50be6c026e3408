// a20_dynamic_schedule — intent: no SM idles at the end of a persistent grid's work. a18 deals
// its units (causal: a head's k-th heaviest and k-th lightest query tiles) round-robin before the
// launch, so every CTA gets ceil or floor of units / SMs whatever the units really cost: at
// D = 64, S = 2048 causal (16k tokens) 1,536 units of unequal cost over 132 CTAs, and a18 did not
// beat a17 there (0.86x cuDNN both).
// Changed: the persistent CTAs take single query tiles from a global atomic counter (the first
// wave by blockIdx), the producer thread fetching the next as soon as it is ready to load another
// Q and publishing it to the consumers in a shared-memory slot beside the Q buffer (ordered by
// the Q barrier's release/acquire). Order: heads in groups holding >= two waves of tiles, level
// by level within a group and, causal, heaviest first, so the tail of the launch is the lightest
// tiles and the heads in flight share K/V in L2. The last CTA resets the counter for the next
// launch (no memset per launch). D = 64 only (the persistent grid's head dim, as a18); problems
// that a19 would split keep a19's split-KV path, and D = 128/256 run a19 unchanged.
// Prediction (before measuring, bf16, 16k tokens, D = 64): causal S = 2048 +4-8 % over a18
// (the static deal's last-wave imbalance, ~one unit of ~11 key tiles per CTA out of ~12 units),
// S = 1024 causal +5-10 %, S >= 4096 causal +0-3 %; non-causal within 1 % of a18 (equal units).
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA20DynamicSchedule() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a20_dynamic_schedule";
  info.revision = 20;
  info.title =
      "D=64 persistent grid with a dynamic schedule: CTAs take query tiles from an atomic "
      "counter, heaviest first within head groups; split-KV (a19) where the tiles are few";
  info.changed =
      "a18's static round-robin deal replaced by an atomic work counter, longest-first causal "
      "order in L2-sized head groups; a19 at D>=128 and for problems it splits";
  return MakeEntry<kA17Wide | kSplitKV, kA17Narrow | kPersistent | kDynamicSchedule,
                   kA17Narrow | kSplitKV>(std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
