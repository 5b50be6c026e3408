// What the naive same-precision implementation (the baseline of FlashAttention's tolerance rule,
// gpu_reference.h) stores and how it accumulates, per input element type T: one place for the
// full baselines (gpu_reference_attention.cu, gpu_reference_gemm.cu) and the sampled checks'
// per-row and per-entry baselines (sampled_rows.cu), so that the two never disagree.
//
// Attention, fp16/bf16/fp32 (the naive framework implementation): S = Q·Kᵀ·scale rounded to T,
// P = exp(S - max) / l rounded to T (l the fp32 row sum of exp(S - max)), O = P·V in fp32 rounded
// to T.
// Attention, E4M3 (what an FP8 flash kernel does, FlashAttention-3's FP8 path): S = Q·Kᵀ·scale
// kept in fp32 (the products of two E4M3 are exact in fp32), P = exp(S - max) rounded to E4M3
// (round to nearest, satfinite) before P·V, l the fp32 row sum of the UNROUNDED exp(S - max),
// O = (Σ round(P)·V) / l in fp32, rounded to BF16 (the output type, AttentionOutputDType).
//
// Gemm: products are exact; each chunk of kChunk consecutive k is summed exactly (fp64) and added
// to the accumulator, which keeps kAccMantissaBits of mantissa and truncates (round toward
// zero). fp16/bf16: a tensor core's fp32 accumulator, chunks of 16 (one k-step of
// mma.m16n8k16). E4M3: Hopper's FP8 wgmma, chunks of 32 (one k-step of wgmma.m64nNk32.e4m3)
// into an accumulator of 13 mantissa bits ("FP22": SageAttention2 measured that mma.f32.e4m3
// keeps 1 + 8 + 13 bits of D and zeroes the 10 lower mantissa bits; DeepSeek-V3's report, §3.5.2,
// describes the same ~14-bit accumulation of wgmma). A kernel that promotes its partial sums to
// fp32 every few wgmmas (CUTLASS's 2xAcc, DeepGEMM) is more accurate than this baseline; one that
// accumulates all of K in the wgmma accumulator is this baseline.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "common/element_convert.cuh"

namespace flashscope::verify {

template <typename T>
struct BaselineRules {
  using Out = T;  // the attention output's type
  // S as the baseline stores it.
  __device__ static float Score(float s) { return RoundTo<T>(s); }
  // P as P·V reads it, from e = exp(S - max) and the row sum l of the unrounded e.
  __device__ static float P(float e, float l) { return RoundTo<T>(e / l); }
  // O from the fp32 accumulator Σ P·V, for a row that sees at least one key.
  __device__ static float Output(float acc, float /*l*/) { return RoundTo<T>(acc); }
  static constexpr int kChunk = 16;
  // The accumulator after adding one chunk's exact sum.
  __device__ static float Accumulate(float acc, double chunk) {
    return __double2float_rz(__dadd_rn(static_cast<double>(acc), chunk));
  }
};

template <>
struct BaselineRules<__nv_fp8_e4m3> {
  using Out = __nv_bfloat16;
  __device__ static float Score(float s) { return s; }
  __device__ static float P(float e, float) { return RoundTo<__nv_fp8_e4m3>(e); }
  __device__ static float Output(float acc, float l) { return RoundTo<__nv_bfloat16>(acc / l); }
  static constexpr int kChunk = 32;
  static constexpr int kAccMantissaBits = 13;
  __device__ static float Accumulate(float acc, double chunk) {
    const float sum = __double2float_rz(__dadd_rn(static_cast<double>(acc), chunk));
    // Truncate fp32's 23 mantissa bits to 13 (toward zero: the sign bit is untouched). Exact
    // for zeros, subnormals lose their low bits the same way; inf/NaN cannot arise from finite
    // E4M3 products at the sizes a gemm has.
    constexpr unsigned kDrop = (1u << (23 - kAccMantissaBits)) - 1u;
    return __uint_as_float(__float_as_uint(sum) & ~kDrop);
  }
};

}  // namespace flashscope::verify
