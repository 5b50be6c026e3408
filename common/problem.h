// The vocabulary every flashscope library shares: element types and the problem shapes of each
// family. Header-only and free of CUDA so that kernels/, verify/, reports/ and suites/ speak of a
// problem with one type instead of converting between look-alike structs (see docs/architecture.md
// for why this folder exists beside the libraries of DESIGN.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace flashscope {

// kE4M3: OCP FP8 E4M3 (FN: no infinities, max 448), one byte, unscaled (FS_DTYPE_E4M3). An E4M3
// attention problem writes its output in BF16 (AttentionOutputDType); a gemm's C is fp32 always.
enum class DType : uint8_t { kF32, kF16, kBF16, kE4M3 };

// Every element type the kernel ABI has (FS_DTYPE_*), for code that must try each one (what
// `flashscope list` asks a kernel's supports() about); the tensor-core types first.
inline constexpr DType kAllDTypes[] = {DType::kF16, DType::kBF16, DType::kE4M3, DType::kF32};

inline std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kF32:
      return "fp32";
    case DType::kF16:
      return "fp16";
    case DType::kBF16:
      return "bf16";
    case DType::kE4M3:
      return "e4m3";
  }
  return "?";
}

inline std::optional<DType> ParseDType(std::string_view s) {
  if (s == "fp32" || s == "float32" || s == "f32") return DType::kF32;
  if (s == "fp16" || s == "float16" || s == "f16" || s == "half") return DType::kF16;
  if (s == "bf16" || s == "bfloat16") return DType::kBF16;
  if (s == "e4m3" || s == "fp8" || s == "fp8_e4m3" || s == "float8_e4m3fn") return DType::kE4M3;
  return std::nullopt;
}

inline size_t DTypeBytes(DType t) { return t == DType::kF32 ? 4 : (t == DType::kE4M3 ? 1 : 2); }

// The element type of an attention problem's output O: the input type, except E4M3, whose O is
// BF16 (FP8 attention accumulates in fp32 and an E4M3 output would lose what it kept).
inline DType AttentionOutputDType(DType input) {
  return input == DType::kE4M3 ? DType::kBF16 : input;
}

enum class Family : uint8_t { kAttentionFwd, kGemm };

inline std::string_view FamilyName(Family f) {
  return f == Family::kAttentionFwd ? "attention_fwd" : "gemm";
}

inline std::optional<Family> ParseFamily(std::string_view s) {
  if (s == "attention_fwd") return Family::kAttentionFwd;
  if (s == "gemm") return Family::kGemm;
  return std::nullopt;
}

// Attention forward, O = softmax(Q Kᵀ · scale [+ causal mask]) V, scale = 1/sqrt(head_dim).
// Layout of Q, O: [batch, heads, seq_q, head_dim]; K, V: [batch, heads, seq_k, head_dim], all
// contiguous. The optional log-sum-exp output is fp32 [batch, heads, seq_q], natural log.
// Causal masking is bottom-right aligned: query i sees keys j <= i + (seq_k - seq_q), as in
// FlashAttention 2.1+; a query row that sees no key (possible when seq_q > seq_k) outputs zeros
// and a log-sum-exp of -inf.
struct AttentionProblem {
  int64_t batch = 1;
  int64_t heads = 1;
  int64_t seq_q = 1;
  int64_t seq_k = 1;
  int64_t head_dim = 64;
  DType dtype = DType::kF16;
  bool causal = false;
  bool want_lse = false;

  int64_t QElements() const { return batch * heads * seq_q * head_dim; }
  int64_t KElements() const { return batch * heads * seq_k * head_dim; }
  int64_t LseElements() const { return batch * heads * seq_q; }
  // First key index that query row `i` may not see (exclusive end of its key range).
  int64_t CausalKeyEnd(int64_t i) const {
    if (!causal) return seq_k;
    int64_t end = i + (seq_k - seq_q) + 1;
    return end < 0 ? 0 : (end > seq_k ? seq_k : end);
  }
};

// An attention problem by its shape, in the order a problem key names it (B, H, Sq, Sk, D):
// `AttentionShape(2, 3, 17, 1000, 64)`; the flags (causal, want_lse) are set on the result.
inline AttentionProblem AttentionShape(int64_t batch, int64_t heads, int64_t seq_q, int64_t seq_k,
                                       int64_t head_dim, DType dtype = DType::kF16) {
  AttentionProblem p;
  p.batch = batch;
  p.heads = heads;
  p.seq_q = seq_q;
  p.seq_k = seq_k;
  p.head_dim = head_dim;
  p.dtype = dtype;
  return p;
}

// C[m, n] = sum_k A[m, k] · B[k, n]; A and B row-major in `dtype` (fp32, fp16 or bf16), C row-major
// fp32, accumulated in fp32.
struct GemmProblem {
  int64_t m = 1;
  int64_t n = 1;
  int64_t k = 1;
  DType dtype = DType::kF32;
};

using Problem = std::variant<AttentionProblem, GemmProblem>;

inline Family FamilyOf(const Problem& p) {
  return std::holds_alternative<AttentionProblem>(p) ? Family::kAttentionFwd : Family::kGemm;
}

// A stable, human-readable key; reports pair cases across runs by (kernel id, problem key).
inline std::string ProblemKey(const AttentionProblem& a) {
  std::string k = "attention_fwd{B=" + std::to_string(a.batch) + ",H=" + std::to_string(a.heads);
  if (a.seq_q == a.seq_k) {
    k += ",S=" + std::to_string(a.seq_q);
  } else {
    k += ",Sq=" + std::to_string(a.seq_q) + ",Sk=" + std::to_string(a.seq_k);
  }
  k += ",D=" + std::to_string(a.head_dim) + "," + std::string(DTypeName(a.dtype));
  if (a.causal) k += ",causal";
  if (a.want_lse) k += ",lse";
  return k + "}";
}

inline std::string ProblemKey(const GemmProblem& g) {
  return "gemm{M=" + std::to_string(g.m) + ",N=" + std::to_string(g.n) +
         ",K=" + std::to_string(g.k) + "," + std::string(DTypeName(g.dtype)) + "}";
}

inline std::string ProblemKey(const Problem& p) {
  return std::visit([](const auto& x) { return ProblemKey(x); }, p);
}

}  // namespace flashscope
