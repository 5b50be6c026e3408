// Host side shared by the FP8 attention rungs (a27_fp8, a28_fp8_overlap, a29_fp8_split_kv): what
// they support, the transposed-V scratch their pre-pass writes, and their tensor maps. The launch
// templates are in attn_fp8_entry.cuh, instantiated by each rung's own file (so that the audit
// finds each rung's device functions in its own source).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/problem.h"
#include "kernels/registry.h"

namespace flashscope::kernels::attn_fp8 {

// Keys per tile (Fp8Config<D>::kBN), the pre-pass's padding of V^T.
inline constexpr int kKeyTile = 128;

inline int64_t PaddedKeys(int64_t seq_k) { return (seq_k + kKeyTile - 1) / kKeyTile * kKeyTile; }

// Empty when the FP8 body can run `p`, else the reason, naming the rung `id`.
std::string Supports(const AttentionProblem& p, const std::string& id);

// V^T [B·H, D, PaddedKeys(Sk)] for the pre-pass: one block per device shared by every FP8 rung,
// grown on demand (the first, untimed launch of a larger shape grows it).
cudaError_t TransposedV(size_t bytes, void** out);

struct Maps {
  CUtensorMap q, k, vt;
};

// The tensor maps of Q, K (D-byte rows: 128-byte swizzle at D >= 128, 64-byte at D = 64) and of
// `vt` (keys contiguous, 128-byte swizzle), remembered per (pointers, shape); "" or the reason.
std::string MapsFor(const AttentionProblem& p, const AttentionArgs& a, const void* vt, Maps* out);

}  // namespace flashscope::kernels::attn_fp8
