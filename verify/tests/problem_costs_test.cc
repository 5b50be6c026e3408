// FLOP and byte counts, including the minimal work the trust checks hold launches against.
#include "verify/problem_costs.h"

#include <gtest/gtest.h>

namespace flashscope::verify {
namespace {

AttentionProblem Attn(int64_t sq, int64_t sk, bool causal) {
  AttentionProblem p = AttentionShape(2, 3, sq, sk, 64, DType::kF16);
  p.causal = causal;
  return p;
}

TEST(ProblemCosts, NonCausalMinimalWorkIsTheConvention) {
  const AttentionProblem p = Attn(1000, 17, false);
  EXPECT_DOUBLE_EQ(MinimalWorkFlops(p), Flops(p));
  EXPECT_DOUBLE_EQ(VisiblePairs(p), 6.0 * 1000 * 17);
}

TEST(ProblemCosts, SquareCausalSeesTheLowerTriangle) {
  const AttentionProblem p = Attn(2048, 2048, true);
  EXPECT_DOUBLE_EQ(VisiblePairs(p), 6.0 * 2048 * 2049 / 2);
  // The convention halves; the exact count is a diagonal more.
  EXPECT_GT(MinimalWorkFlops(p), Flops(p));
  EXPECT_LT(MinimalWorkFlops(p), 1.001 * Flops(p));
}

TEST(ProblemCosts, BottomRightCausalWithFewerKeysThanQueries) {
  // Sq = 1000, Sk = 17: rows 0..982 see no key, row 983 + r sees r + 1 keys, up to 17.
  const AttentionProblem p = Attn(1000, 17, true);
  EXPECT_DOUBLE_EQ(VisiblePairs(p), 6.0 * 17 * 18 / 2);
  EXPECT_LT(MinimalWorkFlops(p), 0.02 * Flops(p));  // the convention's half is far too much
  // Only 17 of the 1000 query rows need to be read; K and V whole.
  EXPECT_DOUBLE_EQ(MinimalInputBytes(p), 2.0 * 6 * 64 * (17 + 2 * 17));
}

TEST(ProblemCosts, BottomRightCausalWithMoreKeysThanQueries) {
  // Sq = 17, Sk = 1000: row i sees i + 984 keys.
  const AttentionProblem p = Attn(17, 1000, true);
  double pairs = 0;
  for (int i = 0; i < 17; ++i) pairs += i + 984;
  EXPECT_DOUBLE_EQ(VisiblePairs(p), 6.0 * pairs);
  EXPECT_DOUBLE_EQ(MinimalInputBytes(p), 2.0 * 6 * 64 * (17 + 2 * 1000));
}

TEST(ProblemCosts, GemmMinimalWorkAndInputs) {
  GemmProblem g;
  g.m = 1000;
  g.n = 17;
  g.k = 129;
  g.dtype = DType::kF16;
  EXPECT_DOUBLE_EQ(MinimalWorkFlops(Problem(g)), 2.0 * 1000 * 17 * 129);
  EXPECT_DOUBLE_EQ(MinimalInputBytes(Problem(g)), 2.0 * (1000 * 129 + 129 * 17));
  EXPECT_DOUBLE_EQ(MinimalBytes(g), MinimalInputBytes(Problem(g)) + 4.0 * 1000 * 17);
  g.dtype = DType::kE4M3;  // 1 byte an input element, C fp32, the same FLOPs
  EXPECT_DOUBLE_EQ(MinimalWorkFlops(Problem(g)), 2.0 * 1000 * 17 * 129);
  EXPECT_DOUBLE_EQ(MinimalInputBytes(Problem(g)), 1000 * 129 + 129 * 17);
  EXPECT_DOUBLE_EQ(MinimalBytes(g), MinimalInputBytes(Problem(g)) + 4.0 * 1000 * 17);
}

// E4M3 attention reads 1 byte an element of Q, K, V and writes O in BF16 (2 bytes).
TEST(ProblemCosts, E4M3AttentionReadsOneByteAndWritesBf16) {
  AttentionProblem a;
  a.batch = 2, a.heads = 3, a.seq_q = 100, a.seq_k = 300, a.head_dim = 64;
  a.dtype = DType::kE4M3;
  a.want_lse = true;
  const double q = 2 * 3 * 100 * 64, kv = 2 * 3 * 300 * 64;
  EXPECT_DOUBLE_EQ(MinimalBytes(a), q + 2 * kv + 2 * q + 4.0 * 2 * 3 * 100);
  EXPECT_DOUBLE_EQ(MinimalInputBytes(Problem(a)), q + 2 * kv);
  AttentionProblem b = a;
  b.dtype = DType::kBF16;
  EXPECT_DOUBLE_EQ(MinimalWorkFlops(Problem(a)), MinimalWorkFlops(Problem(b)));
  EXPECT_DOUBLE_EQ(Flops(Problem(a)), Flops(Problem(b)));
}

}  // namespace
}  // namespace flashscope::verify
