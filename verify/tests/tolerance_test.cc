#include "verify/tolerance.h"

#include <gtest/gtest.h>

#include <cmath>

namespace flashscope::verify {
namespace {

ErrorStats Stats(double max_abs, int64_t bad = 0) {
  ErrorStats s;
  s.elements = 100;
  s.max_abs = max_abs;
  s.bad = bad;
  return s;
}

TolerancePolicy Policy() {
  TolerancePolicy p;
  p.atol = 2e-3;
  p.rtol = 2e-3;
  p.baseline_factor = 2.0;
  p.floor = 1e-5;
  return p;
}

TEST(FormatError, ShortScientific) {
  EXPECT_EQ(FormatError(0.0012), "1.2e-3");
  EXPECT_EQ(FormatError(1e-5), "1e-5");
  EXPECT_EQ(FormatError(9.8e-4), "9.8e-4");
  EXPECT_EQ(FormatError(250), "2.5e2");
  EXPECT_EQ(FormatError(3), "3");
  EXPECT_EQ(FormatError(0), "0");
  EXPECT_EQ(FormatError(-0.5), "-5e-1");
}

TEST(Decide, BaselineRulePassesWithNumbers) {
  const ErrorStats base = Stats(9.8e-4);
  const Verdict v = Decide(Stats(1.2e-3), &base, Policy());
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.rule, "max|err| 1.2e-3 <= 2 x baseline 9.8e-4 + 1e-5");
}

TEST(Decide, BaselineRuleFails) {
  const ErrorStats base = Stats(9.8e-4);
  const Verdict v = Decide(Stats(2.5e-3, 0), &base, Policy());
  EXPECT_FALSE(v.passed);  // even with no bad element: the baseline rule decides
  EXPECT_EQ(v.rule, "max|err| 2.5e-3 > 2 x baseline 9.8e-4 + 1e-5");
}

TEST(Decide, BaselineBoundaryIsInclusiveAndFactorIsUsed) {
  TolerancePolicy p = Policy();
  p.floor = 0.25;
  const ErrorStats base = Stats(0.5);
  EXPECT_TRUE(Decide(Stats(1.25), &base, p).passed);
  EXPECT_FALSE(Decide(Stats(1.2500001), &base, p).passed);
  p.baseline_factor = 3;
  const Verdict v = Decide(Stats(1.7), &base, p);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.rule, "max|err| 1.7 <= 3 x baseline 5e-1 + 2.5e-1");
}

// Broken elements decide before any error bound, even against a baseline they would pass.
struct BrokenElements {
  const char* name;
  int64_t never_written, nan, inf;
  const char* rule;
};

class DecideBrokenElements : public ::testing::TestWithParam<BrokenElements> {};

TEST_P(DecideBrokenElements, FailBeforeTheBaseline) {
  const BrokenElements& c = GetParam();
  ErrorStats k = Stats(0);
  k.never_written = c.never_written;
  k.nan = c.nan;
  k.inf = c.inf;
  const ErrorStats base = Stats(1);
  const Verdict v = Decide(k, &base, Policy());
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.rule, c.rule);
}

INSTANTIATE_TEST_SUITE_P(
    Decide, DecideBrokenElements,
    ::testing::Values(
        // Never written comes first, even before NaN.
        BrokenElements{"NeverWrittenComesFirst", 3, 2, 0,
                       "3 of 100 elements never written (still the poison pattern)"},
        BrokenElements{"NanInfComesBeforeTheBaseline", 0, 1, 4, "1 NaN and 4 Inf of 100 elements"}),
    [](const ::testing::TestParamInfo<BrokenElements>& info) { return info.param.name; });

TEST(Decide, WithoutBaselineCountsBadElements) {
  const Verdict ok = Decide(Stats(1.0, 0), nullptr, Policy());
  EXPECT_TRUE(ok.passed);
  EXPECT_EQ(ok.rule, "0 of 100 elements outside |err| <= 2e-3 + 2e-3 x |ref|");
  const Verdict bad = Decide(Stats(1.0, 7), nullptr, Policy());
  EXPECT_FALSE(bad.passed);
  EXPECT_EQ(bad.rule, "7 of 100 elements outside |err| <= 2e-3 + 2e-3 x |ref|");
}

TEST(Decide, UnusableBaselineFallsBackAndSaysSo) {
  ErrorStats base = Stats(1e-3);
  base.nan = 1;
  const Verdict v = Decide(Stats(1.0, 2), &base, Policy());
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.rule.find("2 of 100 elements outside"), std::string::npos);
  EXPECT_NE(v.rule.find("baseline unusable"), std::string::npos);
}

