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
  // Each key of the family must be there and read; a key left over is an error too.
  size_t read = 0;
  auto parse = [&](const char* key, auto* out, auto parser) {
    auto it = m.find(key);
    if (it == m.end()) {
      *why = std::string("missing \"") + key + "\"";
      return false;
    }
    ++read;
    if (parser(it->second, out)) return true;
    *why = std::string("\"") + key + "\": bad value \"" + it->second + "\"";
    return false;
  };
  auto dtype = [](const std::string& s, DType* out) {
    const auto d = ParseDType(s);
    if (d) *out = *d;
    return d.has_value();
  };
  const auto positive = problem_params_detail::ParsePositive;
  const auto boolean = problem_params_detail::ParseBool;
  Problem p;
  bool ok = true;
  if (family == Family::kAttentionFwd) {
    AttentionProblem a;
    ok = parse("dtype", &a.dtype, dtype) && parse("B", &a.batch, positive) &&
         parse("H", &a.heads, positive) && parse("Sq", &a.seq_q, positive) &&
         parse("Sk", &a.seq_k, positive) && parse("D", &a.head_dim, positive) &&
         parse("causal", &a.causal, boolean) && parse("lse", &a.want_lse, boolean);
    p = a;
  } else {
    GemmProblem g;
    ok = parse("dtype", &g.dtype, dtype) && parse("M", &g.m, positive) &&
         parse("N", &g.n, positive) && parse("K", &g.k, positive);
    p = g;
  }
  if (!ok) return std::nullopt;
  if (read != m.size()) {
    *why = "unexpected keys beside the " + std::to_string(read) + " of " +
           std::string(FamilyName(family));
    return std::nullopt;
  }
  return p;
}

}  // namespace flashscope
