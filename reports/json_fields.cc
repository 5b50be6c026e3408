#include "reports/json_fields.h"

#include "reports/json_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"

namespace flashscope::reports::jsonio {
namespace {

bool NonFiniteFromString(const std::string& s, double* out) {
  if (s == "nan") {
    *out = std::numeric_limits<double>::quiet_NaN();
  } else if (s == "inf") {
    *out = std::numeric_limits<double>::infinity();
  } else if (s == "-inf") {
    *out = -std::numeric_limits<double>::infinity();
  } else {
    return false;
  }
  return true;
}

void DumpTo(const Json& j, int indent, std::string* out) {
  const std::string pad(indent + 2, ' ');
  if (j.is_object() && !j.empty()) {
    out->append("{\n");
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) out->append(",\n");
      first = false;
      out->append(pad).append(Dump(Json(it.key()))).append(": ");
      DumpTo(it.value(), indent + 2, out);
    }
    out->append("\n").append(indent, ' ').append("}");
    return;
  }
  if (j.is_array() && !j.empty()) {
    bool scalars = true;
    for (const Json& e : j) scalars = scalars && !e.is_structured();
    if (scalars) {
      out->append("[");
      for (size_t i = 0; i < j.size(); ++i) {
        if (i) out->append(", ");
        out->append(Dump(j[i]));
      }
      out->append("]");
      return;
    }
    out->append("[\n");
    for (size_t i = 0; i < j.size(); ++i) {
      if (i) out->append(",\n");
      out->append(pad);
      DumpTo(j[i], indent + 2, out);
    }
    out->append("\n").append(indent, ' ').append("]");
    return;
  }
  out->append(Dump(j));
}

}  // namespace

std::string Dump(const Json& j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

Json Number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

Json FloatArray(const std::vector<float>& v) {
  Json a = Json::array();
  for (float f : v) {
    if (!std::isfinite(f)) {
      a.push_back(Number(f));
      continue;
    }
    // The shortest decimal that gives back this float, parsed as a double: its own shortest form
    // is the same decimal, so the file holds "0.1" and reading it back as float is exact.
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof(buf), f);
    *res.ptr = '\0';
    a.push_back(std::strtod(buf, nullptr));
  }
  return a;
}

Json DoubleArray(const std::vector<double>& v) {
  Json a = Json::array();
  for (double d : v) a.push_back(Number(d));
  return a;
}

std::string TypeName(const Json& j) {
  switch (j.type()) {
    case Json::value_t::object:
      return "object";
    case Json::value_t::array:
      return "array";
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::null:
      return "null";
    default:
      return "binary";
  }
}

std::string DumpReadable(const Json& j) {
  std::string out;
  DumpTo(j, 0, &out);
  out.push_back('\n');
  return out;
}

std::string JoinPath(absl::string_view path, absl::string_view key) {
  if (path.empty()) return std::string(key);
  return absl::StrCat(path, ".", key);
}

std::string IndexPath(absl::string_view path, size_t index) {
  return absl::StrCat(path, "[", index, "]");
}

bool ExpectNumber(const Json& v, const std::string& path, double* out, absl::Status* status) {
  if (!status->ok()) return false;
  if (v.is_number()) {
    *out = v.get<double>();
    return true;
  }
  if (v.is_string() && NonFiniteFromString(v.get<std::string>(), out)) return true;
  *status = absl::InvalidArgumentError(
      absl::StrCat(path, ": expected number, got ", TypeName(v), " ", Excerpt(v)));
  return false;
}

Fields::Fields(const Json& j, std::string path, absl::Status* status)
    : path_(std::move(path)), status_(status) {
  if (!status_->ok()) return;
  if (!j.is_object()) {
    Fail(path_.empty() ? "(top level)" : path_, absl::StrCat("expected object, got ", TypeName(j)));
    return;
  }
  obj_ = &j;
}

