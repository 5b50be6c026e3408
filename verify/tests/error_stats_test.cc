#include "verify/error_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "verify/half_convert.h"
#include "verify/tolerance.h"

namespace flashscope::verify {
namespace {

TEST(ErrorStats, HandMadeFp32) {
  const float out[] = {1.0f, 2.5f, 3.0f, -1.0f};
  const float ref[] = {1.0f, 2.0f, 3.0f, -1.25f};
  const ErrorStats s = ComputeErrorStats(out, DType::kF32, ref, 4, {0.1, 0.1});
  EXPECT_EQ(s.elements, 4);
  EXPECT_DOUBLE_EQ(s.max_abs, 0.5);
  EXPECT_DOUBLE_EQ(s.mean_abs, 0.75 / 4);
  // RMS error sqrt((0.25 + 0.0625)/4) over RMS reference sqrt((1 + 4 + 9 + 1.5625)/4).
  EXPECT_NEAR(s.nrmse, std::sqrt(0.3125 / 15.5625), 1e-12);
  EXPECT_DOUBLE_EQ(s.max_rel, 0.25);  // 0.5 / 2 beats 0.25 / 1.25
  // |err| > 0.1 + 0.1·|ref|: 0.5 > 0.3 yes; 0.25 > 0.225 yes.
  EXPECT_EQ(s.bad, 2);
  EXPECT_EQ(s.nan, 0);
  EXPECT_EQ(s.inf, 0);
  EXPECT_EQ(s.never_written, 0);
  EXPECT_EQ(s.worst_index, 1);
}

TEST(ErrorStats, ExactOutputIsClean) {
  const float ref[] = {0.5f, -0.25f, 0.0f};
  uint16_t out[3];
  ConvertFromFloat(ref, 3, DType::kF16, out);
  const ErrorStats s = ComputeErrorStats(out, DType::kF16, ref, 3, {0, 0});
  EXPECT_EQ(s.max_abs, 0);
  EXPECT_EQ(s.nrmse, 0);
  EXPECT_EQ(s.bad, 0);
  EXPECT_EQ(s.worst_index, 0);
}

TEST(ErrorStats, PoisonIsNeverWrittenNotNan) {
  const float ref[] = {1, 2, 3, 4};
  uint16_t out[4];
  ConvertFromFloat(ref, 4, DType::kF16, out);
  out[2] = 0xFFFF;  // the poison pattern: a NaN bit pattern, but counted as never written
  out[3] = 0x7E00;  // a real NaN
  const ErrorStats s = ComputeErrorStats(out, DType::kF16, ref, 4, {1e-3, 1e-3});
  EXPECT_EQ(s.never_written, 1);
  EXPECT_EQ(s.nan, 1);
  EXPECT_EQ(s.inf, 0);
  EXPECT_EQ(s.bad, 1);          // the NaN; never-written elements have their own count
  EXPECT_EQ(s.worst_index, 2);  // never-written comes first
  EXPECT_EQ(s.max_abs, 0);      // the two written finite elements are exact
}

TEST(ErrorStats, Fp32AndBf16Poison) {
  const float ref[] = {1, 2};
  float out32[2] = {1, 2};
  std::memset(&out32[1], kPoisonByte, 4);
  EXPECT_EQ(ComputeErrorStats(out32, DType::kF32, ref, 2, {0, 0}).never_written, 1);
  out32[1] = std::numeric_limits<float>::quiet_NaN();  // 0x7FC00000: not the poison pattern
  const ErrorStats s = ComputeErrorStats(out32, DType::kF32, ref, 2, {0, 0});
  EXPECT_EQ(s.never_written, 0);
  EXPECT_EQ(s.nan, 1);
  uint16_t bf[2] = {0x3F80, 0xFFFF};
  const ErrorStats b = ComputeErrorStats(bf, DType::kBF16, ref, 2, {0, 0});
  EXPECT_EQ(b.never_written, 1);
  EXPECT_EQ(b.max_abs, 0);
}

TEST(ErrorStats, InfCountsAsBadAndWorst) {
  const float ref[] = {1, 2, 3};
  const float out[] = {1.5f, std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  const ErrorStats s = ComputeErrorStats(out, DType::kF32, ref, 3, {1, 1});
  EXPECT_EQ(s.inf, 2);
  EXPECT_EQ(s.nan, 0);
  EXPECT_EQ(s.bad, 2);  // 0.5 is inside 1 + 1·1
  EXPECT_EQ(s.worst_index, 1);
  EXPECT_DOUBLE_EQ(s.max_abs, 0.5);
}

TEST(ErrorStats, MaxRelUsesAtolGuardNearZero) {
  const float ref[] = {0.0f, 1e-8f};
  const float out[] = {1e-3f, 1e-8f};
  const ErrorStats s = ComputeErrorStats(out, DType::kF32, ref, 2, {1e-2, 0});
  EXPECT_NEAR(s.max_rel, static_cast<double>(1e-3f) / 1e-2, 1e-12);
  // With no atol a zero reference has no relative error; the other element is exact.
  EXPECT_EQ(ComputeErrorStats(out, DType::kF32, ref, 2, {0, 0}).max_rel, 0);
  // All-zero reference: nrmse falls back to the plain RMS error.
  const float zeros[] = {0, 0};
  const float outz[] = {3, 4};
  EXPECT_NEAR(ComputeErrorStats(outz, DType::kF32, zeros, 2, {0, 0}).nrmse, std::sqrt(12.5), 1e-12);
}

TEST(ErrorStats, HeatmapErrorsSaturateNonFiniteAndNeverWritten) {
  // A 1 x 4 gemm output: its position map has one cell per element.
  const float ref[] = {1, 2, 3, 0};
  uint16_t out[4] = {FloatToHalfBits(1.5f), 0xFFFF, 0x7C00, 0x7E00};
  GemmProblem p;
  p.m = 1;
  p.n = 4;
  p.k = 1;
  HeatmapAccumulator maps = HeatmapAccumulator::ForGemm(p, 0, 0, 256);
  const ErrorStats s = ComputeErrorStats(out, DType::kF16, ref, 4, {0, 0}, &maps);
  EXPECT_EQ(s.never_written, 1);
  const std::vector<Heatmap> h = maps.Finish();
  ASSERT_EQ(h.size(), 1u);
  ASSERT_EQ(h[0].max.size(), 4u);
  const float saturated = std::numeric_limits<float>::max();
  EXPECT_EQ(h[0].max, (std::vector<float>{0.5f, saturated, saturated, saturated}));
  EXPECT_EQ(h[0].mean, h[0].max);
  EXPECT_EQ(SaturatedError(1e300), saturated);
  EXPECT_EQ(SaturatedError(0.25), 0.25f);
}

TEST(LseStats, MatchingMinusInfinityIsExactAndMismatchesCount) {
  const float inf = std::numeric_limits<float>::infinity();
  const float ref[] = {-inf, 1.0f, 2.0f, -inf, 5.0f};
  float lse[] = {-inf, 1.0005f, 2.0f, 0.0f, 5.0f};
  std::memset(&lse[4], kPoisonByte, 4);
  const LseStats s = ComputeLseStats(lse, ref, 5, {1e-3, 0});
  EXPECT_EQ(s.elements, 5);
  EXPECT_EQ(s.never_written, 1);
  EXPECT_EQ(s.mismatched, 1);  // 0 where the reference is -inf
  EXPECT_EQ(s.bad, 1);
  EXPECT_NEAR(s.max_abs, 5e-4, 1e-6);
  EXPECT_EQ(s.worst_index, 3);
  const LseStats tight = ComputeLseStats(lse, ref, 3, {1e-4, 0});
  EXPECT_EQ(tight.bad, 1);
  EXPECT_EQ(tight.worst_index, 1);
}

// The GPU check's counts judged by Decide: the same verdicts a host verification gives.
TEST(StatsFromCheck, DecideJudgesTheGpuCounts) {
  OutputCheckCounts c{};
  float max_abs = 4e-4f;
  std::memcpy(&c.max_abs_bits, &max_abs, sizeof(max_abs));
  const ErrorStats ok = StatsFromCheck(c, 1000);
  EXPECT_EQ(ok.elements, 1000);
  EXPECT_FLOAT_EQ(static_cast<float>(ok.max_abs), 4e-4f);
  ErrorStats baseline;
  baseline.elements = 1000;
  baseline.max_abs = 3e-4;
  TolerancePolicy p;
  p.baseline_factor = 2;
  p.floor = 1e-5;
  EXPECT_TRUE(Decide(ok, &baseline, p).passed);
  c.never_written = 10;
  c.bad = 10;
  const Verdict unwritten = Decide(StatsFromCheck(c, 1000), &baseline, p);
  EXPECT_FALSE(unwritten.passed);
  EXPECT_NE(unwritten.rule.find("10 of 1000 elements never written"), std::string::npos);
  c = {};
  c.nonfinite = 2;
  EXPECT_FALSE(Decide(StatsFromCheck(c, 1000), &baseline, p).passed);
  c = {};
  max_abs = 7e-4f;  // past 2 x 3e-4 + 1e-5
  std::memcpy(&c.max_abs_bits, &max_abs, sizeof(max_abs));
  EXPECT_FALSE(Decide(StatsFromCheck(c, 1000), &baseline, p).passed);
}

}  // namespace
}  // namespace flashscope::verify
