// GPU references: what every kernel's output is compared against, and the naive same-precision
// baseline of FlashAttention's tolerance rule. Plain functions returning cudaError_t (the launch
// or argument error); no Abseil here, since nvcc compiles the implementation.
//
// The attention reference streams over the keys of each query row with an online softmax in the
// accumulation precision, so its memory use is that of Q, K, V, O only: it handles problems whose
// B·H·Sq·Sk score matrix could never be stored (e.g. S = 16384). Both attention kernels compute
// blocks of the scores in registers (64 rows × 64 keys per thread block in fp32, 32 × 32 in fp64;
// gpu_reference_attention_tiles.cuh); any B·H·Sq fits one launch (the grid strides over row
// blocks). Shared memory per block: 54 KiB at D ≤ 64, 86 KiB at D ≤ 128, 150 KiB at D ≤ 256
// (sm_80's 163 KiB and sm_90's 227 KiB hold them; on a GPU with less, D > 128 returns the
// cudaFuncSetAttribute error).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "common/problem.h"

namespace flashscope::verify {

enum class ReferencePrecision { kFp32, kFp64 };

inline const char* ReferencePrecisionName(ReferencePrecision p) {
  return p == ReferencePrecision::kFp64 ? "gpu fp64" : "gpu fp32";
}

// The largest head dimension the references support.
inline constexpr int kReferenceMaxHeadDim = 256;

// q, k, v in p.dtype (layouts of AttentionProblem; E4M3 values decoded exactly, as every input
// type is); out: QElements() floats; lse (nullable):
// LseElements() floats, natural log, -inf for rows that see no key (whose out is zero).
// cudaErrorInvalidValue for head_dim outside [1, 256] or a non-positive size.
cudaError_t AttentionReferenceGpu(const AttentionProblem& p, const void* q, const void* k,
                                  const void* v, ReferencePrecision precision, float* out,
                                  float* lse, cudaStream_t stream);

// The naive same-precision implementation FlashAttention's tests compare against: S = Q Kᵀ·scale
// accumulated in fp32 and rounded to p.dtype; softmax of S in fp32 (max, sum, then divide), P
// rounded to p.dtype; O = P V accumulated in fp32 and rounded to p.dtype. `out` gets the rounded
// values as floats. Streams over keys like the reference (three passes: max, sum, P·V).
// Summation order: each score's dot product runs over d = 0..D-1 and each O element over keys in
// increasing order, with fused multiply-adds (what a row-at-a-time kernel does); the row sum of
// exp(S - max) is fp32 in a tiled order (64-key tiles in order, each by a 16-lane butterfly).
// The naive implementation fixes no order for that sum (a framework's softmax reduces in a tree),
// and any order of Sk positive terms is within (Sk - 1)·2⁻²⁴ relative of another, far below the
// 2⁻⁸ (bf16) or 2⁻¹¹ (fp16) relative spacing of the P it divides: it can move a P across a
// rounding boundary only where P sits within that distance of the boundary.
// E4M3 problems get the naive FP8 implementation instead (what an FP8 flash kernel computes,
// verify/baseline_rules.cuh): S kept in fp32 (not rounded), P = exp(S - max) rounded to E4M3
// (nearest, satfinite) before P·V, the row sum from the unrounded exp(S - max), and
// O = (Σ round(P)·V) / sum in fp32 rounded to BF16, E4M3's output type.
cudaError_t AttentionSamePrecisionBaselineGpu(const AttentionProblem& p, const void* q,
                                              const void* k, const void* v, float* out,
                                              cudaStream_t stream);

// C = A·B with A [M,K], B [K,N] in p.dtype, summed over k in order in fp32 or fp64; C fp32.
// For gemm, kFp64 is the reference and, for fp32 inputs, kFp32 (a plain in-order fp32 sum) the
// baseline.
cudaError_t GemmReferenceGpu(const GemmProblem& p, const void* a, const void* b,
                             ReferencePrecision precision, float* c, cudaStream_t stream);

// The gemm baseline for fp16/bf16/e4m3 inputs: a naive implementation with a tensor core's
// accumulation (for E4M3, Hopper FP8 wgmma's: 32-term chunks into an accumulator of 13 mantissa
// bits, truncating; verify/baseline_rules.cuh says why). For fp16/bf16: Products are exact; each
// chunk of 16 consecutive k (one k-step of mma.m16n8k16, from k = 0) is summed exactly (in fp64)
// and added to the fp32 accumulator with truncation (round toward zero), the rounding NVIDIA tensor
// cores use (Fasi, Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor cores",
// 2021). Truncation biases the sum, so its error grows with K faster than a round-to-nearest
// in-order sum's: at M = N = K = 4096 fp16 cuBLAS itself is 2.2e-3 from the fp64 reference where
// the in-order fp32 sum is 1.1e-3, and the FlashAttention rule (≤ 2 × baseline) failed the library;
// this model gives 2.2e-3 on a 256×256 sample of such a product. C fp32. cudaErrorInvalidValue for
// fp32 inputs or a non-positive size.
cudaError_t GemmTensorCoreBaselineGpu(const GemmProblem& p, const void* a, const void* b, float* c,
                                      cudaStream_t stream);

// Fills `bytes` bytes at `p` with kPoisonByte (error_stats.h), so that unwritten output elements
// can be counted after a launch.
cudaError_t PoisonBytes(void* p, size_t bytes, cudaStream_t stream);

}  // namespace flashscope::verify
