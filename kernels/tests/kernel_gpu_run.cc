#include "kernels/tests/kernel_gpu_run.h"

#include <cuda_runtime_api.h>

#include <cmath>
#include <random>
#include <sstream>

#include "common/tests/cuda_assert.h"
#include "kernels/tests/cpu_reference.h"

namespace flashscope::kernels::testing {

bool OnHopper() {
  int n = 0, dev = 0, major = 0, minor = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return false;
  if (cudaGetDevice(&dev) != cudaSuccess) return false;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major == 9 && minor == 0;
}

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

void RunAttention(const KernelEntry& e, const AttentionCase& c, AttentionOutput* out,
                  int offset_elems) {
  const size_t eb = DTypeBytes(c.p.dtype);
  const size_t off = offset_elems * eb;
  // O is BF16 for E4M3 inputs (AttentionOutputDType), the input type otherwise.
  const size_t o_eb = DTypeBytes(AttentionOutputDType(c.p.dtype));
  const size_t o_bytes = c.p.QElements() * o_eb, o_off = offset_elems * o_eb;
  DeviceBuffer q(c.qb.size() + off), k(c.kb.size() + off), v(c.vb.size() + off), o(o_bytes + o_off),
      lse(c.p.LseElements() * sizeof(float));
  for (const DeviceBuffer* b : {&q, &k, &v, &o, &lse}) ASSERT_CUDA(b->status());
  ASSERT_CUDA(cudaMemcpy(q.get() + off, c.qb.data(), c.qb.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(k.get() + off, c.kb.data(), c.kb.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(v.get() + off, c.vb.data(), c.vb.size(), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemset(o.get(), 0xFF, o_bytes + o_off));
  ASSERT_CUDA(cudaMemset(lse.get(), 0xFF, c.p.LseElements() * sizeof(float)));
  AttentionArgs args;
  args.q = q.get() + off;
  args.k = k.get() + off;
  args.v = v.get() + off;
  args.o = o.get() + o_off;
  args.lse = c.p.want_lse ? reinterpret_cast<float*>(lse.get()) : nullptr;
  args.softmax_scale =
      c.softmax_scale != 0.f ? c.softmax_scale : 1.0f / std::sqrt(static_cast<float>(c.p.head_dim));
  ASSERT_CUDA(e.attention_launch(c.p, args, nullptr));
  ASSERT_CUDA(cudaDeviceSynchronize());
  out->o.resize(o_bytes);
  out->lse.resize(c.p.LseElements());
  ASSERT_CUDA(cudaMemcpy(out->o.data(), o.get() + o_off, o_bytes, cudaMemcpyDeviceToHost));
  ASSERT_CUDA(cudaMemcpy(out->lse.data(), lse.get(), out->lse.size() * sizeof(float),
                         cudaMemcpyDeviceToHost));
}

::testing::AssertionResult CompareAttention(const AttentionCase& c, const AttentionOutput& out,
                                            int64_t rows) {
  const int64_t d_head = c.p.head_dim;
  const int64_t n_rows = rows < 0 ? c.p.LseElements() : rows;
  const DType o_type = AttentionOutputDType(c.p.dtype);
  int64_t bad = 0, first_bad = -1;
  double max_err = 0.0;
  for (int64_t i = 0; i < n_rows * d_head; ++i) {
    const double got = DecodeElement(o_type, out.o, i);
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
        << DecodeElement(o_type, out.o, first_bad) << ", want " << c.ref_o[first_bad];
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
             const std::vector<unsigned char>& bb, std::vector<float>* c, int offset_elems) {
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

}  // namespace flashscope::kernels::testing
