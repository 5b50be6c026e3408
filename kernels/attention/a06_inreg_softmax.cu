// a06_inreg_softmax — intent: remove the S/P shared-memory round trip of a05.
// Changed vs a05: the softmax runs on the mma.sync C fragments in registers; the row max is
// reduced over the 4 lanes of a quad with __shfl_xor_sync, the row sum stays a per-thread partial
// until the end; P is converted to fp16/bf16 and re-packed directly as the A operand of P·V
// (the C layout of two n8 tiles is the A layout of one k16 step), so no __syncwarp and no smem.
// Still two-step rescaling and synchronous padded loads.
// Prediction: the biggest single step of the ladder (seed v8: 2.5x over v7); shared-memory
// wavefronts per FLOP roughly halve and the tensor pipe share rises to ~40-50%.
#include "kernels/attention/attn_mma_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA06InregSoftmax() {
  using namespace attn_mma;
  KernelInfo info;
  info.id = "attn.a06_inreg_softmax";
  info.revision = 6;
  info.title = "S and P stay in registers, row max/sum by quad shuffles";
  info.changed =
      "S never touches shared memory: softmax on the mma accumulators, P re-packed in registers as "
      "the A operand";
  return MakeEntry<kSInRegs, Tile<64, 64, 2>, Tile<64, 64, 1>>(std::move(info));
}

}  // namespace flashscope::kernels
