#include "verify/error_stats.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "verify/half_convert.h"

namespace flashscope::verify {

bool IsPoisoned(const void* data, DType t, int64_t i) {
  const size_t bytes = DTypeBytes(t);
  const auto* p = static_cast<const unsigned char*>(data) + bytes * i;
  for (size_t b = 0; b < bytes; ++b) {
    if (p[b] != kPoisonByte) return false;
  }
  return true;
}

ErrorStats StatsFromCheck(const OutputCheckCounts& counts, int64_t elements) {
  ErrorStats s;
  s.elements = elements;
  float max_abs = 0;
  static_assert(sizeof(max_abs) == sizeof(counts.max_abs_bits));
  std::memcpy(&max_abs, &counts.max_abs_bits, sizeof(max_abs));
  s.max_abs = max_abs;
  s.bad = static_cast<int64_t>(counts.bad);
  s.never_written = static_cast<int64_t>(counts.never_written);
  s.nan = static_cast<int64_t>(counts.nonfinite);  // NaN and Inf together
  return s;
}

ErrorStats ComputeErrorStats(const void* out_raw, DType out_dtype, const float* ref, int64_t n,
                             Tolerance tol) {
  ErrorStats s;
  s.elements = n;
  int64_t first_never = -1, first_nonfinite = -1, argmax = -1;
  double sum_abs = 0, sum_sq = 0, sum_ref_sq = 0;
  int64_t finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (IsPoisoned(out_raw, out_dtype, i)) {
      ++s.never_written;
      if (first_never < 0) first_never = i;
      continue;
    }
    const double o = LoadAsFloat(out_raw, out_dtype, i);
    const double r = ref[i];
    if (!std::isfinite(o)) {
      if (std::isnan(o)) {
        ++s.nan;
      } else {
        ++s.inf;
      }
      ++s.bad;
      if (first_nonfinite < 0) first_nonfinite = i;
      continue;
    }
    const double err = std::fabs(o - r);
    ++finite;
    sum_abs += err;
    sum_sq += err * err;
    sum_ref_sq += r * r;
    if (argmax < 0 || err > s.max_abs) {
      s.max_abs = err;
      argmax = i;
    }
    const double denom = std::fmax(std::fabs(r), tol.atol);
    if (denom > 0) s.max_rel = std::fmax(s.max_rel, err / denom);
    if (err > tol.atol + tol.rtol * std::fabs(r)) ++s.bad;
  }
  if (finite > 0) {
    s.mean_abs = sum_abs / finite;
    const double rmse = std::sqrt(sum_sq / finite);
    const double ref_rms = std::sqrt(sum_ref_sq / finite);
    s.nrmse = ref_rms > 0 ? rmse / ref_rms : rmse;
  }
  s.worst_index =
      first_never >= 0 ? first_never : (first_nonfinite >= 0 ? first_nonfinite : argmax);
  return s;
}

std::vector<float> AbsErrors(const void* out_raw, DType out_dtype, const float* ref, int64_t n) {
  constexpr float kSaturate = std::numeric_limits<float>::max();
  std::vector<float> e(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if (IsPoisoned(out_raw, out_dtype, i)) {
      e[i] = kSaturate;
      continue;
    }
    const float o = LoadAsFloat(out_raw, out_dtype, i);
    const double err = std::fabs(static_cast<double>(o) - ref[i]);
    e[i] = std::isfinite(err) && err < kSaturate ? static_cast<float>(err) : kSaturate;
  }
  return e;
}

LseStats ComputeLseStats(const float* lse, const float* ref, int64_t n, Tolerance tol) {
  LseStats s;
  s.elements = n;
  int64_t first_bad = -1, argmax = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (IsPoisoned(lse, DType::kF32, i)) {
      ++s.never_written;
      if (first_bad < 0) first_bad = i;
      continue;
    }
    const double l = lse[i], r = ref[i];
    if (!std::isfinite(l) || !std::isfinite(r)) {
      // Equal infinities agree (the -inf of a row that sees no key); anything else does not.
      if (!(std::isinf(l) && l == r)) {
        ++s.mismatched;
        ++s.bad;
        if (first_bad < 0) first_bad = i;
      }
      continue;
    }
    const double err = std::fabs(l - r);
    if (argmax < 0 || err > s.max_abs) {
      s.max_abs = err;
      argmax = i;
    }
    if (err > tol.atol + tol.rtol * std::fabs(r)) ++s.bad;
  }
  s.worst_index = first_bad >= 0 ? first_bad : argmax;
  return s;
}

}  // namespace flashscope::verify
