// Every registered attention and gemm kernel against a CPU double reference, on the device
// (ctest label gpu). Outputs are poisoned (all bits set: NaN in every dtype) before each launch, so
// an element a kernel forgets to write fails the comparison. The test-only faulty kernels are
// checked to fail the way they claim; the two that wreck a process (a fault, a hang) run in a child
// process through gtest death tests, so this process's CUDA context stays usable.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/tests/cuda_assert.h"
#include "kernels/registry.h"
#include "kernels/testing/test_kernel_list.h"
#include "kernels/tests/cpu_reference.h"
#include "kernels/tests/kernel_gpu_run.h"

namespace flashscope::kernels {
namespace {

using namespace testing;  // the device runs and comparisons (kernel_gpu_run.h)

int DeviceSm() {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major * 10 + minor;
}

// Narrowing for slow tools (compute-sanitizer): FS_KERNELS_TEST_FILTER keeps only kernels whose id
// contains it; FS_KERNELS_TEST_MAX_SEQ drops attention problems longer than it. Unset: everything.
bool KernelSelected(const std::string& id) {
  const char* f = std::getenv("FS_KERNELS_TEST_FILTER");
  return f == nullptr || id.find(f) != std::string::npos;
}
bool NarrowedRun() { return std::getenv("FS_KERNELS_TEST_FILTER") != nullptr; }
int64_t MaxSeq() {
  const char* m = std::getenv("FS_KERNELS_TEST_MAX_SEQ");
  return m == nullptr ? INT64_MAX : std::atoll(m);
}

class KernelsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    int n = 0;
    const cudaError_t err = cudaGetDeviceCount(&n);
    ASSERT_TRUE(err == cudaSuccess && n > 0)
        << "no CUDA device visible (" << cudaGetErrorName(err)
        << "): this test is labelled gpu; run it on the GPU machine with ctest -L gpu";
    sm_ = DeviceSm();
  }
  int sm_ = 0;
};

// ---------------------------------------------------------------- attention

std::vector<AttentionProblem> AttentionProblems() {
  std::vector<AttentionProblem> v;
  const std::pair<int64_t, int64_t> lengths[] = {{1, 1},       {17, 17},  {128, 128},
                                                 {1000, 1000}, {17, 128}, {128, 17}};
  int n = 0;
  for (DType t : {DType::kF16, DType::kBF16}) {
    for (int64_t d : {64, 128}) {
      for (bool causal : {false, true}) {
        for (auto [sq, sk] : lengths) {
          if (std::max(sq, sk) > MaxSeq()) continue;
          AttentionProblem p;
          const bool big = sq >= 1000;
          p.batch = big ? 1 : 2;
          p.heads = big ? 1 : 3;
          p.seq_q = sq;
          p.seq_k = sk;
          p.head_dim = d;
          p.dtype = t;
          p.causal = causal;
          p.want_lse = (n++ % 2) == 0 || (causal && sq > sk);  // always check -inf rows
          v.push_back(p);
        }
      }
    }
  }
  return v;
}

TEST_F(KernelsGpu, EveryAttentionKernelMatchesTheCpuReference) {
  const char* const ours[] = {"attn.a01_scalar", "attn.a02_smem_tiled", "attn.a03_wmma",
                              "attn.a04_vectorized"};
  uint32_t seed = 1;
  int runs = 0;
  for (const AttentionProblem& p : AttentionProblems()) {
    const AttentionCase c = MakeAttentionCase(p, seed++);
    for (const KernelEntry& e : AllKernels()) {
      if (e.info.family != Family::kAttentionFwd || !KernelSelected(e.info.id)) continue;
      const std::string reason = e.Supports(Problem{p}, sm_);
      if (!reason.empty()) {
        for (const char* id : ours) {
          EXPECT_NE(e.info.id, id) << id << " should support " << ProblemKey(p) << ": " << reason;
        }
        continue;
      }
      SCOPED_TRACE(e.info.id + " on " + ProblemKey(p));
      AttentionOutput out;
      RunAttention(e, c, &out);
      if (HasFatalFailure()) return;
      EXPECT_TRUE(CompareAttention(c, out)) << e.info.id << " on " << ProblemKey(p);
      ++runs;
    }
  }
  if (!NarrowedRun()) EXPECT_GE(runs, 4 * static_cast<int>(AttentionProblems().size()));
}

