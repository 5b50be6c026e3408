// Each record described once: a record's fields are listed in ONE function,
//
//   template <class V> void Describe(V& v, ThroughputRecord& t) {
//     v("flops", t.flops, AtLeast(0));
//     v("tflops", t.tflops);
//   }
//
// from which both directions are made: jsonio::ReadRecord (a Reader visitor: strict types, the
// JSON path in every error, ranges and finiteness where the Rule says) and jsonio::WriteRecord (a
// Writer visitor: the same keys, non-finite doubles as "nan"/"inf" strings, floats by their
// shortest form). Adding a field to a record is one line in its Describe (docs/report-schema.md).
// Reader-only validation that spans fields (a heatmap's size, samples against the median) goes in
// v.Check(...), which the Writer skips.
#pragma once

#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "reports/json_fields.h"

namespace flashscope::reports::jsonio {

// What a record's description says of one field besides its key and member.
struct Rule {
  Need need = Need::kOptional;
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool finite = false;      // numbers: "nan", "inf", "-inf" refused
  bool write = true;        // writer: false leaves the key out (OmitUnless)
  bool omit_empty = false;  // writer: an empty string, container or absent value is left out

  Rule& Required() {
    need = Need::kRequired;
    return *this;
  }
  Rule& AtLeast(double v) {
    lo = v;
    return *this;
  }
  Rule& Range(double l, double h) {
    lo = l;
    hi = h;
    return *this;
  }
  Rule& Finite() {
    finite = true;
    return *this;
  }
  Rule& OmitUnless(bool condition) {
    write = condition;
    return *this;
  }
  Rule& OmitEmpty() {
    omit_empty = true;
    return *this;
  }
};
inline Rule Required() { return Rule().Required(); }
inline Rule AtLeast(double v) { return Rule().AtLeast(v); }
inline Rule InRange(double lo, double hi) { return Rule().Range(lo, hi); }
inline Rule Finite() { return Rule().Finite(); }
inline Rule OmitUnless(bool condition) { return Rule().OmitUnless(condition); }
inline Rule OmitEmpty() { return Rule().OmitEmpty(); }

class Reader;

// True for a type with a Describe overload (found by argument-dependent lookup in the record's
// namespace): such a field is a nested object.
template <class T, class = void>
struct IsRecord : std::false_type {};
template <class T>
struct IsRecord<T, std::void_t<decltype(Describe(std::declval<Reader&>(), std::declval<T&>()))>>
    : std::true_type {};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
// std::optional<R> and std::vector<R> of a record R: an optional object, an array of objects.
template <class T>
struct IsOptionalRecord : std::false_type {};
template <class T>
struct IsOptionalRecord<std::optional<T>> : IsRecord<T> {};
template <class T>
struct IsRecordVector : std::false_type {};
template <class T>
struct IsRecordVector<std::vector<T>> : IsRecord<T> {};

// A record read from an object: every error goes to *st (the first one sticks) and names the path.
template <class T>
void ReadRecord(const Json& j, const std::string& path, absl::Status* st, T* out);
template <class T>
Json WriteRecord(const T& record);

class Reader {
 public:
  static constexpr bool kReading = true;
  Reader(const Json& j, std::string path, absl::Status* st) : f_(j, std::move(path), st), st_(st) {}

  template <class T>
  void operator()(const char* key, T& value, Rule rule = {}) {
    if constexpr (IsRecord<T>::value) {
      if (const Json* o = f_.Object(key, rule.need)) ReadRecord(*o, f_.PathOf(key), st_, &value);
    } else if constexpr (IsOptionalRecord<T>::value) {
      if (const Json* o = f_.Object(key, rule.need)) {
        ReadRecord(*o, f_.PathOf(key), st_, &value.emplace());
      }
    } else if constexpr (IsRecordVector<T>::value) {
      if (const Json* a = f_.Array(key, rule.need)) {
        T items;
        items.reserve(a->size());
        for (size_t i = 0; i < a->size() && f_.ok(); ++i) {
          ReadRecord((*a)[i], IndexPath(f_.PathOf(key), i), st_, &items.emplace_back());
        }
        if (f_.ok()) value = std::move(items);
      }
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      ReadStrings(key, value, rule);
    } else {
      f_.Get(key, &value, rule.need);
      if constexpr (std::is_arithmetic_v<T>) CheckNumber(key, static_cast<double>(value), rule);
      if constexpr (std::is_same_v<T, std::vector<double>> ||
                    std::is_same_v<T, std::vector<float>>) {
        for (size_t i = 0; i < value.size() && f_.ok(); ++i) {
          CheckNumber(IndexPath(f_.PathOf(key), i), value[i], rule, /*full_path=*/true);
        }
      }
    }
  }

