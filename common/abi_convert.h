// The one place where flashscope's own vocabulary (common/problem.h, common/kernel_info.h) and the
// plugin C ABI (include/flashscope/kernel_abi.h) are translated into each other. The built-in
// adapter (kernels/abi_adapter.h) goes one way, the plugin host (plugins/) the other; both use
// these functions so that an enum value or a field can never mean two things.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/kernel_info.h"
#include "common/problem.h"
#include "flashscope/kernel_abi.h"

namespace flashscope::abi {

inline int32_t ToAbi(Family f) {
  return f == Family::kAttentionFwd ? FS_FAMILY_ATTENTION_FWD : FS_FAMILY_GEMM;
}

inline std::optional<Family> FamilyFromAbi(int32_t f) {
  if (f == FS_FAMILY_ATTENTION_FWD) return Family::kAttentionFwd;
  if (f == FS_FAMILY_GEMM) return Family::kGemm;
  return std::nullopt;
}

inline int32_t ToAbi(DType t) {
  switch (t) {
    case DType::kF32:
      return FS_DTYPE_F32;
    case DType::kF16:
      return FS_DTYPE_F16;
    case DType::kBF16:
      return FS_DTYPE_BF16;
    case DType::kE4M3:
      return FS_DTYPE_E4M3;
  }
  return 0;
}

inline std::optional<DType> DTypeFromAbi(int32_t t) {
  if (t == FS_DTYPE_F32) return DType::kF32;
  if (t == FS_DTYPE_F16) return DType::kF16;
  if (t == FS_DTYPE_BF16) return DType::kBF16;
  if (t == FS_DTYPE_E4M3) return DType::kE4M3;
  return std::nullopt;
}

inline fs_problem ToAbi(const Problem& p) {
  fs_problem out{};
  if (const auto* a = std::get_if<AttentionProblem>(&p)) {
    out.family = FS_FAMILY_ATTENTION_FWD;
    out.attention.batch = a->batch;
    out.attention.heads = a->heads;
    out.attention.seq_q = a->seq_q;
    out.attention.seq_k = a->seq_k;
    out.attention.head_dim = a->head_dim;
    out.attention.dtype = ToAbi(a->dtype);
    out.attention.causal = a->causal ? 1 : 0;
    out.attention.want_lse = a->want_lse ? 1 : 0;
  } else {
    const auto& g = std::get<GemmProblem>(p);
    out.family = FS_FAMILY_GEMM;
    out.gemm.m = g.m;
    out.gemm.n = g.n;
    out.gemm.k = g.k;
    out.gemm.dtype = ToAbi(g.dtype);
  }
  return out;
}

// The problem an fs_problem describes; nullopt (with `why`) for an unknown family or dtype.
inline std::optional<Problem> ProblemFromAbi(const fs_problem& p, std::string* why) {
  const auto family = FamilyFromAbi(p.family);
  if (!family) {
    *why = "unknown family " + std::to_string(p.family);
    return std::nullopt;
  }
  const int32_t dtype_code = *family == Family::kAttentionFwd ? p.attention.dtype : p.gemm.dtype;
  const auto dtype = DTypeFromAbi(dtype_code);
  if (!dtype) {
    *why = "unknown dtype " + std::to_string(dtype_code);
    return std::nullopt;
  }
  if (*family == Family::kGemm) return Problem{GemmProblem{p.gemm.m, p.gemm.n, p.gemm.k, *dtype}};
  AttentionProblem a;
  a.batch = p.attention.batch;
  a.heads = p.attention.heads;
  a.seq_q = p.attention.seq_q;
  a.seq_k = p.attention.seq_k;
  a.head_dim = p.attention.head_dim;
  a.dtype = *dtype;
  a.causal = p.attention.causal != 0;
  a.want_lse = p.attention.want_lse != 0;
  return Problem{a};
}

inline fs_tile ToAbi(const TileShape& t) { return {t.block_m, t.block_n, t.block_k, t.threads}; }

inline TileShape TileFromAbi(const fs_tile& t) {
  return {t.block_m, t.block_n, t.block_k, t.threads};
}

inline uint32_t FlagsOf(const KernelInfo& info) {
  return (info.is_peer ? FS_KERNEL_PEER : 0u) | (info.idempotent ? 0u : FS_KERNEL_NOT_IDEMPOTENT) |
         (info.test_only ? FS_KERNEL_TEST_ONLY : 0u) |
         (info.accepts_fp8 ? FS_KERNEL_ACCEPTS_FP8 : 0u);
}

inline constexpr uint32_t kKnownKernelFlags =
    FS_KERNEL_PEER | FS_KERNEL_NOT_IDEMPOTENT | FS_KERNEL_TEST_ONLY | FS_KERNEL_ACCEPTS_FP8;

// The facts of a validated fs_kernel (plugins/ validates before calling this).
inline KernelInfo InfoFromAbi(const fs_kernel& k) {
  KernelInfo info;
  info.id = k.id;
  info.family = FamilyFromAbi(k.family).value_or(Family::kAttentionFwd);
  info.revision = k.revision;
  info.title = k.title;
  info.changed = k.changed;
  info.min_sm = k.min_sm;
  info.exact_sm = k.exact_sm;
  info.tile = TileFromAbi(k.tile);
  info.is_peer = (k.flags & FS_KERNEL_PEER) != 0;
  info.idempotent = (k.flags & FS_KERNEL_NOT_IDEMPOTENT) == 0;
  info.test_only = (k.flags & FS_KERNEL_TEST_ONLY) != 0;
  info.accepts_fp8 = (k.flags & FS_KERNEL_ACCEPTS_FP8) != 0;
  return info;
}

}  // namespace flashscope::abi
