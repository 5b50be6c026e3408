// The FP8 (E4M3) side of the trust checks: the plausibility ceiling of an E4M3 problem is the FP8
// tensor rate, and the FP8 tensor path (sm__ops_path_tensor_src_fp8: FP8 wgmma and mma.sync) is in
// the precision contract of E4M3 problems only.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "analysis/tests/trust_inputs.h"
#include "analysis/trust_checks.h"

namespace flashscope::reports {
namespace {

using testing::HasSubstr;
using testing::Not;
using testing_inputs::A10Work;
using testing_inputs::H200;
using testing_inputs::Value;

TEST(Ceilings, AnE4M3ProblemGetsTheFp8Rate) {
  const Ceilings c = CeilingsOf(H200(), "e4m3");
  // 132 SMs × 1980 MHz × 8192 FLOP/clock = 2141 TFLOP/s, plus 5 %.
  EXPECT_NEAR(c.flops_per_s / 1e12, 2141.0 * kCeilingMargin, 0.2);
  EXPECT_THAT(c.flops_source, HasSubstr("dense FP8 tensor rate"));
  EXPECT_NEAR(CeilingsOf(H200(), "bf16").flops_per_s, CeilingsOf(H200()).flops_per_s, 1);
  // An FP8 kernel at 1.5 PFLOP/s is plausible on an E4M3 problem, not on a bf16 one.
  const PlausibilityInput fast{1.5e12, 1e6, 1.0, false};  // 1.5e12 FLOPs in 1 ms
  EXPECT_EQ(CheckPlausibility(fast, c).status, "passed");
  EXPECT_EQ(CheckPlausibility(fast, CeilingsOf(H200(), "bf16")).status, "failed");
}

// Where the tensor cores have no FP8 rate (sm_80, sm_70), an E4M3 problem runs on 16-bit upcasts:
// its ceiling is the 16-bit one, from the datasheet rate or from the measured peak.
TEST(Ceilings, WithoutAnFp8RateAnE4M3ProblemGetsThe16BitCeiling) {
  Environment a100 = H200();
  a100.compute_capability = 80;
  EXPECT_EQ(CeilingsOf(a100, "e4m3").flops_per_s, CeilingsOf(a100, "bf16").flops_per_s);
  Environment unknown = H200();
  unknown.compute_capability = 70;  // datasheet rate below the measured peak: the peak decides
  EXPECT_EQ(CeilingsOf(unknown, "e4m3").flops_per_s, CeilingsOf(unknown, "bf16").flops_per_s);
  EXPECT_THAT(CeilingsOf(unknown, "e4m3").flops_source, Not(HasSubstr("x 2 for FP8")));
}

// The FP8 tensor path (sm__ops_path_tensor_src_fp8: wgmma and mma.sync on E4M3) is the contract
// of an E4M3 problem, and outside the contract of every other.
WorkInput Fp8Work(const std::string& dtype) {
  WorkInput w = A10Work(0, 0, 2.517e7);
  w.paths.push_back({"fp8 tensor", "fp8", "fp16 or fp32", 3.436e10});
  w.problem_dtype = dtype;
  return w;
}

TEST(Precision, AnE4M3ProblemOnTheFp8PathIsInContract) {
  const TrustCheckRecord c = CheckPrecision(Fp8Work("e4m3"));
  EXPECT_EQ(c.status, "passed") << c.rule;
  EXPECT_THAT(c.rule, HasSubstr("e4m3 inputs (the fp8 path"));
  EXPECT_EQ(Value(c, "outside_contract_flops")->value, 0);
  EXPECT_EQ(CheckWork(Fp8Work("e4m3")).status, "passed") << "fp8 FLOPs are the problem's work";
  // Exact upcasts of E4M3 (fp16 here) are in its contract too.
  WorkInput up = A10Work(3.436e10, 0, 2.519e7);
  up.problem_dtype = "e4m3";
  EXPECT_EQ(CheckPrecision(up).status, "passed");
}

TEST(Precision, A16BitProblemOnTheFp8PathFailsNamingThePath) {
  for (const std::string dtype : {"bf16", "fp16", "fp32"}) {
    const TrustCheckRecord c = CheckPrecision(Fp8Work(dtype));
    EXPECT_EQ(c.status, "failed") << dtype;
    ASSERT_EQ(c.findings.size(), 1u) << dtype;
    EXPECT_THAT(c.findings[0], HasSubstr("100.0 % of the minimal FLOPs ran as fp8 tensor (fp8 in"));
  }
}

}  // namespace
}  // namespace flashscope::reports
