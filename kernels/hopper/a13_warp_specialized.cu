// a13_warp_specialized — intent: FlashAttention-3's warp specialisation: the loads get their own
// warpgroup, the compute warpgroups never wait on issuing them, and the registers follow the work.
// Changed vs a12 (every thread computes, thread 0 also issues the TMA copies between its tiles):
// a third warpgroup (warps 0-3) is the producer: one thread issues Q, then every K/V tile into
// the two-stage ring as soon as its stage's "empty" mbarrier says both consumer warpgroups are
// done with it; the two consumer warpgroups only wait on "full" barriers and compute.
// __launch_bounds__(384, 1) caps the kernel at 168 registers per thread at entry; setmaxnreg
// then gives the producer 24 and each consumer 240 (128·24 + 256·240 = 64,512 of 65,536).
// The consumers' schedule is a12's (S, softmax, P·V back to back).
// Prediction (before measuring; H200, bf16, S = 4096): the loads were already asynchronous in
// a12, so this removes only the inline producer's waits (thread 0's warp stalls until the other
// warpgroup releases a stage) and its issue slots: +3-8 % over a12 at D = 64 and 128, tensor pipe
// +2-5 points. Its value is as the base that a14's ping-pong needs (registers for two tiles of
// state, a producer that runs ahead of both consumers).
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA13WarpSpecialized() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a13_warp_specialized";
  info.revision = 13;
  info.title = "a12 + warp specialisation: a TMA producer warpgroup, setmaxnreg 24/240";
  info.changed =
      "a producer warpgroup issues every TMA load into the K/V ring (full/empty mbarriers); the "
      "two consumer warpgroups only compute; setmaxnreg moves registers to them";
  return MakeEntry<kDirectRescale | kWarpSpec>(std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
