#include "kernels/tests/cpu_reference.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace flashscope::kernels::testing {
namespace {

struct RowSoftmax {
  double max = -std::numeric_limits<double>::infinity();
  double sum = 0.0;
};

// exp(s_j - max) of query row `qr` against keys [0, end) of `kh` into s[0, end), in double; the
// row's max and the sum of the exponentials (what both the reference and the E4M3 bound need).
RowSoftmax ExpScores(const float* qr, const float* kh, int64_t end, int64_t d_head, double scale,
                     std::vector<double>* s) {
  RowSoftmax r;
  for (int64_t j = 0; j < end; ++j) {
    double dot = 0.0;
    for (int64_t d = 0; d < d_head; ++d) dot += double(qr[d]) * double(kh[j * d_head + d]);
    (*s)[j] = dot * scale;
    r.max = std::max(r.max, (*s)[j]);
  }
  for (int64_t j = 0; j < end; ++j) {
    (*s)[j] = std::exp((*s)[j] - r.max);
    r.sum += (*s)[j];
  }
  return r;
}

}  // namespace

void ReferenceAttention(const AttentionProblem& p, const std::vector<float>& q,
                        const std::vector<float>& k, const std::vector<float>& v,
                        std::vector<double>* o, std::vector<double>* lse, double scale) {
  const int64_t d_head = p.head_dim;
  if (scale == 0.0) scale = 1.0 / std::sqrt(static_cast<double>(d_head));
  o->assign(p.QElements(), 0.0);
  lse->assign(p.LseElements(), -std::numeric_limits<double>::infinity());
  std::vector<double> s(p.seq_k);
  for (int64_t bh = 0; bh < p.batch * p.heads; ++bh) {
    const float* kh = k.data() + bh * p.seq_k * d_head;
    const float* vh = v.data() + bh * p.seq_k * d_head;
    for (int64_t i = 0; i < p.seq_q; ++i) {
      const int64_t row = bh * p.seq_q + i;
      const float* qr = q.data() + row * d_head;
      const int64_t end = p.CausalKeyEnd(i);
      if (end == 0) continue;  // zeros and -inf, as assigned
      const RowSoftmax r = ExpScores(qr, kh, end, d_head, scale, &s);
      double* orow = o->data() + row * d_head;
      for (int64_t j = 0; j < end; ++j) {
        const double w = s[j] / r.sum;
        for (int64_t d = 0; d < d_head; ++d) orow[d] += w * double(vh[j * d_head + d]);
      }
      (*lse)[row] = r.max + std::log(r.sum);
    }
  }
}

void ReferenceE4M3ErrorBound(const AttentionProblem& p, const std::vector<float>& q,
                             const std::vector<float>& k, const std::vector<float>& v, double scale,
                             double p_unit, std::vector<double>* bound) {
  const int64_t d_head = p.head_dim;
  if (scale == 0.0) scale = 1.0 / std::sqrt(static_cast<double>(d_head));
  const double sub = p_unit > 0 ? std::ldexp(1.0, -10) : 0.0;  // half the subnormal step
  bound->assign(p.QElements(), 1e-6);
  std::vector<double> s(p.seq_k), ref(d_head), rnd(d_head), acc(d_head);
  for (int64_t bh = 0; bh < p.batch * p.heads; ++bh) {
    const float* kh = k.data() + bh * p.seq_k * d_head;
    const float* vh = v.data() + bh * p.seq_k * d_head;
    for (int64_t i = 0; i < p.seq_q; ++i) {
      const int64_t row = bh * p.seq_q + i;
      const float* qr = q.data() + row * d_head;
      const int64_t end = p.CausalKeyEnd(i);
      if (end == 0) continue;  // zeros, exact
      const double l = ExpScores(qr, kh, end, d_head, scale, &s).sum;
      std::fill(ref.begin(), ref.end(), 0.0);
      std::fill(rnd.begin(), rnd.end(), 0.0);
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t j = 0; j < end; ++j) {
        const double e = std::max(p_unit * s[j], sub);
        for (int64_t d = 0; d < d_head; ++d) {
          const double av = std::fabs(double(vh[j * d_head + d]));
          ref[d] += s[j] * double(vh[j * d_head + d]);
          rnd[d] += av * e;
          acc[d] += av * s[j];
        }
      }
      double* b = bound->data() + row * d_head;
      for (int64_t d = 0; d < d_head; ++d) {
        b[d] += rnd[d] / l + std::ldexp(acc[d] / l, -10) + std::ldexp(std::fabs(ref[d] / l), -8);
      }
    }
  }
}

void ReferenceGemm(const GemmProblem& g, const std::vector<float>& a, const std::vector<float>& b,
                   std::vector<double>* c, std::vector<double>* abs_sum) {
  c->assign(g.m * g.n, 0.0);
  abs_sum->assign(g.m * g.n, 0.0);
  for (int64_t i = 0; i < g.m; ++i) {
    for (int64_t kk = 0; kk < g.k; ++kk) {
      const double x = a[i * g.k + kk];
      for (int64_t j = 0; j < g.n; ++j) {
        const double prod = x * double(b[kk * g.n + j]);
        (*c)[i * g.n + j] += prod;
        (*abs_sum)[i * g.n + j] += std::fabs(prod);
      }
    }
  }
}

void RandomTensor(DType dtype, int64_t n, std::mt19937* rng, std::vector<float>* values,
                  std::vector<unsigned char>* bytes) {
  std::normal_distribution<float> dist(0.f, 1.f);
  const size_t eb = DTypeBytes(dtype);
  values->resize(n);
  bytes->resize(n * eb);
  for (int64_t i = 0; i < n; ++i) {
    const float x = dist(*rng);
    unsigned char* dst = bytes->data() + i * eb;
    if (dtype == DType::kE4M3) {
      *dst = EncodeE4M3(x);
      (*values)[i] = DecodeE4M3(*dst);
    } else if (dtype == DType::kF16) {
      const __half h = __float2half_rn(x);
      (*values)[i] = __half2float(h);
      std::memcpy(dst, &h, 2);
    } else if (dtype == DType::kBF16) {
      const __nv_bfloat16 h = __float2bfloat16_rn(x);
      (*values)[i] = __bfloat162float(h);
      std::memcpy(dst, &h, 2);
    } else {
      (*values)[i] = x;
      std::memcpy(dst, &x, 4);
    }
  }
}

unsigned char EncodeE4M3(float x) {
  return static_cast<unsigned char>(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
}

float DecodeE4M3(unsigned char b) {
  const __half h(__nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(b), __NV_E4M3));
  return __half2float(h);
}

float DecodeElement(DType dtype, const std::vector<unsigned char>& bytes, int64_t i) {
  const unsigned char* src = bytes.data() + i * DTypeBytes(dtype);
  if (dtype == DType::kE4M3) return DecodeE4M3(*src);
  if (dtype == DType::kF16) {
    __half h;
    std::memcpy(&h, src, 2);
    return __half2float(h);
  }
  if (dtype == DType::kBF16) {
    __nv_bfloat16 h;
    std::memcpy(&h, src, 2);
    return __bfloat162float(h);
  }
  float f;
  std::memcpy(&f, src, 4);
  return f;
}

}  // namespace flashscope::kernels::testing
