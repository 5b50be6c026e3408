// A check of one launch's output on the GPU, cheap enough to run after every timed launch (the
// trust checks' "every timed launch answers for itself", docs/trust.md): each element against the
// reference of the input set the launch read, under the per-element form of the verification rule
// (tolerance.h, ElementBound), plus a hash of the output's bits for run-to-run determinism.
// Plain CUDA types (no Abseil): shared with nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/problem.h"
#include "verify/output_check_counts.h"

namespace flashscope::verify {

// Enqueues the check of `n` elements of `out` (in `dtype`) against `ref` (fp32) on `stream`,
// writing `*counts` (device memory).
cudaError_t LaunchOutputCheck(const void* out, DType dtype, const float* ref, int64_t n,
                              const ElementBoundDevice& bound, OutputCheckCounts* counts,
                              cudaStream_t stream);

}  // namespace flashscope::verify
