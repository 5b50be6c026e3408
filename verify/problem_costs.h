// FLOP and minimal byte counts of each family's problems: the numerators of every TFLOPS and GB/s
// figure flashscope prints.
#pragma once

#include "common/problem.h"

namespace flashscope::verify {

// FlashAttention's convention: 4·B·H·Sq·Sk·D (two matmuls of 2 FLOPs per multiply-add), halved
// when causal. For Sq != Sk the causal count is still halved, as FlashAttention's benchmarks do,
// so that numbers stay comparable with theirs.
double Flops(const AttentionProblem& p);
// 2·M·N·K.
double Flops(const GemmProblem& p);
double Flops(const Problem& p);

// Each input read once and each output written once: Q, K, V in the problem's dtype (1 byte an
// element for E4M3), O in AttentionOutputDType (BF16 for E4M3), plus the fp32 log-sum-exp when
// requested.
double MinimalBytes(const AttentionProblem& p);
// A and B in the input dtype, C in fp32.
double MinimalBytes(const GemmProblem& p);
double MinimalBytes(const Problem& p);

// The least arithmetic a problem needs, for the trust checks (docs/trust.md), which hold a
// launch's counted FLOPs against it: attention counts the (query, key) pairs a query actually
// sees, 4·B·H·D per pair (bottom-right causal masking: query i sees keys j <= i + Sk - Sq), so a
// kernel that skips masked rows is never asked for work it need not do; gemm: 2·M·N·K.
double MinimalWorkFlops(const AttentionProblem& p);
double MinimalWorkFlops(const Problem& p);
// (query, key) pairs that are not masked.
double VisiblePairs(const AttentionProblem& p);

// Input bytes a launch must read: attention's Q rows that see at least one key, K and V whole;
// gemm's A and B.
double MinimalInputBytes(const Problem& p);

}  // namespace flashscope::verify
