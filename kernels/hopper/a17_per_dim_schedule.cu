// a17_per_dim_schedule — intent: each head dim on the schedule its balance of tensor-core, MUFU
// and issue work calls for (as a10 chose tiles per head dim for mma.sync).
// Measured before this rung (H200, bf16, S 2048..16384, device call 1, docs/perf-notes.md): at
// D = 128 the best schedule is a16_fa4_cond_rescale (ping-pong + intra-warpgroup overlap +
// conditional rescale: 0.94-0.98x cuDNN); at D = 64 it is a13's free-running warpgroups
// (0.79-0.80x non-causal, 0.86-0.95x causal) and the ping-pong *loses* 10-15 %: a tile's 8,192
// exponentials per warpgroup take as long on the MUFU (16/clk/SM) as its two GEMMs on the tensor
// cores, so strict turns leave the tensor cores waiting for a softmax that is no shorter than
// the other warpgroup's GEMMs.
// Changed: D = 64 runs three consumer warpgroups (192 query rows per CTA, 160 registers each
// under setmaxnreg, producer 24), free-running as in a13, with conditional rescaling (which gave
// +5 % at D = 64 on a15); D = 128 and 256 run a16_fa4_cond_rescale's schedule unchanged.
// Prediction (before measuring): D = 64 non-causal 470-500 TFLOPS at S = 4096 (a13: 429,
// cuDNN: 538), i.e. 0.87-0.93x; causal 0.95-1.0x; D = 128 as a16_fa4_cond_rescale (same code).
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA17PerDimSchedule() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a17_per_dim_schedule";
  info.revision = 17;
  info.title =
      "per-head-dim schedule: D=64 on three free-running consumer warpgroups, D>=128 ping-pong; "
      "conditional rescale";
  info.changed =
      "D=64: 3 consumer warpgroups (BM 192, setmaxnreg 160) without turns, as a13; D=128/256: "
      "a16_fa4_cond_rescale; conditional rescaling on both";
  return MakeEntry<kA17Wide, kA17Narrow>(std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
