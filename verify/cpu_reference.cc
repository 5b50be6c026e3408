#include "verify/cpu_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace flashscope::verify {

void AttentionReferenceCpuRow(const AttentionProblem& p, const float* q, const float* k,
                              const float* v, int64_t bh, int64_t row, double* out_row,
                              double* lse) {
  const int64_t d = p.head_dim;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const float* qi = q + (bh * p.seq_q + row) * d;
  const float* kh = k + bh * p.seq_k * d;
  const float* vh = v + bh * p.seq_k * d;
  const int64_t end = p.CausalKeyEnd(row);
  std::fill(out_row, out_row + d, 0.0);
  if (end <= 0) {  // sees no key: zeros and -inf, as common/problem.h specifies
    if (lse) *lse = -std::numeric_limits<double>::infinity();
    return;
  }
  // Two passes (max, then exponentials) instead of an online softmax: this is the reference,
  // so it takes the plainest numerically safe route.
  std::vector<double> s(static_cast<size_t>(end));
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < end; ++j) {
    double dot = 0;
    for (int64_t c = 0; c < d; ++c) dot += static_cast<double>(qi[c]) * kh[j * d + c];
    s[j] = dot * scale;
    m = std::max(m, s[j]);
  }
  double l = 0;
  for (int64_t j = 0; j < end; ++j) {
    const double pj = std::exp(s[j] - m);
    l += pj;
    for (int64_t c = 0; c < d; ++c) out_row[c] += pj * vh[j * d + c];
  }
  for (int64_t c = 0; c < d; ++c) out_row[c] /= l;
  if (lse) *lse = m + std::log(l);
}

void AttentionReferenceCpu(const AttentionProblem& p, const float* q, const float* k,
                           const float* v, double* out, double* lse) {
  const int64_t heads = p.batch * p.heads;
  for (int64_t bh = 0; bh < heads; ++bh) {
    for (int64_t i = 0; i < p.seq_q; ++i) {
      const int64_t r = bh * p.seq_q + i;
      AttentionReferenceCpuRow(p, q, k, v, bh, i, out + r * p.head_dim, lse ? lse + r : nullptr);
    }
  }
}

void GemmReferenceCpu(const GemmProblem& p, const float* a, const float* b, double* c) {
  std::fill(c, c + p.m * p.n, 0.0);
  // i-k-j order: the inner loop walks rows of B and C contiguously.
  for (int64_t i = 0; i < p.m; ++i) {
    double* ci = c + i * p.n;
    for (int64_t kk = 0; kk < p.k; ++kk) {
      const double aik = a[i * p.k + kk];
      const float* bk = b + kk * p.n;
      for (int64_t j = 0; j < p.n; ++j) ci[j] += aik * bk[j];
    }
  }
}

}  // namespace flashscope::verify
