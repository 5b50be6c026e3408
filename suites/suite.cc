#include "suites/suite.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "nlohmann/json.hpp"
#include "reports/input_file.h"
#include "reports/json_strict.h"
#include "reports/json_text.h"

namespace flashscope::suites {
namespace {

using Json = nlohmann::ordered_json;

std::atomic<uint64_t> g_suites_parsed{0};  // SuitesParsed()

absl::Status Bad(const std::string& path, const std::string& where, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", where, ": ", what));
}

std::string TypeName(const Json& j) { return j.type_name(); }

// Rejects keys not in `allowed`, so a typo ("warmpu") is an error rather than a silent default.
absl::Status CheckKeys(const Json& obj, const std::set<std::string>& allowed,
                       const std::string& path, const std::string& where) {
  for (const auto& [key, value] : obj.items()) {
    if (!allowed.count(key)) {
      return Bad(
          path, where,
          absl::StrCat("unknown key '", key, "' (known: ", absl::StrJoin(allowed, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status Read(const Json& obj, const std::string& key, T* out, const std::string& path,
                  const std::string& where) {
  if (!obj.contains(key)) return absl::OkStatus();
  const Json& v = obj.at(key);
  const std::string at = absl::StrCat(where, ".", key);
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) return Bad(path, at, "expected true or false, got " + TypeName(v));
    *out = v.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!v.is_number_integer()) return Bad(path, at, "expected an integer, got " + TypeName(v));
    if (v.get<int64_t>() < 0) return Bad(path, at, "must not be negative");
    *out = static_cast<T>(v.get<int64_t>());
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) return Bad(path, at, "expected a number, got " + TypeName(v));
    if (v.get<double>() < 0) return Bad(path, at, "must not be negative");
    *out = v.get<double>();
  } else if constexpr (std::is_same_v<T, std::optional<double>>) {
    if (!v.is_number()) return Bad(path, at, "expected a number, got " + TypeName(v));
    *out = v.get<double>();
  } else {
    if (!v.is_string()) return Bad(path, at, "expected a string, got " + TypeName(v));
    *out = v.get<std::string>();
  }
  return absl::OkStatus();
}

// One axis: a scalar or a non-empty list of scalars.
absl::StatusOr<std::vector<Json>> AxisValues(const Json& v, const std::string& path,
                                             const std::string& where) {
  std::vector<Json> out;
  if (v.is_array()) {
    if (v.empty()) return Bad(path, where, "an axis needs at least one value");
    for (const auto& x : v) out.push_back(x);
  } else {
    out.push_back(v);
  }
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].is_object() || out[i].is_array() || out[i].is_null()) {
      return Bad(path, absl::StrCat(where, "[", i, "]"),
                 "expected a number, string or boolean, got " + TypeName(out[i]));
    }
  }
  return out;
}

absl::StatusOr<int64_t> PositiveInt(const Json& v, const std::string& path,
                                    const std::string& where) {
  if (!v.is_number_integer() || v.get<int64_t>() <= 0) {
    return Bad(path, where, "expected a positive integer, got " + reports::jsonio::Excerpt(v));
  }
  return v.get<int64_t>();
}

absl::StatusOr<DType> DTypeValue(const Json& v, const std::string& path, const std::string& where) {
  if (v.is_string()) {
    if (auto d = ParseDType(v.get<std::string>())) return *d;
  }
  std::string names;  // every dtype the ABI has, so that a new one is never left out
  for (DType t : kAllDTypes) names += (names.empty() ? "" : ", ") + std::string(DTypeName(t));
  return Bad(path, where,
             "unknown dtype " + reports::jsonio::Excerpt(v) + " (expected one of " + names + ")");
}

absl::StatusOr<bool> BoolValue(const Json& v, const std::string& path, const std::string& where) {
  if (!v.is_boolean())
    return Bad(path, where, "expected true or false, got " + reports::jsonio::Excerpt(v));
  return v.get<bool>();
}

// "plugins": files the suite's kernels come from. A path with a '/' is relative to the suite
// file's folder (so a suite and its plugin move together), and stays a path when that folder is
// "" ("./x.so", not the bare name "x.so"); a bare name stays bare, to be looked up where plugins
// are installed (suites/plugin_paths.h).
std::string PluginEntryPath(const std::filesystem::path& folder, const std::string& entry) {
  if (entry.find('/') == std::string::npos || entry[0] == '/') return entry;
  const std::filesystem::path joined = (folder / entry).lexically_normal();
  return (joined.has_parent_path() ? joined : std::filesystem::path(".") / joined).string();
}

absl::Status ReadPlugins(const Json& j, const std::string& path, std::vector<std::string>* out) {
  if (!j.contains("plugins")) return absl::OkStatus();
  const Json& list = j["plugins"];
  if (!list.is_array()) {
    return Bad(path, "suite.plugins", "expected a list of plugin files, got " + TypeName(list));
  }
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string() || list[i].get<std::string>().empty()) {
      return Bad(path, absl::StrCat("suite.plugins[", i, "]"),
                 "expected a plugin file (a path, or a bare name such as \"my_kernels\")");
    }
    out->push_back(PluginEntryPath(folder, list[i].get<std::string>()));
  }
  return absl::OkStatus();
}

