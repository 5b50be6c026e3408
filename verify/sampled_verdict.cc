#include "verify/sampled_verdict.h"

#include <algorithm>
#include <cstring>

namespace flashscope::verify {

SampledRule SampledRuleFor(const ErrorStats* verified_baseline, const TolerancePolicy& policy) {
  SampledRule r;
  const ElementBound b = BoundFor(verified_baseline, policy);
  r.absolute = b.absolute;
  r.baseline_factor = policy.baseline_factor;
  r.floor = policy.floor;
  r.verified_baseline_max = verified_baseline != nullptr ? verified_baseline->max_abs : 0;
  return r;
}

float BitsToFloat(unsigned int bits) {
  float f = 0;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

SampledCheckCounts ApplyDrawBaseline(SampledCheckCounts c, const SampledRule& rule) {
  if (!rule.absolute || c.bad == 0 || c.never_written != 0 || c.nonfinite != 0) return c;
  const double baseline =
      std::max(rule.verified_baseline_max, static_cast<double>(BitsToFloat(c.baseline_max_bits)));
  const double bound = rule.baseline_factor * baseline + rule.floor;
  if (static_cast<double>(BitsToFloat(c.max_abs_bits)) > bound) return c;
  c.bad = 0;
  // Rows stay bad only for their log-sum-exp, which has its own rule.
  c.bad_rows = std::min(c.bad_rows, c.lse_bad);
  return c;
}

}  // namespace flashscope::verify
