// The sampled-row check on the device: the reference itself (cast to the dtype) passes on every
// sampled row, wrong rows, a wrong lse and never-written rows fail, fresh inputs make the old
// answer wrong, and a redraw makes the reference right again. Runs on the device (label gpu).
#include "verify/sampled_rows.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "verify/half_convert.h"
#include "verify/sampled_verdict.h"
#include "verify/tests/gpu_test_helpers.h"
#include "verify/tests/workspace_writes.h"
#include "verify/workspace.h"

namespace flashscope::verify {
namespace {

using testing::Copy;
using testing::WriteLse;
using testing::WriteOutput;

SampledBound BoundOf(Workspace& ws, DType t) {
  const TolerancePolicy policy = DefaultTolerance(FamilyOf(ws.problem()), t);
  const ErrorStats& base = ws.BaselineStats({policy.atol, policy.rtol});
  const ElementBound e = BoundFor(&base, policy);
  return SampledBound{e.absolute ? 1 : 0, e.max_abs,      e.atol, e.rtol,
                      policy.lse_atol,    policy.lse_rtol};
}

SampledCheckCounts Check(Workspace& ws, int samples, uint64_t seed, const SampledBound& bound) {
  SampledCheckCounts* d = nullptr;
  SampledCheckCounts h{};
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), sizeof(h)), cudaSuccess);
  const absl::Status st = ws.EnqueueSampledCheck(samples, seed, bound, d, nullptr);
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_EQ(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  return h;
}

// Under a bound of 0 every row with any rounding crosses it, and the check computes those rows'
// same-precision baseline, which errs like the full baseline: not more (a subset of its rows,
// within summation order), and not nothing (it rounds like the naive one).
void ExpectCrossedRowsBaseline(Workspace& ws, DType t, const SampledBound& bound, int samples,
                               uint64_t seed) {
  SampledBound tight = bound;
  tight.absolute = 1;
  tight.max_abs = 0;
  const SampledCheckCounts crossed = Check(ws, samples, seed, tight);
  const TolerancePolicy policy = DefaultTolerance(FamilyOf(ws.problem()), t);
  const double full_baseline = ws.BaselineStats({policy.atol, policy.rtol}).max_abs;
  EXPECT_GT(BitsToFloat(crossed.baseline_max_bits), 0.f) << DTypeName(t);
  EXPECT_LE(BitsToFloat(crossed.baseline_max_bits), 1.25 * full_baseline + 1e-7) << DTypeName(t);
}

class SampledRowsGpu : public GpuTest<> {};

TEST_F(SampledRowsGpu, AttentionRowsAgreeWithTheFullReferenceAndCatchWrongRows) {
  for (DType t : {DType::kF16, DType::kBF16, DType::kF32}) {
    // Sq > Sk with causal masking: the first 15 query rows see no key (zeros, lse -inf).
    AttentionProblem p = AttentionShape(2, 3, 80, 65, 64, t);
    p.causal = true;
    p.want_lse = true;
    auto ws_or = Workspace::Create(p, {InputKind::kNormal, 5}, nullptr);
    ASSERT_TRUE(ws_or.ok()) << ws_or.status();
    Workspace& ws = **ws_or;
    const SampledBound bound = BoundOf(ws, t);
    WriteOutput(ws, ws.reference());
    WriteLse(ws, ws.reference_lse());
    const SampledCheckCounts right = Check(ws, 512, 77, bound);
    EXPECT_EQ(right.rows, 512u);
    EXPECT_EQ(right.elements, 512u * 64);
    EXPECT_EQ(right.bad, 0u) << DTypeName(t);
    EXPECT_EQ(right.lse_bad, 0u);
    EXPECT_EQ(right.bad_rows, 0u);
    // No row crossed the bound: no row's baseline was needed.
    EXPECT_EQ(BitsToFloat(right.baseline_max_bits), 0.f);
    ExpectCrossedRowsBaseline(ws, t, bound, 512, 77);

    // Every row of (b, h) = (1, 2), one sixth of the rows, off by 0.5 in its first element.
    std::vector<float> wrong = Copy(ws.reference());
    const int64_t rows = p.batch * p.heads * p.seq_q;
    for (int64_t r = 5 * p.seq_q; r < rows; ++r) wrong[r * p.head_dim] += 0.5f;
    WriteOutput(ws, wrong);
    const SampledCheckCounts some = Check(ws, 512, 78, bound);
    // Binomial(512, 1/6): mean 85, sd 8.4.
    EXPECT_GT(some.bad_rows, 40u);
    EXPECT_LT(some.bad_rows, 130u);
    EXPECT_EQ(some.bad, some.bad_rows);

    // The output right, its lse off by 1 on every row that sees a key.
    WriteOutput(ws, ws.reference());
    std::vector<float> lse = Copy(ws.reference_lse());
    for (float& x : lse) x += 1.f;  // -inf stays -inf: rows that see no key still agree
    WriteLse(ws, lse);
    const SampledCheckCounts bad_lse = Check(ws, 512, 79, bound);
    EXPECT_EQ(bad_lse.bad, 0u);
    EXPECT_GT(bad_lse.lse_bad, 300u);  // 65 of 80 rows see keys: ~416 expected
    EXPECT_EQ(bad_lse.bad_rows, bad_lse.lse_bad);

    // Never written: the poison pattern in output and lse.
    ASSERT_TRUE(ws.PoisonOutputs(nullptr).ok());
    const SampledCheckCounts poisoned = Check(ws, 64, 80, bound);
    EXPECT_EQ(poisoned.never_written, 64u * 64);
    EXPECT_EQ(poisoned.lse_bad, 64u);
    EXPECT_EQ(poisoned.bad_rows, 64u);
  }
}

