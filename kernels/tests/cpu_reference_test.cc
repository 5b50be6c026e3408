// The kernels' CPU reference against hand-computed values: the GPU test is only as good as it.
#include "kernels/tests/cpu_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <vector>

#include "kernels/hopper/attn_fp8_layout.h"

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

TEST(CpuReference, E4M3RoundsToNearestAndSaturates) {
  EXPECT_EQ(EncodeE4M3(1.f), 0x38);
  EXPECT_EQ(DecodeE4M3(0x38), 1.f);
  EXPECT_EQ(DecodeE4M3(0x7E), 448.f);  // the largest finite value
  EXPECT_EQ(EncodeE4M3(1e6f), 0x7E);   // saturated, never the NaN pattern 0x7F
  EXPECT_EQ(EncodeE4M3(-1e6f), 0xFE);
  EXPECT_EQ(DecodeE4M3(0x01), std::ldexp(1.f, -9));  // the smallest subnormal
  EXPECT_EQ(DecodeE4M3(EncodeE4M3(1.0625f)), 1.f);   // a tie rounds to even
  EXPECT_EQ(DecodeE4M3(EncodeE4M3(1.1f)), 1.125f);
}

// The E4M3 generator: values are the decoded bytes, never a NaN pattern (0x7F, 0xFF), and varied.
TEST(CpuReference, RandomE4M3TensorsAreFreshAndFinite) {
  std::mt19937 rng(7);
  std::vector<float> values;
  std::vector<unsigned char> bytes;
  RandomTensor(DType::kE4M3, 4096, &rng, &values, &bytes);
  ASSERT_EQ(bytes.size(), 4096u);
  std::set<unsigned char> distinct;
  for (size_t i = 0; i < bytes.size(); ++i) {
    ASSERT_NE(bytes[i] & 0x7F, 0x7F) << i;
    ASSERT_TRUE(std::isfinite(values[i]));
    EXPECT_EQ(values[i], DecodeElement(DType::kE4M3, bytes, static_cast<int64_t>(i)));
    distinct.insert(bytes[i]);
  }
  EXPECT_GT(distinct.size(), 80u);
}

// a27_fp8's key permutation (kernels/hopper/attn_fp8_layout.h) is a bijection of each 32-key
// group, and with both wgmma fragment layouts simulated from the PTX ISA's tables it preserves
// P·V: every thread's packed A fragment, multiplied by V^T's rows as the pre-pass permutes them,
// sums to Σ_key P[key]·V[key].
TEST(CpuReference, Fp8KeyPermutationPreservesPV) {
  using namespace fp8_layout;
  std::set<int> keys;
  for (int slot = 0; slot < 32; ++slot) keys.insert(KeyOfSlot(slot));
  ASSERT_EQ(keys.size(), 32u);
  EXPECT_EQ(*keys.begin(), 0);
  EXPECT_EQ(*keys.rbegin(), 31);
  // PTX ISA tables, written out independently of the header's helpers: the fp32 accumulator of
  // m64nNk32 (block j, element e -> column 8j + 2t + (e & 1), row g + 8 (e >> 1)) and the .e4m3
  // A fragment of m64nNk32 (register r, byte b -> k = 4t + b + 16 (r >> 1), row g + 8 (r & 1)).
  std::mt19937 rng(27);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 8; ++trial) {
    double p[2][32], v[32];  // one quad's two rows; one column of V
    for (int r = 0; r < 2; ++r) {
      for (int key = 0; key < 32; ++key) p[r][key] = u(rng);
    }
    for (int key = 0; key < 32; ++key) v[key] = u(rng);
    double vt[32];  // V^T's column as the pre-pass writes it: slot s holds key KeyOfSlot(s)
    for (int s = 0; s < 32; ++s) vt[s] = v[KeyOfSlot(s)];
    for (int r = 0; r < 2; ++r) {
      double a[32];  // the A fragment's row as the quad's four threads fill it
      std::set<int> filled;
      for (int t = 0; t < 4; ++t) {
        // This thread's accumulators of the slice: acc[jb][e] is (row g + 8 (e >> 1), key).
        double acc[4][4];
        for (int jb = 0; jb < 4; ++jb) {
          for (int e = 0; e < 4; ++e) acc[jb][e] = p[e >> 1][8 * jb + 2 * t + (e & 1)];
          EXPECT_EQ(AccumulatorKey(t, jb, 0), 8 * jb + 2 * t);
        }
        for (int reg = 0; reg < 4; ++reg) {
          if ((reg & 1) != r) continue;  // the registers of row g + 8r
          ASSERT_EQ(FragmentSecondRow(reg), r == 1);
          for (int b = 0; b < 4; ++b) {
            const int k = 4 * t + b + 16 * (reg >> 1);
            ASSERT_EQ(FragmentK(t, reg, b), k);
            const int e = PackElement(reg, b);
            ASSERT_EQ(e >> 1, r) << "packed from the other row";
            a[k] = acc[PackBlock(reg, b)][e];
            filled.insert(k);
          }
        }
      }
      ASSERT_EQ(filled.size(), 32u);
      double got = 0.0, want = 0.0;
      for (int k = 0; k < 32; ++k) got += a[k] * vt[k];
      for (int key = 0; key < 32; ++key) want += p[r][key] * v[key];
      EXPECT_NEAR(got, want, 1e-12) << "trial " << trial << " row " << r;
      // And term by term: k position k pairs the P and V of one key.
      for (int k = 0; k < 32; ++k) EXPECT_EQ(a[k], p[r][KeyOfSlot(k)]) << k;
    }
  }
}

// The E4M3 error bound is zero-based where P is exact (p_unit 0) except for BF16 and accumulation
// terms, and grows with p_unit.
TEST(CpuReference, E4M3ErrorBoundScalesWithPRounding) {
  const AttentionProblem p = AttentionShape(1, 1, 1, 2, 1, DType::kE4M3);
  std::vector<double> exact, rounded;
  ReferenceE4M3ErrorBound(p, {1.f}, {0.f, 0.f}, {2.f, -2.f}, 1.0, 0.0, &exact);
  ReferenceE4M3ErrorBound(p, {1.f}, {0.f, 0.f}, {2.f, -2.f}, 1.0, 1.0 / 16, &rounded);
  // ref = 0, w = 1/2 each: exact 2^-10 · 2 + 1e-6; rounded adds (2 · 1/16 + 2 · 1/16) / 2.
  EXPECT_NEAR(exact[0], std::ldexp(2.0, -10) + 1e-6, 1e-12);
  EXPECT_NEAR(rounded[0], exact[0] + 0.125, 1e-12);
}

}  // namespace
}  // namespace flashscope::kernels::testing
