#include "analysis/change_explanation.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/metric_catalogue.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

bool Profiled(const CaseResult& c) { return c.profile && c.profile->available; }

// The catalogue's short label without its unit ("L2 hit %" -> "L2 hit"), else the record's name.
std::string CounterLabel(const MetricRecord& m) {
  const MetricInfo* info = FindMetricInfo(m.name, m.hw_name);
  std::string label = info ? info->label : m.name;
  if (m.unit == "%" && absl::EndsWith(label, " %")) label.resize(label.size() - 2);
  return label;
}

// The time itself, measured by the profiler: it moves with every change and explains nothing.
bool IsTheTime(const MetricRecord& m) {
  const MetricInfo* info = FindMetricInfo(m.name, m.hw_name);
  return info != nullptr && info->name == "gpu_time";
}

double SymmetricRelative(double a, double b) {
  const double scale = std::max(std::fabs(a), std::fabs(b));
  return scale > 0 ? std::fabs(b - a) / scale : 0;
}

std::vector<MovedQuantity> MovedCounters(const ProfileRecord& before, const ProfileRecord& after) {
  std::vector<MovedQuantity> out;
  for (const MetricRecord& a : after.metrics) {
    if (IsTheTime(a) || !std::isfinite(a.value)) continue;
    auto b = std::find_if(before.metrics.begin(), before.metrics.end(), [&](const MetricRecord& m) {
      return a.hw_name.empty() || m.hw_name.empty() ? m.name == a.name : m.hw_name == a.hw_name;
    });
    if (b == before.metrics.end() || !std::isfinite(b->value)) continue;
    MovedQuantity q{CounterLabel(a), "", b->value, a.value, 0};
    if (a.unit == "%") {
      q.moved = std::fabs(a.value - b->value) / 100;
      q.text = absl::StrFormat("%s %+.1f pp", q.label, a.value - b->value);
    } else {
      q.moved = SymmetricRelative(b->value, a.value);
      q.text = b->value != 0
                   ? absl::StrCat(q.label, " ", text::SignedPct((a.value / b->value - 1) * 100))
                   : absl::StrFormat("%s 0 -> %g", q.label, a.value);
    }
    if (q.moved >= kExplainMinMoved) out.push_back(q);
  }
  std::stable_sort(out.begin(), out.end(), [](const MovedQuantity& x, const MovedQuantity& y) {
    return x.moved > y.moved;
  });
  if (out.size() > kExplainMaxCounters) out.resize(kExplainMaxCounters);
  return out;
}

void AddResource(const std::string& prefix, const char* label, double before, double after,
                 const char* unit, std::vector<MovedQuantity>* out) {
  if (before == after) return;
  MovedQuantity q;
  q.label = absl::StrCat(prefix, label);
  q.before = before;
  q.after = after;
  q.moved = SymmetricRelative(before, after);
  q.text = absl::StrFormat("%s %g%s -> %g%s", q.label, before, unit, after, unit);
  out->push_back(q);
}

void CompareResource(const std::string& prefix, const ResourceRecord& b, const ResourceRecord& a,
                     std::vector<MovedQuantity>* out) {
  AddResource(prefix, "registers", b.registers, a.registers, "", out);
  AddResource(prefix, "shared memory", b.static_smem_bytes + b.dynamic_smem_bytes,
              a.static_smem_bytes + a.dynamic_smem_bytes, " B", out);
  AddResource(prefix, "local (spills/stack)", b.local_bytes, a.local_bytes, " B/thread", out);
  AddResource(prefix, "threads/block", b.block_threads, a.block_threads, "", out);
  AddResource(prefix, "occupancy", std::round(b.theoretical_occupancy * 100),
              std::round(a.theoretical_occupancy * 100), "%", out);
}

// Functions are matched by name; a single function on each side is the same kernel even when
// renamed between revisions.
std::vector<MovedQuantity> MovedResources(const std::vector<ResourceRecord>& before,
                                          const std::vector<ResourceRecord>& after) {
  std::vector<MovedQuantity> out;
  if (before.size() == 1 && after.size() == 1) {
    CompareResource("", before[0], after[0], &out);
  } else {
    std::map<std::string, const ResourceRecord*> by_name;
    for (const ResourceRecord& b : before) by_name.emplace(b.function, &b);
    for (const ResourceRecord& a : after) {
      auto b = by_name.find(a.function);
      if (b != by_name.end()) CompareResource(a.function + " ", *b->second, a, &out);
    }
    AddResource("", "kernels", before.size(), after.size(), "", &out);
  }
  std::stable_sort(out.begin(), out.end(), [](const MovedQuantity& x, const MovedQuantity& y) {
    return x.moved > y.moved;
  });
  return out;
}

std::string Texts(const std::vector<MovedQuantity>& q) {
  std::vector<std::string> parts;
  for (const MovedQuantity& m : q) parts.push_back(m.text);
  return absl::StrJoin(parts, ", ");
}

}  // namespace

ChangeExplanation ExplainChange(const CaseResult& before, const CaseResult& after, double change) {
  ChangeExplanation e;
  e.change = change;
  e.counters_on_both = Profiled(before) && Profiled(after);
  if (e.counters_on_both) e.counters = MovedCounters(*before.profile, *after.profile);
  e.resources_on_both = !before.resources.empty() && !after.resources.empty();
  if (e.resources_on_both) e.resources = MovedResources(before.resources, after.resources);
  return e;
}

std::string ChangeExplanation::Line() const {
  std::string out = absl::StrCat(text::SignedPct(change * 100), ": ");
  if (!counters_on_both && !resources_on_both) {
    return out + "no counters or resource records on both sides to compare";
  }
  std::vector<std::string> parts;
  if (!counters.empty()) {
    parts.push_back(Texts(counters));
  } else {
    parts.push_back(counters_on_both ? absl::StrFormat("no counter moved by %g%% or more",
                                                       kExplainMinMoved * 100)
                                     : "counters not collected on both sides");
  }
  if (!resources.empty()) {
    parts.push_back(Texts(resources));
  } else if (resources_on_both) {
    parts.push_back("resources unchanged");
  }
  return absl::StrCat(out, absl::StrJoin(parts, "; "),
                      " (correlation: these moved with the time; not proven causes)");
}

}  // namespace flashscope::reports
