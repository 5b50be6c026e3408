// Tolerance policy and the pass/fail verdict of a verified case.
//
// The main rule is FlashAttention's: the kernel's max |error| against the FP32 (or FP64) reference
// must be at most `baseline_factor` times the max |error| of a naive same-precision
// implementation against the same reference, plus a small `floor`. Such a rule adapts to the
// inputs (large logits, long sequences) where fixed tolerances are either too loose or too tight.
// atol/rtol give the bad-element count and decide only when there is no baseline.
// For fp16/bf16 gemm the "naive same-precision implementation" accumulates as a tensor core does
// (exact 16-term chunks truncated into fp32, verify/gpu_reference.h): with an in-order
// round-to-nearest baseline the rule failed cuBLAS itself at K = 4096. For E4M3 it is what an
// FP8 kernel computes: attention keeps S in fp32, rounds P = exp(S - max) to E4M3 and O to BF16;
// gemm sums 32-term chunks into Hopper FP8 wgmma's 13-mantissa-bit accumulator
// (verify/baseline_rules.cuh).
#pragma once

#include <string>

#include "common/problem.h"
#include "verify/error_stats.h"

namespace flashscope::verify {

struct TolerancePolicy {
  double atol = 0;
  double rtol = 0;
  double baseline_factor = 2.0;
  double floor = 0;
  // The optional log-sum-exp output is fp32 in every kernel, so it has its own fixed tolerance.
  double lse_atol = 1e-3;
  double lse_rtol = 1e-5;
};

// fp16: atol = rtol = 2e-3, floor 1e-5; bf16: 1.6e-2, floor 1e-4; fp32 attention: 1e-4,
// floor 1e-6; gemm (fp32 output, fp32 accumulate): atol 1e-3, rtol 1e-4, floor 1e-5.
// E4M3 attention (inputs exact E4M3, P rounded to E4M3, O to BF16): atol = rtol = 2^-4 = 6.25e-2
// (E4M3's unit roundoff, within which BF16's 2^-8 output rounding fits), floor 2^-12 ≈ 2.4e-4
// (BF16's rounding at E4M3's roundoff scale, 2^-8 · 2^-4). E4M3 gemm (fp32 C, the wgmma
// accumulator's 13 mantissa bits): atol 1e-2, rtol 2^-10 ≈ 9.8e-4, floor 1e-5.
// The baseline of an E4M3 problem is the naive FP8 implementation (gpu_reference.h).
TolerancePolicy DefaultTolerance(Family family, DType dtype);

struct Verdict {
  bool passed = false;
  std::string rule;  // the rule that decided, with its numbers
};

// Rule order: never-written elements fail; NaN/Inf fail; then, with a usable baseline (one with
// no NaN/Inf/never-written of its own), max_abs <= factor × baseline.max_abs + floor; without
// one, bad == 0 under atol + rtol·|ref|.
Verdict Decide(const ErrorStats& kernel, const ErrorStats* baseline, const TolerancePolicy& policy);

// Decide's rule element by element, for checks made on the GPU (output_check.h): with a usable
// baseline, max|err| <= factor × baseline.max_abs + floor means every |err| is within that;
// without one, every |err| <= atol + rtol·|ref|. Never-written and NaN/Inf elements fail either
// way.
struct ElementBound {
  bool absolute = false;
  double max_abs = 0;
  double atol = 0;
  double rtol = 0;
};
ElementBound BoundFor(const ErrorStats* baseline, const TolerancePolicy& policy);

// Applies the log-sum-exp check to a verdict on the output: a passing verdict becomes a failure
// naming the lse rule when the lse has never-written, mismatched or out-of-tolerance elements.
// A failing verdict stays as it is (the output's rule is the first reason).
Verdict ApplyLseCheck(const Verdict& output_verdict, const LseStats& lse,
                      const TolerancePolicy& policy);

// Short scientific notation for rule strings: 0.0012 -> "1.2e-3", 1e-5 -> "1e-5", 0 -> "0".
std::string FormatError(double x);

}  // namespace flashscope::verify