// The axes of each family in the order the grid nests them (last varies fastest).
const std::vector<std::string>& AxisOrder(Family f) {
  static const std::vector<std::string> attention = {
      "dtype", "head_dim", "causal", "lse", "tokens", "batch", "heads", "seq", "seq_q", "seq_k"};
  static const std::vector<std::string> gemm = {"dtype", "size", "m", "n", "k"};
  return f == Family::kAttentionFwd ? attention : gemm;
}

using Point = std::map<std::string, Json>;

absl::StatusOr<AttentionProblem> AttentionFromPoint(const Point& pt, const std::string& path,
                                                    const std::string& where) {
  AttentionProblem p;
  auto int_axis = [&](const char* name, int64_t* out) -> absl::Status {
    auto it = pt.find(name);
    if (it == pt.end()) return absl::OkStatus();
    auto v = PositiveInt(it->second, path, absl::StrCat(where, ".", name));
    if (!v.ok()) return v.status();
    *out = *v;
    return absl::OkStatus();
  };
  int64_t seq = 0, tokens = 0;
  for (auto [name, out] :
       std::initializer_list<std::pair<const char*, int64_t*>>{{"batch", &p.batch},
                                                               {"heads", &p.heads},
                                                               {"head_dim", &p.head_dim},
                                                               {"seq", &seq},
                                                               {"seq_q", &p.seq_q},
                                                               {"seq_k", &p.seq_k},
                                                               {"tokens", &tokens}}) {
    if (auto s = int_axis(name, out); !s.ok()) return s;
  }
  const bool has_q = pt.count("seq_q"), has_k = pt.count("seq_k");
  if (seq > 0) {
    if (has_q || has_k) return Bad(path, where, "give either seq or seq_q and seq_k, not both");
    p.seq_q = p.seq_k = seq;
  } else if (!(has_q && has_k)) {
    return Bad(path, where, "an attention problem needs seq, or both seq_q and seq_k");
  }
  if (tokens > 0) {
    if (pt.count("batch")) return Bad(path, where, "give either tokens or batch, not both");
    if (tokens % p.seq_q != 0) {
      return Bad(path, where,
                 absl::StrCat("tokens ", tokens, " is not a multiple of the sequence length ",
                              p.seq_q, " (batch = tokens / seq)"));
    }
    p.batch = tokens / p.seq_q;
  }
  if (auto it = pt.find("dtype"); it != pt.end()) {
    auto d = DTypeValue(it->second, path, where + ".dtype");
    if (!d.ok()) return d.status();
    p.dtype = *d;
  }
  if (auto it = pt.find("causal"); it != pt.end()) {
    auto b = BoolValue(it->second, path, where + ".causal");
    if (!b.ok()) return b.status();
    p.causal = *b;
  }
  if (auto it = pt.find("lse"); it != pt.end()) {
    auto b = BoolValue(it->second, path, where + ".lse");
    if (!b.ok()) return b.status();
    p.want_lse = *b;
  }
  return p;
}

