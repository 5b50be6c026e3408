// The report's JSON form (docs/report-schema.md): both directions are made from the records'
// field lists in report_fields.h; here are the top level's schema check and the entry points.
#include "reports/report_json.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "reports/json_fields.h"
#include "reports/report_checks.h"
#include "reports/report_fields.h"

namespace flashscope::reports {
namespace {

using jsonio::Json;

// Names the JSON that is not a flashscope report when it is recognisably something else.
std::string WhatElseItIs(const Json& j) {
  if (!j.is_object()) return absl::StrCat("the top level is ", jsonio::TypeName(j));
  if (j.contains("context") && j.contains("benchmarks")) {
    return "it looks like Google Benchmark JSON (\"context\" + \"benchmarks\")";
  }
  auto schema = j.find("schema");
  if (schema != j.end() && schema->is_string()) {
    return absl::StrCat("its \"schema\" is \"", schema->get<std::string>(), "\"");
  }
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end() && keys.size() < 6; ++it) keys.push_back(it.key());
  return absl::StrCat("no \"schema\" key; top-level keys: ",
                      keys.empty() ? "(none)" : absl::StrJoin(keys, ", "));
}

absl::Status CheckSchema(const Json& j) {
  auto schema = j.is_object() ? j.find("schema") : j.end();
  if (!j.is_object() || schema == j.end() || !schema->is_string() ||
      schema->get<std::string>() != kReportSchemaName) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a flashscope report (expected \"schema\": \"", kReportSchemaName, "\"; ",
                     WhatElseItIs(j), ")"));
  }
  auto version = j.find("schema_version");
  if (version == j.end()) {
    return absl::InvalidArgumentError("schema_version: missing (required beside \"schema\")");
  }
  if (!version->is_number_integer()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schema_version: expected integer, got ", jsonio::TypeName(*version)));
  }
  // An unsigned value past int64 would read as negative: it is newer than anything we know.
  if (version->is_number_unsigned() && version->get<uint64_t>() > uint64_t{INT64_MAX}) {
    return absl::FailedPreconditionError(
        absl::StrCat("report schema_version ", version->get<uint64_t>(),
                     " is newer than this flashscope reads (", kSchemaVersion,
                     "); update flashscope to read it"));
  }
  const int64_t v = version->get<int64_t>();
  if (v > kSchemaVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat("report schema_version ", v, " is newer than this flashscope reads (",
                     kSchemaVersion, "); update flashscope to read it"));
  }
  if (v < kSchemaVersion) {
    return absl::FailedPreconditionError(absl::StrCat(
        "report schema_version ", v, " is older than this flashscope reads (", kSchemaVersion,
        "); re-run the suite, or read it with the flashscope release that wrote it"));
  }
  return absl::OkStatus();
}

// Reads one record of type T from `j` (the JSON path of an error starts at `j`).
template <class T>
absl::StatusOr<T> FromJson(const Json& j) {
  T out;
  absl::Status st;
  jsonio::ReadRecord(j, "", &st, &out);
  if (!st.ok()) return st;
  return out;
}

}  // namespace

std::string TimingContradiction(const TimingRecord& t) {
  if (t.samples_ms.empty()) return "";
  double lo = t.samples_ms[0], hi = t.samples_ms[0];
  for (double x : t.samples_ms) {
    if (!std::isfinite(x)) return "";  // not a usable timing: compare says so, case by case
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  // A relative slack for the decimal round trip of a number written by another tool.
  const double slack = 1e-9 * std::max(std::fabs(lo), std::fabs(hi));
  if (std::isfinite(t.median_ms) && (t.median_ms < lo - slack || t.median_ms > hi + slack)) {
    return absl::StrFormat(
        "median_ms %g contradicts samples_ms (%d samples from %g to %g): a median lies within "
        "its samples (an edited or damaged report?)",
        t.median_ms, t.samples_ms.size(), lo, hi);
  }
  if (std::isfinite(t.min_ms) && t.min_ms > 0 && std::fabs(t.min_ms - lo) > slack) {
    return absl::StrFormat(
        "min_ms %g contradicts samples_ms, whose smallest is %g: min_ms is the fastest sample",
        t.min_ms, lo);
  }
  return "";
}

absl::StatusOr<Report> ReportFromJson(const Json& j) {
  if (absl::Status s = CheckSchema(j); !s.ok()) return s;
  absl::StatusOr<Report> r = FromJson<Report>(j);
  if (r.ok()) r->schema_version = kSchemaVersion;
  return r;
}

absl::StatusOr<CaseResult> CaseFromJson(const Json& j) { return FromJson<CaseResult>(j); }
absl::StatusOr<Environment> EnvironmentFromJson(const Json& j) { return FromJson<Environment>(j); }
absl::StatusOr<DeviceRecord> DeviceFromJson(const Json& j) { return FromJson<DeviceRecord>(j); }
absl::StatusOr<SuiteRecord> SuiteFromJson(const Json& j) { return FromJson<SuiteRecord>(j); }

Json ToJson(const Report& report) {
  Json j = jsonio::WriteRecord(report);
  j["schema"] = kReportSchemaName;
  j["schema_version"] = report.schema_version;
  return j;
}

Json CaseToJson(const CaseResult& c) { return jsonio::WriteRecord(c); }
Json DeviceToJson(const DeviceRecord& d) { return jsonio::WriteRecord(d); }
Json EnvironmentToJson(const Environment& e) { return jsonio::WriteRecord(e); }
Json SuiteToJson(const SuiteRecord& s) { return jsonio::WriteRecord(s); }

}  // namespace flashscope::reports
