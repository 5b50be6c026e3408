// A check of one launch's output on the GPU, cheap enough to run after every timed launch (the
// trust checks' "every timed launch answers for itself", docs/trust.md): each element against the
// reference of the input set the launch read, under the per-element form of the verification rule
// (tolerance.h, ElementBound), plus a hash of the output's bits for run-to-run determinism.
// Plain CUDA types (no Abseil): shared with nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/problem.h"

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

// Enqueues the check of `n` elements of `out` (in `dtype`) against `ref` (fp32) on `stream`,
// writing `*counts` (device memory).
cudaError_t LaunchOutputCheck(const void* out, DType dtype, const float* ref, int64_t n,
                              const ElementBoundDevice& bound, OutputCheckCounts* counts,
                              cudaStream_t stream);

}  // namespace flashscope::verify