TEST_F(SampledRowsGpu, FreshInputsMakeTheOldAnswerWrongAndARedrawRight) {
  AttentionProblem p = AttentionShape(1, 4, 128, 128, 64, DType::kF16);
  auto ws_or = Workspace::Create(p, {InputKind::kNormal, 5}, nullptr);
  ASSERT_TRUE(ws_or.ok()) << ws_or.status();
  Workspace& ws = **ws_or;
  const SampledBound bound = BoundOf(ws, DType::kF16);
  const std::vector<float> old_answer = Copy(ws.reference());
  EXPECT_TRUE(ws.unread());
  ws.MarkRead();
  EXPECT_FALSE(ws.unread());

  ASSERT_TRUE(ws.GenerateInputs(0xABCDEF12345ull, nullptr).ok());
  WriteOutput(ws, old_answer);
  const SampledCheckCounts stale = Check(ws, 64, 1, bound);
  EXPECT_EQ(stale.bad_rows, 64u);  // the previous inputs' answer is wrong on every row

  const void* q_before = ws.input(0);
  ASSERT_TRUE(ws.Redraw(0xABCDEF12345ull, nullptr).ok());
  EXPECT_EQ(ws.input(0), q_before) << "a bound launch keeps the buffers' addresses";
  EXPECT_TRUE(ws.unread());
  EXPECT_EQ(ws.seed(), 0xABCDEF12345ull);
  EXPECT_NE(Copy(ws.reference()), old_answer);
  WriteOutput(ws, ws.reference());
  EXPECT_EQ(Check(ws, 64, 2, bound).bad_rows, 0u);
  // GenerateInputs and Redraw from one seed draw the same inputs: the answer still holds.
  ASSERT_TRUE(ws.GenerateInputs(0xABCDEF12345ull, nullptr).ok());
  EXPECT_EQ(Check(ws, 64, 3, bound).bad_rows, 0u);
}

TEST_F(SampledRowsGpu, GemmEntriesAgreeWithTheReferenceAndCatchWrongEntries) {
  for (DType t : {DType::kF16, DType::kBF16, DType::kF32}) {
    GemmProblem g;
    g.m = 96;
    g.n = 80;
    g.k = 200;
    g.dtype = t;
    auto ws_or = Workspace::Create(g, {InputKind::kNormal, 9}, nullptr);
    ASSERT_TRUE(ws_or.ok()) << ws_or.status();
    Workspace& ws = **ws_or;
    const SampledBound bound = BoundOf(ws, t);
    WriteOutput(ws, ws.reference());
    const SampledCheckCounts right = Check(ws, 1024, 4, bound);
    EXPECT_EQ(right.rows, 1024u);
    EXPECT_EQ(right.bad, 0u) << DTypeName(t);
    ExpectCrossedRowsBaseline(ws, t, bound, 1024, 4);
    std::vector<float> wrong = Copy(ws.reference());
    for (int64_t i = 0; i < g.m * g.n; i += 2) wrong[i] += 1.0f;  // half the entries
    WriteOutput(ws, wrong);
    const SampledCheckCounts half = Check(ws, 1024, 5, bound);
    EXPECT_GT(half.bad_rows, 400u);  // Binomial(1024, 1/2): 512 +- 16
    EXPECT_LT(half.bad_rows, 624u);
  }
}

TEST_F(SampledRowsGpu, BadArgumentsAreRefused) {
  AttentionProblem p = AttentionShape(1, 1, 8, 8, 300, DType::kF16);  // head_dim past 256
  EXPECT_EQ(LaunchAttentionRowCheck(p, nullptr, nullptr, nullptr, nullptr, nullptr, 4, 1, {},
                                    nullptr, nullptr),
            cudaErrorInvalidValue);
  GemmProblem g;
  EXPECT_EQ(LaunchGemmEntryCheck(g, nullptr, nullptr, nullptr, 0, 1, {}, nullptr, nullptr),
            cudaErrorInvalidValue);
}

}  // namespace
}  // namespace flashscope::verify
