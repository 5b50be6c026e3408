// Internal helpers of the report JSON code: strict, path-naming reading of JSON objects, numbers
// that survive NaN/Inf, and a readable layout for committed reports. Not part of the public API;
// use report_json.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace flashscope::reports::jsonio {

using Json = nlohmann::json;

// JSON has no NaN or infinity; such doubles are written as the strings "nan", "inf" and "-inf"
// (docs/report-schema.md), and number fields accept exactly those strings back.
Json Number(double v);
// Floats are written by their shortest decimal form, so a heatmap cell is "0.1", not
// "0.10000000149011612", and reading it back gives the same float.
Json FloatArray(const std::vector<float>& v);
Json DoubleArray(const std::vector<double>& v);

// "object", "array", "string", "number", "integer", "boolean", "null".
std::string TypeName(const Json& j);

// Objects indented by two spaces, arrays of scalars kept on one line (a heatmap is one line, not
// 65536), so that a committed report diffs well and stays small.
std::string DumpReadable(const Json& j);
// j.dump(indent) that never throws on a string that is not UTF-8 (a plugin's kernel id, a CUDA or
// tool message): such bytes are written as U+FFFD, so that no result is lost to one bad byte.
std::string Dump(const Json& j, int indent = -1);

// "cases[3]" + "timing" -> "cases[3].timing"; "" + "cases" -> "cases".
std::string JoinPath(absl::string_view path, absl::string_view key);
std::string IndexPath(absl::string_view path, size_t index);

enum class Need { kOptional, kRequired };

// Reads the fields of one JSON object. Every reader of one document shares one status: the
// first error sticks (and names the JSON path of the bad field), later reads are no-ops. Unknown
// keys are ignored so that a newer writer's extra fields do not break an older reader. A missing
// optional key leaves the output at its default.
class Fields {
 public:
  // Records an error in *status when `j` is not an object.
  Fields(const Json& j, std::string path, absl::Status* status);

  bool ok() const { return status_->ok(); }
  const std::string& path() const { return path_; }
  std::string PathOf(absl::string_view key) const { return JoinPath(path_, key); }
  void Fail(const std::string& path, absl::string_view what);
  // Numbers must be finite JSON numbers: the strings "nan", "inf" and "-inf" that reports use for
  // non-finite values are refused (files people write by hand, such as a gate policy, have no
  // use for them; a floor of "nan" would fail every case).
  void RefuseNonFinite() { finite_only_ = true; }
  // Whether the object holds `key` (null included).
  bool Has(absl::string_view key) const {
    return obj_ != nullptr && obj_->find(std::string(key)) != obj_->end();
  }

  void Get(absl::string_view key, std::string* out, Need need = Need::kOptional);
  void Get(absl::string_view key, double* out, Need need = Need::kOptional);
  void Get(absl::string_view key, int* out, Need need = Need::kOptional);
  // Set only when the key is present (and not null).
  void Get(absl::string_view key, std::optional<int>* out, Need need = Need::kOptional);
  void Get(absl::string_view key, int64_t* out, Need need = Need::kOptional);
  void Get(absl::string_view key, uint64_t* out, Need need = Need::kOptional);
  void Get(absl::string_view key, bool* out, Need need = Need::kOptional);
  void Get(absl::string_view key, std::vector<double>* out, Need need = Need::kOptional);
  void Get(absl::string_view key, std::vector<float>* out, Need need = Need::kOptional);
  void Get(absl::string_view key, std::map<std::string, std::string>* out,
           Need need = Need::kOptional);

  // The value of an object- or array-valued key, type-checked; nullptr when absent, null, or
  // after an error.
  const Json* Object(absl::string_view key, Need need = Need::kOptional);
  const Json* Array(absl::string_view key, Need need = Need::kOptional);

 private:
  // The value of `key`, or nullptr when absent (recording an error when required).
  const Json* Find(absl::string_view key, Need need);
  bool ReadNumber(const Json& v, const std::string& path, double* out);

  const Json* obj_ = nullptr;
  bool finite_only_ = false;
  std::string path_;
  absl::Status* status_;
};

// Type checks for array elements and other values outside an object.
bool ExpectNumber(const Json& v, const std::string& path, double* out, absl::Status* status);

}  // namespace flashscope::reports::jsonio
