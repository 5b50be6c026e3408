// a14_pingpong — intent: FlashAttention-3's inter-warpgroup ping-pong: one consumer warpgroup's
// softmax runs while the other's GEMMs occupy the tensor cores.
// Changed vs a13: each consumer warpgroup issues its GEMMs in turns taken through two named
// barriers (bar.sync on its own, bar.arrive on the other's), so the tensor cores receive
// warpgroup 0's, then warpgroup 1's, then warpgroup 0's ... batches, and each warpgroup's softmax
// falls under the other's batch. A turn issues Q·K(j) together with P(j-1)·V(j-1) (the P·V of
// the previous tile moves into the next turn) so that a turn is one long run of tensor work;
// the warpgroup then waits for both before its softmax.
// Prediction (before measuring; H200, bf16, S = 4096): at D = 128 a tile's two GEMMs take about
// 1,000 tensor-core cycles per warpgroup and its softmax about 600-800 issue cycles, so the
// softmax can hide completely: +15-25 % over a13 at D = 128 non-causal (toward 560-620 TFLOPS,
// tensor pipe 70-80 %); at D = 64 the GEMMs are half as long as the softmax, which then binds:
// +10-15 %. Causal gains less (the diagonal tiles' masks lengthen the softmax).
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA14Pingpong() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a14_pingpong";
  info.revision = 14;
  info.title = "a13 + ping-pong: the two consumer warpgroups take turns on the tensor cores";
  info.changed =
      "named-barrier turns between the consumer warpgroups; a turn issues Q·K(j) with "
      "P(j-1)·V(j-1), so one warpgroup's softmax runs under the other's GEMMs";
  return MakeEntry<kDirectRescale | kWarpSpec | kPingPong>(std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