  // An enum written as text: `parse` gives std::optional<E>, `name` the text of a value.
  template <class E, class Parse, class Name>
  void Text(const char* key, E& value, Parse parse, Name /*name*/, const char* expected,
            Rule rule = {}) {
    std::string text;
    f_.Get(key, &text, rule.need);
    if (!f_.ok() || !f_.Has(key)) return;
    if (std::optional<E> parsed = parse(text)) {
      value = *parsed;
    } else {
      f_.Fail(f_.PathOf(key),
              absl::StrCat("unknown ", key, " \"", text, "\" (expected ", expected, ")"));
    }
  }

  // [{"FIRST": "name", "SECOND": number}, ...] as (name, number) pairs, in order.
  void Pairs(const char* key, std::vector<std::pair<std::string, double>>& value, const char* first,
             const char* second);
  // [{"NAME": "kind", "COUNT": n}, ...] as kind -> count (a kind listed twice adds up).
  void Counts(const char* key, std::map<std::string, int64_t>& value, const char* name,
              const char* count);

  // Reader-only validation across fields, run when everything so far was read without error.
  template <class F>
  void Check(F&& check) {
    if (f_.ok()) check(f_);
  }

 private:
  void CheckNumber(const std::string& key, double v, const Rule& rule, bool full_path = false);
  void ReadStrings(const char* key, std::vector<std::string>& value, const Rule& rule);

  Fields f_;
  absl::Status* st_;
};

class Writer {
 public:
  static constexpr bool kReading = false;

  template <class T>
  void operator()(const char* key, const T& value, Rule rule = {}) {
    if (!rule.write) return;
    if constexpr (IsRecord<T>::value) {
      j_[key] = WriteRecord(value);
    } else if constexpr (IsOptional<T>::value) {
      if (!value) return;
      (*this)(key, *value, rule);
    } else if constexpr (IsRecordVector<T>::value) {
      if (rule.omit_empty && value.empty()) return;
      Json a = Json::array();
      for (const auto& item : value) a.push_back(WriteRecord(item));
      j_[key] = std::move(a);
    } else if constexpr (std::is_same_v<T, double>) {
      j_[key] = Number(value);
    } else if constexpr (std::is_same_v<T, std::vector<double>>) {
      j_[key] = DoubleArray(value);
    } else if constexpr (std::is_same_v<T, std::vector<float>>) {
      j_[key] = FloatArray(value);
    } else if constexpr (std::is_same_v<T, std::string> ||
                         std::is_same_v<T, std::map<std::string, std::string>>) {
      if (rule.omit_empty && value.empty()) return;
      j_[key] = value;
    } else {
      j_[key] = value;
    }
  }

  template <class E, class Parse, class Name>
  void Text(const char* key, const E& value, Parse, Name name, const char*, Rule rule = {}) {
    if (rule.write) j_[key] = name(value);
  }

  void Pairs(const char* key, const std::vector<std::pair<std::string, double>>& value,
             const char* first, const char* second);
  void Counts(const char* key, const std::map<std::string, int64_t>& value, const char* name,
              const char* count);

  template <class F>
  void Check(F&&) {}

  Json Take() { return std::move(j_); }

 private:
  Json j_ = Json::object();
};

template <class T>
void ReadRecord(const Json& j, const std::string& path, absl::Status* st, T* out) {
  if (!st->ok()) return;
  Reader r(j, path, st);
  Describe(r, *out);
}

template <class T>
Json WriteRecord(const T& record) {
  Writer w;
  // Describe takes the record by non-const reference for the Reader's sake; the Writer only
  // reads it.
  Describe(w, const_cast<T&>(record));
  return w.Take();
}

}  // namespace flashscope::reports::jsonio
