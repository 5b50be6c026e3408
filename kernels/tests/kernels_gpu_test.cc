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

namespace flashscope::kernels {
namespace {

using testing::DecodeElement;
using testing::RandomTensor;
using testing::ReferenceAttention;
using testing::ReferenceGemm;

// Device memory owned for one scope.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) { status_ = cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes); }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  unsigned char* get() const { return static_cast<unsigned char*>(ptr_); }
  cudaError_t status() const { return status_; }

 private:
  void* ptr_ = nullptr;
  cudaError_t status_ = cudaSuccess;
};

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

struct AttentionCase {
  AttentionProblem p;
  std::vector<float> q, k, v;  // values as rounded to the dtype
  std::vector<unsigned char> qb, kb, vb;
  std::vector<double> ref_o, ref_lse;
};

AttentionCase MakeAttentionCase(const AttentionProblem& p, uint32_t seed) {
  AttentionCase c;
  c.p = p;
  std::mt19937 rng(seed);
  RandomTensor(p.dtype, p.QElements(), &rng, &c.q, &c.qb);
  RandomTensor(p.dtype, p.KElements(), &rng, &c.k, &c.kb);
  RandomTensor(p.dtype, p.KElements(), &rng, &c.v, &c.vb);
  ReferenceAttention(p, c.q, c.k, c.v, &c.ref_o, &c.ref_lse);
  return c;
}

struct AttentionOutput {
  std::vector<unsigned char> o;
  std::vector<float> lse;
};

// Uploads the case, poisons O and LSE, launches `e` and downloads. `offset_elems` shifts every
// pointer by that many elements from cudaMalloc's 256-byte alignment (to exercise fallbacks).
void RunAttention(const KernelEntry& e, const AttentionCase& c, AttentionOutput* out,
                  int offset_elems = 0) {
  const size_t eb = DTypeBytes(c.p.dtype);
  const size_t off = offset_elems * eb;
  DeviceBuffer q(c.qb.size() + off), k(c.kb.size() + off), v(c.vb.size() + off),
      o(c.qb.size() + off), lse(c.p.LseElements() * sizeof(float));
  for (const DeviceBuffer* b : {&q, &k, &v, &o, &lse}) ASSERT_CUDA(b->status());
  ASSERT_CUDA(cudaMemcpy(q.get() + off, c.qb.data(), c.qb.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(k.get() + off, c.kb.data(), c.kb.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(v.get() + off, c.vb.data(), c.vb.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemset(o.get(), 0xFF, c.qb.size() + off));
  ASSERT_CUDA(cudaMemset(lse.get(), 0xFF, c.p.LseElements() * sizeof(float)));
  AttentionArgs args;
  args.q = q.get() + off;
  args.k = k.get() + off;
  args.v = v.get() + off;
  args.o = o.get() + off;
  args.lse = c.p.want_lse ? reinterpret_cast<float*>(lse.get()) : nullptr;
  args.softmax_scale = 1.0f / std::sqrt(static_cast<float>(c.p.head_dim));
  ASSERT_CUDA(e.attention_launch(c.p, args, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  out->o.resize(c.qb.size());
  out->lse.resize(c.p.LseElements());
  ASSERT_CUDA(cudaMemcpy(out->o.data(), o.get() + off, c.qb.size(), cudaMemcpyDeviceToHost));
  ASSERT_CUDA(cudaMemcpy(out->lse.data(), lse.get(), out->lse.size() * sizeof(float),
                         cudaMemcpyDeviceToHost));
}

// Compares the first `rows` flattened query rows (all when negative) of O, and of LSE when the
// problem asks for it. O: |o - ref| <= 1e-2 + 2e-2·|ref|; LSE: <= 2e-3·(1 + |ref|), -inf exact.
::testing::AssertionResult CompareAttention(const AttentionCase& c, const AttentionOutput& out,
                                            int64_t rows = -1) {
  const int64_t d_head = c.p.head_dim;
  const int64_t n_rows = rows < 0 ? c.p.LseElements() : rows;
  int64_t bad = 0, first_bad = -1;
  double max_err = 0.0;
  for (int64_t i = 0; i < n_rows * d_head; ++i) {
    const double got = DecodeElement(c.p.dtype, out.o, i);
    const double err = std::fabs(got - c.ref_o[i]);
    if (!(err <= 1e-2 + 2e-2 * std::fabs(c.ref_o[i]))) {
      if (first_bad < 0) first_bad = i;
      ++bad;
    }
    if (err > max_err || std::isnan(err)) max_err = err;
  }
  std::ostringstream msg;
  if (bad > 0) {
    msg << bad << " bad O elements, max |err| " << max_err << "; first at flat index " << first_bad
        << " (row " << first_bad / d_head << ", d " << first_bad % d_head << "): got "
        << DecodeElement(c.p.dtype, out.o, first_bad) << ", want " << c.ref_o[first_bad];
    return ::testing::AssertionFailure() << msg.str();
  }
  if (c.p.want_lse) {
    for (int64_t r = 0; r < n_rows; ++r) {
      const double want = c.ref_lse[r];
      const double got = out.lse[r];
      const bool ok = std::isinf(want) ? (std::isinf(got) && got < 0)
                                       : std::fabs(got - want) <= 2e-3 * (1.0 + std::fabs(want));
      if (!ok) {
        return ::testing::AssertionFailure()
               << "LSE row " << r << ": got " << got << ", want " << want;
      }
    }
  }
  return ::testing::AssertionSuccess() << "max |err| " << max_err;
}

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

struct GemmCase {
  GemmProblem g;
  std::vector<float> a, b;  // values as rounded to the dtype
  std::vector<unsigned char> ab, bb;
  std::vector<double> ref, abs_sum;
};

GemmCase MakeGemmCase(const GemmProblem& g, uint32_t seed) {
  GemmCase c;
  c.g = g;
  std::mt19937 rng(seed);
  RandomTensor(g.dtype, g.m * g.k, &rng, &c.a, &c.ab);
  RandomTensor(g.dtype, g.k * g.n, &rng, &c.b, &c.bb);
  ReferenceGemm(g, c.a, c.b, &c.ref, &c.abs_sum);
  return c;
}

void RunGemm(const KernelEntry& e, const GemmProblem& g, const std::vector<unsigned char>& ab,
             const std::vector<unsigned char>& bb, std::vector<float>* c, int offset_elems = 0) {
  const size_t eb = DTypeBytes(g.dtype);
  const size_t off = offset_elems * eb;
  const size_t c_off = offset_elems * sizeof(float);
  DeviceBuffer a(ab.size() + off), b(bb.size() + off), cd(g.m * g.n * sizeof(float) + c_off);
  for (const DeviceBuffer* x : {&a, &b, &cd}) ASSERT_CUDA(x->status());
  ASSERT_CUDA(cudaMemcpy(a.get() + off, ab.data(), ab.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(b.get() + off, bb.data(), bb.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemset(cd.get(), 0xFF, g.m * g.n * sizeof(float) + c_off));
  GemmArgs args{a.get() + off, b.get() + off, reinterpret_cast<float*>(cd.get() + c_off)};
  ASSERT_CUDA(e.gemm_launch(g, args, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  c->resize(g.m * g.n);
  ASSERT_CUDA(
      cudaMemcpy(c->data(), cd.get() + c_off, c->size() * sizeof(float), cudaMemcpyDeviceToHost));
}

// |c - ref| <= 2e-4·Σ|a·b| + 1e-5: fp32 accumulation of K products, whatever the input dtype.
::testing::AssertionResult CompareGemm(const std::vector<float>& c, const std::vector<double>& ref,
                                       const std::vector<double>& abs_sum) {
  for (size_t i = 0; i < c.size(); ++i) {
    const double err = std::fabs(c[i] - ref[i]);
    if (!(err <= 2e-4 * abs_sum[i] + 1e-5)) {
      return ::testing::AssertionFailure()
             << "C[" << i << "]: got " << c[i] << ", want " << ref[i] << " (|err| " << err << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

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
