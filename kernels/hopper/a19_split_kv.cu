// a19_split_kv — intent: fill the machine when the query side is short (a prefill chunk or a few
// decode rows against a long KV cache). a17 gives each query tile one CTA, so B·H·ceil(Sq/BM)
// CTAs is all the parallelism there is: B=2 H=16 Sq=128 D=128 launches 32 CTAs on 132 SMs and
// three quarters of the GPU idles while each CTA walks all of Sk.
// Changed (flash-decoding's idea): each query tile's visible key tiles are dealt to n_splits
// neighbouring CTAs in contiguous, balanced shares, n_splits chosen so that the CTAs fill whole
// waves (the fewest shares whose wave efficiency is within 15 % of the best, >= 4 key tiles a
// share, <= 16): few query tiles are split to fill the machine, a ragged last wave of long tiles
// (B=2 H=32 Sq=512 Sk=16384 D=64: 192 tiles, 1.45 waves) into 2. Each CTA runs a17's pipeline
// over its share and writes O_s / l_s and lse_s in fp32; a second kernel (one warp per query row)
// merges the shares with weights exp(lse_s - max) and writes O and the log-sum-exp. Causal
// masking stays bottom-right: the shares keep absolute key indices, so the diagonal tiles are
// masked as before; a share that sees no key weighs 0. Where the tiles already fill whole waves
// (the 16k-token problems) it is a17, unchanged (one share, no workspace, no second kernel).
// Prediction (before measuring, H100/H200 bf16): where a17 fills < 1/2 wave the split gives
// ~ (CTAs after / before, capped by one wave) x: B=2 H=16 D=128 Sq=128 Sk=16384 32 -> 128 CTAs,
// 3.5-3.9x a17's TFLOPS (combine + fp32 partials < 3 % of the time), reaching 0.95-1.1x cuDNN;
// a ragged last wave of long tiles (192 tiles -> 384 CTAs): +25-30 %; shapes whose tiles already
// fill whole waves: a17's time within 1 %.
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA19SplitKv() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a19_split_kv";
  info.revision = 19;
  info.title =
      "split-KV: when the query tiles do not fill whole waves, each tile's keys are shared by "
      "several CTAs and a second kernel merges the partial (O, lse)";
  info.changed =
      "a17 + flash-decoding split of the key tiles (shares chosen by wave efficiency), fp32 "
      "partials and a combine kernel; one share (a17) when the tiles fill whole waves";
  return MakeEntry<kA17Wide | kSplitKV, kA17Narrow | kSplitKV>(std::move(info),
                                                               kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
