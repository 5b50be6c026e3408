// Tensor-core ladder rungs (attn.a05..a11, gemm.g04) against the kernel tests' CPU double
// reference (tests/cpu_reference.h), on the device only (ctest label gpu). Inputs are rounded to
// the kernel's dtype first, so the reference sees exactly the values the kernel sees; outputs are
// poisoned (NaN) before each launch so an element the kernel never writes fails the check.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "common/tests/cuda_assert.h"
#include "kernels/registry.h"
#include "kernels/tests/cpu_reference.h"

namespace flashscope::kernels {
namespace {

const char* const kAttentionRungs[] = {
    "attn.a05_mma_ldmatrix", "attn.a06_inreg_softmax",    "attn.a07_direct_rescale",
    "attn.a08_cp_async",     "attn.a09_swizzle",          "attn.a10_fa2",
    "attn.a11_fa4_softmax",  "attn.a11_fa4_cond_rescale", "attn.a11_fa4_poly_exp",
};

uint16_t ToBits(float x, DType t) {
  uint16_t b;
  if (t == DType::kBF16) {
    __nv_bfloat16 h = __float2bfloat16_rn(x);
    std::memcpy(&b, &h, 2);
  } else {
    __half h = __float2half_rn(x);
    std::memcpy(&b, &h, 2);
  }
  return b;
}

float FromBits(uint16_t b, DType t) {
  if (t == DType::kBF16) {
    __nv_bfloat16 h;
    std::memcpy(&h, &b, 2);
    return __bfloat162float(h);
  }
  __half h;
  std::memcpy(&h, &b, 2);
  return __half2float(h);
}

struct HostTensor {
  std::vector<uint16_t> bits;  // what the kernel reads
  std::vector<float> value;    // the same numbers, for the reference
};

HostTensor RandomTensor(int64_t n, DType t, double amplitude, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  HostTensor h;
  h.bits.resize(n);
  h.value.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    h.bits[i] = ToBits(static_cast<float>(amplitude) * dist(rng), t);
    h.value[i] = FromBits(h.bits[i], t);
  }
  return h;
}

struct AttnCase {
  int64_t batch, heads, seq_q, seq_k, head_dim;
  DType dtype;
  bool causal;
  double amplitude;  // Q scale: 1 = ordinary scores, 4 = large logits (many rescales)
};

std::string Describe(const AttnCase& c) {
  AttentionProblem p{c.batch, c.heads, c.seq_q, c.seq_k, c.head_dim, c.dtype, c.causal, true};
  return ProblemKey(p) + " amp=" + std::to_string(c.amplitude);
}

std::vector<AttnCase> AttentionCases() {
  const std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t>> shapes = {
      // batch, heads, seq_q, seq_k
      {2, 3, 1, 1},    {2, 3, 17, 17},  {1, 3, 130, 130}, {1, 2, 1000, 1000},
      {1, 2, 17, 130}, {1, 2, 130, 17}, {1, 2, 1, 1000},  {1, 2, 200, 64},
  };
  std::vector<AttnCase> cases;
  for (DType t : {DType::kF16, DType::kBF16}) {
    for (int64_t d : {64, 128}) {
      for (bool causal : {false, true}) {
        for (const auto& [b, h, sq, sk] : shapes) {
          cases.push_back({b, h, sq, sk, d, t, causal, 1.0});
        }
        cases.push_back({1, 2, 300, 700, d, t, causal, 4.0});
      }
    }
  }
  return cases;
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) { err_ = cudaMalloc(&ptr_, bytes == 0 ? 16 : bytes); }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  cudaError_t status() const { return err_; }

 private:
  void* ptr_ = nullptr;
  cudaError_t err_ = cudaSuccess;
};

bool HaveGpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

