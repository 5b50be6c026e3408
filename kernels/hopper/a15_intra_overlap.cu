// a15_intra_overlap — intent: FlashAttention-3's intra-warpgroup overlap on top of the ping-pong:
// a warpgroup's softmax of tile j runs while its own P(j-1)·V(j-1) is still on the tensor cores.
// Changed vs a14: after issuing Q·K(j) and P(j-1)·V(j-1) (two commit groups, S first), the
// warpgroup waits only for the first (wgmma.wait_group 1), computes the softmax of tile j, then
// waits for the second and applies the O rescale (deferred: O is being written by the P·V until
// then). P(j) is re-packed into the A registers only after that wait (the P·V reads them
// asynchronously).
// Prediction (before measuring; H200, bf16, S = 4096): the ping-pong already hides most of the
// softmax; this hides the rest of each warpgroup's own GEMM latency: +3-8 % over a14 at D = 128
// (FlashAttention-3's ablation on an H100 gives ~5 % for it), toward 600-650 TFLOPS non-causal,
// within 0.9x of cuDNN at D = 128; D = 64 +5-10 % (the softmax is the longer part there).
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA15IntraOverlap() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a15_intra_overlap";
  info.revision = 15;
  info.title = "a14 + intra-warpgroup overlap: softmax of tile j under P(j-1)·V(j-1)";
  info.changed =
      "wait for S(j) only (wgmma.wait_group 1), softmax while P(j-1)·V(j-1) runs, O rescale "
      "deferred until that group completes";
  return MakeEntry<kA15Schedule>(std::move(info), kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