absl::StatusOr<GemmProblem> GemmFromPoint(const Point& pt, const std::string& path,
                                          const std::string& where) {
  GemmProblem g;
  if (auto it = pt.find("size"); it != pt.end()) {
    auto v = PositiveInt(it->second, path, where + ".size");
    if (!v.ok()) return v.status();
    g.m = g.n = g.k = *v;
  } else if (!(pt.count("m") && pt.count("n") && pt.count("k"))) {
    return Bad(path, where, "a gemm problem needs size, or all of m, n and k");
  }
  for (auto [name, out] : std::initializer_list<std::pair<const char*, int64_t*>>{
           {"m", &g.m}, {"n", &g.n}, {"k", &g.k}}) {
    auto it = pt.find(name);
    if (it == pt.end()) continue;
    auto v = PositiveInt(it->second, path, absl::StrCat(where, ".", name));
    if (!v.ok()) return v.status();
    *out = *v;
  }
  if (auto it = pt.find("dtype"); it != pt.end()) {
    auto d = DTypeValue(it->second, path, where + ".dtype");
    if (!d.ok()) return d.status();
    g.dtype = *d;
  }
  return g;
}

absl::Status ExpandGroup(const Json& group, const std::string& path, const std::string& where,
                         std::vector<Problem>* out) {
  if (!group.is_object()) return Bad(path, where, "expected an object, got " + TypeName(group));
  if (auto s = CheckKeys(group, {"family", "axes", "note"}, path, where); !s.ok()) return s;
  if (!group.contains("family") || !group["family"].is_string()) {
    return Bad(path, where, "needs \"family\": \"attention_fwd\" or \"gemm\"");
  }
  auto family = ParseFamily(group["family"].get<std::string>());
  if (!family) {
    return Bad(path, where + ".family",
               "unknown family '" + group["family"].get<std::string>() +
                   "' (expected attention_fwd or gemm)");
  }
  if (!group.contains("axes") || !group["axes"].is_object()) {
    return Bad(path, where, "needs \"axes\": {name: value or [values]}");
  }
  const auto& order = AxisOrder(*family);
  const Json& axes = group["axes"];
  std::set<std::string> allowed(order.begin(), order.end());
  if (auto s = CheckKeys(axes, allowed, path, where + ".axes"); !s.ok()) return s;

  std::vector<std::pair<std::string, std::vector<Json>>> dims;
  for (const auto& name : order) {
    if (!axes.contains(name)) continue;
    auto values = AxisValues(axes[name], path, absl::StrCat(where, ".axes.", name));
    if (!values.ok()) return values.status();
    dims.emplace_back(name, *std::move(values));
  }
  // Odometer over the axes; the last axis varies fastest.
  std::vector<size_t> idx(dims.size(), 0);
  while (true) {
    Point pt;
    for (size_t d = 0; d < dims.size(); ++d) pt[dims[d].first] = dims[d].second[idx[d]];
    if (*family == Family::kAttentionFwd) {
      auto p = AttentionFromPoint(pt, path, where + ".axes");
      if (!p.ok()) return p.status();
      out->push_back(*p);
    } else {
      auto p = GemmFromPoint(pt, path, where + ".axes");
      if (!p.ok()) return p.status();
      out->push_back(*p);
    }
    size_t d = dims.size();
    while (d > 0) {
      --d;
      if (++idx[d] < dims[d].second.size()) break;
      idx[d] = 0;
      if (d == 0) return absl::OkStatus();
    }
    if (dims.empty()) return absl::OkStatus();
  }
}

// "trust": {"off": ["work", ...]}.
absl::Status ParseTrust(const Json& t, const std::string& path, TrustSpec* out) {
  if (!t.is_object()) return Bad(path, "suite.trust", "expected an object");
  if (t.contains("input_sets")) {
    return Bad(path, "suite.trust.input_sets",
               "no longer read: every launch now reads inputs generated fresh on the GPU "
               "(docs/trust.md); remove the key (\"off\": [\"timed_outputs\"] turns fresh inputs "
               "off)");
  }
  if (auto s = CheckKeys(t, {"off"}, path, "suite.trust"); !s.ok()) return s;
  if (!t.contains("off")) return absl::OkStatus();
  const Json& off = t["off"];
  if (!off.is_array()) return Bad(path, "suite.trust.off", "expected a list of check names");
  const std::vector<std::string>& known = SwitchableTrustChecks();
  for (size_t i = 0; i < off.size(); ++i) {
    const std::string where = absl::StrCat("suite.trust.off[", i, "]");
    if (!off[i].is_string()) return Bad(path, where, "expected a check name");
    const std::string name = off[i].get<std::string>();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      return Bad(
          path, where,
          absl::StrCat("unknown check '", name, "' (known: ", absl::StrJoin(known, ", "), ")"));
    }
    out->off.push_back(name);
  }
  return absl::OkStatus();
}

