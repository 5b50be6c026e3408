// A small, self-contained CPU double-precision reference for the kernel tests, so that the kernels'
// GPU test depends on nothing but the registry (verify/ has the toolkit's own references).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "common/problem.h"

namespace flashscope::kernels::testing {

// O [B,H,Sq,D] and LSE [B,H,Sq] (natural log) of softmax(Q·Kᵀ·scale + causal mask)·V, causal
// bottom-right aligned; a row that sees no key gives zeros and -inf. `scale` 0: 1/sqrt(D).
void ReferenceAttention(const AttentionProblem& p, const std::vector<float>& q,
                        const std::vector<float>& k, const std::vector<float>& v,
                        std::vector<double>* o, std::vector<double>* lse, double scale = 0.0);

// E4M3 attention (fp32 accumulation, P rounded to E4M3 before P·V, O rounded to BF16): a bound
// on |o - ref| per element of O, from the same inputs as ReferenceAttention. With P's row max
// taken as 1 (p_j = exp(s_j - max)), l = Σ p_j and w_j = p_j / l, the kernel's P·V uses
// p_j (1 + δ_j) with |p_j δ_j| <= max(2^-4 p_j, 2^-10): E4M3's unit roundoff 2^-4 on normal
// values (3 mantissa bits), half its subnormal step 2^-9 below 2^-6 (a running max below the
// final one only scales p up, which shrinks the subnormal term), while l sums the unrounded p. So
//   bound = Σ_j |v_j| max(2^-4 p_j, 2^-10) / l      (P's rounding)
//         + 2^-10 Σ_j w_j |v_j|                      (fp32 / tensor-core accumulation, exp2)
//         + 2^-8 |ref|                               (BF16's unit roundoff on O)
//         + 1e-6.
// `p_unit` replaces 2^-4 (0 when P is exact in E4M3, as in the integer-score test).
void ReferenceE4M3ErrorBound(const AttentionProblem& p, const std::vector<float>& q,
                             const std::vector<float>& k, const std::vector<float>& v, double scale,
                             double p_unit, std::vector<double>* bound);

// C [M,N] = A [M,K] · B [K,N], row-major; `abs_sum` gets Σ|a·b| per element (for tolerances).
void ReferenceGemm(const GemmProblem& g, const std::vector<float>& a, const std::vector<float>& b,
                   std::vector<double>* c, std::vector<double>* abs_sum);

// `n` values drawn from N(0, 1), rounded to `dtype` and returned as float (exactly representable),
// together with their bit patterns in `dtype` (1, 2 or 4 bytes each) for upload. E4M3: rounded to
// nearest and saturated to +-448, so never a NaN pattern (0x7F, 0xFF).
void RandomTensor(DType dtype, int64_t n, std::mt19937* rng, std::vector<float>* values,
                  std::vector<unsigned char>* bytes);

// The E4M3 (OCP FN) byte nearest to `x` (saturated to +-448), and the value of an E4M3 byte.
unsigned char EncodeE4M3(float x);
float DecodeE4M3(unsigned char b);

// Decodes element `i` of a buffer of `dtype` to float.
float DecodeElement(DType dtype, const std::vector<unsigned char>& bytes, int64_t i);

}  // namespace flashscope::kernels::testing
