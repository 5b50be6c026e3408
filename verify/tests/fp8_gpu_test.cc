// E4M3 problems on the device: the generators round every element to the nearest E4M3 number
// (the host's FloatToE4M3Bits of the same element generated in fp32; never NaN), the references
// decode E4M3 inputs exactly (against the CPU double reference on host-decoded inputs), and the
// baselines follow their models (verify/baseline_rules.cuh). Runs on the device (ctest label gpu).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "common/tests/cuda_assert.h"
#include "verify/cross_check.h"
#include "verify/device_buffer.h"
#include "verify/gpu_reference.h"
#include "verify/half_convert.h"
#include "verify/input_generators.h"
#include "verify/tests/gpu_test_helpers.h"

namespace flashscope::verify {
namespace {

class Fp8 : public GpuTest<> {};

std::vector<uint8_t> Bytes(const DeviceBuffer& b, int64_t n) {
  std::vector<uint8_t> out(static_cast<size_t>(n));
  EXPECT_EQ(cudaMemcpy(out.data(), b.get(), out.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  return out;
}

// Every E4M3 element is FloatToE4M3Bits of the same element generated in fp32, and none is NaN.
void ExpectRounded(const std::vector<uint8_t>& e4m3, const std::vector<float>& f32,
                   const std::string& what) {
  ASSERT_EQ(e4m3.size(), f32.size());
  int64_t nan = 0, wrong = 0;
  for (size_t i = 0; i < e4m3.size(); ++i) {
    nan += (e4m3[i] & 0x7F) == 0x7F;
    wrong += e4m3[i] != FloatToE4M3Bits(f32[i]);
  }
  EXPECT_EQ(nan, 0) << what;
  EXPECT_EQ(wrong, 0) << what;
}

TEST_F(Fp8, AttentionGeneratorsRoundEveryKindToE4M3) {
  for (InputKind kind : AllInputKinds()) {
    AttentionProblem p = Attn(1, 2, 40, 72, 64, DType::kE4M3, true);
    DeviceBuffer q8, k8, v8, q32, k32, v32;
    for (auto [buf, n, e] :
         {std::tuple{&q8, p.QElements(), 1}, std::tuple{&k8, p.KElements(), 1},
          std::tuple{&v8, p.KElements(), 1}, std::tuple{&q32, p.QElements(), 4},
          std::tuple{&k32, p.KElements(), 4}, std::tuple{&v32, p.KElements(), 4}}) {
      ASSERT_TRUE(buf->Allocate(n * e, "input").ok());
    }
    ASSERT_CUDA(GenerateAttentionInputs(p, kind, 3, q8.get(), k8.get(), v8.get(), nullptr));
    AttentionProblem f = p;
    f.dtype = DType::kF32;
    ASSERT_CUDA(GenerateAttentionInputs(f, kind, 3, q32.get(), k32.get(), v32.get(), nullptr));
    ASSERT_CUDA(cudaDeviceSynchronize());
    const std::string what = std::string(InputKindName(kind));
    ExpectRounded(Bytes(q8, p.QElements()), ToHost(q32.get(), DType::kF32, p.QElements()), what);
    ExpectRounded(Bytes(k8, p.KElements()), ToHost(k32.get(), DType::kF32, p.KElements()), what);
    ExpectRounded(Bytes(v8, p.KElements()), ToHost(v32.get(), DType::kF32, p.KElements()), what);
  }
}

TEST_F(Fp8, GemmGeneratorsRoundEveryKindToE4M3) {
  for (InputKind kind : AllInputKinds()) {
    const GemmProblem p{48, 40, 96, DType::kE4M3};
    const GemmProblem f{48, 40, 96, DType::kF32};
    DeviceBuffer a8, b8, a32, b32;
    ASSERT_TRUE(a8.Allocate(p.m * p.k, "a").ok());
    ASSERT_TRUE(b8.Allocate(p.k * p.n, "b").ok());
    ASSERT_TRUE(a32.Allocate(4 * p.m * p.k, "a32").ok());
    ASSERT_TRUE(b32.Allocate(4 * p.k * p.n, "b32").ok());
    ASSERT_CUDA(GenerateGemmInputs(p, kind, 9, a8.get(), b8.get(), nullptr));
    ASSERT_CUDA(GenerateGemmInputs(f, kind, 9, a32.get(), b32.get(), nullptr));
    ASSERT_CUDA(cudaDeviceSynchronize());
    const std::string what = std::string(InputKindName(kind));
    ExpectRounded(Bytes(a8, p.m * p.k), ToHost(a32.get(), DType::kF32, p.m * p.k), what);
    ExpectRounded(Bytes(b8, p.k * p.n), ToHost(b32.get(), DType::kF32, p.k * p.n), what);
  }
}

// The references read E4M3 exactly: fp64 leaves only the final rounding to float.
TEST_F(Fp8, ReferencesDecodeE4M3Exactly) {
  for (const AttentionProblem& p :
       {Attn(1, 2, 17, 17, 64, DType::kE4M3, false), Attn(1, 2, 33, 70, 128, DType::kE4M3, true),
        Attn(1, 1, 70, 33, 96, DType::kE4M3, true)}) {
    const absl::StatusOr<CrossCheckResult> r =
        CrossCheckReferenceWithCpu(p, InputKind::kNormal, 11, ReferencePrecision::kFp64, nullptr);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_LE(r->out_max_abs_diff, 1e-6 * std::fmax(1, r->ref_max_abs)) << ProblemKey(p);
    EXPECT_LE(r->lse_max_abs_diff, 2e-6) << ProblemKey(p);
    EXPECT_GT(r->ref_max_abs, 0) << ProblemKey(p);
  }
  const absl::StatusOr<CrossCheckResult> g =
      CrossCheckReferenceWithCpu(GemmProblem{33, 17, 100, DType::kE4M3}, InputKind::kNormal, 4,
                                 ReferencePrecision::kFp64, nullptr);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_LE(g->out_max_abs_diff, 1e-6 * std::fmax(1, g->ref_max_abs));
}

// Round toward zero to 13 mantissa bits, on the host (BaselineRules<__nv_fp8_e4m3>::Accumulate).
float TruncateTo13Bits(double x) {
  float f = static_cast<float>(x);
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  bits &= ~((1u << 10) - 1u);
  std::memcpy(&f, &bits, 4);
  return f;
}

TEST_F(Fp8, GemmBaselineIsTheWgmmaAccumulationBitForBit) {
  const GemmProblem p{33, 17, 300, DType::kE4M3};  // K not a multiple of the 32-term chunk
  DeviceBuffer a, b, c;
  ASSERT_TRUE(a.Allocate(p.m * p.k, "a").ok());
  ASSERT_TRUE(b.Allocate(p.k * p.n, "b").ok());
  ASSERT_TRUE(c.Allocate(4 * p.m * p.n, "c").ok());
  ASSERT_CUDA(GenerateGemmInputs(p, InputKind::kNormal, 5, a.get(), b.get(), nullptr));
  ASSERT_CUDA(GemmTensorCoreBaselineGpu(p, a.get(), b.get(), c.f32(), nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  const std::vector<float> ha = ToHost(a.get(), p.dtype, p.m * p.k);
  const std::vector<float> hb = ToHost(b.get(), p.dtype, p.k * p.n);
  const std::vector<float> hc = ToHost(c.get(), DType::kF32, p.m * p.n);
  int64_t mismatched = 0;
  for (int64_t i = 0; i < p.m; ++i) {
    for (int64_t j = 0; j < p.n; ++j) {
      float acc = 0;
      for (int64_t k0 = 0; k0 < p.k; k0 += 32) {
        double chunk = 0;
        for (int64_t k = k0; k < std::min<int64_t>(k0 + 32, p.k); ++k) {
          chunk += static_cast<double>(ha[i * p.k + k]) * static_cast<double>(hb[k * p.n + j]);
        }
        acc = TruncateTo13Bits(static_cast<double>(acc) + chunk);
      }
      mismatched += hc[i * p.n + j] != acc;
    }
  }
  EXPECT_EQ(mismatched, 0);
}

// The attention baseline against a host model of the naive FP8 implementation: S in fp32, P =
// exp(S - max) rounded to E4M3, l from the unrounded P, O = Σ round(P)·V / l rounded to BF16.
// The host's exp and sum order differ from the device's in the last bits of fp32, which can move
// a P across an E4M3 rounding boundary: the two agree within a few BF16 roundings, and every
// output is a BF16 number.
TEST_F(Fp8, AttentionBaselineFollowsTheFp8Model) {
  const AttentionProblem p = Attn(1, 2, 24, 80, 64, DType::kE4M3, true);
  DeviceBuffer q, k, v, out;
  ASSERT_TRUE(q.Allocate(p.QElements(), "q").ok());
  ASSERT_TRUE(k.Allocate(p.KElements(), "k").ok());
  ASSERT_TRUE(v.Allocate(p.KElements(), "v").ok());
  ASSERT_TRUE(out.Allocate(4 * p.QElements(), "out").ok());
  ASSERT_CUDA(
      GenerateAttentionInputs(p, InputKind::kNormal, 8, q.get(), k.get(), v.get(), nullptr));
  ASSERT_CUDA(AttentionSamePrecisionBaselineGpu(p, q.get(), k.get(), v.get(), out.f32(), nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  const std::vector<float> hq = ToHost(q.get(), p.dtype, p.QElements());
  const std::vector<float> hk = ToHost(k.get(), p.dtype, p.KElements());
  const std::vector<float> hv = ToHost(v.get(), p.dtype, p.KElements());
  const std::vector<float> ho = ToHost(out.get(), DType::kF32, p.QElements());
  const int64_t d = p.head_dim, sq = p.seq_q, sk = p.seq_k;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  double worst = 0;
  int64_t not_bf16 = 0;
  for (int64_t bh = 0; bh < p.batch * p.heads; ++bh) {
    for (int64_t i = 0; i < sq; ++i) {
      const int64_t end = std::clamp<int64_t>(i + sk - sq + 1, 0, sk);
      std::vector<float> s(static_cast<size_t>(end));
      float m = -INFINITY;
      for (int64_t j = 0; j < end; ++j) {
        float dot = 0;
        for (int64_t x = 0; x < d; ++x) {
          dot = std::fma(hq[(bh * sq + i) * d + x], hk[(bh * sk + j) * d + x], dot);
        }
        s[j] = dot * scale;
        m = std::max(m, s[j]);
      }
      float l = 0;
      for (int64_t j = 0; j < end; ++j) l += std::exp(s[j] - m);
      for (int64_t x = 0; x < d; ++x) {
        float acc = 0;
        for (int64_t j = 0; j < end; ++j) {
          acc = std::fma(RoundToDType(std::exp(s[j] - m), DType::kE4M3), hv[(bh * sk + j) * d + x],
                         acc);
        }
        const float model = end > 0 ? RoundToDType(acc / l, DType::kBF16) : 0.f;
        const float got = ho[(bh * sq + i) * d + x];
        not_bf16 += RoundToDType(got, DType::kBF16) != got;
        worst = std::max(worst, std::fabs(static_cast<double>(got) - model) /
                                    std::max(1.0, std::fabs(static_cast<double>(model))));
      }
    }
  }
  EXPECT_EQ(not_bf16, 0) << "the baseline's O is rounded to BF16";
  // A P moved across one E4M3 boundary changes O by at most 2^-4 of that P's share; a few such
  // and the BF16 rounding stay within 2^-5 relative.
  EXPECT_LE(worst, 1.0 / 32);
}

}  // namespace
}  // namespace flashscope::verify