// The suite file's text as JSON, refused when nested too deep or not an object.
absl::StatusOr<Json> ParseSuiteJson(const std::string& text, const std::string& path) {
  absl::StatusOr<Json> parsed =
      reports::jsonio::ParseStrict(text, path, "a suite file (docs/suites.md)");
  if (!parsed.ok()) return parsed.status();
  Json j = *std::move(parsed);
  if (!j.is_object()) return Bad(path, "suite", "expected a JSON object, got " + TypeName(j));
  return j;
}

// An optional section of the suite ("timing", "verify", ...): nullptr when absent, else the
// object, after its keys are checked against `allowed`.
absl::StatusOr<const Json*> Section(const Json& j, const std::string& key,
                                    const std::set<std::string>& allowed, const std::string& path) {
  if (!j.contains(key)) return nullptr;
  const Json& section = j[key];
  const std::string where = "suite." + key;
  if (!section.is_object()) return Bad(path, where, "expected an object");
  if (auto s = CheckKeys(section, allowed, path, where); !s.ok()) return s;
  return &section;
}

absl::Status ReadKernelPatterns(const Json& j, const std::string& path,
                                std::vector<std::string>* out) {
  if (!j.contains("kernels") || !j["kernels"].is_array() || j["kernels"].empty()) {
    return Bad(path, "suite.kernels", "needs a non-empty list of kernel ids or globs");
  }
  for (size_t i = 0; i < j["kernels"].size(); ++i) {
    const auto& k = j["kernels"][i];
    if (!k.is_string() || k.get<std::string>().empty()) {
      return Bad(path, absl::StrCat("suite.kernels[", i, "]"), "expected a kernel id or glob");
    }
    out->push_back(k.get<std::string>());
  }
  return absl::OkStatus();
}