TEST(LadderGpuTest, AttentionRungsMatchCpuReference) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  for (const char* id : kAttentionRungs) {
    ASSERT_NE(FindKernel(id), nullptr) << id << " is not registered (kernels/kernel_list.h)";
  }
  int checked = 0;
  uint32_t seed = 1;
  for (const AttnCase& c : AttentionCases()) {
    AttentionProblem p{c.batch, c.heads, c.seq_q, c.seq_k, c.head_dim, c.dtype, c.causal, true};
    const HostTensor q = RandomTensor(p.QElements(), c.dtype, c.amplitude, seed++);
    const HostTensor k = RandomTensor(p.KElements(), c.dtype, 1.0, seed++);
    const HostTensor v = RandomTensor(p.KElements(), c.dtype, 1.0, seed++);
    std::vector<double> ref_o, ref_lse;
    testing::ReferenceAttention(p, q.value, k.value, v.value, &ref_o, &ref_lse);

    DeviceBuffer dq(q.bits.size() * 2), dk(k.bits.size() * 2), dv(v.bits.size() * 2);
    DeviceBuffer d_o(q.bits.size() * 2), dlse(p.LseElements() * sizeof(float));
    ASSERT_CUDA(dq.status());
    ASSERT_CUDA(d_o.status());
    ASSERT_CUDA(dlse.status());
    ASSERT_CUDA(cudaMemcpy(dq.get(), q.bits.data(), q.bits.size() * 2, cudaMemcpyHostToDevice));
    ASSERT_CUDA(cudaMemcpy(dk.get(), k.bits.data(), k.bits.size() * 2, cudaMemcpyHostToDevice));
    ASSERT_CUDA(cudaMemcpy(dv.get(), v.bits.data(), v.bits.size() * 2, cudaMemcpyHostToDevice));

    for (const char* id : kAttentionRungs) {
      const KernelEntry* e = FindKernel(id);
      ASSERT_EQ(e->Supports(Problem{p}), "") << id << " " << Describe(c);
      // 0xFF bytes: NaN in fp16, bf16 and fp32, so unwritten elements fail below.
      ASSERT_CUDA(cudaMemset(d_o.get(), 0xFF, q.bits.size() * 2));
      ASSERT_CUDA(cudaMemset(dlse.get(), 0xFF, p.LseElements() * sizeof(float)));
      AttentionArgs args{dq.get(),
                         dk.get(),
                         dv.get(),
                         d_o.get(),
                         static_cast<float*>(dlse.get()),
                         static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.head_dim)))};
      ASSERT_CUDA(e->attention_launch(p, args, nullptr));
      ASSERT_CUDA(cudaDeviceSynchronize());
      std::vector<uint16_t> o_bits(q.bits.size());
      std::vector<float> lse(p.LseElements());
      ASSERT_CUDA(cudaMemcpy(o_bits.data(), d_o.get(), o_bits.size() * 2, cudaMemcpyDeviceToHost));
      ASSERT_CUDA(cudaMemcpy(lse.data(), dlse.get(), lse.size() * 4, cudaMemcpyDeviceToHost));

      int64_t bad = 0, first_bad = -1;
      double max_err = 0;
      for (size_t i = 0; i < o_bits.size(); ++i) {
        const double got = FromBits(o_bits[i], c.dtype);
        const double err = std::fabs(got - ref_o[i]);
        const bool ok = std::isfinite(got) && err <= 2e-2 * (1.0 + std::fabs(ref_o[i]));
        if (!ok && bad++ == 0) first_bad = static_cast<int64_t>(i);
        if (std::isfinite(got)) max_err = std::max(max_err, err);
      }
      EXPECT_EQ(bad, 0) << id << " " << Describe(c) << ": " << bad << " bad O elements, first at "
                        << first_bad << " (row " << (first_bad / c.head_dim) % c.seq_q
                        << "), max err " << max_err;
      int64_t bad_lse = 0;
      for (size_t i = 0; i < lse.size(); ++i) {
        const bool ref_empty = std::isinf(ref_lse[i]);
        const bool ok = ref_empty
                            ? (std::isinf(lse[i]) && lse[i] < 0)
                            : std::fabs(lse[i] - ref_lse[i]) <= 2e-3 * (1 + std::fabs(ref_lse[i]));
        if (!ok && bad_lse++ == 0) {
          ADD_FAILURE() << id << " " << Describe(c) << ": lse[" << i << "] = " << lse[i]
                        << ", reference " << ref_lse[i];
        }
      }
      EXPECT_EQ(bad_lse, 0) << id << " " << Describe(c);
      ++checked;
    }
  }
  EXPECT_EQ(checked, static_cast<int>(AttentionCases().size() * std::size(kAttentionRungs)));
}

