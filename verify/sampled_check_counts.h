// What the sampled-row check (sampled_rows.h) found in one launch's output, and the index of each
// sampled row, free of CUDA headers so that CPU code (the trust checks, their tests) reads them.
#pragma once

#include <cstdint>

#include "common/split_mix.h"

#if defined(__CUDACC__)
#define FS_HOST_DEVICE __host__ __device__
#else
#define FS_HOST_DEVICE
#endif

namespace flashscope::verify {

// Device layout, zeroed by the launch before counting.
struct SampledCheckCounts {
  unsigned long long rows;           // rows (attention) or entries (gemm) checked
  unsigned long long elements;       // output elements compared (a row's head_dim each)
  unsigned long long bad;            // past the bound, NaN/Inf or never written
  unsigned long long never_written;  // still the poison pattern
  unsigned long long nonfinite;      // NaN or Inf that is not the poison pattern
  unsigned long long lse_bad;        // log-sum-exp entries of the rows past the lse rule
  unsigned long long bad_rows;       // rows (entries) with any bad element or a bad lse
  unsigned int max_abs_bits;         // float bits of max |err| over finite written elements
  // Float bits of max |baseline - reference| over the sampled rows (entries) that crossed the
  // verified launch's bound with finite, written elements (0 when none did): the same-precision
  // baseline (gpu_reference.h) computed for those rows from the launch's own inputs, so that the
  // verification rule can be applied to this draw (sampled_verdict.h).
  unsigned int baseline_max_bits;
};

// The element rule (ElementBoundDevice's fields, output_check_counts.h) and the lse rule.
struct SampledBound {
  int absolute;  // |err| <= max_abs; else |err| <= atol + rtol·|ref|
  double max_abs;
  double atol;
  double rtol;
  double lse_atol;  // |lse err| <= lse_atol + lse_rtol·|ref lse|; equal infinities agree
  double lse_rtol;
};


// The row (attention: b·H·Sq + h·Sq + i) or entry (gemm: m·N + n) that sample `i` of a check
// drawn with `seed` reads, uniform over [0, total), independently per sample (with replacement:
// a kernel that skips a fraction f of rows escapes n samples with probability exactly (1-f)^n).
// The same function on the host (tests) and the device (the check kernels).
FS_HOST_DEVICE inline uint64_t SampledIndex(uint64_t seed, uint64_t i, uint64_t total) {
  return total == 0 ? 0 : SplitMix64(seed ^ SplitMix64(i + 0x5851F42D4C957F2Dull)) % total;
}

}  // namespace flashscope::verify
