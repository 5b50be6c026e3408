#include "analysis/summary.h"

#include <cmath>
#include <limits>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/metric_catalogue.h"
#include "reports/text_table.h"

namespace flashscope::reports {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The values every case has (absent or not), in order. Metrics of the basic set follow them.
enum Fixed {
  kMedianMs,
  kMeanMs,
  kMinMs,
  kMaxMs,
  kNoise,
  kSamples,
  kTflops,
  kGbps,
  kPctPeakFlops,
  kPctPeakBandwidth,
  kVerified,
  kMaxAbs,
  kNrmse,
  kRatioToBaseline,
  kFixedCount
};

const std::vector<ValueSpec>& FixedSpecs() {
  static const std::vector<ValueSpec> kSpecs = {
      {"median_ms", "median ms", "ms", Hint::kDuration,
       "Median kernel time over the accepted samples (L2 flushed before each unless the suite "
       "times hot)",
       true},
      {"mean_ms", "mean ms", "ms", Hint::kDuration, "Mean kernel time over the accepted samples"},
      {"min_ms", "min ms", "ms", Hint::kDuration, "Fastest accepted sample"},
      {"max_ms", "max ms", "ms", Hint::kDuration, "Slowest accepted sample"},
      {"noise", "noise", "", Hint::kNumber,
       "Relative standard error of the median at which sampling stopped (0.005 = 0.5 %)"},
      {"samples", "samples", "", Hint::kCount, "Timing samples kept (throttled ones are rejected)"},
      {"tflops", "TFLOPS", "TFLOPS", Hint::kRate,
       "Useful work per second: the problem's FLOPs over the median time", true},
      {"gbps", "GB/s", "GB/s", Hint::kRate,
       "Minimal traffic per second: each input read once, each output written once, over the "
       "median time"},
      {"pct_peak_flops", "% peak", "%", Hint::kPercent,
       "TFLOPS as a percentage of the measured dense matmul peak of the problem's dtype", true},
      {"pct_peak_bandwidth", "% bandwidth", "%", Hint::kPercent,
       "GB/s as a percentage of the measured device-to-device copy bandwidth"},
      {"verified", "verified", "", Hint::kText,
       "The verification verdict against the reference (passed or failed); empty when not "
       "verified"},
      {"max_abs", "max err", "", Hint::kError,
       "Largest absolute error of any output element against the reference", true},
      {"nrmse", "NRMSE", "", Hint::kError,
       "Normalised root-mean-square error: ||out - ref|| / ||ref||"},
      {"ratio_to_baseline", "err/base", "x", Hint::kRatio,
       "Max error over the max error of a naive same-precision implementation; the case fails "
       "above 2",
       true},
  };
  return kSpecs;
}

const std::vector<ValueSpec>& ResourceSpecs() {
  static const std::vector<ValueSpec> kSpecs = {
      {"registers", "registers", "", Hint::kCount,
       "Registers per thread of the case's first kernel"},
      {"local_bytes", "local bytes", "bytes", Hint::kCount,
       "Local memory per thread of the case's first kernel (> 0: register spills or a stack)"},
  };
  return kSpecs;
}

// Integer-valued units read as counts, percentages as percentages, anything else as a number.
Hint HintOfUnit(const std::string& unit) {
  if (unit == "%") return Hint::kPercent;
  for (const char* count : {"bytes", "instructions", "wavefronts", "conflicts", "count"}) {
    if (unit == count) return Hint::kCount;
  }
  return Hint::kNumber;
}

ValueSpec MetricSpec(const MetricInfo& info) {
  return {info.name, info.label, info.unit, HintOfUnit(info.unit), info.description, info.basic};
}

ValueSpec MetricSpec(const MetricRecord& m) {
  const MetricInfo* info = FindMetricInfo(m.name, m.hw_name);
  ValueSpec spec;
  spec.key = m.name.empty() ? m.hw_name : m.name;
  spec.label = info != nullptr ? info->label : spec.key;
  spec.unit = m.unit;
  spec.hint = HintOfUnit(m.unit);
  spec.description = MetricDescription(m);
  return spec;
}

SummaryValue Number(const ValueSpec& spec, bool has, double v) { return {spec, has ? v : kNaN}; }

void AddTiming(const CaseResult& c, std::vector<SummaryValue>* out) {
  const auto& s = FixedSpecs();
  // A skipped case's timing, if any, is not a measurement of this kernel on this problem.
  const TimingRecord* t = c.timing && c.status != CaseStatus::kSkipped ? &*c.timing : nullptr;
  out->push_back(Number(s[kMedianMs], t, t ? t->median_ms : 0));
  out->push_back(Number(s[kMeanMs], t, t ? t->mean_ms : 0));
  out->push_back(Number(s[kMinMs], t, t ? t->min_ms : 0));
  out->push_back(Number(s[kMaxMs], t, t ? t->max_ms : 0));
  out->push_back(Number(s[kNoise], t, t ? t->noise : 0));
  out->push_back(Number(s[kSamples], t, t ? static_cast<double>(t->samples_ms.size()) : 0));
  const ThroughputRecord* th = c.throughput ? &*c.throughput : nullptr;
  out->push_back(Number(s[kTflops], th, th ? th->tflops : 0));
  out->push_back(Number(s[kGbps], th, th ? th->gbps : 0));
  out->push_back(Number(s[kPctPeakFlops], th, th ? th->pct_peak_flops : 0));
  out->push_back(Number(s[kPctPeakBandwidth], th, th ? th->pct_peak_bandwidth : 0));
}

void AddVerification(const CaseResult& c, std::vector<SummaryValue>* out) {
  const auto& s = FixedSpecs();
  const VerificationRecord* v = c.verification && c.verification->ran ? &*c.verification : nullptr;
  SummaryValue verdict{s[kVerified], kNaN};
  if (v != nullptr) verdict.text = v->passed ? "passed" : "failed";
  verdict.alarm = v != nullptr && !v->passed;
  out->push_back(verdict);
  out->push_back(Number(s[kMaxAbs], v, v ? v->stats.max_abs : 0));
  out->push_back(Number(s[kNrmse], v, v ? v->stats.nrmse : 0));
  // Without a baseline measurement (max_abs 0) the ratio means nothing.
  const bool has_ratio = v != nullptr && v->baseline_max_abs > 0;
  SummaryValue ratio = Number(s[kRatioToBaseline], has_ratio, has_ratio ? v->ratio_to_baseline : 0);
  ratio.alarm = v != nullptr && !v->passed;
  out->push_back(ratio);
}

const MetricRecord* FindMetric(const CaseResult& c, const MetricInfo& info) {
  if (!c.profile || !c.profile->available) return nullptr;
  for (const MetricRecord& m : c.profile->metrics) {
    if (FindMetricInfo(m.name, m.hw_name) == &info) return &m;
  }
  return nullptr;
}

void AddMetricsAndResources(const CaseResult& c, std::vector<SummaryValue>* out) {
  for (const MetricInfo& info : MetricInfos()) {
    if (!info.basic) continue;
    const MetricRecord* m = FindMetric(c, info);
    out->push_back(Number(MetricSpec(info), m != nullptr, m ? m->value : 0));
  }
  const ResourceRecord* r = c.resources.empty() ? nullptr : &c.resources.front();
  out->push_back(Number(ResourceSpecs()[0], r, r ? r->registers : 0));
  out->push_back(Number(ResourceSpecs()[1], r, r ? r->local_bytes : 0));
  if (!c.profile || !c.profile->available) return;
  for (const MetricRecord& m : c.profile->metrics) {
    const MetricInfo* info = FindMetricInfo(m.name, m.hw_name);
    if (info != nullptr && info->basic) continue;  // already above
    out->push_back({MetricSpec(m), m.value});
  }
}

std::string UnreadableJournalLines(const Report& r) {
  return absl::StrCat(r.unreadable_journal_lines, " line",
                      r.unreadable_journal_lines == 1 ? "" : "s",
                      " of the journal could not be read (cut short by a crash, or corrupted): a "
                      "case whose lines were all unreadable is missing from this report");
}

std::vector<Warning> Warnings(const Report& r) {
  std::vector<Warning> w;
  if (r.environment.synthetic) {
    w.push_back({"SYNTHETIC report: made by hand or by a test, never a GPU measurement"});
  }
  if (!r.complete) {
    w.push_back({"INCOMPLETE report: recovered from the journal of an interrupted run", false});
  }
  if (r.unreadable_journal_lines > 0) w.push_back({UnreadableJournalLines(r)});
  return w;
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

}  // namespace

bool SummaryValue::Has() const {
  return spec.hint == Hint::kText ? !text.empty() : !std::isnan(value);
}

std::string FormatValue(const SummaryValue& v) {
  if (v.spec.hint == Hint::kText) return v.text.empty() ? "-" : v.text;
  switch (v.spec.hint) {
    case Hint::kDuration:
      return text::Ms(v.value);
    case Hint::kRate:
    case Hint::kPercent:
      return text::Fixed(v.value, 1);
    case Hint::kError:
      return text::Sci(v.value);
    case Hint::kRatio:
      return text::Fixed(v.value, 2);
    case Hint::kCount:
      return text::Fixed(v.value, 0);
    case Hint::kProbability:
      return std::isnan(v.value) ? "-" : absl::StrFormat("%.2g", v.value);
    default:
      return std::isnan(v.value) ? "-" : absl::StrFormat("%.4g", v.value);
  }
}

std::string FormatValueExact(const SummaryValue& v) {
  if (v.spec.hint == Hint::kText) return v.text;
  if (std::isnan(v.value)) return "";
  if (std::isinf(v.value)) return v.value > 0 ? "inf" : "-inf";
  return absl::StrFormat("%.17g", v.value);
}

const SummaryValue* CaseSummary::Find(const std::string& key) const {
  for (const SummaryValue& v : values) {
    if (v.spec.key == key) return &v;
  }
  return nullptr;
}

CaseSummary SummarizeCase(const CaseResult& c) {
  CaseSummary s;
  s.source = &c;
  s.kernel_id = c.kernel_id;
  s.family = c.family;
  s.problem_key = c.problem_key;
  s.status = c.status;
  s.bad = c.status == CaseStatus::kFailed || c.status == CaseStatus::kError ||
          c.status == CaseStatus::kTimeout;
  s.reason = c.reason;
  if (s.reason.empty() && c.status == CaseStatus::kFailed && c.verification) {
    s.reason = c.verification->rule;
  }
  AddTiming(c, &s.values);
  AddVerification(c, &s.values);
  AddMetricsAndResources(c, &s.values);
  return s;
}

int StatusCounts::Of(CaseStatus s) const {
  switch (s) {
    case CaseStatus::kPassed:
      return passed;
    case CaseStatus::kFailed:
      return failed;
    case CaseStatus::kSkipped:
      return skipped;
    case CaseStatus::kError:
      return error;
    case CaseStatus::kTimeout:
      return timeout;
  }
  return 0;
}

ReportSummary SummarizeReport(const Report& r) {
  ReportSummary out;
  out.source = &r;
  out.warnings = Warnings(r);
  out.environment_line = EnvironmentLine(r.environment);
  out.plugins = PluginsOf(r);
  std::map<std::string, size_t> column_of;
  for (const CaseResult& c : r.cases) {
    CaseSummary s = SummarizeCase(c);
    int* count[] = {&out.counts.passed, &out.counts.failed, &out.counts.skipped, &out.counts.error,
                    &out.counts.timeout};
    ++*count[static_cast<int>(c.status)];
    for (const SummaryValue& v : s.values) {
      if (column_of.emplace(v.spec.key, out.columns.size()).second) out.columns.push_back(v.spec);
    }
    out.cases.push_back(std::move(s));
  }
  // Aligned: a case without a column's value gets it as absent, with the column's spec.
  for (CaseSummary& s : out.cases) {
    std::vector<SummaryValue> aligned;
    for (const ValueSpec& spec : out.columns) aligned.push_back({spec, kNaN});
    for (SummaryValue& v : s.values) aligned[column_of[v.spec.key]] = std::move(v);
    s.values = std::move(aligned);
  }
  return out;
}

std::vector<size_t> HeadlineColumns(const ReportSummary& summary) {
  std::vector<size_t> out;
  for (size_t k = 0; k < summary.columns.size(); ++k) {
    if (!summary.columns[k].headline) continue;
    for (const CaseSummary& c : summary.cases) {
      if (c.values[k].Has()) {
        out.push_back(k);
        break;
      }
    }
  }
  return out;
}

std::string MetricDescription(const MetricRecord& m) {
  if (!m.description.empty()) return m.description;
  if (const MetricInfo* info = FindMetricInfo(m.name, m.hw_name)) return info->description;
  return absl::StrCat("raw hardware metric ", m.hw_name.empty() ? m.name : m.hw_name,
                      " (not in flashscope's catalogue)");
}

}  // namespace flashscope::reports
