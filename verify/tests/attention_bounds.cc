#include "verify/tests/attention_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "verify/cpu_reference.h"
#include "verify/half_convert.h"

namespace flashscope::verify {
namespace {

constexpr double kLambda = 6;
constexpr double kU32 = 0x1p-24;
// Keys per tile: the fp64 reference's 32 (fp32 kernels take 64; more tiles only loosen a bound).
constexpr double kKeyTile = 32;

const float* Row(const float* base, int64_t bh, int64_t seq, int64_t i, int64_t d) {
  return base + (bh * seq + i) * d;
}

// The bounds for `u` (see attention_bounds.h), around the exact row in r->value / r->lse.
void AddReferenceBounds(const AttentionProblem& p, const float* q, const float* k, const float* v,
                        int64_t bh, int64_t row, double u, RowBounds* r) {
  const int64_t d = p.head_dim, n = p.CausalKeyEnd(row);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::vector<double> s(n), ds(n), w(n);
  const float* qi = Row(q, bh, p.seq_q, row, d);
  double m = -std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < n; ++j) {
    const float* kj = Row(k, bh, p.seq_k, j, d);
    double dot = 0, abs_dot = 0;
    for (int64_t c = 0; c < d; ++c) {
      dot += static_cast<double>(qi[c]) * kj[c];
      abs_dot += std::fabs(static_cast<double>(qi[c]) * kj[c]);
    }
    s[j] = dot * scale;
    ds[j] = kLambda * std::sqrt(static_cast<double>(d)) * u * abs_dot * scale;
    m = std::max(m, s[j]);
  }
  double l = 0;
  for (int64_t j = 0; j < n; ++j) l += (w[j] = std::exp(s[j] - m));
  double lse_bound = 0;
  for (int64_t j = 0; j < n; ++j) {
    w[j] /= l;
    ds[j] += 2 * u * (std::fabs(s[j]) + std::fabs(m)) + 5 * u;
    lse_bound += w[j] * ds[j];
  }
  const double sqrt_n = std::sqrt(static_cast<double>(n));
  const double tiles = std::ceil(static_cast<double>(n) / kKeyTile);
  r->lse_bound = n == 0 ? 0 : lse_bound + kLambda * sqrt_n * u + 3 * u * (1 + std::fabs(r->lse));
  for (int64_t c = 0; c < d; ++c) {
    const double o = std::fabs(r->value[c]);
    double through_softmax = 0, weighted_v = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double vj = std::fabs(static_cast<double>(Row(v, bh, p.seq_k, j, d)[c]));
      through_softmax += w[j] * ds[j] * (vj + o);
      weighted_v += w[j] * vj;
    }
    r->bound[c] = n == 0 ? 0
                         : through_softmax + kLambda * sqrt_n * u * (weighted_v + o) +
                               2 * (tiles + 3) * u * o;
  }
}

// x rounded to float, then to t: the value a float computation storing into t keeps.
double ToDType(double x, DType t) { return RoundToDType(static_cast<float>(x), t); }

}  // namespace

double UlpOf(double x, DType t) {
  const int bits = t == DType::kF32 ? 24 : (t == DType::kF16 ? 11 : 8);
  const int min_exp = t == DType::kF32 ? -149 : (t == DType::kF16 ? -24 : -133);
  int e = 0;
  std::frexp(std::fabs(x), &e);  // |x| = f·2^e, f in [0.5, 1)
  return std::ldexp(1.0, std::max(e - bits, min_exp));
}

RowBounds ReferenceRowBounds(const AttentionProblem& p, const float* q, const float* k,
                             const float* v, int64_t bh, int64_t row, bool fp64) {
  RowBounds r;
  r.value.resize(p.head_dim);
  r.bound.resize(p.head_dim);
  AttentionReferenceCpuRow(p, q, k, v, bh, row, r.value.data(), &r.lse);
  AddReferenceBounds(p, q, k, v, bh, row, fp64 ? 0x1p-53 : kU32, &r);
  if (fp64) {  // the CPU's own double error, and the store as float
    for (int64_t c = 0; c < p.head_dim; ++c) {
      r.bound[c] = 2 * r.bound[c] + kU32 * std::fabs(r.value[c]);
    }
    r.lse_bound = 2 * r.lse_bound + kU32 * (std::isfinite(r.lse) ? std::fabs(r.lse) : 0);
  }
  return r;
}

RowBounds BaselineRowModel(const AttentionProblem& p, const float* q, const float* k,
                           const float* v, int64_t bh, int64_t row) {
  const int64_t d = p.head_dim, n = p.CausalKeyEnd(row);
  const DType t = p.dtype;
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  const float* qi = Row(q, bh, p.seq_q, row, d);
  std::vector<float> s(n);
  float m = -std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < n; ++j) {
    const float* kj = Row(k, bh, p.seq_k, j, d);
    float dot = 0.f;
    for (int64_t c = 0; c < d; ++c) dot = std::fma(qi[c], kj[c], dot);
    s[j] = RoundToDType(dot * scale, t);
    m = std::max(m, s[j]);
  }
  double l_exact = 0;  // summed in double: within 2⁻²⁴ of the exact sum once rounded
  for (int64_t j = 0; j < n; ++j) l_exact += std::exp(s[j] - m);
  const float l = static_cast<float>(l_exact);
  const double eps = (20 + std::ceil(static_cast<double>(n) / kKeyTile)) * kU32;
  std::vector<float> pr(n);
  std::vector<double> dp(n);
  bool exact = true;
  for (int64_t j = 0; j < n; ++j) {
    const float x = std::exp(s[j] - m) / l;
    pr[j] = RoundToDType(x, t);
    dp[j] = ToDType(x * (1 + eps), t) - ToDType(x * (1 - eps), t);
    exact = exact && dp[j] == 0;
  }
  RowBounds r;
  r.exact = exact;
  r.value.resize(d);
  r.bound.resize(d);
  for (int64_t c = 0; c < d; ++c) {
    float acc = 0.f;
    double spread = 0, mass = 0;
    for (int64_t j = 0; j < n; ++j) {
      const float vj = Row(v, bh, p.seq_k, j, d)[c];
      acc = std::fma(pr[j], vj, acc);
      spread += dp[j] * std::fabs(vj);
      mass += (pr[j] + dp[j]) * std::fabs(vj);
    }
    r.value[c] = n > 0 ? RoundToDType(acc, t) : 0.0;
    const double acc_bound = spread + 2 * static_cast<double>(n) * kU32 * mass;
    r.bound[c] = exact ? 0 : acc_bound + UlpOf(std::fabs(r.value[c]) + acc_bound, t);
  }
  return r;
}

}  // namespace flashscope::verify