TEST(LadderGpuTest, AttentionWithoutLseLeavesLseAlone) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  AttentionProblem p{1, 1, 40, 40, 64, DType::kF16, true, /*want_lse=*/false};
  const HostTensor q = RandomTensor(p.QElements(), p.dtype, 1.0, 7);
  DeviceBuffer dq(q.bits.size() * 2), d_o(q.bits.size() * 2), dlse(p.LseElements() * 4);
  ASSERT_CUDA(cudaMemcpy(dq.get(), q.bits.data(), q.bits.size() * 2, cudaMemcpyHostToDevice));
  for (const char* id : kAttentionRungs) {
    ASSERT_CUDA(cudaMemset(dlse.get(), 0x7F, p.LseElements() * 4));
    AttentionArgs args{dq.get(), dq.get(), dq.get(), d_o.get(), static_cast<float*>(dlse.get()),
                       0.125f};
    ASSERT_CUDA(FindKernel(id)->attention_launch(p, args, nullptr));
    ASSERT_CUDA(cudaDeviceSynchronize());
    std::vector<uint32_t> lse(p.LseElements());
    ASSERT_CUDA(cudaMemcpy(lse.data(), dlse.get(), lse.size() * 4, cudaMemcpyDeviceToHost));
    for (uint32_t w : lse) ASSERT_EQ(w, 0x7F7F7F7Fu) << id << " wrote lse although want_lse=false";
  }
}

TEST(LadderGpuTest, RungsRefuseWhatTheyCannotDo) {
  for (const char* id : kAttentionRungs) {
    const KernelEntry* e = FindKernel(id);
    ASSERT_NE(e, nullptr) << id;
    EXPECT_NE(e->Supports(Problem{AttentionProblem{1, 1, 8, 8, 64, DType::kF32}}), "") << id;
    EXPECT_NE(e->Supports(Problem{AttentionProblem{1, 1, 8, 8, 96, DType::kF16}}), "") << id;
    EXPECT_EQ(e->Supports(Problem{AttentionProblem{1, 1, 8, 8, 128, DType::kBF16}}), "") << id;
    EXPECT_FALSE(e->device_functions(Problem{AttentionProblem{1, 1, 8, 8, 64}}).empty()) << id;
  }
  const KernelEntry* g = FindKernel("gemm.g04_mma");
  ASSERT_NE(g, nullptr);
  EXPECT_NE(g->Supports(Problem{GemmProblem{8, 8, 8, DType::kF32}}), "");
  EXPECT_EQ(g->Supports(Problem{GemmProblem{8, 8, 8, DType::kF16}}), "");
}

TEST(LadderGpuTest, G04MatchesCpuReferenceOnOddShapes) {
  if (!HaveGpu()) GTEST_SKIP() << "no CUDA device";
  const KernelEntry* e = FindKernel("gemm.g04_mma");
  ASSERT_NE(e, nullptr);
  const std::vector<std::tuple<int64_t, int64_t, int64_t>> shapes = {
      {1, 1, 1},      {17, 33, 9},      {128, 128, 128}, {257, 129, 64},
      {100, 200, 37}, {300, 136, 1000}, {64, 8, 24}};
  uint32_t seed = 100;
  for (const auto& [m, n, kk] : shapes) {
    GemmProblem p{m, n, kk, DType::kF16};
    const HostTensor a = RandomTensor(m * kk, DType::kF16, 1.0, seed++);
    const HostTensor b = RandomTensor(kk * n, DType::kF16, 1.0, seed++);
    DeviceBuffer da(a.bits.size() * 2), db(b.bits.size() * 2), dc(m * n * sizeof(float));
    ASSERT_CUDA(cudaMemcpy(da.get(), a.bits.data(), a.bits.size() * 2, cudaMemcpyHostToDevice));
    ASSERT_CUDA(cudaMemcpy(db.get(), b.bits.data(), b.bits.size() * 2, cudaMemcpyHostToDevice));
    ASSERT_CUDA(cudaMemset(dc.get(), 0xFF, m * n * sizeof(float)));
    GemmArgs args{da.get(), db.get(), static_cast<float*>(dc.get())};
    ASSERT_CUDA(e->gemm_launch(p, args, nullptr));
    ASSERT_CUDA(cudaDeviceSynchronize());
    std::vector<float> c(m * n);
    ASSERT_CUDA(cudaMemcpy(c.data(), dc.get(), c.size() * 4, cudaMemcpyDeviceToHost));
    int64_t bad = 0;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0, mag = 0;
        for (int64_t x = 0; x < kk; ++x) {
          ref += double(a.value[i * kk + x]) * b.value[x * n + j];
          mag += std::fabs(double(a.value[i * kk + x]) * b.value[x * n + j]);
        }
        const double got = c[i * n + j];
        if (!(std::fabs(got - ref) <= 1e-4 * (1 + mag)) && bad++ == 0) {
          ADD_FAILURE() << ProblemKey(p) << ": C[" << i << "," << j << "] = " << got
                        << ", reference " << ref;
        }
      }
    }
    EXPECT_EQ(bad, 0) << ProblemKey(p);
  }
}

}  // namespace
}  // namespace flashscope::kernels
