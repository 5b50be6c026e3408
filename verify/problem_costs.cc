#include "verify/problem_costs.h"

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
  double e = DTypeBytes(p.dtype);
  double bytes = e * (2.0 * p.QElements() + 2.0 * p.KElements());
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

}  // namespace flashscope::verify
