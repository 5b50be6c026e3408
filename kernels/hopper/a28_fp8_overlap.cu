// a28_fp8_overlap — intent: FlashAttention-3's intra-warpgroup overlap on a27's FP8 body. a27
// runs a13/a26's schedule: each consumer warpgroup issues Q·K(j), waits, runs the softmax, issues
// P(j)·V(j), waits, so its tensor-core work stops during its own softmax except for what the other
// warpgroup overlaps. With FP8 the GEMMs take half the bf16 time and the softmax (exp2 on the MUFU
// unit, max, sums, the E4M3 conversion) does not shrink, so that serial softmax is the larger share
// of a tile: a27 at D = 64 (446 TFLOP/s at S = 4096) is slower than bf16 a26 (507).
// Changed vs a27 (attn_sm90_fp8.cuh, Fp8Consumer<D, kOverlap = true>::RunOverlap; a27's code and
// SASS unchanged): two S accumulators. The step of key tile j issues Q·K(j+1) into the other
// accumulator first, then runs tile j's mask, max and exponentials while Q·K(j+1) (and, until
// the max is known, P(j-1)·V(j-1)) run on the tensor cores; it waits for P(j-1)·V(j-1) only
// (wgmma.wait_group 1), rescales O, packs P(j) to E4M3, issues P(j)·V(j) and waits for
// Q·K(j+1) only, so P(j)·V(j) runs under the next softmax. ptxas places that wait for
// P(j-1)·V(j-1) before the exponentials (the SASS shows it), so the exponentials overlap Q·K(j+1)
// and the mask and max overlap P(j-1)·V(j-1). The loop is unrolled by two so that the
// accumulators swap roles without copies; the last tile's step issues a Q·Qᵀ from the Q tile into
// the spare accumulator (nothing reads it) so that every step is the same code: with a peeled
// last step ptxas serialised the wgmmas, moved O between registers or spilled. The
// no-conditional-rescale softmax of a27 (9f7b171) stays: O is rescaled on every tile against the
// current max, so P <= 1 before its E4M3 rounding. D = 256 keeps a27's kernel under this id: O
// is 128 registers per thread there and a second S accumulator does not fit (ptxas: 2.6 KB of
// spills and serialised wgmmas).
// Prediction (written before any device run; H200, E4M3, suites/fp8.json shapes, 16k tokens,
// counting the V^T pre-pass), relative to a27's measured numbers. a27 at D = 64, S = 4096 spends
// ~2,300 cycles per 128 x 128 tile where the MUFU exponentials need ~1,020 and the tensor cores
// ~510 (D = 128: ~2,800 against ~1,020 each), so most of a tile is each warpgroup's serial
// Q·K latency + softmax + P·V latency; the overlap takes the Q·K latency off that chain:
//   non-causal D = 64:  S = 4096 540-640 TFLOP/s (1.2-1.45x a27's 446), S = 1024 370-440
//                       (1.1-1.3x a27's 336: 8 key tiles, so the first Q·K, the last P·V and the
//                       pre-pass weigh more);
//   non-causal D = 128: S = 4096 850-960 (1.17-1.33x a27's 724), S = 1024 540-630 (1.1-1.3x
//                       a27's 488);
//   causal: the same ratios to a27's causal numbers, ~0.05 lower (the diagonal's warpgroups run
//   fewer tiles, so the first Q·K and the last P·V weigh more);
//   D = 256: a27's numbers (the same kernel), within noise.
// Uncertain: ptxas hoists the wait for P(j-1)·V(j-1) above the exponentials, so P·V overlaps the
// mask and max only; if the measured gain is under 1.1x, that (not the registers: no spills) is
// the first suspect. Ceiling: the exponentials' MUFU rate, ~990 TFLOP/s at D = 64 and ~1,980 at
// 128 with the tensor cores at ~1,980.
#include "kernels/hopper/attn_fp8_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA28Fp8Overlap() {
  KernelInfo info;
  info.id = "attn.a28_fp8_overlap";
  info.revision = 28;
  info.title =
      "a27_fp8 + FlashAttention-3's intra-warpgroup overlap: Q·K(j+1) issued before the softmax "
      "of tile j (two S accumulators), P(j)·V(j) under the next softmax";
  info.changed =
      "two S accumulators: each step issues the next tile's Q·K before its softmax and waits for "
      "the previous P·V only before rescaling O (wgmma.wait_group 1); at D = 256 a27's kernel "
      "(a second S accumulator does not fit beside O's 128 registers)";
  return attn_fp8::MakeEntry</*kOverlap=*/true, /*kSplit=*/false>(std::move(info));
}

}  // namespace flashscope::kernels
