// A small, self-contained CPU double-precision reference for the kernel tests, so that the kernels'
// GPU test depends on nothing but the registry (verify/ has the toolkit's own references).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/problem.h"

namespace flashscope::kernels::testing {

// O [B,H,Sq,D] and LSE [B,H,Sq] (natural log) of softmax(Q·Kᵀ/sqrt(D) + causal mask)·V, causal
// bottom-right aligned; a row that sees no key gives zeros and -inf.
void ReferenceAttention(const AttentionProblem& p, const std::vector<float>& q,
                        const std::vector<float>& k, const std::vector<float>& v,
                        std::vector<double>* o, std::vector<double>* lse);

// C [M,N] = A [M,K] · B [K,N], row-major; `abs_sum` gets Σ|a·b| per element (for tolerances).
void ReferenceGemm(const GemmProblem& g, const std::vector<float>& a, const std::vector<float>& b,
                   std::vector<double>* c, std::vector<double>* abs_sum);

// `n` values drawn from N(0, 1), rounded to `dtype` and returned as float (exactly representable),
// together with their bit patterns in `dtype` (2 or 4 bytes each) for upload.
void RandomTensor(DType dtype, int64_t n, std::mt19937* rng, std::vector<float>* values,
                  std::vector<unsigned char>* bytes);

// Decodes element `i` of a buffer of `dtype` to float.
float DecodeElement(DType dtype, const std::vector<unsigned char>& bytes, int64_t i);

}  // namespace flashscope::kernels::testing
