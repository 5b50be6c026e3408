// Seeded input generators that run on the device. Every element is a pure function of
// (seed, tensor, index) through a counter-based hash (splitmix64), so a case is reproducible from
// its seed alone, whatever the launch configuration, and two seeds give unrelated inputs.
//
// Attention patterns (see input_kind.h for the constants). Positions are bottom-right aligned like
// the causal mask: query i sits at position i + (Sk - Sq), key j at position j. With a per-head
// target logit gap G = 10 between the keys a query attends to and the rest:
//   local_band:    Q and K carry sinusoids of the position at jittered frequencies below
//                  π/kLocalBandWidth, so Q·K peaks where the positions are within the band.
//   strided:       the frequencies are harmonics of 2π/kStride, so Q·K peaks when the position
//                  difference is a multiple of kStride.
//   global_anchor: the first kGlobalAnchors keys and every query share a per-head direction.
//   block:         queries and keys of the same kBlockSize block share a per-block direction.
//   large_logits:  queries and keys share a per-head direction scaled so that every logit is
//                  offset by L in [kLargeLogitMin, kLargeLogitMax] (per head): exp(L) overflows
//                  fp32, yet all elements stay below ~20 in magnitude (fine in fp16).
// V is N(0,1) for every structured kind.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "common/problem.h"
#include "verify/input_kind.h"

namespace flashscope::verify {

// q: QElements(), k and v: KElements() elements of p.dtype. cudaErrorInvalidValue for a
// non-positive size.
cudaError_t GenerateAttentionInputs(const AttentionProblem& p, InputKind kind, uint64_t seed,
                                    void* q, void* k, void* v, cudaStream_t stream);

// a: M·K, b: K·N elements of p.dtype. Kinds: normal, uniform; local_band/block make A banded or
// block-diagonal (along the diagonal of the M×K rectangle); strided keeps every kStride-th
// column of A; global_anchor scales A's first kGlobalAnchors columns by 10; large_logits scales
// A and B by 30. B is N(0,1) for the structured kinds.
cudaError_t GenerateGemmInputs(const GemmProblem& p, InputKind kind, uint64_t seed, void* a,
                               void* b, cudaStream_t stream);

}  // namespace flashscope::verify
