#include "verify/cross_check.h"

#include <cmath>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "verify/cpu_reference.h"
#include "verify/device_buffer.h"
#include "verify/half_convert.h"
#include "verify/input_generators.h"

namespace flashscope::verify {
namespace {

absl::StatusOr<std::vector<float>> CopyToHostFloat(const DeviceBuffer& buf, DType t, int64_t n,
                                                   cudaStream_t stream) {
  std::vector<unsigned char> raw(static_cast<size_t>(n) * DTypeBytes(t));
  if (absl::Status st = CudaStatus(
          cudaMemcpyAsync(raw.data(), buf.get(), raw.size(), cudaMemcpyDeviceToHost, stream),
          "copying to the host");
      !st.ok()) {
    return st;
  }
  if (absl::Status st = CudaStatus(cudaStreamSynchronize(stream), "synchronising"); !st.ok()) {
    return st;
  }
  std::vector<float> out(static_cast<size_t>(n));
  ConvertToFloat(raw.data(), t, n, out.data());
  return out;
}

absl::StatusOr<CrossCheckResult> CheckAttention(const AttentionProblem& p, InputKind kind,
                                                uint64_t seed, ReferencePrecision precision,
                                                cudaStream_t stream) {
  DeviceBuffer q, k, v, out, lse;
  const size_t e = DTypeBytes(p.dtype);
  for (auto [buf, n, name] :
       {std::tuple{&q, p.QElements(), "q"}, std::tuple{&k, p.KElements(), "k"},
        std::tuple{&v, p.KElements(), "v"}}) {
    if (absl::Status st = buf->Allocate(n * e, name); !st.ok()) return st;
  }
  if (absl::Status st = out.Allocate(4 * p.QElements(), "reference output"); !st.ok()) return st;
  if (absl::Status st = lse.Allocate(4 * p.LseElements(), "reference lse"); !st.ok()) return st;
  if (absl::Status st =
          CudaStatus(GenerateAttentionInputs(p, kind, seed, q.get(), k.get(), v.get(), stream),
                     "generating inputs");
      !st.ok()) {
    return st;
  }
  if (absl::Status st = CudaStatus(AttentionReferenceGpu(p, q.get(), k.get(), v.get(), precision,
                                                         out.f32(), lse.f32(), stream),
                                   "GPU attention reference");
      !st.ok()) {
    return st;
  }
  auto hq = CopyToHostFloat(q, p.dtype, p.QElements(), stream);
  auto hk = CopyToHostFloat(k, p.dtype, p.KElements(), stream);
  auto hv = CopyToHostFloat(v, p.dtype, p.KElements(), stream);
  auto gpu_out = CopyToHostFloat(out, DType::kF32, p.QElements(), stream);
  auto gpu_lse = CopyToHostFloat(lse, DType::kF32, p.LseElements(), stream);
  for (const auto* s : {&hq, &hk, &hv, &gpu_out, &gpu_lse}) {
    if (!s->ok()) return s->status();
  }
  std::vector<double> cpu_out(p.QElements()), cpu_lse(p.LseElements());
  AttentionReferenceCpu(p, hq->data(), hk->data(), hv->data(), cpu_out.data(), cpu_lse.data());
  CrossCheckResult r;
  r.elements = p.QElements();
  for (int64_t i = 0; i < p.QElements(); ++i) {
    r.out_max_abs_diff = std::fmax(r.out_max_abs_diff, std::fabs((*gpu_out)[i] - cpu_out[i]));
    r.ref_max_abs = std::fmax(r.ref_max_abs, std::fabs(cpu_out[i]));
  }
  for (int64_t i = 0; i < p.LseElements(); ++i) {
    const double g = (*gpu_lse)[i], c = cpu_lse[i];
    if (std::isinf(g) || std::isinf(c) || std::isnan(g)) {
      if (!(g == c)) ++r.lse_mismatched;
      continue;
    }
    r.lse_max_abs_diff = std::fmax(r.lse_max_abs_diff, std::fabs(g - c));
  }
  return r;
}

absl::StatusOr<CrossCheckResult> CheckGemm(const GemmProblem& p, InputKind kind, uint64_t seed,
                                           ReferencePrecision precision, cudaStream_t stream) {
  DeviceBuffer a, b, c;
  const size_t e = DTypeBytes(p.dtype);
  if (absl::Status st = a.Allocate(p.m * p.k * e, "a"); !st.ok()) return st;
  if (absl::Status st = b.Allocate(p.k * p.n * e, "b"); !st.ok()) return st;
  if (absl::Status st = c.Allocate(4 * p.m * p.n, "reference output"); !st.ok()) return st;
  if (absl::Status st = CudaStatus(GenerateGemmInputs(p, kind, seed, a.get(), b.get(), stream),
                                   "generating inputs");
      !st.ok()) {
    return st;
  }
  if (absl::Status st = CudaStatus(
          GemmReferenceGpu(p, a.get(), b.get(), precision, c.f32(), stream), "GPU gemm reference");
      !st.ok()) {
    return st;
  }
  auto ha = CopyToHostFloat(a, p.dtype, p.m * p.k, stream);
  auto hb = CopyToHostFloat(b, p.dtype, p.k * p.n, stream);
  auto gpu = CopyToHostFloat(c, DType::kF32, p.m * p.n, stream);
  for (const auto* s : {&ha, &hb, &gpu}) {
    if (!s->ok()) return s->status();
  }
  std::vector<double> cpu(p.m * p.n);
  GemmReferenceCpu(p, ha->data(), hb->data(), cpu.data());
  CrossCheckResult r;
  r.elements = p.m * p.n;
  for (int64_t i = 0; i < p.m * p.n; ++i) {
    r.out_max_abs_diff = std::fmax(r.out_max_abs_diff, std::fabs((*gpu)[i] - cpu[i]));
    r.ref_max_abs = std::fmax(r.ref_max_abs, std::fabs(cpu[i]));
  }
  return r;
}

}  // namespace

absl::StatusOr<CrossCheckResult> CrossCheckReferenceWithCpu(const Problem& p, InputKind kind,
                                                            uint64_t seed,
                                                            ReferencePrecision precision,
                                                            cudaStream_t stream) {
  if (const auto* a = std::get_if<AttentionProblem>(&p)) {
    const double work =
        static_cast<double>(a->batch) * a->heads * a->seq_q * a->seq_k * a->head_dim;
    if (work > kCrossCheckMaxWork) {
      return absl::InvalidArgumentError(
          absl::StrCat(ProblemKey(p), " is too large for the CPU cross-check (", work,
                       " multiply-adds; the limit is ", kCrossCheckMaxWork, ")"));
    }
    return CheckAttention(*a, kind, seed, precision, stream);
  }
  const auto& g = std::get<GemmProblem>(p);
  const double work = static_cast<double>(g.m) * g.n * g.k;
  if (work > kCrossCheckMaxWork) {
    return absl::InvalidArgumentError(
        absl::StrCat(ProblemKey(p), " is too large for the CPU cross-check (", work,
                     " multiply-adds; the limit is ", kCrossCheckMaxWork, ")"));
  }
  return CheckGemm(g, kind, seed, precision, stream);
}

}  // namespace flashscope::verify
