#include "verify/cpu_reference.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace flashscope::verify {
namespace {

AttentionProblem Attn(int64_t sq, int64_t sk, int64_t d, bool causal, int64_t heads = 1) {
  AttentionProblem p = AttentionShape(1, heads, sq, sk, d);
  p.causal = causal;
  return p;
}

// The reference's O and LSE for a one-head problem of 2 queries, 2 keys and D = 2, given by hand.
struct TwoByTwoResult {
  double out[4];
  double lse[2];
};

TwoByTwoResult TwoByTwo(bool causal, const std::array<float, 4>& q, const std::array<float, 4>& k,
                        const std::array<float, 4>& v) {
  TwoByTwoResult r;
  AttentionReferenceCpu(Attn(2, 2, 2, causal), q.data(), k.data(), v.data(), r.out, r.lse);
  return r;
}

TEST(AttentionReferenceCpu, TwoByTwoByHand) {
  const TwoByTwoResult r = TwoByTwo(false, {1, 0, 0, 2}, {1, 0, 0, 1}, {1, 2, 3, 4});
  const double a = 1 / std::sqrt(2.0);  // row 0 scores: [a, 0]; row 1 scores: [0, 2a]
  const double p00 = std::exp(a) / (std::exp(a) + 1);
  EXPECT_NEAR(r.out[0], p00 * 1 + (1 - p00) * 3, 1e-15);
  EXPECT_NEAR(r.out[1], p00 * 2 + (1 - p00) * 4, 1e-15);
  EXPECT_NEAR(r.lse[0], std::log(std::exp(a) + 1), 1e-15);
  const double p11 = std::exp(2 * a) / (1 + std::exp(2 * a));
  EXPECT_NEAR(r.out[2], (1 - p11) * 1 + p11 * 3, 1e-15);
  EXPECT_NEAR(r.out[3], (1 - p11) * 2 + p11 * 4, 1e-15);
  EXPECT_NEAR(r.lse[1], std::log(1 + std::exp(2 * a)), 1e-15);
}

TEST(AttentionReferenceCpu, CausalSquareRowZeroSeesOnlyKeyZero) {
  const TwoByTwoResult r = TwoByTwo(true, {3, 1, 0, 0}, {2, 0, 5, 5}, {1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(r.out[0], 1);
  EXPECT_DOUBLE_EQ(r.out[1], 2);
  EXPECT_NEAR(r.lse[0], 6 / std::sqrt(2.0), 1e-15);  // a single key: lse is its score
  // Row 1 has a zero query: both keys weigh 1/2.
  EXPECT_DOUBLE_EQ(r.out[2], 2);
  EXPECT_DOUBLE_EQ(r.out[3], 3);
  EXPECT_NEAR(r.lse[1], std::log(2.0), 1e-15);
}

TEST(AttentionReferenceCpu, CausalBottomRightMoreQueriesThanKeys) {
  // Sq = 3, Sk = 2: query i sees keys j <= i - 1, so row 0 sees nothing.
  const AttentionProblem p = Attn(3, 2, 1, true);
  const float q[] = {1, 1, 0};
  const float k[] = {1, 1};
  const float v[] = {10, 20};
  double out[3], lse[3];
  AttentionReferenceCpu(p, q, k, v, out, lse);
  EXPECT_EQ(out[0], 0.0);
  EXPECT_EQ(lse[0], -std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(out[1], 10);  // sees key 0 only
  EXPECT_DOUBLE_EQ(lse[1], 1.0);
  EXPECT_DOUBLE_EQ(out[2], 15);  // zero query: uniform over both keys
  EXPECT_NEAR(lse[2], std::log(2.0), 1e-15);
}

TEST(AttentionReferenceCpu, CausalBottomRightFewerQueriesThanKeys) {
  // Sq = 1, Sk = 3: the single query is the last position and sees all three keys.
  const AttentionProblem p = Attn(1, 3, 1, true);
  const float q[] = {0};
  const float k[] = {1, 2, 3};
  const float v[] = {3, 6, 9};
  double out[1], lse[1];
  AttentionReferenceCpu(p, q, k, v, out, lse);
  EXPECT_DOUBLE_EQ(out[0], 6);
  EXPECT_NEAR(lse[0], std::log(3.0), 1e-15);
  // Sq = 2, Sk = 3: row 0 sees keys 0..1, row 1 sees 0..2.
  const AttentionProblem p2 = Attn(2, 3, 1, true);
  const float q2[] = {0, 0};
  double out2[2];
  AttentionReferenceCpu(p2, q2, k, v, out2, nullptr);
  EXPECT_DOUBLE_EQ(out2[0], 4.5);
  EXPECT_DOUBLE_EQ(out2[1], 6);
}

TEST(AttentionReferenceCpu, HeadsAreIndependentAndLargeScoresAreStable) {
  // Two heads; head 1 has scores of ~1e4, which would overflow exp without the max subtraction.
  const AttentionProblem p = Attn(1, 2, 1, false, 2);
  const float q[] = {0, 100};
  const float k[] = {1, 1, 100, 99.99f};
  const float v[] = {1, 3, 5, 7};
  double out[2], lse[2];
  AttentionReferenceCpu(p, q, k, v, out, lse);
  EXPECT_DOUBLE_EQ(out[0], 2);
  const double s0 = 100.0 * 100.0, s1 = 100.0 * static_cast<double>(99.99f);
  const double w0 = 1 / (1 + std::exp(s1 - s0));
  EXPECT_NEAR(out[1], w0 * 5 + (1 - w0) * 7, 1e-12);
  EXPECT_NEAR(lse[1], s0 + std::log(1 + std::exp(s1 - s0)), 1e-9);
  EXPECT_TRUE(std::isfinite(out[1]));
}

TEST(AttentionReferenceCpu, RowFunctionMatchesWholeProblem) {
  AttentionProblem p = Attn(5, 7, 3, true, 2);
  p.batch = 2;
  std::vector<float> q(p.QElements()), k(p.KElements()), v(p.KElements());
  for (size_t i = 0; i < q.size(); ++i) q[i] = std::sin(0.7 * i);
  for (size_t i = 0; i < k.size(); ++i) k[i] = std::cos(1.3 * i), v[i] = std::sin(0.1 * i + 1);
  std::vector<double> out(p.QElements()), lse(p.LseElements());
  AttentionReferenceCpu(p, q.data(), k.data(), v.data(), out.data(), lse.data());
  double row[3], l;
  AttentionReferenceCpuRow(p, q.data(), k.data(), v.data(), 3, 4, row, &l);
  const int64_t r = 3 * 5 + 4;
  for (int c = 0; c < 3; ++c) EXPECT_EQ(row[c], out[r * 3 + c]);
  EXPECT_EQ(l, lse[r]);
}

TEST(GemmReferenceCpu, SmallByHand) {
  GemmProblem p;
  p.m = 2;
  p.n = 2;
  p.k = 3;
  const float a[] = {1, 2, 3, 4, 5, 6};
  const float b[] = {7, 8, 9, 10, 11, 12};
  double c[4];
  GemmReferenceCpu(p, a, b, c);
  EXPECT_EQ(c[0], 58);
  EXPECT_EQ(c[1], 64);
  EXPECT_EQ(c[2], 139);
  EXPECT_EQ(c[3], 154);
}

TEST(GemmReferenceCpu, SumsInDouble) {
  // 1e8 + 1 - 1e8 in float loses the 1; the double reference keeps it.
  GemmProblem p;
  p.m = 1;
  p.n = 1;
  p.k = 3;
  const float a[] = {1, 1, 1};
  const float b[] = {1e8f, 1, -1e8f};
  double c[1];
  GemmReferenceCpu(p, a, b, c);
  EXPECT_EQ(c[0], 1.0);
}

}  // namespace
}  // namespace flashscope::verify