absl::Status ReadProblemGroups(const Json& j, const std::string& path, std::vector<Problem>* out) {
  if (!j.contains("problems") || !j["problems"].is_array() || j["problems"].empty()) {
    return Bad(path, "suite.problems", "needs a non-empty list of problem groups");
  }
  for (size_t i = 0; i < j["problems"].size(); ++i) {
    if (auto s = ExpandGroup(j["problems"][i], path, absl::StrCat("suite.problems[", i, "]"), out);
        !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status ReadInput(const Json& j, const std::string& path, Suite* suite) {
  absl::StatusOr<const Json*> in = Section(j, "input", {"kind", "seed"}, path);
  if (!in.ok() || *in == nullptr) return in.status();
  if (auto s = Read(**in, "kind", &suite->input_kind, path, "suite.input"); !s.ok()) return s;
  return Read(**in, "seed", &suite->seed, path, "suite.input");
}

absl::Status ReadTiming(const Json& j, const std::string& path, TimingSpec* ts) {
  absl::StatusOr<const Json*> section =
      Section(j, "timing",
              {"cold", "warmup", "min_samples", "max_samples", "noise_target", "time_cap_s"}, path);
  if (!section.ok() || *section == nullptr) return section.status();
  const Json& t = **section;
  for (absl::Status s : {Read(t, "cold", &ts->cold, path, "suite.timing"),
                         Read(t, "warmup", &ts->warmup, path, "suite.timing"),
                         Read(t, "min_samples", &ts->min_samples, path, "suite.timing"),
                         Read(t, "max_samples", &ts->max_samples, path, "suite.timing"),
                         Read(t, "noise_target", &ts->noise_target, path, "suite.timing"),
                         Read(t, "time_cap_s", &ts->time_cap_s, path, "suite.timing")}) {
    if (!s.ok()) return s;
  }
  if (ts->min_samples < 1 || ts->max_samples < ts->min_samples) {
    return Bad(path, "suite.timing", "needs 1 <= min_samples <= max_samples");
  }
  return absl::OkStatus();
}

absl::Status ReadVerify(const Json& j, const std::string& path, VerifySpec* vs) {
  absl::StatusOr<const Json*> section = Section(
      j, "verify",
      {"reference", "heatmaps", "heatmap_side", "atol", "rtol", "baseline_factor", "floor"}, path);
  if (!section.ok() || *section == nullptr) return section.status();
  const Json& v = **section;
  for (absl::Status s : {Read(v, "reference", &vs->reference, path, "suite.verify"),
                         Read(v, "heatmap_side", &vs->heatmap_side, path, "suite.verify"),
                         Read(v, "atol", &vs->atol, path, "suite.verify"),
                         Read(v, "rtol", &vs->rtol, path, "suite.verify"),
                         Read(v, "baseline_factor", &vs->baseline_factor, path, "suite.verify"),
                         Read(v, "floor", &vs->floor, path, "suite.verify")}) {
    if (!s.ok()) return s;
  }
  if (v.contains("heatmaps") && v["heatmaps"].is_boolean()) {
    vs->heatmaps = v["heatmaps"].get<bool>() ? "all" : "none";
  } else if (auto s = Read(v, "heatmaps", &vs->heatmaps, path, "suite.verify"); !s.ok()) {
    return s;
  }
  if (vs->heatmaps != "failed" && vs->heatmaps != "all" && vs->heatmaps != "none") {
    return Bad(path, "suite.verify.heatmaps",
               "'" + vs->heatmaps + "' is not a heatmap policy (expected failed, all or none)");
  }
  if (vs->heatmap_side < 1 || vs->heatmap_side > 256) {
    return Bad(path, "suite.verify.heatmap_side", "must be between 1 and 256");
  }
  if (vs->reference != "fp32" && vs->reference != "fp64") {
    return Bad(path, "suite.verify.reference",
               "'" + vs->reference + "' is not a reference precision (expected fp32 or fp64)");
  }
  return absl::OkStatus();
}

}  // namespace

const std::vector<std::string>& SwitchableTrustChecks() {
  static const std::vector<std::string> kChecks = {"plausibility", "work", "timed_outputs",
                                                   "streams"};
  return kChecks;
}

absl::StatusOr<Suite> ParseSuite(const std::string& text, const std::string& path) {
  g_suites_parsed.fetch_add(1, std::memory_order_relaxed);
  absl::StatusOr<Json> parsed = ParseSuiteJson(text, path);
  if (!parsed.ok()) return parsed.status();
  const Json& j = *parsed;
  if (auto s = CheckKeys(j,
                         {"name", "description", "kernels", "plugins", "problems", "input",
                          "timing", "verify", "trust", "metrics", "case_timeout_s"},
                         path, "suite");
      !s.ok()) {
    return s;
  }
  Suite suite;
  suite.path = path;
  if (!j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty()) {
    return Bad(path, "suite.name", "a suite needs a non-empty \"name\"");
  }
  suite.name = j["name"].get<std::string>();
  for (absl::Status s :
       {Read(j, "description", &suite.description, path, "suite"),
        Read(j, "metrics", &suite.metrics, path, "suite"),
        Read(j, "case_timeout_s", &suite.case_timeout_s, path, "suite"),
        ReadKernelPatterns(j, path, &suite.kernel_patterns), ReadPlugins(j, path, &suite.plugins),
        ReadProblemGroups(j, path, &suite.problems), ReadInput(j, path, &suite),
        ReadTiming(j, path, &suite.timing),
        j.contains("trust") ? ParseTrust(j["trust"], path, &suite.trust) : absl::OkStatus(),
        ReadVerify(j, path, &suite.verify)}) {
    if (!s.ok()) return s;
  }
  return suite;
}

uint64_t SuitesParsed() { return g_suites_parsed.load(std::memory_order_relaxed); }

absl::StatusOr<Suite> LoadSuiteFile(const std::string& path, std::string* as_stored) {
  absl::StatusOr<std::string> text = reports::ReadInputFile(path, as_stored);
  if (!text.ok()) {
    if (absl::IsNotFound(text.status())) {
      return absl::NotFoundError(absl::StrCat(path, ": cannot open the suite file"));
    }
    return text.status();
  }
  return ParseSuite(*text, path);
}

}  // namespace flashscope::suites
