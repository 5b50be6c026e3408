// flashscope-bench verifies a case against the suite's tolerance, as `flashscope run` does: once
// it verified with the family's default and so ignored a suite that loosened or tightened it
// (issue 24).
#include "bench/bench_case.h"

#include <gtest/gtest.h>

#include "runner/case_phases.h"

namespace flashscope::bench {
namespace {

void ExpectSame(const verify::TolerancePolicy& a, const verify::TolerancePolicy& b) {
  EXPECT_DOUBLE_EQ(a.atol, b.atol);
  EXPECT_DOUBLE_EQ(a.rtol, b.rtol);
  EXPECT_DOUBLE_EQ(a.baseline_factor, b.baseline_factor);
  EXPECT_DOUBLE_EQ(a.floor, b.floor);
}

TEST(BenchCase, VerifiesWithTheSuitesTolerance) {
  const Problem attention = AttentionShape(1, 2, 128, 128, 64, DType::kBF16);
  GemmProblem gemm;
  gemm.m = gemm.n = gemm.k = 256;
  gemm.dtype = DType::kF16;
  for (const Problem& problem : {Problem(attention), Problem(gemm)}) {
    suites::Suite suite;
    // No overrides: the family and dtype's default, as for a run.
    ExpectSame(BenchTolerance(suite, problem),
               verify::DefaultTolerance(
                   FamilyOf(problem), std::visit([](const auto& p) { return p.dtype; }, problem)));
    suite.verify.atol = 0.25;
    suite.verify.rtol = 0.125;
    suite.verify.baseline_factor = 8;
    suite.verify.floor = 0.5;
    const verify::TolerancePolicy t = BenchTolerance(suite, problem);
    EXPECT_DOUBLE_EQ(t.atol, 0.25);
    EXPECT_DOUBLE_EQ(t.rtol, 0.125);
    EXPECT_DOUBLE_EQ(t.baseline_factor, 8);
    EXPECT_DOUBLE_EQ(t.floor, 0.5);
    // The same rule `flashscope run` and `ab` verify with.
    ExpectSame(t, runner::ToleranceFor(problem, suite.verify));
  }
}

}  // namespace
}  // namespace flashscope::bench
