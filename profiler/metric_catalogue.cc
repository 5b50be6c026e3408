#include "profiler/metric_catalogue.h"

#include <algorithm>
#include <cctype>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/closest_names.h"

namespace flashscope::profiler {
namespace {

std::vector<MetricDef> Filter(int cc) {
  std::vector<MetricDef> out;
  if (cc < 80) return out;
  for (const MetricDef& m : MetricInfos()) {
    if (m.min_cc <= cc) out.push_back(m);
  }
  return out;
}

const MetricDef* FindByName(const std::vector<MetricDef>& cat, const std::string& name) {
  for (const auto& m : cat) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const MetricDef* FindByHwName(const std::vector<MetricDef>& cat, const std::string& hw) {
  for (const auto& m : cat) {
    if (m.hw_name == hw) return &m;
  }
  return nullptr;
}

}  // namespace

const std::vector<MetricDef>& MetricCatalogue(int cc) {
  static const std::vector<MetricDef> kEmpty;
  static const std::vector<MetricDef> kSm80 = Filter(80);
  static const std::vector<MetricDef> kSm90 = Filter(90);
  if (cc < 80) return kEmpty;
  return cc >= 90 ? kSm90 : kSm80;
}

const std::vector<std::string>& BasicMetricNames() {
  static const std::vector<std::string> kBasic = [] {
    std::vector<std::string> names;
    for (const MetricDef& m : MetricInfos()) {
      if (m.basic) names.push_back(m.name);
    }
    return names;
  }();
  return kBasic;
}

std::vector<std::string> ClosestMetricNames(const std::string& name, int cc, int count) {
  std::vector<std::string> names = {"basic", "full"};
  for (const auto& m : Filter(std::max(cc, 80))) names.push_back(m.name);
  std::sort(names.begin(), names.end());  // ties come out alphabetical
  return ClosestNames(name, names, static_cast<size_t>(std::max(count, 0)));
}

absl::StatusOr<std::vector<MetricDef>> ResolveMetrics(const std::string& spec, int cc) {
  if (cc < 80) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no metric catalogue for sm_", cc, ": flashscope profiles sm_80 (Ampere) and newer"));
  }
  const std::vector<MetricDef>& cat = MetricCatalogue(cc);
  std::vector<MetricDef> out;
  auto add = [&out](const MetricDef& m) {
    for (const auto& have : out) {
      if (have.hw_name == m.hw_name) return;
    }
    out.push_back(m);
  };
  bool any = false;
  for (absl::string_view piece : absl::StrSplit(spec, ',')) {
    std::string item(absl::StripAsciiWhitespace(piece));
    if (item.empty()) continue;
    any = true;
    if (item.find("__") != std::string::npos) {
      // A raw hardware metric: CUPTI validates it when the profiler is created.
      if (const MetricDef* known = FindByHwName(cat, item)) {
        add(*known);
      } else {
        add(MetricDef{item, item, "", "raw hardware metric (not in the catalogue)", 0});
      }
      continue;
    }
    item = absl::AsciiStrToLower(item);
    if (item == "basic") {
      for (const auto& n : BasicMetricNames()) add(*FindByName(cat, n));
      continue;
    }
    if (item == "full") {
      for (const auto& m : cat) add(m);
      continue;
    }
    if (const MetricDef* m = FindByName(cat, item)) {
      add(*m);
      continue;
    }
    if (const MetricDef* newer = FindByName(MetricCatalogue(90), item)) {
      return absl::InvalidArgumentError(absl::StrCat("metric '", item, "' needs sm_", newer->min_cc,
                                                     " or newer; this GPU is sm_", cc,
                                                     "; drop it from --metrics"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("unknown metric '", item,
                     "'; closest known names: ", absl::StrJoin(ClosestMetricNames(item, cc), ", "),
                     " (see `flashscope metrics`, or pass a raw CUPTI metric name containing "
                     "'__')"));
  }
  if (!any) {
    return absl::InvalidArgumentError(
        "empty metric spec: use basic, full, or a comma list of metric names");
  }
  return out;
}

}  // namespace flashscope::profiler
