// The results and the bound of the GPU output check (output_check.h), free of CUDA headers so that
// CPU code (error_stats.h, the trust checks) can read them.
#pragma once

namespace flashscope::verify {

// What one check found; device layout, zeroed by the launch before counting.
struct OutputCheckCounts {
  unsigned long long bad;            // |err| past the bound, NaN/Inf or never written
  unsigned long long never_written;  // still the poison pattern (every byte kPoisonByte)
  unsigned long long nonfinite;      // NaN or Inf that is not the poison pattern
  unsigned long long hash;           // order-free hash of (index, bits) over all elements
  unsigned int max_abs_bits;         // float bits of max |err| over finite written elements
  unsigned int pad;
};

// The per-element bound: |out - ref| <= max_abs when `absolute`, else <= atol + rtol·|ref|.
struct ElementBoundDevice {
  int absolute;
  double max_abs;
  double atol;
  double rtol;
};

}  // namespace flashscope::verify
