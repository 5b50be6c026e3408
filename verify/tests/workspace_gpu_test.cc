// Workspace end to end on the device: poisoned output, the reference itself cast to the dtype
// (passes), deliberately wrong outputs (fail), the lse check, gemm, .npy dumps and resource
// errors. Runs on the device (ctest label gpu).
#include "verify/workspace.h"

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "verify/half_convert.h"
#include "verify/npy.h"
#include "verify/tests/gpu_test_helpers.h"
#include "verify/tests/workspace_writes.h"

namespace flashscope::verify {
namespace {

AttentionProblem Attn(DType t, bool lse) {
  AttentionProblem p = AttentionShape(1, 2, 65, 80, 64, t);
  p.causal = true;
  p.want_lse = lse;
  return p;
}

using testing::Copy;
using testing::WriteLse;
using testing::WriteOutput;

class WorkspaceGpu : public GpuTest<> {};

TEST_F(WorkspaceGpu, AttentionPoisonedReferenceAndWrongOutputs) {
  for (DType t : {DType::kF16, DType::kBF16}) {
    const AttentionProblem p = Attn(t, /*lse=*/true);
    absl::StatusOr<std::unique_ptr<Workspace>> ws_or =
        Workspace::Create(p, {InputKind::kNormal, 17}, nullptr);
    ASSERT_TRUE(ws_or.ok()) << ws_or.status();
    Workspace& ws = **ws_or;
    ASSERT_EQ(ws.num_inputs(), 3);
    ASSERT_NE(ws.input(2), nullptr);
    EXPECT_EQ(ws.input(3), nullptr);
    ASSERT_NE(ws.lse(), nullptr);
    EXPECT_EQ(ws.reference_name(), "gpu fp32");
    const TolerancePolicy policy = DefaultTolerance(Family::kAttentionFwd, t);

    // Nothing written: every element is reported never written and the case fails.
    ASSERT_TRUE(ws.PoisonOutputs(nullptr).ok());
    absl::StatusOr<VerificationResult> r = ws.Verify(policy, {}, nullptr);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->verdict.passed);
    EXPECT_EQ(r->stats.never_written, p.QElements());
    EXPECT_EQ(r->stats.nan, 0);
    EXPECT_NE(r->verdict.rule.find("never written"), std::string::npos) << r->verdict.rule;

    // The reference itself rounded to the dtype passes, within the baseline rule.
    WriteOutput(ws, ws.reference());
    WriteLse(ws, ws.reference_lse());
    r = ws.Verify(policy, {64, 64, 256, true}, nullptr);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->verdict.passed) << r->verdict.rule;
    EXPECT_NE(r->verdict.rule.find("x baseline"), std::string::npos) << r->verdict.rule;
    EXPECT_TRUE(r->has_baseline);
    EXPECT_GT(r->baseline.max_abs, 0);
    EXPECT_LE(r->stats.max_abs, r->baseline.max_abs);
    EXPECT_TRUE(r->lse_checked);
    EXPECT_EQ(r->lse_max_abs, 0);
    EXPECT_EQ(r->stats.never_written, 0);
    ASSERT_EQ(r->heatmaps.size(), 4u);
    EXPECT_EQ(r->heatmaps[0].kind, "position_x_dim");
    EXPECT_EQ(r->heatmaps[0].rows, 65);

    // One wrong row: fails the baseline rule, and the error is where the heatmap says.
    std::vector<float> wrong = Copy(ws.reference());
    const int64_t bad_row = 40;
    for (int64_t c = 0; c < p.head_dim; ++c)
      wrong[(1 * p.seq_q + bad_row) * p.head_dim + c] += 0.25f;
    WriteOutput(ws, wrong);
    r = ws.Verify(policy, {}, nullptr);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->verdict.passed);
    EXPECT_NE(r->verdict.rule.find(" > 2 x baseline"), std::string::npos) << r->verdict.rule;
    EXPECT_EQ(r->stats.worst_index / p.head_dim, 1 * p.seq_q + bad_row);
    EXPECT_GE(r->stats.bad, p.head_dim);
    EXPECT_GT(r->ratio_to_baseline, 2);
    const Heatmap& prof = r->heatmaps[1];
    ASSERT_EQ(prof.kind, "sequence_profile");
    for (int s = 0; s < prof.cols; ++s) {
      if (s == bad_row) {
        EXPECT_GT(prof.max[s], 0.2f);
      } else {
        EXPECT_LT(prof.max[s], 0.1f) << s;
      }
    }

    // Correct output but a wrong lse: the lse rule decides.
    WriteOutput(ws, ws.reference());
    std::vector<float> lse = Copy(ws.reference_lse());
    lse[3] += 0.1f;
    WriteLse(ws, lse);
    r = ws.Verify(policy, {}, nullptr);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->verdict.passed);
    EXPECT_EQ(r->verdict.rule.rfind("lse:", 0), 0u) << r->verdict.rule;
  }
}

