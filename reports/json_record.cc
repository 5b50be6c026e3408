#include "reports/json_record.h"

#include "absl/strings/str_format.h"
#include "reports/json_text.h"

namespace flashscope::reports::jsonio {

void Reader::CheckNumber(const std::string& key, double v, const Rule& rule, bool full_path) {
  if (!f_.ok()) return;
  const std::string where = full_path ? key : f_.PathOf(key);
  if (!std::isfinite(v)) {
    if (rule.finite || (std::isinf(v) && (rule.lo > -std::numeric_limits<double>::infinity() ||
                                          rule.hi < std::numeric_limits<double>::infinity()))) {
      f_.Fail(where, absl::StrCat("expected a finite number, got \"", Number(v).get<std::string>(),
                                  "\" (non-finite values are not allowed here)"));
    }
    return;
  }
  if (v < rule.lo || v > rule.hi) {
    f_.Fail(where, absl::StrFormat("%g is out of range [%g, %g]", v, rule.lo, rule.hi));
  }
}

void Reader::ReadStrings(const char* key, std::vector<std::string>& value, const Rule& rule) {
  const Json* a = f_.Array(key, rule.need);
  if (a == nullptr) return;
  std::vector<std::string> items;
  for (size_t i = 0; i < a->size(); ++i) {
    if (!(*a)[i].is_string()) {
      f_.Fail(IndexPath(f_.PathOf(key), i),
              absl::StrCat("expected a string, got ", TypeName((*a)[i]), " ", Excerpt((*a)[i])));
      return;
    }
    items.push_back((*a)[i].get<std::string>());
  }
  value = std::move(items);
}

void Reader::Pairs(const char* key, std::vector<std::pair<std::string, double>>& value,
                   const char* first, const char* second) {
  const Json* a = f_.Array(key);
  if (a == nullptr) return;
  std::vector<std::pair<std::string, double>> items;
  for (size_t i = 0; i < a->size() && f_.ok(); ++i) {
    Fields e((*a)[i], IndexPath(f_.PathOf(key), i), st_);
    std::pair<std::string, double>& item = items.emplace_back();
    e.Get(first, &item.first, Need::kRequired);
    e.Get(second, &item.second, Need::kRequired);
  }
  if (f_.ok()) value = std::move(items);
}

void Reader::Counts(const char* key, std::map<std::string, int64_t>& value, const char* name,
                    const char* count) {
  const Json* a = f_.Array(key);
  if (a == nullptr) return;
  std::map<std::string, int64_t> counts;
  for (size_t i = 0; i < a->size() && f_.ok(); ++i) {
    Fields e((*a)[i], IndexPath(f_.PathOf(key), i), st_);
    std::string kind;
    int64_t n = 0;
    e.Get(name, &kind, Need::kRequired);
    e.Get(count, &n, Need::kRequired);
    if (e.ok() && n < 0) e.Fail(e.PathOf(count), absl::StrCat("negative count ", n));
    if (e.ok()) counts[kind] += n;
  }
  if (f_.ok()) value = std::move(counts);
}

void Writer::Pairs(const char* key, const std::vector<std::pair<std::string, double>>& value,
                   const char* first, const char* second) {
  Json a = Json::array();
  for (const auto& [name, number] : value) a.push_back({{first, name}, {second, Number(number)}});
  j_[key] = std::move(a);
}

void Writer::Counts(const char* key, const std::map<std::string, int64_t>& value, const char* name,
                    const char* count) {
  Json a = Json::array();
  for (const auto& [kind, n] : value) a.push_back({{name, kind}, {count, n}});
  j_[key] = std::move(a);
}

}  // namespace flashscope::reports::jsonio
