// The kernels' CPU reference against hand-computed values: the GPU test is only as good as it.
#include "kernels/tests/cpu_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace flashscope::kernels::testing {
namespace {

TEST(CpuReference, SoftmaxWeightsAndLogSumExp) {
  // D = 1, scale 1: scores 0 and ln 3 give weights 1/4 and 3/4; O = 2/4 + 3·6/4 = 5, lse = ln 4.
  const AttentionProblem p = AttentionShape(1, 1, 1, 2, 1);
  std::vector<double> o, lse;
  ReferenceAttention(p, {1.f}, {0.f, static_cast<float>(std::log(3.0))}, {2.f, 6.f}, &o, &lse);
  ASSERT_EQ(o.size(), 1u);
  EXPECT_NEAR(o[0], 5.0, 1e-6);
  EXPECT_NEAR(lse[0], std::log(4.0), 1e-6);
}

TEST(CpuReference, CausalIsBottomRightAlignedAndEmptyRowsAreZero) {
  // Sq = 2, Sk = 1, causal: row 0 sees keys j <= 0 + (1 - 2) (none), row 1 sees key 0.
  AttentionProblem p = AttentionShape(1, 1, 2, 1, 1);
  p.causal = true;
  std::vector<double> o, lse;
  ReferenceAttention(p, {1.f, 1.f}, {0.5f}, {7.f}, &o, &lse);
  EXPECT_EQ(o[0], 0.0);
  EXPECT_EQ(lse[0], -std::numeric_limits<double>::infinity());
  EXPECT_NEAR(o[1], 7.0, 1e-12);
  EXPECT_NEAR(lse[1], 0.5, 1e-12);
}

TEST(CpuReference, ScaleIsOneOverSqrtHeadDim) {
  // D = 4, q = k0 = (1,1,1,1), k1 = 0: scores 4/2 = 2 and 0.
  const AttentionProblem p = AttentionShape(1, 1, 1, 2, 4);
  std::vector<double> o, lse;
  ReferenceAttention(p, {1, 1, 1, 1}, {1, 1, 1, 1, 0, 0, 0, 0}, {1, 1, 1, 1, 0, 0, 0, 0}, &o, &lse);
  const double w0 = std::exp(2.0) / (std::exp(2.0) + 1.0);
  EXPECT_NEAR(o[0], w0, 1e-9);
  EXPECT_NEAR(lse[0], std::log(std::exp(2.0) + 1.0), 1e-9);
}

TEST(CpuReference, GemmRowMajor) {
  // [1 2; 3 4] · [5 6; 7 -8] = [19 -10; 43 -14]; Σ|a·b| = [19 22; 43 50]
  std::vector<double> c, abs_sum;
  ReferenceGemm(GemmProblem{2, 2, 2, DType::kF32}, {1, 2, 3, 4}, {5, 6, 7, -8}, &c, &abs_sum);
  EXPECT_EQ(c, (std::vector<double>{19, -10, 43, -14}));
  EXPECT_EQ(abs_sum, (std::vector<double>{19, 22, 43, 50}));
}

TEST(CpuReference, RandomTensorRoundsToTheDtype) {
  std::mt19937 rng(7);
  std::vector<float> values;
  std::vector<unsigned char> bytes;
  for (DType t : {DType::kF16, DType::kBF16, DType::kF32}) {
    RandomTensor(t, 100, &rng, &values, &bytes);
    ASSERT_EQ(bytes.size(), 100 * DTypeBytes(t));
    for (int i = 0; i < 100; ++i) EXPECT_EQ(DecodeElement(t, bytes, i), values[i]);
  }
}

}  // namespace
}  // namespace flashscope::kernels::testing
