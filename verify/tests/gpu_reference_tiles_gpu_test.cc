// The tiled GPU attention reference (fp32 and fp64) and same-precision baseline against host
// models with error bounds derived from their arithmetic (attention_bounds.h), every element of
// every row, over the shapes that stress the tiling: lengths 1, 7, 33, 65, 1000 around the 64-row
// and 64-key tiles, Sq ≠ Sk both ways (bottom-right causal alignment, rows that see no key),
// head dims 3 to 256 (partial 4-dim groups and 64-dim chunks), the three dtypes, and B·H above
// 65535. Runs on the device (ctest label gpu).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "common/tests/attention_problem.h"
#include "common/tests/cuda_assert.h"
#include "verify/device_buffer.h"
#include "verify/gpu_reference.h"
#include "verify/input_generators.h"
#include "verify/tests/attention_bounds.h"
#include "verify/tests/gpu_test_helpers.h"

namespace flashscope::verify {
namespace {

// Elements checked against their bounds; the first few violations described.
struct Tally {
  int64_t elements = 0, violations = 0, exact_rows = 0, rows = 0;
  double worst_ratio = 0;  // max |gpu - model| / bound over elements with a bound
  double max_bound = 0;
  std::string first;

  void Check(double gpu, double want, double bound, const std::string& what) {
    ++elements;
    max_bound = std::max(max_bound, bound);
    bool ok;
    if (std::isinf(want) || bound == 0) {
      ok = gpu == want;  // exact: infinities, rows that see no key, the baseline's exact rows
    } else {
      const double err = std::fabs(gpu - want);
      ok = err <= bound;  // false for NaN
      worst_ratio = std::max(worst_ratio, err / bound);
    }
    if (ok) return;
    if (++violations <= 3) {
      first += absl::StrFormat("\n  %s: gpu %.9g, model %.9g, bound %.3g", what, gpu, want, bound);
    }
  }
};

struct Outputs {
  std::vector<float> q, k, v, ref32, lse32, ref64, lse64, base;
};

void RunAll(const AttentionProblem& p, uint64_t seed, Outputs* o) {
  const size_t e = DTypeBytes(p.dtype);
  DeviceBuffer q, k, v, ref32, lse32, ref64, lse64, base;
  ASSERT_TRUE(q.Allocate(p.QElements() * e, "q").ok());
  ASSERT_TRUE(k.Allocate(p.KElements() * e, "k").ok());
  ASSERT_TRUE(v.Allocate(p.KElements() * e, "v").ok());
  for (DeviceBuffer* b : {&ref32, &ref64, &base}) {
    ASSERT_TRUE(b->Allocate(p.QElements() * 4, "output").ok());
  }
  for (DeviceBuffer* b : {&lse32, &lse64})
    ASSERT_TRUE(b->Allocate(p.LseElements() * 4, "lse").ok());
  ASSERT_CUDA(
      GenerateAttentionInputs(p, InputKind::kNormal, seed, q.get(), k.get(), v.get(), nullptr));
  // Poisoned first: an element the kernels never write is NaN and fails its bound.
  for (DeviceBuffer* b : {&ref32, &ref64, &base}) {
    ASSERT_CUDA(PoisonBytes(b->get(), p.QElements() * 4, nullptr));
  }
  for (DeviceBuffer* b : {&lse32, &lse64}) {
    ASSERT_CUDA(PoisonBytes(b->get(), p.LseElements() * 4, nullptr));
  }
  ASSERT_CUDA(AttentionReferenceGpu(p, q.get(), k.get(), v.get(), ReferencePrecision::kFp32,
                                    ref32.f32(), lse32.f32(), nullptr));
  ASSERT_CUDA(AttentionReferenceGpu(p, q.get(), k.get(), v.get(), ReferencePrecision::kFp64,
                                    ref64.f32(), lse64.f32(), nullptr));
  ASSERT_CUDA(AttentionSamePrecisionBaselineGpu(p, q.get(), k.get(), v.get(), base.f32(), nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  o->q = ToHost(q.get(), p.dtype, p.QElements());
  o->k = ToHost(k.get(), p.dtype, p.KElements());
  o->v = ToHost(v.get(), p.dtype, p.KElements());
  o->ref32 = ToHost(ref32.get(), DType::kF32, p.QElements());
  o->ref64 = ToHost(ref64.get(), DType::kF32, p.QElements());
  o->base = ToHost(base.get(), DType::kF32, p.QElements());
  o->lse32 = ToHost(lse32.get(), DType::kF32, p.LseElements());
  o->lse64 = ToHost(lse64.get(), DType::kF32, p.LseElements());
}

// One row: every element, and the lse where `gpu_lse` is given (the baseline has none).
void CheckRow(const RowBounds& want, const float* gpu, const float* gpu_lse,
              const std::string& where, Tally* t) {
  ++t->rows;
  if (want.exact) ++t->exact_rows;
  for (size_t c = 0; c < want.value.size(); ++c) {
    t->Check(gpu[c], want.value[c], want.bound[c], absl::StrFormat("%s dim %d", where, c));
  }
  if (gpu_lse != nullptr) t->Check(*gpu_lse, want.lse, want.lse_bound, where + " lse");
}

class GpuReferenceTiles : public GpuTest<::testing::TestWithParam<AttentionProblem>> {};

TEST_P(GpuReferenceTiles, EveryElementWithinItsDerivedBound) {
  const AttentionProblem& p = GetParam();
  Outputs o;
  ASSERT_NO_FATAL_FAILURE(RunAll(p, 17, &o));
  Tally ref32, ref64, base;
  const int64_t d = p.head_dim;
  for (int64_t bh = 0; bh < p.batch * p.heads; ++bh) {
    for (int64_t i = 0; i < p.seq_q; ++i) {
      const int64_t r = bh * p.seq_q + i;
      const std::string where = absl::StrFormat("head %d row %d", bh, i);
      CheckRow(ReferenceRowBounds(p, o.q.data(), o.k.data(), o.v.data(), bh, i, false),
               &o.ref32[r * d], &o.lse32[r], where, &ref32);
      CheckRow(ReferenceRowBounds(p, o.q.data(), o.k.data(), o.v.data(), bh, i, true),
               &o.ref64[r * d], &o.lse64[r], where, &ref64);
      CheckRow(BaselineRowModel(p, o.q.data(), o.k.data(), o.v.data(), bh, i), &o.base[r * d],
               nullptr, where, &base);
    }
  }
  const std::string key = ProblemKey(p);
  std::printf(
      "%s: fp32 ref worst err/bound %.3g (max bound %.3g), fp64 ref %.3g, baseline %.3g, "
      "baseline rows bit-exact %lld/%lld\n",
      key.c_str(), ref32.worst_ratio, ref32.max_bound, ref64.worst_ratio, base.worst_ratio,
      static_cast<long long>(base.exact_rows), static_cast<long long>(base.rows));
  EXPECT_EQ(ref32.violations, 0) << key << " fp32 reference" << ref32.first;
  EXPECT_EQ(ref64.violations, 0) << key << " fp64 reference" << ref64.first;
  EXPECT_EQ(base.violations, 0) << key << " baseline" << base.first;
  // The bound must be finer than half-precision rounding of the values, or a reference that
  // accumulated in fp16 would pass it too.
  double v_max = 0;
  for (float x : o.v) v_max = std::max(v_max, static_cast<double>(std::fabs(x)));
  EXPECT_LT(ref32.max_bound, 0x1p-11 * v_max) << key;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GpuReferenceTiles,
    ::testing::Values(
        Attn(1, 2, 1, 1, 64, DType::kBF16, true), Attn(2, 3, 7, 7, 96, DType::kF16, true),
        Attn(1, 2, 33, 33, 128, DType::kF32, false), Attn(1, 1, 1000, 1000, 64, DType::kBF16, true),
        Attn(1, 1, 1000, 1000, 128, DType::kF16, false),
        Attn(1, 2, 33, 1000, 256, DType::kF16, true),   // Sq < Sk
        Attn(1, 2, 1000, 33, 128, DType::kBF16, true),  // rows that see no key
        Attn(1, 1, 7, 1000, 256, DType::kF32, false), Attn(2, 1, 100, 65, 96, DType::kBF16, false),
        Attn(1, 1, 130, 130, 256, DType::kBF16, true), Attn(1, 1, 65, 129, 64, DType::kF32, true),
        Attn(1, 3, 70, 50, 3, DType::kF16, false),      // a partial 4-dim group
        Attn(1, 1, 40, 40, 200, DType::kBF16, true),    // a partial 64-dim chunk
        Attn(300, 250, 3, 5, 32, DType::kBF16, true)),  // B·H = 75000 > 65535
    [](const ::testing::TestParamInfo<AttentionProblem>& info) {
      const AttentionProblem& p = info.param;
      return absl::StrFormat("b%dh%dq%dk%dd%d_%s%s", p.batch, p.heads, p.seq_q, p.seq_k, p.head_dim,
                             DTypeName(p.dtype), p.causal ? "_causal" : "");
    });

}  // namespace
}  // namespace flashscope::verify
