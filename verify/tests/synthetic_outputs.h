// Synthetic kernel outputs against an fp32 reference, for the host-verification tests and their
// benchmark (flashscope-verify-host-bench): a reference, the output a kernel of `dtype` would
// write (the reference rounded to the dtype plus noise), a same-precision baseline and an lse,
// optionally with planted NaN, Inf and never-written (poisoned) elements.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "common/problem.h"
#include "verify/error_stats.h"
#include "verify/half_convert.h"

namespace flashscope::verify::testing {

// A small deterministic generator (splitmix64): filling 33.5 M elements with <random>'s normal
// distribution takes seconds; this takes a fraction of one.
class SplitMix {
 public:
  explicit SplitMix(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [-1, 1).
  float Symmetric() { return static_cast<float>(Next() >> 40) / float(1 << 23) - 1.0f; }

 private:
  uint64_t state_;
};

struct SyntheticOutputs {
  DType dtype = DType::kBF16;
  std::vector<float> reference, baseline, lse, reference_lse;
  std::vector<unsigned char> output;  // raw, as the kernel wrote it
  const void* output_data() const { return output.data(); }
};

// How many of each special element to plant (at positions drawn from the seed).
struct Planted {
  int nan = 0, inf = 0, never_written = 0, huge_error = 0;
  int reference_nan = 0, reference_inf = 0;  // in the reference itself
};

inline SyntheticOutputs MakeSyntheticOutputs(int64_t n, int64_t lse_n, DType dtype, uint64_t seed,
                                             const Planted& planted = {}) {
  SyntheticOutputs s;
  s.dtype = dtype;
  SplitMix rng(seed);
  s.reference.resize(static_cast<size_t>(n));
  s.baseline.resize(static_cast<size_t>(n));
  std::vector<float> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const float r = 2.0f * rng.Symmetric();
    s.reference[i] = r;
    out[i] = r + 4e-3f * rng.Symmetric();
    s.baseline[i] = r + 1e-3f * rng.Symmetric();
  }
  auto at = [&](int64_t count) { return static_cast<int64_t>(rng.Next() % uint64_t(count)); };
  if (n > 0) {
    for (int k = 0; k < planted.huge_error; ++k) out[at(n)] += 1e30f;
    for (int k = 0; k < planted.nan; ++k) out[at(n)] = std::numeric_limits<float>::quiet_NaN();
    for (int k = 0; k < planted.inf; ++k) out[at(n)] = -std::numeric_limits<float>::infinity();
    for (int k = 0; k < planted.reference_nan; ++k) {
      s.reference[at(n)] = std::numeric_limits<float>::quiet_NaN();
    }
    for (int k = 0; k < planted.reference_inf; ++k) {
      s.reference[at(n)] = std::numeric_limits<float>::infinity();
    }
  }
  const size_t bytes = DTypeBytes(dtype);
  s.output.resize(static_cast<size_t>(n) * bytes);
  ConvertFromFloat(out.data(), n, dtype, s.output.data());
  if (n > 0) {
    for (int k = 0; k < planted.never_written; ++k) {
      std::memset(s.output.data() + bytes * at(n), kPoisonByte, bytes);
    }
  }
  s.reference_lse.resize(static_cast<size_t>(lse_n));
  s.lse.resize(static_cast<size_t>(lse_n));
  for (int64_t i = 0; i < lse_n; ++i) {
    s.reference_lse[i] = 8.0f + rng.Symmetric();
    s.lse[i] = s.reference_lse[i] + 1e-5f * rng.Symmetric();
  }
  if (lse_n > 0) {
    for (int k = 0; k < planted.nan; ++k)
      s.lse[at(lse_n)] = std::numeric_limits<float>::quiet_NaN();
    for (int k = 0; k < planted.inf; ++k) {
      const int64_t i = at(lse_n);
      s.lse[i] = s.reference_lse[i] = -std::numeric_limits<float>::infinity();
    }
    for (int k = 0; k < planted.never_written; ++k) {
      std::memset(&s.lse[at(lse_n)], kPoisonByte, sizeof(float));
    }
  }
  return s;
}

}  // namespace flashscope::verify::testing
