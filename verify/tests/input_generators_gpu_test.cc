// The device input generators: determinism per seed, value ranges, and that each structured kind
// puts the attention where it says. Runs on the device (ctest label gpu).
#include "verify/input_generators.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "verify/device_buffer.h"
#include "verify/half_convert.h"
#include "verify/input_kind.h"
#include "verify/tests/gpu_test_helpers.h"

namespace flashscope::verify {
namespace {

struct HostAttention {
  std::vector<float> q, k, v;
  std::vector<uint16_t> raw_q, raw_k, raw_v;
};

AttentionProblem Attn(int64_t h, int64_t sq, int64_t sk, int64_t d, bool causal) {
  AttentionProblem p = AttentionShape(1, h, sq, sk, d, DType::kF16);
  p.causal = causal;
  return p;
}

HostAttention Generate(const AttentionProblem& p, InputKind kind, uint64_t seed) {
  DeviceBuffer q, k, v;
  HostAttention h;
  EXPECT_TRUE(q.Allocate(p.QElements() * 2, "q").ok());
  EXPECT_TRUE(k.Allocate(p.KElements() * 2, "k").ok());
  EXPECT_TRUE(v.Allocate(p.KElements() * 2, "v").ok());
  EXPECT_EQ(GenerateAttentionInputs(p, kind, seed, q.get(), k.get(), v.get(), nullptr),
            cudaSuccess);
  h.raw_q.resize(p.QElements());
  h.raw_k.resize(p.KElements());
  h.raw_v.resize(p.KElements());
  EXPECT_EQ(cudaMemcpy(h.raw_q.data(), q.get(), q.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(h.raw_k.data(), k.get(), k.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(h.raw_v.data(), v.get(), v.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
  h.q.resize(p.QElements());
  h.k.resize(p.KElements());
  h.v.resize(p.KElements());
  ConvertToFloat(h.raw_q.data(), DType::kF16, p.QElements(), h.q.data());
  ConvertToFloat(h.raw_k.data(), DType::kF16, p.KElements(), h.k.data());
  ConvertToFloat(h.raw_v.data(), DType::kF16, p.KElements(), h.v.data());
  return h;
}

// Scaled logits of row i of head bh, over the keys the row may see.
std::vector<double> Logits(const AttentionProblem& p, const HostAttention& h, int64_t bh,
                           int64_t i) {
  std::vector<double> s(p.CausalKeyEnd(i));
  const double scale = 1 / std::sqrt(static_cast<double>(p.head_dim));
  for (size_t j = 0; j < s.size(); ++j) {
    double dot = 0;
    for (int64_t c = 0; c < p.head_dim; ++c) {
      dot += static_cast<double>(h.q[(bh * p.seq_q + i) * p.head_dim + c]) *
             h.k[(bh * p.seq_k + j) * p.head_dim + c];
    }
    s[j] = dot * scale;
  }
  return s;
}

double FractionDiffering(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b) {
  int64_t d = 0;
  for (size_t i = 0; i < a.size(); ++i) d += a[i] != b[i];
  return static_cast<double>(d) / a.size();
}

class Generators : public GpuTest<> {};

TEST_F(Generators, DeterministicPerSeedDifferentAcrossSeedsFiniteInFp16) {
  const AttentionProblem p = Attn(2, 100, 130, 64, false);
  for (InputKind kind : AllInputKinds()) {
    const HostAttention a = Generate(p, kind, 42), b = Generate(p, kind, 42),
                        c = Generate(p, kind, 43);
    EXPECT_EQ(a.raw_q, b.raw_q) << InputKindName(kind);
    EXPECT_EQ(a.raw_k, b.raw_k) << InputKindName(kind);
    EXPECT_EQ(a.raw_v, b.raw_v) << InputKindName(kind);
    EXPECT_GT(FractionDiffering(a.raw_q, c.raw_q), 0.5) << InputKindName(kind);
    EXPECT_GT(FractionDiffering(a.raw_k, c.raw_k), 0.5) << InputKindName(kind);
    EXPECT_GT(FractionDiffering(a.raw_v, c.raw_v), 0.9) << InputKindName(kind);
    for (const auto* t : {&a.q, &a.k, &a.v}) {
      for (float x : *t) {
        ASSERT_TRUE(std::isfinite(x)) << InputKindName(kind);
        ASSERT_LT(std::fabs(x), 200.f) << InputKindName(kind);
      }
    }
  }
}

TEST_F(Generators, NormalAndUniformMoments) {
  const AttentionProblem p = Attn(4, 256, 256, 64, false);  // 65536 elements per tensor
  const HostAttention n = Generate(p, InputKind::kNormal, 1);
  const HostAttention u = Generate(p, InputKind::kUniform, 1);
  auto moments = [](const std::vector<float>& x, double* mean, double* var) {
    double s = 0, s2 = 0;
    for (float v : x) s += v, s2 += static_cast<double>(v) * v;
    *mean = s / x.size();
    *var = s2 / x.size() - *mean * *mean;
  };
  double mean, var;
  moments(n.q, &mean, &var);
  EXPECT_NEAR(mean, 0, 0.02);
  EXPECT_NEAR(var, 1, 0.03);
  moments(u.k, &mean, &var);
  EXPECT_NEAR(mean, 0, 0.02);
  EXPECT_NEAR(var, 1.0 / 3, 0.01);
  for (float x : u.k) ASSERT_LE(std::fabs(x), 1.f);
}

// For every row: where is the argmax of the logits, and how much softmax mass lands on the keys
// the pattern names.
template <typename OnPattern>
void CheckPattern(const AttentionProblem& p, InputKind kind, OnPattern on_pattern) {
  const HostAttention h = Generate(p, kind, 9);
  int64_t rows = 0, argmax_on = 0;
  double mass_on = 0;
  for (int64_t bh = 0; bh < p.heads; ++bh) {
    for (int64_t i = 0; i < p.seq_q; ++i) {
      const std::vector<double> s = Logits(p, h, bh, i);
      if (s.empty()) continue;
      const int64_t pos = i + p.seq_k - p.seq_q;
      int64_t best = 0;
      double m = s[0];
      for (size_t j = 1; j < s.size(); ++j) {
        if (s[j] > m) m = s[j], best = static_cast<int64_t>(j);
      }
      double sum = 0, on = 0;
      for (size_t j = 0; j < s.size(); ++j) {
        const double e = std::exp(s[j] - m);
        sum += e;
        if (on_pattern(pos, static_cast<int64_t>(j))) on += e;
      }
      ++rows;
      argmax_on += on_pattern(pos, best);
      mass_on += on / sum;
    }
  }
  EXPECT_GE(static_cast<double>(argmax_on) / rows, 0.95) << InputKindName(kind);
  EXPECT_GE(mass_on / rows, 0.6) << InputKindName(kind);
}

TEST_F(Generators, StructuredKindsPutAttentionWhereTheySay) {
  for (const AttentionProblem& p : {Attn(2, 384, 384, 64, false), Attn(2, 200, 384, 128, true)}) {
    CheckPattern(p, InputKind::kLocalBand,
                 [](int64_t pos, int64_t j) { return std::llabs(pos - j) <= kLocalBandWidth; });
    CheckPattern(p, InputKind::kStrided, [](int64_t pos, int64_t j) {
      return ((pos - j) % kStride + kStride) % kStride == 0;
    });
    CheckPattern(p, InputKind::kGlobalAnchor,
                 [](int64_t, int64_t j) { return j < kGlobalAnchors; });
    CheckPattern(p, InputKind::kBlock,
                 [](int64_t pos, int64_t j) { return pos / kBlockSize == j / kBlockSize; });
  }
}

TEST_F(Generators, LargeLogitsOverflowASoftmaxWithoutMaxSubtraction) {
  const AttentionProblem p = Attn(4, 64, 64, 64, false);
  const HostAttention h = Generate(p, InputKind::kLargeLogits, 3);
  for (int64_t bh = 0; bh < p.heads; ++bh) {
    for (int64_t i = 0; i < p.seq_q; ++i) {
      const std::vector<double> s = Logits(p, h, bh, i);
      double m = -1e300, sum_safe = 0;
      float naive_sum = 0;  // what a softmax without the max subtraction computes
      for (double x : s) m = std::fmax(m, x);
      for (double x : s) {
        naive_sum += std::exp(static_cast<float>(x));
        sum_safe += std::exp(x - m);
      }
      ASSERT_GE(m, 0.5 * kLargeLogitMin) << "head " << bh << " row " << i;
      ASSERT_LE(m, 1.5 * kLargeLogitMax) << "head " << bh << " row " << i;
      EXPECT_TRUE(std::isinf(naive_sum)) << "head " << bh << " row " << i;
      const float naive_p = std::exp(static_cast<float>(s[0])) / naive_sum;
      EXPECT_TRUE(std::isnan(naive_p) || naive_p == 0.f);  // inf/inf, or finite/inf
      EXPECT_TRUE(std::isfinite(sum_safe));                // the safe softmax is fine
    }
  }
}

TEST_F(Generators, GemmKindsAreDeterministicAndPatterned) {
  GemmProblem p{128, 40, 256, DType::kF16};
  auto gen = [&](InputKind kind, uint64_t seed, std::vector<float>* a, std::vector<float>* b) {
    DeviceBuffer da, db;
    ASSERT_TRUE(da.Allocate(p.m * p.k * 2, "a").ok());
    ASSERT_TRUE(db.Allocate(p.k * p.n * 2, "b").ok());
    ASSERT_EQ(GenerateGemmInputs(p, kind, seed, da.get(), db.get(), nullptr), cudaSuccess);
    std::vector<uint16_t> ra(p.m * p.k), rb(p.k * p.n);
    ASSERT_EQ(cudaMemcpy(ra.data(), da.get(), da.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    ASSERT_EQ(cudaMemcpy(rb.data(), db.get(), db.bytes(), cudaMemcpyDeviceToHost), cudaSuccess);
    a->resize(ra.size());
    b->resize(rb.size());
    ConvertToFloat(ra.data(), DType::kF16, p.m * p.k, a->data());
    ConvertToFloat(rb.data(), DType::kF16, p.k * p.n, b->data());
  };
  std::vector<float> a1, b1, a2, b2, a3, b3;
  gen(InputKind::kNormal, 5, &a1, &b1);
  gen(InputKind::kNormal, 5, &a2, &b2);
  gen(InputKind::kNormal, 6, &a3, &b3);
  EXPECT_EQ(a1, a2);
  EXPECT_EQ(b1, b2);
  EXPECT_NE(a1, a3);
  std::vector<float> a, b;
  gen(InputKind::kStrided, 1, &a, &b);
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t c = 0; c < p.k; ++c) {
      if (c % kStride != 0) ASSERT_EQ(a[i * p.k + c], 0.f);
    }
  }
  gen(InputKind::kLocalBand, 1, &a, &b);
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t c = 0; c < p.k; ++c) {
      if (std::llabs(i - c * p.m / p.k) > kLocalBandWidth) ASSERT_EQ(a[i * p.k + c], 0.f);
    }
  }
  gen(InputKind::kGlobalAnchor, 1, &a, &b);
  double anchor = 0, rest = 0;
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t c = 0; c < p.k; ++c)
      (c < kGlobalAnchors ? anchor : rest) += std::fabs(a[i * p.k + c]);
  }
  EXPECT_GT(anchor / (p.m * kGlobalAnchors), 5 * rest / (p.m * (p.k - kGlobalAnchors)));
}

}  // namespace
}  // namespace flashscope::verify
