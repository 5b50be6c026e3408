// The verification rule applied to one launch's sampled check (sampled_rows.h) on the inputs that
// launch read. The device counts the elements past the verified launch's bound (BoundFor on the
// baseline of the verified launch's inputs); but FlashAttention's rule compares a kernel with the
// same-precision baseline on the same inputs, and a fresh draw's rows can legitimately carry
// twice the rounding error of another draw's (output rounding is quantised by the binade of the
// largest |O|, which varies from draw to draw on small problems). So the check also measures the
// baseline's error on the sampled rows, and a launch whose max |err| is within the rule under the
// larger of the two baselines passes. Never-written and NaN/Inf elements always fail.
#pragma once

#include "verify/sampled_check_counts.h"
#include "verify/tolerance.h"

namespace flashscope::verify {

struct SampledRule {
  bool absolute = false;  // a usable baseline: |err| <= factor · baseline + floor
  double baseline_factor = 2;
  double floor = 0;
  double verified_baseline_max = 0;  // the verified launch's baseline max |err|
};

// The rule of a case from its verified launch (its baseline statistics and policy).
SampledRule SampledRuleFor(const ErrorStats* verified_baseline, const TolerancePolicy& policy);

// `c` with `bad` and `bad_rows` cleared when the launch's max |err| meets the rule under
// max(the verified baseline, this draw's baseline on the sampled rows); else `c` unchanged.
SampledCheckCounts ApplyDrawBaseline(SampledCheckCounts c, const SampledRule& rule);

// The float behind max_abs_bits / baseline_max_bits.
float BitsToFloat(unsigned int bits);

}  // namespace flashscope::verify