TEST_F(KernelsGpu, VectorizedRungsFallBackOnMisalignedPointers) {
  AttentionProblem p = AttentionShape(1, 2, 100, 77, 64);
  p.causal = true;
  p.want_lse = true;
  const AttentionCase c = MakeAttentionCase(p, 99);
  AttentionOutput out;
  RunAttention(*FindKernel("attn.a04_vectorized"), c, &out, /*offset_elems=*/1);
  if (HasFatalFailure()) return;
  EXPECT_TRUE(CompareAttention(c, out));
}

// ---------------------------------------------------------------- gemm

TEST_F(KernelsGpu, EveryGemmKernelMatchesTheCpuReference) {
  // The last shape takes g06's TMA path with 128x256 tiles, edges in M, N and K, and several
  // tiles per persistent CTA.
  const int64_t shapes[][3] = {{1, 1, 1},      {17, 33, 5},      {64, 64, 64},
                               {127, 129, 65}, {128, 256, 64},   {1000, 17, 1000},
                               {33, 1000, 17}, {256, 256, 1000}, {4000, 2040, 40}};
  uint32_t seed = 1000;
  int runs = 0;
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) {
    for (const auto& s : shapes) {
      const GemmProblem g{s[0], s[1], s[2], t};
      const GemmCase gc = MakeGemmCase(g, seed++);
      for (const KernelEntry& e : AllKernels()) {
        if (e.info.family != Family::kGemm || !KernelSelected(e.info.id) ||
            !e.Supports(Problem{g}, sm_).empty()) {
          continue;
        }
        SCOPED_TRACE(e.info.id + " on " + ProblemKey(g));
        std::vector<float> c;
        RunGemm(e, g, gc.ab, gc.bb, &c);
        if (HasFatalFailure()) return;
        EXPECT_TRUE(CompareGemm(c, gc.ref, gc.abs_sum)) << e.info.id << " on " << ProblemKey(g);
        ++runs;
      }
    }
  }
  if (!NarrowedRun())
    EXPECT_GE(runs, 4 * 18 + 9);  // g01..g03 and cuBLAS on fp32 and fp16, cuBLAS on bf16
}

// g03's vector loads, g05's cp.async and g06's tensor maps need 16-byte-aligned operands, and the
// Hopper rungs' paired fp32 stores an 8-byte-aligned C: with every pointer off by one element each
// must take its fallback path and stay correct.
TEST_F(KernelsGpu, GemmFallsBackOnMisalignedPointers) {
  for (DType t : {DType::kF32, DType::kF16, DType::kBF16}) {
    const GemmProblem g{128, 128, 64,
                        t};  // aligned shape; only the pointers are off by one element
    const GemmCase gc = MakeGemmCase(g, 5);
    for (const char* id : {"gemm.g03_register_tiled", "gemm.g05_wgmma", "gemm.g06_tma_ws"}) {
      const KernelEntry* e = FindKernel(id);
      if (e == nullptr || !e->Supports(Problem{g}, sm_).empty()) continue;
      std::vector<float> c;
      RunGemm(*e, g, gc.ab, gc.bb, &c, /*offset_elems=*/1);
      if (HasFatalFailure()) return;
      EXPECT_TRUE(CompareGemm(c, gc.ref, gc.abs_sum)) << id << " " << DTypeName(t);
    }
  }
}

// ---------------------------------------------------------------- faulty kernels

// The test plugin's kernels (kernels/testing/), linked in directly: this test is about what they
// compute, not about how a plugin is loaded.
const KernelEntry* TestKernel(const std::string& id) {
  static const std::vector<KernelEntry> all = TestKernels();
  for (const auto& e : all) {
    if (e.info.id == id) return &e;
  }
  ADD_FAILURE() << id << " is not a test kernel (kernels/testing/test_kernel_list.h)";
  std::abort();
}

AttentionProblem SmallProblem(DType t) {
  AttentionProblem p = AttentionShape(2, 2, 33, 40, 64, t);
  p.want_lse = true;
  return p;
}

