#include "reports/render_util.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "reports/render_terminal.h"

namespace flashscope::reports::render {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

StatusCounts CountStatuses(const Report& r) {
  StatusCounts n;
  for (const CaseResult& c : r.cases) {
    switch (c.status) {
      case CaseStatus::kPassed:
        ++n.passed;
        break;
      case CaseStatus::kFailed:
        ++n.failed;
        break;
      case CaseStatus::kSkipped:
        ++n.skipped;
        break;
      case CaseStatus::kError:
        ++n.error;
        break;
      case CaseStatus::kTimeout:
        ++n.timeout;
        break;
    }
  }
  return n;
}

std::string EnvironmentLine(const Environment& e) {
  std::string s = e.gpu_name.empty() ? "no GPU named" : e.gpu_name;
  if (e.sm_count > 0) absl::StrAppend(&s, ", ", e.sm_count, " SMs");
  if (e.compute_capability > 0) absl::StrAppend(&s, ", sm_", e.compute_capability);
  if (e.devices.size() > 1) {
    std::vector<int> indices;
    for (const DeviceRecord& d : e.devices) indices.push_back(d.index);
    absl::StrAppend(&s, ", ", e.devices.size(), " GPUs (devices ", absl::StrJoin(indices, ", "),
                    ")");
  }
  if (!e.driver_version.empty()) absl::StrAppend(&s, ", driver ", e.driver_version);
  if (!e.cuda_runtime_version.empty()) absl::StrAppend(&s, ", CUDA ", e.cuda_runtime_version);
  if (!e.git_revision.empty()) absl::StrAppend(&s, ", flashscope ", e.git_revision);
  if (!e.started_at.empty()) absl::StrAppend(&s, ", ", e.started_at);
  return s;
}

std::string UnreadableJournalLines(const Report& r) {
  return absl::StrCat(r.unreadable_journal_lines, " line",
                      r.unreadable_journal_lines == 1 ? "" : "s",
                      " of the journal could not be read (cut short by a crash, or corrupted): a "
                      "case whose lines were all unreadable is missing from this report");
}

std::vector<std::string> ReportWarnings(const Report& r) {
  std::vector<std::string> w;
  if (r.environment.synthetic) {
    w.push_back("SYNTHETIC report: made by hand or by a test, never a GPU measurement");
  }
  if (!r.complete) {
    w.push_back("INCOMPLETE report: recovered from the journal of an interrupted run");
  }
  if (r.unreadable_journal_lines > 0) w.push_back(UnreadableJournalLines(r));
  return w;
}

std::vector<std::string> ComparisonWarnings(const Comparison& c) {
  std::vector<std::string> w;
  if (c.forced) w.push_back(c.ForcedBanner());
  if (!c.forced && !c.environment_note.empty()) {
    w.push_back(absl::StrCat("environment differs: ", c.environment_note));
  }
  return w;
}

std::string CaseReason(const CaseResult& c) {
  if (!c.reason.empty()) return c.reason;
  if (c.status == CaseStatus::kFailed && c.verification) return c.verification->rule;
  return "";
}

double MedianMs(const CaseResult& c) {
  if (!c.timing || c.status == CaseStatus::kSkipped) return kNaN;
  return c.timing->median_ms;
}

double TensorPct(const CaseResult& c) {
  const MetricRecord* m = FindTensorPipeMetric(c);
  return m ? m->value : kNaN;
}

double SharedPct(const CaseResult& c) {
  const MetricRecord* m = FindSharedMemoryMetric(c);
  return m ? m->value : kNaN;
}

std::map<std::string, std::vector<const GateFailure*>> FailuresByKey(const GateResult* gate) {
  std::map<std::string, std::vector<const GateFailure*>> out;
  if (gate == nullptr) return out;
  for (const GateFailure& f : gate->failures) out[f.key].push_back(&f);
  return out;
}

}  // namespace flashscope::reports::render
