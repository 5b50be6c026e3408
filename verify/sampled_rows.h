// The check every launch's output gets (docs/trust.md, "every launch answers for itself"): rows
// (attention: whole query rows, with the log-sum-exp when the problem has one) or entries (gemm)
// drawn at random after the launch from `seed`, each compared with a reference computed for that
// row alone from the inputs the launch read: O(Sk·D) per attention row, O(K) per gemm entry,
// accumulated in fp64. One launch checks every sample; counts land in device memory, so that many
// launches' checks are copied back in one go. Plain CUDA types (no Abseil): shared with nvcc.
#pragma once

#include <cuda_runtime_api.h>

#include "common/problem.h"
#include "verify/sampled_check_counts.h"

namespace flashscope::verify {

// q, k, v: the inputs the launch read (p.dtype); out: the kernel's O
// (AttentionOutputDType(p.dtype), BF16 for E4M3); lse: its log-sum-exp (fp32) or nullptr. `rows`
// samples; cudaErrorInvalidValue for rows < 1 or a head_dim outside [1, kReferenceMaxHeadDim].
cudaError_t LaunchAttentionRowCheck(const AttentionProblem& p, const void* q, const void* k,
                                    const void* v, const void* out, const float* lse, int rows,
                                    uint64_t seed, const SampledBound& bound,
                                    SampledCheckCounts* counts, cudaStream_t stream);

// a, b: the inputs (p.dtype, row-major); c: the kernel's C (fp32). `entries` samples.
cudaError_t LaunchGemmEntryCheck(const GemmProblem& p, const void* a, const void* b, const float* c,
                                 int entries, uint64_t seed, const SampledBound& bound,
                                 SampledCheckCounts* counts, cudaStream_t stream);

}  // namespace flashscope::verify
