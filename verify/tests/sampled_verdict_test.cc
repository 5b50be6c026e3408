#include "verify/sampled_verdict.h"

#include <gtest/gtest.h>

#include <cstring>

namespace flashscope::verify {
namespace {

unsigned int Bits(float f) {
  unsigned int b = 0;
  std::memcpy(&b, &f, sizeof(b));
  return b;
}

SampledCheckCounts Counts(float max_abs, float baseline, unsigned long long bad) {
  SampledCheckCounts c{};
  c.rows = 64;
  c.elements = 64 * 64;
  c.bad = bad;
  c.bad_rows = bad > 0 ? 3 : 0;
  c.max_abs_bits = Bits(max_abs);
  c.baseline_max_bits = Bits(baseline);
  return c;
}

SampledRule Rule(double verified_baseline) {
  SampledRule r;
  r.absolute = true;
  r.baseline_factor = 2;
  r.floor = 1e-5;
  r.verified_baseline_max = verified_baseline;
  return r;
}

TEST(SampledVerdict, ADrawWithLargerRoundingErrorsIsJudgedByItsOwnBaseline) {
  // The verified draw's baseline erred by 4.9e-4; this draw's rows reach the next binade, where
  // the baseline itself errs by 9.8e-4 and an honest kernel by 1.2e-3: within 2 x 9.8e-4.
  const SampledCheckCounts c = ApplyDrawBaseline(Counts(1.2e-3f, 9.8e-4f, 5), Rule(4.9e-4));
  EXPECT_EQ(c.bad, 0u);
  EXPECT_EQ(c.bad_rows, 0u);
}

TEST(SampledVerdict, AWrongRowStaysWrong) {
  // A stale row: |err| ~ 1 whatever the baseline.
  const SampledCheckCounts c = ApplyDrawBaseline(Counts(0.9f, 9.8e-4f, 64), Rule(4.9e-4));
  EXPECT_EQ(c.bad, 64u);
  EXPECT_EQ(c.bad_rows, 3u);
}

TEST(SampledVerdict, TheVerifiedBaselineStillCountsWhenTheDrawsIsSmaller) {
  // max(4.9e-4, 1e-4) = 4.9e-4: 9e-4 is within 2 x 4.9e-4 + 1e-5.
  EXPECT_EQ(ApplyDrawBaseline(Counts(9e-4f, 1e-4f, 2), Rule(4.9e-4)).bad, 0u);
  EXPECT_EQ(ApplyDrawBaseline(Counts(1.1e-3f, 1e-4f, 2), Rule(4.9e-4)).bad, 2u);
}

TEST(SampledVerdict, NeverWrittenAndNonFiniteAlwaysFail) {
  SampledCheckCounts never = Counts(1e-5f, 1e-3f, 64);
  never.never_written = 64;
  EXPECT_EQ(ApplyDrawBaseline(never, Rule(1e-3)).bad, 64u);
  SampledCheckCounts nan = Counts(1e-5f, 1e-3f, 1);
  nan.nonfinite = 1;
  EXPECT_EQ(ApplyDrawBaseline(nan, Rule(1e-3)).bad, 1u);
}

TEST(SampledVerdict, ABadLseKeepsItsRows) {
  SampledCheckCounts c = Counts(1.2e-3f, 9.8e-4f, 5);
  c.lse_bad = 2;
  c = ApplyDrawBaseline(c, Rule(4.9e-4));
  EXPECT_EQ(c.bad, 0u);
  EXPECT_EQ(c.bad_rows, 2u);
}

TEST(SampledVerdict, WithoutAUsableBaselineTheDeviceCountsStand) {
  SampledRule r = Rule(0);
  r.absolute = false;
  EXPECT_EQ(ApplyDrawBaseline(Counts(1.2e-3f, 9.8e-4f, 5), r).bad, 5u);
}

TEST(SampledVerdict, RuleFromTheVerifiedLaunch) {
  TolerancePolicy policy;
  policy.baseline_factor = 2;
  policy.floor = 1e-5;
  ErrorStats base;
  base.max_abs = 4.9e-4;
  base.elements = 1000;
  const SampledRule r = SampledRuleFor(&base, policy);
  EXPECT_EQ(r.absolute, BoundFor(&base, policy).absolute);
  EXPECT_DOUBLE_EQ(r.verified_baseline_max, 4.9e-4);
  EXPECT_FALSE(SampledRuleFor(nullptr, policy).absolute);
}

}  // namespace
}  // namespace flashscope::verify
