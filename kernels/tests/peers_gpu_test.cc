// The attention peers (peer.cublas_unfused, peer.cudnn_sdpa) against a small CPU double reference:
// fp16 and bf16, head dims 64 and 128, causal and not, lengths 1, 17 and 128, and Sq != Sk both
// ways. Output and LSE are poisoned before each launch so that an element never written fails.
// Runs on the device only (label gpu).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/problem.h"
#include "common/tests/cuda_assert.h"
#include "kernels/registry.h"
#include "kernels/tests/cpu_reference.h"

namespace flashscope::kernels {
namespace {

uint16_t ToBits(float x, DType t) {
  if (t == DType::kF16) return static_cast<__half_raw>(__float2half_rn(x)).x;
  return static_cast<__nv_bfloat16_raw>(__float2bfloat16_rn(x)).x;
}

float FromBits(uint16_t bits, DType t) {
  if (t == DType::kF16) {
    __half_raw r;
    r.x = bits;
    return __half2float(__half(r));
  }
  __nv_bfloat16_raw r;
  r.x = bits;
  return __bfloat162float(__nv_bfloat16(r));
}

struct DeviceBuffer {
  void* ptr = nullptr;
  ~DeviceBuffer() {
    if (ptr != nullptr) cudaFree(ptr);
  }
};

std::string Describe(const std::string& id, const AttentionProblem& p) {
  return id + " " + ProblemKey(p);
}

// Runs `id` on `p` and checks O (and the LSE when asked) against the reference.
void CheckPeer(const std::string& id, const AttentionProblem& p) {
  SCOPED_TRACE(Describe(id, p));
  const KernelEntry* e = FindKernel(id);
  ASSERT_NE(e, nullptr) << id << " is not registered";
  const std::string why = e->Supports(Problem(p));
  ASSERT_EQ(why, "") << "unexpectedly unsupported: " << why;

  std::mt19937 rng(1234 + static_cast<uint32_t>(p.seq_q * 7 + p.seq_k * 13 + p.head_dim));
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  auto make = [&](int64_t n, std::vector<float>* f, std::vector<uint16_t>* bits) {
    f->resize(n);
    bits->resize(n);
    for (int64_t i = 0; i < n; ++i) {
      (*bits)[i] = ToBits(dist(rng), p.dtype);
      (*f)[i] = FromBits((*bits)[i], p.dtype);
    }
  };
  std::vector<float> q, k, v;
  std::vector<uint16_t> qb, kb, vb;
  make(p.QElements(), &q, &qb);
  make(p.KElements(), &k, &kb);
  make(p.KElements(), &v, &vb);
  std::vector<double> ref_o, ref_lse;
  // The reference sees the inputs as the kernel does (already rounded to the dtype).
  testing::ReferenceAttention(p, q, k, v, &ref_o, &ref_lse);

  DeviceBuffer dq, dk, dv, dout, dlse;
  ASSERT_CUDA(cudaMalloc(&dq.ptr, qb.size() * 2));
  ASSERT_CUDA(cudaMalloc(&dk.ptr, kb.size() * 2));
  ASSERT_CUDA(cudaMalloc(&dv.ptr, vb.size() * 2));
  ASSERT_CUDA(cudaMalloc(&dout.ptr, qb.size() * 2));
  ASSERT_CUDA(cudaMalloc(&dlse.ptr, p.LseElements() * sizeof(float)));
  ASSERT_CUDA(cudaMemcpy(dq.ptr, qb.data(), qb.size() * 2, cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(dk.ptr, kb.data(), kb.size() * 2, cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(dv.ptr, vb.data(), vb.size() * 2, cudaMemcpyHostToDevice));
  // Poison: 0xFFFF is a NaN in fp16 and bf16, 0xFFFFFFFF a NaN in fp32.
  ASSERT_CUDA(cudaMemset(dout.ptr, 0xFF, qb.size() * 2));
  ASSERT_CUDA(cudaMemset(dlse.ptr, 0xFF, p.LseElements() * sizeof(float)));

  AttentionArgs args;
  args.q = dq.ptr;
  args.k = dk.ptr;
  args.v = dv.ptr;
  args.o = dout.ptr;
  args.lse = p.want_lse ? static_cast<float*>(dlse.ptr) : nullptr;
  args.softmax_scale = 1.f / std::sqrt(static_cast<float>(p.head_dim));
  cudaStream_t stream;
  ASSERT_CUDA(cudaStreamCreate(&stream));
  const cudaError_t launch = e->attention_launch(p, args, stream);
  const cudaError_t sync = cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  ASSERT_EQ(launch, cudaSuccess) << cudaGetErrorString(launch);
  ASSERT_EQ(sync, cudaSuccess) << cudaGetErrorString(sync);

  std::vector<uint16_t> ob(qb.size());
  std::vector<float> lse(p.LseElements());
  ASSERT_CUDA(cudaMemcpy(ob.data(), dout.ptr, ob.size() * 2, cudaMemcpyDeviceToHost));
  ASSERT_CUDA(cudaMemcpy(lse.data(), dlse.ptr, lse.size() * 4, cudaMemcpyDeviceToHost));

  // Tolerances: P and O are rounded to the dtype (2^-11 relative for fp16, 2^-8 for bf16) and
  // |O| <= 1 for inputs in [-1, 1]; a few roundings of that size, with margin.
  const double tol = p.dtype == DType::kF16 ? 4e-3 : 3e-2;
  double max_err = 0;
  int64_t worst = -1, nonfinite = 0;
  for (size_t i = 0; i < ob.size(); ++i) {
    const float got = FromBits(ob[i], p.dtype);
    if (!std::isfinite(got)) {
      ++nonfinite;
      continue;
    }
    const double err = std::fabs(got - ref_o[i]);
    if (err > max_err) {
      max_err = err;
      worst = static_cast<int64_t>(i);
    }
  }
  EXPECT_EQ(nonfinite, 0) << "output elements NaN/Inf or never written";
  EXPECT_LE(max_err, tol) << "worst flat index " << worst << " got "
                          << FromBits(ob[worst < 0 ? 0 : worst], p.dtype) << " want "
                          << ref_o[worst < 0 ? 0 : worst];
  if (p.want_lse) {
    double max_lse_err = 0;
    for (size_t i = 0; i < lse.size(); ++i) {
      if (std::isinf(ref_lse[i])) {
        EXPECT_TRUE(std::isinf(lse[i]) && lse[i] < 0)
            << "row " << i << " sees no key; lse " << lse[i];
        continue;
      }
      ASSERT_TRUE(std::isfinite(lse[i])) << "lse row " << i << " = " << lse[i];
      max_lse_err = std::max(max_lse_err, std::fabs(lse[i] - ref_lse[i]));
    }
    EXPECT_LE(max_lse_err, 2e-3) << "LSE (natural log) off";
  }
}

struct Shape {
  int64_t sq, sk;
};

std::vector<std::string> PeerIds() {
  std::vector<std::string> ids{"peer.cublas_unfused"};
#ifdef FLASHSCOPE_HAVE_CUDNN
  ids.push_back("peer.cudnn_sdpa");
#endif
  return ids;
}

bool HaveGpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

class PeersGpuTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!HaveGpu()) GTEST_SKIP() << "no CUDA device; this test runs on the GPU machine";
  }
};

TEST_P(PeersGpuTest, MatchesCpuReference) {
  const std::string id = GetParam();
  const Shape shapes[] = {{1, 1}, {17, 17}, {128, 128}, {17, 128}, {128, 17}};
  int n = 0;
  for (DType t : {DType::kF16, DType::kBF16}) {
    for (int64_t d : {64, 128}) {
      for (bool causal : {false, true}) {
        for (const Shape& s : shapes) {
          AttentionProblem p = AttentionShape(2, 3, s.sq, s.sk, d, t);
          p.causal = causal;
          p.want_lse = (n++ % 2) == 0 || s.sq != s.sk;  // half the square cases without the LSE
          const KernelEntry* e = FindKernel(id);
          ASSERT_NE(e, nullptr);
          if (causal && s.sq > s.sk && id == "peer.cudnn_sdpa") {
            // Rows with no visible key: cuDNN cannot give zeros; it must refuse, with the reason.
            EXPECT_NE(e->Supports(Problem(p)), "") << ProblemKey(p);
            continue;
          }
          CheckPeer(id, p);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Peers, PeersGpuTest, ::testing::ValuesIn(PeerIds()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == '.') c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace flashscope::kernels
