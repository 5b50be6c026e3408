// Attention problems as tests write them: a shape plus its causal mask. Test code only.
#pragma once

#include <cstdint>

#include "common/problem.h"

namespace flashscope {

// `AttentionShape` with `causal` set, in one expression (tests build many such problems inline).
inline AttentionProblem MaskedAttentionShape(int64_t batch, int64_t heads, int64_t seq_q,
                                             int64_t seq_k, int64_t head_dim, DType dtype,
                                             bool causal) {
  AttentionProblem p = AttentionShape(batch, heads, seq_q, seq_k, head_dim, dtype);
  p.causal = causal;
  return p;
}

}  // namespace flashscope
