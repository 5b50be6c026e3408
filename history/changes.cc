#include "history/changes.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "analysis/change_explanation.h"
#include "reports/text_table.h"

namespace flashscope::history {
namespace {

using reports::CaseResult;
using reports::Report;

// Reports loaded for explanations, once each.
class ReportCache {
 public:
  explicit ReportCache(HistoryStore& store) : store_(store) {}
  const CaseResult* FindCase(const std::string& hash, const SeriesKey& key) {
    auto it = reports_.find(hash);
    if (it == reports_.end()) {
      auto r = store_.LoadReport(hash);
      it = reports_.emplace(hash, r.ok() ? std::optional<Report>(std::move(*r)) : std::nullopt)
               .first;
    }
    if (!it->second) return nullptr;
    for (const CaseResult& c : it->second->cases) {
      if (c.kernel_id == key.kernel_id && c.problem_key == key.problem_key) return &c;
    }
    return nullptr;
  }

 private:
  HistoryStore& store_;
  std::map<std::string, std::optional<Report>> reports_;
};

// The last run of a revision that passed: the one whose counters speak for it.
std::string LastPassedRun(const RevisionPoint& p, const SeriesKey& key, ReportCache& cache) {
  for (auto it = p.report_hashes.rbegin(); it != p.report_hashes.rend(); ++it) {
    const CaseResult* c = cache.FindCase(*it, key);
    if (c != nullptr && c->status == reports::CaseStatus::kPassed) return *it;
  }
  return p.report_hashes.empty() ? "" : p.report_hashes.back();
}

std::string Explain(ReportCache& cache, const HistoryChange& h) {
  const CaseResult* before = cache.FindCase(h.before_report, h.key);
  const CaseResult* after = cache.FindCase(h.after_report, h.key);
  if (before == nullptr || after == nullptr) {
    return absl::StrCat(reports::text::SignedPct(h.point.change * 100),
                        ": the runs around the change could not be read from the history");
  }
  return reports::ExplainChange(*before, *after, h.point.change).Line();
}

}  // namespace

int RevisionIndex(const std::vector<std::string>& revisions, const std::string& revision) {
  auto it = std::find(revisions.begin(), revisions.end(), revision);
  return it == revisions.end() ? -1 : static_cast<int>(it - revisions.begin());
}

absl::StatusOr<std::vector<SeriesChanges>> FindHistoryChanges(HistoryStore& store,
                                                              std::vector<Series> series,
                                                              const reports::GatePolicy& policy,
                                                              bool explain) {
  reports::ChangePointOptions options;
  options.alpha = policy.alpha;
  options.min_effect = policy.min_effect;
  const std::string method = reports::ChangePointMethod(options);
  ReportCache cache(store);
  std::vector<SeriesChanges> out;
  for (Series& s : series) {
    const reports::KernelOverride* o = reports::FindKernelOverride(policy, s.key.kernel_id);
    if (o != nullptr && o->ignore) continue;
    SeriesChanges sc;
    sc.series = std::move(s);
    // Only timed revisions (a passed run) form the series the detector sees.
    std::vector<int> timed;
    std::vector<reports::RevisionSamples> values;
    for (size_t i = 0; i < sc.series.points.size(); ++i) {
      const RevisionPoint& p = sc.series.points[i];
      if (!p.Timed()) continue;
      timed.push_back(static_cast<int>(i));
      values.push_back({p.median_ms, p.samples_ms});
    }
    sc.detection = reports::FindChangePoints(values, options);
    const double allowance = std::max(
        o != nullptr && o->allowed_slowdown ? *o->allowed_slowdown : policy.allowed_slowdown,
        policy.min_effect);
    for (const reports::ChangePoint& cp : sc.detection.changes) {
      HistoryChange h;
      h.key = sc.series.key;
      const RevisionPoint& before = sc.series.points[timed[cp.index - 1]];
      const RevisionPoint& after = sc.series.points[timed[cp.index]];
      h.previous_revision = before.revision;
      h.revision = after.revision;
      h.previous_seq = before.seq;
      h.seq = after.seq;
      h.point_index = timed[cp.index];
      h.point = cp;
      h.method = method;
      h.allowance = allowance;
      h.regression = cp.change > allowance;
      if (explain) {
        h.before_report = LastPassedRun(before, h.key, cache);
        h.after_report = LastPassedRun(after, h.key, cache);
        h.explanation = Explain(cache, h);
      } else {
        h.before_report = before.report_hashes.back();
        h.after_report = after.report_hashes.back();
      }
      sc.changes.push_back(std::move(h));
    }
    out.push_back(std::move(sc));
  }
  return out;
}

}  // namespace flashscope::history