TEST_F(KernelsGpu, NanOutputWritesNanEverywhere) {
  for (DType t : {DType::kF16, DType::kBF16}) {
    const AttentionCase c = MakeAttentionCase(SmallProblem(t), 3);
    AttentionOutput out;
    RunAttention(*TestKernel("test.nan_output"), c, &out);
    if (HasFatalFailure()) return;
    int64_t non_nan = 0;
    for (int64_t i = 0; i < c.p.QElements(); ++i) {
      non_nan += std::isnan(DecodeElement(t, out.o, i)) ? 0 : 1;
    }
    EXPECT_EQ(non_nan, 0);
    // NaN written by the kernel, not the poison: the poison is all bits set, the kernel's NaN not.
    uint16_t first;
    std::memcpy(&first, out.o.data(), 2);
    EXPECT_NE(first, 0xFFFF) << "O still holds the poison pattern: nothing was written";
    for (float x : out.lse) EXPECT_TRUE(std::isnan(x));
  }
}

TEST_F(KernelsGpu, HalfOutputWritesOnlyTheFirstHalfCorrectly) {
  const AttentionCase c = MakeAttentionCase(SmallProblem(DType::kBF16), 4);
  AttentionOutput out;
  RunAttention(*TestKernel("test.half_output"), c, &out);
  if (HasFatalFailure()) return;
  const int64_t rows = c.p.LseElements();
  const int64_t half = rows / 2;
  EXPECT_TRUE(CompareAttention(c, out, half));
  const size_t row_bytes = c.p.head_dim * DTypeBytes(c.p.dtype);
  int64_t touched = 0;
  for (size_t i = half * row_bytes; i < out.o.size(); ++i) touched += out.o[i] != 0xFF;
  EXPECT_EQ(touched, 0) << "bytes of the second half were written";
  for (int64_t r = half; r < rows; ++r) {
    uint32_t bits;
    std::memcpy(&bits, &out.lse[r], 4);
    EXPECT_EQ(bits, 0xFFFFFFFFu) << "LSE row " << r << " was written";
  }
  // The full comparison must fail: this kernel is caught only by what it did not write.
  EXPECT_FALSE(CompareAttention(c, out));
}

// Child-process bodies: each ends the child with _Exit so that gtest sees the status.
[[noreturn]] void ChildLaunch(const char* id, bool expect_hang) {
  const AttentionProblem p = SmallProblem(DType::kF16);
  void *q, *o, *lse;
  if (cudaMalloc(&q, p.QElements() * 2) != cudaSuccess ||
      cudaMalloc(&o, p.QElements() * 2) != cudaSuccess ||
      cudaMalloc(&lse, p.LseElements() * 4) != cudaSuccess) {
    std::fprintf(stderr, "cudaMalloc failed\n");
    std::_Exit(2);
  }
  AttentionArgs args{q, q, q, o, static_cast<float*>(lse), 0.125f};
  cudaError_t err = TestKernel(id)->attention_launch(p, args, nullptr);
  if (err != cudaSuccess) {
    std::fprintf(stderr, "launch failed: %s\n", cudaGetErrorName(err));
    std::_Exit(3);
  }
  if (expect_hang) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    err = cudaStreamQuery(nullptr);
    std::fprintf(stderr, "after 500 ms: %s\n", cudaGetErrorName(err));
    // Exiting tears the context down, which ends the spinning kernel.
    std::_Exit(err == cudaErrorNotReady ? 0 : 4);
  }
  err = cudaDeviceSynchronize();
  std::fprintf(stderr, "synchronize: %s\n", cudaGetErrorName(err));
  std::_Exit(err == cudaErrorIllegalAddress ? 0 : 5);
}

using KernelsGpuDeathTest = KernelsGpu;

TEST_F(KernelsGpuDeathTest, InfiniteLoopIsStillRunningAfterHalfASecond) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // re-exec: no fork of a CUDA process
  EXPECT_EXIT(ChildLaunch("test.infinite_loop", true), ::testing::ExitedWithCode(0),
              "after 500 ms: cudaErrorNotReady");
}

TEST_F(KernelsGpuDeathTest, OobWriteFaultsWithIllegalAddress) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(ChildLaunch("test.oob_write", false), ::testing::ExitedWithCode(0),
              "synchronize: cudaErrorIllegalAddress");
}

}  // namespace
}  // namespace flashscope::kernels
