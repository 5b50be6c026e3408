// The CPU references, in double precision: the ground truth of the CPU tests and the check on the
// GPU reference for small shapes. Inputs are float arrays holding the exact values the device saw
// (fp16/bf16 inputs converted to float first, see half_convert.h), so that the only difference
// between this and a kernel is the kernel's arithmetic.
#pragma once

#include <cstdint>

#include "common/problem.h"

namespace flashscope::verify {

// O = softmax(Q Kᵀ / sqrt(D) [+ bottom-right causal mask]) V, layouts of AttentionProblem.
// `out` has QElements() doubles; `lse` (nullable) has LseElements() doubles, natural log.
// A row that sees no key outputs zeros and an lse of -inf.
void AttentionReferenceCpu(const AttentionProblem& p, const float* q, const float* k,
                           const float* v, double* out, double* lse);

// One query row `row` of head `bh` (= b * heads + h): `out_row` has head_dim doubles, `lse`
// nullable. Lets a test check sampled rows of a problem too large to compute entirely on a CPU.
void AttentionReferenceCpuRow(const AttentionProblem& p, const float* q, const float* k,
                              const float* v, int64_t bh, int64_t row, double* out_row,
                              double* lse);

// C[M,N] = A[M,K] · B[K,N], row-major, summed in double.
void GemmReferenceCpu(const GemmProblem& p, const float* a, const float* b, double* c);

}  // namespace flashscope::verify
