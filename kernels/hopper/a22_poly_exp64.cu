// a22_poly_exp64 — intent: at head dim 64 the softmax is half the math, and on the 512-query chunk
// against a 16k cache (B=2 H=32 D=64), a21's worst miss (0.78x cuDNN), the exp unit (XU) was
// 45-50 % busy beside a tensor pipe at 45 % where cuDNN's ran at 60 % (H200, session 6, call 2:
// docs/ladder.md "the misses with their profiles"). Changed vs a21: every D = 64 path (a20's
// persistent schedule, a19's split-KV, a21's 128-row tiles) computes every fourth n8 column block
// of P (25 %) by a16's degree-3 polynomial exp2 on the FMA pipe instead of MUFU.EX2; D >= 128 is
// a21's code unchanged.
// Prediction (written before the device run; bf16 and fp16): D = 64 query chunks against 4k-16k
// caches -3..+6 % over a21 (+ where XU limits, - where the FMA issue slots the polynomial takes
// are the MMA loop's: a16's poly-exp measured -1 % at D = 128 on a15's schedule); 16k-token
// S = 512-8192 at D = 64 -3..+3 %; D >= 128 within noise (the same kernels).
#include "kernels/hopper/attn_sm90_entry.cuh"

namespace flashscope::kernels {

KernelEntry MakeA22PolyExp64() {
  using namespace attn_sm90;
  KernelInfo info;
  info.id = "attn.a22_poly_exp64";
  info.revision = 22;
  info.title = "a21 + polynomial exp2 for a quarter of P on every D=64 path";
  info.changed =
      "D=64: every 4th column block's exp2 by a degree-3 polynomial on the FMA pipe (a16's), on "
      "a20's persistent, a19's split-KV and a21's short-tile paths; D>=128 as a21";
  constexpr unsigned kShort64 = kDirectRescale | kWarpSpec | kCondRescale | kSplitKV | kPolyExp;
  return MakeEntry<kA17Wide | kSplitKV, kA17Narrow | kPersistent | kDynamicSchedule | kPolyExp,
                   kA17Narrow | kSplitKV | kPolyExp, kShort64>(std::move(info),
                                                               kWarpSpecializedSass);
}

}  // namespace flashscope::kernels