TEST_F(WorkspaceGpu, GemmReferencePassesPerturbedFails) {
  const GemmProblem p{70, 50, 300, DType::kF16};
  absl::StatusOr<std::unique_ptr<Workspace>> ws_or =
      Workspace::Create(p, {InputKind::kUniform, 4}, nullptr);
  ASSERT_TRUE(ws_or.ok()) << ws_or.status();
  Workspace& ws = **ws_or;
  EXPECT_EQ(ws.num_inputs(), 2);
  EXPECT_EQ(ws.lse(), nullptr);
  EXPECT_EQ(ws.output_dtype(), DType::kF32);
  EXPECT_EQ(ws.reference_name(), "gpu fp64");
  const TolerancePolicy policy = DefaultTolerance(Family::kGemm, DType::kF16);
  WriteOutput(ws, ws.baseline());  // the plain fp32 sum: error = baseline error, passes
  absl::StatusOr<VerificationResult> r = ws.Verify(policy, {16, 16, 256, true}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->verdict.passed) << r->verdict.rule;
  EXPECT_GT(r->baseline.max_abs, 0) << "fp32 and fp64 sums of 300 products should differ";
  ASSERT_EQ(r->heatmaps.size(), 2u);
  EXPECT_EQ(r->heatmaps[1].rows, 16);
  std::vector<float> wrong = Copy(ws.reference());
  wrong[7 * 50 + 3] += 0.01f;
  WriteOutput(ws, wrong);
  r = ws.Verify(policy, {}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->verdict.passed) << r->verdict.rule;
  EXPECT_EQ(r->stats.worst_index, 7 * 50 + 3);
}

// Runs the GPU output check of slot 0's output against the reference and returns the counts.
OutputCheckCounts CheckOnGpu(Workspace& ws, const ElementBound& bound) {
  OutputCheckCounts* d = nullptr;
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&d), sizeof(*d)), cudaSuccess);
  EXPECT_TRUE(ws.EnqueueOutputCheck(bound, d, nullptr).ok());
  OutputCheckCounts h{};
  EXPECT_EQ(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  return h;
}

float MaxAbs(const OutputCheckCounts& c) {
  float f = 0;
  std::memcpy(&f, &c.max_abs_bits, sizeof(f));
  return f;
}

// The GPU check agrees with the host verification element by element: the reference passes, a
// wrong answer fails, poison is counted as never written, and equal outputs hash equally.
TEST_F(WorkspaceGpu, TheGpuOutputCheckAgreesWithTheHost) {
  for (DType t : {DType::kF16, DType::kBF16}) {
    const AttentionProblem p = Attn(t, /*lse=*/false);
    absl::StatusOr<std::unique_ptr<Workspace>> ws_or =
        Workspace::Create(p, {InputKind::kNormal, 17}, nullptr);
    ASSERT_TRUE(ws_or.ok()) << ws_or.status();
    Workspace& ws = **ws_or;
    const TolerancePolicy policy = DefaultTolerance(Family::kAttentionFwd, t);
    WriteOutput(ws, ws.reference());
    absl::StatusOr<VerificationResult> right_host = ws.Verify(policy, {}, nullptr);
    ASSERT_TRUE(right_host.ok()) << right_host.status();
    EXPECT_TRUE(right_host->verdict.passed) << right_host->verdict.rule;
    const ElementBound bound = BoundFor(&right_host->baseline, policy);
    const OutputCheckCounts right = CheckOnGpu(ws, bound);
    EXPECT_EQ(right.bad, 0u);
    EXPECT_NEAR(MaxAbs(right), right_host->stats.max_abs, 1e-7);
    // Every element off by far more than the bound: the host says no, and so does the GPU.
    std::vector<float> wrong = Copy(ws.reference());
    for (float& x : wrong) x += 1.0f;
    WriteOutput(ws, wrong);
    absl::StatusOr<VerificationResult> wrong_host = ws.Verify(policy, {}, nullptr);
    ASSERT_TRUE(wrong_host.ok());
    EXPECT_FALSE(wrong_host->verdict.passed);
    EXPECT_EQ(CheckOnGpu(ws, bound).bad, static_cast<unsigned long long>(p.QElements()));
    // Poison: every element never written; the hash changes.
    ASSERT_TRUE(ws.PoisonOutputs(nullptr).ok());
    const OutputCheckCounts poisoned = CheckOnGpu(ws, bound);
    EXPECT_EQ(poisoned.never_written, static_cast<unsigned long long>(p.QElements()));
    EXPECT_EQ(poisoned.bad, poisoned.never_written);
    EXPECT_NE(poisoned.hash, right.hash);
    WriteOutput(ws, ws.reference());
    EXPECT_EQ(CheckOnGpu(ws, bound).hash, right.hash);
  }
}