void Fields::Fail(const std::string& path, absl::string_view what) {
  if (status_->ok()) *status_ = absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

const Json* Fields::Find(absl::string_view key, Need need) {
  if (!ok() || obj_ == nullptr) return nullptr;
  auto it = obj_->find(std::string(key));
  if (it == obj_->end()) {
    if (need == Need::kRequired) {
      Fail(path_.empty() ? "(top level)" : path_,
           absl::StrCat("missing required key \"", key, "\""));
    }
    return nullptr;
  }
  return &*it;
}

bool Fields::ReadNumber(const Json& v, const std::string& path, double* out) {
  double ignored = 0;
  if (finite_only_ && v.is_string() && NonFiniteFromString(v.get<std::string>(), &ignored)) {
    Fail(path, absl::StrCat("expected a finite number, got string ", Excerpt(v),
                            " (non-finite values are not allowed here)"));
    return false;
  }
  return ExpectNumber(v, path, out, status_);
}

void Fields::Get(absl::string_view key, std::string* out, Need need) {
  const Json* v = Find(key, need);
  if (v == nullptr) return;
  if (!v->is_string()) {
    Fail(PathOf(key), absl::StrCat("expected string, got ", TypeName(*v), " ", Excerpt(*v)));
    return;
  }
  *out = v->get<std::string>();
}

void Fields::Get(absl::string_view key, double* out, Need need) {
  const Json* v = Find(key, need);
  if (v != nullptr) ReadNumber(*v, PathOf(key), out);
}

void Fields::Get(absl::string_view key, int64_t* out, Need need) {
  const Json* v = Find(key, need);
  if (v == nullptr) return;
  if (v->is_number_integer() && !v->is_number_unsigned()) {
    *out = v->get<int64_t>();
  } else if (v->is_number_unsigned() &&
             v->get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    *out = static_cast<int64_t>(v->get<uint64_t>());
  } else {
    Fail(PathOf(key), absl::StrCat("expected integer, got ", TypeName(*v), " ", Excerpt(*v)));
  }
}

void Fields::Get(absl::string_view key, int* out, Need need) {
  int64_t wide = *out;
  const Json* v = Find(key, need);
  if (v == nullptr) return;
  Get(key, &wide, need);
  if (!ok()) return;
  if (wide < std::numeric_limits<int>::min() || wide > std::numeric_limits<int>::max()) {
    Fail(PathOf(key), absl::StrCat("integer ", wide, " out of range for a 32-bit field"));
    return;
  }
  *out = static_cast<int>(wide);
}

void Fields::Get(absl::string_view key, std::optional<int>* out, Need need) {
  if (Find(key, need) == nullptr) return;
  int value = 0;
  Get(key, &value, need);
  if (ok()) *out = value;
}

void Fields::Get(absl::string_view key, uint64_t* out, Need need) {
  const Json* v = Find(key, need);
  if (v == nullptr) return;
  if (v->is_number_unsigned() || (v->is_number_integer() && v->get<int64_t>() >= 0)) {
    *out = v->get<uint64_t>();
  } else {
    Fail(PathOf(key),
         absl::StrCat("expected unsigned integer, got ", TypeName(*v), " ", Excerpt(*v)));
  }
}

void Fields::Get(absl::string_view key, bool* out, Need need) {
  const Json* v = Find(key, need);
  if (v == nullptr) return;
  if (!v->is_boolean()) {
    Fail(PathOf(key), absl::StrCat("expected boolean, got ", TypeName(*v), " ", Excerpt(*v)));
    return;
  }
  *out = v->get<bool>();
}

void Fields::Get(absl::string_view key, std::vector<double>* out, Need need) {
  const Json* a = Array(key, need);
  if (a == nullptr) return;
  std::vector<double> values;
  values.reserve(a->size());
  for (size_t i = 0; i < a->size(); ++i) {
    double d = 0;
    if (!ReadNumber((*a)[i], IndexPath(PathOf(key), i), &d)) return;
    values.push_back(d);
  }
  *out = std::move(values);
}

void Fields::Get(absl::string_view key, std::vector<float>* out, Need need) {
  std::vector<double> wide;
  Get(key, &wide, need);
  if (!ok() || obj_ == nullptr || obj_->find(std::string(key)) == obj_->end()) return;
  out->assign(wide.begin(), wide.end());
}

void Fields::Get(absl::string_view key, std::map<std::string, std::string>* out, Need need) {
  const Json* o = Object(key, need);
  if (o == nullptr) return;
  std::map<std::string, std::string> values;
  for (auto it = o->begin(); it != o->end(); ++it) {
    if (!it.value().is_string()) {
      Fail(JoinPath(PathOf(key), it.key()),
           absl::StrCat("expected string, got ", TypeName(it.value()), " ", Excerpt(it.value())));
      return;
    }
    values[it.key()] = it.value().get<std::string>();
  }
  *out = std::move(values);
}

const Json* Fields::Object(absl::string_view key, Need need) {
  const Json* v = Find(key, need);
  if (v == nullptr) return nullptr;
  if (v->is_null() && need == Need::kOptional) return nullptr;
  if (!v->is_object()) {
    Fail(PathOf(key), absl::StrCat("expected object, got ", TypeName(*v)));
    return nullptr;
  }
  return v;
}

const Json* Fields::Array(absl::string_view key, Need need) {
  const Json* v = Find(key, need);
  if (v == nullptr) return nullptr;
  if (v->is_null() && need == Need::kOptional) return nullptr;
  if (!v->is_array()) {
    Fail(PathOf(key), absl::StrCat("expected array, got ", TypeName(*v)));
    return nullptr;
  }
  return v;
}

}  // namespace flashscope::reports::jsonio
