// What a case shows, derived once: every number a printer or the viewer shows of a case is a named,
// self-describing value here (a stable key, a short label, a unit, a hint saying how it reads and a
// one-line description), as NVBench's tagged summaries are. The printers (terminal, markdown,
// JUnit, CSV, HTML) and the viewer's tables and tooltips render these values and know none of them
// by name: a new measurement is a new value here and appears in every output.
#pragma once

#include <string>
#include <vector>

#include "reports/provenance.h"
#include "reports/report.h"

namespace flashscope::reports {

// How a value reads; each printer formats a value by its hint alone.
enum class Hint {
  kDuration,     // milliseconds: 0.0123, 1.234, 123.4
  kRate,         // TFLOPS, GB/s: one decimal
  kPercent,      // 0..100, one decimal (the unit or the label says %)
  kError,        // an error magnitude: 1.23e-03
  kRatio,        // a ratio: two decimals
  kCount,        // an integer
  kNumber,       // any other measured number: four significant digits
  kProbability,  // a p-value: two significant digits
  kText,         // a word ("passed"); the value is in SummaryValue::text
};

// What a value is, the same for every case.
struct ValueSpec {
  std::string key;    // stable, snake_case, the CSV column: "median_ms", "tensor_pipe_pct"
  std::string label;  // short, a column header: "median ms", "tensor %"
  std::string unit;   // "ms", "TFLOPS", "%", "" for none
  Hint hint = Hint::kNumber;
  std::string description;  // one plain sentence
  // A column of the compact case tables (terminal, markdown, HTML, the viewer's results); the
  // others are in the full outputs (CSV, JUnit's text, tooltips, the case view).
  bool headline = false;
};

struct SummaryValue {
  ValueSpec spec;
  double value;        // NaN when the case does not have it
  std::string text;    // Hint::kText only; "" when the case does not have it
  bool alarm = false;  // the value is why the case failed (printers may paint it)

  bool Has() const;
};

// A number as the compact tables show it by its hint; "-" for a value the case does not have.
std::string FormatValue(const SummaryValue& v);
// Every digit, for machines (CSV): "%.17g", integers as integers, "" when absent.
std::string FormatValueExact(const SummaryValue& v);

struct CaseSummary {
  const CaseResult* source = nullptr;
  std::string kernel_id, family, problem_key;
  CaseStatus status = CaseStatus::kSkipped;
  bool bad = false;    // failed, error or timeout: listed first where room is short
  std::string reason;  // skipped/error/timeout: the reason; failed: the verification rule
  std::vector<SummaryValue> values;

  const SummaryValue* Find(const std::string& key) const;
};

// The values of one case, in a fixed order (timing, throughput, verification, the basic metrics,
// resources), then every other metric its profile holds, in the profile's order.
CaseSummary SummarizeCase(const CaseResult& c);

struct StatusCounts {
  int passed = 0, failed = 0, skipped = 0, error = 0, timeout = 0;
  int total() const { return passed + failed + skipped + error + timeout; }
  int Of(CaseStatus s) const;
};

// A sentence every output shows before anything else. `severe`: the numbers are not a GPU's
// (synthetic) or cases may be missing; otherwise a caution (a run that did not finish).
struct Warning {
  std::string text;
  bool severe = true;
};

// A report's cases with their values aligned on one list of columns (the union over the cases, in
// first-seen order): cases[i].values[k] is columns[k] for every case, absent or not.
struct ReportSummary {
  const Report* source = nullptr;
  std::vector<Warning> warnings;  // synthetic, incomplete, unreadable journal lines
  std::string environment_line;   // "NVIDIA H200, 132 SMs, sm_90, driver ..., CUDA 13.0, ..."
  StatusCounts counts;
  std::vector<PluginUse> plugins;  // where the kernels came from; empty in reports before plugins
  std::vector<ValueSpec> columns;
  std::vector<CaseSummary> cases;
};

ReportSummary SummarizeReport(const Report& report);

// The headline columns that at least one case has a value of: what a compact table shows.
std::vector<size_t> HeadlineColumns(const ReportSummary& summary);

// The description of a hardware metric: the record's own, else the catalogue's
// (common/metric_catalogue.h; reports written before records carried one), else says it is a raw
// hardware metric.
std::string MetricDescription(const MetricRecord& m);

}  // namespace flashscope::reports