// Buffer slots (the trust checks' rotation): each slot its own inputs, output and lse; fresh
// inputs and the poison go to the current slot only, and slot 0 keeps the inputs the full
// reference describes.
TEST_F(WorkspaceGpu, BufferSlotsHoldTheirOwnBuffers) {
  const AttentionProblem p = Attn(DType::kBF16, /*lse=*/true);
  WorkspaceOptions o{InputKind::kNormal, 17};
  o.slots = 2;
  absl::StatusOr<std::unique_ptr<Workspace>> ws_or = Workspace::Create(p, o, nullptr);
  ASSERT_TRUE(ws_or.ok()) << ws_or.status();
  Workspace& ws = **ws_or;
  ASSERT_EQ(ws.num_slots(), 2) << ws.slots_note();
  EXPECT_EQ(ws.slot(), 0);
  for (int i = 0; i < 3; ++i) EXPECT_NE(ws.input(i, 0), ws.input(i, 1));
  EXPECT_NE(ws.output(0), ws.output(1));
  EXPECT_NE(ws.lse(0), ws.lse(1));
  EXPECT_EQ(ws.input(0, 2), nullptr);
  EXPECT_FALSE(ws.UseSlot(2).ok());
  const size_t q_bytes = static_cast<size_t>(p.QElements()) * 2;
  auto host = [](const void* d, size_t n) {
    std::vector<unsigned char> h(n);
    EXPECT_EQ(cudaMemcpy(h.data(), d, n, cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  };
  const std::vector<unsigned char> q0 = host(ws.input(0, 0), q_bytes);
  WriteOutput(ws, ws.reference());
  const std::vector<unsigned char> o0 = host(ws.output(0), q_bytes);

  ASSERT_TRUE(ws.UseSlot(1).ok());
  EXPECT_EQ(ws.input(0), ws.input(0, 1));
  EXPECT_EQ(ws.output(), ws.output(1));
  ASSERT_TRUE(ws.GenerateInputs(99, nullptr).ok());
  ASSERT_TRUE(ws.PoisonOutputs(nullptr).ok());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_NE(host(ws.input(0, 1), q_bytes), q0) << "slot 1 got inputs of its own";
  EXPECT_EQ(host(ws.input(0, 0), q_bytes), q0) << "slot 0's inputs untouched";
  EXPECT_EQ(host(ws.output(0), q_bytes), o0) << "slot 0's output untouched by slot 1's poison";
  EXPECT_TRUE(ws.unread()) << "the full reference still describes slot 0's inputs";
  // Verification reads slot 0 whatever the current slot.
  absl::StatusOr<VerificationResult> r =
      ws.Verify(DefaultTolerance(Family::kAttentionFwd, DType::kBF16), {}, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->stats.never_written, 0);
  ASSERT_TRUE(ws.UseSlot(0).ok());
  ASSERT_TRUE(ws.GenerateInputs(100, nullptr).ok());
  EXPECT_FALSE(ws.unread()) << "slot 0's inputs replaced: the reference no longer describes them";
}

TEST_F(WorkspaceGpu, DumpNpyWritesReadableFiles) {
  const AttentionProblem p = Attn(DType::kF16, true);
  absl::StatusOr<std::unique_ptr<Workspace>> ws_or =
      Workspace::Create(p, {InputKind::kBlock, 1}, nullptr);
  ASSERT_TRUE(ws_or.ok()) << ws_or.status();
  Workspace& ws = **ws_or;
  WriteOutput(ws, ws.reference());
  WriteLse(ws, ws.reference_lse());
  const std::string dir =
      (std::filesystem::temp_directory_path() / "flashscope_ws_dump" / "case1").string();
  ASSERT_TRUE(ws.DumpNpy(dir, nullptr).ok());
  for (const char* name :
       {"output", "reference", "baseline", "q", "k", "v", "lse", "lse_reference"}) {
    absl::StatusOr<NpyArray> a = ReadNpy(dir + "/" + name + ".npy");
    ASSERT_TRUE(a.ok()) << a.status();
  }
  absl::StatusOr<NpyArray> out = ReadNpy(dir + "/output.npy");
  EXPECT_EQ(out->shape, (std::vector<int64_t>{1, 2, 65, 64}));
  absl::StatusOr<NpyArray> k = ReadNpy(dir + "/k.npy");
  EXPECT_EQ(k->shape, (std::vector<int64_t>{1, 2, 80, 64}));
  absl::StatusOr<NpyArray> ref = ReadNpy(dir + "/reference.npy");
  EXPECT_EQ(ref->data, Copy(ws.reference()));
  EXPECT_TRUE(std::filesystem::exists(dir + "/problem.json"));
}

TEST_F(WorkspaceGpu, TooLargeAndUnsupportedProblemsAreClearErrors) {
  AttentionProblem huge = Attn(DType::kF16, false);
  huge.batch = 256;
  huge.heads = 64;
  huge.seq_q = huge.seq_k = 65536;
  huge.head_dim = 128;
  // q, k, v, o in fp16 plus reference and baseline in fp32.
  EXPECT_EQ(Workspace::DeviceBytesNeeded(huge), huge.QElements() * (2 * 4 + 4 * 2));
  absl::StatusOr<std::unique_ptr<Workspace>> r = Workspace::Create(huge, {}, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("GiB"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("free"), std::string::npos) << r.status();

  AttentionProblem wide = Attn(DType::kF16, false);
  wide.head_dim = 512;
  r = Workspace::Create(wide, {}, nullptr);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
  // The device is still usable afterwards.
  EXPECT_TRUE(Workspace::Create(Attn(DType::kF16, false), {}, nullptr).ok());
}

}  // namespace
}  // namespace flashscope::verify