TEST(ApplyLseCheck, FailsAPassingVerdictAndKeepsAFailingOne) {
  const TolerancePolicy p = Policy();
  const Verdict pass{true, "max|err| 1e-3 <= 2 x baseline 1e-3 + 1e-5"};
  LseStats good;
  good.elements = 8;
  good.max_abs = 2e-5;
  const Verdict still = ApplyLseCheck(pass, good, p);
  EXPECT_TRUE(still.passed);
  EXPECT_EQ(still.rule, pass.rule + "; lse max|err| 2e-5 within 1e-3 + 1e-5 x |ref|");
  LseStats bad = good;
  bad.bad = 2;
  bad.max_abs = 0.5;
  const Verdict failed = ApplyLseCheck(pass, bad, p);
  EXPECT_FALSE(failed.passed);
  EXPECT_EQ(failed.rule,
            "lse: 2 of 8 elements outside |err| <= 1e-3 + 1e-5 x |ref| (max|err| 5e-1)");
  LseStats unwritten = good;
  unwritten.never_written = 8;
  EXPECT_NE(ApplyLseCheck(pass, unwritten, p).rule.find("never written"), std::string::npos);
  LseStats mismatch = good;
  mismatch.mismatched = 1;
  EXPECT_FALSE(ApplyLseCheck(pass, mismatch, p).passed);
  const Verdict fail{false, "1 NaN and 0 Inf of 8 elements"};
  EXPECT_EQ(ApplyLseCheck(fail, bad, p).rule, fail.rule);
}

TEST(DefaultTolerance, PerFamilyAndDType) {
  const TolerancePolicy h = DefaultTolerance(Family::kAttentionFwd, DType::kF16);
  const TolerancePolicy b = DefaultTolerance(Family::kAttentionFwd, DType::kBF16);
  const TolerancePolicy g = DefaultTolerance(Family::kGemm, DType::kF16);
  EXPECT_EQ(h.baseline_factor, 2.0);
  EXPECT_GT(h.atol, 0);
  EXPECT_GT(h.floor, 0);
  EXPECT_GT(b.atol, h.atol);  // bf16 has 3 fewer mantissa bits
  EXPECT_GT(b.rtol, h.rtol);
  EXPECT_LT(g.rtol, h.rtol);  // gemm output is fp32
  EXPECT_EQ(g.atol, DefaultTolerance(Family::kGemm, DType::kF32).atol);
}

TEST(DefaultTolerance, E4M3FromItsUnitRoundoffAndBf16Output) {
  const TolerancePolicy e = DefaultTolerance(Family::kAttentionFwd, DType::kE4M3);
  EXPECT_EQ(e.atol, std::ldexp(1.0, -4));  // E4M3's unit roundoff
  EXPECT_EQ(e.rtol, std::ldexp(1.0, -4));
  EXPECT_EQ(e.floor, std::ldexp(1.0, -12));  // BF16's 2^-8 at E4M3's 2^-4 scale
  EXPECT_GT(e.atol, DefaultTolerance(Family::kAttentionFwd, DType::kBF16).atol);
  EXPECT_EQ(e.baseline_factor, 2.0);
  // The lse's logits carry FP8 wgmma's 13-bit accumulation of Q·Kᵀ: 2^-10 of |lse|, where 16-bit
  // inputs keep 1e-5; the absolute part stays.
  EXPECT_EQ(e.lse_rtol, std::ldexp(1.0, -10));
  EXPECT_EQ(e.lse_atol, DefaultTolerance(Family::kAttentionFwd, DType::kBF16).lse_atol);
  EXPECT_EQ(DefaultTolerance(Family::kAttentionFwd, DType::kBF16).lse_rtol, 1e-5);
  const TolerancePolicy g = DefaultTolerance(Family::kGemm, DType::kE4M3);
  EXPECT_GT(g.rtol, DefaultTolerance(Family::kGemm, DType::kF16).rtol)
      << "the FP8 wgmma accumulator keeps 13 mantissa bits";
  EXPECT_GT(g.floor, 0);
}

// The GPU check of a timed launch (output_check.h) must accept exactly what Decide accepts.
TEST(BoundFor, MatchesDecideElementByElement) {
  TolerancePolicy p = DefaultTolerance(Family::kAttentionFwd, DType::kF16);
  ErrorStats baseline;
  baseline.elements = 8;
  baseline.max_abs = 3e-4;
  const ElementBound b = BoundFor(&baseline, p);
  ASSERT_TRUE(b.absolute);
  EXPECT_DOUBLE_EQ(b.max_abs, 2.0 * 3e-4 + p.floor);
  ErrorStats at_limit;
  at_limit.elements = 8;
  at_limit.max_abs = b.max_abs;
  EXPECT_TRUE(Decide(at_limit, &baseline, p).passed);
  at_limit.max_abs = b.max_abs * 1.0001;
  EXPECT_FALSE(Decide(at_limit, &baseline, p).passed);

  // An unusable baseline (or none) falls back to atol + rtol·|ref|, as Decide does.
  baseline.nan = 1;
  const ElementBound fallback = BoundFor(&baseline, p);
  EXPECT_FALSE(fallback.absolute);
  EXPECT_EQ(fallback.atol, p.atol);
  EXPECT_EQ(fallback.rtol, p.rtol);
  EXPECT_FALSE(BoundFor(nullptr, p).absolute);
}

}  // namespace
}  // namespace flashscope::verify
