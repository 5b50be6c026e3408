#include "verify/problem_costs.h"

#include <algorithm>

namespace flashscope::verify {

double Flops(const AttentionProblem& p) {
  double f = 4.0 * p.batch * p.heads * static_cast<double>(p.seq_q) * p.seq_k * p.head_dim;
  return p.causal ? f / 2 : f;
}

double Flops(const GemmProblem& p) { return 2.0 * p.m * p.n * static_cast<double>(p.k); }

double Flops(const Problem& p) {
  return std::visit([](const auto& x) { return Flops(x); }, p);
}

double MinimalBytes(const AttentionProblem& p) {
  const double e = DTypeBytes(p.dtype);
  const double out = DTypeBytes(AttentionOutputDType(p.dtype));  // E4M3 in, BF16 out
  double bytes = e * (p.QElements() + 2.0 * p.KElements()) + out * p.QElements();
  if (p.want_lse) bytes += 4.0 * p.LseElements();
  return bytes;
}

double MinimalBytes(const GemmProblem& p) {
  double e = DTypeBytes(p.dtype);
  return e * (static_cast<double>(p.m) * p.k + static_cast<double>(p.k) * p.n) +
         4.0 * p.m * static_cast<double>(p.n);
}

double MinimalBytes(const Problem& p) {
  return std::visit([](const auto& x) { return MinimalBytes(x); }, p);
}

namespace {

// Rows of one (batch, head) that see at least one key: under bottom-right causal masking query i
// sees keys j <= i + Sk - Sq, i.e. none when i + Sk - Sq < 0.
double QueryRowsSeeing(const AttentionProblem& p) {
  if (!p.causal) return static_cast<double>(p.seq_q);
  return static_cast<double>(std::clamp<int64_t>(p.seq_k, 0, p.seq_q));
}

}  // namespace

double VisiblePairs(const AttentionProblem& p) {
  const double bh = static_cast<double>(p.batch) * p.heads;
  if (!p.causal) return bh * static_cast<double>(p.seq_q) * p.seq_k;
  // Row i sees min(Sk, max(0, i + Sk - Sq + 1)) keys; one pass over the rows, once per case.
  const int64_t d = p.seq_k - p.seq_q;
  double pairs = 0;
  for (int64_t i = 0; i < p.seq_q; ++i) {
    pairs += static_cast<double>(std::clamp<int64_t>(i + d + 1, 0, p.seq_k));
  }
  return bh * pairs;
}

double MinimalWorkFlops(const AttentionProblem& p) {
  return 4.0 * static_cast<double>(p.head_dim) * VisiblePairs(p);
}

double MinimalWorkFlops(const Problem& p) {
  if (const auto* a = std::get_if<AttentionProblem>(&p)) return MinimalWorkFlops(*a);
  return Flops(std::get<GemmProblem>(p));
}

double MinimalInputBytes(const Problem& p) {
  if (const auto* a = std::get_if<AttentionProblem>(&p)) {
    const double e = DTypeBytes(a->dtype);
    const double bhd = static_cast<double>(a->batch) * a->heads * a->head_dim;
    return e * bhd * (QueryRowsSeeing(*a) + 2.0 * a->seq_k);
  }
  const auto& g = std::get<GemmProblem>(p);
  return DTypeBytes(g.dtype) * (static_cast<double>(g.m) * g.k + static_cast<double>(g.k) * g.n);
}

}  // namespace flashscope::verify
