// A problem as named values ("B" -> "4", "dtype" -> "fp16", ...) and back: the `params` of a case
// result (docs/report-schema.md) and the problem of a planned case in a journal's plan. Reading
// back is strict: a params map must hold exactly the axes of its family.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "common/problem.h"

namespace flashscope {

inline std::map<std::string, std::string> ProblemParams(const Problem& p) {
  std::map<std::string, std::string> m;
  if (const auto* a = std::get_if<AttentionProblem>(&p)) {
    m["B"] = std::to_string(a->batch);
    m["H"] = std::to_string(a->heads);
    m["Sq"] = std::to_string(a->seq_q);
    m["Sk"] = std::to_string(a->seq_k);
    m["D"] = std::to_string(a->head_dim);
    m["dtype"] = std::string(DTypeName(a->dtype));
    m["causal"] = a->causal ? "true" : "false";
    m["lse"] = a->want_lse ? "true" : "false";
  } else {
    const auto& g = std::get<GemmProblem>(p);
    m["M"] = std::to_string(g.m);
    m["N"] = std::to_string(g.n);
    m["K"] = std::to_string(g.k);
    m["dtype"] = std::string(DTypeName(g.dtype));
  }
  return m;
}

namespace problem_params_detail {

// A positive decimal integer without sign, spaces or leading zeros.
inline bool ParsePositive(const std::string& s, int64_t* out) {
  if (s.empty() || s.size() > 18 || s[0] == '0') return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

inline bool ParseBool(const std::string& s, bool* out) {
  if (s != "true" && s != "false") return false;
  *out = s == "true";
  return true;
}

}  // namespace problem_params_detail

// The problem of family `family` that ProblemParams() described; nullopt with `why` (naming the
// key) when a key is missing, extra or malformed.
inline std::optional<Problem> ProblemFromParams(Family family,
                                                const std::map<std::string, std::string>& m,
                                                std::string* why) {
  using problem_params_detail::ParseBool;
  using problem_params_detail::ParsePositive;
  const size_t expected = family == Family::kAttentionFwd ? 8 : 4;
  auto get = [&](const char* key) -> const std::string* {
    auto it = m.find(key);
    if (it == m.end()) *why = std::string("missing \"") + key + "\"";
    return it == m.end() ? nullptr : &it->second;
  };
  auto bad = [&](const char* key, const std::string& value) {
    *why = std::string("\"") + key + "\": bad value \"" + value + "\"";
    return std::nullopt;
  };
  const std::string* dtype_text = get("dtype");
  if (dtype_text == nullptr) return std::nullopt;
  const auto dtype = ParseDType(*dtype_text);
  if (!dtype) return bad("dtype", *dtype_text);
  if (family == Family::kAttentionFwd) {
    AttentionProblem a;
    a.dtype = *dtype;
    for (auto [key, out] :
         {std::pair{"B", &a.batch}, std::pair{"H", &a.heads}, std::pair{"Sq", &a.seq_q},
          std::pair{"Sk", &a.seq_k}, std::pair{"D", &a.head_dim}}) {
      const std::string* v = get(key);
      if (v == nullptr) return std::nullopt;
      if (!ParsePositive(*v, out)) return bad(key, *v);
    }
    for (auto [key, out] : {std::pair{"causal", &a.causal}, std::pair{"lse", &a.want_lse}}) {
      const std::string* v = get(key);
      if (v == nullptr) return std::nullopt;
      if (!ParseBool(*v, out)) return bad(key, *v);
    }
    if (m.size() != expected) {
      *why = "unexpected keys beside the " + std::to_string(expected) + " of attention_fwd";
      return std::nullopt;
    }
    return Problem{a};
  }
  GemmProblem g;
  g.dtype = *dtype;
  for (auto [key, out] : {std::pair{"M", &g.m}, std::pair{"N", &g.n}, std::pair{"K", &g.k}}) {
    const std::string* v = get(key);
    if (v == nullptr) return std::nullopt;
    if (!ParsePositive(*v, out)) return bad(key, *v);
  }
  if (m.size() != expected) {
    *why = "unexpected keys beside the " + std::to_string(expected) + " of gemm";
    return std::nullopt;
  }
  return Problem{g};
}

}  // namespace flashscope
