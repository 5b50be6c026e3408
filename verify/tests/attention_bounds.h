// Host models of what the GPU attention reference and same-precision baseline must output, with
// per-element error bounds derived from the arithmetic each one does (gpu_reference.h), for the
// GPU tests: a result outside its bound is a bug, not noise.
//
// Reference (fp32 or fp64 accumulation, against the exact value from the CPU double reference):
// with u the unit roundoff and n_j = D terms per score, n = the row's keys, w_j = p_j / l,
//   score error   δs_j ≤ λ·√D·u·a_j + 2u·(|s_j| + |m|), a_j = scale·Σ_d |q_d k_d|, m = max s
//     (a fused multiply-add chain of D terms: Higham & Mary's probabilistic bound, λ = 6; the
//     scaling and the subtraction of the max);
//   O_c error     ≤ Σ_j w_j (δs_j + 5u)(|v_jc| + |O_c|)      scores and exp (CUDA's expf: 2 ulp)
//                                                            through the softmax, whose
//                                                            ∂O_c/∂s_j = w_j(v_jc - O_c)
//                 + λ·√n·u·(Σ_j w_j |v_jc| + |O_c|)          the P·V and l sums
//                 + 2(⌈n/32⌉ + 3)·u·|O_c|                    acc and l rescaled once per key
//                                                            tile (the rescale's own error
//                                                            cancels in acc / l), the division;
//   lse error     ≤ Σ_j w_j (δs_j + 5u) + λ·√n·u + 3u·(1 + |lse|).
// fp64 doubles the model (the CPU reference's own double error) and adds the final rounding to
// float, 2⁻²⁴·|x|.
//
// Baseline (fp32 arithmetic rounded to the dtype T where gpu_reference.h says): the model repeats
// it on the host — the same fused multiply-add chains in the same order, so S, its max and every
// P·V step match bit for bit — except expf (CUDA's is within 2 ulp, the host's within 1) and the
// order of the row sum l. Those move P = expf(S - max) / l before its rounding to T by at most a
// relative ε = (20 + ⌈n/32⌉)·2⁻²⁴; the model computes both roundings of P·(1 ± ε), and where
// they agree for every key of a row that row's output must be bit-identical. Elsewhere
//   |ΔO_c| ≤ Δ_c + 2n·2⁻²⁴·Σ_j (P_j + ΔP_j)|v_jc|, Δ_c = Σ_j ΔP_j |v_jc|,
// plus one ulp of T at |O_c| + that (the final rounding may land on the other side).
#pragma once

#include <cstdint>
#include <vector>

#include "common/problem.h"

namespace flashscope::verify {

// The exact value of a row of the problem and its bounds.
struct RowBounds {
  std::vector<double> value;  // D elements
  std::vector<double> bound;  // D elements: allowed |gpu - value|
  double lse = 0, lse_bound = 0;
  bool exact = false;  // baseline only: the GPU must match `value` bit for bit
};

// Bounds of the GPU reference in accumulation unit roundoff `u` (2⁻²⁴ or 2⁻⁵³) around the CPU
// double reference's row (AttentionReferenceCpuRow). q, k, v: the inputs as floats.
RowBounds ReferenceRowBounds(const AttentionProblem& p, const float* q, const float* k,
                             const float* v, int64_t bh, int64_t row, bool fp64);

// The baseline's host model of row `row` and its bounds.
RowBounds BaselineRowModel(const AttentionProblem& p, const float* q, const float* k,
                           const float* v, int64_t bh, int64_t row);

// The spacing of dtype `t` at magnitude |x| (its unit in the last place, subnormals included).
double UlpOf(double x, DType t);

}  // namespace flashscope::verify
